/**
 * The SQLite side of one open session: prepared statements, the atomic
 * batch commit (one `BEGIN IMMEDIATE … COMMIT` per batch, with a
 * one-write-per-transaction replay when any write of the batch fails), and
 * the reads.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { getLogger } from "@logtape/logtape";
import { SessionStatus } from "../../proto/gen/pluggableharness/session/v1/types_pb.ts";
import type { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import { CATEGORY_NAMES } from "../../contract/manifest.ts";
import { tryEventKindFromText } from "./event_kinds.ts";
import { type ChainHasher, verifyChain } from "./hash_chain.ts";
import type { HeadStore, HeadWriter } from "./_chain_head.ts";
import type { InstallationKey } from "./installation_key.ts";
import {
  canChangeStatus,
  type CostLedgerRecord,
  type EventRecord,
  KERNEL_PRODUCER,
  type PlanItemDecision,
  type PlanItemRecord,
  type Producer,
  type ProducerCategory,
  type ProducerRecord,
  type RecoveryReport,
  SESSION_STATUS_TEXT,
  type SessionOwner,
  type SessionRecord,
  type VerifyResult,
} from "./session_store.ts";
import {
  DuplicateEventIdError,
  InvalidStatusTransitionError,
  MalformedEventRowError,
  StorageError,
} from "./errors.ts";
import { hashedEvents, lastAssignedSequence } from "./_sqlite_schema.ts";
import { readOwners, releaseOwner } from "./_owner.ts";
import {
  type EmitOp,
  emitOpHash,
  producerKey,
  type SessionBackend,
  type StatusOp,
  type WriteOp,
  type WriteOutcome,
} from "./_session_log.ts";
import { checkHeadBeforeAppend } from "./_session_log.ts";

const log = getLogger(["ph-agent", "kernel", "state"]);
const CATEGORIES = new Set<string>(CATEGORY_NAMES);
const STATUS_BY_TEXT = new Map<string, SessionStatus>(
  Object.entries(SESSION_STATUS_TEXT).map(([k, v]) => [v, Number(k)]),
);

const EVENT_COLUMNS =
  "sequence, id, timestamp, kind, producer_category, producer_name, producer_version, schema_version, payload";

/**
 * Rows as arrays: a third faster to read than objects. The runtime has
 * `setReturnArrays` (Node 24 API) but the bundled types do not declare it.
 */
function returnArrays(stmt: StatementSync): void {
  (stmt as unknown as { setReturnArrays(on: boolean): void }).setReturnArrays(
    true,
  );
}

/** A status change the session refuses; it writes nothing. */
class RefusedWrite {
  constructor(readonly error: Error) {}
}

/** How one session file's chain is computed, checked and headed. */
export interface SqliteChain {
  /** The chain's hasher (its scheme and key). */
  readonly hasher: ChainHasher;
  /** The installation key (for heads and verification). */
  readonly key: InstallationKey;
  /** The key id the file records, for a keyed chain. */
  readonly storedKeyId?: string;
  /** Where the head is kept. */
  readonly heads: HeadStore;
}

/** The backend of one open session file. */
export class SqliteBackend implements SessionBackend {
  readonly sessionId: string;
  readonly path: string;
  readonly recovery?: RecoveryReport;
  readonly #db: DatabaseSync;
  readonly #genesis: Uint8Array;
  readonly #chain: SqliteChain;
  readonly #headWriter: HeadWriter;
  #headChecked = false;
  readonly #producers = new Set<string>();
  readonly #s: Record<string, StatementSync>;
  readonly #pageByKinds = new Map<number, StatementSync>();
  readonly #owner: SessionOwner | undefined;

