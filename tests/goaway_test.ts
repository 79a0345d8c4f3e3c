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

/** `promise`, or a failure naming `what` after 60 s without an end. */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${what} did not end within 60 s`)),
          60_000,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("a plugin closing a busy callback connection cannot take the kernel down", async () => {
  const root = await Deno.makeTempDir({ prefix: "ph-agent-goaway-" });
  const callbacks = await IsolatedCallbackHost.start({ root, env: { PATH } });
  const host = new PluginHost({
    env: { PATH },
    callbackHost: callbacks,
    runtimeDir: root,
    frame: false, // the gateway (and HTTP/2) serve gRPC plugins only
  });
  // Every step is bounded: a step that never ends fails the test, naming
  // itself, instead of holding the whole suite.
  try {
    const [probe, echo] = await within(
      Promise.all([launchProbe(host), launchEcho(host)]),
      "launching the two plugins",
    );
    const gateway = callbacks.gatewayPid;
    // The probe makes 2000 CountTokens calls on its own connection to the
    // kernel's callback endpoint, then closes it (GOAWAY).
    assert.deepEqual(
      await within(invoke(probe, "goaway", { n: 2000 }), "the 2000 calls"),
      { ok: 2000 },
    );
    // Whatever that did to the gateway, this process (the kernel) is alive,
    // and callbacks work again for every plugin: the gateway is restarted
    // when it died, and plugins reconnect on their own.
    let echoAnswer, probeAnswer;
    for (let i = 0; i < 75 && !(echoAnswer && probeAnswer); i++) {
      // A call that fails is tried again; one that never answers fails the
      // test (it would otherwise hold the whole suite).
      echoAnswer ??= await within(
        invoke(echo, "tokens", { text: "12345678" }).catch(() => undefined),
        "the echo plugin's callback",
      );
      probeAnswer ??= await within(
        invoke(probe, "tokens", { text: "1234" }).catch(() => undefined),
        "the probe plugin's callback",
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
    await within(host[Symbol.asyncDispose](), "stopping the plugins");
    await within(callbacks.close(), "stopping the callback gateway");
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
});
