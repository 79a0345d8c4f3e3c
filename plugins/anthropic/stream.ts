/**
 * Messages API stream events → canonical `model.v1.StreamEvent`s.
 *
 * One {@linkcode StreamTranslator} per response. It keeps the open content
 * blocks by index, so that:
 *
 * - `text_delta` → `text_delta`; `thinking_delta` → `thinking_delta`;
 * - a `tool_use` block → `tool_call_start`, one `tool_call_delta` per
 *   non-empty `input_json_delta` (the kernel joins and parses the JSON),
 *   `tool_call_done` at `content_block_stop`;
 * - `signature_delta`s of a thinking block are joined and sent as one
 *   `thinking_signature` (the UTF-8 bytes of the vendor's string) at the
 *   block's stop, after its text;
 * - a `redacted_thinking` block → one whole `redacted_thinking` event;
 * - usage: `message_start` and `message_delta` carry cumulative counts;
 *   one `usage` event with the final figures precedes `stop` (cache reads
 *   and writes are reported apart from input, thinking tokens as
 *   `reasoning_tokens` already counted in output);
 * - `stop_reason` → `stop`; `ping` is ignored.
 *
 * @module
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { StreamEventSchema } from "../../proto/gen/pluggableharness/model/v1/events_pb.ts";
import { StopReason } from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";

/** A canonical stream event, as an init object. */
export type StreamEventInit = MessageInitShape<typeof StreamEventSchema>;

/** The usage object of `message_start` / `message_delta`. */
export interface VendorUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  output_tokens_details?: { thinking_tokens?: number | null } | null;
}

/** One raw Messages API stream event (the JSON of an SSE `data:` line). */
export type VendorEvent =
  | {
    type: "message_start";
    message: { id?: string; model?: string; usage?: VendorUsage };
  }
  | {
    type: "content_block_start";
    index: number;
    content_block: {
      type: string;
      id?: string;
      name?: string;
      text?: string;
      thinking?: string;
      signature?: string;
      data?: string;
      input?: unknown;
    };
  }
  | {
    type: "content_block_delta";
    index: number;
    delta: {
      type: string;
      text?: string;
      partial_json?: string;
      thinking?: string;
      signature?: string;
    };
  }
  | { type: "content_block_stop"; index: number }
  | {
    type: "message_delta";
    delta: { stop_reason?: string | null; stop_sequence?: string | null };
    usage?: VendorUsage;
  }
  | { type: "message_stop" }
  | { type: "ping" };

const STOP_REASONS: Readonly<Record<string, StopReason>> = {
  end_turn: StopReason.END_TURN,
  tool_use: StopReason.TOOL_USE,
  max_tokens: StopReason.MAX_TOKENS,
  stop_sequence: StopReason.STOP_SEQUENCE,
  refusal: StopReason.REFUSAL,
  // The output filled the context window: the output was cut, as with max_tokens.
  model_context_window_exceeded: StopReason.MAX_TOKENS,
  // Only server tools pause a turn; this plugin sends none.
  pause_turn: StopReason.END_TURN,
};

/**
 * The canonical stop reason of a vendor `stop_reason`.
 *
 * @param reason The vendor's value.
 * @returns The stop reason (`END_TURN` for an unknown or missing value).
 */
export function stopReasonOf(reason: string | null | undefined): StopReason {
  return STOP_REASONS[reason ?? ""] ?? StopReason.END_TURN;
}

interface OpenBlock {
  kind: "text" | "tool_use" | "thinking" | "redacted_thinking" | "other";
  id: string;
  sawJson: boolean;
  input?: unknown;
  signature: string;
}

const utf8 = new TextEncoder();

/** A problem with the vendor stream itself (not a vendor error event). */
export class ProtocolError extends Error {
  /**
   * Creates the error.
   *
   * @param message What was wrong.
   */
  constructor(message: string) {
    super(message);
    this.name = "ProtocolError";
  }
}

/** Translates one response's events; see the module documentation. */
export class StreamTranslator {
  #blocks = new Map<number, OpenBlock>();
  #usage: VendorUsage = {};
  #stopReason: string | null | undefined;
  #stopSequence: string | null | undefined;
  #started = false;
  /** True once `message_stop` has been translated. */
  done = false;

  #mergeUsage(u: VendorUsage | undefined): void {
    if (!u) return;
    for (const [k, v] of Object.entries(u)) {
      if (v !== null && v !== undefined) {
        (this.#usage as Record<string, unknown>)[k] = v;
      }
    }
  }

