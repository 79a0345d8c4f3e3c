import assert from "node:assert/strict";
import { DeltaFanout } from "./delta_fanout.ts";

Deno.test("DeltaFanout drops a delta only for the subscriber whose buffer is full; the others get every delta in order", async () => {
  const fanout = new DeltaFanout<number>(2);
  const slow = fanout.subscribe();
  const fast = fanout.subscribe();
  const got: number[] = [];
  const reading = (async () => {
    for await (const d of fast) got.push(d);
  })();
  for (let i = 1; i <= 5; i++) {
    fanout.push(i);
    await Promise.resolve(); // the fast reader drains between pushes
    await Promise.resolve();
  }
  fanout.close();
  await reading;
  assert.deepEqual(got, [1, 2, 3, 4, 5]);
  assert.equal(fast.dropped, 0);
  const kept: number[] = [];
  for await (const d of slow) kept.push(d);
  assert.deepEqual(kept, [1, 2]);
  assert.equal(slow.dropped, 3);
});

Deno.test("DeltaFanout is live only and forgets a subscriber whose signal aborts", async () => {
  const fanout = new DeltaFanout<string>();
  fanout.push("before");
  const ac = new AbortController();
  const sub = fanout.subscribe(ac.signal);
  fanout.push("after");
  assert.equal(fanout.size, 1);
  ac.abort();
  assert.equal(fanout.size, 0);
  const seen: string[] = [];
  for await (const d of sub) seen.push(d);
  assert.deepEqual(seen, ["after"]);
  assert.throws(() => new DeltaFanout(0), RangeError);
});
