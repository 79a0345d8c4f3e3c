/**
 * The product state backend: one SQLite file per session through
 * `node:sqlite`, at `$XDG_STATE_HOME/agent/sessions/<ULID>.sqlite`
 * (default `~/.local/state/agent/sessions`; the directory is an option so
 * tests and per-project setups can point elsewhere).
 *
 * ## Opening a file (kernel.md §3.2, §3.12)
 *
 * 1. `PRAGMA integrity_check` (or `quick_check`, see
 *    {@linkcode SqliteSessionStoreOptions.integrityCheck}). On failure the
 *    readable rows are salvaged into a fresh file, the damaged original is
 *    renamed to `<ULID>.sqlite.corrupt` (never deleted), the copy takes
 *    the original name, and the recovery is logged at ERROR and reported on
 *    {@linkcode SessionLog.recovery}. If nothing can be salvaged the file
 *    stays where it is and {@linkcode SessionUnreadableError} is thrown.
 * 2. `PRAGMA user_version`: a newer revision than {@linkcode SCHEMA_VERSION}
 *    is refused with {@linkcode SchemaTooNewError} before anything is
 *    written; an older one is migrated step by step, each step in its own
 *    transaction that stamps its revision. A new file gets the baseline and
 *    every step in one transaction.
 * 3. `journal_mode = WAL` (concurrent readers such as a CLI), a
 *    `busy_timeout`, `foreign_keys = ON`, and `synchronous` (below). Closing
 *    runs `wal_checkpoint(TRUNCATE)`.
 *
 * ## Durability: why `synchronous = NORMAL`
 *
 * The requirement is that an acknowledged emit survives the kernel being
 * killed (`kill -9`), which is an application crash, not a power loss. In
 * WAL mode a commit appends the transaction's frames to the `-wal` file with
 * `write()` before `COMMIT` returns; from then on the bytes are in the
 * operating system's page cache, which a dying process cannot take back,
 * and the next open replays them. `synchronous = NORMAL` skips only the
 * `fsync` of the WAL at each commit (checkpoints are still synced), so it
 * keeps every acknowledged event across process crashes and keeps the
 * database consistent across power loss, where at most the last few
 * commits before the outage may roll back. `FULL` adds an `fsync` per
 * commit: measured here it drops one-transaction-per-event appends from
 * about 15k/s to under 3k/s, well below the 10k/s target, and buys only
 * power-loss durability, which the requirement does not ask for. Operators
 * who want it set `synchronous: "full"`. `tests/state_kill9_test.ts`
 * checks the process-crash guarantee.
 *
 * ## Writes
 *
 * Each session has one writer (the {@linkcode SessionLog} returned by this
 * store, shared by every handle on the session). Emits are queued; the queue
 * is drained in a microtask, so every emit queued in the same tick (parallel
 * tool results, concurrent plugin Emits) commits in one `BEGIN IMMEDIATE …
 * COMMIT` transaction of up to `maxBatchSize` writes: group commit. A
 * longer queue is committed batch after batch, yielding to the event loop in
 * between so bus consumers can drain. Each emit is acknowledged only after
 * its transaction commits and it has been republished on the bus. When a write in a batch fails (say a duplicate
 * id), the batch is rolled back and replayed one write per transaction, so
 * only that write fails. The sequence and the previous hash are read inside
 * the write transaction, so even a second process writing the same file
 * (which the kernel never does) cannot fork the sequence or the chain.
 *
 * @example Create, append, read back
 * ```ts
 * import { SqliteSessionStore } from "@ph/agent/kernel";
 * import { EventKind } from "@ph/agent/proto/kernel";
 * import { SessionStatus } from "@ph/agent/proto/session";
 * import assert from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * await using store = new SqliteSessionStore({ dir });
 * const session = await store.create({ profile: "default" });
 * const { sequence } = await session.emit({
 *   kind: EventKind.TOOL_CALL,
 *   producer: { category: "tool", name: "github", version: "1.2.0" },
 *   schemaVersion: "1",
 *   payload: new Uint8Array([1, 2, 3]),
 * });
 * assert.equal(sequence, 1);
 * for await (const e of session.readEvents()) assert.equal(e.producer.name, "github");
 * assert.equal((await session.verify()).ok, true);
 * await session.setStatus(SessionStatus.COMPLETED);
 * const { sessions } = await store.list();
 * assert.equal(sessions[0].status, SessionStatus.COMPLETED);
 * await store.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { getLogger } from "@logtape/logtape";
import { SessionCore } from "./_session_log.ts";
import { SqliteBackend, type SqliteChain } from "./_sqlite_backend.ts";
import { FileHeadStore } from "./_chain_head.ts";
import { chainHasher } from "./hash_chain.ts";
import {
  defaultInstallationKeyPath,
  type InstallationKey,
  loadInstallationKey,
} from "./installation_key.ts";
import { salvageSessionFile } from "./_sqlite_recovery.ts";
import { currentOwner, readOwners, recordOwner, withOwners } from "./_owner.ts";
import {
  chainRow,
  createSchema,
  migrate,
  SCHEMA_VERSION,
  userVersion,
} from "./_sqlite_schema.ts";
import {
  type CreateSessionOptions,
  type ListSessionsOptions,
  type ListSessionsResult,
  type RecoveryReport,
  SESSION_STATUS_TEXT,
  type SessionLog,
  type SessionOwner,
  type SessionRecord,
  type SessionStore,
  type SessionStoreOptions,
  type UnreadableSession,
  type VerifyResult,
} from "./session_store.ts";
import {
  SchemaTooNewError,
  SessionExistsError,
  SessionNotFoundError,
  SessionUnreadableError,
} from "./errors.ts";
import { isUlid } from "./ulid.ts";
import { checkCreateOptions, checkSessionId } from "./_create_options.ts";
import { SessionStatus } from "../../proto/gen/pluggableharness/session/v1/types_pb.ts";

export { SCHEMA_VERSION } from "./_sqlite_schema.ts";

const log = getLogger(["ph-agent", "kernel", "state"]);

const FILE_REGEXP = /^([0-9A-Z]{26})\.sqlite$/;

/**
 * The page size of new files. Events are mostly around a kilobyte; with
 * 8 KiB pages a page holds several, which measured here makes appends about
 * a third faster than SQLite's default 4 KiB. Existing files keep theirs.
 */
