import assert from "node:assert/strict";
import { lex, T, type TokenType } from "./_lexer.ts";

const NAMES = new Map<number, string>(
  Object.entries(T).map(([k, v]) => [v as number, k]),
);

/** "Type:text" for every token but the final EOF. */
function tokens(text: string): string[] {
  const { tokens } = lex(text);
  assert.equal(tokens.at(-1)!.type, T.EOF);
  return tokens.slice(0, -1).map((t) =>
    `${NAMES.get(t.type)}:${text.slice(t.start, t.end)}`
  );
}

function types(text: string): TokenType[] {
  return lex(text).tokens.map((t) => t.type);
}

Deno.test("lex() scans identifiers with dashes, numbers and operators", () => {
  assert.deepEqual(tokens("md-reader = 1.5e3 + x_1"), [
    "Ident:md-reader",
    "Equal:=",
    "NumberLit:1.5e3",
    "Plus:+",
    "Ident:x_1",
  ]);
  assert.deepEqual(tokens("a==b!=c<=d>=e&&f||!g=>h...i?j:k%l"), [
    "Ident:a",
    "EqualOp:==",
    "Ident:b",
    "NotEqual:!=",
    "Ident:c",
    "LessThanEq:<=",
    "Ident:d",
    "GreaterThanEq:>=",
    "Ident:e",
    "And:&&",
    "Ident:f",
    "Or:||",
    "Bang:!",
    "Ident:g",
    "FatArrow:=>",
    "Ident:h",
    "Ellipsis:...",
    "Ident:i",
    "Question:?",
    "Ident:j",
    "Colon::",
    "Ident:k",
    "Percent:%",
    "Ident:l",
  ]);
});

Deno.test("lex() reads number literals as hashicorp/hcl does", async (t) => {
  const cases: [string, string[]][] = [
    ["1", ["NumberLit:1"]],
    ["007", ["NumberLit:007"]],
    ["2.50", ["NumberLit:2.50"]],
    ["1e3", ["NumberLit:1e3"]],
    ["1E-3", ["NumberLit:1E-3"]],
    ["1.e5", ["NumberLit:1.e5"]],
    ["1.", ["NumberLit:1", "Dot:."]],
    ["1e", ["NumberLit:1", "Ident:e"]],
    ["1.2.3", ["NumberLit:1.2.3"]], // one token, rejected by the parser
    ["x.0", ["Ident:x", "Dot:.", "NumberLit:0"]],
    ["1...", ["NumberLit:1", "Ellipsis:..."]],
  ];
  for (const [text, want] of cases) {
    await t.step(text, () => assert.deepEqual(tokens(text), want));
  }
});

Deno.test("lex() turns line-ending comments into newlines and drops others", () => {
  assert.deepEqual(tokens("a # c\nb // d\nc /* e\n f */ d"), [
    "Ident:a",
    "Newline:# c\n",
    "Ident:b",
    "Newline:// d\n",
    "Ident:c",
    "Ident:d",
  ]);
  // A comment at the very end has no newline to stand for.
  assert.deepEqual(tokens("a # end"), ["Ident:a"]);
  // An unterminated block comment is just a slash and a star.
  assert.deepEqual(tokens("/* x"), ["Slash:/", "Star:*", "Ident:x"]);
});

Deno.test("lex() treats CRLF as one newline and skips a byte order mark", () => {
  assert.deepEqual(tokens("\uFEFFa\r\nb"), [
    "Ident:a",
    "Newline:\r\n",
    "Ident:b",
  ]);
  assert.deepEqual(tokens("a\rb"), ["Ident:a", "Invalid:\r", "Ident:b"]);
});

