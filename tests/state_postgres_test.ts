/**
 * The PostgreSQL backend beyond the shared contract: the schema revision
 * check, the lease, tampering, a database restart and a dropped
 * connection, and ten kernels (separate processes) writing at once. One
 * private cluster for the file (tests/_postgres.ts).
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  freshSchema,
  PG_IGNORE,
  sharedCluster,
  stopSharedCluster,
} from "./_postgres.ts";
import { REPO } from "./_helpers.ts";
import { EventBus } from "../kernel/bus/event_bus.ts";
import { PostgresBusBridge } from "../kernel/state/postgres_bus_bridge.ts";
import { followSession } from "../kernel/frontend/follow_session.ts";
import { PostgresSessionStore } from "../kernel/state/postgres_session_store.ts";
import { installationKeyFromBytes } from "../kernel/state/installation_key.ts";
import {
  SchemaTooNewError,
  SessionLeasedError,
} from "../kernel/state/errors.ts";
import { PG_SCHEMA_VERSION } from "../kernel/state/_postgres_schema.ts";
import { message, toolCall } from "./contract/session_store.ts";
import { SqliteSessionStore } from "../kernel/state/sqlite_session_store.ts";
import { stateLocationsOf } from "../kernel/open_sessions.ts";
import { SessionStatus } from "../proto/gen/pluggableharness/session/v1/types_pb.ts";
import { ulid } from "../kernel/state/ulid.ts";
import { run } from "../main.ts";
import { run as checkConfig } from "../cli/commands/check_config.ts";
import { EXIT_USAGE } from "../cli/commands/exit_codes.ts";
import type { SessionOwner } from "../kernel/state/session_store.ts";

const KEY = installationKeyFromBytes(new Uint8Array(32).fill(7));

function storeAt(
  url: string,
  schema: string,
  extra: { leaseMs?: number; owner?: SessionOwner; maxQueued?: number } = {},
): PostgresSessionStore {
  return new PostgresSessionStore({ url, schema, key: KEY, ...extra });
}

/** Reads a stream line by line. */
function lineReader(stream: ReadableStream<Uint8Array>): {
  read(): Promise<{ value?: string }>;
  cancel(): Promise<void>;
} {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  return {
    async read() {
      for (;;) {
        const nl = buffered.indexOf("\n");
        if (nl >= 0) {
          const value = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          return { value };
        }
        const { value, done } = await reader.read();
        if (done) return {};
        buffered += decoder.decode(value, { stream: true });
      }
    },
    cancel: () => reader.cancel(),
  };
}

function test(name: string, fn: () => Promise<void>): void {
  Deno.test({ name, ignore: PG_IGNORE, fn });
}

