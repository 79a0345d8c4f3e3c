/**
 * The end-to-end benchmark (`deno task bench:e2e`, issue 20): the real CLI,
 * `deno run -A main.ts run "…" --json --approve-all`, in temporary projects
 * (builtin/filesystem plus builtin/anthropic or builtin/openai with its
 * `base_url` on loopback) against the provider tests' fake model servers,
 * on a 1-read and a 20-read task: the model asks for `read_file` 1 or 20
 * times, one note per turn, then answers. In the same run, the same way, it
 * measures `deno run -A` of an empty module, the baseline every figure is
 * compared with, so the ratios hold on a slower or busier machine.
 *
 * Usage: `deno task bench:e2e [--runs N] [--warmup N] [--provider NAME]…
 * [--reads N]… [--timeout-ms MS] [--json]` (`--help`). `BENCH_E2E_RUNS`
 * sets the default of `--runs` (5).
 *
 * Each round runs the baseline and then every configuration once, so slow
 * phases of a shared machine hit all of them alike; the warmup rounds
 * (default 1: Deno's module cache, the page cache, the session store's
 * schema) are not counted. Figures per run, then median, min and max over
 * the runs:
 *
 * - **start → first model request**: from just before the process is
 *   spawned to the fake server having read the first model request;
 * - **turn gap p50 / p90**: for each tool turn, from the end of a model
 *   response (the fake writes its last frame) to the next model request (read
 *   by the fake): SSE parsing in the model plugin, the kernel, the
 *   `read_file` round trip, and building and sending the next request; p50
 *   and p90 over the run's gaps (a 1-read run has one);
 * - **exit tail**: from the end of the last model response to the process
 *   exit (the final answer rendered, the session closed, plugins stopped);
 * - **wall**: spawn to exit;
 * - **CPU**: user + sys of every process of the tree, from `getrusage
 *   (RUSAGE_CHILDREN)` of this process, made a child subreaper so nothing
 *   escapes (tests/_bench_tree.ts says exactly how);
 * - **peak RSS / PSS**: peaks of the tree's summed `Rss` and `Pss`
 *   (`/proc/<pid>/smaps_rollup`, sampled every few ms);
 * - **kernel CPU, peak RSS / PSS**: the same for the kernel's own process
 *   alone (its plugins left out; its CPU sampled from `/proc`, so it misses
 *   its last few ms: tests/_bench_tree.ts).
 *
 * The kernel runs as `deno task agent` runs it: `deno run -A` with
 * {@linkcode KERNEL_V8_FLAGS}; `--kernel-flags` replaces those flags (an
 * A/B of a kernel flag in one checkout: `--kernel-flags=` for none).
 *
 * The baseline lives 15 ms on a fast machine, too short for that sampling:
 * it is started with `posix_spawn`, reaped with `wait4` (its own CPU) and
 * its memory read every millisecond (tests/_bench_lone.ts).
 *
 * Ratios: start → first request and wall over the baseline's wall, CPU over
 * its CPU, RSS and PSS over its RSS and PSS (medians). Turn gaps and the
 * exit tail have no baseline counterpart and are absolute.
 *
 * Clean-up: each run is bounded by `--timeout-ms` (its process tree is
 * killed and reaped when it is exceeded); the fake servers are stopped and
 * the temporary directory is removed on every exit path, Ctrl-C included.
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  type BenchModel,
  finalAnswer,
  type ModelTimeline,
  type Provider,
  PROVIDERS,
  startBenchModel,
} from "./_bench_models.ts";
import { descendants, measureTree, type TreeRun } from "./_bench_tree.ts";
import { measureLone } from "./_bench_lone.ts";
import { KERNEL_V8_FLAGS } from "../kernel/process/_v8_flags.ts";

const REPO = new URL("../", import.meta.url).pathname.replace(/\/$/, "");
const MAIN = `${REPO}/main.ts`;
const PROMPT = "Read the notes one by one, then summarize them.";

const USAGE = `Usage: deno task bench:e2e [options]

Runs \`agent run\` end to end against fake model servers and compares it
with \`deno run\` of an empty module measured in the same run.

Options:
  --runs N          measured rounds (default: $BENCH_E2E_RUNS or 5)
  --warmup N        unmeasured rounds first (default: 1)
  --provider NAME   anthropic or openai; repeat for several (default: both)
  --reads N         read_file calls before the answer; repeat (default: 1, 20)
  --timeout-ms MS   kill a run that takes longer (default: 120000)
  --kernel-flags=F  the kernel's deno flags, space-separated, "" for none
                    (default: those of deno task agent: ${KERNEL_V8_FLAGS})
  --json            print one JSON document instead of the table
  -h, --help        show this help
`;

/** What the command line asks for. */
export interface BenchOptions {
  /** Measured rounds. */
  runs: number;
  /** Unmeasured rounds before them. */
  warmup: number;
  /** The providers. */
  providers: Provider[];
  /** The tasks: how many reads each. */
  reads: number[];
  /** Per-run time limit, ms. */
  timeoutMs: number;
  /** The kernel's `deno run` flags after `-A`. */
  kernelFlags: string[];
  /** Print JSON. */
  json: boolean;
  /** Print the usage. */
  help: boolean;
}

