/**
 * {@linkcode formatNumber}: how HCL writes a number as a string (template
 * interpolation, object keys, mixed-type conditionals).
 *
 * @module
 */

/**
 * Formats a number as HCL does when converting it to a string: plain
 * decimal notation, no exponent, no trailing zeros.
 *
 * @example Usage
 * ```ts
 * import { formatNumber } from "./format_number.ts";
 * import assert from "node:assert/strict";
 * assert.equal(formatNumber(1e21), "1000000000000000000000");
 * ```
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
