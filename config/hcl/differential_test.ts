/**
 * Differential test: our parser against `npm:@cdktf/hcl2json` (hashicorp/hcl
 * v2.17 compiled to WASM), the authority on what is valid HCL.
 *
 * Rules:
 * - `valid/`: both accept, and our AST rendered in hcl2json's JSON shape
 *   (see `_hcl2json_shape.ts`) equals hcl2json's output.
 * - `invalid/`: both reject with a syntax error, and hcl2json's first error
 *   is on a line where we report one too.
 * - `semantic/`: files that are valid HCL but that our evaluator or the
 *   sensitive-shape rule rejects. hcl2json must find no *syntax* error; its
 *   converter may fail (it folds `-true` and fails), which is not a
 *   syntax verdict. These are excluded from the validity comparison.
 * - Mutants of the valid fixtures (seeded) and a table of edge cases: the
 *   verdicts agree, and so do the structures when both accept.
 *
 * hcl2json loads its WASM once, when this module is imported (~0.2-0.5 s).
 *
 * @module
 */

import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";
import { parse as hcl2json } from "@cdktf/hcl2json";
import { parseHcl } from "./mod.ts";
import { toHcl2JsonShape, Unconvertible } from "./_hcl2json_shape.ts";
import {
  generateConfig,
  mutate,
  readFixtures,
  seededRandom,
} from "./_testing.ts";

/** What the oracle said about a text. */
type Verdict =
  | { kind: "ok"; json: unknown }
  | { kind: "syntax"; lines: number[]; message: string }
  | { kind: "convert"; message: string };

async function oracle(file: string, text: string): Promise<Verdict> {
  try {
    return { kind: "ok", json: await hcl2json(file, text) };
  } catch (e) {
    const message = String(e);
    if (message.includes("parse config:")) {
      const escaped = file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
      // "file:5,1-2: Summary; Detail." heads only, not positions in details.
      const head = new RegExp(`${escaped}:(\\d+),\\d+-\\d+(?:,\\d+)?: `, "g");
      const lines = [...message.matchAll(head)].map((m) => Number(m[1]));
      return { kind: "syntax", lines, message };
    }
    return { kind: "convert", message };
  }
}

/** JSON round trip: -0 → 0, Infinity → null, as both sides would print. */
function normal(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v));
}

/**
 * Compares both parsers on one text; returns a description of the
 * disagreement, or undefined.
 */
async function disagreement(
  file: string,
  text: string,
): Promise<string | undefined> {
  const verdict = await oracle(file, text);
  const ours = parseHcl(text, file);
  const weAccept = ours.diagnostics.length === 0;
  if (verdict.kind === "syntax") {
    return weAccept
      ? `hcl2json rejects (${verdict.message}), we accept`
      : undefined;
  }
  if (!weAccept) {
    const first = ours.diagnostics[0]!;
    return `hcl2json accepts, we reject: line ${
      first.range!.start.line
    }: ${first.summary}`;
  }
  let shape: unknown;
  try {
    shape = toHcl2JsonShape(ours.body, text);
  } catch (e) {
    if (!(e instanceof Unconvertible)) throw e;
    return verdict.kind === "convert"
      ? undefined
      : `our rendering fails (${e.message}) where hcl2json converts`;
  }
  if (verdict.kind === "convert") {
    return `hcl2json fails converting (${verdict.message}) where we render`;
  }
  if (!isDeepStrictEqual(normal(shape), normal(verdict.json))) {
    return `structures differ:\n  ours:     ${
      JSON.stringify(normal(shape))
    }\n  hcl2json: ${JSON.stringify(normal(verdict.json))}`;
  }
  return undefined;
}

Deno.test("differential: valid fixtures are accepted by both, with equal structure", async (t) => {
  for (const f of readFixtures("valid")) {
    await t.step(f.path, async () => {
      const v = await oracle(f.path, f.text);
      assert.equal(v.kind, "ok", v.kind === "ok" ? "" : v.message);
      assert.equal(await disagreement(f.path, f.text), undefined);
    });
  }
});

Deno.test("differential: invalid fixtures are rejected by both, first error on a line we report", async (t) => {
  for (const f of readFixtures("invalid")) {
    await t.step(f.path, async () => {
      const v = await oracle(f.path, f.text);
      assert.equal(v.kind, "syntax", `hcl2json: ${v.kind}`);
      const ours = parseHcl(f.text, f.path);
      assert.ok(ours.diagnostics.length > 0, "we reject it too");
      if (v.kind === "syntax") {
        const ourLines = new Set(
          ours.diagnostics.map((d) => d.range!.start.line),
        );
        const theirFirst = Math.min(...v.lines);
        assert.ok(
          ourLines.has(theirFirst),
          `hcl2json's first error is on line ${theirFirst}; ours are on ${[
            ...ourLines,
          ]}`,
        );
      }
    });
  }
});

