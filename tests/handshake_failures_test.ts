/**
 * Every way a plugin can fail to start gets its own clear error naming the
 * plugin, its path, what was expected and the tail of its stderr; nothing
 * hangs and no process is left behind.
 */
import assert from "node:assert/strict";
import {
  PluginHost,
  PluginStartError,
  type PluginStartErrorCode,
} from "../kernel/mod.ts";
import { parseManifest } from "../plugins/sdk/mod.ts";
import { DENO_ENV, ECHO_ENTRY, PATH, pidAlive, REPO } from "./_helpers.ts";

const manifest = parseManifest(
  {
    name: "broken",
    version: "1.0.0",
    category: "tool",
    protocol_version: 1,
    runtime: "executable",
    entrypoint: "plugin.sh",
  },
  "broken/plugin.json",
);

async function withScript(
  body: string,
  fn: (path: string) => Promise<void>,
  mode = 0o755,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "ph-agent-broken-" });
  const path = `${dir}/plugin.sh`;
  await Deno.writeTextFile(path, `#!/bin/sh\n${body}\n`);
  await Deno.chmod(path, mode);
  try {
    await fn(path);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function expectStartError(
  body: string,
  code: PluginStartErrorCode,
  message: RegExp,
  options: { mode?: number; startTimeoutMs?: number; stderr?: RegExp } = {},
): Promise<PluginStartError> {
  let caught: PluginStartError | undefined;
  await withScript(body, async (path) => {
    await using host = new PluginHost({
      env: { PATH },
      startTimeoutMs: options.startTimeoutMs ?? 5000,
    });
    const err = await host.launch({ manifest, entrypoint: path }).then(
      () => assert.fail("the launch should have failed"),
      (e) => e,
    );
    assert.ok(
      err instanceof PluginStartError,
      `expected PluginStartError, got ${err}`,
    );
    assert.equal(err.code, code, err.message);
    assert.equal(err.plugin, "broken");
    assert.equal(err.path, path);
    assert.ok(
      err.message.startsWith(`Cannot start plugin "broken" (${path}): `),
      err.message,
    );
    assert.match(err.message, message);
    if (options.stderr) {
      assert.match(err.stderrTail, options.stderr);
      assert.match(err.message, /--- last stderr of plugin "broken" ---/);
    }
    caught = err;
  }, options.mode);
  return caught!;
}

Deno.test("garbage on stdout before the handshake is refused, quoting it", async () => {
  await expectStartError(
    'echo "loading" >&2; echo "Welcome to my plugin!"; sleep 30',
    "plugin_handshake_invalid",
    /unrecognized handshake line "Welcome to my plugin!": expected "CORE\|APP\|NETWORK\|ADDR\|grpc"/,
    { stderr: /loading/ },
  );
});

Deno.test("a plugin that refuses the cookie exits before the handshake, and says why", async () => {
  await expectStartError(
    '[ "$PLUGGABLEHARNESS_AGENT_PLUGIN" = "some-other-cookie" ] || { echo "This binary is a plugin for another host" >&2; exit 1; }',
    "plugin_exited_before_handshake",
    /it exited \(exit code 1\) before printing a handshake line/,
    { stderr: /This binary is a plugin for another host/ },
  );
});

Deno.test("the SDK refuses to run without the magic cookie, explaining itself", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ECHO_ENTRY],
    cwd: `${REPO}/plugins/echo`,
    clearEnv: true,
    env: { PATH, ...DENO_ENV },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 1);
  assert.equal(out.stdout.length, 0, "no handshake line");
  assert.match(
    new TextDecoder().decode(out.stderr),
    /This binary is a plugin\. These are not meant to be executed directly/,
  );
});

Deno.test("an unsupported application protocol version is refused", async () => {
  await expectStartError(
    'echo "1|7|unix|/tmp/nowhere|grpc|"; sleep 30',
    "plugin_version_mismatch",
    /incompatible plugin protocol version "7": this kernel speaks 1/,
  );
});

Deno.test("an unsupported core protocol version is refused", async () => {
  await expectStartError(
    'echo "2|1|unix|/tmp/nowhere|grpc|"; sleep 30',
    "plugin_handshake_invalid",
    /unsupported core protocol version "2": expected 1/,
  );
});

Deno.test("a netrpc plugin is refused", async () => {
  await expectStartError(
    'echo "1|1|unix|/tmp/nowhere|netrpc|"; sleep 30',
    "plugin_handshake_invalid",
    /unsupported plugin protocol "netrpc": only "grpc" or "frame" is allowed/,
  );
});

