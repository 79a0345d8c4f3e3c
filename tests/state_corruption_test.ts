/**
 * Damaged session files (kernel.md §3.12): bytes overwritten, a truncated
 * file, a file from a newer kernel, an unreadable header, an empty file.
 * Each gets its specified behaviour and a clear message, never a crash: a
 * salvage into a new file with the original renamed (never deleted) and
 * the recovery logged, or a named error with the file left untouched.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { SqliteSessionStore } from "../kernel/state/sqlite_session_store.ts";
import {
  SchemaTooNewError,
  SessionUnreadableError,
} from "../kernel/state/errors.ts";
import { SCHEMA_VERSION } from "../kernel/state/_sqlite_schema.ts";
import type { EventRecord } from "../kernel/state/session_store.ts";
import { captureLogs, renderRecord } from "./_helpers.ts";
import { eventFor, payloadFor } from "./fixtures/state/writer_main.ts";

const EVENTS = 400;

async function withSession(
  fn: (ctx: { dir: string; id: string; path: string }) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "ph-state-corrupt-" });
  try {
    const store = new SqliteSessionStore({
      dir,
      keyPath: `${dir}/key/installation.key`,
    });
    const s = await store.create({ profile: "damaged" });
    await Promise.all(
      Array.from({ length: EVENTS }, (_, i) => s.emit(eventFor(i + 1))),
    );
    await store.close(); // checkpoints: everything is in the main file
    await fn({ dir, id: s.sessionId, path: store.pathOf(s.sessionId) });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * The files of a directory, without SQLite's -wal/-shm companions (the
 * chain heads and the test's key live in subdirectories).
 */
function listDir(dir: string): string[] {
  return [...Deno.readDirSync(dir)].filter((e) => e.isFile).map((e) => e.name)
    .filter((n) => !/-(wal|shm)$/.test(n)).sort();
}

async function readAll(
  store: SqliteSessionStore,
  id: string,
): Promise<EventRecord[]> {
  const s = await store.open(id);
  const out: EventRecord[] = [];
  for await (const e of s.readEvents()) out.push(e);
  return out;
}

Deno.test("a file with overwritten bytes is salvaged; the original is kept as .corrupt and the recovery logged", async () => {
  await using logs = await captureLogs();
  await withSession(async ({ dir, id, path }) => {
    const bytes = await Deno.readFile(path);
    const pageSize = new DataView(bytes.buffer).getUint16(16) || 65536;
    const pages = bytes.length / pageSize;
    // Garbage over one page in the middle of the events table.
    const page = Math.floor(pages / 2);
    bytes.fill(0xa5, page * pageSize + 8, (page + 1) * pageSize);
    await Deno.writeFile(path, bytes);

    await using store = new SqliteSessionStore({
      dir,
      keyPath: `${dir}/key/installation.key`,
    });
    const s = await store.open(id);
    const report = s.recovery;
    assert.ok(report, "the file was recovered");
    assert.equal(report.path, path);
    assert.equal(report.corruptPath, `${path}.corrupt`);
    assert.ok(report.problems.length > 0);
    assert.deepEqual(await Deno.readFile(report.corruptPath), bytes);
    assert.deepEqual(listDir(dir), [`${id}.sqlite`, `${id}.sqlite.corrupt`]);

    const events: EventRecord[] = [];
    for await (const e of s.readEvents()) events.push(e);
    assert.ok(events.length > EVENTS / 2, `salvaged ${events.length}`);
    assert.ok(events.length < EVENTS);
    for (const e of events) assert.deepEqual(e.payload, payloadFor(e.sequence));
    assert.equal(report.salvaged.events, events.length);
    assert.equal(report.salvaged.session_meta, 1);
    const verified = await s.verify();
    assert.equal(verified.ok, false);
    if (!verified.ok) {
      assert.equal(verified.reason, "missing");
      const firstLost = events.findIndex((e, i) => e.sequence !== i + 1) + 1;
      assert.equal(verified.firstBadSequence, firstLost);
    }
    // The recovered session keeps working.
    const next = await s.emit(eventFor(EVENTS + 1));
    assert.equal(next.sequence, EVENTS + 1);
    const text = logs.records.map(renderRecord).join("\n");
    assert.match(text, /Recovered corrupt session file/);
    assert.ok(text.includes(`${id}.sqlite.corrupt`));
    assert.ok(
      logs.records.some((r) =>
        r.level === "error" && /Recovered/.test(String(r.message))
      ),
    );
  });
});

