/**
 * Tamper evidence for the event log: every event row stores
 * `hash = SHA-256(previous hash ‖ canonical bytes of the row)`, so editing,
 * deleting or reordering any row breaks the chain at that row, and
 * {@linkcode verifyChain} names the first bad sequence.
 *
 * Canonical bytes of an event (all integers big-endian, every string UTF-8
 * with a 4-byte length prefix, so no two different rows share an encoding):
 *
 * ```
 * u64 sequence
 * str id, str timestamp, str kind, str producer_category,
 * str producer_name, str producer_version, str schema_version
 * u32 len(payload) ‖ payload
 * u32 number of cost_ledger rows, then each:
 *     str provider_name, str model_id, i64 input_tokens, i64 output_tokens,
 *     i64 cache_write_tokens, i64 cache_read_tokens, f64 cost_usd
 * u32 number of plan_items rows, then each:
 *     str turn_id, str tool_call_id, str provider_name, str tool_name,
 *     str decision, str decided_by
 * ```
 *
 * The companion rows written in the same transaction as the event are part
 * of its hash, so the persisted spend and plan decisions are covered too.
 * The chain starts from a genesis hash bound to the session id,
 * `SHA-256("ph-agent/session-event-chain/v1" ‖ 0x00 ‖ session_id)`, so rows
 * copied in from another session do not verify either. `session_meta` (the
 * one table updated in place) and `producers` (derived) are not chained.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type {
  ChainFailure,
  CostLedgerEntry,
  PlanItemEntry,
  VerifyResult,
} from "./session_store.ts";

/** The length of every chain hash in bytes. */
export const HASH_BYTES = 32;

const GENESIS_TAG = "ph-agent/session-event-chain/v1";
const encoder = new TextEncoder();

/** The fields of an event that its hash covers. */
export interface HashedEvent {
  /** The sequence. */
  readonly sequence: number;
  /** The event id. */
  readonly id: string;
  /** The stored timestamp text. */
  readonly timestamp: string;
  /** The stored kind text. */
  readonly kind: string;
  /** The stored producer category text. */
  readonly producerCategory: string;
  /** The producer's name. */
  readonly producerName: string;
  /** The producer's version. */
  readonly producerVersion: string;
  /** The schema version text. */
  readonly schemaVersion: string;
  /** The payload bytes. */
  readonly payload: Uint8Array;
  /** The event's `cost_ledger` rows, in order. */
  readonly cost?: readonly CostLedgerEntry[];
  /** The event's `plan_items` rows, in order. */
  readonly planItems?: readonly PlanItemEntry[];
}

/** A stored event with the hash that was stored beside it. */
export interface StoredHashedEvent extends HashedEvent {
  /** The stored hash; `null` or the wrong length counts as missing. */
  readonly hash: Uint8Array | null | undefined;
}

/**
 * The hash the chain of a session starts from.
 *
 * @example Usage
 * ```ts
 * import { chainGenesis } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * assert.equal(chainGenesis("01ARZ3NDEKTSV4RRFFQ69G5FAV").length, 32);
 * ```
 *
 * @param sessionId The session's id.
 * @returns 32 bytes.
 */
export function chainGenesis(sessionId: string): Uint8Array {
  return new Uint8Array(
    createHash("sha256").update(GENESIS_TAG).update(new Uint8Array([0]))
      .update(sessionId).digest(),
  );
}

/**
 * Appends the canonical encoding to one growing scratch buffer, reused
 * across calls (hashing is synchronous), so an event costs no allocation
 * beyond the digest.
 */
