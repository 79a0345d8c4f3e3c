/**
 * The framed transport end to end: a real plugin on our SDK takes it in
 * its handshake, the kernel serves its callbacks on the same connection
 * (no callback endpoint, no gateway process), and the kernel falls back to
 * gRPC when the transport is turned off.
 */
import assert from "node:assert/strict";
import { ToolService } from "../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import { type CallbackHost, PluginHost } from "../kernel/mod.ts";
import { invoke, launchEcho, PATH, pidAlive } from "./_helpers.ts";

/** A callback host that counts the endpoints asked of it. */
function countingHost(): CallbackHost & { opened: number } {
  const host = {
    opened: 0,
    open() {
      host.opened++;
      return Promise.reject(new Error("no endpoint expected"));
    },
    close: () => Promise.resolve(),
  };
  return host;
}

Deno.test("a plugin on our SDK takes the framed transport: calls, a 1000-message stream and callbacks on one connection, with no callback endpoint", async () => {
  const callbacks = countingHost();
  await using host = new PluginHost({ env: { PATH }, callbackHost: callbacks });
  const echo = await launchEcho(host);
  assert.equal(echo.transport, "frame");
  assert.deepEqual(await invoke(echo, "echo", { text: "hi" }), { text: "hi" });
  let progress = 0;
  for await (
    const r of echo.client(ToolService).invoke({
      call: { toolName: "count", arguments: { n: 1000 } },
    })
  ) {
    if (r.event?.event.case === "progress") progress++;
  }
  assert.equal(progress, 1000);
  // A callback (CountTokens) from the plugin to the kernel.
  assert.deepEqual(await invoke(echo, "tokens", { text: "abcd" }), {
    count: 1,
    exact: false,
  });
  assert.equal(callbacks.opened, 0, "no endpoint, hence no gateway");
  const pid = echo.pid;
  await host.close();
  assert.equal(pidAlive(pid), false);
});

Deno.test("PluginHostOptions.frame false and AGENT_PLUGIN_FRAME=off keep a plugin on gRPC, with its callbacks through an endpoint", async (t) => {
  for (
    const [name, options] of [
      ["frame: false", { env: { PATH }, frame: false }],
      ["AGENT_PLUGIN_FRAME=off", { env: { PATH, AGENT_PLUGIN_FRAME: "off" } }],
    ] as const
  ) {
    await t.step(name, async () => {
      await using host = new PluginHost(options);
      const echo = await launchEcho(host);
      assert.equal(echo.transport, "grpc");
      assert.deepEqual(await invoke(echo, "tokens", { text: "abcd" }), {
        count: 1,
        exact: false,
      });
    });
  }
});

Deno.test("a TCP launch is never offered the framed transport", async () => {
  await using host = new PluginHost({ env: { PATH } });
  const echo = await launchEcho(host, { tcp: true });
  assert.equal(echo.transport, "grpc");
  assert.deepEqual(await invoke(echo, "echo", { text: "x" }), { text: "x" });
});
