/**
 * The one adapter between protobuf-es generated services and `@grpc/grpc-js`.
 *
 * A generated {@linkcode DescService} becomes a grpc-js service definition
 * (method path `/<package>.<Service>/<Method>`, binary serializers) and a
 * typed client whose methods return promises (unary), async iterables
 * (server streaming) or a {@linkcode BidiCall} (bidirectional streaming).
 * Handlers are plain async functions and async generators that receive an
 * {@linkcode AbortSignal} which fires when the caller cancels.
 *
 * @example Serve and call a service
 * ```ts ignore
 * import * as grpc from "@grpc/grpc-js";
 * import { addService, createClient } from "@ph/agent/proto";
 * import { Health } from "./gen/grpc/health/v1/health_pb.ts";
 *
 * const server = new grpc.Server();
 * addService(server, Health, {
 *   check: () => ({ status: 1 }),
 *   async *watch() {},
 * });
 * const client = createClient(Health, new grpc.Client("unix:/tmp/s", grpc.credentials.createInsecure()));
 * await client.check({ service: "plugin" });
 * ```
 *
 * @module
 */
import * as grpc from "@grpc/grpc-js";
import {
  type DescMessage,
  type DescService,
  fromBinary,
  type MessageShape,
  toBinary,
} from "@bufbuild/protobuf";
import {
  type CallOptions as RpcCallOptions,
  type HandlerContext as RpcHandlerContext,
  type Init,
  methodPath,
  type ServiceClient,
  type ServiceImpl,
  toMessage,
} from "./rpc.ts";

export {
  type BidiCall,
  type CallMetadata,
  type ClientMethodFor,
  type HandlerFor,
  type Init,
  methodPath,
  type ServiceClient,
  type ServiceImpl,
  toMessage,
} from "./rpc.ts";
export {
  Code,
  codeName,
  GRPC_JS_ENV,
  GrpcStatusError,
  type GrpcStatusErrorOptions,
  type StatusDetail,
} from "./grpc_status.ts";
export { STATUS_DETAILS_KEY } from "./_status_details.ts";
import { GrpcStatusError, type StatusDetail } from "./grpc_status.ts";
import {
  decodeStatusDetails,
  encodeStatusDetails,
  STATUS_DETAILS_KEY,
  toStatusError,
} from "./_status_details.ts";

/** What a handler learns about the call it serves (grpc-js metadata). */
export interface HandlerContext extends RpcHandlerContext {
  /** The request metadata (gRPC headers). */
  readonly metadata: grpc.Metadata;
}

/** Per-call options for client methods. */
export type CallOptions = RpcCallOptions;

function metadataOf(options: CallOptions | undefined): grpc.Metadata {
  const md = options?.metadata instanceof grpc.Metadata
    ? options.metadata.clone()
    : new grpc.Metadata();
  for (const [k, v] of Object.entries(options?.headers ?? {})) md.set(k, v);
  return md;
}

function serializer<M extends DescMessage>(schema: M) {
  return (value: Init<M>): Buffer => {
    const bytes = toBinary(schema, toMessage(schema, value));
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
}

function deserializer<M extends DescMessage>(schema: M) {
  return (buf: Buffer): MessageShape<M> => fromBinary(schema, buf);
}

/** Maps any thrown value to a grpc-js status object (never `UNKNOWN`). */
export function toStatusObject(
  err: unknown,
): Partial<grpc.StatusObject> & { code: grpc.status; details: string } {
  const status = toStatusError(err);
  if (status.details.length === 0) {
    return { code: status.code, details: status.message };
  }
  const metadata = new grpc.Metadata();
  metadata.set(
    STATUS_DETAILS_KEY,
    Buffer.from(
      encodeStatusDetails(status.code, status.message, status.details),
    ),
  );
  return { code: status.code, details: status.message, metadata };
}

function definitionFor(service: DescService): grpc.ServiceDefinition {
  const def: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  for (const m of service.methods) {
    def[m.localName] = {
      path: methodPath(m),
      requestStream: m.methodKind === "client_streaming" ||
        m.methodKind === "bidi_streaming",
      responseStream: m.methodKind === "server_streaming" ||
        m.methodKind === "bidi_streaming",
      requestSerialize: serializer(m.input) as (v: unknown) => Buffer,
      requestDeserialize: deserializer(m.input),
      responseSerialize: serializer(m.output) as (v: unknown) => Buffer,
      responseDeserialize: deserializer(m.output),
      originalName: m.name,
    };
  }
  return def;
}

function callSignal(
  call: { cancelled: boolean; once(e: "cancelled", f: () => void): unknown },
): AbortSignal {
  const ac = new AbortController();
  if (call.cancelled) ac.abort();
  else call.once("cancelled", () => ac.abort());
  return ac.signal;
}

async function writeAll(
  call:
    | grpc.ServerWritableStream<unknown, unknown>
    | grpc.ServerDuplexStream<unknown, unknown>,
  iterable: AsyncIterable<unknown>,
  signal: AbortSignal,
): Promise<void> {
  for await (const msg of iterable) {
    if (signal.aborted) return;
    if (!call.write(msg)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          call.off("drain", done);
          signal.removeEventListener("abort", done);
          resolve();
        };
        call.once("drain", done);
        signal.addEventListener("abort", done, { once: true });
      });
    }
  }
}

