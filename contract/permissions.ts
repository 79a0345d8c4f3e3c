/**
 * The effective permissions of a plugin: its declared capability envelope
 * intersected with the operator's grant. One pure function decides them; the
 * launcher turns them into Deno flags and an environment, and the config
 * compiler shows them to operators.
 *
 * @example
 * ```ts
 * import { resolvePermissions } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * const { effective, denied } = resolvePermissions(
 *   { env: ["GITHUB_TOKEN"], run: ["git"], read: [], write: [], net: [] },
 *   { env: ["GITHUB_TOKEN", "HOME"], run: [] },
 *   { cwd: "/repo" },
 * );
 * assert.deepEqual(effective.env, ["GITHUB_TOKEN"]);
 * assert.deepEqual(denied, [{ kind: "run", value: "git" }]);
 * ```
 *
 * @module
 */
import { isAbsolute, relative, resolve } from "node:path";
import type { CapabilityEnvelope } from "./manifest.ts";

/** The kinds of permission a plugin can declare and be granted. */
export type PermissionKind = keyof CapabilityEnvelope;

/** Every permission kind, in display order. */
export const PERMISSION_KINDS: readonly PermissionKind[] = [
  "env",
  "run",
  "read",
  "write",
  "net",
];

/**
 * What the operator grants a plugin. An absent list grants nothing.
 * Patterns: env names may end in `*` (prefix); net hosts may start with
 * `*.` (any subdomain) and may carry a `:port`; paths cover themselves and
 * everything below them.
 */
export type PermissionGrant = { [K in PermissionKind]?: readonly string[] };

/** Permissions a plugin actually receives. */
export type EffectivePermissions = { [K in PermissionKind]: string[] };

/** One declared permission that the grant does not cover. */
export interface PermissionDenial {
  /** Which kind of permission. */
  kind: PermissionKind;
  /** The declared value, as written in the manifest. */
  value: string;
}

/** Options for {@linkcode resolvePermissions}. */
export interface ResolvePermissionsOptions {
  /** Directory that relative paths in the manifest and grant resolve against. */
  cwd: string;
  /**
   * The kernel's environment, for paths that start with `~`, `$HOME` or an
   * XDG base directory (`$XDG_DATA_HOME`, `$XDG_STATE_HOME`,
   * `$XDG_CONFIG_HOME`, `$XDG_CACHE_HOME`, each with its standard default
   * below `$HOME`). Without it such paths are denied.
   */
  env?: Readonly<Record<string, string | undefined>>;
}

const XDG_DEFAULTS: Readonly<Record<string, string>> = {
  XDG_DATA_HOME: ".local/share",
  XDG_STATE_HOME: ".local/state",
  XDG_CONFIG_HOME: ".config",
  XDG_CACHE_HOME: ".cache",
};

/**
 * Expands a leading `~`, `$HOME` or `$XDG_*_HOME` of a declared or granted
 * path (an XDG variable that is unset or relative takes its standard
 * default below `$HOME`, as the XDG spec says).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { expandPath } from "./permissions.ts";
 * assert.equal(expandPath("$XDG_DATA_HOME/agent", { HOME: "/home/a" }), "/home/a/.local/share/agent");
 * assert.equal(expandPath("~/x", { HOME: "/home/a" }), "/home/a/x");
 * assert.equal(expandPath("./x", {}), "./x");
 * assert.equal(expandPath("$XDG_DATA_HOME/agent", {}), undefined);
 * ```
 *
 * @param path The path as written.
 * @param env The environment.
 * @returns The expanded path, the path itself when it has no such prefix,
 * or `undefined` when the variable it needs is not set.
 */
