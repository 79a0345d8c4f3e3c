/**
 * Step 4 of a turn: reading one model stream. {@linkcode StreamAccumulator}
 * collects the stream's events into canonical content blocks in emission
 * order (text, thinking, tool uses with their arguments parsed and
 * key-sorted), its stop reason, error and usage events;
 * {@linkcode sumUsage} adds the usage events up. The routing, retries and
 * fallback around the stream are in `model_call.ts`.
 *
 * @module
 */
import { create, type JsonObject } from "@bufbuild/protobuf";
import {
  type ContentBlock,
  ContentBlockSchema,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import type { StreamEvent } from "../../proto/gen/pluggableharness/model/v1/events_pb.ts";
import type { ModelError } from "../../proto/gen/pluggableharness/model/v1/errors_pb.ts";
import {
  type StopReason,
  type Usage,
  UsageSchema,
} from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import { ulid } from "../state/ulid.ts";
import { sortJsonKeys } from "./doom_loop.ts";

interface PendingToolUse {
  kind: "tool_use";
  id: string;
  name: string;
  args: string;
}

/** Accumulates a model stream into content blocks in emission order. */
export class StreamAccumulator {
  #parts: (ContentBlock | PendingToolUse)[] = [];
  #tools = new Map<string, PendingToolUse>();
  #lastTool: PendingToolUse | undefined;
  /** The stop reason, once received. */
  stopReason: StopReason | undefined;
  /** The error, once received. */
  error: ModelError | undefined;
  /** Usage events received so far. */
  readonly usages: Usage[] = [];

  /**
   * Feeds one stream event.
   *
   * @param event The event.
   */
  push(event: StreamEvent): void {
    const e = event.event;
    switch (e.case) {
      case "textDelta": {
        const last = this.#parts.at(-1);
        if (last && "block" in last && last.block.case === "text") {
          last.block.value.text += e.value.text;
        } else {
          this.#parts.push(create(ContentBlockSchema, {
            block: { case: "text", value: { text: e.value.text } },
          }));
        }
        return;
      }
      case "thinkingDelta": {
        const last = this.#parts.at(-1);
        // A signed thinking block is complete: a new delta starts the next
        // block (two back-to-back blocks must keep their own signatures).
        if (
          last && "block" in last && last.block.case === "thinking" &&
          last.block.value.signature.length === 0
        ) {
          last.block.value.text += e.value.text;
        } else {
          this.#parts.push(create(ContentBlockSchema, {
            block: { case: "thinking", value: { text: e.value.text } },
          }));
        }
        return;
      }
      case "thinkingSignature": {
        const thinking = this.#parts.findLast((p) =>
          "block" in p && p.block.case === "thinking"
        ) as ContentBlock | undefined;
        if (thinking?.block.case === "thinking") {
          thinking.block.value.signature = e.value.signature;
        } else {
          this.#parts.push(create(ContentBlockSchema, {
            block: {
              case: "thinking",
              value: { text: "", signature: e.value.signature },
            },
          }));
        }
        return;
      }
      case "redactedThinking":
        this.#parts.push(create(ContentBlockSchema, {
          block: { case: "redactedThinking", value: { data: e.value.data } },
        }));
        return;
      case "toolCallStart": {
        const t: PendingToolUse = {
          kind: "tool_use",
          id: e.value.id || ulid(),
          name: e.value.name,
          args: "",
        };
        this.#parts.push(t);
        if (e.value.id) this.#tools.set(e.value.id, t);
        this.#lastTool = t;
        return;
      }
      case "toolCallDelta": {
        const t = (e.value.id ? this.#tools.get(e.value.id) : undefined) ??
          this.#lastTool;
        if (t) t.args += e.value.argumentsFragment;
        return;
      }
      case "usage":
        this.usages.push(e.value);
        return;
      case "stop":
        this.stopReason = e.value.reason;
        return;
      case "error":
        this.error = e.value.error;
        return;
      default:
        return;
    }
  }

  /**
   * The blocks received so far; tool arguments parsed.
   *
   * @param options `partial` keeps only text and thinking blocks.
   * @returns The blocks and the `tool_use` ids with invalid arguments.
   */
  finish(options: { partial?: boolean } = {}): {
    content: ContentBlock[];
    invalidArguments: Map<string, string>;
  } {
    const invalid = new Map<string, string>();
    const content: ContentBlock[] = [];
    for (const p of this.#parts) {
      if (!("kind" in p)) {
        if (
          !options.partial || p.block.case === "text" ||
          p.block.case === "thinking"
        ) content.push(p);
        continue;
      }
      if (options.partial) continue;
      let args: JsonObject = {};
      if (p.args.trim() !== "") {
        try {
          const parsed = JSON.parse(p.args);
          if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
            args = sortJsonKeys(parsed as JsonObject);
          } else {
            invalid.set(p.id, "the arguments are not a JSON object");
          }
        } catch (err) {
          invalid.set(
            p.id,
            `the arguments are not valid JSON: ${(err as Error).message}`,
          );
        }
      }
      content.push(create(ContentBlockSchema, {
        block: {
          case: "toolUse",
          value: { id: p.id, name: p.name, arguments: args },
        },
      }));
    }
    return { content, invalidArguments: invalid };
  }
}

/**
 * Adds usage events up.
 *
 * @param usages The events.
 * @returns Their sum.
 */
export function sumUsage(usages: readonly Usage[]): Usage {
  const sum = create(UsageSchema, { inputTokens: 0n, outputTokens: 0n });
  const opt = (a: bigint | undefined, b: bigint | undefined) =>
    a === undefined && b === undefined ? undefined : (a ?? 0n) + (b ?? 0n);
  for (const u of usages) {
    sum.inputTokens += u.inputTokens;
    sum.outputTokens += u.outputTokens;
    sum.cacheReadTokens = opt(sum.cacheReadTokens, u.cacheReadTokens);
    sum.cacheWriteTokens = opt(sum.cacheWriteTokens, u.cacheWriteTokens);
    sum.reasoningTokens = opt(sum.reasoningTokens, u.reasoningTokens);
    if (u.reasoningAlreadyCounted !== undefined) {
      sum.reasoningAlreadyCounted = u.reasoningAlreadyCounted;
    }
  }
  return sum;
}
