/**
 * End-to-end transport tests: real plugin subprocesses over the go-plugin
 * compatible handshake, with the kernel's callback channel served from the
 * isolated gateway.
 */
import assert from "node:assert/strict";
import { Code, GrpcStatusError } from "../proto/grpc_status.ts";
import { ToolService } from "../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import { Category } from "../proto/gen/pluggableharness/common/v1/types_pb.ts";
import {
  type CallbackHost,
  createCallbackService,
  IsolatedCallbackHost,
  PluginCrashedError,
  PluginHost,
} from "../kernel/mod.ts";
import {
  captureLogs,
  ECHO_ENTRY,
  invoke,
  launchEcho,
  launchProbe,
  PATH,
  pidAlive,
  renderRecord,
  REPO,
  waitFor,
} from "./_helpers.ts";

Deno.test("PluginHost launches a Deno plugin: handshake, health, unary, stream, callback, shutdown", async () => {
  await using host = new PluginHost({ env: { PATH } });
  const echo = await launchEcho(host);
  assert.deepEqual(echo.identity, {
    category: "tool",
    name: "echo",
    version: "0.1.0",
    source: "builtin:echo",
  });
  assert.equal(echo.protocolVersion, 1);
  const tool = echo.client(ToolService);

  const described = await tool.describe({});
  assert.equal(described.producer?.name, "echo");
  assert.equal(described.producer?.category, Category.TOOL);

  const schema = await tool.getSchema({});
  assert.deepEqual(schema.tools.map((t) => t.name), [
    "echo",
    "count",
    "tokens",
  ]);

  await tool.configure({ config: { prefix: ">> " } });
  assert.deepEqual(await invoke(echo, "echo", { text: "hi" }), {
    text: ">> hi",
  });
  await assert.rejects(
    tool.configure({ config: { prefix: 42 } }),
    (e: unknown) =>
      e instanceof GrpcStatusError && e.code === Code.INVALID_ARGUMENT &&
      /"prefix" must be a string/.test(e.message),
  );

  // Server streaming: 1000 progress events, then the result.
  let progress = 0;
  let result: unknown;
  for await (
    const r of tool.invoke({
      call: { toolName: "count", arguments: { n: 1000 } },
    })
  ) {
    if (r.event?.event.case === "progress") {
      assert.equal(r.event.event.value.message, String(progress));
      progress++;
    } else if (r.event?.event.case === "result") {
      result = r.event.event.value.payload;
    }
  }
  assert.equal(progress, 1000);
  assert.deepEqual(result, { count: 1000 });

  // Plugin → kernel: CountTokens through broker ID 1, the fallback formula.
  assert.deepEqual(await invoke(echo, "tokens", { text: "hello world!" }), {
    count: 3,
    exact: false,
  });
  assert.deepEqual(await invoke(echo, "tokens", { text: "héllo" }), {
    count: 2,
    exact: false,
  });

  // An optional RPC the plugin does not implement answers UNIMPLEMENTED.
  await assert.rejects(
    tool.render({}),
    (e: unknown) =>
      e instanceof GrpcStatusError && e.code === Code.UNIMPLEMENTED,
  );

  const pid = echo.pid;
  const started = performance.now();
  await echo.close();
  assert.ok(
    performance.now() - started < 2000,
    "a cooperative plugin stops well inside the drain window",
  );
  assert.ok(echo.isExited);
  assert.equal((await echo.exited).code, 0, "the plugin exits 0 on Shutdown");
  assert.equal(pidAlive(pid), false);
  await assert.rejects(invoke(echo, "echo", { text: "late" }), /is closed/);
});

Deno.test("a plugin's hostConnected has resolved once the kernel has launched it (health checked, broker open)", async () => {
  await using host = new PluginHost({ env: { PATH } });
  const probe = await launchProbe(host);
  assert.deepEqual(await invoke(probe, "host_connected", {}), {
    connected: true,
  });
});