class Writer {
  buf: Uint8Array = new Uint8Array(4096);
  view: DataView = new DataView(this.buf.buffer);
  pos = 0;
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.pos + n));
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
  u32(v: number): void {
    this.ensure(4);
    this.view.setUint32(this.pos, v);
    this.pos += 4;
  }
  i64(v: number | bigint): void {
    this.ensure(8);
    if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) {
      this.view.setUint32(this.pos, Math.floor(v / 0x1_0000_0000));
      this.view.setUint32(this.pos + 4, v >>> 0);
    } else {
      this.view.setBigInt64(this.pos, BigInt(v));
    }
    this.pos += 8;
  }
  f64(v: number): void {
    this.ensure(8);
    this.view.setFloat64(this.pos, v);
    this.pos += 8;
  }
  str(s: string): void {
    // A UTF-8 encoding is at most 3 bytes per UTF-16 code unit.
    this.ensure(4 + s.length * 3);
    const start = this.pos + 4;
    const buf = this.buf;
    let i = 0;
    // ASCII fast path (ids, timestamps, names): no encoder call.
    for (; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      buf[start + i] = c;
    }
    let written = i;
    if (i < s.length) {
      written = i +
        encoder.encodeInto(s.slice(i), buf.subarray(start + i)).written;
    }
    this.view.setUint32(this.pos, written);
    this.pos = start + written;
  }
  bytes(b: Uint8Array): void {
    this.u32(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
}

const scratch = new Writer();

/** Encodes into the shared scratch buffer; the view is valid until the next call. */
function encode(event: HashedEvent): Uint8Array {
  const w = scratch;
  w.pos = 0;
  w.i64(event.sequence);
  w.str(event.id);
  w.str(event.timestamp);
  w.str(event.kind);
  w.str(event.producerCategory);
  w.str(event.producerName);
  w.str(event.producerVersion);
  w.str(event.schemaVersion);
  w.bytes(event.payload);
  const cost = event.cost ?? [];
  w.u32(cost.length);
  for (const c of cost) {
    w.str(c.providerName);
    w.str(c.modelId);
    w.i64(c.inputTokens);
    w.i64(c.outputTokens);
    w.i64(c.cacheWriteTokens ?? 0);
    w.i64(c.cacheReadTokens ?? 0);
    w.f64(c.costUsd);
  }
  const items = event.planItems ?? [];
  w.u32(items.length);
  for (const p of items) {
    w.str(p.turnId);
    w.str(p.toolCallId);
    w.str(p.providerName);
    w.str(p.toolName);
    w.str(p.decision);
    w.str(p.decidedBy);
  }
  return w.buf.subarray(0, w.pos);
}

/**
 * The canonical bytes of an event (see the module doc for the layout).
 *
 * @example Usage
 * ```ts
 * import { canonicalEventBytes } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * const event = {
 *   sequence: 1, id: "01ARZ3NDEKTSV4RRFFQ69G5FAV", timestamp: "2026-01-01T00:00:00.000Z",
 *   kind: "tool_call", producerCategory: "tool", producerName: "gh",
 *   producerVersion: "1.0.0", schemaVersion: "1", payload: new Uint8Array([1, 2]),
 * };
 * const bytes = canonicalEventBytes(event);
 * // u64 sequence, 7 length-prefixed strings, the payload, two zero counts.
 * assert.equal(bytes.length, 8 + (4 * 7 + 26 + 24 + 9 + 4 + 2 + 5 + 1) + (4 + 2) + 4 + 4);
 * assert.deepEqual(canonicalEventBytes({ ...event }), bytes);
 * ```
 *
 * @param event The event's hashed fields.
 * @returns The bytes.
 */
export function canonicalEventBytes(event: HashedEvent): Uint8Array {
  return encode(event).slice();
}

/**
 * The hash of an event chained to its predecessor's.
 *
 * @example Usage
 * ```ts
 * import { chainGenesis, eventHash } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * const event = {
 *   sequence: 1, id: "01ARZ3NDEKTSV4RRFFQ69G5FAV", timestamp: "2026-01-01T00:00:00.000Z",
 *   kind: "tool_call", producerCategory: "tool", producerName: "gh",
 *   producerVersion: "1.0.0", schemaVersion: "1", payload: new Uint8Array(),
 * };
 * const h = eventHash(chainGenesis("01ARZ3NDEKTSV4RRFFQ69G5FAV"), event);
 * assert.equal(h.length, 32);
 * ```
 *
 * @param previous The previous event's hash (or the genesis hash).
 * @param event The event's hashed fields.
 * @returns 32 bytes.
 */
export function eventHash(
  previous: Uint8Array,
  event: HashedEvent,
): Uint8Array {
  const digest = createHash("sha256").update(previous).update(encode(event))
    .digest();
  return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength);
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function toHex(b: Uint8Array): string {
  let s = "";
  for (const x of b) s += x.toString(16).padStart(2, "0");
  return s;
}

function fail(
  events: number,
  firstBadSequence: number,
  reason: ChainFailure,
): VerifyResult {
  const what = {
    missing: "is missing (deleted or never written)",
    hash_mismatch:
      "does not match its stored hash (the row, its companion rows or its predecessor changed)",
    missing_hash: "has no stored hash",
    out_of_order: "is out of order",
  }[reason];
  return {
    ok: false,
    events,
    firstBadSequence,
    reason,
    message: `event ${firstBadSequence} ${what}`,
  };
}

/** Options of {@linkcode verifyChain}. */
export interface VerifyChainOptions {
  /**
   * The highest sequence ever assigned in the session (sqlite's
   * `sqlite_sequence`), so deleting the newest events is detected too.
   * @default {the last sequence seen}
   */
  readonly lastAssignedSequence?: number;
}

/**
 * Walks events in sequence order and checks that sequences run 1, 2, 3, …
 * without gaps and that each stored hash equals the recomputed one.
 *
 * @example Usage
 * ```ts
 * import { chainGenesis, eventHash, verifyChain } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * const sid = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
 * const base = {
 *   id: "", timestamp: "2026-01-01T00:00:00.000Z", kind: "tool_call",
 *   producerCategory: "tool", producerName: "gh", producerVersion: "1.0.0",
 *   schemaVersion: "1", payload: new Uint8Array(),
 * };
 * const e1 = { ...base, sequence: 1, id: "a" };
 * const h1 = eventHash(chainGenesis(sid), e1);
 * const e2 = { ...base, sequence: 2, id: "b" };
 * const h2 = eventHash(h1, e2);
 * assert.equal(verifyChain(sid, [{ ...e1, hash: h1 }, { ...e2, hash: h2 }]).ok, true);
 * const edited = verifyChain(sid, [{ ...e1, id: "x", hash: h1 }, { ...e2, hash: h2 }]);
 * assert.equal(!edited.ok && edited.firstBadSequence, 1);
 * ```
 *
 * @param sessionId The session's id (the genesis input).
 * @param events The stored events with their hashes, in sequence order.
 * @param options The last assigned sequence.
 * @returns `ok`, or the first bad sequence and why.
 */
export function verifyChain(
  sessionId: string,
  events: Iterable<StoredHashedEvent>,
  options: VerifyChainOptions = {},
): VerifyResult {
  let prev = chainGenesis(sessionId);
  let expected = 1;
  let count = 0;
  for (const e of events) {
    if (e.sequence < expected) return fail(count, e.sequence, "out_of_order");
    if (e.sequence > expected) return fail(count, expected, "missing");
    if (!e.hash || e.hash.length !== HASH_BYTES) {
      return fail(count, e.sequence, "missing_hash");
    }
    const h = eventHash(prev, e);
    if (!equalBytes(h, e.hash)) return fail(count, e.sequence, "hash_mismatch");
    prev = h;
    expected++;
    count++;
  }
  const last = options.lastAssignedSequence ?? 0;
  if (last >= expected) return fail(count, expected, "missing");
  return { ok: true, events: count, head: toHex(prev) };
}
