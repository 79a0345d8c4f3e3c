/**
 * The script format of the `scripted` model provider: parsing and full
 * validation, the scripted model's tokenizer, and the choice and playing
 * of a turn. Pure functions, no I/O, so that tests (and other tools, e.g.
 * a script linter) can use them in-process.
 *
 * A script is JSON:
 *
 * ```json
 * {
 *   "model": { "id": "scripted", "pricing": { "tiers": [{ "input_per_mtok": 3, "output_per_mtok": 15 }] } },
 *   "turns": [
 *     { "text": "Let me look.", "tool_calls": [{ "name": "read_file", "arguments": { "path": "README.md" } }] },
 *     { "expect": "README", "text": "Done.", "usage": { "input_tokens": 120, "output_tokens": 3 } }
 *   ]
 * }
 * ```
 *
 * The turn played for a request is the number of assistant messages in its
 * history, so a resumed session continues where it left off and nothing
 * depends on the plugin's state. README.md documents every field.
 *
 * @example Parse a script and play its first turn
 * ```ts
 * import { parseScript, planTurn } from "./script.ts";
 * import assert from "node:assert/strict";
 *
 * const script = parseScript({ turns: [{ text: "Hello there" }] });
 * const plan = planTurn(script, { modelId: "scripted", messages: [] });
 * assert.deepEqual(plan.events.map((e) => e.event?.case), [
 *   "textDelta", "textDelta", "usage", "stop",
 * ]);
 * ```
 *
 * @module
 */
