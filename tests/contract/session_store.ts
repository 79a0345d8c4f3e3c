/**
 * The contract every {@linkcode SessionStore} passes: one suite, run against
 * {@linkcode SqliteSessionStore} (kernel/sqlite_session_store_test.ts),
 * {@linkcode MemorySessionStore} (kernel/memory_session_store_test.ts) and
 * {@linkcode PostgresSessionStore} (kernel/postgres_session_store_test.ts,
 * against a private cluster, tests/_postgres.ts).
 *
 * @module
 */
import assert from "node:assert/strict";
import { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import { SessionStatus } from "../../proto/gen/pluggableharness/session/v1/types_pb.ts";
import type { BusEvent } from "../../proto/gen/pluggableharness/kernel/v1/events_pb.ts";
import { EventBus } from "../../kernel/bus/event_bus.ts";
import {
  type EmitInput,
  type EventRecord,
  KERNEL_PRODUCER,
  type Producer,
  type SessionLog,
  type SessionOwner,
  type SessionStore,
} from "../../kernel/state/session_store.ts";
import {
  DuplicateEventIdError,
  InvalidStatusTransitionError,
  ReservedProducerError,
  SessionClosedError,
  SessionExistsError,
  SessionNotFoundError,
  UnspecifiedEventKindError,
} from "../../kernel/state/errors.ts";
import { isUlid, ulid } from "../../kernel/state/ulid.ts";

/** A store under test and how to dispose of it. */
export interface StoreFixture {
  /** The store, wired to `bus`. */
  store: SessionStore;
  /** Removes whatever the store left behind (temp directories). */
  cleanup(): Promise<void>;
}

/** What a contract test may set on a fresh store. */
export interface StoreExtras {
  /** The owner the store records when it opens a session for writing. */
  owner?: SessionOwner;
}

/** Makes a fresh store that republishes on `bus`. */
export type MakeStore = (
  bus: EventBus,
  extras?: StoreExtras,
) => Promise<StoreFixture>;

export const GITHUB: Producer = {
  category: "tool",
  name: "github",
  version: "1.2.0",
};
export const ANTHROPIC: Producer = {
  category: "model",
  name: "anthropic",
  version: "0.3.1",
};

export function toolCall(n: number, producer = GITHUB): EmitInput {
  return {
    kind: EventKind.TOOL_CALL,
    producer,
    schemaVersion: "1",
    payload: new TextEncoder().encode(`call ${n}`),
  };
}

export function message(costUsd: number, inputTokens = 100): EmitInput {
  return {
    kind: EventKind.MESSAGE,
    producer: ANTHROPIC,
    schemaVersion: "1",
    payload: new Uint8Array([9, 9]),
    cost: {
      providerName: "anthropic",
      modelId: "claude-x",
      inputTokens,
      outputTokens: 20n,
      cacheReadTokens: 5,
      costUsd,
    },
  };
}

export async function collect(
  it: AsyncIterable<EventRecord>,
): Promise<EventRecord[]> {
  const out: EventRecord[] = [];
  for await (const e of it) out.push(e);
  return out;
}

function canReadProc(): boolean {
  try {
    Deno.readTextFileSync("/proc/self/stat");
    return true;
  } catch {
    return false;
  }
}

/**
 * Registers the contract tests for one implementation.
 *
 * @param name The implementation's name, prefixed to every test name.
 * @param make Makes a fresh store for each test.
 */
export function runSessionStoreContract(name: string, make: MakeStore): void {
  function test(
    title: string,
    fn: (
      ctx: { store: SessionStore; bus: EventBus; session: SessionLog },
    ) => Promise<void>,
  ): void {
    Deno.test(`${name}: ${title}`, async () => {
      const bus = new EventBus();
      const { store, cleanup } = await make(bus);
      try {
        const session = await store.create({ profile: "default" });
        await fn({ store, bus, session });
      } finally {
        await store.close();
        bus.close();
        await cleanup();
      }
    });
  }

  Deno.test(`${name}: a failing republish never fails the write`, async () => {
    class BrokenBus extends EventBus {
      override publishKernel(): number {
        throw new Error("the bus is down");
      }
    }
    const bus = new BrokenBus();
    const { store, cleanup } = await make(bus);
    try {
      const s = await store.create({ profile: "p" });
      const acks = await Promise.all([
        s.emit(toolCall(1)),
        s.emit(toolCall(2)),
      ]);
      assert.deepEqual(acks.map((a) => a.sequence), [1, 2]);
      assert.equal((await collect(s.readEvents())).length, 2);
    } finally {
      await store.close();
      await cleanup();
    }
  });

  test("create() starts a running root session", async ({ session }) => {
    assert.ok(isUlid(session.sessionId));
    const info = await session.info();
    assert.equal(info.sessionId, session.sessionId);
    assert.equal(info.status, SessionStatus.RUNNING);
    assert.equal(info.depth, 0);
    assert.equal(info.profile, "default");
    assert.match(info.startedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(info.endedAt, undefined);
    assert.equal(info.parentSessionId, undefined);
    assert.equal(info.costUsd, undefined);
    assert.equal(await session.costUsd(), 0);
  });

  test("emit() assigns ULID ids and sequences 1, 2, 3 and readEvents() returns exact bytes", async ({ session }) => {
    const acks = [];
    for (let i = 1; i <= 3; i++) acks.push(await session.emit(toolCall(i)));
    assert.deepEqual(acks.map((a) => a.sequence), [1, 2, 3]);
    for (const a of acks) assert.ok(isUlid(a.id));
    assert.ok(acks[0].id < acks[1].id && acks[1].id < acks[2].id);
    const events = await collect(session.readEvents());
    assert.equal(events.length, 3);
    for (const [i, e] of events.entries()) {
      assert.equal(e.sequence, i + 1);
      assert.equal(e.id, acks[i].id);
      assert.equal(e.timestamp, acks[i].timestamp);
      assert.equal(e.kind, EventKind.TOOL_CALL);
      assert.deepEqual({ ...e.producer }, { ...GITHUB });
      assert.equal(e.schemaVersion, "1");
      assert.deepEqual(e.payload, new TextEncoder().encode(`call ${i + 1}`));
    }
  });

  test("emits queued together commit in call order (group commit)", async ({ session }) => {
    const acks = await Promise.all(
      Array.from({ length: 300 }, (_, i) => session.emit(toolCall(i))),
    );
    assert.deepEqual(acks.map((a) => a.sequence), acks.map((_, i) => i + 1));
    const events = await collect(session.readEvents());
    assert.deepEqual(
      events.map((e) => new TextDecoder().decode(e.payload)),
      acks.map((_, i) => `call ${i}`),
    );
    assert.equal((await session.verify()).ok, true);
  });

  test("a deferred emit waits for the next write that commits, in queue order", async ({ store, session }) => {
    let stored = false;
    const deferred = session.emit(toolCall(1), { defer: true }).then((a) => {
      stored = true;
      return a;
    });
    for (let i = 0; i < 20; i++) await Promise.resolve();
    assert.equal(stored, false);
    const [a, b] = await Promise.all([deferred, session.emit(toolCall(2))]);
    assert.deepEqual([a.sequence, b.sequence], [1, 2]);
    // Alone, it is committed once the current task is done.
    const c = await session.emit(toolCall(3), { defer: true });
    assert.equal(c.sequence, 3);
    // Closing commits one still queued.
    void session.emit(toolCall(4), { defer: true });
    await session.close();
    await using reader = await store.open(session.sessionId);
    const events = await collect(reader.readEvents());
    assert.deepEqual(
      events.map((e) => new TextDecoder().decode(e.payload)),
      ["call 1", "call 2", "call 3", "call 4"],
    );
  });

  test("a caller-supplied id is kept; a duplicate fails alone and leaves no gap", async ({ session }) => {
    const id = ulid();
    const first = await session.emit({ ...toolCall(1), id });
    assert.equal(first.id, id);
    const results = await Promise.allSettled([
      session.emit(toolCall(2)),
      session.emit({ ...toolCall(3), id }),
      session.emit(toolCall(4)),
    ]);
    assert.equal(results[0].status, "fulfilled");
    assert.equal(results[2].status, "fulfilled");
    assert.equal(results[1].status, "rejected");
    const reason = (results[1] as PromiseRejectedResult).reason;
    assert.ok(reason instanceof DuplicateEventIdError, String(reason));
    assert.equal(reason.code, "event_id_duplicate");
    const seqs = (await collect(session.readEvents())).map((e) => e.sequence);
    assert.deepEqual(seqs, [1, 2, 3]);
    assert.equal((await session.verify()).ok, true);
  });

  test("EVENT_KIND_UNSPECIFIED is refused with a named error", async ({ session }) => {
    await assert.rejects(
      session.emit({ ...toolCall(1), kind: EventKind.UNSPECIFIED }),
      (e) =>
        e instanceof UnspecifiedEventKindError &&
        e.code === "event_kind_unspecified",
    );
    assert.throws(
      () => session.readEvents({ kinds: [EventKind.UNSPECIFIED] }),
      UnspecifiedEventKindError,
    );
    assert.deepEqual(await collect(session.readEvents()), []);
  });

  test("malformed emits are refused before they are queued", async ({ session }) => {
    await assert.rejects(
      session.emit({ ...toolCall(1), schemaVersion: "" }),
      TypeError,
    );
    await assert.rejects(
      session.emit({ ...toolCall(1), payload: "x" as unknown as Uint8Array }),
      TypeError,
    );
    await assert.rejects(
      session.emit({
        ...toolCall(1),
        producer: { category: "nope" as "tool", name: "a", version: "1" },
      }),
      TypeError,
    );
    await assert.rejects(
      session.emit({ ...toolCall(1), kind: 99 as EventKind }),
      RangeError,
    );
    assert.deepEqual(await collect(session.readEvents()), []);
  });

  test("readEvents() filters by kinds, starts at fromSequence and stops at limit", async ({ session }) => {
    for (let i = 0; i < 5; i++) {
      await session.emit(toolCall(i));
      await session.emit({
        kind: EventKind.TOOL_RESULT,
        producer: GITHUB,
        schemaVersion: "1",
        payload: new Uint8Array([i]),
      });
      await session.emit({
        kind: EventKind.MEMORY_WRITE,
        producer: { category: "memory", name: "notes", version: "1.0.0" },
        schemaVersion: "1",
        payload: new Uint8Array(),
      });
    }
    const seq = async (o: Parameters<SessionLog["readEvents"]>[0]) =>
      (await collect(session.readEvents(o))).map((e) => e.sequence);
    assert.deepEqual(await seq({ kinds: [EventKind.TOOL_RESULT] }), [
      2,
      5,
      8,
      11,
      14,
    ]);
    assert.deepEqual(
      await seq({ kinds: [EventKind.MEMORY_WRITE, EventKind.TOOL_CALL] }),
      [1, 3, 4, 6, 7, 9, 10, 12, 13, 15],
    );
    assert.deepEqual(await seq({ fromSequence: 13 }), [13, 14, 15]);
    assert.deepEqual(await seq({ fromSequence: 16 }), []);
    assert.deepEqual(await seq({ limit: 2 }), [1, 2]);
    assert.deepEqual(await seq({ limit: 0 }), []);
    assert.deepEqual(
      await seq({ kinds: [EventKind.TOOL_RESULT], fromSequence: 6, limit: 2 }),
      [8, 11],
    );
    assert.deepEqual(await seq({ kinds: [] }), await seq({}));
    assert.throws(() => session.readEvents({ limit: -1 }), RangeError);
  });

  test("a message writes its cost_ledger row; the rollup is the ledger sum", async ({ session }) => {
    await session.emit(toolCall(1));
    const m1 = await session.emit(message(0.25));
    const m2 = await session.emit(message(0.5, 7));
    await session.emit({ ...message(0), cost: undefined }); // no usage: no row
    const ledger = await session.costLedger();
    assert.deepEqual(ledger.map((r) => r.eventSequence), [
      m1.sequence,
      m2.sequence,
    ]);
    assert.deepEqual(
      { ...ledger[1], sequence: 0 },
      {
        sequence: 0,
        eventSequence: m2.sequence,
        providerName: "anthropic",
        modelId: "claude-x",
        inputTokens: 7,
        outputTokens: 20,
        cacheWriteTokens: 0,
        cacheReadTokens: 5,
        costUsd: 0.5,
      },
    );
    assert.equal(await session.costUsd(), 0.75);
    assert.equal((await session.info()).costUsd, 0.75);
    await assert.rejects(
      session.emit({ ...toolCall(1), cost: message(1).cost }),
      TypeError,
    );
    await assert.rejects(
      session.emit({
        ...message(1),
        cost: { ...message(1).cost!, inputTokens: -1 },
      }),
      RangeError,
    );
    assert.equal((await session.costLedger()).length, 2);
  });

  test("a plan writes one plan_items row per item under the kernel producer", async ({ session }) => {
    const items = [
      {
        turnId: "t1",
        toolCallId: "c1",
        providerName: "github",
        toolName: "create_pr",
        decision: "ask" as const,
        decidedBy: "rule:writes-ask",
      },
      {
        turnId: "t1",
        toolCallId: "c2",
        providerName: "fs",
        toolName: "read",
        decision: "allow" as const,
        decidedBy: "rule:reads",
      },
    ];
    const plan = await session.emit({
      kind: EventKind.PLAN,
      producer: KERNEL_PRODUCER,
      schemaVersion: "1",
      payload: new Uint8Array([1]),
      planItems: items,
    });
    const rows = await session.planItems();
    assert.deepEqual(
      rows.map(({ sequence: _s, ...r }) => r),
      items.map((i) => ({ ...i, eventSequence: plan.sequence })),
    );
    await assert.rejects(
      session.emit({
        kind: EventKind.PLAN,
        producer: KERNEL_PRODUCER,
        schemaVersion: "1",
        payload: new Uint8Array(),
      }),
      TypeError,
    );
    await assert.rejects(
      session.emit({
        kind: EventKind.PLAN,
        producer: KERNEL_PRODUCER,
        schemaVersion: "1",
        payload: new Uint8Array(),
        planItems: [{ ...items[0], decision: "pending" as "ask" }],
      }),
      RangeError,
    );
    await assert.rejects(
      session.emit({ ...toolCall(1), planItems: items }),
      TypeError,
    );
    const events = await collect(session.readEvents());
    assert.equal(events.length, 1);
    assert.deepEqual({ ...events[0].producer }, { ...KERNEL_PRODUCER });
  });

  test("the reserved kernel producer is refused outside plan and apply", async ({ session }) => {
    await assert.rejects(
      session.emit({ ...toolCall(1), producer: KERNEL_PRODUCER }),
      (e) =>
        e instanceof ReservedProducerError && e.code === "producer_reserved",
    );
    await assert.rejects(
      session.emit({
        kind: EventKind.APPLY,
        producer: { category: "kernel", name: "impostor", version: "1" },
        schemaVersion: "1",
        payload: new Uint8Array(),
      }),
      ReservedProducerError,
    );
    const apply = await session.emit({
      kind: EventKind.APPLY,
      producer: KERNEL_PRODUCER,
      schemaVersion: "1",
      payload: new Uint8Array(),
    });
    assert.equal(apply.sequence, 1);
  });

  test("producers are recorded on first sighting; missingProducers() diffs against installed", async ({ session }) => {
    await session.emit(toolCall(1));
    await session.emit(toolCall(2));
    await session.emit(message(0.1));
    await session.emit({
      kind: EventKind.APPLY,
      producer: KERNEL_PRODUCER,
      schemaVersion: "1",
      payload: new Uint8Array(),
    });
    await Promise.all([
      session.emit(toolCall(3, { ...GITHUB, version: "1.3.0" })),
      session.emit(toolCall(4, { ...GITHUB, version: "1.3.0" })),
    ]);
    const producers = await session.producers();
    assert.deepEqual(
      producers.map((p) => [
        `${p.category}/${p.name}@${p.version}`,
        p.firstSeenSequence,
      ]),
      [
        ["tool/github@1.2.0", 1],
        ["model/anthropic@0.3.1", 3],
        ["kernel/kernel@1", 4],
        ["tool/github@1.3.0", 5],
      ],
    );
    const missing = await session.missingProducers([
      GITHUB,
      { category: "tool", name: "other", version: "9.9.9" },
    ]);
    assert.deepEqual(
      missing.map((p) => `${p.category}/${p.name}@${p.version}`),
      ["model/anthropic@0.3.1", "tool/github@1.3.0"],
    );
  });

  test("status transitions follow §3.9", async ({ store, session }) => {
    const done = await session.setStatus(SessionStatus.COMPLETED);
    assert.equal(done.status, SessionStatus.COMPLETED);
    assert.ok(done.endedAt);
    const again = await session.setStatus(SessionStatus.RUNNING);
    assert.equal(again.status, SessionStatus.RUNNING);
    assert.equal(again.endedAt, undefined);
    await session.setStatus(SessionStatus.CANCELLED);
    await session.setStatus(SessionStatus.RUNNING);
    await assert.rejects(
      session.setStatus(SessionStatus.RUNNING),
      InvalidStatusTransitionError,
    );
    await session.setStatus(SessionStatus.ERROR_MAX_TURNS);
    for (
      const to of [
        SessionStatus.RUNNING,
        SessionStatus.COMPLETED,
        SessionStatus.FAILED,
      ]
    ) {
      await assert.rejects(
        session.setStatus(to),
        (e) =>
          e instanceof InvalidStatusTransitionError &&
          e.code === "session_status_transition_invalid" &&
          /replay-only/.test(e.message),
      );
    }
    await assert.rejects(
      session.setStatus(SessionStatus.UNSPECIFIED),
      RangeError,
    );
    const other = await store.create({ profile: "p" });
    await other.setStatus(SessionStatus.COMPLETED);
    await assert.rejects(
      other.setStatus(SessionStatus.CANCELLED),
      /can only re-open to running/,
    );
    await other.setStatus(SessionStatus.RUNNING);
    await other.setStatus(SessionStatus.FAILED);
    await assert.rejects(
      other.setStatus(SessionStatus.RUNNING),
      InvalidStatusTransitionError,
    );
    assert.equal((await other.info()).status, SessionStatus.FAILED);
  });

  test("status changes are ordered with the emits around them", async ({ session }) => {
    const [a, done, b] = await Promise.allSettled([
      session.emit(toolCall(1)),
      session.setStatus(SessionStatus.COMPLETED),
      session.emit(toolCall(2)),
    ]);
    assert.equal(a.status, "fulfilled");
    assert.equal(done.status, "fulfilled");
    assert.equal(b.status, "fulfilled");
    assert.equal((await session.info()).status, SessionStatus.COMPLETED);
  });

  test("list() is newest first, with parents, filters and limit", async ({ store, session }) => {
    const root = session.sessionId;
    const t0 = Date.now();
    const c1 = await store.create({
      profile: "sub",
      parentSessionId: root,
      depth: 1,
      sessionId: ulid(t0 + 1000),
    });
    const c2 = await store.create({
      profile: "sub",
      parentSessionId: root,
      depth: 1,
      sessionId: ulid(t0 + 2000),
    });
    const g = await store.create({
      profile: "sub",
      parentSessionId: c1.sessionId,
      depth: 2,
      sessionId: ulid(t0 + 3000),
    });
    await c2.setStatus(SessionStatus.COMPLETED);
    await c1.emit(message(1.5));
    const all = await store.list();
    assert.deepEqual(all.unreadable, []);
    assert.deepEqual(all.sessions.map((s) => s.sessionId), [
      g.sessionId,
      c2.sessionId,
      c1.sessionId,
      root,
    ]);
    assert.equal(all.sessions[0].parentSessionId, c1.sessionId);
    assert.equal(all.sessions[0].depth, 2);
    assert.equal(all.sessions[2].costUsd, 1.5);
    const children = await store.list({ parentSessionId: root });
    assert.deepEqual(children.sessions.map((s) => s.sessionId), [
      c2.sessionId,
      c1.sessionId,
    ]);
    assert.deepEqual(
      (await store.list({ rootsOnly: true })).sessions.map((s) => s.sessionId),
      [root],
    );
    assert.deepEqual(
      (await store.list({ status: SessionStatus.COMPLETED })).sessions.map((
        s,
      ) => s.sessionId),
      [c2.sessionId],
    );
    assert.equal((await store.list({ limit: 2 })).sessions.length, 2);
    await assert.rejects(
      store.create({ profile: "sub", parentSessionId: root }),
      TypeError,
    );
  });

  test("list() names the live owner of an open session and drops it at close", async ({ store, session }) => {
    const [open] = (await store.list()).sessions;
    assert.equal(open.owner?.pid, Deno.pid);
    assert.equal(open.owner?.host, Deno.hostname());
    assert.equal(open.interrupted, undefined);
    await session.close();
    const [closed] = (await store.list()).sessions;
    assert.equal(closed.owner, undefined);
    assert.equal(closed.status, SessionStatus.RUNNING);
    assert.equal(closed.interrupted, undefined);
  });

  async function withOwner(
    owner: SessionOwner,
    fn: (store: SessionStore) => Promise<void>,
  ): Promise<void> {
    const bus = new EventBus();
    const { store, cleanup } = await make(bus, { owner });
    try {
      await fn(store);
    } finally {
      await store.close();
      bus.close();
      await cleanup();
    }
  }

  Deno.test({
    name:
      `${name}: defect 13: a running session whose owner on this host is gone (pid reused) lists as interrupted`,
    // The owner's start time comes from /proc (Linux).
    ignore: !canReadProc(),
    fn: () =>
      withOwner(
        // This process's pid with another start time: a reused pid.
        { pid: Deno.pid, host: Deno.hostname(), startTime: "1" },
        async (store) => {
          const gone = await store.create({ profile: "default" });
          const done = await store.create({
            profile: "default",
            sessionId: ulid(Date.now() + 1000),
          });
          await done.setStatus(SessionStatus.COMPLETED);
          const { sessions } = await store.list();
          const byId = new Map(sessions.map((s) => [s.sessionId, s]));
          const g = byId.get(gone.sessionId)!;
          assert.equal(g.interrupted, true);
          assert.equal(g.status, SessionStatus.RUNNING, "the stored status");
          assert.equal(g.owner?.startTime, "1");
          assert.equal(byId.get(done.sessionId)!.interrupted, undefined);
          // Display only: the listing wrote nothing.
          assert.equal((await gone.info()).status, SessionStatus.RUNNING);
          assert.equal(
            (await store.list({ status: SessionStatus.RUNNING })).sessions
              .length,
            1,
          );
        },
      ),
  });

  Deno.test(`${name}: a running session owned on another host stays running, with the host`, () =>
    withOwner(
      { pid: 1, host: "elsewhere.invalid", startTime: "5" },
      async (store) => {
        await store.create({ profile: "default" });
        const [s] = (await store.list()).sessions;
        assert.equal(s.status, SessionStatus.RUNNING);
        assert.equal(s.interrupted, undefined);
        assert.equal(s.owner?.host, "elsewhere.invalid");
      },
    ));

  test("committed events are republished on kernel.event.<kind> after the commit, carrying the sequence", async ({ bus, session }) => {
    const sub = bus.subscribe(["kernel.event.*"]);
    const seenDurable: boolean[] = [];
    // A listener that reads the log back: the event must already be there.
    bus.listen(["kernel.event.tool_call"], (e) => {
      seenDurable.push(e.sequence > 0n);
      throw new Error("a broken subscriber");
    });
    await session.emit(toolCall(1));
    await session.emit(message(0.1));
    await Promise.all([session.emit(toolCall(2)), session.emit(toolCall(3))]);
    const got: BusEvent[] = [];
    for (let i = 0; i < 4; i++) got.push((await sub.next()).value!);
    sub.close();
    assert.deepEqual(got.map((e) => e.sequence), [1n, 2n, 3n, 4n]);
    assert.deepEqual(got.map((e) => e.topic), [
      "kernel.event.tool_call",
      "kernel.event.message",
      "kernel.event.tool_call",
      "kernel.event.tool_call",
    ]);
    assert.equal(got[1].payloadType, "pluggableharness.event.v1.MessageEvent");
    assert.equal(got[0].schemaVersion, "1");
    assert.deepEqual(got[0].payload, new TextEncoder().encode("call 1"));
    assert.deepEqual(seenDurable, [true, true, true]);
    assert.equal(bus.stats.listenerErrors, 3);
  });

  test("a burst far larger than a subscriber's bound reaches a subscriber that keeps reading", async ({ bus, session }) => {
    const sub = bus.subscribe(["kernel.event.tool_call"]); // bound 1024
    let n = 0;
    const reading = (async () => {
      for await (const e of sub) {
        assert.equal(e.sequence, BigInt(++n));
        if (n === 5000) return;
      }
    })();
    await Promise.all(
      Array.from({ length: 5000 }, (_, i) => session.emit(toolCall(i))),
    );
    await reading;
    assert.equal(bus.stats.overflowDisconnects, 0);
  });

  test("republish happens strictly after the commit", async ({ store, bus, session }) => {
    const found: number[] = [];
    const done: Promise<void>[] = [];
    bus.listen(["kernel.event.*"], (e) => {
      done.push((async () => {
        // A separate handle reads the store while the emit is in flight.
        await using reader = await store.open(session.sessionId);
        for await (
          const r of reader.readEvents({ fromSequence: Number(e.sequence) })
        ) found.push(r.sequence);
      })());
    });
    await Promise.all([session.emit(toolCall(1)), session.emit(toolCall(2))]);
    await Promise.all(done);
    assert.ok(found.includes(1) && found.includes(2));
  });

  test("failed writes are not republished", async ({ bus, session }) => {
    const id = ulid();
    await session.emit({ ...toolCall(1), id });
    const sub = bus.subscribe(["kernel.*"]);
    await assert.rejects(session.emit({ ...toolCall(2), id }));
    await session.emit(toolCall(3));
    const { value } = await sub.next();
    assert.equal(value?.sequence, 2n);
    assert.equal(sub.pending, 0);
    sub.close();
  });

  test("verify() passes on an intact log, through the store too", async ({ store, session }) => {
    for (let i = 0; i < 10; i++) await session.emit(toolCall(i));
    await session.emit(message(0.2));
    const r = await session.verify();
    assert.equal(r.ok, true);
    assert.equal(r.events, 11);
    assert.deepEqual(await store.verify(session.sessionId), r);
  });

  test("a session re-opens with its events; handles share one writer", async ({ store, session }) => {
    const id = session.sessionId;
    await session.emit(toolCall(1));
    const second = await store.open(id);
    const [a, b] = await Promise.all([
      session.emit(toolCall(2)),
      second.emit(toolCall(3)),
    ]);
    assert.deepEqual([a.sequence, b.sequence], [2, 3]);
    await session.close();
    await session.close(); // idempotent
    await assert.rejects(session.emit(toolCall(9)), SessionClosedError);
    assert.equal((await second.emit(toolCall(4))).sequence, 4);
    await second.close();
    const reopened = await store.open(id);
    assert.deepEqual(
      (await collect(reopened.readEvents())).map((e) => e.sequence),
      [1, 2, 3, 4],
    );
    assert.equal((await reopened.emit(toolCall(5))).sequence, 5);
    assert.equal((await reopened.verify()).ok, true);
  });

  test("unknown, invalid and duplicate session ids are refused", async ({ store, session }) => {
    await assert.rejects(
      store.open(ulid()),
      (e) =>
        e instanceof SessionNotFoundError && e.code === "session_not_found",
    );
    await assert.rejects(store.open("../../etc/passwd"), RangeError);
    await assert.rejects(
      store.create({ profile: "p", sessionId: session.sessionId }),
      SessionExistsError,
    );
    await assert.rejects(store.create({ profile: "" }), TypeError);
  });

  test("close() waits for queued emits", async ({ store, session }) => {
    const pending = Array.from(
      { length: 50 },
      (_, i) => session.emit(toolCall(i)),
    );
    await session.close();
    const acks = await Promise.all(pending);
    assert.equal(acks.at(-1)?.sequence, 50);
    await using again = await store.open(session.sessionId);
    assert.equal((await collect(again.readEvents())).length, 50);
  });
}
