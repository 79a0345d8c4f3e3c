import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Category } from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import {
  PlanDecision,
  PlanSchema,
} from "../../proto/gen/pluggableharness/plan/v1/types_pb.ts";
import { SessionStatus } from "../../proto/gen/pluggableharness/session/v1/types_pb.ts";
import {
  planItemEntriesOf,
  producerRefOf,
  sessionInfoOf,
  storedEventOf,
} from "./_convert.ts";
import { KERNEL_PRODUCER } from "./session_store.ts";

Deno.test("producerRefOf() maps category text to the enum and the kernel producer to UNSPECIFIED", () => {
  const gh = producerRefOf({
    category: "tool",
    name: "github",
    version: "1.2.0",
  });
  assert.equal(gh.category, Category.TOOL);
  assert.equal(
    producerRefOf({ ...gh, category: "slashcommand" }).category,
    Category.SLASHCOMMAND,
  );
  assert.equal(
    producerRefOf({ ...gh, category: "model" }).category,
    Category.MODEL,
  );
  const k = producerRefOf(KERNEL_PRODUCER);
  assert.deepEqual([k.category, k.name, k.version], [
    Category.UNSPECIFIED,
    "kernel",
    "1",
  ]);
});

Deno.test("storedEventOf() and sessionInfoOf() build the wire messages", () => {
  const e = storedEventOf({
    sequence: 7,
    id: "01ARZ3NDEKTSV4RRFFQ69G5FAV",
    timestamp: "2026-07-24T15:04:05.123Z",
    kind: EventKind.TOOL_RESULT,
    producer: { category: "tool", name: "github", version: "1.2.0" },
    schemaVersion: "1",
    payload: new Uint8Array([1, 2]),
  });
  assert.equal(e.sequence, 7n);
  assert.equal(
    timestampDate(e.time!).toISOString(),
    "2026-07-24T15:04:05.123Z",
  );
  assert.equal(e.kind, EventKind.TOOL_RESULT);
  assert.equal(e.producer?.name, "github");
  assert.deepEqual(e.payload, new Uint8Array([1, 2]));
  const root = sessionInfoOf({
    sessionId: "01ARZ3NDEKTSV4RRFFQ69G5FAV",
    profile: "p",
    status: SessionStatus.RUNNING,
    depth: 0,
    startedAt: "2026-07-24T15:04:05.000Z",
  });
  assert.equal(root.parentSessionId, undefined);
  assert.equal(root.endedAt, undefined);
  assert.equal(root.costUsd, undefined);
  const child = sessionInfoOf({
    sessionId: "01ARZ3NDEKTSV4RRFFQ69G5FAW",
    parentSessionId: "01ARZ3NDEKTSV4RRFFQ69G5FAV",
    profile: "p",
    status: SessionStatus.COMPLETED,
    depth: 1,
    startedAt: "2026-07-24T15:04:05.000Z",
    endedAt: "2026-07-24T15:05:05.000Z",
    costUsd: 0.25,
  });
  assert.equal(child.parentSessionId, "01ARZ3NDEKTSV4RRFFQ69G5FAV");
  assert.equal(
    timestampDate(child.endedAt!).toISOString(),
    "2026-07-24T15:05:05.000Z",
  );
  assert.equal(child.costUsd, 0.25);
});

Deno.test("planItemEntriesOf() maps a decided plan and refuses pending items", () => {
  const plan = create(PlanSchema, {
    turnId: "t1",
    items: [
      {
        id: "i1",
        callId: "c1",
        provider: "github",
        operationName: "create_pr",
        decision: PlanDecision.ASK,
        decidedBy: "rule:a",
      },
      {
        id: "i2",
        callId: "c2",
        provider: "fs",
        operationName: "read",
        decision: PlanDecision.ALLOW,
        decidedBy: "rule:b",
      },
    ],
  });
  assert.deepEqual(planItemEntriesOf(plan), [
    {
      turnId: "t1",
      toolCallId: "c1",
      providerName: "github",
      toolName: "create_pr",
      decision: "ask",
      decidedBy: "rule:a",
    },
    {
      turnId: "t1",
      toolCallId: "c2",
      providerName: "fs",
      toolName: "read",
      decision: "allow",
      decidedBy: "rule:b",
    },
  ]);
  plan.items[1].decision = PlanDecision.PENDING;
  assert.throws(() => planItemEntriesOf(plan), /decision is PENDING/);
});
