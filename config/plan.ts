/**
 * The typed plan the config compiler produces (config.md §4): what the
 * kernel needs to start a session, fully validated and defaulted, and its
 * stable JSON form ({@linkcode planToJson}, secrets redacted).
 *
 * Secrets read with `env()` stay {@linkcode Secret}s inside
 * {@linkcode PlanProvider.config}; only {@linkcode revealProviderConfig}
 * (for the plugin's `Configure`) returns their values.
 *
 * @module
 */

import type { PlanState } from "./decode_state.ts";
import type { SourceRange } from "../contract/diagnostic.ts";
import {
  type JsonValue,
  type ObjectValue,
  Secret,
  toJsonValue,
} from "./hcl/mod.ts";
import type {
  CapabilityEnvelope,
  CategoryName,
  PluginRuntime,
} from "../contract/manifest.ts";
import type { EffectivePermissions } from "../contract/permissions.ts";
import type { SandboxMode } from "../contract/sandbox.ts";
import type { PolicyRule, RiskClass, ToolKind } from "../contract/policy.ts";
import { specificity } from "../contract/policy_specificity.ts";
import type {
  GenerationSettings,
  ModelRef,
  ModelRouting,
} from "./model_routing.ts";
import type { ProfileBounds } from "./profile_bounds.ts";
import type { ToolScopeEntry } from "./tool_scope.ts";
import { type GlobalConfig, globalConfigToJson } from "./global_config.ts";
import { buildJson, type JsonOut, LazyJsonList } from "./_json_indent.ts";

/** How a provider's `source` is resolved. */
export type SourceKind = "builtin" | "path" | "forge";

/** A tool a plugin declares in its manifest (`tools`). */
export interface ToolDeclaration {
  /** The bare operation name. */
  name: string;
  /** How calls pass the plan/apply gate. */
  kind: ToolKind;
  /** The declared risk class. */
  risk: RiskClass;
  /** The manifest's `"subagents": true`: it starts child sessions. */
  subagents?: boolean;
}

/** A provider's permissions: what it declares, what is granted, what it gets. */
export interface PlanPermissions {
  /** The plugin's capability envelope (its manifest, or the lock entry). */
  declared: CapabilityEnvelope;
  /** The operator's grant (`allow_*` attributes of the provider block). */
  granted: EffectivePermissions;
  /**
   * Declared ∩ granted. Paths inside the project are written relative to
   * it (`./data`); the kernel resolves them against the project directory.
   */
  effective: EffectivePermissions;
  /**
   * The `allow_subscribe` grant: `kernel.*` bus filters the plugin may
   * subscribe to, each optionally suffixed `@all` (every session, not only
   * those it takes part in). Absent or empty: none.
   */
  subscribe?: string[];
  /**
   * `allow_inject = true` on a plugin whose manifest declares
   * `"inject": true`: it may put text before the agent of the sessions it
   * serves (the control plane's `plugin-inject`).
   */
  inject?: boolean;
}

/** What the lock file says about a provider. */
export interface PlanLockEntry {
  /** The locked version. */
  version: string;
  /** When it was resolved (RFC 3339). */
  resolvedAt: string;
  /** Every recorded checksum by platform. */
  checksums: Record<string, string>;
}

/** One required provider, resolved. */
export interface PlanProvider {
  /** The local name (the `required_providers` key). */
  name: string;
  /** The source as written. */
  source: string;
  /** How the source resolves. */
  sourceKind: SourceKind;
  /** The version constraint, normalised (e.g. `>= 2.1.0, < 3.0.0`). */
  constraint: string;
  /**
   * The version that will run: the plugin's own (builtin and path sources),
   * or the locked one (forge sources).
   */
  version?: string;
  /** The `dev_overrides` path used instead of the source, if any. */
  devOverride?: string;
  /** The lock entry, when there is one. */
  lock?: PlanLockEntry;
  /** The checksum of the plugin's artifact as it is now (local sources). */
  checksum?: string;
  /** The plugin's category, when known without starting it. */
  category?: CategoryName;
  /** How the plugin runs, when known. */
  runtime?: PluginRuntime;
  /** The plugin's folder relative to the project (path sources and overrides). */
  location?: string;
  /** Declared, granted and effective permissions. */
  permissions: PlanPermissions;
  /** The provider block decoded against the plugin's config schema. */
  config: ObjectValue;
  /** The tools the plugin declares in its manifest, if it does. */
  tools?: ToolDeclaration[];
  /** `token_budget` for context and memory providers that set it. */
  tokenBudget?: number;
  /**
   * Byte offset of its `provider` block (else of its `required_providers`
   * entry): orders implicit hook subscribers (config.md §7.8).
   */
  position: number;
  /** Where the `required_providers` entry is. */
  range: SourceRange;
}

