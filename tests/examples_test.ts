/** The examples run as documented. */
import assert from "node:assert/strict";
import { REPO } from "./_helpers.ts";

Deno.test("examples/launch_plugin.ts launches echo and calls every tool", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "examples/launch_plugin.ts"],
    cwd: REPO,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.match(stdout, /^launched echo@0\.1\.0 \(pid \d+\) in \d+ ms$/m);
  assert.match(stdout, /echo: \{"text":"hello from the kernel"\}/);
  assert.match(stdout, /count: progress 2\n\s+count: \{"count":3\}/);
  assert.match(stdout, /tokens: \{"count":9,"exact":false\}/);
  assert.match(stdout, /closed; exit \{"code":0,"signal":null\}/);
});
