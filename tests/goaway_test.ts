/**
 * denoland/deno#36788: Deno's node:http2 server aborts the whole process
 * (nghttp2 assertion, exit 134, or 139) when a client closes a connection
 * that has carried a few hundred streams. The first test reproduces it on a
 * bare server; the second shows that a plugin doing exactly that to the
 * kernel's callback channel costs the kernel nothing.
 */
import assert from "node:assert/strict";
import { createClient, dial } from "../proto/grpc_adapter.ts";
import { Health } from "../proto/gen/grpc/health/v1/health_pb.ts";
import { IsolatedCallbackHost, PluginHost } from "../kernel/mod.ts";
import { invoke, launchEcho, launchProbe, PATH, REPO } from "./_helpers.ts";

/** One try: 2000 calls on one connection, then close it; how the server ended. */
async function busyConnectionClosed(): Promise<Deno.CommandStatus | undefined> {
  const dir = await Deno.makeTempDir({ prefix: "ph-agent-goaway-" });
  const socket = `${dir}/s.sock`;
  const server = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${REPO}/tests/fixtures/bare_grpc_server.ts`, socket],
    cwd: REPO,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  try {
    const reader = server.stdout.pipeThrough(new TextDecoderStream())
      .getReader();
    assert.equal((await reader.read()).value?.trim(), "ready");
    reader.releaseLock();
    const channel = dial("unix", socket);
    const health = createClient(Health, channel);
    // 2000 calls, 25 in flight at a time: the same streams on the one
    // connection in a fraction of the round trips.
    for (let i = 0; i < 2000; i += 25) {
      await Promise.all(
        Array.from({ length: 25 }, () => health.check({ service: "plugin" })),
      );
    }
    channel.close(); // GOAWAY on a busy connection
    return await Promise.race([
      server.status,
      new Promise<undefined>((r) => setTimeout(() => r(undefined), 3000)),
    ]);
  } finally {
    try {
      server.kill("SIGKILL");
    } catch {
      // already dead
    }
    await server.status;
    await server.stdout.cancel().catch(() => {});
    await server.stderr.cancel().catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a bare Deno gRPC server dies when a client closes after 2000 calls (denoland/deno#36788)", async () => {
  // The crash is a race inside the server; it shows on nearly every try,
  // but not on every one (a fresh CI run at three test files at a time
  // once missed it 3 times). Six clean tries in a row mean it is gone.
  let status: Deno.CommandStatus | undefined;
  for (
    let attempt = 0;
    attempt < 6 && !(status && !status.success);
    attempt++
  ) {
    status = await busyConnectionClosed();
  }
  assert.ok(
    status && !status.success,
    "the defect no longer reproduces (6 tries): re-measure, and consider serving callbacks in-process again",
  );
  assert.ok(
    [134, 139].includes(status.code) || status.signal === "SIGABRT" ||
      status.signal === "SIGSEGV",
    `expected an abort or a segfault, got ${JSON.stringify(status)}`,
  );
});

Deno.test("a plugin closing a busy callback connection cannot take the kernel down", async () => {
  const root = await Deno.makeTempDir({ prefix: "ph-agent-goaway-" });
  const callbacks = await IsolatedCallbackHost.start({ root, env: { PATH } });
  try {
    await using host = new PluginHost({
      env: { PATH },
      callbackHost: callbacks,
      runtimeDir: root,
    });
    const [probe, echo] = await Promise.all([
      launchProbe(host),
      launchEcho(host),
    ]);
    const gateway = callbacks.gatewayPid;
    // The probe makes 2000 CountTokens calls on its own connection to the
    // kernel's callback endpoint, then closes it (GOAWAY).
    assert.deepEqual(await invoke(probe, "goaway", { n: 2000 }), { ok: 2000 });
    // Whatever that did to the gateway, this process (the kernel) is alive,
    // and callbacks work again for every plugin: the gateway is restarted
    // when it died, and plugins reconnect on their own.
    let echoAnswer, probeAnswer;
    for (let i = 0; i < 75 && !(echoAnswer && probeAnswer); i++) {
      echoAnswer ??= await invoke(echo, "tokens", { text: "12345678" }).catch(
        () => undefined,
      );
      probeAnswer ??= await invoke(probe, "tokens", { text: "1234" }).catch(
        () => undefined,
      );
      if (!(echoAnswer && probeAnswer)) {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    assert.deepEqual(echoAnswer, { count: 2, exact: false });
    assert.deepEqual(probeAnswer, { count: 1, exact: false });
    console.log(
      `gateway ${
        callbacks.restarts > 0
          ? `died and was restarted (${callbacks.restarts})`
          : "survived"
      }; pid ${gateway} -> ${callbacks.gatewayPid}`,
    );
  } finally {
    await callbacks.close();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
});
