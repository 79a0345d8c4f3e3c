/**
 * Renders a parsed {@linkcode Body} in the JSON shape `npm:@cdktf/hcl2json`
 * produces, so the differential test can compare our parser with the
 * oracle structurally. Test support only.
 *
 * The rules mirror hcl2json's converter (tmccombs/hcl2json `convert.go`,
 * as vendored by cdktf):
 *
 * - blocks nest by type, then by each label, and end in an array of bodies;
 *   blocks are converted before attributes (an attribute wins a name clash);
 * - number, bool and null literals are JSON literals; a unary operator on a
 *   number/bool literal is folded;
 * - a string without interpolation is its value, with `${` and `%{` written
 *   back as `$${` and `%%{`;
 * - a template is its literal parts plus `${<source>}` for each
 *   interpolation, with `%{if}`/`%{for}` directives (and interpolated
 *   conditionals) re-rendered; `"${x}"` is converted as `x` itself;
 * - tuples and objects are converted element by element; an object key
 *   that is a bare traversal is its source text;
 * - every other expression is `"${<source text>}"` (including a `)` that
 *   directly follows it, a quirk of the converter).
 *
 * @module
 */

import type { Body, Expr, ObjectItem, TemplatePart } from "./ast.ts";
import { SourceMap } from "./_source.ts";
import type { SourceRange } from "../../contract/diagnostic.ts";

/** hcl2json would fail converting this (valid) file. */
export class Unconvertible extends Error {
  override name = "Unconvertible";
}

/**
 * Converts a body to hcl2json's JSON shape.
 *
 * @param body A body from a successful parse.
 * @param text The file's text.
 * @returns JSON-compatible data.
 * @throws {Unconvertible} Where hcl2json's converter (not its parser) fails.
 */
export function toHcl2JsonShape(body: Body, text: string): unknown {
  const c = new Converter(text);
  return c.body(body);
}

function escapeLiteral(s: string): string {
  return s.replaceAll("${", () => "$${").replaceAll("%{", () => "%%{");
}

/** cty's number → string conversion of a literal, from its exact text. */
function decimalText(raw: string): string {
  const m = /^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(raw);
  if (!m) return raw;
  const int = m[1]!;
  const frac = m[2] ?? "";
  const exp = Number(m[3] ?? "0");
  const digits = int + frac;
  const point = int.length + exp;
  let out: string;
  if (point <= 0) out = "0." + "0".repeat(-point) + digits;
  else if (point >= digits.length) {
    out = digits + "0".repeat(point - digits.length);
  } else out = digits.slice(0, point) + "." + digits.slice(point);
  if (out.includes(".")) out = out.replace(/0+$/, "").replace(/\.$/, "");
  out = out.replace(/^0+(?=\d)/, "");
  return out;
}

class Converter {
  #text: string;
  #map: SourceMap;

  constructor(text: string) {
    this.#text = text;
    this.#map = new SourceMap(text, "");
  }

  #source(range: SourceRange): string {
    const start = this.#map.offset(range.start);
    let end = this.#map.offset(range.end);
    if (this.#text[end] === ")") end++;
    return this.#text.slice(start, end);
  }

  #wrap(e: Expr): string {
    return "${" + this.#source(e.range) + "}";
  }

  body(body: Body): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const block of body.blocks) {
      let cur = out;
      let key = block.type;
      for (const label of block.labels) {
        if (Object.hasOwn(cur, key)) {
          const next = cur[key];
          if (
            typeof next !== "object" || next === null || Array.isArray(next)
          ) {
            throw new Unconvertible(
              `Unable to convert Block to JSON: ${block.type}.${
                block.labels.map((l) => l.value).join(".")
              }`,
            );
          }
          cur = next as Record<string, unknown>;
        } else {
          const next: Record<string, unknown> = {};
          cur[key] = next;
          cur = next;
        }
        key = label.value;
      }
      const value = this.body(block.body);
      if (Object.hasOwn(cur, key)) {
        const existing = cur[key];
        if (!Array.isArray(existing)) {
          throw new Unconvertible(
            `invalid HCL detected for "${key}" block, cannot have blocks with and without labels`,
          );
        }
        existing.push(value);
      } else {
        cur[key] = [value];
      }
    }
    for (const attr of body.attributes) out[attr.name] = this.expr(attr.expr);
    return out;
  }

  expr(e: Expr): unknown {
    switch (e.kind) {
      case "number":
        return e.value;
      case "bool":
        return e.value;
      case "null":
        return null;
      case "unary": {
        const v = e.operand;
        if (v.kind !== "number" && v.kind !== "bool" && v.kind !== "null") {
          return this.#wrap(e);
        }
        if (e.op === "-" && v.kind === "number") return -v.value;
        if (e.op === "!" && v.kind === "bool") return !v.value;
        throw new Unconvertible("Invalid operand");
      }
      case "string":
        return escapeLiteral(e.value);
      case "template":
        if (e.wrap && e.parts[0]?.kind === "interp") {
          return this.expr(e.parts[0].expr);
        }
        return this.#parts(e.parts);
      case "tuple":
        return e.items.map((i) => this.expr(i));
      case "object": {
        const out: Record<string, unknown> = {};
        for (const item of e.items) {
          out[this.#key(item)] = this.expr(item.value);
        }
        return out;
      }
      default:
        return this.#wrap(e);
    }
  }

  #parts(parts: TemplatePart[]): string {
    return parts.map((p) => this.#part(p)).join("");
  }

  #part(p: TemplatePart): string {
    switch (p.kind) {
      case "literal":
        return escapeLiteral(p.value);
      case "interp":
        return this.#stringPart(p.expr);
      case "if": {
        const t = this.#parts(p.then);
        const f = this.#parts(p.else);
        return "%{if " + this.#source(p.condition.range) + "}" + t +
          (f.length > 0 ? "%{else}" + f : "") + "%{endif}";
      }
      case "for":
        return "%{for " + (p.keyVar !== undefined ? p.keyVar + ", " : "") +
          p.valueVar + " in " + this.#source(p.collection.range) + "}" +
          this.#parts(p.body) + "%{endfor}";
    }
  }

  #stringPart(e: Expr): string {
    switch (e.kind) {
      case "number":
        return escapeLiteral(decimalText(e.raw));
      case "bool":
        return String(e.value);
      case "null":
        return "null";
      case "string":
        return escapeLiteral(e.value);
      case "template":
        if (e.wrap && e.parts[0]?.kind === "interp") {
          return this.#stringPart(e.parts[0].expr);
        }
        return this.#parts(e.parts);
      case "conditional": {
        const t = this.#stringPart(e.then);
        const f = this.#stringPart(e.else);
        return "%{if " + this.#source(e.condition.range) + "}" + t +
          (f.length > 0 ? "%{else}" + f : "") + "%{endif}";
      }
      default:
        return this.#wrap(e);
    }
  }

  #key(item: ObjectItem): string {
    const k = item.key;
    if (isScopeTraversal(k)) return this.#source(k.range);
    return this.#stringPart(k);
  }
}

/** hclsyntax.ScopeTraversalExpr: a name with attribute/literal-index steps. */
function isScopeTraversal(e: Expr): boolean {
  for (;;) {
    if (e.kind === "variable") return true;
    if (e.kind === "getattr") {
      e = e.target;
      continue;
    }
    if (
      e.kind === "index" &&
      (e.key.kind === "number" || e.key.kind === "bool" ||
        e.key.kind === "null" || e.key.kind === "string")
    ) {
      e = e.target;
      continue;
    }
    return false;
  }
}
