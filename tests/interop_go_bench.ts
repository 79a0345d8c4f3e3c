/**
 * Launch to ready of a native Go go-plugin plugin from our kernel (the
 * Go fixtures are built first; skipped where Go is missing).
 */
import { PluginHost } from "../kernel/mod.ts";
import { build, goManifest, PATH, SKIP } from "./_go_build.ts";

if (SKIP) {
  console.error(`interop_go_bench: skipped: ${SKIP}`);
} else {
  const { gotool } = await build();
  const manifest = goManifest();
  const host = new PluginHost({ env: { PATH } });
  // Warm the callback gateway so the figure is per plugin.
  await (await host.launch({ manifest, entrypoint: gotool })).close();

  Deno.bench("launch to ready: native Go go-plugin plugin", {
    group: "launch-go",
    n: 30,
    warmup: 3,
  }, async (b) => {
    b.start();
    const p = await host.launch({ manifest, entrypoint: gotool });
    b.end();
    await p.close();
  });
}
