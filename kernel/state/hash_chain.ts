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
 * ## The keyed chain (kernel.md §3.15)
 *
 * The chain above uses a public function, so anyone who can write the file
 * can edit a row and recompute every later hash. Sessions created since
 * schema revision 3 use the keyed scheme `hmac-sha256` instead:
 * `hash = HMAC-SHA-256(installation key, previous hash ‖ canonical bytes)`
 * from the genesis `HMAC-SHA-256(key, "ph-agent/session-event-chain/v2-hmac"
 * ‖ 0x00 ‖ session_id)`. Without the key a changed row cannot be given a
 * valid hash. Deleting the newest rows leaves a valid shorter chain, so the
 * last sequence and hash are also kept outside the file in a MACed head
 * ({@linkcode headMac}) that {@linkcode verifyChain} compares. Older files
 * keep the unkeyed scheme `sha256` ("legacy"): it detects accidental
 * damage only.
 *
 * @module
 */
import { createHash, type Hash } from "node:crypto";
import type {
  ChainFailure,
  ChainScheme,
  CostLedgerEntry,
  HeadCheck,
  PlanItemEntry,
  VerifyResult,
} from "./session_store.ts";

/** The length of every chain hash in bytes. */
export const HASH_BYTES = 32;

const GENESIS_TAG = "ph-agent/session-event-chain/v1";
const KEYED_GENESIS_TAG = "ph-agent/session-event-chain/v2-hmac";
const HEAD_TAG = "ph-agent/session-chain-head/v1";
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

/**
 * HMAC-SHA-256 (RFC 2104) with the padded key's hash states computed once
 * and copied per message: about half the cost of `createHmac` per event,
 * which keys the chain without slowing appends noticeably.
 */
class Mac {
  readonly #inner: Hash;
  readonly #outer: Hash;
  constructor(key: Uint8Array) {
    if (key.length > 64) {
      throw new RangeError("Cannot key the chain: the key exceeds 64 bytes");
    }
    const ipad = new Uint8Array(64).fill(0x36);
    const opad = new Uint8Array(64).fill(0x5c);
    for (let i = 0; i < key.length; i++) {
      ipad[i] ^= key[i];
      opad[i] ^= key[i];
    }
    this.#inner = createHash("sha256").update(ipad);
    this.#outer = createHash("sha256").update(opad);
  }
  mac(...parts: (Uint8Array | string)[]): Uint8Array {
    const inner = this.#inner.copy();
    for (const p of parts) inner.update(p);
    const d = this.#outer.copy().update(inner.digest()).digest();
    return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
  }
}

const macs = new WeakMap<Uint8Array, Mac>();

function macOf(key: Uint8Array): Mac {
  let m = macs.get(key);
  if (!m) {
    m = new Mac(key);
    macs.set(key, m);
  }
  return m;
}

/**
 * The genesis hash of a keyed chain.
 *
 * @example Usage
 * ```ts
 * import { keyedChainGenesis } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * const key = new Uint8Array(32);
 * assert.equal(keyedChainGenesis(key, "01ARZ3NDEKTSV4RRFFQ69G5FAV").length, 32);
 * ```
 *
 * @param key The installation key's bytes.
 * @param sessionId The session's id.
 * @returns 32 bytes.
 */
export function keyedChainGenesis(
  key: Uint8Array,
  sessionId: string,
): Uint8Array {
  return macOf(key).mac(KEYED_GENESIS_TAG, new Uint8Array([0]), sessionId);
}

/**
 * The keyed hash of an event chained to its predecessor's:
 * `HMAC-SHA-256(key, previous ‖ canonical bytes)`.
 *
 * @example Usage
 * ```ts
 * import { eventHash, keyedChainGenesis, keyedEventHash } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * const key = crypto.getRandomValues(new Uint8Array(32));
 * const event = {
 *   sequence: 1, id: "01ARZ3NDEKTSV4RRFFQ69G5FAV", timestamp: "2026-01-01T00:00:00.000Z",
 *   kind: "tool_call", producerCategory: "tool", producerName: "gh",
 *   producerVersion: "1.0.0", schemaVersion: "1", payload: new Uint8Array(),
 * };
 * const g = keyedChainGenesis(key, "01ARZ3NDEKTSV4RRFFQ69G5FAV");
 * assert.notDeepEqual(keyedEventHash(key, g, event), eventHash(g, event));
 * ```
 *
 * @param key The installation key's bytes.
 * @param previous The previous event's hash (or the keyed genesis).
 * @param event The event's hashed fields.
 * @returns 32 bytes.
 */
