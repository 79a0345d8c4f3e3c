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
import type { BinaryOp, Expr, ObjectItem, TemplatePart } from "./ast.ts";
import { E_INVALID_VALUE, E_SYNTAX, E_VARIABLE_NOT_ALLOWED } from "./codes.ts";
import type { EvalContext } from "./eval_context.ts";
import { formatNumber } from "./format_number.ts";
import { type FunctionHost, FUNCTIONS, unknownFunction } from "./functions.ts";
import {
  article,
  BAD,
  type EvalOutcome,
  mark,
  NUMBER_REGEXP,
  toBool,
  toObjectKey,
  unwrap,
} from "./_eval_support.ts";
import { applyBinary, applyUnary, chooseConditional } from "./_operators.ts";
import {
  defineKey,
  type ObjectValue,
  Secret,
  typeName,
  type Value,
} from "./value.ts";

export type { EnvLookup, EvalContext } from "./eval_context.ts";
export { formatNumber } from "./format_number.ts";

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
  // A literal string or bool is its own value, with nothing to report: no
  // evaluator for each of the hundred thousand `action = "deny"` of a
  // large file.
  if (expr.kind === "string" || expr.kind === "bool") {
    return { value: expr.value, diagnostics: [] };
  }
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

type R = EvalOutcome;

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

/** Walks an expression tree; one instance per {@linkcode evaluate} call. */
class Evaluator implements FunctionHost {
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

  warn(
    code: string,
    summary: string,
    detail: string,
    range: SourceRange,
  ): void {
    this.diags.push({ severity: "warning", code, summary, detail, range });
  }

  /** `" in <place>"` for messages, or `""`. */
  where(): string {
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
          `"${e.name}" is a reference to a variable, but agent configuration has no variables: values${this.where()} must be constants. To write the text ${e.name}, quote it: "${e.name}".`,
          e.range,
        );
      }
      case "getattr": {
        const t = this.eval(e.target);
        if (t === BAD) return BAD;
        return this.#getAttr(t, e);
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

  #unary(op: "-" | "!", operand: Expr): R {
    const r = this.eval(operand);
    if (r === BAD) return BAD;
    return applyUnary(this, op, r, operand.range);
  }

  #binary(op: BinaryOp, left: Expr, right: Expr): R {
    const lr = this.eval(left);
    const rr = this.eval(right);
    if (lr === BAD || rr === BAD) return BAD;
    return applyBinary(this, op, lr, rr, left.range, right.range);
  }

  #conditional(condE: Expr, thenE: Expr, elseE: Expr, range: SourceRange): R {
    const cr = this.eval(condE);
    // Both results are evaluated, as in HCL, so that every error shows.
    const tr = this.eval(thenE);
    const er = this.eval(elseE);
    if (cr === BAD || tr === BAD || er === BAD) return BAD;
    return chooseConditional(this, cr, tr, er, condE.range, range);
  }

  #object(e: Extract<Expr, { kind: "object" }>): R {
    const out: ObjectValue = {};
    // The item that first set each key, not its key's range: the range is
    // made only for the message about a repeated key (not per key of a
    // deeply nested value's thousands of objects).
    const firstAt = new Map<string, ObjectItem>();
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
        key = k === BAD ? BAD : toObjectKey(this, k, item.key.range);
      }
      const v = this.eval(item.value);
      if (key === BAD || v === BAD) {
        bad = true;
        continue;
      }
      const first = firstAt.get(key);
      if (first !== undefined) {
        const prev = first.key.range;
        this.fail(
          E_INVALID_VALUE,
          "Duplicate object key",
          `The key "${key}" was already set at ${prev.file}:${prev.start.line}:${prev.start.column}. Each key may be set only once.`,
          item.key.range,
        );
        bad = true;
        continue;
      }
      firstAt.set(key, item);
      defineKey(out, key, v);
    }
    return bad ? BAD : out;
  }

  #getAttr(t: Value, e: Extract<Expr, { kind: "getattr" }>): R {
    const name = e.name;
    if (
      t !== null && typeof t === "object" && !(t instanceof Secret) &&
      !Array.isArray(t) && Object.hasOwn(t, name)
    ) {
      return t[name]!; // a plain object's attribute: nothing to unwrap or mark
    }
    const range = e.nameRange;
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
      const name = toObjectKey(this, key, keyRange);
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
          const keep = toBool(this, cv, "condition", "if", e.condition.range);
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
        const key = toObjectKey(this, kr, e.key!.range);
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
    const fn = FUNCTIONS.get(e.name);
    if (fn === undefined) return unknownFunction(this, e);
    if (fn.admit(this, e) === BAD) return BAD;
    const args = this.#args(e);
    return args === BAD ? BAD : fn.apply(this, e, args);
  }

  /** Evaluates a call's arguments, expanding a final `...` list. */
  #args(e: Extract<Expr, { kind: "call" }>): Value[] | typeof BAD {
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
    return bad ? BAD : args;
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
        const cond = toBool(this, c, "condition", "%{if}", p.condition.range);
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
