import assert from "node:assert/strict";
import { sandboxHint } from "./_sandbox_hint.ts";

Deno.test("sandboxHint() explains a server that cannot write Deno's read-only cache or reach the network in the OS sandbox", () => {
  assert.match(
    sandboxHint(
      'error: Failed caching npm package "x@1.0.0"\n    Read-only file system (os error 30)',
    ),
    /module cache is read-only: cache the server's package on the host first.*DENO_DIR of its own in env, granted with allow_write/,
  );
  assert.match(
    sandboxHint(
      "client error (Connect): dns error: failed to lookup address information: Temporary failure in name resolution",
    ),
    /has the network only when the mcp provider block grants allow_net/,
  );
  assert.equal(sandboxHint("flaky: crashing now"), "");
});
