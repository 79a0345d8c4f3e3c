/**
 * Model routing (config.md §7.2): a profile's `model {}` block (the
 * `primary` / `fallback` chain and the `generation {}` settings) and
 * {@linkcode chooseModel}, which walks the chain for the first model that
 * can serve a turn.
 *
 * @module
 */
import type { Diagnostic, SourceRange } from "../contract/diagnostic.ts";
import { diag } from "./_schema.ts";

/** A model reference: `primary { provider = "...", id = "..." }`. */
export interface ModelRef {
  /** The provider's local name. */
  provider: string;
  /** The vendor model id (`ModelSpec.id`). */
  id: string;
  /** Where the `primary` / `fallback` block is. */
  range?: SourceRange;
}

/** A profile's `model {}` block. */
export interface ModelRouting {
  /** Tried first. */
  primary: ModelRef;
  /** Tried in order after the primary. */
  fallbacks: readonly ModelRef[];
}

/**
 * What routing needs to know about a model; the generated `ModelSpec`
 * satisfies it.
 */
export interface ModelCapabilities {
  /** The vendor model id. */
  readonly id: string;
  /** Input token budget. */
  readonly contextWindow: number | bigint;
  /** Whether it may receive tools and emit tool use. */
  readonly supportsToolUse: boolean;
  /** Whether it accepts images. */
  readonly supportsVision: boolean;
  /** Reasoning support; absent means none. */
  readonly thinking?: {
    readonly supported: boolean;
    /** Named effort levels, when the model takes one. */
    readonly effort?: { readonly levels: readonly string[] } | undefined;
    /** A token budget control, when the model takes one. */
    readonly budget?: {
      readonly range?: {
        readonly min: number | bigint;
        readonly max: number | bigint;
      } | undefined;
    } | undefined;
  } | undefined;
  /** The most output tokens one response may hold. */
  readonly maxOutputTokens?: number | bigint;
}

/**
 * A profile's generation parameters (`generation {}` in an
 * `agent_profile`): validated against each candidate model's declared
 * capabilities before a request is sent, never forwarded when invalid.
 */
export interface GenerationSettings {
  /** `thinking_effort`: one of the model's effort levels. */
  thinkingEffort?: string;
  /** `thinking_budget_tokens`: within the model's budget range. */
  thinkingBudgetTokens?: number;
  /** `max_output_tokens`: at most the model's maximum output. */
  maxOutputTokens?: number;
  /** `temperature`: passed through unclamped. */
  temperature?: number;
  /** `stop_sequences`. */
  stopSequences?: string[];
}

/** What a turn needs from its model. */
export interface TurnRequirements {
  /**
   * The turn sends tools.
   * @default {false}
   */
  toolUse?: boolean;
  /**
   * The turn carries images.
   * @default {false}
   */
  vision?: boolean;
  /**
   * The turn asks for reasoning.
   * @default {false}
   */
  thinking?: boolean;
  /**
   * The smallest acceptable context window in tokens; 0 means no minimum.
   * @default {0}
   */
  minContextWindow?: number;
  /**
   * The profile's generation parameters, each checked against the
   * candidate's declared capabilities.
   * @default {none}
   */
  generation?: GenerationSettings;
}

/** Why a candidate was skipped. */
export type IneligibleReason =
  | "provider_not_loaded"
  | "model_not_offered"
  | "no_tool_use"
  | "no_vision"
  | "no_thinking"
  | "context_window_too_small"
  | "effort_not_offered"
  | "budget_out_of_range"
  | "max_output_too_large";

/** A candidate that was skipped, and why. */
export interface SkippedModel {
  /** The candidate. */
  model: ModelRef;
  /** Every reason that applies, in a fixed order. */
  reasons: IneligibleReason[];
}

/** What {@linkcode chooseModel} returns. */
export type ModelChoice<T extends ModelCapabilities> =
  | {
    ok: true;
    /** The chosen reference. */
    model: ModelRef;
    /** Its capabilities as the provider advertised them. */
    spec: T;
    /** Its place in the chain: 0 for the primary. */
    index: number;
    /** The candidates before it that were skipped. */
    skipped: SkippedModel[];
  }
  | {
    ok: false;
    /** `E_NO_ELIGIBLE_MODEL`, explaining every candidate. */
    diagnostic: Diagnostic;
    /** Every candidate, each with its reasons. */
    skipped: SkippedModel[];
  };

/** Options for {@linkcode chooseModel}. */
export interface ChooseModelOptions {
  /**
   * The profile's name, for the message.
   * @default {undefined}
   */
  profile?: string;
  /**
   * Where the `model {}` block is.
   * @default {undefined}
   */
  range?: SourceRange;
}

const REASON_TEXT: Readonly<Record<IneligibleReason, string>> = {
  provider_not_loaded: "its provider is not loaded",
  model_not_offered: "its provider does not offer this model",
  no_tool_use: "the turn needs tool use, which it does not support",
  no_vision: "the turn needs vision, which it does not support",
  no_thinking: "the turn needs thinking, which it does not support",
  context_window_too_small:
    "its context window is smaller than the turn requires",
  effort_not_offered:
    "the profile's thinking_effort is not one of its effort levels",
  budget_out_of_range:
    "the profile's thinking_budget_tokens is outside its budget range",
  max_output_too_large:
    "the profile's max_output_tokens is above its maximum output",
};