const PAGE_SIZE = 8192;

/**
 * WAL pages after which a commit folds the WAL back into the file (SQLite's
 * default is 1000). Each checkpoint syncs the file, so checkpointing less
 * often makes one-event transactions about a fifth faster, for a WAL of up
 * to 32 MiB per open session; closing truncates it.
 */
const WAL_AUTOCHECKPOINT_PAGES = 4000;

/** The default `busy_timeout` in milliseconds. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/** Options of {@linkcode SqliteSessionStore}. */
export interface SqliteSessionStoreOptions extends SessionStoreOptions {
  /**
   * The directory of session files.
   * @default {defaultSessionsDir()}
   */
  readonly dir?: string;
  /**
   * `PRAGMA synchronous`. `normal` keeps acknowledged events across process
   * crashes (the requirement); `full` also across power loss, at about a
   * fifth of the append rate. See the module doc.
   * @default {"normal"}
   */
  readonly synchronous?: "normal" | "full";
  /**
   * `PRAGMA busy_timeout` in milliseconds.
   * @default {5000}
   */
  readonly busyTimeoutMs?: number;
  /**
   * The check run when a file is opened: `full` is `PRAGMA integrity_check`
   * (the spec's check; its cost grows with the file, about 2 ms per
   * thousand 1 KB events here), `quick` is `PRAGMA quick_check` (about half
   * the cost; skips index consistency).
   * @default {"full"}
   */
  readonly integrityCheck?: "full" | "quick";
  /**
   * The installation key that keys the chain and the heads. Loaded (and
   * created on first use) from `keyPath` when absent.
   * @default {loaded from keyPath}
   */
  readonly key?: InstallationKey;
  /**
   * The installation key file.
   * @default {defaultInstallationKeyPath()}
   */
  readonly keyPath?: string;
  /**
   * The directory of chain heads (`<ULID>.head`), kept outside the session
   * files.
   * @default {`${dir}/heads`}
   */
  readonly headsDir?: string;
}

