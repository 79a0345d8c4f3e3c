import assert from "node:assert/strict";
import type { Diagnostic, SourceRange } from "../../contract/diagnostic.ts";
import type { Expr } from "./ast.ts";
import { MAX_NESTING, parseHcl, sourceText } from "./mod.ts";

/** Parses text that must be valid. */
function ok(text: string) {
  const r = parseHcl(text, "t.hcl");
  assert.deepEqual(r.diagnostics, [], JSON.stringify(text));
  return r.body;
}

/** The first attribute's expression. */
function expr(text: string): Expr {
  return ok(text).attributes[0]!.expr;
}

/** "line:column summary" of each diagnostic. */
function errors(text: string): string[] {
  return parseHcl(text, "t.hcl").diagnostics.map((d) =>
    `${d.range!.start.line}:${d.range!.start.column} ${d.summary}`
  );
}

/** [line, column, byte] of a range's start and end. */
function at(r: SourceRange): number[][] {
  return [
    [r.start.line, r.start.column, r.start.byte],
    [r.end.line, r.end.column, r.end.byte],
  ];
}

Deno.test("parseHcl() builds attributes and blocks in source order", () => {
  const body = ok(
    'a = 1\nprovider "claude" {\n  k = true\n}\nb = "x"\nhook "post-apply" {}\n',
  );
  assert.deepEqual(
    body.items.map((i) => i.kind === "block" ? i.type : i.name),
    [
      "a",
      "provider",
      "b",
      "hook",
    ],
  );
  assert.deepEqual(body.attributes.map((a) => a.name), ["a", "b"]);
  assert.deepEqual(body.blocks.map((b) => b.labels[0]!.value), [
    "claude",
    "post-apply",
  ]);
  assert.equal(body.blocks[0]!.body.attributes[0]!.name, "k");
});

Deno.test("parseHcl() gives exact ranges to attributes, blocks and labels", () => {
  const text = 'provider "claude" {\n  api_key = env("K")\n}\n';
  const block = ok(text).blocks[0]!;
  assert.deepEqual(at(block.typeRange), [[1, 1, 0], [1, 9, 8]]);
  assert.deepEqual(at(block.labels[0]!.range), [[1, 10, 9], [1, 18, 17]]);
  assert.deepEqual(at(block.openBraceRange), [[1, 19, 18], [1, 20, 19]]);
  assert.deepEqual(at(block.closeBraceRange), [[3, 1, 41], [3, 2, 42]]);
  assert.deepEqual(at(block.range), [[1, 1, 0], [3, 2, 42]]);
  const attr = block.body.attributes[0]!;
  assert.deepEqual(at(attr.nameRange), [[2, 3, 22], [2, 10, 29]]);
  assert.deepEqual(at(attr.range), [[2, 3, 22], [2, 21, 40]]);
  assert.deepEqual(at(attr.expr.range), [[2, 13, 32], [2, 21, 40]]);
  assert.equal(attr.range.file, "t.hcl");
  assert.equal(sourceText(text, attr.expr.range), 'env("K")');
});

Deno.test("parseHcl() counts columns in code points and offsets in UTF-8 bytes", () => {
  // "é" is 2 bytes, "日" 3 bytes, "😀" 4 bytes (2 UTF-16 units): 1 column each.
  const text = 'é = "日😀"\nb = 1 # ü\nc = 2\n';
  const body = ok(text);
  const [e, b, c] = body.attributes;
  assert.deepEqual(at(e!.nameRange), [[1, 1, 0], [1, 2, 2]]);
  assert.deepEqual(at(e!.expr.range), [[1, 5, 5], [1, 9, 14]]);
  assert.deepEqual(at(b!.expr.range), [[2, 5, 19], [2, 6, 20]]);
  assert.deepEqual(at(c!.nameRange), [[3, 1, 26], [3, 2, 27]]);
  assert.equal(sourceText(text, e!.expr.range), '"日😀"');
  const byteLength = new TextEncoder().encode(text).length;
  assert.equal(body.range.end.byte, byteLength);
});

Deno.test("parseHcl() keeps positions right after a byte order mark and CRLF", () => {
  const body = ok("\uFEFFa = 1\r\nb = 2\r\n");
  assert.deepEqual(at(body.attributes[0]!.nameRange), [[1, 1, 3], [1, 2, 4]]);
  assert.deepEqual(at(body.attributes[1]!.nameRange), [[2, 1, 10], [2, 2, 11]]);
});

