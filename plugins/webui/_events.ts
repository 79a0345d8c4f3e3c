/**
 * What the web UI sends the browser for a stored event: its sequence,
 * kind, producer, the `RenderTree` the kernel gave (`RenderEvents`), and,
 * for the event kinds the kernel writes, the decoded payload as protobuf
 * JSON (the kernel's own tree for those is a JSON dump, so the page paints
 * messages and plans from the payload). Also the Markdown export.
 *
 * @module
 */
import {
  type DescMessage,
  fromBinary,
  type JsonObject,
  type JsonValue,
  toJson,
} from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import type { RenderedEvent } from "../../proto/gen/pluggableharness/kernel/v1/events_pb.ts";
import { RenderTreeSchema } from "../../proto/gen/pluggableharness/render/v1/types_pb.ts";
import {
  ApplyEventSchema,
  ContextContributionEventSchema,
  ControlEventSchema,
  HookErrorEventSchema,
  MemoryMutationEventSchema,
  MessageEventSchema,
  PlanEventSchema,
  ToolCallEventSchema,
  ToolResultEventSchema,
} from "../../proto/gen/pluggableharness/event/v1/events_pb.ts";
import type { SessionInfo } from "../../proto/gen/pluggableharness/session/v1/types_pb.ts";
import { SessionStatus } from "../../proto/gen/pluggableharness/session/v1/types_pb.ts";
import { Category } from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";

const KINDS: Partial<Record<EventKind, [string, DescMessage]>> = {
  [EventKind.MESSAGE]: ["message", MessageEventSchema],
  [EventKind.TOOL_CALL]: ["tool_call", ToolCallEventSchema],
  [EventKind.TOOL_RESULT]: ["tool_result", ToolResultEventSchema],
  [EventKind.PLAN]: ["plan", PlanEventSchema],
  [EventKind.APPLY]: ["apply", ApplyEventSchema],
  [EventKind.CONTEXT_CONTRIBUTION]: [
    "context_contribution",
    ContextContributionEventSchema,
  ],
  [EventKind.MEMORY_WRITE]: ["memory_write", MemoryMutationEventSchema],
  [EventKind.MEMORY_UPDATE]: ["memory_update", MemoryMutationEventSchema],
  [EventKind.MEMORY_DELETE]: ["memory_delete", MemoryMutationEventSchema],
  [EventKind.HOOK_ERROR]: ["hook_error", HookErrorEventSchema],
  [EventKind.CONTROL]: ["control", ControlEventSchema],
};

/** One event as the page receives it. */
export interface EventView {
  /** The event's sequence. */
  seq: number;
  /** Its kind, e.g. `message`. */
  kind: string;
  /** When it was stored (ISO 8601), or "". */
  time: string;
  /** `category/name@version`. */
  producer: string;
  /**
   * The render tree (protobuf JSON); null when the kernel rendered the
   * decoded payload (`fallback` says why), which `payload` already holds.
   */
  tree: JsonValue;
  /** Why the kernel rendered it, or "". */
  fallback: string;
  /** The decoded payload (protobuf JSON), or null when it does not decode. */
  payload: JsonValue;
}

function categoryName(c: Category): string {
  // The kernel's own events carry no category.
  return c === Category.UNSPECIFIED
    ? "kernel"
    : (Category[c] ?? "unknown").toLowerCase();
}

/**
 * The page's view of one rendered event.
 *
 * @param r The event from `RenderEvents`.
 * @returns Its view.
 */
export function eventView(r: RenderedEvent): EventView {
  const e = r.event!;
  const info = KINDS[e.kind];
  let payload: JsonValue = null;
  if (info) {
    try {
      payload = toJson(info[1], fromBinary(info[1], e.payload));
    } catch {
      payload = null;
    }
  }
  const p = e.producer;
  return {
    seq: Number(e.sequence),
    kind: info?.[0] ?? `kind_${e.kind}`,
    time: e.time ? timestampDate(e.time).toISOString() : "",
    producer: p ? `${categoryName(p.category)}/${p.name}@${p.version}` : "",
    tree: r.tree && !(r.fallback && payload !== null)
      ? toJson(RenderTreeSchema, r.tree)
      : null,
    fallback: r.fallback,
    payload,
  };
}

