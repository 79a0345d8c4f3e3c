/**
 * {@linkcode SessionSpec}: everything the agent loop needs to know about
 * one session, resolved from configuration (the profile, its model chain
 * and tools, policies, hooks and settings) but independent of the config
 * compiler's own types. {@linkcode resolveSessionSpec} fills the defaults.
 *
 * @module
 */
import type { ControlPlaneSpec } from "../control/session_sources.ts";
import type { ToolSchema } from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import type { PolicyRule } from "../../contract/policy.ts";
import type { GenerationSettings } from "../../config/model_routing.ts";

/** The profile's scope of one provider whose tools may change. */
export interface DynamicToolScope {
  /** `"<provider>.*"`: every operation it offers. */
  readonly all: boolean;
  /** Otherwise these operations. */
  readonly names: readonly string[];
  /** Never these (e.g. spawn tools once the depth is spent). */
  readonly exclude?: readonly string[];
}

/** The eight hook points dispatched through `HookSubscriberService`. */
export type HookPointName =
  | "session-start"
  | "pre-model-call"
  | "post-model-response"
  | "pre-tool-call"
  | "plan-ready"
  | "post-tool-call"
  | "post-apply"
  | "session-end";

/** Every dispatchable hook point, in loop order. */
export const HOOK_POINT_NAMES: readonly HookPointName[] = [
  "session-start",
  "pre-model-call",
  "post-model-response",
  "pre-tool-call",
  "plan-ready",
  "post-tool-call",
  "post-apply",
  "session-end",
];

/** The veto-bearing points (ref-impl: the two gates right before an action). */
export const VETO_BEARING_POINTS: readonly HookPointName[] = [
  "pre-tool-call",
  "plan-ready",
];

/** A subscriber's mode. */
export type HookModeName = "observe" | "transform" | "veto";

/** One `hook "<point>" { provider, mode }` block, in declaration order. */
export interface HookSubscription {
  /** The hook point. */
  readonly point: HookPointName;
  /** The subscribing provider's local name (a key of the hook endpoints). */
  readonly provider: string;
  /** The mode. */
  readonly mode: HookModeName;
  /**
   * This subscriber's timeout (`timeout_ms`).
   * @default {SessionSpec.defaultHookTimeoutMs}
   */
  readonly timeoutMs?: number;
  /** Sent when one plugin has several blocks at the same point. */
  readonly subscriptionId?: string;
}

/** One model of the routing chain (`primary`, then each `fallback`). */
export interface ModelChainEntry {
  /** The model provider's local name (a key of the model endpoints). */
  readonly provider: string;
  /** The vendor model id (`ModelSpec.id`). */
  readonly id: string;
}

/** The session bounds; an absent field is unbounded. */
export interface SessionBounds {
  /** `max_turns`: model calls before the final-answer turn. */
  readonly maxTurns?: number;
  /** `max_cost_usd`: dollars before the final-answer turn. */
  readonly maxCostUsd?: number;
  /** `max_wall_clock_s`: seconds since the session opened. */
  readonly maxWallClockS?: number;
}

/** The built-in default profile's bounds (ref-impl): 200 turns, $5, 1 h. */
export const BUILTIN_DEFAULT_BOUNDS: Readonly<Required<SessionBounds>> = Object
  .freeze({ maxTurns: 200, maxCostUsd: 5, maxWallClockS: 3600 });

/** Doom-loop detector settings. */
export interface DoomLoopSettings {
  /** Identical consecutive call hashes that fire the detector (3..5 by spec). @default {4} */
  readonly threshold?: number;
  /** How many recent hashes are kept (≥ threshold). @default {8} */
  readonly windowSize?: number;
}

/** Model retry settings (`settings { retry {…} }`). */
export interface RetrySettings {
  /** First backoff delay. @default {500} */
  readonly baseDelayMs?: number;
  /** Exponential multiplier. @default {2} */
  readonly backoffFactor?: number;
  /** Retries of one model call (the per-attempt cap). @default {5} */
  readonly maxRetries?: number;
  /** Retries across the whole session (the per-session cap). @default {20} */
  readonly maxSessionRetries?: number;
}

