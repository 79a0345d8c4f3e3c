/**
 * The model roster of the `anthropic` provider: `models.json` read,
 * validated and turned into `model.v1.ModelSpec`s.
 *
 * The roster is data, not code: one entry per served model with its
 * context window, output cap, capabilities, thinking controls and prices
 * (USD per million tokens, prompt-cache writes and reads included). The
 * README says how to update it; `tests/anthropic_roster_test.ts` checks it
 * against the vendor SDK's list of deprecated models.
 *
 * @module
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  type ModelSpecSchema,
  ThinkingDisableSupport,
  ToolChoiceMode,
} from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";

/** How a model reasons, as the Messages API exposes it. */
export type ThinkingMode =
  /** Adaptive thinking that cannot be turned off; `effort` sets its depth. */
  | "adaptive_always"
  /** Adaptive thinking, off unless an effort level is asked for. */
  | "adaptive"
  /** Extended thinking with a token budget, off unless a budget is asked for. */
  | "budget"
  /** No reasoning. */
  | "none";

/** A tool-choice mode as written in `models.json`. */
export type ToolChoiceName = "auto" | "any" | "none" | "specific";

/** A model's thinking controls. */
export interface RosterThinking {
  /** The mode. */
  readonly mode: ThinkingMode;
  /** Effort levels (adaptive modes). */
  readonly effort: readonly string[];
  /** The vendor's default level (adaptive modes). */
  readonly effortDefault?: string;
  /** Smallest budget (budget mode). */
  readonly budgetMin?: number;
  /** Largest budget, inclusive (budget mode). */
  readonly budgetMax?: number;
}

/** One price tier, USD per million tokens. */
export interface RosterPrice {
  /** Uncached input. */
  readonly input: number;
  /** Output (thinking included). */
  readonly output: number;
  /** Prompt-cache write (5-minute TTL). */
  readonly cacheWrite: number;
  /** Prompt-cache read. */
  readonly cacheRead: number;
  /** Lowest input size the tier covers (inclusive). */
  readonly inputTokensFrom?: number;
  /** Input size the tier stops at (exclusive). */
  readonly inputTokensUntil?: number;
}

/** One served model. */
export interface RosterModel {
  /** Vendor model id. */
  readonly id: string;
  /** Display name. */
  readonly displayName: string;
  /** Model family (`fable`, `opus`, `sonnet`, `haiku`). */
  readonly family: string;
  /** Other ids the vendor accepts for it (dated snapshots). */
  readonly aliases: readonly string[];
  /** Input token budget. */
  readonly contextWindow: number;
  /** Output tokens per response. */
  readonly maxOutputTokens: number;
  /** Accepts images. */
  readonly vision: boolean;
  /** Accepts documents (PDF, plain text). */
  readonly documents: boolean;
  /** Accepts tools. */
  readonly toolUse: boolean;
  /** May emit several tool calls in one response. */
  readonly parallelToolCalls: boolean;
  /** Accepted tool-choice modes. */
  readonly toolChoice: readonly ToolChoiceName[];
  /** Accepts a sampling temperature. */
  readonly temperature: boolean;
  /** Reasoning controls. */
  readonly thinking: RosterThinking;
  /** Price tiers. */
  readonly pricing: readonly RosterPrice[];
}

/** The whole roster. */
export interface Roster {
  /** When the data was last checked (YYYY-MM-DD). */
  readonly updated: string;
  /** The models, in catalog order. */
  readonly models: readonly RosterModel[];
}

/** A problem in `models.json`, naming the field. */
export class RosterError extends Error {
  /**
   * Creates the error.
   *
   * @param message What is wrong, and where.
   */
  constructor(message: string) {
    super(message);
    this.name = "RosterError";
  }
}

const MODES: readonly ThinkingMode[] = [
  "adaptive_always",
  "adaptive",
  "budget",
  "none",
];
const CHOICES: readonly ToolChoiceName[] = ["auto", "any", "none", "specific"];
const MODEL_KEYS = new Set([
  "id",
  "display_name",
  "family",
  "aliases",
  "context_window",
  "max_output_tokens",
  "vision",
  "documents",
  "tool_use",
  "parallel_tool_calls",
  "tool_choice",
  "temperature",
  "thinking",
  "pricing",
]);
const PRICE_KEYS = new Set([
  "input",
  "output",
  "cache_write",
  "cache_read",
  "input_tokens_from",
  "input_tokens_until",
]);
const THINKING_KEYS = new Set([
  "mode",
  "effort",
  "effort_default",
  "budget_min",
  "budget_max",
]);

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function closed(o: Obj, keys: Set<string>, where: string): void {
  for (const k of Object.keys(o)) {
    if (!keys.has(k)) throw new RosterError(`${where}.${k}: unknown field`);
  }
}

function str(o: Obj, k: string, where: string): string {
  const v = o[k];
  if (typeof v !== "string" || v === "") {
    throw new RosterError(`${where}.${k}: must be a non-empty string`);
  }
  return v;
}

function bool(o: Obj, k: string, where: string): boolean {
  const v = o[k];
  if (typeof v !== "boolean") {
    throw new RosterError(`${where}.${k}: must be true or false`);
  }
  return v;
}

