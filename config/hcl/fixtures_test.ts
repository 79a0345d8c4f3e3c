import assert from "node:assert/strict";
import { parseHcl } from "./mod.ts";
import {
  expectedErrors,
  matchExpected,
  readFixtures,
  semanticCheck,
} from "./_testing.ts";

const valid = readFixtures("valid");
const invalid = readFixtures("invalid");
const semantic = readFixtures("semantic");

Deno.test("fixtures: enough of each kind", () => {
  assert.ok(valid.length >= 15, `${valid.length} valid fixtures`);
  assert.ok(invalid.length >= 20, `${invalid.length} invalid fixtures`);
  assert.ok(semantic.length >= 5, `${semantic.length} semantic fixtures`);
});

Deno.test("parseHcl() accepts every valid fixture, and evaluation is clean", async (t) => {
  for (const f of valid) {
    await t.step(f.path, () => {
      assert.deepEqual(
        expectedErrors(f.text),
        [],
        "valid fixtures carry no markers",
      );
      const { diagnostics, body } = parseHcl(f.text, f.path);
      assert.deepEqual(diagnostics, []);
      assert.deepEqual(semanticCheck(body), []);
    });
  }
});

Deno.test("parseHcl() reports exactly the marked errors in invalid fixtures", async (t) => {
  for (const f of invalid) {
    await t.step(f.path, () => {
      const expected = expectedErrors(f.text);
      assert.ok(expected.length > 0, "an invalid fixture marks its errors");
      const { diagnostics } = parseHcl(f.text, f.path);
      assert.deepEqual(matchExpected(diagnostics, expected), []);
      for (const d of diagnostics) assert.equal(d.code, "E_SYNTAX");
    });
  }
});

Deno.test("evaluation reports exactly the marked errors in semantic fixtures", async (t) => {
  for (const f of semantic) {
    await t.step(f.path, () => {
      const expected = expectedErrors(f.text);
      assert.ok(expected.length > 0, "a semantic fixture marks its errors");
      const { diagnostics, body } = parseHcl(f.text, f.path);
      assert.deepEqual(diagnostics, [], "semantic fixtures are valid HCL");
      assert.deepEqual(matchExpected(semanticCheck(body), expected), []);
    });
  }
});
