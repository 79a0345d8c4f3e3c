/**
 * OpenAI stream events translated to canonical `model.v1.StreamEvent`s.
 *
 * - {@linkcode ChatStream}: Chat Completions chunks. Tool calls are keyed
 *   by their `index`, so several parallel calls whose JSON-string arguments
 *   arrive interleaved over many deltas each become `tool_call_start`, their
 *   `tool_call_delta` fragments and `tool_call_done`. Usage comes from the
 *   last chunk (`stream_options.include_usage`); the stop is emitted at the
 *   end of the stream, after usage.
 * - {@linkcode ResponsesStream}: Responses API typed events
 *   (`response.output_text.delta`, `response.output_item.added/done`,
 *   `response.function_call_arguments.delta`, reasoning summary deltas,
 *   `response.completed` / `response.incomplete` with usage,
 *   `response.failed`, `error`).
 *
 * Usage is canonical: cached input is not also in `input_tokens`, and
 * reasoning is not also in `output_tokens` (OpenAI counts both inside the
 * totals, so they are subtracted).
 *
 * @module
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { StreamEventSchema } from "../../proto/gen/pluggableharness/model/v1/events_pb.ts";
import {
  StopReason,
  type UsageSchema,
} from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import { classifyFailure, type ModelErrorInit } from "./errors.ts";
import { encodeSignature } from "./translate.ts";

/** A StreamEvent init. */
export type StreamEventInit = MessageInitShape<typeof StreamEventSchema>;

/** A Usage init. */
export type UsageInit = MessageInitShape<typeof UsageSchema>;

/** OpenAI usage in either API's field names. */
export interface WireUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  input_tokens?: number;
  output_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  input_tokens_details?: { cached_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
  output_tokens_details?: { reasoning_tokens?: number } | null;
}

/**
 * Canonical usage of an OpenAI usage object (either API).
 *
 * @param u The vendor usage.
 * @returns The Usage init.
 */
export function usageOf(u: WireUsage): UsageInit {
  const input = u.prompt_tokens ?? u.input_tokens ?? 0;
  const output = u.completion_tokens ?? u.output_tokens ?? 0;
  const cached = (u.prompt_tokens_details ?? u.input_tokens_details)
    ?.cached_tokens ?? 0;
  const reasoning = (u.completion_tokens_details ?? u.output_tokens_details)
    ?.reasoning_tokens ?? 0;
  const out: UsageInit = {
    inputTokens: BigInt(Math.max(0, input - cached)),
    outputTokens: BigInt(Math.max(0, output - reasoning)),
  };
  if (cached > 0) out.cacheReadTokens = BigInt(cached);
  if (reasoning > 0) out.reasoningTokens = BigInt(reasoning);
  if (u.total_tokens !== undefined) {
    out.vendorTotalTokens = BigInt(u.total_tokens);
  }
  return out;
}

function stop(reason: StopReason): StreamEventInit {
  return { event: { case: "stop", value: { reason } } };
}

/**
 * A `StreamEvent.error`.
 *
 * @param error The ModelError init.
 * @returns The event.
 */
export function errorEvent(error: ModelErrorInit): StreamEventInit {
  return { event: { case: "error", value: { error } } };
}

interface ChatToolState {
  id: string;
  name: string;
  started: boolean;
  done: boolean;
  pending: string;
}

/** A Chat Completions chunk (the fields read). */
export interface ChatChunk {
  id?: string;
  model?: string;
  system_fingerprint?: string | null;
  service_tier?: string | null;
  choices?: {
    index?: number;
    delta?: {
      content?: string | null;
      refusal?: string | null;
      reasoning_content?: string | null;
      reasoning?: string | null;
      tool_calls?: {
        index?: number;
        id?: string | null;
        function?: { name?: string | null; arguments?: string | null };
      }[] | null;
    };
    finish_reason?: string | null;
  }[];
  usage?: WireUsage | null;
}

/** Translates one Chat Completions stream. */
export class ChatStream {
  readonly #thinking: boolean;
  readonly #secrets: readonly (string | undefined)[];
  readonly #tools = new Map<number, ChatToolState>();
  #finish: string | undefined;
  #usage: UsageInit | undefined;
  #meta = false;
  #refused = false;

  /**
   * Creates the translator.
   *
   * @param options `thinking`: emit reasoning deltas (`reasoning_content`
   * of OpenAI-compatible servers) as thinking; `secrets` to scrub.
   */
  constructor(
    options: { thinking: boolean; secrets?: readonly (string | undefined)[] },
  ) {
    this.#thinking = options.thinking;
    this.#secrets = options.secrets ?? [];
  }

