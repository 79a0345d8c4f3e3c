/**
 * `grep` of the search plugin against `grep -r` on a generated tree of
 * 10,000 files (issue 20: at most 1.3× `grep -r`, content and files mode).
 *
 * The tree is `plugins/search/search_bench.ts`'s: 500 directories of 20
 * TypeScript files, 40 lines each, 104 files holding `needle`. Each round
 * runs, in an order rotated from round to round so that no command always
 * follows the same one:
 *
 * - `grep -rl needle DIR` and `grep -rn needle DIR`, spawned;
 * - `rg` alone, spawned with the flags the plugin gives it (the floor of
 *   any `rg`-based answer);
 * - `grepFiles` of `plugins/search/_search.ts`, in this process, with
 *   `rg` granted: `{pattern: "needle"}` (files with matches) and
 *   `{pattern: "needle", output_mode: "content"}`;
 * - with `--js`, the same two without `rg` (the JavaScript walk);
 * - with `--transport`, the same two with `rg` through the transport: a
 *   real plugin subprocess (`plugins/search/main.ts`, granted
 *   `read = [DIR]` and `run = ["rg"]`, in the OS sandbox where there is
 *   one), called as the kernel calls it.
 *
 * For each it takes the wall time and the CPU time (user + sys) of this
 * process and of every child it reaped (`getrusage` of `RUSAGE_SELF` and
 * `RUSAGE_CHILDREN`, through `Deno.dlopen` of libc: a spawned command's
 * CPU is all in its children's figure, an in-process call's is this
 * process's plus `rg`'s; through the transport, this process's plus
 * the plugin's process tree's, `rg` included, read from `/proc` in clock
 * ticks, 10 ms each, so that CPU figure is coarse per round). Each figure is then divided by the `grep -r`
 * figure of the same round (files mode by `grep -rl`, content by
 * `grep -rn`), and the median, minimum and maximum of those per-round
 * ratios are printed, so the figures compare across machines and loads.
 * Every answer is checked first: the tool, with and without `rg`, must
 * name exactly the files (and lines) `grep -r` names.
 *
 * Run: `./denow task bench:grep [--rounds N] [--warmup N] [--js] [--transport] [--json]`
 * (default 15 rounds after 2 warm-up rounds; `--files N` makes a smaller
 * or larger tree of the same shape). Linux only.
 *
 * @module
 */
import { grepFiles, type SearchInput } from "../plugins/search/_search.ts";
import { makeTree } from "../plugins/search/_bench_tree.ts";
import { RG_WALK_FLAGS } from "../plugins/search/_ripgrep.ts";
import { descendants, rusageCpuUs } from "./_bench_tree.ts";

/** Options from the command line. */
interface Options {
  files: number;
  rounds: number;
  warmup: number;
  js: boolean;
  transport: boolean;
  json: boolean;
}

function parseArgs(argv: readonly string[]): Options {
  const o: Options = {
    files: 10_000,
    rounds: 15,
    warmup: 2,
    js: false,
    transport: false,
    json: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--js") o.js = true;
    else if (a === "--transport") o.transport = true;
    else if (a === "--json") o.json = true;
    else if (a === "--rounds" || a === "--warmup" || a === "--files") {
      const n = Number(argv[++i]);
      const [min, max] = a === "--files"
        ? [100, 100_000]
        : [a === "--rounds" ? 1 : 0, 1000];
      if (!Number.isInteger(n) || n < min || n > max) {
        throw new Error(`${a} needs an integer from ${min} to ${max}`);
      }
      if (a === "--rounds") o.rounds = n;
      else if (a === "--warmup") o.warmup = n;
      else o.files = n;
    } else {
      throw new Error(
        `Unknown argument "${a}": bench_grep [--rounds N] [--warmup N] [--files N] [--js] [--transport] [--json]`,
      );
    }
  }
  return o;
}

const RUSAGE_SELF = 0;
const RUSAGE_CHILDREN = -1;
let libc:
  | Deno.DynamicLibrary<
    { getrusage: { parameters: ["i32", "buffer"]; result: "i32" } }
  >
  | undefined;

/** User + sys µs of this process plus every child it reaped. */
function cpuUs(): number {
  libc ??= Deno.dlopen("libc.so.6", {
    getrusage: { parameters: ["i32", "buffer"], result: "i32" },
  });
  let total = 0;
  for (const who of [RUSAGE_SELF, RUSAGE_CHILDREN]) {
    const buf = new BigInt64Array(18);
    if (libc.symbols.getrusage(who, buf) !== 0) {
      throw new Error("Cannot read the CPU time: getrusage failed");
    }
    total += rusageCpuUs(buf);
  }
  return total;
}

/** One measured figure: wall and CPU, ms. */
interface Sample {
  wall: number;
  cpu: number;
}

async function measure(
  fn: () => Promise<unknown>,
  elsewhere: () => number = () => 0,
): Promise<Sample> {
  const c0 = cpuUs() + elsewhere();
  const t0 = performance.now();
  await fn();
  const wall = performance.now() - t0;
  return { wall, cpu: (cpuUs() + elsewhere() - c0) / 1000 };
}

