/**
 * Reading and validating one turn of a script against its model.
 *
 * @module
 */

import type { JsonObject } from "@bufbuild/protobuf";
import {
  CATEGORIES,
  type ErrorCategoryName,
  RETRYABLE,
  type ScriptModel,
  type ScriptTurn,
  type ScriptUsage,
  type StopName,
  STOPS,
} from "./_format.ts";
import { isRecord, type Raw, type Reader } from "./_reader.ts";

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

/** Reads `turns[index]` against the model; problems go to `r`. */
export function readTurn(
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
    readToolCalls(r, t.tool_calls, at, index, model, ids, turn);
  }

  const u = r.object(t.usage, `${at}.usage`);
  if (u) turn.usage = readUsage(r, u, at, model);

  const e = r.object(t.error, `${at}.error`);
  if (e) readError(r, e, at, t.stop !== undefined, turn);

  readStop(r, t, at, turn);

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

/** `tool_calls`: each call's id (unique in the script), name and arguments. */
function readToolCalls(
  r: Reader,
  calls: unknown,
  at: string,
  index: number,
  model: ScriptModel,
  ids: Set<string>,
  turn: ScriptTurn,
): void {
  if (!Array.isArray(calls)) {
    r.add(`${at}.tool_calls`, "must be a list");
  } else {
    if (!model.supportsToolUse && calls.length > 0) {
      r.add(
        `${at}.tool_calls`,
        "the model does not support tool use (model.supports_tool_use is false)",
      );
    }
    if (!model.supportsParallelToolCalls && calls.length > 1) {
      r.add(
        `${at}.tool_calls`,
        "the model does not support parallel tool calls: at most one per turn",
      );
    }
    calls.forEach((rc, i) => {
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

/** `usage`: the token counts the turn reports. */
function readUsage(
  r: Reader,
  u: Raw,
  at: string,
  model: ScriptModel,
): ScriptUsage {
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
  return usage;
}

/** `error`: the failure that ends the turn instead of a stop. */
function readError(
  r: Reader,
  e: Raw,
  at: string,
  hasStop: boolean,
  turn: ScriptTurn,
): void {
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
  if (hasStop) {
    r.add(`${at}.stop`, "a turn ends with either stop or error, not both");
  }
}

/** `stop` and `matched_stop_sequence` (no stop when the turn ends in an error). */
function readStop(r: Reader, t: Raw, at: string, turn: ScriptTurn): void {
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
}
