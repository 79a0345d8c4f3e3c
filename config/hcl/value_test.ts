import assert from "node:assert/strict";
import { inspect } from "node:util";
import { isSensitive, Secret, toJsonValue, typeName } from "./mod.ts";

Deno.test("Secret never shows its value when printed or serialised", () => {
  const s = new Secret("hunter2");
  assert.equal(String(s), "(sensitive)");
  assert.equal(`${s}`, "(sensitive)");
  assert.equal(JSON.stringify(s), '"(sensitive)"');
  assert.equal(JSON.stringify({ nested: [s] }), '{"nested":["(sensitive)"]}');
  assert.equal(Deno.inspect(s), "Secret((sensitive))");
  assert.equal(Deno.inspect({ s }, { depth: 5 }), "{ s: Secret((sensitive)) }");
  assert.equal(inspect(s), "Secret((sensitive))");
  assert.ok(!Object.keys(s).length, "no enumerable fields");
  assert.equal(s.reveal(), "hunter2");
  assert.equal(s.typeName(), "string");
  // Wrapping a secret does not nest.
  assert.equal(new Secret(s).reveal(), "hunter2");
});

Deno.test("typeName() uses the diagnostic type names", () => {
  assert.equal(typeName("x"), "string");
  assert.equal(typeName(1), "number");
  assert.equal(typeName(false), "bool");
  assert.equal(typeName(null), "null");
  assert.equal(typeName([1]), "list");
  assert.equal(typeName({ a: 1 }), "object");
  assert.equal(typeName(new Secret(3)), "number");
});

Deno.test("toJsonValue() redacts secrets unless asked to reveal them", () => {
  const v = { a: [1, new Secret("k")], b: { c: new Secret({ d: true }) } };
  assert.deepEqual(toJsonValue(v), {
    a: [1, "(sensitive)"],
    b: { c: "(sensitive)" },
  });
  assert.deepEqual(toJsonValue(v, { revealSecrets: true }), {
    a: [1, "k"],
    b: { c: { d: true } },
  });
  assert.equal(isSensitive(v), true);
  assert.equal(isSensitive({ a: [1, "x"] }), false);
});
