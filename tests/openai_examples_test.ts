/**
 * examples/openai (OpenAI's API) and examples/openai-compatible (a local
 * Ollama server) and their lock files pass `check-config --locked`.
 * `UPDATE_GOLDEN=1` re-locks them first (the lock pins the exact bytes of
 * every plugin module, so an edit to the plugin changes its checksum).
 *
 * @module
 */
import assert from "node:assert/strict";
import { PATH, REPO, runDeno } from "./_helpers.ts";

// check-config evaluates env("OPENAI_API_KEY"); an empty value counts as set,
// and no real key is ever needed.
const deno = (args: string[]) =>
  runDeno(args, { env: { PATH, OPENAI_API_KEY: "" }, clearEnv: true });

for (const example of ["openai", "openai-compatible"]) {
  Deno.test(`check-config examples/${example} --locked exits 0`, async () => {
    if (Deno.env.get("UPDATE_GOLDEN") === "1") {
      const lock = await deno([
        "run",
        "-A",
        "main.ts",
        "lock",
        `examples/${example}`,
      ]);
      assert.equal(lock.code, 0, lock.stderr);
    }
    const r = await deno([
      "run",
      "-A",
      "cli/commands/check_config.ts",
      `examples/${example}`,
      "--locked",
      "--no-cache",
    ]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /^The configuration is valid: 2 providers, 2 policies, 1 profile, 0 hooks\. Every provider matches the lock file\.$/m,
    );
    // The key never lands in the lock file.
    const lock = await Deno.readTextFile(
      `${REPO}/examples/${example}/.agent/agent.lock.hcl`,
    );
    assert.doesNotMatch(lock, /sk-/);
    assert.match(lock, /source += "builtin\/openai"/);
  });
}
