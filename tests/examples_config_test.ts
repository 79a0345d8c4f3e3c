/**
 * examples/agent.hcl and its lock file pass `check-config --locked`, as the
 * README shows. `deno task test:update` (UPDATE_GOLDEN=1) re-locks the
 * example first: the lock pins the exact bytes of every plugin module, so
 * an edit to the SDK or the protocol code changes echo's checksum.
 */
import assert from "node:assert/strict";
import { runDeno } from "./_helpers.ts";

const deno = (args: string[]) => runDeno(args);

Deno.test("check-config examples --locked exits 0", async () => {
  if (Deno.env.get("UPDATE_GOLDEN") === "1") {
    const lock = await deno(["run", "-A", "main.ts", "lock", "examples"]);
    assert.equal(lock.code, 0, lock.stderr);
  }
  const r = await deno([
    "run",
    "-A",
    "cli/commands/check_config.ts",
    "examples",
    "--locked",
    "--no-cache",
  ]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(
    r.stdout,
    /^The configuration is valid, with 1 warning: 2 providers, 4 policies, 2 profiles, 1 hook\. Every provider matches the lock file\.$/m,
  );
  // The profile's slash_commands are accepted but not routed yet.
  assert.match(
    r.stdout,
    /warning\[W_NO_EFFECT\]: slash_commands has no effect/,
  );
  const explain = await deno([
    "run",
    "-A",
    "main.ts",
    "check-config",
    "examples",
    "--locked",
    "--explain",
    "--no-cache",
  ]);
  assert.equal(explain.code, 0, explain.stderr);
  assert.match(
    explain.stdout,
    /delete_note, resource, high: deny {2}\[policy "never_delete_notes"\]/,
  );
  assert.match(
    explain.stdout,
    /--allow-net=unix:<socket dir>\/plugin\.sock,unix:<socket dir>\/kernel\.sock,sync\.notes\.example:443/,
  );
});
