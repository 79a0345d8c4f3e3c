/**
 * The schema-to-value bridge for `provider` blocks (config.md §2.3): check a
 * plugin's advertised config schema ({@linkcode validateConfigSchema}, rules
 * 1–5), then decode a provider body against it
 * ({@linkcode decodeProviderBody}): closed attributes, the sensitive-shape
 * pass on the syntax before any evaluation (nested object attributes too),
 * `env()` evaluation, cty-style safe conversions, required attributes,
 * defaults and zero values.
 *
 * Values read with `env()` stay {@linkcode Secret}s; no diagnostic names a
 * value, only types.
 *
 * @module
 */

import type { Diagnostic, SourceRange } from "../contract/diagnostic.ts";
import { didYouMean } from "../contract/diagnostic.ts";
import {
  type Body,
  checkSensitiveShape,
  type EnvLookup,
  evaluate,
  type Expr,
  formatNumber,
  type ObjectItem,
  type ObjectValue,
  Secret,
  type Value,
} from "./hcl/mod.ts";
import {
  CONFIG_ATTR_TYPES,
  type ConfigAttributeSpec,
  type ConfigAttrType,
} from "../contract/manifest.ts";
import {
  E_MISSING_ATTR,
  E_SCHEMA_INVALID,
  E_UNKNOWN_ATTR,
  E_UNKNOWN_BLOCK,
} from "./codes.ts";
import { describeType, diag } from "./_schema.ts";

export type { ConfigAttributeSpec, ConfigAttrType };

/**
 * The attributes of a `provider` block that belong to the kernel, not to the
 * plugin: the operator's permission grant (the Deno permissions, and
 * `allow_subscribe` for `kernel.*` bus topics). They are removed before the
 * body is decoded against the plugin's schema, and a schema may not declare
 * them.
 */
export const GRANT_ATTRIBUTES: readonly string[] = [
  "allow_env",
  "allow_run",
  "allow_read",
  "allow_write",
  "allow_net",
  "allow_subscribe",
  "allow_inject",
];

/** The grant attribute of control-plane injection (`InjectControl`). */
export const INJECT_ATTRIBUTE = "allow_inject";

/** The grant attribute of `kernel.*` bus subscriptions. */
export const SUBSCRIBE_ATTRIBUTE = "allow_subscribe";

/** The reserved per-provider token cap of context and memory providers. */
export const TOKEN_BUDGET_ATTRIBUTE = "token_budget";

