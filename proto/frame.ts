/**
 * The framed transport between the kernel and Deno plugins built on our
 * SDK: many calls multiplexed over one unix socket, in both directions
 * (the kernel calls the plugin's services, the plugin calls the kernel's
 * callback service), with no HTTP/2 underneath. Messages are the same
 * protobuf bytes as over gRPC, and a call ends with a gRPC status code,
 * message and details, so handlers and clients are those of
 * `grpc_adapter.ts` (see `rpc.ts`).
 *
 * Each call has an id: odd when the dialing side opened it, even for the
 * listening side. Frames (`_frame_io.ts`): HEADERS opens a call (method
 * path, deadline, request headers), MESSAGE carries one message,
 * HALF_CLOSE ends a side's messages, TRAILERS ends the call with its
 * status, CANCEL gives it up, WINDOW returns flow-control credit. A
 * sender keeps at most {@linkcode CALL_WINDOW_BYTES} unacknowledged per
 * call (a larger message goes alone) and waits while the connection has
 * {@linkcode CONNECTION_QUEUE_BYTES} queued. A frame that breaks these
 * rules closes the connection with an error that says which rule.
 *
 * Negotiated in the go-plugin handshake (`frame` as the protocol field)
 * and used only over unix sockets.
 *
 * @example Serve and call over a socket pair
 * ```ts ignore
 * const conn = new FrameConnection(await Deno.connect({ transport: "unix", path }), { dialer: true });
 * const health = conn.client(Health);
 * await health.check({ service: "plugin" });
 * ```
 *
 * @module
 */
import {
  type DescMethod,
  type DescService,
  fromBinary,
  toBinary,
} from "@bufbuild/protobuf";
import { Code, GrpcStatusError } from "./grpc_status.ts";
import {
  decodeStatus,
  encodeStatusDetails,
  toStatusError,
} from "./_status_details.ts";
import {
  CALL_WINDOW_BYTES,
  FrameReader,
  FrameType,
  FrameWriter,
} from "./_frame_io.ts";
import {
  type CallMetadata,
  type CallOptions,
  type HandlerContext,
  methodPath,
  type ServiceClient,
  type ServiceImpl,
  toMessage,
} from "./rpc.ts";

export {
  CALL_WINDOW_BYTES,
  CONNECTION_QUEUE_BYTES,
  FrameType,
  MAX_FRAME_BYTES,
} from "./_frame_io.ts";

/** The protocol name in the handshake line's fifth field. */
export const FRAME_PROTOCOL = "frame";

/** Options of {@linkcode FrameConnection}. */
export interface FrameConnectionOptions {
  /**
   * This side dialed the connection (its calls get odd ids).
   * @default {false}
   */
  dialer?: boolean;
}

/** A call's opening frame. */
interface CallHead {
  path: string;
  timeoutMs?: number;
  headers?: Record<string, string>;
}

type Handler = (...args: unknown[]) => unknown;

/** The messages one side of a call receives, with flow-control credit. */
class Inbox {
  #items: Uint8Array[] = [];
  #waiter: (() => void) | undefined;
  #end: { error?: Error } | undefined;
  /** Bytes received and not yet consumed. */
  outstanding = 0;
  #ack: (n: number) => void;

  constructor(ack: (n: number) => void) {
    this.#ack = ack;
  }

  push(bytes: Uint8Array): void {
    this.outstanding += bytes.length;
    this.#items.push(bytes);
    this.#wake();
  }

  end(error?: Error): void {
    this.#end ??= error ? { error } : {};
    this.#wake();
  }

