/**
 * {@linkcode evaluate}: constant-expression evaluation for agent
 * configuration (config.md §3).
 *
 * Supported: literals, templates and heredocs, tuples and objects,
 * arithmetic, comparison and logical operators, conditionals, index, attribute
 * and splat access on constant values, `for` expressions and template
 * directives over constant collections, and one function, `env("NAME")`,
 * only where the context allows it. There are no variables; the only names
 * in scope are a `for` expression's own iteration variables.
 *
 * Anything derived from `env()` is a {@linkcode Secret}; operations on a
 * secret yield secrets. Diagnostics name types, never values.
 *
 * @module
 */

import {
  type Diagnostic,
  didYouMean,
  type SourceRange,
} from "../../contract/diagnostic.ts";
import type { BinaryOp, Expr, TemplatePart } from "./ast.ts";
import {
  E_ENV_UNSET,
  E_FUNCTION_NOT_ALLOWED,
  E_INVALID_VALUE,
  E_SYNTAX,
  E_VARIABLE_NOT_ALLOWED,
  W_ENV_UNSET,
} from "./codes.ts";
import {
  defineKey,
  type ObjectValue,
  Secret,
  typeName,
  type Value,
} from "./value.ts";

/** Looks up an environment variable; `undefined` when it is not set. */
export type EnvLookup = (name: string) => string | undefined;

/** Where and how an expression is evaluated. */
export interface EvalContext {
  /**
   * Whether `env()` may be called: true only for provider bodies and a
   * registry mirror's `auth` (config.md §3.1).
   */
  allowEnv: boolean;
  /**
   * The environment, as a lookup function or a record. Tests pass their
   * own.
   * @default {Deno.env.get}
   */
  env?: EnvLookup | Readonly<Record<string, string | undefined>>;
  /**
   * Whether an unset `env()` variable is an error (`E_ENV_UNSET`: the agent
   * is about to run) or a warning (`W_ENV_UNSET`: the configuration is only
   * checked, as in CI without secrets). With `false`, the call evaluates to
   * an empty {@linkcode Secret} so that the rest of the value is checked.
   * @default {true}
   */
  requireEnv?: boolean;
  /**
   * Names the place being evaluated in messages, e.g.
   * `provider "claude", attribute "api_key"`.
   */
  place?: string;
}

/** The result of {@linkcode evaluate}. */
export interface EvalResult {
  /** The value; `undefined` when there is at least one error. */
  value: Value | undefined;
  /** Every problem found (all errors, not only the first). */
  diagnostics: Diagnostic[];
}

/**
 * Evaluates an expression to a constant value.
 *
 * @example Usage
 * ```ts
 * import { evaluate, parseHcl } from "./mod.ts";
 * import assert from "node:assert/strict";
 * const { body } = parseHcl('max_turns = 60 * 2\nkey = env("API_KEY")\n', "agent.hcl");
 * const turns = evaluate(body.attributes[0]!.expr, { allowEnv: false });
 * assert.equal(turns.value, 120);
 * const key = evaluate(body.attributes[1]!.expr, { allowEnv: false });
 * assert.equal(key.diagnostics[0]!.code, "E_FUNCTION_NOT_ALLOWED");
 * ```
 *
 * @param expr The expression, from {@linkcode parseHcl}.
 * @param ctx Whether `env()` is allowed, the environment, and the place.
 * @returns The value (or `undefined`) and the diagnostics.
 */
export function evaluate(expr: Expr, ctx: EvalContext): EvalResult {
  const ev = new Evaluator(ctx);
  let v: Value | typeof BAD;
  try {
    v = ev.eval(expr);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    ev.fail(
      E_INVALID_VALUE,
      "Expression too complex",
      "The expression is nested too deeply to evaluate.",
      expr.range,
    );
    v = BAD;
  }
  const hasError = ev.diags.some((d) => d.severity === "error");
  return {
    value: v === BAD || hasError ? undefined : v,
    diagnostics: ev.diags,
  };
}

/** Marks a failed sub-evaluation (its diagnostics are already recorded). */
const BAD: unique symbol = Symbol("bad");
type R = Value | typeof BAD;

const NUMBER_REGEXP = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