/**
 * One named agent (`agent "<name>" { profile, description }`): what the
 * delegation tool spawns by name, listed to the model.
 */
export interface PlanAgent {
  /** The label: the agent's name (its mailbox address). */
  name: string;
  /** The `agent_profile` it runs. */
  profile: string;
  /** What it is for, shown to the model. */
  description: string;
  /** Where the label is. */
  range: SourceRange;
}

/** One `agent_profile` block. */
export interface PlanProfile {
  /** The profile's name. */
  name: string;
  /** The model routing chain; `undefined` uses the kernel's built-in. */
  model?: ModelRouting;
  /** The tool scope entries (`"p.t"` or `"p.*"`); empty means no tools. */
  tools: ToolScopeEntry[];
  /**
   * Allowed `prompt_expansion` command names, and the direct-invoke
   * commands of slash-command providers (`"p.cmd"` or `"p.*"`); empty
   * means none.
   */
  slashCommands: string[];
  /** Where each `slash_commands` entry is written, in order. */
  slashRanges?: SourceRange[];
  /** Loop bounds; an absent field is unset (not 0). */
  bounds: ProfileBounds;
  /** `generation {}`: the requests' generation parameters. */
  generation?: GenerationSettings;
  /** `control_plane {}`: channels turned off, timers and event topics. */
  controlPlane?: PlanControlPlane;
  /**
   * `kind = "judge"`: the profile reviews another session's result and
   * answers with `<cp:judge-directive>` (`agent run --judge`); absent for
   * an ordinary agent profile.
   */
  kind?: "judge";
  /**
   * A judge's `max_judge_rounds`: how many verdicts one judged run asks
   * for at most (absent: {@linkcode DEFAULT_MAX_JUDGE_ROUNDS}).
   */
  maxJudgeRounds?: number;
  /** Where the block is. */
  range: SourceRange;
}

/** A judge profile's `max_judge_rounds` when it sets none. */
export const DEFAULT_MAX_JUDGE_ROUNDS = 3;

/** A profile's `control_plane {}` block (seed 004). */
export interface PlanControlPlane {
  /** Channels turned off, e.g. `time`. */
  disable: string[];
  /** Event-bus topic filters that fire `event-trigger`. */
  topics: string[];
  /** Timers that fire `event-trigger`. */
  timers: { name: string; everyS: number; text: string }[];
  /**
   * `turn_summaries = true`: a round that ends a turn's rounds so far
   * without a `<cp:compact>` block gets `turn-summary-missing`.
   */
  turnSummaries?: boolean;
  /**
   * `watch_fs = true`: the write-granted roots of the profile's tools are
   * watched; changes made outside the session's tools reach the agent as
   * `fs-change`.
   */
  watchFs?: boolean;
  /**
   * Trigger hooks (`hook "<name>" { on, text }`): an event on the topic
   * filter `on` fires the hook into each open session of the profile as
   * `<cp:hook-fired>` with `text` and the event; it wakes an idle session.
   */
  hooks?: { name: string; on: string; text: string }[];
}

/** The hook points a `hook` block may name (dispatchable ones). */
export type HookPoint =
  | "session-start"
  | "pre-model-call"
  | "post-model-response"
  | "pre-tool-call"
  | "post-tool-call"
  | "plan-ready"
  | "post-apply"
  | "session-end";

