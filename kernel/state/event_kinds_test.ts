import assert from "node:assert/strict";
import { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import {
  EVENT_KINDS,
  eventKindInfo,
  eventTopic,
  tryEventKindFromText,
} from "./event_kinds.ts";
import { UnspecifiedEventKindError } from "./errors.ts";

Deno.test("EVENT_KINDS is the §3.4/§3.5 table: enum, text, topic, payload type", () => {
  assert.deepEqual(
    EVENT_KINDS.map((k) => [k.kind, k.text, k.topic, k.payloadType]),
    [
      [
        1,
        "message",
        "kernel.event.message",
        "pluggableharness.event.v1.MessageEvent",
      ],
      [
        2,
        "tool_call",
        "kernel.event.tool_call",
        "pluggableharness.event.v1.ToolCallEvent",
      ],
      [
        3,
        "tool_result",
        "kernel.event.tool_result",
        "pluggableharness.event.v1.ToolResultEvent",
      ],
      [4, "plan", "kernel.event.plan", "pluggableharness.event.v1.PlanEvent"],
      [
        5,
        "apply",
        "kernel.event.apply",
        "pluggableharness.event.v1.ApplyEvent",
      ],
      [
        6,
        "context_contribution",
        "kernel.event.context_contribution",
        "pluggableharness.event.v1.ContextContributionEvent",
      ],
      [
        7,
        "memory_write",
        "kernel.event.memory_write",
        "pluggableharness.event.v1.MemoryMutationEvent",
      ],
      [
        8,
        "memory_update",
        "kernel.event.memory_update",
        "pluggableharness.event.v1.MemoryMutationEvent",
      ],
      [
        9,
        "memory_delete",
        "kernel.event.memory_delete",
        "pluggableharness.event.v1.MemoryMutationEvent",
      ],
      [
        10,
        "hook_error",
        "kernel.event.hook_error",
        "pluggableharness.event.v1.HookErrorEvent",
      ],
      [
        11,
        "control",
        "kernel.event.control",
        "pluggableharness.event.v1.ControlEvent",
      ],
    ],
  );
  assert.deepEqual(
    EVENT_KINDS.filter((k) => k.kernelOwned).map((k) => k.text),
    ["message", "plan"],
  );
});

Deno.test("every wire enum value except UNSPECIFIED has exactly one row, and text round-trips", () => {
  const values = Object.values(EventKind).filter((v) => typeof v === "number");
  for (const v of values as EventKind[]) {
    if (v === EventKind.UNSPECIFIED) continue;
    const info = eventKindInfo(v);
    assert.equal(tryEventKindFromText(info.text), v);
    assert.equal(eventTopic(v), `kernel.event.${info.text}`);
  }
  assert.equal(EVENT_KINDS.length, values.length - 1);
});

Deno.test("eventKindInfo() refuses EVENT_KIND_UNSPECIFIED with a named error and unknown values with RangeError", () => {
  assert.throws(
    () => eventKindInfo(EventKind.UNSPECIFIED, "Emit"),
    (e: unknown) =>
      e instanceof UnspecifiedEventKindError &&
      e.code === "event_kind_unspecified" &&
      e.grpcStatus === "INVALID_ARGUMENT" &&
      e.message ===
        "Cannot accept Emit: the event kind is EVENT_KIND_UNSPECIFIED",
  );
  assert.throws(
    () => eventTopic(EventKind.UNSPECIFIED),
    UnspecifiedEventKindError,
  );
  assert.throws(() => eventKindInfo(42 as EventKind), RangeError);
  assert.equal(tryEventKindFromText("unspecified"), undefined);
  assert.equal(tryEventKindFromText("TOOL_CALL"), undefined);
});
