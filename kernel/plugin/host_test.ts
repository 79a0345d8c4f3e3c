/**
 * PluginHost's launch logic driven through a fake ProcessLauncher: no
 * process is spawned, so each test decides exactly what the "child" prints
 * and when it exits, and sees exactly the command line it was given.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { PluginManifest } from "../../contract/manifest.ts";
import type { PermissionGrant } from "../../contract/permissions.ts";
import {
  MAGIC_COOKIE_KEY,
  MAGIC_COOKIE_VALUE,
  PLUGIN_SOCKET_NAME,
} from "../../proto/handshake.ts";
import { CALLBACK_SOCKET_NAME } from "../callback/host.ts";
import type {
  LaunchedProcess,
  ProcessCommand,
  ProcessLauncher,
  ProcessStatus,
} from "../process/launcher.ts";
import { PluginStartError, type PluginStartErrorCode } from "./errors.ts";
import { PluginHost, type PluginHostOptions, SDK_ENV_NAMES } from "./host.ts";
import { PLUGIN_V8_FLAGS } from "../process/_v8_flags.ts";
import { DENO_RUNTIME_ENV_NAMES } from "../../contract/runtime_env.ts";
import { defaultInstallationKeyPath } from "../state/installation_key.ts";

const encoder = new TextEncoder();

/** A child whose output and exit the test scripts. */
class FakeProcess implements LaunchedProcess {
  readonly pid: number;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly status: Promise<ProcessStatus>;
  /** Every signal sent to the process group. */
  readonly signals: Deno.Signal[] = [];
  #out!: ReadableStreamDefaultController<Uint8Array>;
  #err!: ReadableStreamDefaultController<Uint8Array>;
  #exit = Promise.withResolvers<ProcessStatus>();
  #exited = false;

