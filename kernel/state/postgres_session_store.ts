/**
 * The shared state backend: every session of a team in one PostgreSQL
 * schema (default `agent`), so kernels on many machines list, verify,
 * export and resume the same sessions.
 *
 * ## The client, loaded lazily
 *
 * The npm `postgres` package is imported the first time a store connects,
 * never when this module loads, so a kernel on the default SQLite backend
 * pays nothing for it.
 *
 * ## Sequencing and the lease
 *
 * Each commit is one transaction that starts with `SELECT … FOR UPDATE` on
 * the session's row: writers of one session queue there, read the last
 * sequence and the previous hash, append, and move `last_sequence` and the
 * head forward before `COMMIT`. A failed transaction leaves nothing, so
 * sequences have no gaps and no duplicates whatever the contention.
 *
 * One kernel drives a session at a time: the first write (or the creation)
 * takes the session's lease (`lease_token`, `lease_owner`,
 * `lease_expires_at`), renewed every third of {@linkcode
 * PostgresSessionStoreOptions.leaseMs} while the session is open and
 * released at close. Another kernel's write is refused with
 * {@linkcode SessionLeasedError} until the lease expires, so a killed
 * kernel's session is taken over once its lease runs out. Reading, listing
 * and verifying take no lease.
 *
 * ## The hash chain and where its head lives
 *
 * The chain is the SQLite backend's, byte for byte: HMAC-SHA-256 under the
 * installation key, each event's hash in its row. The head (the last
 * sequence and its hash, MACed with the installation key, in the same
 * record format as the SQLite backend's head files) lives in the session's
 * row, column `head`, written in the same transaction as the events, and
 * `last_sequence` records the highest sequence ever assigned. So deleting
 * the newest events, editing a row or rewriting the head is detected by
 * anyone holding the key; a database owner who saved an older head record
 * and restores it together with a truncation is not (the SQLite backend
 * keeps its heads in files outside the database for that reason; a shared
 * database has no such outside place every machine can reach). To verify
 * sessions written on another machine, the machines share one installation
 * key.
 *
 * ## A dropped connection
 *
 * A commit that fails because the connection is gone is retried with
 * backoff (50 ms doubling to 2 s) until the database answers again; before
 * retrying, the events already stored under their ids are recognized, so
 * a commit whose acknowledgement was lost is not written twice. Meanwhile
 * new writes queue in memory up to {@linkcode
 * PostgresSessionStoreOptions.maxQueued}; past that, writers wait (the
 * session pauses), nothing is dropped.
 *
 * @module
 */
import type { Sql, TransactionSql } from "postgres";
import { getLogger } from "@logtape/logtape";
import { SessionStatus } from "../../proto/gen/pluggableharness/session/v1/types_pb.ts";
import { tryEventKindFromText } from "./event_kinds.ts";
import {
  checkHeadBeforeAppend,
  type EmitOp,
  emitOpHash,
  groupCompanionRows,
  producerKey,
  type SessionBackend,
  SessionCore,
  type StatusOp,
  type WriteOp,
  type WriteOutcome,
} from "./_session_log.ts";
import { decodeHead, encodeHead, type HeadRead } from "./_chain_head.ts";
import {
  type ChainHasher,
  chainHasher,
  type StoredHashedEvent,
  verifyChain,
} from "./hash_chain.ts";
import {
  defaultInstallationKeyPath,
  type InstallationKey,
  loadInstallationKey,
} from "./installation_key.ts";
import { currentOwner, isOwnerGone } from "./_owner.ts";
import { ensurePgSchema, PG_SCHEMA_NAME_REGEXP } from "./_postgres_schema.ts";
import { guardPool, isConnectionError } from "./_postgres_guard.ts";
import {
  canChangeStatus,
  type ChainScheme,
  type CostLedgerRecord,
  type CreateSessionOptions,
  type EventRecord,
  KERNEL_PRODUCER,
  type ListSessionsOptions,
  type ListSessionsResult,
  type PlanItemDecision,
  type PlanItemRecord,
  type Producer,
  type ProducerCategory,
  type ProducerRecord,
  SESSION_STATUS_TEXT,
  type SessionLog,
  type SessionOwner,
  type SessionRecord,
  type SessionStore,
  type SessionStoreOptions,
  type VerifyResult,
} from "./session_store.ts";
import {
  DuplicateEventIdError,
  InvalidStatusTransitionError,
  MalformedEventRowError,
  SessionExistsError,
  SessionLeasedError,
  SessionNotFoundError,
  StateError,
  StorageError,
} from "./errors.ts";
import { isUlid } from "./ulid.ts";
import { checkCreateOptions } from "./_create_options.ts";
import {
  type CommitNotifier,
  PostgresBusBridge,
} from "./postgres_bus_bridge.ts";
import { CATEGORY_NAMES } from "../../contract/manifest.ts";

export { PG_SCHEMA_VERSION } from "./_postgres_schema.ts";

const log = getLogger(["ph-agent", "kernel", "state", "postgres"]);

/** The default lease length. */
export const DEFAULT_LEASE_MS = 15_000;
/** The default bound of writes queued per session while disconnected. */
export const DEFAULT_MAX_QUEUED = 10_000;

