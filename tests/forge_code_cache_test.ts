/**
 * Issue 18: a forge Deno plugin's modules get V8's code cache at install
 * time (kernel/registry/_code_cache.ts), compiled with the plugins' V8
 * flags and never run outside the plugin's sandbox.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { pathToFileURL } from "node:url";
import { warmForgeCodeCache } from "../kernel/registry/_code_cache.ts";

Deno.test("a forge plugin's entry module and its static imports are compiled into the Deno cache's code cache, and none of their code runs", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ph-forge-warm-" });
  try {
    const plugin = join(dir, "plugin");
    await Deno.mkdir(plugin);
    await Deno.writeTextFile(
      join(plugin, "main.js"),
      `import { twice } from "./chunk.js";\nconsole.log("EVALUATED main", twice(2));\n`,
    );
    await Deno.writeTextFile(
      join(plugin, "chunk.js"),
      `console.log("EVALUATED chunk");\nexport const twice = (n) => n * 2;\n`,
    );
    const denoDir = join(dir, "deno");
    const out = await warmForgeCodeCache(
      join(plugin, "main.js"),
      {},
      denoDir,
    );
    assert.doesNotMatch(out, /EVALUATED/, out);
    assert.match(out, /compile only/, out);
    const db = new DatabaseSync(join(denoDir, "v8_code_cache_v2"), {
      readOnly: true,
    });
    try {
      const rows = db.prepare("SELECT specifier FROM codecache").all()
        .map((r) => String(r.specifier));
      for (const f of ["main.js", "chunk.js"]) {
        assert.ok(
          rows.includes(pathToFileURL(join(plugin, f)).href),
          `${f} is in the code cache: ${rows.join(", ")}`,
        );
      }
    } finally {
      db.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
