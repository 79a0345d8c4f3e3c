/**
 * The agent loop's performance figures (issue 6), against real plugin
 * subprocesses (the `scripted` model and the `filesystem` tool). Run with
 * `deno task bench` (or `deno bench -A tests/agent_session_bench.ts`).
 *
 * What is measured, exactly:
 *
 * 1. **Start to first model request.** The bench spawns
 *    `deno run -A main.ts run "…" --json --approve-all --dir <copy of
 *    examples/quickstart>` and times from just before `spawn()` to the
 *    moment the parent reads the `turn_started` event of turn 1 on the
 *    child's stdout. The kernel emits `turn_started` immediately before it
 *    calls the model (`ModelService/StreamCompletion` on the scripted
 *    plugin), so the figure covers the Deno process start, module loading,
 *    compiling `agent.hcl`, launching and configuring both plugins, opening
 *    the session store and the session, and persisting the user message
 *    (plus one pipe read). Deno's module cache is warm (one unmeasured
 *    warmup run).
 * 2. **Kernel overhead per tool turn.** In process (`openKernel` on a temp
 *    project whose script makes 20 `read_file` turns), every event is
 *    timestamped (`performance.now()`) in the session's `onEvent`
 *    callback. For each tool turn N: gross = `turn_started` of N+1 −
 *    assistant `message` of N (model response end → next model request);
 *    tool = `tool_result` − `tool_call` of N (the tool call's own duration
 *    as the kernel sees it: the gRPC round trip to the plugin and the
 *    read); net = gross − tool. The medians of both are printed; the
 *    ≤ 10 ms target applies to net.
 * 3. **Peak resident memory.** While a CLI run (as in 1, on the 20-turn
 *    project; three runs) executes, the kernel process and all its
 *    descendants (the callback gateway and the two plugin processes) are
 *    sampled every ~5 ms: `VmRSS` from `/proc/<pid>/status` and `Pss` from
 *    `/proc/<pid>/smaps_rollup`. The peak of the per-sample sums is printed
 *    (and the kernel process's own `VmHWM`). The RSS sum counts the pages
 *    the Deno processes share (the `deno` executable) once per process;
 *    the Pss sum splits them between the processes.
 *
 * 2 and 3 run when the module loads and print a summary with
 * `console.log`. 1 runs as a `Deno.bench` whose table row times each whole
 * CLI run (start to exit: three turns and an approved write); the figure
 * of 1, start to the first model request, is the median printed at exit,
 * after the table (the first run is a warmup and is left out).
 *
 * @module
 */
import { dirname } from "node:path";
import type { Kernel } from "../kernel/api.ts";
import { openKernel } from "../kernel/kernel.ts";
import type { SessionEvent } from "../kernel/agent/session_events.ts";
import { makeProject, type Project } from "./_agent_project.ts";
import { DENO_ENV, REPO } from "./_helpers.ts";
import { BUILTINS } from "../plugins/builtin.ts";

const MAIN = `${REPO}/main.ts`;
const TOOL_TURNS = 20;
const STARTUP_RUNS = 10;

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

const fmt = (ms: number) => `${ms.toFixed(2)} ms`;

/**
 * A project whose script reads notes/0.md … notes/19.md, one per turn (distinct
 * calls, so the doom-loop detector stays quiet), then answers.
 */
async function readLoopProject(): Promise<Project> {
  const turns: Record<string, unknown>[] = [];
  for (let i = 0; i < TOOL_TURNS; i++) {
    turns.push({
      ...(i > 0 ? { expect: "Hello from the project" } : {}),
      text: `Read ${i + 1}.`,
      tool_calls: [{
        id: `toolu_read_${i}`,
        name: "read_file",
        arguments: { path: `notes/${i}.md` },
      }],
      usage: { input_tokens: 1_000, output_tokens: 20 },
    });
  }
  turns.push({ expect: "Hello from the project", text: "Done." });
  const p = await makeProject({
    turns,
    profile: `max_turns = ${TOOL_TURNS + 5}`,
  });
  await Deno.mkdir(`${p.dir}/notes`);
  for (let i = 0; i < TOOL_TURNS; i++) {
    await Deno.writeTextFile(
      `${p.dir}/notes/${i}.md`,
      `# Note ${i}\nHello from the project.\n`,
    );
  }
  return p;
}