function reasonText(
  reason: IneligibleReason,
  spec: ModelCapabilities | undefined,
  req: TurnRequirements,
): string {
  const g = req.generation ?? {};
  switch (reason) {
    case "effort_not_offered": {
      const levels = spec?.thinking?.effort?.levels ?? [];
      return `${REASON_TEXT[reason]} (${JSON.stringify(g.thinkingEffort)}; ${
        levels.length
          ? `it offers ${levels.map((l) => JSON.stringify(l)).join(", ")}`
          : "it takes no effort level"
      })`;
    }
    case "budget_out_of_range": {
      const r = spec?.thinking?.budget?.range;
      return `${REASON_TEXT[reason]} (${g.thinkingBudgetTokens}; ${
        r ? `it accepts ${r.min}..${r.max}` : "it takes no token budget"
      })`;
    }
    case "max_output_too_large":
      return `${
        REASON_TEXT[reason]
      } (${g.maxOutputTokens} > ${spec?.maxOutputTokens})`;
    default:
      return REASON_TEXT[reason];
  }
}

/**
 * Walks a routing chain (primary, then fallbacks in order) and returns the
 * first eligible candidate (config.md §7.2). A candidate is skipped, not an
 * error, when its provider is not loaded or does not offer the model, or
 * when the turn needs tool use, vision or thinking it lacks, or a larger
 * context window. Only an exhausted chain fails, with `E_NO_ELIGIBLE_MODEL`
 * (a per-turn outcome, not a config error).
 *
 * @example Usage
 * ```ts
 * import { chooseModel } from "./model_routing.ts";
 * import assert from "node:assert/strict";
 *
 * const models = new Map([["local", [
 *   { id: "tiny", contextWindow: 8_192, supportsToolUse: false, supportsVision: false },
 * ]]]);
 * const chain = { primary: { provider: "local", id: "tiny" }, fallbacks: [] };
 * const choice = chooseModel(chain, models, { toolUse: true });
 * assert.ok(!choice.ok);
 * assert.equal(choice.diagnostic.code, "E_NO_ELIGIBLE_MODEL");
 * assert.deepEqual(choice.skipped[0]?.reasons, ["no_tool_use"]);
 * ```
 *
 * @param chain The profile's `model {}` block, or the candidates in order.
 * @param available Each loaded model provider's models.
 * @param requirements What the turn needs.
 * @param options The profile's name and the block's range, for the error.
 * @returns The first eligible candidate, or an error explaining each skip.
 */
export function chooseModel<T extends ModelCapabilities>(
  chain: ModelRouting | readonly ModelRef[],
  available: ReadonlyMap<string, readonly T[]>,
  requirements: TurnRequirements = {},
  options: ChooseModelOptions = {},
): ModelChoice<T> {
  const candidates: readonly ModelRef[] = isRefList(chain)
    ? chain
    : [chain.primary, ...chain.fallbacks];
  const skipped: SkippedModel[] = [];
  for (const [index, model] of candidates.entries()) {
    const models = available.get(model.provider);
    const spec = models?.find((m) => m.id === model.id);
    const reasons: IneligibleReason[] = [];
    if (models === undefined) reasons.push("provider_not_loaded");
    else if (spec === undefined) reasons.push("model_not_offered");
    else {for (const each of capabilityGaps(spec, requirements)) {
        reasons.push(each);
      }}
    if (spec !== undefined && reasons.length === 0) {
      return { ok: true, model, spec, index, skipped };
    }
    skipped.push({ model, reasons });
  }
  const who = options.profile === undefined
    ? "the profile"
    : `profile "${options.profile}"`;
  const lines = skipped.map(({ model, reasons }) =>
    `- "${model.provider}" / "${model.id}": ${
      reasons.map((r) =>
        reasonText(
          r,
          available.get(model.provider)?.find((m) => m.id === model.id),
          requirements,
        )
      ).join("; ")
    }`
  );
  return {
    ok: false,
    skipped,
    diagnostic: diag(
      "error",
      "E_NO_ELIGIBLE_MODEL",
      "No eligible model for this turn",
      candidates.length === 0
        ? `The model chain of ${who} is empty.`
        : `Every model in the chain of ${who} was skipped:\n${
          lines.join("\n")
        }`,
      options.range,
    ),
  };
}

function isRefList(
  chain: ModelRouting | readonly ModelRef[],
): chain is readonly ModelRef[] {
  return Array.isArray(chain);
}

function capabilityGaps(
  spec: ModelCapabilities,
  req: TurnRequirements,
): IneligibleReason[] {
  const gaps: IneligibleReason[] = [];
  if (req.toolUse && !spec.supportsToolUse) gaps.push("no_tool_use");
  if (req.vision && !spec.supportsVision) gaps.push("no_vision");
  if (req.thinking && spec.thinking?.supported !== true) {
    gaps.push("no_thinking");
  }
  const min = req.minContextWindow ?? 0;
  if (min > 0 && Number(spec.contextWindow) < min) {
    gaps.push("context_window_too_small");
  }
  const g = req.generation;
  if (g?.thinkingEffort !== undefined) {
    const levels = spec.thinking?.supported
      ? spec.thinking.effort?.levels ?? []
      : [];
    if (!levels.includes(g.thinkingEffort)) gaps.push("effort_not_offered");
  }
  if (g?.thinkingBudgetTokens !== undefined) {
    const r = spec.thinking?.supported
      ? spec.thinking.budget?.range
      : undefined;
    if (
      !r || g.thinkingBudgetTokens < Number(r.min) ||
      g.thinkingBudgetTokens > Number(r.max)
    ) gaps.push("budget_out_of_range");
  }
  if (
    g?.maxOutputTokens !== undefined && spec.maxOutputTokens !== undefined &&
    Number(spec.maxOutputTokens) > 0 &&
    g.maxOutputTokens > Number(spec.maxOutputTokens)
  ) gaps.push("max_output_too_large");
  return gaps;
}