/**
 * User + sys µs of a process and of its children it reaped (`/proc/<pid>/stat`
 * utime, stime, cutime, cstime; clock ticks of 10 ms), 0 once it is gone.
 */
function procCpuUs(pid: number): number {
  let stat: string;
  try {
    stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return 0;
  }
  // Fields after the command name, which is in parentheses.
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime is field 14 of the line, the 12th after the name (index 11).
  const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  return ticks * 10_000;
}

/** A search plugin launched through the kernel's plugin host, granted rg. */
interface Plugin {
  grep(args: Record<string, unknown>): Promise<unknown>;
  /** CPU µs of the plugin's process tree so far. */
  cpuUs(): number;
  close(): Promise<void>;
}

async function launchPlugin(dir: string): Promise<Plugin> {
  const { PluginHost } = await import("../kernel/mod.ts");
  const { ToolService } = await import(
    "../proto/gen/pluggableharness/tool/v1/service_pb.ts"
  );
  const { readManifest } = await import("../plugins/sdk/mod.ts");
  const host = new PluginHost({
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
    cwd: dir,
  });
  const before = new Set(descendants(Deno.pid));
  const plugin = await host.launch({
    manifest: await readManifest(
      new URL("../plugins/search/plugin.json", import.meta.url),
    ),
    entrypoint: new URL("../plugins/search/main.ts", import.meta.url).pathname,
    grant: { read: [dir], run: ["rg"] },
  });
  // The processes the launch started (bubblewrap and what runs in it).
  const tree = descendants(Deno.pid).filter((p) => !before.has(p));
  const tool = plugin.client(ToolService);
  await tool.configure({ config: { roots: [dir] } });
  return {
    async grep(args) {
      for await (
        const r of tool.invoke({
          call: {
            id: "bench",
            toolName: "grep",
            arguments: { ...args, limit: 10_000 },
            callContext: {
              sessionId: "01S",
              turnId: "01T",
              workingDirectory: dir,
            },
          },
        })
      ) {
        const e = r.event?.event;
        if (e?.case === "result") return e.value.payload ?? {};
        if (e?.case === "error") throw new Error(e.value.message);
      }
      throw new Error("grep ended without a result");
    },
    cpuUs: () => tree.reduce((sum, p) => sum + procCpuUs(p), 0),
    close: () => host.close(),
  };
}

