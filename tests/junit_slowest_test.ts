import assert from "node:assert/strict";
import { parseJunitTimes } from "./junit_slowest.ts";

const REPORT = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="deno test" tests="4" failures="0" errors="0" time="12.5">
    <testsuite name="./a_test.ts" tests="3" disabled="0" errors="0" failures="0">
        <testcase name="one &amp; &quot;two&quot;" classname="./a_test.ts" time="4.000" line="1" col="6">
        </testcase>
        <testcase name="one &amp; &quot;two&quot; &gt; a step" classname="./a_test.ts" time="3.500" line="1" col="6">
        </testcase>
        <testcase name="three &gt; four" classname="./a_test.ts" time="1.250" line="9" col="6">
        </testcase>
    </testsuite>
    <testsuite name="./mod.ts#3-9.ts" tests="1" disabled="0" errors="0" failures="0">
        <testcase name="./mod.ts#3-9.ts" classname="./mod.ts#3-9.ts" time="0.100" line="0" col="0">
        </testcase>
    </testsuite>
</testsuites>
`;

Deno.test("parseJunitTimes sums a file's top-level tests, not their steps, and decodes names", () => {
  const r = parseJunitTimes(REPORT, "run.xml");
  assert.equal(r.wallSeconds, 12.5);
  assert.deepEqual(r.suites.map((s) => [s.name, s.seconds]), [
    ["./a_test.ts", 5.25],
    ["./mod.ts#3-9.ts", 0.1],
  ]);
  assert.deepEqual(r.suites[0]!.tests.map((t) => [t.name, t.isStep]), [
    ['one & "two"', false],
    ['one & "two" > a step', true],
    ["three > four", false],
  ]);
});

Deno.test("parseJunitTimes names the file when the report is not a JUnit report", () => {
  assert.throws(
    () => parseJunitTimes("<html></html>", "run.xml"),
    /run\.xml: no <testsuites> element/,
  );
  assert.throws(
    () => parseJunitTimes('<testsuites time="x">', "run.xml"),
    /run\.xml: <testsuites> has no numeric time attribute/,
  );
});
