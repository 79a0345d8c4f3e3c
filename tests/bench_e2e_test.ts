/**
 * Keeps `deno task bench:e2e` (tests/bench_e2e.ts) from rotting: one quick
 * run against one provider as a real subprocess, asserting that every
 * figure is there and positive (never a timing), that nothing is left
 * behind, and that bad command lines are refused by name.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  type BenchReport,
  formatReport,
  parseBenchArgs,
  UsageError,
} from "./bench_e2e.ts";
import { REPO, runDeno } from "./_helpers.ts";
import { KERNEL_V8_FLAGS } from "../kernel/process/_v8_flags.ts";

Deno.test("bench:e2e --json with 1 run measures every figure of the baseline and of an anthropic 1-read run, and leaves no temporary directory", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "ph-bench-e2e-test-" });
  try {
    const r = await runDeno([
      "run",
      "-A",
      `${REPO}/tests/bench_e2e.ts`,
      "--runs",
      "1",
      "--warmup",
      "0",
      "--provider",
      "anthropic",
      "--reads",
      "1",
      "--json",
    ], { env: { TMPDIR: tmp } });
    assert.equal(r.code, 0, r.stderr);
    const report: BenchReport = JSON.parse(r.stdout);
    assert.equal(report.format_version, "1");
    assert.equal(report.runs, 1);
    const base = report.baseline.figures;
    for (const [name, s] of Object.entries(base)) {
      assert.ok(s.median > 0, `baseline ${name}: ${JSON.stringify(s)}`);
    }
    assert.equal(report.configurations.length, 1);
    const c = report.configurations[0]!;
    assert.equal(c.provider, "anthropic");
    assert.equal(c.reads, 1);
    assert.equal(c.modelRequests, 2);
    assert.equal(c.strays, 0, "the kernel reaps every process it starts");
    assert.ok(c.processes >= 3, `kernel and two plugins: ${c.processes}`);
    for (
      const name of [
        "startMs",
        "turnGapP50Ms",
        "turnGapP90Ms",
        "exitTailMs",
        "wallMs",
        "cpuMs",
        "peakRssBytes",
        "peakPssBytes",
        "kernelCpuMs",
        "kernelPeakRssBytes",
        "kernelPeakPssBytes",
      ] as const
    ) {
      const s = c.figures[name];
      assert.ok(
        s.median > 0 && s.min === s.median && s.max === s.median,
        `${name}: ${JSON.stringify(s)}`,
      );
    }
    // The kernel is one process of the tree.
    const f = c.figures;
    assert.ok(f.kernelCpuMs.median <= f.cpuMs.median, JSON.stringify(f));
    assert.ok(f.kernelPeakRssBytes.median <= f.peakRssBytes.median);
    assert.ok(f.kernelPeakPssBytes.median <= f.peakPssBytes.median);
    assert.match(report.kernel.command, /^deno run -A .*main\.ts run/);
    for (const [name, ratio] of Object.entries(c.ratios)) {
      assert.ok(ratio > 0 && Number.isFinite(ratio), `ratio ${name}: ${ratio}`);
    }
    // The table renders the same report.
    const table = formatReport(report);
    assert.match(table, /empty module\s+wall/);
    assert.match(table, /anthropic, 1 read\s+start → first request/);
    assert.match(table, /kernel peak RSS/);
    assert.deepEqual(
      [...Deno.readDirSync(tmp)],
      [],
      "the benchmark removed its temporary directory",
    );
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("parseBenchArgs() takes --runs, BENCH_E2E_RUNS and the defaults", () => {
  const d = parseBenchArgs([], {});
  assert.deepEqual(
    [d.runs, d.warmup, d.providers, d.reads, d.json],
    [5, 1, ["anthropic", "openai"], [1, 20], false],
  );
  assert.equal(parseBenchArgs([], { BENCH_E2E_RUNS: "3" }).runs, 3);
  assert.equal(
    parseBenchArgs(["--runs", "2"], { BENCH_E2E_RUNS: "3" }).runs,
    2,
  );
  const o = parseBenchArgs(
    ["--provider", "openai", "--reads", "7", "--json", "--warmup", "0"],
    {},
  );
  assert.deepEqual([o.providers, o.reads, o.json, o.warmup], [
    ["openai"],
    [7],
    true,
    0,
  ]);
  // The kernel runs as deno task agent runs it.
  assert.deepEqual(d.kernelFlags, [KERNEL_V8_FLAGS]);
  const tasks = JSON.parse(Deno.readTextFileSync(`${REPO}/deno.json`)).tasks;
  assert.equal(tasks.agent.command, `deno run -A ${KERNEL_V8_FLAGS} main.ts`);
  assert.deepEqual(parseBenchArgs(["--kernel-flags", ""], {}).kernelFlags, []);
  assert.deepEqual(
    parseBenchArgs(["--kernel-flags", " --a  --b=1 "], {}).kernelFlags,
    ["--a", "--b=1"],
  );
});

Deno.test("parseBenchArgs() refuses a bad value, naming the option and the value", () => {
  const cases: [string[], Record<string, string>, RegExp][] = [
    [["--runs", "0"], {}, /--runs must be .*: got "0"/],
    [["--runs", "2.5"], {}, /--runs must be .*: got "2\.5"/],
    [[], { BENCH_E2E_RUNS: "many" }, /BENCH_E2E_RUNS must be .*: got "many"/],
    [["--provider", "gemini"], {}, /--provider must be one of .*"gemini"/],
    [["--reads=-1"], {}, /--reads must be .*: got "-1"/],
    [["--reads", "-1"], {}, /'--reads' argument is ambiguous/],
    [["--timeout-ms", "10"], {}, /--timeout-ms must be .*: got "10"/],
    [["--frobnicate"], {}, /frobnicate/],
    [["--kernel-flags=-A x"], {}, /--kernel-flags takes deno flags .*"-A"/],
  ];
  for (const [args, env, message] of cases) {
    assert.throws(() => parseBenchArgs(args, env), (e) => {
      assert.ok(e instanceof UsageError, String(e));
      assert.match(e.message, message);
      return true;
    }, args.join(" "));
  }
});

Deno.test("bench:e2e with a bad option exits 2 with the usage and the error", async () => {
  const r = await runDeno([
    "run",
    "-A",
    `${REPO}/tests/bench_e2e.ts`,
    "--provider",
    "gemini",
  ]);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /^Usage: deno task bench:e2e/);
  assert.match(r.stderr, /error: --provider must be one of .*"gemini"/);
});
