/**
 * The terminal UI's benchmark (`deno task bench:tui`): interactive `agent`
 * in a private tmux server (80×24) on a quickstart-like project with the
 * scripted model, the full-screen UI (builtin/tui) against the line UI
 * (`--no-tui`), with `deno run` of an empty module measured the same way in
 * the same run as the baseline every figure is compared with.
 *
 * Figures, medians over the runs (each round runs the baseline, the line UI
 * and the TUI once, after one warmup round that is not counted):
 *
 * - **start → prompt on screen**: from just before tmux starts the command
 *   to the pane showing the prompt (the line UI's `> `, the TUI's input
 *   box), polled with `capture-pane` every 5 ms; the baseline is the empty
 *   module's spawn-to-exit;
 * - **start → full TUI**: the same start to the TUI's status line showing
 *   the session's model (Ink runs, the session exists and was read: the
 *   input box is painted before, by the plugin's entry module);
 * - **keystroke → screen**: the TUI's pane output is piped to a file
 *   (`pipe-pane`); per key, from just before `tmux send-keys` to the first
 *   growth of that file after it, 40 keys per run, p50 and p90; the same
 *   measured on `cat` in a pane (the terminal's own echo) is the floor
 *   (tmux's client round trip, the pty, tmux's output);
 * - **TUI memory**: `VmRSS` and peak `VmHWM` of the TUI plugin's process
 *   (`/proc/<pid>/status`) after the keys, against the empty module's
 *   process measured the same way (it idles until read); beside them its
 *   PSS and USS (`/proc/<pid>/smaps_rollup`: the `deno` executable's pages
 *   are shared with every other Deno process, and RSS counts them whole).
 *
 * Usage: `deno task bench:tui [--runs N] [--json]`.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { REPO } from "./_helpers.ts";
import { descendants } from "./_bench_tree.ts";

const args = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string" }, json: { type: "boolean" } },
});
const RUNS = Number(args.values.runs ?? 3);
if (!Number.isInteger(RUNS) || RUNS < 1) {
  console.error(`--runs must be a positive integer, not "${args.values.runs}"`);
  Deno.exit(3);
}

const AGENT_HCL = `
required_providers {
  scripted = { source = "builtin/scripted", version = "~> 0.1" }
  fs       = { source = "builtin/filesystem", version = "~> 0.1" }
}
provider "scripted" {
  script     = "./script.json"
  allow_read = ["."]
}
provider "fs" {
  roots       = ["."]
  allow_read  = ["."]
  allow_write = ["."]
}
agent_profile "default" {
  model {
    primary {
      provider = "scripted"
      id       = "scripted"
    }
  }
  tools = ["fs.*"]
}
`;

function tmux(socket: string, ...a: string[]): string {
  const out = new Deno.Command("tmux", {
    args: ["-S", join(dir, `${socket}.sock`), "-f", "/dev/null", ...a],
    stdout: "piped",
    stderr: "piped",
  }).outputSync();
  if (!out.success) {
    throw new Error(
      `tmux ${a.join(" ")}: ${new TextDecoder().decode(out.stderr)}`,
    );
  }
  return new TextDecoder().decode(out.stdout);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function quote(a: string[]): string {
  return a.map((x) => `'${x}'`).join(" ");
}

/** Starts `command` in a fresh 80×24 tmux server; ms until `ready` shows. */
async function startUntil(
  socket: string,
  dir: string,
  command: string[],
  ready: (screen: string) => boolean,
  t0: number = performance.now(),
): Promise<number> {
  tmux(
    socket,
    "new-session",
    "-d",
    "-s",
    "b",
    "-x",
    "80",
    "-y",
    "24",
    "-c",
    dir,
    `${quote(command)}; sleep 600`,
  );
  return await shownAfter(socket, t0, ready);
}

/** Ms from `t0` until the pane shows what `ready` accepts. */
async function shownAfter(
  socket: string,
  t0: number,
  ready: (screen: string) => boolean,
): Promise<number> {
  for (;;) {
    if (ready(tmux(socket, "capture-pane", "-p", "-t", "b"))) {
      return performance.now() - t0;
    }
    if (performance.now() - t0 > 120_000) throw new Error("no prompt in 120 s");
    await sleep(5);
  }
}

