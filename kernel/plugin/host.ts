/**
 * `PluginHost`: launches plugin subprocesses behind the go-plugin compatible
 * handshake and owns their lifecycle.
 *
 * Launch sequence: preflight (protocol version, permissions, entrypoint),
 * env-allowlisted launch in its own process group (through a
 * `ProcessLauncher`), handshake line, version gate, health check, broker
 * stream with the callback channel on broker ID 1 (re-announced until the
 * plugin calls back), stdio drain, and on close a drain-then-kill shutdown.
 * The steps live beside this file: `_command_line.ts`, `handshake.ts`,
 * `_output.ts`, `_connection.ts` and `plugin.ts`.
 *
 * @module
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { getLogger } from "@logtape/logtape";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { PluginManifest } from "../../contract/manifest.ts";
import type {
  EffectivePermissions,
  PermissionGrant,
} from "../../contract/permissions.ts";
import type { PluginIdentity } from "../../contract/plugin_identity.ts";
import {
  DEFAULT_SANDBOX_MODE,
  type SandboxMode,
} from "../../contract/sandbox.ts";
import { pluginModuleRoots } from "../../config/mod.ts";
import type {
  CallbackEndpoint,
  CallbackHost,
  CallbackImpl,
} from "../callback/host.ts";
import { CALLBACK_SOCKET_NAME } from "../callback/_names.ts";
import {
  createCallbackService,
  DEFAULT_TELEMETRY,
  type KernelServices,
} from "../callback/service.ts";
import { LogLevel } from "../../proto/gen/pluggableharness/log/v1/types_pb.ts";
import {
  denoCacheDir,
  ensureCached,
  isRemoteSpecifier,
} from "../process/_module_cache.ts";
import type { PluginBundles } from "../process/plugin_bundle.ts";
import {
  DEFAULT_BWRAP,
  probeSandbox,
  programPaths,
  sandboxCommand,
  sandboxedProcess,
  type SandboxView,
  settledSandboxProbe,
} from "../process/sandbox.ts";
import {
  DenoCommandLauncher,
  type LaunchedProcess,
  type ProcessCommand,
  type ProcessLauncher,
} from "../process/launcher.ts";
import {
  defaultInstallationKeyPath,
  loadInstallationKey,
} from "../state/installation_key.ts";
import { DEFAULT_PLUGIN_PATH, pluginCommand } from "./_command_line.ts";
import { announceCallbacks, checkHealth, relayStdio } from "./_connection.ts";
import { loadGrpcAdapter } from "./_grpc.ts";
import { connectPlugin, type PluginChannel } from "./_channel.ts";
import { KernelCallbackService } from "../../proto/gen/pluggableharness/kernel/v1/service_pb.ts";
import { awaitHandshake } from "./handshake.ts";
import { watchOutput } from "./_output.ts";
import { Plugin } from "./plugin.ts";
import { StartFailure } from "./_start_failure.ts";
import { type LaunchTarget, preflight, startError } from "./_preflight.ts";

export { SDK_ENV_NAMES } from "./_command_line.ts";

/** Default time from spawn until the plugin is healthy. */
export const DEFAULT_START_TIMEOUT_MS = 10_000;
/** glibc's mmap threshold for a frontend on the terminal (its default start). */
const TERMINAL_MMAP_THRESHOLD = 128 * 1024;
/** Default drain window of a shutdown before the plugin is killed. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 5_000;

/** What to launch. */
export interface PluginSpec {
  /** The plugin's manifest. */
  manifest: PluginManifest;
  /**
   * The entrypoint: an executable path, or a Deno module path or URL. A
   * relative path resolves against {@linkcode PluginHostOptions.cwd}.
   */
  entrypoint: string;
  /** The operator's grant; absent grants nothing. */
  grant?: PermissionGrant;
  /** The plugin's decoded config (what GetConfig returns). */
  config?: JsonObject;
  /** Install address recorded in the identity, e.g. `builtin:echo`. */
  source?: string;
  /**
   * The plugin's folder (its manifest's directory): what the OS sandbox
   * binds read-only as the plugin's own files.
   * @default {the entrypoint's directory}
   */
  root?: string;
  /**
   * For a Deno plugin, the last folder its `deno.json` is searched in:
   * the search goes up from the entrypoint's folder to this one and stops
   * (a plugin from the forge cache is bounded by its release's folder, so
   * a `deno.json` planted above it — in the cache, the home directory —
   * is never its config). Without it the nearest `deno.json` above the
   * entrypoint is used (a builtin's package config, a local plugin's
   * project).
   * @default {no bound}
   */
  configRoot?: string;
  /**
   * The operator's local name for the provider (its `required_providers`
   * key): the plugin's identity on the bus and in grants. The manifest's
   * `name` is what the plugin claims, and is used only when this is absent
   * (a plugin launched outside a configuration).
   * @default {manifest.name}
   */
  name?: string;
  /**
   * The operator's `allow_subscribe` grant (`kernel.*` bus filters,
   * `@all`-suffixed for every session).
   * @default {[]}
   */
  subscribe?: readonly string[];
  /**
   * Whether the plugin may inject control-plane text (`InjectControl`):
   * its manifest declares `"inject": true` and the operator granted
   * `allow_inject = true`. @default {false}
   */
  inject?: boolean;
  /**
   * Start it on this process's terminal (stdin and stderr inherited, in
   * the terminal's process group; see {@linkcode ProcessCommand.terminal}):
   * a frontend whose manifest declares `"terminal": true`, when the kernel
   * runs on a terminal. @default {false}
   */
  terminal?: boolean;
  /**
   * A first-party plugin that may run from its cached bundle (with
   * {@linkcode PluginHostOptions.bundles}): its name, its locked checksum
   * and its manifest's path. A verified bundle replaces `entrypoint` and
   * is all the sandbox shows of the plugin's files; without one the
   * plugin runs from `entrypoint` and its bundle is built after the
   * launch. @default {none: the plugin runs from `entrypoint`}
   */
  bundle?: { name: string; checksum: string; manifestPath: string };
}