Deno.test("differential: semantic fixtures are valid HCL for both (excluded from the validity comparison)", async (t) => {
  for (const f of readFixtures("semantic")) {
    await t.step(f.path, async () => {
      const v = await oracle(f.path, f.text);
      assert.notEqual(v.kind, "syntax", v.kind === "syntax" ? v.message : "");
      assert.deepEqual(parseHcl(f.text, f.path).diagnostics, []);
    });
  }
});

Deno.test("differential: 1500 seeded mutants of the valid fixtures get the same verdict and structure", async () => {
  const fixtures = readFixtures("valid");
  const random = seededRandom(20260502);
  const failures: string[] = [];
  let rejected = 0;
  for (let i = 0; i < 1500; i++) {
    const f = fixtures[Math.floor(random() * fixtures.length)]!;
    let text = f.text;
    const rounds = 1 + Math.floor(random() * 3);
    for (let r = 0; r < rounds; r++) text = mutate(text, random).text;
    if (parseHcl(text, "m.hcl").diagnostics.length > 0) rejected++;
    const d = await disagreement("m.hcl", text);
    if (d) {
      failures.push(
        `${f.path} mutant #${i}: ${d}\n  text: ${JSON.stringify(text)}`,
      );
    }
  }
  assert.deepEqual(failures, []);
  // The mutants exercise both verdicts.
  assert.ok(rejected > 300 && rejected < 1400, `${rejected} of 1500 rejected`);
});

Deno.test("differential: a generated 500-line agent.hcl agrees", async () => {
  const text = generateConfig(500);
  assert.ok(text.split("\n").length >= 500);
  assert.deepEqual(parseHcl(text, "big.hcl").diagnostics, []);
  assert.equal(await disagreement("big.hcl", text), undefined);
});

const EDGE_CASES: string[] = [
  // numbers
  "a = -1\nb = 1.5e3\nc = 1e400\nd = 12345678901234567890\ne = 0.1\nf = 007\ng = 1.e5\n",
  "x = 1.\n",
  "x = .5\n",
  "x = 1e\n",
  "x = 1.2.3\n",
  "a = x.0.1\n",
  // strings, escapes, templates
  'a = "x${y}z"\nb = "$${x}"\nc = "%%{x}"\nd = "\\u00e9\\n\\t\\"\\\\"\n',
  'a = "${1}"\nb = "${c ? "a" : "b"}x"\nc = "$$${x}"\nd = "a$\\"b"\n',
  'a = "${1.50}x${1e3}y${null}z${true}"\n',
  'a = "  ${~ x ~}  y"\nb = "%{ if true ~} x %{~ endif }"\n',
  'a = "%{for k, v in x}${v}%{endfor}"\nb = "%{if c}x%{else}y%{endif}"\n',
  'a = "\\q"\n',
  'a = "\\uD800"\n',
  'a = "x\\\ny"\n',
  'a = "${x:y}"\n',
  'a = "%{ endif }"\n',
  'a = "unterminated\n',
  // heredocs
  "a = <<EOF\nhello\n  ${x}\nEOF\nb = <<-EOT\n    indented\n      more\n    EOT\n",
  "a = <<EOF\nx\nEOF",
  "a = <<EOF\nx\n  EOF  \nb = 1\n",
  "a = <<-EOF\n\n    y\n   \n  z\n  EOF\n",
  "a = <<EOF\r\nx\r\nEOF\r\nb = 1\r\n",
  "a = <<EOF\nx\rEOF\n",
  // bodies and blocks
  "b { a = 1, b = 2 }\n",
  "b { a = 1 b = 2 }\n",
  "b { c {} }\n",
  "b { a = 1 } c = 2\n",
  "a = 1\na = 2\n",
  'b "x" = 1\n',
  "b\n{}\n",
  '"a" = 1\n',
  "a = 1, b = 2\n",
  "}\n",
  "\uFEFFa = 1\n",
  "a = 1\r",
  // collections and operators
  "a = { x = 1 y = 2 }\n",
  "a = [\n1\n2\n]\n",
  "a = { null = 1, true = 2, 1 = 3, a.b = 4, (x) = 5 }\n",
  "a = [for x in y: x...]\n",
  "a = {for x in y: x}\n",
  "a = 1 +\n2\n",
  "a = (1 ?\n2 : 3)\n",
  "a = x.*.*\nb = x[*].*\n",
  "a = f(x...)\nb = f(x,)\nc = f(\n1,\n2\n)\n",
  "a = -true\n",
  "a = ~x\nb = x & y\nc = 'x'\n",
  'b {\n a = 1\n}\nb "x" {\n}\n',
];

Deno.test("differential: edge cases get the same verdict and structure", async (t) => {
  for (const [i, text] of EDGE_CASES.entries()) {
    await t.step(`#${i} ${JSON.stringify(text).slice(0, 50)}`, async () => {
      assert.equal(await disagreement("e.hcl", text), undefined);
    });
  }
});
