/**
 * Checks a JSON value against the tool-schema subset
 * (`pluggableharness.schema.v1`, plugins.md §4.2): `type`, `properties`,
 * `required`, `items`, `enum_values`. The kernel runs it on a call's
 * arguments (against `input_schema`; a failure is an `INVALID_ARGUMENTS`
 * result the model sees) and on a tool's result (against `output_schema`;
 * a failure is an `UNKNOWN` error carrying the raw payload, tool MUST 15).
 *
 * Properties an object schema does not name are accepted (the subset has
 * no `additionalProperties`).
 *
 * @module
 */
import type { JsonValue } from "@bufbuild/protobuf";
import {
  type Schema,
  SchemaType,
} from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";

const TYPE_NAMES: Readonly<Record<number, string>> = {
  [SchemaType.OBJECT]: "an object",
  [SchemaType.STRING]: "a string",
  [SchemaType.NUMBER]: "a number",
  [SchemaType.BOOLEAN]: "a boolean",
  [SchemaType.ARRAY]: "an array",
};

function describe(value: JsonValue): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * The first place where `value` breaks `schema`, as a message naming the
 * path (`$.edits[2].path`), or `undefined` when it conforms.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { create } from "@bufbuild/protobuf";
 * import { SchemaSchema, SchemaType } from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
 * import { schemaViolation } from "./schema_check.ts";
 *
 * const schema = create(SchemaSchema, {
 *   type: SchemaType.OBJECT,
 *   properties: { path: { type: SchemaType.STRING } },
 *   required: ["path"],
 * });
 * assert.equal(schemaViolation({ path: "a.txt" }, schema), undefined);
 * assert.equal(schemaViolation({}, schema), '$.path is required');
 * ```
 *
 * @param value The value.
 * @param schema The schema.
 * @param path The value's path (for messages).
 * @returns The violation, or `undefined`.
 */
export function schemaViolation(
  value: JsonValue,
  schema: Schema,
  path = "$",
): string | undefined {
  switch (schema.type) {
    case SchemaType.UNSPECIFIED:
      return undefined;
    case SchemaType.OBJECT: {
      if (value === null || typeof value !== "object" || Array.isArray(value)) {
        return `${path} must be an object, got ${describe(value)}`;
      }
      for (const key of schema.required) {
        if (!(key in value) || value[key] === null) {
          return `${path}.${key} is required`;
        }
      }
      for (const [key, sub] of Object.entries(schema.properties)) {
        const v = value[key];
        if (v === undefined || v === null) continue;
        const bad = schemaViolation(v, sub, `${path}.${key}`);
        if (bad) return bad;
      }
      return undefined;
    }
    case SchemaType.ARRAY: {
      if (!Array.isArray(value)) {
        return `${path} must be an array, got ${describe(value)}`;
      }
      if (!schema.items) return undefined;
      for (let i = 0; i < value.length; i++) {
        const bad = schemaViolation(value[i]!, schema.items, `${path}[${i}]`);
        if (bad) return bad;
      }
      return undefined;
    }
    case SchemaType.STRING:
      if (typeof value !== "string") {
        return `${path} must be a string, got ${describe(value)}`;
      }
      if (schema.enumValues.length && !schema.enumValues.includes(value)) {
        return `${path} must be one of ${
          schema.enumValues.map((e) => JSON.stringify(e)).join(", ")
        }, got ${JSON.stringify(value)}`;
      }
      return undefined;
    case SchemaType.NUMBER:
      return typeof value === "number" && Number.isFinite(value)
        ? undefined
        : `${path} must be a number, got ${describe(value)}`;
    case SchemaType.BOOLEAN:
      return typeof value === "boolean"
        ? undefined
        : `${path} must be a boolean, got ${describe(value)}`;
    default:
      return `${path}: the schema has an unknown type ${schema.type} (${
        TYPE_NAMES[schema.type] ?? "not in the subset"
      })`;
  }
}
