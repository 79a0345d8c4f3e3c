/**
 * Reading and validating a script's `model` object: capabilities, tool
 * choice, caching, thinking and pricing tiers.
 *
 * @module
 */

import {
  DEFAULT_MODEL,
  type PricingTierSpec,
  type ScriptModel,
  TOOL_CHOICES,
  type ToolChoiceName,
} from "./_format.ts";
import type { Raw, Reader } from "./_reader.ts";

const MODEL_KEYS = [
  "id",
  "context_window",
  "max_output_tokens",
  "supports_tool_use",
  "supports_vision",
  "supports_documents",
  "supports_parallel_tool_calls",
  "tool_choice_modes",
  "pricing",
  "thinking",
  "caching",
];

/** Reads `model`, filling in defaults; problems go to `r`. */
export function readModel(r: Reader, raw: unknown): ScriptModel {
  const m = r.object(raw, "model") ?? {};
  r.keys(m, "model", MODEL_KEYS);
  const d = DEFAULT_MODEL;
  const id = r.string(m.id, "model.id") ?? d.id;
  if (/\s/.test(id)) r.add("model.id", "must not contain whitespace");
  const model: ScriptModel = {
    id,
    contextWindow: r.integer(m.context_window, "model.context_window", 1) ??
      d.contextWindow,
    maxOutputTokens:
      r.integer(m.max_output_tokens, "model.max_output_tokens", 1) ??
        d.maxOutputTokens,
    supportsToolUse: r.bool(m.supports_tool_use, "model.supports_tool_use") ??
      d.supportsToolUse,
    supportsVision: r.bool(m.supports_vision, "model.supports_vision") ??
      d.supportsVision,
    supportsDocuments:
      r.bool(m.supports_documents, "model.supports_documents") ??
        d.supportsDocuments,
    supportsParallelToolCalls: r.bool(
      m.supports_parallel_tool_calls,
      "model.supports_parallel_tool_calls",
    ) ?? d.supportsParallelToolCalls,
    toolChoiceModes: [],
    pricing: d.pricing,
    thinking: d.thinking,
    caching: d.caching,
  };
  readToolChoice(r, m, model);
  // Caching is read before pricing: cache rates depend on it.
  readCaching(r, m, model);
  readThinking(r, m, model);
  readPricing(r, m, model);
  return model;
}

/** `model.tool_choice_modes`: allowed only with tool use. */
function readToolChoice(r: Reader, m: Raw, model: ScriptModel): void {
  if (m.tool_choice_modes === undefined) {
    model.toolChoiceModes = model.supportsToolUse
      ? [...DEFAULT_MODEL.toolChoiceModes]
      : [];
  } else if (!Array.isArray(m.tool_choice_modes)) {
    r.add("model.tool_choice_modes", "must be a list");
  } else {
    m.tool_choice_modes.forEach((v, i) => {
      const mode = r.oneOf(
        v,
        `model.tool_choice_modes[${i}]`,
        Object.keys(TOOL_CHOICES) as ToolChoiceName[],
      );
      if (mode) model.toolChoiceModes.push(mode);
    });
    if (!model.supportsToolUse && model.toolChoiceModes.length > 0) {
      r.add(
        "model.tool_choice_modes",
        "must be empty when supports_tool_use is false",
      );
    }
  }
}

/** `model.caching`: what caching the model supports. */
function readCaching(r: Reader, m: Raw, model: ScriptModel): void {
  const c = r.object(m.caching, "model.caching");
  if (c) {
    r.keys(c, "model.caching", [
      "supported",
      "explicit_markers",
      "implicit_automatic",
      "keepalive_supported",
    ]);
    model.caching = {
      supported: r.bool(c.supported, "model.caching.supported") ?? false,
      explicitMarkers:
        r.bool(c.explicit_markers, "model.caching.explicit_markers") ?? false,
      implicitAutomatic:
        r.bool(c.implicit_automatic, "model.caching.implicit_automatic") ??
          false,
      keepaliveSupported:
        r.bool(c.keepalive_supported, "model.caching.keepalive_supported") ??
          false,
    };
    const cs = model.caching;
    if (cs.supported && !cs.explicitMarkers && !cs.implicitAutomatic) {
      r.add(
        "model.caching",
        "a model that supports caching needs explicit_markers or implicit_automatic (or both)",
      );
    }
    if (!cs.supported && (cs.explicitMarkers || cs.implicitAutomatic)) {
      r.add(
        "model.caching",
        "explicit_markers and implicit_automatic must be false when caching is not supported",
      );
    }
  }
}

