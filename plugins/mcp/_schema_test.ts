import assert from "node:assert/strict";
import { SchemaType } from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import {
  RiskClass,
  ToolKind,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import {
  classify,
  decodeArguments,
  exposedName,
  translateInputSchema,
} from "./_schema.ts";

Deno.test("translateInputSchema: the subset's own keywords map directly", () => {
  const { schema, encoded } = translateInputSchema({
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: {
      name: { type: "string", description: "Who." },
      mode: { type: "string", enum: ["a", "b"] },
      count: { type: "number" },
      on: { type: "boolean" },
      tags: { type: "array", items: { type: "string" } },
      nested: {
        type: "object",
        properties: { x: { type: "number" } },
        required: ["x", "ghost"],
      },
    },
    required: ["name"],
  });
  assert.equal(encoded, undefined);
  assert.equal(schema.type, SchemaType.OBJECT);
  assert.deepEqual(schema.required, ["name"]);
  const p = schema.properties!;
  assert.deepEqual(p.name, { type: SchemaType.STRING, description: "Who." });
  assert.deepEqual(p.mode?.enumValues, ["a", "b"]);
  assert.equal(p.count?.type, SchemaType.NUMBER);
  assert.equal(p.on?.type, SchemaType.BOOLEAN);
  assert.equal(p.tags?.items?.type, SchemaType.STRING);
  // A required name that is not a property is dropped.
  assert.deepEqual(p.nested?.required, ["x"]);
});

Deno.test("translateInputSchema: integers, constraints and defaults become notes", () => {
  const { schema } = translateInputSchema({
    type: "object",
    properties: {
      n: {
        type: "integer",
        description: "How many.",
        minimum: 1,
        maximum: 10,
        default: 3,
      },
      s: { type: "string", pattern: "^a", format: "uri", maxLength: 9 },
      k: { type: "number", enum: [1, 2] },
      c: { const: "fixed" },
      b: { const: true },
    },
  });
  const p = schema.properties!;
  assert.equal(p.n?.type, SchemaType.NUMBER);
  assert.equal(
    p.n?.description,
    "How many. (an integer; minimum 1; maximum 10; default 3)",
  );
  assert.equal(
    p.s?.description,
    '(at most this many characters: 9; pattern "^a"; format "uri")',
  );
  assert.equal(p.k?.description, "(one of [1,2])");
  assert.deepEqual(p.c?.enumValues, ["fixed"]);
  assert.equal(p.b?.type, SchemaType.BOOLEAN);
  assert.equal(p.b?.description, "(always true)");
});

Deno.test("translateInputSchema: nullable types and single-branch combinators collapse", () => {
  const { schema, encoded } = translateInputSchema({
    type: "object",
    properties: {
      a: { type: ["string", "null"] },
      b: { anyOf: [{ type: "number" }, { type: "null" }], description: "B." },
      c: { allOf: [{ type: "boolean" }] },
      d: { oneOf: [{ type: "string", enum: ["x"] }] },
    },
  });
  assert.equal(encoded, undefined);
  const p = schema.properties!;
  assert.equal(p.a?.type, SchemaType.STRING);
  assert.deepEqual(p.b, { type: SchemaType.NUMBER, description: "B." });
  assert.equal(p.c?.type, SchemaType.BOOLEAN);
  assert.deepEqual(p.d?.enumValues, ["x"]);
});

Deno.test("translateInputSchema: local $refs are inlined; recursive ones are JSON text", () => {
  const { schema, encoded } = translateInputSchema({
    type: "object",
    $defs: {
      Point: {
        type: "object",
        description: "A point.",
        properties: { x: { type: "number" }, y: { type: "number" } },
        required: ["x", "y"],
      },
      Tree: {
        type: "object",
        properties: {
          children: { type: "array", items: { $ref: "#/$defs/Tree" } },
        },
      },
    },
    properties: {
      at: { $ref: "#/$defs/Point" },
      tree: { $ref: "#/$defs/Tree" },
      remote: { $ref: "https://example.invalid/s.json" },
    },
  });
  const p = schema.properties!;
  assert.equal(p.at?.type, SchemaType.OBJECT);
  assert.equal(p.at?.description, "A point.");
  assert.deepEqual(p.at?.required, ["x", "y"]);
  // The recursion stops at the second visit of the same $ref.
  const inner = p.tree?.properties?.children?.items;
  assert.equal(inner?.type, SchemaType.STRING);
  assert.match(inner?.description ?? "", /JSON-encoded value matching/);
  assert.equal(p.remote?.type, SchemaType.STRING);
  assert.deepEqual(encoded, {
    properties: {
      tree: { properties: { children: { items: { encoded: true } } } },
      remote: { encoded: true },
    },
  });
});

Deno.test("translateInputSchema: what the subset cannot say becomes a JSON-encoded string", () => {
  const { schema, encoded } = translateInputSchema({
    type: "object",
    properties: {
      union: { anyOf: [{ type: "string" }, { type: "number" }] },
      types: { type: ["string", "number"] },
      any: {},
      list: { type: "array" },
      map: { type: "object", additionalProperties: { type: "number" } },
      free: { type: "object" },
    },
  });
  const p = schema.properties!;
  for (const k of ["union", "types", "any", "list"]) {
    assert.equal(p[k]?.type, SchemaType.STRING, k);
    assert.match(
      p[k]?.description ?? "",
      /^\(a JSON-encoded value matching the JSON Schema \{/,
    );
  }
  assert.equal(p.map?.type, SchemaType.OBJECT);
  assert.equal(p.map?.description, '(any keys, each value {"type":"number"})');
  assert.equal(p.free?.description, "(any keys)");
  assert.deepEqual(Object.keys(encoded?.properties ?? {}).sort(), [
    "any",
    "list",
    "types",
    "union",
  ]);
});

Deno.test("translateInputSchema: the top level is always an object", () => {
  assert.equal(translateInputSchema(undefined).schema.type, SchemaType.OBJECT);
  assert.equal(
    translateInputSchema({ properties: {} }).schema.type,
    SchemaType.OBJECT,
  );
});

Deno.test("decodeArguments: JSON text at encoded paths only", () => {
  const paths = {
    properties: {
      v: { encoded: true },
      list: { items: { encoded: true } },
    },
  };
  assert.deepEqual(
    decodeArguments(
      { v: "[1,2]", list: ['{"a":1}', "plain"], other: "[3]" },
      paths,
    ),
    { v: [1, 2], list: [{ a: 1 }, "plain"], other: "[3]" },
  );
  // A value the model already sent decoded passes through.
  assert.deepEqual(decodeArguments({ v: [1] }, paths), { v: [1] });
  assert.deepEqual(decodeArguments({ v: "x" }, undefined), { v: "x" });
});

Deno.test("classify: annotations to kind, risk and idempotency", () => {
  const cases: [
    Parameters<typeof classify>[0],
    ToolKind,
    RiskClass,
    boolean,
  ][] = [
    [{ readOnlyHint: true }, ToolKind.DATA_SOURCE, RiskClass.READ_ONLY, true],
    // MCP defaults: destructive, open world, not idempotent.
    [undefined, ToolKind.RESOURCE, RiskClass.HIGH, false],
    [{ readOnlyHint: false }, ToolKind.RESOURCE, RiskClass.HIGH, false],
    [
      { destructiveHint: true, idempotentHint: true },
      ToolKind.RESOURCE,
      RiskClass.HIGH,
      true,
    ],
    [{ destructiveHint: false }, ToolKind.RESOURCE, RiskClass.MODERATE, false],
    [
      { destructiveHint: false, openWorldHint: false, idempotentHint: true },
      ToolKind.RESOURCE,
      RiskClass.LOW,
      true,
    ],
  ];
  for (const [hints, kind, risk, idempotent] of cases) {
    assert.deepEqual(
      classify(hints),
      { kind, risk, idempotent },
      JSON.stringify(hints),
    );
  }
  assert.deepEqual(classify({ readOnlyHint: true }, false), {
    kind: ToolKind.RESOURCE,
    risk: RiskClass.HIGH,
    idempotent: false,
  });
});

Deno.test("exposedName: prefix, sanitized, at most 64 characters", () => {
  assert.equal(exposedName("", "read_file"), "read_file");
  assert.equal(exposedName("gh_", "repos/list.all"), "gh_repos_list_all");
  assert.equal(exposedName("p_", "x".repeat(62)), "p_" + "x".repeat(62));
  assert.equal(exposedName("p_", "x".repeat(63)), undefined);
});