Deno.test("a manifest declaring another protocol version is refused before launch", async () => {
  await using host = new PluginHost({ env: { PATH } });
  await assert.rejects(
    host.launch({
      manifest: { ...manifest, protocolVersion: 2 },
      entrypoint: "/bin/true",
    }),
    /it declares protocol version 2, this kernel speaks 1/,
  );
});

Deno.test("a plugin that exits before handshaking reports its exit code and stderr", async () => {
  await expectStartError(
    'echo "panic: cannot open config" >&2; exit 3',
    "plugin_exited_before_handshake",
    /it exited \(exit code 3\) before printing a handshake line/,
    { stderr: /panic: cannot open config/ },
  );
});

Deno.test("a plugin that never answers times out and is killed", async () => {
  const started = performance.now();
  const err = await expectStartError(
    'echo "starting up" >&2; exec sleep 30',
    "plugin_start_timeout",
    /no handshake line within 300 ms/,
    { startTimeoutMs: 300, stderr: /starting up/ },
  );
  assert.ok(performance.now() - started < 3000);
  void err;
  // `exec sleep` replaced the shell; no sleep 30 of ours may survive.
  const survivors = [...Deno.readDirSync("/proc")].filter((e) =>
    /^\d+$/.test(e.name) && pidAlive(Number(e.name)) &&
    (() => {
      try {
        return Deno.readTextFileSync(`/proc/${e.name}/cmdline`).replaceAll(
          "\0",
          " ",
        ).trim() === "sleep 30";
      } catch {
        return false;
      }
    })()
  );
  assert.deepEqual(survivors, []);
});

Deno.test("a plugin whose announced address does not answer fails its health check", async () => {
  await expectStartError(
    'echo "1|1|unix|$PLUGIN_UNIX_SOCKET_DIR/nobody-listens|grpc|"; exec sleep 30',
    "plugin_health_failed",
    /did not answer its health check at unix:.*nobody-listens/,
    { startTimeoutMs: 1500 },
  );
});

Deno.test("a binary that is not executable is refused before launch", async () => {
  await expectStartError(
    "exit 0",
    "plugin_not_executable",
    /the file is not executable/,
    { mode: 0o644 },
  );
});

Deno.test("a missing binary is refused before launch", async () => {
  await using host = new PluginHost({ env: { PATH } });
  await assert.rejects(
    host.launch({ manifest, entrypoint: "/nonexistent/plugin" }),
    (e: unknown) =>
      e instanceof PluginStartError && e.code === "plugin_not_found" &&
      /does not exist/.test(e.message),
  );
});

Deno.test("a plugin flooding stdout without a newline is cut off at 4 KiB", async () => {
  await expectStartError(
    "head -c 50000000 /dev/zero | tr '\\0' 'x'; sleep 30",
    "plugin_handshake_invalid",
    /more than 4096 bytes without a newline before its handshake line, starting "xxxx/,
  );
});

Deno.test("a plugin flooding stderr keeps the kernel's memory bounded", async () => {
  const before = Deno.memoryUsage();
  const err = await expectStartError(
    "head -c 400000000 /dev/zero | tr '\\0' 'e' >&2; echo >&2; echo 'last words' >&2; exit 5",
    "plugin_exited_before_handshake",
    /it exited \(exit code 5\)/,
    // A generous start timeout: 400 MB through a pipe takes seconds, many
    // more on a loaded machine, and the test is about memory, not time.
    { startTimeoutMs: 120_000, stderr: /last words/ },
  );
  assert.ok(
    err.stderrTail.length <= 8192,
    `stderr tail is bounded (${err.stderrTail.length})`,
  );
  // 400 MB passed through; what stays is the 8 KiB tail. RSS moves with
  // the allocator's buffer pool (about 75 MiB whether 200 MB or 1 GB
  // flows), the JS heap barely at all. RSS is the whole test process's,
  // which other test files running in parallel grow too: the bound is
  // well under the 400 MB a kernel keeping the stream would hold.
  const after = Deno.memoryUsage();
  const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;
  assert.ok(
    after.rss - before.rss < 256 * 1048576,
    `rss grew by ${mib(after.rss - before.rss)}`,
  );
  assert.ok(
    after.heapUsed - before.heapUsed < 16 * 1048576,
    `heap grew by ${mib(after.heapUsed - before.heapUsed)}`,
  );
});
