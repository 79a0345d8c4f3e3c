/**
 * `PluginHost`: launches plugin subprocesses behind the go-plugin compatible
 * handshake and owns their lifecycle.
 *
 * Launch sequence: preflight (protocol version, permissions, entrypoint),
 * env-allowlisted launch in its own process group, handshake line, version
 * gate, health check, broker stream with the callback channel on broker ID
 * 1 (re-announced until the plugin calls back), stdio drain, and on close a
 * drain-then-kill shutdown.
 *
 * @module
 */
import type * as grpc from "@grpc/grpc-js";
import type { DescService, JsonObject } from "@bufbuild/protobuf";
import { getLogger } from "@logtape/logtape";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { BidiCall, ServiceClient } from "../proto/grpc_adapter.ts";
import { Code, GRPC_JS_ENV, GrpcStatusError } from "../proto/grpc_status.ts";
import {
  APP_PROTOCOL_VERSION,
  CALLBACK_BROKER_ID,
  HANDSHAKE_ENV,
  HandshakeError,
  HEALTH_SERVICE_NAME,
  MAGIC_COOKIE_KEY,
  MAGIC_COOKIE_VALUE,
  parseHandshakeLine,
  PLUGIN_SOCKET_NAME,
} from "../proto/handshake.ts";
import { GRPCBroker } from "../proto/gen/plugin/grpc_broker_pb.ts";
import type { ConnInfoSchema } from "../proto/gen/plugin/grpc_broker_pb.ts";
import { GRPCController } from "../proto/gen/plugin/grpc_controller_pb.ts";
import {
  GRPCStdio,
  StdioData_Channel,
} from "../proto/gen/plugin/grpc_stdio_pb.ts";
import {
  Health,
  HealthCheckResponse_ServingStatus,
} from "../proto/gen/grpc/health/v1/health_pb.ts";
import type { PluginManifest } from "../plugins/sdk/manifest.ts";
import {
  DENO_RUNTIME_ENV_NAMES,
  denoRuntimeEnv,
} from "../plugins/sdk/runtime_env.ts";
import type {
  CallbackEndpoint,
  CallbackHost,
  CallbackImpl,
} from "./callback_host.ts";
import { CALLBACK_SOCKET_NAME } from "./_callback_names.ts";
import {
  createCallbackService,
  type KernelServices,
} from "./callback_service.ts";
import {
  describeExit,
  type ExitInfo,
  PluginCrashedError,
  PluginStartError,
} from "./errors.ts";
import {
  denoPermissionFlags,
  type EffectivePermissions,
  formatDenials,
  type PermissionGrant,
  resolvePermissions,
} from "./permissions.ts";
import type { PluginIdentity } from "./plugin_identity.ts";
import {
  denoCacheDir,
  denoNpmRegistry,
  ensureCached,
  findDenoConfig,
  importFlag,
  isRemoteSpecifier,
} from "./_module_cache.ts";
import { logAt } from "./_log.ts";
import {
  drain,
  LineSplitter,
  readHandshake,
  TailBuffer,
} from "./_process_output.ts";

/** Default time from spawn until the plugin is healthy. */
export const DEFAULT_START_TIMEOUT_MS = 10_000;
/** Default drain window of a shutdown before the plugin is killed. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 5_000;
/** Interval at which the callback ConnInfo is re-announced. */
export const CALLBACK_REANNOUNCE_MS = 3_000;

/**
 * Variables the plugin SDK and `@grpc/grpc-js` read; a Deno plugin gets
 * `--allow-env` for these names (values are only present when the kernel
 * sets them).
 */
export const SDK_ENV_NAMES: readonly string[] = [
  MAGIC_COOKIE_KEY,
  ...Object.values(HANDSHAKE_ENV),
  "TMPDIR",
  "OTEL_RESOURCE_ATTRIBUTES",
  ...GRPC_JS_ENV,
];

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
   * A private directory for sockets; created when absent.
   * @default {a new temporary directory}
   */
  runtimeDir?: string;
}

/** `proto/grpc_adapter.ts`, loaded on first use (it pulls in grpc-js). */
type GrpcAdapter = typeof import("../proto/grpc_adapter.ts");
let grpcAdapterModule: Promise<GrpcAdapter> | undefined;

