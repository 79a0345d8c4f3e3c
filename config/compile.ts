/**
 * {@linkcode compile}: `agent.hcl` (+ the lock file, the global config and
 * what the plugins' manifests say) → diagnostics and a typed
 * {@linkcode Plan}. Pure: it reads no file, no environment and no clock;
 * {@linkcode loadConfigInputs} gathers all of that first. The same inputs
 * give the same diagnostics and byte-identical plan JSON.
 *
 * Stages (config.md §4.1): A, the closed schemas of `agent.hcl`; A', the
 * global config and the lock file (its version first, in a pass of its
 * own); B, each provider against its plugin (the config schema and the
 * capability envelope from its manifest, or from its lock entry when its
 * files are not here): schema rules, grants, the provider body, versions
 * and checksums, tool names.
 *
 * @module
 */

import type { Diagnostic, SourceRange } from "../contract/diagnostic.ts";

import { type ObjectValue, parseHcl } from "./hcl/mod.ts";
import { isAbsolute, relative, resolve } from "node:path";
import {
  type EffectivePermissions,
  PERMISSION_KINDS,
  type PermissionGrant,
  resolvePermissions,
} from "../contract/permissions.ts";
import type {
  CapabilityEnvelope,
  ConfigAttributeSpec,
  PluginManifest,
} from "../contract/manifest.ts";
import {
  E_CHECKSUM_MISMATCH,
  E_CHECKSUM_MISSING,
  E_ENVELOPE_GROWN,
  E_LOCK_MISSING,
  E_LOCK_OUTDATED,
  E_NO_CONFIG,
  E_PERMISSION_NOT_GRANTED,
  E_PLUGIN_NAME_CONFLICT,
  E_PLUGIN_UNAVAILABLE,
  E_PROVIDER_CATEGORY,
  E_PROVIDER_NOT_LOCKED,
  E_VERSION_MISMATCH,
  LOCK_CODES,
  W_DEV_OVERRIDE,
  W_EXTRA_HCL,
  W_GRANT_UNUSED,
  W_LOCK_MISSING,
  W_LOCK_OUTDATED,
  W_LOCK_UNUSED,
  W_PROVIDER_NOT_LOCKED,
} from "./codes.ts";
import { checksumsEqual, hostPlatform } from "./checksum.ts";
import { decodeAgentConfig, type RequiredProvider } from "./decode.ts";
import { decodeGlobalConfig, type GlobalConfig } from "./global_config.ts";
import {
  type LockedProvider,
  type LockFile,
  parseLockFile,
} from "./lock_file.ts";
import type { Plan, PlanProvider, ToolDeclaration } from "./plan.ts";

import { satisfies } from "./version_constraint.ts";
import { manifestNameConflict } from "../contract/plugin_identity.ts";
import { decodeProviderBody, validateConfigSchema } from "./provider_schema.ts";
import { diag, headerRange } from "./_schema.ts";
import {
  checkProfileTools,
  type ProviderCapabilities,
} from "./check_capabilities.ts";

/** A file given to {@linkcode compile}. */
export interface SourceFile {
  /** Its path as shown in diagnostics (relative to the project). */
  path: string;
  /** Its text. */
  text: string;
}

/**
 * What the loader learned about one plugin without starting it: its
 * manifest, the tools it declares and the checksum of its artifact, or why
 * it cannot be read.
 */
export interface PluginArtifact {
  /** The validated manifest. */
  manifest?: PluginManifest;
  /** The tools the manifest declares (`tools`), when it does. */
  tools?: ToolDeclaration[];
  /** The artifact's digest as it is now (`sha256:<hex>`). */
  checksum?: string;
  /** The plugin's folder as shown (relative to the project when inside it). */
  location?: string;
  /** The manifest's path as shown, for messages. */
  origin?: string;
  /** Why the plugin cannot be read; set instead of the fields above. */
  error?: string;
}

