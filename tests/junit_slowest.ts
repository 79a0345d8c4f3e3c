/**
 * Where a full run's time goes, from its JUnit report
 * (`deno test -A --parallel --junit-path=run.xml`): the slowest test
 * files and tests, and the sum of the per-test times against the run's
 * wall time (with `--parallel` on N workers the wall is at least sum / N;
 * the rest is module loading outside the tests, waiting and the tail).
 *
 * Usage: `deno run --allow-read tests/junit_slowest.ts run.xml [--top N]
 * [--workers N]`
 *
 * @module
 */
import { parseArgs } from "node:util";

/** One test file of a JUnit report with its tests' times. */
export interface SuiteTimes {
  /** The file (the `testsuite` name). */
  name: string;
  /** Its tests and steps (a step's testcase is named `parent > step`). */
  tests: { name: string; seconds: number; isStep: boolean }[];
  /** The sum of its top-level tests' seconds. */
  seconds: number;
}

/** A parsed JUnit report. */
export interface JunitTimes {
  /** The run's wall time in seconds (the `testsuites` time). */
  wallSeconds: number;
  /** Every test file, in report order. */
  suites: SuiteTimes[];
}

function attr(tag: string, name: string): string | undefined {
  const m = tag.match(new RegExp(`\\s${name}="([^"]*)"`));
  if (!m) return undefined;
  return m[1]!.replaceAll("&quot;", '"').replaceAll("&apos;", "'")
    .replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
}

/**
 * Parses the times of a JUnit report as `deno test --junit-path` writes
 * it. A step's testcase is named `parent > step`; only top-level tests
 * count towards a file's sum (a step's time is inside its parent's).
 */
export function parseJunitTimes(xml: string, source: string): JunitTimes {
  const root = xml.match(/<testsuites\b[^>]*>/);
  if (!root) throw new Error(`${source}: no <testsuites> element`);
  const wall = Number(attr(root[0], "time"));
  if (!Number.isFinite(wall)) {
    throw new Error(`${source}: <testsuites> has no numeric time attribute`);
  }
  const suites: SuiteTimes[] = [];
  let current: SuiteTimes | undefined;
  for (const m of xml.matchAll(/<(testsuite|testcase)\b[^>]*>/g)) {
    const tag = m[0];
    if (m[1] === "testsuite") {
      current = { name: attr(tag, "name") ?? "?", tests: [], seconds: 0 };
      suites.push(current);
      continue;
    }
    if (!current) throw new Error(`${source}: a testcase outside a testsuite`);
    const name = attr(tag, "name") ?? "?";
    const seconds = Number(attr(tag, "time") ?? "0");
    if (!Number.isFinite(seconds)) {
      throw new Error(`${source}: testcase "${name}" has a bad time`);
    }
    const isStep = current.tests.some((t) => name.startsWith(`${t.name} > `));
    current.tests.push({ name, seconds, isStep });
    if (!isStep) current.seconds += seconds;
  }
  return { wallSeconds: wall, suites };
}

function main(args: string[]): number {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      top: { type: "string", default: "25" },
      workers: { type: "string", default: "2" },
    },
  });
  const top = Number(values.top);
  const workers = Number(values.workers);
  if (positionals.length !== 1 || !(top > 0) || !(workers > 0)) {
    console.error(
      "usage: junit_slowest.ts REPORT.xml [--top N] [--workers N]",
    );
    return 2;
  }
  const file = positionals[0]!;
  let xml: string;
  try {
    xml = Deno.readTextFileSync(file);
  } catch (error) {
    console.error(`${file}: ${(error as Error).message}`);
    return 1;
  }
  let report: JunitTimes;
  try {
    report = parseJunitTimes(xml, file);
  } catch (error) {
    console.error((error as Error).message);
    return 1;
  }
  const sum = report.suites.reduce((s, f) => s + f.seconds, 0);
  const docModules = report.suites.filter((s) => s.name.includes("#")).length;
  console.log(
    `${report.suites.length} modules (${docModules} doc-test snippets); tests sum ${
      sum.toFixed(1)
    } s, ${(sum / workers).toFixed(1)} s per worker on ${workers}; wall ${
      report.wallSeconds.toFixed(1)
    } s (${(report.wallSeconds - sum / workers).toFixed(1)} s outside tests)`,
  );
  console.log(`\nslowest ${top} files (s, tests, file):`);
  for (
    const s of [...report.suites].sort((a, b) => b.seconds - a.seconds).slice(
      0,
      top,
    )
  ) {
    console.log(
      `${s.seconds.toFixed(1).padStart(7)} ${
        String(s.tests.length).padStart(4)
      } ${s.name}`,
    );
  }
  console.log(`\nslowest ${top} tests (s, file :: test):`);
  const tests = report.suites.flatMap((s) =>
    s.tests.filter((t) => !t.isStep).map((t) => ({
      file: s.name,
      ...t,
    }))
  );
  for (const t of tests.sort((a, b) => b.seconds - a.seconds).slice(0, top)) {
    console.log(
      `${t.seconds.toFixed(1).padStart(7)} ${t.file} :: ${
        t.name.slice(0, 110)
      }`,
    );
  }
  return 0;
}

if (import.meta.main) Deno.exit(main(Deno.args));
