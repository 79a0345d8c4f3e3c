/**
 * Worker for `property_test.ts`: parses seeded mutants of the valid
 * fixtures and checks that parsing (and evaluating what parsed) returns,
 * quickly, with every diagnostic and node range inside the file. Runs in a
 * worker so that the test can time out a hang instead of stalling.
 *
 * Receives `{ seed, cases }`; posts `{ type: "progress", done }` now and
 * then and `{ type: "done", ... }` at the end.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import type { SourceRange } from "../../contract/diagnostic.ts";
import type { Body, Expr, TemplatePart } from "./ast.ts";
import { checkSensitiveShape, evaluate, parseHcl } from "./mod.ts";
import { cpuUsage } from "node:process";
import { mutate, readFixtures, seededRandom } from "./_testing.ts";

/** What the worker reports when done. */
export interface PropertyReport {
  /** Always "done". */
  type: "done";
  /** Cases run. */
  cases: number;
  /** Cases whose parse reported errors. */
  rejected: number;
  /**
   * Slowest parse + evaluation, in milliseconds of the process's CPU time
   * (not wall time, so a busy machine that deschedules the worker does not
   * count).
   */
  maxMs: number;
  /** Each property violation, with the mutant. */
  failures: string[];
  /** How many cases each mutation was applied in. */
  mutations: Record<string, number>;
}

function checkRange(
  r: SourceRange | undefined,
  bytes: number,
  lines: number,
  what: string,
): string | undefined {
  if (!r) return `${what}: no range`;
  const { start, end } = r;
  if (start.line < 1 || start.column < 1 || start.byte < 0) {
    return `${what}: starts before the file`;
  }
  if (end.byte > bytes || end.line > lines) {
    return `${what}: ends after the file`;
  }
  if (start.byte > end.byte) return `${what}: ends before it starts`;
  return undefined;
}

function* nodeRanges(body: Body): Generator<[string, SourceRange]> {
  yield ["body", body.range];
  for (const item of body.items) {
    yield [item.kind, item.range];
    if (item.kind === "attribute") {
      yield ["attribute name", item.nameRange];
      yield* exprRanges(item.expr);
    } else {
      yield ["block type", item.typeRange];
      for (const l of item.labels) yield ["label", l.range];
      yield ["open brace", item.openBraceRange];
      yield ["close brace", item.closeBraceRange];
      yield* nodeRanges(item.body);
    }
  }
}

function* partRanges(parts: TemplatePart[]): Generator<[string, SourceRange]> {
  for (const p of parts) {
    yield [`template ${p.kind}`, p.range];
    if (p.kind === "interp") yield* exprRanges(p.expr);
    else if (p.kind === "if") {
      yield* exprRanges(p.condition);
      yield* partRanges(p.then);
      yield* partRanges(p.else);
    } else if (p.kind === "for") {
      yield* exprRanges(p.collection);
      yield* partRanges(p.body);
    }
  }
}

function* exprRanges(e: Expr): Generator<[string, SourceRange]> {
  yield [e.kind, e.range];
  switch (e.kind) {
    case "template":
      yield* partRanges(e.parts);
      break;
    case "tuple":
      for (const i of e.items) yield* exprRanges(i);
      break;
    case "object":
      for (const i of e.items) {
        yield* exprRanges(i.key);
        yield* exprRanges(i.value);
      }
      break;
    case "call":
      for (const a of e.args) yield* exprRanges(a);
      break;
    case "getattr":
      yield* exprRanges(e.target);
      break;
    case "index":
      yield* exprRanges(e.target);
      yield* exprRanges(e.key);
      break;
    case "splat":
      yield* exprRanges(e.source);
      yield* exprRanges(e.each);
      break;
    case "unary":
      yield* exprRanges(e.operand);
      break;
    case "binary":
      yield* exprRanges(e.left);
      yield* exprRanges(e.right);
      break;
    case "conditional":
      yield* exprRanges(e.condition);
      yield* exprRanges(e.then);
      yield* exprRanges(e.else);
      break;
    case "parens":
      yield* exprRanges(e.expr);
      break;
    case "for":
      yield* exprRanges(e.collection);
      if (e.key) yield* exprRanges(e.key);
      yield* exprRanges(e.value);
      if (e.condition) yield* exprRanges(e.condition);
      break;
  }
}

function evaluateAll(body: Body): number {
  let n = 0;
  for (const a of body.attributes) {
    checkSensitiveShape(a.expr);
    n += evaluate(a.expr, { allowEnv: true, env: { CLAUDE_API_KEY: "k" } })
      .diagnostics.length;
  }
  for (const b of body.blocks) n += evaluateAll(b.body);
  return n;
}

self.onmessage = (e: MessageEvent<{ seed: number; cases: number }>) => {
  const { seed, cases } = e.data;
  const fixtures = readFixtures("valid");
  const random = seededRandom(seed);
  const failures: string[] = [];
  const mutations: Record<string, number> = {};
  let rejected = 0;
  let maxMs = 0;
  for (let i = 0; i < cases; i++) {
    const f = fixtures[Math.floor(random() * fixtures.length)]!;
    let text = f.text;
    const rounds = 1 + Math.floor(random() * 3);
    for (let r = 0; r < rounds; r++) {
      const m = mutate(text, random);
      text = m.text;
      mutations[m.mutation] = (mutations[m.mutation] ?? 0) + 1;
    }
    const where = `case ${i} (${f.path}): ${
      JSON.stringify(text).slice(0, 300)
    }`;
    const t0 = cpuUsage();
    try {
      const { body, diagnostics } = parseHcl(text, "m.hcl");
      evaluateAll(body);
      const used = cpuUsage(t0);
      const ms = (used.user + used.system) / 1000;
      maxMs = Math.max(maxMs, ms);
      if (diagnostics.length > 0) rejected++;
      const wellFormed = text.toWellFormed();
      const bytes = new TextEncoder().encode(wellFormed).length;
      const lines = wellFormed.split("\n").length;
      for (const d of diagnostics) {
        const p = checkRange(
          d.range,
          bytes,
          lines,
          `diagnostic "${d.summary}"`,
        );
        if (p) failures.push(`${p} in ${where}`);
        if (d.severity !== "error" || !d.code || !d.summary) {
          failures.push(`malformed diagnostic in ${where}`);
        }
      }
      for (const [what, r] of nodeRanges(body)) {
        const p = checkRange(r, bytes, lines, `${what} node`);
        if (p) {
          failures.push(`${p} in ${where}`);
          break;
        }
      }
    } catch (err) {
      failures.push(
        `threw ${err instanceof Error ? err.stack : err} in ${where}`,
      );
    }
    if (failures.length > 20) break;
    if (i % 500 === 499) self.postMessage({ type: "progress", done: i + 1 });
  }
  const report: PropertyReport = {
    type: "done",
    cases,
    rejected,
    maxMs,
    failures,
    mutations,
  };
  self.postMessage(report);
};
