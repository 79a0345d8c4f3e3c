import assert from "node:assert/strict";
import { parsePolicyTests } from "./policy_test_file.ts";

const at = (d: { range?: { start: { line: number; column: number } } }) =>
  d.range ? `${d.range.start.line}:${d.range.start.column}` : "-";

Deno.test("parsePolicyTests() reads every field of a test block", () => {
  const { tests, diagnostics } = parsePolicyTests(
    `test "a" {
  profile = "worker"
  parent  = "lead"
  call    = { provider = "sh", tool = "bash", input = { command = "ls", n = 2, deep = { x = [true] } } }
  expect  = "deny"
  rule    = "no_rm"
  segment = "rm -rf x"
}
`,
    "agent.test.hcl",
  );
  assert.deepEqual(diagnostics, []);
  const [t] = tests;
  assert.equal(t?.name, "a");
  assert.equal(t?.profile, "worker");
  assert.equal(t?.parent, "lead");
  assert.deepEqual(t?.call, {
    provider: "sh",
    tool: "bash",
    input: { command: "ls", n: 2, deep: { x: [true] } },
  });
  assert.equal(t?.expect, "deny");
  assert.equal(t?.rule, "no_rm");
  assert.equal(t?.segment, "rm -rf x");
  assert.equal(`${t?.range.file}:${at(t!)}`, "agent.test.hcl:1:1");
  assert.equal(at({ range: t?.ranges.provider }), "4:15");
});

Deno.test("parsePolicyTests() reports schema problems with file:line:col and suggestions", async (t) => {
  const cases: [string, string, string, RegExp][] = [
    ["unknown block", `tests "a" {}\n`, "1:1", /Did you mean "test"\?/],
    [
      "top-level attribute",
      `expect = "deny"\n`,
      "1:1",
      /No attributes are expected/,
    ],
    [
      "duplicate label",
      `test "a" {\n  call = { provider = "p", tool = "t" }\n  expect = "allow"\n}\ntest "a" {\n  call = { provider = "p", tool = "t" }\n  expect = "allow"\n}\n`,
      "5:1",
      /already declared at agent\.test\.hcl:1:1/,
    ],
    ["missing label", `test {\n}\n`, "1:1", /A test block takes one label/],
    [
      "missing call",
      `test "a" {\n  expect = "allow"\n}\n`,
      "1:1",
      /"call" is required/,
    ],
    [
      "typo in an attribute",
      `test "a" {\n  call = { provider = "p", tool = "t" }\n  expects = "allow"\n}\n`,
      "3:3",
      /Did you mean "expect"\?/,
    ],
    [
      "typo in a call key",
      `test "a" {\n  call = { provider = "p", tol = "t" }\n  expect = "allow"\n}\n`,
      "2:28",
      /Did you mean "tool"\?/,
    ],
    [
      "missing tool",
      `test "a" {\n  call = { provider = "p" }\n  expect = "allow"\n}\n`,
      "2:10",
      /Missing "tool"/,
    ],
    [
      "bad expect",
      `test "a" {\n  call = { provider = "p", tool = "t" }\n  expect = "alow"\n}\n`,
      "3:12",
      /Did you mean "allow"\?/,
    ],
    [
      "input not an object",
      `test "a" {\n  call = { provider = "p", tool = "t", input = "x" }\n  expect = "allow"\n}\n`,
      "2:40",
      /"input" must be an object/,
    ],
    [
      "call not an object",
      `test "a" {\n  call = "p.t"\n  expect = "allow"\n}\n`,
      "2:10",
      /must be an object/,
    ],
    [
      "parent without profile",
      `test "a" {\n  parent = "lead"\n  call = { provider = "p", tool = "t" }\n  expect = "allow"\n}\n`,
      "2:12",
      /"profile" must name the sub-agent's profile/,
    ],
    [
      "function call",
      `test "a" {\n  call = { provider = env("X"), tool = "t" }\n  expect = "allow"\n}\n`,
      "2:23",
      /./,
    ],
    ["syntax error", `test "a" {\n  call = {\n`, "-", /./],
  ];
  for (const [name, text, where, detail] of cases) {
    await t.step(name, () => {
      const { tests, diagnostics } = parsePolicyTests(text, "agent.test.hcl");
      const errors = diagnostics.filter((d) => d.severity === "error");
      assert.ok(errors.length > 0, `no error for ${name}`);
      const d = errors.find((e) => detail.test(`${e.summary} ${e.detail}`));
      assert.ok(d, JSON.stringify(errors));
      if (where !== "-") assert.equal(at(d), where, JSON.stringify(d));
      if (name !== "duplicate label") assert.equal(tests.length, 0);
    });
  }
});

Deno.test("parsePolicyTests() warns about a file without tests", () => {
  const { tests, diagnostics } = parsePolicyTests(
    "# nothing\n",
    "agent.test.hcl",
  );
  assert.equal(tests.length, 0);
  assert.deepEqual(diagnostics.map((d) => d.code), ["W_NO_TESTS"]);
});
