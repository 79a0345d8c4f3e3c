/**
 * Salvage of a corrupt session file (kernel.md §3.12). `node:sqlite` has no
 * `.recover`, so this is the best-effort equivalent: copy every readable
 * row of the five tables, table by table in rowid order, into a fresh file
 * at the damaged file's schema revision; when a range read hits a damaged
 * page, fall back to reading rowid by rowid and skip what cannot be read.
 * Then rename the damaged original (never delete it) and give the
 * recovered copy the original name. Lost events leave gaps in the sequence
 * that chain verification reports.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { getLogger } from "@logtape/logtape";
import type { RecoveryReport } from "./session_store.ts";
import { SessionUnreadableError } from "./errors.ts";
import {
  createSchema,
  SCHEMA_VERSION,
  tableColumns,
} from "./_sqlite_schema.ts";
import { ulidTime } from "./ulid.ts";

const log = getLogger(["ph-agent", "kernel", "state"]);

const RANGE = 500;
/** Rowids probed one by one after a failed range read. */
const PROBE_WINDOW = 64;
/** Consecutive unreadable or empty probes that end a table of unknown size. */
const MAX_EMPTY_PROBES = 4096;

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function tryNumber(db: DatabaseSync, sql: string): number | undefined {
  try {
    const row = db.prepare(sql).get() as Record<string, unknown> | undefined;
    const v = row ? Object.values(row)[0] : undefined;
    return v === null || v === undefined ? undefined : Number(v);
  } catch {
    return undefined;
  }
}

interface CopyResult {
  copied: number;
  failed: number;
}

function copyTable(
  src: DatabaseSync,
  dst: DatabaseSync,
  table: string,
  columns: string[],
): CopyResult {
  const cols = columns.join(", ");
  const insert = dst.prepare(
    `INSERT OR IGNORE INTO ${table} (${cols}) VALUES (${
      columns.map(() => "?").join(", ")
    })`,
  );
  const range = src.prepare(
    `SELECT rowid AS __rowid, ${cols} FROM ${table} WHERE rowid > ? ORDER BY rowid LIMIT ${RANGE}`,
  );
  const one = src.prepare(
    `SELECT rowid AS __rowid, ${cols} FROM ${table} WHERE rowid = ?`,
  );
  const maxRowid = tryNumber(src, `SELECT max(rowid) FROM ${table}`) ??
    tryNumber(
      src,
      `SELECT seq FROM sqlite_sequence WHERE name = '${table}'`,
    );
  let copied = 0;
  let failed = 0;
  const put = (row: Record<string, unknown>): void => {
    try {
      insert.run(...columns.map((c) => row[c] as null));
      copied++;
    } catch {
      failed++;
    }
  };
  let cursor = 0;
  let misses = 0;
  for (;;) {
    let rows: Record<string, unknown>[] | undefined;
    try {
      rows = range.all(cursor) as Record<string, unknown>[];
    } catch {
      rows = undefined;
    }
    if (rows) {
      for (const r of rows) put(r);
      if (rows.length < RANGE) {
        // A damaged interior page can hide rows from a range read without
        // an error; probe past the end when the table says there are more.
        const last = rows.length
          ? Number(rows[rows.length - 1].__rowid)
          : cursor;
        if (maxRowid === undefined || last >= maxRowid) break;
        cursor = last;
      } else {
        cursor = Number(rows[rows.length - 1].__rowid);
        continue;
      }
    }
    // Probe rowid by rowid past the damage, then go back to range reads.
    let found = false;
    for (let i = 0; i < PROBE_WINDOW; i++) {
      cursor++;
      if (maxRowid !== undefined && cursor > maxRowid) break;
      try {
        const r = one.get(cursor) as Record<string, unknown> | undefined;
        if (r) {
          put(r);
          found = true;
          misses = 0;
        } else misses++;
      } catch {
        failed++;
        misses++;
      }
    }
    if (maxRowid !== undefined && cursor >= maxRowid) break;
    if (maxRowid === undefined && !found && misses >= MAX_EMPTY_PROBES) {
      break;
    }
  }
  return { copied, failed };
}

const MAGIC = "SQLite format 3\0";

/**
 * Copies the damaged file (and its WAL, whose committed transactions are
 * worth keeping) to `copy`, so the salvage never writes to the original,
 * and makes a truncated copy readable: SQLite refuses a file that is
 * shorter than its header's page count, so the copy is cut to whole pages
 * and its header's page count set to what is really there.
 */
function prepareCopy(path: string, copy: string, notes: string[]): void {
  Deno.copyFileSync(path, copy);
  if (exists(`${path}-wal`)) Deno.copyFileSync(`${path}-wal`, `${copy}-wal`);
  const file = Deno.openSync(copy, { read: true, write: true });
  try {
    const header = new Uint8Array(100);
    let got = 0;
    while (got < 100) {
      const n = file.readSync(header.subarray(got));
      if (n === null) break;
      got += n;
    }
    if (
      got < 100 || new TextDecoder().decode(header.subarray(0, 16)) !== MAGIC
    ) {
      return; // the open will fail and say why
    }
    const view = new DataView(header.buffer);
    const rawSize = view.getUint16(16);
    const pageSize = rawSize === 1 ? 65536 : rawSize;
    if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) return;
    const size = file.statSync().size;
    const pages = Math.floor(size / pageSize);
    if (size % pageSize !== 0) file.truncateSync(pages * pageSize);
    if (view.getUint32(28) !== pages) {
      notes.push(
        `the file holds ${pages} pages but its header says ${
          view.getUint32(28)
        } (truncated)`,
      );
      const fix = new Uint8Array(4);
      new DataView(fix.buffer).setUint32(0, pages);
      file.seekSync(28, Deno.SeekMode.Start);
      file.writeSync(fix);
    }
  } finally {
    file.close();
  }
}

