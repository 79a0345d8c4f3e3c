/**
 * Between memory.v1 messages and the provider's records: enum and
 * record conversions, request metadata (provenance), and failures as gRPC
 * statuses or tool error events.
 *
 * @module
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { CallMetadata as Metadata } from "../../proto/rpc.ts";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import type { ContentBlock } from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import {
  type MemoryRecordSchema,
  MemoryScope,
  MemoryType,
  RecordStatus,
} from "../../proto/gen/pluggableharness/memory/v1/types_pb.ts";
import { ToolErrorCategory } from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import type { InvokeResponseSchema } from "../../proto/gen/pluggableharness/tool/v1/rpc_response_pb.ts";
import { toolError } from "../sdk/mod.ts";
import { type FailureCategory, MemoryFailure, type Origin } from "./_memory.ts";
import {
  SCOPE_NAMES,
  type ScopeName,
  type StatusName,
  type StoredRecord,
  TYPE_NAMES,
  type TypeName,
} from "./_store.ts";

type Event = MessageInitShape<typeof InvokeResponseSchema>;
type RecordInit = MessageInitShape<typeof MemoryRecordSchema>;

/**
 * Request metadata through which the kernel hands over provenance (the
 * Record/UpdateRecord messages have no field for it) and the session of a
 * `post-model-response` dispatch.
 */
export const METADATA = {
  sessionId: "ph-session-id",
  turnId: "ph-turn-id",
  recordedBy: "ph-recorded-by",
} as const;

/** A gRPC status code. */
type StatusCode = (typeof Code)[keyof typeof Code];

const STATUS_CODE: Record<FailureCategory, StatusCode> = {
  not_found: Code.NOT_FOUND,
  invalid_type: Code.INVALID_ARGUMENT,
  invalid_scope: Code.INVALID_ARGUMENT,
  invalid_request: Code.INVALID_ARGUMENT,
  ratification_unsupported: Code.FAILED_PRECONDITION,
  budget_exceeded: Code.RESOURCE_EXHAUSTED,
  source_unavailable: Code.UNAVAILABLE,
  unknown: Code.INTERNAL,
};

const TOOL_CATEGORY: Record<FailureCategory, ToolErrorCategory> = {
  not_found: ToolErrorCategory.NOT_FOUND,
  invalid_type: ToolErrorCategory.INVALID_ARGUMENTS,
  invalid_scope: ToolErrorCategory.INVALID_ARGUMENTS,
  invalid_request: ToolErrorCategory.INVALID_ARGUMENTS,
  ratification_unsupported: ToolErrorCategory.EXECUTION_FAILED,
  budget_exceeded: ToolErrorCategory.EXECUTION_FAILED,
  source_unavailable: ToolErrorCategory.EXECUTION_FAILED,
  unknown: ToolErrorCategory.UNKNOWN,
};

/** Any thrown value as a memory failure (a cancellation is rethrown). */
export function failureOf(err: unknown): MemoryFailure {
  if (err instanceof MemoryFailure) return err;
  if (err instanceof GrpcStatusError) {
    if (err.code === Code.CANCELLED) throw err;
    return new MemoryFailure(
      "source_unavailable",
      `A kernel callback failed: ${err.message}`,
    );
  }
  return new MemoryFailure(
    "unknown",
    err instanceof Error ? err.message : String(err),
  );
}

/** Runs an RPC body; failures become statuses `<category>: <message>`. */
export async function rpc<T>(fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof GrpcStatusError) throw err; // already a status
    const f = failureOf(err);
    throw new GrpcStatusError(
      STATUS_CODE[f.category],
      `${f.category}: ${f.message}`,
    );
  }
}

/** A MemoryType as a type name. */
export const typeName = (t: MemoryType): TypeName => {
  const n = TYPE_NAMES[t - 1];
  if (!n) {
    throw new MemoryFailure(
      "invalid_type",
      `type ${
        MemoryType[t] ?? t
      } is not one of USER, FEEDBACK, PROJECT, REFERENCE`,
    );
  }
  return n;
};
/** A MemoryScope as a scope name. */
export const scopeName = (s: MemoryScope): ScopeName => {
  const n = SCOPE_NAMES[s - 1];
  if (!n) {
    throw new MemoryFailure(
      "invalid_scope",
      `scope ${MemoryScope[s] ?? s} is not one of SESSION, PROJECT, GLOBAL`,
    );
  }
  return n;
};
/** A type name as a MemoryType. */
export const typeEnum = (t: TypeName) =>
  TYPE_NAMES.indexOf(t) + 1 as MemoryType;
/** A scope name as a MemoryScope. */
export const scopeEnum = (s: ScopeName) =>
  SCOPE_NAMES.indexOf(s) + 1 as MemoryScope;
/** A status name as a RecordStatus. */
export const statusEnum = (s: StatusName) =>
  s === "pending" ? RecordStatus.PENDING : RecordStatus.CANONICAL;
/** A RecordStatus (a filter) as a status name. */
export const statusName = (s: RecordStatus): StatusName => {
  if (s === RecordStatus.CANONICAL) return "canonical";
  if (s === RecordStatus.PENDING) return "pending";
  throw new MemoryFailure(
    "invalid_request",
    `status_filter ${s} is not CANONICAL or PENDING`,
  );
};

/** The texts of content blocks (memory content is text only). */
export function textsOf(
  content: readonly ContentBlock[],
  what: string,
): string[] {
  return content.map((b, i) => {
    if (b.block.case !== "text") {
      throw new MemoryFailure(
        "invalid_request",
        `${what}: content[${i}] is a ${
          b.block.case ?? "empty"
        } block; memory content is text only`,
      );
    }
    return b.block.value.text;
  });
}

/** A stored record as a memory.v1 MemoryRecord. */
export function recordMessage(r: StoredRecord, score?: number): RecordInit {
  return {
    id: r.id,
    type: typeEnum(r.type),
    scope: scopeEnum(r.scope),
    title: r.title,
    content: r.content.map((text) => ({
      block: { case: "text" as const, value: { text } },
    })),
    tokens: BigInt(r.tokens),
    status: statusEnum(r.status),
    links: r.links,
    createdAt: timestampFromMs(r.createdAt),
    updatedAt: timestampFromMs(r.updatedAt),
    provenance: {
      sourceSessionId: r.provenance.sourceSessionId,
      ...(r.provenance.sourceTurnId !== undefined
        ? { sourceTurnId: r.provenance.sourceTurnId }
        : {}),
      recordedBy: r.provenance.recordedBy,
    },
    ...(score !== undefined ? { relevanceScore: score } : {}),
  };
}

/** A request metadata value, if set and not empty. */
export function header(md: Metadata, key: string): string | undefined {
  const v = md.get(key)[0];
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** The provenance the kernel passed in request metadata. */
export function originOf(md: Metadata): Origin {
  const turn = header(md, METADATA.turnId);
  return {
    sourceSessionId: header(md, METADATA.sessionId) ?? "",
    ...(turn ? { sourceTurnId: turn } : {}),
    recordedBy: header(md, METADATA.recordedBy) ?? "kernel",
  };
}

/** A ULID (turn ids). */
export const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** A failure as a tool error event. */
export function toolFailure(f: MemoryFailure): Event {
  return toolError(TOOL_CATEGORY[f.category], f.message, {
    retryable: f.retryable,
  });
}
