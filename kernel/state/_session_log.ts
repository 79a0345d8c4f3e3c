/**
 * The part of a session log that both stores share: input validation, the
 * per-session write queue with group commit, the republish on the bus after
 * commit, and handle reference counting. A store supplies a
 * {@linkcode SessionBackend} that commits a batch atomically and reads.
 *
 * @module
 */
import { getLogger } from "@logtape/logtape";
import { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import { SessionStatus } from "../../proto/gen/pluggableharness/session/v1/types_pb.ts";
import { CATEGORY_NAMES } from "../../contract/manifest.ts";
import type { EventBus } from "../bus/event_bus.ts";
import { type EventKindInfo, eventKindInfo } from "./event_kinds.ts";
import {
  type ChainScheme,
  type CostLedgerEntry,
  type CostLedgerRecord,
  type EmitInput,
  type EmitOptions,
  type EmittedEvent,
  type EventRecord,
  KERNEL_PRODUCER,
  type PlanItemDecision,
  type PlanItemEntry,
  type PlanItemRecord,
  type Producer,
  type ProducerRecord,
  type ReadEventsOptions,
  type RecoveryReport,
  SESSION_STATUS_TEXT,
  type SessionLog,
  type SessionOwner,
  type SessionRecord,
  type VerifyResult,
} from "./session_store.ts";
import {
  ReservedProducerError,
  SessionClosedError,
  StorageError,
} from "./errors.ts";
import { createUlidGenerator } from "./ulid.ts";
import type { ChainHasher } from "./hash_chain.ts";
import type { HeadRead } from "./_chain_head.ts";

const log = getLogger(["ph-agent", "kernel", "state"]);

/** The default number of writes committed in one transaction. */
export const DEFAULT_MAX_BATCH_SIZE = 512;
/** Events fetched per read page. */
export const READ_PAGE_SIZE = 1000;

/** A normalized cost row (tokens as numbers). */
export interface CostRow {
  readonly providerName: string;
  readonly modelId: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheWriteTokens: number;
  readonly cacheReadTokens: number;
  readonly costUsd: number;
}

/**
 * Groups `cost_ledger` and `plan_items` rows (the column names both
 * backends share) by their event's sequence, in row order.
 *
 * @param costRows Cost ledger rows.
 * @param planRows Plan item rows.
 * @returns Each event's cost rows and plan items.
 */
export function groupCompanionRows(
  costRows: Iterable<Record<string, unknown>>,
  planRows: Iterable<Record<string, unknown>>,
): { cost: Map<number, CostRow[]>; plan: Map<number, PlanItemEntry[]> } {
  const cost = new Map<number, CostRow[]>();
  for (const r of costRows) {
    const k = Number(r.event_sequence);
    const list = cost.get(k) ?? [];
    list.push({
      providerName: String(r.provider_name),
      modelId: String(r.model_id),
      inputTokens: Number(r.input_tokens),
      outputTokens: Number(r.output_tokens),
      cacheWriteTokens: Number(r.cache_write_tokens),
      cacheReadTokens: Number(r.cache_read_tokens),
      costUsd: Number(r.cost_usd),
    });
    cost.set(k, list);
  }
  const plan = new Map<number, PlanItemEntry[]>();
  for (const r of planRows) {
    const k = Number(r.event_sequence);
    const list = plan.get(k) ?? [];
    list.push({
      turnId: String(r.turn_id),
      toolCallId: String(r.tool_call_id),
      providerName: String(r.provider_name),
      toolName: String(r.tool_name),
      decision: String(r.decision) as PlanItemDecision,
      decidedBy: String(r.decided_by),
    });
    plan.set(k, list);
  }
  return { cost, plan };
}

/** A validated emit with its kernel-assigned id and timestamp. */
export interface EmitOp {
  readonly type: "emit";
  readonly id: string;
  readonly timestamp: string;
  readonly info: EventKindInfo;
  readonly producer: Producer;
  readonly schemaVersion: string;
  readonly payload: Uint8Array;
  readonly cost: readonly CostRow[];
  readonly planItems: readonly PlanItemEntry[];
}

/**
 * The chained hash of an emit written at `sequence` after `prev` (one
 * place for both stores).
 */
export function emitOpHash(
  hasher: ChainHasher,
  prev: Uint8Array,
  sequence: number,
  op: EmitOp,
): Uint8Array {
  const p = op.producer;
  return hasher.next(prev, {
    sequence,
    id: op.id,
    timestamp: op.timestamp,
    kind: op.info.text,
    producerCategory: p.category,
    producerName: p.name,
    producerVersion: p.version,
    schemaVersion: op.schemaVersion,
    payload: op.payload,
    cost: op.cost,
    planItems: op.planItems,
  });
}

/**
 * Checks, before the first append after a session is opened, that the log
 * still agrees with the head kept outside it: the head's sequence is in the
 * log and its hash matches. A keyed session without a head, or with one
 * that fails its MAC, is refused too. Appending otherwise would write a
 * fresh head over a truncated or rewritten log and hide the tampering.
 *
 * @throws {Error} Naming what disagrees.
 */
export function checkHeadBeforeAppend(
  sessionId: string,
  scheme: ChainScheme,
  read: HeadRead,
  last: number,
  hashAt: (sequence: number) => Uint8Array | undefined,
): void {
  const refuse = (why: string) => {
    throw new Error(
      `Cannot append to session "${sessionId}": ${why}; run "agent sessions verify ${sessionId}"`,
    );
  };
  if (read.problem !== undefined) {
    refuse(`its chain head cannot be trusted (${read.problem})`);
  }
  const head = read.head;
  if (!head) {
    if (scheme !== "sha256" && last > 0) {
      refuse("its chain head is missing");
    }
    return;
  }
  if (head.scheme !== scheme) {
    refuse(`its head was written for a ${head.scheme} chain, not ${scheme}`);
  }
  if (head.sequence > last) {
    refuse(
      `its head records ${head.sequence} events but the log holds ${last}`,
    );
  }
  const h = hashAt(head.sequence);
  if (
    !h || h.length !== head.hash.length || h.some((b, i) => b !== head.hash[i])
  ) {
    refuse(`event ${head.sequence} does not match its head`);
  }
}

/** A status change. */
export interface StatusOp {
  readonly type: "status";
  readonly status: SessionStatus;
  readonly at: string;
}

/** One queued write. */
export type WriteOp = EmitOp | StatusOp;

/** The outcome of one write of a batch. */
export type WriteOutcome =
  | { readonly ok: true; readonly sequence: number }
  | { readonly ok: false; readonly error: Error };

/** A value, or a promise of it (a backend over the network answers later). */
export type MaybePromise<T> = T | Promise<T>;

/**
 * What a store implements per open session. The local backends answer
 * synchronously; a network backend (PostgreSQL) returns promises, and the
 * core awaits them, keeping one commit in flight per session.
 */
export interface SessionBackend {
  readonly sessionId: string;
  readonly recovery?: RecoveryReport;
  /**
   * Commits the writes in order, atomically per write: a write that fails
   * leaves nothing behind and does not fail the others. Sequences are
   * assigned here, in commit order.
   */
  commit(ops: readonly WriteOp[]): MaybePromise<WriteOutcome[]>;
  /** Up to `limit` events with `sequence > after` (and a kind in `kinds`). */
  readPage(
    kinds: readonly string[] | undefined,
    after: number,
    limit: number,
  ): MaybePromise<EventRecord[]>;
  info(): MaybePromise<SessionRecord>;
  /** The processes that have the session open for writing, oldest first. */
  owners(): MaybePromise<SessionOwner[]>;
  costUsd(): MaybePromise<number>;
  costLedger(): MaybePromise<CostLedgerRecord[]>;
  planItems(): MaybePromise<PlanItemRecord[]>;
  producers(): MaybePromise<ProducerRecord[]>;
  verify(): MaybePromise<VerifyResult>;
  close(): MaybePromise<void>;
}

const CATEGORIES = new Set<string>(CATEGORY_NAMES);
const DECISIONS = new Set<string>(["allow", "ask", "deny"]);

function nonEmpty(value: unknown, what: string): string {
  if (typeof value !== "string" || value === "") {
    throw new TypeError(
      `Cannot accept event: ${what} must be a non-empty string`,
    );
  }
  return value;
}

function tokens(value: unknown, what: string): number {
  const n = typeof value === "bigint" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) {
    throw new RangeError(
      `Cannot accept cost: ${what} must be a non-negative integer, got ${
        String(value)
      }`,
    );
  }
  return n;
}