/**
 * Starts loading the gRPC adapter (and grpc-js) without waiting: call it
 * when a launch is certain, so the load overlaps the plugin's own start.
 *
 * @returns The module.
 */
export function loadGrpcAdapter(): Promise<GrpcAdapter> {
  return grpcAdapterModule ??= import("../proto/grpc_adapter.ts");
}

const log = getLogger(["ph-agent", "kernel", "plugin-host"]);

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Parses an hclog JSON line or a `[LEVEL]`-prefixed line into a level. */
function stderrLevel(line: string): {
  level: "trace" | "debug" | "info" | "warning" | "error";
  message: string;
  fields: Record<string, unknown>;
} {
  if (line.startsWith("{")) {
    try {
      const obj = JSON.parse(line) as Record<string, unknown>;
      if (typeof obj["@message"] === "string") {
        const lvl = String(obj["@level"] ?? "debug");
        const { "@level": _l, "@message": msg, "@timestamp": _t, ...fields } =
          obj;
        return {
          level: lvl === "warn"
            ? "warning"
            : (["trace", "debug", "info", "error"].includes(lvl)
              ? lvl as "trace"
              : "debug"),
          message: String(msg),
          fields,
        };
      }
    } catch {
      // not JSON: fall through
    }
  }
  const m = /^\[(TRACE|DEBUG|INFO|WARN|ERROR)\]\s*(.*)$/.exec(line);
  if (m) {
    const lvl = m[1]!.toLowerCase();
    return {
      level: lvl === "warn" ? "warning" : lvl as "trace",
      message: m[2]!,
      fields: {},
    };
  }
  if (/^(panic:|fatal error:)/.test(line)) {
    return { level: "error", message: line, fields: {} };
  }
  return { level: "debug", message: line, fields: {} };
}

/**
 * A launched plugin: its identity, typed clients over its connection,
 * crash detection and a drain-then-kill {@linkcode Plugin.close}.
 */
export class Plugin {
  /** The plugin's identity, bound to its callback connection. */
  readonly identity: PluginIdentity;
  /** The process id (also its process group id). */
  readonly pid: number;
  /** The negotiated application protocol version. */
  readonly protocolVersion: number;
  /** The effective permissions it runs with. */
  readonly permissions: EffectivePermissions;
  /** The executable or module that runs. */
  readonly path: string;
  /** Resolves when the process has exited, for any reason. */
  readonly exited: Promise<ExitInfo>;

  #channel: grpc.Client;
  #grpc: GrpcAdapter;
  #child: Deno.ChildProcess;
  #stderr: TailBuffer;
  #exit: ExitInfo | undefined;
  #closing = false;
  #closed: Promise<void> | undefined;
  #crash = Promise.withResolvers<never>();
  #cleanup: () => Promise<void>;
  #shutdownTimeoutMs: number;

