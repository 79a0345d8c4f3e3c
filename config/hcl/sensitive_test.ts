import assert from "node:assert/strict";
import { formatDiagnostic } from "../../contract/diagnostic.ts";
import { checkSensitiveShape, parseHcl } from "./mod.ts";

function check(src: string) {
  const text = `api_key = ${src}\n`;
  const { body, diagnostics } = parseHcl(text, "agent.hcl");
  assert.deepEqual(diagnostics, [], src);
  return checkSensitiveShape(body.attributes[0]!.expr, {
    place: 'attribute "api_key" of provider "claude"',
  });
}

Deno.test('checkSensitiveShape() accepts exactly env("LITERAL") (config.md §3.3)', async (t) => {
  const table: [string, "accepted" | RegExp][] = [
    ['env("TOKEN")', "accepted"],
    ['env( "TOKEN" )', "accepted"],
    ['env(\n  "TOKEN"\n)', "accepted"],
    ['"sk-live-123"', /literal string here would commit the secret/],
    ['"${env("TOKEN")}"', /on its own, not inside a string template/],
    ['"${env("TOKEN")}-x"', /combines env\(\) with other text/],
    ['"Bearer ${env("TOKEN")}"', /combines env\(\) with other text/],
    ["env(token_name)", /not a reference/],
    ["env(var.token)", /not a reference/],
    ['env("A", "B")', /exactly one argument, but 2 are given/],
    ["env()", /exactly one argument, but 0 are given/],
    ['env(["A"]...)', /not as an expanded list/],
    ['env("TO${"KEN"}")', /without interpolation/],
    ["env(<<EOT\nTOKEN\nEOT\n)", /not as a heredoc/],
    ['coalesce(env("T"), "x")', /call to coalesce\(\) is not allowed here/],
    ['try(env("T"), "x")', /call to try\(\) is not allowed here/],
    ['(env("TOKEN"))', /Remove the parentheses/],
    ["42", /Found a number instead/],
    ["true", /Found a bool instead/],
    ["null", /Found null instead/],
    ['["a"]', /Found a list instead/],
    ['{ k = env("T") }', /Found an object instead/],
    ['true ? env("A") : env("B")', /Found a conditional expression instead/],
    ["<<EOT\nsk-live\nEOT\n", /literal string here would commit the secret/],
  ];
  for (const [src, verdict] of table) {
    await t.step(src.replaceAll("\n", "⏎"), () => {
      const d = check(src);
      if (verdict === "accepted") {
        assert.equal(d, undefined);
        return;
      }
      assert.ok(d, "rejected");
      assert.equal(d.code, "E_SECRET_SHAPE");
      assert.equal(d.severity, "error");
      assert.equal(d.summary, "Invalid sensitive expression");
      assert.match(d.detail!, verdict);
      assert.match(
        d.detail!,
        /^Attribute "api_key" of provider "claude" is sensitive/,
      );
    });
  }
});

Deno.test("checkSensitiveShape() never repeats the literal it rejects", () => {
  const d = check('"sk-live-SECRET-123"')!;
  assert.ok(!JSON.stringify(d).includes("sk-live-SECRET-123"));
  const t = check('"Bearer sk-${env("X")}"')!;
  assert.ok(!JSON.stringify(t).includes("Bearer sk-"));
});

Deno.test("checkSensitiveShape() diagnostics render with the secret masked", () => {
  const text = 'provider "search" {\n  api_key = "sk-live-0123456789"\n}\n';
  const { body } = parseHcl(text, "agent.hcl");
  const d = checkSensitiveShape(body.blocks[0]!.body.attributes[0]!.expr)!;
  assert.equal(d.redactSource, true);
  const out = formatDiagnostic(d, { sources: new Map([["agent.hcl", text]]) });
  assert.ok(!out.includes("sk-live"), out);
  assert.ok(out.includes("2 |   api_key = ********************"), out);
  assert.ok(out.includes("  |             ^^^^^^^^^^^^^^^^^^^^"), out);
});

Deno.test("checkSensitiveShape() points at the offending part", () => {
  const d = check("env(token_name)")!;
  // api_key = env(token_name)
  //               ^^^^^^^^^^
  assert.deepEqual(
    [d.range!.start.line, d.range!.start.column, d.range!.end.column],
    [1, 15, 25],
  );
  const w = check('"${env("T")}"')!;
  assert.deepEqual([w.range!.start.column, w.range!.end.column], [11, 24]);
});

Deno.test("checkSensitiveShape() runs on syntax, without evaluating", () => {
  // An unset variable is not the shape check's business.
  assert.equal(check('env("SURELY_UNSET_VARIABLE_0xdeadbeef")'), undefined);
  // Without a place, the message still reads well.
  const { body } = parseHcl('auth = "x"\n', "config.hcl");
  const d = checkSensitiveShape(body.attributes[0]!.expr)!;
  assert.match(d.detail!, /^This attribute is sensitive/);
});
