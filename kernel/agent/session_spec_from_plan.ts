/**
 * The adapter from the config compiler's typed {@linkcode Plan} to the
 * loop's {@linkcode SessionSpec}: the profile (the requested one, else
 * `default`, else the kernel's built-in defaults), its model chain, its
 * tools resolved against the schemas the running tool plugins advertise,
 * the policies and hook blocks in declaration order, and the retry
 * settings.
 *
 * @module
 */
import { resolve } from "node:path";
import type { Diagnostic } from "../../contract/diagnostic.ts";
import { expandPath } from "../../contract/permissions.ts";
import type { Plan, PlanProfile } from "../../config/plan.ts";
import { resolveToolScope } from "../../config/tool_scope.ts";
import { selectRootProfile } from "../../config/profiles.ts";
import { spawnCapableTools } from "../../config/delegation.ts";
import type { ToolSchema } from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import {
  BUILTIN_DEFAULT_BOUNDS,
  type DynamicToolScope,
  type HookSubscription,
  type ModelChainEntry,
  type OnAsk,
  type PreambleSection,
  type SessionSpec,
} from "./session_spec.ts";

/** Options of {@linkcode sessionSpecFromPlan}. */
export interface SessionSpecFromPlanOptions {
  /** The profile the CLI asked for. @default {"default"} */
  readonly profile?: string;
  /** Each running tool provider's advertised schemas (`GetSchema`), by local name. */
  readonly toolSchemas: ReadonlyMap<string, readonly ToolSchema[]>;
  /** The session's working directory. */
  readonly workingDirectory: string;
  /**
   * The model chain when the profile has no `model {}` block (the kernel's
   * built-in routing). @default {[]}
   */
  readonly defaultModels?: readonly ModelChainEntry[];
  /** `on_ask` (CLI flag or profile setting). @default {"deny"} */
  readonly onAsk?: OnAsk;
  /** How long an ask waits. */
  readonly askTimeoutMs?: number;
  /** `default_hook_timeout_ms`. */
  readonly defaultHookTimeoutMs?: number;
  /** The system prompt. */
  readonly systemPrompt?: string;
  /** Further preamble sections. */
  readonly preamble?: readonly PreambleSection[];
  /** Plan mode. @default {false} */
  readonly planMode?: boolean;
}

/** What {@linkcode sessionSpecFromPlan} returns. */
export interface SessionSpecFromPlanResult {
  /** The spec, absent when an error diagnostic was reported. */
  readonly spec: SessionSpec | undefined;
  /** `E_UNKNOWN_PROFILE`, `E_TOOL_*` and `E_NO_MODEL` errors. */
  readonly diagnostics: Diagnostic[];
}

/**
 * Builds the spec of a root session from a compiled plan.
 *
 * @param plan The compiled configuration.
 * @param options Profile, running tool schemas, working directory, on_ask.
 * @returns The spec, or the diagnostics that prevent one.
 */