/** Per-launch options. */
export interface LaunchOptions {
  /** Aborting stops a launch in progress (the child is killed). */
  signal?: AbortSignal;
  /**
   * Milliseconds from spawn until the plugin is healthy.
   * @default {10000}
   */
  startTimeoutMs?: number;
  /** Listen on TCP 127.0.0.1 instead of unix sockets. */
  tcp?: boolean;
}

/** Options for {@linkcode PluginHost}. */
export interface PluginHostOptions {
  /**
   * Where callback endpoints are served.
   * @default {an IsolatedCallbackHost in the runtime directory}
   */
  callbackHost?: CallbackHost;
  /**
   * Builds one plugin's callback handlers.
   * @default {createCallbackService}
   */
  callbackImpl?: (identity: PluginIdentity, spec: PluginSpec) => CallbackImpl;
  /**
   * Called when every launch in flight has spawned its process (before
   * their handshakes): a caller can start work that should overlap the
   * plugins' start without delaying a spawn.
   */
  onSpawn?: () => void;
  /**
   * The kernel services the default callback handlers use (sessions and
   * grants, the event bus, the telemetry relay, exact token counts).
   * @default {none: session-scoped RPCs are refused, Publish and Subscribe answer UNIMPLEMENTED}
   */
  services?: KernelServices;
  /**
   * The environment that granted variables are copied from.
   * @default {Deno.env.toObject()}
   */
  env?: Record<string, string>;
  /**
   * Directory that relative paths resolve against.
   * @default {Deno.cwd()}
   */
  cwd?: string;
  /**
   * Milliseconds from spawn until the plugin is healthy.
   * @default {10000}
   */
  startTimeoutMs?: number;
  /**
   * Drain window before a closing plugin is killed.
   * @default {5000}
   */
  shutdownTimeoutMs?: number;
  /**
   * Starts plugin processes.
   * @default {a DenoCommandLauncher}
   */
  launcher?: ProcessLauncher;
  /**
   * A private directory for sockets; created when absent.
   * @default {a new temporary directory}
   */
  runtimeDir?: string;
  /**
   * The OS sandbox (bubblewrap, Linux): `required` refuses to start a
   * plugin when it cannot be built, `auto` uses it when it works and
   * warns when it does not, `off` runs plugins unsandboxed.
   * @default {"auto"}
   */
  sandbox?: SandboxMode;
  /**
   * The `bwrap` executable.
   * @default {"bwrap"}
   */
  bwrap?: string;
  /**
   * The installation key, which no plugin may read or write whatever its
   * grant: a Deno plugin gets `--deny-read`/`--deny-write` for it, and the
   * sandbox shows `/dev/null` in its place. Before a sandboxed plugin
   * whose writable paths cover it starts, a missing key is created, so
   * that no plugin can plant a key of its choosing.
   * @default {defaultInstallationKeyPath() of `env`}
   */
  installationKeyPath?: string;
  /**
   * Receives the one-line warning about plugins running without the OS
   * sandbox (once per host).
   * @default {a line on stderr}
   */
  onWarning?: (message: string) => void;
  /**
   * Offer plugins the framed transport (`proto/frame.ts`) on unix sockets:
   * a plugin built on our SDK takes it, and its callbacks are served on the
   * same connection (no callback gateway); any other plugin answers
   * `grpc`. `AGENT_PLUGIN_FRAME=off` in {@linkcode PluginHostOptions.env}
   * turns it off as well.
   * @default {true}
   */
  frame?: boolean;
  /**
   * The bundle cache of first-party plugins: a spec with `bundle` runs
   * from its verified bundle, or from its module graph while its bundle is
   * built after the launch ({@linkcode PluginHost.close} waits for the
   * builds it started). @default {none: every plugin runs as given}
   */
  bundles?: PluginBundles;
}