Deno.test("parseHcl() parses every expression kind", async (t) => {
  const kinds: [string, string][] = [
    ["1", "number"],
    ["true", "bool"],
    ["null", "null"],
    ['"s"', "string"],
    ["<<EOT\ns\nEOT", "string"],
    ['"a${b}"', "template"],
    ["[1, 2]", "tuple"],
    ["{ a = 1 }", "object"],
    ['env("X")', "call"],
    ["x", "variable"],
    ["x.y", "getattr"],
    ["x[0]", "index"],
    ["x.0", "index"],
    ["x[*].y", "splat"],
    ["x.*.y", "splat"],
    ["-1", "unary"],
    ["!x", "unary"],
    ["1 + 2", "binary"],
    ["a ? b : c", "conditional"],
    ["(1)", "parens"],
    ["[for v in x : v]", "for"],
    ["{for k, v in x : k => v}", "for"],
  ];
  for (const [src, kind] of kinds) {
    await t.step(src, () => assert.equal(expr(`a = ${src}\n`).kind, kind));
  }
});

Deno.test("parseHcl() applies operator precedence and associativity", () => {
  const e = expr("a = 1 + 2 * 3 - 4 == 3 || !x && y\n");
  // ((1 + (2 * 3)) - 4 == 3) || ((!x) && y)
  assert.equal(e.kind, "binary");
  if (e.kind !== "binary") return;
  assert.equal(e.op, "||");
  const l = e.left;
  assert.ok(l.kind === "binary" && l.op === "==");
  assert.ok(l.left.kind === "binary" && l.left.op === "-");
  assert.ok(l.left.left.kind === "binary" && l.left.left.op === "+");
  assert.ok(
    l.left.left.right.kind === "binary" && l.left.left.right.op === "*",
  );
  assert.ok(e.right.kind === "binary" && e.right.op === "&&");
  // -46 + 5 is (-46) + 5.
  const n = expr("a = -46 + 5\n");
  assert.ok(n.kind === "binary" && n.left.kind === "unary");
  // Conditionals nest to the right.
  const c = expr("a = x ? 1 : y ? 2 : 3\n");
  assert.ok(c.kind === "conditional" && c.else.kind === "conditional");
});

Deno.test("parseHcl() reads object keys as names unless parenthesised", () => {
  const e = expr('a = { k = 1, "q": 2, (x) = 3, true = 4, a-b = 5 }\n');
  assert.equal(e.kind, "object");
  if (e.kind !== "object") return;
  assert.deepEqual(e.items.map((i) => i.keyName), [
    "k",
    undefined,
    undefined,
    "true",
    "a-b",
  ]);
  assert.deepEqual(e.items.map((i) => i.key.kind), [
    "variable",
    "string",
    "parens",
    "bool",
    "variable",
  ]);
  assert.deepEqual(at(e.items[1]!.range), [[1, 14, 13], [1, 20, 19]]);
});

Deno.test("parseHcl() separates object items with commas or newlines, trailing comma allowed", () => {
  const e = expr("a = {\n  x = 1,\n  y = 2\n  z = 3,\n}\n");
  assert.ok(e.kind === "object" && e.items.length === 3);
  const tup = expr("a = [\n  1,\n  2,\n]\n");
  assert.ok(tup.kind === "tuple" && tup.items.length === 2);
  assert.deepEqual(errors("a = [\n1\n2\n]\n"), ["3:1 Missing item separator"]);
  assert.deepEqual(errors("a = { x = 1 y = 2 }\n"), [
    "1:13 Missing attribute separator",
  ]);
});

Deno.test("parseHcl() allows one argument in a single-line block, never two", () => {
  const b = ok('primary { provider = "x" }\n').blocks[0]!;
  assert.equal(b.body.attributes.length, 1);
  assert.deepEqual(at(b.body.range), [[1, 9, 8], [1, 27, 26]]);
  assert.deepEqual(errors('primary { provider = "x", id = "y" }\n'), [
    "1:25 Invalid single-argument block definition",
  ]);
  assert.deepEqual(errors('primary { provider = "x" id = "y" }\n'), [
    "1:26 Invalid single-argument block definition",
  ]);
  assert.deepEqual(errors("model { primary {} }\n"), [
    "1:9 Argument definition required",
  ]);
  assert.deepEqual(errors("b { a = 1\n}\n"), [
    "1:10 Invalid single-argument block definition",
  ]);
});

