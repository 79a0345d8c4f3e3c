/**
 * Closed-schema checking for the fixed blocks of `agent.hcl`, the global
 * config and the lock file: unknown attributes and blocks (with "did you
 * mean"), missing required attributes, label counts, repeated blocks, and
 * strict typed evaluation (no conversions, no functions). Private to
 * `config/`.
 *
 * @module
 */

import {
  type Diagnostic,
  didYouMean,
  type SourceRange,
} from "../contract/diagnostic.ts";
import {
  type Attribute,
  type Block,
  type Body,
  evaluate,
  type Expr,
  joinRanges,
  type Value,
} from "./hcl/mod.ts";
import {
  E_BLOCK_LABELS,
  E_DUPLICATE_BLOCK,
  E_MISSING_ATTR,
  E_UNKNOWN_ATTR,
  E_UNKNOWN_BLOCK,
} from "./codes.ts";

/** The value types of fixed-schema attributes (strict: no conversion). */
export type FixedType =
  | "string"
  | "number"
  | "bool"
  | "list(string)"
  | "map(string)"
  | "object"
  | "any";

/** One attribute of a closed body. */
export interface AttrSpec {
  /** Its type. */
  type: FixedType;
  /** Must be set. */
  required?: boolean;
}

/** One nested block type of a closed body. */
export interface BlockSpec {
  /** Names of its labels, for messages (`[]` for none). */
  labels: readonly string[];
  /** At most one block of this type (and, with labels, one per label). */
  unique?: "type" | "label";
}

/** A closed body schema. */
export interface BodySchema {
  /** Allowed attributes. */
  attributes: Readonly<Record<string, AttrSpec>>;
  /** Allowed nested blocks. */
  blocks: Readonly<Record<string, BlockSpec>>;
  /** Extra text for an unknown block type, by name. */
  unknownBlockHints?: Readonly<Record<string, string>>;
}

/** What {@linkcode checkBody} found. */
export interface CheckedBody {
  /** The known attributes by name. */
  attrs: Map<string, Attribute>;
  /** The known blocks with the right labels, by type, in source order. */
  blocks: Map<string, Block[]>;
}

/** Builds a diagnostic, leaving `range` out when unknown. */
export function diag(
  severity: Diagnostic["severity"],
  code: string,
  summary: string,
  detail: string | undefined,
  range: SourceRange | undefined,
): Diagnostic {
  const d: Diagnostic = { severity, code, summary };
  if (detail !== undefined) d.detail = detail;
  if (range !== undefined) d.range = range;
  return d;
}

/** A range from the start of `a` to the end of `b`. */
export function span(a: SourceRange, b: SourceRange): SourceRange {
  return joinRanges(a, b);
}

/** The header of a block: its type and labels. */
export function headerRange(block: Block): SourceRange {
  const last = block.labels.at(-1);
  return last ? span(block.typeRange, last.range) : block.typeRange;
}

/** `provider "echo"`, `settings`, … */
export function blockName(block: Block): string {
  return [block.type, ...block.labels.map((l) => JSON.stringify(l.value))]
    .join(" ");
}

function quoteList(names: readonly string[]): string {
  return names.map((n) => `"${n}"`).join(", ");
}

/**
 * Checks a body against a closed schema and reports every problem.
 *
 * @param body The body.
 * @param schema The allowed attributes and blocks.
 * @param where Names the body in messages, e.g. `agent_profile "default"`;
 *   `""` for the top level of a file.
 * @param diagnostics Receives the problems.
 * @param header The range to point at for a missing attribute.
 * @returns The known attributes and blocks.
 */