  /**
   * Translates one chunk.
   *
   * @param chunk The chunk.
   * @param out Receives the events.
   */
  push(chunk: ChatChunk, out: StreamEventInit[]): void {
    if (!this.#meta && chunk.model) {
      this.#meta = true;
      out.push({
        event: {
          case: "metadata",
          value: {
            actualModel: chunk.model,
            ...(chunk.system_fingerprint
              ? { systemFingerprint: chunk.system_fingerprint }
              : {}),
            ...(chunk.service_tier ? { serviceTier: chunk.service_tier } : {}),
            attrs: {},
          },
        },
      });
    }
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue;
      const d = choice.delta;
      if (d) {
        const reasoning = d.reasoning_content ?? d.reasoning;
        if (reasoning && this.#thinking) {
          out.push({
            event: { case: "thinkingDelta", value: { text: reasoning } },
          });
        }
        if (d.content) {
          out.push({
            event: { case: "textDelta", value: { text: d.content } },
          });
        }
        if (d.refusal) {
          this.#refused = true;
          out.push({
            event: { case: "textDelta", value: { text: d.refusal } },
          });
        }
        for (const tc of d.tool_calls ?? []) this.#toolDelta(tc, out);
      }
      if (choice.finish_reason) {
        this.#finish = choice.finish_reason;
        this.#closeTools(out);
      }
    }
    if (chunk.usage) this.#usage = usageOf(chunk.usage);
  }

  #toolDelta(
    tc: NonNullable<NonNullable<ChatChunk["choices"]>[number]["delta"]>[
      "tool_calls"
    ] extends (infer T)[] | null | undefined ? T : never,
    out: StreamEventInit[],
  ): void {
    const index = tc.index ?? this.#tools.size;
    let t = this.#tools.get(index);
    if (!t) {
      t = {
        id: tc.id ?? "",
        name: "",
        started: false,
        done: false,
        pending: "",
      };
      this.#tools.set(index, t);
    }
    if (tc.id && !t.started) t.id = tc.id;
    if (tc.function?.name && !t.started) t.name += tc.function.name;
    const args = tc.function?.arguments ?? "";
    if (!t.started && t.name !== "") {
      if (t.id === "") t.id = `call_${index}`;
      t.started = true;
      out.push({
        event: { case: "toolCallStart", value: { id: t.id, name: t.name } },
      });
      if (t.pending !== "") {
        out.push({
          event: {
            case: "toolCallDelta",
            value: { id: t.id, argumentsFragment: t.pending },
          },
        });
        t.pending = "";
      }
    }
    if (args === "") return;
    if (!t.started) {
      t.pending += args;
      return;
    }
    out.push({
      event: {
        case: "toolCallDelta",
        value: { id: t.id, argumentsFragment: args },
      },
    });
  }

  #closeTools(out: StreamEventInit[]): void {
    const indexes = [...this.#tools.keys()].sort((a, b) => a - b);
    for (const i of indexes) {
      const t = this.#tools.get(i)!;
      if (t.started && !t.done) {
        t.done = true;
        out.push({ event: { case: "toolCallDone", value: { id: t.id } } });
      }
    }
  }

  /**
   * Ends the stream: open tool calls close, then usage, then the stop (or
   * an error when the stream ended without a finish reason).
   *
   * @param out Receives the events.
   */
  end(out: StreamEventInit[]): void {
    this.#closeTools(out);
    if (this.#usage) out.push({ event: { case: "usage", value: this.#usage } });
    if (this.#finish === undefined) {
      out.push(errorEvent(classifyFailure({
        network: true,
        message:
          "the Chat Completions stream ended without a finish reason (the connection was cut)",
      }, this.#secrets)));
      return;
    }
    const hadTools = [...this.#tools.values()].some((t) => t.started);
    out.push(stop(chatStopReason(this.#finish, hadTools, this.#refused)));
  }
}

/**
 * The canonical stop reason of a Chat Completions `finish_reason`.
 *
 * @param finish The finish reason.
 * @param hadTools The turn emitted tool calls.
 * @param refused The model refused (a `refusal` delta).
 * @returns The stop reason.
 */
export function chatStopReason(
  finish: string,
  hadTools: boolean,
  refused: boolean,
): StopReason {
  if (refused) return StopReason.REFUSAL;
  switch (finish) {
    case "length":
      return StopReason.MAX_TOKENS;
    case "content_filter":
      return StopReason.CONTENT_FILTERED;
    case "tool_calls":
    case "function_call":
      return StopReason.TOOL_USE;
    default:
      // Some compatible servers say "stop" after tool calls.
      return hadTools ? StopReason.TOOL_USE : StopReason.END_TURN;
  }
}

/** A Responses stream event (the fields read). */
export interface ResponsesEvent {
  type: string;
  delta?: string;
  item_id?: string;
  output_index?: number;
  summary_index?: number;
  arguments?: string;
  code?: string | null;
  message?: string;
  param?: string | null;
  item?: {
    type?: string;
    id?: string;
    call_id?: string;
    name?: string;
    arguments?: string;
    encrypted_content?: string | null;
  };
  response?: {
    id?: string;
    model?: string;
    status?: string;
    service_tier?: string | null;
    usage?: WireUsage | null;
    error?: { code?: string | null; message?: string } | null;
    incomplete_details?: { reason?: string | null } | null;
  };
}

interface ResponsesCall {
  callId: string;
  streamed: boolean;
  done: boolean;
}

/** Translates one Responses API stream. */
export class ResponsesStream {
  readonly #thinking: boolean;
  readonly #secrets: readonly (string | undefined)[];
  readonly #calls = new Map<string, ResponsesCall>();
  #hadTools = false;
  #refused = false;
  #terminal = false;
  #summaryParts = 0;

  /**
   * Creates the translator.
   *
   * @param options `thinking`: the model reasons (summaries become
   * thinking deltas, reasoning items thinking signatures); `secrets` to
   * scrub.
   */
  constructor(
    options: { thinking: boolean; secrets?: readonly (string | undefined)[] },
  ) {
    this.#thinking = options.thinking;
    this.#secrets = options.secrets ?? [];
  }

  /** A terminal event (stop or error) was emitted. */
  get terminal(): boolean {
    return this.#terminal;
  }

  /**
   * Translates one event.
   *
   * @param e The event.
   * @param out Receives the events.
   */
  push(e: ResponsesEvent, out: StreamEventInit[]): void {
    if (this.#terminal) return;
    switch (e.type) {
      case "response.output_text.delta":
        if (e.delta) {
          out.push({ event: { case: "textDelta", value: { text: e.delta } } });
        }
        return;
      case "response.refusal.delta":
        if (e.delta) {
          this.#refused = true;
          out.push({ event: { case: "textDelta", value: { text: e.delta } } });
        }
        return;
      case "response.reasoning_summary_part.added":
        if (this.#thinking && this.#summaryParts++ > 0) {
          out.push({
            event: { case: "thinkingDelta", value: { text: "\n\n" } },
          });
        }
        return;
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        if (this.#thinking && e.delta) {
          out.push({
            event: { case: "thinkingDelta", value: { text: e.delta } },
          });
        }
        return;
      case "response.output_item.added": {
        const item = e.item;
        if (item?.type === "function_call" && item.id !== undefined) {
          const callId = item.call_id || item.id;
          this.#calls.set(item.id, { callId, streamed: false, done: false });
          this.#hadTools = true;
          out.push({
            event: {
              case: "toolCallStart",
              value: { id: callId, name: item.name ?? "" },
            },
          });
        } else if (item?.type === "reasoning") {
          this.#summaryParts = 0;
        }
        return;
      }
      case "response.function_call_arguments.delta": {
        const c = this.#calls.get(e.item_id ?? "");
        if (c && e.delta) {
          c.streamed = true;
          out.push({
            event: {
              case: "toolCallDelta",
              value: { id: c.callId, argumentsFragment: e.delta },
            },
          });
        }
        return;
      }
      case "response.output_item.done": {
        const item = e.item;
        if (item?.type === "function_call" && item.id !== undefined) {
          const c = this.#calls.get(item.id);
          if (!c || c.done) return;
          c.done = true;
          if (!c.streamed && item.arguments) {
            out.push({
              event: {
                case: "toolCallDelta",
                value: { id: c.callId, argumentsFragment: item.arguments },
              },
            });
          }
          out.push({
            event: { case: "toolCallDone", value: { id: c.callId } },
          });
        } else if (
          item?.type === "reasoning" && this.#thinking && item.id
        ) {
          out.push({
            event: {
              case: "thinkingSignature",
              value: {
                signature: encodeSignature({
                  id: item.id,
                  ...(item.encrypted_content
                    ? { encrypted_content: item.encrypted_content }
                    : {}),
                }),
              },
            },
          });
        }
        return;
      }
      case "response.created":
        if (e.response?.model) {
          out.push({
            event: {
              case: "metadata",
              value: {
                actualModel: e.response.model,
                ...(e.response.service_tier
                  ? { serviceTier: e.response.service_tier }
                  : {}),
                attrs: e.response.id ? { response_id: e.response.id } : {},
              },
            },
          });
        }
        return;
      case "response.completed":
      case "response.incomplete": {
        this.#terminal = true;
        const r = e.response;
        if (r?.usage) {
          out.push({ event: { case: "usage", value: usageOf(r.usage) } });
        }
        out.push(stop(this.#stopReason(e.type, r?.incomplete_details?.reason)));
        return;
      }
      case "response.failed": {
        this.#terminal = true;
        const r = e.response;
        if (r?.usage) {
          out.push({ event: { case: "usage", value: usageOf(r.usage) } });
        }
        out.push(errorEvent(classifyFailure({
          code: r?.error?.code ?? null,
          message: r?.error?.message ?? "the response failed",
        }, this.#secrets)));
        return;
      }
      case "error":
        this.#terminal = true;
        out.push(errorEvent(classifyFailure({
          code: e.code ?? null,
          message: e.message ?? "the stream reported an error",
        }, this.#secrets)));
        return;
      default:
        return;
    }
  }

  #stopReason(type: string, incomplete: string | null | undefined): StopReason {
    if (this.#refused) return StopReason.REFUSAL;
    if (type === "response.incomplete") {
      return incomplete === "content_filter"
        ? StopReason.CONTENT_FILTERED
        : StopReason.MAX_TOKENS;
    }
    return this.#hadTools ? StopReason.TOOL_USE : StopReason.END_TURN;
  }

  /**
   * Ends the stream: an error when it ended without a terminal event.
   *
   * @param out Receives the events.
   */
  end(out: StreamEventInit[]): void {
    if (this.#terminal) return;
    this.#terminal = true;
    out.push(errorEvent(classifyFailure({
      network: true,
      message:
        "the Responses stream ended without response.completed (the connection was cut)",
    }, this.#secrets)));
  }
}

/**
 * Parses an OpenAI reset duration (`1s`, `6m0s`, `20ms`, `1h2m3.5s`).
 *
 * @param text The header value.
 * @returns Milliseconds, or `undefined` when it does not parse.
 */
export function resetDurationMs(text: string): number | undefined {
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
  let total = 0;
  let consumed = 0;
  for (const m of text.matchAll(re)) {
    const v = Number(m[1]);
    total += m[2] === "h"
      ? v * 3_600_000
      : m[2] === "m"
      ? v * 60_000
      : m[2] === "s"
      ? v * 1000
      : v;
    consumed += m[0].length;
  }
  return consumed > 0 && consumed === text.trim().length
    ? Math.round(total)
    : undefined;
}

/**
 * The `metadata` event of OpenAI's rate-limit headers
 * (`x-ratelimit-{limit,remaining,reset}-{requests,tokens}`): only what the
 * vendor sent, nothing synthesized.
 *
 * @param headers The response headers.
 * @param now The current time (ms since the epoch), for `reset_at`.
 * @returns The event, or `undefined` when the headers carry no limits.
 */
export function rateLimitEvent(
  headers: Headers,
  now: number = Date.now(),
): StreamEventInit | undefined {
  const snapshots = [];
  for (const [suffix, kind] of [["requests", 1], ["tokens", 2]] as const) {
    const limit = headers.get(`x-ratelimit-limit-${suffix}`);
    const remaining = headers.get(`x-ratelimit-remaining-${suffix}`);
    const reset = headers.get(`x-ratelimit-reset-${suffix}`);
    if (limit === null && remaining === null) continue;
    const resetMs = reset !== null ? resetDurationMs(reset) : undefined;
    const int = (v: string | null) =>
      v !== null && /^\d+$/.test(v.trim()) ? BigInt(v.trim()) : undefined;
    const l = int(limit);
    const r = int(remaining);
    const at = resetMs !== undefined ? now + resetMs : undefined;
    snapshots.push({
      kind,
      windowRole: 1,
      ...(l !== undefined ? { limit: l } : {}),
      ...(r !== undefined ? { remaining: r } : {}),
      ...(at !== undefined
        ? {
          resetAt: {
            seconds: BigInt(Math.floor(at / 1000)),
            nanos: (at % 1000) * 1_000_000,
          },
        }
        : {}),
      limitName: suffix,
    });
  }
  if (snapshots.length === 0) return undefined;
  return {
    event: { case: "metadata", value: { rateLimits: snapshots, attrs: {} } },
  };
}