function normalizeCost(c: CostLedgerEntry): CostRow {
  if (typeof c.costUsd !== "number" || !Number.isFinite(c.costUsd)) {
    throw new RangeError(
      `Cannot accept cost: costUsd must be a finite number, got ${c.costUsd}`,
    );
  }
  return {
    providerName: nonEmpty(c.providerName, "cost.providerName"),
    modelId: nonEmpty(c.modelId, "cost.modelId"),
    inputTokens: tokens(c.inputTokens, "inputTokens"),
    outputTokens: tokens(c.outputTokens, "outputTokens"),
    cacheWriteTokens: tokens(c.cacheWriteTokens ?? 0, "cacheWriteTokens"),
    cacheReadTokens: tokens(c.cacheReadTokens ?? 0, "cacheReadTokens"),
    costUsd: c.costUsd,
  };
}

function normalizePlanItem(p: PlanItemEntry): PlanItemEntry {
  if (!DECISIONS.has(p.decision)) {
    throw new RangeError(
      `Cannot accept plan item: decision must be allow, ask or deny (never pending), got ${
        JSON.stringify(p.decision)
      }`,
    );
  }
  return {
    turnId: nonEmpty(p.turnId, "planItem.turnId"),
    toolCallId: nonEmpty(p.toolCallId, "planItem.toolCallId"),
    providerName: nonEmpty(p.providerName, "planItem.providerName"),
    toolName: nonEmpty(p.toolName, "planItem.toolName"),
    decision: p.decision,
    decidedBy: nonEmpty(p.decidedBy, "planItem.decidedBy"),
  };
}

