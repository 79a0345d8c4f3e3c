/**
 * From MCP tool declarations to `ToolSchema`s: the input JSON Schema
 * translated to the common subset (`pluggableharness.schema.v1`, plugins.md
 * §4.2), the annotations mapped to kind, risk and idempotency, and the
 * argument decoding the translation implies.
 *
 * The subset has `type` (object, string, number, boolean, array),
 * `properties`, `required`, `items`, string `enum` and `description`.
 * Everything else is handled deliberately:
 *
 * - `integer` becomes `number` (the description says "an integer");
 * - `const` becomes a one-value string enum, or a note;
 * - a nullable type (`["string", "null"]`, or `anyOf`/`oneOf` with a
 *   `{"type": "null"}` branch and one other) becomes the non-null type;
 * - a single-branch `allOf`/`anyOf`/`oneOf` becomes that branch;
 * - local `$ref`s (`#/$defs/…`, `#/definitions/…`) are inlined;
 * - validation keywords (`minimum`, `maxLength`, `pattern`, `format`,
 *   `default`, `minItems`, …) become a note appended to the description;
 * - a non-string `enum` is a note, the type stays;
 * - an object without `properties` stays an object without properties
 *   (any keys), with its `additionalProperties` value type noted;
 * - anything else that cannot be expressed (real unions, recursive
 *   `$ref`s, a missing `type`, an array without `items`) becomes a STRING
 *   whose description says "a JSON-encoded value" and quotes the original
 *   schema; the bridge JSON-decodes such arguments before forwarding the
 *   call (see {@linkcode decodeArguments}).
 *
 * @module
 */