Deno.test("parseHcl() rejects a redefined attribute and keeps the first", () => {
  const r = parseHcl("a = 1\nb = 2\na = 3\n", "t.hcl");
  assert.deepEqual(r.diagnostics.map((d) => d.summary), [
    "Attribute redefined",
  ]);
  assert.match(r.diagnostics[0]!.detail!, /"a" was already set at t\.hcl:1,1/);
  assert.deepEqual(at(r.diagnostics[0]!.range!), [[3, 1, 12], [3, 2, 13]]);
  assert.deepEqual(r.body.attributes.map((a) => a.name), ["a", "b"]);
  const first = r.body.attributes[0]!.expr;
  assert.ok(first.kind === "number" && first.value === 1);
  // The same name in different bodies is fine.
  ok("a = 1\nb {\n  a = 2\n}\n");
});

Deno.test("parseHcl() requires a newline after each attribute and block", () => {
  assert.deepEqual(errors("a = 1 b = 2\n"), [
    "1:7 Missing newline after argument",
  ]);
  assert.deepEqual(errors("a = 1, b = 2\n"), [
    "1:6 Unexpected comma after argument",
  ]);
  assert.deepEqual(errors("b {} c = 1\n"), [
    "1:6 Missing newline after block definition",
  ]);
  ok("a = 1"); // the end of the file ends the last line
  ok("a = 1 # comment");
});

Deno.test("parseHcl() skips all three comment styles", () => {
  const body = ok(
    "# a\n// b\n/* c\nd */ x = 1 /* e */ # f\ny = [ # g\n  1, // h\n]\n",
  );
  assert.deepEqual(body.attributes.map((a) => a.name), ["x", "y"]);
  // A block comment is not a newline.
  assert.deepEqual(errors("a = 1 /* c */ b = 2\n"), [
    "1:15 Missing newline after argument",
  ]);
});

Deno.test("parseHcl() reads heredocs, flush heredocs and their markers", () => {
  const plain = expr("a = <<EOT\n  one\n    two\nEOT\n");
  assert.ok(plain.kind === "string");
  assert.equal(plain.kind === "string" && plain.value, "  one\n    two\n");
  assert.deepEqual(plain.kind === "string" && plain.heredoc, {
    marker: "EOT",
    flush: false,
  });
  const flush = expr("a = <<-EOT\n    one\n      two\n\n    EOT\n");
  assert.equal(flush.kind === "string" && flush.value, "one\n  two\n\n");
  assert.deepEqual(at(flush.range), [[1, 5, 4], [5, 8, 37]]);
  const empty = expr("a = <<EOT\nEOT\n");
  assert.equal(empty.kind === "string" && empty.value, "");
  const tmpl = expr("a = <<EOT\nhi ${x}\nEOT\n");
  assert.ok(
    tmpl.kind === "template" && !tmpl.wrap && tmpl.heredoc?.marker === "EOT",
  );
  assert.deepEqual(errors("a = <<EOT\nno end\n"), [
    "3:1 Unterminated template string",
  ]);
});

Deno.test("parseHcl() resolves string escapes", async (t) => {
  const cases: [string, string][] = [
    ['"a\\nb"', "a\nb"],
    ['"a\\tb"', "a\tb"],
    ['"a\\rb"', "a\rb"],
    ['"\\"q\\""', '"q"'],
    ['"c:\\\\x"', "c:\\x"],
    ['"\\u00e9"', "é"],
    ['"\\U0001F600"', "😀"],
    ['"$${x}"', "${x}"],
    ['"%%{x}"', "%{x}"],
    ['"$$x"', "$$x"],
    ['"100%"', "100%"],
    ['"$"', "$"],
    ["<<EOT\n\\n $${x}\nEOT", "\\n ${x}\n"],
  ];
  for (const [src, want] of cases) {
    await t.step(src, () => {
      const e = expr(`a = ${src}\n`);
      assert.equal(e.kind, "string");
      assert.equal(e.kind === "string" && e.value, want);
    });
  }
  assert.deepEqual(errors('a = "\\q"\n'), ["1:6 Invalid escape sequence"]);
  assert.deepEqual(errors('a = "\\u12"\n'), ["1:6 Invalid escape sequence"]);
});

