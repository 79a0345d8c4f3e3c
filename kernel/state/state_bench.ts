/**
 * State backend benchmarks (issue 4 targets), run with `deno task bench`:
 *
 * | benchmark | target |
 * |---|---|
 * | emit, durable, one transaction per event (1 KB) | ≥ 10k events/s |
 * | emit with group commit of queued emits (1 KB) | ≥ 50k events/s |
 * | readEvents full scan | ≥ 200k events/s |
 * | open an existing session file | ≤ 5 ms |
 *
 * `deno bench` reports time per iteration; the line printed at the end
 * converts the first three to events per second. Files live in a temporary
 * directory on the same disk as `$XDG_STATE_HOME` would (not tmpfs).
 */
import { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import type { EmitInput } from "./session_store.ts";
import { SqliteSessionStore } from "./sqlite_session_store.ts";

const PAYLOAD = crypto.getRandomValues(new Uint8Array(1024));
const EVENT: EmitInput = {
  kind: EventKind.TOOL_CALL,
  producer: { category: "tool", name: "github", version: "1.2.0" },
  schemaVersion: "1",
  payload: PAYLOAD,
};
const GROUP = 1000;
const SCAN = 20_000;

const dir = await Deno.makeTempDir({ prefix: "ph-state-bench-" });
// The installation key lives in the temporary directory too.
const keyPath = `${dir}/data/installation.key`;
const store = new SqliteSessionStore({ dir, keyPath });
const perTxn = await store.create({ profile: "bench" });
const grouped = await store.create({ profile: "bench" });

async function fill(n: number): Promise<string> {
  const s = await store.create({ profile: "bench" });
  for (let i = 0; i < n; i += 1000) {
    await Promise.all(
      Array.from({ length: Math.min(1000, n - i) }, () => s.emit(EVENT)),
    );
  }
  await s.close();
  return s.sessionId;
}
const scanned = await store.open(await fill(SCAN));
const small = await fill(1_000);
const large = await fill(10_000);

const totals = { txn: [0, 0], group: [0, 0], scan: [0, 0] };

Deno.bench("emit, durable, one transaction per event (1 KB)", {
  group: "emit one",
}, async (b) => {
  b.start();
  const t = performance.now();
  await perTxn.emit(EVENT);
  totals.txn[0] += 1;
  totals.txn[1] += performance.now() - t;
  b.end();
});

Deno.bench(`emit with group commit: ${GROUP} queued emits of 1 KB`, {
  group: "emit group",
}, async (b) => {
  b.start();
  const t = performance.now();
  await Promise.all(Array.from({ length: GROUP }, () => grouped.emit(EVENT)));
  totals.group[0] += GROUP;
  totals.group[1] += performance.now() - t;
  b.end();
});

Deno.bench(`readEvents full scan of ${SCAN} events (1 KB)`, {
  group: "read",
}, async (b) => {
  b.start();
  const t = performance.now();
  let n = 0;
  for await (const _ of scanned.readEvents()) n++;
  totals.scan[0] += n;
  totals.scan[1] += performance.now() - t;
  b.end();
});

Deno.bench("open an existing session file (1000 events, 1 KB)", {
  group: "open",
  baseline: true,
}, async (b) => {
  b.start();
  const s = await store.open(small);
  b.end();
  await s.close();
});

Deno.bench("open an existing session file (10000 events, 1 KB)", {
  group: "open",
}, async (b) => {
  b.start();
  const s = await store.open(large);
  b.end();
  await s.close();
});

const quick = new SqliteSessionStore({
  dir,
  keyPath,
  integrityCheck: "quick",
});
Deno.bench("open an existing session file (10000 events, 1 KB, quick_check)", {
  group: "open",
}, async (b) => {
  b.start();
  const s = await quick.open(large);
  b.end();
  await s.close();
});

globalThis.addEventListener("unload", () => {
  const rate = ([n, ms]: number[]) =>
    ms > 0 ? `${Math.round(n / (ms / 1000)).toLocaleString("en")}/s` : "n/a";
  console.log(
    `state backend: emit one txn per event ${rate(totals.txn)}, ` +
      `group commit ${rate(totals.group)}, readEvents ${rate(totals.scan)}`,
  );
  Deno.removeSync(dir, { recursive: true });
});
