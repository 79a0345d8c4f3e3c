/**
 * An in-memory {@linkcode SessionStore} for unit tests of code that depends
 * on the store. It shares the write queue, validation, bus republish and
 * hash chain with {@linkcode SqliteSessionStore} and passes the same
 * contract suite; it only keeps the rows in memory (nothing survives the
 * process, and there are no files to migrate, check or salvage).
 *
 * @example Usage
 * ```ts
 * import { EventBus, MemorySessionStore } from "@ph/agent/kernel";
 * import { EventKind } from "@ph/agent/proto/kernel";
 * import assert from "node:assert/strict";
 *
 * const bus = new EventBus();
 * const live = bus.subscribe(["kernel.event.*"]);
 * await using store = new MemorySessionStore({ bus });
 * const session = await store.create({ profile: "test" });
 * await session.emit({
 *   kind: EventKind.MEMORY_WRITE,
 *   producer: { category: "memory", name: "notes", version: "0.1.0" },
 *   schemaVersion: "1",
 *   payload: new Uint8Array(),
 * });
 * const { value } = await live.next();
 * assert.equal(value?.topic, "kernel.event.memory_write");
 * assert.equal(value?.sequence, 1n);
 * live.close();
 * ```
 *
 * @module
 */
import { SessionStatus } from "../../proto/gen/pluggableharness/session/v1/types_pb.ts";
import { type ChainHasher, chainHasher, verifyChain } from "./hash_chain.ts";
import { type HeadWriter, MemoryHeadStore } from "./_chain_head.ts";
import {
  type InstallationKey,
  installationKeyFromBytes,
} from "./installation_key.ts";
import { eventKindInfo, tryEventKindFromText } from "./event_kinds.ts";
import {
  canChangeStatus,
  type CostLedgerRecord,
  type CreateSessionOptions,
  type EventRecord,
  type ListSessionsOptions,
  type ListSessionsResult,
  type PlanItemRecord,
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
  SessionExistsError,
  SessionNotFoundError,
} from "./errors.ts";
import {
  checkHeadBeforeAppend,
  type CostRow,
  emitOpHash,
  producerKey,
  type SessionBackend,
  SessionCore,
  type WriteOp,
  type WriteOutcome,
} from "./_session_log.ts";
import { isUlid } from "./ulid.ts";
import { checkCreateOptions } from "./_create_options.ts";
import { currentOwner, isOwnerGone, withOwners } from "./_owner.ts";

interface StoredEvent extends EventRecord {
  readonly hash: Uint8Array;
  readonly cost: readonly CostRow[];
  readonly planItems: PlanItemRecord[];
}

interface SessionData {
  meta: {
    sessionId: string;
    parentSessionId?: string;
    profile: string;
    status: SessionStatus;
    depth: number;
    startedAt: string;
    endedAt?: string;
  };
  events: StoredEvent[];
  ids: Set<string>;
  ledger: CostLedgerRecord[];
  plan: PlanItemRecord[];
  producers: ProducerRecord[];
  producerKeys: Set<string>;
  hasher: ChainHasher;
  owners: SessionOwner[];
}

class MemoryBackend implements SessionBackend {
  readonly sessionId: string;
  readonly #d: SessionData;
  readonly #key: InstallationKey;
  readonly #heads: MemoryHeadStore;
  readonly #writer: HeadWriter;
  #headChecked = false;

  constructor(data: SessionData, key: InstallationKey, heads: MemoryHeadStore) {
    this.#d = data;
    this.sessionId = data.meta.sessionId;
    this.#key = key;
    this.#heads = heads;
    this.#writer = heads.writer(this.sessionId);
  }

