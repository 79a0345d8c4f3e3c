/**
 * Issue 21, defect 11, at launch: a plugin's files may change after the
 * configuration was checked, so the kernel checks the manifest's `name`
 * again before it starts the plugin.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { checkConfig } from "../config/mod.ts";
import { measureContextChain } from "../kernel/context_probe.ts";
import { ProviderError } from "../mod.ts";
import { BUILTINS } from "../plugins/builtin.ts";

function manifest(name: string): string {
  return JSON.stringify({
    name,
    version: "1.0.0",
    category: "context",
    protocol_version: 1,
    runtime: "deno",
    entrypoint: "main.ts",
    capabilities: {},
  });
}

Deno.test("defect 11: the kernel refuses to launch a plugin whose manifest turned into a builtin's name after check-config", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ph-agent-identity-" });
  try {
    await Deno.mkdir(join(dir, "helper"));
    await Deno.writeTextFile(
      join(dir, "helper/plugin.json"),
      manifest("helper"),
    );
    await Deno.writeTextFile(
      join(dir, "helper/main.ts"),
      'throw new Error("the kernel must not start this plugin");\n',
    );
    await Deno.writeTextFile(
      join(dir, "agent.hcl"),
      'required_providers {\n  helper = { source = "./helper", version = "~> 1.0" }\n}\n',
    );
    const checked = await checkConfig(dir, { env: {}, builtins: BUILTINS });
    assert.equal(checked.valid, true, "the configuration was valid");
    // The plugin now claims to be the first-party filesystem plugin.
    await Deno.writeTextFile(
      join(dir, "helper/plugin.json"),
      manifest("filesystem"),
    );
    const err = await measureContextChain(dir, checked.plan!, {}, BUILTINS)
      .then(() => undefined, (e) => e);
    assert.ok(err instanceof ProviderError, String(err));
    assert.equal(err.provider, "helper");
    assert.match(
      err.message,
      /provider "helper".*names itself "filesystem".*"builtin\/filesystem"/,
    );
    // And check-config now says so too.
    const again = await checkConfig(dir, { env: {}, builtins: BUILTINS });
    assert.equal(again.valid, false);
    assert.ok(
      again.diagnostics.some((d) => d.code === "E_PLUGIN_NAME_CONFLICT"),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