const log = getLogger(["ph-agent", "kernel", "plugin-host"]);

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

const DEFAULT_LAUNCHER: ProcessLauncher = new DenoCommandLauncher();

/** A plugin's callback endpoint, opened on first use. */
interface CallbackChannel {
  /** The handlers, bound to the plugin's identity. */
  impl: CallbackImpl;
  open(): Promise<CallbackEndpoint>;
  close(): Promise<void>;
}

/** Everything a launch sets up before its spawn. */
interface PreparedLaunch {
  identity: PluginIdentity;
  effective: EffectivePermissions;
  callbacks: CallbackChannel;
  command: ProcessCommand;
  /** Whether the command runs in the OS sandbox. */
  sandboxed: boolean;
  /** Closes the callback endpoint and removes the plugin's directory. */
  cleanup(): Promise<void>;
}

/**
 * Launches and owns plugin subprocesses.
 *
 * @example
 * ```ts ignore
 * import { IsolatedCallbackHost, PluginHost } from "@ph/agent/kernel";
 * await using host = new PluginHost({ callbackHost: await IsolatedCallbackHost.start() });
 * const plugin = await host.launch(spec);
 * ```
 */
export class PluginHost implements AsyncDisposable {
  #options: PluginHostOptions;
  #plugins = new Set<Plugin>();
  #runtimeDir: Promise<string> | undefined;
  #counter = 0;
  #callbackHost: Promise<CallbackHost> | undefined;
  #preSpawn = 0;
  #ownsCallbackHost = false;
  #warned = false;
  #builds = new Map<string, Promise<void>>();
  #needsGrpc = false;
  #onUnload = () => this.killAllNow();