async function spawn(cmd: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(cmd, {
    args,
    stdout: "piped",
    stderr: "null",
  }).output();
  if (out.code > 1) throw new Error(`${cmd} ${args.join(" ")}: ${out.code}`);
  return new TextDecoder().decode(out.stdout);
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

async function main(): Promise<void> {
  const o = parseArgs(Deno.args);
  if (Deno.build.os !== "linux") {
    throw new Error("bench_grep measures CPU with getrusage: Linux only");
  }
  const hasRg = await new Deno.Command("rg", { args: ["--version"] }).output()
    .then((r) => r.success, () => false);
  if (!hasRg) throw new Error("bench_grep needs rg on PATH");
  const dir = Deno.realPathSync(
    Deno.makeTempDirSync({ prefix: "ph-bench-grep-" }),
  );
  const cleanup = () => {
    try {
      Deno.removeSync(dir, { recursive: true });
    } catch {
      // already gone
    }
  };
  const closers: (() => Promise<void>)[] = [];
  const closeAll = () =>
    Promise.all(closers.splice(0).map((c) => c().catch(() => {})));
  const onSignal = async () => {
    await closeAll();
    cleanup();
    Deno.exit(130);
  };
  Deno.addSignalListener("SIGINT", onSignal);
  try {
    makeTree(dir, o.files);
    const input = (
      args: Record<string, unknown>,
      ripgrep?: string,
    ): SearchInput => ({
      roots: [dir],
      args: { ...args, limit: 10_000 },
      workingDirectory: dir,
      ...(ripgrep ? { ripgrep } : {}),
    });
    const filesArgs = { pattern: "needle" };
    const contentArgs = { pattern: "needle", output_mode: "content" };

    // The same answers as grep -r, so that the comparison is fair.
    const rl = (await spawn("grep", ["-rl", "needle", dir])).trim().split("\n")
      .map((p) => p.slice(dir.length + 1)).sort();
    const rn = (await spawn("grep", ["-rn", "needle", dir])).trim().split("\n")
      .map((p) => p.slice(dir.length + 1)).sort();
    const expected = Math.ceil(o.files / 97);
    if (rl.length !== expected) {
      throw new Error(`grep -rl found ${rl.length} files, not ${expected}`);
    }
    for (const rg of ["rg", undefined]) {
      const f = await grepFiles(input(filesArgs, rg));
      const c = await grepFiles(input(contentArgs, rg));
      const fl = f.content.split("\n").sort();
      const cl = c.content.split("\n").sort();
      if (JSON.stringify(fl) !== JSON.stringify(rl)) {
        throw new Error(`grep (rg: ${!!rg}) files differ from grep -rl`);
      }
      if (JSON.stringify(cl) !== JSON.stringify(rn)) {
        throw new Error(`grep (rg: ${!!rg}) content differs from grep -rn`);
      }
    }

    const RG_ALONE = [
      ...RG_WALK_FLAGS,
      "--files-with-matches",
      "--text",
      "--encoding",
      "none",
      "--fixed-strings",
      "--case-sensitive",
      "-e",
      "needle",
      "--",
      dir,
    ];
    type Entry = {
      name: string;
      vs: "rl" | "rn";
      run: () => Promise<unknown>;
      /** The CPU µs of other processes than this one and its reaped children. */
      cpuElsewhere?: () => number;
    };
    const entries: Entry[] = [
      {
        name: "grep -rl",
        vs: "rl",
        run: () => spawn("grep", ["-rl", "needle", dir]),
      },
      {
        name: "grep -rn",
        vs: "rn",
        run: () => spawn("grep", ["-rn", "needle", dir]),
      },
      {
        name: "rg alone (the plugin's flags)",
        vs: "rl",
        run: () => spawn("rg", RG_ALONE),
      },
      {
        name: "grep files, rg",
        vs: "rl",
        run: () => grepFiles(input(filesArgs, "rg")),
      },
      {
        name: "grep content, rg",
        vs: "rn",
        run: () => grepFiles(input(contentArgs, "rg")),
      },
    ];
    if (o.js) {
      entries.push(
        {
          name: "grep files, JS walk",
          vs: "rl",
          run: () => grepFiles(input(filesArgs)),
        },
        {
          name: "grep content, JS walk",
          vs: "rn",
          run: () => grepFiles(input(contentArgs)),
        },
      );
    }
    if (o.transport) {
      const plugin = await launchPlugin(dir);
      closers.push(plugin.close);
      const check = JSON.parse(
        JSON.stringify(await plugin.grep(contentArgs)),
      ) as { content: string };
      const cl = check.content.split("\n").sort();
      if (JSON.stringify(cl) !== JSON.stringify(rn)) {
        throw new Error("grep through the transport differs from grep -rn");
      }
      entries.push(
        {
          name: "grep files, rg, transport",
          vs: "rl",
          run: () => plugin.grep(filesArgs),
          cpuElsewhere: plugin.cpuUs,
        },
        {
          name: "grep content, rg, transport",
          vs: "rn",
          run: () => plugin.grep(contentArgs),
          cpuElsewhere: plugin.cpuUs,
        },
      );
    }
    const samples = new Map<string, Sample[]>(entries.map((e) => [e.name, []]));
    for (let r = 0; r < o.warmup + o.rounds; r++) {
      const round = new Map<string, Sample>();
      for (let k = 0; k < entries.length; k++) {
        const e = entries[(k + r) % entries.length]!;
        round.set(e.name, await measure(e.run, e.cpuElsewhere));
      }
      if (r < o.warmup) continue;
      for (const [name, s] of round) samples.get(name)!.push(s);
    }
    const rows = entries.map((e) => {
      const own = samples.get(e.name)!;
      const base = samples.get(e.vs === "rl" ? "grep -rl" : "grep -rn")!;
      const ratio = (k: keyof Sample) => {
        const rs = own.map((s, i) => s[k] / base[i]![k]);
        return {
          median: median(rs),
          min: Math.min(...rs),
          max: Math.max(...rs),
        };
      };
      return {
        name: e.name,
        vs: e.vs === "rl" ? "grep -rl" : "grep -rn",
        wall_ms: median(own.map((s) => s.wall)),
        cpu_ms: median(own.map((s) => s.cpu)),
        wall_ratio: ratio("wall"),
        cpu_ratio: ratio("cpu"),
      };
    });
    const load = Deno.loadavg();
    if (o.json) {
      console.log(JSON.stringify(
        {
          format_version: "1",
          rounds: o.rounds,
          loadavg: load,
          files: o.files,
          rows,
        },
        null,
        2,
      ));
      return;
    }
    const f = (x: number) => x.toFixed(2);
    console.log(
      `grep over ${o.files} files, ${o.rounds} rounds (+${o.warmup} warm-up), load ${
        load.map((x) => x.toFixed(1)).join(" ")
      }; per-round ratios to grep -r, median (min–max)`,
    );
    for (const r of rows) {
      console.log(
        `${r.name.padEnd(32)} ÷ ${r.vs}  wall ${f(r.wall_ratio.median)} (${
          f(r.wall_ratio.min)
        }–${f(r.wall_ratio.max)})  cpu ${f(r.cpu_ratio.median)} (${
          f(r.cpu_ratio.min)
        }–${f(r.cpu_ratio.max)})  [${r.wall_ms.toFixed(1)} ms wall, ${
          r.cpu_ms.toFixed(1)
        } ms cpu]`,
      );
    }
  } finally {
    Deno.removeSignalListener("SIGINT", onSignal);
    await closeAll();
    cleanup();
  }
}

if (import.meta.main) await main();