/** Everything {@linkcode compile} reads. */
export interface CompileInputs {
  /** The project directory, absolute: relative paths resolve against it. */
  dir: string;
  /** `agent.hcl`; absent when the file does not exist. */
  agent?: SourceFile;
  /** `.agent/agent.lock.hcl`, when it exists. */
  lock?: SourceFile;
  /** The global config, when it exists. */
  global?: SourceFile;
  /**
   * The values of the environment variables `env()` reads (others are
   * unset).
   * @default {{}}
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Each plugin by {@linkcode artifactKey}.
   * @default {new Map()}
   */
  artifacts?: ReadonlyMap<string, PluginArtifact>;
  /**
   * The first-party plugins' names: a plugin from another source whose
   * manifest claims one of them is refused (`E_PLUGIN_NAME_CONFLICT`).
   * @default {[]}
   */
  builtinNames?: readonly string[];
  /**
   * Other `*.hcl` files beside `agent.hcl` (they are not read: warned).
   * @default {[]}
   */
  extraHclFiles?: readonly string[];
}

/** Options for {@linkcode compile}. */
export interface CompileOptions {
  /**
   * Require a complete, current lock file: a missing lock file, an unlocked
   * provider or an outdated entry are errors instead of warnings.
   * @default {false}
   */
  locked?: boolean;
  /**
   * The platform key whose checksum is checked.
   * @default {hostPlatform()}
   */
  platform?: string;
  /**
   * Whether an `env()` variable that is unset is an error (`E_ENV_UNSET`:
   * config MUST 6, the agent is about to run) or a warning (`W_ENV_UNSET`:
   * the configuration is only checked, e.g. in CI without secrets; the
   * call then stands for an empty {@linkcode Secret}, so such a plan must
   * not be run).
   * @default {true}
   */
  requireEnv?: boolean;
}

/** What {@linkcode compile} returns. */
export interface CompileResult {
  /** The plan; `undefined` when there is any error. */
  plan: Plan | undefined;
  /** Every problem found, errors and warnings. */
  diagnostics: Diagnostic[];
  /** The text of each file by its shown path, to print source lines. */
  sources: Map<string, string>;
  /** Names of the environment variables the configuration reads. */
  envNames: string[];
}

/**
 * The key under which {@linkcode CompileInputs.artifacts} holds a plugin:
 * the source for `builtin/<name>`, the absolute folder for a path source,
 * and `dev:<absolute path>` for a `dev_overrides` entry.
 *
 * @example Usage
 * ```ts
 * import { artifactKey } from "./compile.ts";
 * import assert from "node:assert/strict";
 * assert.equal(artifactKey("builtin", "builtin/echo", "/p"), "builtin/echo");
 * assert.equal(artifactKey("path", "./plugins/notes", "/p"), "/p/plugins/notes");
 * assert.equal(artifactKey("dev", "/src/fs", "/p"), "dev:/src/fs");
 * ```
 *
 * @param kind `builtin`, `path`, or `dev` for an override.
 * @param source The source or override path as written.
 * @param dir The project directory.
 * @returns The key.
 */
export function artifactKey(
  kind: "builtin" | "path" | "dev",
  source: string,
  dir: string,
): string {
  if (kind === "builtin") return source;
  const abs = resolve(dir, source);
  return kind === "dev" ? `dev:${abs}` : abs;
}

/**
 * Whether a diagnostic means "the lock file is missing, unreadable,
 * outdated or does not match" (exit code 2 of `check-config`).
 *
 * @param d A diagnostic.
 * @param lockFile The lock file's shown path.
 * @returns `true` for lock problems.
 */
export function isLockProblem(d: Diagnostic, lockFile: string): boolean {
  return LOCK_CODES.has(d.code) || d.range?.file === lockFile;
}

const EMPTY_ENVELOPE: CapabilityEnvelope = {
  env: [],
  run: [],
  read: [],
  write: [],
  net: [],
};