export function keyedEventHash(
  key: Uint8Array,
  previous: Uint8Array,
  event: HashedEvent,
): Uint8Array {
  return macOf(key).mac(previous, encode(event));
}

/** How one session's chain is computed: its scheme and, when keyed, the key. */
export interface ChainHasher {
  /** The scheme. */
  readonly scheme: ChainScheme;
  /** The hash the chain starts from. */
  readonly genesis: Uint8Array;
  /**
   * The hash of `event` after `previous`.
   *
   * @param previous The previous hash.
   * @param event The event.
   * @returns 32 bytes.
   */
  next(previous: Uint8Array, event: HashedEvent): Uint8Array;
}

/**
 * The hasher of a session's chain: keyed (`hmac-sha256`) with `key`, or the
 * legacy public `sha256` chain.
 *
 * @example Usage
 * ```ts
 * import { chainHasher, chainGenesis } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * const sid = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
 * assert.deepEqual(chainHasher(sid, "sha256").genesis, chainGenesis(sid));
 * ```
 *
 * @param sessionId The session's id.
 * @param scheme The scheme.
 * @param key The key bytes (required for `hmac-sha256`).
 * @returns The hasher.
 * @throws {TypeError} When a keyed scheme has no key.
 */
export function chainHasher(
  sessionId: string,
  scheme: ChainScheme,
  key?: Uint8Array,
): ChainHasher {
  if (scheme === "sha256") {
    return { scheme, genesis: chainGenesis(sessionId), next: eventHash };
  }
  if (!key) {
    throw new TypeError("Cannot chain a keyed session without its key");
  }
  const mac = macOf(key);
  return {
    scheme,
    genesis: keyedChainGenesis(key, sessionId),
    next: (previous, event) => mac.mac(previous, encode(event)),
  };
}

/** The head of a session's chain, kept outside the session file. */
export interface ChainHead {
  /** The session. */
  readonly sessionId: string;
  /** The chain's scheme when the head was written. */
  readonly scheme: ChainScheme;
  /** The last committed sequence (0 before the first event). */
  readonly sequence: number;
  /** The hash of that event (the genesis for sequence 0). */
  readonly hash: Uint8Array;
}

/**
 * The MAC of a chain head: `HMAC-SHA-256(key,
 * "ph-agent/session-chain-head/v1" ‖ 0x00 ‖ session_id ‖ 0x00 ‖ scheme ‖
 * u64 sequence ‖ hash)`.
 *
 * @example Usage
 * ```ts
 * import { headMac } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * const key = new Uint8Array(32);
 * const head = { sessionId: "01ARZ3NDEKTSV4RRFFQ69G5FAV", scheme: "hmac-sha256" as const,
 *   sequence: 3, hash: new Uint8Array(32) };
 * assert.notDeepEqual(headMac(key, head), headMac(key, { ...head, sequence: 2 }));
 * ```
 *
 * @param key The installation key's bytes.
 * @param head The head.
 * @returns 32 bytes.
 */