/** Per key: `send-keys` to the first growth of the piped pane output. */
async function keyLatencies(socket: string, out: string): Promise<number[]> {
  await Deno.writeTextFile(out, "");
  tmux(socket, "pipe-pane", "-o", "-t", "b", `cat >> '${out}'`);
  await sleep(200);
  const lat: number[] = [];
  for (let i = 0; i < 40; i++) {
    const before = Deno.statSync(out).size;
    const k0 = performance.now();
    tmux(
      socket,
      "send-keys",
      "-t",
      "b",
      "-l",
      String.fromCharCode(97 + (i % 26)),
    );
    while (Deno.statSync(out).size === before) {
      if (performance.now() - k0 > 5000) throw new Error("no echo in 5 s");
      await sleep(0.5);
    }
    lat.push(performance.now() - k0);
    await sleep(30);
  }
  return lat;
}

function memoryOf(
  pid: number,
): { rss: number; hwm: number; pss: number; uss: number } {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const rollup = Deno.readTextFileSync(`/proc/${pid}/smaps_rollup`);
  const kb = (text: string, k: string) =>
    Number(new RegExp(`^${k}:\\s+(\\d+)`, "m").exec(text)?.[1] ?? 0);
  return {
    rss: kb(status, "VmRSS") / 1024,
    hwm: kb(status, "VmHWM") / 1024,
    pss: kb(rollup, "Pss") / 1024,
    uss: (kb(rollup, "Private_Clean") + kb(rollup, "Private_Dirty")) / 1024,
  };
}

/**
 * The TUI plugin's process under this server's pane (other TUIs may run on
 * the machine: another engineer's benchmark, a test).
 */
function tuiPid(socket: string): number {
  const pane = Number(
    tmux(socket, "list-panes", "-t", "b", "-F", "#{pane_pid}").trim(),
  );
  // Oldest first (pid order, as /proc lists them): the plugin, not a
  // `deno bundle` of its entry module that a launch may start later.
  for (const pid of descendants(pane).sort((a, b) => a - b)) {
    try {
      const cmd = Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0");
      if (
        cmd[0]?.endsWith("deno") &&
        // its module graph, or its bundle in the Deno cache
        /(plugins\/tui\/main\.ts|agent-bundles\/v\d+\/tui\/[^/]+\/main\.js)$/
          .test(cmd.at(-2) ?? "")
      ) {
        return pid;
      }
    } catch {
      // gone
    }
  }
  throw new Error(`the TUI's process was not found under pane ${pane}`);
}

/** CPU time of a process, all its threads, in ms (`/proc/<pid>/stat`). */
function cpuMs(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime, fields 14 and 15 (11 and 12 after the state)
  return ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS;
}

/** The kernel's clock ticks per second (`getconf CLK_TCK`). */
const CLOCK_TICKS = (() => {
  try {
    const out = new Deno.Command("getconf", { args: ["CLK_TCK"] }).outputSync();
    const n = Number(new TextDecoder().decode(out.stdout).trim());
    return Number.isFinite(n) && n > 0 ? n : 100;
  } catch {
    return 100;
  }
})();

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
}
function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
}

const dir = await Deno.makeTempDir({ prefix: "agent-bench-tui-" });
const empty = join(dir, "empty.ts");
const idle = join(dir, "idle.ts");
await Deno.writeTextFile(empty, "");
await Deno.writeTextFile(
  idle,
  "await new Promise(() => setTimeout(() => {}, 1e9));\n",
);
await Deno.writeTextFile(join(dir, "agent.hcl"), AGENT_HCL);
await Deno.copyFile(
  join(REPO, "examples", "quickstart", "script.json"),
  join(dir, "script.json"),
);
await Deno.copyFile(
  join(REPO, "examples", "quickstart", "notes.md"),
  join(dir, "notes.md"),
);
const agent = [
  "env",
  "-u",
  "NO_COLOR",
  "TERM=xterm-256color",
  Deno.execPath(),
  "run",
  "-A",
  join(REPO, "main.ts"),
];
const rows: {
  baseline: number;
  line: number;
  tui: number;
  tuiFull: number;
  keyP50: number;
  keyP90: number;
  cpuPerKey: number;
  catP50: number;
  rss: number;
  hwm: number;
  pss: number;
  uss: number;
  baseRss: number;
}[] = [];
try {
  for (let round = 0; round <= RUNS; round++) {
    const socket = `t${round}`;
    try {
      // Baseline: spawn to exit of an empty module; memory of an idle one.
      const t0 = performance.now();
      await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", empty],
        stdout: "null",
        stderr: "null",
      }).output();
      const baseline = performance.now() - t0;
      const idler = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", idle],
        stdout: "null",
        stderr: "null",
      }).spawn();
      await sleep(300);
      const baseRss = memoryOf(idler.pid).rss;
      idler.kill();
      await idler.status;

      const line = await startUntil(
        `${socket}-line`,
        dir,
        [...agent, "--no-tui"],
        (s) => /^>\s*$/m.test(s),
      );
      tmux(`${socket}-line`, "kill-server");
      // The floor of the key measurement: the terminal's own echo of `cat`
      // (tmux's client round trip, the pty, tmux's output).
      await startUntil(`${socket}-cat`, dir, ["cat"], () => true);
      const catLat = await keyLatencies(
        `${socket}-cat`,
        join(dir, `cat-${round}.out`),
      );
      tmux(`${socket}-cat`, "kill-server");
      const tuiT0 = performance.now();
      const tui = await startUntil(
        socket,
        dir,
        agent,
        (s) => s.includes("type a prompt"),
        tuiT0,
      );
      const tuiFull = await shownAfter(
        socket,
        tuiT0,
        (s) => s.includes("· scripted ·"),
      );
      const pid = tuiPid(socket);
      const cpu0 = cpuMs(pid);
      const lat = await keyLatencies(socket, join(dir, `pane-${round}.out`));
      const cpuPerKey = (cpuMs(pid) - cpu0) / lat.length;
      const mem = memoryOf(pid);
      tmux(socket, "kill-server");
      if (round === 0) continue; // warmup
      rows.push({
        baseline,
        line,
        tui,
        tuiFull,
        keyP50: pct(lat, 0.5),
        keyP90: pct(lat, 0.9),
        cpuPerKey,
        catP50: pct(catLat, 0.5),
        rss: mem.rss,
        hwm: mem.hwm,
        pss: mem.pss,
        uss: mem.uss,
        baseRss,
      });
    } finally {
      for (const s of [socket, `${socket}-line`, `${socket}-cat`]) {
        try {
          tmux(s, "kill-server");
        } catch {
          // not running
        }
      }
    }
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}

