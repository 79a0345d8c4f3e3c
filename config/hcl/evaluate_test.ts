import assert from "node:assert/strict";
import {
  type EvalContext,
  type EvalResult,
  evaluate,
  formatNumber,
  parseHcl,
  Secret,
  toJsonValue,
  type Value,
} from "./mod.ts";

const NO_ENV: EvalContext = { allowEnv: false };

function run(src: string, ctx: EvalContext = NO_ENV): EvalResult {
  const { body, diagnostics } = parseHcl(`a = ${src}\n`, "t.hcl");
  assert.deepEqual(diagnostics, [], src);
  return evaluate(body.attributes[0]!.expr, ctx);
}

function value(src: string, ctx: EvalContext = NO_ENV): Value {
  const r = run(src, ctx);
  assert.deepEqual(r.diagnostics, [], src);
  return r.value!;
}

/** "code: summary" of each diagnostic. */
function fails(src: string, ctx: EvalContext = NO_ENV): string[] {
  const r = run(src, ctx);
  assert.equal(r.value, undefined, `${src} has no value`);
  return r.diagnostics.map((d) => `${d.code}: ${d.summary}`);
}

Deno.test("evaluate() computes literals, tuples and objects", () => {
  assert.equal(value("42"), 42);
  assert.equal(value("2.50"), 2.5);
  assert.equal(value("1e3"), 1000);
  assert.equal(value("true"), true);
  assert.equal(value("null"), null);
  assert.equal(value('"hi"'), "hi");
  assert.equal(value("<<-EOT\n  x\n  EOT"), "x\n");
  assert.deepEqual(value('[1, "a", [true]]'), [1, "a", [true]]);
  assert.deepEqual(
    value('{ source = "gh", "k-2" = 2, (1 + 1) = "two", true = 4 }'),
    {
      source: "gh",
      "k-2": 2,
      "2": "two",
      true: 4,
    },
  );
  // A key named __proto__ is an ordinary key.
  const o = value("{ __proto__ = 1 }") as Record<string, Value>;
  assert.ok(Object.hasOwn(o, "__proto__"));
  assert.equal(Object.getPrototypeOf(o), Object.prototype);
});

Deno.test("evaluate() does arithmetic, comparison and logic over constants", async (t) => {
  const cases: [string, Value][] = [
    ["60 * 2", 120],
    ["10 / 4", 2.5],
    ["7 % 3", 1],
    ["1 + 2 * 3", 7],
    ["-(-5)", 5],
    ["0.1 + 0.2", 0.3],
    ['"5" + 1', 6],
    ["1 < 2", true],
    ["2 >= 3", false],
    ['1 == "1"', false],
    ["[1, {a = 2}] == [1, {a = 2}]", true],
    ["null != null", false],
    ["true && !false", true],
    ['"true" || false', true],
    ["!true || false && true", false],
  ];
  for (const [src, want] of cases) {
    await t.step(src, () => assert.deepEqual(value(src), want));
  }
});

Deno.test("evaluate() renders templates and passes a lone interpolation through", () => {
  assert.equal(value('"agent-${"prod"}-${1 + 1}"'), "agent-prod-2");
  assert.equal(value('"${1}"'), 1); // "${x}" yields x itself
  assert.deepEqual(value('"${[1]}"'), [1]);
  assert.equal(
    value('"v${1.50}/${1e21}/${true}"'),
    "v1.5/1000000000000000000000/true",
  );
  assert.equal(value('"%{ if 1 < 2 }yes%{ else }no%{ endif }"'), "yes");
  assert.equal(
    value('"%{ for i, v in ["a", "b"] }${i}=${v};%{ endfor }"'),
    "0=a;1=b;",
  );
  assert.equal(
    value(
      '<<-EOT\n  %{ for t in ["fs", "grep"] ~}\n  - ${t}\n  %{ endfor ~}\n  EOT',
    ),
    // As in HCL (hcl2json agrees): "~}" trims the newline after the
    // directive, so the next line's indentation is not at a line start.
    "  - fs\n  - grep\n",
  );
});

