/**
 * The terminal UI's model of a session's transcript, fed by the two
 * streams a frontend has: live token deltas (`StreamDeltas`, never
 * stored) and the stored events (`RenderEvents`: messages, tool calls and
 * results, plans and their outcomes, each with the Render tree of the
 * plugin build that produced it). A tool call or result whose producer
 * painted a tree keeps that tree, so a third-party tool is drawn its own
 * way; one the kernel rendered (the producer has no `Render`, failed or is
 * not running) is drawn from its payload as text. A stored assistant
 * message replaces the text streamed for it; a backfill (attach, resume)
 * is the same stored events read from the start.
 *
 * @module
 */
import { fromBinary, type JsonObject } from "@bufbuild/protobuf";
import {
  ApplyEventSchema,
  MessageEventSchema,
  PlanEventSchema,
  ToolCallEventSchema,
  ToolResultEventSchema,
} from "../../proto/gen/pluggableharness/event/v1/events_pb.ts";
import {
  DeltaKind,
  EventKind,
} from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import { Role } from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import type { RenderTree } from "../../proto/gen/pluggableharness/render/v1/types_pb.ts";
import {
  ApplyResult_ApplyOutcome,
  PlanDecision,
  type PlanItem,
} from "../../proto/gen/pluggableharness/plan/v1/types_pb.ts";

/** One entry of the transcript. */
export type Entry =
  | { kind: "user"; text: string }
  | { kind: "assistant"; text: string; streaming: boolean }
  | { kind: "thinking"; text: string; streaming: boolean }
  | {
    kind: "tool";
    callId: string;
    name: string;
    args: string;
    status: "running" | "ok" | "error" | "denied";
    output: string;
    /** The tool's own rendering of the call (drawn instead of `args`). */
    callTree?: RenderTree;
    /** The tool's own rendering of the result (drawn instead of `output`). */
    resultTree?: RenderTree;
  }
  | { kind: "notice"; text: string; tone: "info" | "warning" | "error" };

/** A plan item waiting for this operator's answer. */
export interface PendingAsk {
  /** The plan item. */
  item: PlanItem;
  /** The turn it belongs to. */
  turnId: string;
}

/** A stored event as `ReadEvents` delivers it. */
export interface StoredEventLike {
  /** Its sequence. */
  sequence: bigint;
  /** Its kind. */
  kind: EventKind;
  /** Its payload bytes. */
  payload: Uint8Array;
}

/** The Render tree `RenderEvents` delivers with an event. */
export interface RenderedLike {
  /** The producer's tree, or the kernel's rendering of the payload. */
  tree?: RenderTree | undefined;
  /** Why the kernel rendered it; empty when the producer did. */
  fallback: string;
}

/** The producer's own tree, if it painted a non-empty one. */
function producerTree(r: RenderedLike | undefined): RenderTree | undefined {
  return r && !r.fallback && r.tree?.root?.node.case ? r.tree : undefined;
}

/** A live delta as `StreamDeltas` delivers it. */
export interface DeltaLike {
  /** The text fragment. */
  text: string;
  /** Its channel. */
  kind: DeltaKind;
}

