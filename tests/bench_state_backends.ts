/**
 * The state backends side by side (issue 19 figures), in one run:
 * `deno task bench:state [--list N] [--sqlite-list N] [--json]`.
 *
 * - emit latency p50 and p99: 1,000 emits of 1 KB, one after the other
 *   (each acknowledged after its commit);
 * - grouped emits/s: 10 rounds of 1,000 emits queued at once (group
 *   commit);
 * - cross-kernel bus latency p50 (postgres only: two stores with their own
 *   pools, buses and bridges, as two kernels would have; from the emit on
 *   the first to the delivery on the second's bus, 300 events), beside, in
 *   the same run, the same with the notification sent after the commit (the
 *   bridge's path before commits notified; blocks of 50 alternating) and
 *   the floor: a bare `pg_notify` from one client to another's `LISTEN`
 *   (1.4 KB, the size of the event's notification);
 * - `list()` of 10,000 sessions (target ≤ 100 ms; sqlite lists
 *   `--sqlite-list` sessions, 1,000 by default, one file each).
 *
 * PostgreSQL runs as a private cluster (tests/_postgres.ts, `fsync=off`:
 * commits still go through the WAL, but not to the platter).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { EventKind } from "../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import type { EmitInput, SessionStore } from "../kernel/state/session_store.ts";
import { SqliteSessionStore } from "../kernel/state/sqlite_session_store.ts";
import { PostgresSessionStore } from "../kernel/state/postgres_session_store.ts";
import { installationKeyFromBytes } from "../kernel/state/installation_key.ts";
import { EventBus } from "../kernel/bus/event_bus.ts";
import { PostgresBusBridge } from "../kernel/state/postgres_bus_bridge.ts";
import { startPgCluster } from "./_postgres.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    list: { type: "string", default: "10000" },
    "sqlite-list": { type: "string", default: "1000" },
    json: { type: "boolean" },
  },
});
const LIST = Number(values.list);
// One file per session: creating 10,000 takes minutes, so sqlite lists
// fewer unless asked (the table prints how many each listed).
const SQLITE_LIST = Math.min(LIST, Number(values["sqlite-list"]));
const KEY = installationKeyFromBytes(
  crypto.getRandomValues(new Uint8Array(32)),
);
const EVENT: EmitInput = {
  kind: EventKind.TOOL_CALL,
  producer: { category: "tool", name: "github", version: "1.2.0" },
  schemaVersion: "1",
  payload: crypto.getRandomValues(new Uint8Array(1024)),
};

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))];
}

interface Figures {
  emitP50Ms: number;
  emitP99Ms: number;
  groupedPerS: number;
  busP50Ms?: number;
  busAfterCommitP50Ms?: number;
  notifyP50Ms?: number;
  listMs: number;
  listed: number;
}

async function emits(
  store: SessionStore,
): Promise<Omit<Figures, "listMs" | "listed">> {
  const s = await store.create({ profile: "bench" });
  for (let i = 0; i < 50; i++) await s.emit(EVENT); // warm-up
  const lat: number[] = [];
  for (let i = 0; i < 1000; i++) {
    const t = performance.now();
    await s.emit(EVENT);
    lat.push(performance.now() - t);
  }
  const g = await store.create({ profile: "bench" });
  const t0 = performance.now();
  for (let r = 0; r < 10; r++) {
    await Promise.all(Array.from({ length: 1000 }, () => g.emit(EVENT)));
  }
  const groupedPerS = 10_000 / ((performance.now() - t0) / 1000);
  await s.close();
  await g.close();
  return { emitP50Ms: pct(lat, 0.5), emitP99Ms: pct(lat, 0.99), groupedPerS };
}

async function timeList(store: SessionStore): Promise<[number, number]> {
  await store.list(); // warm-up
  const t = performance.now();
  const { sessions } = await store.list();
  return [performance.now() - t, sessions.length];
}

const results: Record<string, Figures> = {};

// sqlite
{
  const dir = await Deno.makeTempDir({ prefix: "ph-state-compare-" });
  try {
    const store = new SqliteSessionStore({ dir, key: KEY });
    const e = await emits(store);
    for (
      let i = (await store.list()).sessions.length;
      i < SQLITE_LIST;
      i++
    ) {
      await (await store.create({ profile: "bench" })).close();
    }
    const [listMs, listed] = await timeList(store);
    await store.close();
    results.sqlite = { ...e, listMs, listed };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

// postgres
{
  await using cluster = await startPgCluster();
  const busA = new EventBus();
  const busB = new EventBus();
  const a = new PostgresSessionStore({ url: cluster.url, key: KEY, bus: busA });
  const b = new PostgresSessionStore({ url: cluster.url, key: KEY, bus: busB });
  try {
    const e = await emits(a);
    const notifyP50Ms = await bareNotify(cluster.url);
    await a.startBusBridge();
    await b.startBusBridge();
    // The baseline in the same run: a third kernel whose bridge sends each
    // event after its commit (a bridge started alone, the path before
    // commits notified), measured in blocks alternating with the kernel's
    // own path so that the machine's load falls on both alike.
    const busC = new EventBus();
    const c = new PostgresSessionStore({
      url: cluster.url,
      key: KEY,
      bus: busC,
    });
    const afterCommit = await PostgresBusBridge.start(busC, await c.sql());
    const s = await a.create({ profile: "bench" });
    const old = await c.create({ profile: "bench" });
    const sub = busB.subscribe(["kernel.event.*"], { bound: Infinity });
    const bus: number[] = [];
    const baseline: number[] = [];
    for (let block = 0; block < 6; block++) {
      for (const [session, into] of [[s, bus], [old, baseline]] as const) {
        for (let i = 0; i < 50; i++) {
          const t = performance.now();
          const next = sub.next();
          await session.emit(EVENT);
          await next;
          into.push(performance.now() - t);
        }
      }
    }
    sub.close();
    await s.close();
    await old.close();
    await afterCommit.close();
    await c.close();
    busC.close();
    const sql = await a.sql();
    const have = (await a.list()).sessions.length;
    // The other sessions as rows, the way create() writes them.
    await sql`INSERT INTO sessions (session_id, profile, status, depth,
        started_at, chain_scheme, key_id, head)
      SELECT lpad(to_hex(g), 26, '0'), 'bench', 'completed', 0,
        now()::text, 'hmac-sha256', ${KEY.id}, NULL
      FROM generate_series(1, ${LIST - have}) g`;
    const [listMs, listed] = await timeList(b);
    results.postgres = {
      ...e,
      busP50Ms: pct(bus, 0.5),
      busAfterCommitP50Ms: pct(baseline, 0.5),
      notifyP50Ms,
      listMs,
      listed,
    };
  } finally {
    await a.close();
    await b.close();
    busA.close();
    busB.close();
  }
}

/** The floor of the bus latency: one client's NOTIFY to another's LISTEN. */
async function bareNotify(url: string): Promise<number> {
  const { default: postgres } = await import("postgres");
  const x = postgres(url, { onnotice: () => {} });
  const y = postgres(url, { onnotice: () => {} });
  try {
    let arrived = () => {};
    await y.listen("bench_floor", () => arrived());
    const payload = "x".repeat(1400);
    const ms: number[] = [];
    for (let i = 0; i < 300; i++) {
      const t = performance.now();
      const got = new Promise<void>((r) => (arrived = r));
      await x`SELECT pg_notify('bench_floor', ${payload})`;
      await got;
      ms.push(performance.now() - t);
    }
    return pct(ms, 0.5);
  } finally {
    await x.end();
    await y.end();
  }
}

if (values.json) console.log(JSON.stringify(results));
else {
  const f = (n: number | undefined, d = 2) =>
    n === undefined ? "n/a" : n.toFixed(d);
  console.log(
    "| backend | emit p50 ms | emit p99 ms | grouped emits/s | bus p50 ms | bus p50 ms, NOTIFY after the commit | bare NOTIFY p50 ms | list ms (sessions) |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  for (const [name, r] of Object.entries(results)) {
    console.log(
      `| ${name} | ${f(r.emitP50Ms)} | ${f(r.emitP99Ms)} | ${
        Math.round(r.groupedPerS)
      } | ${f(r.busP50Ms)} | ${f(r.busAfterCommitP50Ms)} | ${
        f(r.notifyP50Ms)
      } | ${f(r.listMs, 1)} (${r.listed}) |`,
    );
  }
}
