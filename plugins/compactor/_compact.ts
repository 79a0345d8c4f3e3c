/**
 * The compactor's decisions, free of I/O: when to compact, which part of
 * the history is summarized and which is kept, the summarizer's prompt,
 * and the rewritten history.
 *
 * Kept verbatim: the recent turns (from the `keep_recent_turns`-th last
 * user prompt on). The system prompt and the context sections are not part
 * of the history and pass through untouched. The older part is summarized;
 * every `<cp:compact>` typed summary the model wrote in it is kept word for
 * word beside the summary (the design's "typed summaries preserved in
 * history"), as is every earlier compaction summary (it is older history).
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import {
  type ContentBlock,
  ContentBlockSchema,
  type Message,
  MessageSchema,
  Role,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";

/** The compactor's settings (its provider block). */
export interface CompactorConfig {
  /** Fraction of the model's window that triggers a compaction. */
  readonly threshold: number;
  /** How many recent user prompts (with their turns) are kept verbatim. */
  readonly keepRecentTurns: number;
  /** The `agent_profile` whose model writes the summary. */
  readonly summaryProfile: string;
  /** The most characters of one tool result the summarizer reads. */
  readonly maxResultChars: number;
}

/** The defaults of {@linkcode CompactorConfig}. */
export const DEFAULT_CONFIG: Omit<CompactorConfig, "summaryProfile"> = {
  threshold: 0.8,
  keepRecentTurns: 2,
  maxResultChars: 2000,
};

/** The opening line of the summary block the compactor writes. */
export const SUMMARY_HEADER = "<cp-summary>";
/** Its closing line. */
export const SUMMARY_FOOTER = "</cp-summary>";

const COMPACT_BLOCK_REGEXP = /<cp:compact\b[^>]*>[\s\S]*?<\/cp:compact>/g;

/**
 * Whether the assembled context has crossed the threshold.
 *
 * @param used The history's and sections' tokens.
 * @param window The model's context window.
 * @param threshold The fraction (0–1].
 * @returns `true` when a compaction is due.
 */
export function isOverThreshold(
  used: number,
  window: number,
  threshold: number,
): boolean {
  return window > 0 && used >= window * threshold;
}

/** A user message that is a prompt (not only tool results). */
function isPrompt(m: Message): boolean {
  return m.role === Role.USER &&
    m.content.some((b) => b.block.case !== "toolResult");
}

/**
 * Where the kept tail starts: the `keep`-th last user prompt. `0` (nothing
 * older to summarize) when the history has no more prompts than that.
 *
 * @param history The conversation.
 * @param keep How many recent prompts to keep.
 * @returns The index of the first kept message.
 */
export function splitIndex(history: readonly Message[], keep: number): number {
  let seen = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    if (isPrompt(history[i]!)) {
      seen++;
      if (seen >= Math.max(1, keep)) return i;
    }
  }
  return 0;
}

function textOf(blocks: readonly ContentBlock[]): string {
  return blocks.flatMap((b) =>
    b.block.case === "text" ? [b.block.value.text] : []
  ).join("\n");
}

/**
 * The `<cp:compact>` blocks and earlier summaries in the older history,
 * in order: they are kept word for word.
 *
 * @param older The messages to summarize.
 * @returns The kept lines.
 */
export function keptSummaries(older: readonly Message[]): string[] {
  const out: string[] = [];
  for (const m of older) {
    const text = textOf(m.content);
    if (m.role === Role.ASSISTANT) {
      out.push(...(text.match(COMPACT_BLOCK_REGEXP) ?? []));
    }
    const start = text.indexOf(SUMMARY_HEADER);
    const end = text.indexOf(SUMMARY_FOOTER);
    if (start >= 0 && end > start) {
      out.push(
        ...(text.slice(start + SUMMARY_HEADER.length, end).match(
          COMPACT_BLOCK_REGEXP,
        ) ?? []),
      );
    }
  }
  return [...new Set(out)];
}

/**
 * The transcript the summarizer reads: one line per text, tool call and
 * tool result, results cut to `maxResultChars`.
 *
 * @param older The messages to summarize.
 * @param maxResultChars The cut.
 * @returns The transcript.
 */
export function transcriptOf(
  older: readonly Message[],
  maxResultChars: number,
): string {
  const lines: string[] = [];
  for (const m of older) {
    const who = m.role === Role.ASSISTANT ? "assistant" : "user";
    for (const b of m.content) {
      switch (b.block.case) {
        case "text":
          lines.push(`${who}: ${b.block.value.text}`);
          break;
        case "toolUse":
          lines.push(
            `${who} called ${b.block.value.name}(${
              JSON.stringify(b.block.value.arguments ?? {})
            })`,
          );
          break;
        case "toolResult": {
          const r = b.block.value;
          let body = textOf(r.content);
          if (body.length > maxResultChars) {
            body = `${body.slice(0, maxResultChars)} […cut]`;
          }
          lines.push(`tool result${r.isError ? " (error)" : ""}: ${body}`);
          break;
        }
        default:
          lines.push(`${who}: [${b.block.case ?? "empty"} block]`);
      }
    }
  }
  return lines.join("\n");
}

/**
 * The prompt of the summarizer's session.
 *
 * @param transcript The older conversation.
 * @returns The prompt.
 */
export function summaryPrompt(transcript: string): string {
  return [
    "Summarize the earlier part of an agent session below so the agent can continue without it.",
    "Keep: the user's goals and requests, decisions and their reasons, facts learned, files touched, commands run and their outcomes, and open work.",
    "Write plain prose or short bullet points; do not call tools.",
    "",
    "<transcript>",
    transcript,
    "</transcript>",
  ].join("\n");
}

/**
 * The rewritten history: the summary (and the kept typed summaries) as a
 * leading text block of the first kept user prompt, then the rest of the
 * kept tail unchanged (so roles still alternate).
 *
 * @param tail The kept messages (starting with a user prompt).
 * @param summary The summarizer's text.
 * @param kept The kept `<cp:compact>` blocks.
 * @returns The new history.
 */
export function rewrittenHistory(
  tail: readonly Message[],
  summary: string,
  kept: readonly string[],
): Message[] {
  const text = [
    SUMMARY_HEADER,
    "The earlier conversation was compacted; its summary:",
    summary.trim(),
    ...(kept.length ? ["", "Typed summaries kept:", ...kept] : []),
    SUMMARY_FOOTER,
  ].join("\n");
  const [first, ...rest] = tail;
  if (!first) throw new RangeError("the kept tail is empty");
  return [
    create(MessageSchema, {
      ...first,
      content: [
        create(ContentBlockSchema, {
          block: { case: "text", value: { text } },
        }),
        ...first.content,
      ],
    }),
    ...rest,
  ];
}