  #wake(): void {
    const w = this.#waiter;
    this.#waiter = undefined;
    w?.();
  }

  /** The next message, or `undefined` at the end. */
  async next(): Promise<Uint8Array | undefined> {
    while (true) {
      const item = this.#items.shift();
      if (item) {
        this.outstanding -= item.length;
        if (item.length > 0) this.#ack(item.length);
        return item;
      }
      if (this.#end) {
        if (this.#end.error) throw this.#end.error;
        return undefined;
      }
      await new Promise<void>((r) => (this.#waiter = r));
    }
  }
}

/** The state of one call, on either side. */
interface Call {
  readonly id: number;
  readonly inbox: Inbox;
  /** MESSAGE bytes sent and not yet acknowledged. */
  sent: number;
  windowWaiters: (() => void)[];
  /** Set when the call is over for this side (no more sends). */
  done: boolean;
  /** The peer cancelled (server side) or the connection closed. */
  onAbort(reason: GrpcStatusError): void;
  /** The caller's side: the trailers arrived (its timers can go). */
  onTrailers?: () => void;
}

/** Request headers as {@linkcode CallMetadata}. */
function metadataOf(headers: Record<string, string> | undefined): CallMetadata {
  return {
    get: (key: string) => {
      const v = headers?.[key.toLowerCase()];
      return v === undefined ? [] : [v];
    },
  };
}

/** The ASCII values of a grpc-js `Metadata` (its `getMap()`), as headers. */
function metadataHeaders(md: CallMetadata | undefined): Record<string, string> {
  const map = (md as { getMap?: () => Record<string, unknown> } | undefined)
    ?.getMap?.() ?? {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(map)) {
    if (typeof v === "string") out[k.toLowerCase()] = v;
  }
  return out;
}

/** Maps a thrown value to a status, `UNKNOWN` as `INTERNAL`. */
function statusOf(err: unknown): GrpcStatusError {
  const status = toStatusError(err);
  return status.code === Code.UNKNOWN
    ? new GrpcStatusError(Code.INTERNAL, status.message, {
      details: status.details,
    })
    : status;
}

/**
 * One framed connection: serves the services registered with
 * {@linkcode FrameConnection.serve} and opens calls through
 * {@linkcode FrameConnection.client}.
 */
export class FrameConnection {
  #conn: Deno.Conn;
  #writer: FrameWriter;
  #calls = new Map<number, Call>();
  #handlers = new Map<string, { method: DescMethod; fn: Handler }>();
  #nextId: number;
  #lastRemoteId = 0;
  #closed = false;
  #done = Promise.withResolvers<Error | undefined>();
  #remoteParity: number;

  /**
   * Starts reading `conn`.
   *
   * @param conn A connected unix socket.
   * @param options Which side this is.
   */
  constructor(conn: Deno.Conn, options: FrameConnectionOptions = {}) {
    this.#conn = conn;
    this.#nextId = options.dialer ? 1 : 2;
    this.#remoteParity = options.dialer ? 0 : 1;
    this.#writer = new FrameWriter(conn, (err) => this.#shutdown(err));
    void this.#read();
  }

  /**
   * Resolves when the connection has ended: `undefined` for a clean end
   * (either side closed it), or the error that ended it (a protocol
   * violation names the rule).
   */
  get closed(): Promise<Error | undefined> {
    return this.#done.promise;
  }

  /** True once the connection has ended. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /**
   * Serves `impl` for `service` on this connection.
   *
   * @param service The generated service descriptor.
   * @param impl A handler for every method.
   * @throws {TypeError} When a handler is missing or a method is client
   * streaming.
   */
  serve<S extends DescService>(service: S, impl: ServiceImpl<S>): void {
    const fns = impl as Record<string, Handler>;
    for (const m of service.methods) {
      const fn = fns[m.localName];
      if (typeof fn !== "function") {
        throw new TypeError(
          `Cannot serve "${service.typeName}": no handler for "${m.localName}"`,
        );
      }
      if (m.methodKind === "client_streaming") {
        throw new TypeError(
          `Cannot serve "${service.typeName}": client streaming is not supported`,
        );
      }
      this.#handlers.set(methodPath(m), { method: m, fn });
    }
  }

  /**
   * A typed client for `service` over this connection.
   *
   * @param service The generated service descriptor.
   * @returns Methods named after the service's RPCs.
   */
  client<S extends DescService>(service: S): ServiceClient<S> {
    const out: Record<string, unknown> = {};
    for (const m of service.methods) {
      const path = methodPath(m);
      const encode = (v: unknown) =>
        toBinary(m.input, toMessage(m.input, v as never));
      const decode = (b: Uint8Array) => fromBinary(m.output, b);
      switch (m.methodKind) {
        case "unary":
          out[m.localName] = async (req: unknown, options?: CallOptions) => {
            const call = this.#open(path, options);
            call.send(encode(req));
            call.halfClose();
            const first = await call.next();
            if (first === undefined) {
              throw new GrpcStatusError(
                Code.INTERNAL,
                `no response message for "${path}"`,
              );
            }
            // The trailers: OK ends the call, an error status throws.
            if (await call.next() !== undefined) {
              call.cancel();
              throw new GrpcStatusError(
                Code.INTERNAL,
                `more than one response message for "${path}"`,
              );
            }
            return decode(first);
          };
          break;
        case "server_streaming":
          out[m.localName] = (req: unknown, options?: CallOptions) => {
            const call = this.#open(path, options);
            call.send(encode(req));
            call.halfClose();
            return readAll(call, decode);
          };
          break;
        case "bidi_streaming":
          out[m.localName] = (options?: CallOptions) => {
            const call = this.#open(path, options);
            return {
              send: (msg: unknown) => call.send(encode(msg)),
              end: () => call.halfClose(),
              cancel: () => call.cancel(),
              responses: readAll(call, decode),
            };
          };
          break;
        default:
          throw new TypeError(
            `Cannot create a client for "${service.typeName}": client streaming is not supported`,
          );
      }
    }
    return out as ServiceClient<S>;
  }

  /** Ends the connection: calls in flight fail with `UNAVAILABLE`. */
  close(): void {
    this.#shutdown(undefined);
  }

  #shutdown(err: unknown): void {
    if (this.#closed) return;
    this.#closed = true;
    const reason = err === undefined
      ? undefined
      : err instanceof Error
      ? err
      : new Error(String(err));
    const status = new GrpcStatusError(
      Code.UNAVAILABLE,
      `the connection closed${reason ? `: ${reason.message}` : ""}`,
      reason ? { cause: reason } : {},
    );
    for (const call of this.#calls.values()) call.onAbort(status);
    this.#calls.clear();
    try {
      this.#conn.close();
    } catch {
      // already closed
    }
    this.#done.resolve(reason);
  }

  async #read(): Promise<void> {
    const reader = new FrameReader(this.#conn);
    try {
      while (!this.#closed) {
        const frame = await reader.next();
        if (!frame) break;
        this.#dispatch(frame.header.callId, frame.header.type, frame.payload);
      }
      this.#shutdown(undefined);
    } catch (err) {
      if (this.#closed) return;
      if (err instanceof Deno.errors.BadResource) this.#shutdown(undefined);
      else {
        this.#shutdown(
          new Error(
            `Cannot read frame: ${err instanceof Error ? err.message : err}`,
            { cause: err },
          ),
        );
      }
    }
  }

  #dispatch(id: number, type: number, payload: Uint8Array): void {
    const remote = id % 2 === this.#remoteParity;
    if (id === 0) throw new Error(`call id 0 in a frame of type ${type}`);
    if (type === FrameType.HEADERS) {
      if (!remote || id <= this.#lastRemoteId) {
        throw new Error(`HEADERS for call ${id}, which cannot be opened now`);
      }
      this.#lastRemoteId = id;
      this.#accept(id, parseHead(id, payload));
      return;
    }
    if (type < FrameType.MESSAGE || type > FrameType.WINDOW) {
      throw new Error(`unknown frame type ${type} on call ${id}`);
    }
    const call = this.#calls.get(id);
    if (!call) {
      // A call that ended here may still get the peer's late frames.
      if (remote && id > this.#lastRemoteId) {
        throw new Error(`frame of type ${type} on call ${id}, never opened`);
      }
      return;
    }
    switch (type) {
      case FrameType.MESSAGE:
        if (call.inbox.outstanding >= CALL_WINDOW_BYTES) {
          throw new Error(
            `call ${id} sent a message beyond its flow-control window of ${CALL_WINDOW_BYTES} bytes`,
          );
        }
        call.inbox.push(payload);
        break;
      case FrameType.HALF_CLOSE:
        call.inbox.end();
        break;
      case FrameType.TRAILERS: {
        if (remote) throw new Error(`TRAILERS from the caller of call ${id}`);
        const status = parseStatus(id, payload);
        this.#calls.delete(id);
        call.done = true;
        call.onTrailers?.();
        call.inbox.end(status);
        this.#wakeWindow(call);
        break;
      }
      case FrameType.CANCEL:
        this.#calls.delete(id);
        call.onAbort(
          new GrpcStatusError(Code.CANCELLED, "the caller cancelled the call"),
        );
        break;
      case FrameType.WINDOW: {
        if (payload.length !== 4) {
          throw new Error(
            `WINDOW frame of ${payload.length} bytes on call ${id}, expected 4`,
          );
        }
        const n = new DataView(payload.buffer, payload.byteOffset).getUint32(0);
        call.sent = Math.max(0, call.sent - n);
        this.#wakeWindow(call);
        break;
      }
    }
  }

  #wakeWindow(call: Call): void {
    for (const w of call.windowWaiters.splice(0)) w();
  }

  /** Sends one message on a call, within its window and the queue bound. */
  async #sendMessage(call: Call, bytes: Uint8Array): Promise<void> {
    while (call.sent >= CALL_WINDOW_BYTES && !call.done && !this.#closed) {
      await new Promise<void>((r) => call.windowWaiters.push(r));
    }
    await this.#writer.room();
    if (call.done || this.#closed) return;
    call.sent += bytes.length;
    this.#writer.send(call.id, FrameType.MESSAGE, bytes);
  }

  #newCall(id: number, onAbort: (reason: GrpcStatusError) => void): Call {
    const call: Call = {
      id,
      inbox: new Inbox((n) => {
        if (this.#calls.has(id)) {
          const b = new Uint8Array(4);
          new DataView(b.buffer).setUint32(0, n);
          this.#writer.send(id, FrameType.WINDOW, b);
        }
      }),
      sent: 0,
      windowWaiters: [],
      done: false,
      onAbort: (reason) => {
        call.done = true;
        this.#wakeWindow(call);
        onAbort(reason);
      },
    };
    this.#calls.set(id, call);
    return call;
  }

  /** Opens a call toward the peer. */
  #open(path: string, options: CallOptions | undefined): ClientCall {
    const id = this.#nextId;
    this.#nextId += 2;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const cleanup = () => {
      clearTimeout(timer);
      options?.signal?.removeEventListener("abort", onSignal);
    };
    const call = this.#newCall(id, (reason) => {
      cleanup();
      call.inbox.end(reason);
    });
    call.onTrailers = cleanup;
    const giveUp = (status: GrpcStatusError) => {
      if (call.done) return;
      cleanup();
      call.done = true;
      if (this.#calls.delete(id)) this.#writer.send(id, FrameType.CANCEL);
      this.#wakeWindow(call);
      call.inbox.end(status);
    };
    const onSignal = () =>
      giveUp(new GrpcStatusError(Code.CANCELLED, "the call was cancelled"));
    let sends = Promise.resolve();
    const handle: ClientCall = {
      send: (bytes) => {
        sends = sends.then(() => this.#sendMessage(call, bytes));
      },
      halfClose: () => {
        sends = sends.then(() => {
          if (!call.done) this.#writer.send(id, FrameType.HALF_CLOSE);
        });
      },
      next: () => call.inbox.next(),
      cancel: onSignal,
    };
    if (this.#closed) {
      call.onAbort(
        new GrpcStatusError(Code.UNAVAILABLE, "the connection is closed"),
      );
      this.#calls.delete(id);
      return handle;
    }
    const head: CallHead = { path };
    if (options?.timeoutMs !== undefined) head.timeoutMs = options.timeoutMs;
    const headers = {
      ...metadataHeaders(options?.metadata),
      ...options?.headers,
    };
    if (Object.keys(headers).length > 0) head.headers = headers;
    this.#writer.send(
      id,
      FrameType.HEADERS,
      new TextEncoder().encode(JSON.stringify(head)),
    );
    if (options?.timeoutMs !== undefined) {
      timer = setTimeout(
        () =>
          giveUp(
            new GrpcStatusError(
              Code.DEADLINE_EXCEEDED,
              `deadline of ${options.timeoutMs} ms exceeded`,
            ),
          ),
        options.timeoutMs,
      );
    }
    if (options?.signal?.aborted) onSignal();
    else options?.signal?.addEventListener("abort", onSignal, { once: true });
    return handle;
  }

  /** Serves a call the peer opened. */
  #accept(id: number, head: CallHead): void {
    const ac = new AbortController();
    const call = this.#newCall(id, (reason) => {
      call.inbox.end(reason);
      ac.abort(reason);
    });
    const entry = this.#handlers.get(head.path);
    const finish = (status: GrpcStatusError | undefined) => {
      clearTimeout(timer);
      if (call.done) return;
      call.done = true;
      this.#calls.delete(id);
      this.#wakeWindow(call);
      this.#writer.send(
        id,
        FrameType.TRAILERS,
        encodeStatusDetails(
          status?.code ?? Code.OK,
          status?.message ?? "",
          status?.details ?? [],
        ),
      );
      ac.abort();
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (head.timeoutMs !== undefined) {
      timer = setTimeout(
        () =>
          finish(
            new GrpcStatusError(Code.DEADLINE_EXCEEDED, "deadline exceeded"),
          ),
        head.timeoutMs,
      );
    }
    if (!entry) {
      finish(
        new GrpcStatusError(
          Code.UNIMPLEMENTED,
          `The server does not implement the method ${head.path}`,
        ),
      );
      return;
    }
    const { method, fn } = entry;
    const ctx: HandlerContext = {
      signal: ac.signal,
      metadata: metadataOf(head.headers),
    };
    const decode = (b: Uint8Array) => fromBinary(method.input, b);
    const encode = (v: unknown) =>
      toBinary(method.output, toMessage(method.output, v as never));
    void (async () => {
      if (
        method.methodKind === "unary" ||
        method.methodKind === "server_streaming"
      ) {
        const first = await call.inbox.next();
        if (first === undefined) {
          throw new GrpcStatusError(Code.INTERNAL, "no request message");
        }
        const req = decode(first);
        if (method.methodKind === "unary") {
          const res = await fn(req, ctx);
          if (!call.done) await this.#sendMessage(call, encode(res));
        } else {
          await this.#sendAll(
            call,
            fn(req, ctx) as AsyncIterable<unknown>,
            encode,
          );
        }
      } else {
        const reqs = (async function* () {
          while (true) {
            const b = await call.inbox.next();
            if (b === undefined) return;
            yield decode(b);
          }
        })();
        await this.#sendAll(
          call,
          fn(reqs, ctx) as AsyncIterable<unknown>,
          encode,
        );
      }
      finish(undefined);
    })().catch((err) => {
      if (!call.done) finish(statusOf(err));
    });
  }

  async #sendAll(
    call: Call,
    responses: AsyncIterable<unknown>,
    encode: (v: unknown) => Uint8Array,
  ): Promise<void> {
    const it = responses[Symbol.asyncIterator]();
    try {
      while (!call.done) {
        const r = await it.next();
        if (r.done) return;
        await this.#sendMessage(call, encode(r.value));
      }
    } finally {
      if (call.done) await it.return?.();
    }
  }
}