/** One session as the list page receives it. */
export interface SessionView {
  /** The ULID. */
  id: string;
  /** The parent session, or "". */
  parent: string;
  /** The profile. */
  profile: string;
  /** `running`, `completed`, ... */
  status: string;
  /** Nesting depth. */
  depth: number;
  /** Start (ISO 8601), or "". */
  started: string;
  /** End (ISO 8601), or "" while it runs. */
  ended: string;
  /** Dollars spent, or null when nothing was. */
  cost: number | null;
}

/**
 * The page's view of a session's info.
 *
 * @param s The info.
 * @returns Its view.
 */
export function sessionView(s: SessionInfo): SessionView {
  return {
    id: s.sessionId,
    parent: s.parentSessionId ?? "",
    profile: s.profile,
    status: (SessionStatus[s.status] ?? "unknown").toLowerCase(),
    depth: s.depth,
    started: s.startedAt ? timestampDate(s.startedAt).toISOString() : "",
    ended: s.endedAt ? timestampDate(s.endedAt).toISOString() : "",
    cost: s.costUsd ?? null,
  };
}

function obj(v: JsonValue | undefined): JsonObject {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? v : {};
}

function arr(v: JsonValue | undefined): JsonValue[] {
  return Array.isArray(v) ? v : [];
}

function fence(text: string, lang = ""): string {
  const ticks = text.includes("```") ? "````" : "```";
  return `${ticks}${lang}\n${text}\n${ticks}`;
}

/**
 * A session's transcript as Markdown: each message's text, tool calls with
 * their arguments, tool results, plans with each item's decision.
 *
 * @param session The session.
 * @param events Its events in sequence order.
 * @param verification The hash-chain verification line.
 * @returns The Markdown text.
 */
export function transcriptMarkdown(
  session: SessionView,
  events: readonly EventView[],
  verification: string,
): string {
  const out = [
    `# Session ${session.id}`,
    "",
    `- profile: ${session.profile}`,
    `- status: ${session.status}`,
    `- started: ${session.started || "unknown"}`,
    ...(session.ended ? [`- ended: ${session.ended}`] : []),
    ...(session.cost !== null ? [`- cost: $${session.cost.toFixed(4)}`] : []),
    `- hash chain: ${verification}`,
    "",
  ];
  for (const e of events) {
    const p = obj(e.payload);
    if (e.kind === "message") {
      const m = obj(p["message"]);
      const role = String(m["role"] ?? "").replace(/^ROLE_/, "").toLowerCase();
      out.push(`## ${role || "message"} (#${e.seq})`, "");
      for (const b of arr(m["content"])) {
        const block = obj(b);
        const text = obj(block["text"]);
        const use = obj(block["toolUse"]);
        const thinking = obj(block["thinking"]);
        if (typeof text["text"] === "string") out.push(text["text"], "");
        if (typeof thinking["text"] === "string") {
          out.push(`> ${thinking["text"].replaceAll("\n", "\n> ")}`, "");
        }
        if (typeof use["name"] === "string") {
          out.push(
            `Tool call \`${use["name"]}\`:`,
            "",
            fence(JSON.stringify(use["arguments"] ?? {}, null, 2), "json"),
            "",
          );
        }
      }
    } else if (e.kind === "tool_result") {
      const r = p["result"] !== undefined ? obj(p["result"]) : undefined;
      out.push(
        `### tool result (#${e.seq})`,
        "",
        fence(
          JSON.stringify(r ? r["payload"] ?? r : p["error"] ?? {}, null, 2),
          "json",
        ),
        "",
      );
    } else if (e.kind === "plan") {
      out.push(`### plan (#${e.seq})`, "");
      for (const i of arr(obj(p["plan"])["items"])) {
        const item = obj(i);
        out.push(
          `- ${item["provider"]}.${item["operationName"]}: ${
            String(item["decision"] ?? "").replace(/^PLAN_DECISION_/, "")
          }`,
        );
      }
      out.push("");
    }
  }
  return out.join("\n");
}
