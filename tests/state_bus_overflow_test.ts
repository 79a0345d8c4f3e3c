/**
 * The bus under a session's write load (kernel.md §4.4, §4.5): a subscriber
 * that stops reading overflows its bound and is closed alone with
 * RESOURCE_EXHAUSTED; every other subscriber keeps receiving the committed
 * events in sequence order; and no write fails because of either.
 */
import assert from "node:assert/strict";
import { EventBus } from "../kernel/bus/event_bus.ts";
import { SubscriberOverflowError } from "../kernel/bus/errors.ts";
import { SqliteSessionStore } from "../kernel/state/sqlite_session_store.ts";
import { eventFor } from "./fixtures/state/writer_main.ts";

Deno.test("a slow subscriber's overflow closes it alone; order is kept for every other subscriber", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ph-state-bus-" });
  const bus = new EventBus(); // the default bound, 1024
  try {
    await using store = new SqliteSessionStore({ dir, bus });
    const session = await store.create({ profile: "bus" });

    const slow = bus.subscribe(["kernel.event.*"], { label: "tool/slow" });
    const readers = ["kernel.event.*", "kernel.*", "*"].map((filter) => {
      const sub = bus.subscribe([filter]);
      const got: bigint[] = [];
      const done = (async () => {
        for await (const e of sub) {
          got.push(e.sequence);
          if (got.length === 2000) return;
        }
      })();
      return { sub, got, done };
    });
    const messages = bus.subscribe(["kernel.event.message"]);
    const messageSeqs: bigint[] = [];
    const messagesDone = (async () => {
      for await (const e of messages) {
        messageSeqs.push(e.sequence);
        if (messageSeqs.length === 400) return;
      }
    })();

    // 2000 emits in bursts of 100: each burst is one group commit, whose
    // republish fans out 100 events at once. Between bursts the readers get
    // the event loop (as a gRPC stream writer would); the slow one never
    // reads, so it overflows during the eleventh burst.
    const acks = [];
    for (let burst = 0; burst < 20; burst++) {
      await new Promise((r) => setTimeout(r, 0));
      acks.push(
        ...await Promise.all(
          Array.from(
            { length: 100 },
            (_, i) => session.emit(eventFor(burst * 100 + i + 1)),
          ),
        ),
      );
    }
    assert.equal(acks.length, 2000);
    await Promise.all([...readers.map((r) => r.done), messagesDone]);

    const all = Array.from({ length: 2000 }, (_, i) => BigInt(i + 1));
    for (const r of readers) assert.deepEqual(r.got, all);
    assert.deepEqual(messageSeqs, all.filter((s) => s % 5n === 0n));
    assert.equal(slow.closed, true);
    await assert.rejects(
      slow.next(),
      (e: unknown) =>
        e instanceof SubscriberOverflowError &&
        e.grpcStatus === "RESOURCE_EXHAUSTED",
    );
    assert.equal(bus.stats.overflowDisconnects, 1);
    assert.equal((await session.verify()).ok, true);
  } finally {
    bus.close();
    await Deno.remove(dir, { recursive: true });
  }
});
