/**
 * Small builders plugins need: the JSON-schema subset
 * (`pluggableharness.schema.v1`), `Invoke` stream events, and the
 * `Describe` answer. Shared so that each plugin does not write them again.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { objectSchema, stringSchema, toolResult } from "./tool_kit.ts";
 *
 * const input = objectSchema({ path: stringSchema("A file") }, ["path"]);
 * assert.deepEqual(input.required, ["path"]);
 * assert.equal(toolResult({ ok: true }).event?.event?.case, "result");
 * ```
 *
 * @module
 */
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import {
  type SchemaSchema,
  SchemaType,
} from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import type { ToolErrorCategory } from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import type { InvokeResponseSchema } from "../../proto/gen/pluggableharness/tool/v1/rpc_response_pb.ts";
import type { Category } from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import {
  CATEGORY_NAMES,
  type PluginManifest,
} from "../../contract/manifest.ts";

/** A schema of the tool-schema subset, as `create()` takes it. */
export type SchemaInit = MessageInitShape<typeof SchemaSchema>;

/** One `Invoke` stream message, as a handler yields it. */
export type InvokeEvent = MessageInitShape<typeof InvokeResponseSchema>;

/**
 * An object schema.
 *
 * @param properties The properties.
 * @param required The required property names.
 * @param description Shown to the model.
 * @returns The schema.
 */
export function objectSchema(
  properties: Record<string, SchemaInit>,
  required: string[] = [],
  description?: string,
): SchemaInit {
  return {
    type: SchemaType.OBJECT,
    properties,
    required,
    ...(description !== undefined ? { description } : {}),
  };
}

/**
 * A string schema, optionally limited to some values.
 *
 * @param description Shown to the model.
 * @param enumValues The allowed values; empty means any.
 * @returns The schema.
 */
export function stringSchema(
  description: string,
  enumValues: string[] = [],
): SchemaInit {
  return { type: SchemaType.STRING, description, enumValues };
}

/**
 * A number schema.
 *
 * @param description Shown to the model.
 * @returns The schema.
 */
export function numberSchema(description: string): SchemaInit {
  return { type: SchemaType.NUMBER, description };
}

/**
 * The terminal `result` event.
 *
 * @param payload The result (matching the operation's output schema).
 * @returns The event.
 */
export function toolResult(payload: JsonObject): InvokeEvent {
  return { event: { event: { case: "result", value: { payload } } } };
}

/**
 * The terminal `error` event.
 *
 * @param category The failure's category (never `PROCESS_CRASHED`: only the
 *   kernel synthesizes it).
 * @param message What went wrong, for the model and the operator.
 * @param options Whether a retry may help, and structured details.
 * @returns The event.
 */
export function toolError(
  category: ToolErrorCategory,
  message: string,
  options: { retryable?: boolean; details?: JsonObject } = {},
): InvokeEvent {
  const details = options.details;
  return {
    event: {
      event: {
        case: "error",
        value: {
          category,
          message,
          retryable: options.retryable ?? false,
          ...(details && Object.keys(details).length > 0 ? { details } : {}),
        },
      },
    },
  };
}

/**
 * A `progress` event.
 *
 * @param message What is happening.
 * @param fractionComplete Done so far, in [0, 1], when known.
 * @returns The event.
 */
export function toolProgress(
  message: string,
  fractionComplete?: number,
): InvokeEvent {
  return {
    event: {
      event: {
        case: "progress",
        value: {
          message,
          ...(fractionComplete !== undefined ? { fractionComplete } : {}),
        },
      },
    },
  };
}

/**
 * The `Describe` answer of any plugin: its producer, from its manifest.
 *
 * @param manifest The plugin's validated manifest.
 * @returns `{ producer }`.
 */
export function describeResponse(manifest: PluginManifest): {
  producer: {
    name: string;
    version: string;
    source: string;
    category: Category;
    protocolVersion: number;
  };
} {
  return {
    producer: {
      name: manifest.name,
      version: manifest.version,
      source: manifest.source ?? "",
      category: (CATEGORY_NAMES.indexOf(manifest.category) + 1) as Category,
      protocolVersion: manifest.protocolVersion,
    },
  };
}