/** Every {@linkcode HookPoint}, in turn order. */
export const HOOK_POINTS: readonly HookPoint[] = [
  "session-start",
  "pre-model-call",
  "post-model-response",
  "pre-tool-call",
  "post-tool-call",
  "plan-ready",
  "post-apply",
  "session-end",
];

/** How a hook subscriber acts. */
export type HookMode = "observe" | "transform" | "veto";

/** Every {@linkcode HookMode}. */
export const HOOK_MODES: readonly HookMode[] = ["observe", "transform", "veto"];

/** One `hook` block, in declaration order. */
export interface PlanHook {
  /** The hook point. */
  point: HookPoint;
  /** The subscribing provider's local name. */
  provider: string;
  /** How it acts. */
  mode: HookMode;
  /** `timeout_ms`: this subscriber's deadline (else the kernel default). */
  timeoutMs?: number;
  /** Byte offset of the block (config.md §7.8). */
  position: number;
  /** Where the block is. */
  range: SourceRange;
}

/** `log_level` values. */
export type LogLevel = "trace" | "debug" | "info" | "warn" | "error" | "fatal";

/** Every {@linkcode LogLevel}. */
export const LOG_LEVELS: readonly LogLevel[] = [
  "trace",
  "debug",
  "info",
  "warn",
  "error",
  "fatal",
];

/** `settings.retry`. */
export interface RetrySettings {
  /** First backoff delay. */
  baseDelayMs: number;
  /** Exponential multiplier. */
  backoffFactor: number;
  /** Retry ceiling for rate-limited and overloaded model errors. */
  maxRetries: number;
}

/** `settings.observability`. */
export interface ObservabilitySettings {
  /** OTLP collector address. */
  endpoint: string;
  /** `grpc` or `http`. */
  protocol: "grpc" | "http";
  /** Trace sampling ratio in [0, 1]. */
  samplingRatio: number;
  /** Export traces. */
  tracesEnabled: boolean;
  /** Export metrics. */
  metricsEnabled: boolean;
  /** Export logs. */
  logsEnabled: boolean;
  /** Metrics and logs push cadence. */
  exportIntervalMs: number;
  /** OTel `service.name`. */
  serviceName: string;
  /** Extra static resource attributes. */
  resourceAttrs?: Record<string, string>;
}

/** `settings`, fully defaulted. */
export interface Settings {
  /** The frontend the CLI attaches when several are loaded. */
  defaultFrontend?: string;
  /** Where `default_frontend` is written. */
  defaultFrontendRange?: SourceRange;
  /** The log level (default `info`). */
  logLevel: LogLevel;
  /**
   * Telemetry on or off: `telemetry` when written, else whether an
   * `observability {}` block is written, else off. Off means a discarding
   * backend and no exporter, whatever `observability {}` says.
   */
  telemetry: boolean;
  /** Whether `telemetry` was written. */
  telemetryDeclared: boolean;
  /** Retry policy (default 500 ms, ×2, 5 retries). */
  retry: RetrySettings;
  /** Exporter settings (defaults apply when the block is absent). */
  observability: ObservabilitySettings;
  /** Whether `observability {}` was written. */
  observabilityDeclared: boolean;
  /** Event bus settings. */
  eventBus: { subscribeQueueBound: number };
  /**
   * The OS sandbox under plugins (`sandbox = "required" | "auto" | "off"`,
   * default `auto`).
   */
  sandbox: SandboxMode;
}

/** The default `retry {}`. */
export const DEFAULT_RETRY: Readonly<RetrySettings> = {
  baseDelayMs: 500,
  backoffFactor: 2,
  maxRetries: 5,
};

/** The default `observability {}`. */
export const DEFAULT_OBSERVABILITY: Readonly<ObservabilitySettings> = {
  endpoint: "localhost:4317",
  protocol: "grpc",
  samplingRatio: 1,
  tracesEnabled: true,
  metricsEnabled: true,
  logsEnabled: true,
  exportIntervalMs: 10_000,
  serviceName: "pluggableharness-agent",
};

