import assert from "node:assert/strict";
import { type Diagnostic, formatDiagnostic } from "../contract/diagnostic.ts";
import {
  renderHuman,
  renderJson,
  sortDiagnostics,
  writeJson,
} from "./render.ts";
import { type JsonOut, LazyJsonList, writeJsonValue } from "./_json_indent.ts";
import { Secret, toJsonValue, type Value } from "./hcl/mod.ts";
import { defineKey } from "./hcl/value.ts";

const at = (file: string, byte: number) => ({
  file,
  start: { line: 1, column: byte + 1, byte },
  end: { line: 1, column: byte + 2, byte: byte + 1 },
});

const DS: Diagnostic[] = [
  { severity: "warning", code: "W_B", summary: "w", range: at("agent.hcl", 0) },
  {
    severity: "error",
    code: "E_LOCK_VERSION",
    summary: "l",
    range: at(".agent/agent.lock.hcl", 3),
  },
  { severity: "error", code: "E_NO_RANGE", summary: "g" },
  { severity: "error", code: "E_A", summary: "e", range: at("agent.hcl", 5) },
];

Deno.test("sortDiagnostics() groups by file, errors before warnings, then by position", () => {
  assert.deepEqual(sortDiagnostics(DS).map((d) => d.code), [
    "E_A",
    "W_B",
    "E_LOCK_VERSION",
    "E_NO_RANGE",
  ]);
});

Deno.test("renderHuman() prints a header per file and a one-line summary", () => {
  const text = renderHuman({
    exitCode: 1,
    plan: undefined,
    diagnostics: DS,
    sources: new Map([["agent.hcl", "abcdefgh\n"]]),
  });
  const lines = text.split("\n");
  assert.equal(
    lines[0],
    "agent.hcl: 2 errors, 1 warning".replace("2 errors", "1 error"),
  );
  assert.ok(lines.includes(".agent/agent.lock.hcl: 1 error"));
  assert.ok(lines.includes("General: 1 error"));
  assert.equal(
    lines.at(-2),
    "The configuration is invalid: 3 errors, 1 warning.",
  );
});

Deno.test("renderJson() writes format_version 1 and no plan when invalid", () => {
  const doc = JSON.parse(
    renderJson({
      exitCode: 2,
      plan: undefined,
      diagnostics: DS.slice(1, 2),
      sources: new Map(),
    }),
  );
  assert.deepEqual(doc, {
    format_version: "1",
    valid: false,
    exit_code: 2,
    error_count: 1,
    warning_count: 0,
    diagnostics: [{
      severity: "error",
      code: "E_LOCK_VERSION",
      summary: "l",
      detail: "",
      range: {
        filename: ".agent/agent.lock.hcl",
        start: { line: 1, column: 4, byte: 3 },
        end: { line: 1, column: 5, byte: 4 },
      },
    }],
  });
});

/**
 * What writeJsonValue() writes for `value`, each chunk decoded on its
 * own (a chunk never ends inside a character), and the number of chunks.
 */
function indented(value: unknown): { text: string; chunks: number } {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let text = "";
  let chunks = 0;
  writeJsonValue(value, (b) => {
    text += decoder.decode(b);
    chunks++;
  });
  return { text, chunks };
}

Deno.test("writeJsonValue() writes the bytes of JSON.stringify(value, null, 2)", () => {
  const values: unknown[] = [
    {},
    [],
    "",
    0,
    null,
    { a: {}, b: [], c: [{}, [[]], { d: [1, -2.5e-7, true, false, null] }] },
    // Structural characters, escapes and non-ASCII inside strings and keys.
    { "{[:,]}": 'a"b\\c\n\u0001}{', "é😀ü": ["中文", "\ud800", "x\udfff"] },
    { deep: JSON.parse("[".repeat(300) + "]".repeat(300)) },
    // What JSON.stringify leaves out, turns into null or asks toJSON for.
    {
      u: undefined,
      f: () => 1,
      s: Symbol("s"),
      list: [undefined, () => 1, Symbol("t"), NaN, -Infinity, -0, 1e21, 5e-324],
      date: new Date(0),
      to: { toJSON: (key: string) => ({ key, inner: [1] }) },
      gone: { toJSON: () => undefined },
      in: [{ toJSON: (key: string) => key }, { toJSON: () => undefined }],
      nested: { a: undefined, b: { c: undefined } },
    },
    // Control characters, quotes, backslashes and lone surrogates, short
    // and long, in keys and values.
    {
      "\u0000\u001f\b\t\n\f\r\u007f": "\u0000\u0001\u001f\u007f\u0080",
      "a\udc00b\ud800": ["\ud83d", "\ude00x", "x\ud83d", "\ud83d\ude00\udc00"],
      long: '\u0000\t\ud800\\"é😀'.repeat(100),
    },
    // Long strings (encoded natively, across chunks): quotes, backslashes
    // (one ending the string), non-ASCII and surrogate pairs at every
    // offset of a chunk's end.
    ["x".repeat(300) + "\\", 'q"'.repeat(200) + "\\"],
    [`${"x".repeat(300)}a"b,{[:]}${"y".repeat(300)}\\",{[:]}${
      "z".repeat(300)
    }`],
    {
      [`k${"é".repeat(400)}`]: 'ab"c\\é😀中\n'.repeat(30_000),
      t: ["y😀".repeat(70_000), "z".repeat(200_000) + "\\\\"],
    },
  ];
  for (const v of values) {
    assert.equal(indented(v).text, JSON.stringify(v, null, 2));
  }
  // Many chunks, with multi-byte characters throughout.
  const big = Array.from({ length: 6_000 }, (_, i) => ({
    name: `p${i}`,
    text: i % 3 === 0 ? "é😀中".repeat(i % 7) : "plain",
    list: i % 5 === 0 ? [] : [i, { k: "v" }],
  }));
  const { text, chunks } = indented(big);
  assert.ok(chunks > 5, `${chunks} chunks`);
  assert.equal(text, JSON.stringify(big, null, 2));
});