const m = (k: keyof typeof rows[number]) => median(rows.map((r) => r[k]));
const summary = {
  runs: RUNS,
  baseline_ms: m("baseline"),
  line_ui_start_ms: m("line"),
  tui_start_ms: m("tui"),
  tui_over_line: m("tui") / m("line"),
  tui_full_ms: m("tuiFull"),
  tui_full_over_line: m("tuiFull") / m("line"),
  tui_start_over_baseline: m("tui") / m("baseline"),
  line_start_over_baseline: m("line") / m("baseline"),
  key_p50_ms: m("keyP50"),
  key_p90_ms: m("keyP90"),
  key_p50_over_cat: m("keyP50") / m("catP50"),
  tui_cpu_per_key_ms: m("cpuPerKey"),
  cat_echo_p50_ms: m("catP50"),
  tui_rss_mb: m("rss"),
  tui_peak_rss_mb: m("hwm"),
  tui_pss_mb: m("pss"),
  tui_uss_mb: m("uss"),
  baseline_rss_mb: m("baseRss"),
  tui_rss_over_baseline: m("rss") / m("baseRss"),
};
if (args.values.json) console.log(JSON.stringify({ rows, summary }, null, 2));
else {
  const f = (n: number) => n.toFixed(1);
  console.log(`runs: ${RUNS} (after 1 warmup)`);
  console.log(
    `empty deno run (baseline): ${f(summary.baseline_ms)} ms, idle RSS ${
      f(summary.baseline_rss_mb)
    } MB`,
  );
  console.log(
    `start → prompt, line UI:   ${f(summary.line_ui_start_ms)} ms (${
      f(summary.line_start_over_baseline)
    }x baseline)`,
  );
  console.log(
    `start → prompt, TUI:       ${f(summary.tui_start_ms)} ms (${
      f(summary.tui_start_over_baseline)
    }x baseline; ${summary.tui_over_line.toFixed(2)}x the line UI)`,
  );
  console.log(
    `start → full TUI:          ${f(summary.tui_full_ms)} ms (${
      summary.tui_full_over_line.toFixed(2)
    }x the line UI; the status line shows the session's model)`,
  );
  console.log(
    `keystroke → screen (TUI):  p50 ${f(summary.key_p50_ms)} ms, p90 ${
      f(summary.key_p90_ms)
    } ms (cat's echo, the floor, measured alike: p50 ${
      f(summary.cat_echo_p50_ms)
    } ms; ${summary.key_p50_over_cat.toFixed(2)}x the floor)`,
  );
  console.log(
    `TUI CPU per key:           ${
      f(summary.tui_cpu_per_key_ms)
    } ms (its threads over the 40 keys, idle polls included)`,
  );
  console.log(
    `TUI process memory:        RSS ${f(summary.tui_rss_mb)} MB (${
      f(summary.tui_rss_over_baseline)
    }x baseline), peak ${f(summary.tui_peak_rss_mb)} MB; PSS ${
      f(summary.tui_pss_mb)
    } MB, USS ${f(summary.tui_uss_mb)} MB`,
  );
}
