/**
 * A plugin's command line and environment: the go-plugin handshake
 * variables, `PATH` and exactly the variables its grant names (nothing
 * else of the kernel's environment), and for a Deno plugin `deno run`
 * with its effective permissions as flags (never `-A`), its own
 * `deno.json` and the exact socket grants the transport needs.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { GRPC_JS_ENV } from "../../proto/grpc_status.ts";
import {
  APP_PROTOCOL_VERSION,
  HANDSHAKE_ENV,
  LOG_LEVEL_ENV,
  MAGIC_COOKIE_KEY,
  MAGIC_COOKIE_VALUE,
  PLUGIN_SOCKET_NAME,
  TRANSPORTS_ENV,
} from "../../proto/handshake.ts";
import type { PluginRuntime } from "../../contract/manifest.ts";
import {
  denoPermissionFlags,
  type EffectivePermissions,
} from "../../contract/permissions.ts";
import type { PluginIdentity } from "../../contract/plugin_identity.ts";
import { findDenoConfig } from "../../config/mod.ts";
import {
  denoCacheDir,
  denoNpmRegistry,
  importFlag,
} from "../process/_module_cache.ts";
import {
  DENO_RUNTIME_ENV_NAMES,
  denoRuntimeEnv,
} from "../../contract/runtime_env.ts";
import type { ProcessCommand } from "../process/launcher.ts";
import { PLUGIN_V8_FLAGS } from "../process/_v8_flags.ts";

/**
 * Variables the plugin SDK and `@grpc/grpc-js` read; a Deno plugin gets
 * `--allow-env` for these names (values are only present when the kernel
 * sets them).
 */
export const SDK_ENV_NAMES: readonly string[] = [
  MAGIC_COOKIE_KEY,
  ...Object.values(HANDSHAKE_ENV),
  LOG_LEVEL_ENV,
  TRANSPORTS_ENV,
  "TMPDIR",
  "OTEL_RESOURCE_ATTRIBUTES",
  ...GRPC_JS_ENV,
];

/** Where a plugin listens and the kernel serves its callbacks. */
export interface PluginTransport {
  /** Listen on TCP 127.0.0.1 instead of a unix socket. */
  tcp: boolean;
  /** The TCP port the plugin must listen on (with `tcp`). */
  port: number;
  /** The plugin's private directory (its unix socket lives there). */
  dir: string;
  /** The callback endpoint's address (a socket path, or `host:port`). */
  callbackAddress: string;
  /**
   * Offer the framed transport (`PLUGGABLEHARNESS_TRANSPORTS=frame`; unix
   * sockets only). @default {false}
   */
  frame?: boolean;
}

/** The `PATH` a plugin gets when the kernel's environment has none. */
export const DEFAULT_PLUGIN_PATH = "/usr/local/bin:/usr/bin:/bin";

/** What {@linkcode pluginCommand} needs. */
export interface PluginCommandOptions {
  /** The plugin's identity (for `OTEL_RESOURCE_ATTRIBUTES`). */
  identity: PluginIdentity;
  /** How the plugin runs. */
  runtime: PluginRuntime;
  /** The executable, or the Deno module's path or URL. */
  path: string;
  /** True when `path` is a remote Deno module. */
  remote: boolean;
  /**
   * The last folder searched for the plugin's `deno.json` (see
   * `PluginSpec.configRoot`). @default {no bound}
   */
  configRoot?: string;
  /** The permissions the plugin runs with. */
  effective: EffectivePermissions;
  /** The environment that granted variables are copied from. */
  kernelEnv: Record<string, string>;
  /** The working directory of the plugin (the kernel's). */
  cwd: string;
  /** Its sockets. */
  transport: PluginTransport;
  /**
   * The kernel's floor for the plugin's `Log` entries (`info`, or `off`),
   * given as `PLUGGABLEHARNESS_LOG_LEVEL` so that the SDK drops what the
   * kernel would. @default {unset: the plugin sends every entry}
   */
  logLevel?: string;
  /**
   * Files the plugin may neither read nor write whatever its grant (the
   * installation key): a Deno plugin gets `--deny-read` and
   * `--deny-write` for them, which win over a grant of their directory.
   */
  hidden?: readonly string[];
}

/**
 * Builds the environment of a plugin: the handshake variables, `PATH`,
 * the telemetry resource attributes and the granted variables the kernel
 * has (a `*` pattern copies nothing).
 *
 * @param options The plugin, its grant and transport.
 * @returns The whole environment of the child.
 */