import type {
  JsonObject,
  JsonValue,
  MessageInitShape,
} from "@bufbuild/protobuf";
import type {
  ContentBlock,
  ContextSection,
  Message,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { Role } from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { ModelErrorCategory } from "../../proto/gen/pluggableharness/model/v1/errors_pb.ts";
import type { StreamEventSchema } from "../../proto/gen/pluggableharness/model/v1/events_pb.ts";
import type {
  GenerationParams,
  ToolDeclaration,
} from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import {
  type ModelSpecSchema,
  StopReason,
  ThinkingDisableSupport,
  ToolChoiceMode,
} from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import type { Schema } from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";

/** A stop reason a script may name (`cancelled` is reserved for real cancellation). */
export type StopName =
  | "end_turn"
  | "tool_use"
  | "max_tokens"
  | "content_filtered"
  | "refusal"
  | "stop_sequence";

/** A ModelErrorCategory, in lower snake case. */
export type ErrorCategoryName =
  | "context_length_exceeded"
  | "rate_limited"
  | "overloaded"
  | "auth_error"
  | "invalid_request"
  | "content_filtered"
  | "unknown";

/** A tool_choice mode, in lower case. */
export type ToolChoiceName = "auto" | "any" | "none" | "specific";

/** One pricing tier, USD per million tokens. */
export interface PricingTierSpec {
  /** Input rate. */
  inputPerMtok: number;
  /** Output rate (reasoning is billed at it too). */
  outputPerMtok: number;
  /** Cache-read rate; present iff caching is supported. */
  cacheReadPerMtok?: number;
  /** Cache-write rate; present iff caching is supported. */
  cacheWritePerMtok?: number;
  /** First input-token count the tier covers (inclusive). */
  inputTokensFrom?: number;
  /** First input-token count past the tier (exclusive); absent = no bound. */
  inputTokensUntil?: number;
}

/** The model a script declares (the plugin's single ModelSpec). */
export interface ScriptModel {
  /** The model id requests must name. */
  id: string;
  /** Input token budget. */
  contextWindow: number;
  /** Output tokens per response. */
  maxOutputTokens: number;
  /** May receive tools and emit tool calls. */
  supportsToolUse: boolean;
  /** Accepts image blocks. */
  supportsVision: boolean;
  /** Accepts document blocks. */
  supportsDocuments: boolean;
  /** May emit several tool calls in one turn. */
  supportsParallelToolCalls: boolean;
  /** tool_choice modes the kernel may send. */
  toolChoiceModes: ToolChoiceName[];
  /** Pricing: free, or tiers covering every input size exactly once. */
  pricing: { free: boolean; tiers: PricingTierSpec[] };
  /** The thinking axes. */
  thinking: {
    supported: boolean;
    effort?: { levels: string[]; default: string };
    budget?: { min: number; max: number; default?: number };
    adaptiveByDefault: boolean;
    disable?: "never" | "always" | "conditional";
  };
  /** The caching axes. */
  caching: {
    supported: boolean;
    explicitMarkers: boolean;
    implicitAutomatic: boolean;
    keepaliveSupported: boolean;
  };
}

/** A scripted tool call. */
export interface ScriptToolCall {
  /** The tool-use id (default `call_<turn>_<index>`). */
  id: string;
  /** The tool name. */
  name: string;
  /** The arguments, streamed as JSON fragments. */
  arguments: JsonObject;
}

/** Scripted token usage. */
export interface ScriptUsage {
  /** Input tokens (cache counts are not also here). */
  inputTokens: number;
  /** Output tokens (reasoning is not also here). */
  outputTokens: number;
  /** Tokens read from the cache. */
  cacheReadTokens?: number;
  /** Tokens written to the cache. */
  cacheWriteTokens?: number;
  /** Reasoning tokens, billed at the output rate. */
  reasoningTokens?: number;
}

/** A scripted failure (the turn's terminal event). */
export interface ScriptFailure {
  /** The ModelErrorCategory. */
  category: ErrorCategoryName;
  /** The message. */
  message: string;
  /** Whether a retry may succeed. */
  retryable: boolean;
  /** Suggested wait before a retry. */
  retryAfterMs?: number;
  /** Raw vendor detail. */
  rawDetail?: string;
}

/** One assistant turn of a script. */
export interface ScriptTurn {
  /** Substrings the request's last user message must contain. */
  expect: string[];
  /** Reasoning text, streamed first. */
  thinking?: string;
  /** Reply text. */
  text?: string;
  /** Tool calls, streamed after the text. */
  toolCalls: ScriptToolCall[];
  /** Usage; absent = counted with the scripted tokenizer. */
  usage?: ScriptUsage;
  /** Why the turn stops (absent when it ends with an error). */
  stop?: StopName;
  /** The matched stop sequence (iff `stop` is `stop_sequence`). */
  matchedStopSequence?: string;
  /** A scripted failure instead of a stop. */
  error?: ScriptFailure;
  /** Milliseconds between events. */
  delayMs: number;
}

/** A validated script. */
export interface Script {
  /** The model it serves. */
  model: ScriptModel;
  /** Its turns, played in order. */
  turns: ScriptTurn[];
}

/** A script that does not validate; lists every problem, each naming its field. */
export class ScriptError extends SyntaxError {
  /** One line per problem, e.g. `turns[2].tool_calls[0].name: must be a non-empty string`. */
  readonly problems: readonly string[];
  /**
   * Creates the error.
   *
   * @param source Where the script came from, e.g. its path.
   * @param problems One line per problem.
   */
  constructor(source: string, problems: readonly string[]) {
    super(
      `Invalid script ${source}: ${problems.length} problem${
        problems.length === 1 ? "" : "s"
      }:\n  - ${problems.join("\n  - ")}`,
    );
    this.name = "ScriptError";
    this.problems = problems;
  }
}

const STOPS: Record<StopName, StopReason> = {
  end_turn: StopReason.END_TURN,
  tool_use: StopReason.TOOL_USE,
  max_tokens: StopReason.MAX_TOKENS,
  content_filtered: StopReason.CONTENT_FILTERED,
  refusal: StopReason.REFUSAL,
  stop_sequence: StopReason.STOP_SEQUENCE,
};

const CATEGORIES: Record<ErrorCategoryName, ModelErrorCategory> = {
  context_length_exceeded: ModelErrorCategory.CONTEXT_LENGTH_EXCEEDED,
  rate_limited: ModelErrorCategory.RATE_LIMITED,
  overloaded: ModelErrorCategory.OVERLOADED,
  auth_error: ModelErrorCategory.AUTH_ERROR,
  invalid_request: ModelErrorCategory.INVALID_REQUEST,
  content_filtered: ModelErrorCategory.CONTENT_FILTERED,
  unknown: ModelErrorCategory.UNKNOWN,
};

const TOOL_CHOICES: Record<ToolChoiceName, ToolChoiceMode> = {
  auto: ToolChoiceMode.AUTO,
  any: ToolChoiceMode.ANY,
  none: ToolChoiceMode.NONE,
  specific: ToolChoiceMode.SPECIFIC,
};

const DISABLE = {
  never: ThinkingDisableSupport.NEVER,
  always: ThinkingDisableSupport.ALWAYS,
  conditional: ThinkingDisableSupport.CONDITIONAL,
} as const;

/** The model a script gets when it declares none (or omits fields). */
export const DEFAULT_MODEL: Readonly<ScriptModel> = {
  id: "scripted",
  contextWindow: 200_000,
  maxOutputTokens: 8_192,
  supportsToolUse: true,
  supportsVision: false,
  supportsDocuments: false,
  supportsParallelToolCalls: true,
  toolChoiceModes: ["auto", "any", "none", "specific"],
  pricing: { free: false, tiers: [{ inputPerMtok: 3, outputPerMtok: 15 }] },
  thinking: { supported: false, adaptiveByDefault: false },
  caching: {
    supported: false,
    explicitMarkers: false,
    implicitAutomatic: false,
    keepaliveSupported: false,
  },
};

/** Retryable by default: the categories a real vendor retries. */
const RETRYABLE: ReadonlySet<ErrorCategoryName> = new Set([
  "rate_limited",
  "overloaded",
]);

type Raw = Record<string, unknown>;

function isRecord(v: unknown): v is Raw {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Collects problems while reading raw JSON. */
class Reader {
  readonly problems: string[] = [];

  add(where: string, message: string): void {
    this.problems.push(`${where}: ${message}`);
  }

  keys(obj: Raw, where: string, allowed: readonly string[]): void {
    for (const k of Object.keys(obj)) {
      if (!allowed.includes(k)) {
        this.add(
          where,
          `unknown field "${k}" (expected one of ${allowed.join(", ")})`,
        );
      }
    }
  }

  object(v: unknown, where: string): Raw | undefined {
    if (v === undefined) return undefined;
    if (!isRecord(v)) {
      this.add(where, "must be an object");
      return undefined;
    }
    return v;
  }

  string(v: unknown, where: string, nonEmpty = true): string | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== "string" || (nonEmpty && v === "")) {
      this.add(where, `must be a ${nonEmpty ? "non-empty " : ""}string`);
      return undefined;
    }
    return v;
  }

  bool(v: unknown, where: string): boolean | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== "boolean") {
      this.add(where, "must be true or false");
      return undefined;
    }
    return v;
  }

  integer(v: unknown, where: string, min = 0): number | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min) {
      this.add(where, `must be an integer ≥ ${min}`);
      return undefined;
    }
    return v;
  }

  rate(v: unknown, where: string): number | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0) {
      this.add(where, "must be a number ≥ 0 (USD per million tokens)");
      return undefined;
    }
    return v;
  }

  oneOf<T extends string>(
    v: unknown,
    where: string,
    allowed: readonly T[],
  ): T | undefined {
    if (v === undefined) return undefined;
    if (typeof v !== "string" || !allowed.includes(v as T)) {
      this.add(
        where,
        `must be one of ${allowed.map((a) => `"${a}"`).join(", ")}, got ${
          JSON.stringify(v)
        }`,
      );
      return undefined;
    }
    return v as T;
  }
}

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

