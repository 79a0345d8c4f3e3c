/**
 * Playing a turn: choosing it from the request's history, checking the
 * request against the model, and the stream events it yields.
 *
 * @module
 */

import type { MessageInitShape } from "@bufbuild/protobuf";
import type {
  ContentBlock,
  Message,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { Role } from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { ModelErrorCategory } from "../../proto/gen/pluggableharness/model/v1/errors_pb.ts";
import type { StreamEventSchema } from "../../proto/gen/pluggableharness/model/v1/events_pb.ts";
import type { GenerationParams } from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import { ToolChoiceMode } from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import {
  CATEGORIES,
  type Script,
  type ScriptModel,
  type ScriptTurn,
  STOPS,
  TOOL_CHOICES,
  type ToolChoiceName,
} from "./_format.ts";
import {
  countRequestTokens,
  countValueTokens,
  countWords,
  type TokenCountInput,
} from "./_tokenizer.ts";

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
  // Like a vendor: a request over the window is refused, not truncated.
  const input = countRequestTokens(req);
  if (input > model.contextWindow) {
    return {
      turn,
      events: [errorEvent(
        ModelErrorCategory.CONTEXT_LENGTH_EXCEEDED,
        `the request has ${input} tokens, over the context window of ${model.contextWindow}`,
      )],
      delayMs: 0,
    };
  }
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

  return { turn, events: turnEvents(t, req), delayMs: t.delayMs };
}

/** The events of a turn: deltas, tool calls, usage, then the stop or error. */
function turnEvents(t: ScriptTurn, req: TurnRequest): StreamEventInit[] {
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
  return events;
}
