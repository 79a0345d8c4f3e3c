/**
 * examples/web/agent.hcl and its lock file pass `check-config --locked`.
 * `deno task test:update` (UPDATE_GOLDEN=1) re-locks the example first.
 */
import assert from "node:assert/strict";
import { runDeno } from "./_helpers.ts";

const deno = async (args: string[]) => {
  const r = await runDeno(args);
  return { code: r.code, out: r.stdout + r.stderr };
};

Deno.test("check-config examples/web --locked exits 0", async () => {
  if (Deno.env.get("UPDATE_GOLDEN") === "1") {
    const lock = await deno(["run", "-A", "main.ts", "lock", "examples/web"]);
    assert.equal(lock.code, 0, lock.out);
  }
  const r = await deno([
    "run",
    "-A",
    "cli/commands/check_config.ts",
    "examples/web",
    "--locked",
    "--no-cache",
  ]);
  assert.equal(r.code, 0, r.out);
  assert.match(
    r.out,
    /The configuration is valid.*: 2 providers, 1 policy, 1 profile, 0 hooks\. Every provider matches the lock file\./,
  );
});