/**
 * Formats a number as HCL does when converting it to a string: plain
 * decimal notation, no exponent, no trailing zeros.
 *
 * @param n A finite number.
 * @returns Its decimal text.
 */
export function formatNumber(n: number): string {
  if (Object.is(n, -0)) return "0";
  const s = String(n);
  const m = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!m) return s;
  const [, sign, int, frac = "", expText] = m;
  const exp = Number(expText);
  const digits = int! + frac;
  const point = int!.length + exp;
  let out: string;
  if (point <= 0) out = "0." + "0".repeat(-point) + digits;
  else if (point >= digits.length) {
    out = digits + "0".repeat(point - digits.length);
  } else out = digits.slice(0, point) + "." + digits.slice(point);
  out = out.replace(/^0+(?=\d)/, "");
  if (out.includes(".")) out = out.replace(/0+$/, "").replace(/\.$/, "");
  return sign + out;
}

/** Rounds away binary noise (0.1 + 0.2 → 0.3), as decimal arithmetic would. */
function tidy(n: number): number {
  return Number.isInteger(n) ? n : Number(n.toPrecision(15));
}

/** A value that is not itself a secret (its elements may be). */
type Plain = Exclude<Value, Secret>;

function unwrap(v: Value): [Plain, boolean] {
  return v instanceof Secret ? [v.reveal() as Plain, true] : [v, false];
}

function mark(v: Value, tainted: boolean): Value {
  return tainted ? new Secret(v) : v;
}