/** Options of {@linkcode PostgresSessionStore}. */
export interface PostgresSessionStoreOptions extends SessionStoreOptions {
  /**
   * The connection URL (`postgres://user:password@host:port/db`). A secret:
   * it is never logged and never appears in an error message.
   */
  readonly url: string;
  /**
   * The schema holding the tables (created when missing).
   * @default {"agent"}
   */
  readonly schema?: string;
  /** The installation key; loaded from `keyPath` when left out. */
  readonly key?: InstallationKey;
  /**
   * The installation key file.
   * @default {defaultInstallationKeyPath()}
   */
  readonly keyPath?: string;
  /**
   * How long a lease lasts unless renewed, in milliseconds.
   * @default {15000}
   */
  readonly leaseMs?: number;
  /**
   * Writes queued per session before writers wait (while the database is
   * unreachable).
   * @default {10000}
   */
  readonly maxQueued?: number;
  /**
   * Connections in the pool.
   * @default {4}
   */
  readonly maxConnections?: number;
}

const CATEGORIES = new Set<string>(CATEGORY_NAMES);
const STATUS_BY_TEXT = new Map<string, SessionStatus>(
  Object.entries(SESSION_STATUS_TEXT).map(([k, v]) => [v, Number(k)]),
);

/** Where the store is, for messages: host, port, database, schema; never the password. */
function describe(url: string, schema: string): string {
  try {
    const u = new URL(url);
    return `PostgreSQL schema "${schema}" on ${u.hostname}${
      u.port ? `:${u.port}` : ""
    }${u.pathname}`;
  } catch {
    return `PostgreSQL schema "${schema}"`;
  }
}