  /**
   * Translates one vendor event.
   *
   * @param ev The event.
   * @param out Receives the canonical events.
   * @throws {ProtocolError} On an event out of order.
   */
  push(ev: VendorEvent, out: StreamEventInit[]): void {
    switch (ev.type) {
      case "message_start": {
        this.#started = true;
        this.#mergeUsage(ev.message.usage);
        out.push({
          event: {
            case: "metadata",
            value: {
              ...(ev.message.model ? { actualModel: ev.message.model } : {}),
              attrs: ev.message.id ? { message_id: ev.message.id } : {},
            },
          },
        });
        return;
      }
      case "content_block_start": {
        this.#requireStarted(ev.type);
        const b = ev.content_block;
        switch (b.type) {
          case "text":
            this.#blocks.set(ev.index, this.#open("text", ""));
            if (b.text) {
              out.push({
                event: { case: "textDelta", value: { text: b.text } },
              });
            }
            return;
          case "tool_use": {
            const id = b.id ?? "";
            this.#blocks.set(ev.index, {
              ...this.#open("tool_use", id),
              input: b.input,
            });
            out.push({
              event: {
                case: "toolCallStart",
                value: { id, name: b.name ?? "" },
              },
            });
            return;
          }
          case "thinking": {
            const open = this.#open("thinking", "");
            open.signature = b.signature ?? "";
            this.#blocks.set(ev.index, open);
            if (b.thinking) {
              out.push({
                event: { case: "thinkingDelta", value: { text: b.thinking } },
              });
            }
            return;
          }
          case "redacted_thinking":
            this.#blocks.set(ev.index, this.#open("redacted_thinking", ""));
            out.push({
              event: {
                case: "redactedThinking",
                value: { data: utf8.encode(b.data ?? "") },
              },
            });
            return;
          default:
            // Server-tool blocks and other kinds this plugin never asks for.
            this.#blocks.set(ev.index, this.#open("other", ""));
            return;
        }
      }
      case "content_block_delta": {
        const open = this.#blocks.get(ev.index);
        if (!open) {
          throw new ProtocolError(
            `content_block_delta for block ${ev.index}, which was never started`,
          );
        }
        const d = ev.delta;
        switch (d.type) {
          case "text_delta":
            if (d.text) {
              out.push({
                event: { case: "textDelta", value: { text: d.text } },
              });
            }
            return;
          case "input_json_delta":
            if (d.partial_json) {
              open.sawJson = true;
              out.push({
                event: {
                  case: "toolCallDelta",
                  value: { id: open.id, argumentsFragment: d.partial_json },
                },
              });
            }
            return;
          case "thinking_delta":
            if (d.thinking) {
              out.push({
                event: { case: "thinkingDelta", value: { text: d.thinking } },
              });
            }
            return;
          case "signature_delta":
            open.signature += d.signature ?? "";
            return;
          default:
            return; // citations_delta and future kinds
        }
      }
      case "content_block_stop": {
        const open = this.#blocks.get(ev.index);
        if (!open) {
          throw new ProtocolError(
            `content_block_stop for block ${ev.index}, which was never started`,
          );
        }
        this.#blocks.delete(ev.index);
        if (open.kind === "tool_use") {
          // Input that came whole in content_block_start, not as deltas.
          if (
            !open.sawJson && open.input && typeof open.input === "object" &&
            Object.keys(open.input).length > 0
          ) {
            out.push({
              event: {
                case: "toolCallDelta",
                value: {
                  id: open.id,
                  argumentsFragment: JSON.stringify(open.input),
                },
              },
            });
          }
          out.push({ event: { case: "toolCallDone", value: { id: open.id } } });
        } else if (open.kind === "thinking" && open.signature !== "") {
          out.push({
            event: {
              case: "thinkingSignature",
              value: { signature: utf8.encode(open.signature) },
            },
          });
        }
        return;
      }
      case "message_delta":
        this.#requireStarted(ev.type);
        this.#stopReason = ev.delta.stop_reason;
        this.#stopSequence = ev.delta.stop_sequence;
        this.#mergeUsage(ev.usage);
        return;
      case "message_stop": {
        this.#requireStarted(ev.type);
        this.done = true;
        out.push({ event: { case: "usage", value: this.usage() } });
        const reason = stopReasonOf(this.#stopReason);
        out.push({
          event: {
            case: "stop",
            value: {
              reason,
              ...(reason === StopReason.STOP_SEQUENCE && this.#stopSequence
                ? { matchedStopSequence: this.#stopSequence }
                : {}),
            },
          },
        });
        return;
      }
      case "ping":
        return;
      default:
        return; // unknown event types are skipped, as the vendor advises
    }
  }

  /** The usage so far, as `model.v1.Usage` (init shape). */
  usage(): NonNullable<
    Extract<StreamEventInit["event"], { case: "usage" }>["value"]
  > {
    const u = this.#usage;
    const thinking = u.output_tokens_details?.thinking_tokens ?? undefined;
    return {
      inputTokens: BigInt(u.input_tokens ?? 0),
      outputTokens: BigInt(u.output_tokens ?? 0),
      cacheReadTokens: BigInt(u.cache_read_input_tokens ?? 0),
      cacheWriteTokens: BigInt(u.cache_creation_input_tokens ?? 0),
      ...(thinking !== undefined && thinking !== null
        ? { reasoningTokens: BigInt(thinking), reasoningAlreadyCounted: true }
        : {}),
    };
  }

  #open(kind: OpenBlock["kind"], id: string): OpenBlock {
    return { kind, id, sawJson: false, signature: "" };
  }

  #requireStarted(type: string): void {
    if (!this.#started) {
      throw new ProtocolError(`${type} before message_start`);
    }
  }
}