function article(t: string): string {
  return /^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`;
}

function deepEqual(a: Value, b: Value): boolean {
  if (a instanceof Secret) a = a.reveal();
  if (b instanceof Secret) b = b.reveal();
  if (a === null || b === null) return a === b;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length &&
      a.every((x, i) => deepEqual(x, b[i]!));
  }
  if (typeof a === "object") {
    if (typeof b !== "object" || Array.isArray(b)) return false;
    const ka = Object.keys(a);
    const kb = Object.keys(b as ObjectValue);
    return ka.length === kb.length &&
      ka.every((k) =>
        Object.hasOwn(b as ObjectValue, k) &&
        deepEqual((a as ObjectValue)[k]!, (b as ObjectValue)[k]!)
      );
  }
  return a === b;
}

/** True for a bare reference with attribute or literal-index steps. */
function isMultiStepTraversal(e: Expr): boolean {
  let cur = e;
  let steps = 0;
  for (;;) {
    if (cur.kind === "variable") return steps > 0;
    if (cur.kind === "getattr") {
      cur = cur.target;
      steps++;
      continue;
    }
    if (
      cur.kind === "index" &&
      ["number", "string", "bool", "null"].includes(cur.key.kind)
    ) {
      cur = cur.target;
      steps++;
      continue;
    }
    return false;
  }
}

class Evaluator {
  readonly ctx: EvalContext;
  readonly diags: Diagnostic[] = [];
  readonly scopes: Map<string, Value>[] = [];
  readonly splatItems: Value[] = [];

  constructor(ctx: EvalContext) {
    this.ctx = ctx;
  }

  fail(
    code: string,
    summary: string,
    detail: string,
    range: SourceRange,
  ): typeof BAD {
    this.diags.push({ severity: "error", code, summary, detail, range });
    return BAD;
  }

  #where(): string {
    return this.ctx.place ? ` in ${this.ctx.place}` : "";
  }

  eval(e: Expr): R {
    switch (e.kind) {
      case "number":
        if (!Number.isFinite(e.value)) {
          return this.fail(
            E_INVALID_VALUE,
            "Number out of range",
            "This number is too large to represent.",
            e.range,
          );
        }
        return e.value;
      case "bool":
        return e.value;
      case "null":
        return null;
      case "string":
        return e.value;
      case "template":
        if (e.wrap && e.parts[0]?.kind === "interp") {
          return this.eval(e.parts[0].expr);
        }
        return this.#render(e.parts);
      case "tuple": {
        const out: Value[] = [];
        let bad = false;
        for (const item of e.items) {
          const v = this.eval(item);
          if (v === BAD) bad = true;
          else out.push(v);
        }
        return bad ? BAD : out;
      }
      case "object":
        return this.#object(e);
      case "call":
        return this.#call(e);
      case "variable": {
        for (let i = this.scopes.length - 1; i >= 0; i--) {
          const scope = this.scopes[i]!;
          if (scope.has(e.name)) return scope.get(e.name)!;
        }
        return this.fail(
          E_VARIABLE_NOT_ALLOWED,
          "Variables not allowed",
          `"${e.name}" is a reference to a variable, but agent configuration has no variables: values${this.#where()} must be constants. To write the text ${e.name}, quote it: "${e.name}".`,
          e.range,
        );
      }
      case "getattr": {
        const t = this.eval(e.target);
        if (t === BAD) return BAD;
        return this.#getAttr(t, e.name, e.nameRange);
      }
      case "index": {
        const t = this.eval(e.target);
        const k = this.eval(e.key);
        if (t === BAD || k === BAD) return BAD;
        return this.#index(t, k, e.key.range, e.range);
      }
      case "splat": {
        const s = this.eval(e.source);
        if (s === BAD) return BAD;
        const [src, tainted] = unwrap(s);
        const items = src === null ? [] : Array.isArray(src) ? src : [src];
        const out: Value[] = [];
        let bad = false;
        for (const item of items) {
          this.splatItems.push(item);
          try {
            const v = this.eval(e.each);
            if (v === BAD) bad = true;
            else out.push(v);
          } finally {
            this.splatItems.pop();
          }
        }
        return bad ? BAD : mark(out, tainted);
      }
      case "splat_item":
        return this.splatItems.length > 0
          ? this.splatItems[this.splatItems.length - 1]!
          : this.fail(
            E_SYNTAX,
            "Invalid expression",
            "A splat item outside a splat expression.",
            e.range,
          );
      case "unary":
        return this.#unary(e.op, e.operand);
      case "binary":
        return this.#binary(e.op, e.left, e.right);
      case "conditional":
        return this.#conditional(e.condition, e.then, e.else, e.range);
      case "parens":
        return this.eval(e.expr);
      case "for":
        return this.#for(e);
      case "invalid":
        return this.fail(
          E_SYNTAX,
          "Invalid expression",
          "This expression has a syntax error, reported when the file was parsed.",
          e.range,
        );
    }
  }

  #toNumber(
    v: Value,
    what: string,
    op: string,
    range: SourceRange,
  ): number | typeof BAD {
    if (typeof v === "number") return v;
    if (typeof v === "string" && NUMBER_REGEXP.test(v)) {
      const n = Number(v);
      if (Number.isFinite(n)) return n;
    }
    return this.fail(
      E_INVALID_VALUE,
      "Invalid operand",
      typeof v === "string"
        ? `The ${what} of "${op}" must be a number; this string does not hold a number.`
        : `The ${what} of "${op}" must be a number, but it is ${
          article(typeName(v))
        }.`,
      range,
    );
  }

  #toBool(
    v: Value,
    what: string,
    op: string,
    range: SourceRange,
  ): boolean | typeof BAD {
    if (typeof v === "boolean") return v;
    if (v === "true") return true;
    if (v === "false") return false;
    return this.fail(
      E_INVALID_VALUE,
      "Invalid operand",
      `The ${what} of "${op}" must be a bool (true or false), but it is ${
        typeof v === "string" ? "a string" : article(typeName(v))
      }.`,
      range,
    );
  }

  #unary(op: "-" | "!", operand: Expr): R {
    const r = this.eval(operand);
    if (r === BAD) return BAD;
    const [v, tainted] = unwrap(r);
    if (op === "-") {
      const n = this.#toNumber(v, "operand", "-", operand.range);
      return n === BAD ? BAD : mark(n === 0 ? 0 : -n, tainted);
    }
    const b = this.#toBool(v, "operand", "!", operand.range);
    return b === BAD ? BAD : mark(!b, tainted);
  }

  #binary(op: BinaryOp, left: Expr, right: Expr): R {
    const lr = this.eval(left);
    const rr = this.eval(right);
    if (lr === BAD || rr === BAD) return BAD;
    const [l, lt] = unwrap(lr);
    const [r, rt] = unwrap(rr);
    const tainted = lt || rt;
    switch (op) {
      case "==":
        return mark(deepEqual(l, r), tainted);
      case "!=":
        return mark(!deepEqual(l, r), tainted);
      case "&&":
      case "||": {
        const a = this.#toBool(l, "left operand", op, left.range);
        const b = this.#toBool(r, "right operand", op, right.range);
        if (a === BAD || b === BAD) return BAD;
        return mark(op === "&&" ? a && b : a || b, tainted);
      }
    }
    const a = this.#toNumber(l, "left operand", op, left.range);
    const b = this.#toNumber(r, "right operand", op, right.range);
    if (a === BAD || b === BAD) return BAD;
    const range = { ...left.range, end: right.range.end };
    let out: number | boolean;
    switch (op) {
      case "<":
        out = a < b;
        break;
      case "<=":
        out = a <= b;
        break;
      case ">":
        out = a > b;
        break;
      case ">=":
        out = a >= b;
        break;
      case "+":
        out = tidy(a + b);
        break;
      case "-":
        out = tidy(a - b);
        break;
      case "*":
        out = tidy(a * b);
        break;
      case "/":
      case "%":
        if (b === 0) {
          return this.fail(
            E_INVALID_VALUE,
            "Division by zero",
            `The right operand of "${op}" is zero.`,
            right.range,
          );
        }
        out = tidy(op === "/" ? a / b : a % b);
        break;
    }
    if (typeof out === "number" && !Number.isFinite(out)) {
      return this.fail(
        E_INVALID_VALUE,
        "Number out of range",
        `The result of "${op}" is too large to represent.`,
        range,
      );
    }
    if (Object.is(out, -0)) out = 0;
    return mark(out, tainted);
  }

  #conditional(condE: Expr, thenE: Expr, elseE: Expr, range: SourceRange): R {
    const cr = this.eval(condE);
    // Both results are evaluated, as in HCL, so that every error shows.
    const tr = this.eval(thenE);
    const er = this.eval(elseE);
    if (cr === BAD || tr === BAD || er === BAD) return BAD;
    const [c, tainted] = unwrap(cr);
    const cond = this.#toBool(c, "condition", "?", condE.range);
    if (cond === BAD) return BAD;
    const tt = typeName(tr);
    const et = typeName(er);
    let chosen = cond ? tr : er;
    if (tt !== et && tt !== "null" && et !== "null") {
      const prim = (t: string) =>
        t === "string" || t === "number" || t === "bool";
      const pair = [tt, et].sort().join("+");
      if (prim(tt) && prim(et) && pair !== "bool+number") {
        // Unify to string, as HCL does for mixed primitive results.
        const [v, vt] = unwrap(chosen);
        chosen = mark(
          typeof v === "number" ? formatNumber(v) : String(v),
          vt,
        );
      } else {
        return this.fail(
          E_INVALID_VALUE,
          "Inconsistent conditional result types",
          `The true and false results must have the same type, but one is ${
            article(tt)
          } and the other ${article(et)}.`,
          range,
        );
      }
    }
    return tainted ? new Secret(chosen) : chosen;
  }

  #objectKey(v: Value, range: SourceRange): string | typeof BAD {
    if (v instanceof Secret) {
      return this.fail(
        E_INVALID_VALUE,
        "Sensitive value as key",
        "A value read with env() cannot be used as an object key.",
        range,
      );
    }
    if (typeof v === "string") return v;
    if (typeof v === "number") return formatNumber(v);
    if (typeof v === "boolean") return String(v);
    return this.fail(
      E_INVALID_VALUE,
      v === null ? "Null value as key" : "Incorrect key type",
      v === null
        ? "An object key cannot be null."
        : `An object key must be a string, but this is ${
          article(typeName(v))
        }.`,
      range,
    );
  }

  #object(e: Extract<Expr, { kind: "object" }>): R {
    const out: ObjectValue = {};
    const firstAt = new Map<string, SourceRange>();
    let bad = false;
    for (const item of e.items) {
      let key: string | typeof BAD;
      if (item.keyName !== undefined) key = item.keyName;
      else if (isMultiStepTraversal(item.key)) {
        key = this.fail(
          E_INVALID_VALUE,
          "Ambiguous attribute key",
          "If this expression is intended to be a reference, wrap it in parentheses. If it's instead intended as a literal name containing periods, wrap it in quotes to create a string literal.",
          item.key.range,
        );
      } else {
        const k = this.eval(item.key);
        key = k === BAD ? BAD : this.#objectKey(k, item.key.range);
      }
      const v = this.eval(item.value);
      if (key === BAD || v === BAD) {
        bad = true;
        continue;
      }
      const prev = firstAt.get(key);
      if (prev) {
        this.fail(
          E_INVALID_VALUE,
          "Duplicate object key",
          `The key "${key}" was already set at ${prev.file}:${prev.start.line}:${prev.start.column}. Each key may be set only once.`,
          item.key.range,
        );
        bad = true;
        continue;
      }
      firstAt.set(key, item.key.range);
      defineKey(out, key, v);
    }
    return bad ? BAD : out;
  }

  #getAttr(t: Value, name: string, range: SourceRange): R {
    const [v, tainted] = unwrap(t);
    if (v === null) {
      return this.fail(
        E_INVALID_VALUE,
        "Attempt to get attribute from null value",
        `This value is null, so it has no attribute "${name}".`,
        range,
      );
    }
    if (typeof v !== "object" || Array.isArray(v)) {
      return this.fail(
        E_INVALID_VALUE,
        "Unsupported attribute",
        `Cannot read attribute "${name}" of ${article(typeName(v))}.`,
        range,
      );
    }
    if (!Object.hasOwn(v, name)) {
      const hint = didYouMean(name, Object.keys(v));
      return this.fail(
        E_INVALID_VALUE,
        "Unsupported attribute",
        `This object has no attribute "${name}".${
          hint ? ` Did you mean "${hint}"?` : ""
        }`,
        range,
      );
    }
    return mark(v[name]!, tainted);
  }

  #index(t: Value, k: Value, keyRange: SourceRange, range: SourceRange): R {
    const [v, vt] = unwrap(t);
    const [key, kt] = unwrap(k);
    const tainted = vt || kt;
    if (Array.isArray(v)) {
      const n = typeof key === "number"
        ? key
        : typeof key === "string" && NUMBER_REGEXP.test(key)
        ? Number(key)
        : NaN;
      if (!Number.isInteger(n)) {
        return this.fail(
          E_INVALID_VALUE,
          "Invalid index",
          `A list index must be a whole number, but this is ${
            typeof key === "number"
              ? "a fractional number"
              : article(typeName(key))
          }.`,
          keyRange,
        );
      }
      if (n < 0 || n >= v.length) {
        return this.fail(
          E_INVALID_VALUE,
          "Invalid index",
          `The index ${n} is out of range for a list of ${v.length} element${
            v.length === 1 ? "" : "s"
          }.`,
          keyRange,
        );
      }
      return mark(v[n]!, tainted);
    }
    if (v !== null && typeof v === "object") {
      if (kt) {
        return this.fail(
          E_INVALID_VALUE,
          "Invalid index",
          "A value read with env() cannot be used as an object key.",
          keyRange,
        );
      }
      const name = this.#objectKey(key, keyRange);
      if (name === BAD) return BAD;
      if (!Object.hasOwn(v, name)) {
        const hint = didYouMean(name, Object.keys(v));
        return this.fail(
          E_INVALID_VALUE,
          "Invalid index",
          `This object has no element "${name}".${
            hint ? ` Did you mean "${hint}"?` : ""
          }`,
          keyRange,
        );
      }
      return mark(v[name]!, vt);
    }
    return this.fail(
      E_INVALID_VALUE,
      "Invalid index",
      `Only a list or an object can be indexed, but this is ${
        article(typeName(v))
      }.`,
      range,
    );
  }

  /** (key, value) pairs of a collection; objects iterate in key order. */
  #pairs(collE: Expr): [Value, Value][] | typeof BAD {
    const r = this.eval(collE);
    if (r === BAD) return BAD;
    const [coll, tainted] = unwrap(r);
    if (Array.isArray(coll)) {
      return coll.map((v, i) => [mark(i, tainted), mark(v, tainted)]);
    }
    if (coll !== null && typeof coll === "object") {
      return Object.keys(coll).sort().map((k) => [
        mark(k, tainted),
        mark(coll[k]!, tainted),
      ]);
    }
    return this.fail(
      E_INVALID_VALUE,
      "Iteration over non-iterable value",
      `A for expression needs a list or an object to iterate over, but this is ${
        article(typeName(coll))
      }.`,
      collE.range,
    );
  }

  #for(e: Extract<Expr, { kind: "for" }>): R {
    const pairs = this.#pairs(e.collection);
    if (pairs === BAD) return BAD;
    const list: Value[] = [];
    const obj: ObjectValue = {};
    const groups = new Map<string, Value[]>();
    let bad = false;
    for (const [k, v] of pairs) {
      const scope = new Map<string, Value>();
      if (e.keyVar !== undefined) scope.set(e.keyVar, k);
      scope.set(e.valueVar, v);
      this.scopes.push(scope);
      try {
        if (e.condition) {
          const c = this.eval(e.condition);
          if (c === BAD) {
            bad = true;
            continue;
          }
          const [cv] = unwrap(c);
          const keep = this.#toBool(cv, "condition", "if", e.condition.range);
          if (keep === BAD) {
            bad = true;
            continue;
          }
          if (!keep) continue;
        }
        if (!e.isObject) {
          const val = this.eval(e.value);
          if (val === BAD) bad = true;
          else list.push(val);
          continue;
        }
        const kr = e.key ? this.eval(e.key) : BAD;
        const val = this.eval(e.value);
        if (kr === BAD || val === BAD) {
          bad = true;
          continue;
        }
        const key = this.#objectKey(kr, e.key!.range);
        if (key === BAD) {
          bad = true;
          continue;
        }
        if (e.grouped) {
          const g = groups.get(key);
          if (g) g.push(val);
          else groups.set(key, [val]);
        } else if (Object.hasOwn(obj, key)) {
          this.fail(
            E_INVALID_VALUE,
            "Duplicate object key",
            `Two elements produce the key "${key}". Use "..." after the value expression to group them into lists.`,
            e.key!.range,
          );
          bad = true;
        } else {
          defineKey(obj, key, val);
        }
      } finally {
        this.scopes.pop();
      }
    }
    if (bad) return BAD;
    if (!e.isObject) return list;
    if (e.grouped) { for (const [k, g] of groups) defineKey(obj, k, g); }
    return obj;
  }

  #call(e: Extract<Expr, { kind: "call" }>): R {
    if (e.name !== "env") {
      const hint = didYouMean(e.name, ["env"]);
      return this.fail(
        E_FUNCTION_NOT_ALLOWED,
        "Call to unknown function",
        `There is no function named "${e.name}".${
          hint ? ` Did you mean "${hint}"?` : ""
        } The only function is env("NAME"), and only in provider blocks and a registry mirror's "auth".`,
        e.nameRange,
      );
    }
    if (!this.ctx.allowEnv) {
      return this.fail(
        E_FUNCTION_NOT_ALLOWED,
        "Function calls not allowed",
        `env() may only be used in provider blocks and in a registry mirror's "auth"; it cannot be used${
          this.#where() || " here"
        }.`,
        e.range,
      );
    }
    const args: Value[] = [];
    let bad = false;
    for (const [i, a] of e.args.entries()) {
      const v = this.eval(a);
      if (v === BAD) {
        bad = true;
        continue;
      }
      if (e.expandFinal && i === e.args.length - 1) {
        const [list] = unwrap(v);
        if (!Array.isArray(list)) {
          this.fail(
            E_INVALID_VALUE,
            "Invalid expanding argument value",
            `The expanding argument (indicated by "...") must be a list, but this is ${
              article(typeName(v))
            }.`,
            a.range,
          );
          bad = true;
          continue;
        }
        for (const each of list) args.push(each);
      } else args.push(v);
    }
    if (bad) return BAD;
    if (args.length !== 1) {
      return this.fail(
        E_INVALID_VALUE,
        "Invalid number of arguments",
        `env() takes exactly one argument, the variable's name, but ${args.length} ${
          args.length === 1 ? "was" : "were"
        } given.`,
        e.range,
      );
    }
    const [nameV, nameSecret] = unwrap(args[0]!);
    if (typeof nameV !== "string" || nameSecret) {
      return this.fail(
        E_INVALID_VALUE,
        "Invalid function argument",
        nameSecret
          ? "The argument of env() cannot itself be read from the environment."
          : `The argument of env() must be a string, the variable's name, but it is ${
            article(typeName(nameV))
          }.`,
        e.args[0]?.range ?? e.range,
      );
    }
    let value: string | undefined;
    try {
      const env = this.ctx.env;
      value = env === undefined
        ? Deno.env.get(nameV)
        : typeof env === "function"
        ? env(nameV)
        : Object.hasOwn(env, nameV)
        ? env[nameV]
        : undefined;
    } catch {
      return this.fail(
        E_ENV_UNSET,
        `Cannot read environment variable "${nameV}"`,
        `env("${nameV}")${this.#where()} needs the variable "${nameV}", but reading the environment is not permitted. Run with --allow-env=${nameV}.`,
        e.range,
      );
    }
    if (value === undefined && this.ctx.requireEnv === false) {
      this.diags.push({
        severity: "warning",
        code: W_ENV_UNSET,
        summary: `Environment variable "${nameV}" is not set`,
        detail:
          `env("${nameV}")${this.#where()} reads the environment variable "${nameV}", which is not set here. The agent needs it when it runs (an empty value counts as set); check-config --require-env makes this an error.`,
        range: e.range,
      });
      return new Secret("");
    }
    if (value === undefined) {
      return this.fail(
        E_ENV_UNSET,
        `Environment variable "${nameV}" is not set`,
        `env("${nameV}")${this.#where()} reads the environment variable "${nameV}", which is not set. Set it before running the agent (an empty value counts as set).`,
        e.range,
      );
    }
    return new Secret(value);
  }

  #render(parts: TemplatePart[]): R {
    let out = "";
    let tainted = false;
    let bad = false;
    for (const p of parts) {
      const r = this.#renderPart(p);
      if (r === BAD) {
        bad = true;
        continue;
      }
      out += r[0];
      tainted ||= r[1];
    }
    if (bad) return BAD;
    return mark(out, tainted);
  }

  #renderPart(p: TemplatePart): [string, boolean] | typeof BAD {
    switch (p.kind) {
      case "literal":
        return [p.value, false];
      case "interp": {
        const r = this.eval(p.expr);
        if (r === BAD) return BAD;
        const [v, tainted] = unwrap(r);
        if (v === null) {
          return this.fail(
            E_INVALID_VALUE,
            "Invalid template interpolation value",
            "The expression result is null. Cannot include a null value in a string template.",
            p.expr.range,
          );
        }
        if (typeof v === "object") {
          return this.fail(
            E_INVALID_VALUE,
            "Invalid template interpolation value",
            `Cannot include ${
              article(typeName(v))
            } in a string template: a string, number or bool is required.`,
            p.expr.range,
          );
        }
        return [typeof v === "number" ? formatNumber(v) : String(v), tainted];
      }
      case "if": {
        const cr = this.eval(p.condition);
        const t = this.#render(p.then);
        const f = this.#render(p.else);
        if (cr === BAD || t === BAD || f === BAD) return BAD;
        const [c, ct] = unwrap(cr);
        const cond = this.#toBool(c, "condition", "%{if}", p.condition.range);
        if (cond === BAD) return BAD;
        const [s, st] = unwrap(cond ? t : f);
        return [s as string, ct || st];
      }
      case "for": {
        const pairs = this.#pairs(p.collection);
        if (pairs === BAD) return BAD;
        let out = "";
        let tainted = false;
        for (const [k, v] of pairs) {
          const scope = new Map<string, Value>();
          if (p.keyVar !== undefined) scope.set(p.keyVar, k);
          scope.set(p.valueVar, v);
          this.scopes.push(scope);
          try {
            const r = this.#render(p.body);
            if (r === BAD) return BAD;
            const [s, st] = unwrap(r);
            out += s as string;
            tainted ||= st;
          } finally {
            this.scopes.pop();
          }
        }
        return [out, tainted];
      }
    }
  }
}
