/**
 * Assertions on tool schemas shared by the plugin tests: a schema stays in
 * the tool-schema subset, and a result payload conforms to its output
 * schema (declared keys of the declared types, required keys present).
 *
 * @module
 */
import assert from "node:assert/strict";
import type { JsonObject } from "@bufbuild/protobuf";
import {
  type Schema,
  SchemaType,
} from "../proto/gen/pluggableharness/schema/v1/types_pb.ts";

/** Asserts that a schema (recursively) uses only the subset. */
export function walkSchema(s: Schema | undefined, where: string): void {
  assert.ok(s, `${where}: a schema is present`);
  assert.ok(
    [
      SchemaType.OBJECT,
      SchemaType.STRING,
      SchemaType.NUMBER,
      SchemaType.BOOLEAN,
      SchemaType.ARRAY,
    ].includes(s.type),
    `${where}: type is set and in the subset`,
  );
  if (s.type !== SchemaType.OBJECT) {
    assert.equal(Object.keys(s.properties).length, 0, `${where}: properties`);
    assert.equal(s.required.length, 0, `${where}: required`);
  }
  for (const r of s.required) {
    assert.ok(r in s.properties, `${where}: required "${r}" is a property`);
  }
  if (s.type !== SchemaType.ARRAY) assert.equal(s.items, undefined);
  if (s.type !== SchemaType.STRING) assert.equal(s.enumValues.length, 0);
  for (const [k, v] of Object.entries(s.properties)) {
    walkSchema(v, `${where}.${k}`);
  }
}

/** Asserts that a payload conforms to an output schema (types and required keys). */
export function conforms(payload: JsonObject, s: Schema | undefined): void {
  assert.ok(s);
  for (const r of s.required) assert.ok(r in payload, `result has "${r}"`);
  for (const [k, v] of Object.entries(payload)) {
    const p: Schema | undefined = s.properties[k];
    assert.ok(p, `result key "${k}" is declared`);
    const type: string | undefined = ({
      [SchemaType.STRING]: "string",
      [SchemaType.NUMBER]: "number",
      [SchemaType.BOOLEAN]: "boolean",
    } as Record<number, string>)[p.type];
    assert.equal(typeof v, type, `result key "${k}" has its declared type`);
  }
}
