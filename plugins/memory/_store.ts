/**
 * The memory provider's storage: one SQLite file (`node:sqlite`, WAL,
 * `BEGIN IMMEDIATE` for every write, a busy timeout), so that several
 * plugin processes — one per running kernel — can share it.
 *
 * Plain data in, plain data out: the RPC layer converts to and from the
 * protocol messages. Provenance columns are written once, at insert, and
 * no statement ever updates them.
 *
 * @module
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { dirname } from "node:path";

/** `memory.v1.MemoryType` values, by name. */
export type TypeName = "user" | "feedback" | "project" | "reference";
/** `memory.v1.MemoryScope` values, by name. */
export type ScopeName = "session" | "project" | "global";
/** `memory.v1.RecordStatus` values, by name. */
export type StatusName = "canonical" | "pending";

/** Every type name, in enum order (1..4). */
export const TYPE_NAMES: readonly TypeName[] = [
  "user",
  "feedback",
  "project",
  "reference",
];
/** Every scope name, in enum order (1..3). */
export const SCOPE_NAMES: readonly ScopeName[] = [
  "session",
  "project",
  "global",
];

/** Who wrote a record, where and when; never changed after insert. */
export interface StoredProvenance {
  /** The session the record came from ("" when unknown). */
  sourceSessionId: string;
  /** The turn, when known. */
  sourceTurnId?: string;
  /** What wrote it, e.g. `kernel`, `tool:remember`, `hook:session-end`. */
  recordedBy: string;
}

/** One stored record. */
export interface StoredRecord {
  /** The slug. */
  id: string;
  /** Its type (immutable). */
  type: TypeName;
  /** Its scope (immutable). */
  scope: ScopeName;
  /** The title. */
  title: string;
  /** The text blocks of its content. */
  content: string[];
  /** Tokens of the content, from the kernel's CountTokens. */
  tokens: number;
  /** Canonical, or pending review. */
  status: StatusName;
  /** `[[name]]` links of the title and content. */
  links: string[];
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** Milliseconds since the epoch. */
  updatedAt: number;
  /** Provenance. */
  provenance: StoredProvenance;
}

/** A failure of the storage itself (open, read, write). */
export class StoreUnavailableError extends Error {
  /**
   * Creates the error.
   *
   * @param message What failed, naming the file.
   * @param options The cause.
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "StoreUnavailableError";
  }
}

const SCHEMA_VERSION = 1;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS records (
  id                TEXT PRIMARY KEY,
  type              TEXT NOT NULL CHECK (type IN ('user','feedback','project','reference')),
  scope             TEXT NOT NULL CHECK (scope IN ('session','project','global')),
  title             TEXT NOT NULL,
  content           TEXT NOT NULL,  -- JSON list of the text blocks
  tokens            INTEGER NOT NULL,
  status            TEXT NOT NULL CHECK (status IN ('canonical','pending')),
  links             TEXT NOT NULL,  -- JSON list
  created_at        INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL,
  source_session_id TEXT NOT NULL,
  source_turn_id    TEXT,
  recorded_by       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS records_updated ON records (updated_at DESC, id);
`;

type Row = {
  id: string;
  type: TypeName;
  scope: ScopeName;
  title: string;
  content: string;
  tokens: number;
  status: StatusName;
  links: string;
  created_at: number;
  updated_at: number;
  source_session_id: string;
  source_turn_id: string | null;
  recorded_by: string;
};

function recordOf(r: Row): StoredRecord {
  return {
    id: r.id,
    type: r.type,
    scope: r.scope,
    title: r.title,
    content: JSON.parse(r.content),
    tokens: Number(r.tokens),
    status: r.status,
    links: JSON.parse(r.links),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    provenance: {
      sourceSessionId: r.source_session_id,
      ...(r.source_turn_id !== null ? { sourceTurnId: r.source_turn_id } : {}),
      recordedBy: r.recorded_by,
    },
  };
}

/** Filters of {@linkcode MemoryStore.list}. */
export interface ListFilter {
  /** Only these types (empty: all). */
  types?: readonly TypeName[];
  /** Only these scopes (empty: all). */
  scopes?: readonly ScopeName[];
  /** Only these statuses (empty: all). */
  statuses?: readonly StatusName[];
}

/** The SQLite-backed store. */
export class MemoryStore {
  /** The database file. */
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #s: Record<string, StatementSync>;

