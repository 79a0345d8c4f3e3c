/**
 * Worker for `compile_property_test.ts`: compiles seeded mutants of the
 * valid fixtures and the example (their agent.hcl, lock file or global
 * config mutated) and checks that `compile()` returns, quickly, with
 * well-formed diagnostics, and a plan only when there is no error. Runs in a
 * worker so that the test can time out a hang.
 *
 * Receives `{ seed, cases }`; posts `{ type: "done", ... }`.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { mutate, seededRandom } from "./hcl/_testing.ts";
import { compile, type CompileInputs } from "./compile.ts";
import { loadConfigInputs } from "./files.ts";
import { planToJson } from "./plan.ts";
import {
  compileFixtures,
  FIXTURE_ENV,
  FIXTURE_PLATFORM,
  fixtureEnv,
} from "./_compile_testing.ts";
import { BUILTINS } from "../plugins/builtin.ts";

/** What the worker reports. */
export interface CompilePropertyReport {
  /** Always "done". */
  type: "done";
  /** Cases run. */
  cases: number;
  /** Cases with at least one error. */
  rejected: number;
  /** Slowest case, in milliseconds. */
  maxMs: number;
  /** Each violated property, with the mutant. */
  failures: string[];
}

self.onmessage = async (e: MessageEvent<{ seed: number; cases: number }>) => {
  const bases: CompileInputs[] = [];
  for (const f of compileFixtures("valid")) {
    bases.push(
      await loadConfigInputs(f.dir, {
        builtins: BUILTINS,
        env: fixtureEnv(f.dir),
      }),
    );
  }
  const examples = new URL("../examples/", import.meta.url).pathname;
  bases.push(
    await loadConfigInputs(examples, {
      builtins: BUILTINS,
      env: FIXTURE_ENV,
      globalConfig: null,
    }),
  );
  const random = seededRandom(e.data.seed);
  const failures: string[] = [];
  let rejected = 0;
  let maxMs = 0;
  for (let i = 0; i < e.data.cases; i++) {
    const base = bases[Math.floor(random() * bases.length)]!;
    const inputs: CompileInputs = { ...base };
    const which = random();
    const target = which < 0.8 || (!base.lock && !base.global)
      ? "agent"
      : which < 0.93 && base.lock
      ? "lock"
      : base.global
      ? "global"
      : "agent";
    const file = inputs[target]!;
    let text = file.text;
    const rounds = 1 + Math.floor(random() * 3);
    for (let r = 0; r < rounds; r++) text = mutate(text, random).text;
    inputs[target] = { path: file.path, text };
    const started = performance.now();
    try {
      const r = compile(inputs, {
        platform: FIXTURE_PLATFORM,
        locked: random() < 0.5,
      });
      const ms = performance.now() - started;
      maxMs = Math.max(maxMs, ms);
      const errors = r.diagnostics.filter((d) => d.severity === "error");
      if (errors.length > 0) rejected++;
      const problem = r.plan === undefined && errors.length === 0
        ? "no plan and no error"
        : r.plan !== undefined && errors.length > 0
        ? "a plan despite errors"
        : r.diagnostics.find((d) =>
            !d.code || !d.summary ||
            (d.severity !== "error" && d.severity !== "warning") ||
            (d.range &&
              (d.range.start.line < 1 || d.range.start.byte > d.range.end.byte))
          )
        ? "a malformed diagnostic"
        : undefined;
      if (problem) {
        failures.push(
          `#${i} ${target}: ${problem}\n  text: ${JSON.stringify(text)}`,
        );
      }
      if (r.plan && i % 10 === 0) {
        const again = compile(inputs, { platform: FIXTURE_PLATFORM });
        if (
          JSON.stringify(planToJson(r.plan)) !==
            JSON.stringify(planToJson(again.plan!))
        ) {
          failures.push(`#${i}: plan JSON not deterministic`);
        }
      }
    } catch (err) {
      failures.push(
        `#${i} ${target}: threw ${
          err instanceof Error ? err.stack : err
        }\n  text: ${JSON.stringify(text)}`,
      );
    }
  }
  const report: CompilePropertyReport = {
    type: "done",
    cases: e.data.cases,
    rejected,
    maxMs,
    failures,
  };
  self.postMessage(report);
};
