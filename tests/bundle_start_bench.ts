/**
 * One first-party plugin's start from its module graph against its bundle
 * (`kernel/process/plugin_bundle.ts`), through the plugin host under the
 * OS sandbox (when bubblewrap works) as the kernel starts it, interleaved
 * A B A B: the CPU (user + sys, from `/proc/<pid>/stat`) and the peak RSS
 * (`VmHWM`) of the plugin's Deno process when its launch returns (healthy),
 * medians and the ratio bundle / graph. The bundle is built first (into
 * the Deno cache, as the kernel builds it).
 *
 * ```sh
 * ./denow run -A tests/bundle_start_bench.ts [--runs 10] [filesystem anthropic …]
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import { computeArtifactChecksum } from "../config/checksum.ts";
import { readManifest } from "../contract/manifest.ts";
import { PluginHost } from "../kernel/plugin/host.ts";
import { PluginBundles } from "../kernel/process/plugin_bundle.ts";
import { denoCacheDir } from "../kernel/process/_module_cache.ts";
import { PATH, REPO } from "./_helpers.ts";

const TICKS = 100; // USER_HZ

/** The Deno process of a (possibly sandboxed) plugin: the deepest descendant. */
function denoPid(pid: number): number {
  for (;;) {
    let children: string[] = [];
    try {
      children = Deno.readTextFileSync(`/proc/${pid}/task/${pid}/children`)
        .trim().split(/\s+/).filter(Boolean);
    } catch {
      return pid;
    }
    if (children.length === 0) return pid;
    pid = Number(children[0]);
  }
}

function usage(pid: number): { cpuMs: number; hwmMiB: number } {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const cpuMs = (Number(fields[11]) + Number(fields[12])) * 1000 / TICKS;
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const hwm = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  return { cpuMs, hwmMiB: hwm };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: { runs: { type: "string", default: "10" } },
    allowPositionals: true,
  });
  const runs = Number(values.runs);
  const names = positionals.length ? positionals : ["filesystem"];
  const bundles = new PluginBundles({ denoDir: denoCacheDir() });
  const work = await Deno.makeTempDir({ prefix: "ph-bundle-bench-" });
  try {
    for (const name of names) {
      const manifestPath = `${REPO}/plugins/${name}/plugin.json`;
      const manifest = await readManifest(manifestPath);
      const entrypoint = `${REPO}/plugins/${name}/${manifest.entrypoint}`;
      const { checksum } = await computeArtifactChecksum(
        manifestPath,
        manifest,
      );
      const source = { name, checksum, entrypoint, manifestPath };
      if (!(await bundles.build(source))) {
        throw new Error(`Cannot bundle ${name}: another process builds it`);
      }
      const grant = {
        read: manifest.capabilities.read.map((p) => p === "." ? work : p),
        write: manifest.capabilities.write.map((p) => p === "." ? work : p),
        env: [...manifest.capabilities.env],
        net: [...manifest.capabilities.net],
        run: [...manifest.capabilities.run],
      };
      const results: Record<string, { cpuMs: number; hwmMiB: number }[]> = {
        graph: [],
        bundle: [],
      };
      for (let i = 0; i <= runs; i++) {
        for (const variant of ["graph", "bundle"] as const) {
          await using host = new PluginHost({
            env: { PATH },
            cwd: work,
            ...(variant === "bundle" ? { bundles } : {}),
          });
          const plugin = await host.launch({
            manifest,
            entrypoint,
            grant,
            ...(variant === "bundle"
              ? { bundle: { name, checksum, manifestPath } }
              : {}),
          });
          const u = usage(denoPid(plugin.pid));
          if (i > 0) results[variant]!.push(u); // the first pair warms up
        }
      }
      const g = results.graph!, b = results.bundle!;
      const row = (label: string, pick: (u: typeof g[0]) => number) => {
        const ratios = g.map((x, i) => pick(b[i]!) / pick(x));
        console.log(
          `${name.padEnd(11)} ${label.padEnd(9)} graph ${
            median(g.map(pick)).toFixed(1)
          }  bundle ${median(b.map(pick)).toFixed(1)}  bundle/graph ${
            median(ratios).toFixed(2)
          } (pairwise median of ${runs})`,
        );
      };
      row("CPU ms", (u) => u.cpuMs);
      row("RSS MiB", (u) => u.hwmMiB);
    }
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}