/** A bad command line. */
export class UsageError extends Error {
  /** @param message What is wrong. */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

function positiveInt(
  value: string,
  what: string,
  min: number,
  max: number,
): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) {
    throw new UsageError(
      `${what} must be a whole number from ${min} to ${max}: got "${value}"`,
    );
  }
  return n;
}

/**
 * Parses the command line.
 *
 * @param args The arguments.
 * @param env The environment (`BENCH_E2E_RUNS`).
 * @returns The options.
 * @throws {UsageError} for anything it does not understand.
 */
export function parseBenchArgs(
  args: string[],
  env: Record<string, string | undefined>,
): BenchOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        runs: { type: "string" },
        warmup: { type: "string" },
        provider: { type: "string", multiple: true },
        reads: { type: "string", multiple: true },
        "timeout-ms": { type: "string" },
        "kernel-flags": { type: "string" },
        json: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const v = parsed.values;
  const runs = v.runs !== undefined
    ? positiveInt(v.runs, "--runs", 1, 1000)
    : env.BENCH_E2E_RUNS !== undefined
    ? positiveInt(env.BENCH_E2E_RUNS, "BENCH_E2E_RUNS", 1, 1000)
    : 5;
  const providers = (v.provider ?? [...PROVIDERS]).map((p) => {
    if (!(PROVIDERS as readonly string[]).includes(p)) {
      throw new UsageError(
        `--provider must be one of ${PROVIDERS.join(", ")}: got "${p}"`,
      );
    }
    return p as Provider;
  });
  return {
    runs,
    warmup: v.warmup !== undefined
      ? positiveInt(v.warmup, "--warmup", 0, 100)
      : 1,
    providers: [...new Set(providers)],
    reads: [
      ...new Set(
        (v.reads ?? ["1", "20"]).map((r) => positiveInt(r, "--reads", 1, 200)),
      ),
    ],
    timeoutMs: v["timeout-ms"] !== undefined
      ? positiveInt(v["timeout-ms"], "--timeout-ms", 1000, 3_600_000)
      : 120_000,
    kernelFlags: kernelFlags(v["kernel-flags"] ?? KERNEL_V8_FLAGS),
    json: v.json,
    help: v.help,
  };
}

function kernelFlags(text: string): string[] {
  const flags = text.split(/\s+/).filter((f) => f);
  const bad = flags.find((f) => !f.startsWith("--"));
  if (bad !== undefined) {
    throw new UsageError(
      `--kernel-flags takes deno flags (each starting with --): got "${bad}"`,
    );
  }
  return flags;
}

/** Median, min and max of one figure over the runs. */
export interface Stat {
  /** The median. */
  median: number;
  /** The smallest. */
  min: number;
  /** The largest. */
  max: number;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Nearest-rank quantile. */
function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(q * s.length) - 1)]!;
}

function stat(xs: readonly number[]): Stat {
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs) };
}

