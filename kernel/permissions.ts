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
import type { CapabilityEnvelope } from "../plugins/sdk/manifest.ts";

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
 * Intersects a plugin's declared envelope with the operator's grant.
 *
 * Everything the plugin declares must be granted: each uncovered entry is
 * reported in `denied`, and the launcher refuses the plugin before it starts.
 * Anything granted but not declared is not passed on, so a plugin never
 * receives more than it declares.
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
  const abs = (p: string) => resolve(options.cwd, p);
  for (const kind of PERMISSION_KINDS) {
    const granted = grant[kind] ?? [];
    const grantedPaths = kind === "read" || kind === "write"
      ? granted.map(abs)
      : [];
    for (const value of declared[kind]) {
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
          normalized = abs(value);
          ok = pathCovered(normalized, grantedPaths);
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