  constructor(pid: number) {
    this.pid = pid;
    this.stdout = new ReadableStream({ start: (c) => void (this.#out = c) });
    this.stderr = new ReadableStream({ start: (c) => void (this.#err = c) });
    this.status = this.#exit.promise;
  }

  printStdout(text: string): void {
    this.#out.enqueue(encoder.encode(text));
  }

  printStderr(text: string): void {
    this.#err.enqueue(encoder.encode(text));
  }

  exit(code: number, signal: string | null = null): void {
    if (this.#exited) return;
    this.#exited = true;
    this.#out.close();
    this.#err.close();
    this.#exit.resolve({ code, signal });
  }

  kill(signal: Deno.Signal): void {
    this.signals.push(signal);
    this.exit(128 + 9, signal);
  }
}

/** Records every command and runs a scripted behaviour instead of it. */
class FakeLauncher implements ProcessLauncher {
  readonly commands: ProcessCommand[] = [];
  readonly processes: FakeProcess[] = [];
  #behave: (child: FakeProcess, command: ProcessCommand) => void;

  constructor(behave: (child: FakeProcess, command: ProcessCommand) => void) {
    this.#behave = behave;
  }

  start(command: ProcessCommand): LaunchedProcess {
    this.commands.push(command);
    const child = new FakeProcess(900_000 + this.processes.length);
    this.processes.push(child);
    this.#behave(child, command);
    return child;
  }
}

function manifest(overrides: Partial<PluginManifest> = {}): PluginManifest {
  return {
    name: "fake",
    version: "1.0.0",
    category: "tool",
    protocolVersion: 1,
    runtime: "executable",
    entrypoint: "plugin.sh",
    capabilities: { env: [], run: [], read: [], write: [], net: [] },
    ...overrides,
  };
}

/** A temporary plugin directory with an executable entrypoint. */
async function withPluginDir(
  fn: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "ph-agent-fake-" });
  try {
    await Deno.writeTextFile(join(dir, "plugin.sh"), "#!/bin/sh\n");
    await Deno.chmod(join(dir, "plugin.sh"), 0o755);
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The command a `bwrap … -- <command>` wraps (any other as it is). */
function unwrapSandbox(command: ProcessCommand): ProcessCommand {
  const i = command.args.indexOf("--");
  if (command.command !== "bwrap" || i < 0) return command;
  return {
    ...command,
    command: command.args[i + 1]!,
    args: command.args.slice(i + 2),
  };
}

async function launchError(
  launcher: FakeLauncher,
  dir: string,
  options: Partial<PluginHostOptions> & {
    signal?: AbortSignal;
    grant?: PermissionGrant;
  } = {},
  pluginManifest: PluginManifest = manifest(),
): Promise<PluginStartError> {
  const { signal, grant, ...hostOptions } = options;
  await using host = new PluginHost({
    env: { PATH: "/usr/bin:/bin" },
    runtimeDir: join(dir, "run"),
    cwd: dir,
    launcher,
    ...hostOptions,
  });
  const err = await host.launch(
    {
      manifest: pluginManifest,
      entrypoint: join(dir, "plugin.sh"),
      ...(grant ? { grant } : {}),
    },
    signal ? { signal } : {},
  ).then(
    () => assert.fail("the launch should have failed"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof PluginStartError, `got ${err}`);
  return err;
}

function assertRefused(
  err: PluginStartError,
  code: PluginStartErrorCode,
  message: RegExp,
  dir: string,
): void {
  assert.equal(err.code, code, err.message);
  assert.equal(err.plugin, "fake");
  assert.equal(err.path, join(dir, "plugin.sh"));
  assert.match(err.message, message);
}

Deno.test("a handshake line with another application protocol version is refused as plugin_version_mismatch, killing the group", async () => {
  await withPluginDir(async (dir) => {
    const launcher = new FakeLauncher((child) =>
      child.printStdout("1|7|unix|/tmp/nowhere|grpc|\n")
    );
    const err = await launchError(launcher, dir);
    assertRefused(
      err,
      "plugin_version_mismatch",
      /incompatible plugin protocol version "7": this kernel speaks 1/,
      dir,
    );
    assert.deepEqual(launcher.processes[0]!.signals, ["SIGKILL"]);
    // The plugin's private directory is gone.
    assert.deepEqual([...Deno.readDirSync(join(dir, "run"))], []);
  });
});

Deno.test("a handshake line with another core protocol version is refused as plugin_handshake_invalid", async () => {
  await withPluginDir(async (dir) => {
    const launcher = new FakeLauncher((child) => {
      child.printStderr("starting\n");
      child.printStdout("2|1|unix|/tmp/nowhere|grpc|\n");
    });
    const err = await launchError(launcher, dir);
    assertRefused(
      err,
      "plugin_handshake_invalid",
      /unsupported core protocol version "2": expected 1/,
      dir,
    );
    assert.equal(err.stderrTail, "starting\n");
  });
});

Deno.test("a child that refuses the magic cookie exits before its handshake and is reported with its stderr tail", async () => {
  await withPluginDir(async (dir) => {
    const launcher = new FakeLauncher((child, command) => {
      if (command.env[MAGIC_COOKIE_KEY] !== "some-other-cookie") {
        child.printStderr("This binary is a plugin for another host\n");
        child.exit(1);
      }
    });
    const err = await launchError(launcher, dir);
    assertRefused(
      err,
      "plugin_exited_before_handshake",
      /it exited \(exit code 1\) before printing a handshake line/,
      dir,
    );
    assert.equal(err.stderrTail, "This binary is a plugin for another host\n");
    assert.match(
      err.message,
      /--- last stderr of plugin "fake" ---\nThis binary is a plugin for another host$/,
    );
    assert.equal(
      launcher.commands[0]!.env[MAGIC_COOKIE_KEY],
      MAGIC_COOKIE_VALUE,
    );
    // It exited by itself: nothing left to kill but the group, once.
    assert.deepEqual(launcher.processes[0]!.signals, ["SIGKILL"]);
  });
});

Deno.test("a frontend started on the terminal runs with one malloc arena (MALLOC_ARENA_MAX=1), and a fixed mmap threshold, and the same plugin started headless does not; both get the V8 flags of every plugin", async () => {
  await withPluginDir(async (dir) => {
    const launcher = new FakeLauncher((child) => child.exit(0));
    await using host = new PluginHost({
      env: { PATH: "/usr/bin:/bin" },
      runtimeDir: join(dir, "run"),
      cwd: dir,
      launcher,
    });
    const frontend = manifest({
      category: "frontend",
      terminal: true,
      runtime: "deno",
    });
    for (const terminal of [true, false]) {
      await host.launch({
        manifest: frontend,
        entrypoint: join(dir, "plugin.sh"),
        ...(terminal ? { terminal } : {}),
      }).then(() => assert.fail("the launch should have failed"), () => {});
    }
    const [onTerminal, headless] = launcher.commands.map(unwrapSandbox);
    assert.equal(onTerminal!.env.MALLOC_ARENA_MAX, "1");
    assert.equal(
      onTerminal!.env.GLIBC_TUNABLES,
      "glibc.malloc.mmap_threshold=131072",
    );
    assert.equal(headless!.env.MALLOC_ARENA_MAX, undefined);
    assert.equal(headless!.env.GLIBC_TUNABLES, undefined);
    assert.ok(onTerminal!.args.includes(PLUGIN_V8_FLAGS));
    assert.ok(headless!.args.includes(PLUGIN_V8_FLAGS));
  });
});

Deno.test("what a child printed before exiting without a handshake line is quoted", async () => {
  await withPluginDir(async (dir) => {
    const launcher = new FakeLauncher((child) => {
      child.printStdout("Welcome");
      child.exit(3);
    });
    const err = await launchError(launcher, dir);
    assertRefused(
      err,
      "plugin_exited_before_handshake",
      /it exited \(exit code 3\) before printing a handshake line; it printed "Welcome"/,
      dir,
    );
  });
});

Deno.test("a cancelled launch kills the child and says so", async () => {
  await withPluginDir(async (dir) => {
    const ac = new AbortController();
    const launcher = new FakeLauncher(() => ac.abort());
    const err = await launchError(launcher, dir, { signal: ac.signal });
    assertRefused(
      err,
      "plugin_start_timeout",
      /: the launch was cancelled$/,
      dir,
    );
    assert.deepEqual(launcher.processes[0]!.signals, ["SIGKILL"]);
  });
});

Deno.test("a launcher that cannot execute the file is reported as plugin_not_executable and leaves no directory", async () => {
  await withPluginDir(async (dir) => {
    const launcher = new FakeLauncher(() => {
      throw new Deno.errors.PermissionDenied("Permission denied (os error 13)");
    });
    const err = await launchError(launcher, dir);
    assertRefused(
      err,
      "plugin_not_executable",
      /cannot execute it: Permission denied \(os error 13\)$/,
      dir,
    );
    assert.deepEqual([...Deno.readDirSync(join(dir, "run"))], []);
  });
});

Deno.test("a refused preflight never reaches the launcher", async () => {
  await withPluginDir(async (dir) => {
    const launcher = new FakeLauncher(() => assert.fail("spawned"));
    const err = await launchError(
      launcher,
      dir,
      {},
      manifest({ capabilities: { ...manifest().capabilities, run: ["git"] } }),
    );
    assertRefused(
      err,
      "plugin_permission_denied",
      /asks for permissions the operator did not grant: run permission "git" is not granted$/,
      dir,
    );
    assert.equal(launcher.commands.length, 0);
  });
});

Deno.test("a Deno plugin's command line has no -A, exactly the granted flags, and an env of the handshake variables, PATH and its grant", async () => {
  await withPluginDir(async (dir) => {
    const data = join(dir, "data");
    await Deno.mkdir(data);
    await Deno.writeTextFile(join(dir, "deno.json"), "{}\n");
    const launcher = new FakeLauncher((child) => child.exit(0));
    const denoManifest = manifest({
      runtime: "deno",
      entrypoint: "plugin.sh",
      capabilities: {
        env: ["GRANTED_TOKEN", "UNSET_TOKEN"],
        run: ["echo"],
        read: [data],
        write: [],
        net: ["127.0.0.1:9"],
      },
    });
    const err = await launchError(launcher, dir, {
      env: {
        PATH: "/opt/bin:/usr/bin",
        GRANTED_TOKEN: "tok",
        KERNEL_SECRET: "s3cr3t",
        OTHER: "x",
        HOME: "/root",
      },
      // The operator grants more than the manifest asks for.
      grant: {
        env: ["GRANTED_TOKEN", "UNSET_TOKEN", "OTHER"],
        run: ["echo", "ls"],
        read: [data, "/etc"],
        net: ["127.0.0.1:9", "127.0.0.1:10"],
      },
    }, denoManifest);
    assert.equal(err.code, "plugin_exited_before_handshake");
    assert.equal(launcher.commands.length, 1);
    // The OS sandbox (on by default where bubblewrap works) wraps the
    // command as `bwrap <view> -- <command>`: this test is about the Deno
    // command line inside it (tests/sandbox_test.ts covers the view).
    const command = unwrapSandbox(launcher.commands[0]!);
    const sockets = join(dir, "run", "p1");
    assert.equal(command.command, Deno.execPath());
    assert.equal(command.cwd, dir);
    const keyPath = await Deno.realPath(
      defaultInstallationKeyPath((k) => k === "HOME" ? "/root" : undefined),
    ).catch(() =>
      defaultInstallationKeyPath((k) => k === "HOME" ? "/root" : undefined)
    );
    assert.deepEqual(command.args, [
      "run",
      "--cached-only",
      "--no-prompt",
      PLUGIN_V8_FLAGS,
      "--config",
      join(dir, "deno.json"),
      `--allow-env=${
        [
          ...SDK_ENV_NAMES,
          ...DENO_RUNTIME_ENV_NAMES,
          "GRANTED_TOKEN",
          "UNSET_TOKEN",
        ].join(",")
      }`,
      "--allow-run=echo",
      `--allow-read=${sockets},${data}`,
      `--allow-write=${sockets}`,
      `--allow-net=unix:${join(sockets, PLUGIN_SOCKET_NAME)},unix:${
        join(sockets, CALLBACK_SOCKET_NAME)
      },127.0.0.1:9`,
      // The installation key is never the plugin's, whatever it is granted.
      `--deny-read=${keyPath}`,
      `--deny-write=${keyPath}`,
      join(dir, "plugin.sh"),
    ]);
    assert.ok(!command.args.some((a) => a === "-A" || a === "--allow-all"));
    // The kernel process's own npm registry, when it has one, is the
    // only runtime setting not taken from the (here empty) kernel env.
    const registry = Deno.env.get("NPM_CONFIG_REGISTRY");
    assert.deepEqual(
      Object.keys(command.env).sort(),
      [
        "DENO_DIR",
        "DENO_NO_UPDATE_CHECK",
        "GRANTED_TOKEN",
        "NO_COLOR",
        ...(registry ? ["NPM_CONFIG_REGISTRY"] : []),
        "OTEL_RESOURCE_ATTRIBUTES",
        "PATH",
        "PLUGGABLEHARNESS_AGENT_PLUGIN",
        "PLUGGABLEHARNESS_LOG_LEVEL",
        "PLUGGABLEHARNESS_TRANSPORTS",
        "PLUGIN_MAX_PORT",
        "PLUGIN_MIN_PORT",
        "PLUGIN_PROTOCOL_VERSIONS",
        "PLUGIN_UNIX_SOCKET_DIR",
        "TMPDIR",
      ],
    );
    assert.equal(command.env.PATH, "/opt/bin:/usr/bin");
    assert.equal(command.env.GRANTED_TOKEN, "tok");
    // The kernel's Log floor (default handlers, default telemetry: info).
    assert.equal(command.env.PLUGGABLEHARNESS_LOG_LEVEL, "info");
    assert.equal(command.env.PLUGIN_UNIX_SOCKET_DIR, sockets);
    // The framed transport is offered on unix sockets.
    assert.equal(command.env.PLUGGABLEHARNESS_TRANSPORTS, "frame");
  });
});