const NAME_REGEXP = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * Validates a plugin's advertised config schema (config.md §2.3): every type
 * is one of the seven; `object` attributes, and only they, have nested
 * attributes; a sensitive attribute has no default; a default is JSON of the
 * attribute's type (for objects: only declared keys, each matching); all of
 * it recursively. Also: names are unique identifiers, the kernel's grant
 * attributes (`allow_*`) are not declared, and `token_budget`, when declared,
 * is a number. Every problem is an `E_SCHEMA_INVALID` error.
 *
 * @example Usage
 * ```ts
 * import { validateConfigSchema } from "./provider_schema.ts";
 * import assert from "node:assert/strict";
 * const [d] = validateConfigSchema([{
 *   name: "api_key", type: "string", required: false, sensitive: true,
 *   description: "", objectAttributes: [], defaultJson: '"sk-123"',
 * }], { provider: "claude" });
 * assert.equal(d?.code, "E_SCHEMA_INVALID");
 * ```
 *
 * @param attributes The schema's attributes.
 * @param options The provider's local name, where to point, and where the
 *   schema comes from (e.g. its manifest's path).
 * @returns The problems (empty when the schema is valid).
 */
export function validateConfigSchema(
  attributes: readonly ConfigAttributeSpec[],
  options: { provider: string; range?: SourceRange; origin?: string },
): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const from = options.origin ? ` (from ${options.origin})` : "";
  const fail = (path: string, why: string) =>
    diagnostics.push(diag(
      "error",
      E_SCHEMA_INVALID,
      `Invalid config schema of provider "${options.provider}"`,
      `Attribute "${path}"${from}: ${why}. The plugin must be fixed; its provider block cannot be checked until then.`,
      options.range,
    ));
  const walk = (
    attrs: readonly ConfigAttributeSpec[],
    prefix: string,
  ): void => {
    const seen = new Set<string>();
    for (const a of attrs) {
      const path = prefix + a.name;
      if (typeof a.name !== "string" || !NAME_REGEXP.test(a.name)) {
        fail(path, "the name is not an identifier");
        continue;
      }
      if (seen.has(a.name)) fail(path, "the name is declared twice");
      seen.add(a.name);
      if (prefix === "" && GRANT_ATTRIBUTES.includes(a.name)) {
        fail(
          path,
          "the name is reserved for the operator's permission grant",
        );
      }
      if (!CONFIG_ATTR_TYPES.includes(a.type)) {
        fail(
          path,
          `the type ${JSON.stringify(a.type)} is not one of ${
            CONFIG_ATTR_TYPES.join(", ")
          }`,
        );
        continue;
      }
      const nested = a.objectAttributes ?? [];
      if (a.type === "object" && nested.length === 0) {
        fail(path, "an object attribute must declare its nested attributes");
      }
      if (a.type !== "object" && nested.length > 0) {
        fail(
          path,
          `only object attributes have nested attributes, not ${a.type}`,
        );
      }
      if (
        prefix === "" && a.name === TOKEN_BUDGET_ATTRIBUTE &&
        a.type !== "number"
      ) {
        fail(
          path,
          `the reserved token_budget attribute must be a number, not ${a.type}`,
        );
      }
      if (a.defaultJson !== undefined) {
        if (a.sensitive) {
          fail(
            path,
            "a sensitive attribute cannot have a default (it would be a literal secret)",
          );
        } else {
          let parsed: unknown;
          let ok = true;
          try {
            parsed = JSON.parse(a.defaultJson);
          } catch {
            ok = false;
            fail(path, "the default is not valid JSON");
          }
          if (ok) {
            const why = jsonMismatch(parsed, a);
            if (why !== undefined) {
              fail(
                path,
                `the default does not match the type ${a.type}: ${why}`,
              );
            }
          }
        }
      }
      if (a.type === "object") walk(nested, `${path}.`);
    }
  };
  walk(attributes, "");
  return diagnostics;
}

function jsonKind(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  return `a ${typeof v}`;
}

function jsonMismatch(v: unknown, a: ConfigAttributeSpec): string | undefined {
  switch (a.type) {
    case "string":
      return typeof v === "string" ? undefined : `got ${jsonKind(v)}`;
    case "number":
      return typeof v === "number" ? undefined : `got ${jsonKind(v)}`;
    case "bool":
      return typeof v === "boolean" ? undefined : `got ${jsonKind(v)}`;
    case "list(string)":
    case "list(number)": {
      const isString = a.type === "list(string)";
      if (!Array.isArray(v)) return `got ${jsonKind(v)}`;
      const i = v.findIndex((x) =>
        isString ? typeof x !== "string" : typeof x !== "number"
      );
      return i < 0 ? undefined : `element ${i + 1} is ${jsonKind(v[i])}`;
    }
    case "map(string)": {
      if (v === null || typeof v !== "object" || Array.isArray(v)) {
        return `got ${jsonKind(v)}`;
      }
      const bad = Object.entries(v).find(([, x]) => typeof x !== "string");
      return bad
        ? `the value of "${bad[0]}" is ${jsonKind(bad[1])}`
        : undefined;
    }
    case "object": {
      if (v === null || typeof v !== "object" || Array.isArray(v)) {
        return `got ${jsonKind(v)}`;
      }
      for (const [k, x] of Object.entries(v)) {
        const child = a.objectAttributes.find((c) => c.name === k);
        if (!child) return `the key "${k}" is not declared`;
        const why = jsonMismatch(x, child);
        if (why !== undefined) return `"${k}": ${why}`;
      }
      return undefined;
    }
  }
}

/** Options for {@linkcode decodeProviderBody}. */
export interface DecodeProviderBodyOptions {
  /** The provider's local name, for messages. */
  provider: string;
  /**
   * The environment `env()` reads.
   * @default {{}}
   */
  env?: EnvLookup | Readonly<Record<string, string | undefined>>;
  /**
   * Whether an unset `env()` variable is an error (`E_ENV_UNSET`) or a
   * warning (`W_ENV_UNSET`).
   * @default {true}
   */
  requireEnv?: boolean;
  /**
   * Attribute names to skip (already handled by the caller).
   * @default {GRANT_ATTRIBUTES}
   */
  reserved?: readonly string[];
  /**
   * Where to point when a required attribute is missing.
   * @default {the body's range}
   */
  header?: SourceRange;
}