export function pluginEnv(
  options: Omit<PluginCommandOptions, "runtime" | "path" | "remote" | "cwd">,
): Record<string, string> {
  const { identity, kernelEnv, transport: { tcp, port, dir } } = options;
  const env: Record<string, string> = {
    [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE,
    [HANDSHAKE_ENV.protocolVersions]: String(APP_PROTOCOL_VERSION),
    [HANDSHAKE_ENV.minPort]: String(tcp ? port : 10000),
    [HANDSHAKE_ENV.maxPort]: String(tcp ? port : 25000),
    PATH: kernelEnv.PATH ?? DEFAULT_PLUGIN_PATH,
    OTEL_RESOURCE_ATTRIBUTES: [
      ["category", identity.category],
      ["name", identity.name],
      ["version", identity.version],
    ].map(([k, v]) =>
      `pluggableharness.producer.${k}=${encodeURIComponent(v!)}`
    )
      .join(","),
  };
  if (options.logLevel !== undefined) env[LOG_LEVEL_ENV] = options.logLevel;
  if (!tcp) {
    env[HANDSHAKE_ENV.unixSocketDir] = dir;
    env.TMPDIR = dir;
    if (options.transport.frame) env[TRANSPORTS_ENV] = "frame";
  }
  for (const v of options.effective.env) {
    if (v.endsWith("*")) continue;
    if (kernelEnv[v] !== undefined) env[v] = kernelEnv[v];
  }
  return env;
}

/**
 * Builds what to start for a plugin: the executable itself, or `deno run`
 * with the plugin's permission flags, its own config and its module.
 *
 * @param options The plugin, its grant and transport.
 * @returns The command, arguments, environment and working directory.
 * @throws {RangeError} If a granted value cannot be expressed as a Deno flag.
 */
export async function pluginCommand(
  options: PluginCommandOptions,
): Promise<ProcessCommand> {
  const env = pluginEnv(options);
  // Every plugin runs in the kernel's working directory, so that relative
  // paths in its config and tool arguments mean what the operator meant.
  const cwd = options.cwd;
  if (options.runtime !== "deno") {
    return { command: options.path, args: [], env, cwd };
  }
  // Deno's runtime settings (TLS roots, proxies) reach every Deno plugin
  // from the kernel's environment as PATH does: its runtime needs them to
  // reach the network, and a plugin that starts Deno itself (mcp) passes
  // them on. The cache and the npm registry are the kernel process's own:
  // `--cached-only` loads the plugin's modules from that cache, laid out by
  // registry host.
  Object.assign(env, denoRuntimeEnv(options.kernelEnv));
  delete env.NPM_CONFIG_REGISTRY;
  const registry = denoNpmRegistry();
  if (registry !== undefined) env.NPM_CONFIG_REGISTRY = registry;
  env.DENO_DIR = denoCacheDir();
  env.DENO_NO_UPDATE_CHECK = "1";
  env.NO_COLOR = "1";
  const flags = [
    ...denoTransportFlags(options.effective, options.transport),
    ...denyFlags(options.hidden ?? []),
  ];
  const args = [
    "run",
    "--cached-only",
    "--no-prompt",
    PLUGIN_V8_FLAGS,
    ...await denoConfigFlags(options.path, options.remote, options.configRoot),
    ...flags,
    options.path,
  ];
  return { command: Deno.execPath(), args, env, cwd };
}

/** The `deno run` permission flags: the grant plus the transport's needs. */
function denoTransportFlags(
  effective: EffectivePermissions,
  { tcp, port, dir, callbackAddress }: PluginTransport,
): string[] {
  // Deno needs an exact "unix:<path>" net grant per socket it binds or
  // dials; on TCP, exactly the two loopback ports.
  const loopback = tcp
    ? [`127.0.0.1:${port}`, callbackAddress]
    : [`unix:${join(dir, PLUGIN_SOCKET_NAME)}`, `unix:${callbackAddress}`];
  return denoPermissionFlags(effective, {
    env: [...SDK_ENV_NAMES, ...DENO_RUNTIME_ENV_NAMES],
    socketDirs: tcp ? [] : [dir],
    loopback,
  });
}

/**
 * `--deny-read`/`--deny-write` for hidden files (by the path as named and,
 * when it differs, its real path: Deno checks the path it is given).
 */
function denyFlags(hidden: readonly string[]): string[] {
  const paths = new Set<string>();
  for (const p of hidden) {
    if (p.includes(",")) {
      throw new RangeError(
        `Cannot hide "${p}" from plugins: a comma cannot be expressed as a Deno flag`,
      );
    }
    paths.add(p);
    try {
      paths.add(Deno.realPathSync(p));
    } catch {
      // absent: the path as named is denied
    }
  }
  if (paths.size === 0) return [];
  const list = [...paths].join(",");
  return [`--deny-read=${list}`, `--deny-write=${list}`];
}

/** `--config`/`--no-config` and, for a remote module, its import flag. */
async function denoConfigFlags(
  path: string,
  remote: boolean,
  configRoot: string | undefined,
): Promise<string[]> {
  // A remote module may import from its own origin only.
  if (remote) return ["--no-config", ...importFlag(path)];
  // The plugin's own deno.json (its import map), found from its module's
  // directory, never the project's; bounded by its own folder when it has
  // one that nothing above may configure (a forge release in the cache).
  const config = await findDenoConfig(
    dirname(path),
    configRoot !== undefined ? { stopAt: configRoot } : {},
  );
  return config ? ["--config", config] : ["--no-config"];
}
