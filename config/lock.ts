/**
 * `agent lock`: writes `.agent/agent.lock.hcl` for the providers available
 * locally (builtin and path sources), never for `dev_overrides` names, and
 * keeps the entries of forge providers, which cannot be resolved offline.
 *
 * @module
 */

import { dirname, join } from "node:path";
import type { Diagnostic } from "../contract/diagnostic.ts";
import { parseHcl } from "./hcl/mod.ts";
import { DENO_PLATFORMS, hostPlatform } from "./checksum.ts";
import { artifactKey, compile, isLockProblem } from "./compile.ts";
import { decodeAgentConfig } from "./decode.ts";
import {
  decodeGlobalConfig,
  devOverrideOf,
  type RegistryMirror,
} from "./global_config.ts";
import { loadConfigInputs, type LoadConfigInputsOptions } from "./files.ts";
import {
  formatLockFile,
  LOCK_FILE_PATH,
  type LockedProvider,
  type LockFile,
  parseLockFile,
} from "./lock_file.ts";
import { satisfies, type VersionConstraint } from "./version_constraint.ts";
import type { PluginManifest } from "../contract/manifest.ts";
import type { ToolDeclaration } from "./plan.ts";
import { diag } from "./_schema.ts";
import { RISK_CLASSES, type RiskClass } from "../contract/policy.ts";

/** Options for {@linkcode lockConfig}. */
export interface LockConfigOptions extends LoadConfigInputsOptions {
  /**
   * The time written as `resolved_at` for new or changed entries.
   * @default {new Date()}
   */
  now?: Date;
  /**
   * Compute everything but do not write the file.
   * @default {false}
   */
  dryRun?: boolean;
  /**
   * Record a version whose envelope, tools or risk classes are wider than
   * the locked ones (`--accept-widening`); the entry then lists what was
   * accepted. Without it such a version is refused (`E_LOCK_WIDENS`).
   * @default {false}
   */
  acceptWidening?: boolean;
  /**
   * Resolves a forge provider (lists its releases, reads the chosen
   * release's checksum file, fetches the host's archive for its manifest).
   * Without it, forge providers keep their entries while they still
   * satisfy their constraints and are refused otherwise.
   * @default {undefined}
   */
  forge?: ForgeLockResolver;
  /**
   * Move forge providers to the newest version their constraints allow
   * (`true`: every one; a list: those local names) instead of keeping the
   * locked version while it satisfies them.
   * @default {false}
   */
  upgrade?: boolean | readonly string[];
}

/** What {@linkcode ForgeLockResolver} is asked. */
export interface ForgeLockRequest {
  /** The local name. */
  name: string;
  /** The forge source. */
  source: string;
  /** The constraint. */
  constraint: VersionConstraint;
  /** The locked version to keep while it satisfies the constraint. */
  locked?: string;
  /** Whether to pick the newest version even when the locked one satisfies. */
  upgrade: boolean;
  /** The global config's `registry_mirror`, when there is one. */
  mirror?: RegistryMirror;
}

/** What {@linkcode ForgeLockResolver} answers. */
export interface ForgeLockFacts {
  /** The resolved version. */
  version: string;
  /** Every platform of the release's checksum file → `sha256:<hex>`. */
  checksums: Record<string, string>;
  /** The plugin's manifest, from the host platform's archive. */
  manifest: PluginManifest;
  /** The tools its manifest declares. */
  tools?: ToolDeclaration[];
}

/**
 * Resolves one forge provider for `agent lock`; throws an `Error` whose
 * message says why it cannot.
 */
export type ForgeLockResolver = (
  request: ForgeLockRequest,
) => Promise<ForgeLockFacts>;

/** What happened to one provider. */
export interface LockChange {
  /** The local name. */
  name: string;
  /** `locked` (new or changed), `unchanged`, `kept` (forge, dev override). */
  status: "locked" | "unchanged" | "kept";
  /** The locked version, when there is an entry. */
  version?: string;
  /** The source. */
  source: string;
  /** What the new entry widens over the old one (accepted or refused). */
  widening?: string[];
}

