/**
 * First-party plugins must launch when the package itself runs from a
 * registry, where their modules are remote and the child runs with
 * `--cached-only`. This test serves the repository over HTTP on 127.0.0.1,
 * rewriting bare specifiers to `npm:` ones as a registry publish does, and
 * runs a kernel from that URL with no local config.
 */
import assert from "node:assert/strict";
import { PATH } from "./_helpers.ts";
import { servePackage } from "./_package_server.ts";

Deno.test("a kernel loaded from a remote URL launches a builtin plugin with --cached-only", async () => {
  await using server = servePackage();
  const { base, served } = server;
  const cwd = await Deno.makeTempDir({ prefix: "ph-agent-remote-" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--no-config",
        "--no-lock",
        `${base}/tests/fixtures/remote_kernel.ts`,
      ],
      cwd,
      env: { PATH, NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    const result = JSON.parse(new TextDecoder().decode(out.stdout));
    assert.equal(result.entrypoint, `${base}/plugins/echo/main.ts`);
    assert.deepEqual(result.results, [{ text: "from afar" }, {
      count: 2,
      exact: false,
    }]);
    // The plugin's own modules came from the remote origin, not the checkout.
    assert.ok(served.includes("/plugins/echo/main.ts"));
    assert.ok(served.includes("/plugins/sdk/serve.ts"));
    // The plugin took the framed transport (its module came from the
    // remote origin too), so its callback needed no gateway process.
    assert.ok(served.includes("/proto/frame.ts"));
    assert.ok(!served.includes("/kernel/callback/_gateway_main.ts"));
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});