  /** Writes the head of the last event (the genesis when there is none). */
  writeHead(): void {
    const d = this.#d;
    this.#writer.write({
      sessionId: this.sessionId,
      scheme: d.hasher.scheme,
      sequence: d.events.length,
      hash: d.events.at(-1)?.hash ?? d.hasher.genesis,
    });
  }

  commit(ops: readonly WriteOp[]): WriteOutcome[] {
    const d = this.#d;
    if (!this.#headChecked) {
      try {
        checkHeadBeforeAppend(
          this.sessionId,
          d.hasher.scheme,
          this.#heads.read(this.sessionId),
          d.events.length,
          (seq) => seq === 0 ? d.hasher.genesis : d.events[seq - 1]?.hash,
        );
      } catch (error) {
        return ops.map(() => ({ ok: false, error: error as Error }));
      }
      this.#headChecked = true;
    }
    const outcomes = this.#apply(ops);
    if (outcomes.some((o) => o.ok && o.sequence > 0)) this.writeHead();
    return outcomes;
  }

  #apply(ops: readonly WriteOp[]): WriteOutcome[] {
    const d = this.#d;
    return ops.map((op): WriteOutcome => {
      if (op.type === "status") {
        const from = d.meta.status;
        if (!canChangeStatus(from, op.status)) {
          return {
            ok: false,
            error: new InvalidStatusTransitionError(
              this.sessionId,
              SESSION_STATUS_TEXT[from],
              SESSION_STATUS_TEXT[op.status],
            ),
          };
        }
        d.meta.status = op.status;
        if (op.status === SessionStatus.RUNNING) delete d.meta.endedAt;
        else d.meta.endedAt = op.at;
        return { ok: true, sequence: 0 };
      }
      if (d.ids.has(op.id)) {
        return {
          ok: false,
          error: new DuplicateEventIdError(this.sessionId, op.id),
        };
      }
      const sequence = d.events.length + 1;
      const prev = d.events.at(-1)?.hash ?? d.hasher.genesis;
      const p = op.producer;
      const hash = emitOpHash(d.hasher, prev, sequence, op);
      const planItems = op.planItems.map((i) => {
        const row = {
          ...i,
          sequence: d.plan.length + 1,
          eventSequence: sequence,
        };
        d.plan.push(row);
        return row;
      });
      for (const c of op.cost) {
        d.ledger.push({
          ...c,
          sequence: d.ledger.length + 1,
          eventSequence: sequence,
        });
      }
      d.events.push({
        sequence,
        id: op.id,
        timestamp: op.timestamp,
        kind: op.info.kind,
        producer: p,
        schemaVersion: op.schemaVersion,
        payload: op.payload,
        hash,
        cost: op.cost,
        planItems,
      });
      d.ids.add(op.id);
      const key = producerKey(p);
      if (!d.producerKeys.has(key)) {
        d.producerKeys.add(key);
        d.producers.push({ ...p, firstSeenSequence: sequence });
      }
      return { ok: true, sequence };
    });
  }

  readPage(
    kinds: readonly string[] | undefined,
    after: number,
    limit: number,
  ): EventRecord[] {
    const wanted = kinds
      ? new Set(kinds.map((k) => tryEventKindFromText(k)))
      : undefined;
    const out: EventRecord[] = [];
    for (let i = Math.max(0, after); i < this.#d.events.length; i++) {
      if (out.length >= limit) break;
      const e = this.#d.events[i];
      if (wanted && !wanted.has(e.kind)) continue;
      out.push({
        sequence: e.sequence,
        id: e.id,
        timestamp: e.timestamp,
        kind: e.kind,
        producer: e.producer,
        schemaVersion: e.schemaVersion,
        payload: e.payload,
      });
    }
    return out;
  }

  info(): SessionRecord {
    const m = this.#d.meta;
    const usd = this.costUsd();
    return {
      ...m,
      ...(this.#d.ledger.length > 0 && usd !== 0 ? { costUsd: usd } : {}),
    };
  }

  owners(): SessionOwner[] {
    return [...this.#d.owners];
  }

  costUsd(): number {
    let sum = 0;
    for (const r of this.#d.ledger) sum += r.costUsd;
    return sum;
  }

  costLedger(): CostLedgerRecord[] {
    return this.#d.ledger.map((r) => ({ ...r }));
  }

  planItems(): PlanItemRecord[] {
    return this.#d.plan.map((r) => ({ ...r }));
  }

  producers(): ProducerRecord[] {
    return this.#d.producers.map((r) => ({ ...r }));
  }

  verify(): VerifyResult {
    const { head, problem } = this.#heads.read(this.sessionId);
    return verifyChain(
      this.sessionId,
      this.#d.events.map((e) => ({
        sequence: e.sequence,
        id: e.id,
        timestamp: e.timestamp,
        kind: eventKindInfo(e.kind).text,
        producerCategory: e.producer.category,
        producerName: e.producer.name,
        producerVersion: e.producer.version,
        schemaVersion: e.schemaVersion,
        payload: e.payload,
        cost: e.cost,
        planItems: e.planItems,
        hash: e.hash,
      })),
      {
        scheme: this.#d.hasher.scheme,
        key: this.#key,
        head,
        ...(problem !== undefined ? { headProblem: problem } : {}),
      },
    );
  }

  close(): void {}
}

/** Options of {@linkcode MemorySessionStore}. */
export interface MemorySessionStoreOptions extends SessionStoreOptions {
  /**
   * The key of the chain and the heads.
   * @default {32 random bytes, kept by this store only}
   */
  readonly key?: InstallationKey;
}