/** The caller's handle of a call. */
interface ClientCall {
  send(bytes: Uint8Array): void;
  halfClose(): void;
  next(): Promise<Uint8Array | undefined>;
  /** Gives the call up (nothing once it has ended). */
  cancel(): void;
}

async function* readAll<T>(
  call: ClientCall,
  decode: (b: Uint8Array) => T,
): AsyncGenerator<T> {
  try {
    while (true) {
      const b = await call.next();
      if (b === undefined) return;
      yield decode(b);
    }
  } finally {
    // A reader that stopped early gives the call up; an ended call ignores it.
    call.cancel();
  }
}

function parseHead(id: number, payload: Uint8Array): CallHead {
  let head: unknown;
  try {
    head = JSON.parse(new TextDecoder().decode(payload));
  } catch {
    throw new Error(`HEADERS of call ${id} are not JSON`);
  }
  const h = head as Partial<CallHead> | null;
  if (
    !h || typeof h !== "object" || typeof h.path !== "string" ||
    (h.timeoutMs !== undefined && typeof h.timeoutMs !== "number") ||
    (h.headers !== undefined &&
      (typeof h.headers !== "object" || h.headers === null ||
        Object.values(h.headers).some((v) => typeof v !== "string")))
  ) {
    throw new Error(
      `HEADERS of call ${id} must be {"path": string, "timeoutMs"?: number, "headers"?: {string: string}}`,
    );
  }
  return h as CallHead;
}

/** The call's status: `undefined` for OK, else its error. */
function parseStatus(
  id: number,
  payload: Uint8Array,
): GrpcStatusError | undefined {
  let status;
  try {
    status = decodeStatus(payload);
  } catch {
    throw new Error(`TRAILERS of call ${id} are not a google.rpc.Status`);
  }
  if (status.code === Code.OK) return undefined;
  return new GrpcStatusError(status.code as Code, status.message, {
    details: status.details,
  });
}