Deno.test("evaluate() evaluates conditionals, index, splat and for expressions", async (t) => {
  const cases: [string, Value][] = [
    ['true ? "a" : "b"', "a"],
    ['1 > 2 ? 1 : "x"', "x"], // mixed primitives unify to string
    ['1 < 2 ? 1 : "x"', "1"],
    ["false ? null : [1]", [1]],
    ["[10, 20, 30][1]", 20],
    ['[10, 20]["1"]', 20],
    ["{ a = { b = 5 } }.a.b", 5],
    ['{ a = 1 }["a"]', 1],
    ["[{ n = 1 }, { n = 2 }][*].n", [1, 2]],
    ["[{ n = 1 }, { n = 2 }].*.n", [1, 2]],
    ["{ n = 1 }[*].n", [1]],
    ["null[*]", []],
    ["[for v in [1, 2, 3] : v * 2 if v != 2]", [2, 6]],
    ['[for k, v in { b = 1, a = 2 } : "${k}${v}"]', ["a2", "b1"]],
    ['{for i, v in ["x", "y"] : v => i}', { x: 0, y: 1 }],
    ['{for v in ["a", "b", "a"] : v => v...}', { a: ["a", "a"], b: ["b"] }],
  ];
  for (const [src, want] of cases) {
    await t.step(src, () => assert.deepEqual(value(src), want));
  }
});

Deno.test("evaluate() names types, never values, in errors", async (t) => {
  const cases: [string, string[]][] = [
    ["1 + true", ["E_INVALID_VALUE: Invalid operand"]],
    ['"ten" * 2', ["E_INVALID_VALUE: Invalid operand"]],
    ["!1", ["E_INVALID_VALUE: Invalid operand"]],
    ["-true", ["E_INVALID_VALUE: Invalid operand"]],
    ["1 / 0", ["E_INVALID_VALUE: Division by zero"]],
    ["5 % 0", ["E_INVALID_VALUE: Division by zero"]],
    ["1e400", ["E_INVALID_VALUE: Number out of range"]],
    ["1e300 * 1e300", ["E_INVALID_VALUE: Number out of range"]],
    ['"a${null}"', ["E_INVALID_VALUE: Invalid template interpolation value"]],
    ['"a${[1]}"', ["E_INVALID_VALUE: Invalid template interpolation value"]],
    ['1 ? "a" : "b"', ["E_INVALID_VALUE: Invalid operand"]],
    ["true ? [1] : { a = 1 }", [
      "E_INVALID_VALUE: Inconsistent conditional result types",
    ]],
    ["[1][1]", ["E_INVALID_VALUE: Invalid index"]],
    ["[1][0.5]", ["E_INVALID_VALUE: Invalid index"]],
    ["{ a = 1 }.b", ["E_INVALID_VALUE: Unsupported attribute"]],
    ['"s".x', ["E_INVALID_VALUE: Unsupported attribute"]],
    ["null.x", ["E_INVALID_VALUE: Attempt to get attribute from null value"]],
    ["{ a = 1, a = 2 }", ["E_INVALID_VALUE: Duplicate object key"]],
    ["{ (null) = 1 }", ["E_INVALID_VALUE: Null value as key"]],
    ["{ ([1]) = 1 }", ["E_INVALID_VALUE: Incorrect key type"]],
    ["{ a.b = 1 }", ["E_INVALID_VALUE: Ambiguous attribute key"]],
    ["[for v in 3 : v]", [
      "E_INVALID_VALUE: Iteration over non-iterable value",
    ]],
    ['{for v in ["a", "a"] : v => 1}', [
      "E_INVALID_VALUE: Duplicate object key",
    ]],
    ["[for v in [1] : v if v]", ["E_INVALID_VALUE: Invalid operand"]],
    ["[1 + true, 2 / 0]", [
      "E_INVALID_VALUE: Invalid operand",
      "E_INVALID_VALUE: Division by zero",
    ]],
  ];
  for (const [src, want] of cases) {
    await t.step(src, () => assert.deepEqual(fails(src), want));
  }
  const [d] = run('"ten" * 2').diagnostics;
  assert.equal(
    d!.detail,
    'The left operand of "*" must be a number; this string does not hold a number.',
  );
  assert.deepEqual(
    [d!.range!.start.column, d!.range!.end.column],
    [5, 10],
    "points at the operand",
  );
  assert.match(
    run("1 + true").diagnostics[0]!.detail!,
    /must be a number, but it is a bool/,
  );
  assert.match(run("[1] + 1").diagnostics[0]!.detail!, /but it is a list/);
  assert.match(run("{} + 1").diagnostics[0]!.detail!, /but it is an object/);
  assert.match(run("null + 1").diagnostics[0]!.detail!, /but it is a null/);
});