/**
 * Compiles the configuration.
 *
 * @example Usage
 * ```ts
 * import { compile } from "./compile.ts";
 * import assert from "node:assert/strict";
 * const text = [
 *   "policy \"reads_ok\" {",
 *   "  match  = { kind = \"data_source\" }",
 *   "  action = \"allow\"",
 *   "}",
 *   "",
 * ].join("\n");
 * const { plan, diagnostics } = compile({ dir: "/project", agent: { path: "agent.hcl", text } });
 * assert.deepEqual(diagnostics, []);
 * assert.equal(plan?.policies[0]?.name, "reads_ok");
 * ```
 *
 * @param inputs The files, the environment and the plugins.
 * @param options Whether the lock must be complete, and the platform.
 * @returns The plan (when valid), every diagnostic and the sources.
 */
export function compile(
  inputs: CompileInputs,
  options: CompileOptions = {},
): CompileResult {
  const diagnostics: Diagnostic[] = [];
  const sources = new Map<string, string>();
  const env = inputs.env ?? {};
  const envNames = Object.keys(env).sort();
  const platform = options.platform ?? hostPlatform();
  const locked = options.locked ?? false;
  const requireEnv = options.requireEnv ?? true;
  const result = (plan?: Plan): CompileResult => ({
    plan: diagnostics.some((d) => d.severity === "error") ? undefined : plan,
    diagnostics,
    sources,
    envNames,
  });
  if (inputs.agent === undefined) {
    diagnostics.push(diag(
      "error",
      E_NO_CONFIG,
      "No agent.hcl",
      'There is no agent.hcl in the project directory. The project configuration is a single file named agent.hcl at the project root: run "agent init" to write one.',
      undefined,
    ));
    return result();
  }
  const agentFile = inputs.agent.path;
  sources.set(agentFile, inputs.agent.text);
  if (inputs.lock) sources.set(inputs.lock.path, inputs.lock.text);
  if (inputs.global) sources.set(inputs.global.path, inputs.global.text);

  for (const extra of inputs.extraHclFiles ?? []) {
    diagnostics.push(diag(
      "warning",
      W_EXTRA_HCL,
      `"${extra}" is not read`,
      `The configuration is the single file ${agentFile}; other .hcl files beside it are not merged. Move its content into ${agentFile}.`,
      undefined,
    ));
  }

  // A': the global config.
  let global: GlobalConfig = { devOverrides: {}, devOverrideRanges: {} };
  if (inputs.global) {
    const g = decodeGlobalConfig(inputs.global.text, inputs.global.path, env, {
      requireEnv,
    });
    for (const each of g.diagnostics) diagnostics.push(each);
    if (g.config) global = g.config;
  }

  // A: agent.hcl.
  const parsed = parseHcl(inputs.agent.text, agentFile);
  for (const each of parsed.diagnostics) diagnostics.push(each);
  if (parsed.diagnostics.length > 0) return result();
  const config = decodeAgentConfig(parsed.body, diagnostics);

  // A': the lock file (version first, in its own pass).
  let lock: LockFile | undefined;
  const lockPath = inputs.lock?.path ?? ".agent/agent.lock.hcl";
  if (inputs.lock) {
    const l = parseLockFile(inputs.lock.text, inputs.lock.path);
    for (const each of l.diagnostics) diagnostics.push(each);
    lock = l.lock;
  } else {
    const needsLock = config.requiredProviders.some((p) =>
      global.devOverrides[p.name] === undefined
    );
    if (needsLock) {
      diagnostics.push(diag(
        locked ? "error" : "warning",
        locked ? E_LOCK_MISSING : W_LOCK_MISSING,
        "No lock file",
        `There is no ${lockPath}: provider versions and checksums are not pinned. Run "agent lock" and commit the file.`,
        undefined,
      ));
    }
  }
  const lockReadable = inputs.lock === undefined || lock !== undefined;

  // B: each provider.
  const providers: PlanProvider[] = [];
  let allLocked = inputs.lock !== undefined && lock !== undefined;
  for (const rp of config.requiredProviders) {
    const before = diagnostics.length;
    const p = resolveProvider(rp, {
      inputs,
      config,
      global,
      lock,
      lockReadable,
      lockPath,
      locked,
      platform,
      env,
      requireEnv,
      diagnostics,
    });
    const lockTrouble = diagnostics.slice(before).some((d) =>
      isLockProblem(d, lockPath) || d.code === W_PROVIDER_NOT_LOCKED ||
      d.code === W_LOCK_OUTDATED
    );
    if (lockTrouble) allLocked = false;
    if (p) providers.push(p);
  }
  if (lock !== undefined) {
    for (const [name, entry] of lock.providers) {
      if (config.declaredNames.has(name)) continue;
      diagnostics.push(diag(
        "warning",
        W_LOCK_UNUSED,
        `Lock entry for provider "${name}" is not used`,
        `agent.hcl no longer requires provider "${name}". Run "agent lock" to drop the entry.`,
        entry.range,
      ));
    }
  }

  // B: cross-checks that need the plugins.
  const byName = new Map(providers.map((p) => [p.name, p]));
  for (const profile of config.profiles) {
    for (
      const ref of profile.model
        ? [profile.model.primary, ...profile.model.fallbacks]
        : []
    ) {
      const p = byName.get(ref.provider);
      if (p?.category !== undefined && p.category !== "model") {
        diagnostics.push(diag(
          "error",
          E_PROVIDER_CATEGORY,
          `Provider "${ref.provider}" is not a model provider`,
          `The model chain of agent_profile "${profile.name}" names provider "${ref.provider}", whose plugin is a ${p.category} plugin.`,
          ref.range,
        ));
      }
    }
  }
  const caps = new Map<string, ProviderCapabilities>();
  for (const p of providers) {
    if (p.tools) caps.set(p.name, { tools: p.tools.map((t) => t.name) });
  }
  for (const each of checkProfileTools(config.profiles, caps)) {
    diagnostics.push(each);
  }

  const plan: Plan = {
    sourceFile: agentFile,
    platform,
    providers,
    policies: config.policies,
    profiles: config.profiles,
    hooks: config.hooks,
    settings: config.settings,
    global,
    locked: allLocked &&
      providers.every((p) =>
        p.devOverride !== undefined || p.lock !== undefined
      ),
  };
  return result(plan);
}

