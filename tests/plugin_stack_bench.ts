/**
 * What a Deno plugin's stack costs before the plugin's own code runs (issue
 * 20, lever "a lighter gRPC stack in plugins"): `deno run` of a module that
 * only imports one layer, for each layer in turn, interleaved round by round
 * with an empty module measured the same way. The layers, each alone:
 * Node compatibility (`node:process`, `node:http2`, the module grpc-js
 * serves HTTP/2 with), protobuf-es (`@bufbuild/protobuf` and its
 * `codegenv2`, what the generated descriptors use), the gRPC adapter
 * (`proto/mod.ts`: grpc-js and protobuf-es, no generated descriptor),
 * `@grpc/grpc-js`, the generated descriptors of every package (every
 * `*_pb.ts` under `proto/gen/`), those the kernel's static module graph reaches
 * (from `main.ts`, by `deno info`), and the whole plugin SDK
 * (`plugins/sdk/mod.ts`: the adapter, the descriptors `serve` needs and the
 * SDK).
 *
 * Per layer, medians over the runs of the whole process (tests/_bench_tree.ts
 * measures them as `deno task bench:e2e` does): CPU (user + sys), peak RSS
 * and peak PSS, each with its difference to the empty module's median, which
 * is the layer's own cost. Differences of CPU move with the machine's load;
 * RSS and PSS do not.
 *
 * ```sh
 * ./denow run -A tests/plugin_stack_bench.ts [--runs 5] [--warmup 1]
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import { measureTree, type TreeRun } from "./_bench_tree.ts";

const REPO = new URL("../", import.meta.url).pathname.replace(/\/$/, "");

/** One layer: what its module imports. */
interface Layer {
  readonly label: string;
  readonly imports: readonly string[];
}

/** Every generated `*_pb.ts` under `proto/gen/`, sorted. */
async function generatedFiles(): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for await (const e of Deno.readDir(dir)) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory) await walk(path);
      else if (e.name.endsWith("_pb.ts")) out.push(path);
    }
  };
  await walk(`${REPO}/proto/gen`);
  return out.sort();
}

/**
 * The generated files the kernel's module graph (`main.ts`) loads before
 * any `import()` runs: `deno info --json`, static code edges only.
 */
async function kernelGeneratedFiles(): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--config", `${REPO}/deno.json`, "main.ts"],
    cwd: REPO,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(
      `deno info main.ts failed: ${new TextDecoder().decode(out.stderr)}`,
    );
  }
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    roots: string[];
    modules: {
      specifier: string;
      dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
    }[];
  };
  const bySpecifier = new Map(info.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>(info.roots);
  const queue = [...info.roots];
  while (queue.length) {
    for (const d of bySpecifier.get(queue.shift()!)?.dependencies ?? []) {
      const to = d.code?.specifier;
      if (!to || d.isDynamic || seen.has(to)) continue;
      seen.add(to);
      queue.push(to);
    }
  }
  return [...seen]
    .filter((s) => s.startsWith("file:") && s.endsWith("_pb.ts"))
    .map((s) => new URL(s).pathname)
    .sort();
}