test("postgres: a schema newer than this kernel is refused before anything is written", async () => {
  const { url } = await sharedCluster();
  const schema = freshSchema();
  {
    await using store = storeAt(url, schema);
    await store.list();
    const sql = await store.sql();
    await sql`UPDATE schema_version SET version = ${PG_SCHEMA_VERSION + 1}`;
  }
  await using store = storeAt(url, schema);
  await assert.rejects(store.list(), (e: unknown) => {
    assert.ok(e instanceof SchemaTooNewError);
    assert.match(
      e.message,
      new RegExp(`schema "${schema}" on 127\\.0\\.0\\.1`),
    );
    assert.doesNotMatch(e.message, /postgres:\/\//, "the URL is never shown");
    return true;
  });
});

test("postgres: a second kernel cannot write a session another drives, and takes it over once the lease expires", async () => {
  const { url } = await sharedCluster();
  const schema = freshSchema();
  await using a = storeAt(url, schema, {
    leaseMs: 300,
    owner: { pid: 1, host: "kernel-a.invalid", startTime: "1" },
  });
  await using b = storeAt(url, schema, { leaseMs: 300 });
  const sa = await a.create({ profile: "default" });
  await sa.emit(toolCall(1));
  const sb = await b.open(sa.sessionId);
  // Reading needs no lease.
  assert.equal((await sb.info()).sessionId, sa.sessionId);
  await assert.rejects(sb.emit(toolCall(2)), (e: unknown) => {
    assert.ok(e instanceof SessionLeasedError);
    assert.match(e.message, /another kernel \(pid 1 on kernel-a\.invalid\)/);
    return true;
  });
  // A kill -9 stops the renewals: stand for it by expiring the lease under a
  // token no kernel holds, so a's renewals (every 100 ms, which match on its
  // own token) cannot extend it again before b looks.
  const sql = await a.sql();
  await sql`UPDATE sessions SET lease_expires_at = now() - interval '1 second',
    lease_token = 'killed-kernel'`;
  const again = await b.open(sa.sessionId);
  await sb.close();
  // b's lease now; a's renewals no longer touch it (token differs).
  assert.equal((await again.emit(toolCall(3))).sequence, 2);
  await assert.rejects(sa.emit(toolCall(4)), SessionLeasedError);
  assert.equal((await b.verify(sa.sessionId)).ok, true);
  await again.close();
  await sa.close();
});

test("postgres: deleting the newest events or rewriting a row is reported by verify", async () => {
  const { url } = await sharedCluster();
  await using store = storeAt(url, freshSchema());
  const s = await store.create({ profile: "default" });
  for (let i = 0; i < 5; i++) await s.emit(toolCall(i));
  await s.close();
  const sql = await store.sql();
  await sql`UPDATE events SET payload = '\\x00' WHERE sequence = 3`;
  const edited = await store.verify(s.sessionId);
  assert.equal(edited.ok, false);
  assert.equal(!edited.ok && edited.firstBadSequence, 3);
  await sql`DELETE FROM events WHERE sequence >= 3`;
  const truncated = await store.verify(s.sessionId);
  assert.equal(truncated.ok, false);
  assert.equal(!truncated.ok && truncated.reason, "missing");
});

test("postgres: a database restart under load loses no acknowledged event; writers wait and resume", async () => {
  const cluster = await sharedCluster();
  await using store = storeAt(cluster.url, freshSchema(), { maxQueued: 50 });
  const s = await store.create({ profile: "default" });
  const acked: number[] = [];
  let stop = false;
  const writer = (async () => {
    for (let i = 0; !stop; i++) {
      acked.push((await s.emit(toolCall(i))).sequence);
    }
  })();
  while (acked.length < 50) await new Promise((r) => setTimeout(r, 5));
  await cluster.stop("immediate");
  const atStop = acked.length;
  await cluster.start();
  while (acked.length < atStop + 50) {
    await new Promise((r) => setTimeout(r, 5));
  }
  stop = true;
  await writer;
  const stored: number[] = [];
  for await (const e of s.readEvents()) stored.push(e.sequence);
  assert.deepEqual(stored.slice(0, acked.length), acked);
  assert.deepEqual(stored, stored.map((_, i) => i + 1), "gapless");
  assert.equal((await s.verify()).ok, true);
  await s.close();
});

test("postgres: a connection closed under a commit's transaction or under a bus notification rejects its queries, never an uncaught TypeError from npm:postgres: the commit retries and the notification is sent once more", async () => {
  const { url } = await sharedCluster();
  const schema = freshSchema();
  const busA = new EventBus();
  const busB = new EventBus();
  await using a = new PostgresSessionStore({
    url,
    schema,
    key: KEY,
    bus: busA,
  });
  await using b = new PostgresSessionStore({
    url,
    schema,
    key: KEY,
    bus: busB,
  });
  const bridgeA = await a.startBusBridge();
  await b.startBusBridge();
  const sub = busB.subscribe(["plugin.*"], { bound: Infinity });
  const { default: postgres } = await import("postgres");
  const killer = postgres(url, {
    max: 3,
    onnotice: () => {},
    connection: { search_path: schema, application_name: "killer" },
  });
  /** Waits for a backend of the stores blocked on a lock where `where`. */
  const blocked = async (where: string) => {
    for (;;) {
      const [row] = await killer.unsafe(
        `SELECT pid FROM pg_stat_activity WHERE application_name = 'agent'
          AND wait_event_type = 'Lock' AND ${where}`,
      );
      if (row) return row.pid as number;
    }
  };
  /** Terminates a backend and waits until it is gone. */
  const terminate = async (pid: number) => {
    await killer`SELECT pg_terminate_backend(${pid})`;
    while (
      (await killer`SELECT 1 FROM pg_stat_activity WHERE pid = ${pid}`).length
    );
  };
  /** Holds a lock in a transaction of the killer until `release()`. */
  const hold = async (lock: string) => {
    const locked = Promise.withResolvers<void>();
    const released = Promise.withResolvers<void>();
    const tx = killer.begin(async (t) => {
      await t.unsafe(lock);
      locked.resolve();
      await released.promise;
    });
    tx.catch(locked.reject);
    await locked.promise;
    return async () => {
      released.resolve();
      await tx;
    };
  };
  const releases: (() => Promise<void>)[] = [];
  try {
    // A commit's transaction loses its connection while it waits on a lock.
    const s = await a.create({ profile: "default" });
    await s.emit(toolCall(1));
    releases.push(
      await hold(
        `SELECT 1 FROM sessions WHERE session_id = '${s.sessionId}' FOR UPDATE`,
      ),
    );
    const write = s.emit(toolCall(2));
    const commit = "query LIKE '%FOR UPDATE'";
    const first = await blocked(commit);
    await terminate(first);
    // The commit retries on another connection and waits on the lock again.
    await blocked(`${commit} AND pid <> ${first}`);
    await releases.pop()!();
    assert.equal((await write).sequence, 2);
    assert.equal((await s.verify()).ok, true);
    await s.close();

    // A notification's connection is lost while its payload (stored by
    // reference) waits on a lock; two more notifications follow.
    releases.push(await hold("LOCK TABLE bus_payloads IN EXCLUSIVE MODE"));
    const publish = (payload: Uint8Array) =>
      busA.publishPlugin({ category: "tool", name: "ci" }, {
        eventType: "progress",
        payload,
        payloadType: "text/plain",
        schemaVersion: "1",
      });
    publish(new Uint8Array(20_000).fill(1));
    await terminate(await blocked("query LIKE 'INSERT INTO bus_payloads%'"));
    publish(new Uint8Array([2]));
    publish(new Uint8Array([3]));
    await releases.pop()!();
    await bridgeA.flush();
    const got = [];
    for (let i = 0; i < 3; i++) got.push((await sub.next()).value!.payload);
    assert.deepEqual(got.map((p) => [p.length, p[0]]), [
      [20_000, 1],
      [1, 2],
      [1, 3],
    ]);
  } finally {
    for (const release of releases) await release().catch(() => {});
    sub.close();
    await killer.end({ timeout: 1 });
    busA.close();
    busB.close();
  }
});

test("postgres: writes queued past the bound wait (the session pauses), none is dropped", async () => {
  const cluster = await sharedCluster();
  await using store = storeAt(cluster.url, freshSchema(), { maxQueued: 10 });
  const s = await store.create({ profile: "default" });
  await s.emit(toolCall(0));
  await cluster.stop("fast");
  const writes = Array.from({ length: 100 }, (_, i) => s.emit(toolCall(i)));
  let settled = 0;
  for (const w of writes) w.then(() => settled++, () => settled++);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(
    settled,
    0,
    "nothing acknowledged or failed while the database is down",
  );
  await cluster.start();
  const done = await Promise.all(writes);
  assert.deepEqual(done.map((d) => d.sequence), done.map((_, i) => i + 2));
  assert.equal((await s.verify()).ok, true);
  await s.close();
});

test("postgres: ten kernels (processes) write 1,000 events each into a shared session and their own, gapless with valid chains", async () => {
  const { url } = await sharedCluster();
  const schema = freshSchema();
  await using store = storeAt(url, schema);
  const shared = await store.create({ profile: "default" });
  await shared.close();
  const children = Array.from(
    { length: 10 },
    () =>
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          `${REPO}/tests/fixtures/pg/writer.ts`,
          url,
          schema,
          shared.sessionId,
          "1000",
        ],
        stdout: "piped",
        stderr: "piped",
      }).output(),
  );
  const outs = await Promise.all(children);
  const own: string[] = [];
  for (const o of outs) {
    const text = new TextDecoder().decode(o.stdout);
    assert.ok(o.success, new TextDecoder().decode(o.stderr));
    own.push(/done (\S+)/.exec(text)![1]);
  }
  for (const id of [shared.sessionId, ...own]) {
    const r = await store.verify(id);
    assert.equal(r.ok, true, `${id}: ${JSON.stringify(r)}`);
    assert.equal(r.events, id === shared.sessionId ? 10_000 : 1000);
  }
  const sql = await store.sql();
  const [gaps] = await sql`SELECT count(*)::int AS n FROM (SELECT session_id,
      sequence - lag(sequence, 1, 0::bigint) OVER (PARTITION BY session_id
        ORDER BY sequence) AS step FROM events) s WHERE step <> 1`;
  assert.equal(gaps.n, 0);
});

