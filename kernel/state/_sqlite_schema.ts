/**
 * The session file schema: the baseline DDL (revision 1, kernel.md §3.3
 * exactly: five tables and their two indexes), the ordered migration steps
 * that follow it, and the row readers the chain verification and the
 * migrations share.
 *
 * Revisions (`PRAGMA user_version`):
 *
 * 1. The §3.3 baseline, as the reference implementation writes it.
 * 2. `events.hash`: the tamper-evidence chain (see `hash_chain.ts`). The
 *    step adds the column and computes the chain over the rows already in
 *    the file, in sequence order, so a migrated file verifies from then on
 *    (it cannot vouch for edits made before the migration).
 * 3. `chain`: one row naming the chain's scheme and key (kernel.md §3.15).
 *    Existing files keep their public chain and are marked `sha256`
 *    (legacy); a new file is marked `hmac-sha256` with the installation
 *    key's id when it is created.
 * 4. `owners`: one row per process that has the session open for writing
 *    (pid, host name, process start time), removed when it closes, so a
 *    listing can tell a `running` session whose kernel is gone (issue 21,
 *    defect 13). Existing files start with no owner.
 *
 * A new file runs the baseline and then every step, in one transaction, so
 * new and migrated files are built by the same code. A future revision adds
 * a step here; the baseline is never edited.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import {
  chainGenesis,
  eventHash,
  type StoredHashedEvent,
} from "./hash_chain.ts";
import { type CostRow, groupCompanionRows } from "./_session_log.ts";
import type { PlanItemEntry } from "./session_store.ts";

/** The newest schema revision this kernel writes and reads. */
export const SCHEMA_VERSION = 4;

/** Revision 1: kernel.md §3.3, exactly. Never edit; add a migration. */
export const BASELINE_DDL = `
CREATE TABLE events (
  sequence INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  timestamp TEXT NOT NULL,
  kind TEXT NOT NULL,
  producer_category TEXT NOT NULL,
  producer_name TEXT NOT NULL,
  producer_version TEXT NOT NULL,
  schema_version TEXT NOT NULL,
  payload BLOB NOT NULL
);
CREATE INDEX idx_events_kind ON events (kind);
CREATE INDEX idx_events_producer
  ON events (producer_category, producer_name, producer_version);
CREATE TABLE session_meta (
  session_id TEXT PRIMARY KEY,
  parent_session_id TEXT,
  profile TEXT NOT NULL,
  status TEXT NOT NULL,
  depth INTEGER NOT NULL,
  started_at TEXT NOT NULL,
  ended_at TEXT
);
CREATE TABLE cost_ledger (
  sequence INTEGER PRIMARY KEY AUTOINCREMENT,
  event_sequence INTEGER NOT NULL REFERENCES events (sequence),
  provider_name TEXT NOT NULL,
  model_id TEXT NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cache_write_tokens INTEGER NOT NULL DEFAULT 0,
  cache_read_tokens INTEGER NOT NULL DEFAULT 0,
  cost_usd REAL NOT NULL
);
CREATE TABLE plan_items (
  sequence INTEGER PRIMARY KEY AUTOINCREMENT,
  event_sequence INTEGER NOT NULL REFERENCES events (sequence),
  turn_id TEXT NOT NULL,
  tool_call_id TEXT NOT NULL,
  provider_name TEXT NOT NULL,
  tool_name TEXT NOT NULL,
  decision TEXT NOT NULL,
  decided_by TEXT NOT NULL
);
CREATE TABLE producers (
  category TEXT NOT NULL,
  name TEXT NOT NULL,
  version TEXT NOT NULL,
  first_seen_sequence INTEGER NOT NULL REFERENCES events (sequence),
  PRIMARY KEY (category, name, version)
);
`;

/** One forward step from revision `to - 1` to `to`. */
export interface Migration {
  /** The revision the step produces. */
  readonly to: number;
  /** What it changes, for the log. */
  readonly description: string;
  /** Applies the step inside the caller's transaction. */
  readonly up: (db: DatabaseSync, sessionId: string) => void;
}

/** The ordered steps after the baseline. */
export const MIGRATIONS: readonly Migration[] = [
  {
    to: 2,
    description: "add events.hash and chain the existing events",
    up(db, sessionId) {
      db.exec("ALTER TABLE events ADD COLUMN hash BLOB");
      const update = db.prepare(
        "UPDATE events SET hash = ? WHERE sequence = ?",
      );
      let prev = chainGenesis(sessionId);
      for (const e of hashedEvents(db, false)) {
        prev = eventHash(prev, e);
        update.run(prev, e.sequence);
      }
    },
  },
  {
    to: 3,
    description: "add the chain table (existing chains stay unkeyed: legacy)",
    up(db) {
      db.exec(
        `CREATE TABLE chain (scheme TEXT NOT NULL, key_id TEXT);
         INSERT INTO chain (scheme, key_id) VALUES ('sha256', NULL);`,
      );
    },
  },
  {
    to: 4,
    description: "add the owners table (the processes writing the session)",
    up(db) {
      db.exec(
        `CREATE TABLE owners (pid INTEGER NOT NULL, host TEXT NOT NULL,
           start_time TEXT NOT NULL);`,
      );
    },
  },
];

