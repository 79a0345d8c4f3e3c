import assert from "node:assert/strict";
import { ManifestError, parseManifest, readManifest } from "./manifest.ts";

const valid = {
  name: "echo",
  version: "0.1.0",
  category: "tool",
  protocol_version: 1,
  runtime: "deno",
  entrypoint: "main.ts",
  capabilities: { env: ["TOKEN"], run: ["git"] },
};

Deno.test("parseManifest() returns a typed manifest with empty lists filled in", () => {
  assert.deepEqual(parseManifest(valid, "plugin.json"), {
    name: "echo",
    version: "0.1.0",
    category: "tool",
    protocolVersion: 1,
    runtime: "deno",
    entrypoint: "main.ts",
    capabilities: {
      env: ["TOKEN"],
      run: ["git"],
      read: [],
      write: [],
      net: [],
    },
  });
});

Deno.test("parseManifest() reports every problem, naming file and field", () => {
  assert.throws(
    () =>
      parseManifest(
        {
          ...valid,
          name: "Bad Name",
          version: "1.0",
          category: "llm",
          protocol_version: 2,
          extra: 1,
        },
        "x/plugin.json",
      ),
    (e: unknown) => {
      assert.ok(e instanceof ManifestError);
      assert.equal(e.file, "x/plugin.json");
      assert.match(e.message, /^Invalid plugin manifest "x\/plugin.json"/);
      assert.deepEqual(e.problems, [
        'unknown field "extra"',
        '"name" "Bad Name" must match [a-z][a-z0-9_-]*',
        '"version" "1.0" is not a semantic version',
        '"category" "llm" must be one of model, tool, context, memory, frontend, widget, slashcommand',
        '"protocol_version" must be 1, got 2',
      ]);
      return true;
    },
  );
});

Deno.test("parseManifest() rejects commas, bad env names and unknown capability kinds", () => {
  try {
    parseManifest({
      ...valid,
      capabilities: { env: ["A-B"], read: ["/a,b"], sudo: [] },
    }, "m.json");
    assert.fail("expected an error");
  } catch (e) {
    assert.ok(e instanceof ManifestError);
    assert.deepEqual(e.problems, [
      'unknown field "capabilities.sudo"',
      '"capabilities.env" entry "A-B" is not a variable name',
      '"capabilities.read" entry "/a,b" must not contain a comma',
    ]);
  }
});

Deno.test('parseManifest() takes an optional run entry ("rg?") and rejects a misplaced "?"', () => {
  const ok = parseManifest({
    ...valid,
    capabilities: { run: ["rg?", "git"] },
  }, "m.json");
  assert.deepEqual(ok.capabilities.run, ["rg?", "git"]);
  try {
    parseManifest({
      ...valid,
      capabilities: { run: ["?", "r?g", "rg??"] },
    }, "m.json");
    assert.fail("expected an error");
  } catch (e) {
    assert.ok(e instanceof ManifestError);
    assert.deepEqual(e.problems, [
      '"capabilities.run" entry "?" may end in one "?" (optional) after a program name',
      '"capabilities.run" entry "r?g" may end in one "?" (optional) after a program name',
      '"capabilities.run" entry "rg??" may end in one "?" (optional) after a program name',
    ]);
  }
});

Deno.test("readManifest() names the file when it is missing or not JSON", async () => {
  await assert.rejects(
    readManifest("/nonexistent/plugin.json"),
    /"\/nonexistent\/plugin.json".*cannot read the file/s,
  );
  const tmp = await Deno.makeTempFile({ suffix: ".json" });
  try {
    await Deno.writeTextFile(tmp, "{not json");
    await assert.rejects(readManifest(tmp), /not valid JSON/);
  } finally {
    await Deno.remove(tmp);
  }
});

Deno.test("the example plugin's manifest is valid", async () => {
  const m = await readManifest(
    new URL("../plugins/echo/plugin.json", import.meta.url),
  );
  assert.equal(m.name, "echo");
  assert.equal(m.category, "tool");
});