  /** @internal Created by {@linkcode PluginHost.launch}. */
  constructor(init: {
    identity: PluginIdentity;
    child: Deno.ChildProcess;
    channel: grpc.Client;
    grpc: GrpcAdapter;
    stderr: TailBuffer;
    exited: Promise<ExitInfo>;
    protocolVersion: number;
    permissions: EffectivePermissions;
    path: string;
    cleanup: () => Promise<void>;
    shutdownTimeoutMs: number;
  }) {
    this.identity = init.identity;
    this.pid = init.child.pid;
    this.protocolVersion = init.protocolVersion;
    this.permissions = init.permissions;
    this.path = init.path;
    this.#child = init.child;
    this.#channel = init.channel;
    this.#grpc = init.grpc;
    this.#stderr = init.stderr;
    this.#cleanup = init.cleanup;
    this.#shutdownTimeoutMs = init.shutdownTimeoutMs;
    this.#crash.promise.catch(() => {});
    this.exited = init.exited.then((exit) => {
      this.#exit = exit;
      if (!this.#closing) {
        const err = new PluginCrashedError(
          this.identity.name,
          exit,
          this.#stderr.text(),
        );
        log.error("Plugin {plugin} crashed ({exit})", {
          plugin: this.identity.name,
          exit: describeExit(exit),
        });
        this.#crash.reject(err);
      } else {
        this.#crash.reject(
          new GrpcStatusError(
            Code.UNAVAILABLE,
            `plugin "${this.identity.name}" is closed`,
          ),
        );
      }
      return exit;
    });
  }

  /** True once the process has exited. */
  get isExited(): boolean {
    return this.#exit !== undefined;
  }

  /** The last bytes the plugin wrote to stderr. */
  stderrTail(): string {
    return this.#stderr.text();
  }

  #failure(): Error {
    return this.#closing
      ? new GrpcStatusError(
        Code.UNAVAILABLE,
        `plugin "${this.identity.name}" is closed`,
      )
      : new PluginCrashedError(
        this.identity.name,
        this.#exit!,
        this.#stderr.text(),
      );
  }

  /** Maps a failed call to a crash when the process is (about to be) gone. */
  async #classify(err: unknown): Promise<unknown> {
    if (
      err instanceof GrpcStatusError &&
      (err.code === Code.UNAVAILABLE || err.code === Code.INTERNAL ||
        err.code === Code.CANCELLED)
    ) {
      if (this.#exit === undefined) {
        await Promise.race([
          this.exited,
          new Promise((r) => setTimeout(r, 250)),
        ]);
      }
      if (this.#exit !== undefined) return this.#failure();
    }
    return err;
  }

  async *#guardStream(
    open: () => AsyncIterable<unknown>,
  ): AsyncGenerator<unknown> {
    if (this.#exit !== undefined || this.#closing) throw this.#failure();
    const it = open()[Symbol.asyncIterator]();
    try {
      while (true) {
        let r: IteratorResult<unknown>;
        try {
          r = await Promise.race([it.next(), this.#crash.promise]);
        } catch (err) {
          throw await this.#classify(err);
        }
        if (r.done) return;
        yield r.value;
      }
    } finally {
      await it.return?.();
    }
  }

  /**
   * A typed client for one of the plugin's services. Calls fail at once
   * with {@linkcode PluginCrashedError} when the plugin exits mid-call or
   * has exited before the call.
   *
   * @param service The generated service descriptor.
   * @returns The client.
   */
  client<S extends DescService>(service: S): ServiceClient<S> {
    const raw = this.#grpc.createClient(service, this.#channel) as Record<
      string,
      unknown
    >;
    const out: Record<string, unknown> = {};
    for (const m of service.methods) {
      const fn = raw[m.localName] as (...a: unknown[]) => unknown;
      if (m.methodKind === "unary") {
        out[m.localName] = async (
          req: unknown,
          opts?: { signal?: AbortSignal },
        ) => {
          if (this.#exit !== undefined || this.#closing) throw this.#failure();
          const ac = new AbortController();
          const onAbort = () => ac.abort();
          opts?.signal?.addEventListener("abort", onAbort, { once: true });
          try {
            return await Promise.race([
              fn(req, { ...opts, signal: ac.signal }) as Promise<unknown>,
              this.#crash.promise,
            ]);
          } catch (err) {
            ac.abort();
            throw await this.#classify(err);
          } finally {
            opts?.signal?.removeEventListener("abort", onAbort);
          }
        };
      } else if (m.methodKind === "server_streaming") {
        out[m.localName] = (req: unknown, opts?: object) =>
          this.#guardStream(() => fn(req, opts) as AsyncIterable<unknown>);
      } else {
        out[m.localName] = fn;
      }
    }
    return out as ServiceClient<S>;
  }

  /**
   * Shuts the plugin down: `GRPCController.Shutdown`, a wait for the
   * process to exit, then SIGKILL of its whole process group once the drain
   * window ends. The channel is closed only after the process is gone.
   *
   * @returns Resolves when the process has exited and sockets are removed.
   */
  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    this.#closing = true;
    const deadline = Date.now() + this.#shutdownTimeoutMs;
    if (this.#exit === undefined) {
      const controller = this.#grpc.createClient(
        GRPCController,
        this.#channel,
      );
      const shutdown = controller.shutdown({}, {
        timeoutMs: Math.min(2000, this.#shutdownTimeoutMs),
      }).catch(() => {});
      const grace = Math.max(0, Math.min(2000, deadline - Date.now()));
      await Promise.race([
        this.exited,
        shutdown.then(() => new Promise((r) => setTimeout(r, grace))),
        new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now()))),
      ]);
    }
    this.#killGroup();
    await this.exited;
    this.#killGroup(); // anything the plugin left in its group
    this.#channel.close();
    await this.#cleanup();
  }

  /** Sends SIGKILL to the plugin's process group (ignoring "no such process"). */
  #killGroup(): void {
    try {
      Deno.kill(-this.#child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }

  /** @internal Kills the process group synchronously (process exit path). */
  killNow(): void {
    this.#closing = true;
    this.#killGroup();
  }
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
          import("./isolated_callback_host.ts").then((
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
   * (and, at the first launch, the gateway serving it) is opened right
   * after, off the path to readiness, and announced on broker ID 1 as
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
    let pending = true;
    const spawned = () => {
      if (!pending) return;
      pending = false;
      if (--this.#preSpawn > 0) return;
      // Every launch in flight has its process booting (~100 ms): load the
      // gRPC stack meanwhile, not before a spawn (which it would delay).
      void loadGrpcAdapter().catch(() => {});
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
    const { manifest } = spec;
    const cwd = this.#options.cwd ?? Deno.cwd();
    const kernelEnv = this.#options.env ?? Deno.env.toObject();
    const startTimeoutMs = options.startTimeoutMs ??
      this.#options.startTimeoutMs ??
      DEFAULT_START_TIMEOUT_MS;
    const name = manifest.name;
    const remote = manifest.runtime === "deno" &&
      isRemoteSpecifier(spec.entrypoint);
    const path = remote || isAbsolute(spec.entrypoint)
      ? spec.entrypoint
      : resolve(cwd, spec.entrypoint);
    const fail = (
      code: ConstructorParameters<typeof PluginStartError>[0],
      detail: string,
      tail = "",
      cause?: unknown,
    ) =>
      new PluginStartError(
        code,
        name,
        path,
        detail,
        tail,
        cause ? { cause } : undefined,
      );

    // 1. Preflight.
    if (manifest.protocolVersion !== APP_PROTOCOL_VERSION) {
      throw fail(
        "plugin_version_mismatch",
        `it declares protocol version ${manifest.protocolVersion}, this kernel speaks ${APP_PROTOCOL_VERSION}`,
      );
    }
    const { effective, denied } = resolvePermissions(
      manifest.capabilities,
      spec.grant ?? {},
      { cwd, env: kernelEnv },
    );
    if (denied.length > 0) {
      throw fail(
        "plugin_permission_denied",
        `its manifest asks for permissions the operator did not grant: ${
          formatDenials(denied)
        }`,
      );
    }
    if (!remote) {
      let stat: Deno.FileInfo;
      try {
        stat = await Deno.stat(path);
      } catch (err) {
        throw fail("plugin_not_found", "the file does not exist", "", err);
      }
      if (!stat.isFile) {
        throw fail("plugin_not_found", "it is not a regular file");
      }
      if (
        manifest.runtime === "executable" &&
        ((stat.mode ?? 0o755) & 0o111) === 0
      ) {
        throw fail(
          "plugin_not_executable",
          "the file is not executable (expected an executable bit, e.g. chmod +x)",
        );
      }
    }

    // 2. Environment and command.
    const runtimeDir = await this.#dir();
    const dir = join(runtimeDir, `p${++this.#counter}`);
    await Deno.mkdir(dir, { mode: 0o700 });
    const identity: PluginIdentity = {
      category: manifest.category,
      name,
      version: manifest.version,
      source: spec.source ?? manifest.source ?? "",
    };
    const tcp = options.tcp ?? false;
    const port = tcp ? freePort() : 0;
    const env: Record<string, string> = {
      [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE,
      [HANDSHAKE_ENV.protocolVersions]: String(APP_PROTOCOL_VERSION),
      [HANDSHAKE_ENV.minPort]: String(tcp ? port : 10000),
      [HANDSHAKE_ENV.maxPort]: String(tcp ? port : 25000),
      PATH: kernelEnv.PATH ?? "/usr/local/bin:/usr/bin:/bin",
      OTEL_RESOURCE_ATTRIBUTES: [
        ["category", identity.category],
        ["name", identity.name],
        ["version", identity.version],
      ].map(([k, v]) =>
        `pluggableharness.producer.${k}=${encodeURIComponent(v!)}`
      ).join(","),
    };
    if (!tcp) {
      env[HANDSHAKE_ENV.unixSocketDir] = dir;
      env.TMPDIR = dir;
    }
    for (const v of effective.env) {
      if (v.endsWith("*")) continue;
      if (kernelEnv[v] !== undefined) env[v] = kernelEnv[v];
    }

    const callbackImpl = (this.#options.callbackImpl ??
      ((id, s) =>
        createCallbackService({
          identity: id,
          ...(s.config ? { config: s.config } : {}),
          ...(this.#options.services
            ? { services: this.#options.services }
            : {}),
        })))(
        identity,
        spec,
      );
    if (remote) {
      try {
        await ensureCached(path);
      } catch (err) {
        await Deno.remove(dir, { recursive: true }).catch(() => {});
        throw fail(
          "plugin_not_found",
          `cannot load the module: ${(err as Error).message}`,
          "",
          err,
        );
      }
    }
    // The callback endpoint (and, at the first launch, the gateway behind
    // it) is opened once the plugin is healthy, off the path to "ready":
    // plugins dial it at their first callback, and the announcement on
    // broker ID 1 is repeated until they do. On a unix socket its address
    // is known in advance; a TCP endpoint's port is needed for the flags.
    let endpointReady: Promise<CallbackEndpoint> | undefined;
    const openEndpoint = (): Promise<CallbackEndpoint> => {
      endpointReady ??= this.#callbacks().then((h) =>
        h.open({ dir, tcp, impl: callbackImpl })
      );
      endpointReady.catch(() => {});
      return endpointReady;
    };
    const endpointAddress = tcp
      ? (await openEndpoint()).address
      : join(dir, CALLBACK_SOCKET_NAME);
    const closeEndpoint = () => endpointReady?.then((e) => e.close(), () => {});

    let command: string;
    let args: string[];
    // Every plugin runs in the kernel's working directory, so that relative
    // paths in its config and tool arguments mean what the operator meant.
    const childCwd = cwd;
    if (manifest.runtime === "deno") {
      // Deno's runtime settings (TLS roots, proxies) reach every Deno
      // plugin from the kernel's environment as PATH does: its runtime
      // needs them to reach the network, and a plugin that starts Deno
      // itself (mcp) passes them on. The cache and the npm registry are the
      // kernel process's own: `--cached-only` loads the plugin's modules
      // from that cache, laid out by registry host.
      Object.assign(env, denoRuntimeEnv(kernelEnv));
      delete env.NPM_CONFIG_REGISTRY;
      const registry = denoNpmRegistry();
      if (registry !== undefined) env.NPM_CONFIG_REGISTRY = registry;
      env.DENO_DIR = denoCacheDir();
      env.DENO_NO_UPDATE_CHECK = "1";
      env.NO_COLOR = "1";
      // Deno needs an exact "unix:<path>" net grant per socket it binds or
      // dials; on TCP, exactly the two loopback ports.
      const loopback = tcp
        ? [`127.0.0.1:${port}`, endpointAddress]
        : [`unix:${join(dir, PLUGIN_SOCKET_NAME)}`, `unix:${endpointAddress}`];
      const flags = denoPermissionFlags(effective, {
        env: [...SDK_ENV_NAMES, ...DENO_RUNTIME_ENV_NAMES],
        socketDirs: tcp ? [] : [dir],
        loopback,
      });
      command = Deno.execPath();
      const configFlags: string[] = [];
      // A remote module may import from its own origin only.
      if (remote) configFlags.push("--no-config", ...importFlag(path));
      else {
        // The plugin's own deno.json (its import map), found from its
        // module's directory, never the project's.
        const config = await findDenoConfig(dirname(path));
        configFlags.push(...(config ? ["--config", config] : ["--no-config"]));
      }
      args = [
        "run",
        "--cached-only",
        "--no-prompt",
        ...configFlags,
        ...flags,
        path,
      ];
    } else {
      command = path;
      args = [];
    }

    // 3. Spawn in its own process group.
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(command, {
        args,
        env,
        clearEnv: true,
        cwd: childCwd,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        detached: true,
      }).spawn();
      spawned();
    } catch (err) {
      await closeEndpoint();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
      const permission = err instanceof Deno.errors.PermissionDenied;
      throw fail(
        permission ? "plugin_not_executable" : "plugin_not_found",
        `cannot execute it: ${err instanceof Error ? err.message : err}`,
        "",
        err,
      );
    }
    const pluginLog = getLogger(["ph-agent", "plugin", name]);
    const stderr = new TailBuffer();
    const lines = new LineSplitter(
      (line) => {
        const { level, message, fields } = stderrLevel(line);
        logAt(pluginLog, level, message, { ...fields, stream: "stderr" });
      },
      (count) =>
        pluginLog.warn(
          "Dropped {count} stderr lines of plugin {plugin} (rate limit)",
          {
            count,
            plugin: name,
          },
        ),
    );
    const stderrDone = drain(child.stderr, (chunk) => {
      stderr.push(chunk);
      lines.push(chunk);
    }).then(() => lines.end());
    const stdoutLines = new LineSplitter(
      (line) =>
        pluginLog.debug("{message}", { message: line, stream: "stdout" }),
      () => {},
    );
    const exited: Promise<ExitInfo> = child.status.then(async (s) => {
      await Promise.race([stderrDone, new Promise((r) => setTimeout(r, 100))]);
      return { code: s.code, signal: s.signal };
    });

    const killChild = () => {
      try {
        Deno.kill(-child.pid, "SIGKILL");
      } catch {
        // gone
      }
    };
    const cleanupDir = async () => {
      await closeEndpoint();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    };
    // The error is built once the process is gone and its stderr drained,
    // so that its tail holds everything the plugin said.
    const abortLaunch = async (
      code: ConstructorParameters<typeof PluginStartError>[0],
      detail: string,
      cause?: unknown,
    ): Promise<never> => {
      killChild();
      await exited;
      await cleanupDir();
      throw fail(code, detail, stderr.text(), cause);
    };

    // 4. Handshake line, bounded by the start timeout.
    const started = Date.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<"timeout">((r) => {
      timer = setTimeout(() => r("timeout"), startTimeoutMs);
    });
    const aborted = new Promise<"aborted">((r) => {
      if (options.signal?.aborted) r("aborted");
      options.signal?.addEventListener("abort", () => r("aborted"), {
        once: true,
      });
    });
    const first = await Promise.race([
      readHandshake(child.stdout, (chunk) => stdoutLines.push(chunk)),
      timeout,
      aborted,
    ]);
    clearTimeout(timer);
    if (first === "aborted") {
      return await abortLaunch(
        "plugin_start_timeout",
        "the launch was cancelled",
      );
    }
    if (first === "timeout") {
      return await abortLaunch(
        "plugin_start_timeout",
        `no handshake line within ${startTimeoutMs} ms (expected "CORE|APP|NETWORK|ADDR|grpc" on stdout)`,
      );
    }
    if (first.kind === "eof") {
      const exit = await Promise.race([
        exited,
        new Promise<undefined>((r) => setTimeout(() => r(undefined), 2000)),
      ]);
      const how = exit
        ? `it exited (${describeExit(exit)})`
        : "it closed its stdout";
      const printed = first.preview
        ? `; it printed ${JSON.stringify(first.preview)}`
        : "";
      return await abortLaunch(
        "plugin_exited_before_handshake",
        `${how} before printing a handshake line${printed}`,
      );
    }
    if (first.kind === "too_long") {
      return await abortLaunch(
        "plugin_handshake_invalid",
        `it printed more than 4096 bytes without a newline before its handshake line, starting ${
          JSON.stringify(first.preview)
        }`,
      );
    }
    let hs;
    try {
      hs = parseHandshakeLine(first.line, [APP_PROTOCOL_VERSION]);
    } catch (err) {
      const code =
        err instanceof HandshakeError && err.code === "handshake_app_version"
          ? "plugin_version_mismatch"
          : "plugin_handshake_invalid";
      return await abortLaunch(code, (err as Error).message, err);
    }

    // 5. Connect and check health within the remaining start time. The
    // gRPC library loads here, while the plugin started, not before.
    const grpcAdapter = await loadGrpcAdapter();
    const { createClient } = grpcAdapter;
    const channel = grpcAdapter.dial(hs.network, hs.address);
    const remaining = () =>
      Math.max(1, startTimeoutMs - (Date.now() - started));
    const health = createClient(Health, channel);
    try {
      const res = await Promise.race([
        health.check({ service: HEALTH_SERVICE_NAME }, {
          timeoutMs: remaining(),
        }),
        exited.then((e) => {
          throw new Error(`it exited (${describeExit(e)}) after its handshake`);
        }),
      ]);
      if (res.status !== HealthCheckResponse_ServingStatus.SERVING) {
        throw new Error(
          `health check of service "plugin" returned ${
            HealthCheckResponse_ServingStatus[res.status]
          }, expected SERVING`,
        );
      }
    } catch (err) {
      channel.close();
      return await abortLaunch(
        "plugin_health_failed",
        `it did not answer its health check at ${hs.network}:${hs.address}: ${
          err instanceof Error ? err.message : err
        }`,
        err,
      );
    }

    let stopped = false;
    // 6. Broker stream and the callback channel on broker ID 1.
    const broker: BidiCall<typeof ConnInfoSchema, typeof ConnInfoSchema> =
      createClient(
        GRPCBroker,
        channel,
      ).startStream();
    void (async () => {
      try {
        for await (const _ of broker.responses) {
          // plugins may announce their own services; none are used yet
        }
      } catch {
        // the plugin went away; crash detection reports it
      }
    })();
    let reannounce: ReturnType<typeof setInterval> | undefined;
    openEndpoint().then((ep) => {
      if (stopped) return;
      const announce = () =>
        broker.send({
          serviceId: CALLBACK_BROKER_ID,
          network: ep.network,
          address: ep.address,
        });
      announce();
      reannounce = setInterval(announce, CALLBACK_REANNOUNCE_MS);
      Deno.unrefTimer(reannounce);
      ep.firstCall.then(() => clearInterval(reannounce));
      exited.then(() => clearInterval(reannounce));
    }, (err) =>
      log.error(
        "Cannot serve the callback channel of plugin {plugin}: {error}",
        { plugin: name, error: (err as Error).message },
      ));

    // 7. Stdio: drain it when the plugin offers it (a Go plugin needs this).
    void (async () => {
      try {
        for await (
          const d of createClient(GRPCStdio, channel).streamStdio({})
        ) {
          const text = new TextDecoder().decode(d.data);
          pluginLog.debug("{message}", {
            message: text.replace(/\n$/, ""),
            stream: d.channel === StdioData_Channel.STDERR
              ? "stderr"
              : "stdout",
          });
        }
      } catch {
        // UNIMPLEMENTED, or the plugin went away
      }
    })();

    const plugin = new Plugin({
      grpc: grpcAdapter,
      identity,
      child,
      channel,
      stderr,
      exited,
      protocolVersion: hs.appVersion,
      permissions: effective,
      path,
      shutdownTimeoutMs: this.#options.shutdownTimeoutMs ??
        DEFAULT_SHUTDOWN_TIMEOUT_MS,
      cleanup: async () => {
        stopped = true;
        clearInterval(reannounce);
        broker.cancel();
        await cleanupDir();
        this.#plugins.delete(plugin);
      },
    });
    this.#plugins.add(plugin);
    log.info("Plugin {plugin} started with pid {pid} in {ms} ms", {
      plugin: name,
      pid: child.pid,
      ms: Date.now() - started,
    });
    return plugin;
  }

  /** Kills every plugin's process group at once (synchronous; exit path). */
  killAllNow(): void {
    for (const p of this.#plugins) p.killNow();
  }

  /** Closes every plugin (drain-then-kill), then removes the runtime dir. */
  async close(): Promise<void> {
    globalThis.removeEventListener("unload", this.#onUnload);
    await Promise.all([...this.#plugins].map((p) => p.close()));
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

/** Resolves a module-relative path (for first-party plugins). */
export function moduleRelative(base: string, rel: string): string {
  const u = new URL(rel, base);
  return u.protocol === "file:" ? fileURLToPath(u) : u.href;
}
