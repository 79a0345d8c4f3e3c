/**
 * Bounded draining of a plugin's stdout and stderr: the handshake line is
 * read with a size cap, everything after it is drained continuously (a
 * chatty child never blocks), and only a bounded tail plus rate-limited log
 * lines are kept, so a flooding plugin cannot grow the kernel's memory.
 *
 * @module
 */

/** The most bytes a plugin may print before its handshake line ends. */
export const MAX_HANDSHAKE_BYTES = 4096;
/** Bytes of stderr kept for error messages. */
export const STDERR_TAIL_BYTES = 8192;
/** Longest single log line relayed; longer lines are cut. */
export const MAX_LOG_LINE_BYTES = 4096;
/** Lines per second relayed to the log before the rest are counted. */
export const MAX_LOG_LINES_PER_SECOND = 200;

const decoder = new TextDecoder();

/** A fixed-size byte ring holding the last bytes of a stream. */
export class TailBuffer {
  #buf: Uint8Array;
  #len = 0;
  #start = 0;
  /** @param capacity Bytes kept. */
  constructor(capacity: number = STDERR_TAIL_BYTES) {
    this.#buf = new Uint8Array(capacity);
  }
  /** Appends bytes, forgetting the oldest beyond capacity. */
  push(chunk: Uint8Array): void {
    const cap = this.#buf.length;
    if (chunk.length >= cap) {
      this.#buf.set(chunk.subarray(chunk.length - cap));
      this.#start = 0;
      this.#len = cap;
      return;
    }
    for (let i = 0; i < chunk.length; i++) {
      this.#buf[(this.#start + this.#len) % cap] = chunk[i]!;
      if (this.#len < cap) this.#len++;
      else this.#start = (this.#start + 1) % cap;
    }
  }
  /** The kept bytes as text, starting at a line boundary when cut. */
  text(): string {
    const cap = this.#buf.length;
    const out = new Uint8Array(this.#len);
    for (let i = 0; i < this.#len; i++) {
      out[i] = this.#buf[(this.#start + i) % cap]!;
    }
    let s = decoder.decode(out);
    if (this.#len === cap) {
      const nl = s.indexOf("\n");
      if (nl >= 0 && nl < s.length - 1) s = s.slice(nl + 1);
    }
    return s;
  }
}

/** Receives complete lines, already cut to {@linkcode MAX_LOG_LINE_BYTES}. */
export type LineSink = (line: string) => void;

/**
 * Splits a byte stream into lines with a per-line cap and a rate limit.
 * Lines over the rate are counted and reported once per second through
 * `onDropped`.
 */
export class LineSplitter {
  #pending: Uint8Array[] = [];
  #pendingLen = 0;
  #truncated = false;
  #windowStart = 0;
  #windowCount = 0;
  #dropped = 0;
  #sink: LineSink;
  #onDropped: (count: number) => void;

  /**
   * @param sink Receives each line.
   * @param onDropped Told how many lines the rate limit dropped.
   */
  constructor(sink: LineSink, onDropped: (count: number) => void) {
    this.#sink = sink;
    this.#onDropped = onDropped;
  }

  /** Feeds a chunk. */
  push(chunk: Uint8Array): void {
    let from = 0;
    for (let i = 0; i < chunk.length; i++) {
      if (chunk[i] === 10) {
        this.#append(chunk.subarray(from, i));
        this.#emit();
        from = i + 1;
      }
    }
    if (from < chunk.length) this.#append(chunk.subarray(from));
  }

  /** Emits any unterminated last line and the final drop count. */
  end(): void {
    if (this.#pendingLen > 0 || this.#truncated) this.#emit();
    if (this.#dropped > 0) this.#onDropped(this.#dropped);
    this.#dropped = 0;
  }

  #append(bytes: Uint8Array): void {
    const room = MAX_LOG_LINE_BYTES - this.#pendingLen;
    if (room <= 0) {
      if (bytes.length > 0) this.#truncated = true;
      return;
    }
    const take = bytes.length > room ? bytes.subarray(0, room) : bytes;
    if (take.length < bytes.length) this.#truncated = true;
    if (take.length > 0) {
      this.#pending.push(take.slice());
      this.#pendingLen += take.length;
    }
  }

  #emit(): void {
    const parts = this.#pending;
    const len = this.#pendingLen;
    const truncated = this.#truncated;
    this.#pending = [];
    this.#pendingLen = 0;
    this.#truncated = false;
    const now = Date.now();
    if (now - this.#windowStart >= 1000) {
      if (this.#dropped > 0) this.#onDropped(this.#dropped);
      this.#dropped = 0;
      this.#windowStart = now;
      this.#windowCount = 0;
    }
    if (this.#windowCount >= MAX_LOG_LINES_PER_SECOND) {
      this.#dropped++;
      return;
    }
    this.#windowCount++;
    const all = new Uint8Array(len);
    let off = 0;
    for (const p of parts) {
      all.set(p, off);
      off += p.length;
    }
    let line = decoder.decode(all).replace(/\r$/, "");
    if (truncated) line += " …(line truncated)";
    this.#sink(line);
  }
}

/** Outcome of waiting for the handshake line. */
export type HandshakeRead =
  | { kind: "line"; line: string }
  | { kind: "too_long"; preview: string }
  | { kind: "eof"; preview: string };

/**
 * Reads a plugin's stdout: resolves with the first line (capped at
 * {@linkcode MAX_HANDSHAKE_BYTES}), then keeps draining the stream into
 * `afterHandshake` until it ends.
 *
 * @param stream The child's stdout.
 * @param afterHandshake Receives every later chunk.
 * @returns The first line, or why there is none.
 */
export function readHandshake(
  stream: ReadableStream<Uint8Array>,
  afterHandshake: (chunk: Uint8Array) => void,
): Promise<HandshakeRead> {
  return new Promise((resolve) => {
    const head: number[] = [];
    let done = false;
    const finish = (r: HandshakeRead) => {
      if (!done) {
        done = true;
        resolve(r);
      }
    };
    (async () => {
      try {
        for await (const chunk of stream) {
          if (done) {
            afterHandshake(chunk);
            continue;
          }
          const nl = chunk.indexOf(10);
          const upto = nl >= 0 ? nl : chunk.length;
          for (let i = 0; i < upto && head.length <= MAX_HANDSHAKE_BYTES; i++) {
            head.push(chunk[i]!);
          }
          if (head.length > MAX_HANDSHAKE_BYTES) {
            finish({
              kind: "too_long",
              preview: decoder.decode(new Uint8Array(head.slice(0, 200))),
            });
            continue;
          }
          if (nl >= 0) {
            finish({
              kind: "line",
              line: decoder.decode(new Uint8Array(head)),
            });
            if (nl + 1 < chunk.length) afterHandshake(chunk.subarray(nl + 1));
          }
        }
      } catch {
        // the pipe closed under us: treated as end of stream
      }
      finish({
        kind: "eof",
        preview: decoder.decode(new Uint8Array(head.slice(0, 200))),
      });
    })();
  });
}

/**
 * Drains a stream into a sink until it ends.
 *
 * @param stream The stream to drain.
 * @param sink Receives every chunk.
 * @returns Resolves when the stream has ended.
 */
export async function drain(
  stream: ReadableStream<Uint8Array>,
  sink: (chunk: Uint8Array) => void,
): Promise<void> {
  try {
    for await (const chunk of stream) sink(chunk);
  } catch {
    // closed
  }
}
