/**
 * Who has a session open for writing, and whether that process is still
 * alive (issue 21, defect 13): a kernel killed with `-9`, or a machine that
 * rebooted, leaves its sessions `running`; listings show such a session as
 * interrupted instead.
 *
 * An owner is the writing process's pid, the host name and the process's
 * start time (field 22 of `/proc/<pid>/stat`, in clock ticks since boot), so
 * a pid reused by another process after a crash or a reboot is not taken for
 * the owner. Where `/proc` cannot be read (not Linux, or no read
 * permission) the start time is empty and the owner's liveness is unknown:
 * such a session keeps showing `running`.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import type { SessionOwner, SessionRecord } from "./session_store.ts";

/** The start time of a process from its `/proc/<pid>/stat`, or undefined. */
export function processStartTime(pid: number | "self"): string | undefined {
  let text: string;
  try {
    text = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return undefined;
  }
  // The command name (field 2) is parenthesised and may hold spaces or
  // parentheses: the fields after it start at the last ")".
  const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // rest[0] is field 3 (state), so field 22 (starttime) is rest[19].
  const start = rest[19];
  return start !== undefined && /^[0-9]+$/.test(start) ? start : undefined;
}

function hostName(): string {
  try {
    return Deno.hostname();
  } catch {
    return "";
  }
}

let self: SessionOwner | undefined;

/** This process as a session owner (computed once). */
export function currentOwner(): SessionOwner {
  self ??= {
    pid: Deno.pid,
    host: hostName(),
    startTime: processStartTime("self") ?? "",
  };
  return self;
}

/**
 * Whether an owner is known to be gone: it is on this host, its start time
 * is known, and no process with its pid and start time runs now. An owner
 * on another host, or one whose start time is unknown, is not known to be
 * gone.
 */
export function isOwnerGone(owner: SessionOwner): boolean {
  const me = currentOwner();
  if (owner.host === "" || owner.host !== me.host) return false;
  if (owner.startTime === "" || me.startTime === "") return false;
  if (owner.pid === me.pid && owner.startTime === me.startTime) return false;
  return processStartTime(owner.pid) !== owner.startTime;
}

/**
 * A record with its owners applied: `owner` is the newest owner not known
 * to be gone (else the newest); `interrupted` is set on a `running` session
 * whose owners are all known to be gone. The stored status is not changed.
 *
 * @param record The record as stored.
 * @param owners The session's owners, oldest first.
 * @param isRunning Whether the stored status is `running`.
 */
export function withOwners(
  record: SessionRecord,
  owners: readonly SessionOwner[],
  isRunning: boolean,
): SessionRecord {
  if (owners.length === 0) return record;
  const live = owners.filter((o) => !isOwnerGone(o));
  const owner = (live.length > 0 ? live : owners).at(-1)!;
  return {
    ...record,
    owner,
    ...(isRunning && live.length === 0 ? { interrupted: true } : {}),
  };
}

/** Whether the file has the `owners` table (schema revision 4 or later). */
function hasOwnersTable(db: DatabaseSync): boolean {
  return db.prepare(
    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'owners'",
  ).get() !== undefined;
}

/** The `owners` rows of a file, oldest first (none before revision 4). */
export function readOwners(db: DatabaseSync): SessionOwner[] {
  if (!hasOwnersTable(db)) return [];
  return (db.prepare(
    "SELECT pid, host, start_time FROM owners ORDER BY rowid",
  ).all() as { pid: number; host: string; start_time: string }[]).map((
    r,
  ) => ({
    pid: Number(r.pid),
    host: String(r.host),
    startTime: String(r.start_time),
  }));
}

/**
 * Records `owner` as a writer of the file, dropping the rows of owners on
 * this host that are gone, in one transaction.
 */
export function recordOwner(db: DatabaseSync, owner: SessionOwner): void {
  db.exec("BEGIN IMMEDIATE");
  try {
    const del = db.prepare(
      "DELETE FROM owners WHERE pid = ? AND host = ? AND start_time = ?",
    );
    for (const o of readOwners(db)) {
      if (isOwnerGone(o)) del.run(o.pid, o.host, o.startTime);
    }
    db.prepare(
      "INSERT INTO owners (pid, host, start_time) VALUES (?, ?, ?)",
    ).run(owner.pid, owner.host, owner.startTime);
    db.exec("COMMIT");
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
}

/** Removes one row of `owner` (its own, at close). */
export function releaseOwner(db: DatabaseSync, owner: SessionOwner): void {
  db.prepare(
    `DELETE FROM owners WHERE rowid = (SELECT rowid FROM owners
       WHERE pid = ? AND host = ? AND start_time = ? LIMIT 1)`,
  ).run(owner.pid, owner.host, owner.startTime);
}
