/**
 * The `StreamDeltas` fast path of one session: each subscriber gets its
 * own bounded buffer, fed in push order (per-stream FIFO), one delta per
 * message (the kernel never batches). A full buffer drops that one delta
 * for that subscriber only and counts it; nothing else slows down. Live
 * only: a subscriber sees the deltas pushed after it subscribed.
 *
 * @example
 * ```ts
 * import { DeltaFanout } from "./delta_fanout.ts";
 * import assert from "node:assert/strict";
 * const fanout = new DeltaFanout<string>(2);
 * const sub = fanout.subscribe();
 * fanout.push("a"); fanout.push("b"); fanout.push("c"); // "c" is dropped
 * assert.equal(sub.dropped, 1);
 * sub.close();
 * const seen: string[] = [];
 * for await (const d of sub) seen.push(d);
 * assert.deepEqual(seen, ["a", "b"]);
 * ```
 *
 * @module
 */

/** The ref-impl's per-subscriber buffer (kernel.md §2.6). */
export const DEFAULT_DELTA_BUFFER = 64;

/** One subscriber's stream of deltas. */
export class DeltaSubscription<T> implements AsyncIterable<T> {
  readonly #buffer: T[] = [];
  readonly #bound: number;
  readonly #onClose: () => void;
  #wake: (() => void) | undefined;
  #closed = false;
  /** Deltas dropped because this subscriber's buffer was full. */
  dropped = 0;

  /**
   * Creates a subscription (use {@linkcode DeltaFanout.subscribe}).
   *
   * @param bound The buffer size.
   * @param onClose Called once when the subscription closes.
   */
  constructor(bound: number, onClose: () => void) {
    this.#bound = bound;
    this.#onClose = onClose;
  }

  /**
   * Queues a delta, or drops it when the buffer is full.
   *
   * @param delta The delta.
   * @returns False when it was dropped.
   */
  offer(delta: T): boolean {
    if (this.#closed) return false;
    if (this.#buffer.length >= this.#bound) {
      this.dropped++;
      return false;
    }
    this.#buffer.push(delta);
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
    return true;
  }

  /** Ends the stream after the buffered deltas (idempotent). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#onClose();
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** Iterates the deltas until closed. */
  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    try {
      for (;;) {
        while (this.#buffer.length > 0) yield this.#buffer.shift()!;
        if (this.#closed) return;
        await new Promise<void>((resolve) => (this.#wake = resolve));
      }
    } finally {
      this.close();
    }
  }
}

/** The subscribers of one session's deltas. */
export class DeltaFanout<T> {
  readonly #subs = new Set<DeltaSubscription<T>>();
  readonly #bound: number;

  /**
   * Creates a fan-out.
   *
   * @param bound Each subscriber's buffer size.
   * @default {DEFAULT_DELTA_BUFFER}
   */
  constructor(bound: number = DEFAULT_DELTA_BUFFER) {
    if (!Number.isInteger(bound) || bound < 1) {
      throw new RangeError(`Cannot buffer ${bound} deltas: use at least 1`);
    }
    this.#bound = bound;
  }

  /** How many subscribers are connected. */
  get size(): number {
    return this.#subs.size;
  }

  /**
   * Adds a subscriber; it ends when `signal` aborts or {@linkcode close}.
   *
   * @param signal Ends the subscription.
   * @returns The subscription.
   */
  subscribe(signal?: AbortSignal): DeltaSubscription<T> {
    const sub: DeltaSubscription<T> = new DeltaSubscription<T>(
      this.#bound,
      () => {
        this.#subs.delete(sub);
        signal?.removeEventListener("abort", onAbort);
      },
    );
    const onAbort = () => sub.close();
    this.#subs.add(sub);
    if (signal?.aborted) sub.close();
    else signal?.addEventListener("abort", onAbort, { once: true });
    return sub;
  }

  /**
   * Offers a delta to every subscriber.
   *
   * @param delta The delta.
   */
  push(delta: T): void {
    for (const s of this.#subs) s.offer(delta);
  }

  /** Ends every subscription. */
  close(): void {
    for (const s of [...this.#subs]) s.close();
  }
}