export function checkBody(
  body: Body,
  schema: BodySchema,
  where: string,
  diagnostics: Diagnostic[],
  header: SourceRange = body.range,
): CheckedBody {
  const attrs = new Map<string, Attribute>();
  const blocks = new Map<string, Block[]>();
  // The first block of each unique type, or of each label of a type.
  const firstOfType = new Map<string, Block>();
  const firstByLabel = new Map<string, Map<string | undefined, Block>>();
  const inWhere = () => where === "" ? "here" : `in ${where}`;
  for (const item of body.items) {
    if (item.kind === "attribute") {
      if (Object.hasOwn(schema.attributes, item.name)) {
        attrs.set(item.name, item);
        continue;
      }
      let detail: string;
      if (Object.hasOwn(schema.blocks, item.name)) {
        detail = `"${item.name}" is a block: write it as ${item.name} { ... }.`;
      } else {
        const attrNames = Object.keys(schema.attributes);
        const hint = didYouMean(item.name, attrNames);
        detail = hint
          ? `Did you mean "${hint}"?`
          : attrNames.length === 0
          ? `No attributes are expected ${inWhere()}.`
          : `Expected one of ${quoteList(attrNames)}.`;
      }
      diagnostics.push(diag(
        "error",
        E_UNKNOWN_ATTR,
        `Unsupported argument "${item.name}"`,
        detail,
        item.nameRange,
      ));
      continue;
    }
    const spec = schema.blocks[item.type];
    if (spec === undefined || !Object.hasOwn(schema.blocks, item.type)) {
      let detail: string;
      const special = schema.unknownBlockHints?.[item.type];
      if (special !== undefined) detail = special;
      else if (Object.hasOwn(schema.attributes, item.type)) {
        detail = `"${item.type}" is an attribute: write ${item.type} = ...`;
      } else {
        const blockNames = Object.keys(schema.blocks);
        const hint = didYouMean(item.type, blockNames);
        detail = hint
          ? `Did you mean "${hint}"?`
          : blockNames.length === 0
          ? `No blocks are expected ${inWhere()}.`
          : `Expected one of ${quoteList(blockNames)}.`;
      }
      diagnostics.push(diag(
        "error",
        E_UNKNOWN_BLOCK,
        `Unsupported block type "${item.type}"`,
        detail,
        item.typeRange,
      ));
      continue;
    }
    if (item.labels.length !== spec.labels.length) {
      const want = spec.labels.length === 0
        ? "no labels"
        : `${spec.labels.length === 1 ? "one label" : "labels"}: ${
          spec.labels.map((l) => `<${l}>`).join(" ")
        }`;
      const example = spec.labels.length === 0
        ? `${item.type} { ... }`
        : `${item.type} ${spec.labels.map((l) => `"${l}"`).join(" ")} { ... }`;
      diagnostics.push(diag(
        "error",
        E_BLOCK_LABELS,
        item.labels.length < spec.labels.length
          ? `Missing ${spec.labels.at(item.labels.length)} for ${item.type}`
          : `Extraneous label for ${item.type}`,
        `A ${item.type} block takes ${want}, as in ${example}.`,
        item.labels.length > spec.labels.length
          ? item.labels[spec.labels.length]!.range
          : headerRange(item),
      ));
      continue;
    }
    const list = blocks.get(item.type) ?? [];
    if (spec.unique !== undefined) {
      // The first block of this type (or of this type and label): a map
      // per type, not a scan of the blocks so far (quadratic on 60,000
      // profiles), keyed by the label itself (a key made of the type and
      // the label was a string to make and hash per block).
      let first: Block | undefined;
      if (spec.unique === "type") {
        first = firstOfType.get(item.type);
        if (first === undefined) firstOfType.set(item.type, item);
      } else {
        let byLabel = firstByLabel.get(item.type);
        if (byLabel === undefined) {
          byLabel = new Map();
          firstByLabel.set(item.type, byLabel);
        }
        const label = item.labels[0]?.value;
        first = byLabel.get(label);
        if (first === undefined) byLabel.set(label, item);
      }
      if (first !== undefined) {
        const s = first.range.start;
        diagnostics.push(diag(
          "error",
          E_DUPLICATE_BLOCK,
          `Duplicate ${blockName(item)} block`,
          `A ${
            blockName(first)
          } block is already declared at ${first.range.file}:${s.line}:${s.column}; ${
            spec.unique === "type"
              ? `only one ${item.type} block is allowed${
                where === "" ? "" : ` in ${where}`
              }`
              : `each ${item.type} label may appear only once`
          }.`,
          headerRange(item),
        ));
        continue;
      }
    }
    list.push(item);
    blocks.set(item.type, list);
  }
  // Straight from the schema, nothing cached: most schemas are literals
  // made per block (a policy's, a profile's), and a cache keyed by schema
  // (a WeakMap) took an entry per block, which made the collector slow.
  const specs = schema.attributes;
  for (const name in specs) {
    if (specs[name]!.required && !attrs.has(name)) {
      diagnostics.push(diag(
        "error",
        E_MISSING_ATTR,
        `Missing required argument "${name}"`,
        `The argument "${name}" is required ${inWhere()}.`,
        header,
      ));
    }
  }
  return { attrs, blocks };
}

/** Capitalises the first letter. */
export function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** "a string", "a number", "an object", "null", … for messages. */
export function describeType(value: Value | undefined): string {
  if (value === undefined || value === null) return "null";
  if (Array.isArray(value)) return "a list";
  switch (typeof value) {
    case "string":
      return "a string";
    case "number":
      return "a number";
    case "boolean":
      return "a bool";
    default:
      return "an object";
  }
}

const EXPECTED: Readonly<Record<FixedType, string>> = {
  string: "a string",
  number: "a number",
  bool: "a bool",
  "list(string)": "a list of strings",
  "map(string)": "an object (map) of strings",
  object: "an object",
  any: "a value",
};

