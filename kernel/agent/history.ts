/**
 * Sessions from their stored events: the model-facing history a resumed
 * session continues from, and the replay of a transcript as
 * {@linkcode SessionEvent}s without calling any model.
 *
 * History = every `message` event (user prompts, synthetic instructions
 * and assistant messages) in sequence order; after each assistant message
 * that used tools comes one user message with a `tool_result` block per
 * `tool_use`, in `tool_use` order, rebuilt from the `tool_result` events. A
 * call without a stored result (an out-of-scope tool, or a session killed
 * mid-turn) gets an error result saying so, so the history stays
 * well-formed for the next model call.
 *
 * @module
 */
import { create, fromBinary, type JsonObject } from "@bufbuild/protobuf";
import {
  type Message,
  MessageSchema,
  Role,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import {
  ApplyEventSchema,
  ControlEventSchema,
  HookErrorEventSchema,
  MessageEventSchema,
  PlanEventSchema,
  ToolCallEventSchema,
  ToolResultEventSchema,
} from "../../proto/gen/pluggableharness/event/v1/events_pb.ts";
import { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import {
  type ToolError,
  ToolErrorCategory,
} from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import {
  type EventRecord,
  SESSION_STATUS_TEXT,
  type SessionLog,
  type SessionStore,
} from "../state/session_store.ts";
import { ulid } from "../state/ulid.ts";
import { appendControlBlocks } from "../control/history.ts";
import type { ChannelDirection, ChannelName } from "../control/channels.ts";
import { toolError, toolResultBlock } from "./_proto.ts";
import { applyRewrite, COMPACTION_RECORD_CHANNEL } from "./compaction.ts";
import {
  applyEventOf,
  hookErrorEventOf,
  messageEventOf,
  planItemView,
  type SessionEvent,
  type SessionStatusText,
  toolErrorText,
  toolErrorView,
} from "./session_events.ts";

/** The outcome of a call as stored in its `tool_result` event. */
export type StoredOutcome = { result: JsonObject } | { error: ToolError };

/** The error a call without a stored result gets in a rebuilt history. */
export function missingResultError(): ToolError {
  return toolError(
    ToolErrorCategory.CANCELLED,
    "No result was recorded for this call: it was not run to completion.",
  );
}

/**
 * The user message that answers an assistant message's tool uses.
 *
 * @param assistant The assistant message.
 * @param outcomes Outcomes by `tool_use` id.
 * @returns The message, or `undefined` when the assistant used no tools.
 */
export function toolResultsMessage(
  assistant: Message,
  outcomes: ReadonlyMap<string, StoredOutcome>,
): Message | undefined {
  const uses = assistant.content.flatMap((b) =>
    b.block.case === "toolUse" ? [b.block.value] : []
  );
  if (uses.length === 0) return undefined;
  return create(MessageSchema, {
    role: Role.USER,
    id: ulid(),
    content: uses.map((u) =>
      toolResultBlock(
        u.id,
        outcomes.get(u.id) ?? { error: missingResultError() },
      )
    ),
  });
}

/**
 * The history of a stored session, as a resumed session continues it.
 *
 * @param log The open session.
 * @returns The messages in order.
 */
export async function rebuildHistory(log: SessionLog): Promise<Message[]> {
  const items: (Message | string | { kept: number; body: string })[] = [];
  const outcomes = new Map<string, StoredOutcome>();
  for await (
    const e of log.readEvents({
      kinds: [EventKind.MESSAGE, EventKind.TOOL_RESULT, EventKind.CONTROL],
    })
  ) {
    if (e.kind === EventKind.MESSAGE) {
      const m = fromBinary(MessageEventSchema, e.payload).message;
      if (m) items.push(m);
    } else if (e.kind === EventKind.CONTROL) {
      // A delivered system→agent block rides where it was delivered.
      const c = fromBinary(ControlEventSchema, e.payload);
      if (c.direction === "system_to_agent" && c.rendered) {
        items.push(c.rendered);
      } else if (
        c.channel === COMPACTION_RECORD_CHANNEL && !c.rendered
      ) {
        // A compactor's durable rewrite (compaction.ts).
        const kept = Number(
          c.attributes.find((a) => a.name === "kept")?.value ?? "0",
        );
        items.push({ kept, body: c.body });
      }
    } else {
      const r = fromBinary(ToolResultEventSchema, e.payload);
      if (r.outcome.case === "result") {
        outcomes.set(r.toolCallId, { result: r.outcome.value.payload ?? {} });
      } else if (r.outcome.case === "error") {
        outcomes.set(r.toolCallId, { error: r.outcome.value });
      }
    }
  }
  let history: Message[] = [];
  for (const m of items) {
    if (typeof m === "string") {
      appendControlBlocks(history, [m]);
      continue;
    }
    if (!("role" in m)) {
      history = applyRewrite(history, m.kept, m.body);
      continue;
    }
    history.push(m);
    if (m.role === Role.ASSISTANT) {
      const results = toolResultsMessage(m, outcomes);
      if (results) history.push(results);
    }
  }
  return history;
}

/**
 * Replays a stored session as session events, in sequence order, without
 * calling any model or tool: `session_started`, then one event per stored
 * `message`, `tool_call`, `tool_result`, `plan`, `apply`, `control` and `hook_error`,
 * then `session_ended` with the stored status and cost rollup.
 *
 * @example Usage
 * ```ts ignore
 * import { replaySession } from "@ph/agent/kernel";
 * for await (const event of replaySession(store, sessionId)) console.log(event.type);
 * ```
 *
 * @param store The session store.
 * @param sessionId The session.
 * @returns The events.
 */
export async function* replaySession(
  store: SessionStore,
  sessionId: string,
): AsyncGenerator<SessionEvent> {
  const log = await store.open(sessionId);
  try {
    const info = await log.info();
    yield {
      type: "session_started",
      sessionId,
      profile: info.profile,
      resumed: false,
    };
    const tools = new Map<string, string>();
    let finalText = "";
    for await (const e of log.readEvents()) {
      for (const event of storedEventViews(e, tools)) {
        if (event.type === "message" && event.role === "assistant") {
          finalText = event.text;
        }
        yield event;
      }
    }
    const end = await log.info();
    yield {
      type: "session_ended",
      sessionId,
      status: SESSION_STATUS_TEXT[end.status] as SessionStatusText,
      finalText,
      totalCostUsd: end.costUsd ?? 0,
    };
  } finally {
    await log.close();
  }
}

/**
 * One stored event as the session events a replay shows (none for a kind a
 * replay skips): what {@linkcode replaySession} yields per event, and what
 * a frontend following a live session from the store shows.
 *
 * @param e The stored event.
 * @param tools Tool names by call id, filled as calls are seen (a result
 * names its tool from its call); keep one map per session.
 * @returns The events, in order.
 */
export function* storedEventViews(
  e: EventRecord,
  tools: Map<string, string>,
): Generator<SessionEvent> {
  switch (e.kind) {
    case EventKind.MESSAGE: {
      const ev = fromBinary(MessageEventSchema, e.payload);
      const m = ev.message;
      if (!m) break;
      const assistant = m.role === Role.ASSISTANT;
      yield messageEventOf(
        m,
        assistant
          ? {
            model: {
              provider: m.producedByProvider ?? e.producer.name,
              id: m.producedByModelId ?? "",
            },
            ...(ev.usage ? { usage: ev.usage } : {}),
            costUsd: ev.costUsd,
          }
          : {},
      );
      break;
    }
    case EventKind.TOOL_CALL: {
      const call = fromBinary(ToolCallEventSchema, e.payload).call;
      if (!call) break;
      tools.set(call.id, call.toolName);
      yield {
        type: "tool_call",
        callId: call.id,
        provider: e.producer.name,
        tool: call.toolName,
        input: call.arguments ?? {},
      };
      break;
    }
    case EventKind.TOOL_RESULT: {
      const r = fromBinary(ToolResultEventSchema, e.payload);
      const base = {
        type: "tool_result" as const,
        callId: r.toolCallId,
        provider: e.producer.name,
        tool: tools.get(r.toolCallId) ?? "",
      };
      if (r.outcome.case === "result") {
        const result = r.outcome.value.payload ?? {};
        yield {
          ...base,
          isError: false,
          result,
          text: JSON.stringify(result),
        };
      } else if (r.outcome.case === "error") {
        yield {
          ...base,
          isError: true,
          error: toolErrorView(r.outcome.value),
          text: toolErrorText(r.outcome.value),
        };
      }
      break;
    }
    case EventKind.PLAN: {
      const plan = fromBinary(PlanEventSchema, e.payload).plan;
      if (plan) {
        yield {
          type: "plan",
          turnId: plan.turnId,
          items: plan.items.map(planItemView),
        };
      }
      break;
    }
    case EventKind.APPLY: {
      const result = fromBinary(ApplyEventSchema, e.payload).result;
      if (result) yield applyEventOf(result);
      break;
    }
    case EventKind.CONTROL: {
      const c = fromBinary(ControlEventSchema, e.payload);
      if (c.channel === COMPACTION_RECORD_CHANNEL && !c.rendered) {
        const attr = (n: string) =>
          c.attributes.find((a) => a.name === n)?.value ?? "";
        yield {
          type: "compaction",
          turnId: c.turnId,
          provider: attr("provider"),
          tokensBefore: Number(attr("tokens-before")),
          tokensAfter: Number(attr("tokens-after")),
          exact: attr("exact") === "true",
        };
        break;
      }
      yield {
        type: "control",
        channel: c.channel as ChannelName,
        direction: c.direction as ChannelDirection,
        attributes: Object.fromEntries(
          c.attributes.map((a) => [a.name, a.value]),
        ),
        body: c.body,
        rendered: c.rendered,
        source: c.source,
        ...(c.turnId ? { turnId: c.turnId } : {}),
        ...(c.wake ? { wake: true } : {}),
      };
      break;
    }
    case EventKind.HOOK_ERROR: {
      const error = fromBinary(HookErrorEventSchema, e.payload).error;
      if (error) yield hookErrorEventOf(error, e.producer.name);
      break;
    }
    default:
      break;
  }
}