/** An in-memory session store for tests. */
export class MemorySessionStore implements SessionStore {
  readonly #options: SessionStoreOptions;
  readonly #key: InstallationKey;
  readonly #heads: MemoryHeadStore;
  readonly #now: () => Date;
  readonly #owner: SessionOwner;
  readonly #data = new Map<string, SessionData>();
  readonly #cores = new Map<string, SessionCore>();

  /**
   * Creates an empty store.
   *
   * @param options Bus, clock, batch size and key.
   */
  constructor(options: MemorySessionStoreOptions = {}) {
    this.#options = options;
    this.#key = options.key ??
      installationKeyFromBytes(crypto.getRandomValues(new Uint8Array(32)));
    this.#heads = new MemoryHeadStore(this.#key);
    this.#now = options.now ?? (() => new Date());
    this.#owner = options.owner ?? currentOwner();
  }

  #acquire(id: string): SessionLog {
    let core = this.#cores.get(id);
    if (!core) {
      const data = this.#data.get(id);
      if (!data) throw new SessionNotFoundError(id, "this memory store");
      // The owner is recorded while the writer is open, as the SQLite
      // store does (the rows of owners known to be gone are dropped).
      data.owners = data.owners.filter((o) => !isOwnerGone(o));
      const owner = this.#owner;
      data.owners.push(owner);
      core = new SessionCore(new MemoryBackend(data, this.#key, this.#heads), {
        bus: this.#options.bus,
        now: this.#now,
        maxBatchSize: this.#options.maxBatchSize,
        onClosed: () => {
          this.#cores.delete(id);
          const i = data.owners.indexOf(owner);
          if (i >= 0) data.owners.splice(i, 1);
        },
      });
      this.#cores.set(id, core);
    }
    return core.acquire();
  }

  /**
   * Creates a session in status `running` and opens it.
   *
   * @param options Profile, parent, depth and optional id.
   * @returns The open session.
   */
  create(options: CreateSessionOptions): Promise<SessionLog> {
    return Promise.resolve().then(() => {
      const now = this.#now();
      const { sessionId: id, parent, depth } = checkCreateOptions(
        options,
        now,
      );
      if (this.#data.has(id)) throw new SessionExistsError(id);
      this.#data.set(id, {
        meta: {
          sessionId: id,
          ...(parent !== undefined ? { parentSessionId: parent } : {}),
          profile: options.profile,
          status: SessionStatus.RUNNING,
          depth,
          startedAt: now.toISOString(),
        },
        events: [],
        ids: new Set(),
        ledger: [],
        plan: [],
        producers: [],
        producerKeys: new Set(),
        hasher: chainHasher(id, "hmac-sha256", this.#key.bytes),
        owners: [],
      });
      new MemoryBackend(this.#data.get(id)!, this.#key, this.#heads)
        .writeHead();
      return this.#acquire(id);
    });
  }

  /**
   * Opens an existing session.
   *
   * @param sessionId The session's ULID.
   * @returns The open session.
   */
  open(sessionId: string): Promise<SessionLog> {
    return Promise.resolve().then(() => {
      if (!isUlid(sessionId)) {
        throw new RangeError(
          `Cannot use session id ${
            JSON.stringify(sessionId)
          }: it is not a canonical ULID`,
        );
      }
      return this.#acquire(sessionId);
    });
  }

  /**
   * Lists sessions, most recently started first.
   *
   * @param options Filters.
   * @returns The sessions (nothing is ever unreadable here).
   */
  list(options: ListSessionsOptions = {}): Promise<ListSessionsResult> {
    const ids = [...this.#data.keys()].sort().reverse();
    const sessions: SessionRecord[] = [];
    for (const id of ids) {
      if (sessions.length >= (options.limit ?? Infinity)) break;
      const b = new MemoryBackend(this.#data.get(id)!, this.#key, this.#heads);
      const info = b.info();
      const r = withOwners(
        info,
        b.owners(),
        info.status === SessionStatus.RUNNING,
      );
      if (options.status !== undefined && r.status !== options.status) continue;
      if (
        options.parentSessionId !== undefined &&
        r.parentSessionId !== options.parentSessionId
      ) continue;
      if (options.rootsOnly && r.parentSessionId !== undefined) continue;
      sessions.push(r);
    }
    return Promise.resolve({ sessions, unreadable: [] });
  }

  /**
   * Verifies a session's hash chain.
   *
   * @param sessionId The session's ULID.
   * @returns `ok`, or the first bad sequence and why.
   */
  async verify(sessionId: string): Promise<VerifyResult> {
    await using s = await this.open(sessionId);
    return await s.verify();
  }

  /** Drains and closes every open session. */
  async close(): Promise<void> {
    await Promise.all([...this.#cores.values()].map((c) => c.shutdown()));
  }

  /** Same as {@linkcode MemorySessionStore.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