  /**
   * Creates a host; nothing starts until the first launch.
   *
   * @param options Where callbacks are served and launch defaults.
   */
  constructor(options: PluginHostOptions) {
    this.#options = options;
    globalThis.addEventListener("unload", this.#onUnload);
  }

  /** The plugins launched and not yet closed. */
  get plugins(): readonly Plugin[] {
    return [...this.#plugins];
  }

  #dir(): Promise<string> {
    this.#runtimeDir ??= this.#options.runtimeDir
      ? Deno.mkdir(this.#options.runtimeDir, { recursive: true, mode: 0o700 })
        .then(() => this.#options.runtimeDir!)
      : Deno.makeTempDir({ prefix: "ph-agent-" });
    return this.#runtimeDir;
  }

  #callbacks(): Promise<CallbackHost> {
    if (!this.#callbackHost) {
      if (this.#options.callbackHost) {
        this.#callbackHost = Promise.resolve(this.#options.callbackHost);
      } else {
        this.#ownsCallbackHost = true;
        this.#callbackHost = this.#dir().then((root) =>
          import("../callback/isolated_host.ts").then((
            { IsolatedCallbackHost },
          ) =>
            IsolatedCallbackHost.start({
              root,
              ...(this.#options.env ? { env: this.#options.env } : {}),
            })
          )
        );
        this.#callbackHost.catch(() => (this.#callbackHost = undefined));
      }
    }
    return this.#callbackHost;
  }

  /**
   * Launches a plugin and returns once it is healthy. Its callback channel
   * (and, for the first one, the gateway serving it) is opened right
   * after, off the path to readiness, or, for a plugin that is no
   * frontend and reports `CALLBACK_ON_DEMAND_SERVICE` healthy (our SDK
   * does), when it first knocks for it; it is announced on broker ID 1 as
   * soon as it listens (plugins dial it at their first callback).
   *
   * @param spec What to launch and with which grant.
   * @param options Per-launch options.
   * @returns The running plugin.
   * @throws {PluginStartError} Naming the plugin, its path, what was
   * expected and the tail of its stderr.
   */
  async launch(spec: PluginSpec, options: LaunchOptions = {}): Promise<Plugin> {
    this.#preSpawn++;
    if (!this.#offersFrame(options, this.#options.env ?? Deno.env.toObject())) {
      this.#needsGrpc = true;
    }
    let pending = true;
    const spawned = () => {
      if (!pending) return;
      pending = false;
      if (--this.#preSpawn > 0) return;
      // Every launch in flight has its process booting (~100 ms): load the
      // gRPC stack meanwhile, not before a spawn (which it would delay),
      // when a plugin is not offered the framed transport.
      if (this.#needsGrpc) void loadGrpcAdapter().catch(() => {});
      this.#options.onSpawn?.();
    };
    try {
      return await this.#launch(spec, options, spawned);
    } finally {
      spawned();
    }
  }

  async #launch(
    spec: PluginSpec,
    options: LaunchOptions,
    spawned: () => void,
  ): Promise<Plugin> {
    const bundled = await this.#bundled(spec);
    spec = bundled ?? spec;
    const target = this.#target(spec, options);
    // 1. Preflight, and whether the OS sandbox wraps the plugin.
    const effective = await preflight(spec.manifest, spec.grant ?? {}, target);
    const sandbox = this.#sandboxKnown(target);
    const start = (sandboxed: boolean) =>
      this.#start(
        spec,
        target,
        effective,
        options,
        sandboxed,
        bundled,
        spawned,
      );
    let plugin: Plugin;
    if (sandbox !== "unprobed") {
      plugin = await start(sandbox === "on" || await this.#sandboxed(target));
    } else {
      // Bubblewrap is not probed yet: the launch itself tries it, and
      // only a failed launch pays for the probe (a whole `bwrap … true`,
      // which would otherwise delay every first launch). bwrap fails
      // before it executes the plugin, so nothing ran unsandboxed.
      try {
        plugin = await start(true);
      } catch (err) {
        if (options.signal?.aborted || await this.#sandboxed(target)) throw err;
        plugin = await start(false);
      }
    }
    if (!bundled) this.#buildBundle(spec);
    return plugin;
  }

  /** Whether a launch offers the framed transport. */
  #offersFrame(options: LaunchOptions, env: Record<string, string>): boolean {
    return this.#options.frame !== false && !options.tcp &&
      env.AGENT_PLUGIN_FRAME !== "off" && Deno.build.os !== "windows";
  }

  /** Prepares, spawns and connects one plugin, in or out of the sandbox. */
  async #start(
    spec: PluginSpec,
    target: LaunchTarget,
    effective: EffectivePermissions,
    options: LaunchOptions,
    sandboxed: boolean,
    bundled: PluginSpec | undefined,
    spawned: () => void,
  ): Promise<Plugin> {
    // 2. Environment and command.
    const prepared = await this.#prepare(
      spec,
      target,
      effective,
      options,
      sandboxed,
      bundled !== undefined,
    );
    // 3. Spawn in its own process group.
    const child = await this.#spawn(prepared, target);
    spawned();
    return await this.#connect(target, prepared, child, options);
  }

  /**
   * The spec of a first-party plugin's verified bundle: its entry module
   * as the entrypoint, its folder as the plugin's root (and the bound of
   * the `deno.json` search, which finds none: the bundle needs no
   * config). `undefined` runs the spec as given.
   */
  async #bundled(spec: PluginSpec): Promise<PluginSpec | undefined> {
    const bundles = this.#options.bundles;
    if (!bundles || !spec.bundle || spec.manifest.runtime !== "deno") {
      return undefined;
    }
    try {
      const found = await bundles.find({
        ...spec.bundle,
        entrypoint: spec.entrypoint,
      });
      if (!found) return undefined;
      return {
        ...spec,
        entrypoint: found.entry,
        root: found.dir,
        configRoot: found.dir,
      };
    } catch (err) {
      log.warn("Cannot use the bundle of {plugin}: {error}", {
        plugin: spec.bundle.name,
        error: err instanceof Error ? err.message : String(err),
      });
      return undefined;
    }
  }

  /** Builds a first-party plugin's bundle in the background, once per host. */
  #buildBundle(spec: PluginSpec): void {
    const bundles = this.#options.bundles;
    if (!bundles || !spec.bundle || spec.manifest.runtime !== "deno") return;
    if (isRemoteSpecifier(spec.entrypoint)) return;
    const key = `${spec.bundle.name}\0${spec.bundle.checksum}`;
    if (this.#builds.has(key)) return;
    const source = { ...spec.bundle, entrypoint: spec.entrypoint };
    const build = bundles.build(source).then(
      () => {},
      (err) =>
        log.warn("Cannot bundle {plugin}: {error}", {
          plugin: source.name,
          error: err instanceof Error ? err.message : String(err),
        }),
    );
    this.#builds.set(key, build);
  }