Deno.test("writeJsonValue() writes a LazyJsonList as JSON.stringify writes its toJSON()", () => {
  let made = 0;
  const write = (n: number, o: JsonOut) => {
    made++;
    if (n % 3 === 0) {
      o.value(undefined);
      return;
    }
    o.open();
    o.field("n", n);
    o.field("list", [n, "é", { k: n }]);
    o.key("empty");
    o.openList();
    o.close();
    o.key("none");
    o.open();
    o.close();
    o.key("rows");
    o.openList();
    o.value(n);
    o.open();
    o.field("__proto__", [n]);
    o.key("inner");
    o.openList();
    o.openList();
    o.value("x");
    o.close();
    o.close();
    o.close();
    o.value(null);
    o.close();
    o.close();
  };
  const doc = {
    empty: new LazyJsonList([], write),
    items: new LazyJsonList([1, 2, 3, 4], write),
    nested: [
      new LazyJsonList([5], (n, o) => {
        o.open();
        o.field("list", new LazyJsonList([n, n], write));
        o.field("after", true);
        o.close();
      }),
    ],
    scalar: new LazyJsonList(["a", "b"], (s, o) => o.value(s)),
  };
  const text = indented(doc).text;
  assert.equal(text, JSON.stringify(doc, null, 2));
  assert.ok(text.includes('"__proto__": ['));
  // Each element is written on each write, never kept.
  made = 0;
  indented(doc);
  assert.equal(made, 6);
});

Deno.test("writeJsonValue() rejects a LazyJsonList element that is not one value", () => {
  const bad: ((o: JsonOut) => void)[] = [
    () => {},
    (o) => {
      o.value(1);
      o.value(2);
    },
    (o) => o.open(),
    (o) => {
      o.open();
      o.value(1);
    },
    (o) => o.close(),
    (o) => o.key("k"),
  ];
  for (const write of bad) {
    assert.throws(
      () => writeJsonValue(new LazyJsonList([0], (_, o) => write(o)), () => {}),
      Error,
    );
  }
});

Deno.test("writeJsonValue() of a decoded value writes the text of its toJsonValue() copy", () => {
  // The streamed plan writes a provider's config as it is, not copied.
  const env: Record<string, Value> = {};
  for (const k of ["b", "__proto__", "10", "a", "2"]) {
    defineKey(env, k, k === "a" ? new Secret("sk-1") : k);
  }
  const big: Record<string, Value> = {};
  for (let i = 0; i < 200; i++) big[`K_${i}`] = i % 2 ? `v${i}` : i;
  const config: Value = {
    env,
    big,
    list: [new Secret(["x"]), { token: new Secret("t") }, null, 1.5, true],
    nested: { __proto__: null, key: new Secret({ a: 1 }) } as Value,
  };
  const text = indented(config).text;
  assert.equal(text, JSON.stringify(toJsonValue(config), null, 2));
  assert.ok(text.includes('"__proto__": "__proto__"'));
  assert.ok(!text.includes("sk-1"));
});

Deno.test("formatDiagnostic() prints the line split() would give, or none past the end", () => {
  const texts = ["", "a", "a\n", "one\ntwo\r\nthree", "x\n\n\ny\n", "é😀\nü\n"];
  for (const text of texts) {
    for (let line = 0; line <= 7; line++) {
      const d: Diagnostic = {
        severity: "error",
        code: "E_X",
        summary: "s",
        range: {
          file: "agent.hcl",
          start: { line, column: 1, byte: 0 },
          end: { line, column: 2, byte: 1 },
        },
      };
      const out = formatDiagnostic(d, {
        sources: new Map([["agent.hcl", text]]),
      });
      const expected = text.split("\n")[line - 1];
      const printed = out.split("\n")[3];
      if (expected === undefined) assert.equal(printed, undefined, `${line}`);
      else {
        assert.equal(printed, `${line} | ${expected.replace(/\r$/, "")}`);
      }
    }
  }
});

Deno.test("writeJson() writes the bytes of renderJson()", () => {
  const input = {
    exitCode: 1 as const,
    plan: undefined,
    diagnostics: DS,
    sources: new Map(),
  };
  const parts: Uint8Array[] = [];
  writeJson(input, (b) => parts.push(b.slice()), undefined, { x: ["é"] });
  assert.equal(
    new TextDecoder().decode(
      new Uint8Array(parts.flatMap((p) => [...p])),
    ),
    renderJson(input, undefined, { x: ["é"] }),
  );
});