/**
 * Validates an emit, normalizes its companion rows and attaches the
 * kernel-assigned id and timestamp.
 */
export function validateEmit(
  input: EmitInput,
  id: string,
  timestamp: string,
): EmitOp {
  const info = eventKindInfo(input.kind, "Emit");
  const p = input.producer;
  if (!p || typeof p !== "object") {
    throw new TypeError("Cannot accept event: a producer is required");
  }
  if (p.category === "kernel") {
    if (
      p.name !== KERNEL_PRODUCER.name || p.version !== KERNEL_PRODUCER.version
    ) {
      throw new ReservedProducerError(
        `the kernel category is reserved to the producer kernel/kernel@1, got kernel/${p.name}@${p.version}`,
      );
    }
    if (
      info.kind !== EventKind.PLAN && info.kind !== EventKind.APPLY &&
      info.kind !== EventKind.CONTROL
    ) {
      throw new ReservedProducerError(
        `the reserved kernel producer writes plan, apply and control events only, not ${info.text}`,
      );
    }
  } else if (!CATEGORIES.has(p.category)) {
    throw new TypeError(
      `Cannot accept event: producer category ${
        JSON.stringify(p.category)
      } is not one of ${CATEGORY_NAMES.join(", ")}`,
    );
  }
  const producer: Producer = {
    category: p.category,
    name: nonEmpty(p.name, "producer.name"),
    version: nonEmpty(p.version, "producer.version"),
  };
  const schemaVersion = nonEmpty(input.schemaVersion, "schemaVersion");
  if (!(input.payload instanceof Uint8Array)) {
    throw new TypeError("Cannot accept event: payload must be a Uint8Array");
  }
  nonEmpty(id, "id");
  if (input.cost !== undefined && info.kind !== EventKind.MESSAGE) {
    throw new TypeError(
      `Cannot accept event: only message events carry a cost, not ${info.text}`,
    );
  }
  if (info.kind === EventKind.PLAN) {
    if (!Array.isArray(input.planItems)) {
      throw new TypeError(
        "Cannot accept event: a plan event needs its planItems (an empty list for an empty plan)",
      );
    }
  } else if (input.planItems !== undefined) {
    throw new TypeError(
      `Cannot accept event: only plan events carry plan items, not ${info.text}`,
    );
  }
  return {
    type: "emit",
    id,
    timestamp,
    info,
    producer,
    schemaVersion,
    payload: input.payload,
    cost: input.cost ? [normalizeCost(input.cost)] : [],
    planItems: (input.planItems ?? []).map(normalizePlanItem),
  };
}