Deno.test("a truncated file is salvaged up to the cut", async () => {
  await withSession(async ({ dir, id, path }) => {
    const size = (await Deno.stat(path)).size;
    await Deno.truncate(path, Math.floor(size * 0.6));
    await using store = new SqliteSessionStore({
      dir,
      keyPath: `${dir}/key/installation.key`,
    });
    const s = await store.open(id);
    assert.ok(s.recovery, "the file was recovered");
    const events = await readAll(store, id);
    assert.ok(events.length > 0 && events.length < EVENTS, `${events.length}`);
    for (const e of events) assert.deepEqual(e.payload, payloadFor(e.sequence));
    const info = await s.info();
    assert.equal(info.sessionId, id);
    const verified = await s.verify();
    assert.equal(verified.ok, false);
    assert.ok((await Deno.stat(`${path}.corrupt`)).size < size);
  });
});

Deno.test("a file truncated to nothing is refused as unreadable and left in place", async () => {
  await withSession(async ({ dir, id, path }) => {
    await Deno.truncate(path, 0);
    await using store = new SqliteSessionStore({
      dir,
      keyPath: `${dir}/key/installation.key`,
    });
    await assert.rejects(
      store.open(id),
      (e: unknown) =>
        e instanceof SessionUnreadableError &&
        e.code === "session_unreadable" &&
        e.path === path &&
        /empty/.test(e.message),
    );
    assert.deepEqual(listDir(dir), [`${id}.sqlite`]);
  });
});

Deno.test("a file whose header is destroyed cannot be salvaged: named error, file untouched, no leftovers", async () => {
  await using logs = await captureLogs();
  await withSession(async ({ dir, id, path }) => {
    const bytes = await Deno.readFile(path);
    bytes.fill(0x42, 0, 100);
    await Deno.writeFile(path, bytes);
    await using store = new SqliteSessionStore({
      dir,
      keyPath: `${dir}/key/installation.key`,
    });
    await assert.rejects(
      store.open(id),
      (e: unknown) =>
        e instanceof SessionUnreadableError &&
        /file is not a database/.test(e.message) &&
        /salvage failed/.test(e.message),
    );
    assert.deepEqual(await Deno.readFile(path), bytes);
    assert.deepEqual(listDir(dir), [`${id}.sqlite`]);
    const { sessions, unreadable } = await store.list();
    assert.deepEqual(sessions, []);
    assert.equal(unreadable[0].sessionId, id);
    assert.match(
      logs.records.map(renderRecord).join("\n"),
      /is unreadable/,
    );
  });
});

Deno.test("a file from a newer kernel is refused with a clear error and never modified", async () => {
  await withSession(async ({ dir, id, path }) => {
    const db = new DatabaseSync(path);
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    const before = await Deno.readFile(path);
    await using store = new SqliteSessionStore({
      dir,
      keyPath: `${dir}/key/installation.key`,
    });
    await assert.rejects(
      store.open(id),
      (e: unknown) =>
        e instanceof SchemaTooNewError &&
        e.code === "session_schema_too_new" &&
        e.found === SCHEMA_VERSION + 1 &&
        e.supported === SCHEMA_VERSION &&
        e.message.includes(`schema revision ${SCHEMA_VERSION + 1} is newer`),
    );
    await assert.rejects(store.verify(id), SchemaTooNewError);
    assert.deepEqual(await Deno.readFile(path), before);
    assert.deepEqual(listDir(dir), [`${id}.sqlite`]);
    const { sessions, unreadable } = await store.list();
    assert.deepEqual(sessions, []);
    assert.match(
      unreadable[0].reason,
      /newer than the newest this kernel supports/,
    );
  });
});