/** What {@linkcode decodeProviderBody} returns. */
export interface DecodeProviderBodyResult {
  /**
   * The decoded body, every schema attribute present (defaults and zero
   * values applied), in schema order; `undefined` when there are errors.
   */
  config: ObjectValue | undefined;
  /** Every problem found. */
  diagnostics: Diagnostic[];
}

/**
 * Decodes a provider body against its plugin's config schema.
 *
 * Order (config.md §4.3, stage B): a closed-schema pass (unknown attributes
 * with "did you mean", no nested blocks), the sensitive-shape pass over the
 * unevaluated syntax of every sensitive attribute, nested ones included,
 * then evaluation with `env()` in scope and conversion to each attribute's
 * type (`"4000"` → 4000, `7` → `"7"`, `"true"` → true), then required
 * attributes and defaults (`default_json`, else the zero value). An
 * attribute that failed the shape check is not evaluated. The schema is
 * assumed valid ({@linkcode validateConfigSchema}).
 *
 * @example Usage
 * ```ts
 * import { type ConfigAttributeSpec, decodeProviderBody } from "./provider_schema.ts";
 * import { parseHcl } from "./hcl/mod.ts";
 * import assert from "node:assert/strict";
 * const { body } = parseHcl('api_key = env("KEY")\ntimeout = "30"\n', "agent.hcl");
 * const schema: ConfigAttributeSpec[] = [
 *   { name: "api_key", type: "string", required: true, sensitive: true, description: "", objectAttributes: [] },
 *   { name: "timeout", type: "number", required: false, sensitive: false, description: "", objectAttributes: [] },
 *   { name: "region", type: "string", required: false, sensitive: false, description: "", objectAttributes: [], defaultJson: '"eu"' },
 * ];
 * const { config } = decodeProviderBody(body, schema, { provider: "llm", env: { KEY: "sk-1" } });
 * assert.equal(JSON.stringify(config), '{"api_key":"(sensitive)","timeout":30,"region":"eu"}');
 * ```
 *
 * @param body The provider block's body, or `undefined` when there is none.
 * @param schema The plugin's config schema.
 * @param options The provider's name, the environment and reserved names.
 * @returns The decoded configuration and the diagnostics.
 */
export function decodeProviderBody(
  body: Body | undefined,
  schema: readonly ConfigAttributeSpec[],
  options: DecodeProviderBodyOptions,
): DecodeProviderBodyResult {
  const diagnostics: Diagnostic[] = [];
  const reserved = options.reserved ?? GRANT_ATTRIBUTES;
  const where = `provider "${options.provider}"`;
  const bySpec = specsByName(schema);
  const present = new Map<string, Expr>();
  const presentRange = new Map<string, SourceRange>();
  for (const item of body?.items ?? []) {
    if (item.kind === "block") {
      diagnostics.push(diag(
        "error",
        E_UNKNOWN_BLOCK,
        `Unsupported block type "${item.type}"`,
        `The body of ${where} holds attributes only: its plugin's config schema declares no blocks.`,
        item.typeRange,
      ));
      continue;
    }
    if (reserved.includes(item.name)) continue;
    if (!bySpec.has(item.name)) {
      const hint = didYouMean(item.name, [...bySpec.keys(), ...reserved]);
      const names = [...bySpec.keys()];
      diagnostics.push(diag(
        "error",
        E_UNKNOWN_ATTR,
        `Unsupported argument "${item.name}"`,
        `${hint ? `Did you mean "${hint}"? ` : ""}${
          names.length === 0
            ? `The plugin of ${where} takes no configuration`
            : `The plugin of ${where} accepts ${
              names.map((n) => `"${n}"`).join(", ")
            }`
        }${
          item.name === TOKEN_BUDGET_ATTRIBUTE
            ? "; token_budget can only be set when the provider's schema declares it"
            : ""
        }.`,
        item.nameRange,
      ));
      continue;
    }
    present.set(item.name, item.expr);
    presentRange.set(item.name, item.nameRange);
  }

  // Pass 1: the sensitive shape, on the syntax, before any evaluation.
  const shapeFailed = new Set<string>();
  for (const [name, expr] of present) {
    const before = diagnostics.length;
    checkShapes(
      bySpec.get(name)!,
      expr,
      `attribute "${name}" of ${where}`,
      diagnostics,
    );
    if (diagnostics.length > before) shapeFailed.add(name);
  }

  // Pass 2: evaluation and conversion.
  const out: ObjectValue = {};
  let ok = diagnostics.length === 0;
  for (const spec of schema) {
    const expr = present.get(spec.name);
    let value: Value | undefined;
    if (expr !== undefined && !shapeFailed.has(spec.name)) {
      const r = evaluate(expr, {
        allowEnv: true,
        env: options.env ?? {},
        requireEnv: options.requireEnv ?? true,
        place: `attribute "${spec.name}" of ${where}`,
      });
      for (const each of r.diagnostics) diagnostics.push(each);
      if (r.value === undefined) {
        ok = false;
        continue;
      }
      if (r.value !== null) {
        value = convert(r.value, spec, spec.name, expr, where, diagnostics);
        if (value === undefined) {
          ok = false;
          continue;
        }
      }
    } else if (expr !== undefined) {
      ok = false;
      continue;
    }
    if (value === undefined) {
      if (spec.required) {
        ok = false;
        diagnostics.push(diag(
          "error",
          E_MISSING_ATTR,
          `Missing required argument "${spec.name}"`,
          `The plugin of ${where} requires "${spec.name}"${
            spec.description ? ` (${spec.description.replace(/\.$/, "")})` : ""
          }${expr !== undefined ? "; it must not be null" : ""}.`,
          expr?.range ?? options.header ?? body?.range,
        ));
        continue;
      }
      value = defaultValue(spec);
    }
    setKey(out, spec.name, value);
  }
  return { config: ok ? out : undefined, diagnostics };
}

