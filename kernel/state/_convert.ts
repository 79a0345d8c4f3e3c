/**
 * Wire-type conversions of the state backend, in one place: store records
 * to `kernel.v1.StoredEvent` and `session.v1.SessionInfo` (for `ReadEvents`
 * and `GetSession`), producers to `common.v1.ProducerRef`, and a
 * `plan.v1.Plan` to its `plan_items` rows (for the kernel's plan write).
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  Category,
  type ProducerRef,
  ProducerRefSchema,
} from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import {
  type StoredEvent,
  StoredEventSchema,
} from "../../proto/gen/pluggableharness/kernel/v1/events_pb.ts";
import {
  type Plan,
  PlanDecision,
} from "../../proto/gen/pluggableharness/plan/v1/types_pb.ts";
import {
  type SessionInfo,
  SessionInfoSchema,
} from "../../proto/gen/pluggableharness/session/v1/types_pb.ts";
import { CATEGORY_NAMES } from "../../contract/manifest.ts";
import type {
  EventRecord,
  PlanItemDecision,
  PlanItemEntry,
  Producer,
  SessionRecord,
} from "./session_store.ts";

/**
 * The wire form of a stored producer. The reserved kernel producer reads
 * back as `{category: UNSPECIFIED, name: "kernel", version: "1"}`; `source`
 * and `protocol_version` are not stored and stay empty.
 */
export function producerRefOf(p: Producer): ProducerRef {
  const category = p.category === "kernel"
    ? Category.UNSPECIFIED
    : (CATEGORY_NAMES.indexOf(p.category) + 1) as Category;
  return create(ProducerRefSchema, {
    category,
    name: p.name,
    version: p.version,
  });
}

/** A stored event as `ReadEvents` streams it. */
export function storedEventOf(e: EventRecord): StoredEvent {
  return create(StoredEventSchema, {
    sequence: BigInt(e.sequence),
    id: e.id,
    time: timestampFromDate(new Date(e.timestamp)),
    kind: e.kind,
    producer: producerRefOf(e.producer),
    schemaVersion: e.schemaVersion,
    payload: e.payload,
  });
}

/** A session record as `GetSession` answers it (`cost_usd` absent when 0). */
export function sessionInfoOf(r: SessionRecord): SessionInfo {
  return create(SessionInfoSchema, {
    sessionId: r.sessionId,
    ...(r.parentSessionId !== undefined
      ? { parentSessionId: r.parentSessionId }
      : {}),
    profile: r.profile,
    status: r.status,
    depth: r.depth,
    startedAt: timestampFromDate(new Date(r.startedAt)),
    ...(r.endedAt !== undefined
      ? { endedAt: timestampFromDate(new Date(r.endedAt)) }
      : {}),
    ...(r.costUsd !== undefined ? { costUsd: r.costUsd } : {}),
  });
}

const DECISION_TEXT: Partial<Record<PlanDecision, PlanItemDecision>> = {
  [PlanDecision.ALLOW]: "allow",
  [PlanDecision.ASK]: "ask",
  [PlanDecision.DENY]: "deny",
};

/**
 * The `plan_items` rows of a plan, one per item, in item order.
 *
 * @throws {RangeError} For an item whose decision is `PENDING` or
 *   `UNSPECIFIED` (a plan is persisted once every item is decided).
 */
export function planItemEntriesOf(plan: Plan): PlanItemEntry[] {
  return plan.items.map((item) => {
    const decision = DECISION_TEXT[item.decision];
    if (!decision) {
      throw new RangeError(
        `Cannot persist plan item "${item.id}": its decision is ${
          PlanDecision[item.decision]
        }, not allow, ask or deny`,
      );
    }
    return {
      turnId: plan.turnId,
      toolCallId: item.callId,
      providerName: item.provider,
      toolName: item.operationName,
      decision,
      decidedBy: item.decidedBy,
    };
  });
}