interface ResolveContext {
  inputs: CompileInputs;
  config: ReturnType<typeof decodeAgentConfig>;
  global: GlobalConfig;
  lock: LockFile | undefined;
  lockReadable: boolean;
  lockPath: string;
  locked: boolean;
  platform: string;
  env: Readonly<Record<string, string | undefined>>;
  requireEnv: boolean;
  diagnostics: Diagnostic[];
}

function resolveProvider(
  rp: RequiredProvider,
  ctx: ResolveContext,
): PlanProvider | undefined {
  const { diagnostics, inputs } = ctx;
  const name = rp.name;
  const block = ctx.config.providerBlocks.get(name);
  const header = block ? headerRange(block.block) : rp.range;
  const devPath = ctx.global.devOverrides[name];
  const entry = ctx.lock?.providers.get(name);
  let ok = true;
  const fail = (
    code: string,
    summary: string,
    detail: string,
    range: SourceRange | undefined,
  ) => {
    ok = false;
    diagnostics.push(diag("error", code, summary, detail, range));
  };

  // Where the plugin's facts come from.
  let artifact: PluginArtifact | undefined;
  if (devPath !== undefined) {
    diagnostics.push(diag(
      "warning",
      W_DEV_OVERRIDE,
      `Provider "${name}" uses a dev override`,
      `The global config's dev_overrides runs "${devPath}" for "${name}" instead of ${
        JSON.stringify(rp.source)
      }: its version constraint and lock entry are not checked. Remove the override before relying on this configuration.`,
      ctx.global.devOverrideRanges[name] ?? rp.range,
    ));
    artifact = inputs.artifacts?.get(artifactKey("dev", devPath, inputs.dir));
    if (artifact === undefined || artifact.error !== undefined) {
      fail(
        E_PLUGIN_UNAVAILABLE,
        `Cannot read the dev override of provider "${name}"`,
        `${
          artifact?.error ?? `Nothing was loaded from "${devPath}"`
        }. A dev override names a plugin folder holding plugin.json (or a file inside it).`,
        ctx.global.devOverrideRanges[name] ?? rp.range,
      );
      return undefined;
    }
  } else if (rp.sourceKind !== "forge") {
    artifact = inputs.artifacts?.get(
      artifactKey(rp.sourceKind, rp.source, inputs.dir),
    );
    if (artifact === undefined || artifact.error !== undefined) {
      fail(
        E_PLUGIN_UNAVAILABLE,
        `Cannot read plugin ${JSON.stringify(rp.source)} of provider "${name}"`,
        `${artifact?.error ?? "It was not loaded"}.${
          rp.sourceKind === "path"
            ? " A path source names a plugin folder holding plugin.json, relative to the project."
            : ""
        }`,
        rp.sourceRange,
      );
      return undefined;
    }
  } else if (entry === undefined) {
    if (ctx.lockReadable) {
      fail(
        E_PROVIDER_NOT_LOCKED,
        `Provider "${name}" is not locked`,
        `Its source ${
          JSON.stringify(rp.source)
        } is a git-forge address. Resolving it from the forge is not supported offline: a forge provider must have an entry in ${ctx.lockPath}, which records its version, checksums, capability envelope and config schema, so that it can be checked.`,
        rp.sourceRange,
      );
    }
    return undefined;
  }

  const manifest = artifact?.manifest;
  const version = manifest?.version ?? entry?.version;
  const declared: CapabilityEnvelope = manifest?.capabilities ??
    entry?.envelope ?? EMPTY_ENVELOPE;
  const schema: ConfigAttributeSpec[] = manifest
    ? manifest.configSchema ?? []
    : entry?.configSchema ?? [];
  const origin = manifest
    ? artifact?.origin
    : `the lock entry in ${ctx.lockPath}`;

  // Identity: the local name is the plugin's name; its manifest may not
  // claim another provider's, or a first-party plugin's.
  if (manifest !== undefined) {
    const conflict = manifestNameConflict(
      {
        localName: name,
        source: rp.source,
        manifestName: manifest.name,
      },
      ctx.config.requiredProviders.map((p) => p.name),
      inputs.builtinNames ?? [],
    );
    if (conflict !== undefined) {
      fail(
        E_PLUGIN_NAME_CONFLICT,
        `Provider "${name}": its plugin claims the name "${manifest.name}"`,
        `${conflict}${
          origin ? ` (${origin})` : ""
        }. On the event bus and in grants a plugin is known by its local name in agent.hcl; rename the plugin in its manifest, or give it the local name its manifest uses if no other provider has it.`,
        rp.sourceRange,
      );
    }
  }

  // Versions.
  if (
    devPath === undefined && version !== undefined && manifest !== undefined
  ) {
    if (!satisfies(version, rp.constraint)) {
      fail(
        E_VERSION_MISMATCH,
        `Provider "${name}" version ${version} does not satisfy ${
          JSON.stringify(rp.constraintText)
        }`,
        `${
          rp.sourceKind === "builtin"
            ? "First-party plugins are versioned with @ph/agent: the"
            : "The"
        } plugin at ${
          JSON.stringify(rp.source)
        } is version ${version}. Change the constraint, or use a plugin version that satisfies it.`,
        rp.versionRange,
      );
    }
  }

  // The lock entry.
  let lockEntry: PlanProvider["lock"];
  if (devPath === undefined && ctx.lock !== undefined) {
    lockEntry = checkLockEntry(rp, entry, {
      ...ctx,
      version,
      manifest,
      checksum: artifact?.checksum,
    });
  }

  // The schema.
  const schemaProblems = validateConfigSchema(schema, {
    provider: name,
    range: rp.range,
    ...(origin ? { origin } : {}),
  });
  if (schemaProblems.length > 0) {
    ok = false;
    for (const each of schemaProblems) diagnostics.push(each);
  }

  // Permissions: declared ∩ granted; every declared one must be granted.
  const grant: PermissionGrant = block?.grant ?? {};
  const { effective, denied } = resolvePermissions(declared, grant, {
    cwd: inputs.dir,
    env: ctx.env,
  });
  for (const d of denied) {
    fail(
      E_PERMISSION_NOT_GRANTED,
      `Provider "${name}" needs ${d.kind} permission "${d.value}", which is not granted`,
      `Its plugin declares ${d.kind} permission "${d.value}"${
        origin ? ` (${origin})` : ""
      }, and the kernel refuses to launch a plugin whose declared permissions are not all granted. Review it, then add "${d.value}" to allow_${d.kind} in provider "${name}" { ... }.`,
      block?.grantRanges[d.kind] ?? header,
    );
  }
  for (const kind of PERMISSION_KINDS) {
    for (const [i, g] of (grant[kind] ?? []).entries()) {
      const single = resolvePermissions(declared, { [kind]: [g] }, {
        cwd: inputs.dir,
        env: ctx.env,
      });
      if (single.effective[kind].length > 0) continue;
      diagnostics.push(diag(
        "warning",
        W_GRANT_UNUSED,
        `Grant "${g}" in allow_${kind} of provider "${name}" is not used`,
        `The plugin does not declare any ${kind} permission that "${g}" covers, so it is not passed on. Remove it to keep the grant reviewable.`,
        block?.grantItems[kind]?.[i] ?? block?.grantRanges[kind] ?? header,
      ));
    }
  }

  // The body, against the plugin's schema.
  let decoded: ObjectValue | undefined;
  if (schemaProblems.length === 0) {
    const r = decodeProviderBody(block?.block.body, schema, {
      provider: name,
      env: ctx.env,
      requireEnv: ctx.requireEnv,
      header,
    });
    for (const each of r.diagnostics) diagnostics.push(each);
    if (r.config === undefined) ok = false;
    decoded = r.config;
  }
  if (!ok || decoded === undefined) return undefined;

  const provider: PlanProvider = {
    name,
    source: rp.source,
    sourceKind: rp.sourceKind,
    constraint: rp.constraintText,
    permissions: {
      declared: copyEnvelope(declared),
      granted: fullGrant(grant),
      effective: relativize(effective, inputs.dir),
      subscribe: [...(block?.subscribe ?? [])],
    },
    config: decoded,
    position: block ? block.block.range.start.byte : rp.range.start.byte,
    range: rp.range,
  };
  if (version !== undefined) provider.version = version;
  if (devPath !== undefined) provider.devOverride = devPath;
  if (lockEntry !== undefined) provider.lock = lockEntry;
  if (artifact?.checksum !== undefined) provider.checksum = artifact.checksum;
  if (manifest) {
    provider.category = manifest.category;
    provider.runtime = manifest.runtime;
  }
  if (artifact?.location !== undefined && rp.sourceKind !== "builtin") {
    provider.location = artifact.location;
  }
  if (artifact?.tools) provider.tools = artifact.tools;
  const budget = decoded["token_budget"];
  if (
    (provider.category === "context" || provider.category === "memory") &&
    typeof budget === "number"
  ) provider.tokenBudget = budget;
  return provider;
}