Deno.test("lex() splits quoted templates into literals and sequences", () => {
  assert.deepEqual(tokens('"a${x}b%{if y}c%{endif}"'), [
    'OQuote:"',
    "QuotedLit:a",
    "TemplateInterp:${",
    "Ident:x",
    "TemplateSeqEnd:}",
    "QuotedLit:b",
    "TemplateControl:%{",
    "Ident:if",
    "Ident:y",
    "TemplateSeqEnd:}",
    "QuotedLit:c",
    "TemplateControl:%{",
    "Ident:endif",
    "TemplateSeqEnd:}",
    'CQuote:"',
  ]);
});

Deno.test("lex() keeps $${ and %%{ escapes as one literal token each", () => {
  assert.deepEqual(tokens('"$${x}%%{y}$$${z}"'), [
    'OQuote:"',
    "QuotedLit:$${",
    "QuotedLit:x}",
    "QuotedLit:%%{",
    "QuotedLit:y}",
    "QuotedLit:$",
    "QuotedLit:$${",
    "QuotedLit:z}",
    'CQuote:"',
  ]);
  // A backslash escape stays inside its literal; a lone "$" is its own token.
  assert.deepEqual(tokens('"a\\"$\\"b"'), [
    'OQuote:"',
    'QuotedLit:a\\"',
    "QuotedLit:$",
    'QuotedLit:\\"b',
    'CQuote:"',
  ]);
});

Deno.test("lex() tells a brace closing an interpolation from an object's", () => {
  assert.deepEqual(types('"${ {a = 1}.a }"'), [
    T.OQuote,
    T.TemplateInterp,
    T.OBrace,
    T.Ident,
    T.Equal,
    T.NumberLit,
    T.CBrace,
    T.Dot,
    T.Ident,
    T.TemplateSeqEnd,
    T.CQuote,
    T.EOF,
  ]);
  assert.deepEqual(tokens('"${~x~}"'), [
    'OQuote:"',
    "TemplateInterp:${~",
    "Ident:x",
    "TemplateSeqEnd:~}",
    'CQuote:"',
  ]);
});

Deno.test("lex() scans heredocs line by line and finds the closing marker", () => {
  assert.deepEqual(tokens("a = <<EOT\nline ${x}\n  EOT\nb = 1\n"), [
    "Ident:a",
    "Equal:=",
    "OHeredoc:<<EOT\n",
    "StringLit:line ",
    "TemplateInterp:${",
    "Ident:x",
    "TemplateSeqEnd:}",
    "StringLit:\n",
    "CHeredoc:  EOT",
    "Newline:\n",
    "Ident:b",
    "Equal:=",
    "NumberLit:1",
    "Newline:\n",
  ]);
  // The marker must be alone on its line, and must end with a newline.
  assert.deepEqual(tokens("<<-X\nX y\nX"), [
    "OHeredoc:<<-X\n",
    "StringLit:X y\n",
    "StringLit:X",
  ]);
});

Deno.test("lex() reports characters that never belong in HCL", () => {
  const { problems } = lex("a = 'x' ; `y` & ~z \u201cq\u201d \\");
  assert.deepEqual(problems.map((p) => p.summary), [
    "Invalid character", // '
    "Invalid character", // ;
    "Invalid character", // `
    "Unsupported operator", // &
    "Unsupported operator", // ~
    "Invalid character", // “
    "Invalid character", // ”
    "Invalid character", // \
  ]);
  assert.match(problems[5]!.detail, /Curly quotes/);
  assert.deepEqual(lex('"a\nb"').problems.map((p) => p.summary), [
    "Invalid multi-line string",
  ]);
});

Deno.test("lex() always makes progress and ends with EOF", () => {
  for (
    const text of [
      "",
      "\\",
      "$",
      "%{",
      "${",
      '"',
      "<<",
      "<<EOF",
      "<<EOF\n",
      "~}",
      "}}}",
      "\r",
    ]
  ) {
    const { tokens: toks } = lex(text);
    assert.equal(toks.at(-1)!.type, T.EOF, JSON.stringify(text));
    for (const t of toks.slice(0, -1)) {
      assert.ok(t.end > t.start, JSON.stringify(text));
    }
  }
});