/** `model.thinking`: effort levels, budget and how thinking is disabled. */
function readThinking(r: Reader, m: Raw, model: ScriptModel): void {
  const t = r.object(m.thinking, "model.thinking");
  if (t) {
    r.keys(t, "model.thinking", [
      "supported",
      "effort",
      "budget",
      "adaptive_by_default",
      "disable",
    ]);
    const supported = r.bool(t.supported, "model.thinking.supported") ?? false;
    const thinking: ScriptModel["thinking"] = {
      supported,
      adaptiveByDefault: r.bool(
        t.adaptive_by_default,
        "model.thinking.adaptive_by_default",
      ) ?? false,
    };
    const disable = r.oneOf(
      t.disable,
      "model.thinking.disable",
      [
        "never",
        "always",
        "conditional",
      ] as const,
    );
    if (disable) thinking.disable = disable;
    const e = r.object(t.effort, "model.thinking.effort");
    if (e) readEffort(r, e, thinking);
    const b = r.object(t.budget, "model.thinking.budget");
    if (b) readBudget(r, b, thinking);
    if (supported && !thinking.disable) {
      r.add(
        "model.thinking.disable",
        `is required when thinking is supported ("never", "always" or "conditional")`,
      );
    }
    if (
      !supported && (e || b || thinking.adaptiveByDefault || thinking.disable)
    ) {
      r.add(
        "model.thinking",
        "effort, budget, adaptive_by_default and disable are only allowed when thinking is supported",
      );
    }
    model.thinking = thinking;
  }
}

/** `model.pricing`: free, or tiers covering every input size. */
function readPricing(r: Reader, m: Raw, model: ScriptModel): void {
  const p = r.object(m.pricing, "model.pricing");
  if (!p) {
    model.pricing = {
      free: false,
      tiers: [
        model.caching.supported
          ? {
            inputPerMtok: 3,
            outputPerMtok: 15,
            cacheReadPerMtok: 0.3,
            cacheWritePerMtok: 3.75,
          }
          : { inputPerMtok: 3, outputPerMtok: 15 },
      ],
    };
  } else {
    r.keys(p, "model.pricing", ["free", "tiers"]);
    const free = r.bool(p.free, "model.pricing.free") ?? false;
    const tiers: PricingTierSpec[] = [];
    if (p.tiers !== undefined && !Array.isArray(p.tiers)) {
      r.add("model.pricing.tiers", "must be a list");
    } else if (Array.isArray(p.tiers)) {
      p.tiers.forEach((raw, i) => {
        const spec = readTier(r, raw, i, model.caching.supported);
        if (spec) tiers.push(spec);
      });
    }
    if (!free && tiers.length === 0) {
      r.add(
        "model.pricing.tiers",
        "needs at least one tier unless free is true",
      );
    }
    checkCoverage(r, tiers);
    model.pricing = { free, tiers };
  }
}

/** Tiers must cover input sizes [0, ∞) exactly once (no gap, no overlap). */
function checkCoverage(r: Reader, tiers: PricingTierSpec[]): void {
  if (tiers.length === 0) return;
  const sorted = tiers
    .map((t, i) => ({
      i,
      from: t.inputTokensFrom ?? 0,
      until: t.inputTokensUntil ?? Infinity,
    }))
    .sort((a, b) => a.from - b.from);
  let next = 0;
  for (const t of sorted) {
    const at = `model.pricing.tiers[${t.i}]`;
    if (t.from >= t.until) {
      r.add(at, "input_tokens_from must be below input_tokens_until");
      return;
    }
    if (t.from > next) {
      r.add(at, `leaves input sizes ${next}..${t.from - 1} without a tier`);
      return;
    }
    if (t.from < next) {
      r.add(at, `overlaps another tier from ${t.from} input tokens`);
      return;
    }
    next = t.until;
  }
  if (next !== Infinity) {
    r.add(
      "model.pricing.tiers",
      `leave input sizes from ${next} without a tier (the last tier needs no input_tokens_until)`,
    );
  }
}

