import assert from "node:assert/strict";
import {
  decodeGlobalConfig,
  globalConfigPath,
  globalConfigToJson,
} from "./global_config.ts";

Deno.test("globalConfigPath() follows XDG_CONFIG_HOME, then ~/.config", () => {
  assert.equal(
    globalConfigPath({ XDG_CONFIG_HOME: "/x", HOME: "/h" }),
    "/x/agent/config.hcl",
  );
  assert.equal(
    globalConfigPath({ XDG_CONFIG_HOME: "", HOME: "/h" }),
    "/h/.config/agent/config.hcl",
  );
  assert.equal(globalConfigPath({}), undefined);
});

Deno.test("decodeGlobalConfig() reads both blocks and refuses repeats and stray content", () => {
  const ok = decodeGlobalConfig(
    'dev_overrides {\n  fs = "/src/fs"\n}\nregistry_mirror {\n  default = "https://d"\n}\n',
    "config.hcl",
    {},
  );
  assert.deepEqual(ok.diagnostics, []);
  assert.deepEqual(ok.config?.registryMirror, {
    default: "https://d",
    mirrors: [],
  });
  const bad = decodeGlobalConfig(
    'dev_overrides {\n}\ndev_overrides {\n}\nregistry_mirror {\n  mirror {\n    url = "u"\n  }\n}\n',
    "config.hcl",
    {},
  );
  assert.deepEqual(bad.diagnostics.map((d) => d.code), [
    "E_DUPLICATE_BLOCK",
    "E_MISSING_ATTR",
    "E_MISSING_ATTR",
  ]);
  assert.equal(bad.config, undefined);
});

Deno.test("decodeGlobalConfig() reads a state block: the URL's variable name, never the URL", () => {
  const { config, diagnostics } = decodeGlobalConfig(
    'state {\n  backend = "postgres"\n  url     = env("TEAM_DB")\n  schema  = "team"\n}\n',
    "/home/me/.config/agent/config.hcl",
    { TEAM_DB: "postgres://u:hunter2@db/agent" },
  );
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(config?.state, {
    backend: "postgres",
    urlEnv: "TEAM_DB",
    schema: "team",
  });
  const json = JSON.stringify(globalConfigToJson(config!));
  assert.match(json, /"state":\{"backend":"postgres","url_env":"TEAM_DB"/);
  assert.doesNotMatch(json, /hunter2/);
});

Deno.test("decodeGlobalConfig() refuses a literal state URL and a bad state block with the global file's line and column, without echoing the URL", () => {
  const file = "/home/me/.config/agent/config.hcl";
  const literal = decodeGlobalConfig(
    'dev_overrides {\n}\nstate {\n  backend = "postgres"\n  url     = "postgres://u:hunter2@db/agent"\n}\n',
    file,
    {},
  );
  assert.equal(literal.config, undefined);
  assert.deepEqual(literal.diagnostics.map((d) => d.code), ["E_SECRET_SHAPE"]);
  const d = literal.diagnostics[0]!;
  assert.equal(d.range?.file, file);
  assert.equal(d.range?.start.line, 5);
  assert.equal(d.range?.start.column, 13);
  assert.doesNotMatch(JSON.stringify(literal.diagnostics), /hunter2/);
  const bad = decodeGlobalConfig(
    'state {\n  backend = "mysql"\n}\nstate {\n}\n',
    file,
    {},
  );
  assert.deepEqual(bad.diagnostics.map((d) => d.code), [
    "E_DUPLICATE_BLOCK",
    "E_INVALID_VALUE",
  ]);
  assert.deepEqual(
    bad.diagnostics.map((d) => [d.range?.file, d.range?.start.line]),
    [[file, 4], [file, 2]],
  );
});