/** The figures of the baseline. */
export interface BaselineFigures {
  /** Spawn to exit, ms. */
  wallMs: Stat;
  /** User + sys of the tree, ms. */
  cpuMs: Stat;
  /** Peak summed RSS, bytes. */
  peakRssBytes: Stat;
  /** Peak summed PSS, bytes. */
  peakPssBytes: Stat;
}

/** The figures of one configuration. */
export interface RunFigures extends BaselineFigures {
  /** Spawn to the first model request, ms. */
  startMs: Stat;
  /** Median turn gap of a run, ms. */
  turnGapP50Ms: Stat;
  /** 90th percentile turn gap of a run, ms. */
  turnGapP90Ms: Stat;
  /** Last model response end to exit, ms. */
  exitTailMs: Stat;
  /** The kernel's own user + sys, ms. */
  kernelCpuMs: Stat;
  /** The kernel's own peak RSS, bytes. */
  kernelPeakRssBytes: Stat;
  /** The kernel's own peak PSS, bytes. */
  kernelPeakPssBytes: Stat;
}

/** One configuration's result. */
export interface ConfigResult {
  /** The provider plugin. */
  provider: Provider;
  /** `read_file` calls before the answer. */
  reads: number;
  /** Model requests per run. */
  modelRequests: number;
  /** The most processes in the tree at once. */
  processes: number;
  /** Processes left behind by the kernel, all runs (0 expected). */
  strays: number;
  /**
   * CPU the benchmark process itself spent during a run (the fake server
   * and the memory sampler): load competing with the tree, ms.
   */
  observerCpuMs: Stat;
  /** The figures. */
  figures: RunFigures;
  /** Medians over the baseline's (see the module doc for which). */
  ratios: {
    startMs: number;
    wallMs: number;
    cpuMs: number;
    peakRssBytes: number;
    peakPssBytes: number;
  };
}

/** The `--json` document. */
export interface BenchReport {
  /** The format's version. */
  format_version: "1";
  /** The Deno version measured. */
  deno: string;
  /** `os arch`. */
  platform: string;
  /** Logical CPUs. */
  cpus: number;
  /** Measured rounds. */
  runs: number;
  /** Unmeasured rounds. */
  warmup: number;
  /** The baseline. */
  baseline: { command: string; figures: BaselineFigures };
  /** The kernel's command line (the project's paths left out). */
  kernel: { command: string };
  /** Each configuration. */
  configurations: ConfigResult[];
}

interface Config {
  model: BenchModel;
  reads: number;
  dir: string;
  env: Record<string, string>;
  runs: { tree: TreeRun; timeline: ModelTimeline }[];
}

async function makeProject(
  root: string,
  model: BenchModel,
  reads: number,
  baseEnv: Record<string, string>,
): Promise<Config> {
  const home = `${root}/${model.provider}-${reads}`;
  const dir = `${home}/project`;
  await Deno.mkdir(`${dir}/notes`, { recursive: true });
  for (let i = 0; i < reads; i++) {
    await Deno.writeTextFile(
      `${dir}/notes/${i}.md`,
      `# Note ${i}\nHello from note ${i}.\n`,
    );
  }
  await Deno.writeTextFile(
    `${dir}/agent.hcl`,
    `required_providers {
  ${model.required}
  fs = { source = "builtin/filesystem", version = "~> 0.1" }
}

${model.block}
provider "fs" {
  roots       = ["."]
  allow_read  = ["."]
  allow_write = ["."]
}

policy "reads_ok" {
  match  = { kind = "data_source" }
  action = "allow"
}

agent_profile "default" {
  model {
    primary {
      provider = "${model.model.provider}"
      id       = "${model.model.id}"
    }
  }
  tools     = ["fs.read_file"]
  max_turns = ${reads + 5}
}
`,
  );
  return {
    model,
    reads,
    dir,
    env: {
      ...baseEnv,
      HOME: home,
      XDG_STATE_HOME: `${home}/state`,
      ...model.env,
    },
    runs: [],
  };
}

function label(c: Config): string {
  return `agent run (${c.model.provider}, ${c.reads} read${
    c.reads === 1 ? "" : "s"
  })`;
}

