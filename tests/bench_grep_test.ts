/**
 * Keeps `deno task bench:grep` (tests/bench_grep.ts) from rotting: one
 * round as a real subprocess, which first checks that `grep` (with `rg`,
 * without it, and through the transport) names exactly the files and lines
 * `grep -r` names on a 500-file tree of the benchmark's shape; asserts that every figure is there
 * and positive (never a timing), that the temporary tree is removed, and
 * that a bad command line is refused by name.
 *
 * @module
 */
import assert from "node:assert/strict";
import { REPO, runDeno } from "./_helpers.ts";

const hasRg = await new Deno.Command("rg", { args: ["--version"] }).output()
  .then((o) => o.success, () => false);

Deno.test({
  name:
    "bench:grep --json with 1 round checks the answers against grep -r, measures every row and leaves no temporary directory",
  ignore: !hasRg || Deno.build.os !== "linux",
}, async () => {
  const tmp = await Deno.makeTempDir({ prefix: "ph-bench-grep-test-" });
  try {
    const r = await runDeno([
      "run",
      "-A",
      `${REPO}/tests/bench_grep.ts`,
      "--rounds",
      "1",
      "--warmup",
      "0",
      "--files",
      "500",
      "--js",
      "--transport",
      "--json",
    ], { env: { TMPDIR: tmp } });
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.equal(report.format_version, "1");
    assert.equal(report.rounds, 1);
    assert.equal(report.files, 500);
    const names = report.rows.map((row: { name: string }) => row.name);
    assert.deepEqual(names, [
      "grep -rl",
      "grep -rn",
      "rg alone (the plugin's flags)",
      "grep files, rg",
      "grep content, rg",
      "grep files, JS walk",
      "grep content, JS walk",
      "grep files, rg, transport",
      "grep content, rg, transport",
    ]);
    for (const row of report.rows) {
      for (const k of ["wall_ms", "cpu_ms"]) {
        assert.ok(row[k] > 0, `${row.name} ${k} ${row[k]}`);
      }
      for (const k of ["wall_ratio", "cpu_ratio"]) {
        assert.ok(row[k].median > 0, `${row.name} ${k}`);
        assert.ok(row[k].min <= row[k].median && row[k].median <= row[k].max);
      }
    }
    assert.deepEqual([...Deno.readDirSync(tmp)], [], "the tree is removed");
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("bench:grep refuses an unknown argument and a bad round count by name", async () => {
  for (
    const [args, message] of [
      [["--bogus"], /Unknown argument "--bogus"/],
      [["--rounds", "0"], /--rounds needs an integer from 1 to 1000/],
      [["--files", "10"], /--files needs an integer from 100 to 100000/],
    ] as const
  ) {
    const r = await runDeno([
      "run",
      "-A",
      `${REPO}/tests/bench_grep.ts`,
      ...args,
    ]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, message);
  }
});