export function expandPath(
  path: string,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const m = /^(~|\$HOME|\$(XDG_(?:DATA|STATE|CONFIG|CACHE)_HOME))(?=\/|$)(.*)$/s
    .exec(path);
  if (!m) return path;
  const home = env.HOME && env.HOME.startsWith("/") ? env.HOME : undefined;
  let base: string | undefined;
  if (m[2]) {
    const v = env[m[2]];
    base = v && v.startsWith("/") ? v : home && `${home}/${XDG_DEFAULTS[m[2]]}`;
  } else base = home;
  return base === undefined ? undefined : base + m[3];
}

/** The outcome: what the plugin gets, and what it asked for but may not have. */
export interface PermissionResolution {
  /** Declared ∩ granted, normalized (absolute paths). */
  effective: EffectivePermissions;
  /** Declared but not granted; a non-empty list means "refuse to launch". */
  denied: PermissionDenial[];
}

function envCovered(name: string, grant: readonly string[]): boolean {
  return grant.some((g) =>
    g.endsWith("*") ? name.startsWith(g.slice(0, -1)) : g === name
  );
}

function pathCovered(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const rel = relative(root, path);
    return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
  });
}

function splitHost(h: string): { host: string; port?: string } {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(h);
  if (!m) return { host: h };
  return m[2] === undefined ? { host: m[1]! } : { host: m[1]!, port: m[2] };
}

function netCovered(target: string, grant: readonly string[]): boolean {
  const t = splitHost(target.toLowerCase());
  return grant.some((g) => {
    const p = splitHost(g.toLowerCase());
    const hostOk = p.host.startsWith("*.")
      ? t.host.endsWith(p.host.slice(1)) && t.host.length > p.host.length - 1
      : p.host === t.host;
    const portOk = p.port === undefined || p.port === t.port;
    return hostOk && portOk;
  });
}

/**
 * A declared `net`, `run`, `read` or `write` entry meaning "what the
 * operator grants": for a plugin whose endpoint, program or files are
 * configuration (a model server's `base_url`, a fetcher's hosts, an MCP
 * server's command, a database file). Its effective hosts, programs or
 * paths are exactly the `allow_*` entries of that kind (never a literal
 * `"*"`, which Deno would read as everything), and granting none is not a
 * denial (the plugin then has none).
 */
export const ANY_GRANTED = "*";

/**
 * The suffix of a declared `run` entry the plugin can do without
 * (`"rg?"`): the program is passed on when the operator grants it
 * (`allow_run = ["rg"]`) and, unlike a plain entry, not granting it is
 * not a denial (the plugin then uses its fallback).
 */
export const OPTIONAL_RUN_SUFFIX = "?";

/**
 * Intersects a plugin's declared envelope with the operator's grant.
 *
 * Everything the plugin declares must be granted: each uncovered entry is
 * reported in `denied`, and the launcher refuses the plugin before it starts.
 * Anything granted but not declared is not passed on, so a plugin never
 * receives more than it declares — except under a declared entry `"*"`
 * ({@linkcode ANY_GRANTED}, not for `env`), which passes on exactly what is
 * granted of that kind. An optional `run` entry (`"rg?"`,
 * {@linkcode OPTIONAL_RUN_SUFFIX}) is passed on when granted and is never a
 * denial.
 *
 * @param declared The plugin's capability envelope (its manifest).
 * @param grant The operator's grant for this plugin.
 * @param options Where relative paths resolve.
 * @returns The effective permissions and the denials.
 */
