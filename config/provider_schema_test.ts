import assert from "node:assert/strict";
import { parseHcl, Secret, toJsonValue } from "./hcl/mod.ts";
import {
  type ConfigAttributeSpec,
  decodeProviderBody,
  validateConfigSchema,
} from "./provider_schema.ts";

function attr(
  name: string,
  type: ConfigAttributeSpec["type"],
  extra: Partial<ConfigAttributeSpec> = {},
): ConfigAttributeSpec {
  return {
    name,
    type,
    required: false,
    sensitive: false,
    description: "",
    objectAttributes: [],
    ...extra,
  };
}

function decode(
  body: string,
  schema: ConfigAttributeSpec[],
  env: Record<string, string> = {},
) {
  const { body: parsed, diagnostics } = parseHcl(body, "agent.hcl");
  assert.deepEqual(diagnostics, []);
  return decodeProviderBody(parsed, schema, { provider: "p", env });
}

Deno.test("validateConfigSchema() accepts a valid schema", () => {
  assert.deepEqual(
    validateConfigSchema([
      attr("a", "string", { defaultJson: '"x"' }),
      attr("b", "list(number)", { defaultJson: "[1]" }),
      attr("o", "object", {
        objectAttributes: [attr("k", "bool", { defaultJson: "true" })],
        defaultJson: '{"k": false}',
      }),
    ], { provider: "p" }),
    [],
  );
});

Deno.test("validateConfigSchema() applies the rules recursively and reports each problem", () => {
  const ds = validateConfigSchema([
    attr("o", "object", {
      objectAttributes: [
        attr("inner", "object"),
        attr("secret", "string", { sensitive: true, defaultJson: '"s"' }),
        attr("inner", "number"),
      ],
    }),
    attr("bad name", "string"),
  ], { provider: "p", origin: "plugins/p/plugin.json" });
  const details = ds.map((d) => d.detail!.split(":")[0]);
  assert.deepEqual(details, [
    'Attribute "o.inner" (from plugins/p/plugin.json)',
    'Attribute "o.secret" (from plugins/p/plugin.json)',
    'Attribute "o.inner" (from plugins/p/plugin.json)',
    'Attribute "bad name" (from plugins/p/plugin.json)',
  ]);
  assert.ok(ds.every((d) => d.code === "E_SCHEMA_INVALID"));
});

Deno.test("decodeProviderBody() converts values as cty does", () => {
  const r = decode(
    'n = "4000"\ns = 7\nb = "true"\nl = [1, "2"]\nm = { a = 1, b = true }\nln = ["3", 4]\n',
    [
      attr("n", "number"),
      attr("s", "string"),
      attr("b", "bool"),
      attr("l", "list(string)"),
      attr("m", "map(string)"),
      attr("ln", "list(number)"),
    ],
  );
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(r.config, {
    n: 4000,
    s: "7",
    b: true,
    l: ["1", "2"],
    m: { a: "1", b: "true" },
    ln: [3, 4],
  });
});

Deno.test("decodeProviderBody() keeps a map(string) of string literals as written, in key order", () => {
  const r = decode(
    'm = ({ z = "1", "__proto__" = "p", a = "2" })\n' +
      'o = { e = { k = "v" }, f = { k = 1 } }\n' +
      'n = { a = "x", b = 2 }\n',
    [
      attr("m", "map(string)"),
      attr("o", "object", {
        objectAttributes: [attr("e", "map(string)"), attr("f", "map(string)")],
      }),
      attr("n", "map(string)"),
    ],
  );
  assert.deepEqual(r.diagnostics, []);
  const m = r.config!.m as Record<string, unknown>;
  assert.deepEqual(Object.keys(m), ["z", "__proto__", "a"]);
  assert.ok(Object.hasOwn(m, "__proto__"));
  assert.equal(Object.getPrototypeOf(m), Object.prototype);
  assert.equal(
    JSON.stringify(r.config),
    '{"m":{"z":"1","__proto__":"p","a":"2"},"o":{"e":{"k":"v"},"f":{"k":"1"}},"n":{"a":"x","b":"2"}}',
  );
});

Deno.test("decodeProviderBody() applies defaults and zero values, in schema order", () => {
  const r = decode("", [
    attr("s", "string"),
    attr("n", "number"),
    attr("b", "bool"),
    attr("l", "list(string)"),
    attr("m", "map(string)"),
    attr("o", "object", { objectAttributes: [attr("k", "string")] }),
    attr("d", "list(number)", { defaultJson: "[1, 2]" }),
  ]);
  assert.deepEqual(r.config, {
    s: "",
    n: 0,
    b: false,
    l: [],
    m: {},
    o: {},
    d: [1, 2],
  });
  // null counts as omitted for an optional attribute.
  assert.deepEqual(
    decode("s = null\n", [attr("s", "string", { defaultJson: '"d"' })]).config,
    { s: "d" },
  );
});

Deno.test("decodeProviderBody() keeps env() values secret, converted", () => {
  const r = decode('port = env("PORT")\n', [attr("port", "number")], {
    PORT: "8080",
  });
  const port = r.config!.port;
  assert.ok(port instanceof Secret);
  assert.equal(port.reveal(), 8080);
  assert.deepEqual(toJsonValue(r.config!), { port: "(sensitive)" });
});

Deno.test("decodeProviderBody() reports every problem, naming types and never values", () => {
  const r = decode(
    'n = "abc"\nb = "maybe"\nl = "x"\no = { k = 1, extra = 2 }\nunknown = 1\nblk {\n}\n',
    [
      attr("n", "number"),
      attr("b", "bool"),
      attr("l", "list(string)"),
      attr("o", "object", {
        objectAttributes: [
          attr("k", "string"),
          attr("r", "string", { required: true }),
        ],
      }),
      attr("req", "string", { required: true, description: "Needed." }),
    ],
  );
  assert.equal(r.config, undefined);
  assert.deepEqual(r.diagnostics.map((d) => d.code), [
    "E_UNKNOWN_ATTR",
    "E_UNKNOWN_BLOCK",
    "E_INVALID_VALUE",
    "E_INVALID_VALUE",
    "E_INVALID_VALUE",
    "E_UNKNOWN_ATTR",
    "E_MISSING_ATTR",
    "E_MISSING_ATTR",
  ]);
  assert.ok(!JSON.stringify(r.diagnostics).includes("abc"));
  assert.ok(!JSON.stringify(r.diagnostics).includes("maybe"));
  assert.match(r.diagnostics.at(-1)!.detail!, /\(Needed\)/);
});

Deno.test("decodeProviderBody() skips the grant attributes (they belong to the kernel)", () => {
  const r = decode('allow_env = ["X"]\nallow_net = ["h"]\n', []);
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(r.config, {});
});