function checkLockEntry(
  rp: RequiredProvider,
  entry: LockedProvider | undefined,
  ctx: ResolveContext & {
    version: string | undefined;
    manifest: PluginManifest | undefined;
    checksum: string | undefined;
  },
): PlanProvider["lock"] {
  const { diagnostics } = ctx;
  const name = rp.name;
  const soft = (
    summary: string,
    detail: string,
    range: SourceRange | undefined,
  ) =>
    diagnostics.push(diag(
      ctx.locked ? "error" : "warning",
      ctx.locked ? E_LOCK_OUTDATED : W_LOCK_OUTDATED,
      summary,
      `${detail} Run "agent lock" to update ${ctx.lockPath}.`,
      range,
    ));
  if (entry === undefined) {
    diagnostics.push(diag(
      ctx.locked ? "error" : "warning",
      ctx.locked ? E_PROVIDER_NOT_LOCKED : W_PROVIDER_NOT_LOCKED,
      `Provider "${name}" is not locked`,
      `${ctx.lockPath} has no entry for "${name}". Run "agent lock" and commit the file.`,
      rp.range,
    ));
    return undefined;
  }
  const out = {
    version: entry.version,
    resolvedAt: entry.resolvedAt,
    checksums: { ...entry.checksums },
  };
  if (entry.source !== rp.source) {
    soft(
      `Lock entry of provider "${name}" has another source`,
      `It was locked from ${
        JSON.stringify(entry.source)
      }, but agent.hcl now says ${JSON.stringify(rp.source)}.`,
      rp.sourceRange,
    );
    return out;
  }
  if (!satisfies(entry.version, rp.constraint)) {
    soft(
      `Locked version ${entry.version} of provider "${name}" does not satisfy ${
        JSON.stringify(rp.constraintText)
      }`,
      "The version constraint changed since the provider was locked.",
      rp.versionRange,
    );
    return out;
  }
  if (ctx.manifest !== undefined && ctx.version !== entry.version) {
    soft(
      `Lock entry of provider "${name}" is for version ${entry.version}, not ${ctx.version}`,
      `The plugin at ${
        JSON.stringify(rp.source)
      } is now version ${ctx.version}.`,
      rp.range,
    );
    return out;
  }
  const recorded = entry.checksums[ctx.platform];
  if (recorded === undefined) {
    const have = Object.keys(entry.checksums);
    diagnostics.push(diag(
      "error",
      E_CHECKSUM_MISSING,
      `No checksum of provider "${name}" for platform ${ctx.platform}`,
      `${ctx.lockPath} records checksums for ${
        have.length === 0 ? "no platform" : have.join(", ")
      } only, so the plugin cannot be verified on this machine. Lock it again on a machine that can compute it, or from a release that publishes it.`,
      entry.range,
    ));
  } else if (
    ctx.checksum !== undefined && !checksumsEqual(recorded, ctx.checksum)
  ) {
    diagnostics.push(diag(
      "error",
      E_CHECKSUM_MISMATCH,
      `Checksum mismatch for provider "${name}"`,
      `The plugin's files changed since it was locked: ${ctx.lockPath} records ${recorded} for ${ctx.platform}, but its artifact is now ${ctx.checksum}. Review the change, then run "agent lock".`,
      entry.range,
    ));
  }
  if (ctx.manifest !== undefined) {
    const approved = entry.envelope ?? EMPTY_ENVELOPE;
    const grown: string[] = [];
    for (const kind of PERMISSION_KINDS) {
      for (const v of ctx.manifest.capabilities[kind]) {
        if (!approved[kind].includes(v)) grown.push(`${kind} "${v}"`);
      }
    }
    if (grown.length > 0) {
      diagnostics.push(diag(
        "error",
        E_ENVELOPE_GROWN,
        `Provider "${name}" declares new permissions: ${grown.join(", ")}`,
        `Its manifest asks for more than was approved when it was locked (${
          entry.envelope ? "the envelope in" : "no envelope is recorded in"
        } ${ctx.lockPath}). It fails the check until it is reviewed and locked again with "agent lock".`,
        rp.range,
      ));
    }
  }
  return out;
}

function copyEnvelope(e: CapabilityEnvelope): CapabilityEnvelope {
  return {
    env: [...e.env],
    run: [...e.run],
    read: [...e.read],
    write: [...e.write],
    net: [...e.net],
  };
}

function fullGrant(g: PermissionGrant): EffectivePermissions {
  const out = {
    env: [],
    run: [],
    read: [],
    write: [],
    net: [],
  } as EffectivePermissions;
  for (const k of PERMISSION_KINDS) out[k] = [...(g[k] ?? [])];
  return out;
}

/** Shows absolute paths inside the project relative to it (`./x`, `.`). */
function relativize(
  e: EffectivePermissions,
  dir: string,
): EffectivePermissions {
  const rel = (p: string) => {
    const r = relative(dir, p);
    if (r === "") return ".";
    if (r.startsWith("..") || isAbsolute(r)) return p;
    return `./${r.split("\\").join("/")}`;
  };
  return {
    env: [...e.env],
    run: [...e.run],
    read: e.read.map(rel),
    write: e.write.map(rel),
    net: [...e.net],
  };
}
