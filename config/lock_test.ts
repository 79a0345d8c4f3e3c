import assert from "node:assert/strict";
import { join } from "node:path";
import { COMPILE_FIXTURES, tempProject } from "./_compile_testing.ts";
import { lockConfig } from "./lock.ts";
import { parseLockFile } from "./lock_file.ts";
import { BUILTINS } from "../plugins/builtin.ts";

const CTX_DIR = join(COMPILE_FIXTURES, "_plugins", "ctx");
const CONFIG = `required_providers {
  readme = { source = ${JSON.stringify(CTX_DIR)}, version = "0.3.0" }
}

provider "readme" {
  allow_read = ["."]
}
`;

Deno.test("lockConfig() writes a deterministic file and keeps resolved_at when nothing changed", async () => {
  const dir = await tempProject({ "agent.hcl": CONFIG });
  try {
    const first = await lockConfig(dir, {
      builtins: BUILTINS,
      globalConfig: null,
      now: new Date("2026-01-01T00:00:00.123Z"),
    });
    assert.ok(first.ok);
    assert.ok(first.changed);
    assert.deepEqual(first.changes.map((c) => [c.name, c.status]), [[
      "readme",
      "locked",
    ]]);
    const text = await Deno.readTextFile(join(dir, ".agent", "agent.lock.hcl"));
    assert.match(text, /resolved_at = "2026-01-01T00:00:00Z"/);
    const entry = parseLockFile(text, "l").lock!.providers.get("readme")!;
    assert.deepEqual(entry.envelope?.read, ["."]);
    assert.deepEqual(entry.configSchema?.map((a) => a.name), [
      "files",
      "token_budget",
    ]);
    const again = await lockConfig(dir, {
      builtins: BUILTINS,
      globalConfig: null,
      now: new Date("2027-06-06T00:00:00Z"),
    });
    assert.ok(again.ok);
    assert.equal(again.changed, false);
    assert.deepEqual(again.changes.map((c) => c.status), ["unchanged"]);
    assert.equal(
      await Deno.readTextFile(join(dir, ".agent", "agent.lock.hcl")),
      text,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("lockConfig() keeps a forge provider's entry and refuses one it cannot resolve", async () => {
  const forge =
    'required_providers {\n  claude = { source = "github.com/acme/claude", version = "~> 2.0" }\n}\n';
  const entry =
    'lock_file_version = 1\nprovider "claude" {\n  source = "github.com/acme/claude"\n  version = "2.3.1"\n  resolved_at = "2026-01-01T00:00:00Z"\n  checksums = {\n    "linux_amd64" = "sha256:' +
    "1".repeat(64) + '"\n  }\n}\n';
  const dir = await tempProject({
    "agent.hcl": forge,
    ".agent/agent.lock.hcl": entry,
  });
  try {
    const kept = await lockConfig(dir, {
      builtins: BUILTINS,
      globalConfig: null,
      dryRun: true,
    });
    assert.ok(kept.ok);
    assert.deepEqual(kept.changes.map((c) => [c.name, c.status, c.version]), [[
      "claude",
      "kept",
      "2.3.1",
    ]]);
    await Deno.writeTextFile(
      join(dir, "agent.hcl"),
      forge.replace("~> 2.0", "~> 3.0"),
    );
    const refused = await lockConfig(dir, {
      builtins: BUILTINS,
      globalConfig: null,
      dryRun: true,
    });
    assert.equal(refused.ok, false);
    assert.deepEqual(refused.diagnostics.map((d) => d.code), [
      "E_PROVIDER_NOT_LOCKED",
    ]);
    assert.match(refused.diagnostics[0]!.detail!, /needs the network/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("lockConfig() refuses an invalid configuration, but not an unset env()", async () => {
  const dir = await tempProject({ "agent.hcl": CONFIG + "\nbogus {\n}\n" });
  try {
    const r = await lockConfig(dir, {
      builtins: BUILTINS,
      globalConfig: null,
      dryRun: true,
    });
    assert.equal(r.ok, false);
    assert.deepEqual(r.diagnostics.map((d) => d.code), ["E_UNKNOWN_BLOCK"]);
    await Deno.writeTextFile(
      join(dir, "agent.hcl"),
      CONFIG.replace(
        'allow_read = ["."]',
        'allow_read = ["."]\n  files = [env("LOCK_TEST_UNSET")]',
      ),
    );
    assert.ok(
      (await lockConfig(dir, {
        builtins: BUILTINS,
        globalConfig: null,
        env: {},
        dryRun: true,
      })).ok,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("lockConfig() locks a provider named like an Object.prototype member; only a real dev override is kept", async () => {
  const dir = await tempProject({
    "agent.hcl": `required_providers {\n${
      ["toString", "constructor", "dev"].map((n) =>
        `  ${n} = { source = "builtin/echo", version = "~> 0.1" }\n`
      ).join("")
    }}\n`,
    "global.hcl": `dev_overrides {\n  dev = ${
      JSON.stringify(new URL("../plugins/echo", import.meta.url).pathname)
    }\n}\n`,
  });
  try {
    const r = await lockConfig(dir, {
      builtins: BUILTINS,
      globalConfig: join(dir, "global.hcl"),
    });
    assert.ok(r.ok);
    assert.deepEqual(
      r.changes.map((c) => [c.name, c.status]).sort(),
      [["constructor", "locked"], ["dev", "kept"], ["toString", "locked"]],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
