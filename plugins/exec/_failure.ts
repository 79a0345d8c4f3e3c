/**
 * The classified failures of an exec call and how they become `tool.v1`
 * error events.
 *
 * @module
 */
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import { ToolErrorCategory } from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import type { InvokeResponseSchema } from "../../proto/gen/pluggableharness/tool/v1/rpc_response_pb.ts";
import { toolError } from "../sdk/mod.ts";

type Event = MessageInitShape<typeof InvokeResponseSchema>;

/** What kind of failure a call met. */
export type FailureKind =
  | "invalid_arguments"
  | "not_found"
  | "permission_denied"
  | "execution_failed"
  | "timeout"
  | "cancelled";

const CATEGORY: Record<FailureKind, ToolErrorCategory> = {
  invalid_arguments: ToolErrorCategory.INVALID_ARGUMENTS,
  not_found: ToolErrorCategory.NOT_FOUND,
  permission_denied: ToolErrorCategory.PERMISSION_DENIED,
  execution_failed: ToolErrorCategory.EXECUTION_FAILED,
  timeout: ToolErrorCategory.TIMEOUT,
  cancelled: ToolErrorCategory.CANCELLED,
};

/** A classified failure of a call. */
export class ToolFailure extends Error {
  /**
   * @param kind The failure's kind.
   * @param message What went wrong, for the model.
   * @param details Structured data (e.g. the output so far).
   */
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly details: JsonObject = {},
  ) {
    super(message);
  }
}
/** The error event of a failure. */
export function failure(f: ToolFailure): Event {
  return toolError(CATEGORY[f.kind], f.message, { details: f.details });
}
/** Any thrown value as a classified failure. */
export function classify(err: unknown): ToolFailure {
  if (err instanceof ToolFailure) return err;
  if (err instanceof Deno.errors.NotCapable) {
    return new ToolFailure("permission_denied", (err as Error).message);
  }
  return new ToolFailure(
    "execution_failed",
    err instanceof Error ? err.message : String(err),
  );
}
