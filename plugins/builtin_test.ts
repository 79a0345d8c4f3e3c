/**
 * `builtin_checksums.json` must hold, for every first-party plugin, the
 * digest a checkout computes for it: a registry run reports exactly these
 * values to the lock file. `UPDATE_GOLDEN=1` (deno task test:update)
 * rewrites the table, as it re-locks the examples.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { computeArtifactChecksum } from "../config/checksum.ts";
import { readManifest } from "../contract/manifest.ts";
import {
  BUILTIN_CHECKSUMS_FILE,
  BUILTIN_PLUGIN_NAMES,
  builtinChecksum,
} from "./builtin.ts";

async function checkoutDigests(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of BUILTIN_PLUGIN_NAMES) {
    const path = fileURLToPath(
      new URL(`./${name}/plugin.json`, import.meta.url),
    );
    const { checksum } = await computeArtifactChecksum(
      path,
      await readManifest(path),
    );
    out[name] = checksum;
  }
  return out;
}

Deno.test("builtin_checksums.json records each first-party plugin's checkout digest", async () => {
  const digests = await checkoutDigests();
  const file = new URL(`./${BUILTIN_CHECKSUMS_FILE}`, import.meta.url);
  if (Deno.env.get("UPDATE_GOLDEN") === "1") {
    await Deno.writeTextFile(
      file,
      JSON.stringify({ format: 1, checksums: digests }, null, 2) + "\n",
    );
  }
  const table = JSON.parse(await Deno.readTextFile(file));
  assert.deepEqual(
    table,
    { format: 1, checksums: digests },
    `${BUILTIN_CHECKSUMS_FILE} is stale: run UPDATE_GOLDEN=1 ./denow test -A plugins/builtin_test.ts`,
  );
  // What the module loaded (before a rewrite, when updating).
  if (Deno.env.get("UPDATE_GOLDEN") !== "1") {
    for (const name of BUILTIN_PLUGIN_NAMES) {
      assert.equal(builtinChecksum(name), digests[name]);
    }
  }
});

Deno.test("builtinChecksum() has no entry for a name that is not a first-party plugin", () => {
  assert.equal(builtinChecksum("toString"), undefined);
  assert.equal(builtinChecksum("nope"), undefined);
});