async function runAgent(
  c: Config,
  timeoutMs: number,
  kernelFlags: readonly string[],
): Promise<{ tree: TreeRun; timeline: ModelTimeline }> {
  const timeline = c.model.script(c.reads);
  const tree = await measureTree({
    command: Deno.execPath(),
    args: [
      "run",
      "-A",
      ...kernelFlags,
      MAIN,
      "run",
      PROMPT,
      "--json",
      "--approve-all",
    ],
    env: c.env,
    cwd: c.dir,
    timeoutMs,
    label: label(c),
  });
  const fail = (why: string): never => {
    throw new Error(
      `Cannot measure ${label(c)}: ${why}; stdout tail: ${
        tree.stdout.slice(-1500)
      }; stderr tail: ${tree.stderr.slice(-1500)}`,
    );
  };
  if (tree.code !== 0) fail(`it exited with ${tree.code}`);
  let last: Record<string, unknown> = {};
  try {
    last = JSON.parse(tree.stdout.trimEnd().split("\n").at(-1) ?? "");
  } catch {
    fail("its last output line is not JSON");
  }
  if (
    last.type !== "session_ended" || last.finalText !== finalAnswer(c.reads)
  ) {
    fail(`the session did not end with the scripted answer`);
  }
  const want = c.reads + 1;
  if (
    timeline.requests.length !== want || timeline.responseEnds.length !== want
  ) {
    fail(
      `expected ${want} model requests and responses, the fake saw ${timeline.requests.length} and ended ${timeline.responseEnds.length} (if the fake no longer iterates its reply frames, tests/_bench_models.ts cannot stamp them)`,
    );
  }
  return { tree, timeline };
}

function configResult(c: Config, baseline: BaselineFigures): ConfigResult {
  const runs = c.runs;
  const per = runs.map(({ tree, timeline }) => {
    const { requests, responseEnds } = timeline;
    const gaps = requests.slice(1).map((t, i) => t - responseEnds[i]!);
    return {
      startMs: requests[0]! - tree.spawnedAt,
      turnGapP50Ms: median(gaps),
      turnGapP90Ms: quantile(gaps, 0.9),
      exitTailMs: tree.exitedAt - responseEnds.at(-1)!,
      wallMs: tree.wallMs,
      cpuMs: tree.cpuMs,
      peakRssBytes: tree.peakRssBytes,
      peakPssBytes: tree.peakPssBytes,
      kernelCpuMs: tree.root.cpuMs,
      kernelPeakRssBytes: tree.root.peakRssBytes,
      kernelPeakPssBytes: tree.root.peakPssBytes,
    };
  });
  const of = (k: keyof typeof per[number]) => stat(per.map((p) => p[k]));
  const figures: RunFigures = {
    startMs: of("startMs"),
    turnGapP50Ms: of("turnGapP50Ms"),
    turnGapP90Ms: of("turnGapP90Ms"),
    exitTailMs: of("exitTailMs"),
    wallMs: of("wallMs"),
    cpuMs: of("cpuMs"),
    peakRssBytes: of("peakRssBytes"),
    peakPssBytes: of("peakPssBytes"),
    kernelCpuMs: of("kernelCpuMs"),
    kernelPeakRssBytes: of("kernelPeakRssBytes"),
    kernelPeakPssBytes: of("kernelPeakPssBytes"),
  };
  return {
    provider: c.model.provider,
    reads: c.reads,
    modelRequests: c.reads + 1,
    processes: Math.max(...runs.map((r) => r.tree.processes)),
    strays: runs.reduce((a, r) => a + r.tree.strays, 0),
    observerCpuMs: stat(runs.map((r) => r.tree.observerCpuMs)),
    figures,
    ratios: {
      startMs: figures.startMs.median / baseline.wallMs.median,
      wallMs: figures.wallMs.median / baseline.wallMs.median,
      cpuMs: figures.cpuMs.median / baseline.cpuMs.median,
      peakRssBytes: figures.peakRssBytes.median /
        baseline.peakRssBytes.median,
      peakPssBytes: figures.peakPssBytes.median /
        baseline.peakPssBytes.median,
    },
  };
}