function bytes(b: Uint8Array): Uint8Array {
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

function holderOf(owner: unknown): string {
  const o = owner as Partial<SessionOwner> | null;
  return o ? `pid ${o.pid} on ${o.host}` : "unknown";
}

interface Shared {
  readonly sql: Sql;
  readonly key: InstallationKey;
  readonly token: string;
  readonly owner: SessionOwner;
  readonly leaseMs: number;
  readonly where: string;
  /**
   * Set while the bus bridge runs: each commit notifies the other kernels
   * of its events in its own transaction.
   */
  notifier?: CommitNotifier;
}

function hasherOf(
  sessionId: string,
  scheme: string,
  key: InstallationKey,
): ChainHasher {
  return scheme === "sha256"
    ? chainHasher(sessionId, "sha256")
    : chainHasher(sessionId, "hmac-sha256", key.bytes);
}

function readHead(
  key: InstallationKey,
  sessionId: string,
  head: string | null,
): HeadRead {
  return head === null ? { head: null } : decodeHead(key, sessionId, head);
}

function recordOf(r: Record<string, unknown>): SessionRecord {
  const rows = Number(r.cost_rows);
  const usd = Number(r.cost_usd);
  return {
    sessionId: String(r.session_id),
    ...(r.parent_session_id !== null
      ? { parentSessionId: String(r.parent_session_id) }
      : {}),
    profile: String(r.profile),
    status: STATUS_BY_TEXT.get(String(r.status)) ?? SessionStatus.UNSPECIFIED,
    depth: Number(r.depth),
    startedAt: String(r.started_at),
    ...(r.ended_at !== null ? { endedAt: String(r.ended_at) } : {}),
    ...(rows > 0 && usd !== 0 ? { costUsd: usd } : {}),
  };
}

/** A session row with its lease applied as the owner. */
function ownedRecord(r: Record<string, unknown>): SessionRecord {
  const record = recordOf(r);
  const owner = r.lease_owner as SessionOwner | null;
  if (!owner || r.lease_token === null) return record;
  const running = record.status === SessionStatus.RUNNING;
  const gone = r.lease_expired === true || isOwnerGone(owner);
  return {
    ...record,
    owner,
    ...(running && gone ? { interrupted: true as const } : {}),
  };
}

const EVENT_COLUMNS =
  "sequence, id, timestamp, kind, producer_category, producer_name, producer_version, schema_version, payload";

class PostgresBackend implements SessionBackend {
  readonly sessionId: string;
  readonly #s: Shared;
  readonly #hasher: ChainHasher;
  readonly #storedKeyId: string | undefined;
  #headChecked = false;
  #leased = false;
  /** The last event this writer committed (sequence and hash). */
  #tail: { sequence: number; hash: Uint8Array } | undefined;
  /** Producers known to be recorded for the session. */
  readonly #producers = new Set<string>();
  #renewal: ReturnType<typeof setInterval> | undefined;
  #closed = false;

  constructor(
    shared: Shared,
    sessionId: string,
    scheme: string,
    keyId: string | null,
  ) {
    this.#s = shared;
    this.sessionId = sessionId;
    this.#hasher = hasherOf(sessionId, scheme, shared.key);
    this.#storedKeyId = keyId ?? undefined;
  }

  /** Marks the lease as held (taken at creation) and starts renewing it. */
  leased(): void {
    this.#leased = true;
    this.#startRenewal();
  }

  #startRenewal(): void {
    if (this.#renewal !== undefined || this.#closed) return;
    const every = Math.max(50, Math.floor(this.#s.leaseMs / 3));
    this.#renewal = setInterval(() => {
      this.#s.sql`UPDATE sessions SET lease_expires_at =
          now() + ${this.#s.leaseMs} * interval '1 millisecond'
        WHERE session_id = ${this.sessionId}
          AND lease_token = ${this.#s.token}`.then((r) => {
        if (r.count === 0 && this.#leased) {
          this.#leased = false;
          log.error(
            "Lost the lease of session {session}: another kernel took it over after it expired",
            { session: this.sessionId },
          );
        }
      }, (error) => {
        log.warn("Cannot renew the lease of session {session}: {error}", {
          session: this.sessionId,
          error: error instanceof Error ? error.message : String(error),
        });
      });
    }, every);
    Deno.unrefTimer(this.#renewal as unknown as number);
  }

  async commit(ops: readonly WriteOp[]): Promise<WriteOutcome[]> {
    let delay = 50;
    let reconnecting = false;
    for (;;) {
      try {
        if (reconnecting) {
          const done = await this.#alreadyStored(ops);
          if (done) return done;
        }
        return await this.#commitOrReplay(ops);
      } catch (error) {
        if (!isConnectionError(error) || this.#closed) throw error;
        if (!reconnecting) {
          log.warn(
            "Lost the connection to {where} while committing {n} writes of session {session}; retrying with backoff, writes queue in memory",
            {
              where: this.#s.where,
              n: ops.length,
              session: this.sessionId,
            },
          );
        }
        reconnecting = true;
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(2000, delay * 2);
      }
    }
  }

  /**
   * After a lost connection: when every emit of the batch is already
   * stored (the commit went through, its acknowledgement did not), the
   * outcomes; otherwise `undefined` (nothing of the batch is stored: a
   * transaction is all or nothing).
   */
  async #alreadyStored(
    ops: readonly WriteOp[],
  ): Promise<WriteOutcome[] | undefined> {
    const ids = ops.filter((o): o is EmitOp => o.type === "emit").map((o) =>
      o.id
    );
    if (ids.length === 0) return undefined;
    const rows = await this.#s.sql<{ id: string; sequence: string }[]>`
      SELECT id, sequence FROM events
      WHERE session_id = ${this.sessionId} AND id = ANY(${ids})`;
    if (rows.length !== ids.length) return undefined;
    const seq = new Map(rows.map((r) => [r.id, Number(r.sequence)]));
    return ops.map((o) =>
      o.type === "emit"
        ? { ok: true, sequence: seq.get(o.id)! }
        : { ok: true, sequence: 0 }
    );
  }

  async #commitOrReplay(ops: readonly WriteOp[]): Promise<WriteOutcome[]> {
    try {
      return await this.#commitBatch(ops);
    } catch (error) {
      if (isConnectionError(error)) throw error;
      if (ops.length === 1) {
        return [{ ok: false, error: this.#mapError(error, ops[0]) }];
      }
      const out: WriteOutcome[] = [];
      for (const op of ops) {
        try {
          out.push((await this.#commitBatch([op]))[0]);
        } catch (e) {
          if (isConnectionError(e)) throw e;
          out.push({ ok: false, error: this.#mapError(e, op) });
        }
      }
      return out;
    }
  }

  #mapError(error: unknown, op: WriteOp): Error {
    if (error instanceof SessionLeasedError || error instanceof RefusedWrite) {
      return error instanceof RefusedWrite ? error.error : error;
    }
    const e = error as { code?: string; constraint_name?: string };
    if (
      op.type === "emit" && e.code === "23505" &&
      e.constraint_name === "events_id_unique"
    ) {
      return new DuplicateEventIdError(this.sessionId, op.id, { cause: error });
    }
    if (error instanceof StateError) return error;
    return new StorageError(
      this.sessionId,
      op.type === "emit" ? `append a ${op.info.text} event` : "change status",
      { cause: error },
    );
  }

  async #commitBatch(ops: readonly WriteOp[]): Promise<WriteOutcome[]> {
    const s = this.#s;
    const id = this.sessionId;
    let tookLease = false;
    let tail: { sequence: number; hash: Uint8Array } | undefined;
    let seen: string[] = [];
    if (!this.#leased) {
      // Without the lease, look first without locking: a kernel waiting
      // for another's lease must not queue on the row it writes.
      const [l] = await s.sql`SELECT lease_token, lease_owner,
          lease_expires_at, lease_expires_at < now() AS expired
        FROM sessions WHERE session_id = ${id}`;
      if (
        l && l.lease_token !== null && l.lease_token !== s.token &&
        l.expired === false
      ) {
        throw new SessionLeasedError(
          id,
          holderOf(l.lease_owner),
          new Date(l.lease_expires_at as Date).toISOString(),
        );
      }
    }
    const outcomes = await s.sql.begin(async (tx) => {
      const [row] = await tx`
        SELECT last_sequence, status, head, lease_token, lease_owner,
          lease_expires_at, lease_expires_at < now() AS expired
        FROM sessions WHERE session_id = ${id} FOR UPDATE`;
      if (!row) throw new SessionNotFoundError(id, s.where);
      if (row.lease_token !== s.token) {
        if (row.lease_token !== null && row.expired === false) {
          throw new SessionLeasedError(
            id,
            holderOf(row.lease_owner),
            new Date(row.lease_expires_at as Date).toISOString(),
          );
        }
        tookLease = true;
      }
      let last = Number(row.last_sequence);
      let prev = this.#hasher.genesis;
      if (this.#tail && this.#tail.sequence === last) {
        // This writer committed the last event: its hash is known.
        prev = this.#tail.hash;
      } else if (last > 0) {
        const [h] = await tx`SELECT hash FROM events
          WHERE session_id = ${id} AND sequence = ${last}`;
        if (h) prev = bytes(h.hash as Uint8Array);
      }
      if (!this.#headChecked) {
        const atHead = new Map<number, Uint8Array>();
        const read = readHead(s.key, id, row.head as string | null);
        if (read.head && read.head.sequence > 0) {
          const [h] = await tx`SELECT hash FROM events
            WHERE session_id = ${id} AND sequence = ${read.head.sequence}`;
          if (h) atHead.set(read.head.sequence, bytes(h.hash as Uint8Array));
        }
        checkHeadBeforeAppend(
          id,
          this.#hasher.scheme,
          read,
          last,
          (seq) => seq === 0 ? this.#hasher.genesis : atHead.get(seq),
        );
      }
      let status = STATUS_BY_TEXT.get(String(row.status)) ??
        SessionStatus.UNSPECIFIED;
      let endedAt: string | null | undefined;
      const events: unknown[][] = [];
      const costs: unknown[][] = [];
      const plans: unknown[][] = [];
      const producers = new Map<string, unknown[]>();
      let costUsd = 0;
      const out: WriteOutcome[] = [];
      for (const op of ops) {
        if (op.type === "status") {
          const refused = applyStatus(id, status, op);
          if (refused) {
            if (ops.length === 1) throw new RefusedWrite(refused);
            out.push({ ok: false, error: refused });
            continue;
          }
          status = op.status;
          endedAt = op.status === SessionStatus.RUNNING ? null : op.at;
          out.push({ ok: true, sequence: 0 });
          continue;
        }
        const sequence = last + 1;
        prev = emitOpHash(this.#hasher, prev, sequence, op);
        last = sequence;
        const p = op.producer;
        events.push([
          id,
          sequence,
          op.id,
          op.timestamp,
          op.info.text,
          p.category,
          p.name,
          p.version,
          op.schemaVersion,
          op.payload,
          prev,
        ]);
        for (const c of op.cost) {
          costUsd += c.costUsd;
          costs.push([
            id,
            sequence,
            c.providerName,
            c.modelId,
            c.inputTokens,
            c.outputTokens,
            c.cacheWriteTokens,
            c.cacheReadTokens,
            c.costUsd,
          ]);
        }
        for (const i of op.planItems) {
          plans.push([
            id,
            sequence,
            i.turnId,
            i.toolCallId,
            i.providerName,
            i.toolName,
            i.decision,
            i.decidedBy,
          ]);
        }
        const k = producerKey(p);
        if (!producers.has(k) && !this.#producers.has(k)) {
          producers.set(k, [id, p.category, p.name, p.version, sequence]);
        }
        out.push({ ok: true, sequence });
      }
      const head = encodeHead(s.key, {
        sessionId: id,
        scheme: this.#hasher.scheme,
        sequence: last,
        hash: prev,
      });
      tail = { sequence: last, hash: prev };
      seen = [...producers.keys()];
      // One round trip for every write of the batch (pipelined), the
      // other kernels' notifications with them: delivered at the commit,
      // never for a batch rolled back.
      const writes: Promise<unknown>[] = [];
      if (events.length > 0) {
        writes.push(
          tx`INSERT INTO events (session_id, sequence, id, timestamp, kind,
          producer_category, producer_name, producer_version, schema_version,
          payload, hash) VALUES ${tx(events as never)}`,
        );
      }
      writes.push(
        ...insertSideRows(tx, costs, plans, [...producers.values()], true),
      );
      writes.push(tx`UPDATE sessions SET
          last_sequence = ${last},
          head = ${new TextDecoder().decode(head)},
          status = ${SESSION_STATUS_TEXT[status]},
          ended_at = ${endedAt === undefined ? row.ended_at ?? null : endedAt},
          cost_usd = cost_usd + ${costUsd},
          cost_rows = cost_rows + ${costs.length},
          lease_token = ${s.token},
          lease_owner = ${tx.json(s.owner as unknown as Record<string, never>)},
          lease_expires_at = now() + ${s.leaseMs} * interval '1 millisecond'
        WHERE session_id = ${id}`);
      const notifier = s.notifier;
      if (notifier !== undefined && events.length > 0) {
        let sequence = last - events.length;
        for (const op of ops) {
          if (op.type !== "emit") continue;
          writes.push(tx`SELECT pg_notify(${notifier.channel}, ${
            notifier.text({
              topic: op.info.topic,
              payload: op.payload,
              payloadType: op.info.payloadType,
              schemaVersion: op.schemaVersion,
              sequence: ++sequence,
              sessionId: id,
            })
          })`);
        }
      }
      // postgres sends a query when it is awaited: in this order.
      await Promise.all(writes);
      return out;
    });
    this.#headChecked = true;
    this.#tail = tail;
    for (const k of seen) this.#producers.add(k);
    if (tookLease) this.leased();
    return outcomes as WriteOutcome[];
  }

  async readPage(
    kinds: readonly string[] | undefined,
    after: number,
    limit: number,
  ): Promise<EventRecord[]> {
    const sql = this.#s.sql;
    const rows = kinds
      ? await sql.unsafe(
        `SELECT ${EVENT_COLUMNS} FROM events WHERE session_id = $1
         AND sequence > $2 AND kind = ANY($3) ORDER BY sequence LIMIT $4`,
        [this.sessionId, after, kinds as string[], limit],
        { prepare: true },
      )
      : await sql.unsafe(
        `SELECT ${EVENT_COLUMNS} FROM events WHERE session_id = $1
         AND sequence > $2 ORDER BY sequence LIMIT $3`,
        [this.sessionId, after, limit],
        { prepare: true },
      );
    return rows.map((r) => this.#record(r));
  }

  #record(r: Record<string, unknown>): EventRecord {
    const sequence = Number(r.sequence);
    const kind = tryEventKindFromText(String(r.kind));
    if (kind === undefined) {
      throw new MalformedEventRowError(
        this.sessionId,
        sequence,
        `unknown kind text ${JSON.stringify(r.kind)}`,
      );
    }
    return {
      sequence,
      id: String(r.id),
      timestamp: String(r.timestamp),
      kind,
      producer: producerOf(this.sessionId, sequence, r),
      schemaVersion: String(r.schema_version),
      payload: bytes(r.payload as Uint8Array),
    };
  }

  async info(): Promise<SessionRecord> {
    // With its lease as the owner, as list() shows it: a follower on
    // another machine sees a running session whose kernel died as
    // interrupted once the lease expires.
    const [r] = await this.#s.sql`SELECT *,
        lease_expires_at < now() AS lease_expired
      FROM sessions WHERE session_id = ${this.sessionId}`;
    if (!r) throw new SessionNotFoundError(this.sessionId, this.#s.where);
    return ownedRecord(r);
  }

  async owners(): Promise<SessionOwner[]> {
    const [r] = await this.#s.sql`SELECT lease_owner FROM sessions
      WHERE session_id = ${this.sessionId} AND lease_token IS NOT NULL`;
    return r?.lease_owner ? [r.lease_owner as SessionOwner] : [];
  }

  async costUsd(): Promise<number> {
    const [r] = await this.#s.sql`SELECT cost_usd FROM sessions
      WHERE session_id = ${this.sessionId}`;
    return Number(r?.cost_usd ?? 0);
  }

  async costLedger(): Promise<CostLedgerRecord[]> {
    const rows = await this.#s.sql`SELECT * FROM cost_ledger
      WHERE session_id = ${this.sessionId} ORDER BY row_id`;
    return rows.map((r, i) => ({
      sequence: i + 1,
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

  async planItems(): Promise<PlanItemRecord[]> {
    const rows = await this.#s.sql`SELECT * FROM plan_items
      WHERE session_id = ${this.sessionId} ORDER BY row_id`;
    return rows.map((r, i) => ({
      sequence: i + 1,
      eventSequence: Number(r.event_sequence),
      turnId: String(r.turn_id),
      toolCallId: String(r.tool_call_id),
      providerName: String(r.provider_name),
      toolName: String(r.tool_name),
      decision: String(r.decision) as PlanItemDecision,
      decidedBy: String(r.decided_by),
    }));
  }

  async producers(): Promise<ProducerRecord[]> {
    const rows = await this.#s.sql`SELECT * FROM producers
      WHERE session_id = ${this.sessionId}
      ORDER BY first_seen_sequence, category, name, version`;
    return rows.map((r) => ({
      category: String(r.category) as ProducerCategory,
      name: String(r.name),
      version: String(r.version),
      firstSeenSequence: Number(r.first_seen_sequence),
    }));
  }

  verify(): Promise<VerifyResult> {
    return verifySession(this.#s, this.sessionId);
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#renewal !== undefined) clearInterval(this.#renewal);
    this.#renewal = undefined;
    if (!this.#leased) return;
    this.#leased = false;
    try {
      await this.#s.sql`UPDATE sessions SET lease_token = NULL,
          lease_owner = NULL, lease_expires_at = NULL
        WHERE session_id = ${this.sessionId} AND lease_token = ${this.#s.token}`;
    } catch (error) {
      log.warn(
        "Cannot release the lease of session {session}; it expires by itself: {error}",
        {
          session: this.sessionId,
          error: error instanceof Error ? error.message : String(error),
        },
      );
    }
  }
}

/** A write refused by the session's state (carried out of a transaction). */
class RefusedWrite extends Error {
  readonly error: Error;
  constructor(error: Error) {
    super(error.message);
    this.error = error;
  }
}

function applyStatus(
  sessionId: string,
  from: SessionStatus,
  op: StatusOp,
): Error | undefined {
  if (canChangeStatus(from, op.status)) return undefined;
  return new InvalidStatusTransitionError(
    sessionId,
    SESSION_STATUS_TEXT[from] ?? "unknown",
    SESSION_STATUS_TEXT[op.status],
  );
}

function producerOf(
  sessionId: string,
  sequence: number,
  r: Record<string, unknown>,
): Producer {
  const category = String(r.producer_category);
  const name = String(r.producer_name);
  const version = String(r.producer_version);
  if (category === "kernel") {
    if (name !== KERNEL_PRODUCER.name || version !== KERNEL_PRODUCER.version) {
      throw new MalformedEventRowError(
        sessionId,
        sequence,
        `the kernel category is only valid as kernel/kernel@1, got kernel/${name}@${version}`,
      );
    }
    return KERNEL_PRODUCER;
  }
  if (!CATEGORIES.has(category)) {
    throw new MalformedEventRowError(
      sessionId,
      sequence,
      `unknown producer category ${JSON.stringify(category)}`,
    );
  }
  return { category: category as ProducerCategory, name, version };
}

/** Verifies a session's chain from one repeatable-read snapshot. */
async function verifySession(
  s: Shared,
  sessionId: string,
): Promise<VerifyResult> {
  return await s.sql.begin("isolation level repeatable read read only", async (
    tx: TransactionSql,
  ) => {
    const [row] = await tx`SELECT chain_scheme, key_id, last_sequence, head
      FROM sessions WHERE session_id = ${sessionId}`;
    if (!row) throw new SessionNotFoundError(sessionId, s.where);
    const events = await tx`SELECT sequence, id, timestamp, kind,
        producer_category, producer_name, producer_version, schema_version,
        payload, hash FROM events WHERE session_id = ${sessionId}
      ORDER BY sequence`;
    const costs = await tx`SELECT * FROM cost_ledger
      WHERE session_id = ${sessionId} ORDER BY row_id`;
    const plans = await tx`SELECT * FROM plan_items
      WHERE session_id = ${sessionId} ORDER BY row_id`;
    const { cost: costBy, plan: planBy } = groupCompanionRows(costs, plans);
    const hashed: StoredHashedEvent[] = events.map((e) => {
      const sequence = Number(e.sequence);
      return {
        sequence,
        id: String(e.id),
        timestamp: String(e.timestamp),
        kind: String(e.kind),
        producerCategory: String(e.producer_category),
        producerName: String(e.producer_name),
        producerVersion: String(e.producer_version),
        schemaVersion: String(e.schema_version),
        payload: bytes(e.payload as Uint8Array),
        cost: costBy.get(sequence) ?? [],
        planItems: planBy.get(sequence) ?? [],
        hash: bytes(e.hash as Uint8Array),
      };
    });
    const { head, problem } = readHead(s.key, sessionId, row.head);
    return verifyChain(sessionId, hashed, {
      lastAssignedSequence: Number(row.last_sequence),
      scheme: row.chain_scheme as ChainScheme,
      key: s.key,
      ...(row.key_id !== null ? { storedKeyId: String(row.key_id) } : {}),
      head,
      ...(problem !== undefined ? { headProblem: problem } : {}),
    });
  }) as VerifyResult;
}

/**
 * The PostgreSQL session store: every session of a team in one schema.
 * Nothing connects until the first call; {@linkcode PostgresSessionStore.close}
 * drains every open session, releases their leases and closes the pool.
 *
 * @example Create, append, verify (needs a running PostgreSQL)
 * ```ts ignore
 * import { PostgresSessionStore } from "@ph/agent/kernel";
 * import { EventKind } from "@ph/agent/proto/kernel";
 *
 * await using store = new PostgresSessionStore({
 *   url: Deno.env.get("AGENT_DATABASE_URL")!,
 * });
 * const session = await store.create({ profile: "default" });
 * await session.emit({
 *   kind: EventKind.TOOL_CALL,
 *   producer: { category: "tool", name: "github", version: "1.2.0" },
 *   schemaVersion: "1",
 *   payload: new Uint8Array([1, 2, 3]),
 * });
 * console.log(await session.verify());
 * ```
 */
export class PostgresSessionStore implements SessionStore {
  /** The schema. */
  readonly schema: string;
  readonly #options: PostgresSessionStoreOptions;
  readonly #where: string;
  #shared: Promise<Shared> | undefined;
  readonly #cores = new Map<string, SessionCore<PostgresBackend>>();
  readonly #opening = new Map<string, Promise<SessionCore<PostgresBackend>>>();
  readonly #now: () => Date;
  #closed = false;
  #bridge: PostgresBusBridge | undefined;

  /**
   * Creates a store; nothing connects until the first call.
   *
   * @param options The URL, the schema and the store's options.
   * @throws {RangeError} When the schema name is not a plain identifier.
   */
  constructor(options: PostgresSessionStoreOptions) {
    const schema = options.schema ?? "agent";
    if (!PG_SCHEMA_NAME_REGEXP.test(schema)) {
      throw new RangeError(
        `Cannot use PostgreSQL schema ${
          JSON.stringify(schema)
        }: a schema name is lower-case letters, digits and "_", starting with a letter or "_", at most 63 characters`,
      );
    }
    if (typeof options.url !== "string" || options.url === "") {
      throw new TypeError(
        "Cannot open the PostgreSQL state backend: the connection URL is empty",
      );
    }
    this.schema = schema;
    this.#options = options;
    this.#where = describe(options.url, schema);
    this.#now = options.now ?? (() => new Date());
  }

  /** Where the store is (host, port, database, schema; no credentials). */
  get where(): string {
    return this.#where;
  }

  /** Connects (once), checks and migrates the schema. */
  #connect(): Promise<Shared> {
    if (this.#closed) {
      return Promise.reject(
        new Error(`Cannot use ${this.#where}: the store is closed`),
      );
    }
    this.#shared ??= (async () => {
      const key = this.#options.key ?? loadInstallationKey(
        this.#options.keyPath ?? defaultInstallationKeyPath(),
      );
      const { default: postgres } = await import("postgres");
      // Guarded: a transaction whose connection closed rejects instead
      // of crashing the process (kernel/state/_postgres_guard.ts).
      const sql = guardPool(postgres(this.#options.url, {
        max: this.#options.maxConnections ?? 4,
        onnotice: () => {},
        connection: { search_path: this.schema, application_name: "agent" },
        connect_timeout: 10,
      }));
      try {
        await ensurePgSchema(sql, this.schema, this.#where);
      } catch (error) {
        await sql.end({ timeout: 1 }).catch(() => {});
        this.#shared = undefined;
        if (error instanceof StateError) throw error;
        throw new Error(
          `Cannot open ${this.#where}: ${
            error instanceof Error ? error.message : String(error)
          }`,
          { cause: error },
        );
      }
      return {
        sql,
        key,
        token: crypto.randomUUID(),
        owner: this.#options.owner ?? currentOwner(),
        leaseMs: this.#options.leaseMs ?? DEFAULT_LEASE_MS,
        where: this.#where,
      };
    })();
    return this.#shared;
  }

  /**
   * Connects the store's bus to the other kernels' on this database
   * ({@linkcode PostgresBusBridge}); the bridge closes with the store.
   *
   * @returns The running bridge.
   * @throws {TypeError} When the store has no bus.
   */
  async startBusBridge(): Promise<PostgresBusBridge> {
    const bus = this.#options.bus;
    if (!bus) {
      throw new TypeError(
        "Cannot bridge the bus: the store was created without one",
      );
    }
    if (this.#bridge) return this.#bridge;
    const shared = await this.#connect();
    this.#bridge = await PostgresBusBridge.start(bus, shared.sql, {
      schema: this.schema,
    });
    // Events reach the other kernels from the commits that store them.
    shared.notifier = this.#bridge.eventsFromCommits();
    return this.#bridge;
  }

  /** The pool, for the bus bridge and the CLI (connects on first use). */
  async sql(): Promise<Sql> {
    return (await this.#connect()).sql;
  }

  #core(s: Shared, backend: PostgresBackend): SessionCore<PostgresBackend> {
    const core = new SessionCore(backend, {
      bus: this.#options.bus,
      now: this.#now,
      maxBatchSize: this.#options.maxBatchSize,
      maxQueued: this.#options.maxQueued ?? DEFAULT_MAX_QUEUED,
      onClosed: () => this.#cores.delete(backend.sessionId),
    });
    this.#cores.set(backend.sessionId, core);
    void s;
    return core;
  }

  /**
   * Creates a session in status `running`, takes its lease and opens it.
   *
   * @param options Profile, parent, depth and optional id.
   * @returns The open session.
   * @throws {SessionExistsError} When the id is taken.
   */
  async create(options: CreateSessionOptions): Promise<SessionLog> {
    const now = this.#now();
    const { sessionId: id, parent, depth } = checkCreateOptions(options, now);
    const s = await this.#connect();
    const hasher = chainHasher(id, "hmac-sha256", s.key.bytes);
    const head = new TextDecoder().decode(encodeHead(s.key, {
      sessionId: id,
      scheme: "hmac-sha256",
      sequence: 0,
      hash: hasher.genesis,
    }));
    const inserted = await s.sql`INSERT INTO sessions (session_id,
        parent_session_id, profile, status, depth, started_at, chain_scheme,
        key_id, head, lease_token, lease_owner, lease_expires_at)
      VALUES (${id}, ${parent ?? null}, ${options.profile}, 'running',
        ${depth}, ${now.toISOString()}, 'hmac-sha256', ${s.key.id}, ${head},
        ${s.token}, ${s.sql.json(s.owner as unknown as Record<string, never>)},
        now() + ${s.leaseMs} * interval '1 millisecond')
      ON CONFLICT (session_id) DO NOTHING`;
    if (inserted.count === 0) throw new SessionExistsError(id);
    const backend = new PostgresBackend(s, id, "hmac-sha256", s.key.id);
    backend.leased();
    return this.#core(s, backend).acquire();
  }

  /**
   * Opens an existing session. Its lease is taken at the first write, so
   * opening a session another kernel drives (to read it) succeeds.
   *
   * @param sessionId The session's ULID.
   * @returns The open session.
   * @throws {SessionNotFoundError} When there is no such session.
   */
  async open(sessionId: string): Promise<SessionLog> {
    if (!isUlid(sessionId)) {
      throw new RangeError(
        `Cannot use session id ${
          JSON.stringify(sessionId)
        }: it is not a canonical ULID`,
      );
    }
    const open = this.#cores.get(sessionId);
    if (open && !open.closed) return open.acquire();
    let opening = this.#opening.get(sessionId);
    if (!opening) {
      opening = (async () => {
        const s = await this.#connect();
        const [row] = await s.sql`SELECT chain_scheme, key_id FROM sessions
          WHERE session_id = ${sessionId}`;
        if (!row) throw new SessionNotFoundError(sessionId, this.#where);
        return this.#core(
          s,
          new PostgresBackend(s, sessionId, row.chain_scheme, row.key_id),
        );
      })().finally(() => this.#opening.delete(sessionId));
      this.#opening.set(sessionId, opening);
    }
    return (await opening).acquire();
  }

  /**
   * Copies a finished or interrupted session from another store, event by
   * event with its ids, timestamps, companion rows and hashes, in one
   * transaction; the session arrives without a lease. The chain is
   * recomputed here with the installation key and must end at `head` (the
   * source's verified head), so only a session whose chain verified at the
   * source, and was copied faithfully, is written.
   *
   * @param record The source's record.
   * @param events Its events in sequence order, with their cost and plan rows.
   * @param head The hex head the source's verification reported.
   * @returns The number of events copied.
   * @throws {SessionExistsError} When the id is already here.
   * @throws {Error} When the recomputed chain does not end at `head`.
   */
  async importSession(
    record: SessionRecord,
    events: readonly Omit<StoredHashedEvent, "hash">[],
    head: string,
  ): Promise<number> {
    const s = await this.#connect();
    const id = record.sessionId;
    const hasher = chainHasher(id, "hmac-sha256", s.key.bytes);
    let prev = hasher.genesis;
    const hashed = events.map((e, i) => {
      if (e.sequence !== i + 1) {
        throw new Error(
          `Cannot copy session "${id}": event ${
            i + 1
          } is missing from the source`,
        );
      }
      prev = hasher.next(prev, e);
      return { ...e, hash: prev };
    });
    const hex = [...prev].map((b) => b.toString(16).padStart(2, "0")).join("");
    if (hex !== head) {
      throw new Error(
        `Cannot copy session "${id}": its chain recomputed with this installation key ends at ${hex}, not at the verified head ${head}`,
      );
    }
    const last = events.length;
    const headText = new TextDecoder().decode(encodeHead(s.key, {
      sessionId: id,
      scheme: "hmac-sha256",
      sequence: last,
      hash: prev,
    }));
    const costs = hashed.flatMap((e) =>
      (e.cost ?? []).map((c) => [
        id,
        e.sequence,
        c.providerName,
        c.modelId,
        Number(c.inputTokens),
        Number(c.outputTokens),
        Number(c.cacheWriteTokens ?? 0),
        Number(c.cacheReadTokens ?? 0),
        c.costUsd,
      ])
    );
    const plans = hashed.flatMap((e) =>
      (e.planItems ?? []).map((p) => [
        id,
        e.sequence,
        p.turnId,
        p.toolCallId,
        p.providerName,
        p.toolName,
        p.decision,
        p.decidedBy,
      ])
    );
    const producers = new Map<string, unknown[]>();
    for (const e of hashed) {
      const k = `${e.producerCategory}/${e.producerName}@${e.producerVersion}`;
      if (!producers.has(k)) {
        producers.set(k, [
          id,
          e.producerCategory,
          e.producerName,
          e.producerVersion,
          e.sequence,
        ]);
      }
    }
    const costUsd = costs.reduce((t, c) => t + (c[8] as number), 0);
    await s.sql.begin(async (tx) => {
      const inserted = await tx`INSERT INTO sessions (session_id,
          parent_session_id, profile, status, depth, started_at, ended_at,
          chain_scheme, key_id, last_sequence, head, cost_usd, cost_rows)
        VALUES (${id}, ${record.parentSessionId ?? null}, ${record.profile},
          ${SESSION_STATUS_TEXT[record.status]}, ${record.depth},
          ${record.startedAt}, ${record.endedAt ?? null}, 'hmac-sha256',
          ${s.key.id}, ${last}, ${headText}, ${costUsd}, ${costs.length})
        ON CONFLICT (session_id) DO NOTHING`;
      if (inserted.count === 0) throw new SessionExistsError(id);
      for (let i = 0; i < hashed.length; i += 1000) {
        const rows = hashed.slice(i, i + 1000).map((e) => [
          id,
          e.sequence,
          e.id,
          e.timestamp,
          e.kind,
          e.producerCategory,
          e.producerName,
          e.producerVersion,
          e.schemaVersion,
          e.payload,
          e.hash,
        ]);
        await tx`INSERT INTO events (session_id, sequence, id, timestamp,
          kind, producer_category, producer_name, producer_version,
          schema_version, payload, hash) VALUES ${tx(rows as never)}`;
      }
      await Promise.all(
        insertSideRows(tx, costs, plans, [...producers.values()], false),
      );
    });
    return last;
  }

  /**
   * Lists sessions, most recently started first (ULIDs sort by time).
   *
   * @param options Filters.
   * @returns The sessions (a row is never unreadable here).
   */
  async list(options: ListSessionsOptions = {}): Promise<ListSessionsResult> {
    const s = await this.#connect();
    const sql = s.sql;
    const status = options.status === undefined
      ? null
      : SESSION_STATUS_TEXT[options.status];
    const limit = options.limit ?? null;
    const rows = await sql`SELECT session_id, parent_session_id, profile,
        status, depth, started_at, ended_at, cost_usd, cost_rows,
        lease_token, lease_owner, lease_expires_at < now() AS lease_expired
      FROM sessions
      WHERE (${status}::text IS NULL OR status = ${status})
        AND (${options.parentSessionId ?? null}::text IS NULL
          OR parent_session_id = ${options.parentSessionId ?? null})
        AND (${options.rootsOnly === true} = false
          OR parent_session_id IS NULL)
      ORDER BY session_id DESC
      LIMIT ${limit}`;
    return { sessions: rows.map(ownedRecord), unreadable: [] };
  }

  /**
   * Verifies a session's hash chain (no lease needed).
   *
   * @param sessionId The session's ULID.
   * @returns `ok`, or the first bad sequence and why.
   */
  async verify(sessionId: string): Promise<VerifyResult> {
    if (!isUlid(sessionId)) {
      throw new RangeError(
        `Cannot use session id ${
          JSON.stringify(sessionId)
        }: it is not a canonical ULID`,
      );
    }
    const open = this.#cores.get(sessionId);
    if (open) await open.drain();
    return await verifySession(await this.#connect(), sessionId);
  }

  /** Drains every open session, releases their leases, closes the pool. */
  async close(): Promise<void> {
    await Promise.all([...this.#cores.values()].map((c) => c.shutdown()));
    if (this.#closed) return;
    await this.#bridge?.close();
    this.#bridge = undefined;
    this.#closed = true;
    const shared = this.#shared;
    this.#shared = undefined;
    if (shared) {
      const s = await shared.catch(() => undefined);
      await s?.sql.end({ timeout: 5 });
    }
  }

  /** Same as {@linkcode PostgresSessionStore.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * Inserts an append's rows of the side tables (cost ledger, plan items,
 * producers) in one statement per table.
 *
 * @param tx The transaction.
 * @param costs `cost_ledger` rows.
 * @param plans `plan_items` rows.
 * @param producers `producers` rows.
 * @param seenProducers Whether a producer may already be recorded (an
 * append to a live session) rather than new (a pushed session).
 */
function insertSideRows(
  tx: TransactionSql,
  costs: unknown[][],
  plans: unknown[][],
  producers: unknown[][],
  seenProducers: boolean,
): Promise<unknown>[] {
  // Sent in this order when awaited together (pipelined).
  const writes: Promise<unknown>[] = [];
  if (costs.length > 0) {
    writes.push(tx`INSERT INTO cost_ledger (session_id, event_sequence,
      provider_name, model_id, input_tokens, output_tokens,
      cache_write_tokens, cache_read_tokens, cost_usd) VALUES ${
      tx(costs as never)
    }`);
  }
  if (plans.length > 0) {
    writes.push(tx`INSERT INTO plan_items (session_id, event_sequence, turn_id,
      tool_call_id, provider_name, tool_name, decision, decided_by)
      VALUES ${tx(plans as never)}`);
  }
  if (producers.length > 0 && seenProducers) {
    writes.push(tx`INSERT INTO producers (session_id, category, name, version,
      first_seen_sequence) VALUES ${tx(producers as never)}
      ON CONFLICT DO NOTHING`);
  } else if (producers.length > 0) {
    writes.push(tx`INSERT INTO producers (session_id, category, name, version,
      first_seen_sequence) VALUES ${tx(producers as never)}`);
  }
  return writes;
}
