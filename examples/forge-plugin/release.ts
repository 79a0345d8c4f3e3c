/**
 * Packs a release of this Deno plugin with goreleaser's names, for the
 * forge: `deno run -A release.ts VERSION [OUT]` bundles `main.ts` into one
 * module (`main.js`), then writes `OUT/<name>_<VERSION>_<os>_<arch>.tar.gz`
 * (plugin.json + main.js; the same bytes for every platform a Deno plugin
 * runs on) and `OUT/<name>_<VERSION>_checksums.txt`. It refuses when
 * plugin.json's version is not VERSION (the kernel refuses such a
 * release). Needs `tar` on PATH.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { join } from "node:path";

/** The platforms a Deno plugin is published for. */
export const PLATFORMS: readonly string[] = [
  "darwin_amd64",
  "darwin_arm64",
  "linux_amd64",
  "linux_arm64",
  "windows_amd64",
];

async function sh(command: string, args: string[]): Promise<void> {
  const r = await new Deno.Command(command, {
    args,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (r.code !== 0) {
    throw new Error(`${command} ${args.join(" ")} exited with ${r.code}`);
  }
}

/**
 * Builds the release assets.
 *
 * @param version The version, without `v`.
 * @param out The output folder.
 * @returns The files written.
 */
export async function packRelease(
  version: string,
  out: string,
): Promise<string[]> {
  const here = new URL(".", import.meta.url).pathname;
  const manifest = JSON.parse(
    await Deno.readTextFile(join(here, "plugin.json")),
  );
  if (manifest.version !== version) {
    throw new Error(
      `plugin.json says version ${manifest.version}, the release is ${version}: bump plugin.json first`,
    );
  }
  const build = await Deno.makeTempDir({ prefix: "plugin-release-" });
  try {
    await Deno.copyFile(join(here, "plugin.json"), join(build, "plugin.json"));
    await sh(Deno.execPath(), [
      "bundle",
      "--quiet",
      "--platform=deno",
      "-o",
      join(build, "main.js"),
      join(here, "main.ts"),
    ]);
    await Deno.mkdir(out, { recursive: true });
    const lines: string[] = [];
    const files: string[] = [];
    for (const p of PLATFORMS) {
      const name = `${manifest.name}_${version}_${p}.tar.gz`;
      await sh("tar", [
        "-czf",
        join(out, name),
        "-C",
        build,
        "plugin.json",
        "main.js",
      ]);
      const bytes = await Deno.readFile(join(out, name));
      lines.push(
        `${createHash("sha256").update(bytes).digest("hex")}  ${name}`,
      );
      files.push(name);
    }
    const sums = `${manifest.name}_${version}_checksums.txt`;
    await Deno.writeTextFile(join(out, sums), lines.join("\n") + "\n");
    files.push(sums);
    return files;
  } finally {
    await Deno.remove(build, { recursive: true });
  }
}

if (import.meta.main) {
  const [version, out = "dist"] = Deno.args;
  if (!version || version.startsWith("v")) {
    console.error("Usage: deno run -A release.ts VERSION [OUT] (no leading v)");
    Deno.exit(2);
  }
  try {
    for (const f of await packRelease(version, out)) console.log(join(out, f));
  } catch (err) {
    console.error((err as Error).message);
    Deno.exit(1);
  }
}