/** The default `event_bus.subscribe_queue_bound`. */
export const DEFAULT_SUBSCRIBE_QUEUE_BOUND = 1024;

/** The compiled configuration. */
export interface Plan {
  /** The project file as shown (`agent.hcl`). */
  sourceFile: string;
  /** The platform key checksums were checked for, e.g. `linux_amd64`. */
  platform: string;
  /** Required providers in declaration order. */
  providers: PlanProvider[];
  /** Policy rules in declaration order. */
  policies: PolicyRule[];
  /** Agent profiles in declaration order. */
  profiles: PlanProfile[];
  /** Named agents (`agent` blocks) in declaration order; absent: none. */
  agents?: PlanAgent[];
  /** Hook blocks in declaration order. */
  hooks: PlanHook[];
  /** Settings, fully defaulted. */
  settings: Settings;
  /**
   * The state backend when `state {}` selects another than the default
   * (sqlite). Holds the name of the URL's environment variable, never the
   * URL.
   */
  state?: PlanState;
  /** The global config (empty when there is none). */
  global: GlobalConfig;
  /**
   * Whether every provider not under a dev override matches a lock entry
   * (source, version, checksum for this platform, envelope).
   */
  locked: boolean;
}

function where(range: SourceRange): string {
  return `${range.file}:${range.start.line}:${range.start.column}`;
}

function writeEnvelope(o: JsonOut, e: CapabilityEnvelope): void {
  o.open();
  o.field("env", e.env);
  o.field("run", e.run);
  o.field("read", e.read);
  o.field("write", e.write);
  o.field("net", e.net);
  o.close();
}

function writeModelRef(o: JsonOut, m: ModelRef): void {
  o.open();
  o.field("provider", m.provider);
  o.field("id", m.id);
  o.close();
}

function writeBounds(o: JsonOut, b: ProfileBounds): void {
  o.open();
  o.field("max_turns", b.maxTurns ?? null);
  o.field("max_cost_usd", b.maxCostUsd ?? null);
  o.field("max_wall_clock_s", b.maxWallClockS ?? null);
  o.field("max_depth", b.maxDepth ?? null);
  o.field("max_concurrent_subagents", b.maxConcurrentSubagents ?? null);
  o.field("doom_loop_threshold", b.doomLoopThreshold ?? null);
  o.field("max_result_bytes", b.maxResultBytes ?? null);
  o.close();
}

/**
 * The plan's stable JSON form: snake_case keys in a fixed order, secrets
 * replaced by `"(sensitive)"`, positions as `file:line:column`. The same
 * plan always gives byte-identical `JSON.stringify` output.
 *
 * @example Usage
 * ```ts ignore
 * import { BUILTINS } from "../plugins/builtin.ts";
 * import { compileConfig, planToJson } from "./mod.ts";
 * const { plan } = await compileConfig("examples", { builtins: BUILTINS });
 * console.log(JSON.stringify(planToJson(plan), null, 2));
 * ```
 *
 * @param plan The plan.
 * @returns Plain JSON data.
 */
export function planToJson(plan: Plan): JsonValue {
  return planJson(
    plan,
    (items, write) =>
      items.map((item) => buildJson(write, item)) as JsonValue[],
  );
}

/** Makes the JSON list of `items`: an array, or one written as it goes. */
type ListOf = <T>(
  items: readonly T[],
  write: (item: T, out: JsonOut) => void,
) => JsonValue;

/**
 * {@linkcode planToJson} for `writeJsonValue`: the providers, policies,
 * agents, profiles and hooks are {@linkcode LazyJsonList}s, each entry
 * written straight from the plan (a provider's config as it is: its secrets
 * write themselves as `"(sensitive)"`), so that a large plan's document
 * never exists as objects; the same text through `JSON.stringify`. Not part
 * of the API.
 *
 * @param plan The plan.
 * @returns The document, for `writeJsonValue` or `JSON.stringify`.
 */
export function planToStreamedJson(plan: Plan): JsonValue {
  return planJson(
    plan,
    (items, write) => new LazyJsonList(items, write) as unknown as JsonValue,
  );
}

