/**
 * HCL's operators on already-evaluated operands, private to this folder:
 * {@linkcode applyUnary}, {@linkcode applyBinary} and
 * {@linkcode chooseConditional}. Secrets in, secrets out; diagnostics name
 * types, never values.
 *
 * @module
 */

import type { SourceRange } from "../../contract/diagnostic.ts";
import type { BinaryOp } from "./ast.ts";
import { E_INVALID_VALUE } from "./codes.ts";
import { formatNumber } from "./format_number.ts";
import { joinRanges } from "./_source.ts";
import {
  article,
  BAD,
  type EvalOutcome,
  mark,
  type Reporter,
  toBool,
  toNumber,
  unwrap,
} from "./_eval_support.ts";
import { type ObjectValue, Secret, typeName, type Value } from "./value.ts";

/** Rounds away binary noise (0.1 + 0.2 → 0.3), as decimal arithmetic would. */
function tidy(n: number): number {
  return Number.isInteger(n) ? n : Number(n.toPrecision(15));
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

/** Applies `-` or `!` to an evaluated operand. */
export function applyUnary(
  report: Reporter,
  op: "-" | "!",
  operand: Value,
  range: SourceRange,
): EvalOutcome {
  const [v, tainted] = unwrap(operand);
  if (op === "-") {
    const n = toNumber(report, v, "operand", "-", range);
    return n === BAD ? BAD : mark(n === 0 ? 0 : -n, tainted);
  }
  const b = toBool(report, v, "operand", "!", range);
  return b === BAD ? BAD : mark(!b, tainted);
}

/** Applies a binary operator to two evaluated operands. */
export function applyBinary(
  report: Reporter,
  op: BinaryOp,
  lr: Value,
  rr: Value,
  leftRange: SourceRange,
  rightRange: SourceRange,
): EvalOutcome {
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
      const a = toBool(report, l, "left operand", op, leftRange);
      const b = toBool(report, r, "right operand", op, rightRange);
      if (a === BAD || b === BAD) return BAD;
      return mark(op === "&&" ? a && b : a || b, tainted);
    }
  }
  const a = toNumber(report, l, "left operand", op, leftRange);
  const b = toNumber(report, r, "right operand", op, rightRange);
  if (a === BAD || b === BAD) return BAD;
  const range = joinRanges(leftRange, rightRange);
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
        return report.fail(
          E_INVALID_VALUE,
          "Division by zero",
          `The right operand of "${op}" is zero.`,
          rightRange,
        );
      }
      out = tidy(op === "/" ? a / b : a % b);
      break;
  }
  if (typeof out === "number" && !Number.isFinite(out)) {
    return report.fail(
      E_INVALID_VALUE,
      "Number out of range",
      `The result of "${op}" is too large to represent.`,
      range,
    );
  }
  if (Object.is(out, -0)) out = 0;
  return mark(out, tainted);
}

/**
 * Picks a conditional's result from its evaluated condition and both
 * evaluated results, unifying mixed primitive types to string as HCL does.
 */
export function chooseConditional(
  report: Reporter,
  cr: Value,
  tr: Value,
  er: Value,
  condRange: SourceRange,
  range: SourceRange,
): EvalOutcome {
  const [c, tainted] = unwrap(cr);
  const cond = toBool(report, c, "condition", "?", condRange);
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
      return report.fail(
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