/**
 * Registers `impl` for `service` on a grpc-js server.
 *
 * @param server The grpc-js server.
 * @param service The generated service descriptor.
 * @param impl A handler for every method of the service.
 */
export function addService<S extends DescService>(
  server: grpc.Server,
  service: S,
  impl: ServiceImpl<S>,
): void {
  const handlers: grpc.UntypedServiceImplementation = {};
  const fns = impl as Record<string, (...args: unknown[]) => unknown>;
  for (const m of service.methods) {
    const fn = fns[m.localName];
    if (typeof fn !== "function") {
      throw new TypeError(
        `Cannot add service "${service.typeName}": no handler for "${m.localName}"`,
      );
    }
    const outSchema = m.output;
    switch (m.methodKind) {
      case "unary":
        handlers[m.localName] = (
          call: grpc.ServerUnaryCall<unknown, unknown>,
          callback: grpc.sendUnaryData<unknown>,
        ) => {
          const ctx = { signal: callSignal(call), metadata: call.metadata };
          let result;
          try {
            result = fn(call.request, ctx);
          } catch (err) {
            callback(toStatusObject(err));
            return;
          }
          Promise.resolve(result).then(
            (res) => callback(null, toMessage(outSchema, res as never)),
            (err) => callback(toStatusObject(err)),
          );
        };
        break;
      case "server_streaming":
        handlers[m.localName] = (
          call: grpc.ServerWritableStream<unknown, unknown>,
        ) => {
          const signal = callSignal(call);
          const ctx = { signal, metadata: call.metadata };
          (async () => {
            await writeAll(
              call,
              fn(call.request, ctx) as AsyncIterable<unknown>,
              signal,
            );
            if (!signal.aborted) call.end();
          })().catch((err) => {
            if (!signal.aborted) call.emit("error", toStatusObject(err));
          });
        };
        break;
      case "bidi_streaming":
        handlers[m.localName] = (
          call: grpc.ServerDuplexStream<unknown, unknown>,
        ) => {
          const signal = callSignal(call);
          const ctx = { signal, metadata: call.metadata };
          const requests = call as unknown as AsyncIterable<unknown>;
          (async () => {
            await writeAll(
              call,
              fn(requests, ctx) as AsyncIterable<unknown>,
              signal,
            );
            if (!signal.aborted) call.end();
          })().catch((err) => {
            if (!signal.aborted) call.emit("error", toStatusObject(err));
          });
        };
        break;
      default:
        throw new TypeError(
          `Cannot add service "${service.typeName}": client streaming is not supported`,
        );
    }
  }
  server.addService(definitionFor(service), handlers);
}

function callOptions(options?: CallOptions): grpc.CallOptions {
  return options?.timeoutMs !== undefined
    ? { deadline: Date.now() + options.timeoutMs }
    : {};
}

function wireAbort(
  call: { cancel(): void },
  signal: AbortSignal | undefined,
): () => void {
  if (!signal) return () => {};
  if (signal.aborted) {
    call.cancel();
    return () => {};
  }
  const onAbort = () => call.cancel();
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}

