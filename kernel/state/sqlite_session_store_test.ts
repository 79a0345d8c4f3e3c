import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import { SessionStatus } from "../../proto/gen/pluggableharness/session/v1/types_pb.ts";
import {
  collect,
  GITHUB,
  message,
  runSessionStoreContract,
  toolCall,
} from "../../tests/contract/session_store.ts";
import { captureLogs, renderRecord } from "../../tests/_helpers.ts";
import { EventBus } from "../bus/event_bus.ts";
import { KERNEL_PRODUCER } from "./session_store.ts";
import {
  defaultSessionsDir,
  SCHEMA_VERSION,
  SqliteSessionStore,
} from "./sqlite_session_store.ts";

runSessionStoreContract("SqliteSessionStore", async (bus, extras) => {
  const dir = await Deno.makeTempDir({ prefix: "ph-state-" });
  return {
    store: new SqliteSessionStore({
      dir,
      bus,
      keyPath: `${dir}/data/installation.key`,
      ...extras,
    }),
    cleanup: () => Deno.remove(dir, { recursive: true }),
  };
});

const FIXTURE = new URL(
  "../../tests/fixtures/state/v1_session.sql",
  import.meta.url,
);
const V1_ID = "01HZY7K3M4N5P6Q7R8S9T0V1W2";