Deno.test('parseHcl() tells env("X") from "${env("X")}" and "a${x}"', () => {
  const call = expr('a = env("X")\n');
  assert.equal(call.kind, "call");
  const wrapped = expr('a = "${env("X")}"\n');
  assert.ok(wrapped.kind === "template" && wrapped.wrap);
  const interp = expr('a = "p-${env("X")}"\n');
  assert.ok(
    interp.kind === "template" && !interp.wrap && interp.parts.length === 2,
  );
  if (interp.kind !== "template") return;
  assert.equal(interp.parts[0]!.kind, "literal");
  assert.deepEqual(at(interp.parts[1]!.range), [[1, 8, 7], [1, 19, 18]]);
});

Deno.test("parseHcl() parses template directives and strip markers", () => {
  const e = expr('a = "%{ if x ~}  yes  %{~ else }no%{ endif }!"\n');
  assert.equal(e.kind, "template");
  if (e.kind !== "template") return;
  const [dir, bang] = e.parts;
  assert.ok(dir!.kind === "if");
  if (dir!.kind !== "if") return;
  assert.deepEqual(
    dir.then.map((p) => [p.kind, p.kind === "literal" && p.value]),
    [["literal", "yes"]],
  );
  assert.deepEqual(at(dir.then[0]!.range), [[1, 16, 15], [1, 23, 22]]);
  assert.equal(dir.else[0]!.kind === "literal" && dir.else[0]!.value, "no");
  assert.equal(bang!.kind === "literal" && bang!.value, "!");
  const f = expr('a = "%{ for i, v in xs }${v}%{ endfor }"\n');
  assert.ok(f.kind === "template" && f.parts[0]!.kind === "for");
  if (f.kind !== "template" || f.parts[0]!.kind !== "for") return;
  assert.equal(f.parts[0].keyVar, "i");
  assert.equal(f.parts[0].valueVar, "v");
  assert.deepEqual(errors('a = "%{ if x }"\n'), [
    "1:15 Unexpected end of template",
  ]);
});

Deno.test("parseHcl() parses block labels quoted or bare, with escapes", () => {
  const b = ok('b "x\\ty" bare "" {}\n').blocks[0]!;
  assert.deepEqual(b.labels.map((l) => l.value), ["x\ty", "bare", ""]);
  assert.deepEqual(errors('b "${x}" {}\n'), ["1:4 Invalid string literal"]);
  assert.deepEqual(errors("b 1 {}\n"), [
    "1:1 Argument or block definition required",
  ]);
});

Deno.test("parseHcl() parses for expressions", () => {
  const e = expr('a = {for i, v in ["a", "b"] : v => i... if i > 0}\n');
  assert.ok(e.kind === "for");
  if (e.kind !== "for") return;
  assert.equal(e.isObject, true);
  assert.equal(e.keyVar, "i");
  assert.equal(e.valueVar, "v");
  assert.equal(e.grouped, true);
  assert.ok(e.key?.kind === "variable" && e.condition?.kind === "binary");
  assert.deepEqual(errors("a = [for x in y : x...]\n"), [
    "1:20 Invalid 'for' expression",
  ]);
});

Deno.test("parseHcl() reports several syntax errors at once", () => {
  const text = [
    "a = { x = 1 y = 2 }",
    'b { p = "x", q = "y" }',
    "c = [1 2]",
    "d = 1",
    "d = 2",
    "e = 3 4",
    'provider "x" {',
    "  f = (1",
    "  g = 1",
    "}",
    'h = "\\q"',
    "",
  ].join("\n");
  assert.deepEqual(errors(text), [
    "1:13 Missing attribute separator",
    "2:12 Invalid single-argument block definition",
    "3:8 Missing item separator",
    "5:1 Attribute redefined",
    "6:7 Missing newline after argument",
    "9:3 Unbalanced parentheses",
    "11:6 Invalid escape sequence",
  ]);
  // Recovery keeps the good parts.
  const { body } = parseHcl(text, "t.hcl");
  assert.deepEqual(
    body.items.map((i) => i.kind === "block" ? i.type : i.name),
    [
      "a",
      "b",
      "c",
      "d",
      "e",
      "provider",
      "h",
    ],
  );
});

