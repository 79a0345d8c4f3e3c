import assert from "node:assert/strict";
import { resolve } from "node:path";
import { resolvePermissions } from "../contract/permissions.ts";
import type { CapabilityEnvelope } from "../contract/manifest.ts";
import { BUILTIN_PLUGIN_NAMES } from "../plugins/builtin.ts";
import { defaultInstallationKeyPath } from "../kernel/state/installation_key.ts";

function covers(root: string, path: string): boolean {
  const r = resolve(root);
  return path === r || path.startsWith(r.endsWith("/") ? r : `${r}/`);
}

Deno.test("defect 8: no builtin plugin's default grant covers the installation key (plugins never get the data dir)", async () => {
  const env = { HOME: "/home/op", XDG_DATA_HOME: "/home/op/.local/share" };
  const key = defaultInstallationKeyPath((k) => env[k as keyof typeof env]);
  assert.equal(key, "/home/op/.local/share/agent/installation.key");
  assert.ok(BUILTIN_PLUGIN_NAMES.length > 5);
  for (const name of BUILTIN_PLUGIN_NAMES) {
    const manifest = JSON.parse(
      await Deno.readTextFile(
        new URL(`../plugins/${name}/plugin.json`, import.meta.url),
      ),
    ) as { capabilities: CapabilityEnvelope };
    // The default grant is empty: a provider block without allow_* lines.
    const { effective } = resolvePermissions(manifest.capabilities, {}, {
      cwd: "/home/op/project",
      env,
    });
    for (const p of [...effective.read, ...effective.write]) {
      assert.ok(
        !covers(p, key),
        `plugin "${name}" gets ${p}, which covers the installation key`,
      );
    }
  }
});
