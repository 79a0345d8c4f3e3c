/**
 * The evaluator's shared vocabulary, private to this folder: the failure
 * marker {@linkcode BAD}, the {@linkcode Reporter} that records diagnostics,
 * secret taint ({@linkcode unwrap}, {@linkcode mark}) and the conversions of
 * operands to numbers, bools and object keys.
 *
 * @module
 */

import type { SourceRange } from "../../contract/diagnostic.ts";
import { E_INVALID_VALUE } from "./codes.ts";
import { formatNumber } from "./format_number.ts";
import { Secret, typeName, type Value } from "./value.ts";

/** Marks a failed sub-evaluation (its diagnostics are already recorded). */
export const BAD: unique symbol = Symbol("bad");

/** A value, or {@linkcode BAD} when evaluation failed. */
export type EvalOutcome = Value | typeof BAD;

/** Records the diagnostics of an evaluation. */
export interface Reporter {
  /** Records an error and returns {@linkcode BAD}. */
  fail(
    code: string,
    summary: string,
    detail: string,
    range: SourceRange,
  ): typeof BAD;
}

/** A decimal number as a string may hold it (HCL's string-to-number rule). */
export const NUMBER_REGEXP: RegExp =
  /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

/** A value that is not itself a secret (its elements may be). */
export type Plain = Exclude<Value, Secret>;

/** Splits a value into its plain form and whether it was a secret. */
export function unwrap(v: Value): [Plain, boolean] {
  return v instanceof Secret ? [v.reveal() as Plain, true] : [v, false];
}

/** Wraps a value in a {@linkcode Secret} when it is tainted. */
export function mark(v: Value, tainted: boolean): Value {
  return tainted ? new Secret(v) : v;
}

/** A type name with its indefinite article: "a string", "an object". */
export function article(t: string): string {
  return /^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`;
}

/** Converts an operand to a number, as HCL does, or reports why not. */
export function toNumber(
  report: Reporter,
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
  return report.fail(
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

/** Converts an operand to a bool, as HCL does, or reports why not. */
export function toBool(
  report: Reporter,
  v: Value,
  what: string,
  op: string,
  range: SourceRange,
): boolean | typeof BAD {
  if (typeof v === "boolean") return v;
  if (v === "true") return true;
  if (v === "false") return false;
  return report.fail(
    E_INVALID_VALUE,
    "Invalid operand",
    `The ${what} of "${op}" must be a bool (true or false), but it is ${
      typeof v === "string" ? "a string" : article(typeName(v))
    }.`,
    range,
  );
}

/** Converts a value to an object key, or reports why it cannot be one. */
export function toObjectKey(
  report: Reporter,
  v: Value,
  range: SourceRange,
): string | typeof BAD {
  if (v instanceof Secret) {
    return report.fail(
      E_INVALID_VALUE,
      "Sensitive value as key",
      "A value read with env() cannot be used as an object key.",
      range,
    );
  }
  if (typeof v === "string") return v;
  if (typeof v === "number") return formatNumber(v);
  if (typeof v === "boolean") return String(v);
  return report.fail(
    E_INVALID_VALUE,
    v === null ? "Null value as key" : "Incorrect key type",
    v === null
      ? "An object key cannot be null."
      : `An object key must be a string, but this is ${article(typeName(v))}.`,
    range,
  );
}