export function sessionSpecFromPlan(
  plan: Plan,
  options: SessionSpecFromPlanOptions,
): SessionSpecFromPlanResult {
  const profiles = new Map<string, PlanProfile>(
    plan.profiles.map((p) => [p.name, p]),
  );
  const selected = selectRootProfile(profiles, options.profile);
  const diagnostics: Diagnostic[] = [...selected.diagnostics];
  if (diagnostics.some((d) => d.severity === "error")) {
    return { spec: undefined, diagnostics };
  }
  const profile = selected.profile;
  const loaded = new Map(
    [...options.toolSchemas].map((
      [p, schemas],
    ) => [p, schemas.map((s) => s.name)]),
  );
  const scope = resolveToolScope(profile?.tools ?? [], loaded);
  diagnostics.push(...scope.diagnostics);
  const spawnTools = spawnCapableTools(plan.providers);
  const roster = namedAgentsText(plan);
  const tools = new Map<string, ToolSchema[]>();
  for (const [provider, names] of scope.byProvider) {
    const schemas = options.toolSchemas.get(provider) ?? [];
    tools.set(
      provider,
      schemas.filter((s) => names.includes(s.name)).map((s) =>
        // The model reads the named agents where it chooses one.
        roster && spawnTools.has(`${provider}.${s.name}`)
          ? { ...s, description: `${s.description}\n\n${roster}` }
          : s
      ),
    );
  }
  // Providers whose manifest lists no tools may change them at run time.
  const dynamicTools = new Map<string, DynamicToolScope>();
  for (const [provider, names] of scope.byProvider) {
    const p = plan.providers.find((x) => x.name === provider);
    if (!p || p.tools !== undefined) continue;
    const entries = (profile?.tools ?? []).filter((t) =>
      t.provider === provider
    );
    dynamicTools.set(provider, {
      all: entries.some((t) => t.wildcard),
      names: [...names],
    });
  }
  const models: ModelChainEntry[] = profile?.model
    ? [profile.model.primary, ...profile.model.fallbacks].map((m) => ({
      provider: m.provider,
      id: m.id,
    }))
    : [...(options.defaultModels ?? [])];
  if (models.length === 0) {
    diagnostics.push({
      severity: "error",
      code: "E_NO_MODEL",
      summary: `No model for profile "${selected.name}"`,
      detail:
        "The profile has no model block and the kernel was given no built-in model chain.",
    });
  }
  if (diagnostics.some((d) => d.severity === "error")) {
    return { spec: undefined, diagnostics };
  }
  const bounds = profile
    ? {
      ...(profile.bounds.maxTurns !== undefined
        ? { maxTurns: profile.bounds.maxTurns }
        : {}),
      ...(profile.bounds.maxCostUsd !== undefined
        ? { maxCostUsd: profile.bounds.maxCostUsd }
        : {}),
      ...(profile.bounds.maxWallClockS !== undefined
        ? { maxWallClockS: profile.bounds.maxWallClockS }
        : {}),
    }
    : { ...BUILTIN_DEFAULT_BOUNDS };
  const spec: SessionSpec = {
    profile: selected.name,
    models,
    tools,
    ...(dynamicTools.size ? { dynamicTools } : {}),
    policies: plan.policies,
    hooks: hookChain(plan),
    bounds,
    ...(profile?.bounds.doomLoopThreshold !== undefined
      ? { doomLoop: { threshold: profile.bounds.doomLoopThreshold } }
      : {}),
    ...(profile?.bounds.maxResultBytes !== undefined
      ? { maxResultBytes: profile.bounds.maxResultBytes }
      : {}),
    retry: { ...plan.settings.retry },
    ...(profile?.generation ? { generation: { ...profile.generation } } : {}),
    workingDirectory: options.workingDirectory,
    ...(spawnTools.size > 0 ? { spawnTools } : {}),
    ...(options.onAsk !== undefined ? { onAsk: options.onAsk } : {}),
    ...(options.askTimeoutMs !== undefined
      ? { askTimeoutMs: options.askTimeoutMs }
      : {}),
    ...(options.defaultHookTimeoutMs !== undefined
      ? { defaultHookTimeoutMs: options.defaultHookTimeoutMs }
      : {}),
    ...(options.systemPrompt !== undefined
      ? { systemPrompt: options.systemPrompt }
      : {}),
    ...(options.preamble !== undefined ? { preamble: options.preamble } : {}),
    ...(options.planMode !== undefined ? { planMode: options.planMode } : {}),
    // A profile's sessions always have a control plane (seed 004).
    controlPlane: {
      disable: [...(profile?.controlPlane?.disable ?? [])],
      timers: [...(profile?.controlPlane?.timers ?? [])],
      topics: [...(profile?.controlPlane?.topics ?? [])],
      ...(profile?.controlPlane?.turnSummaries ? { turnSummaries: true } : {}),
      ...(profile?.controlPlane?.hooks?.length
        ? { hooks: profile.controlPlane.hooks.map((h) => ({ ...h })) }
        : {}),
      ...(profile?.controlPlane?.watchFs
        ? {
          watch: grantedWriteRoots(
            plan,
            [...scope.byProvider.keys()],
            options.workingDirectory,
          ),
        }
        : {}),
    },
  };
  return { spec, diagnostics };
}

/**
 * The hook subscriptions in declaration order: the `hook` blocks, and each
 * memory provider's implicit `post-model-response` and `session-end`
 * observers (plugins.md §6.4) at its provider block's position — unless a
 * `hook` block already subscribes it at that point.
 *
 * @param plan The compiled configuration.
 * @returns The subscriptions.
 */
export function hookChain(plan: Plan): HookSubscription[] {
  const explicit = new Set(
    plan.hooks.map((h) => `${h.point}\u0000${h.provider}`),
  );
  const implicit = plan.providers
    .filter((p) => p.category === "memory")
    .flatMap((p) =>
      (["post-model-response", "session-end"] as const)
        .filter((point) => !explicit.has(`${point}\u0000${p.name}`))
        .map((point) => ({
          point,
          provider: p.name,
          mode: "observe" as const,
          position: p.position,
        }))
    );
  const strip = (h: HookSubscription): HookSubscription => ({
    point: h.point,
    provider: h.provider,
    mode: h.mode,
    ...(h.timeoutMs !== undefined ? { timeoutMs: h.timeoutMs } : {}),
  });
  if (implicit.length === 0) return plan.hooks.map(strip);
  return [...plan.hooks, ...implicit]
    .map((h, i) => ({ h, i }))
    .sort((a, b) => a.h.position - b.h.position || a.i - b.i)
    .map(({ h }) => strip(h));
}

/**
 * The named agents of a plan as the text appended to spawn-capable tools'
 * descriptions; empty when there are none.
 */
function namedAgentsText(plan: Plan): string {
  if (!plan.agents?.length) return "";
  return `Named agents (pass the name as "agent"):\n${
    plan.agents.map((a) =>
      `- ${a.name} (profile ${a.profile}): ${a.description}`
    ).join("\n")
  }`;
}

/**
 * The write-granted roots of a profile's tool providers (`fs-change`
 * watches them): each provider's effective `write` grant, `~`/`$HOME`/XDG
 * prefixes expanded from the kernel's environment, relative ones resolved
 * against the working directory; `*` and unexpandable ones left out.
 *
 * @param plan The compiled configuration.
 * @param providers The profile's tool providers.
 * @param workingDirectory The session's working directory.
 * @returns Absolute directories, each once.
 */
export function grantedWriteRoots(
  plan: Plan,
  providers: readonly string[],
  workingDirectory: string,
): string[] {
  const env = Deno.env.toObject();
  const out = new Set<string>();
  for (const name of providers) {
    const p = plan.providers.find((x) => x.name === name);
    for (const w of p?.permissions.effective.write ?? []) {
      if (w === "*" || w.includes("*")) continue;
      const expanded = expandPath(w, env);
      if (expanded !== undefined) out.add(resolve(workingDirectory, expanded));
    }
  }
  return [...out];
}