function writeProvider(p: PlanProvider, o: JsonOut): void {
  o.open();
  o.field("name", p.name);
  o.field("source", p.source);
  o.field("source_kind", p.sourceKind);
  o.field("constraint", p.constraint);
  o.field("version", p.version ?? null);
  o.field("dev_override", p.devOverride ?? null);
  o.field("location", p.location ?? null);
  o.field("category", p.category ?? null);
  o.field("runtime", p.runtime ?? null);
  o.field("checksum", p.checksum ?? null);
  o.key("lock");
  if (p.lock) {
    o.open();
    o.field("version", p.lock.version);
    o.field("resolved_at", p.lock.resolvedAt);
    o.field("checksums", p.lock.checksums);
    o.close();
  } else o.value(null);
  o.key("permissions");
  o.open();
  o.key("declared");
  writeEnvelope(o, p.permissions.declared);
  o.key("granted");
  writeEnvelope(o, p.permissions.granted);
  o.key("effective");
  writeEnvelope(o, p.permissions.effective);
  o.field("subscribe", p.permissions.subscribe ?? []);
  if (p.permissions.inject) o.field("inject", true);
  o.close();
  // As it is: its secrets write themselves as "(sensitive)" (toJSON).
  o.field("config", p.config);
  o.key("tools");
  if (p.tools) {
    o.openList();
    for (const t of p.tools) {
      o.open();
      o.field("name", t.name);
      o.field("kind", t.kind);
      o.field("risk", t.risk);
      if (t.subagents) o.field("subagents", true);
      o.close();
    }
    o.close();
  } else o.value(null);
  o.field("token_budget", p.tokenBudget ?? null);
  o.field("declared_at", where(p.range));
  o.field("position", p.position);
  o.close();
}

function writePolicy(r: PolicyRule, o: JsonOut): void {
  o.open();
  o.field("name", r.name);
  o.key("match");
  o.open();
  const m = r.match;
  if (m.command !== undefined) o.field("command", m.command);
  if (m.toolName !== undefined) o.field("tool_name", m.toolName);
  if (m.provider !== undefined) o.field("provider", m.provider);
  if (m.risk !== undefined) o.field("risk", m.risk);
  if (m.kind !== undefined) o.field("kind", m.kind);
  o.close();
  o.field("action", r.action);
  o.field("specificity", specificity(m));
  o.field("declared_at", r.range ? where(r.range) : null);
  o.close();
}

function writeAgent(a: PlanAgent, o: JsonOut): void {
  o.open();
  o.field("name", a.name);
  o.field("profile", a.profile);
  o.field("description", a.description);
  o.field("declared_at", where(a.range));
  o.close();
}

function writeProfile(p: PlanProfile, o: JsonOut): void {
  o.open();
  o.field("name", p.name);
  o.key("model");
  if (p.model) {
    o.open();
    o.key("primary");
    writeModelRef(o, p.model.primary);
    o.key("fallbacks");
    o.openList();
    for (const m of p.model.fallbacks) writeModelRef(o, m);
    o.close();
    o.close();
  } else o.value(null);
  o.key("tools");
  o.openList();
  for (const t of p.tools) {
    o.open();
    o.field("pattern", t.text);
    o.field("provider", t.provider);
    o.field("tool", t.tool);
    o.field("wildcard", t.wildcard);
    o.close();
  }
  o.close();
  o.field("slash_commands", p.slashCommands);
  o.key("bounds");
  writeBounds(o, p.bounds);
  o.key("generation");
  const g = p.generation;
  if (g) {
    o.open();
    o.field("thinking_effort", g.thinkingEffort ?? null);
    o.field("thinking_budget_tokens", g.thinkingBudgetTokens ?? null);
    o.field("max_output_tokens", g.maxOutputTokens ?? null);
    o.field("temperature", g.temperature ?? null);
    o.field("stop_sequences", g.stopSequences ?? []);
    o.close();
  } else o.value(null);
  if (p.kind === "judge") {
    o.field("kind", "judge");
    o.field("max_judge_rounds", p.maxJudgeRounds ?? DEFAULT_MAX_JUDGE_ROUNDS);
  }
  const cp = p.controlPlane;
  if (cp) {
    o.key("control_plane");
    o.open();
    o.field("disable", cp.disable);
    o.field("topics", cp.topics);
    o.key("timers");
    o.openList();
    for (const t of cp.timers) {
      o.open();
      o.field("name", t.name);
      o.field("every_s", t.everyS);
      o.field("text", t.text);
      o.close();
    }
    o.close();
    if (cp.turnSummaries) o.field("turn_summaries", true);
    if (cp.watchFs) o.field("watch_fs", true);
    if (cp.hooks?.length) o.field("hooks", cp.hooks);
    o.close();
  }
  o.field("declared_at", where(p.range));
  o.close();
}