function statusError(err: grpc.ServiceError): GrpcStatusError {
  let details: readonly StatusDetail[] = [];
  const raw = err.metadata?.get(STATUS_DETAILS_KEY)[0];
  if (raw instanceof Uint8Array) {
    try {
      details = decodeStatusDetails(raw);
    } catch {
      details = []; // a malformed trailer loses the details, not the status
    }
  }
  return new GrpcStatusError(err.code, err.details || err.message, {
    cause: err,
    details,
  });
}

async function* readStream<T>(
  stream: AsyncIterable<unknown>,
  done: () => void,
): AsyncIterable<T> {
  try {
    for await (const msg of stream) yield msg as T;
  } catch (err) {
    if (err && typeof err === "object" && "code" in err) {
      throw statusError(err as grpc.ServiceError);
    }
    throw err;
  } finally {
    done();
  }
}

/**
 * Creates a typed client for `service` over an existing grpc-js channel.
 *
 * Several services may share one `grpc.Client` (one HTTP/2 connection), as
 * go-plugin's host does for health, broker, stdio, controller and the
 * category service.
 *
 * @param service The generated service descriptor.
 * @param client A grpc-js client bound to the peer's address.
 * @returns Methods named after the service's RPCs.
 */
export function createClient<S extends DescService>(
  service: S,
  client: grpc.Client,
): ServiceClient<S> {
  const out: Record<string, unknown> = {};
  for (const m of service.methods) {
    const path = methodPath(m);
    const ser = serializer(m.input) as (v: unknown) => Buffer;
    const de = deserializer(m.output);
    switch (m.methodKind) {
      case "unary":
        out[m.localName] = (req: unknown, options?: CallOptions) =>
          new Promise((resolve, reject) => {
            let cleanup = () => {};
            const call = client.makeUnaryRequest(
              path,
              ser,
              de,
              req,
              metadataOf(options),
              callOptions(options),
              (err, res) => {
                cleanup();
                if (err) reject(statusError(err));
                else resolve(res);
              },
            );
            cleanup = wireAbort(call, options?.signal);
          });
        break;
      case "server_streaming":
        out[m.localName] = (req: unknown, options?: CallOptions) => {
          const call = client.makeServerStreamRequest(
            path,
            ser,
            de,
            req,
            metadataOf(options),
            callOptions(options),
          );
          const cleanup = wireAbort(call, options?.signal);
          // Errors reach the reader through the iterator; a stream abandoned
          // early must not turn a late error event into an uncaught one.
          call.on("error", () => {});
          return readStream(call, () => {
            cleanup();
            call.cancel();
          });
        };
        break;
      case "bidi_streaming":
        out[m.localName] = (options?: CallOptions) => {
          const call = client.makeBidiStreamRequest(
            path,
            ser,
            de,
            metadataOf(options),
            callOptions(options),
          );
          const cleanup = wireAbort(call, options?.signal);
          // Surface errors through `responses` only; never as an unhandled event.
          call.on("error", () => {});
          return {
            send: (msg: unknown) => call.write(msg),
            end: () => call.end(),
            cancel: () => call.cancel(),
            responses: readStream(call, cleanup),
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

/** grpc-js channel options used on every plugin connection. */
export const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  "grpc.max_receive_message_length": 256 * 1024 * 1024,
  "grpc.max_send_message_length": 256 * 1024 * 1024,
  // go-plugin dials with the literal authority "unused"; be as lenient.
  "grpc.default_authority": "localhost",
  "grpc.enable_retries": 0,
};

/**
 * Opens a grpc-js channel to a plugin-style address.
 *
 * @param network `"unix"` or `"tcp"`, as in a go-plugin handshake line.
 * @param address A socket path or `host:port`.
 * @returns A grpc-js client usable with {@linkcode createClient}.
 */
export function dial(network: "unix" | "tcp", address: string): grpc.Client {
  const target = network === "unix" ? `unix:${address}` : address;
  return new grpc.Client(
    target,
    grpc.credentials.createInsecure(),
    CHANNEL_OPTIONS,
  );
}