/** What {@linkcode lockConfig} returns. */
export interface LockResult {
  /** Whether the lock file was (or, with `dryRun`, would be) written. */
  ok: boolean;
  /** Whether the file's content changed. */
  changed: boolean;
  /** The lock file's text, when `ok`. */
  text?: string;
  /** One line per provider. */
  changes: LockChange[];
  /** Errors that prevented locking, and warnings. */
  diagnostics: Diagnostic[];
  /** Each file's text by shown path, for rendering the diagnostics. */
  sources: Map<string, string>;
  /** The lock file's absolute path. */
  path: string;
}

function sameEntry(a: LockedProvider, b: LockedProvider): boolean {
  return a.source === b.source && a.version === b.version &&
    JSON.stringify(a.checksums) === JSON.stringify(b.checksums) &&
    JSON.stringify(a.envelope ?? null) === JSON.stringify(b.envelope ?? null) &&
    JSON.stringify(a.configSchema ?? null) ===
      JSON.stringify(b.configSchema ?? null) &&
    JSON.stringify(a.tools ?? null) === JSON.stringify(b.tools ?? null) &&
    a.category === b.category;
}

const RISK_RANK: Readonly<Record<RiskClass, number>> = Object.fromEntries(
  RISK_CLASSES.map((r, i) => [r, i]),
) as Record<RiskClass, number>;

/**
 * What a new lock entry may do that the old one could not, one line per
 * item: a capability the envelope adds, a tool the manifest adds, a tool
 * whose risk class rises, or a resource tool that becomes a data source or
 * interactive (it then skips the plan/apply gate). Tools are compared only
 * when the old entry recorded them.
 *
 * @example Usage
 * ```ts
 * import { lockWidening } from "./lock.ts";
 * import assert from "node:assert/strict";
 * const base = { name: "fs", source: "./fs", version: "1.0.0", resolvedAt: "", checksums: {} };
 * const env = { env: [], run: [], read: ["."], write: [], net: [] };
 * assert.deepEqual(
 *   lockWidening(
 *     { ...base, envelope: env, tools: [{ name: "read", kind: "data_source", risk: "read_only" }] },
 *     { ...base, version: "1.1.0", envelope: { ...env, net: ["example.org"] },
 *       tools: [{ name: "read", kind: "data_source", risk: "low" }] },
 *   ),
 *   ['envelope net adds "example.org"', 'tool "read": risk read_only -> low'],
 * );
 * ```
 *
 * @param old The locked entry.
 * @param next The entry about to be written.
 * @returns The widened items (empty: nothing widens).
 */
export function lockWidening(
  old: LockedProvider,
  next: LockedProvider,
): string[] {
  const out: string[] = [];
  if (next.envelope) {
    for (const kind of ["env", "run", "read", "write", "net"] as const) {
      const before = new Set(old.envelope?.[kind] ?? []);
      for (const item of next.envelope[kind]) {
        if (!before.has(item)) {
          out.push(`envelope ${kind} adds ${JSON.stringify(item)}`);
        }
      }
    }
  }
  if (old.tools && next.tools) {
    const before = new Map(old.tools.map((t) => [t.name, t]));
    for (const t of next.tools) {
      const o = before.get(t.name);
      if (!o) {
        out.push(`tool "${t.name}" is new (${t.kind}, ${t.risk})`);
        continue;
      }
      if (RISK_RANK[t.risk] > RISK_RANK[o.risk]) {
        out.push(`tool "${t.name}": risk ${o.risk} -> ${t.risk}`);
      }
      if (o.kind === "resource" && t.kind !== "resource") {
        out.push(
          `tool "${t.name}": kind resource -> ${t.kind} (skips the plan/apply gate)`,
        );
      }
    }
  }
  return out;
}

/**
 * Locks the providers of a project: for each builtin or path provider, its
 * version, the checksum of its artifact (the same digest under every
 * platform key for a Deno plugin, the host's key for an executable), its
 * capability envelope and its config schema. `resolved_at` is kept for an
 * entry that did not change, so that re-locking an unchanged project writes
 * the same bytes. Refuses (writing nothing) when the configuration has
 * errors other than lock problems or unset environment variables, or when a
 * forge provider has no usable entry.
 *
 * @example Usage
 * ```ts ignore
 * import { BUILTINS } from "../plugins/builtin.ts";
 * import { lockConfig } from "./lock.ts";
 * const r = await lockConfig("examples", { builtins: BUILTINS });
 * for (const c of r.changes) console.log(c.name, c.status, c.version);
 * ```
 *
 * @param dir The project directory.
 * @param options The clock, the environment and `dryRun`.
 * @returns What was locked, and the diagnostics.
 */