function readModel(r: Reader, raw: unknown): ScriptModel {
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

  // Tool choice.
  if (m.tool_choice_modes === undefined) {
    model.toolChoiceModes = model.supportsToolUse ? [...d.toolChoiceModes] : [];
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

  // Caching (read before pricing: cache rates depend on it).
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

  // Thinking.
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
    if (e) {
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
    const b = r.object(t.budget, "model.thinking.budget");
    if (b) {
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

  // Pricing.
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
        const at = `model.pricing.tiers[${i}]`;
        const tier = r.object(raw, at);
        if (!tier) return;
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
          if (model.caching.supported && tier[key] === undefined) {
            r.add(`${at}.${key}`, "is required when caching is supported");
          }
          if (!model.caching.supported && tier[key] !== undefined) {
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
        tiers.push(spec);
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
  return model;
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

const TURN_KEYS = [
  "note",
  "expect",
  "thinking",
  "text",
  "tool_calls",
  "usage",
  "stop",
  "matched_stop_sequence",
  "error",
  "delay_ms",
];

function readTurn(
  r: Reader,
  raw: unknown,
  index: number,
  model: ScriptModel,
  ids: Set<string>,
): ScriptTurn | undefined {
  const at = `turns[${index}]`;
  const t = r.object(raw, at);
  if (!t) return undefined;
  r.keys(t, at, TURN_KEYS);
  r.string(t.note, `${at}.note`, false);
  const turn: ScriptTurn = { expect: [], toolCalls: [], delayMs: 0 };

  if (typeof t.expect === "string" && t.expect !== "") turn.expect = [t.expect];
  else if (
    Array.isArray(t.expect) && t.expect.length > 0 &&
    t.expect.every((e) => typeof e === "string" && e !== "")
  ) turn.expect = t.expect as string[];
  else if (t.expect !== undefined) {
    r.add(
      `${at}.expect`,
      "must be a non-empty string or a non-empty list of non-empty strings",
    );
  }

  const thinking = r.string(t.thinking, `${at}.thinking`);
  if (thinking !== undefined) {
    if (!model.thinking.supported) {
      r.add(
        `${at}.thinking`,
        "the model does not support thinking (set model.thinking.supported)",
      );
    }
    turn.thinking = thinking;
  }
  const text = r.string(t.text, `${at}.text`);
  if (text !== undefined) turn.text = text;

  if (t.tool_calls !== undefined) {
    if (!Array.isArray(t.tool_calls)) {
      r.add(`${at}.tool_calls`, "must be a list");
    } else {
      if (!model.supportsToolUse && t.tool_calls.length > 0) {
        r.add(
          `${at}.tool_calls`,
          "the model does not support tool use (model.supports_tool_use is false)",
        );
      }
      if (!model.supportsParallelToolCalls && t.tool_calls.length > 1) {
        r.add(
          `${at}.tool_calls`,
          "the model does not support parallel tool calls: at most one per turn",
        );
      }
      t.tool_calls.forEach((rc, i) => {
        const cat = `${at}.tool_calls[${i}]`;
        const c = r.object(rc, cat);
        if (!c) return;
        r.keys(c, cat, ["id", "name", "arguments"]);
        const name = r.string(c.name, `${cat}.name`);
        if (c.name === undefined) r.add(`${cat}.name`, "is required");
        const id = r.string(c.id, `${cat}.id`) ?? `call_${index}_${i}`;
        if (ids.has(id)) {
          r.add(`${cat}.id`, `repeats the tool call id "${id}"`);
        }
        ids.add(id);
        let args: JsonObject = {};
        if (c.arguments !== undefined) {
          if (!isRecord(c.arguments)) {
            r.add(`${cat}.arguments`, "must be a JSON object");
          } else args = c.arguments as JsonObject;
        }
        if (name) turn.toolCalls.push({ id, name, arguments: args });
      });
    }
  }

  const u = r.object(t.usage, `${at}.usage`);
  if (u) {
    r.keys(u, `${at}.usage`, [
      "input_tokens",
      "output_tokens",
      "cache_read_tokens",
      "cache_write_tokens",
      "reasoning_tokens",
    ]);
    const input = r.integer(u.input_tokens, `${at}.usage.input_tokens`);
    const output = r.integer(u.output_tokens, `${at}.usage.output_tokens`);
    if (u.input_tokens === undefined) {
      r.add(`${at}.usage.input_tokens`, "is required");
    }
    if (u.output_tokens === undefined) {
      r.add(`${at}.usage.output_tokens`, "is required");
    }
    const usage: ScriptUsage = {
      inputTokens: input ?? 0,
      outputTokens: output ?? 0,
    };
    for (
      const [key, field] of [
        ["cache_read_tokens", "cacheReadTokens"],
        ["cache_write_tokens", "cacheWriteTokens"],
        ["reasoning_tokens", "reasoningTokens"],
      ] as const
    ) {
      const v = r.integer(u[key], `${at}.usage.${key}`);
      if (v === undefined) continue;
      usage[field] = v;
      if (key !== "reasoning_tokens" && !model.caching.supported) {
        r.add(`${at}.usage.${key}`, "the model does not support caching");
      }
      if (key === "reasoning_tokens" && !model.thinking.supported) {
        r.add(`${at}.usage.${key}`, "the model does not support thinking");
      }
    }
    turn.usage = usage;
  }

  const e = r.object(t.error, `${at}.error`);
  if (e) {
    r.keys(e, `${at}.error`, [
      "category",
      "message",
      "retryable",
      "retry_after_ms",
      "raw_detail",
    ]);
    const category = r.oneOf(
      e.category,
      `${at}.error.category`,
      Object.keys(CATEGORIES) as ErrorCategoryName[],
    );
    if (e.category === undefined) r.add(`${at}.error.category`, "is required");
    const message = r.string(e.message, `${at}.error.message`);
    if (e.message === undefined) r.add(`${at}.error.message`, "is required");
    const retryable = r.bool(e.retryable, `${at}.error.retryable`);
    const after = r.integer(e.retry_after_ms, `${at}.error.retry_after_ms`);
    const raw = r.string(e.raw_detail, `${at}.error.raw_detail`);
    if (category && message) {
      turn.error = {
        category,
        message,
        retryable: retryable ?? RETRYABLE.has(category),
        ...(after !== undefined ? { retryAfterMs: after } : {}),
        ...(raw !== undefined ? { rawDetail: raw } : {}),
      };
    }
    if (t.stop !== undefined) {
      r.add(`${at}.stop`, "a turn ends with either stop or error, not both");
    }
  }

  const stop = r.oneOf(
    t.stop,
    `${at}.stop`,
    Object.keys(STOPS) as StopName[],
  );
  if (!t.error) {
    turn.stop = stop ?? (turn.toolCalls.length > 0 ? "tool_use" : "end_turn");
  }
  if (turn.stop === "tool_use" && turn.toolCalls.length === 0) {
    r.add(`${at}.stop`, `"tool_use" needs tool_calls`);
  }
  const seq = r.string(t.matched_stop_sequence, `${at}.matched_stop_sequence`);
  if (turn.stop === "stop_sequence" && seq === undefined) {
    r.add(
      `${at}.matched_stop_sequence`,
      `is required when stop is "stop_sequence"`,
    );
  }
  if (seq !== undefined) {
    if (turn.stop !== "stop_sequence") {
      r.add(
        `${at}.matched_stop_sequence`,
        `is only allowed when stop is "stop_sequence"`,
      );
    }
    turn.matchedStopSequence = seq;
  }

  const delay = r.integer(t.delay_ms, `${at}.delay_ms`);
  if (delay !== undefined) {
    if (delay > 60_000) r.add(`${at}.delay_ms`, "must be at most 60000");
    turn.delayMs = delay;
  }

  const noCalls = t.tool_calls === undefined ||
    (Array.isArray(t.tool_calls) && t.tool_calls.length === 0);
  if (
    t.text === undefined && t.thinking === undefined && noCalls &&
    t.error === undefined
  ) {
    r.add(at, "a turn needs text, thinking, tool_calls or error");
  }
  return turn;
}

/**
 * Validates a decoded script. A bare list is read as `{ "turns": [...] }`.
 *
 * @param raw The decoded JSON.
 * @param source Where it came from, for the error message.
 * @returns The script, with every default filled in.
 * @throws {ScriptError} Listing every problem, each naming the turn and field.
 */
export function parseScript(raw: unknown, source = "(inline)"): Script {
  const r = new Reader();
  const top: Raw = Array.isArray(raw)
    ? { turns: raw }
    : isRecord(raw)
    ? raw
    : {};
  if (!Array.isArray(raw) && !isRecord(raw)) {
    throw new ScriptError(source, [
      'the script must be a JSON object with "turns" (or a list of turns)',
    ]);
  }
  r.keys(top, "script", ["model", "turns", "description"]);
  r.string(top.description, "description", false);
  const model = readModel(r, top.model);
  const turns: ScriptTurn[] = [];
  if (!Array.isArray(top.turns) || top.turns.length === 0) {
    r.add("turns", "must be a non-empty list of turns");
  } else {
    const ids = new Set<string>();
    top.turns.forEach((t, i) => {
      const turn = readTurn(r, t, i, model, ids);
      if (turn) turns.push(turn);
    });
  }
  if (r.problems.length > 0) throw new ScriptError(source, r.problems);
  return { model, turns };
}

/**
 * Reads a script from JSON text.
 *
 * @param text The JSON text.
 * @param source Where it came from, for the error message.
 * @returns The script.
 * @throws {ScriptError} If the text is not JSON or the script is invalid.
 */
export function parseScriptText(text: string, source = "(inline)"): Script {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ScriptError(source, [
      `not valid JSON: ${err instanceof Error ? err.message : err}`,
    ]);
  }
  return parseScript(raw, source);
}

// ---------------------------------------------------------------------------
// The scripted tokenizer.

/**
 * The scripted model's tokenizer: one token per whitespace-separated word.
 *
 * @example Usage
 * ```ts
 * import { countWords } from "./script.ts";
 * import assert from "node:assert/strict";
 * assert.equal(countWords("  Hello,   wide\nworld "), 3);
 * ```
 *
 * @param text Any text.
 * @returns Its number of words.
 */
export function countWords(text: string): number {
  let n = 0;
  let inWord = false;
  for (const ch of text) {
    const space = /\s/.test(ch);
    if (!space && !inWord) n++;
    inWord = !space;
  }
  return n;
}

/**
 * Tokens of a JSON value (tool arguments): the words of every string, one
 * per number, boolean or null, and one per object key.
 *
 * @param value The value.
 * @returns Its token count.
 */
export function countValueTokens(value: JsonValue | undefined): number {
  if (value === undefined) return 0;
  if (typeof value === "string") return countWords(value);
  if (value === null || typeof value !== "object") return 1;
  if (Array.isArray(value)) {
    return value.reduce<number>((n, v) => n + countValueTokens(v), 0);
  }
  return Object.entries(value).reduce<number>(
    (n, [, v]) => n + 1 + countValueTokens(v),
    0,
  );
}

function countSchemaTokens(s: Schema | undefined): number {
  if (!s) return 0;
  let n = countWords(s.description);
  for (const [, p] of Object.entries(s.properties)) {
    n += 1 + countSchemaTokens(p);
  }
  n += countSchemaTokens(s.items);
  for (const e of s.enumValues) n += countWords(e);
  return n;
}

function countBlockTokens(b: ContentBlock): number {
  switch (b.block.case) {
    case "text":
    case "thinking":
      return countWords(b.block.value.text);
    case "toolUse":
      return countWords(b.block.value.name) +
        countValueTokens(b.block.value.arguments);
    case "toolResult":
      return b.block.value.content.reduce(
        (n, c) => n + countBlockTokens(c),
        0,
      );
    default:
      return 0; // images, documents, redacted thinking
  }
}

/** What {@linkcode countRequestTokens} counts. */
export interface TokenCountInput {
  /** The history. */
  messages?: readonly Message[];
  /** The system/preamble chain. */
  assembledContext?: readonly ContextSection[];
  /** The declared tools. */
  tools?: readonly ToolDeclaration[];
}

/**
 * Counts a would-be request with the scripted tokenizer: the words of
 * every text and thinking block, of every context section, of each tool's
 * name, description and schema (one per property name plus the words of
 * its description), of tool-use arguments (see
 * {@linkcode countValueTokens}) and of tool results. Images, documents and
 * redacted thinking count nothing.
 *
 * @param req The request parts.
 * @returns The exact token count, by definition.
 */
export function countRequestTokens(req: TokenCountInput): number {
  let n = 0;
  for (const s of req.assembledContext ?? []) {
    for (const b of s.content) n += countBlockTokens(b);
  }
  for (const t of req.tools ?? []) {
    n += countWords(t.name) + countWords(t.description) +
      countSchemaTokens(t.inputSchema);
  }
  for (const m of req.messages ?? []) {
    for (const b of m.content) n += countBlockTokens(b);
  }
  return n;
}

// ---------------------------------------------------------------------------
// Playing a turn.

/** A stream event, as the plugin yields it. */
export type StreamEventInit = MessageInitShape<typeof StreamEventSchema>;

/** What a request needs for {@linkcode planTurn}. */
export interface TurnRequest extends TokenCountInput {
  /** The requested model id. */
  modelId: string;
  /** The generation parameters. */
  params?: GenerationParams;
}

/** The events of one turn, and the pause between them. */
export interface TurnPlan {
  /** The turn played (the number of assistant messages), or -1 if none. */
  turn: number;
  /** The events, in order; the last is the terminal stop or error. */
  events: StreamEventInit[];
  /** Milliseconds to wait between events. */
  delayMs: number;
}

function errorEvent(
  category: ModelErrorCategory,
  message: string,
  retryable = false,
  extra: { retryAfterMs?: number; rawDetail?: string } = {},
): StreamEventInit {
  return {
    event: {
      case: "error",
      value: {
        error: {
          category,
          message,
          retryable,
          ...(extra.retryAfterMs !== undefined
            ? {
              retryAfter: {
                seconds: BigInt(Math.floor(extra.retryAfterMs / 1000)),
                nanos: (extra.retryAfterMs % 1000) * 1_000_000,
              },
            }
            : {}),
          ...(extra.rawDetail !== undefined
            ? { rawDetail: extra.rawDetail }
            : {}),
        },
      },
    },
  };
}

function invalid(turn: number, message: string): TurnPlan {
  return {
    turn,
    events: [errorEvent(ModelErrorCategory.INVALID_REQUEST, message)],
    delayMs: 0,
  };
}

/** Splits text into word-sized pieces (each word with the spaces after it). */
export function pieces(text: string): string[] {
  const parts = text.match(/\s*\S+\s*/g);
  return parts && parts.length > 0 ? parts : [text];
}

/** Splits a string into about `n` fragments, never inside a code point. */
function fragments(text: string, n: number): string[] {
  const cps = Array.from(text);
  const size = Math.max(1, Math.ceil(cps.length / n));
  const out: string[] = [];
  for (let i = 0; i < cps.length; i += size) {
    out.push(cps.slice(i, i + size).join(""));
  }
  return out.length > 0 ? out : [""];
}

/** The text of the last user message: its text blocks and tool results. */
export function lastUserText(messages: readonly Message[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== Role.USER) continue;
    const parts: string[] = [];
    const walk = (blocks: readonly ContentBlock[]) => {
      for (const b of blocks) {
        if (b.block.case === "text") parts.push(b.block.value.text);
        else if (b.block.case === "toolResult") walk(b.block.value.content);
      }
    };
    walk(m.content);
    return parts.join("\n");
  }
  return undefined;
}

function shorten(text: string, max = 200): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** Rejects content and parameters the scripted model did not declare. */
function checkRequest(
  model: ScriptModel,
  req: TurnRequest,
): string | undefined {
  for (const [i, m] of (req.messages ?? []).entries()) {
    for (const b of m.content) {
      const kind = b.block.case;
      if (kind === "image" && !model.supportsVision) {
        return `messages[${i}] has an image, but model "${model.id}" does not support vision`;
      }
      if (kind === "document" && !model.supportsDocuments) {
        return `messages[${i}] has a document, but model "${model.id}" does not support documents`;
      }
      if (
        (kind === "toolUse" || kind === "toolResult") && !model.supportsToolUse
      ) {
        return `messages[${i}] has a tool block, but model "${model.id}" does not support tool use`;
      }
      if (
        (kind === "thinking" || kind === "redactedThinking") &&
        !model.thinking.supported
      ) {
        return `messages[${i}] has a thinking block, but model "${model.id}" does not support thinking`;
      }
    }
  }
  if ((req.tools ?? []).length > 0 && !model.supportsToolUse) {
    return `the request declares tools, but model "${model.id}" does not support tool use`;
  }
  const p = req.params;
  if (p?.toolChoice) {
    const mode =
      (Object.entries(TOOL_CHOICES) as [ToolChoiceName, ToolChoiceMode][])
        .find(([, v]) => v === p.toolChoice!.mode)?.[0];
    if (!mode || !model.toolChoiceModes.includes(mode)) {
      return `tool_choice mode ${
        ToolChoiceMode[p.toolChoice.mode] ?? p.toolChoice.mode
      } is not declared by model "${model.id}"`;
    }
  }
  if (p?.thinkingEffort !== undefined) {
    const effort = model.thinking.effort;
    if (!effort || !effort.levels.includes(p.thinkingEffort)) {
      return `thinking_effort "${p.thinkingEffort}" is not declared by model "${model.id}"`;
    }
  }
  if (p?.thinkingBudgetTokens !== undefined) {
    const budget = model.thinking.budget;
    const v = Number(p.thinkingBudgetTokens);
    if (!budget || v < budget.min || v > budget.max) {
      return `thinking_budget_tokens ${v} is outside what model "${model.id}" declares`;
    }
  }
  return undefined;
}

/**
 * Chooses and plays the turn for a request: turn index = the number of
 * assistant messages in its history. A wrong model id, undeclared content
 * or parameters, a turn past the end of the script or an unmet `expect`
 * become a single INVALID_REQUEST error event naming the problem.
 *
 * @param script The script.
 * @param req The request.
 * @returns The turn's events.
 */
export function planTurn(script: Script, req: TurnRequest): TurnPlan {
  const model = script.model;
  const messages = req.messages ?? [];
  const turn = messages.filter((m) => m.role === Role.ASSISTANT).length;
  if (req.modelId !== model.id) {
    return invalid(
      turn,
      `unknown model "${req.modelId}": this script serves "${model.id}"`,
    );
  }
  const problem = checkRequest(model, req);
  if (problem) return invalid(turn, problem);
  const t = script.turns[turn];
  if (!t) {
    return invalid(
      turn,
      `the script has no turn ${turn}: it has ${script.turns.length} turn${
        script.turns.length === 1 ? "" : "s"
      } (numbered from 0, one per assistant message in the history)`,
    );
  }
  if (t.expect.length > 0) {
    const last = lastUserText(messages);
    for (const e of t.expect) {
      if (last === undefined || !last.includes(e)) {
        return invalid(
          turn,
          `turn ${turn} expects the last user message to contain ${
            JSON.stringify(e)
          }, but ${
            last === undefined
              ? "the request has no user message"
              : `it reads ${JSON.stringify(shorten(last))}`
          }`,
        );
      }
    }
  }

  const events: StreamEventInit[] = [];
  if (t.thinking !== undefined) {
    for (const text of pieces(t.thinking)) {
      events.push({ event: { case: "thinkingDelta", value: { text } } });
    }
  }
  if (t.text !== undefined) {
    for (const text of pieces(t.text)) {
      events.push({ event: { case: "textDelta", value: { text } } });
    }
  }
  for (const call of t.toolCalls) {
    events.push({
      event: { case: "toolCallStart", value: { id: call.id, name: call.name } },
    });
    for (const f of fragments(JSON.stringify(call.arguments), 3)) {
      events.push({
        event: {
          case: "toolCallDelta",
          value: { id: call.id, argumentsFragment: f },
        },
      });
    }
    events.push({ event: { case: "toolCallDone", value: { id: call.id } } });
  }
  const usage = t.usage ?? {
    inputTokens: countRequestTokens(req),
    outputTokens: countWords(t.text ?? "") +
      t.toolCalls.reduce(
        (n, c) => n + countWords(c.name) + countValueTokens(c.arguments),
        0,
      ),
    ...(t.thinking !== undefined
      ? { reasoningTokens: countWords(t.thinking) }
      : {}),
  };
  if (t.usage || !t.error) {
    events.push({
      event: {
        case: "usage",
        value: {
          inputTokens: BigInt(usage.inputTokens),
          outputTokens: BigInt(usage.outputTokens),
          ...(usage.cacheReadTokens !== undefined
            ? { cacheReadTokens: BigInt(usage.cacheReadTokens) }
            : {}),
          ...(usage.cacheWriteTokens !== undefined
            ? { cacheWriteTokens: BigInt(usage.cacheWriteTokens) }
            : {}),
          ...(usage.reasoningTokens !== undefined
            ? { reasoningTokens: BigInt(usage.reasoningTokens) }
            : {}),
        },
      },
    });
  }
  if (t.error) {
    events.push(errorEvent(
      CATEGORIES[t.error.category],
      t.error.message,
      t.error.retryable,
      {
        ...(t.error.retryAfterMs !== undefined
          ? { retryAfterMs: t.error.retryAfterMs }
          : {}),
        ...(t.error.rawDetail !== undefined
          ? { rawDetail: t.error.rawDetail }
          : {}),
      },
    ));
  } else {
    events.push({
      event: {
        case: "stop",
        value: {
          reason: STOPS[t.stop ?? "end_turn"],
          ...(t.matchedStopSequence !== undefined
            ? { matchedStopSequence: t.matchedStopSequence }
            : {}),
        },
      },
    });
  }
  return { turn, events, delayMs: t.delayMs };
}

/**
 * The ModelSpec a script declares, for GetCapabilities.
 *
 * @param model The script's model.
 * @returns The ModelSpec init.
 */
export function modelSpec(
  model: ScriptModel,
): MessageInitShape<typeof ModelSpecSchema> {
  const th = model.thinking;
  return {
    id: model.id,
    contextWindow: BigInt(model.contextWindow),
    maxOutputTokens: BigInt(model.maxOutputTokens),
    supportsToolUse: model.supportsToolUse,
    supportsVision: model.supportsVision,
    supportsStreaming: true,
    supportsParallelToolCalls: model.supportsParallelToolCalls,
    supportsDocuments: model.supportsDocuments,
    supportedToolChoiceModes: model.toolChoiceModes.map((m) => TOOL_CHOICES[m]),
    thinking: {
      supported: th.supported,
      adaptiveByDefault: th.adaptiveByDefault,
      ...(th.disable ? { disable: DISABLE[th.disable] } : {}),
      ...(th.effort
        ? { effort: { levels: th.effort.levels, default: th.effort.default } }
        : {}),
      ...(th.budget
        ? {
          budget: {
            range: { min: BigInt(th.budget.min), max: BigInt(th.budget.max) },
            ...(th.budget.default !== undefined
              ? { default: BigInt(th.budget.default) }
              : {}),
            deprecated: false,
          },
        }
        : {}),
    },
    caching: { ...model.caching },
    pricing: {
      currency: "USD",
      free: model.pricing.free,
      tiers: model.pricing.tiers.map((t) => ({
        inputPerMtok: t.inputPerMtok,
        outputPerMtok: t.outputPerMtok,
        ...(t.cacheReadPerMtok !== undefined
          ? { cacheReadPerMtok: t.cacheReadPerMtok }
          : {}),
        ...(t.cacheWritePerMtok !== undefined
          ? { cacheWritePerMtok: t.cacheWritePerMtok }
          : {}),
        ...(t.inputTokensFrom !== undefined
          ? { inputTokensFrom: BigInt(t.inputTokensFrom) }
          : {}),
        ...(t.inputTokensUntil !== undefined
          ? { inputTokensUntil: BigInt(t.inputTokensUntil) }
          : {}),
      })),
    },
    catalog: {
      displayName: `Scripted (${model.id})`,
      description:
        "Replays a script of turns: deterministic, for tests and demos",
      aliases: [],
    },
  };
}