const specIndex = new WeakMap<
  readonly ConfigAttributeSpec[],
  ReadonlyMap<string, ConfigAttributeSpec>
>();

/**
 * A schema's attributes by name, made once per schema: thousands of
 * providers share their plugin's.
 */
function specsByName(
  schema: readonly ConfigAttributeSpec[],
): ReadonlyMap<string, ConfigAttributeSpec> {
  let index = specIndex.get(schema);
  if (index === undefined) {
    index = new Map(schema.map((a) => [a.name, a]));
    specIndex.set(schema, index);
  }
  return index;
}

/** Sets an own property of a new plain object, even `__proto__`. */
function setKey(obj: ObjectValue, key: string, value: Value): void {
  if (key !== "__proto__") {
    obj[key] = value;
    return;
  }
  Object.defineProperty(obj, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function hasSensitive(spec: ConfigAttributeSpec): boolean {
  return spec.sensitive ||
    (spec.type === "object" && spec.objectAttributes.some(hasSensitive));
}

function unparen(e: Expr): Expr {
  while (e.kind === "parens") e = e.expr;
  return e;
}

function checkShapes(
  spec: ConfigAttributeSpec,
  expr: Expr,
  place: string,
  diagnostics: Diagnostic[],
): void {
  if (spec.sensitive) {
    const d = checkSensitiveShape(expr, { place });
    if (d) diagnostics.push(d);
    return;
  }
  if (spec.type !== "object" || !hasSensitive(spec)) return;
  const e = unparen(expr);
  if (e.kind !== "object") {
    if (e.kind === "null") return;
    diagnostics.push(diag(
      "error",
      "E_SECRET_SHAPE",
      "Invalid sensitive expression",
      `${place[0]!.toUpperCase()}${
        place.slice(1)
      } holds sensitive attributes (${
        spec.objectAttributes.filter(hasSensitive).map((c) => `"${c.name}"`)
          .join(", ")
      }): write it as an object { ... } so that each of them can be checked to be env("NAME").`,
      expr.range,
    ));
    return;
  }
  for (const item of e.items) {
    const key = item.keyName ??
      (item.key.kind === "string" ? item.key.value : undefined);
    const child = spec.objectAttributes.find((c) => c.name === key);
    if (child === undefined) continue; // reported by the conversion
    checkShapes(
      child,
      item.value,
      `attribute "${key}" in ${place}`,
      diagnostics,
    );
  }
}

function defaultValue(spec: ConfigAttributeSpec): Value {
  if (spec.defaultJson !== undefined) {
    return JSON.parse(spec.defaultJson) as Value;
  }
  switch (spec.type) {
    case "string":
      return "";
    case "number":
      return 0;
    case "bool":
      return false;
    case "list(string)":
    case "list(number)":
      return [];
    case "map(string)":
    case "object":
      return {};
  }
}

const NUMERIC_REGEXP = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

/** Each object constructor's items by literal key (the first of a repeated key). */
const itemIndex = new WeakMap<Expr, Map<string, ObjectItem>>();

/**
 * The item of an object constructor written with the literal key `key`.
 * Indexed once per constructor: a lookup per key of a large map must not
 * scan the items each time.
 */
function objectItem(
  expr: Expr | undefined,
  key: string,
): ObjectItem | undefined {
  if (expr === undefined) return undefined;
  const e = unparen(expr);
  if (e.kind !== "object") return undefined;
  let index = itemIndex.get(e);
  if (index === undefined) {
    index = new Map();
    for (const i of e.items) {
      const k = i.keyName ??
        (i.key.kind === "string" ? i.key.value : undefined);
      if (k !== undefined && !index.has(k)) index.set(k, i);
    }
    itemIndex.set(e, index);
  }
  return index.get(key);
}

function subExpr(
  expr: Expr | undefined,
  key: string | number,
): Expr | undefined {
  if (expr === undefined) return undefined;
  if (typeof key === "number") {
    const e = unparen(expr);
    return e.kind === "tuple" ? e.items[key] : undefined;
  }
  return objectItem(expr, key)?.value;
}

function article(type: ConfigAttrType): string {
  switch (type) {
    case "string":
      return "a string";
    case "number":
      return "a number";
    case "bool":
      return "a bool";
    case "list(string)":
      return "a list of strings";
    case "list(number)":
      return "a list of numbers";
    case "map(string)":
      return "a map of strings";
    case "object":
      return "an object";
  }
}

/**
 * Converts a value to an attribute's type, as cty's safe conversions do.
 * Reports a mismatch and returns `undefined`. Never puts a value in a
 * message.
 */
function convert(
  value: Value,
  spec: ConfigAttributeSpec,
  path: string,
  expr: Expr | undefined,
  where: string,
  diagnostics: Diagnostic[],
  fallbackRange?: SourceRange,
): Value | undefined {
  const range = expr?.range ?? fallbackRange;
  if (value instanceof Secret) {
    const inner = convert(
      value.reveal(),
      spec,
      path,
      expr,
      where,
      diagnostics,
      fallbackRange,
    );
    return inner === undefined ? undefined : new Secret(inner);
  }
  const fail = (got: string): undefined => {
    diagnostics.push(diag(
      "error",
      "E_INVALID_VALUE",
      `Wrong type for "${path}"`,
      `Attribute "${path}" of ${where} must be ${
        article(spec.type)
      }, but got ${got}.`,
      range,
    ));
    return undefined;
  };
  const scalar = (
    v: Value,
    type: "string" | "number" | "bool",
  ): Value | undefined => {
    switch (type) {
      case "string":
        if (typeof v === "string") return v;
        if (typeof v === "number") return formatNumber(v);
        if (typeof v === "boolean") return String(v);
        return undefined;
      case "number":
        if (typeof v === "number") return v;
        if (typeof v === "string" && NUMERIC_REGEXP.test(v.trim())) {
          const n = Number(v.trim());
          return Number.isFinite(n) ? n : undefined;
        }
        return undefined;
      case "bool":
        if (typeof v === "boolean") return v;
        if (v === "true") return true;
        if (v === "false") return false;
        return undefined;
    }
  };
  const describe = (v: Value): string =>
    typeof v === "string" && spec.type !== "string"
      ? `a string that is not ${
        spec.type === "bool" ? "true or false" : "a number"
      }`
      : describeType(v);
  switch (spec.type) {
    case "string":
    case "number":
    case "bool": {
      const r = scalar(value, spec.type);
      return r === undefined ? fail(describe(value)) : r;
    }
    case "list(string)":
    case "list(number)": {
      if (!Array.isArray(value)) return fail(describeType(value));
      const el = spec.type === "list(string)" ? "string" : "number";
      const out: Value[] = [];
      let good = true;
      const elSpec: ConfigAttributeSpec = {
        ...spec,
        type: el,
        objectAttributes: [],
      };
      value.forEach((item, i) => {
        // An element of the right type converts to itself.
        if (
          el === "string" ? typeof item === "string" : typeof item === "number"
        ) {
          out.push(item);
          return;
        }
        const sub = subExpr(expr, i);
        if (item === null) {
          good = false;
          diagnostics.push(diag(
            "error",
            "E_INVALID_VALUE",
            `Wrong type for "${path}[${i}]"`,
            `Element ${
              i + 1
            } of attribute "${path}" of ${where} is null; the elements must be ${el}s.`,
            sub?.range ?? range,
          ));
          return;
        }
        const c = convert(
          item,
          elSpec,
          `${path}[${i}]`,
          sub,
          where,
          diagnostics,
          range,
        );
        if (c === undefined) good = false;
        else out.push(c);
      });
      return good ? out : undefined;
    }
    case "map(string)": {
      if (value === null || typeof value !== "object" || Array.isArray(value)) {
        return fail(describeType(value));
      }
      // An object constructor of string literals (the common case, 124,000
      // of them in a large `env`): its value is a new object of strings
      // that nothing else holds, so it is its own conversion. Enumerating a
      // large object's values, or copying it, costs ~0.1 s per 100,000 keys.
      if (isStringLiteralObject(expr)) return value;
      // Only strings: one native copy, in the same key order. A spread
      // defines each key as its own property, `__proto__` included, as
      // setKey does.
      if (Object.values(value).every((v) => typeof v === "string")) {
        return { ...value };
      }
      const out: ObjectValue = {};
      let good = true;
      const elSpec: ConfigAttributeSpec = {
        ...spec,
        type: "string",
        objectAttributes: [],
      };
      for (const [k, v] of Object.entries(value)) {
        // A string converts to itself.
        if (typeof v === "string") {
          setKey(out, k, v);
          continue;
        }
        const sub = subExpr(expr, k);
        if (v === null) {
          good = false;
          diagnostics.push(diag(
            "error",
            "E_INVALID_VALUE",
            `Wrong type for "${path}.${k}"`,
            `The value of "${k}" in attribute "${path}" of ${where} is null; the values must be strings.`,
            sub?.range ?? range,
          ));
          continue;
        }
        const c = convert(
          v,
          elSpec,
          `${path}.${k}`,
          sub,
          where,
          diagnostics,
          range,
        );
        if (c === undefined) good = false;
        else setKey(out, k, c);
      }
      return good ? out : undefined;
    }
    case "object": {
      if (value === null || typeof value !== "object" || Array.isArray(value)) {
        return fail(describeType(value));
      }
      const out: ObjectValue = {};
      let good = true;
      const names = spec.objectAttributes.map((c) => c.name);
      for (const k of Object.keys(value)) {
        if (names.includes(k)) continue;
        good = false;
        const hint = didYouMean(k, names);
        diagnostics.push(diag(
          "error",
          E_UNKNOWN_ATTR,
          `Unsupported attribute "${path}.${k}"`,
          `${
            hint ? `Did you mean "${hint}"? ` : ""
          }Attribute "${path}" of ${where} accepts ${
            names.map((n) => `"${n}"`).join(", ")
          }.`,
          subExprKeyRange(expr, k) ?? range,
        ));
      }
      for (const child of spec.objectAttributes) {
        const sub = subExpr(expr, child.name);
        const v = Object.hasOwn(value, child.name)
          ? (value as ObjectValue)[child.name]!
          : null;
        if (v === null) {
          if (child.required) {
            good = false;
            diagnostics.push(diag(
              "error",
              E_MISSING_ATTR,
              `Missing required attribute "${path}.${child.name}"`,
              `Attribute "${path}" of ${where} must set "${child.name}".`,
              range,
            ));
            continue;
          }
          setKey(out, child.name, defaultValue(child));
          continue;
        }
        const c = convert(
          v,
          child,
          `${path}.${child.name}`,
          sub,
          where,
          diagnostics,
          range,
        );
        if (c === undefined) good = false;
        else setKey(out, child.name, c);
      }
      return good ? out : undefined;
    }
  }
}

/**
 * Whether an expression is an object constructor (in parentheses or not)
 * whose every value is a string literal: it evaluates to a new object
 * whose every value is a string.
 */
function isStringLiteralObject(expr: Expr | undefined): boolean {
  if (expr === undefined) return false;
  const e = unparen(expr);
  if (e.kind !== "object") return false;
  for (const item of e.items) {
    if (item.value.kind !== "string") return false;
  }
  return true;
}

function subExprKeyRange(
  expr: Expr | undefined,
  key: string,
): SourceRange | undefined {
  return objectItem(expr, key)?.key.range;
}