Deno.test("evaluate() rejects variables and functions other than env", () => {
  assert.deepEqual(fails("var.name"), [
    "E_VARIABLE_NOT_ALLOWED: Variables not allowed",
  ]);
  assert.deepEqual(fails("claude"), [
    "E_VARIABLE_NOT_ALLOWED: Variables not allowed",
  ]);
  assert.match(run("claude").diagnostics[0]!.detail!, /quote it: "claude"/);
  assert.deepEqual(fails("max(1, 2)", { allowEnv: true }), [
    "E_FUNCTION_NOT_ALLOWED: Call to unknown function",
  ]);
  assert.match(
    run('envv("X")').diagnostics[0]!.detail!,
    /Did you mean "env"\?/,
  );
});

Deno.test("evaluate() allows env() only where the context says so", () => {
  const where = { allowEnv: false, place: 'attribute "log_level" of settings' };
  const [d] = run('env("HOME")', where).diagnostics;
  assert.equal(d!.code, "E_FUNCTION_NOT_ALLOWED");
  assert.equal(d!.summary, "Function calls not allowed");
  assert.match(
    d!.detail!,
    /cannot be used in attribute "log_level" of settings/,
  );
  const ok = run('env("TOKEN")', { allowEnv: true, env: { TOKEN: "t0k" } });
  assert.deepEqual(ok.diagnostics, []);
  assert.ok(ok.value instanceof Secret);
  assert.equal((ok.value as Secret).reveal(), "t0k");
  // A lookup function works as well as a record; empty counts as set.
  const fn = run('env("EMPTY")', {
    allowEnv: true,
    env: (n) => n === "EMPTY" ? "" : undefined,
  });
  assert.equal((fn.value as Secret).reveal(), "");
});

Deno.test("evaluate() with requireEnv: false warns W_ENV_UNSET and yields an empty secret", () => {
  const r = run('{ key = env("CLAUDE_API_KEY"), n = 1 }', {
    allowEnv: true,
    env: {},
    requireEnv: false,
    place: 'attribute "api_key" of provider "claude"',
  });
  assert.equal(r.diagnostics.length, 1);
  const d = r.diagnostics[0]!;
  assert.equal(d.severity, "warning");
  assert.equal(d.code, "W_ENV_UNSET");
  assert.equal(d.summary, 'Environment variable "CLAUDE_API_KEY" is not set');
  assert.match(d.detail!, /in attribute "api_key" of provider "claude"/);
  assert.deepEqual([d.range!.start.line, d.range!.start.column], [1, 13]);
  const value = r.value as Record<string, unknown>;
  assert.ok(value.key instanceof Secret);
  assert.equal((value.key as Secret).reveal(), "");
  assert.equal(value.n, 1);
  // A set variable is read as usual, with no warning.
  const set = run('env("K")', {
    allowEnv: true,
    env: { K: "v" },
    requireEnv: false,
  });
  assert.deepEqual(set.diagnostics, []);
  assert.equal((set.value as Secret).reveal(), "v");
});

Deno.test("evaluate() reports an unset variable by name and place, with E_ENV_UNSET", () => {
  const r = run('env("CLAUDE_API_KEY")', {
    allowEnv: true,
    env: {},
    place: 'attribute "api_key" of provider "claude"',
  });
  assert.equal(r.value, undefined);
  assert.equal(r.diagnostics.length, 1);
  const d = r.diagnostics[0]!;
  assert.equal(d.code, "E_ENV_UNSET");
  assert.equal(d.summary, 'Environment variable "CLAUDE_API_KEY" is not set');
  assert.match(d.detail!, /in attribute "api_key" of provider "claude"/);
  assert.deepEqual([d.range!.start.line, d.range!.start.column], [1, 5]);
  // Arity and argument type.
  assert.deepEqual(fails('env("A", "B")', { allowEnv: true, env: {} }), [
    "E_INVALID_VALUE: Invalid number of arguments",
  ]);
  assert.deepEqual(fails("env(1)", { allowEnv: true, env: {} }), [
    "E_INVALID_VALUE: Invalid function argument",
  ]);
  assert.equal(
    (value('env(["A"]...)', { allowEnv: true, env: { A: "x" } }) as Secret)
      .reveal(),
    "x",
  );
});