function int(o: Obj, k: string, where: string): number {
  const v = o[k];
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v <= 0) {
    throw new RosterError(`${where}.${k}: must be a positive integer`);
  }
  return v;
}

function optInt(o: Obj, k: string, where: string): number | undefined {
  return o[k] === undefined ? undefined : int(o, k, where);
}

function rate(o: Obj, k: string, where: string): number {
  const v = o[k];
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0) {
    throw new RosterError(
      `${where}.${k}: must be a price in USD per million tokens (a number ≥ 0)`,
    );
  }
  return v;
}

function strings(o: Obj, k: string, where: string): string[] {
  const v = o[k] ?? [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== "string" || s === "")) {
    throw new RosterError(`${where}.${k}: must be a list of non-empty strings`);
  }
  return v as string[];
}

function parseThinking(v: unknown, where: string): RosterThinking {
  if (!isObj(v)) throw new RosterError(`${where}: must be an object`);
  closed(v, THINKING_KEYS, where);
  const mode = v.mode as ThinkingMode;
  if (!MODES.includes(mode)) {
    throw new RosterError(
      `${where}.mode: must be one of ${MODES.join(", ")} (got ${
        JSON.stringify(v.mode)
      })`,
    );
  }
  const effort = strings(v, "effort", where);
  if (mode === "adaptive" || mode === "adaptive_always") {
    if (effort.length === 0) {
      throw new RosterError(
        `${where}.effort: an adaptive model lists its levels`,
      );
    }
    const def = str(v, "effort_default", where);
    if (!effort.includes(def)) {
      throw new RosterError(
        `${where}.effort_default: "${def}" is not one of the effort levels`,
      );
    }
    if (v.budget_min !== undefined || v.budget_max !== undefined) {
      throw new RosterError(`${where}: an adaptive model has no budget range`);
    }
    return { mode, effort, effortDefault: def };
  }
  if (effort.length > 0 || v.effort_default !== undefined) {
    throw new RosterError(`${where}.effort: only adaptive models have effort`);
  }
  if (mode === "budget") {
    const min = int(v, "budget_min", where);
    const max = int(v, "budget_max", where);
    if (min > max) {
      throw new RosterError(`${where}: budget_min is above budget_max`);
    }
    return { mode, effort, budgetMin: min, budgetMax: max };
  }
  return { mode, effort };
}

function parsePricing(v: unknown, where: string): RosterPrice[] {
  if (!Array.isArray(v) || v.length === 0) {
    throw new RosterError(`${where}: must list at least one price tier`);
  }
  const tiers = v.map((t, i) => {
    const w = `${where}[${i}]`;
    if (!isObj(t)) throw new RosterError(`${w}: must be an object`);
    closed(t, PRICE_KEYS, w);
    const from = optInt(t, "input_tokens_from", w);
    const until = optInt(t, "input_tokens_until", w);
    if (from !== undefined && until !== undefined && from >= until) {
      throw new RosterError(
        `${w}: input_tokens_from must be below input_tokens_until`,
      );
    }
    return {
      input: rate(t, "input", w),
      output: rate(t, "output", w),
      cacheWrite: rate(t, "cache_write", w),
      cacheRead: rate(t, "cache_read", w),
      ...(from !== undefined ? { inputTokensFrom: from } : {}),
      ...(until !== undefined ? { inputTokensUntil: until } : {}),
    };
  });
  // Exactly one tier matches any input size: sorted, contiguous, open ends.
  const sorted = [...tiers].sort((a, b) =>
    (a.inputTokensFrom ?? 0) - (b.inputTokensFrom ?? 0)
  );
  let edge: number | undefined = 0;
  for (const [i, t] of sorted.entries()) {
    const from = t.inputTokensFrom ?? 0;
    if (edge === undefined || from !== edge) {
      throw new RosterError(
        `${where}: the tiers must cover every input size exactly once (a gap or overlap at ${
          edge ?? "the open end"
        } tokens)`,
      );
    }
    edge = t.inputTokensUntil;
    if (edge === undefined && i !== sorted.length - 1) {
      throw new RosterError(`${where}: only the last tier may be open-ended`);
    }
  }
  if (edge !== undefined) {
    throw new RosterError(
      `${where}: the last tier must be open-ended (no input_tokens_until)`,
    );
  }
  return tiers;
}