/**
 * The default directory of session files:
 * `$XDG_STATE_HOME/agent/sessions`, or `~/.local/state/agent/sessions`
 * when `XDG_STATE_HOME` is unset or not absolute.
 *
 * @example Usage
 * ```ts
 * import { defaultSessionsDir } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * const env = new Map([["XDG_STATE_HOME", "/var/state"], ["HOME", "/home/me"]]);
 * assert.equal(defaultSessionsDir((k) => env.get(k)), "/var/state/agent/sessions");
 * assert.equal(defaultSessionsDir((k) => k === "HOME" ? "/home/me" : undefined),
 *   "/home/me/.local/state/agent/sessions");
 * ```
 *
 * @param getEnv Reads an environment variable (default `Deno.env.get`).
 * @returns The directory path.
 * @throws {Error} When neither `XDG_STATE_HOME` nor `HOME` is set.
 */
export function defaultSessionsDir(
  getEnv: (name: string) => string | undefined = (n) => Deno.env.get(n),
): string {
  const xdg = getEnv("XDG_STATE_HOME");
  if (xdg && xdg.startsWith("/")) return `${xdg}/agent/sessions`;
  const home = getEnv("HOME");
  if (!home) {
    throw new Error(
      "Cannot locate the sessions directory: neither XDG_STATE_HOME nor HOME is set",
    );
  }
  return `${home}/.local/state/agent/sessions`;
}

function integrityProblems(
  db: DatabaseSync,
  mode: "full" | "quick",
): string[] {
  try {
    const rows = db.prepare(
      `PRAGMA ${mode === "quick" ? "quick_check" : "integrity_check"}(20)`,
    ).all() as Record<string, unknown>[];
    const lines = rows.map((r) => String(Object.values(r)[0]));
    return lines.length === 1 && lines[0] === "ok" ? [] : lines;
  } catch (error) {
    return [error instanceof Error ? error.message : String(error)];
  }
}

function hasTables(db: DatabaseSync): boolean {
  const row = db.prepare("SELECT count(*) AS n FROM sqlite_master").get() as {
    n: number;
  };
  return Number(row.n) > 0;
}

function statusFromText(text: string): SessionStatus {
  for (const [k, v] of Object.entries(SESSION_STATUS_TEXT)) {
    if (v === text) return Number(k) as SessionStatus;
  }
  return SessionStatus.UNSPECIFIED;
}

/**
 * Reads a session file's metadata row and cost rollup without taking it
 * over (used by {@linkcode SqliteSessionStore.list}). It only reads, but
 * through a read-write connection: a read-only one leaves empty `-wal` and
 * `-shm` files behind, which the last read-write connection removes.
 */
function readRecord(path: string, busyTimeoutMs: number): SessionRecord {
  const db = new DatabaseSync(path);
  try {
    db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    const version = userVersion(db);
    if (version > SCHEMA_VERSION) {
      throw new SchemaTooNewError(path, version, SCHEMA_VERSION);
    }
    if (version === 0) {
      throw new SessionUnreadableError(path, "the file holds no session");
    }
    const m = db.prepare(
      `SELECT session_id, parent_session_id, profile, status, depth,
        started_at, ended_at FROM session_meta LIMIT 1`,
    ).get() as Record<string, string | number | null> | undefined;
    if (!m) {
      throw new SessionUnreadableError(path, "it has no session_meta row");
    }
    const c = db.prepare(
      "SELECT count(*) AS n, total(cost_usd) AS usd FROM cost_ledger",
    ).get() as { n: number; usd: number };
    const status = statusFromText(String(m.status));
    return withOwners(
      {
        sessionId: String(m.session_id),
        ...(m.parent_session_id !== null
          ? { parentSessionId: String(m.parent_session_id) }
          : {}),
        profile: String(m.profile),
        status,
        depth: Number(m.depth),
        startedAt: String(m.started_at),
        ...(m.ended_at !== null ? { endedAt: String(m.ended_at) } : {}),
        ...(Number(c.n) > 0 && Number(c.usd) !== 0
          ? { costUsd: Number(c.usd) }
          : {}),
      },
      readOwners(db),
      status === SessionStatus.RUNNING,
    );
  } finally {
    db.close();
  }
}