/** What an unanswered `ask` becomes (`on_ask`). */
export type OnAsk = "deny" | "fail" | "callback";

/** The context budget inputs: `context_window − reservedOutput − systemOverhead`. */
export interface ContextBudgetSettings {
  /** Tokens kept for the response. @default {the model's max_output_tokens} */
  readonly reservedOutputTokens?: number;
  /** Tokens kept for the system preamble and tool schemas. @default {0} */
  readonly systemOverheadTokens?: number;
}

/** A labelled system/preamble section sent as `assembled_context`. */
export interface PreambleSection {
  /** The section's label (the kernel wraps each section in a boundary). */
  readonly label: string;
  /** Its text. */
  readonly text: string;
}

/** One session's resolved inputs. */
export interface SessionSpec {
  /** The profile's name (stored in `session_meta.profile`). */
  readonly profile: string;
  /** The routing chain: primary first, then fallbacks. */
  readonly models: readonly ModelChainEntry[];
  /**
   * The tools in scope: tool provider local name → the schemas the profile
   * scopes in (already resolved, e.g. with `resolveToolScope`).
   * @default {no tools}
   */
  readonly tools?: ReadonlyMap<string, readonly ToolSchema[]>;
  /**
   * Tool providers whose operations may change while they run (an MCP
   * bridge after `tools/list_changed`; any provider whose manifest lists
   * no tools): their `GetSchema` is read again before each turn, and the
   * scope applied to the answer — every operation (`all`) or the named
   * ones. @default {none}
   */
  readonly dynamicTools?: ReadonlyMap<string, DynamicToolScope>;
  /** The policy rules in declaration order. @default {[]} */
  readonly policies?: readonly PolicyRule[];
  /** Hook subscriptions in declaration order. @default {[]} */
  readonly hooks?: readonly HookSubscription[];
  /** The bounds. @default {unbounded} */
  readonly bounds?: SessionBounds;
  /** The doom-loop detector. @default {{threshold: 4, windowSize: 8}} */
  readonly doomLoop?: DoomLoopSettings;
  /** Model retries. @default {{baseDelayMs: 500, backoffFactor: 2, maxRetries: 5, maxSessionRetries: 20}} */
  readonly retry?: RetrySettings;
  /** `default_hook_timeout_ms`. @default {5000} */
  readonly defaultHookTimeoutMs?: number;
  /** What an unanswered ask becomes. @default {"deny"} */
  readonly onAsk?: OnAsk;
  /** How long an ask waits for an answer before `onAsk` applies. @default {300000} */
  readonly askTimeoutMs?: number;
  /** The context budget inputs. */
  /** Generation parameters, checked per turn against the chosen model. */
  readonly generation?: GenerationSettings;
  readonly context?: ContextBudgetSettings;
  /** Where relative paths in tool arguments resolve (`CallContext`). */
  readonly workingDirectory: string;
  /**
   * The spawn-capable tools (`"provider.tool"`, from the manifests'
   * `"subagents": true`): removed when the session's remaining depth is
   * spent. @default {undefined} (none)
   */
  readonly spawnTools?: ReadonlySet<string>;
  /** The system prompt, sent as the first `assembled_context` section. */
  readonly systemPrompt?: string;
  /** Further preamble sections, after the system prompt. @default {[]} */
  readonly preamble?: readonly PreambleSection[];
  /**
   * Plan mode: resource tools are removed from every request (schema
   * removal, never runtime interception). @default {false}
   */
  readonly planMode?: boolean;
  /** Deadline of a `Preview` call at plan build. @default {5000} */
  readonly previewTimeoutMs?: number;
  /** Tool call deadline when the schema declares no `default_timeout`. @default {600000} */
  readonly defaultToolTimeoutMs?: number;
  /**
   * `max_result_bytes`: bytes of one tool call's result (and of its live
   * output) that reach the model, the events and the session log; the rest
   * goes to an overflow file beside the session file. @default {262144}
   */
  readonly maxResultBytes?: number;
  /**
   * The control plane (seed 004): `<cp:*>` channels between the harness
   * and the agent, with the channels the profile turned off. Sessions of an
   * `agent.hcl` profile always have one; without it (a bare library spec)
   * no channel is delivered and no `<cp:*>` tag is parsed.
   * @default {undefined}
   */
  readonly controlPlane?: ControlPlaneSpec;
}

