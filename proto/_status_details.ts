/**
 * The `grpc-status-details-bin` trailer: a binary `google.rpc.Status`
 * (`1 code`, `2 message`, `3 details` repeated `google.protobuf.Any`),
 * encoded and decoded by hand so that no `google.rpc` descriptor is needed.
 *
 * @module
 */
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { Code, GrpcStatusError, type StatusDetail } from "./grpc_status.ts";

/** The trailer key every gRPC implementation reads status details from. */
export const STATUS_DETAILS_KEY = "grpc-status-details-bin";

/**
 * Encodes a `google.rpc.Status`.
 *
 * @param code The status code.
 * @param message The status message.
 * @param details The details.
 * @returns The binary message.
 */
export function encodeStatusDetails(
  code: number,
  message: string,
  details: readonly StatusDetail[],
): Uint8Array {
  const w = new BinaryWriter();
  w.tag(1, WireType.Varint).int32(code);
  w.tag(2, WireType.LengthDelimited).string(message);
  for (const d of details) {
    w.tag(3, WireType.LengthDelimited).fork();
    w.tag(1, WireType.LengthDelimited).string(d.typeUrl);
    w.tag(2, WireType.LengthDelimited).bytes(d.value);
    w.join();
  }
  return w.finish();
}

/**
 * Decodes the details of a `google.rpc.Status`.
 *
 * @param bytes The binary message.
 * @returns Its details (unknown fields skipped).
 * @throws {Error} When the bytes are not a protobuf message.
 */
export function decodeStatusDetails(bytes: Uint8Array): StatusDetail[] {
  return decodeStatus(bytes).details;
}

/**
 * Decodes a whole `google.rpc.Status`, in one pass.
 *
 * @param bytes The binary message.
 * @returns Its code, message and details.
 * @throws {Error} When the bytes are not a protobuf message.
 */
export function decodeStatus(
  bytes: Uint8Array,
): { code: number; message: string; details: StatusDetail[] } {
  const r = new BinaryReader(bytes);
  let code = 0;
  let message = "";
  const details: StatusDetail[] = [];
  while (r.pos < r.len) {
    const [field, type] = r.tag();
    if (field === 1 && type === WireType.Varint) code = r.int32();
    else if (field === 2 && type === WireType.LengthDelimited) {
      message = r.string();
    } else if (field === 3 && type === WireType.LengthDelimited) {
      details.push(decodeAny(r.bytes()));
    } else r.skip(type);
  }
  return { code, message, details };
}

/** Decodes one `google.protobuf.Any` as a detail. */
function decodeAny(bytes: Uint8Array): StatusDetail {
  const any = new BinaryReader(bytes);
  let typeUrl = "";
  let value: Uint8Array = new Uint8Array();
  while (any.pos < any.len) {
    const [f, t] = any.tag();
    if (f === 1 && t === WireType.LengthDelimited) typeUrl = any.string();
    else if (f === 2 && t === WireType.LengthDelimited) value = any.bytes();
    else any.skip(t);
  }
  return { typeUrl, value };
}

/**
 * A thrown value as a status error: itself when it is one, a grpc-js
 * style `{ code, details }` object with its code (`UNKNOWN` as
 * `INTERNAL`), anything else as `INTERNAL` with its message. Both
 * transports map a handler's failure through this.
 *
 * @param err The thrown value.
 * @returns The status error.
 */
export function toStatusError(err: unknown): GrpcStatusError {
  if (err instanceof GrpcStatusError) return err;
  if (
    err && typeof err === "object" && "code" in err &&
    typeof err.code === "number" && "details" in err
  ) {
    const code = err.code === Code.UNKNOWN ? Code.INTERNAL : err.code;
    return new GrpcStatusError(code as Code, String(err.details));
  }
  return new GrpcStatusError(
    Code.INTERNAL,
    err instanceof Error ? err.message : String(err),
  );
}
