/**
 * Render trees: a memory mutation event as drawn in the session log, and
 * the preview of a `remember` or `forget` call.
 *
 * @module
 */
import { fromBinary, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import { MemoryMutationEventSchema } from "../../proto/gen/pluggableharness/event/v1/events_pb.ts";
import {
  type RenderTreeSchema,
  TextStyle,
} from "../../proto/gen/pluggableharness/render/v1/types_pb.ts";

type Tree = MessageInitShape<typeof RenderTreeSchema>;

/**
 * Draws a `MemoryMutationEvent` this plugin emitted (schema_version "1"):
 * the record's id, type, scope and title, then its content (none for a
 * delete).
 */
export function renderMutation(
  payload: Uint8Array,
  schemaVersion: string,
): Tree {
  if (schemaVersion !== "1" && schemaVersion !== "v1") {
    throw new GrpcStatusError(
      Code.INVALID_ARGUMENT,
      `schema_version ${
        JSON.stringify(schemaVersion)
      } is not one this provider emitted (it emits "1")`,
    );
  }
  let m;
  try {
    m = fromBinary(MemoryMutationEventSchema, payload);
  } catch (err) {
    throw new GrpcStatusError(
      Code.INVALID_ARGUMENT,
      `the payload is not a MemoryMutationEvent: ${(err as Error).message}`,
    );
  }
  const a = m.attributes;
  const body = m.content.map((b) =>
    b.block.case === "text" ? b.block.value.text : ""
  ).join("\n");
  return {
    root: {
      node: {
        case: "group",
        value: {
          children: [
            text(
              `Memory "${m.recordId}"${
                a.type ? ` (${a.type}/${a.scope ?? "?"})` : ""
              }${a.title ? `: ${a.title}` : ""}`,
              TextStyle.BOLD,
            ),
            ...(body
              ? [text(body)]
              : [text("(deleted: no content)", TextStyle.DIM)]),
          ],
        },
      },
    },
  };
}

/** A text node. */
export function text(content: string, style?: TextStyle) {
  return {
    node: {
      case: "text" as const,
      value: { content, ...(style ? { style } : {}) },
    },
  };
}

/** A call's preview: a bold summary and the content as a code block. */
export function previewTree(summary: string, body: string): Tree {
  return {
    root: {
      node: {
        case: "group",
        value: {
          children: [
            text(summary, TextStyle.BOLD),
            { node: { case: "codeBlock", value: { content: body } } },
          ],
        },
      },
    },
  };
}
