import assert from "node:assert/strict";
import { join } from "node:path";
import { tempProject } from "./_compile_testing.ts";
import {
  ArtifactError,
  computeArtifactChecksum,
  hostPlatform,
} from "./checksum.ts";
import { parseManifest } from "../contract/manifest.ts";

function manifest(runtime: "deno" | "executable", entrypoint: string) {
  return parseManifest({
    name: "p",
    version: "1.0.0",
    category: "tool",
    protocol_version: 1,
    runtime,
    entrypoint,
  }, "plugin.json");
}

Deno.test("hostPlatform() uses Go's names", () => {
  assert.equal(hostPlatform("linux", "x86_64"), "linux_amd64");
  assert.equal(hostPlatform("windows", "aarch64"), "windows_arm64");
  assert.match(hostPlatform(), /^[a-z]+_[a-z0-9]+$/);
});

Deno.test("computeArtifactChecksum() covers the manifest and every module the plugin runs", async () => {
  const dir = await tempProject({
    "plugin.json": "{}",
    "main.ts": 'import "./lib/a.ts";\n',
    "lib/a.ts": 'import "./b.ts";\nexport const a = 1;\n',
    "lib/b.ts": "export const b = 1;\n",
    "unused.ts": "export const u = 1;\n",
  });
  try {
    const m = manifest("deno", "main.ts");
    const sum = async () =>
      (await computeArtifactChecksum(join(dir, "plugin.json"), m)).checksum;
    const base = await computeArtifactChecksum(join(dir, "plugin.json"), m);
    assert.match(base.checksum, /^sha256:[0-9a-f]{64}$/);
    assert.deepEqual(base.files.map((f) => f.relative), [
      "lib/a.ts",
      "lib/b.ts",
      "main.ts",
      "plugin.json",
    ]);
    // A file outside the graph does not count.
    await Deno.writeTextFile(join(dir, "unused.ts"), "export const u = 2;\n");
    assert.equal(await sum(), base.checksum);
    // Any file in the graph does, however deep.
    for (const f of ["lib/b.ts", "plugin.json", "main.ts"]) {
      const before = await Deno.readTextFile(join(dir, f));
      await Deno.writeTextFile(join(dir, f), before + " ");
      assert.notEqual(await sum(), base.checksum, f);
      await Deno.writeTextFile(join(dir, f), before);
    }
    assert.equal(await sum(), base.checksum);
    // Moving bytes between files changes it too (paths and lengths are hashed).
    await Deno.writeTextFile(
      join(dir, "lib/a.ts"),
      'import "./b.ts";\nexport const a = 1;',
    );
    await Deno.writeTextFile(join(dir, "lib/b.ts"), "\nexport const b = 1;\n");
    assert.notEqual(await sum(), base.checksum);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("computeArtifactChecksum() hashes an executable's binary and manifest, and fails on a broken graph", async () => {
  const dir = await tempProject({
    "plugin.json": "{}",
    "bin/tool": "#!/bin/sh\n",
    "main.ts": 'import "./gone.ts";\n',
  });
  try {
    const exe = await computeArtifactChecksum(
      join(dir, "plugin.json"),
      manifest("executable", "bin/tool"),
    );
    assert.deepEqual(exe.files.map((f) => f.relative), [
      "bin/tool",
      "plugin.json",
    ]);
    await assert.rejects(
      computeArtifactChecksum(
        join(dir, "plugin.json"),
        manifest("deno", "main.ts"),
      ),
      ArtifactError,
    );
    await assert.rejects(
      computeArtifactChecksum(
        join(dir, "plugin.json"),
        manifest("executable", "bin/missing"),
      ),
      ArtifactError,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("computeArtifactChecksum() from a cached module graph equals the one from a fresh graph, also after an import was added", async () => {
  const files = {
    "plugin.json": "{}",
    "main.ts": 'import "./lib/a.ts";\n',
    "lib/a.ts": "export const a = 1;\n",
  };
  const dir = await tempProject(files);
  // The same plugin in another folder: the graph cache is keyed on the
  // entry's path, so its graph is listed afresh.
  const other = await tempProject(files);
  try {
    const m = manifest("deno", "main.ts");
    const sum = (at: string) =>
      computeArtifactChecksum(join(at, "plugin.json"), m);
    const digestOf = (d: Awaited<ReturnType<typeof sum>>) => ({
      checksum: d.checksum,
      files: d.files.map((f) => [f.relative, f.sha256]),
      modules: d.modules,
    });
    const cold = await sum(dir);
    const warm = await sum(dir); // the graph from the cache, validated
    assert.deepEqual(warm, cold);
    for (const f of warm.files) {
      const bytes = await Deno.readFile(f.path);
      const hex = Array.from(
        new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)),
        (b) => b.toString(16).padStart(2, "0"),
      ).join("");
      assert.equal(f.sha256, hex, f.relative);
    }
    // lib/a.ts now imports a new file: the cached graph no longer
    // validates, and the digest covers the new file as a fresh graph does.
    for (const d of [dir, other]) {
      await Deno.writeTextFile(join(d, "lib/c.ts"), "export const c = 1;\n");
      await Deno.writeTextFile(
        join(d, "lib/a.ts"),
        'import "./c.ts";\nexport const a = 1;\n',
      );
    }
    const changed = await sum(dir);
    assert.deepEqual(changed.files.map((f) => f.relative), [
      "lib/a.ts",
      "lib/c.ts",
      "main.ts",
      "plugin.json",
    ]);
    assert.notEqual(changed.checksum, cold.checksum);
    assert.deepEqual(digestOf(await sum(other)), digestOf(changed));
    assert.deepEqual(await sum(dir), changed);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(other, { recursive: true });
  }
});
