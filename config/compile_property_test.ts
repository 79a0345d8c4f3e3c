import assert from "node:assert/strict";
import type { CompilePropertyReport } from "./_compile_property_worker.ts";

const CASES = 3000;
// A hang guard only: speed is measured by config/compile_bench.ts, never
// by a timed test (the CI machine's speed varies).
const TIMEOUT_MS = 180_000;

Deno.test(`compile() survives ${CASES} seeded mutations: it returns diagnostics and never throws`, async () => {
  const worker = new Worker(
    new URL("./_compile_property_worker.ts", import.meta.url),
    { type: "module" },
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const report = await new Promise<CompilePropertyReport>(
      (resolve, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no result after ${TIMEOUT_MS} ms (hang?)`)),
          TIMEOUT_MS,
        );
        worker.onmessage = (e) => resolve(e.data as CompilePropertyReport);
        worker.onerror = (e) => {
          e.preventDefault();
          reject(new Error(`worker failed: ${e.message}`));
        };
        worker.postMessage({ seed: 20261130, cases: CASES });
      },
    );
    assert.deepEqual(report.failures, []);
    assert.equal(report.cases, CASES);
    assert.ok(
      report.rejected > CASES / 5 && report.rejected < CASES,
      `${report.rejected} rejected`,
    );
  } finally {
    clearTimeout(timer);
    worker.terminate();
  }
});