import type {
  JsonObject,
  JsonValue,
  MessageInitShape,
} from "@bufbuild/protobuf";
import {
  type SchemaSchema,
  SchemaType,
} from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import {
  RiskClass,
  ToolKind,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";

/** The subset schema, as a message init shape. */
export type SubsetSchema = MessageInitShape<typeof SchemaSchema>;

/**
 * Where, in a tool's arguments, values were declared as JSON-encoded
 * strings: a tree mirroring the input schema.
 */
export interface EncodedPaths {
  /** The value here is JSON-encoded. */
  encoded?: boolean;
  /** Per property of an object. */
  properties?: Record<string, EncodedPaths>;
  /** The elements of an array. */
  items?: EncodedPaths;
}

/** A translated schema and the argument paths that need decoding. */
export interface Translation {
  /** The subset schema. */
  schema: SubsetSchema;
  /** Paths to decode; undefined when none. */
  encoded?: EncodedPaths;
}

type Json = Record<string, unknown>;

const NOTED_KEYWORDS: Record<string, string> = {
  minimum: "minimum",
  maximum: "maximum",
  exclusiveMinimum: "greater than",
  exclusiveMaximum: "less than",
  multipleOf: "multiple of",
  minLength: "at least this many characters:",
  maxLength: "at most this many characters:",
  pattern: "pattern",
  format: "format",
  minItems: "at least this many items:",
  maxItems: "at most this many items:",
  uniqueItems: "unique items:",
  minProperties: "at least this many keys:",
  maxProperties: "at most this many keys:",
  default: "default",
};

const MAX_QUOTED = 400;
const MAX_DEPTH = 24;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function withNotes(description: string, notes: string[]): string {
  if (notes.length === 0) return description;
  const tail = `(${notes.join("; ")})`;
  return description ? `${description} ${tail}` : tail;
}

function notesOf(s: Json): string[] {
  const notes: string[] = [];
  for (const [key, label] of Object.entries(NOTED_KEYWORDS)) {
    if (s[key] === undefined) continue;
    notes.push(`${label} ${JSON.stringify(s[key])}`);
  }
  return notes;
}

function quote(s: unknown): string {
  const text = JSON.stringify(s);
  return text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED)}…` : text;
}

function resolveRef(ref: string, root: Json): Json | undefined {
  const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (!m) return undefined;
  const defs = root[m[1]!];
  if (!isObject(defs)) return undefined;
  const name = m[2]!.replaceAll("~1", "/").replaceAll("~0", "~");
  const target = defs[name];
  return isObject(target) ? target : undefined;
}

/** Removes a `null` branch from a union; returns the one left, if one is. */
function nonNullBranch(branches: unknown[]): Json | undefined {
  const rest = branches.filter((b) => !(isObject(b) && b.type === "null"));
  if (rest.length === 1 && isObject(rest[0])) return rest[0];
  return undefined;
}

class Translator {
  readonly #root: Json;
  constructor(root: Json) {
    this.#root = root;
  }

  /** A value the subset cannot describe: a JSON-encoded string. */
  #encoded(original: Json, description: string): Translation {
    return {
      schema: {
        type: SchemaType.STRING,
        description: withNotes(description, [
          `a JSON-encoded value matching the JSON Schema ${quote(original)}`,
        ]),
      },
      encoded: { encoded: true },
    };
  }

  translate(raw: unknown, refs: string[] = [], depth = 0): Translation {
    const s: Json = isObject(raw) ? raw : {};
    const description = typeof s.description === "string"
      ? s.description
      : (typeof s.title === "string" ? s.title : "");
    if (depth > MAX_DEPTH) return this.#encoded(s, description);
    if (typeof s.$ref === "string") {
      const target = resolveRef(s.$ref, this.#root);
      if (!target || refs.includes(s.$ref)) {
        return this.#encoded(s, description);
      }
      const { $ref: _, ...rest } = s;
      const merged = { ...target, ...rest };
      if (!rest.description && target.description) {
        merged.description = target.description;
      }
      return this.translate(merged, [...refs, s.$ref], depth + 1);
    }
    for (const key of ["anyOf", "oneOf", "allOf"] as const) {
      const branches = s[key];
      if (!Array.isArray(branches)) continue;
      const { [key]: _, ...rest } = s;
      const single = branches.length === 1 && isObject(branches[0])
        ? branches[0]
        : key === "allOf"
        ? undefined
        : nonNullBranch(branches);
      if (!single) return this.#encoded(s, description);
      const merged: Json = { ...single, ...rest };
      if (!description && single.description) {
        merged.description = single.description;
      }
      return this.translate(merged, refs, depth + 1);
    }
    let type = s.type;
    if (Array.isArray(type)) {
      const rest = type.filter((t) => t !== "null");
      type = rest.length === 1 ? rest[0] : undefined;
      if (type === undefined) return this.#encoded(s, description);
    }
    const notes = notesOf(s);
    if (s.const !== undefined && typeof s.const !== "string") {
      notes.push(`always ${JSON.stringify(s.const)}`);
    }
    if (type === undefined && s.const !== undefined) {
      type = typeof s.const === "string"
        ? "string"
        : typeof s.const === "number"
        ? "number"
        : typeof s.const === "boolean"
        ? "boolean"
        : undefined;
    }
    if (type === undefined && isObject(s.properties)) type = "object";
    if (type === undefined && s.items !== undefined) type = "array";
    switch (type) {
      case "string": {
        const schema: SubsetSchema = { type: SchemaType.STRING };
        if (typeof s.const === "string") schema.enumValues = [s.const];
        else if (Array.isArray(s.enum)) {
          if (s.enum.every((v) => typeof v === "string")) {
            schema.enumValues = s.enum as string[];
          } else notes.push(`one of ${JSON.stringify(s.enum)}`);
        }
        schema.description = withNotes(description, notes);
        return { schema };
      }
      case "integer":
      case "number": {
        if (Array.isArray(s.enum)) {
          notes.push(`one of ${JSON.stringify(s.enum)}`);
        }
        if (type === "integer") notes.unshift("an integer");
        return {
          schema: {
            type: SchemaType.NUMBER,
            description: withNotes(description, notes),
          },
        };
      }
      case "boolean":
        return {
          schema: {
            type: SchemaType.BOOLEAN,
            description: withNotes(description, notes),
          },
        };
      case "array": {
        if (!isObject(s.items)) return this.#encoded(s, description);
        const items = this.translate(s.items, refs, depth + 1);
        return {
          schema: {
            type: SchemaType.ARRAY,
            description: withNotes(description, notes),
            items: items.schema,
          },
          ...(items.encoded ? { encoded: { items: items.encoded } } : {}),
        };
      }
      case "object": {
        const properties: Record<string, SubsetSchema> = {};
        const encoded: Record<string, EncodedPaths> = {};
        const props = isObject(s.properties) ? s.properties : {};
        for (const [name, sub] of Object.entries(props)) {
          const t = this.translate(sub, refs, depth + 1);
          properties[name] = t.schema;
          if (t.encoded) encoded[name] = t.encoded;
        }
        const required = Array.isArray(s.required)
          ? s.required.filter((r): r is string =>
            typeof r === "string" && r in properties
          )
          : [];
        if (Object.keys(props).length === 0) {
          const ap = s.additionalProperties;
          if (isObject(ap) && ap.type !== undefined) {
            notes.push(`any keys, each value ${quote(ap)}`);
          } else if (ap !== false) notes.push("any keys");
        }
        return {
          schema: {
            type: SchemaType.OBJECT,
            description: withNotes(description, notes),
            properties,
            required,
          },
          ...(Object.keys(encoded).length > 0
            ? { encoded: { properties: encoded } }
            : {}),
        };
      }
      default:
        return this.#encoded(s, description);
    }
  }
}

/**
 * Translates an MCP tool's `inputSchema` (JSON Schema) to the subset. The
 * top level is always an object.
 *
 * @param inputSchema The tool's input schema.
 * @returns The subset schema and the argument paths to JSON-decode.
 */
export function translateInputSchema(inputSchema: unknown): Translation {
  const root: Json = isObject(inputSchema) ? inputSchema : {};
  const t = new Translator(root).translate({ ...root, type: "object" });
  return t;
}

/**
 * Decodes the arguments a translation declared JSON-encoded: a string there
 * that parses as JSON is replaced by the parsed value; anything else is
 * passed on unchanged (the server validates it).
 *
 * @param value The call's arguments (or a part of them).
 * @param paths The encoded paths of the tool.
 * @returns The arguments to forward.
 */
export function decodeArguments(
  value: JsonValue,
  paths: EncodedPaths | undefined,
): JsonValue {
  if (!paths) return value;
  if (paths.encoded) {
    if (typeof value !== "string") return value;
    try {
      return JSON.parse(value) as JsonValue;
    } catch {
      return value;
    }
  }
  if (paths.items && Array.isArray(value)) {
    return value.map((v) => decodeArguments(v, paths.items));
  }
  if (paths.properties && isObject(value)) {
    const out: JsonObject = { ...(value as JsonObject) };
    for (const [k, p] of Object.entries(paths.properties)) {
      if (k in out) out[k] = decodeArguments(out[k]!, p);
    }
    return out;
  }
  return value;
}

/** MCP tool annotations (all hints optional). */
export interface ToolAnnotations {
  /** The tool does not modify its environment. */
  readOnlyHint?: boolean;
  /** The tool may perform destructive updates (meaningful when not read-only). */
  destructiveHint?: boolean;
  /** Repeating a call with the same arguments has no additional effect. */
  idempotentHint?: boolean;
  /** The tool interacts with an open world of external entities. */
  openWorldHint?: boolean;
}

/** Kind, risk and idempotency derived from annotations. */
export interface Classification {
  /** DATA_SOURCE for read-only tools, RESOURCE otherwise. */
  kind: ToolKind;
  /** READ_ONLY for data sources; LOW, MODERATE or HIGH for resources. */
  risk: RiskClass;
  /** Whether the kernel may retry a retryable error. */
  idempotent: boolean;
}

/**
 * Maps MCP annotations to kind, risk and idempotency, with MCP's own
 * defaults for absent hints (`readOnlyHint` false, `destructiveHint` true,
 * `idempotentHint` false, `openWorldHint` true):
 *
 * - read-only → data_source / read_only, idempotent;
 * - destructive (the default) → resource / high;
 * - not destructive, open world (the default) → resource / moderate;
 * - not destructive, closed world → resource / low (additive changes to
 *   the server's own state, e.g. a knowledge graph);
 * - idempotent from `idempotentHint`.
 *
 * When `trust` is false (the provider's `trust_annotations = false`),
 * annotations are ignored and every tool is resource / high, not
 * idempotent: hints from an untrusted server are only claims.
 *
 * @param a The tool's annotations.
 * @param trust Whether to believe them.
 * @returns The classification.
 */
export function classify(
  a: ToolAnnotations | undefined,
  trust = true,
): Classification {
  if (!trust) {
    return { kind: ToolKind.RESOURCE, risk: RiskClass.HIGH, idempotent: false };
  }
  const hints = a ?? {};
  if (hints.readOnlyHint === true) {
    return {
      kind: ToolKind.DATA_SOURCE,
      risk: RiskClass.READ_ONLY,
      idempotent: true,
    };
  }
  const destructive = hints.destructiveHint ?? true;
  const openWorld = hints.openWorldHint ?? true;
  return {
    kind: ToolKind.RESOURCE,
    risk: destructive
      ? RiskClass.HIGH
      : openWorld
      ? RiskClass.MODERATE
      : RiskClass.LOW,
    idempotent: hints.idempotentHint === true,
  };
}

/** Characters vendors accept in a tool name. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The tool name the model sees: the prefix, then the MCP name with every
 * character outside `[A-Za-z0-9_-]` replaced by `_`.
 *
 * @param prefix The configured prefix.
 * @param mcpName The server's tool name.
 * @returns The name, or undefined when it would be longer than 64.
 */
export function exposedName(
  prefix: string,
  mcpName: string,
): string | undefined {
  const name = prefix + mcpName.replace(/[^A-Za-z0-9_-]/g, "_");
  return TOOL_NAME.test(name) ? name : undefined;
}