Deno.test("evaluate() keeps secrets out of diagnostics, JSON and inspection", () => {
  const SECRET = "sk-live-SHOULD-NOT-LEAK-4242";
  const ctx: EvalContext = { allowEnv: true, env: { KEY: SECRET, NUM: "12" } };
  const sources = [
    'env("KEY")',
    '"Bearer ${env("KEY")}"',
    '{ auth = env("KEY"), list = [env("KEY")] }',
    'env("KEY") == "x" ? "a" : "b"',
    'env("NUM") + 1',
    // Errors that involve the secret's value.
    'env("KEY") * 2',
    '{ (env("KEY")) = 1 }',
    '[1][env("KEY")]',
    '{ a = 1 }[env("KEY")]',
    'env(env("KEY"))',
    '"${env("KEY")}".x',
    '[for c in env("KEY") : c]',
    '!env("KEY")',
    'env("KEY") ? 1 : 2',
  ];
  for (const src of sources) {
    const r = run(src, ctx);
    const everything = [
      JSON.stringify(r.value),
      JSON.stringify(r.diagnostics),
      String(r.value),
      Deno.inspect(r.value, { depth: 10 }),
      Deno.inspect(r.diagnostics, { depth: 10 }),
      JSON.stringify(r.value === undefined ? null : toJsonValue(r.value)),
    ].join("\n");
    assert.ok(!everything.includes(SECRET), `${src} leaks the secret`);
    if (src.includes("NUM")) assert.ok(!everything.includes("13"), src);
  }
  // Derived values stay secret.
  const t = run('"Bearer ${env("KEY")}"', ctx).value;
  assert.ok(t instanceof Secret);
  assert.equal(t.reveal(), `Bearer ${SECRET}`);
  const sum = run('env("NUM") + 1', ctx).value;
  assert.ok(sum instanceof Secret);
  assert.equal(sum.reveal(), 13);
  assert.deepEqual(
    toJsonValue(run('{ auth = env("KEY") }', ctx).value!),
    { auth: "(sensitive)" },
  );
  assert.deepEqual(
    toJsonValue(run('{ auth = env("KEY") }', ctx).value!, {
      revealSecrets: true,
    }),
    { auth: SECRET },
  );
});

Deno.test("evaluate() reports every error in an expression, not only the first", () => {
  const r = run('{ a = 1 + true, b = var.x, c = env("X"), d = [1][5] }');
  assert.deepEqual(r.diagnostics.map((d) => d.code), [
    "E_INVALID_VALUE",
    "E_VARIABLE_NOT_ALLOWED",
    "E_FUNCTION_NOT_ALLOWED",
    "E_INVALID_VALUE",
  ]);
});

Deno.test("formatNumber() prints decimals without exponents", async (t) => {
  const cases: [number, string][] = [
    [0, "0"],
    [-0, "0"],
    [42, "42"],
    [2.5, "2.5"],
    [-0.25, "-0.25"],
    [1e21, "1000000000000000000000"],
    [1e-7, "0.0000001"],
    [1.5e-10, "0.00000000015"],
    [123456789.125, "123456789.125"],
  ];
  for (const [n, want] of cases) {
    await t.step(want, () => assert.equal(formatNumber(n), want));
  }
});

Deno.test("evaluate() points a repeated object key at its first setting, and a missing attribute at its name", () => {
  const dup = run("{ a = 1, b = 2, a = 3 }");
  assert.equal(dup.value, undefined);
  assert.deepEqual(dup.diagnostics.map((d) => [d.detail, d.range?.start]), [[
    'The key "a" was already set at t.hcl:1:7. Each key may be set only once.',
    { line: 1, column: 21, byte: 20 },
  ]]);
  const missing = run("{ a = { b = 2 } }.a.c");
  assert.deepEqual(
    missing.diagnostics.map((d) => [d.detail, d.range?.start, d.range?.end]),
    [[
      'This object has no attribute "c". Did you mean "b"?',
      { line: 1, column: 24, byte: 23 },
      { line: 1, column: 26, byte: 25 },
    ]],
  );
  assert.equal(value("{ a = { b = 2 } }.a.b"), 2);
});