function parseModel(v: unknown, where: string): RosterModel {
  if (!isObj(v)) throw new RosterError(`${where}: must be an object`);
  closed(v, MODEL_KEYS, where);
  const toolChoice = strings(v, "tool_choice", where) as ToolChoiceName[];
  for (const c of toolChoice) {
    if (!CHOICES.includes(c)) {
      throw new RosterError(
        `${where}.tool_choice: "${c}" is not one of ${CHOICES.join(", ")}`,
      );
    }
  }
  const model: RosterModel = {
    id: str(v, "id", where),
    displayName: str(v, "display_name", where),
    family: str(v, "family", where),
    aliases: strings(v, "aliases", where),
    contextWindow: int(v, "context_window", where),
    maxOutputTokens: int(v, "max_output_tokens", where),
    vision: bool(v, "vision", where),
    documents: bool(v, "documents", where),
    toolUse: bool(v, "tool_use", where),
    parallelToolCalls: bool(v, "parallel_tool_calls", where),
    toolChoice,
    temperature: bool(v, "temperature", where),
    thinking: parseThinking(v.thinking, `${where}.thinking`),
    pricing: parsePricing(v.pricing, `${where}.pricing`),
  };
  if (
    model.thinking.budgetMax !== undefined &&
    model.thinking.budgetMax >= model.maxOutputTokens
  ) {
    throw new RosterError(
      `${where}.thinking.budget_max: must be below max_output_tokens (the budget is part of max_tokens)`,
    );
  }
  return model;
}

/**
 * Validates the parsed `models.json`.
 *
 * @param raw The parsed JSON.
 * @param where How to name the file in errors.
 * @returns The roster.
 * @throws {RosterError} Naming the first bad field.
 */
export function parseRoster(raw: unknown, where = "models.json"): Roster {
  if (!isObj(raw)) throw new RosterError(`${where}: must be an object`);
  closed(raw, new Set(["updated", "sources", "models"]), where);
  const updated = str(raw, "updated", where);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(updated)) {
    throw new RosterError(`${where}.updated: must be a date, YYYY-MM-DD`);
  }
  strings(raw, "sources", where);
  if (!Array.isArray(raw.models) || raw.models.length === 0) {
    throw new RosterError(`${where}.models: must list at least one model`);
  }
  const models = raw.models.map((m, i) =>
    parseModel(m, `${where}.models[${i}]`)
  );
  const ids = new Set<string>();
  for (const [i, m] of models.entries()) {
    for (const id of [m.id, ...m.aliases]) {
      if (ids.has(id)) {
        throw new RosterError(
          `${where}.models[${i}]: the id "${id}" is listed twice`,
        );
      }
      ids.add(id);
    }
  }
  return { updated, models };
}

/**
 * Finds a model by id or alias.
 *
 * @param roster The roster.
 * @param id A model id or alias.
 * @returns The model, or `undefined`.
 */
export function findModel(
  roster: Roster,
  id: string,
): RosterModel | undefined {
  return roster.models.find((m) => m.id === id || m.aliases.includes(id));
}

const TOOL_CHOICE: Readonly<Record<ToolChoiceName, ToolChoiceMode>> = {
  auto: ToolChoiceMode.AUTO,
  any: ToolChoiceMode.ANY,
  none: ToolChoiceMode.NONE,
  specific: ToolChoiceMode.SPECIFIC,
};

/**
 * A roster entry as a `model.v1.ModelSpec`.
 *
 * @param m The model.
 * @returns The spec (init shape).
 */
export function modelSpec(
  m: RosterModel,
): MessageInitShape<typeof ModelSpecSchema> {
  const th = m.thinking;
  return {
    id: m.id,
    contextWindow: BigInt(m.contextWindow),
    maxOutputTokens: BigInt(m.maxOutputTokens),
    supportsToolUse: m.toolUse,
    supportsVision: m.vision,
    supportsStreaming: true,
    supportsParallelToolCalls: m.parallelToolCalls,
    supportsDocuments: m.documents,
    supportedToolChoiceModes: m.toolChoice.map((c) => TOOL_CHOICE[c]),
    thinking: th.mode === "none"
      ? { supported: false, adaptiveByDefault: false }
      : {
        supported: true,
        adaptiveByDefault: th.mode === "adaptive_always",
        disable: th.mode === "adaptive_always"
          ? ThinkingDisableSupport.NEVER
          : ThinkingDisableSupport.ALWAYS,
        ...(th.effortDefault !== undefined
          ? { effort: { levels: [...th.effort], default: th.effortDefault } }
          : {}),
        ...(th.mode === "budget"
          ? {
            budget: {
              range: {
                min: BigInt(th.budgetMin!),
                max: BigInt(th.budgetMax!),
              },
              deprecated: false,
            },
          }
          : {}),
      },
    // Every current model takes cache_control markers; the vendor caches
    // nothing by itself, and a 1-hour TTL is the only keep-alive.
    caching: {
      supported: true,
      keepaliveSupported: false,
      explicitMarkers: true,
      implicitAutomatic: false,
    },
    pricing: {
      currency: "USD",
      free: false,
      sourceUnit: "USD per million tokens",
      tiers: m.pricing.map((t) => ({
        inputPerMtok: t.input,
        outputPerMtok: t.output,
        cacheWritePerMtok: t.cacheWrite,
        cacheReadPerMtok: t.cacheRead,
        ...(t.inputTokensFrom !== undefined
          ? { inputTokensFrom: BigInt(t.inputTokensFrom) }
          : {}),
        ...(t.inputTokensUntil !== undefined
          ? { inputTokensUntil: BigInt(t.inputTokensUntil) }
          : {}),
      })),
    },
    catalog: {
      displayName: m.displayName,
      family: m.family,
      visible: true,
      supportedInApi: true,
      aliases: [...m.aliases],
    },
  };
}