function baselineFigures(runs: readonly TreeRun[]): BaselineFigures {
  return {
    wallMs: stat(runs.map((r) => r.wallMs)),
    cpuMs: stat(runs.map((r) => r.cpuMs)),
    peakRssBytes: stat(runs.map((r) => r.peakRssBytes)),
    peakPssBytes: stat(runs.map((r) => r.peakPssBytes)),
  };
}

/** Where Deno's module cache is: the projects' HOME is temporary. */
async function denoDir(): Promise<string> {
  const fromEnv = Deno.env.get("DENO_DIR");
  if (fromEnv) return fromEnv;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
  }).output();
  const dir = JSON.parse(new TextDecoder().decode(out.stdout)).denoDir;
  if (!out.success || typeof dir !== "string") {
    throw new Error("Cannot find Deno's cache directory: deno info failed");
  }
  return dir;
}

/**
 * Runs the benchmark.
 *
 * @param options What to run.
 * @param progress Receives one line per step (stderr).
 * @returns The report.
 */
export async function runBench(
  options: BenchOptions,
  progress: (line: string) => void,
): Promise<BenchReport> {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-bench-e2e-" }),
  );
  const models: BenchModel[] = [];
  const onSigint = () => {
    // Whatever runs now dies with us; leave nothing behind.
    for (const child of descendants("self")) {
      try {
        Deno.kill(child, "SIGKILL");
      } catch {
        // gone
      }
    }
    Deno.removeSync(root, { recursive: true });
    Deno.exit(130);
  };
  Deno.addSignalListener("SIGINT", onSigint);
  try {
    const baseEnv = {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      NO_COLOR: "1",
      DENO_DIR: await denoDir(),
      // AGENT_PLUGIN_BUNDLES=off: the builtins run from their module graph.
      ...(Deno.env.get("AGENT_PLUGIN_BUNDLES") !== undefined
        ? { AGENT_PLUGIN_BUNDLES: Deno.env.get("AGENT_PLUGIN_BUNDLES")! }
        : {}),
    };
    const empty = `${root}/empty.ts`;
    await Deno.writeTextFile(empty, "");
    const configs: Config[] = [];
    for (const provider of options.providers) {
      const model = startBenchModel(provider);
      models.push(model);
      for (const reads of options.reads) {
        configs.push(await makeProject(root, model, reads, baseEnv));
      }
    }
    const baseline: TreeRun[] = [];
    const rounds = options.warmup + options.runs;
    for (let round = 0; round < rounds; round++) {
      const measured = round >= options.warmup;
      const name = measured
        ? `run ${round - options.warmup + 1}/${options.runs}`
        : `warmup ${round + 1}/${options.warmup}`;
      progress(`${name}: deno run of an empty module`);
      const b = await measureLone({
        command: Deno.execPath(),
        args: ["run", "-A", empty],
        env: { ...baseEnv, HOME: root },
        cwd: root,
        timeoutMs: options.timeoutMs,
        label: "deno run of an empty module",
      });
      if (b.code !== 0) {
        throw new Error(
          `Cannot run the baseline: deno run of an empty module exited with ${b.code}: ${b.stderr}`,
        );
      }
      if (measured) baseline.push(b);
      for (const c of configs) {
        progress(`${name}: ${label(c)}`);
        const r = await runAgent(c, options.timeoutMs, options.kernelFlags);
        if (measured) c.runs.push(r);
      }
    }
    const base = baselineFigures(baseline);
    return {
      format_version: "1",
      deno: Deno.version.deno,
      platform: `${Deno.build.os} ${Deno.build.arch}`,
      cpus: navigator.hardwareConcurrency,
      runs: options.runs,
      warmup: options.warmup,
      baseline: { command: "deno run -A <empty module>", figures: base },
      kernel: {
        command: ["deno run -A", ...options.kernelFlags, "main.ts run …"]
          .join(" "),
      },
      configurations: configs.map((c) => configResult(c, base)),
    };
  } finally {
    Deno.removeSignalListener("SIGINT", onSigint);
    for (const m of models) await m[Symbol.asyncDispose]();
    await Deno.remove(root, { recursive: true });
  }
}