/** The record of an open session, with its owners applied. */
function ownedInfo(core: SessionCore<SqliteBackend>): SessionRecord {
  const info = core.backend.info();
  return withOwners(
    info,
    core.backend.owners(),
    info.status === SessionStatus.RUNNING,
  );
}

/**
 * The SQLite session store. Holds one {@linkcode SessionLog} writer per open
 * session; close it (or `await using`) to checkpoint and release every file.
 */
export class SqliteSessionStore implements SessionStore {
  /** The directory of session files. */
  readonly dir: string;
  /** The directory of chain heads. */
  readonly headsDir: string;
  readonly #options: SqliteSessionStoreOptions;
  #key: InstallationKey | undefined;
  #heads: FileHeadStore | undefined;
  readonly #now: () => Date;
  readonly #owner: SessionOwner;
  readonly #cores = new Map<string, SessionCore<SqliteBackend>>();
  readonly #opening = new Map<string, Promise<SessionCore<SqliteBackend>>>();

  /**
   * Creates a store. Nothing is touched until the first call.
   *
   * @param options Directory, durability and batching options.
   */
  constructor(options: SqliteSessionStoreOptions = {}) {
    this.#options = options;
    this.dir = options.dir ?? defaultSessionsDir();
    this.headsDir = options.headsDir ?? `${this.dir}/heads`;
    this.#key = options.key;
    this.#now = options.now ?? (() => new Date());
    this.#owner = options.owner ?? currentOwner();
  }

