import assert from "node:assert/strict";
import type { BusEvent } from "../../proto/gen/pluggableharness/kernel/v1/events_pb.ts";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { captureLogs, renderRecord } from "../../tests/_helpers.ts";
import {
  InvalidPublishError,
  InvalidTopicError,
  InvalidTopicFilterError,
  SubscriberOverflowError,
} from "./errors.ts";
import { DEFAULT_SUBSCRIBE_QUEUE_BOUND, EventBus } from "./event_bus.ts";

const bytes = (n: number) => new Uint8Array([n]);
const kernel = (bus: EventBus, topic: string, n: number) =>
  bus.publishKernel(topic, {
    payload: bytes(n),
    payloadType: "t",
    schemaVersion: "1",
    sequence: BigInt(n),
  });

async function take(
  sub: AsyncIterator<BusEvent>,
  n: number,
): Promise<BusEvent[]> {
  const out: BusEvent[] = [];
  for (let i = 0; i < n; i++) out.push((await sub.next()).value);
  return out;
}

Deno.test("EventBus delivers matching events to each subscription in publish order", async () => {
  const bus = new EventBus({ now: () => new Date("2026-01-02T03:04:05.000Z") });
  const all = bus.subscribe(["*"]);
  const plans = bus.subscribe(["kernel.event.plan"]);
  const events = bus.subscribe(["kernel.event.*", "plugin.tool.github.*"]);
  kernel(bus, "kernel.event.tool_call", 1);
  kernel(bus, "kernel.event.plan", 2);
  kernel(bus, "kernel.state", 3);
  bus.publishPlugin({ category: "tool", name: "github" }, {
    eventType: "pr_opened",
    payload: bytes(4),
    payloadType: "application/json",
    schemaVersion: "1",
  });
  assert.deepEqual((await take(all, 4)).map((e) => e.topic), [
    "kernel.event.tool_call",
    "kernel.event.plan",
    "kernel.state",
    "plugin.tool.github.pr_opened",
  ]);
  assert.deepEqual((await take(plans, 1)).map((e) => e.sequence), [2n]);
  const got = await take(events, 3);
  assert.deepEqual(got.map((e) => e.payload[0]), [1, 2, 4]);
  assert.equal(got[2].sequence, 0n); // plugin publishes carry no sequence
  assert.equal(got[2].payloadType, "application/json");
  assert.equal(
    timestampDate(got[0].time!).toISOString(),
    "2026-01-02T03:04:05.000Z",
  );
  assert.equal(plans.pending, 0);
  for (const s of [all, plans, events]) s.close();
  assert.equal(bus.subscriberCount, 0);
});

Deno.test("EventBus delivers nothing published before the subscription (no replay)", async () => {
  const bus = new EventBus();
  kernel(bus, "kernel.state", 1);
  const sub = bus.subscribe(["kernel.*"]);
  kernel(bus, "kernel.state", 2);
  assert.equal((await sub.next()).value.sequence, 2n);
  sub.close();
});

Deno.test("EventBus closes only the slow subscription that overflows its bound", async () => {
  await using logs = await captureLogs();
  const bus = new EventBus({ subscribeQueueBound: 8 });
  const slow = bus.subscribe(["kernel.*"], { label: "tool/slow" });
  const fast = bus.subscribe(["kernel.*"]);
  const received: bigint[] = [];
  const reader = (async () => {
    for await (const e of fast) {
      received.push(e.sequence);
      if (received.length === 20) break;
    }
  })();
  for (let i = 1; i <= 20; i++) {
    kernel(bus, "kernel.event.tool_call", i);
    await Promise.resolve(); // let the fast reader keep up
    await Promise.resolve();
  }
  await reader;
  assert.deepEqual(
    received,
    Array.from({ length: 20 }, (_, i) => BigInt(i + 1)),
  );
  assert.equal(slow.closed, true);
  assert.equal(slow.pending, 0);
  await assert.rejects(
    slow.next(),
    (e: unknown) =>
      e instanceof SubscriberOverflowError &&
      e.grpcStatus === "RESOURCE_EXHAUSTED" &&
      e.code === "bus_subscriber_overflow" &&
      e.bound === 8 &&
      /tool\/slow/.test(e.message),
  );
  assert.deepEqual(await slow.next(), { value: undefined, done: true });
  assert.equal(bus.stats.overflowDisconnects, 1);
  assert.match(
    logs.records.map(renderRecord).join("\n"),
    /Closed slow subscription .*tool\/slow/,
  );
});