export function headMac(key: Uint8Array, head: ChainHead): Uint8Array {
  const seq = new Uint8Array(8);
  new DataView(seq.buffer).setBigUint64(0, BigInt(head.sequence));
  const zero = new Uint8Array([0]);
  return macOf(key).mac(
    HEAD_TAG,
    zero,
    head.sessionId,
    zero,
    head.scheme,
    seq,
    head.hash,
  );
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

const WHAT: Record<ChainFailure, string> = {
  missing: "is missing (deleted or never written)",
  hash_mismatch:
    "does not match its stored hash (the row, its companion rows or its predecessor changed)",
  missing_hash: "has no stored hash",
  out_of_order: "is out of order",
  head_missing: "",
  head_mismatch: "",
  head_invalid: "",
  unknown_key: "",
};

function fail(
  chain: "keyed" | "legacy",
  events: number,
  firstBadSequence: number,
  reason: ChainFailure,
  message = `event ${firstBadSequence} ${WHAT[reason]}`,
): VerifyResult {
  return { ok: false, chain, events, firstBadSequence, reason, message };
}

/** Options of {@linkcode verifyChain}. */
export interface VerifyChainOptions {
  /**
   * The highest sequence ever assigned in the session (sqlite's
   * `sqlite_sequence`), so deleting the newest events is detected too.
   * @default {the last sequence seen}
   */
  readonly lastAssignedSequence?: number;
  /**
   * The scheme the session file declares.
   * @default {"hmac-sha256" with a key, else "sha256"}
   */
  readonly scheme?: ChainScheme;
  /** The installation key; required for a keyed chain and for heads. */
  readonly key?: { readonly bytes: Uint8Array; readonly id: string };
  /** The key id the session file records (a keyed chain's). */
  readonly storedKeyId?: string;
  /**
   * The head kept outside the file, already authenticated with
   * {@linkcode headMac}; `null` when there is none. Leave it out to skip
   * the head check.
   */
  readonly head?: ChainHead | null;
  /** Why the head exists but could not be read or authenticated. */
  readonly headProblem?: string;
}

/**
 * Walks events in sequence order and checks that sequences run 1, 2, 3, …
 * without gaps and that each stored hash equals the recomputed one (keyed
 * with the installation key for an `hmac-sha256` chain), then compares the
 * last sequence and hash with the head kept outside the file.
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
 * @param options The last assigned sequence, the scheme, the key and the head.
 * @returns `ok` with what was proven, or the first bad sequence and why.
 */
export function verifyChain(
  sessionId: string,
  events: Iterable<StoredHashedEvent>,
  options: VerifyChainOptions = {},
): VerifyResult {
  const key = options.key;
  const scheme = options.scheme ?? (key ? "hmac-sha256" : "sha256");
  const chain = scheme === "sha256" ? "legacy" : "keyed";
  if (chain === "keyed") {
    if (!key) {
      return fail(
        chain,
        0,
        0,
        "unknown_key",
        "the chain is keyed, but no installation key is available to check it",
      );
    }
    if (options.storedKeyId !== undefined && options.storedKeyId !== key.id) {
      return fail(
        chain,
        0,
        0,
        "unknown_key",
        `the chain is keyed with another installation key (id ${options.storedKeyId}, this installation's is ${key.id}): it cannot be checked here`,
      );
    }
  }
  const hasher = chainHasher(sessionId, scheme, key?.bytes);
  const head = options.head;
  let prev = hasher.genesis;
  let atHead: Uint8Array | undefined = head?.sequence === 0 ? prev : undefined;
  let expected = 1;
  let count = 0;
  for (const e of events) {
    if (e.sequence < expected) {
      return fail(chain, count, e.sequence, "out_of_order");
    }
    if (e.sequence > expected) return fail(chain, count, expected, "missing");
    if (!e.hash || e.hash.length !== HASH_BYTES) {
      return fail(chain, count, e.sequence, "missing_hash");
    }
    const h = hasher.next(prev, e);
    if (!equalBytes(h, e.hash)) {
      return fail(chain, count, e.sequence, "hash_mismatch");
    }
    prev = h;
    if (head && e.sequence === head.sequence) atHead = h;
    expected++;
    count++;
  }
  const last = options.lastAssignedSequence ?? 0;
  if (last >= expected) return fail(chain, count, expected, "missing");
  let headCheck: HeadCheck = "unchecked";
  if (options.headProblem !== undefined) {
    return fail(
      chain,
      count,
      0,
      "head_invalid",
      `the chain head kept outside the session file cannot be trusted: ${options.headProblem}`,
    );
  }
  if (head === null) {
    if (chain === "keyed") {
      return fail(
        chain,
        count,
        0,
        "head_missing",
        "the chain head kept outside the session file is missing, so a deletion of the newest events cannot be ruled out",
      );
    }
    headCheck = "absent";
  } else if (head) {
    if (head.scheme !== scheme) {
      return fail(
        chain,
        count,
        0,
        "head_mismatch",
        `the head was written for a ${head.scheme} chain, but the file now declares ${scheme}: the chain was rewritten`,
      );
    }
    if (head.sequence > count) {
      return fail(
        chain,
        count,
        count + 1,
        "head_mismatch",
        `the head records ${head.sequence} events, but the log holds ${count}: events ${
          count + 1
        } to ${head.sequence} were deleted`,
      );
    }
    if (!atHead || !equalBytes(atHead, head.hash)) {
      return fail(
        chain,
        count,
        head.sequence,
        "head_mismatch",
        `event ${head.sequence} does not match the head kept outside the session file: an event at or before it was edited and the chain recomputed`,
      );
    }
    headCheck = head.sequence < count ? "behind" : "match";
  }
  return { ok: true, chain, headCheck, events: count, head: toHex(prev) };
}
