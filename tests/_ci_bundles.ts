/**
 * Builds the bundle of every first-party plugin (kernel/process/plugin_bundle.ts)
 * ahead of the tests, as `agent lock` does for a project's builtins. A
 * kernel that launches a builtin whose bundle is missing starts it from its
 * module graph and builds the bundle in the background, one `deno bundle`
 * per plugin (3–4 s of CPU each) in the middle of the tests; `.ci/run`
 * runs this script in the background while it is still fetching (its CPU
 * mostly idle), so that the tests find the bundles built. A build in
 * progress is skipped by a launch (it runs from the module graph), never
 * waited for; a failure here is a warning and the kernel tries again.
 * With `AGENT_PLUGIN_BUNDLES=off` it builds nothing.
 *
 * Usage: `deno run -A tests/_ci_bundles.ts`
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { BUILTINS } from "../plugins/builtin.ts";
import { readManifest } from "../contract/manifest.ts";
import { computeArtifactChecksum } from "../config/checksum.ts";
import { pluginBundlesOf } from "../kernel/process/plugin_bundle.ts";

if (import.meta.main) {
  const { bundles } = pluginBundlesOf(Deno.env.toObject());
  let failed = 0;
  const t0 = performance.now();
  for (const name of bundles ? BUILTINS.names : []) {
    const url = BUILTINS.manifestUrl(name);
    try {
      const manifestPath = fileURLToPath(url);
      const manifest = await readManifest(manifestPath);
      if (manifest.runtime !== "deno") continue;
      const { checksum } = await computeArtifactChecksum(
        manifestPath,
        manifest,
      );
      const source = {
        name,
        checksum,
        manifestPath,
        entrypoint: fileURLToPath(new URL(manifest.entrypoint, url)),
      };
      if (await bundles!.find(source)) continue;
      await bundles!.build(source, { retry: true });
    } catch (err) {
      failed++;
      console.log(
        `ci bundles: builtin/${name} not bundled (the kernel tries again): ${
          err instanceof Error ? err.message : String(err)
        }`,
      );
    }
  }
  bundles?.close();
  console.log(
    `ci bundles: ${
      BUILTINS.names.length - failed
    } of ${BUILTINS.names.length} builtins bundled in ${
      ((performance.now() - t0) / 1000).toFixed(1)
    } s`,
  );
}
