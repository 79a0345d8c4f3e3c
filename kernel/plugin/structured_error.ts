/**
 * The structured errors plugins send in a gRPC status's details
 * (`grpc-status-details-bin`): a frontend's `frontend.v1.FrontendError`, a
 * widget's `widget.v1.WidgetError` (plugins.md §6.5 MUST 12, §6.6) and a
 * tool's or slash command's `tool.v1.ToolError` (their Configure errors).
 * One decoder for all of them, so that every failure the kernel reports
 * from a plugin names the plugin's own category and message, the same way.
 *
 * @example
 * ```ts
 * import { create, toBinary } from "@bufbuild/protobuf";
 * import { GrpcStatusError } from "../../proto/grpc_status.ts";
 * import {
 *   WidgetErrorCategory,
 *   WidgetErrorSchema,
 * } from "../../proto/gen/pluggableharness/widget/v1/errors_pb.ts";
 * import { describeStatusError, structuredErrorOf } from "./structured_error.ts";
 * import assert from "node:assert/strict";
 * const err = new GrpcStatusError(9, "no data source", {
 *   details: [{
 *     typeUrl: `type.googleapis.com/${WidgetErrorSchema.typeName}`,
 *     value: toBinary(WidgetErrorSchema, create(WidgetErrorSchema, {
 *       category: WidgetErrorCategory.RENDER_FAILED,
 *       message: "the CI status feed is unreachable",
 *     })),
 *   }],
 * });
 * assert.deepEqual(structuredErrorOf(err), {
 *   kind: "widget",
 *   category: WidgetErrorCategory.RENDER_FAILED,
 *   categoryName: "RENDER_FAILED",
 *   message: "the CI status feed is unreachable",
 * });
 * assert.equal(
 *   describeStatusError(err),
 *   "widget error RENDER_FAILED: the CI status feed is unreachable",
 * );
 * ```
 *
 * @module
 */
import {
  type DescEnum,
  type DescMessage,
  fromBinary,
} from "@bufbuild/protobuf";
import { GrpcStatusError } from "../../proto/grpc_status.ts";
import {
  FrontendErrorCategorySchema,
  FrontendErrorSchema,
} from "../../proto/gen/pluggableharness/frontend/v1/errors_pb.ts";
import {
  WidgetErrorCategorySchema,
  WidgetErrorSchema,
} from "../../proto/gen/pluggableharness/widget/v1/errors_pb.ts";
import {
  ToolErrorCategorySchema,
  ToolErrorSchema,
} from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";

/** Which taxonomy a {@linkcode StructuredError} comes from. */
export type StructuredErrorKind = "frontend" | "widget" | "tool";

/** A structured error decoded from a status's details. */
export interface StructuredError {
  /** Its taxonomy. */
  readonly kind: StructuredErrorKind;
  /** The category's number in its enum. */
  readonly category: number;
  /**
   * The category's name without the enum prefix (`RENDER_FAILED`), or
   * `CATEGORY_<n>` for a number this kernel does not know.
   */
  readonly categoryName: string;
  /** The plugin's message (the status message when it sent none). */
  readonly message: string;
}

interface Taxonomy {
  kind: StructuredErrorKind;
  schema: DescMessage;
  categories: DescEnum;
}

const TAXONOMIES: readonly Taxonomy[] = [
  {
    kind: "frontend",
    schema: FrontendErrorSchema,
    categories: FrontendErrorCategorySchema,
  },
  {
    kind: "widget",
    schema: WidgetErrorSchema,
    categories: WidgetErrorCategorySchema,
  },
  {
    kind: "tool",
    schema: ToolErrorSchema,
    categories: ToolErrorCategorySchema,
  },
];

function categoryName(categories: DescEnum, n: number): string {
  const value = categories.values.find((v) => v.number === n);
  return value ? value.localName : `CATEGORY_${n}`;
}

/**
 * The first structured error in a gRPC status error's details, by the
 * detail's type URL; a detail that does not decode is skipped.
 *
 * @param err Anything thrown by a plugin client call.
 * @returns The decoded error, or `undefined` when `err` carries none.
 */
export function structuredErrorOf(err: unknown): StructuredError | undefined {
  if (!(err instanceof GrpcStatusError)) return undefined;
  for (const detail of err.details) {
    const typeName = detail.typeUrl.slice(detail.typeUrl.lastIndexOf("/") + 1);
    const t = TAXONOMIES.find((x) => x.schema.typeName === typeName);
    if (!t) continue;
    let decoded: { category: number; message: string };
    try {
      decoded = fromBinary(t.schema, detail.value) as unknown as {
        category: number;
        message: string;
      };
    } catch {
      continue;
    }
    return {
      kind: t.kind,
      category: decoded.category,
      categoryName: categoryName(t.categories, decoded.category),
      message: decoded.message || err.message,
    };
  }
  return undefined;
}

/**
 * How the kernel reports a plugin's failed call: `<kind> error <CATEGORY>:
 * <message>` for a structured error, else the error's message.
 *
 * @param err Anything thrown by a plugin client call.
 * @returns The text.
 */
export function describeStatusError(err: unknown): string {
  const s = structuredErrorOf(err);
  if (s) return `${s.kind} error ${s.categoryName}: ${s.message}`;
  return err instanceof Error ? err.message : String(err);
}
