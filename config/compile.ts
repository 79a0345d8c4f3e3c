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

import type { Diagnostic } from "../contract/diagnostic.ts";
import type { PluginManifest } from "../contract/manifest.ts";
import { WEB_UI_FRONTEND } from "../contract/builtins.ts";
import { parseOnce } from "./_parse_once.ts";
import { resolve } from "node:path";
import {
  E_LOCK_MISSING,
  E_NO_CONFIG,
  E_PROVIDER_CATEGORY,
  E_SLASH_COMMAND_CONFLICT,
  LOCK_CODES,
  W_EXTRA_HCL,
  W_LOCK_MISSING,
  W_LOCK_OUTDATED,
  W_LOCK_UNUSED,
  W_NO_EFFECT,
  W_PROVIDER_NOT_LOCKED,
  W_UNKNOWN_FRONTEND,
} from "./codes.ts";
import { hostPlatform } from "./checksum.ts";
import { type AgentConfig, decodeAgentConfig } from "./decode.ts";
import {
  decodeGlobalConfig,
  devOverrideOf,
  type GlobalConfig,
} from "./global_config.ts";
import { type LockFile, parseLockFile } from "./lock_file.ts";
import type { Plan, PlanProvider, ToolDeclaration } from "./plan.ts";
import type { PlanState } from "./decode_state.ts";
import { diag } from "./_schema.ts";
import { spawnCapableTools } from "./delegation.ts";
import { directInvokeEntry } from "./profiles.ts";
import {
  checkProfileTools,
  type ProviderCapabilities,
} from "./check_capabilities.ts";
import { type ResolveContext, resolveProvider } from "./_resolve_provider.ts";

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
  warnExtraHclFiles(inputs.extraHclFiles ?? [], agentFile, diagnostics);

  // A': the global config.
  const global = decodeGlobal(inputs.global, env, requireEnv, diagnostics);

  // A: agent.hcl.
  const parsed = parseOnce(inputs.agent);
  for (const each of parsed.diagnostics) diagnostics.push(each);
  if (parsed.diagnostics.length > 0) return result();
  const config = decodeAgentConfig(parsed.body, diagnostics);

  // A': the lock file (version first, in its own pass).
  const lockPath = inputs.lock?.path ?? ".agent/agent.lock.hcl";
  const lock = readLockFile(inputs.lock, lockPath, {
    config,
    global,
    locked,
    diagnostics,
  });

  // B: each provider, then the cross-checks that need the plugins.
  const { providers, allLocked } = resolveProviders(config, {
    inputs,
    config,
    global,
    lock,
    lockReadable: inputs.lock === undefined || lock !== undefined,
    lockPath,
    locked,
    platform,
    env,
    requireEnv,
    diagnostics,
    findArtifact: (kind, source) =>
      inputs.artifacts?.get(artifactKey(kind, source, inputs.dir)),
  }, inputs.lock !== undefined && lock !== undefined);
  if (lock !== undefined) warnUnusedLockEntries(lock, config, diagnostics);
  warnNoEffect(config, diagnostics);
  crossCheckProviders(config, providers, diagnostics);
  warnUnspawnableAgents(config, providers, diagnostics);

  return result({
    sourceFile: agentFile,
    platform,
    providers,
    policies: config.policies,
    profiles: config.profiles,
    ...(config.agents.length > 0 ? { agents: config.agents } : {}),
    hooks: config.hooks,
    settings: config.settings,
    ...stateOf(config, global),
    global,
    locked: allLocked &&
      providers.every((p) =>
        p.devOverride !== undefined || p.lock !== undefined
      ),
  });
}

/**
 * The plan's state backend: `agent.hcl`'s `state {}` block when it has one
 * (even `backend = "sqlite"`), else the global config's; omitted for the
 * default (sqlite).
 */
function stateOf(
  config: AgentConfig,
  global: GlobalConfig,
): { state?: PlanState } {
  const state = config.stateDeclared ? config.state : global.state;
  return state !== undefined && state.backend !== "sqlite" ? { state } : {};
}

/**
 * Warns of settings that are accepted but do nothing yet: a profile's
 * plain `slash_commands` names (prompt-expansion commands are not run by
 * this version; `"<provider>.<command>"` entries are), and a
 * `builtin/lsp` provider that no `hook "post-tool-call"` block subscribes
 * (it checks files only from that hook).
 */
