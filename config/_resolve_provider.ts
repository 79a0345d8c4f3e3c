/**
 * Stage B for one provider: where its plugin's facts come from (a dev
 * override, the plugin's files, or its lock entry), then its identity, its
 * version, its lock entry, its config schema, its grants and its body,
 * giving the provider as the plan records it. Private to `config/`;
 * {@linkcode compile} calls {@linkcode resolveProvider} for each required
 * provider in turn.
 *
 * @module
 */

import type { Diagnostic, SourceRange } from "../contract/diagnostic.ts";
import { isAbsolute, relative } from "node:path";
import {
  type EffectivePermissions,
  PERMISSION_KINDS,
  type PermissionGrant,
  resolvePermissions,
} from "../contract/permissions.ts";
import type {
  CapabilityEnvelope,
  CategoryName,
  ConfigAttributeSpec,
  PluginManifest,
} from "../contract/manifest.ts";
import { manifestNameConflict } from "../contract/plugin_identity.ts";
import {
  E_PERMISSION_NOT_GRANTED,
  E_PLUGIN_NAME_CONFLICT,
  E_PLUGIN_UNAVAILABLE,
  E_PROVIDER_NOT_LOCKED,
  E_VERSION_MISMATCH,
  W_DEV_OVERRIDE,
  W_GRANT_UNUSED,
} from "./codes.ts";
import type { CompileInputs, PluginArtifact } from "./compile.ts";
import type { AgentConfig, ProviderBlock, RequiredProvider } from "./decode.ts";
import {
  devOverrideOf,
  devOverrideRangeOf,
  type GlobalConfig,
} from "./global_config.ts";
import type { LockedProvider, LockFile } from "./lock_file.ts";
import type { PlanProvider } from "./plan.ts";
import { decodeProviderBody, validateConfigSchema } from "./provider_schema.ts";
import { satisfies } from "./version_constraint.ts";
import { diag, headerRange } from "./_schema.ts";
import { checkLockEntry, EMPTY_ENVELOPE } from "./_lock_check.ts";

/** What {@linkcode resolveProvider} reads besides the provider itself. */
export interface ResolveContext {
  /** The compiler's inputs (project directory, first-party names). */
  inputs: CompileInputs;
  /** `agent.hcl` after stage A. */
  config: AgentConfig;
  /** The global config (its dev overrides). */
  global: GlobalConfig;
  /** The lock file, when it exists and is readable. */
  lock: LockFile | undefined;
  /** Whether the lock file is absent or could be read. */
  lockReadable: boolean;
  /** The lock file's shown path. */
  lockPath: string;
  /** Whether a stale or missing lock entry is an error. */
  locked: boolean;
  /** The platform whose checksum is checked. */
  platform: string;
  /** The environment `env()` reads. */
  env: Readonly<Record<string, string | undefined>>;
  /** Whether an unset `env()` variable is an error. */
  requireEnv: boolean;
  /** Where the diagnostics go. */
  diagnostics: Diagnostic[];
  /** The loaded plugin under its `artifactKey`, if any. */
  findArtifact: (
    kind: "builtin" | "path" | "dev",
    source: string,
  ) => PluginArtifact | undefined;
}

/** Reports an error that keeps the provider out of the plan. */
type Fail = (
  code: string,
  summary: string,
  detail: string,
  range: SourceRange | undefined,
) => void;

/** What the checks know of a plugin: from its manifest, else its lock entry. */
interface PluginFacts {
  manifest: PluginManifest | undefined;
  version: string | undefined;
  declared: CapabilityEnvelope;
  schema: ConfigAttributeSpec[];
  /** Where the facts come from, for messages. */
  origin: string | undefined;
}

/**
 * Checks one required provider against its plugin and builds its plan
 * entry. Diagnostics go to `ctx.diagnostics`, in the order of the checks.
 *
 * @param rp The provider as `agent.hcl` requires it.
 * @param ctx The rest of the configuration and the plugins.
 * @returns The provider, or `undefined` when an error keeps it out.
 */