test("postgres: a second kernel process's bus receives the first's events, in order, a large payload by reference", async () => {
  const { url } = await sharedCluster();
  const schema = freshSchema();
  const bus = new EventBus();
  await using store = new PostgresSessionStore({
    url,
    schema,
    key: KEY,
    bus,
  });
  const sql = await store.sql(); // creates the schema before the child
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `${REPO}/tests/fixtures/pg/listener.ts`,
      url,
      schema,
      "4",
    ],
    stdout: "piped",
    stderr: "piped",
    cwd: await Deno.makeTempDir(),
  }).spawn();
  const lines = lineReader(child.stdout);
  const bridge = await PostgresBusBridge.start(bus, sql, { schema });
  try {
    assert.equal((await lines.read()).value, "ready");
    const s = await store.create({ profile: "default" });
    await s.emit(toolCall(1));
    const big = new Uint8Array(20_000).fill(1);
    big[big.length - 1] = 42;
    await s.emit({ ...toolCall(2), payload: big });
    await s.emit(toolCall(3));
    bus.publishPlugin({ category: "tool", name: "github" }, {
      eventType: "progress",
      payload: new Uint8Array([5]),
      payloadType: "text/plain",
      schemaVersion: "1",
    });
    await s.close();
    await bridge.flush();
    const got = [];
    for (let i = 0; i < 4; i++) {
      got.push(JSON.parse((await lines.read()).value!));
    }
    assert.deepEqual(got.map((g) => [g.topic, g.sequence]), [
      ["kernel.event.tool_call", 1],
      ["kernel.event.tool_call", 2],
      ["kernel.event.tool_call", 3],
      ["plugin.tool.github.progress", 0],
    ]);
    assert.equal(got[1].bytes, 20_000);
    assert.equal(got[1].last, 42);
    assert.equal(bridge.stats.byReference, 1);
    const status = await child.status;
    assert.ok(status.success);
  } finally {
    await bridge.close();
    await lines.cancel().catch(() => {});
    await child.stderr.cancel().catch(() => {});
    try {
      child.kill();
    } catch {
      // exited
    }
    bus.close();
  }
});

