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
import { BUILTINS } from "../plugins/builtin.ts";
import { bundleBuiltins } from "../cli/commands/lock.ts";
import { processIo } from "../cli/commands/io.ts";
import { pluginBundlesOf } from "../kernel/process/plugin_bundle.ts";

if (import.meta.main && pluginBundlesOf(Deno.env.toObject()).bundles) {
  const io = processIo();
  let failed = 0;
  const t0 = performance.now();
  await bundleBuiltins(BUILTINS.names.map((name) => `builtin/${name}`), {
    ...io,
    stderr: (text: string) => {
      if (text.startsWith("warning:")) failed++;
      io.stderr(text);
    },
  });
  console.log(
    `ci bundles: ${
      BUILTINS.names.length - failed
    } of ${BUILTINS.names.length} builtins bundled or already built in ${
      ((performance.now() - t0) / 1000).toFixed(1)
    } s`,
  );
}
