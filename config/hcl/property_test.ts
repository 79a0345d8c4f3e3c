import assert from "node:assert/strict";
import type { PropertyReport } from "./_property_worker.ts";
import { MUTATIONS } from "./_testing.ts";

const CASES = 4000;
const TIMEOUT_MS = 30_000;

Deno.test(`parseHcl() survives ${CASES} seeded mutations: it returns, quickly, with ranges inside the file`, async () => {
  const worker = new Worker(new URL("./_property_worker.ts", import.meta.url), {
    type: "module",
  });
  let done = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const report = await new Promise<PropertyReport>((resolve, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `no result after ${TIMEOUT_MS} ms (hang?); ${done} cases done`,
            ),
          ),
        TIMEOUT_MS,
      );
      worker.onmessage = (e) => {
        if (e.data.type === "progress") done = e.data.done;
        else resolve(e.data as PropertyReport);
      };
      worker.onerror = (e) => {
        e.preventDefault();
        reject(new Error(`worker failed: ${e.message}`));
      };
      worker.postMessage({ seed: 1234, cases: CASES });
    });
    assert.deepEqual(report.failures, []);
    assert.equal(report.cases, CASES);
    // Each parse of a ~60-line file takes well under a millisecond of CPU; a
    // bound of 250 ms of CPU time (not wall time: a busy machine that
    // deschedules the worker does not count) catches a pathological case.
    assert.ok(
      report.maxMs < 250,
      `slowest case took ${report.maxMs.toFixed(1)} ms of CPU`,
    );
    // The mutants are a real mix of valid and invalid files, and every kind
    // of mutation was exercised.
    assert.ok(
      report.rejected > CASES / 5 && report.rejected < CASES,
      `${report.rejected} rejected`,
    );
    for (const m of MUTATIONS) assert.ok((report.mutations[m] ?? 0) > 500, m);
  } finally {
    clearTimeout(timer);
    worker.terminate();
  }
});