function warnNoEffect(
  config: AgentConfig,
  diagnostics: Diagnostic[],
): void {
  for (const r of config.requiredProviders) {
    if (r.source !== "builtin/lsp") continue;
    const hooked = config.hooks.some((h) =>
      h.point === "post-tool-call" && h.provider === r.name
    );
    if (hooked) continue;
    diagnostics.push(diag(
      "warning",
      W_NO_EFFECT,
      `Provider "${r.name}" (builtin/lsp) has no effect`,
      `It checks the files the agent writes from the post-tool-call hook: add hook "post-tool-call" { provider = "${r.name}", mode = "observe" }.`,
      r.range,
    ));
  }
  for (const p of config.profiles) {
    const plain = p.slashCommands.filter((c) => !c.includes("."));
    if (plain.length === 0) continue;
    diagnostics.push(diag(
      "warning",
      W_NO_EFFECT,
      "slash_commands has no effect",
      `agent_profile "${p.name}" lists prompt-expansion slash_commands (${
        plain.join(", ")
      }), which this version does not run; direct-invoke commands are listed as "<provider>.<command>" or "<provider>.*".`,
      p.range,
    ));
  }
}

/**
 * Warns of named agents that no profile can spawn: no profile has a tool
 * whose manifest declares `"subagents": true` in its tools. Silent when a
 * profile scopes a provider whose tools are only known at run time.
 */
function warnUnspawnableAgents(
  config: AgentConfig,
  providers: readonly PlanProvider[],
  diagnostics: Diagnostic[],
): void {
  const first = config.agents[0];
  if (first === undefined) return;
  const spawnable = spawnCapableTools(providers);
  for (const p of config.profiles) {
    for (const t of p.tools) {
      const provider = providers.find((x) => x.name === t.provider);
      if (!provider || provider.tools === undefined) return; // unknown: no claim
      const reaches = t.wildcard
        ? provider.tools.some((x) => spawnable.has(`${t.provider}.${x.name}`))
        : spawnable.has(`${t.provider}.${t.tool}`);
      if (reaches) return;
    }
  }
  diagnostics.push(diag(
    "warning",
    W_NO_EFFECT,
    "agent blocks have no effect",
    `No agent_profile has a spawn-capable tool (one whose manifest declares "subagents": true, such as builtin/agents' spawn_subagent), so no session can spawn the named agents (${
      config.agents.map((a) => `"${a.name}"`).join(", ")
    }). Add e.g. "agents.spawn_subagent" to a profile's tools.`,
    first.range,
  ));
}

/** Warns of each other `*.hcl` file beside `agent.hcl`: it is not read. */
function warnExtraHclFiles(
  extraHclFiles: readonly string[],
  agentFile: string,
  diagnostics: Diagnostic[],
): void {
  for (const extra of extraHclFiles) {
    diagnostics.push(diag(
      "warning",
      W_EXTRA_HCL,
      `"${extra}" is not read`,
      `The configuration is the single file ${agentFile}; other .hcl files beside it are not merged. Move its content into ${agentFile}.`,
      undefined,
    ));
  }
}

/** Stage A': the global config, or none (no dev overrides) when absent or invalid. */
function decodeGlobal(
  file: SourceFile | undefined,
  env: Readonly<Record<string, string | undefined>>,
  requireEnv: boolean,
  diagnostics: Diagnostic[],
): GlobalConfig {
  let global: GlobalConfig = { devOverrides: {}, devOverrideRanges: {} };
  if (file) {
    const g = decodeGlobalConfig(file.text, file.path, env, { requireEnv });
    for (const each of g.diagnostics) diagnostics.push(each);
    if (g.config) global = g.config;
  }
  return global;
}

/**
 * Stage A': the lock file when there is one (`undefined` when unreadable);
 * without one, a missing lock is reported when a provider needs it (any
 * without a dev override).
 */