  /** What a launch starts, resolved against the host's defaults. */
  #target(spec: PluginSpec, options: LaunchOptions): LaunchTarget {
    const cwd = this.#options.cwd ?? Deno.cwd();
    const remote = spec.manifest.runtime === "deno" &&
      isRemoteSpecifier(spec.entrypoint);
    return {
      name: spec.name ?? spec.manifest.name,
      path: remote || isAbsolute(spec.entrypoint)
        ? spec.entrypoint
        : resolve(cwd, spec.entrypoint),
      remote,
      cwd,
      kernelEnv: this.#options.env ?? Deno.env.toObject(),
      startTimeoutMs: options.startTimeoutMs ??
        this.#options.startTimeoutMs ??
        DEFAULT_START_TIMEOUT_MS,
    };
  }

  /**
   * What is known without waiting of whether the next plugin runs in the
   * OS sandbox: `off` (the setting), `on` (bubblewrap probed and works),
   * `probed-off` (probed, does not work: {@linkcode #sandboxed} decides),
   * or `unprobed`.
   */
  #sandboxKnown(
    target: LaunchTarget,
  ): "off" | "on" | "probed-off" | "unprobed" {
    const mode = this.#options.sandbox ?? DEFAULT_SANDBOX_MODE;
    if (mode === "off") return "off";
    const probe = settledSandboxProbe(
      this.#options.bwrap ?? DEFAULT_BWRAP,
      target.kernelEnv.PATH ?? DEFAULT_PLUGIN_PATH,
    );
    if (probe === undefined) return "unprobed";
    return probe.available ? "on" : "probed-off";
  }

  /**
   * Whether the next plugin runs in the OS sandbox: under `required` a
   * host where bubblewrap does not work refuses the launch; under `auto`
   * it warns once and runs unsandboxed; `off` runs unsandboxed
   * (check-config warns about an explicit `off`).
   */
  async #sandboxed(target: LaunchTarget): Promise<boolean> {
    const mode = this.#options.sandbox ?? DEFAULT_SANDBOX_MODE;
    if (mode === "off") return false;
    // `bwrap` is looked up on the PATH the plugin gets, as its launch is.
    const probe = await probeSandbox(
      this.#options.bwrap ?? DEFAULT_BWRAP,
      target.kernelEnv.PATH ?? DEFAULT_PLUGIN_PATH,
    );
    if (probe.available) return true;
    if (mode === "required") {
      throw startError(
        target,
        "plugin_sandbox_unavailable",
        `the OS sandbox is required (settings { sandbox = "required" }) but cannot be built: ${probe.reason}`,
      );
    }
    this.#warn(
      `plugins run without the OS sandbox: ${probe.reason}; a plugin can read every file and environment this user can (install bubblewrap, or set settings { sandbox = "off" } to accept this)`,
    );
    return false;
  }

  /** The files no plugin may see: the installation key. */
  #hiddenPaths(target: LaunchTarget): string[] {
    if (this.#options.installationKeyPath !== undefined) {
      return [this.#options.installationKeyPath];
    }
    try {
      return [defaultInstallationKeyPath((k) => target.kernelEnv[k])];
    } catch {
      return []; // neither XDG_DATA_HOME nor HOME: no default key path
    }
  }

  #warn(message: string): void {
    if (this.#warned) return;
    this.#warned = true;
    const onWarning = this.#options.onWarning ??
      ((m: string) => {
        try {
          Deno.stderr.writeSync(new TextEncoder().encode(`WARNING: ${m}\n`));
        } catch {
          // no stderr
        }
      });
    onWarning(message);
  }

  /**
   * Creates the plugin's private directory and callback channel, caches a
   * remote module and builds its command line.
   */
  async #prepare(
    spec: PluginSpec,
    target: LaunchTarget,
    effective: EffectivePermissions,
    options: LaunchOptions,
    sandboxed: boolean,
    bundled: boolean,
  ): Promise<PreparedLaunch> {
    const { manifest } = spec;
    const runtimeDir = await this.#dir();
    const dir = join(runtimeDir, `p${++this.#counter}`);
    await Deno.mkdir(dir, { mode: 0o700 });
    const identity: PluginIdentity = {
      category: manifest.category,
      name: target.name,
      version: manifest.version,
      source: spec.source ?? manifest.source ?? "",
    };
    const tcp = options.tcp ?? false;
    const port = tcp ? freePort() : 0;
    const callbacks = this.#callbackChannel(identity, spec, dir, tcp);
    if (target.remote) {
      try {
        await ensureCached(target.path);
      } catch (err) {
        await Deno.remove(dir, { recursive: true }).catch(() => {});
        throw startError(
          target,
          "plugin_not_found",
          `cannot load the module: ${(err as Error).message}`,
          "",
          err,
        );
      }
    }
    const callbackAddress = tcp
      ? (await callbacks.open()).address
      : join(dir, CALLBACK_SOCKET_NAME);
    const hidden = this.#hiddenPaths(target);
    let command = await pluginCommand({
      identity,
      runtime: manifest.runtime,
      path: target.path,
      remote: target.remote,
      ...(spec.configRoot !== undefined ? { configRoot: spec.configRoot } : {}),
      effective,
      kernelEnv: target.kernelEnv,
      cwd: target.cwd,
      transport: {
        tcp,
        port,
        dir,
        callbackAddress,
        frame: this.#offersFrame(options, target.kernelEnv),
      },
      hidden,
      ...this.#logLevel(),
    });
    if (spec.terminal) {
      // On the operator's terminal, the operator's NO_COLOR holds (plugins
      // otherwise get NO_COLOR=1 so that their diagnostics stay plain).
      const env = { ...command.env };
      delete env.NO_COLOR;
      const noColor = target.kernelEnv["NO_COLOR"];
      if (noColor !== undefined) env.NO_COLOR = noColor;
      // A terminal UI is one busy main thread: glibc's malloc arenas per
      // thread (up to 8 per core) only keep freed memory resident. One
      // arena measured 5 MB less RSS for builtin/tui (README, Terminal UI).
      env.MALLOC_ARENA_MAX = "1";
      // A fixed mmap threshold (glibc raises it up to 32 MiB as mapped
      // chunks are freed): the large, short-lived buffers of the start
      // (module sources, compile buffers) are mapped and given back
      // instead of fragmenting the heap. Measured 8–15 MB less RSS for
      // builtin/tui (README, Terminal UI).
      env.GLIBC_TUNABLES = [
        env.GLIBC_TUNABLES,
        `glibc.malloc.mmap_threshold=${TERMINAL_MMAP_THRESHOLD}`,
      ].filter(Boolean).join(":");
      command = { ...command, env, terminal: true };
    }
    const cleanup = async () => {
      await callbacks.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    };
    if (sandboxed) {
      const view = sandboxView(
        spec,
        target,
        effective,
        command,
        dir,
        tcp,
        bundled,
      );
      try {
        await createWriteGrants(effective.write, target);
        for (const key of hidden) {
          // A key that does not exist yet where the plugin may write is
          // created first: the plugin must not plant one of its choosing.
          if (view.readWrite.some((r) => within(key, r))) {
            loadInstallationKey(key);
          }
        }
      } catch (err) {
        await cleanup();
        throw startError(
          target,
          "plugin_permission_denied",
          err instanceof Error ? err.message : String(err),
          "",
          err,
        );
      }
      command = sandboxCommand(
        command,
        { ...view, masked: hidden },
        this.#options.bwrap ?? DEFAULT_BWRAP,
      );
    }
    return { identity, effective, callbacks, command, sandboxed, cleanup };
  }

  /**
   * The floor of the default callback handlers' `Log`, for the plugin's
   * environment (none with custom handlers: the plugin sends everything).
   */
  #logLevel(): { logLevel?: string } {
    if (this.#options.callbackImpl) return {};
    const s = this.#options.services?.telemetry?.settings ?? DEFAULT_TELEMETRY;
    if (!s.logsEnabled) return { logLevel: "off" };
    const name = LogLevel[s.logLevel];
    return name ? { logLevel: name.toLowerCase() } : {};
  }

  /**
   * The plugin's callback endpoint, opened on first use: once the plugin
   * is healthy, or at its knock when it asks for the channel itself (off
   * the path to "ready": plugins dial it at their first callback, and the
   * announcement on broker ID 1 is repeated until they do), or before the
   * spawn on TCP, whose port is needed for the flags. The first endpoint
   * opened also starts the gateway behind it.
   */
  #callbackChannel(
    identity: PluginIdentity,
    spec: PluginSpec,
    dir: string,
    tcp: boolean,
  ): CallbackChannel {
    const impl = (this.#options.callbackImpl ??
      ((id, s) =>
        createCallbackService({
          identity: id,
          ...(s.config ? { config: s.config } : {}),
          ...(s.subscribe ? { subscribeGrant: s.subscribe } : {}),
          ...(s.inject ? { injectGrant: true } : {}),
          ...(this.#options.services
            ? { services: this.#options.services }
            : {}),
        })))(identity, spec);
    let endpointReady: Promise<CallbackEndpoint> | undefined;
    const open = (): Promise<CallbackEndpoint> => {
      endpointReady ??= this.#callbacks().then((h) =>
        h.open({ dir, tcp, impl })
      );
      endpointReady.catch(() => {});
      return endpointReady;
    };
    const close = async (): Promise<void> => {
      await endpointReady?.then((e) => e.close(), () => {});
    };
    return { impl, open, close };
  }

  /** Starts the process through the launcher. */
  async #spawn(
    prepared: PreparedLaunch,
    target: LaunchTarget,
  ): Promise<LaunchedProcess> {
    try {
      const child = (this.#options.launcher ?? DEFAULT_LAUNCHER).start(
        prepared.command,
      );
      return prepared.sandboxed ? sandboxedProcess(child) : child;
    } catch (err) {
      await prepared.cleanup();
      const permission = err instanceof Deno.errors.PermissionDenied;
      throw startError(
        target,
        permission ? "plugin_not_executable" : "plugin_not_found",
        `cannot execute it: ${err instanceof Error ? err.message : err}`,
        "",
        err,
      );
    }
  }

  /**
   * Reads the handshake, connects and checks health within the start
   * time, then serves the callback channel and returns the plugin. A
   * refused start kills the process group and reports the error once the
   * process is gone and its stderr drained, so that the tail holds
   * everything the plugin said.
   */
  async #connect(
    target: LaunchTarget,
    prepared: PreparedLaunch,
    child: LaunchedProcess,
    options: LaunchOptions,
  ): Promise<Plugin> {
    const output = watchOutput(child, target.name);
    const { exited } = output;
    // A plugin that exits detaches from sessions; its metadata goes stale.
    exited.then(
      () => this.#options.services?.frontend?.released(prepared.identity),
      () => this.#options.services?.frontend?.released(prepared.identity),
    );
    // 4. Handshake line, bounded by the start timeout.
    const started = Date.now();
    let connected;
    try {
      const hs = await awaitHandshake(child.stdout, {
        timeoutMs: target.startTimeoutMs,
        exited,
        afterHandshake: (chunk) => output.stdout.push(chunk),
        frame: this.#offersFrame(options, target.kernelEnv),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      // 5. Connect and check health within the remaining start time.
      let channel: PluginChannel;
      try {
        channel = await connectPlugin(hs);
      } catch (err) {
        throw new StartFailure(
          "plugin_health_failed",
          `cannot connect to ${hs.network}:${hs.address}: ${
            err instanceof Error ? err.message : err
          }`,
          { cause: err },
        );
      }
      const remaining = Math.max(
        1,
        target.startTimeoutMs - (Date.now() - started),
      );
      try {
        const health = await checkHealth(channel, hs, exited, remaining);
        connected = { channel, hs, health };
      } catch (err) {
        channel.close();
        throw err;
      }
    } catch (err) {
      if (!(err instanceof StartFailure)) throw err;
      child.kill("SIGKILL");
      await exited;
      await prepared.cleanup();
      throw startError(
        target,
        err.code,
        err.message,
        output.stderr.text(),
        err.cause,
      );
    }
    const { channel, hs, health } = connected;
    // Over the framed transport the kernel serves the plugin's callbacks
    // on the same connection: no endpoint, no gateway, no announcement.
    channel.frame?.serve(KernelCallbackService, prepared.callbacks.impl);
    // 6. Broker stream and the callback channel on broker ID 1: opened now,
    // or at the plugin's knock when it asks for it itself. A frontend
    // drives sessions through it at once: opened now, so that the gateway
    // starts while it loads, not after its first callback.
    const announcer = announceCallbacks(
      channel,
      channel.frame ? undefined : prepared.callbacks.open,
      health.callbacksOnDemand && prepared.identity.category !== "frontend",
      exited,
      target.name,
    );
    // 7. Stdio: drain it when the plugin offers it (a Go plugin needs this).
    // (Our SDK, the only framed peer, captures none.)
    if (!channel.frame) relayStdio(channel, output.log);
    const plugin = new Plugin({
      identity: prepared.identity,
      process: child,
      channel,
      stderr: output.stderr,
      exited,
      protocolVersion: hs.appVersion,
      permissions: prepared.effective,
      path: target.path,
      shutdownTimeoutMs: this.#options.shutdownTimeoutMs ??
        DEFAULT_SHUTDOWN_TIMEOUT_MS,
      cleanup: async () => {
        announcer.stop();
        await prepared.cleanup();
        this.#plugins.delete(plugin);
      },
    });
    this.#plugins.add(plugin);
    log.info("Plugin {plugin} started with pid {pid} in {ms} ms", {
      plugin: target.name,
      pid: child.pid,
      ms: Date.now() - started,
    });
    return plugin;
  }

  /** Kills every plugin's process group at once (synchronous; exit path). */
  killAllNow(): void {
    this.#options.bundles?.close();
    for (const p of this.#plugins) p.killNow();
  }

  /** Closes every plugin (drain-then-kill), then removes the runtime dir. */
  async close(): Promise<void> {
    globalThis.removeEventListener("unload", this.#onUnload);
    await Promise.all([...this.#plugins].map((p) => p.close()));
    // A bundle build started by this host finishes (bounded by its own
    // timeout), so that the next run starts from it.
    await Promise.all(this.#builds.values());
    if (this.#ownsCallbackHost && this.#callbackHost) {
      await (await this.#callbackHost.catch(() => undefined))?.close();
    }
    if (this.#runtimeDir && !this.#options.runtimeDir) {
      await Deno.remove(await this.#runtimeDir, { recursive: true }).catch(
        () => {},
      );
    }
  }

  /** Same as {@linkcode PluginHost.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * What a sandboxed plugin sees: its own files (for a local Deno plugin,
 * the folders its module graph may load from, or its bundle's folder; for
 * an executable, its folder), the Deno executable, the Deno cache and the plugin's Deno
 * config read-only, its granted read (ro) and write (rw) paths, its
 * private socket directory (rw) and the programs it is granted to run
 * (found on its `PATH`; the system's programs are always bound).
 */
function sandboxView(
  spec: PluginSpec,
  target: LaunchTarget,
  effective: EffectivePermissions,
  command: ProcessCommand,
  dir: string,
  tcp: boolean,
  bundled: boolean,
): SandboxView {
  const readOnly: string[] = [];
  const deno = spec.manifest.runtime === "deno";
  if (!target.remote) {
    const root = spec.root ?? dirname(target.path);
    readOnly.push(...(deno && !bundled ? pluginModuleRoots(root) : [root]));
  }
  const privateDirs: { source: string; path: string }[] = [];
  if (deno) {
    const cache = denoCacheDir();
    readOnly.push(Deno.execPath(), cache);
    const i = command.args.indexOf("--config");
    const config = i >= 0 ? command.args[i + 1] : undefined;
    if (config) readOnly.push(config, join(dirname(config), "deno.lock"));
    // The TLS roots Deno's runtime settings name (certificates, no
    // secrets): without them Deno warns on every start and a download
    // through a TLS-intercepting proxy fails.
    for (const name of ["DENO_CERT", "NODE_EXTRA_CA_CERTS"]) {
      const file = command.env[name];
      if (file !== undefined && isAbsolute(file)) readOnly.push(file);
    }
    // A plugin that runs programs may start Deno (an MCP server, `deno
    // run npm:…`): Deno's npm runtime writes its `node` shim into the
    // cache's node_compat_bin and puts it on the child's PATH. The cache
    // stays read-only (a plugin must never change code that the kernel
    // or another plugin loads); the shim directory is the plugin's own.
    if (effective.run.length > 0) {
      const shim = nodeCompatBin(cache, dir);
      if (shim !== undefined) privateDirs.push(shim);
    }
  }
  readOnly.push(...effective.read);
  for (const program of effective.run) {
    readOnly.push(...programPaths(program, command.env.PATH ?? ""));
  }
  return {
    readOnly,
    readWrite: [dir, ...effective.write],
    network: tcp || effective.net.length > 0,
    cwd: target.cwd,
    private: privateDirs,
  };
}

/**
 * The plugin's own `node_compat_bin` (in its private directory), shown
 * over the Deno cache's; `undefined` when the cache's cannot be created
 * (the shim is then missing, as with any read-only cache).
 */
function nodeCompatBin(
  cache: string,
  dir: string,
): { source: string; path: string } | undefined {
  const path = join(cache, "node_compat_bin");
  const source = join(dir, "node_compat_bin");
  try {
    Deno.mkdirSync(path, { recursive: true });
    Deno.mkdirSync(source, { mode: 0o700 });
    return { source, path };
  } catch {
    return undefined;
  }
}

/**
 * Creates (`mkdir -p`, mode 0700) each write grant that does not exist
 * yet, so that the sandbox can bind it: the plugin could create it
 * unsandboxed, and a path the view does not bind is not there. Only under
 * the project (the kernel's working directory) or the user's home and XDG
 * base directories; a missing grant elsewhere is refused, naming it.
 */
async function createWriteGrants(
  write: readonly string[],
  target: LaunchTarget,
): Promise<void> {
  const env = target.kernelEnv;
  const roots = [
    target.cwd,
    env.HOME,
    env.XDG_DATA_HOME,
    env.XDG_STATE_HOME,
    env.XDG_CACHE_HOME,
    env.XDG_CONFIG_HOME,
  ].filter((r): r is string => r !== undefined && isAbsolute(r) && r !== "/");
  for (const path of write) {
    if (path.endsWith("*") || !isAbsolute(path)) continue;
    try {
      await Deno.lstat(path);
      continue;
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) continue;
    }
    if (!roots.some((r) => within(path, r))) {
      throw new Error(
        `the write grant "${path}" does not exist and is outside the project and home directories, so the OS sandbox cannot bind it: create it first`,
      );
    }
    try {
      await Deno.mkdir(path, { recursive: true, mode: 0o700 });
    } catch (err) {
      throw new Error(
        `the write grant "${path}" does not exist and cannot be created: ${
          err instanceof Error ? err.message : err
        }`,
      );
    }
  }
}

/** `/a/b` is `/a/b` or below `/a`. */
function within(path: string, root: string): boolean {
  return path === root ||
    path.startsWith(root.endsWith("/") ? root : root + "/");
}

/** Resolves a module-relative path (for first-party plugins). */
export function moduleRelative(base: string, rel: string): string {
  const u = new URL(rel, base);
  return u.protocol === "file:" ? fileURLToPath(u) : u.href;
}