interface Pending {
  op: WriteOp;
  /** Emits resolve with an {@linkcode EmittedEvent}, status changes with 0. */
  resolve: (value: EmittedEvent | number) => void;
  reject: (error: unknown) => void;
}

/** Options of {@linkcode SessionCore}. */
export interface SessionCoreOptions {
  bus?: EventBus;
  now?: () => Date;
  maxBatchSize?: number;
  /** Called once when the last handle closes. */
  onClosed?: () => void;
  /**
   * The most writes queued (not yet committed) before further writes wait
   * for room, in order: the session pauses, nothing is dropped. Unbounded
   * when unset (the local stores commit as fast as they are fed).
   */
  maxQueued?: number;
}

/**
 * One open session's writer: the sole write queue, shared by every handle
 * on the session.
 */
export class SessionCore<B extends SessionBackend = SessionBackend> {
  readonly backend: B;
  readonly #bus: EventBus | undefined;
  readonly #now: () => Date;
  readonly #maxBatch: number;
  readonly #onClosed: (() => void) | undefined;
  readonly #nextId = createUlidGenerator();
  #queue: Pending[] = [];
  #head = 0;
  #scheduled = false;
  /** The timer that commits deferred emits nothing else has committed. */
  #deferred: ReturnType<typeof setTimeout> | undefined;
  #idle: PromiseWithResolvers<void> | undefined;
  #refs = 0;
  #closed = false;
  readonly #maxQueued: number;
  /** Writes waiting for room in the queue (only with `maxQueued`). */
  #waiting: Pending[] = [];