function corruptName(path: string): string {
  let candidate = `${path}.corrupt`;
  for (let n = 1; exists(candidate); n++) candidate = `${path}.corrupt.${n}`;
  return candidate;
}

function removeQuietly(path: string): void {
  for (const p of [path, `${path}-journal`, `${path}-wal`, `${path}-shm`]) {
    try {
      Deno.removeSync(p);
    } catch {
      // not there
    }
  }
}

/**
 * Salvages `path` into a new file, renames the original to
 * `<file>.corrupt` (or `.corrupt.N`) and puts the copy in its place.
 *
 * @throws {SessionUnreadableError} When nothing can be salvaged; the
 *   original is then left where it was.
 */
export function salvageSessionFile(
  path: string,
  sessionId: string,
  problems: string[],
  now: () => Date,
): RecoveryReport {
  const tag = crypto.randomUUID();
  const tmp = `${path}.recovering-${tag}`;
  const copy = `${path}.salvaging-${tag}`;
  let src: DatabaseSync | undefined;
  let dst: DatabaseSync | undefined;
  const salvaged: Record<string, number> = {};
  const lost: Record<string, number> = {};
  const notes = [...problems];
  try {
    prepareCopy(path, copy, notes);
    try {
      src = new DatabaseSync(copy, { enableForeignKeyConstraints: false });
      // Touch the header now: an unreadable one throws here.
      src.prepare("SELECT count(*) FROM sqlite_master").get();
    } catch (error) {
      src?.close();
      src = undefined;
      throw error;
    }
    let version = SCHEMA_VERSION;
    const found = tryNumber(src, "PRAGMA user_version");
    if (found !== undefined && found >= 1 && found <= SCHEMA_VERSION) {
      version = found;
    }
    Deno.openSync(tmp, { createNew: true, write: true, mode: 0o600 }).close();
    dst = new DatabaseSync(tmp, { enableForeignKeyConstraints: false });
    dst.exec("BEGIN");
    createSchema(dst, sessionId, version);
    const columns = tableColumns(version);
    for (const table of Object.keys(columns)) {
      // The fresh schema's own chain row gives way to the original's.
      if (table === "chain") dst.exec("DELETE FROM chain");
      const r = copyTable(src, dst, table, columns[table]);
      salvaged[table] = r.copied;
      lost[table] = r.failed;
    }
    if (salvaged.chain === 0) {
      // Never guess "keyed": a lost chain row makes the file legacy, and
      // the head kept outside the file (written for a keyed chain) then
      // fails verification instead of passing.
      dst.exec("INSERT INTO chain (scheme, key_id) VALUES ('sha256', NULL)");
      notes.push(
        "the chain row was lost: the chain is treated as unkeyed (legacy)",
      );
    }
    // Keep the highest sequences ever assigned, so lost newest rows still
    // show up as missing when the chain is verified.
    for (const table of ["events", "cost_ledger", "plan_items"]) {
      const seq = tryNumber(
        src,
        `SELECT seq FROM sqlite_sequence WHERE name = '${table}'`,
      );
      if (seq === undefined) continue;
      dst.prepare(
        "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?",
      ).run(seq, table);
      if (table === "events") {
        lost.events = Math.max(lost.events, seq - salvaged.events);
      }
    }
    if (salvaged.session_meta === 0) {
      const started = new Date(ulidTime(sessionId)).toISOString();
      dst.prepare(
        `INSERT INTO session_meta (session_id, parent_session_id, profile,
          status, depth, started_at, ended_at)
         VALUES (?, NULL, 'unknown', 'failed', 0, ?, ?)`,
      ).run(sessionId, started, now().toISOString());
      notes.push(
        "the session_meta row was lost: it was rebuilt as a failed root session with profile 'unknown'",
      );
    }
    dst.exec("COMMIT");
    const check = dst.prepare("PRAGMA integrity_check").all();
    if (check.length !== 1 || Object.values(check[0])[0] !== "ok") {
      throw new Error("the salvaged copy does not pass integrity_check");
    }
    dst.close();
    dst = undefined;
    src.close();
    src = undefined;
    removeQuietly(copy);
  } catch (error) {
    try {
      dst?.close();
    } catch { /* already failing */ }
    try {
      src?.close();
    } catch { /* already failing */ }
    removeQuietly(tmp);
    removeQuietly(copy);
    const reason = `${problems[0] ?? "it is damaged"}; salvage failed: ${
      error instanceof Error ? error.message : String(error)
    }`;
    log.error("Session file {path} is unreadable: {reason}", { path, reason });
    throw new SessionUnreadableError(path, reason, { cause: error });
  }
  const corruptPath = corruptName(path);
  Deno.renameSync(path, corruptPath);
  for (const suffix of ["-wal", "-shm"]) {
    if (exists(path + suffix)) {
      Deno.renameSync(path + suffix, corruptPath + suffix);
    }
  }
  Deno.renameSync(tmp, path);
  const report: RecoveryReport = {
    path,
    corruptPath,
    problems: notes.slice(0, 20),
    salvaged,
    lost,
  };
  log.error(
    "Recovered corrupt session file {path}: salvaged {salvaged}, lost {lost}; the damaged original is kept as {corruptPath}",
    { path, corruptPath, salvaged, lost, problems: report.problems },
  );
  return report;
}
