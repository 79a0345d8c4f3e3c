/**
 * CountTokens for roster models: the request rendered as the chat messages
 * and function definitions OpenAI bills, counted with gpt-tokenizer's
 * `o200k_base` encoding and its chat overhead (per-message framing, the
 * reply primer, and the function-definition preamble). Image and document
 * blocks are not counted (their cost depends on pixels and pages).
 *
 * The chat overhead is gpt-tokenizer's own `computeChatCompletionTokenCount`;
 * the text inside it is counted by {@linkcode BpeCounter} over the same
 * vocabulary and split regex, which gives gpt-tokenizer's count (special
 * token text counted as plain text, as its chat counter does) several times
 * faster and remembers the pieces it has counted.
 *
 * Models the roster does not know have no exact tokenizer: the plugin
 * answers UNIMPLEMENTED and the kernel uses its single fallback formula.
 *
 * @module
 */
import type {
  ContentBlock,
  ContextSection,
  Message,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { Role } from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import type { ToolDeclaration } from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import { jsonSchemaOf, systemText } from "./translate.ts";
import { BpeCounter, o200kAsciiPiece } from "./_bpe_count.ts";

/** What a count covers (a `CountTokensRequest`). */
export interface TokenCountInput {
  /** The history. */
  messages: readonly Message[];
  /** The system chain. */
  assembledContext: readonly ContextSection[];
  /** The tool declarations. */
  tools: readonly ToolDeclaration[];
}

/** A chat message as gpt-tokenizer counts it. */
export interface ChatMessage {
  role: string;
  content: string;
  name?: string;
  function_call?: { name: string; arguments: string };
}

type Counter = (request: {
  messages: ChatMessage[];
  functions?: unknown[];
}) => number;

let counter: Promise<Counter> | undefined;

/** Loads the tokenizer once (the BPE ranks are large). */
function loadCounter(): Promise<Counter> {
  counter ??= Promise.all([
    import("gpt-tokenizer/bpeRanks/o200k_base"),
    import("gpt-tokenizer/encodingParams/constants"),
    import("gpt-tokenizer/functionCalling"),
  ]).then(([ranks, constants, chat]) => {
    const bpe = new BpeCounter(
      ranks.default,
      constants.O200K_TOKEN_SPLIT_REGEX,
      { asciiPiece: o200kAsciiPiece },
    );
    // gpt-tokenizer's own string counter answers 0 for "" before counting.
    const countText = (text: string) => text === "" ? 0 : bpe.count(text);
    return (request) =>
      chat.computeChatCompletionTokenCount(
        request as Parameters<typeof chat.computeChatCompletionTokenCount>[0],
        countText,
      );
  });
  return counter;
}

function texts(blocks: readonly ContentBlock[]): string {
  return blocks.flatMap((b) =>
    b.block.case === "text" ? [b.block.value.text] : []
  )
    .join("\n");
}

/**
 * The chat messages a request amounts to.
 *
 * @param input The request.
 * @returns Messages for gpt-tokenizer.
 */
export function chatMessagesOf(input: TokenCountInput): ChatMessage[] {
  const out: ChatMessage[] = [];
  const system = systemText(input.assembledContext);
  if (system !== "") out.push({ role: "system", content: system });
  for (const m of input.messages) {
    if (m.role === Role.ASSISTANT) {
      const text = texts(m.content);
      const calls = m.content.flatMap((b) =>
        b.block.case === "toolUse" ? [b.block.value] : []
      );
      if (text !== "" || calls.length === 0) {
        out.push({ role: "assistant", content: text });
      }
      for (const c of calls) {
        out.push({
          role: "assistant",
          content: "",
          function_call: {
            name: c.name,
            arguments: JSON.stringify(c.arguments ?? {}),
          },
        });
      }
      continue;
    }
    const rest: ContentBlock[] = [];
    for (const b of m.content) {
      if (b.block.case === "toolResult") {
        out.push({ role: "tool", content: texts(b.block.value.content) });
      } else rest.push(b);
    }
    const text = texts(rest);
    if (text !== "") out.push({ role: "user", content: text });
  }
  return out;
}

/**
 * Counts a would-be request exactly as the o200k chat format does.
 *
 * @param input The request.
 * @returns The token count.
 */
export async function countRequestTokens(
  input: TokenCountInput,
): Promise<number> {
  const count = await loadCounter();
  const functions = input.tools.map((t) => ({
    name: t.name,
    ...(t.description ? { description: t.description } : {}),
    parameters: jsonSchemaOf(t.inputSchema),
  }));
  return count({
    messages: chatMessagesOf(input),
    ...(functions.length > 0 ? { functions } : {}),
  });
}