function readLockFile(
  file: SourceFile | undefined,
  lockPath: string,
  ctx: {
    config: AgentConfig;
    global: GlobalConfig;
    locked: boolean;
    diagnostics: Diagnostic[];
  },
): LockFile | undefined {
  const { locked, diagnostics } = ctx;
  if (file) {
    const l = parseLockFile(file.text, file.path);
    for (const each of l.diagnostics) diagnostics.push(each);
    return l.lock;
  }
  const needsLock = ctx.config.requiredProviders.some((p) =>
    devOverrideOf(ctx.global, p.name) === undefined
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
  return undefined;
}

/**
 * Stage B: each required provider in declaration order. The plan is
 * `locked` only if the lock file was read and no provider had lock trouble.
 */
function resolveProviders(
  config: AgentConfig,
  ctx: ResolveContext,
  lockRead: boolean,
): { providers: PlanProvider[]; allLocked: boolean } {
  const { diagnostics } = ctx;
  const providers: PlanProvider[] = [];
  let allLocked = lockRead;
  for (const rp of config.requiredProviders) {
    const before = diagnostics.length;
    const p = resolveProvider(rp, ctx);
    for (let i = before; i < diagnostics.length && allLocked; i++) {
      const d = diagnostics[i]!;
      if (
        isLockProblem(d, ctx.lockPath) || d.code === W_PROVIDER_NOT_LOCKED ||
        d.code === W_LOCK_OUTDATED
      ) allLocked = false;
    }
    if (p) providers.push(p);
  }
  return { providers, allLocked };
}

/** Warns of each lock entry whose provider `agent.hcl` no longer requires. */
function warnUnusedLockEntries(
  lock: LockFile,
  config: AgentConfig,
  diagnostics: Diagnostic[],
): void {
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

/**
 * Stage B's cross-checks that need the plugins: each provider in a
 * profile's model chain is a model plugin, and each profile's tools exist.
 */
function crossCheckProviders(
  config: AgentConfig,
  providers: readonly PlanProvider[],
  diagnostics: Diagnostic[],
): void {
  // Every check below is about a profile, but for the default frontend.
  if (config.profiles.length === 0 && !config.settings.defaultFrontend) return;
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
  crossCheckSlashCommands(config, byName, diagnostics);
  crossCheckFrontend(config, byName, diagnostics);
  const caps = new Map<string, ProviderCapabilities>();
  for (const p of providers) {
    if (p.tools && p.category !== "slashcommand") {
      caps.set(p.name, { tools: p.tools.map((t) => t.name) });
    }
  }
  for (const each of checkProfileTools(config.profiles, caps)) {
    diagnostics.push(each);
  }
}

/**
 * Each profile's direct-invoke `slash_commands` entries: the provider is a
 * slash-command plugin, a named command is one its manifest declares
 * (`tools`, when it declares them), and no two commands of one profile
 * share a name (plugins.md §6.7: a collision is a config-load error).
 */
function crossCheckSlashCommands(
  config: AgentConfig,
  byName: ReadonlyMap<string, PlanProvider>,
  diagnostics: Diagnostic[],
): void {
  for (const profile of config.profiles) {
    const owner = new Map<string, string>();
    profile.slashCommands.forEach((entry, i) => {
      const d = directInvokeEntry(entry);
      const range = profile.slashRanges?.[i] ?? profile.range;
      const p = d && byName.get(d.provider);
      if (!d || !d.command || !p || p.category === undefined) return;
      if (p.category !== "slashcommand") {
        diagnostics.push(diag(
          "error",
          E_PROVIDER_CATEGORY,
          `Provider "${d.provider}" is not a slash-command provider`,
          `The slash_commands entry "${entry}" of agent_profile "${profile.name}" names provider "${d.provider}", whose plugin is a ${p.category} plugin.`,
          range,
        ));
        return;
      }
      if (!p.tools) return; // commands known only at launch (checked there)
      const names = d.command === "*"
        ? p.tools.map((t) => t.name)
        : [d.command];
      if (d.command !== "*" && !p.tools.some((t) => t.name === d.command)) {
        diagnostics.push(diag(
          "error",
          E_SLASH_COMMAND_CONFLICT,
          `Unknown slash command "${entry}"`,
          `Provider "${d.provider}" declares ${
            p.tools.map((t) => `"${t.name}"`).join(", ") || "no commands"
          }; agent_profile "${profile.name}" lists "${d.command}".`,
          range,
        ));
        return;
      }
      for (const name of names) {
        const other = owner.get(name);
        if (other !== undefined && other !== d.provider) {
          diagnostics.push(diag(
            "error",
            E_SLASH_COMMAND_CONFLICT,
            `Slash command "/${name}" is offered twice`,
            `In agent_profile "${profile.name}", both provider "${other}" and provider "${d.provider}" offer "/${name}": a direct-invoke command name must be unique in a session. Name one command ("${other}.<command>") instead of the wildcard.`,
            range,
          ));
        } else owner.set(name, d.provider);
      }
    });
  }
}

/** `default_frontend` names a loaded frontend plugin. */
function crossCheckFrontend(
  config: AgentConfig,
  byName: ReadonlyMap<string, PlanProvider>,
  diagnostics: Diagnostic[],
): void {
  const name = config.settings.defaultFrontend;
  if (!name) return;
  const range = config.settings.defaultFrontendRange;
  const p = byName.get(name);
  // "web" names the built-in web UI unless a frontend of that name is
  // declared (a provider "web" may be the web-fetch tool).
  if (
    name === WEB_UI_FRONTEND.name &&
    (!p || (p.category !== undefined && p.category !== "frontend"))
  ) return;
  if (!p) {
    const frontends = [...byName.values()].filter((q) =>
      q.category === "frontend"
    ).map((q) => `"${q.name}"`);
    // A warning: `agent` and `agent run` fail with the same message only
    // when they are asked to start it.
    diagnostics.push(diag(
      "warning",
      W_UNKNOWN_FRONTEND,
      `Unknown frontend "${name}"`,
      `settings.default_frontend names no provider declared in required_providers (declared frontends: ${
        frontends.length ? frontends.join(", ") : "none"
      }); "agent" will refuse to start it.`,
      range,
    ));
  } else if (p.category !== undefined && p.category !== "frontend") {
    diagnostics.push(diag(
      "error",
      E_PROVIDER_CATEGORY,
      `Provider "${name}" is not a frontend`,
      `settings.default_frontend names provider "${name}", whose plugin is a ${p.category} plugin.`,
      range,
    ));
  }
}