Deno.test("parseHcl() gives every diagnostic a code, a detail and a range in the file", () => {
  const text = "a = \nb { c = 1, d = 2 }\n}\n";
  const { diagnostics } = parseHcl(text, "dir/agent.hcl");
  assert.ok(diagnostics.length >= 2);
  for (const d of diagnostics as Diagnostic[]) {
    assert.equal(d.severity, "error");
    assert.equal(d.code, "E_SYNTAX");
    assert.ok(d.detail && d.detail.length > 0);
    assert.equal(d.range!.file, "dir/agent.hcl");
    assert.ok(d.range!.start.byte <= d.range!.end.byte);
    assert.ok(d.range!.end.byte <= text.length);
  }
});

Deno.test("parseHcl() never throws, even on hostile input", async (t) => {
  const hostile: [string, string][] = [
    ["empty", ""],
    ["deep tuples", "a = " + "[".repeat(5000)],
    ["deep closed tuples", "a = " + "[".repeat(3000) + "]".repeat(3000) + "\n"],
    ["deep parens", "a = " + "(".repeat(5000) + "1" + ")".repeat(5000)],
    ["deep blocks", "b {\n".repeat(3000) + "}\n".repeat(3000)],
    ["deep templates", "a = " + '"${'.repeat(2000)],
    ["deep unary", "a = " + "-".repeat(10000) + "1\n"],
    ["braces", "}".repeat(1000) + "{".repeat(1000)],
    ["nul bytes", "a = \u0000\u0001\u0002\n"],
    [
      "binary",
      String.fromCharCode(
        ...Array.from({ length: 2000 }, (_, i) => (i * 7919) % 65536),
      ),
    ],
    ["lone surrogates", 'a = "\uD800"\n\uDC00 = 1\n'],
  ];
  for (const [name, text] of hostile) {
    await t.step(name, () => {
      const r = parseHcl(text, "t.hcl");
      assert.equal(r.body.kind, "body");
      for (const d of r.diagnostics) {
        assert.ok(d.range, "every diagnostic has a range");
      }
    });
  }
  const deep = parseHcl(
    "a = " + "[".repeat(MAX_NESTING + 10) + "]".repeat(MAX_NESTING + 10) + "\n",
    "t.hcl",
  );
  assert.ok(deep.diagnostics.some((d) => d.summary === "Nesting too deep"));
  const fine = parseHcl(
    "a = " + "[".repeat(MAX_NESTING - 1) + "]".repeat(MAX_NESTING - 1) + "\n",
    "t.hcl",
  );
  assert.deepEqual(fine.diagnostics, []);
});

Deno.test("parseHcl() nodes read like plain objects: kind, fields and ranges read, assigned and read back", () => {
  const body = ok('b "l" {\n  k = x.y\n}\nf = g(1)\n');
  const block = body.blocks[0]!;
  const attr = block.body.attributes[0]!;
  assert.equal(block.kind, "block");
  assert.equal(attr.kind, "attribute");
  assert.deepEqual(at(block.range), [[1, 1, 0], [3, 2, 19]]);
  assert.deepEqual(at(block.typeRange), [[1, 1, 0], [1, 2, 1]]);
  assert.deepEqual(at(block.openBraceRange), [[1, 7, 6], [1, 8, 7]]);
  assert.deepEqual(at(block.closeBraceRange), [[3, 1, 18], [3, 2, 19]]);
  assert.deepEqual(at(attr.nameRange), [[2, 3, 10], [2, 4, 11]]);
  assert.deepEqual(at(attr.range), [[2, 3, 10], [2, 10, 17]]);
  const get = attr.expr;
  assert.ok(get.kind === "getattr");
  assert.deepEqual(at(get.nameRange), [[2, 8, 15], [2, 10, 17]]);
  const call = body.attributes[0]!.expr;
  assert.ok(call.kind === "call");
  assert.deepEqual(at(call.nameRange), [[4, 5, 24], [4, 6, 25]]);
  assert.deepEqual(at(call.range), [[4, 5, 24], [4, 9, 28]]);

  // A plain range assigned replaces that range only; a span of the same
  // file is taken by its offsets; the kind can be assigned too.
  const plain: SourceRange = {
    file: "other.hcl",
    start: { line: 9, column: 1, byte: 90 },
    end: { line: 9, column: 2, byte: 91 },
  };
  block.typeRange = plain;
  assert.equal(block.typeRange, plain);
  assert.deepEqual(at(block.openBraceRange), [[1, 7, 6], [1, 8, 7]]);
  assert.deepEqual(at(block.range), [[1, 1, 0], [3, 2, 19]]);
  block.range = plain;
  assert.equal(block.range, plain);
  block.range = attr.range;
  assert.deepEqual(at(block.range), [[2, 3, 10], [2, 10, 17]]);
  assert.equal(block.typeRange, plain);
  call.nameRange = plain;
  assert.equal(call.nameRange, plain);
  assert.deepEqual(at(call.range), [[4, 5, 24], [4, 9, 28]]);
  attr.kind = "attribute";
  assert.equal(attr.kind, "attribute");
  assert.equal(body.attributes[0]!.kind, "attribute");
});