export async function lockConfig(
  dir: string,
  options: LockConfigOptions = {},
): Promise<LockResult> {
  const inputs = await loadConfigInputs(dir, options);
  const path = join(inputs.dir, LOCK_FILE_PATH);
  // Locking needs no secrets: an unset env() variable is only a warning.
  const checked = compile(inputs, { locked: false, requireEnv: false });
  const diagnostics: Diagnostic[] = checked.diagnostics.filter((d) =>
    d.severity === "error" && !isLockProblem(d, LOCK_FILE_PATH)
  );
  const result = (extra: Partial<LockResult>): LockResult => ({
    ok: false,
    changed: false,
    changes: [],
    diagnostics,
    sources: checked.sources,
    path,
    ...extra,
  });
  if (diagnostics.length > 0 || inputs.agent === undefined) {
    if (inputs.agent === undefined) {
      for (const each of checked.diagnostics) diagnostics.push(each);
    }
    return result({});
  }
  const body = parseHcl(inputs.agent.text, inputs.agent.path).body;
  const config = decodeAgentConfig(body, []);
  const globalConfig = inputs.global
    ? decodeGlobalConfig(
      inputs.global.text,
      inputs.global.path,
      inputs.env ?? {},
      { requireEnv: false },
    ).config
    : undefined;
  let previous: LockFile | undefined;
  if (inputs.lock) {
    previous = parseLockFile(inputs.lock.text, inputs.lock.path).lock;
  }
  const now = (options.now ?? new Date()).toISOString().replace(
    /\.\d{3}Z$/,
    "Z",
  );
  const host = hostPlatform();
  const next: LockFile = { version: 1, providers: new Map() };
  const changes: LockChange[] = [];
  for (const rp of config.requiredProviders) {
    const old = previous?.providers.get(rp.name);
    if (
      globalConfig !== undefined &&
      devOverrideOf(globalConfig, rp.name) !== undefined
    ) {
      if (old) next.providers.set(rp.name, old);
      changes.push({
        name: rp.name,
        status: "kept",
        source: rp.source,
        ...(old ? { version: old.version } : {}),
      });
      continue;
    }
    let manifest: PluginManifest;
    let tools: ToolDeclaration[] | undefined;
    const checksums: Record<string, string> = {};
    if (rp.sourceKind === "forge") {
      const upgrade = options.upgrade === true ||
        (Array.isArray(options.upgrade) && options.upgrade.includes(rp.name));
      const keepable = old !== undefined && old.source === rp.source &&
        satisfies(old.version, rp.constraint);
      if (keepable && !upgrade && !options.forge) {
        next.providers.set(rp.name, old);
        changes.push({
          name: rp.name,
          status: "kept",
          source: rp.source,
          version: old.version,
        });
        continue;
      }
      if (!options.forge) {
        diagnostics.push(diag(
          "error",
          "E_PROVIDER_NOT_LOCKED",
          `Cannot lock provider "${rp.name}" from ${JSON.stringify(rp.source)}`,
          `Resolving a git-forge source (listing its releases and downloading their checksums) needs the network. ${
            old
              ? `The existing entry (version ${old.version} from ${
                JSON.stringify(old.source)
              }) no longer matches the source or the constraint ${
                JSON.stringify(rp.constraintText)
              }.`
              : "There is no existing entry to keep."
          }`,
          rp.sourceRange,
        ));
        continue;
      }
      let facts: ForgeLockFacts;
      try {
        facts = await options.forge({
          name: rp.name,
          source: rp.source,
          constraint: rp.constraint,
          ...(keepable ? { locked: old!.version } : {}),
          ...(globalConfig?.registryMirror
            ? { mirror: globalConfig.registryMirror }
            : {}),
          upgrade,
        });
      } catch (err) {
        diagnostics.push(diag(
          "error",
          "E_PROVIDER_NOT_LOCKED",
          `Cannot lock provider "${rp.name}" from ${JSON.stringify(rp.source)}`,
          err instanceof Error ? err.message : String(err),
          rp.sourceRange,
        ));
        continue;
      }
      manifest = facts.manifest;
      tools = facts.tools;
      Object.assign(checksums, facts.checksums);
      if (manifest.version !== facts.version) {
        diagnostics.push(diag(
          "error",
          "E_PROVIDER_NOT_LOCKED",
          `Cannot lock provider "${rp.name}" from ${JSON.stringify(rp.source)}`,
          `Release ${facts.version} carries a plugin.json whose version is ${
            JSON.stringify(manifest.version)
          }: the release tag and the manifest must agree.`,
          rp.sourceRange,
        ));
        continue;
      }
    } else {
      const artifact = inputs.artifacts?.get(
        artifactKey(rp.sourceKind, rp.source, inputs.dir),
      );
      if (!artifact || !artifact.manifest || artifact.checksum === undefined) {
        diagnostics.push(diag(
          "error",
          "E_PLUGIN_UNAVAILABLE",
          `Cannot lock provider "${rp.name}"`,
          artifact?.error ?? "Its plugin was not loaded.",
          rp.sourceRange,
        ));
        continue;
      }
      manifest = artifact.manifest;
      tools = artifact.tools;
      if (manifest.runtime === "deno") {
        for (const p of DENO_PLATFORMS) checksums[p] = artifact.checksum;
        if (!DENO_PLATFORMS.includes(host)) checksums[host] = artifact.checksum;
      } else {
        // An executable is platform-specific: keep the other platforms'
        // checksums of the same version, replace this one's.
        if (
          old && old.version === manifest.version && old.source === rp.source
        ) {
          Object.assign(checksums, old.checksums);
        }
        checksums[host] = artifact.checksum;
      }
    }
    const sorted: Record<string, string> = {};
    for (const k of Object.keys(checksums).sort()) sorted[k] = checksums[k]!;
    const entry: LockedProvider = {
      name: rp.name,
      source: rp.source,
      version: manifest.version,
      resolvedAt: now,
      checksums: sorted,
      // A forge plugin's files are read only at launch: its category is
      // the lock's until then (path and builtin plugins are read anyway).
      ...(rp.sourceKind === "forge" ? { category: manifest.category } : {}),
      envelope: {
        env: [...manifest.capabilities.env],
        run: [...manifest.capabilities.run],
        read: [...manifest.capabilities.read],
        write: [...manifest.capabilities.write],
        net: [...manifest.capabilities.net],
      },
      configSchema: manifest.configSchema ?? [],
      ...(tools
        ? {
          tools: tools.map((t) => ({
            name: t.name,
            kind: t.kind,
            risk: t.risk,
            ...(t.subagents ? { subagents: true } : {}),
          })),
        }
        : {}),
    };
    const unchanged = old !== undefined && sameEntry(old, entry);
    if (unchanged) {
      entry.resolvedAt = old!.resolvedAt;
      if (old!.acceptedWidening) {
        entry.acceptedWidening = old!.acceptedWidening;
      }
    }
    const widening = old !== undefined && !unchanged && old.source === rp.source
      ? lockWidening(old, entry)
      : [];
    if (widening.length > 0) {
      if (!options.acceptWidening) {
        diagnostics.push(diag(
          "error",
          "E_LOCK_WIDENS",
          `Provider "${rp.name}" ${manifest.version} widens what ${
            old!.version
          } may do`,
          `Compared with the locked entry: ${
            widening.join("; ")
          }. Review the change, then run "agent lock --accept-widening" to record it (the lock file then lists what was accepted).`,
          rp.sourceRange,
        ));
      } else {
        entry.acceptedWidening = widening.map((w) =>
          `${old!.version} -> ${manifest.version}: ${w}`
        );
      }
    }
    next.providers.set(rp.name, entry);
    changes.push({
      name: rp.name,
      status: unchanged ? "unchanged" : "locked",
      source: rp.source,
      version: manifest.version,
      ...(widening.length > 0 ? { widening } : {}),
    });
  }
  if (diagnostics.length > 0) return result({ changes });
  const text = formatLockFile(next);
  const changed = text !== inputs.lock?.text;
  if (changed && !options.dryRun) {
    await Deno.mkdir(dirname(path), { recursive: true });
    const tmp = `${path}.${crypto.randomUUID()}.tmp`;
    await Deno.writeTextFile(tmp, text);
    await Deno.rename(tmp, path);
  }
  return result({ ok: true, changed, text, changes });
}
