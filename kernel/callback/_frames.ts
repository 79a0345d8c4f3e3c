/**
 * The length-prefixed frame protocol between the kernel and its callback
 * gateway subprocess, over a unix socket (no HTTP/2 on that hop).
 *
 * Layout, little endian: `u32 length` (of what follows), `u8 type`,
 * `u32 id`, then the payload.
 *
 * @module
 */

/** Frame types. */
export const Frame = {
  /** kernel → gateway: open an endpoint (id = endpoint id, JSON payload). */
  OPEN: 1,
  /** gateway → kernel: endpoint opened (JSON `{network,address}` or `{error}`). */
  OPENED: 2,
  /** kernel → gateway: close an endpoint. */
  CLOSE: 3,
  /** gateway → kernel: endpoint closed. */
  CLOSED: 4,
  /** kernel → gateway: one response message of a call. */
  DATA: 10,
  /** kernel → gateway: the call's status (`u32 code` + UTF-8 details). */
  END: 11,
  /** gateway → kernel: a call (`u32 endpoint`, `u16 method index`, request). */
  CALL: 20,
  /** gateway → kernel: the client cancelled the call. */
  CANCEL: 21,
} as const;

const HEADER = 9;
const MAX_FRAME = 512 * 1024 * 1024;

/**
 * Encodes one frame.
 *
 * @param type The frame type.
 * @param id The endpoint or call id.
 * @param payload The payload bytes.
 * @returns The encoded frame.
 */
export function encodeFrame(
  type: number,
  id: number,
  payload: Uint8Array,
): Uint8Array {
  const out = new Uint8Array(HEADER + payload.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, 5 + payload.length, true);
  view.setUint8(4, type);
  view.setUint32(5, id, true);
  out.set(payload, HEADER);
  return out;
}

/** A decoded frame. */
export interface DecodedFrame {
  /** The frame type. */
  type: number;
  /** The endpoint or call id. */
  id: number;
  /** The payload (a view; copy before keeping). */
  payload: Uint8Array;
}

/**
 * Reads frames from a connection.
 *
 * @param conn The connection.
 * @returns The frames, until the connection ends.
 * @throws {RangeError} On a frame larger than the protocol allows.
 */
export async function* readFrames(
  conn: { read(p: Uint8Array): Promise<number | null> },
): AsyncGenerator<DecodedFrame> {
  let buf = new Uint8Array(64 * 1024);
  let start = 0;
  let end = 0;
  while (true) {
    while (end - start >= 4) {
      const view = new DataView(buf.buffer, buf.byteOffset + start);
      const len = view.getUint32(0, true);
      if (len < 5 || len > MAX_FRAME) {
        throw new RangeError(`bad frame length ${len}`);
      }
      if (end - start < 4 + len) break;
      yield {
        type: buf[start + 4]!,
        id: view.getUint32(5, true),
        payload: buf.subarray(start + HEADER, start + 4 + len),
      };
      start += 4 + len;
    }
    if (start === end) {
      start = 0;
      end = 0;
    }
    const need = end - start >= 4
      ? 4 + new DataView(buf.buffer, buf.byteOffset + start).getUint32(0, true)
      : 64 * 1024;
    if (buf.length - start < need || buf.length - end < 4096) {
      const next = new Uint8Array(Math.max(buf.length, need + 64 * 1024));
      next.set(buf.subarray(start, end));
      end -= start;
      start = 0;
      buf = next;
    }
    const n = await conn.read(buf.subarray(end));
    if (n === null) return;
    end += n;
  }
}

/**
 * Coalesces frames into as few writes as possible and keeps their order.
 */
export class FrameWriter {
  #conn: { write(p: Uint8Array): Promise<number> };
  #queue: Uint8Array[] = [];
  #queued = 0;
  #writing = false;
  #failed: unknown;

  /** @param conn The connection to write to. */
  constructor(conn: { write(p: Uint8Array): Promise<number> }) {
    this.#conn = conn;
  }

  /** Queues one frame. */
  send(type: number, id: number, payload: Uint8Array = new Uint8Array()): void {
    if (this.#failed) return;
    const f = encodeFrame(type, id, payload);
    this.#queue.push(f);
    this.#queued += f.length;
    if (!this.#writing) void this.#flush();
  }

  async #flush(): Promise<void> {
    this.#writing = true;
    try {
      while (this.#queue.length > 0) {
        const parts = this.#queue;
        const total = this.#queued;
        this.#queue = [];
        this.#queued = 0;
        let chunk: Uint8Array;
        if (parts.length === 1) chunk = parts[0]!;
        else {
          chunk = new Uint8Array(total);
          let off = 0;
          for (const p of parts) {
            chunk.set(p, off);
            off += p.length;
          }
        }
        let written = 0;
        while (written < chunk.length) {
          written += await this.#conn.write(chunk.subarray(written));
        }
      }
    } catch (err) {
      this.#failed = err;
      this.#queue = [];
    } finally {
      this.#writing = false;
    }
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Encodes an END payload: `u32 code`, `u32` length of the UTF-8 details,
 * the details, then the binary `google.rpc.Status` of the status details
 * (empty when there are none).
 */
export function encodeStatus(
  code: number,
  details: string,
  statusBin: Uint8Array = new Uint8Array(),
): Uint8Array {
  const d = encoder.encode(details);
  const out = new Uint8Array(8 + d.length + statusBin.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, code, true);
  view.setUint32(4, d.length, true);
  out.set(d, 8);
  out.set(statusBin, 8 + d.length);
  return out;
}

/** Decodes an END payload. */
export function decodeStatus(
  p: Uint8Array,
): { code: number; details: string; statusBin?: Uint8Array } {
  const view = new DataView(p.buffer, p.byteOffset, p.byteLength);
  const n = view.getUint32(4, true);
  const rest = p.subarray(8 + n);
  return {
    code: view.getUint32(0, true),
    details: decoder.decode(p.subarray(8, 8 + n)),
    ...(rest.length ? { statusBin: rest } : {}),
  };
}

/** Encodes a CALL payload. */
export function encodeCall(
  endpoint: number,
  method: number,
  request: Uint8Array,
): Uint8Array {
  const out = new Uint8Array(6 + request.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, endpoint, true);
  v.setUint16(4, method, true);
  out.set(request, 6);
  return out;
}

/** Decodes a CALL payload. */
export function decodeCall(p: Uint8Array): {
  endpoint: number;
  method: number;
  request: Uint8Array;
} {
  const v = new DataView(p.buffer, p.byteOffset);
  return {
    endpoint: v.getUint32(0, true),
    method: v.getUint16(4, true),
    request: p.subarray(6),
  };
}

/** Encodes a JSON payload. */
export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

/** One method of the callback service, as the gateway serves it. */
export interface GatewayMethod {
  /** The handler name (the descriptor's `localName`). */
  name: string;
  /** The gRPC path, `/package.Service/Method`. */
  path: string;
  /** True for a server-streaming method (all others are unary). */
  streaming: boolean;
}

/**
 * The payload of an `OPEN` frame: where to listen and the methods to
 * serve, indexed as in `CALL` frames.
 */
export interface GatewayOpen {
  /** Listen on TCP 127.0.0.1 (at `address`'s port, or any). */
  tcp?: boolean;
  /** The unix socket path, or `127.0.0.1:port` with `tcp`. */
  address?: string;
  /** The service's methods in descriptor order. */
  methods: GatewayMethod[];
}

/** Decodes a JSON payload. */
export function decodeJson<T>(p: Uint8Array): T {
  return JSON.parse(decoder.decode(p)) as T;
}