/**
 * Checks a value's type strictly (no conversion): a list must be a tuple of
 * the element type, a map an object of that element type.
 *
 * @returns A description of the mismatch ("got a number"), or `undefined`.
 */
export function typeMismatch(
  value: Value,
  type: FixedType,
): string | undefined {
  const isObj = value !== null && typeof value === "object" &&
    !Array.isArray(value);
  switch (type) {
    case "any":
      return undefined;
    case "string":
      return typeof value === "string"
        ? undefined
        : `got ${describeType(value)}`;
    case "number":
      return typeof value === "number"
        ? undefined
        : `got ${describeType(value)}`;
    case "bool":
      return typeof value === "boolean"
        ? undefined
        : `got ${describeType(value)}`;
    case "object":
      return isObj ? undefined : `got ${describeType(value)}`;
    case "list(string)": {
      if (!Array.isArray(value)) return `got ${describeType(value)}`;
      const i = value.findIndex((v) => typeof v !== "string");
      return i < 0
        ? undefined
        : `element ${i + 1} is ${describeType(value[i])}`;
    }
    case "map(string)": {
      if (!isObj) return `got ${describeType(value)}`;
      const bad = Object.entries(value).find(([, v]) => typeof v !== "string");
      return bad === undefined
        ? undefined
        : `the value of "${bad[0]}" is ${describeType(bad[1])}`;
    }
  }
}

/**
 * Evaluates an attribute with no functions and no variables, and checks its
 * type strictly. Reports problems and returns `undefined` on any.
 *
 * @param attr The attribute.
 * @param type Its type.
 * @param where Names the enclosing block, e.g. `settings`.
 * @param diagnostics Receives the problems.
 * @returns The value.
 */
export function evalAttr(
  attr: Attribute,
  type: FixedType,
  where: string,
  diagnostics: Diagnostic[],
): Value | undefined {
  return evalExpr(attr.expr, type, attr.name, where, diagnostics);
}

/**
 * {@linkcode evalAttr} for any expression.
 *
 * @param expr The expression.
 * @param type Its type.
 * @param name What it is, e.g. `max_turns`.
 * @param where Names the enclosing block.
 * @param diagnostics Receives the problems.
 * @returns The value.
 */
export function evalExpr(
  expr: Expr,
  type: FixedType,
  name: string,
  where: string,
  diagnostics: Diagnostic[],
): Value | undefined {
  const place = where === ""
    ? `attribute "${name}"`
    : `attribute "${name}" of ${where}`;
  const r = evaluate(expr, { allowEnv: false, env: {}, place });
  for (const each of r.diagnostics) diagnostics.push(each);
  if (r.value === undefined) return undefined;
  const bad = typeMismatch(r.value, type);
  if (bad !== undefined) {
    diagnostics.push(diag(
      "error",
      "E_INVALID_VALUE",
      `Wrong type for "${name}"`,
      `${capitalise(place)} must be ${EXPECTED[type]}, but ${bad}.`,
      expr.range,
    ));
    return undefined;
  }
  return r.value;
}

/**
 * Checks that a string is one of a set, with "did you mean".
 *
 * @returns `true` when it is.
 */
export function checkEnum(
  value: string,
  domain: readonly string[],
  name: string,
  where: string,
  range: SourceRange,
  diagnostics: Diagnostic[],
): boolean {
  if (domain.includes(value)) return true;
  const hint = didYouMean(value, domain);
  diagnostics.push(diag(
    "error",
    "E_INVALID_VALUE",
    `Invalid value for "${name}"`,
    `${JSON.stringify(value)} is not one of ${quoteList(domain)}${
      where === "" ? "" : ` (${where})`
    }.${hint ? ` Did you mean "${hint}"?` : ""}`,
    range,
  ));
  return false;
}

/** The ranges of a tuple constructor's items, when the expression is one. */
export function itemRanges(expr: Expr): (SourceRange | undefined)[] {
  let e = expr;
  while (e.kind === "parens") e = e.expr;
  return e.kind === "tuple" ? e.items.map((i) => i.range) : [];
}

/** The ranges of an object constructor's items by literal key. */
export function keyRanges(expr: Expr): Record<string, SourceRange> {
  let e = expr;
  while (e.kind === "parens") e = e.expr;
  const out: Record<string, SourceRange> = {};
  if (e.kind !== "object") return out;
  for (const item of e.items) {
    const key = item.keyName ??
      (item.key.kind === "string" ? item.key.value : undefined);
    if (key !== undefined && !Object.hasOwn(out, key)) {
      // Assigned (no descriptor per key), except the `__proto__` setter.
      if (key !== "__proto__") {
        out[key] = item.range;
        continue;
      }
      Object.defineProperty(out, key, {
        value: item.range,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return out;
}
