/**
 * The wire of the framed transport (`frame.ts`): the frame header, the
 * frame types and limits, a buffered exact reader and a bounded writer
 * over one `Deno.Conn`.
 *
 * A frame is a 9-byte header, `u32 payload length | u32 call id | u8
 * type` (big endian), followed by its payload.
 *
 * @module
 */

/** The frame types. */
export const FrameType = {
  /** Opens a call: JSON `{ path, timeoutMs?, headers? }`. */
  HEADERS: 1,
  /** One protobuf message. */
  MESSAGE: 2,
  /** The sender has no more messages (its side of the call is done). */
  HALF_CLOSE: 3,
  /** Ends a call: a binary `google.rpc.Status` (code 0 is OK). */
  TRAILERS: 4,
  /** The caller gave the call up; no trailers follow. */
  CANCEL: 5,
  /** `u32` bytes of MESSAGE payload the receiver has consumed. */
  WINDOW: 6,
} as const;

/** A frame type. */
export type FrameType = typeof FrameType[keyof typeof FrameType];

/** Bytes of the frame header. */
export const FRAME_HEADER_BYTES = 9;
/** The largest payload accepted (gRPC's limit on our connections). */
export const MAX_FRAME_BYTES: number = 256 * 1024 * 1024;
/** The largest payload of a frame that carries no message or status. */
export const MAX_CONTROL_FRAME_BYTES: number = 64 * 1024;
/**
 * Bytes of MESSAGE payload a sender may have unacknowledged on one call
 * before it waits for a WINDOW frame (a larger message goes alone).
 */
export const CALL_WINDOW_BYTES: number = 1024 * 1024;
/** Bytes queued on a connection above which message senders wait. */
export const CONNECTION_QUEUE_BYTES: number = 4 * 1024 * 1024;

/** The header of a frame, with the payload's length. */
export interface FrameHeader {
  /** The payload's length. */
  length: number;
  /** The call the frame belongs to. */
  callId: number;
  /** The frame type (unchecked). */
  type: number;
}

/**
 * Encodes a frame header.
 *
 * @param callId The call.
 * @param type The frame type.
 * @param length The payload's length.
 * @returns The 9 bytes.
 */
export function encodeHeader(
  callId: number,
  type: FrameType,
  length: number,
): Uint8Array {
  const out = new Uint8Array(FRAME_HEADER_BYTES);
  const view = new DataView(out.buffer);
  view.setUint32(0, length);
  view.setUint32(4, callId);
  view.setUint8(8, type);
  return out;
}

/**
 * Reads exact byte counts from a connection through one buffer; a large
 * read goes straight into its destination.
 */
export class FrameReader {
  #conn: Deno.Conn;
  #buf = new Uint8Array(64 * 1024);
  #start = 0;
  #end = 0;

  /**
   * Creates a reader.
   *
   * @param conn The connection.
   */
  constructor(conn: Deno.Conn) {
    this.#conn = conn;
  }

  /**
   * Reads the next frame.
   *
   * @returns Its header and payload, or `undefined` at a clean end.
   * @throws {Error} When the connection ends inside a frame, or the
   * length is above {@linkcode MAX_FRAME_BYTES}.
   */
  async next(): Promise<
    { header: FrameHeader; payload: Uint8Array } | undefined
  > {
    const head = new Uint8Array(FRAME_HEADER_BYTES);
    if (!await this.#fill(head, true)) return undefined;
    const view = new DataView(head.buffer);
    const header = {
      length: view.getUint32(0),
      callId: view.getUint32(4),
      type: view.getUint8(8),
    };
    if (header.length > MAX_FRAME_BYTES) {
      throw new Error(
        `frame of ${header.length} bytes on call ${header.callId} is above the limit of ${MAX_FRAME_BYTES}`,
      );
    }
    if (
      header.type !== FrameType.MESSAGE && header.type !== FrameType.TRAILERS &&
      header.length > MAX_CONTROL_FRAME_BYTES
    ) {
      throw new Error(
        `frame of type ${header.type} and ${header.length} bytes on call ${header.callId} is above the limit of ${MAX_CONTROL_FRAME_BYTES} for frames without a message`,
      );
    }
    const payload = new Uint8Array(header.length);
    await this.#fill(payload, false);
    return { header, payload };
  }

  async #fill(dst: Uint8Array, atStart: boolean): Promise<boolean> {
    let filled = 0;
    while (filled < dst.length) {
      if (this.#end > this.#start) {
        const n = Math.min(dst.length - filled, this.#end - this.#start);
        dst.set(this.#buf.subarray(this.#start, this.#start + n), filled);
        this.#start += n;
        filled += n;
        continue;
      }
      const direct = dst.length - filled >= this.#buf.length;
      const n = direct
        ? await this.#conn.read(dst.subarray(filled))
        : await this.#conn.read(this.#buf);
      if (n === null) {
        if (atStart && filled === 0) return false;
        throw new Error("the connection ended inside a frame");
      }
      if (direct) filled += n;
      else {
        this.#start = 0;
        this.#end = n;
      }
    }
    return true;
  }
}

/**
 * Writes frames in order, batching what queued while a write ran;
 * {@linkcode FrameWriter.room} waits while more than
 * {@linkcode CONNECTION_QUEUE_BYTES} are queued.
 */
export class FrameWriter {
  #conn: Deno.Conn;
  #queue: Uint8Array[] = [];
  #queued = 0;
  #pumping = false;
  #waiters: (() => void)[] = [];
  #onError: (err: unknown) => void;
  #failed = false;

  /**
   * Creates a writer.
   *
   * @param conn The connection.
   * @param onError Called once when a write fails.
   */
  constructor(conn: Deno.Conn, onError: (err: unknown) => void) {
    this.#conn = conn;
    this.#onError = onError;
  }

  /**
   * Queues one frame.
   *
   * @param callId The call.
   * @param type The frame type.
   * @param payload The payload.
   */
  send(callId: number, type: FrameType, payload?: Uint8Array): void {
    if (this.#failed) return;
    const length = payload?.length ?? 0;
    this.#queue.push(encodeHeader(callId, type, length));
    if (payload && length > 0) this.#queue.push(payload);
    this.#queued += FRAME_HEADER_BYTES + length;
    if (!this.#pumping) void this.#pump();
  }

  /** Resolves when the queue is at or below its bound. */
  async room(): Promise<void> {
    while (this.#queued > CONNECTION_QUEUE_BYTES && !this.#failed) {
      await new Promise<void>((r) => this.#waiters.push(r));
    }
  }

  /** Bytes queued and not yet written. */
  get queued(): number {
    return this.#queued;
  }

  async #pump(): Promise<void> {
    this.#pumping = true;
    try {
      while (this.#queue.length > 0) {
        const parts = this.#queue.splice(0);
        const batch = parts.length === 1 ? parts[0]! : concat(parts);
        let written = 0;
        while (written < batch.length) {
          written += await this.#conn.write(batch.subarray(written));
        }
        this.#queued -= batch.length;
        if (this.#queued <= CONNECTION_QUEUE_BYTES) this.#wake();
      }
    } catch (err) {
      this.#failed = true;
      this.#queue = [];
      this.#queued = 0;
      this.#wake();
      this.#onError(err);
    } finally {
      this.#pumping = false;
    }
  }

  #wake(): void {
    for (const w of this.#waiters.splice(0)) w();
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}