  constructor(backend: B, options: SessionCoreOptions = {}) {
    this.backend = backend;
    this.#bus = options.bus;
    this.#now = options.now ?? (() => new Date());
    this.#maxBatch = Math.max(
      1,
      options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE,
    );
    this.#onClosed = options.onClosed;
    this.#maxQueued = options.maxQueued ?? Infinity;
  }

  /** Writes queued or waiting for room, not yet committed. */
  get pending(): number {
    return this.#queue.length - this.#head + this.#waiting.length;
  }

  get sessionId(): string {
    return this.backend.sessionId;
  }

  /** Hands out a new handle. */
  acquire(): SessionLog {
    if (this.#closed) throw new SessionClosedError(this.sessionId);
    this.#refs++;
    return new SessionHandle(this);
  }

  /** Releases one handle; the last one drains the queue and closes. */
  async release(): Promise<void> {
    if (--this.#refs > 0) return;
    await this.drain();
    if (this.#refs > 0 || this.#closed) return;
    this.#closed = true;
    try {
      await this.backend.close();
    } finally {
      this.#onClosed?.();
    }
  }

  /** Whether the writer is closed. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Drains the queue and closes the writer whatever handles remain. */
  async shutdown(): Promise<void> {
    await this.drain();
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.backend.close();
    } finally {
      this.#onClosed?.();
    }
  }

  /** Resolves once the queue is empty. */
  drain(): Promise<void> {
    if (!this.#scheduled) {
      if (this.#queue.length === this.#head) return Promise.resolve();
      this.#start(); // deferred emits only: commit them now
    }
    this.#idle ??= Promise.withResolvers<void>();
    return this.#idle.promise;
  }

  /**
   * Queues an emit; resolves after its commit and republish. A deferred
   * one waits for the next write that starts a commit, or a macrotask.
   */
  emit(input: EmitInput, options?: EmitOptions): Promise<EmittedEvent> {
    let op: EmitOp;
    try {
      const now = this.#now();
      op = validateEmit(
        input,
        input.id ?? this.#nextId(now.getTime()),
        now.toISOString(),
      );
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#enqueue(op, options?.defer === true) as Promise<
      EmittedEvent
    >;
  }

  /** Queues a status change; resolves with the updated record. */
  async setStatus(status: SessionStatus): Promise<SessionRecord> {
    if (
      !(status in SESSION_STATUS_TEXT) || status === SessionStatus.UNSPECIFIED
    ) {
      throw new RangeError(
        `Cannot set session status: ${status} is not a valid status`,
      );
    }
    await this.#enqueue({
      type: "status",
      status,
      at: this.#now().toISOString(),
    });
    return await this.backend.info();
  }

  /** Streams events by sequence, page by page. */
  readEvents(options: ReadEventsOptions): AsyncIterableIterator<EventRecord> {
    const kinds = options.kinds?.map((k) =>
      eventKindInfo(k, "ReadEvents filter").text
    );
    const from = options.fromSequence ?? 1;
    if (!Number.isSafeInteger(from)) {
      throw new RangeError(
        `Cannot read events: fromSequence must be an integer, got ${from}`,
      );
    }
    const limit = options.limit ?? Infinity;
    if (!(limit >= 0)) {
      throw new RangeError(
        `Cannot read events: limit must not be negative, got ${limit}`,
      );
    }
    return this.#pages(
      kinds && kinds.length > 0 ? kinds : undefined,
      Math.max(0, from - 1),
      limit,
    );
  }

  async *#pages(
    kinds: readonly string[] | undefined,
    after: number,
    limit: number,
  ): AsyncGenerator<EventRecord> {
    let remaining = limit;
    let cursor = after;
    while (remaining > 0) {
      const page = await this.backend.readPage(
        kinds,
        cursor,
        Math.min(READ_PAGE_SIZE, remaining),
      );
      for (const e of page) yield e;
      if (page.length < Math.min(READ_PAGE_SIZE, remaining)) return;
      remaining -= page.length;
      cursor = page[page.length - 1].sequence;
    }
  }

  #enqueue(op: WriteOp, defer = false): Promise<EmittedEvent | number> {
    if (this.#closed) {
      return Promise.reject(new SessionClosedError(this.sessionId));
    }
    const { promise, resolve, reject } = Promise.withResolvers<
      EmittedEvent | number
    >();
    const pending = { op, resolve, reject };
    if (
      this.#waiting.length > 0 ||
      this.#queue.length - this.#head >= this.#maxQueued
    ) {
      // Paused: the write waits for room, behind those already waiting.
      this.#waiting.push(pending);
      return promise;
    }
    this.#queue.push(pending);
    if (!defer) this.#start();
    else if (!this.#scheduled) {
      // Committed with the next write that starts a commit, else by this
      // timer; a commit that starts first clears it.
      this.#deferred ??= setTimeout(() => {
        this.#deferred = undefined;
        if (this.#queue.length > this.#head) this.#start();
      }, 0);
    }
    return promise;
  }

  /** Schedules a commit of the queue, unless one is scheduled or running. */
  #start(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => this.#flush());
  }

  /**
   * Commits one batch (everything queued, up to the batch size). When more
   * is queued, the next batch waits for a macrotask, so the consumers of
   * the events just republished get to drain their bus queues in between
   * (one synchronous run of many batches would overflow every bounded
   * subscriber).
   */
  #flush(): void {
    if (this.#deferred !== undefined) {
      clearTimeout(this.#deferred);
      this.#deferred = undefined;
    }
    const queued = this.#queue;
    const end = Math.min(queued.length, this.#head + this.#maxBatch);
    const batch = queued.slice(this.#head, end);
    this.#head = end;
    if (end === queued.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (end >= 4096) {
      // Under sustained load the queue may never empty: drop what was
      // committed so it does not pin payloads.
      this.#queue = queued.slice(end);
      this.#head = 0;
    }
    let result: MaybePromise<WriteOutcome[]>;
    try {
      result = this.backend.commit(batch.map((p) => p.op));
    } catch (cause) {
      result = this.#failed(batch.length, cause);
    }
    if (result instanceof Promise) {
      // A network backend: the queue keeps filling while this commits, and
      // the next batch starts when it is done (one commit in flight).
      result.then(
        (outcomes) => this.#settle(batch, outcomes),
        (cause) => this.#settle(batch, this.#failed(batch.length, cause)),
      );
      return;
    }
    this.#settle(batch, result);
  }

  #failed(n: number, cause: unknown): WriteOutcome[] {
    const error = new StorageError(
      this.sessionId,
      `commit ${n} writes`,
      { cause },
    );
    return Array.from({ length: n }, () => ({ ok: false, error }));
  }

  #settle(batch: readonly Pending[], outcomes: WriteOutcome[]): void {
    // Strictly after the commit: republish, then acknowledge.
    for (let i = 0; i < batch.length; i++) {
      const o = outcomes[i];
      const op = batch[i].op;
      if (o.ok && op.type === "emit") this.#republish(op, o.sequence);
    }
    for (let i = 0; i < batch.length; i++) {
      const o = outcomes[i];
      const { op, resolve, reject } = batch[i];
      if (!o.ok) reject(o.error);
      else if (op.type === "emit") {
        resolve({ id: op.id, sequence: o.sequence, timestamp: op.timestamp });
      } else resolve(o.sequence);
    }
    while (
      this.#waiting.length > 0 &&
      this.#queue.length - this.#head < this.#maxQueued
    ) {
      this.#queue.push(this.#waiting.shift()!);
    }
    if (this.#queue.length > this.#head) {
      setTimeout(() => this.#flush(), 0);
      return;
    }
    this.#scheduled = false;
    const idle = this.#idle;
    this.#idle = undefined;
    idle?.resolve();
  }

  #republish(op: EmitOp, sequence: number): void {
    if (!this.#bus) return;
    try {
      this.#bus.publishKernel(op.info.topic, {
        payload: op.payload,
        payloadType: op.info.payloadType,
        schemaVersion: op.schemaVersion,
        sequence: BigInt(sequence),
        sessionId: this.sessionId,
      });
    } catch (error) {
      log.warn(
        "Could not republish event {sequence} of session {session} on {topic}; the event is stored: {error}",
        { sequence, session: this.sessionId, topic: op.info.topic, error },
      );
    }
  }
}

