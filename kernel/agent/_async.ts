/**
 * Async plumbing of the agent loop: an abortable sleep, an abortable
 * iteration, a single-consumer event queue, and `allSettled` that rethrows.
 *
 * @module
 */

/**
 * Waits `ms` milliseconds, or rejects with the signal's reason when it
 * aborts first. The timer is always cleared.
 *
 * @param ms Milliseconds.
 * @param signal Cancels the wait.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Thrown by {@linkcode abortable} when its signal aborts. */
export class AbortedIteration extends Error {
  /** Creates the error. */
  constructor(reason: unknown) {
    super("The iteration was aborted", { cause: reason });
    this.name = "AbortedIteration";
  }
}

/**
 * Iterates `source`, racing every step against `signal` so that a source
 * that ignores cancellation cannot hang the caller; the source is closed
 * on abort.
 *
 * @param source The iterable.
 * @param signal Aborts the iteration.
 * @returns The values.
 * @throws {AbortedIteration} When the signal aborts.
 */
export async function* abortable<T>(
  source: AsyncIterable<T>,
  signal: AbortSignal,
): AsyncGenerator<T> {
  const aborted = Promise.withResolvers<"aborted">();
  const onAbort = () => aborted.resolve("aborted");
  if (signal.aborted) throw new AbortedIteration(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  const it = source[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = it.next();
      next.catch(() => {});
      const r = await Promise.race([next, aborted.promise]);
      if (r === "aborted") throw new AbortedIteration(signal.reason);
      if (r.done) return;
      yield r.value;
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    it.return?.()?.catch?.(() => {});
  }
}

/**
 * Waits for every promise, then rethrows the first rejection (in input
 * order), so that no task is still running when the caller moves on.
 *
 * @param promises The promises.
 * @returns Their values.
 */
export async function allSettledOrThrow<T>(
  promises: readonly Promise<T>[],
): Promise<T[]> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((r) => r.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return results.map((r) => (r as PromiseFulfilledResult<T>).value);
}

/**
 * A single-consumer queue: values pushed before iteration starts are
 * buffered; iteration ends when the queue is closed (or throws its error).
 */
export class EventQueue<T> implements AsyncIterable<T> {
  #buffer: T[] = [];
  #wake: (() => void) | undefined;
  #closed = false;
  #error: unknown;
  #iterated = false;

  /**
   * Adds a value (ignored once closed).
   *
   * @param value The value.
   */
  push(value: T): void {
    if (this.#closed) return;
    this.#buffer.push(value);
    this.#wake?.();
  }

  /**
   * Ends the queue; the consumer sees the buffered values, then the end
   * (or `error`).
   *
   * @param error Thrown to the consumer after the buffered values.
   */
  close(error?: unknown): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#error = error;
    this.#wake?.();
  }

  /** Iterates the values (once). */
  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.#iterated) {
      throw new TypeError("Cannot iterate the session events twice");
    }
    this.#iterated = true;
    for (;;) {
      while (this.#buffer.length > 0) yield this.#buffer.shift()!;
      if (this.#closed) {
        if (this.#error !== undefined) throw this.#error;
        return;
      }
      await new Promise<void>((resolve) => (this.#wake = resolve));
      this.#wake = undefined;
    }
  }
}