Deno.test("EventBus bounds default to 1024 and can be set per subscription", () => {
  assert.equal(DEFAULT_SUBSCRIBE_QUEUE_BOUND, 1024);
  const bus = new EventBus({ subscribeQueueBound: 0 }); // ≤ 0 falls back
  const a = bus.subscribe(["*"]);
  const b = bus.subscribe(["*"], { bound: 3 });
  const c = bus.subscribe(["*"], { bound: Infinity });
  assert.equal(a.bound, 1024);
  for (let i = 0; i < 1025; i++) kernel(bus, "kernel.state", i);
  assert.equal(a.closed, true);
  assert.equal(b.closed, true);
  assert.equal(c.closed, false);
  assert.equal(c.pending, 1025);
  c.close();
});

Deno.test("a throwing listener is logged and never fails the publisher", async () => {
  await using logs = await captureLogs();
  const bus = new EventBus();
  const seen: string[] = [];
  bus.listen(["kernel.*"], () => {
    throw new Error("boom");
  });
  const stop = bus.listen(["kernel.state"], (e) => seen.push(e.topic));
  assert.equal(kernel(bus, "kernel.state", 1), 2);
  stop();
  assert.equal(kernel(bus, "kernel.state", 2), 1);
  assert.deepEqual(seen, ["kernel.state"]);
  assert.equal(bus.stats.listenerErrors, 2);
  assert.match(logs.records.map(renderRecord).join("\n"), /listener threw/);
});

Deno.test("kernel.* is reachable only through publishKernel, plugin.* only through publishPlugin", () => {
  const bus = new EventBus();
  assert.throws(
    () => kernel(bus, "plugin.tool.github.x", 1),
    InvalidTopicError,
  );
  assert.throws(() => kernel(bus, "kernel..x", 1), InvalidTopicError);
  const id = { category: "tool" as const, name: "github" };
  const req = {
    eventType: "x",
    payload: new Uint8Array(),
    payloadType: "t",
    schemaVersion: "1",
  };
  assert.equal(bus.publishPlugin(id, req), "plugin.tool.github.x");
  for (const eventType of ["kernel.state", "a.b", "*", ""]) {
    assert.throws(
      () => bus.publishPlugin(id, { ...req, eventType }),
      InvalidPublishError,
    );
  }
  assert.throws(
    () => bus.publishPlugin(id, { ...req, payloadType: "" }),
    InvalidPublishError,
  );
  assert.throws(
    () => bus.publishPlugin(id, { ...req, schemaVersion: "" }),
    InvalidPublishError,
  );
});

Deno.test("subscribe() validates filters; close, abort and break end a subscription", async () => {
  const bus = new EventBus();
  assert.throws(() => bus.subscribe([]), TypeError);
  assert.throws(
    () => bus.subscribe(["kernel.*", "bad*"]),
    InvalidTopicFilterError,
  );
  const ac = new AbortController();
  const sub = bus.subscribe(["*"], { signal: ac.signal });
  const waiting = sub.next();
  ac.abort();
  assert.deepEqual(await waiting, { value: undefined, done: true });
  assert.equal(bus.subscriberCount, 0);
  const pre = bus.subscribe(["*"], { signal: AbortSignal.abort() });
  assert.equal(pre.closed, true);
  const loop = bus.subscribe(["*"]);
  kernel(bus, "kernel.state", 1);
  for await (const _ of loop) break;
  assert.equal(loop.closed, true);
  assert.equal(bus.subscriberCount, 0);
  const last = bus.subscribe(["*"]);
  bus.close();
  assert.equal(last.closed, true);
});
