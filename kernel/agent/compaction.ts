/**
 * Compaction on the kernel side (plugins.md §6.3, seed 004): a compactor's
 * `rewritten_history` becomes the session's durable history, the pass is
 * recorded so that a resumed session continues from the compacted history,
 * and the fill of the model's window is reported on band crossings.
 *
 * The record is a `control` event of channel `compaction` with no
 * `rendered` text (it is not itself a block the model read): its
 * attributes give the strategy, the provider, the token counts and `kept`,
 * the number of trailing messages of the old history kept unchanged; its
 * body holds the new leading messages as JSON (proto JSON of
 * `content.v1.Message`). {@linkcode rebuildHistory} applies it.
 *
 * Bands (`context-usage`): `comfortable` below 50 % of the window,
 * `filling` below 80 % (the compactor's default threshold), `near_full`
 * from there. The first report of a session is the first crossing out of
 * `comfortable`.
 *
 * @module
 */
import { equals, fromJson, type JsonValue, toJson } from "@bufbuild/protobuf";
import {
  type Message,
  MessageSchema,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import type { SessionCore } from "./_session_core.ts";
import type { TokenCount } from "./token_count.ts";

/** The channel of the compaction record. */
export const COMPACTION_RECORD_CHANNEL = "compaction";

/** The fill bands of `context-usage`. */
export type UsageBand = "comfortable" | "filling" | "near_full";

/** Where `filling` starts, in percent of the window. */
export const FILLING_PCT = 50;
/** Where `near_full` starts (the compactor's default threshold). */
export const NEAR_FULL_PCT = 80;

/**
 * The band of a fill.
 *
 * @param pct Percent of the window in use.
 * @returns The band.
 */
export function usageBand(pct: number): UsageBand {
  return pct < FILLING_PCT
    ? "comfortable"
    : pct < NEAR_FULL_PCT
    ? "filling"
    : "near_full";
}

/** What a (forced) compaction pass did. */
export interface CompactionOutcome {
  /** `true` when the history was rewritten. */
  readonly compacted: boolean;
  /** The compactor that rewrote it. */
  readonly provider?: string;
  /** The history's tokens before. */
  readonly tokensBefore: number;
  /** The history's tokens after (equal to before when nothing changed). */
  readonly tokensAfter: number;
  /** `true` when the model's own tokenizer counted both. */
  readonly exact: boolean;
  /** Why nothing changed, when nothing did. */
  readonly reason?: string;
}

/** A rewrite as it is recorded: new leading messages and the kept tail. */
export interface HistoryRewrite {
  /** Messages that replace everything before the kept tail. */
  readonly lead: Message[];
  /** How many trailing messages of the old history are kept unchanged. */
  readonly kept: number;
}

/**
 * Splits a rewritten history into the new leading messages and the
 * unchanged tail of the old history.
 *
 * @param before The old history.
 * @param after The rewritten history.
 * @returns The rewrite.
 */
export function diffRewrite(
  before: readonly Message[],
  after: readonly Message[],
): HistoryRewrite {
  let kept = 0;
  while (
    kept < before.length && kept < after.length &&
    equals(
      MessageSchema,
      before[before.length - 1 - kept]!,
      after[after.length - 1 - kept]!,
    )
  ) kept++;
  return { lead: after.slice(0, after.length - kept), kept };
}

/**
 * The body of the compaction record.
 *
 * @param lead The new leading messages.
 * @returns JSON text.
 */
export function rewriteBody(lead: readonly Message[]): string {
  return JSON.stringify(lead.map((m) => toJson(MessageSchema, m)));
}

/**
 * Applies a compaction record to a history being rebuilt.
 *
 * @param history The history so far (finalized messages).
 * @param kept The record's `kept`.
 * @param body The record's body.
 * @returns The history after the compaction.
 * @throws {SyntaxError} When the body is not the JSON the kernel wrote.
 */
export function applyRewrite(
  history: readonly Message[],
  kept: number,
  body: string,
): Message[] {
  const lead = (JSON.parse(body) as JsonValue[]).map((j) =>
    fromJson(MessageSchema, j)
  );
  return [
    ...lead,
    ...(kept > 0 ? history.slice(Math.max(0, history.length - kept)) : []),
  ];
}

/**
 * The body of a `context-usage` block.
 *
 * @param band The band entered.
 * @returns The text.
 */
export function usageNudge(band: UsageBand): string {
  switch (band) {
    case "near_full":
      return "The context window is nearly full: wrap up, or keep what matters in <cp:compact> summaries; older history will be compacted.";
    case "filling":
      return "The context window is filling up.";
    default:
      return "The context window has room again.";
  }
}

/**
 * Makes a compactor's rewrite durable: the session's history becomes the
 * rewritten one, the record is written, a `compaction` event is emitted,
 * and the control plane reports the pass (`compaction-start` first when
 * nobody forced it: the kernel learns of an automatic pass when it is done).
 *
 * @param core The session.
 * @param r The compactor, the turn, the new history and the counts.
 * @returns The outcome.
 */
export async function recordCompaction(
  core: SessionCore,
  r: {
    provider: string;
    turnId: string;
    messages: readonly Message[];
    before: TokenCount;
    after: TokenCount;
    announce: boolean;
  },
): Promise<CompactionOutcome> {
  const { lead, kept } = diffRewrite(core.history, r.messages);
  const exact = r.before.exact && r.after.exact;
  await core.writer.compaction({
    provider: r.provider,
    tokensBefore: r.before.count,
    tokensAfter: r.after.count,
    kept,
    body: rewriteBody(lead),
    turnId: r.turnId,
    exact,
  });
  core.history.splice(0, core.history.length, ...r.messages);
  core.emit({
    type: "compaction",
    turnId: r.turnId,
    provider: r.provider,
    tokensBefore: r.before.count,
    tokensAfter: r.after.count,
    exact,
  });
  if (core.control) {
    if (r.announce) {
      core.control.post({ channel: "compaction-start", attrs: {} });
    }
    core.control.post({
      channel: "compaction",
      attrs: {
        strategy: "summary",
        "tokens-before": r.before.count,
        "tokens-after": r.after.count,
      },
      body:
        `Older history was summarized by ${r.provider}; the summary leads the kept turns.`,
      source: r.provider,
    });
  }
  return {
    compacted: true,
    provider: r.provider,
    tokensBefore: r.before.count,
    tokensAfter: r.after.count,
    exact,
  };
}

/**
 * Reports the window's fill when it crossed into another band: a
 * `context_usage` event and a `context-usage` block (near full, with the
 * nudge to wrap up or compact).
 *
 * @param core The session.
 * @param r The turn, the tokens used, the window and the last band.
 * @returns The band now.
 */
export function reportUsage(
  core: SessionCore,
  r: {
    turnId: string;
    used: number;
    window: number;
    exact: boolean;
    last: UsageBand;
  },
): UsageBand {
  if (!(r.window > 0)) return r.last;
  const pct = Math.floor((r.used / r.window) * 100);
  const band = usageBand(pct);
  if (band === r.last) return band;
  core.emit({
    type: "context_usage",
    turnId: r.turnId,
    used: r.used,
    window: r.window,
    pct,
    band,
    exact: r.exact,
  });
  core.control?.post({
    channel: "context-usage",
    attrs: { used: r.used, window: r.window, pct },
    body: usageNudge(band),
  });
  return band;
}