/** `model.thinking.effort`: the levels and the default level. */
function readEffort(
  r: Reader,
  e: Raw,
  thinking: ScriptModel["thinking"],
): void {
  r.keys(e, "model.thinking.effort", ["levels", "default"]);
  const levels = Array.isArray(e.levels) &&
      e.levels.length > 0 &&
      e.levels.every((l) => typeof l === "string" && l !== "")
    ? e.levels as string[]
    : undefined;
  if (!levels) {
    r.add(
      "model.thinking.effort.levels",
      "must be a non-empty list of non-empty strings",
    );
  }
  const def = r.string(e.default, "model.thinking.effort.default");
  if (def === undefined && e.default === undefined) {
    r.add("model.thinking.effort.default", "is required (one of levels)");
  } else if (def !== undefined && levels && !levels.includes(def)) {
    r.add(
      "model.thinking.effort.default",
      `must be one of levels, got "${def}"`,
    );
  }
  if (levels && def) thinking.effort = { levels, default: def };
}

/** `model.thinking.budget`: min, max and an optional default. */
function readBudget(
  r: Reader,
  b: Raw,
  thinking: ScriptModel["thinking"],
): void {
  r.keys(b, "model.thinking.budget", ["min", "max", "default"]);
  const min = r.integer(b.min, "model.thinking.budget.min");
  const max = r.integer(b.max, "model.thinking.budget.max");
  const def = r.integer(b.default, "model.thinking.budget.default");
  if (min === undefined && b.min === undefined) {
    r.add("model.thinking.budget.min", "is required");
  }
  if (max === undefined && b.max === undefined) {
    r.add("model.thinking.budget.max", "is required");
  }
  if (min !== undefined && max !== undefined) {
    if (min > max) r.add("model.thinking.budget", "min must be ≤ max");
    if (def !== undefined && (def < min || def > max)) {
      r.add("model.thinking.budget.default", "must lie in [min, max]");
    }
    thinking.budget = {
      min,
      max,
      ...(def !== undefined ? { default: def } : {}),
    };
  }
}

/** `model.pricing.tiers[i]`: the rates and the input sizes a tier covers. */
function readTier(
  r: Reader,
  raw: unknown,
  i: number,
  cachingSupported: boolean,
): PricingTierSpec | undefined {
  const at = `model.pricing.tiers[${i}]`;
  const tier = r.object(raw, at);
  if (!tier) return undefined;
  r.keys(tier, at, [
    "input_per_mtok",
    "output_per_mtok",
    "cache_read_per_mtok",
    "cache_write_per_mtok",
    "input_tokens_from",
    "input_tokens_until",
  ]);
  const input = r.rate(tier.input_per_mtok, `${at}.input_per_mtok`);
  const output = r.rate(tier.output_per_mtok, `${at}.output_per_mtok`);
  if (tier.input_per_mtok === undefined) {
    r.add(`${at}.input_per_mtok`, "is required");
  }
  if (tier.output_per_mtok === undefined) {
    r.add(`${at}.output_per_mtok`, "is required");
  }
  const spec: PricingTierSpec = {
    inputPerMtok: input ?? 0,
    outputPerMtok: output ?? 0,
  };
  for (
    const [key, field] of [
      ["cache_read_per_mtok", "cacheReadPerMtok"],
      ["cache_write_per_mtok", "cacheWritePerMtok"],
    ] as const
  ) {
    const v = r.rate(tier[key], `${at}.${key}`);
    if (v !== undefined) spec[field] = v;
    if (cachingSupported && tier[key] === undefined) {
      r.add(`${at}.${key}`, "is required when caching is supported");
    }
    if (!cachingSupported && tier[key] !== undefined) {
      r.add(`${at}.${key}`, "is only allowed when caching is supported");
    }
  }
  const from = r.integer(
    tier.input_tokens_from,
    `${at}.input_tokens_from`,
  );
  const until = r.integer(
    tier.input_tokens_until,
    `${at}.input_tokens_until`,
    1,
  );
  if (from !== undefined) spec.inputTokensFrom = from;
  if (until !== undefined) spec.inputTokensUntil = until;
  return spec;
}
