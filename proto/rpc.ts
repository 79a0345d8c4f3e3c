/**
 * The transport-neutral shapes of a service: handler and client types,
 * the method path and message helpers. Both transports (`grpc_adapter.ts`
 * over `@grpc/grpc-js`, `frame.ts` over a framed unix socket) implement
 * them, and nothing here loads either.
 *
 * @module
 */
import {
  create,
  type DescMessage,
  type DescMethod,
  type DescService,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";

/**
 * Request metadata as a handler reads it (a grpc-js `Metadata` is one):
 * the values of a key, in order.
 */
export interface CallMetadata {
  /** The values of `key` (lower case), empty when absent. */
  get(key: string): (string | Uint8Array)[];
}

/** What a handler learns about the call it serves. */
export interface HandlerContext {
  /** Aborts when the client cancels the call or its deadline passes. */
  readonly signal: AbortSignal;
  /** The request metadata (gRPC headers). */
  readonly metadata: CallMetadata;
}

/** A message, or an init object to create it from. */
export type Init<M extends DescMessage> = MessageInitShape<M> | MessageShape<M>;

/** The handler type of one method, by its kind. */
export type HandlerFor<M> = M extends {
  methodKind: "unary";
  input: infer I extends DescMessage;
  output: infer O extends DescMessage;
} ? (req: MessageShape<I>, ctx: HandlerContext) => Promise<Init<O>> | Init<O>
  : M extends {
    methodKind: "server_streaming";
    input: infer I extends DescMessage;
    output: infer O extends DescMessage;
  } ? (req: MessageShape<I>, ctx: HandlerContext) => AsyncIterable<Init<O>>
  : M extends {
    methodKind: "bidi_streaming";
    input: infer I extends DescMessage;
    output: infer O extends DescMessage;
  } ? (
      reqs: AsyncIterable<MessageShape<I>>,
      ctx: HandlerContext,
    ) => AsyncIterable<Init<O>>
  : never;

/** Handlers for every method of a service, keyed by the method's local name. */
export type ServiceImpl<S extends DescService> = {
  [K in keyof S["method"]]: HandlerFor<S["method"][K]>;
};

/** Per-call options for client methods. */
export interface CallOptions {
  /** Cancels the call when aborted. */
  signal?: AbortSignal;
  /** Milliseconds until the call fails with `DEADLINE_EXCEEDED`. */
  timeoutMs?: number;
  /**
   * Extra request metadata: a grpc-js `Metadata` (the framed transport
   * takes its ASCII values, through its `getMap()`; binary ones are gRPC
   * only). `headers` is the plain form both transports read.
   */
  metadata?: CallMetadata;
  /** Extra request metadata as plain ASCII headers. */
  headers?: Readonly<Record<string, string>>;
}

/** A live bidirectional call: write requests, read responses. */
export interface BidiCall<I extends DescMessage, O extends DescMessage> {
  /** Sends one request message. */
  send(msg: Init<I>): void;
  /** Half-closes the request side. */
  end(): void;
  /** Cancels the call. */
  cancel(): void;
  /** The response messages, ending when the server ends the call. */
  readonly responses: AsyncIterable<MessageShape<O>>;
}

/** The client method type of one method, by its kind. */
export type ClientMethodFor<M> = M extends {
  methodKind: "unary";
  input: infer I extends DescMessage;
  output: infer O extends DescMessage;
} ? (req: Init<I>, options?: CallOptions) => Promise<MessageShape<O>>
  : M extends {
    methodKind: "server_streaming";
    input: infer I extends DescMessage;
    output: infer O extends DescMessage;
  } ? (req: Init<I>, options?: CallOptions) => AsyncIterable<MessageShape<O>>
  : M extends {
    methodKind: "bidi_streaming";
    input: infer I extends DescMessage;
    output: infer O extends DescMessage;
  } ? (options?: CallOptions) => BidiCall<I, O>
  : never;

/** A typed client for a service, keyed by the method's local name. */
export type ServiceClient<S extends DescService> = {
  [K in keyof S["method"]]: ClientMethodFor<S["method"][K]>;
};

/**
 * Returns the gRPC path of a method, e.g. `/plugin.GRPCController/Shutdown`.
 *
 * @param method The method.
 * @returns Its path.
 */
export function methodPath(method: DescMethod): string {
  return `/${method.parent.typeName}/${method.name}`;
}

/**
 * Returns `value` as a message of `schema`, creating it from an init object
 * when it is not one already.
 *
 * @param schema The message schema.
 * @param value A message or an init object.
 * @returns The message.
 */
export function toMessage<M extends DescMessage>(
  schema: M,
  value: MessageInitShape<M> | MessageShape<M>,
): MessageShape<M> {
  return (value as { $typeName?: string }).$typeName === schema.typeName
    ? value as MessageShape<M>
    : create(schema, value as MessageInitShape<M>);
}
