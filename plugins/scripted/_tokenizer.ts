/**
 * The scripted model's tokenizer: one token per word, used for CountTokens
 * and for the usage of turns that declare none.
 *
 * @module
 */

import type { JsonValue } from "@bufbuild/protobuf";
import type {
  ContentBlock,
  ContextSection,
  Message,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import type { ToolDeclaration } from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import type { Schema } from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";

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