/** A {@linkcode SessionSpec} with every default filled in. */
export interface ResolvedSessionSpec {
  /** See {@linkcode SessionSpec.profile}. */
  readonly profile: string;
  /** See {@linkcode SessionSpec.models}. */
  readonly models: readonly ModelChainEntry[];
  /** See {@linkcode SessionSpec.tools}. */
  readonly tools: ReadonlyMap<string, readonly ToolSchema[]>;
  /** See {@linkcode SessionSpec.policies}. */
  /** See {@linkcode SessionSpec.dynamicTools}. */
  readonly dynamicTools: ReadonlyMap<string, DynamicToolScope>;
  readonly policies: readonly PolicyRule[];
  /** See {@linkcode SessionSpec.hooks}. */
  readonly hooks: readonly HookSubscription[];
  /** See {@linkcode SessionSpec.bounds}. */
  readonly bounds: SessionBounds;
  /** See {@linkcode SessionSpec.doomLoop}. */
  readonly doomLoop: Required<DoomLoopSettings>;
  /** See {@linkcode SessionSpec.retry}. */
  readonly retry: Required<RetrySettings>;
  /** See {@linkcode SessionSpec.defaultHookTimeoutMs}. */
  readonly defaultHookTimeoutMs: number;
  /** See {@linkcode SessionSpec.onAsk}. */
  readonly onAsk: OnAsk;
  /** See {@linkcode SessionSpec.askTimeoutMs}. */
  readonly askTimeoutMs: number;
  /** See {@linkcode SessionSpec.context}. */
  /** See {@linkcode SessionSpec.generation}. */
  readonly generation: GenerationSettings;
  readonly context: ContextBudgetSettings;
  /** See {@linkcode SessionSpec.workingDirectory}. */
  readonly workingDirectory: string;
  /** See {@linkcode SessionSpec.systemPrompt}. */
  readonly systemPrompt: string | undefined;
  /** See {@linkcode SessionSpec.preamble}. */
  readonly preamble: readonly PreambleSection[];
  /** See {@linkcode SessionSpec.planMode}. */
  readonly planMode: boolean;
  /** See {@linkcode SessionSpec.previewTimeoutMs}. */
  readonly previewTimeoutMs: number;
  /** See {@linkcode SessionSpec.defaultToolTimeoutMs}. */
  readonly defaultToolTimeoutMs: number;
  /** See {@linkcode SessionSpec.maxResultBytes}. */
  readonly maxResultBytes: number;
  /** See {@linkcode SessionSpec.controlPlane}. */
  readonly controlPlane: ControlPlaneSpec | undefined;
}

/** The default bytes of a tool result that reach the model (256 KiB). */
export const DEFAULT_MAX_RESULT_BYTES = 256 * 1024;

/** The default doom-loop threshold (the spec asks for 3..5). */
export const DEFAULT_DOOM_LOOP_THRESHOLD = 4;
/** The default hook timeout. */
export const DEFAULT_HOOK_TIMEOUT_MS = 5_000;
/** The default ask timeout (headless never hangs). */
export const DEFAULT_ASK_TIMEOUT_MS = 300_000;
/** The `Preview` deadline (ref-impl). */
export const DEFAULT_PREVIEW_TIMEOUT_MS = 5_000;
/** The tool call deadline when a schema declares none. */
export const DEFAULT_TOOL_TIMEOUT_MS = 600_000;

function positive(name: string, v: number | undefined, integer = false): void {
  if (v === undefined) return;
  if (!(v >= 0) || (integer && !Number.isInteger(v) && v !== Infinity)) {
    throw new RangeError(
      `Cannot use the session spec: ${name} must be a non-negative ${
        integer ? "integer" : "number"
      }, got ${v}`,
    );
  }
}