Deno.test("parseManifest() reads a config schema and checks its rules", () => {
  const m = parseManifest({
    ...valid,
    config_schema: [
      { name: "api_key", type: "string", required: true, sensitive: true },
      { name: "retries", type: "number", default: 3 },
      {
        name: "tls",
        type: "object",
        attributes: [{ name: "ca", type: "string" }],
      },
    ],
  }, "p.json");
  assert.deepEqual(
    m.configSchema?.map((
      a,
    ) => [a.name, a.type, a.required, a.sensitive, a.defaultJson]),
    [
      ["api_key", "string", true, true, undefined],
      ["retries", "number", false, false, "3"],
      ["tls", "object", false, false, undefined],
    ],
  );
  assert.equal(m.configSchema?.[2]?.objectAttributes[0]?.name, "ca");
  assert.throws(
    () =>
      parseManifest({
        ...valid,
        config_schema: [
          { name: "key", type: "string", sensitive: true, default: "hunter2" },
          { name: "obj", type: "object" },
          { name: "n", type: "integer" },
          { name: "s", type: "string", attributes: [] },
        ],
      }, "p.json"),
    (e: unknown) => {
      assert.ok(e instanceof ManifestError);
      assert.deepEqual(e.problems, [
        '"config_schema[0].default" is not allowed on a sensitive attribute',
        '"config_schema[1]" is an object and needs "attributes"',
        '"config_schema[2].type" must be one of string, number, bool, list(string), list(number), map(string), object, got "integer"',
        '"config_schema[3].attributes" is only allowed for type "object"',
      ]);
      return true;
    },
  );
});

Deno.test("configSchemaOf() advertises the manifest's schema, nested attributes included", async () => {
  const { configSchemaOf } = await import("../plugins/sdk/config_schema.ts");
  const m = parseManifest({
    ...valid,
    config_schema: [
      { name: "retries", type: "number", default: 3 },
      {
        name: "tls",
        type: "object",
        attributes: [{ name: "ca", type: "string", required: true }],
      },
    ],
  }, "p.json");
  assert.deepEqual(configSchemaOf(m), {
    attributes: [
      {
        name: "retries",
        type: 2,
        required: false,
        sensitive: false,
        description: "",
        objectAttributes: [],
        defaultJson: "3",
      },
      {
        name: "tls",
        type: 7,
        required: false,
        sensitive: false,
        description: "",
        objectAttributes: [{
          name: "ca",
          type: 1,
          required: true,
          sensitive: false,
          description: "",
          objectAttributes: [],
        }],
      },
    ],
  });
});

Deno.test('parseManifest() keeps a tool\'s "subagents": true and rejects a non-boolean', () => {
  const m = parseManifest({
    ...valid,
    tools: [
      { name: "spawn", kind: "data_source", risk: "low", subagents: true },
      {
        name: "peek",
        kind: "data_source",
        risk: "read_only",
        subagents: false,
      },
    ],
  }, "plugin.json");
  assert.deepEqual(m.tools, [
    { name: "spawn", kind: "data_source", risk: "low", subagents: true },
    { name: "peek", kind: "data_source", risk: "read_only" },
  ]);
  assert.throws(
    () =>
      parseManifest({
        ...valid,
        tools: [{ name: "s", kind: "data_source", risk: "low", subagents: 1 }],
      }, "x/plugin.json"),
    (e: unknown) =>
      e instanceof ManifestError && e.file === "x/plugin.json" &&
      e.problems.includes('"tools[0].subagents" must be true or false'),
  );
});

Deno.test('parseManifest() accepts "terminal": true on a frontend only, and a boolean only', () => {
  const frontend = { ...valid, category: "frontend" };
  assert.equal(
    parseManifest({ ...frontend, terminal: true }, "plugin.json").terminal,
    true,
  );
  assert.equal(
    parseManifest({ ...frontend, terminal: false }, "plugin.json").terminal,
    undefined,
  );
  assert.throws(
    () => parseManifest({ ...valid, terminal: true }, "plugin.json"),
    /"terminal" is for frontend plugins only \(this is a tool plugin\)/,
  );
  assert.throws(
    () => parseManifest({ ...frontend, terminal: "yes" }, "plugin.json"),
    /"terminal" must be true or false/,
  );
});