test("postgres: with the store's bridge, each commit notifies the other kernels in its transaction: in order, a large payload by reference to its events row, nothing for a batch rolled back", async () => {
  const { url } = await sharedCluster();
  const schema = freshSchema();
  const busA = new EventBus();
  const busB = new EventBus();
  await using a = new PostgresSessionStore({
    url,
    schema,
    key: KEY,
    bus: busA,
  });
  await using b = new PostgresSessionStore({
    url,
    schema,
    key: KEY,
    bus: busB,
  });
  const bridgeA = await a.startBusBridge();
  await b.startBusBridge();
  const sub = busB.subscribe(["kernel.event.*"], { bound: Infinity });
  try {
    const s = await a.create({ profile: "default" });
    const big = new Uint8Array(20_000).fill(3);
    big[0] = 7;
    await s.emit(toolCall(1));
    await s.emit({ ...toolCall(2), payload: big });
    // A duplicate id fails its whole batch: no notification for it.
    await assert.rejects(
      s.emit({ ...toolCall(3), id: "dup" }).then(() =>
        s.emit({ ...toolCall(4), id: "dup" })
      ),
    );
    await s.emit(toolCall(5));
    const got = [];
    for (let i = 0; i < 4; i++) got.push((await sub.next()).value!);
    assert.deepEqual(got.map((e) => [e.topic, e.sequence]), [
      ["kernel.event.tool_call", 1n],
      ["kernel.event.tool_call", 2n],
      ["kernel.event.tool_call", 3n],
      ["kernel.event.tool_call", 4n],
    ]);
    assert.equal(new TextDecoder().decode(got[0]!.payload), "call 1");
    assert.deepEqual(got[1]!.payload, big);
    assert.equal(new TextDecoder().decode(got[3]!.payload), "call 5");
    assert.equal(bridgeA.stats.byReference, 1);
    assert.equal(sub.pending, 0, "one notification per committed event");
    await s.close();
  } finally {
    sub.close();
    busA.close();
    busB.close();
  }
});