async function layers(): Promise<Layer[]> {
  const all = await generatedFiles();
  const kernel = await kernelGeneratedFiles();
  const protobuf = ["@bufbuild/protobuf", "@bufbuild/protobuf/codegenv2"];
  return [
    { label: "empty module", imports: [] },
    { label: "node:process", imports: ["node:process"] },
    { label: "node:http2", imports: ["node:http2"] },
    { label: "@bufbuild/protobuf", imports: protobuf },
    { label: "proto/mod.ts (the adapter)", imports: [`${REPO}/proto/mod.ts`] },
    { label: "@grpc/grpc-js", imports: ["@grpc/grpc-js"] },
    {
      label: `every descriptor (${all.length} files)`,
      imports: [...protobuf, ...all],
    },
    {
      label: `the kernel's descriptors (${kernel.length} files)`,
      imports: [...protobuf, ...kernel],
    },
    { label: "plugins/sdk/mod.ts", imports: [`${REPO}/plugins/sdk/mod.ts`] },
  ];
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function positiveInt(text: string, name: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 1000) {
    throw new RangeError(
      `Cannot run the benchmark: ${name} must be an integer from 0 to 1000, not "${text}"`,
    );
  }
  return n;
}

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      runs: { type: "string", default: "5" },
      warmup: { type: "string", default: "1" },
    },
  });
  const runs = Math.max(1, positiveInt(values.runs, "--runs"));
  const warmup = positiveInt(values.warmup, "--warmup");
  const LAYERS = await layers();
  const dir = await Deno.makeTempDir({ prefix: "ph-plugin-stack-" });
  try {
    const modules = await Promise.all(LAYERS.map(async (layer, i) => {
      const path = `${dir}/layer${i}.ts`;
      await Deno.writeTextFile(
        path,
        layer.imports.map((s) => `import "${s}";\n`).join("") +
          "export {};\n",
      );
      return path;
    }));
    const results: TreeRun[][] = LAYERS.map(() => []);
    for (let round = 0; round < warmup + runs; round++) {
      for (const [i, layer] of LAYERS.entries()) {
        const counted = round >= warmup;
        console.error(
          `${
            counted ? `run ${round - warmup + 1}/${runs}` : "warmup"
          }: ${layer.label}`,
        );
        const run = await measureTree({
          command: Deno.execPath(),
          args: [
            "run",
            "-A",
            "--cached-only",
            "--config",
            `${REPO}/deno.json`,
            modules[i]!,
          ],
          env: {
            PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
            NO_COLOR: "1",
            ...(Deno.env.get("DENO_DIR")
              ? { DENO_DIR: Deno.env.get("DENO_DIR")! }
              : {}),
            ...(Deno.env.get("HOME") ? { HOME: Deno.env.get("HOME")! } : {}),
          },
          cwd: dir,
          timeoutMs: 60_000,
          label: layer.label,
        });
        if (run.code !== 0) {
          // A layer that did not load (e.g. a package missing from the
          // Deno cache under --cached-only) has no figures to report.
          throw new Error(
            `deno run of a module importing ${layer.label} exited with ${run.code}: ${
              run.stderr.trim().slice(-1500)
            }`,
          );
        }
        if (counted) results[i]!.push(run);
      }
    }
    const mib = (b: number) => b / 2 ** 20;
    const base = {
      cpu: median(results[0]!.map((r) => r.cpuMs)),
      rss: median(results[0]!.map((r) => mib(r.peakRssBytes))),
      pss: median(results[0]!.map((r) => mib(r.peakPssBytes))),
    };
    const sign = (x: number, digits: number) =>
      `${x >= 0 ? "+" : ""}${x.toFixed(digits)}`;
    console.log(
      `layer (median of ${runs})`.padEnd(40) +
        "CPU (user+sys)        peak RSS              peak PSS",
    );
    for (const [i, layer] of LAYERS.entries()) {
      const cpu = median(results[i]!.map((r) => r.cpuMs));
      const rss = median(results[i]!.map((r) => mib(r.peakRssBytes)));
      const pss = median(results[i]!.map((r) => mib(r.peakPssBytes)));
      const row = i === 0
        ? [
          `${cpu.toFixed(0)} ms`,
          `${rss.toFixed(1)} MiB`,
          `${pss.toFixed(1)} MiB`,
        ]
        : [
          `${cpu.toFixed(0)} ms (${sign(cpu - base.cpu, 0)})`,
          `${rss.toFixed(1)} MiB (${sign(rss - base.rss, 1)})`,
          `${pss.toFixed(1)} MiB (${sign(pss - base.pss, 1)})`,
        ];
      console.log(
        (layer.label.padEnd(40) + row.map((c) => c.padEnd(22)).join(""))
          .trimEnd(),
      );
    }
    return 0;
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) {
  try {
    Deno.exit(await main(Deno.args));
  } catch (err) {
    console.error(
      `error: ${err instanceof Error ? err.message : String(err)}`,
    );
    Deno.exit(2);
  }
}
