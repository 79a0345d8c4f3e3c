/**
 * The one table of event kinds (kernel.md §3.4, §3.5): the wire enum
 * `kernel.v1.EventKind`, the lowercase text stored in `events.kind`, the bus
 * topic `kernel.event.<text>` an emitted event is republished on, and the
 * `pluggableharness.event.v1` payload message of the kind. Encode, decode,
 * topic and payload type are all read from {@linkcode EVENT_KINDS}, so a
 * typo cannot make the stored text and the topic disagree.
 *
 * `EVENT_KIND_UNSPECIFIED` is never stored and never valid: every lookup
 * refuses it with {@linkcode UnspecifiedEventKindError}.
 *
 * @module
 */
import type { DescMessage } from "@bufbuild/protobuf";
import { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
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
import { UnspecifiedEventKindError } from "./errors.ts";

/** The stored text of an event kind. */
export type EventKindText =
  | "message"
  | "tool_call"
  | "tool_result"
  | "plan"
  | "apply"
  | "context_contribution"
  | "memory_write"
  | "memory_update"
  | "memory_delete"
  | "hook_error"
  | "control";

/** One row of the kind table. */
export interface EventKindInfo {
  /** The wire enum value. */
  readonly kind: EventKind;
  /** The text stored in `events.kind` and used in topics. */
  readonly text: EventKindText;
  /** The bus topic the kernel republishes the kind on. */
  readonly topic: string;
  /** The full name of the `event.v1` payload message. */
  readonly payloadType: string;
  /** The payload message's descriptor, for readers that decode it. */
  readonly payloadSchema: DescMessage;
  /**
   * Whether only the kernel writes this kind: `message` and `plan` need
   * companion rows (`cost_ledger`, `plan_items`) that a generic plugin Emit
   * cannot supply, so the callback service refuses them from plugins.
   */
  readonly kernelOwned: boolean;
}

function row(
  kind: EventKind,
  text: EventKindText,
  payloadSchema: DescMessage,
  kernelOwned = false,
): EventKindInfo {
  return Object.freeze({
    kind,
    text,
    topic: `kernel.event.${text}`,
    payloadType: payloadSchema.typeName,
    payloadSchema,
    kernelOwned,
  });
}

/**
 * Every valid event kind in wire order (kernel.md §3.4 and §3.5).
 *
 * @example Usage
 * ```ts
 * import { EVENT_KINDS } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * const plan = EVENT_KINDS.find((k) => k.text === "plan")!;
 * assert.equal(plan.topic, "kernel.event.plan");
 * assert.equal(plan.payloadType, "pluggableharness.event.v1.PlanEvent");
 * ```
 */
export const EVENT_KINDS: readonly EventKindInfo[] = Object.freeze([
  row(EventKind.MESSAGE, "message", MessageEventSchema, true),
  row(EventKind.TOOL_CALL, "tool_call", ToolCallEventSchema),
  row(EventKind.TOOL_RESULT, "tool_result", ToolResultEventSchema),
  row(EventKind.PLAN, "plan", PlanEventSchema, true),
  row(EventKind.APPLY, "apply", ApplyEventSchema),
  row(
    EventKind.CONTEXT_CONTRIBUTION,
    "context_contribution",
    ContextContributionEventSchema,
  ),
  row(EventKind.MEMORY_WRITE, "memory_write", MemoryMutationEventSchema),
  row(EventKind.MEMORY_UPDATE, "memory_update", MemoryMutationEventSchema),
  row(EventKind.MEMORY_DELETE, "memory_delete", MemoryMutationEventSchema),
  row(EventKind.HOOK_ERROR, "hook_error", HookErrorEventSchema),
  row(EventKind.CONTROL, "control", ControlEventSchema),
]);

const BY_KIND = new Map<EventKind, EventKindInfo>(
  EVENT_KINDS.map((k) => [k.kind, k]),
);
const BY_TEXT = new Map<string, EventKindInfo>(
  EVENT_KINDS.map((k) => [k.text, k]),
);

/**
 * Looks up the table row of a kind.
 *
 * @example Usage
 * ```ts
 * import { eventKindInfo, UnspecifiedEventKindError } from "@ph/agent/kernel";
 * import { EventKind } from "@ph/agent/proto/kernel";
 * import assert from "node:assert/strict";
 *
 * assert.equal(eventKindInfo(EventKind.TOOL_CALL).text, "tool_call");
 * assert.throws(() => eventKindInfo(EventKind.UNSPECIFIED), UnspecifiedEventKindError);
 * ```
 *
 * @param kind The wire enum value.
 * @param what What carried the kind, for the error message.
 * @returns The kind's row.
 * @throws {UnspecifiedEventKindError} For `EVENT_KIND_UNSPECIFIED`.
 * @throws {RangeError} For a value outside the enum.
 */
export function eventKindInfo(kind: EventKind, what?: string): EventKindInfo {
  const info = BY_KIND.get(kind);
  if (info) return info;
  if (kind === EventKind.UNSPECIFIED) {
    throw new UnspecifiedEventKindError(what);
  }
  throw new RangeError(`Cannot use event kind ${kind}: it is not a known kind`);
}

/**
 * Looks up a kind by its stored text.
 *
 * @example Usage
 * ```ts
 * import { tryEventKindFromText } from "@ph/agent/kernel";
 * import { EventKind } from "@ph/agent/proto/kernel";
 * import assert from "node:assert/strict";
 *
 * assert.equal(tryEventKindFromText("hook_error"), EventKind.HOOK_ERROR);
 * assert.equal(tryEventKindFromText("unspecified"), undefined);
 * ```
 *
 * @param text The stored text.
 * @returns The wire enum value, or `undefined` for unknown text.
 */
export function tryEventKindFromText(text: string): EventKind | undefined {
  return BY_TEXT.get(text)?.kind;
}

/**
 * The bus topic a kind is republished on: `kernel.event.<text>`.
 *
 * @example Usage
 * ```ts
 * import { eventTopic } from "@ph/agent/kernel";
 * import { EventKind } from "@ph/agent/proto/kernel";
 * import assert from "node:assert/strict";
 *
 * assert.equal(eventTopic(EventKind.TOOL_RESULT), "kernel.event.tool_result");
 * ```
 *
 * @param kind The wire enum value.
 * @returns The topic.
 * @throws {UnspecifiedEventKindError} For `EVENT_KIND_UNSPECIFIED`.
 */
export function eventTopic(kind: EventKind): string {
  return eventKindInfo(kind).topic;
}