test("postgres: a follower sees a running session whose kernel died as interrupted once its lease expires", async () => {
  const { url } = await sharedCluster();
  const schema = freshSchema();
  await using a = storeAt(url, schema, {
    owner: { pid: 1, host: "kernel-a.invalid", startTime: "1" },
  });
  const s = await a.create({ profile: "default" });
  // An empty payload: a tool call without its call, which a replay skips.
  await s.emit({ ...toolCall(1), payload: new Uint8Array() });
  const bus = new EventBus();
  await using b = storeAt(url, schema);
  // A kill -9 stops the renewals: stand for it by expiring the lease.
  const sql = await a.sql();
  await sql`UPDATE sessions SET lease_expires_at = now() - interval '1 second'`;
  const seen: string[] = [];
  for await (const item of followSession(b, bus, s.sessionId)) {
    seen.push(
      item.type === "event"
        ? item.event.type
        : item.type === "ended"
        ? `ended:${item.status}`
        : item.type,
    );
  }
  assert.deepEqual(seen, ["session_started", "ended:interrupted"]);
  bus.close();
});

test("postgres: agent sessions push copies ended local sessions with verified chains; list, verify and export read either backend alike", async () => {
  const { url } = await sharedCluster();
  const schema = freshSchema();
  const home = await Deno.makeTempDir();
  try {
    const env = {
      HOME: home,
      XDG_STATE_HOME: `${home}/state`,
      DB_URL: url,
    };
    const where = stateLocationsOf(env, undefined);
    let ended: string;
    let running: string;
    {
      await using local = new SqliteSessionStore(where);
      const s = await local.create({ profile: "default" });
      await s.emit(toolCall(1));
      await s.emit(message(0.25));
      await s.emit(toolCall(2));
      await s.setStatus(SessionStatus.COMPLETED);
      ended = s.sessionId;
      await s.close();
      const r = await local.create({
        profile: "default",
        sessionId: ulid(Date.now() + 1000),
      });
      running = r.sessionId;
      await r.close();
    }
    const cli = async (args: string[]) => {
      let out = "";
      let err = "";
      const code = await run(args, {
        stdout: (t) => (out += t),
        stderr: (t) => (err += t),
        isTerminal: false,
        env,
        cwd: home,
      });
      return { code, out, err };
    };
    const pg = ["--postgres", "--url-env", "DB_URL", "--schema", schema];
    const pushed = await cli(["sessions", "push", "--all", ...pg]);
    assert.equal(pushed.code, 0, pushed.err);
    assert.match(
      pushed.out,
      new RegExp(`${ended}  copied \\(3 events, chain verified\\)`),
    );
    assert.doesNotMatch(
      pushed.out,
      new RegExp(running),
      "a running session stays",
    );
    assert.doesNotMatch(
      pushed.out + pushed.err,
      /postgres:\/\//,
      "no URL shown",
    );
    const again = await cli(["sessions", "push", ended, ...pg]);
    assert.match(again.out, /already in the shared store/);
    const refused = await cli(["sessions", "push", running, ...pg]);
    assert.equal(refused.code, 1);
    assert.match(refused.out, /refused: it is running/);

    const list = JSON.parse(
      (await cli(["sessions", "list", "--json", ...pg])).out,
    );
    assert.deepEqual(
      list.sessions.map((x: { sessionId: string }) => x.sessionId),
      [ended],
    );
    assert.equal(list.sessions[0].status, "completed");
    assert.equal(list.sessions[0].costUsd, 0.25);
    const verified = await cli(["sessions", "verify", ended, ...pg]);
    assert.equal(verified.code, 0, verified.out + verified.err);
    assert.match(verified.out, /^ok: 3 events/);

    const fromLocal = await cli([
      "sessions",
      "export",
      ended,
      "--format",
      "jsonl",
    ]);
    const fromShared = await cli([
      "sessions",
      "export",
      ended,
      "--format",
      "jsonl",
      ...pg,
    ]);
    assert.equal(fromLocal.code, 0, fromLocal.err);
    assert.equal(fromShared.code, 0, fromShared.err);
    const lines = fromShared.out.trimEnd().split("\n").map((l) =>
      JSON.parse(l)
    );
    assert.equal(lines.length, 4);
    assert.equal(lines[2].kind, "message");
    assert.equal(lines[2].cost[0].costUsd, 0.25);
    assert.deepEqual(
      fromShared.out.split("\n").slice(1),
      fromLocal.out.split("\n").slice(1),
      "the same events, byte for byte",
    );
    const bad = await cli(["sessions", "export", ended]);
    assert.equal(bad.code, EXIT_USAGE);
    assert.match(bad.err, /export needs --format jsonl/);
    const noUrl = await cli(["sessions", "list", "--postgres"]);
    assert.notEqual(noUrl.code, 0);
    assert.match(noUrl.err, /AGENT_DATABASE_URL is not set/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

test("postgres: check-config validates the state block without connecting; --connect connects and checks the schema, never printing the URL", async () => {
  const { url, port } = await sharedCluster();
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/agent.hcl`,
      `state {\n  backend = "postgres"\n  url = env("DB_URL")\n  schema = "${freshSchema()}"\n}\n`,
    );
    const check = async (args: string[], dbUrl: string) => {
      let out = "";
      let err = "";
      const code = await checkConfig([dir, "--no-cache", ...args], {
        stdout: (t) => (out += t),
        stderr: (t) => (err += t),
        isTerminal: false,
        env: { HOME: dir, DB_URL: dbUrl },
        cwd: dir,
      });
      return { code, text: out + err };
    };
    // A database that is not there: without --connect nothing connects.
    const nowhere = url.replace(String(port), "1");
    const offline = await check([], nowhere);
    assert.equal(offline.code, 0, offline.text);
    const down = await check(["--connect"], nowhere);
    assert.equal(down.code, 1, down.text);
    assert.match(down.text, /E_STATE_CONNECT/);
    assert.doesNotMatch(down.text, /postgres:\/\//, "the URL is never shown");
    const up = await check(["--connect", "--json"], url);
    assert.equal(up.code, 0, up.text);
    assert.doesNotMatch(up.text, /postgres:\/\//);
    assert.equal(JSON.parse(up.text).valid, true);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "postgres: (stops the test cluster)",
  ignore: PG_IGNORE,
  fn: stopSharedCluster,
});