/**
 * Fills the defaults of a spec and checks its numbers.
 *
 * @example Usage
 * ```ts
 * import { resolveSessionSpec } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * const spec = resolveSessionSpec({
 *   profile: "default",
 *   models: [{ provider: "claude", id: "large" }],
 *   workingDirectory: "/tmp",
 * });
 * assert.equal(spec.doomLoop.threshold, 4);
 * assert.equal(spec.retry.baseDelayMs, 500);
 * assert.equal(spec.onAsk, "deny");
 * ```
 *
 * @param spec The spec.
 * @returns The spec with defaults.
 * @throws {RangeError} For a negative or fractional count, or a doom-loop
 * window smaller than its threshold.
 * @throws {TypeError} For an empty model chain.
 */
export function resolveSessionSpec(spec: SessionSpec): ResolvedSessionSpec {
  if (spec.models.length === 0) {
    throw new TypeError(
      `Cannot use the session spec of profile "${spec.profile}": its model chain is empty`,
    );
  }
  const threshold = spec.doomLoop?.threshold ?? DEFAULT_DOOM_LOOP_THRESHOLD;
  const windowSize = spec.doomLoop?.windowSize ?? Math.max(8, threshold);
  positive("bounds.maxTurns", spec.bounds?.maxTurns, true);
  positive("bounds.maxCostUsd", spec.bounds?.maxCostUsd);
  positive("bounds.maxWallClockS", spec.bounds?.maxWallClockS);
  positive("doomLoop.threshold", threshold, true);
  if (threshold < 2) {
    throw new RangeError(
      `Cannot use the session spec: doomLoop.threshold must be at least 2, got ${threshold}`,
    );
  }
  if (windowSize < threshold) {
    throw new RangeError(
      `Cannot use the session spec: doomLoop.windowSize (${windowSize}) must be at least the threshold (${threshold})`,
    );
  }
  const retry = {
    baseDelayMs: spec.retry?.baseDelayMs ?? 500,
    backoffFactor: spec.retry?.backoffFactor ?? 2,
    maxRetries: spec.retry?.maxRetries ?? 5,
    maxSessionRetries: spec.retry?.maxSessionRetries ?? 20,
  };
  positive("retry.baseDelayMs", retry.baseDelayMs);
  positive("retry.backoffFactor", retry.backoffFactor);
  positive("retry.maxRetries", retry.maxRetries, true);
  positive("retry.maxSessionRetries", retry.maxSessionRetries, true);
  for (const h of spec.hooks ?? []) positive("hooks[].timeoutMs", h.timeoutMs);
  positive("maxResultBytes", spec.maxResultBytes, true);
  return {
    profile: spec.profile,
    models: spec.models,
    tools: spec.tools ?? new Map(),
    dynamicTools: spec.dynamicTools ?? new Map(),
    policies: spec.policies ?? [],
    hooks: spec.hooks ?? [],
    bounds: spec.bounds ?? {},
    doomLoop: { threshold, windowSize },
    retry,
    defaultHookTimeoutMs: spec.defaultHookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS,
    onAsk: spec.onAsk ?? "deny",
    askTimeoutMs: spec.askTimeoutMs ?? DEFAULT_ASK_TIMEOUT_MS,
    context: spec.context ?? {},
    generation: spec.generation ?? {},
    workingDirectory: spec.workingDirectory,
    systemPrompt: spec.systemPrompt,
    preamble: spec.preamble ?? [],
    planMode: spec.planMode ?? false,
    previewTimeoutMs: spec.previewTimeoutMs ?? DEFAULT_PREVIEW_TIMEOUT_MS,
    defaultToolTimeoutMs: spec.defaultToolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
    maxResultBytes: spec.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES,
    controlPlane: spec.controlPlane,
  };
}

export type {
  ControlHookSpec,
  ControlPlaneSpec,
  ControlTimerSpec,
} from "../control/session_sources.ts";