function writeHook(h: PlanHook, o: JsonOut): void {
  o.open();
  o.field("point", h.point);
  o.field("provider", h.provider);
  o.field("mode", h.mode);
  o.field("timeout_ms", h.timeoutMs ?? null);
  o.field("position", h.position);
  o.field("declared_at", where(h.range));
  o.close();
}

function planJson(plan: Plan, list: ListOf): JsonValue {
  const s = plan.settings;
  const o = s.observability;
  return {
    source_file: plan.sourceFile,
    locked: plan.locked,
    providers: list(plan.providers, writeProvider),
    policies: list(plan.policies, writePolicy),
    ...(plan.agents?.length ? { agents: list(plan.agents, writeAgent) } : {}),
    profiles: list(plan.profiles, writeProfile),
    hooks: list(plan.hooks, writeHook),
    settings: {
      default_frontend: s.defaultFrontend ?? null,
      log_level: s.logLevel,
      telemetry: s.telemetry,
      sandbox: s.sandbox,
      retry: {
        base_delay_ms: s.retry.baseDelayMs,
        backoff_factor: s.retry.backoffFactor,
        max_retries: s.retry.maxRetries,
      },
      observability: {
        declared: s.observabilityDeclared,
        endpoint: o.endpoint,
        protocol: o.protocol,
        sampling_ratio: o.samplingRatio,
        traces_enabled: o.tracesEnabled,
        metrics_enabled: o.metricsEnabled,
        logs_enabled: o.logsEnabled,
        export_interval_ms: o.exportIntervalMs,
        service_name: o.serviceName,
        resource_attrs: o.resourceAttrs ? { ...o.resourceAttrs } : null,
      },
      event_bus: { subscribe_queue_bound: s.eventBus.subscribeQueueBound },
    },
    global: toJsonValue(globalConfigToJson(plan.global)),
  };
}

/**
 * A provider's decoded configuration with its secrets revealed: the JSON a
 * plugin's `Configure` receives. Never log or print the result.
 *
 * @example Usage
 * ```ts
 * import { revealProviderConfig } from "./plan.ts";
 * import { Secret } from "./hcl/mod.ts";
 * import assert from "node:assert/strict";
 * const config = { api_key: new Secret("sk-1"), region: "eu" };
 * assert.deepEqual(revealProviderConfig({ config }), { api_key: "sk-1", region: "eu" });
 * ```
 *
 * @param provider The provider (only its `config` is read).
 * @returns Plain JSON with the secrets' values.
 */
export function revealProviderConfig(
  provider: Pick<PlanProvider, "config">,
): { [key: string]: JsonValue } {
  return toJsonValue(provider.config, { revealSecrets: true }) as {
    [key: string]: JsonValue;
  };
}

/**
 * Whether a value holds a secret anywhere.
 *
 * @param v Any value.
 * @returns `true` when a {@linkcode Secret} is inside.
 */
export function holdsSecret(v: unknown): boolean {
  if (v instanceof Secret) return true;
  if (Array.isArray(v)) return v.some(holdsSecret);
  if (v !== null && typeof v === "object") {
    return Object.values(v).some(holdsSecret);
  }
  return false;
}