Deno.test("parseHcl() nodes derive ranges from their offsets: named keys, names, braces, spaced dots, and a block without braces", () => {
  const body = ok(
    "m = { k = 1, null = 2, false = 3 }\nb {\n  g = x . y\n  c = fn(1)\n}\n",
  );
  const m = body.attributes[0]!.expr;
  assert.ok(m.kind === "object");
  const keys = m.items.map((i) => i.key);
  assert.deepEqual(keys.map((k) => k.kind), ["variable", "null", "bool"]);
  assert.deepEqual(keys.map((k) => at(k.range)), [
    [[1, 7, 6], [1, 8, 7]],
    [[1, 14, 13], [1, 18, 17]],
    [[1, 24, 23], [1, 29, 28]],
  ]);
  const k = keys[0]!;
  assert.ok(k.kind === "variable" && k.name === "k");
  const b = keys[2]!;
  assert.ok(b.kind === "bool" && b.value === false);
  // A key assigned is kept as it is.
  const other: Expr = { kind: "null", range: k.range };
  m.items[0]!.key = other;
  assert.equal(m.items[0]!.key, other);
  assert.equal(m.items[0]!.keyName, "k");

  const attr = body.attributes[0]!;
  assert.deepEqual(at(attr.nameRange), [[1, 1, 0], [1, 2, 1]]);
  const block = body.blocks[0]!;
  assert.deepEqual(at(block.typeRange), [[2, 1, 35], [2, 2, 36]]);
  assert.deepEqual(at(block.openBraceRange), [[2, 3, 37], [2, 4, 38]]);
  assert.deepEqual(at(block.closeBraceRange), [[5, 1, 63], [5, 2, 64]]);
  const get = block.body.attributes[0]!.expr;
  assert.ok(get.kind === "getattr");
  assert.deepEqual(at(get.nameRange), [[3, 9, 47], [3, 12, 50]]);
  const call = block.body.attributes[1]!.expr;
  assert.ok(call.kind === "call");
  assert.deepEqual(at(call.nameRange), [[4, 7, 57], [4, 9, 59]]);

  // A main range assigned leaves the ranges derived from it where they were.
  attr.range = block.range;
  assert.deepEqual(at(attr.range), at(block.range));
  assert.deepEqual(at(attr.nameRange), [[1, 1, 0], [1, 2, 1]]);
  call.range = attr.range;
  assert.deepEqual(at(call.nameRange), [[4, 7, 57], [4, 9, 59]]);

  // After a syntax error: a block with no brace keeps each range as made.
  const broken = parseHcl('blk "l"\n', "t.hcl").body.blocks[0]!;
  assert.deepEqual(at(broken.typeRange), [[1, 1, 0], [1, 4, 3]]);
  assert.deepEqual(at(broken.openBraceRange), [[1, 1, 0], [1, 4, 3]]);
  assert.deepEqual(at(broken.closeBraceRange), [[1, 1, 0], [1, 4, 3]]);
});

Deno.test("parseHcl() a number's raw text is the literal as written; one assigned is kept", () => {
  const body = ok("a = 1.50e3\nb = [7, 0.25]\n");
  const a = body.attributes[0]!.expr;
  assert.ok(a.kind === "number");
  assert.deepEqual([a.value, a.raw], [1500, "1.50e3"]);
  const b = body.attributes[1]!.expr;
  assert.ok(b.kind === "tuple");
  assert.deepEqual(
    b.items.map((i) => i.kind === "number" ? i.raw : ""),
    ["7", "0.25"],
  );
  a.raw = "1500";
  assert.equal(a.raw, "1500");
  a.range = b.range;
  assert.equal(a.raw, "1500");
});