/** One handle on a {@linkcode SessionCore}; closing it is idempotent. */
class SessionHandle implements SessionLog {
  readonly #core: SessionCore;
  #closed = false;
  #closing: Promise<void> | undefined;

  constructor(core: SessionCore) {
    this.#core = core;
  }

  get sessionId(): string {
    return this.#core.sessionId;
  }

  get recovery(): RecoveryReport | undefined {
    return this.#core.backend.recovery;
  }

  #check(): void {
    if (this.#closed || this.#core.closed) {
      throw new SessionClosedError(this.sessionId);
    }
  }

  emit(input: EmitInput, options?: EmitOptions): Promise<EmittedEvent> {
    if (this.#closed) {
      return Promise.reject(new SessionClosedError(this.sessionId));
    }
    return this.#core.emit(input, options);
  }

  readEvents(
    options: ReadEventsOptions = {},
  ): AsyncIterableIterator<EventRecord> {
    this.#check();
    return this.#core.readEvents(options);
  }

  async info(): Promise<SessionRecord> {
    this.#check();
    return await this.#core.backend.info();
  }

  async setStatus(status: SessionStatus): Promise<SessionRecord> {
    this.#check();
    return await this.#core.setStatus(status);
  }

  async costUsd(): Promise<number> {
    this.#check();
    return await this.#core.backend.costUsd();
  }

  async costLedger(): Promise<CostLedgerRecord[]> {
    this.#check();
    return await this.#core.backend.costLedger();
  }

  async planItems(): Promise<PlanItemRecord[]> {
    this.#check();
    return await this.#core.backend.planItems();
  }

  async producers(): Promise<ProducerRecord[]> {
    this.#check();
    return await this.#core.backend.producers();
  }

  async missingProducers(
    installed: Iterable<Producer>,
  ): Promise<ProducerRecord[]> {
    this.#check();
    const have = new Set<string>();
    for (const p of installed) have.add(producerKey(p));
    return (await this.#core.backend.producers()).filter((p) =>
      p.category !== "kernel" && !have.has(producerKey(p))
    );
  }

  async verify(): Promise<VerifyResult> {
    this.#check();
    await this.#core.drain();
    return this.#core.backend.verify();
  }

  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#closing = this.#core.release();
    }
    return this.#closing ?? Promise.resolve();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** `category/name@version`, the identity key of a producer build. */
export function producerKey(p: Producer): string {
  return `${p.category}/${p.name}@${p.version}`;
}