// --- 1. Start to first model request ---------------------------------------

const quick = await makeProject({ turns: [] });
await Deno.remove(quick.dir, { recursive: true });
const cp = await new Deno.Command("cp", {
  args: ["-a", `${REPO}/examples/quickstart`, quick.dir],
}).output();
if (!cp.success) throw new Error(new TextDecoder().decode(cp.stderr));

interface CliTiming {
  /** spawn → turn_started of turn 1, ms. */
  firstRequestMs: number;
  /** Peak of the sum of VmRSS over the process tree, bytes. */
  peakRssBytes: number;
  /** Peak of the sum of Pss (proportional set size) over the tree, bytes. */
  peakPssBytes: number;
  /** The kernel process's VmHWM, bytes. */
  kernelHwmBytes: number;
  /** The most processes seen in the tree at once (kernel included). */
  processes: number;
}

async function statusKb(
  pid: number,
  field: string,
  file = "status",
): Promise<number> {
  try {
    const s = await Deno.readTextFile(`/proc/${pid}/${file}`);
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(s);
    return m ? Number(m[1]) : 0;
  } catch {
    return 0; // gone
  }
}

/** The pid's descendants, from /proc/<pid>/task/<tid>/children. */
async function descendants(pid: number): Promise<number[]> {
  const out: number[] = [];
  const todo = [pid];
  while (todo.length) {
    const p = todo.pop()!;
    try {
      for await (const t of Deno.readDir(`/proc/${p}/task`)) {
        const kids = await Deno.readTextFile(
          `/proc/${p}/task/${t.name}/children`,
        ).catch(() => "");
        for (const k of kids.trim().split(/\s+/).filter(Boolean)) {
          out.push(Number(k));
          todo.push(Number(k));
        }
      }
    } catch {
      // gone
    }
  }
  return out;
}

/**
 * Runs the CLI on a project; times the first model request and, when
 * `sampleRss`, samples the process tree's resident memory until it exits.
 */
async function cliRun(
  project: Project,
  sampleRss: boolean,
): Promise<CliTiming> {
  const t0 = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      MAIN,
      "run",
      "Summarize notes.md",
      "--json",
      "--approve-all",
      "--dir",
      project.dir,
    ],
    // The projects' HOME is temporary: keep Deno's (warm) cache where it is.
    env: { ...project.env, ...DENO_ENV },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let peak = 0;
  let peakPss = 0;
  let hwm = 0;
  let processes = 0;
  let running = true;
  const sampler = sampleRss
    ? (async () => {
      while (running) {
        const pids = [child.pid, ...await descendants(child.pid)];
        const kbs = await Promise.all(pids.map((p) => statusKb(p, "VmRSS")));
        const pss = await Promise.all(
          pids.map((p) => statusKb(p, "Pss", "smaps_rollup")),
        );
        peak = Math.max(peak, kbs.reduce((a, b) => a + b, 0) * 1024);
        peakPss = Math.max(peakPss, pss.reduce((a, b) => a + b, 0) * 1024);
        processes = Math.max(processes, pids.length);
        hwm = Math.max(hwm, (await statusKb(child.pid, "VmHWM")) * 1024);
        await new Promise((r) => setTimeout(r, 5));
      }
    })()
    : Promise.resolve();
  let firstRequestMs = NaN;
  let buf = "";
  const decoder = new TextDecoder();
  for await (const chunk of child.stdout) {
    buf += decoder.decode(chunk, { stream: true });
    if (Number.isNaN(firstRequestMs) && buf.includes('"type":"turn_started"')) {
      firstRequestMs = performance.now() - t0;
    }
  }
  const err = new Response(child.stderr).text();
  const status = await child.status;
  running = false;
  await sampler;
  const last = JSON.parse(buf.trimEnd().split("\n").at(-1)!);
  if (!status.success || last.status !== "completed") {
    throw new Error(
      `agent run failed (${status.code}): ${buf.slice(-2000)}${await err}`,
    );
  }
  return {
    firstRequestMs,
    peakRssBytes: peak,
    peakPssBytes: peakPss,
    kernelHwmBytes: hwm,
    processes,
  };
}

// --- 2. Kernel overhead per tool turn --------------------------------------

