/**
 * examples/task/agent.hcl and its lock file pass `check-config --locked`.
 * `UPDATE_GOLDEN=1` re-locks the example first (the lock pins the exact
 * bytes of every plugin module).
 */
import assert from "node:assert/strict";
import { runDeno } from "./_helpers.ts";

const deno = (args: string[]) => runDeno(args);

Deno.test("check-config examples/task --locked exits 0", async () => {
  if (Deno.env.get("UPDATE_GOLDEN") === "1") {
    const lock = await deno(["run", "-A", "main.ts", "lock", "examples/task"]);
    assert.equal(lock.code, 0, lock.stderr);
  }
  const r = await deno([
    "run",
    "-A",
    "cli/commands/check_config.ts",
    "examples/task",
    "--locked",
    "--no-cache",
  ]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(
    r.stdout,
    /^The configuration is valid: 2 providers, 2 policies, 1 profile, 0 hooks\. Every provider matches the lock file\.$/m,
  );
  const explain = await deno([
    "run",
    "-A",
    "main.ts",
    "check-config",
    "examples/task",
    "--locked",
    "--explain",
    "--no-cache",
  ]);
  assert.equal(explain.code, 0, explain.stderr);
  assert.match(
    explain.stdout,
    /task_create, resource, low: allow {2}\[policy "task_changes_ok"\]/,
  );
  assert.match(
    explain.stdout,
    /task_list, data_source, read_only: allow {2}\[policy "reads_ok"\]/,
  );
});