  /** The installation key and the head store, loaded on first use. */
  #keyed(): { key: InstallationKey; heads: FileHeadStore } {
    this.#key ??= loadInstallationKey(
      this.#options.keyPath ?? defaultInstallationKeyPath(),
    );
    this.#heads ??= new FileHeadStore(this.headsDir, this.#key);
    return { key: this.#key, heads: this.#heads };
  }

  /** The chain of a file, from its `chain` row. */
  #chainOf(db: DatabaseSync, sessionId: string, path: string): SqliteChain {
    const { key, heads } = this.#keyed();
    const row = chainRow(db);
    if (!row || (row.scheme !== "sha256" && row.scheme !== "hmac-sha256")) {
      throw new SessionUnreadableError(
        path,
        row
          ? `its chain scheme ${JSON.stringify(row.scheme)} is unknown`
          : "its chain table does not hold exactly one row",
      );
    }
    if (row.scheme === "sha256") {
      return { hasher: chainHasher(sessionId, "sha256"), key, heads };
    }
    return {
      hasher: chainHasher(sessionId, "hmac-sha256", key.bytes),
      key,
      heads,
      storedKeyId: row.keyId ?? "",
    };
  }

  /**
   * The path of a session's file.
   *
   * @param sessionId The session's ULID.
   * @returns `<dir>/<sessionId>.sqlite`.
   */
  pathOf(sessionId: string): string {
    checkSessionId(sessionId);
    return `${this.dir}/${sessionId}.sqlite`;
  }

  /**
   * The directory beside a session's file for what does not fit in the
   * log (tool-result overflow files).
   *
   * @param sessionId The session's ULID.
   * @returns `<dir>/<sessionId>.files`.
   */
  artifactsDirOf(sessionId: string): string {
    checkSessionId(sessionId);
    return `${this.dir}/${sessionId}.files`;
  }

  #configure(db: DatabaseSync): void {
    db.exec("PRAGMA journal_mode = WAL");
    db.exec(
      `PRAGMA synchronous = ${
        this.#options.synchronous === "full" ? "FULL" : "NORMAL"
      }`,
    );
    db.exec("PRAGMA foreign_keys = ON");
    db.exec(`PRAGMA wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
  }

  #busy(db: DatabaseSync): void {
    db.exec(
      `PRAGMA busy_timeout = ${
        this.#options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS
      }`,
    );
  }

  #core(backend: SqliteBackend): SessionCore<SqliteBackend> {
    const core = new SessionCore(backend, {
      bus: this.#options.bus,
      now: this.#now,
      maxBatchSize: this.#options.maxBatchSize,
      onClosed: () => this.#cores.delete(backend.sessionId),
    });
    this.#cores.set(backend.sessionId, core);
    return core;
  }

  /**
   * Creates a session file (mode 0600, in a 0700 directory) in status
   * `running` and opens it.
   *
   * @param options Profile, parent, depth and optional id.
   * @returns The open session.
   * @throws {SessionExistsError} When the id is taken.
   */
  create(options: CreateSessionOptions): Promise<SessionLog> {
    return Promise.resolve().then(() => this.#create(options));
  }

  #create(options: CreateSessionOptions): SessionLog {
    const now = this.#now();
    const { sessionId, parent, depth } = checkCreateOptions(options, now);
    const path = this.pathOf(sessionId);
    if (this.#cores.has(sessionId)) throw new SessionExistsError(sessionId);
    Deno.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    try {
      Deno.openSync(path, { createNew: true, write: true, mode: 0o600 })
        .close();
    } catch (error) {
      if (error instanceof Deno.errors.AlreadyExists) {
        throw new SessionExistsError(sessionId, { cause: error });
      }
      throw error;
    }
    const { key } = this.#keyed();
    let db: DatabaseSync | undefined;
    try {
      db = new DatabaseSync(path);
      this.#busy(db);
      db.exec(`PRAGMA page_size = ${PAGE_SIZE}`);
      this.#configure(db);
      db.exec("BEGIN IMMEDIATE");
      try {
        createSchema(db, sessionId);
        db.prepare(
          "UPDATE chain SET scheme = 'hmac-sha256', key_id = ?",
        ).run(key.id);
        db.prepare(
          `INSERT INTO session_meta (session_id, parent_session_id, profile,
            status, depth, started_at, ended_at)
           VALUES (?, ?, ?, 'running', ?, ?, NULL)`,
        ).run(
          sessionId,
          parent ?? null,
          options.profile,
          depth,
          now.toISOString(),
        );
        db.prepare(
          "INSERT INTO owners (pid, host, start_time) VALUES (?, ?, ?)",
        ).run(this.#owner.pid, this.#owner.host, this.#owner.startTime);
        db.exec("COMMIT");
      } catch (error) {
        db.exec("ROLLBACK");
        throw error;
      }
      const backend = new SqliteBackend(
        db,
        sessionId,
        path,
        this.#chainOf(db, sessionId, path),
        undefined,
        this.#owner,
      );
      backend.initHead();
      const core = this.#core(backend);
      log.debug("Created session {session} at {path}", {
        session: sessionId,
        path,
      });
      return core.acquire();
    } catch (error) {
      db?.close();
      // Only the empty file this call just created is removed.
      for (const p of [path, `${path}-wal`, `${path}-shm`]) {
        try {
          Deno.removeSync(p);
        } catch { /* not there */ }
      }
      throw error;
    }
  }

  /**
   * Opens an existing session: integrity check (salvage on failure),
   * version check, migration, pragmas. A session already open in this store
   * gets another handle on the same writer.
   *
   * @param sessionId The session's ULID.
   * @returns The open session.
   * @throws {SessionNotFoundError} When there is no such file.
   * @throws {SchemaTooNewError} When the file is from a newer kernel.
   * @throws {SessionUnreadableError} When it is unreadable and unsalvageable.
   */
  async open(sessionId: string): Promise<SessionLog> {
    checkSessionId(sessionId);
    const open = this.#cores.get(sessionId);
    if (open) return open.acquire();
    let pending = this.#opening.get(sessionId);
    if (!pending) {
      pending = Promise.resolve().then(() => this.#openCore(sessionId));
      this.#opening.set(sessionId, pending);
      pending.finally(() => this.#opening.delete(sessionId)).catch(() => {});
    }
    return (await pending).acquire();
  }

  #openCore(sessionId: string): SessionCore<SqliteBackend> {
    const path = this.pathOf(sessionId);
    let size: number;
    try {
      size = Deno.statSync(path).size;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        throw new SessionNotFoundError(sessionId, path, { cause: error });
      }
      throw error;
    }
    let walSize = 0;
    try {
      walSize = Deno.statSync(`${path}-wal`).size;
    } catch { /* no WAL */ }
    if (size === 0 && walSize === 0) {
      throw new SessionUnreadableError(
        path,
        "the file is empty (truncated to nothing, or its creation never completed); nothing to salvage",
      );
    }
    let recovery: RecoveryReport | undefined;
    let db: DatabaseSync | undefined = new DatabaseSync(path);
    try {
      this.#busy(db);
      const problems = integrityProblems(
        db,
        this.#options.integrityCheck ?? "full",
      );
      if (problems.length > 0) {
        db.close();
        db = undefined;
        recovery = salvageSessionFile(path, sessionId, problems, this.#now);
        db = new DatabaseSync(path);
        this.#busy(db);
      }
      const version = userVersion(db);
      if (version > SCHEMA_VERSION) {
        throw new SchemaTooNewError(path, version, SCHEMA_VERSION);
      }
      if (version === 0) {
        throw new SessionUnreadableError(
          path,
          hasTables(db)
            ? "it has no schema revision (user_version 0), so it is not a session file"
            : "it holds no schema (its creation never completed)",
        );
      }
      this.#configure(db);
      if (version < SCHEMA_VERSION) {
        for (const m of migrate(db, sessionId, version)) {
          log.info(
            "Migrated session file {path} to schema revision {to}: {description}",
            { path, to: m.to, description: m.description },
          );
        }
      }
      const meta = db.prepare("SELECT session_id FROM session_meta").all() as {
        session_id: string;
      }[];
      if (meta.length !== 1 || meta[0].session_id !== sessionId) {
        throw new SessionUnreadableError(
          path,
          meta.length === 0
            ? "it has no session_meta row"
            : `its session_meta row names ${
              JSON.stringify(meta[0].session_id)
            }, not the file's stem`,
        );
      }
      const chain = this.#chainOf(db, sessionId, path);
      recordOwner(db, this.#owner);
      return this.#core(
        new SqliteBackend(db, sessionId, path, chain, recovery, this.#owner),
      );
    } catch (error) {
      db?.close();
      throw error;
    }
  }

  /**
   * Lists the sessions in this store's directory, most recently started
   * first (ULID order), by reading each file's `session_meta` row. Files
   * that cannot be read are reported, not thrown.
   *
   * @param options Status, parent, roots-only and limit filters.
   * @returns The sessions and the unreadable files.
   */
  list(options: ListSessionsOptions = {}): Promise<ListSessionsResult> {
    return Promise.resolve().then(() => this.#list(options));
  }

  #list(options: ListSessionsOptions): ListSessionsResult {
    const ids: string[] = [];
    try {
      for (const e of Deno.readDirSync(this.dir)) {
        const m = FILE_REGEXP.exec(e.name);
        if (e.isFile && m && isUlid(m[1])) ids.push(m[1]);
      }
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        return { sessions: [], unreadable: [] };
      }
      throw error;
    }
    ids.sort().reverse();
    const sessions: SessionRecord[] = [];
    const unreadable: UnreadableSession[] = [];
    const limit = options.limit ?? Infinity;
    for (const id of ids) {
      if (sessions.length >= limit) break;
      const path = `${this.dir}/${id}.sqlite`;
      let record: SessionRecord;
      try {
        const core = this.#cores.get(id);
        record = core ? ownedInfo(core) : readRecord(
          path,
          this.#options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS,
        );
      } catch (error) {
        unreadable.push({
          sessionId: id,
          path,
          reason: error instanceof Error ? error.message : String(error),
        });
        continue;
      }
      if (options.status !== undefined && record.status !== options.status) {
        continue;
      }
      if (
        options.parentSessionId !== undefined &&
        record.parentSessionId !== options.parentSessionId
      ) continue;
      if (options.rootsOnly && record.parentSessionId !== undefined) continue;
      sessions.push(record);
    }
    return { sessions, unreadable };
  }

  /**
   * Verifies a session's hash chain: the library call behind
   * `agent sessions verify ID`.
   *
   * @param sessionId The session's ULID.
   * @returns `ok`, or the first bad sequence and why.
   */
  async verify(sessionId: string): Promise<VerifyResult> {
    await using session = await this.open(sessionId);
    return await session.verify();
  }

  /** Drains and closes every open session. Idempotent. */
  async close(): Promise<void> {
    const cores = [...this.#cores.values()];
    await Promise.all(cores.map((c) => c.shutdown()));
  }

  /** Same as {@linkcode SqliteSessionStore.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