const ms = (x: number) => `${x < 10 ? x.toFixed(2) : x.toFixed(1)} ms`;
const mib = (x: number) => `${(x / 2 ** 20).toFixed(1)} MiB`;

/**
 * Renders the report as a table.
 *
 * @param r The report.
 * @returns The text.
 */
export function formatReport(r: BenchReport): string {
  const rows: string[][] = [[
    "configuration",
    "figure",
    "median",
    "min – max",
    "× baseline",
  ]];
  const row = (
    config: string,
    figure: string,
    s: Stat,
    unit: (x: number) => string,
    ratio?: string,
  ) =>
    rows.push([
      config,
      figure,
      unit(s.median),
      `${unit(s.min)} – ${unit(s.max)}`,
      ratio ?? "",
    ]);
  const x = (n: number, of: string) => `${n.toFixed(1)}× ${of}`;
  const b = r.baseline.figures;
  row("empty module", "wall", b.wallMs, ms);
  row("", "CPU (user+sys)", b.cpuMs, ms);
  row("", "peak RSS", b.peakRssBytes, mib);
  row("", "peak PSS", b.peakPssBytes, mib);
  for (const c of r.configurations) {
    const f = c.figures;
    row(
      `${c.provider}, ${c.reads} read${c.reads === 1 ? "" : "s"}`,
      "start → first request",
      f.startMs,
      ms,
      x(c.ratios.startMs, "wall"),
    );
    row("", "turn gap p50", f.turnGapP50Ms, ms);
    row("", "turn gap p90", f.turnGapP90Ms, ms);
    row("", "exit tail", f.exitTailMs, ms);
    row("", "wall", f.wallMs, ms, x(c.ratios.wallMs, "wall"));
    row("", "CPU (user+sys)", f.cpuMs, ms, x(c.ratios.cpuMs, "CPU"));
    row("", "peak RSS", f.peakRssBytes, mib, x(c.ratios.peakRssBytes, "RSS"));
    row("", "peak PSS", f.peakPssBytes, mib, x(c.ratios.peakPssBytes, "PSS"));
    row("", "kernel CPU", f.kernelCpuMs, ms);
    row("", "kernel peak RSS", f.kernelPeakRssBytes, mib);
    row("", "kernel peak PSS", f.kernelPeakPssBytes, mib);
  }
  const widths = rows[0]!.map((_, i) =>
    Math.max(...rows.map((r) => r[i]!.length))
  );
  const line = (cells: string[]) =>
    cells.map((c, i) => i >= 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))
      .join("  ").trimEnd();
  const strays = r.configurations.reduce((a, c) => a + c.strays, 0);
  return [
    `agent run end to end: ${r.runs} runs (+${r.warmup} warmup), Deno ${r.deno}, ${r.platform}, ${r.cpus} CPUs; kernel: ${r.kernel.command}`,
    `processes in the tree: ${
      r.configurations.map((c) => `${c.provider}/${c.reads}: ${c.processes}`)
        .join(", ")
    }; left behind: ${strays}; the benchmark's own CPU per run (fake server, sampler): ${
      r.configurations.map((c) =>
        `${c.provider}/${c.reads}: ${ms(c.observerCpuMs.median)}`
      ).join(", ")
    }`,
    "",
    line(rows[0]!),
    line(widths.map((w) => "-".repeat(w))),
    ...rows.slice(1).map(line),
    "",
  ].join("\n");
}

/**
 * The command: parses the arguments, runs, prints.
 *
 * @param args The arguments.
 * @returns The exit code: 0 done, 1 failed, 2 usage error.
 */
export async function main(args: string[]): Promise<number> {
  let options: BenchOptions;
  try {
    options = parseBenchArgs(args, Deno.env.toObject());
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    console.error(`${USAGE}\nerror: ${e.message}`);
    return 2;
  }
  if (options.help) {
    console.log(USAGE);
    return 0;
  }
  try {
    const report = await runBench(options, (l) => console.error(l));
    console.log(
      options.json ? JSON.stringify(report, null, 2) : formatReport(report),
    );
    return 0;
  } catch (e) {
    console.error(`error: ${(e as Error).message}`);
    return 1;
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