/** The chain row of a file at revision 3 or later. */
export function chainRow(
  db: DatabaseSync,
): { scheme: string; keyId: string | undefined } | undefined {
  const rows = db.prepare("SELECT scheme, key_id FROM chain").all() as {
    scheme: string;
    key_id: string | null;
  }[];
  if (rows.length !== 1) return undefined;
  return { scheme: rows[0].scheme, keyId: rows[0].key_id ?? undefined };
}

/** The columns of each table at a revision (for salvage). */
export function tableColumns(version: number): Record<string, string[]> {
  const events = [
    "sequence",
    "id",
    "timestamp",
    "kind",
    "producer_category",
    "producer_name",
    "producer_version",
    "schema_version",
    "payload",
  ];
  if (version >= 2) events.push("hash");
  return {
    session_meta: [
      "session_id",
      "parent_session_id",
      "profile",
      "status",
      "depth",
      "started_at",
      "ended_at",
    ],
    events,
    cost_ledger: [
      "sequence",
      "event_sequence",
      "provider_name",
      "model_id",
      "input_tokens",
      "output_tokens",
      "cache_write_tokens",
      "cache_read_tokens",
      "cost_usd",
    ],
    plan_items: [
      "sequence",
      "event_sequence",
      "turn_id",
      "tool_call_id",
      "provider_name",
      "tool_name",
      "decision",
      "decided_by",
    ],
    producers: ["category", "name", "version", "first_seen_sequence"],
    ...(version >= 3 ? { chain: ["scheme", "key_id"] } : {}),
    ...(version >= 4 ? { owners: ["pid", "host", "start_time"] } : {}),
  };
}

/**
 * Creates the schema at `version` (the baseline plus the steps up to it)
 * and stamps `user_version`, inside the caller's transaction.
 */
export function createSchema(
  db: DatabaseSync,
  sessionId: string,
  version: number = SCHEMA_VERSION,
): void {
  db.exec(BASELINE_DDL);
  for (const m of MIGRATIONS) if (m.to <= version) m.up(db, sessionId);
  db.exec(`PRAGMA user_version = ${version}`);
}

/**
 * Applies the steps after `from`, each in its own `BEGIN IMMEDIATE`
 * transaction that also stamps its revision, so a failure leaves the last
 * good revision.
 *
 * @returns The steps applied.
 */
export function migrate(
  db: DatabaseSync,
  sessionId: string,
  from: number,
): Migration[] {
  const applied: Migration[] = [];
  for (const m of MIGRATIONS) {
    if (m.to <= from) continue;
    db.exec("BEGIN IMMEDIATE");
    try {
      m.up(db, sessionId);
      db.exec(`PRAGMA user_version = ${m.to}`);
      db.exec("COMMIT");
    } catch (error) {
      db.exec("ROLLBACK");
      throw error;
    }
    applied.push(m);
  }
  return applied;
}

/** Reads `PRAGMA user_version`. */
export function userVersion(db: DatabaseSync): number {
  const row = db.prepare("PRAGMA user_version").get() as
    | { user_version: number }
    | undefined;
  return Number(row?.user_version ?? 0);
}

/** The highest event sequence ever assigned (sqlite_sequence), or 0. */
export function lastAssignedSequence(db: DatabaseSync): number {
  const row = db.prepare(
    "SELECT seq FROM sqlite_sequence WHERE name = 'events'",
  ).get() as { seq: number } | undefined;
  return Number(row?.seq ?? 0);
}

/** The companion rows of every event, keyed by event sequence. */
export function companionRows(db: DatabaseSync): {
  cost: Map<number, CostRow[]>;
  plan: Map<number, PlanItemEntry[]>;
} {
  return groupCompanionRows(
    db.prepare(
      `SELECT event_sequence, provider_name, model_id, input_tokens,
        output_tokens, cache_write_tokens, cache_read_tokens, cost_usd
       FROM cost_ledger ORDER BY sequence`,
    ).all(),
    db.prepare(
      `SELECT event_sequence, turn_id, tool_call_id, provider_name, tool_name,
        decision, decided_by FROM plan_items ORDER BY sequence`,
    ).all(),
  );
}

/**
 * Every event in sequence order with the fields its hash covers (and its
 * stored hash when `withHash`), read page by page.
 */
export function* hashedEvents(
  db: DatabaseSync,
  withHash: boolean,
): Generator<StoredHashedEvent> {
  const { cost, plan } = companionRows(db);
  const page = db.prepare(
    `SELECT sequence, id, timestamp, kind, producer_category, producer_name,
      producer_version, schema_version, payload${withHash ? ", hash" : ""}
     FROM events WHERE sequence > ? ORDER BY sequence LIMIT 1000`,
  );
  let after = 0;
  for (;;) {
    const rows = page.all(after) as Record<string, unknown>[];
    for (const r of rows) {
      const sequence = Number(r.sequence);
      yield {
        sequence,
        id: String(r.id),
        timestamp: String(r.timestamp),
        kind: String(r.kind),
        producerCategory: String(r.producer_category),
        producerName: String(r.producer_name),
        producerVersion: String(r.producer_version),
        schemaVersion: String(r.schema_version),
        payload: r.payload instanceof Uint8Array ? r.payload : new Uint8Array(),
        cost: cost.get(sequence),
        planItems: plan.get(sequence),
        hash: withHash ? (r.hash as Uint8Array | null) : undefined,
      };
    }
    if (rows.length < 1000) return;
    after = Number(rows[rows.length - 1].sequence);
  }
}