export function resolvePermissions(
  declared: CapabilityEnvelope,
  grant: PermissionGrant,
  options: ResolvePermissionsOptions,
): PermissionResolution {
  const effective: EffectivePermissions = {
    env: [],
    run: [],
    read: [],
    write: [],
    net: [],
  };
  const denied: PermissionDenial[] = [];
  const env = options.env ?? {};
  const abs = (p: string) => {
    const e = expandPath(p, env);
    return e === undefined ? undefined : resolve(options.cwd, e);
  };
  for (const kind of PERMISSION_KINDS) {
    const granted = grant[kind] ?? [];
    // A granted path whose variable is unset grants nothing.
    const grantedPaths = kind === "read" || kind === "write"
      ? granted.flatMap((g) => abs(g) ?? [])
      : [];
    for (const value of declared[kind]) {
      if (value === ANY_GRANTED && kind !== "env") {
        // "*": the hosts, programs or paths are the operator's choice (a
        // configurable endpoint, an MCP server's command, a database
        // file): exactly the granted ones (never "*" itself), and none
        // when none is granted.
        for (const g of granted) {
          if (g === ANY_GRANTED) continue;
          const v = kind === "read" || kind === "write" ? abs(g) : g;
          if (v !== undefined && !effective[kind].includes(v)) {
            effective[kind].push(v);
          }
        }
        continue;
      }
      if (kind === "run" && value.endsWith(OPTIONAL_RUN_SUFFIX)) {
        const program = value.slice(0, -OPTIONAL_RUN_SUFFIX.length);
        if (granted.includes(program) && !effective.run.includes(program)) {
          effective.run.push(program);
        }
        continue;
      }
      let ok: boolean;
      let normalized = value;
      switch (kind) {
        case "env":
          ok = envCovered(value, granted);
          break;
        case "run":
          ok = granted.includes(value);
          break;
        case "read":
        case "write":
          {
            // A declared path whose variable is unset cannot be granted.
            const a = abs(value);
            ok = a !== undefined && pathCovered(a, grantedPaths);
            if (a !== undefined) normalized = a;
          }
          break;
        case "net":
          ok = netCovered(value, granted);
          break;
      }
      if (!ok) denied.push({ kind, value });
      else if (!effective[kind].includes(normalized)) {
        effective[kind].push(normalized);
      }
    }
  }
  return { effective, denied };
}

/** Transport needs that are added to a Deno plugin's own permissions. */
export interface TransportPermissions {
  /** Variables the SDK and grpc-js read (names only). */
  env: readonly string[];
  /** Directories holding the plugin's socket and the kernel's callback socket. */
  socketDirs: readonly string[];
  /** Transport endpoints: `unix:<socket>` paths, or loopback `host:port` pairs on TCP. */
  loopback: readonly string[];
}

function flag(name: string, values: readonly string[]): string[] {
  // An empty `--allow-x=` would grant everything: omit the flag instead.
  if (values.length === 0) return [];
  for (const v of values) {
    if (v.includes(",")) {
      throw new RangeError(
        `Cannot express --${name} for ${
          JSON.stringify(v)
        }: the value contains a comma`,
      );
    }
  }
  return [`--${name}=${[...new Set(values)].join(",")}`];
}

/**
 * Builds the `deno run` permission flags for a plugin: its effective
 * permissions plus what the transport needs. Never `-A`, never an empty
 * allow-list, and no `--allow-sys`, `--allow-ffi` or `--allow-import`.
 *
 * @param effective The plugin's effective permissions.
 * @param transport What the SDK's transport needs.
 * @returns Flags to put between `deno run` and the module.
 * @throws {RangeError} If a value cannot be expressed as a Deno flag.
 */
export function denoPermissionFlags(
  effective: EffectivePermissions,
  transport: TransportPermissions,
): string[] {
  return [
    ...flag("allow-env", [...transport.env, ...effective.env]),
    ...flag("allow-run", effective.run),
    ...flag("allow-read", [...transport.socketDirs, ...effective.read]),
    ...flag("allow-write", [...transport.socketDirs, ...effective.write]),
    ...flag("allow-net", [...transport.loopback, ...effective.net]),
  ];
}

/**
 * Formats denials as one sentence naming every missing permission, e.g.
 * `run permission "git" is not granted; env permission "TOKEN" is not granted`.
 *
 * @param denied The denials from {@linkcode resolvePermissions}.
 * @returns A message fragment.
 */
export function formatDenials(denied: readonly PermissionDenial[]): string {
  return denied.map((d) => `${d.kind} permission "${d.value}" is not granted`)
    .join("; ");
}
