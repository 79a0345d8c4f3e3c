/**
 * The storage interface the kernel depends on: one durable, append-only log
 * per session with its companion rows (kernel.md §3). Two implementations
 * sit beside it: {@linkcode SqliteSessionStore} (the product, one
 * `node:sqlite` file per session) and {@linkcode MemorySessionStore} (for
 * unit tests). Both pass the same contract suite.
 *
 * The kernel is the only writer. Every write of a session goes through its
 * {@linkcode SessionLog}'s write queue, which assigns the storage-independent
 * event `id` (a ULID) at {@linkcode SessionLog.emit} and the
 * ordering-authoritative `sequence` at commit, writes the companion rows of
 * an event in the same transaction as the event, and republishes each
 * committed event on the bus topic `kernel.event.<kind>` strictly after the
 * commit. A failing republish never fails the write.
 *
 * @module
 */
import type { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import { SessionStatus } from "../../proto/gen/pluggableharness/session/v1/types_pb.ts";
import type { CategoryName } from "../../contract/manifest.ts";
import type { EventBus } from "../bus/event_bus.ts";

/** The producer category text stored in `events.producer_category`. */
export type ProducerCategory = CategoryName | "kernel";

/**
 * Who wrote an event: `{category, name, version}`, server-derived from the
 * connection for plugin emits (never read from a request). A
 * {@linkcode PluginIdentity} is assignable to it.
 */
export interface Producer {
  /** The category text, or `kernel` for {@linkcode KERNEL_PRODUCER}. */
  readonly category: ProducerCategory;
  /** The plugin's name (unique within its category). */
  readonly name: string;
  /** The exact version of the build. */
  readonly version: string;
}

/**
 * The reserved kernel producer (kernel.md §3.4) that `plan` and `apply`
 * events are stored under. Its version is the `event.v1` payload generation,
 * not the kernel release. It is refused on every other kind.
 */
export const KERNEL_PRODUCER: Producer = Object.freeze({
  category: "kernel",
  name: "kernel",
  version: "1",
});

/**
 * The `cost_ledger` row of a usage-bearing `message` event. The kernel
 * computes `costUsd` at usage time from the pricing then in force; the store
 * persists the figure as given.
 */
export interface CostLedgerEntry {
  /** The model provider's name. */
  readonly providerName: string;
  /** The model id. */
  readonly modelId: string;
  /** Input tokens (a non-negative integer). */
  readonly inputTokens: number | bigint;
  /** Output tokens (a non-negative integer). */
  readonly outputTokens: number | bigint;
  /** Cache-write tokens. @default {0} */
  readonly cacheWriteTokens?: number | bigint;
  /** Cache-read tokens. @default {0} */
  readonly cacheReadTokens?: number | bigint;
  /** The dollar cost of the call, kernel-computed. */
  readonly costUsd: number;
}

/** A decision stored in `plan_items.decision` (never `pending`). */
export type PlanItemDecision = "allow" | "ask" | "deny";

/** One `plan_items` row of a `plan` event. */
export interface PlanItemEntry {
  /** The turn the plan belongs to. */
  readonly turnId: string;
  /** The tool call the item gates. */
  readonly toolCallId: string;
  /** The tool provider's name. */
  readonly providerName: string;
  /** The tool's name. */
  readonly toolName: string;
  /** The policy decision. */
  readonly decision: PlanItemDecision;
  /** The policy rule or subscriber that decided. */
  readonly decidedBy: string;
}

/** What {@linkcode SessionLog.emit} appends. */
export interface EmitInput {
  /** The event kind; `EVENT_KIND_UNSPECIFIED` is refused. */
  readonly kind: EventKind;
  /** Who wrote it (server-derived). */
  readonly producer: Producer;
  /** The `event.*` package generation of the payload, e.g. `"1"`. */
  readonly schemaVersion: string;
  /** The marshaled payload; stored as given, never inspected. */
  readonly payload: Uint8Array;
  /**
   * An id assigned earlier by the kernel (the model-call path reuses the
   * message id). A ULID is minted when absent.
   */
  readonly id?: string;
  /** The `cost_ledger` row of a `message` event (only `message` takes one). */
  readonly cost?: CostLedgerEntry;
  /** The `plan_items` rows of a `plan` event (required for, and only for, `plan`). */
  readonly planItems?: readonly PlanItemEntry[];
}

/** What {@linkcode SessionLog.emit} resolves to once the event is committed. */
export interface EmittedEvent {
  /** The storage-independent id. */
  readonly id: string;
  /** The ordering-authoritative sequence (1, 2, 3, … per session). */
  readonly sequence: number;
  /** The wall-clock time of the emit (RFC 3339, display only). */
  readonly timestamp: string;
}

/** A stored event, as {@linkcode SessionLog.readEvents} yields it. */
export interface EventRecord {
  /** The ordering-authoritative sequence. */
  readonly sequence: number;
  /** The storage-independent id. */
  readonly id: string;
  /** The wall-clock time of the emit (display only, never an ordering key). */
  readonly timestamp: string;
  /** The kind. */
  readonly kind: EventKind;
  /** The original writer. */
  readonly producer: Producer;
  /** The payload's package generation. */
  readonly schemaVersion: string;
  /** The payload bytes exactly as written. */
  readonly payload: Uint8Array;
}

/** Options of {@linkcode SessionLog.readEvents}. */
export interface ReadEventsOptions {
  /** Only these kinds. @default {all kinds} */
  readonly kinds?: readonly EventKind[];
  /** Only events with `sequence >= fromSequence`. @default {1} */
  readonly fromSequence?: number;
  /** At most this many events. @default {unlimited} */
  readonly limit?: number;
}

/** A session's metadata row plus its cost rollup (`SessionInfo` on the wire). */
export interface SessionRecord {
  /** The session's ULID (the file stem). */
  readonly sessionId: string;
  /** The parent session; absent for a root session. */
  readonly parentSessionId?: string;
  /** The profile it runs. */
  readonly profile: string;
  /** The status. */
  readonly status: SessionStatus;
  /** The depth in the session tree (0 for a root). */
  readonly depth: number;
  /** When it started (RFC 3339). */
  readonly startedAt: string;
  /** When it ended; absent while running. */
  readonly endedAt?: string;
  /** `SUM(cost_ledger.cost_usd)`; absent when nothing was spent. */
  readonly costUsd?: number;
  /**
   * The process that has the session open for writing: the newest one not
   * known to be gone, else the newest. Absent when no process has it open
   * (or the file predates schema revision 4).
   */
  readonly owner?: SessionOwner;
  /**
   * Set by {@linkcode SessionStore.list} on a `running` session whose every
   * owner is on this host and no longer alive (a kernel killed with `-9`, a
   * machine that rebooted). Display only: the stored status stays
   * `running`, so a listing never writes.
   */
  readonly interrupted?: true;
}

/**
 * A process that opened a session for writing. Recorded when the session
 * is opened and removed when that handle closes.
 */
export interface SessionOwner {
  /** The process id. */
  readonly pid: number;
  /** The host name (empty when it could not be read). */
  readonly host: string;
  /**
   * The process's start time, field 22 of `/proc/<pid>/stat` (clock ticks
   * since boot), so a reused pid is not taken for the owner; empty where
   * `/proc` cannot be read, which leaves the owner's liveness unknown.
   */
  readonly startTime: string;
}

/** Options of {@linkcode SessionStore.create}. */
export interface CreateSessionOptions {
  /** The profile name. */
  readonly profile: string;
  /** The parent session, for a child. */
  readonly parentSessionId?: string;
  /** The depth; required with `parentSessionId`. @default {0} */
  readonly depth?: number;
  /** The id to use (a canonical ULID). @default {a new ULID} */
  readonly sessionId?: string;
}

/** Options of {@linkcode SessionStore.list}. */
export interface ListSessionsOptions {
  /** Only sessions in this status. */
  readonly status?: SessionStatus;
  /** Only the children of this session. */
  readonly parentSessionId?: string;
  /** Only root sessions. @default {false} */
  readonly rootsOnly?: boolean;
  /** At most this many sessions (newest first). @default {unlimited} */
  readonly limit?: number;
}

/** A session file that {@linkcode SessionStore.list} could not read. */
export interface UnreadableSession {
  /** The file's ULID stem. */
  readonly sessionId: string;
  /** Where it is. */
  readonly path: string;
  /** Why it could not be read. */
  readonly reason: string;
}

/** What {@linkcode SessionStore.list} returns. */
export interface ListSessionsResult {
  /** The readable sessions, most recently started first. */
  readonly sessions: SessionRecord[];
  /** The files that could not be read; listing moves on past them. */
  readonly unreadable: UnreadableSession[];
}

/** A `producers` row: a distinct producer and where it first wrote. */
export interface ProducerRecord extends Producer {
  /** The sequence of its first event in the session. */
  readonly firstSeenSequence: number;
}

/** A stored `cost_ledger` row. */
export interface CostLedgerRecord {
  /** The ledger row's own sequence. */
  readonly sequence: number;
  /** The `message` event it belongs to. */
  readonly eventSequence: number;
  /** The model provider's name. */
  readonly providerName: string;
  /** The model id. */
  readonly modelId: string;
  /** Input tokens. */
  readonly inputTokens: number;
  /** Output tokens. */
  readonly outputTokens: number;
  /** Cache-write tokens. */
  readonly cacheWriteTokens: number;
  /** Cache-read tokens. */
  readonly cacheReadTokens: number;
  /** The persisted dollar cost. */
  readonly costUsd: number;
}

/** A stored `plan_items` row. */
export interface PlanItemRecord extends PlanItemEntry {
  /** The row's own sequence. */
  readonly sequence: number;
  /** The `plan` event it belongs to. */
  readonly eventSequence: number;
}

/**
 * Why a hash chain does not verify: a row problem (`missing`,
 * `hash_mismatch`, `missing_hash`, `out_of_order`), or a problem with the
 * head kept outside the file (`head_missing`, `head_mismatch`,
 * `head_invalid`) or with the key (`unknown_key`).
 */
export type ChainFailure =
  | "missing"
  | "hash_mismatch"
  | "missing_hash"
  | "out_of_order"
  | "head_missing"
  | "head_mismatch"
  | "head_invalid"
  | "unknown_key";

/**
 * How a session's chain is computed: `hmac-sha256` keyed with the
 * installation key (sessions created since schema revision 3), or the
 * public `sha256` of older sessions.
 */
export type ChainScheme = "hmac-sha256" | "sha256";

/**
 * What the head check found: `match` (the head names the last event),
 * `behind` (events after the head are in the file: the kernel stopped
 * between a commit and the head write), `absent` (a legacy session that
 * never had a head) or `unchecked` (no head was consulted).
 */
export type HeadCheck = "match" | "behind" | "absent" | "unchecked";

/** What {@linkcode SessionLog.verify} finds. */
export type VerifyResult =
  | {
    /** Every event chains to its predecessor. */
    readonly ok: true;
    /**
     * `keyed`: an HMAC chain under this installation's key; `legacy`: the
     * public unkeyed chain, which only shows accidental damage.
     */
    readonly chain: "keyed" | "legacy";
    /** What the comparison with the head kept outside the file found. */
    readonly headCheck: HeadCheck;
    /** How many events were checked. */
    readonly events: number;
    /** The hex hash at the head of the chain. */
    readonly head: string;
  }
  | {
    /** The chain is broken. */
    readonly ok: false;
    /** The chain's scheme, as the file declares it. */
    readonly chain: "keyed" | "legacy";
    /** How many events verified before the first bad one. */
    readonly events: number;
    /**
     * The first sequence that is missing or does not verify; 0 when the
     * failure is not one event's (a missing head, an unknown key).
     */
    readonly firstBadSequence: number;
    /** The kind of break. */
    readonly reason: ChainFailure;
    /** A sentence naming the sequence and the break. */
    readonly message: string;
  };

/** What a salvage of a corrupt session file kept and lost. */
export interface RecoveryReport {
  /** The session file (the recovered copy now has this name). */
  readonly path: string;
  /** Where the damaged original was moved (never deleted). */
  readonly corruptPath: string;
  /** The first lines `PRAGMA integrity_check` (or the open) reported. */
  readonly problems: readonly string[];
  /** Rows copied per table. */
  readonly salvaged: Readonly<Record<string, number>>;
  /** Rows that could not be read per table (as far as they are known). */
  readonly lost: Readonly<Record<string, number>>;
}

/** Options of {@linkcode SessionLog.emit}. */
export interface EmitOptions {
  /**
   * Commit with the next write that starts a commit (or a macrotask
   * later), instead of starting one.
   * @default {false}
   */
  readonly defer?: boolean;
}

/**
 * One open session: its write queue (the sole writer) and its reads. Get one
 * from {@linkcode SessionStore.create} or {@linkcode SessionStore.open};
 * close it when done (or use `await using`).
 */
export interface SessionLog extends AsyncDisposable {
  /** The session's ULID. */
  readonly sessionId: string;
  /** Set when the file was salvaged from corruption at open. */
  readonly recovery?: RecoveryReport;
  /**
   * Appends one event with its companion rows in one transaction. Emits
   * queued together are committed together (group commit) in queue order.
   *
   * With `defer`, the emit does not start a commit of its own: it is
   * committed together with the next write that does (in queue order, in
   * one transaction), or by itself once the current task has run (a
   * macrotask later). The kernel defers an event that another write
   * always follows soon (a tool result before the round's time stamp), so
   * that both cost one commit; it is durable, as any emit, when its
   * promise resolves.
   *
   * @param input The event.
   * @param options `defer`: commit with the next write.
   * @returns The assigned id, sequence and timestamp, once committed.
   */
  emit(input: EmitInput, options?: EmitOptions): Promise<EmittedEvent>;
  /**
   * Streams stored events in `sequence` order (never by time).
   *
   * @param options Kinds filter, first sequence and limit.
   * @returns The events.
   */
  readEvents(options?: ReadEventsOptions): AsyncIterableIterator<EventRecord>;
  /**
   * Reads the metadata row and the cost rollup.
   *
   * @returns The session record.
   */
  info(): Promise<SessionRecord>;
  /**
   * Changes the status (kernel.md §3.9): `running` → a terminal status sets
   * `ended_at`; `completed`/`cancelled` → `running` clears it; every other
   * change is refused with {@linkcode InvalidStatusTransitionError}. Goes
   * through the write queue, so it is ordered with emits.
   *
   * @param status The new status.
   * @returns The updated record.
   */
  setStatus(status: SessionStatus): Promise<SessionRecord>;
  /**
   * The cost rollup: `SUM(cost_ledger.cost_usd)` (0 when nothing was spent),
   * never a re-walk of the events.
   *
   * @returns Dollars.
   */
  costUsd(): Promise<number>;
  /**
   * The `cost_ledger` rows in order.
   *
   * @returns The rows.
   */
  costLedger(): Promise<CostLedgerRecord[]>;
  /**
   * The `plan_items` rows in order.
   *
   * @returns The rows.
   */
  planItems(): Promise<PlanItemRecord[]>;
  /**
   * The distinct producers that wrote to the session (the `producers` table).
   *
   * @returns The producers, in first-seen order.
   */
  producers(): Promise<ProducerRecord[]>;
  /**
   * The missing-producers report (kernel.md §3.10): the producers of this
   * session that are not in `installed`, the reserved kernel producer
   * excluded. Run it before replay, before touching anything.
   *
   * @param installed The installed or cached plugin builds.
   * @returns The missing producers, in first-seen order.
   */
  missingProducers(installed: Iterable<Producer>): Promise<ProducerRecord[]>;
  /**
   * Verifies the hash chain over every event (and its companion rows).
   *
   * @returns `ok`, or the first bad sequence and why.
   */
  verify(): Promise<VerifyResult>;
  /**
   * Waits for queued writes, then releases the handle. Idempotent.
   */
  close(): Promise<void>;
}

/**
 * Creates, opens and lists sessions. The kernel holds one store; every
 * session it touches is opened through it, so each session has one writer.
 */
export interface SessionStore extends AsyncDisposable {
  /**
   * Creates a session in status `running` and opens it.
   *
   * @param options Profile, parent and depth.
   * @returns The open session.
   */
  create(options: CreateSessionOptions): Promise<SessionLog>;
  /**
   * Opens an existing session (integrity check, migration and salvage
   * happen here). Opening a session that is already open returns another
   * handle on the same writer.
   *
   * @param sessionId The session's ULID.
   * @returns The open session.
   */
  open(sessionId: string): Promise<SessionLog>;
  /**
   * Lists sessions, most recently started first, by reading each session's
   * metadata (no separate index). `session_meta` has no project column, so
   * a store lists the sessions of its own directory: a kernel that wants
   * per-project listings gives each project's store its own directory.
   *
   * @param options Filters.
   * @returns The sessions and the files that could not be read.
   */
  list(options?: ListSessionsOptions): Promise<ListSessionsResult>;
  /**
   * Opens a session, verifies its hash chain and releases it: the library
   * call behind `agent sessions verify ID`.
   *
   * @param sessionId The session's ULID.
   * @returns `ok`, or the first bad sequence and why.
   */
  verify(sessionId: string): Promise<VerifyResult>;
  /**
   * The directory beside a session's file where the kernel keeps what does
   * not fit in the log (the overflow of a tool result over
   * `max_result_bytes`). A store without files on disk has none.
   *
   * @param sessionId The session's ULID.
   * @returns The directory path (it may not exist yet).
   */
  artifactsDirOf?(sessionId: string): string;
  /** Closes every handle this store opened. */
  close(): Promise<void>;
}

/** Options shared by both stores. */
export interface SessionStoreOptions {
  /** The bus that committed events are republished on. */
  readonly bus?: EventBus;
  /** The wall clock, for event and session timestamps. @default {() => new Date()} */
  readonly now?: () => Date;
  /**
   * Most writes committed in one transaction. The batch is republished at
   * once, so keep it below the bus's subscriber bound (1024).
   * @default {512}
   */
  readonly maxBatchSize?: number;
  /**
   * The owner recorded when this store opens a session for writing.
   * @default {this process: its pid, the host name and its start time}
   */
  readonly owner?: SessionOwner;
}

/** The stored text of each session status (`session_meta.status`). */
export const SESSION_STATUS_TEXT: Readonly<Record<SessionStatus, string>> =
  Object.freeze({
    [SessionStatus.UNSPECIFIED]: "unspecified",
    [SessionStatus.RUNNING]: "running",
    [SessionStatus.COMPLETED]: "completed",
    [SessionStatus.ERROR_MAX_TURNS]: "error_max_turns",
    [SessionStatus.ERROR_MAX_BUDGET_USD]: "error_max_budget_usd",
    [SessionStatus.ERROR_MAX_WALL_CLOCK]: "error_max_wall_clock",
    [SessionStatus.CANCELLED]: "cancelled",
    [SessionStatus.FAILED]: "failed",
  });

/**
 * Whether §3.9 allows changing a session from `from` to `to`: `running` may
 * end in any terminal status; `completed` and `cancelled` may re-open to
 * `running`; nothing else changes (the `failed` and `error_max_*` statuses
 * are replay-only).
 *
 * @example Usage
 * ```ts
 * import { canChangeStatus } from "@ph/agent/kernel";
 * import { SessionStatus } from "@ph/agent/proto/session";
 * import assert from "node:assert/strict";
 *
 * assert.ok(canChangeStatus(SessionStatus.RUNNING, SessionStatus.CANCELLED));
 * assert.ok(canChangeStatus(SessionStatus.CANCELLED, SessionStatus.RUNNING));
 * assert.ok(!canChangeStatus(SessionStatus.FAILED, SessionStatus.RUNNING));
 * ```
 *
 * @param from The current status.
 * @param to The requested status.
 * @returns `true` when allowed.
 */
export function canChangeStatus(
  from: SessionStatus,
  to: SessionStatus,
): boolean {
  if (to === SessionStatus.UNSPECIFIED || from === to) return false;
  if (from === SessionStatus.RUNNING) return true;
  return (from === SessionStatus.COMPLETED ||
    from === SessionStatus.CANCELLED) && to === SessionStatus.RUNNING;
}
