import assert from "node:assert/strict";
import { decodeGlobalConfig, globalConfigPath } from "./global_config.ts";

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