function compactJson(v: unknown, max = 200): string {
  let s: string;
  try {
    s = JSON.stringify(v ?? {});
  } catch {
    s = String(v);
  }
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** A tool result payload as text: its `text` (or `content`), else JSON. */
export function resultText(payload: JsonObject | undefined): string {
  if (!payload) return "";
  for (const key of ["text", "content", "output", "stdout"]) {
    const v = payload[key];
    if (typeof v === "string") return v;
  }
  return JSON.stringify(payload, null, 2);
}

/** The transcript and the asks, with a version that changes on every update. */
export class Transcript {
  /** The entries, oldest first. */
  readonly entries: Entry[] = [];
  /** Plan items that ask, not yet answered or settled. */
  readonly asks: PendingAsk[] = [];
  /** The next stored sequence to read. */
  next = 1n;
  /** Bumped on every change. */
  version = 0;
  /** Final assistant answers seen (a message without tool uses). */
  finals = 0;
  /** Cost reported by stored messages, summed (USD). */
  cost = 0;
  readonly #tools = new Map<string, Extract<Entry, { kind: "tool" }>>();
  /**
   * The end of the last stored answer not yet seen as deltas: the stored
   * message can be read before its last deltas arrive (two streams), and
   * those are then dropped.
   */
  #lateTail = "";
  /** Prompts this frontend sent and has not yet seen stored. */
  readonly #sent: string[] = [];

  /**
   * Shows a prompt at once (its stored message is recognised later).
   *
   * @param text The prompt.
   */
  addPrompt(text: string): void {
    this.#sent.push(text);
    this.#finishStreaming();
    this.entries.push({ kind: "user", text });
    this.version++;
  }

  /**
   * Adds a notice line.
   *
   * @param text The notice.
   * @param tone Its tone.
   */
  notice(text: string, tone: "info" | "warning" | "error" = "info"): void {
    this.entries.push({ kind: "notice", text, tone });
    this.version++;
  }

  /**
   * Appends a live delta to the streaming answer (or thinking).
   *
   * @param d The delta.
   */
  applyDelta(d: DeltaLike): void {
    const kind = d.kind === DeltaKind.THINKING ? "thinking" : "assistant";
    if (kind === "assistant" && this.#lateTail) {
      if (this.#lateTail.startsWith(d.text)) {
        this.#lateTail = this.#lateTail.slice(d.text.length);
        return;
      }
      this.#lateTail = "";
    }
    const last = this.entries.at(-1);
    if (last && last.kind === kind && last.streaming) last.text += d.text;
    else {
      if (kind === "assistant") this.#finishStreaming();
      this.entries.push({ kind, text: d.text, streaming: true });
    }
    this.version++;
  }

  #finishStreaming(): void {
    for (const e of this.entries) {
      if ((e.kind === "assistant" || e.kind === "thinking") && e.streaming) {
        e.streaming = false;
      }
    }
  }

  /** The streaming entry of a kind, the newest one. */
  #streaming(kind: "assistant" | "thinking") {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const e = this.entries[i]!;
      if (e.kind === kind && e.streaming) return e;
      if (e.kind === "user") break;
    }
    return undefined;
  }

  /**
   * Applies one stored event.
   *
   * @param e The event.
   * @param rendered Its Render tree from `RenderEvents`; a tool call's or
   *   result's tree painted by its producer is drawn instead of the text.
   */
  applyEvent(e: StoredEventLike, rendered?: RenderedLike): void {
    if (e.sequence >= this.next) this.next = e.sequence + 1n;
    switch (e.kind) {
      case EventKind.MESSAGE:
        this.#message(e.payload);
        break;
      case EventKind.TOOL_CALL: {
        const call = fromBinary(ToolCallEventSchema, e.payload).call;
        if (!call) break;
        const tree = producerTree(rendered);
        const entry: Extract<Entry, { kind: "tool" }> = {
          kind: "tool",
          callId: call.id,
          name: call.toolName,
          args: compactJson(call.arguments),
          status: "running",
          output: "",
          ...(tree ? { callTree: tree } : {}),
        };
        const known = this.#tools.get(call.id);
        if (known) {
          Object.assign(known, { name: entry.name, args: entry.args });
          if (tree) known.callTree = tree;
        } else {
          this.#finishStreaming();
          this.#tools.set(call.id, entry);
          this.entries.push(entry);
        }
        break;
      }
      case EventKind.TOOL_RESULT: {
        const r = fromBinary(ToolResultEventSchema, e.payload);
        const t = this.#tool(r.toolCallId);
        if (r.outcome.case === "result") {
          t.status = "ok";
          t.output = resultText(r.outcome.value.payload);
        } else {
          t.status = "error";
          t.output = r.outcome.value?.message ?? "failed";
        }
        const tree = producerTree(rendered);
        if (tree) t.resultTree = tree;
        break;
      }
      case EventKind.PLAN: {
        const plan = fromBinary(PlanEventSchema, e.payload).plan;
        for (const item of plan?.items ?? []) {
          const t = this.#tool(item.callId, item.operationName);
          if (item.decision === PlanDecision.ASK) {
            this.asks.push({ item, turnId: plan?.turnId ?? "" });
          } else if (item.decision === PlanDecision.DENY) t.status = "denied";
        }
        break;
      }
      case EventKind.APPLY: {
        const r = fromBinary(ApplyEventSchema, e.payload).result;
        for (const item of r?.items ?? []) {
          this.settle(item.planItemId);
          if (item.outcome === ApplyResult_ApplyOutcome.DENIED) {
            const t = this.#tools.get(item.callId);
            if (t) {
              t.status = "denied";
              t.output ||= "denied";
            }
          }
        }
        break;
      }
      default:
        return;
    }
    this.version++;
  }

  /**
   * Forgets an ask (answered here or elsewhere, or settled by apply).
   *
   * @param planItemId The plan item.
   */
  settle(planItemId: string): void {
    const i = this.asks.findIndex((a) => a.item.id === planItemId);
    if (i >= 0) {
      this.asks.splice(i, 1);
      this.version++;
    }
  }

  #tool(callId: string, name = ""): Extract<Entry, { kind: "tool" }> {
    let t = this.#tools.get(callId);
    if (!t) {
      t = {
        kind: "tool",
        callId,
        name,
        args: "",
        status: "running",
        output: "",
      };
      this.#tools.set(callId, t);
      this.#finishStreaming();
      this.entries.push(t);
    }
    return t;
  }

  #message(payload: Uint8Array): void {
    const ev = fromBinary(MessageEventSchema, payload);
    const m = ev.message;
    if (!m) return;
    this.cost += ev.costUsd;
    const text = m.content.map((b) =>
      b.block.case === "text" ? b.block.value.text : ""
    ).join("");
    if (m.role === Role.USER) {
      if (!text) return; // tool results travel as user messages
      const i = this.#sent.indexOf(text);
      if (i >= 0) {
        this.#sent.splice(i, 1); // shown when sent
        return;
      }
      this.#finishStreaming();
      this.entries.push({ kind: "user", text });
      return;
    }
    if (m.role !== Role.ASSISTANT) return;
    const thinking = m.content.map((b) =>
      b.block.case === "thinking" ? b.block.value.text : ""
    ).join("");
    const streamedThinking = this.#streaming("thinking");
    if (thinking) {
      if (streamedThinking) {
        streamedThinking.text = thinking;
        streamedThinking.streaming = false;
      } else {
        this.entries.push({
          kind: "thinking",
          text: thinking,
          streaming: false,
        });
      }
    } else if (streamedThinking) streamedThinking.streaming = false;
    const streamed = this.#streaming("assistant");
    if (streamed) {
      this.#lateTail = text.startsWith(streamed.text)
        ? text.slice(streamed.text.length)
        : "";
      if (text) streamed.text = text;
      streamed.streaming = false;
    } else if (text) {
      this.#lateTail = text;
      this.entries.push({ kind: "assistant", text, streaming: false });
    }
    if (!m.content.some((b) => b.block.case === "toolUse")) this.finals++;
  }
}