  constructor(
    db: DatabaseSync,
    sessionId: string,
    path: string,
    chain: SqliteChain,
    recovery?: RecoveryReport,
    owner?: SessionOwner,
  ) {
    this.#db = db;
    this.#owner = owner;
    this.sessionId = sessionId;
    this.path = path;
    if (recovery) this.recovery = recovery;
    this.#chain = chain;
    this.#genesis = chain.hasher.genesis;
    this.#headWriter = chain.heads.writer(sessionId);
    const p = (sql: string) => db.prepare(sql);
    this.#s = {
      begin: p("BEGIN IMMEDIATE"),
      commit: p("COMMIT"),
      rollback: p("ROLLBACK"),
      head: p(
        `SELECT (SELECT seq FROM sqlite_sequence WHERE name = 'events') AS last,
          (SELECT hash FROM events ORDER BY sequence DESC LIMIT 1) AS hash`,
      ),
      hashAt: p("SELECT hash FROM events WHERE sequence = ?"),
      insertEvent: p(
        `INSERT INTO events (${EVENT_COLUMNS}, hash)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      insertCost: p(
        `INSERT INTO cost_ledger (event_sequence, provider_name, model_id,
          input_tokens, output_tokens, cache_write_tokens, cache_read_tokens,
          cost_usd) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      insertPlan: p(
        `INSERT INTO plan_items (event_sequence, turn_id, tool_call_id,
          provider_name, tool_name, decision, decided_by)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ),
      insertProducer: p(
        `INSERT OR IGNORE INTO producers (category, name, version,
          first_seen_sequence) VALUES (?, ?, ?, ?)`,
      ),
      status: p("SELECT status FROM session_meta LIMIT 1"),
      setStatus: p("UPDATE session_meta SET status = ?, ended_at = ?"),
      meta: p(
        `SELECT session_id, parent_session_id, profile, status, depth,
          started_at, ended_at FROM session_meta LIMIT 1`,
      ),
      cost: p("SELECT count(*) AS n, total(cost_usd) AS usd FROM cost_ledger"),
      ledger: p(
        `SELECT sequence, event_sequence, provider_name, model_id,
          input_tokens, output_tokens, cache_write_tokens, cache_read_tokens,
          cost_usd FROM cost_ledger ORDER BY sequence`,
      ),
      plan: p(
        `SELECT sequence, event_sequence, turn_id, tool_call_id,
          provider_name, tool_name, decision, decided_by
         FROM plan_items ORDER BY sequence`,
      ),
      producers: p(
        `SELECT category, name, version, first_seen_sequence FROM producers
         ORDER BY first_seen_sequence, category, name, version`,
      ),
      page: p(
        `SELECT ${EVENT_COLUMNS} FROM events WHERE sequence > ?
         ORDER BY sequence LIMIT ?`,
      ),
      pageOneKind: p(
        `SELECT ${EVENT_COLUMNS} FROM events WHERE kind = ? AND sequence > ?
         ORDER BY sequence LIMIT ?`,
      ),
    };
    returnArrays(this.#s.page);
    returnArrays(this.#s.pageOneKind);
    for (const r of this.producers()) this.#producers.add(producerKey(r));
  }

  commit(ops: readonly WriteOp[]): WriteOutcome[] {
    try {
      return this.#commitBatch(ops);
    } catch (error) {
      if (ops.length === 1) {
        return [{ ok: false, error: this.#mapError(error, ops[0]) }];
      }
      // Replay one write per transaction so only the failing one fails.
      return ops.map((op) => {
        try {
          return this.#commitBatch([op])[0];
        } catch (e) {
          return { ok: false, error: this.#mapError(e, op) };
        }
      });
    }
  }

  #mapError(error: unknown, op: WriteOp): Error {
    const message = error instanceof Error ? error.message : String(error);
    if (
      op.type === "emit" && /UNIQUE constraint failed: events\.id/.test(message)
    ) {
      return new DuplicateEventIdError(this.sessionId, op.id, { cause: error });
    }
    return new StorageError(
      this.sessionId,
      op.type === "emit" ? `append a ${op.info.text} event` : "change status",
      { cause: error },
    );
  }

  #commitBatch(ops: readonly WriteOp[]): WriteOutcome[] {
    const db = this.#db;
    this.#s.begin.run();
    const seen: string[] = [];
    let outcomes: WriteOutcome[];
    let wrote = 0;
    let headHash = this.#genesis;
    try {
      const head = this.#s.head.get() as {
        last: number | null;
        hash: Uint8Array | null;
      };
      let last = Number(head.last ?? 0);
      let prev = head.hash ?? this.#genesis;
      if (!this.#headChecked) {
        // Once per open: refuse to append to a log that no longer agrees
        // with its head, so a truncation is never covered by a new head.
        checkHeadBeforeAppend(
          this.sessionId,
          this.#chain.hasher.scheme,
          this.#chain.heads.read(this.sessionId),
          last,
          (seq) =>
            seq === 0
              ? this.#genesis
              : (this.#s.hashAt.get(seq) as { hash: Uint8Array } | undefined)
                ?.hash,
        );
        this.#headChecked = true;
      }
      outcomes = [];
      for (const op of ops) {
        if (op.type === "status") {
          const refused = this.#applyStatus(op);
          outcomes.push(
            refused
              ? { ok: false, error: refused.error }
              : { ok: true, sequence: 0 },
          );
          continue;
        }
        const sequence = last + 1;
        prev = this.#applyEmit(op, sequence, prev, seen);
        last = sequence;
        outcomes.push({ ok: true, sequence });
      }
      this.#s.commit.run();
      wrote = last;
      headHash = prev;
    } catch (error) {
      if (db.isTransaction) this.#s.rollback.run();
      throw error;
    }
    for (const k of seen) this.#producers.add(k);
    if (seen.length > 0 || outcomes.some((o) => o.ok && o.sequence > 0)) {
      this.#writeHead(wrote, headHash);
    }
    return outcomes;
  }

  /** Writes the head after a commit; a failure is logged, not thrown. */
  #writeHead(sequence: number, hash: Uint8Array): void {
    try {
      this.#headWriter.write({
        sessionId: this.sessionId,
        scheme: this.#chain.hasher.scheme,
        sequence,
        hash,
      });
    } catch (error) {
      log.error(
        "Could not write the chain head of session {session} after event {sequence}; verify will report the head as behind or missing: {error}",
        { session: this.sessionId, sequence, error },
      );
    }
  }

  /** Writes the head of a new, empty session (sequence 0, the genesis). */
  initHead(): void {
    this.#headWriter.write({
      sessionId: this.sessionId,
      scheme: this.#chain.hasher.scheme,
      sequence: 0,
      hash: this.#genesis,
    });
  }

  #applyStatus(op: StatusOp): RefusedWrite | undefined {
    const row = this.#s.status.get() as { status: string } | undefined;
    const from = STATUS_BY_TEXT.get(row?.status ?? "") ??
      SessionStatus.UNSPECIFIED;
    if (!canChangeStatus(from, op.status)) {
      return new RefusedWrite(
        new InvalidStatusTransitionError(
          this.sessionId,
          row?.status ?? "unknown",
          SESSION_STATUS_TEXT[op.status],
        ),
      );
    }
    this.#s.setStatus.run(
      SESSION_STATUS_TEXT[op.status],
      op.status === SessionStatus.RUNNING ? null : op.at,
    );
    return undefined;
  }

  #applyEmit(
    op: EmitOp,
    sequence: number,
    prev: Uint8Array,
    seen: string[],
  ): Uint8Array {
    const p = op.producer;
    const hash = emitOpHash(this.#chain.hasher, prev, sequence, op);
    this.#s.insertEvent.run(
      sequence,
      op.id,
      op.timestamp,
      op.info.text,
      p.category,
      p.name,
      p.version,
      op.schemaVersion,
      op.payload,
      hash,
    );
    for (const c of op.cost) {
      this.#s.insertCost.run(
        sequence,
        c.providerName,
        c.modelId,
        c.inputTokens,
        c.outputTokens,
        c.cacheWriteTokens,
        c.cacheReadTokens,
        c.costUsd,
      );
    }
    for (const i of op.planItems) {
      this.#s.insertPlan.run(
        sequence,
        i.turnId,
        i.toolCallId,
        i.providerName,
        i.toolName,
        i.decision,
        i.decidedBy,
      );
    }
    const key = producerKey(p);
    if (!this.#producers.has(key) && !seen.includes(key)) {
      this.#s.insertProducer.run(p.category, p.name, p.version, sequence);
      seen.push(key);
    }
    return hash;
  }

  readPage(
    kinds: readonly string[] | undefined,
    after: number,
    limit: number,
  ): EventRecord[] {
    let rows: unknown[][];
    if (!kinds) {
      rows = this.#s.page.all(after, limit) as unknown as unknown[][];
    } else if (kinds.length === 1) {
      rows = this.#s.pageOneKind.all(
        kinds[0],
        after,
        limit,
      ) as unknown as unknown[][];
    } else {
      // "+kind" keeps the planner on the primary key, so each page is a
      // range scan in sequence order rather than a sort of every match.
      let stmt = this.#pageByKinds.get(kinds.length);
      if (!stmt) {
        stmt = this.#db.prepare(
          `SELECT ${EVENT_COLUMNS} FROM events
           WHERE +kind IN (${kinds.map(() => "?").join(", ")})
             AND sequence > ? ORDER BY sequence LIMIT ?`,
        );
        returnArrays(stmt);
        this.#pageByKinds.set(kinds.length, stmt);
      }
      rows = stmt.all(...kinds, after, limit) as unknown as unknown[][];
    }
    const out = new Array<EventRecord>(rows.length);
    for (let i = 0; i < rows.length; i++) out[i] = this.#record(rows[i]);
    return out;
  }

  #record(r: unknown[]): EventRecord {
    const sequence = Number(r[0]);
    const kindText = r[3] as string;
    const kind: EventKind | undefined = tryEventKindFromText(kindText);
    if (kind === undefined) {
      throw new MalformedEventRowError(
        this.sessionId,
        sequence,
        `unknown kind text ${JSON.stringify(kindText)}`,
      );
    }
    return {
      sequence,
      id: r[1] as string,
      timestamp: r[2] as string,
      kind,
      producer: this.#producer(sequence, r[4], r[5], r[6]),
      schemaVersion: r[7] as string,
      payload: r[8] as Uint8Array,
    };
  }

  #producer(
    sequence: number,
    category: unknown,
    name: unknown,
    version: unknown,
  ): Producer {
    if (category === "kernel") {
      if (
        name !== KERNEL_PRODUCER.name || version !== KERNEL_PRODUCER.version
      ) {
        throw new MalformedEventRowError(
          this.sessionId,
          sequence,
          `the kernel category is only valid as kernel/kernel@1, got kernel/${name}@${version}`,
        );
      }
      return KERNEL_PRODUCER;
    }
    if (!CATEGORIES.has(category as string)) {
      throw new MalformedEventRowError(
        this.sessionId,
        sequence,
        `unknown producer category ${JSON.stringify(category)}`,
      );
    }
    return {
      category: category as ProducerCategory,
      name: name as string,
      version: version as string,
    };
  }

  info(): SessionRecord {
    const m = this.#s.meta.get() as Record<string, string | number | null>;
    const c = this.#s.cost.get() as { n: number; usd: number };
    const status = STATUS_BY_TEXT.get(String(m.status)) ??
      SessionStatus.UNSPECIFIED;
    return {
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
    };
  }

  costUsd(): number {
    return Number((this.#s.cost.get() as { usd: number }).usd);
  }

  costLedger(): CostLedgerRecord[] {
    return (this.#s.ledger.all() as Record<string, number | string>[]).map((
      r,
    ) => ({
      sequence: Number(r.sequence),
      eventSequence: Number(r.event_sequence),
      providerName: String(r.provider_name),
      modelId: String(r.model_id),
      inputTokens: Number(r.input_tokens),
      outputTokens: Number(r.output_tokens),
      cacheWriteTokens: Number(r.cache_write_tokens),
      cacheReadTokens: Number(r.cache_read_tokens),
      costUsd: Number(r.cost_usd),
    }));
  }

  planItems(): PlanItemRecord[] {
    return (this.#s.plan.all() as Record<string, number | string>[]).map((
      r,
    ) => ({
      sequence: Number(r.sequence),
      eventSequence: Number(r.event_sequence),
      turnId: String(r.turn_id),
      toolCallId: String(r.tool_call_id),
      providerName: String(r.provider_name),
      toolName: String(r.tool_name),
      decision: String(r.decision) as PlanItemDecision,
      decidedBy: String(r.decided_by),
    }));
  }

  producers(): ProducerRecord[] {
    return (this.#s.producers.all() as Record<string, number | string>[]).map((
      r,
    ) => ({
      category: String(r.category) as ProducerCategory,
      name: String(r.name),
      version: String(r.version),
      firstSeenSequence: Number(r.first_seen_sequence),
    }));
  }

  verify(): VerifyResult {
    // One read transaction, so the events, their companion rows and the
    // last assigned sequence are one snapshot.
    this.#db.exec("BEGIN");
    try {
      const { head, problem } = this.#chain.heads.read(this.sessionId);
      return verifyChain(this.sessionId, hashedEvents(this.#db, true), {
        lastAssignedSequence: lastAssignedSequence(this.#db),
        scheme: this.#chain.hasher.scheme,
        key: this.#chain.key,
        ...(this.#chain.storedKeyId !== undefined
          ? { storedKeyId: this.#chain.storedKeyId }
          : {}),
        head,
        ...(problem !== undefined ? { headProblem: problem } : {}),
      });
    } finally {
      this.#db.exec("COMMIT");
    }
  }

  /** The session's owners, oldest first. */
  owners(): SessionOwner[] {
    return readOwners(this.#db);
  }

  close(): void {
    try {
      if (this.#owner) {
        try {
          releaseOwner(this.#db, this.#owner);
        } catch (error) {
          log.warn("Cannot remove the owner row of {path}: {error}", {
            path: this.path,
            error: error instanceof Error ? error.message : String(error),
          });
        }
      }
      this.#db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    } finally {
      this.#db.close();
      this.#headWriter.close();
    }
  }
}