interface TurnTimes {
  gross: number[];
  tool: number[];
  net: number[];
}

async function toolTurnSession(kernel: Kernel): Promise<TurnTimes> {
  const stamps: { e: SessionEvent; t: number }[] = [];
  await using session = await kernel.session({
    onEvent: (e) => stamps.push({ e, t: performance.now() }),
  });
  const r = await session.send("Read the notes").result;
  if (r.outcome !== "done") {
    throw new Error(`prompt ${r.outcome}: ${JSON.stringify(r.error)}`);
  }
  const out: TurnTimes = { gross: [], tool: [], net: [] };
  let messageAt: number | undefined;
  let callAt: number | undefined;
  let tool = 0;
  for (const { e, t } of stamps) {
    if (e.type === "message" && e.role === "assistant") {
      messageAt = t;
      tool = 0;
    } else if (e.type === "tool_call") callAt = t;
    else if (e.type === "tool_result" && callAt !== undefined) {
      tool += t - callAt;
      callAt = undefined;
    } else if (e.type === "turn_started" && messageAt !== undefined) {
      out.gross.push(t - messageAt);
      out.tool.push(tool);
      out.net.push(t - messageAt - tool);
      messageAt = undefined;
    }
  }
  if (out.gross.length !== TOOL_TURNS) {
    throw new Error(
      `expected ${TOOL_TURNS} tool turns, saw ${out.gross.length}`,
    );
  }
  return out;
}

const loop = await readLoopProject();
{
  const SESSIONS = 5;
  const turns: TurnTimes = { gross: [], tool: [], net: [] };
  await using kernel = await openKernel(loop.dir, {
    builtins: BUILTINS,
    env: loop.env,
    sessionsDir: `${loop.env.XDG_STATE_HOME}/agent/sessions`,
  });
  await toolTurnSession(kernel); // warmup
  for (let i = 0; i < SESSIONS; i++) {
    const t = await toolTurnSession(kernel);
    turns.gross.push(...t.gross);
    turns.tool.push(...t.tool);
    turns.net.push(...t.net);
  }
  console.log(
    `kernel overhead per tool turn (model response end → next model request, ` +
      `${turns.net.length} read_file turns in ${SESSIONS} sessions): ` +
      `median net ${fmt(median(turns.net))} = gross ` +
      `${fmt(median(turns.gross))} minus the read_file call's own ` +
      `${fmt(median(turns.tool))} (p90 net ${
        fmt(quantile(turns.net, 0.9))
      }); ` +
      `target ≤ 10 ms`,
  );
}

// --- 3. Peak resident memory ------------------------------------------------

{
  const RUNS = 3;
  const runs: CliTiming[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await cliRun(loop, true));
  const max = (f: (r: CliTiming) => number) => Math.max(...runs.map(f));
  const mib = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`;
  console.log(
    `peak resident memory, kernel + plugins (${RUNS} CLI runs of ` +
      `${TOOL_TURNS} read turns, ${max((r) => r.processes)} processes): ` +
      `VmRSS sum ${mib(max((r) => r.peakRssBytes))}, Pss sum ` +
      `${mib(max((r) => r.peakPssBytes))} (kernel process alone: VmHWM ` +
      `${mib(max((r) => r.kernelHwmBytes))}); target ≤ 250 MB`,
  );
}

// --- 1 (timed by Deno.bench). -------------------------------------------------

const startup: number[] = [];
Deno.bench("agent run quickstart: process start → exit (first request below)", {
  group: "agent",
  n: STARTUP_RUNS,
  warmup: 1,
}, async (b) => {
  b.start();
  const { firstRequestMs } = await cliRun(quick, false);
  b.end();
  startup.push(firstRequestMs);
  await Deno.remove(`${quick.dir}/SUMMARY.md`).catch(() => {});
});

globalThis.addEventListener("unload", () => {
  // The first run warms Deno's module cache and the OS page cache.
  const runs = startup.slice(1);
  console.log(
    `start → first model request: median ${fmt(median(runs))} ` +
      `(min ${fmt(Math.min(...runs))}, max ${fmt(Math.max(...runs))}, ` +
      `${runs.length} runs; target ≤ 300 ms)`,
  );
  for (const p of [quick, loop]) {
    Deno.removeSync(dirname(p.dir), { recursive: true });
  }
});
