/**
 * Small protobuf helpers of the agent loop: identities as producers and
 * `ProducerRef`s, durations, tool results as content blocks.
 *
 * @module
 */
import { create, type JsonObject } from "@bufbuild/protobuf";
import type { Duration } from "@bufbuild/protobuf/wkt";
import {
  type Category,
  type ProducerRef,
  ProducerRefSchema,
} from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import {
  type ContentBlock,
  ContentBlockSchema,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import {
  type ToolError,
  ToolErrorCategory,
  ToolErrorSchema,
} from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import { CATEGORY_NAMES } from "../../contract/manifest.ts";
import type { PluginIdentity } from "../../contract/plugin_identity.ts";
import type { Producer } from "../state/session_store.ts";
import { sortJsonKeys } from "./doom_loop.ts";
import { toolErrorText } from "./session_events.ts";

/** The application protocol version stamped on `ProducerRef`s. */
const PROTOCOL_VERSION = 1;

/**
 * A plugin build as a stored producer.
 *
 * @param identity The plugin's identity.
 * @returns The producer.
 */
export function producerOf(identity: PluginIdentity): Producer {
  return {
    category: identity.category,
    name: identity.name,
    version: identity.version,
  };
}

/**
 * A plugin build as a wire `ProducerRef`.
 *
 * @param identity The plugin's identity.
 * @returns The reference.
 */
export function producerRefOfIdentity(identity: PluginIdentity): ProducerRef {
  return create(ProducerRefSchema, {
    name: identity.name,
    version: identity.version,
    source: identity.source,
    category: (CATEGORY_NAMES.indexOf(identity.category) + 1) as Category,
    protocolVersion: PROTOCOL_VERSION,
  });
}

/**
 * Milliseconds of a protobuf duration.
 *
 * @param d The duration.
 * @returns Milliseconds, or `undefined`.
 */
export function durationMs(d: Duration | undefined): number | undefined {
  if (!d) return undefined;
  return Number(d.seconds) * 1000 + Math.floor(d.nanos / 1e6);
}

/**
 * A tool error.
 *
 * @param category The category.
 * @param message The message.
 * @param retryable Whether a retry may help.
 * @param details Structured details (e.g. the raw payload).
 * @returns The error.
 */
export function toolError(
  category: ToolErrorCategory,
  message: string,
  retryable = false,
  details?: JsonObject,
): ToolError {
  return create(ToolErrorSchema, {
    category,
    message,
    retryable,
    ...(details ? { details } : {}),
  });
}

/**
 * The neutral denial the model sees (a fail-closed denial and a considered
 * one look alike on purpose).
 *
 * @param decidedBy `policy:<rule>`, `hook-veto:<name>`, …
 * @returns The error.
 */
export function denialError(decidedBy: string): ToolError {
  return toolError(
    ToolErrorCategory.PERMISSION_DENIED,
    `The call was denied by ${decidedBy} and was not executed.`,
  );
}

/**
 * The `tool_result` block of an outcome.
 *
 * @param toolUseId The `tool_use` id.
 * @param outcome A result payload or an error.
 * @returns The block.
 */
export function toolResultBlock(
  toolUseId: string,
  outcome: { result: JsonObject } | { error: ToolError },
): ContentBlock {
  const isError = "error" in outcome;
  const text = isError
    ? toolErrorText(outcome.error)
    : JSON.stringify(sortJsonKeys(outcome.result));
  return create(ContentBlockSchema, {
    block: {
      case: "toolResult",
      value: {
        toolUseId,
        isError,
        content: [{ block: { case: "text", value: { text } } }],
      },
    },
  });
}

/**
 * A text content block.
 *
 * @param text The text.
 * @returns The block.
 */
export function textBlock(text: string): ContentBlock {
  return create(ContentBlockSchema, {
    block: { case: "text", value: { text } },
  });
}