Deno.test("a plugin that exits mid-call fails its pending calls at once with a crash error", async () => {
  await using host = new PluginHost({ env: { PATH } });
  const probe = await launchProbe(host);
  const pending = invoke(probe, "sleep", { ms: 30_000 });
  const started = performance.now();
  void invoke(probe, "exit", { code: 3 }).catch(() => {});
  await assert.rejects(pending, (e: unknown) => {
    assert.ok(e instanceof PluginCrashedError, `got ${e}`);
    assert.match(e.message, /^plugin "probe" crashed \(exit code 3\)/);
    assert.equal(e.exit.code, 3);
    return true;
  });
  assert.ok(
    performance.now() - started < 2000,
    "the pending call fails at once, not at a timeout",
  );
  // Calls made after the crash fail immediately with the same error.
  await assert.rejects(
    invoke(probe, "echo"),
    /plugin "probe" crashed \(exit code 3\)/,
  );
});

Deno.test("a plugin killed by a signal is reported with the signal", async () => {
  await using host = new PluginHost({ env: { PATH } });
  const probe = await launchProbe(host);
  await assert.rejects(
    invoke(probe, "kill"),
    /plugin "probe" crashed \(signal SIGKILL\)/,
  );
});

Deno.test("close() kills a plugin that does not stop within the drain window", async () => {
  await using host = new PluginHost({ env: { PATH }, shutdownTimeoutMs: 300 });
  const probe = await launchProbe(host);
  await invoke(probe, "stubborn");
  const started = performance.now();
  await probe.close();
  const took = performance.now() - started;
  assert.ok(
    took >= 250 && took < 2500,
    `killed after the drain window (${took.toFixed(0)} ms)`,
  );
  assert.equal((await probe.exited).signal, "SIGKILL");
  assert.equal(pidAlive(probe.pid), false);
});

Deno.test("the producer identity is bound to the connection, never to a request", async () => {
  const seen: string[] = [];
  await using host = new PluginHost({
    env: { PATH },
    callbackImpl: (identity) =>
      createCallbackService({
        identity,
        extend: {
          countTokens: () => {
            seen.push(identity.name);
            return { count: BigInt(identity.name.length), exact: true };
          },
        },
      }),
  });
  const [echo, probe] = await Promise.all([
    launchEcho(host),
    launchProbe(host),
  ]);
  assert.deepEqual(await invoke(echo, "tokens", { text: "x" }), {
    count: 4,
    exact: true,
  });
  assert.deepEqual(await invoke(probe, "tokens", { text: "x" }), {
    count: 5,
    exact: true,
  });
  assert.deepEqual(seen.sort(), ["echo", "probe"]);
});

Deno.test("Log relays plugin entries into the kernel's logging; FATAL is only a label", async () => {
  await using logs = await captureLogs();
  await using host = new PluginHost({ env: { PATH } });
  const probe = await launchProbe(host);
  assert.deepEqual(await invoke(probe, "log", { message: "disk {full}" }), {
    logged: true,
  });
  const fatal = logs.records.find((r) => r.level === "fatal");
  assert.ok(fatal, "the FATAL entry reached the kernel's log");
  assert.deepEqual(fatal.category, ["ph-agent", "plugin", "probe"]);
  assert.equal(
    fatal.properties.message,
    "disk {full}",
    "braces are text, not placeholders",
  );
  assert.equal(fatal.properties.producer, "tool/probe@0.0.1");
  assert.ok(
    logs.records.some((r) =>
      r.level === "warning" &&
      /Skipped malformed log entry/.test(renderRecord(r))
    ),
    "the malformed entry was skipped with a warning",
  );
  // FATAL ended nothing: the plugin still answers.
  assert.deepEqual(await invoke(probe, "tokens", { text: "abcd" }), {
    count: 1,
    exact: false,
  });
});

Deno.test("plugins also run over TCP on 127.0.0.1 with exactly their two ports granted", async () => {
  await using host = new PluginHost({ env: { PATH } });
  const echo = await launchEcho(host, { tcp: true });
  assert.deepEqual(await invoke(echo, "echo", { text: "tcp" }), {
    text: "tcp",
  });
  assert.deepEqual(await invoke(echo, "tokens", { text: "12345678" }), {
    count: 2,
    exact: false,
  });
});

