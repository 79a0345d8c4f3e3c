/**
 * The script format's vocabulary: the validated types ({@linkcode Script},
 * {@linkcode ScriptModel}, {@linkcode ScriptTurn}, …), {@linkcode ScriptError},
 * the default model and the maps from script names to protocol enums.
 *
 * @module
 */

import type { JsonObject } from "@bufbuild/protobuf";
import { ModelErrorCategory } from "../../proto/gen/pluggableharness/model/v1/errors_pb.ts";
import {
  StopReason,
  ThinkingDisableSupport,
  ToolChoiceMode,
} from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";

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

/** The StopReason of each stop name a script may use. */
export const STOPS: Record<StopName, StopReason> = {
  end_turn: StopReason.END_TURN,
  tool_use: StopReason.TOOL_USE,
  max_tokens: StopReason.MAX_TOKENS,
  content_filtered: StopReason.CONTENT_FILTERED,
  refusal: StopReason.REFUSAL,
  stop_sequence: StopReason.STOP_SEQUENCE,
};

/** The ModelErrorCategory of each error category name. */
export const CATEGORIES: Record<ErrorCategoryName, ModelErrorCategory> = {
  context_length_exceeded: ModelErrorCategory.CONTEXT_LENGTH_EXCEEDED,
  rate_limited: ModelErrorCategory.RATE_LIMITED,
  overloaded: ModelErrorCategory.OVERLOADED,
  auth_error: ModelErrorCategory.AUTH_ERROR,
  invalid_request: ModelErrorCategory.INVALID_REQUEST,
  content_filtered: ModelErrorCategory.CONTENT_FILTERED,
  unknown: ModelErrorCategory.UNKNOWN,
};

/** The ToolChoiceMode of each `tool_choice_modes` name. */
export const TOOL_CHOICES: Record<ToolChoiceName, ToolChoiceMode> = {
  auto: ToolChoiceMode.AUTO,
  any: ToolChoiceMode.ANY,
  none: ToolChoiceMode.NONE,
  specific: ToolChoiceMode.SPECIFIC,
};

/** The ThinkingDisableSupport of each `thinking.disable` value. */
export const DISABLE = {
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
export const RETRYABLE: ReadonlySet<ErrorCategoryName> = new Set([
  "rate_limited",
  "overloaded",
]);