export function resolveProvider(
  rp: RequiredProvider,
  ctx: ResolveContext,
): PlanProvider | undefined {
  const { diagnostics } = ctx;
  const name = rp.name;
  const block = ctx.config.providerBlocks.get(name);
  // Made only when a message needs it (nearly never).
  let headerMemo: SourceRange | undefined;
  const header = (): SourceRange =>
    headerMemo ??= block ? headerRange(block.block) : rp.range;
  const devPath = devOverrideOf(ctx.global, name);
  const entry = ctx.lock?.providers.get(name);
  let ok = true;
  const fail: Fail = (code, summary, detail, range) => {
    ok = false;
    diagnostics.push(diag("error", code, summary, detail, range));
  };

  const located = locateArtifact(rp, devPath, entry, ctx, fail);
  if (located === undefined) return undefined;
  const { artifact } = located;
  const facts = pluginFacts(artifact, entry, ctx.lockPath);
  const { manifest, version } = facts;

  if (manifest !== undefined) checkIdentity(rp, manifest, facts, ctx, fail);
  if (
    devPath === undefined && version !== undefined && manifest !== undefined
  ) {
    checkVersion(rp, version, fail);
  }
  let lockEntry: PlanProvider["lock"];
  if (devPath === undefined && ctx.lock !== undefined) {
    lockEntry = checkLockEntry(rp, entry, {
      ...ctx,
      version,
      manifest,
      checksum: artifact?.checksum,
    });
  }
  const schemaProblems = checkConfigSchema(facts, rp, ctx.config);
  if (schemaProblems.length > 0) {
    ok = false;
    for (const each of schemaProblems) diagnostics.push(each);
  }
  const grant: PermissionGrant = block?.grant ?? {};
  const effective = checkGrants(name, facts, grant, block, header, ctx, fail);
  if (block?.inject === true && manifest !== undefined && !manifest.inject) {
    fail(
      "E_INVALID_VALUE",
      `Provider "${name}" is granted allow_inject, but its plugin does not ask for it`,
      `The manifest of "${manifest.name}" does not declare "inject": true, so it cannot inject control-plane text; remove allow_inject.`,
      block.injectRange ?? header(),
    );
  }

  // The body, against the plugin's schema.
  let decoded: PlanProvider["config"] | undefined;
  if (schemaProblems.length === 0) {
    const r = decodeProviderBody(block?.block.body, facts.schema, {
      provider: name,
      env: ctx.env,
      requireEnv: ctx.requireEnv,
      // Only a missing required attribute is reported at the header.
      ...(facts.schema.some((a) => a.required) ? { header: header() } : {}),
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
      declared: copyEnvelope(facts.declared),
      granted: fullGrant(grant),
      effective: relativize(effective, ctx.inputs.dir),
      subscribe: [...(block?.subscribe ?? [])],
    },
    config: decoded,
    position: block ? block.block.range.start.byte : rp.range.start.byte,
    range: rp.range,
  };
  if (block?.inject === true) provider.permissions.inject = true;
  if (version !== undefined) provider.version = version;
  if (devPath !== undefined) provider.devOverride = devPath;
  if (lockEntry !== undefined) provider.lock = lockEntry;
  addArtifactFacts(provider, rp, artifact, entry?.category);
  // A forge plugin's files are not read here: its tools are the lock's.
  if (artifact === undefined && entry?.tools) {
    provider.tools = entry.tools.map((t) => ({ ...t }));
  }
  return provider;
}

/**
 * Where the plugin's facts come from: the dev override (warned), the
 * plugin's files, or (for a forge source) its lock entry. `undefined` when
 * none can be had: the provider is out of the plan.
 */
function locateArtifact(
  rp: RequiredProvider,
  devPath: string | undefined,
  entry: LockedProvider | undefined,
  ctx: ResolveContext,
  fail: Fail,
): { artifact?: PluginArtifact } | undefined {
  const name = rp.name;
  if (devPath !== undefined) {
    ctx.diagnostics.push(diag(
      "warning",
      W_DEV_OVERRIDE,
      `Provider "${name}" uses a dev override`,
      `The global config's dev_overrides runs "${devPath}" for "${name}" instead of ${
        JSON.stringify(rp.source)
      }: its version constraint and lock entry are not checked. Remove the override before relying on this configuration.`,
      devOverrideRangeOf(ctx.global, name) ?? rp.range,
    ));
    const artifact = ctx.findArtifact("dev", devPath);
    if (artifact === undefined || artifact.error !== undefined) {
      fail(
        E_PLUGIN_UNAVAILABLE,
        `Cannot read the dev override of provider "${name}"`,
        `${
          artifact?.error ?? `Nothing was loaded from "${devPath}"`
        }. A dev override names a plugin folder holding plugin.json (or a file inside it).`,
        devOverrideRangeOf(ctx.global, name) ?? rp.range,
      );
      return undefined;
    }
    return { artifact };
  }
  if (rp.sourceKind !== "forge") {
    const artifact = ctx.findArtifact(rp.sourceKind, rp.source);
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
    return { artifact };
  }
  if (entry !== undefined) return {};
  if (ctx.lockReadable) {
    fail(
      E_PROVIDER_NOT_LOCKED,
      `Provider "${name}" is not locked`,
      `Its source ${
        JSON.stringify(rp.source)
      } is a git-forge address. Run "agent lock" to resolve it from the forge: a forge provider must have an entry in ${ctx.lockPath}, which records its version, checksums, capability envelope and config schema, so that it can be checked.`,
      rp.sourceRange,
    );
  }
  return undefined;
}

/** The plugin's facts: from its manifest when its files are here, else its lock entry. */
function pluginFacts(
  artifact: PluginArtifact | undefined,
  entry: LockedProvider | undefined,
  lockPath: string,
): PluginFacts {
  const manifest = artifact?.manifest;
  return {
    manifest,
    version: manifest?.version ?? entry?.version,
    declared: manifest?.capabilities ?? entry?.envelope ?? EMPTY_ENVELOPE,
    schema: manifest ? manifest.configSchema ?? [] : entry?.configSchema ?? [],
    origin: manifest ? artifact?.origin : `the lock entry in ${lockPath}`,
  };
}

const validSchemas = new WeakMap<
  AgentConfig,
  WeakSet<readonly ConfigAttributeSpec[]>
>();

/**
 * {@linkcode validateConfigSchema} of the plugin's schema for this
 * provider. Whether a schema is valid does not depend on the provider
 * (only its messages do), and thousands of providers share a plugin: a
 * schema found valid is not walked again in the same configuration.
 */
function checkConfigSchema(
  facts: PluginFacts,
  rp: RequiredProvider,
  config: AgentConfig,
): Diagnostic[] {
  let valid = validSchemas.get(config);
  if (valid?.has(facts.schema)) return [];
  const problems = validateConfigSchema(facts.schema, {
    provider: rp.name,
    range: rp.range,
    ...(facts.origin ? { origin: facts.origin } : {}),
  });
  if (problems.length === 0) {
    if (valid === undefined) {
      valid = new WeakSet();
      validSchemas.set(config, valid);
    }
    valid.add(facts.schema);
  }
  return problems;
}

const localNameSets = new WeakMap<AgentConfig, Set<string>>();

/**
 * Every provider's local name, as a set made once per configuration: a
 * list per provider made checking n providers quadratic.
 */
function localNames(config: AgentConfig): Set<string> {
  let names = localNameSets.get(config);
  if (names === undefined) {
    names = new Set(config.requiredProviders.map((p) => p.name));
    localNameSets.set(config, names);
  }
  return names;
}

/**
 * Identity: the local name is the plugin's name; its manifest may not
 * claim another provider's, or a first-party plugin's.
 */
function checkIdentity(
  rp: RequiredProvider,
  manifest: PluginManifest,
  facts: PluginFacts,
  ctx: ResolveContext,
  fail: Fail,
): void {
  const conflict = manifestNameConflict(
    {
      localName: rp.name,
      source: rp.source,
      manifestName: manifest.name,
    },
    localNames(ctx.config).has(manifest.name) ? [manifest.name] : [],
    ctx.inputs.builtinNames ?? [],
  );
  if (conflict === undefined) return;
  fail(
    E_PLUGIN_NAME_CONFLICT,
    `Provider "${rp.name}": its plugin claims the name "${manifest.name}"`,
    `${conflict}${
      facts.origin ? ` (${facts.origin})` : ""
    }. On the event bus and in grants a plugin is known by its local name in agent.hcl; rename the plugin in its manifest, or give it the local name its manifest uses if no other provider has it.`,
    rp.sourceRange,
  );
}

/** Each constraint's answers by version: thousands of providers share both. */
const satisfied = new WeakMap<
  RequiredProvider["constraint"],
  Map<string, boolean>
>();

/** The plugin's version satisfies the constraint in `agent.hcl`. */
function checkVersion(rp: RequiredProvider, version: string, fail: Fail): void {
  let answers = satisfied.get(rp.constraint);
  if (answers === undefined) {
    answers = new Map();
    satisfied.set(rp.constraint, answers);
  }
  let ok = answers.get(version);
  if (ok === undefined) {
    ok = satisfies(version, rp.constraint);
    answers.set(version, ok);
  }
  if (ok) return;
  fail(
    E_VERSION_MISMATCH,
    `Provider "${rp.name}" version ${version} does not satisfy ${
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

/**
 * Permissions: declared ∩ granted; every declared one must be granted, and
 * a grant that covers nothing declared is warned.
 *
 * @returns The effective permissions.
 */
function checkGrants(
  name: string,
  facts: PluginFacts,
  grant: PermissionGrant,
  block: ProviderBlock | undefined,
  header: () => SourceRange,
  ctx: ResolveContext,
  fail: Fail,
): EffectivePermissions {
  const { declared, origin } = facts;
  const { effective, denied } = resolveGrant(declared, grant, ctx);
  for (const d of denied) {
    fail(
      E_PERMISSION_NOT_GRANTED,
      `Provider "${name}" needs ${d.kind} permission "${d.value}", which is not granted`,
      `Its plugin declares ${d.kind} permission "${d.value}"${
        origin ? ` (${origin})` : ""
      }, and the kernel refuses to launch a plugin whose declared permissions are not all granted. Review it, then add "${d.value}" to allow_${d.kind} in provider "${name}" { ... }.`,
      block?.grantRanges[d.kind] ?? header(),
    );
  }
  for (const kind of PERMISSION_KINDS) {
    const list = grant[kind];
    if (list === undefined) continue;
    for (const [i, g] of list.entries()) {
      const single = resolvePermissions(declared, { [kind]: [g] }, {
        cwd: ctx.inputs.dir,
        env: ctx.env,
      });
      if (single.effective[kind].length > 0) continue;
      ctx.diagnostics.push(diag(
        "warning",
        W_GRANT_UNUSED,
        `Grant "${g}" in allow_${kind} of provider "${name}" is not used`,
        `The plugin does not declare any ${kind} permission that "${g}" covers, so it is not passed on. Remove it to keep the grant reviewable.`,
        block?.grantItems[kind]?.[i] ?? block?.grantRanges[kind] ?? header(),
      ));
    }
  }
  return effective;
}

/** Each envelope's resolution against an empty grant, per compilation. */
const ungranted = new WeakMap<
  ResolveContext,
  WeakMap<CapabilityEnvelope, ReturnType<typeof resolvePermissions>>
>();

/**
 * {@linkcode resolvePermissions} of the plugin's envelope and the grant.
 * Most providers grant nothing, and thousands share a plugin: the answer
 * for an empty grant is worked out once per envelope (it is only read:
 * the plan gets copies).
 */
function resolveGrant(
  declared: CapabilityEnvelope,
  grant: PermissionGrant,
  ctx: ResolveContext,
): ReturnType<typeof resolvePermissions> {
  const options = { cwd: ctx.inputs.dir, env: ctx.env };
  if (PERMISSION_KINDS.some((k) => grant[k] !== undefined)) {
    return resolvePermissions(declared, grant, options);
  }
  let byEnvelope = ungranted.get(ctx);
  if (byEnvelope === undefined) {
    byEnvelope = new WeakMap();
    ungranted.set(ctx, byEnvelope);
  }
  let r = byEnvelope.get(declared);
  if (r === undefined) {
    r = resolvePermissions(declared, {}, options);
    byEnvelope.set(declared, r);
  }
  return r;
}

/** What the plugin's files add to its plan entry (checksum, category, tools...). */
function addArtifactFacts(
  provider: PlanProvider,
  rp: RequiredProvider,
  artifact: PluginArtifact | undefined,
  lockedCategory: CategoryName | undefined,
): void {
  const manifest = artifact?.manifest;
  if (artifact?.checksum !== undefined) provider.checksum = artifact.checksum;
  if (manifest) {
    provider.category = manifest.category;
    provider.runtime = manifest.runtime;
  } else if (lockedCategory !== undefined) {
    // A forge plugin's files are not read before launch: the lock entry
    // says what it was when locked (the launch checks its manifest agrees).
    provider.category = lockedCategory;
  }
  if (artifact?.location !== undefined && rp.sourceKind !== "builtin") {
    provider.location = artifact.location;
  }
  if (artifact?.tools) provider.tools = artifact.tools;
  const budget = provider.config["token_budget"];
  if (
    (provider.category === "context" || provider.category === "memory") &&
    typeof budget === "number"
  ) provider.tokenBudget = budget;
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
  // The keys in PERMISSION_KINDS order, each list made once.
  return {
    env: g.env ? [...g.env] : [],
    run: g.run ? [...g.run] : [],
    read: g.read ? [...g.read] : [],
    write: g.write ? [...g.write] : [],
    net: g.net ? [...g.net] : [],
  };
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