Deno.test("four plugins launch concurrently and each answers", async () => {
  await using host = new PluginHost({ env: { PATH } });
  const plugins = await Promise.all([1, 2, 3, 4].map(() => launchEcho(host)));
  assert.equal(new Set(plugins.map((p) => p.pid)).size, 4);
  const answers = await Promise.all(
    plugins.map((p, i) => invoke(p, "echo", { text: String(i) })),
  );
  assert.deepEqual(answers, [{ text: "0" }, { text: "1" }, { text: "2" }, {
    text: "3",
  }]);
  await host.close();
  for (const p of plugins) assert.equal(pidAlive(p.pid), false);
});

Deno.test("a plugin's callback channel (and the gateway behind it) opens at its first callback, not at its start", async () => {
  const root = await Deno.makeTempDir({ prefix: "ph-agent-test-" });
  let opened = 0;
  let gateway: IsolatedCallbackHost | undefined;
  const counting: CallbackHost = {
    async open(options) {
      opened++;
      gateway ??= await IsolatedCallbackHost.start({ root, env: { PATH } });
      return gateway.open(options);
    },
    close: () => gateway?.close() ?? Promise.resolve(),
  };
  try {
    await using host = new PluginHost({
      env: { PATH },
      callbackHost: counting,
      runtimeDir: root,
      frame: false, // the gateway serves gRPC plugins only
    });
    const echo = await launchEcho(host);
    assert.deepEqual(await invoke(echo, "echo", { text: "hi" }), {
      text: "hi",
    });
    assert.equal(opened, 0, "no endpoint while the plugin never called back");
    assert.equal(gateway, undefined, "no gateway process either");
    // Its first callback knocks on the broker stream; the kernel opens the
    // endpoint, announces it, and the call goes through.
    assert.deepEqual(await invoke(echo, "tokens", { text: "abcd" }), {
      count: 1,
      exact: false,
    });
    assert.equal(opened, 1);
  } finally {
    await counting.close();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
});

Deno.test("the callback gateway is restarted after it dies, and plugins reconnect", async () => {
  const root = await Deno.makeTempDir({ prefix: "ph-agent-test-" });
  const callbacks = await IsolatedCallbackHost.start({ root, env: { PATH } });
  try {
    await using host = new PluginHost({
      env: { PATH },
      callbackHost: callbacks,
      runtimeDir: root,
      frame: false, // the gateway serves gRPC plugins only
    });
    const echo = await launchEcho(host);
    assert.deepEqual(await invoke(echo, "tokens", { text: "abcd" }), {
      count: 1,
      exact: false,
    });
    Deno.kill(callbacks.gatewayPid!, "SIGKILL");
    assert.ok(
      await waitFor(() => callbacks.restarts === 1, 5000),
      "the gateway was restarted",
    );
    // The plugin's channel reconnects to the same socket path by itself.
    let answer;
    for (let i = 0; i < 50 && !answer; i++) {
      answer = await invoke(echo, "tokens", { text: "abcdefgh" }).catch(() =>
        undefined
      );
      if (!answer) await new Promise((r) => setTimeout(r, 200));
    }
    assert.deepEqual(answer, { count: 2, exact: false });
  } finally {
    await callbacks.close();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
});

Deno.test("killing the kernel leaves no orphan plugin", async () => {
  const kernel = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${REPO}/tests/fixtures/kernel_main.ts`, ECHO_ENTRY],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = kernel.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  const pid = Number(text.trim());
  assert.ok(pid > 0 && pidAlive(pid), `the plugin runs (pid ${pid})`);
  Deno.kill(kernel.pid, "SIGKILL");
  await kernel.status;
  await reader.cancel();
  assert.ok(
    await waitFor(() => !pidAlive(pid), 5000),
    "the plugin exits once its kernel is gone",
  );
});