  private constructor(path: string, db: DatabaseSync) {
    this.path = path;
    this.#db = db;
    const p = (sql: string) => db.prepare(sql);
    this.#s = {
      get: p("SELECT * FROM records WHERE id = ?"),
      exists: p("SELECT 1 AS x FROM records WHERE id = ?"),
      insert: p(
        `INSERT INTO records (id, type, scope, title, content, tokens, status,
           links, created_at, updated_at, source_session_id, source_turn_id,
           recorded_by)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      update: p(
        `UPDATE records SET title = ?, content = ?, tokens = ?, links = ?,
           updated_at = ? WHERE id = ?`,
      ),
      status: p("UPDATE records SET status = ?, updated_at = ? WHERE id = ?"),
      delete: p("DELETE FROM records WHERE id = ?"),
      all: p("SELECT * FROM records ORDER BY updated_at DESC, id"),
    };
  }

  /**
   * Opens (creating it and its directory if needed) the database file.
   *
   * @param path The file.
   * @returns The store.
   * @throws {StoreUnavailableError} Naming the file and the cause (for
   *   instance a missing read or write permission).
   */
  static open(path: string): MemoryStore {
    let db: DatabaseSync | undefined;
    try {
      Deno.mkdirSync(dirname(path), { recursive: true });
      db = new DatabaseSync(path);
      db.exec("PRAGMA journal_mode = WAL");
      db.exec("PRAGMA busy_timeout = 5000");
      db.exec("PRAGMA synchronous = NORMAL");
      db.exec("BEGIN IMMEDIATE");
      try {
        db.exec(SCHEMA);
        const row = db.prepare("SELECT value FROM meta WHERE key = 'schema'")
          .get() as { value: string } | undefined;
        if (!row) {
          db.prepare("INSERT INTO meta (key, value) VALUES ('schema', ?)").run(
            String(SCHEMA_VERSION),
          );
        } else if (Number(row.value) !== SCHEMA_VERSION) {
          throw new Error(
            `its schema version is ${row.value}; this plugin reads version ${SCHEMA_VERSION}`,
          );
        }
        db.exec("COMMIT");
      } catch (err) {
        db.exec("ROLLBACK");
        throw err;
      }
      return new MemoryStore(path, db);
    } catch (err) {
      try {
        db?.close();
      } catch {
        // already failed
      }
      throw new StoreUnavailableError(
        `Cannot open the memory database "${path}": ${
          err instanceof Error ? err.message : String(err)
        }`,
        { cause: err },
      );
    }
  }

  /** Closes the database. */
  close(): void {
    this.#db.close();
  }

  #write<T>(fn: () => T): T {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const out = fn();
      this.#db.exec("COMMIT");
      return out;
    } catch (err) {
      this.#db.exec("ROLLBACK");
      throw err;
    }
  }

  /**
   * One record.
   *
   * @param id The slug.
   * @returns The record, or `undefined`.
   */
  get(id: string): StoredRecord | undefined {
    const r = this.#s.get!.get(id) as Row | undefined;
    return r ? recordOf(r) : undefined;
  }

  /**
   * Inserts a record under the first free slug of `base`, `base-2`, …, in
   * one transaction (so two writers never take the same slug).
   *
   * @param base The wanted slug.
   * @param record Everything but the id.
   * @returns The record as stored, with its final id.
   */
  insert(base: string, record: Omit<StoredRecord, "id">): StoredRecord {
    return this.#write(() => {
      let id = base;
      for (let n = 2; this.#s.exists!.get(id); n++) id = `${base}-${n}`;
      this.#s.insert!.run(
        id,
        record.type,
        record.scope,
        record.title,
        JSON.stringify(record.content),
        record.tokens,
        record.status,
        JSON.stringify(record.links),
        record.createdAt,
        record.updatedAt,
        record.provenance.sourceSessionId,
        record.provenance.sourceTurnId ?? null,
        record.provenance.recordedBy,
      );
      return { ...record, id };
    });
  }

  /**
   * Replaces title, content, tokens and links (type, scope, status,
   * creation time and provenance stay).
   *
   * @param id The slug.
   * @param change The new values.
   * @returns The record after the change, or `undefined` when unknown.
   */
  update(
    id: string,
    change: Pick<StoredRecord, "title" | "content" | "tokens" | "links"> & {
      updatedAt: number;
    },
  ): StoredRecord | undefined {
    return this.#write(() => {
      const r = this.#s.update!.run(
        change.title,
        JSON.stringify(change.content),
        change.tokens,
        JSON.stringify(change.links),
        change.updatedAt,
        id,
      );
      if (Number(r.changes) === 0) return undefined;
      return this.get(id);
    });
  }

  /**
   * Sets a record's status.
   *
   * @param id The slug.
   * @param status The new status.
   * @param at The time of the change.
   * @returns The record after the change, or `undefined` when unknown.
   */
  setStatus(
    id: string,
    status: StatusName,
    at: number,
  ): StoredRecord | undefined {
    return this.#write(() => {
      const r = this.#s.status!.run(status, at, id);
      return Number(r.changes) === 0 ? undefined : this.get(id);
    });
  }

  /**
   * Deletes a record.
   *
   * @param id The slug.
   * @returns Whether it existed.
   */
  delete(id: string): boolean {
    return this.#write(() => Number(this.#s.delete!.run(id).changes) > 0);
  }

  /**
   * Records matching the filters, most recently updated first.
   *
   * @param filter Types, scopes and statuses (each empty = all).
   * @returns The records.
   */
  list(filter: ListFilter = {}): StoredRecord[] {
    const ok = <T>(list: readonly T[] | undefined, v: T) =>
      !list || list.length === 0 || list.includes(v);
    return (this.#s.all!.all() as Row[]).map(recordOf).filter((r) =>
      ok(filter.types, r.type) && ok(filter.scopes, r.scope) &&
      ok(filter.statuses, r.status)
    );
  }
}
