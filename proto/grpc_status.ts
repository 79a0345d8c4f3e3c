/**
 * gRPC status codes and the status error, without loading `@grpc/grpc-js`.
 * The kernel's hot start path imports this module, so that grpc-js (the
 * largest module it needs) loads while plugin processes are starting,
 * not before. `proto/grpc_adapter.ts` re-exports everything here.
 *
 * @module
 */

/** gRPC status codes (the numbers every gRPC implementation uses). */
export const Code = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

/** A gRPC status code. */
export type Code = typeof Code[keyof typeof Code];

const CODE_NAMES: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(Code).map(([name, code]) => [code, name]),
);

/**
 * The name of a status code, e.g. `PERMISSION_DENIED`.
 *
 * @param code The code.
 * @returns Its name, or the number as text for an unknown code.
 */
export function codeName(code: number): string {
  return CODE_NAMES[code] ?? String(code);
}

/**
 * One structured status detail (a `google.protobuf.Any`): the full name of
 * the message type in `typeUrl` (`type.googleapis.com/<full name>`) and its
 * binary encoding in `value`. Sent in the `grpc-status-details-bin`
 * trailer, as `google.rpc.Status.details`.
 */
export interface StatusDetail {
  /** `type.googleapis.com/` followed by the message's full name. */
  readonly typeUrl: string;
  /** The message, binary-encoded. */
  readonly value: Uint8Array;
}

/** Options of {@linkcode GrpcStatusError}. */
export interface GrpcStatusErrorOptions extends ErrorOptions {
  /** Structured details sent with the status. @default {[]} */
  readonly details?: readonly StatusDetail[];
}

/** A failure carrying a gRPC status code, thrown by handlers and clients. */
export class GrpcStatusError extends Error {
  /** The gRPC status code. */
  readonly code: Code;
  /** The structured details (e.g. a `frontend.v1.FrontendError`). */
  readonly details: readonly StatusDetail[];
  /**
   * Creates a status error.
   *
   * @param code The gRPC status code (never `UNKNOWN` by choice).
   * @param message The status message sent to the peer.
   * @param options Standard error options, e.g. `cause`, and `details`.
   */
  constructor(
    code: Code,
    message: string,
    options?: GrpcStatusErrorOptions,
  ) {
    super(message, options);
    this.name = "GrpcStatusError";
    this.code = code;
    this.details = options?.details ?? [];
  }

  /** The status code's name, e.g. `PERMISSION_DENIED`. */
  get codeName(): string {
    return codeName(this.code);
  }
}

/**
 * Environment variables `@grpc/grpc-js` reads when it is imported; a
 * scoped Deno process that loads it needs `--allow-env` for these names.
 */
export const GRPC_JS_ENV: readonly string[] = [
  "GRPC_DEFAULT_SSL_ROOTS_FILE_PATH",
  "GRPC_EXPERIMENTAL_ENABLE_OUTLIER_DETECTION",
  "GRPC_NODE_DEBUG_SEND_ERROR_DETAILS",
  "GRPC_NODE_TRACE",
  "GRPC_NODE_USE_ALTERNATIVE_RESOLVER",
  "GRPC_NODE_VERBOSITY",
  "GRPC_SSL_CIPHER_SUITES",
  "GRPC_TRACE",
  "GRPC_VERBOSITY",
  "grpc_proxy",
  "http_proxy",
  "https_proxy",
  "no_grpc_proxy",
  "no_proxy",
];