async function withStore(
  fn: (store: SqliteSessionStore, dir: string) => Promise<void>,
  options: { bus?: EventBus } = {},
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "ph-state-" });
  const store = new SqliteSessionStore({
    dir: `${dir}/sessions`,
    keyPath: `${dir}/data/agent/installation.key`,
    ...options,
  });
  try {
    await fn(store, `${dir}/sessions`);
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

function raw(path: string): DatabaseSync {
  return new DatabaseSync(path);
}

Deno.test("SqliteSessionStore creates exactly the §3.3 schema (plus events.hash) at the current revision", async () => {
  await withStore(async (store, dir) => {
    const s = await store.create({ profile: "p" });
    await s.close();
    const path = store.pathOf(s.sessionId);
    assert.equal(path, `${dir}/${s.sessionId}.sqlite`);
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    assert.equal((await Deno.stat(dir)).mode! & 0o777, 0o700);
    const db = raw(path);
    try {
      const objects = db.prepare(
        "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name",
      ).all().map((r) => `${r.type}:${r.name}`);
      assert.deepEqual(objects, [
        "index:idx_events_kind",
        "index:idx_events_producer",
        "table:chain",
        "table:cost_ledger",
        "table:events",
        "table:owners",
        "table:plan_items",
        "table:producers",
        "table:session_meta",
      ]);
      const cols = (t: string) =>
        db.prepare(`PRAGMA table_info(${t})`).all().map((r) => r.name);
      assert.deepEqual(cols("events"), [
        "sequence",
        "id",
        "timestamp",
        "kind",
        "producer_category",
        "producer_name",
        "producer_version",
        "schema_version",
        "payload",
        "hash",
      ]);
      assert.deepEqual(cols("session_meta"), [
        "session_id",
        "parent_session_id",
        "profile",
        "status",
        "depth",
        "started_at",
        "ended_at",
      ]);
      assert.deepEqual(
        db.prepare("PRAGMA index_info(idx_events_producer)").all().map((r) =>
          r.name
        ),
        ["producer_category", "producer_name", "producer_version"],
      );
      assert.equal(
        db.prepare("PRAGMA user_version").get()?.user_version,
        SCHEMA_VERSION,
      );
      assert.equal(
        db.prepare("PRAGMA journal_mode").get()?.journal_mode,
        "wal",
      );
      assert.equal(
        db.prepare("PRAGMA integrity_check").get()?.integrity_check,
        "ok",
      );
    } finally {
      db.close();
    }
  });
});

Deno.test("SqliteSessionStore migrates a revision-1 file step by step and chains its events", async () => {
  await using logs = await captureLogs();
  await withStore(async (store, dir) => {
    await Deno.mkdir(dir, { recursive: true });
    const path = `${dir}/${V1_ID}.sqlite`;
    const db = raw(path);
    db.exec(await Deno.readTextFile(FIXTURE));
    db.close();

    const s = await store.open(V1_ID);
    const text = logs.records.map(renderRecord).join("\n");
    assert.match(text, /Migrated session file .* to schema revision 2/);
    const info = await s.info();
    assert.equal(info.status, SessionStatus.COMPLETED);
    assert.equal(info.parentSessionId, "01HZY7K3M4N5P6Q7R8S9T0V1W1");
    assert.equal(info.depth, 1);
    assert.equal(info.costUsd, 0.0123);
    const events = await collect(s.readEvents());
    assert.deepEqual(events.map((e) => e.kind), [
      EventKind.MESSAGE,
      EventKind.PLAN,
      EventKind.TOOL_CALL,
      EventKind.TOOL_RESULT,
    ]);
    assert.deepEqual(
      events[0].payload,
      new Uint8Array([10, 5, 104, 101, 108, 108, 111]),
    );
    assert.equal(events[3].schemaVersion, "v1");
    assert.deepEqual({ ...events[1].producer }, { ...KERNEL_PRODUCER });
    assert.deepEqual(await s.verify(), {
      ...(await s.verify()),
      ok: true,
      events: 4,
    });
    assert.equal((await s.planItems())[0].decision, "ask");
    await s.setStatus(SessionStatus.RUNNING);
    assert.equal((await s.emit(toolCall(5))).sequence, 5);
    assert.equal((await s.verify()).ok, true);
    await s.close();

    const check = raw(path);
    assert.equal(
      check.prepare("PRAGMA user_version").get()?.user_version,
      SCHEMA_VERSION,
    );
    // A migrated file keeps its public chain: it is legacy, never keyed.
    assert.deepEqual(
      { ...check.prepare("SELECT scheme, key_id FROM chain").get() },
      { scheme: "sha256", key_id: null },
    );
    assert.equal(
      check.prepare("SELECT count(*) AS n FROM events WHERE length(hash) = 32")
        .get()?.n,
      5,
    );
    check.close();
  });
});

Deno.test("SqliteSessionStore.verify() names the first edited, deleted or reordered row", async (t) => {
  await withStore(async (store) => {
    const make = async () => {
      const s = await store.create({ profile: "p" });
      for (let i = 1; i <= 6; i++) {
        await s.emit(i === 4 ? message(0.5) : toolCall(i));
      }
      await s.close();
      return s.sessionId;
    };
    const cases: [string, string, number, string][] = [
      [
        "an edited payload",
        "UPDATE events SET payload = X'00' WHERE sequence = 3",
        3,
        "hash_mismatch",
      ],
      [
        "an edited producer",
        "UPDATE events SET producer_version = '9.9.9' WHERE sequence = 5",
        5,
        "hash_mismatch",
      ],
      ["a deleted row", "DELETE FROM events WHERE sequence = 2", 2, "missing"],
      [
        "the deleted newest row",
        "DELETE FROM events WHERE sequence = 6",
        6,
        "missing",
      ],
      [
        "two rows swapped",
        `UPDATE events SET payload = CASE sequence WHEN 2 THEN (SELECT payload FROM events WHERE sequence = 3)
           ELSE (SELECT payload FROM events WHERE sequence = 2) END WHERE sequence IN (2, 3)`,
        2,
        "hash_mismatch",
      ],
      [
        "renumbered rows",
        `UPDATE events SET sequence = 100 WHERE sequence = 2;
         UPDATE events SET sequence = 2 WHERE sequence = 3;
         UPDATE events SET sequence = 3 WHERE sequence = 100;`,
        2,
        "hash_mismatch",
      ],
      [
        "an edited cost_ledger row",
        "UPDATE cost_ledger SET cost_usd = 0.01",
        4,
        "hash_mismatch",
      ],
      [
        "a cleared hash",
        "UPDATE events SET hash = NULL WHERE sequence = 1",
        1,
        "missing_hash",
      ],
    ];
    for (const [name, sql, bad, reason] of cases) {
      await t.step(name, async () => {
        const id = await make();
        assert.equal((await store.verify(id)).ok, true);
        const db = raw(store.pathOf(id));
        db.exec("PRAGMA foreign_keys = OFF");
        db.exec(sql);
        db.close();
        const r = await store.verify(id);
        assert.equal(r.ok, false, name);
        if (r.ok) return;
        assert.equal(r.firstBadSequence, bad);
        assert.equal(r.reason, reason);
        assert.match(r.message, new RegExp(`^event ${bad} `));
        assert.equal(r.events, bad - 1);
      });
    }
  });
});

Deno.test("SqliteSessionStore keeps one sequence and one chain when a second connection writes", async () => {
  await withStore(async (store, dir) => {
    const s = await store.create({ profile: "p" });
    const other = new SqliteSessionStore({
      dir,
      keyPath: `${dir}/../data/agent/installation.key`,
    });
    try {
      const o = await other.open(s.sessionId);
      for (let i = 0; i < 20; i++) {
        await Promise.all([s.emit(toolCall(i)), o.emit(toolCall(100 + i))]);
      }
      await o.close();
    } finally {
      await other.close();
    }
    const seqs = (await collect(s.readEvents())).map((e) => e.sequence);
    assert.deepEqual(seqs, Array.from({ length: 40 }, (_, i) => i + 1));
    assert.equal((await s.verify()).ok, true);
  });
});

Deno.test("SqliteSessionStore readEvents() pages through long logs in sequence order", async () => {
  await withStore(async (store) => {
    const s = await store.create({ profile: "p" });
    await Promise.all(
      Array.from({ length: 2500 }, (_, i) =>
        s.emit(
          i % 3 === 0
            ? toolCall(i)
            : i % 3 === 1
            ? { ...toolCall(i), kind: EventKind.TOOL_RESULT }
            : {
              kind: EventKind.CONTEXT_CONTRIBUTION,
              producer: { category: "context", name: "repo", version: "1.0.0" },
              schemaVersion: "1",
              payload: new Uint8Array([i % 256]),
            },
        )),
    );
    const all = await collect(s.readEvents());
    assert.equal(all.length, 2500);
    assert.ok(all.every((e, i) => e.sequence === i + 1));
    const results = await collect(
      s.readEvents({ kinds: [EventKind.TOOL_RESULT] }),
    );
    assert.equal(results.length, 833);
    assert.ok(results.every((e) => e.kind === EventKind.TOOL_RESULT));
    assert.ok(
      results.every((e, i) => i === 0 || e.sequence > results[i - 1].sequence),
    );
    const two = await collect(
      s.readEvents({
        kinds: [EventKind.TOOL_CALL, EventKind.CONTEXT_CONTRIBUTION],
        fromSequence: 2,
        limit: 1200,
      }),
    );
    assert.equal(two.length, 1200);
    assert.equal(two[0].sequence, 3);
    assert.ok(two.every((e) => e.kind !== EventKind.TOOL_RESULT));
    assert.ok(two.every((e, i) => i === 0 || e.sequence > two[i - 1].sequence));
  });
});

Deno.test("SqliteSessionStore republishes only after the commit is visible to other connections", async () => {
  const bus = new EventBus();
  await withStore(async (store) => {
    const s = await store.create({ profile: "p" });
    const visible: number[] = [];
    bus.listen(["kernel.event.*"], (e) => {
      const reader = new DatabaseSync(store.pathOf(s.sessionId), {
        readOnly: true,
      });
      try {
        visible.push(
          Number(
            reader.prepare(
              "SELECT count(*) AS n FROM events WHERE sequence = ?",
            )
              .get(Number(e.sequence))?.n,
          ),
        );
      } finally {
        reader.close();
      }
    });
    await Promise.all([
      s.emit(toolCall(1)),
      s.emit(message(0.1)),
      s.emit(toolCall(2)),
    ]);
    assert.deepEqual(visible, [1, 1, 1]);
  }, { bus });
});

Deno.test("SqliteSessionStore keeps status, cost and events across store instances", async () => {
  await withStore(async (store, dir) => {
    const s = await store.create({ profile: "p" });
    await s.emit(message(1.25));
    await s.emit(toolCall(1));
    await s.setStatus(SessionStatus.CANCELLED);
    await store.close();
    await using again = new SqliteSessionStore({
      dir,
      keyPath: `${dir}/../data/agent/installation.key`,
    });
    const r = await again.open(s.sessionId);
    const info = await r.info();
    assert.equal(info.status, SessionStatus.CANCELLED);
    assert.equal(info.costUsd, 1.25);
    assert.ok(info.endedAt);
    assert.equal((await collect(r.readEvents())).length, 2);
    assert.deepEqual(
      (await r.producers()).map((p) => p.name),
      ["anthropic", GITHUB.name],
    );
  });
});

Deno.test("SqliteSessionStore.list() reads closed files without taking them over", async () => {
  await withStore(async (store, dir) => {
    const root = await store.create({ profile: "root" });
    const child = await store.create({
      profile: "sub",
      parentSessionId: root.sessionId,
      depth: 1,
    });
    await child.emit(message(0.5));
    await child.setStatus(SessionStatus.COMPLETED);
    await store.close();
    await Deno.writeTextFile(`${dir}/notes.txt`, "not a session");
    await using other = new SqliteSessionStore({
      dir,
      keyPath: `${dir}/../data/agent/installation.key`,
    });
    const { sessions, unreadable } = await other.list();
    assert.deepEqual(unreadable, []);
    assert.deepEqual(sessions.map((s) => [s.sessionId, s.status, s.costUsd]), [
      [child.sessionId, SessionStatus.COMPLETED, 0.5],
      [root.sessionId, SessionStatus.RUNNING, undefined],
    ]);
    assert.equal(sessions[0].parentSessionId, root.sessionId);
    const names = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    assert.deepEqual(
      names,
      [
        `${child.sessionId}.sqlite`,
        `${root.sessionId}.sqlite`,
        "heads",
        "notes.txt",
      ].sort(),
    );
  });
});

Deno.test("defaultSessionsDir() follows XDG_STATE_HOME, then ~/.local/state", () => {
  const env = (vars: Record<string, string>) => (k: string) => vars[k];
  assert.equal(
    defaultSessionsDir(env({ XDG_STATE_HOME: "/s", HOME: "/h" })),
    "/s/agent/sessions",
  );
  assert.equal(
    defaultSessionsDir(env({ XDG_STATE_HOME: "relative", HOME: "/h" })),
    "/h/.local/state/agent/sessions",
  );
  assert.equal(
    defaultSessionsDir(env({ HOME: "/h" })),
    "/h/.local/state/agent/sessions",
  );
  assert.throws(
    () => defaultSessionsDir(env({})),
    /neither XDG_STATE_HOME nor HOME/,
  );
});
