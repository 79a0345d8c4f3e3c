/**
 * Measures one command's whole process tree for `tests/bench_e2e.ts`: wall
 * time, CPU (user + sys) of every process in the tree, and the peak of the
 * tree's summed RSS and PSS.
 *
 * **CPU.** The calling process makes itself a child subreaper
 * (`prctl(PR_SET_CHILD_SUBREAPER)`, through `Deno.dlopen` of libc), so a
 * descendant whose parent exits without waiting for it is re-parented to
 * the caller instead of to init. Linux adds a process's CPU time, and the
 * CPU time of every child it has waited for, to its parent's
 * `RUSAGE_CHILDREN` when the parent reaps it. Deno reaps the child it
 * spawned; the child reaps what it spawned (the kernel awaits its plugins
 * and its callback gateway); anything re-parented to the caller is reaped
 * here with `wait4(-1)` once the child has exited. `getrusage
 * (RUSAGE_CHILDREN)` before and after the run therefore differs by exactly
 * the user + sys time of every process of the tree, at microsecond
 * resolution, including CPU spent in the last milliseconds before each
 * exit, which sampling `/proc/<pid>/stat` would miss. It requires that
 * the caller has no other child running at the same time (the benchmark
 * runs one command at a time). Processes re-parented here are counted as
 * `strays` (0 when the kernel cleans up after itself).
 *
 * **Memory.** Every {@linkcode SAMPLE_MS} ms the tree (the child and its
 * descendants, from `/proc/<pid>/task/<tid>/children`) is listed and each
 * process's `Rss` and `Pss` are read from `/proc/<pid>/smaps_rollup`; the
 * peaks of the per-sample sums are kept. The RSS sum counts pages shared by
 * several processes (the `deno` executable) once per process; the PSS sum
 * splits them between the processes that map them, so it is the memory the
 * tree costs the machine. A peak that lasts less than a sampling interval
 * can be missed.
 *
 * @module
 */

/** Milliseconds between two memory samples. */
export const SAMPLE_MS = 4;

/** How long strays may run after the child exits before they are killed. */
const STRAY_GRACE_MS = 5_000;

const PR_SET_CHILD_SUBREAPER = 36;
const RUSAGE_CHILDREN = -1;
const WNOHANG = 1;

let libc:
  | Deno.DynamicLibrary<{
    prctl: {
      parameters: ["i32", "u64", "u64", "u64", "u64"];
      result: "i32";
    };
    getrusage: { parameters: ["i32", "buffer"]; result: "i32" };
    wait4: { parameters: ["i32", "buffer", "i32", "buffer"]; result: "i32" };
  }>
  | undefined;

function lib(): NonNullable<typeof libc> {
  if (libc) return libc;
  if (Deno.build.os !== "linux") {
    throw new Error(
      `Cannot measure a process tree on "${Deno.build.os}": the benchmark needs Linux (/proc, prctl)`,
    );
  }
  libc = Deno.dlopen("libc.so.6", {
    prctl: { parameters: ["i32", "u64", "u64", "u64", "u64"], result: "i32" },
    getrusage: { parameters: ["i32", "buffer"], result: "i32" },
    wait4: { parameters: ["i32", "buffer", "i32", "buffer"], result: "i32" },
  });
  if (libc.symbols.prctl(PR_SET_CHILD_SUBREAPER, 1n, 0n, 0n, 0n) !== 0) {
    throw new Error("Cannot become a child subreaper: prctl failed");
  }
  return libc;
}

/** User + sys time of all reaped children so far, in microseconds. */
function childrenCpuUs(): number {
  // struct rusage on 64-bit Linux starts with ru_utime and ru_stime, each
  // a struct timeval { long tv_sec; long tv_usec; }.
  const buf = new BigInt64Array(18);
  if (lib().symbols.getrusage(RUSAGE_CHILDREN, buf) !== 0) {
    throw new Error("Cannot read the children's CPU time: getrusage failed");
  }
  return Number(
    buf[0]! * 1_000_000n + buf[1]! + buf[2]! * 1_000_000n +
      buf[3]!,
  );
}

/** Reaps one exited child of this process: its pid, 0 if none has exited, -1 if there is none. */
function reapOne(): number {
  return lib().symbols.wait4(-1, new Int32Array(1), WNOHANG, null);
}

/** The pids of `pid`'s children (all threads). */
async function childrenOf(pid: number | "self"): Promise<number[]> {
  const out: number[] = [];
  try {
    for await (const t of Deno.readDir(`/proc/${pid}/task`)) {
      const kids = await Deno.readTextFile(
        `/proc/${pid}/task/${t.name}/children`,
      ).catch(() => "");
      for (const k of kids.split(/\s+/)) if (k) out.push(Number(k));
    }
  } catch {
    // gone
  }
  return out;
}

/**
 * `pid` and all its descendants.
 *
 * @param pid The root.
 * @returns The pids, the root first.
 */
export async function processTree(pid: number): Promise<number[]> {
  const out = [pid];
  for (let i = 0; i < out.length; i++) out.push(...await childrenOf(out[i]!));
  return out;
}

/** `Rss` and `Pss` of one process in kB (0 once it has gone). */
async function memoryKb(pid: number): Promise<{ rss: number; pss: number }> {
  try {
    const s = await Deno.readTextFile(`/proc/${pid}/smaps_rollup`);
    return {
      rss: Number(/^Rss:\s+(\d+) kB/m.exec(s)?.[1] ?? 0),
      pss: Number(/^Pss:\s+(\d+) kB/m.exec(s)?.[1] ?? 0),
    };
  } catch {
    return { rss: 0, pss: 0 };
  }
}

/** Kills `pids` with SIGKILL, ignoring those already gone. */
function killAll(pids: readonly number[]): void {
  for (const p of pids) {
    try {
      Deno.kill(p, "SIGKILL");
    } catch {
      // gone
    }
  }
}

/** What {@linkcode measureTree} needs. */
export interface TreeCommand {
  /** The executable. */
  command: string;
  /** Its arguments. */
  args: string[];
  /** Its whole environment. */
  env: Record<string, string>;
  /** Its working directory. */
  cwd: string;
  /** Kill the tree and fail after this many milliseconds. */
  timeoutMs: number;
  /** What the error messages call it, e.g. `agent run (anthropic, 20 reads)`. */
  label: string;
}

/** One measured run of a process tree. */
export interface TreeRun {
  /** Just before the spawn, on the `performance.now()` clock. */
  spawnedAt: number;
  /** When the child's exit was seen, on the same clock. */
  exitedAt: number;
  /** `exitedAt - spawnedAt`, ms. */
  wallMs: number;
  /** User + sys time of every process of the tree, ms. */
  cpuMs: number;
  /** Peak of the sum of `Rss` over the tree, bytes. */
  peakRssBytes: number;
  /** Peak of the sum of `Pss` over the tree, bytes. */
  peakPssBytes: number;
  /** The most processes seen in the tree at once. */
  processes: number;
  /** Descendants left running or unreaped when the child exited. */
  strays: number;
  /** The child's exit code. */
  code: number;
  /** Its standard output. */
  stdout: string;
  /** Its standard error. */
  stderr: string;
}

/**
 * Runs a command and measures its process tree (see the module doc). One
 * at a time: no other child of this process may run meanwhile.
 *
 * @param cmd The command.
 * @returns The figures and the output.
 * @throws {Error} when the command does not exit within `timeoutMs` (the
 * tree is killed and reaped first).
 */
export async function measureTree(cmd: TreeCommand): Promise<TreeRun> {
  lib();
  const cpuBefore = childrenCpuUs();
  const spawnedAt = performance.now();
  const child = new Deno.Command(cmd.command, {
    args: cmd.args,
    env: cmd.env,
    clearEnv: true,
    cwd: cmd.cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let exitedAt = NaN;
  const status = child.status.then((s) => {
    exitedAt = performance.now();
    return s;
  });
  const stdout = new Response(child.stdout).text();
  const stderr = new Response(child.stderr).text();
  let running = true;
  let peakRss = 0;
  let peakPss = 0;
  let processes = 0;
  let seen: number[] = [child.pid];
  const sampler = (async () => {
    while (running) {
      const pids = await processTree(child.pid);
      seen = [...new Set([...seen, ...pids])];
      const mem = await Promise.all(pids.map(memoryKb));
      if (!running) break; // the pid may have been reused
      peakRss = Math.max(peakRss, mem.reduce((a, m) => a + m.rss, 0) * 1024);
      peakPss = Math.max(peakPss, mem.reduce((a, m) => a + m.pss, 0) * 1024);
      processes = Math.max(processes, pids.length);
      await new Promise((r) => setTimeout(r, SAMPLE_MS));
    }
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), cmd.timeoutMs);
  });
  const first = await Promise.race([status, timedOut]);
  if (first === "timeout") {
    killAll([...await processTree(child.pid), ...seen]);
  }
  const s = await status;
  clearTimeout(timer);
  running = false;
  await sampler;
  const strays = await reapStrays();
  const cpuMs = (childrenCpuUs() - cpuBefore) / 1000;
  const [out, err] = await Promise.all([stdout, stderr]);
  if (first === "timeout") {
    throw new Error(
      `Cannot finish ${cmd.label}: no exit within ${cmd.timeoutMs} ms, the process tree was killed; stderr: ${
        err.slice(-2000)
      }`,
    );
  }
  return {
    spawnedAt,
    exitedAt,
    wallMs: exitedAt - spawnedAt,
    cpuMs,
    peakRssBytes: peakRss,
    peakPssBytes: peakPss,
    processes,
    strays,
    code: s.code,
    stdout: out,
    stderr: err,
  };
}

/**
 * Reaps every process re-parented to this one; kills those still running
 * after {@linkcode STRAY_GRACE_MS}.
 *
 * @returns How many there were.
 */
async function reapStrays(): Promise<number> {
  let count = 0;
  const killAt = performance.now() + STRAY_GRACE_MS;
  while (true) {
    const r = reapOne();
    if (r > 0) {
      count++;
      continue;
    }
    if (r < 0) return count; // no children left
    const now = performance.now();
    if (now > killAt + STRAY_GRACE_MS) {
      throw new Error(
        `Cannot reap the processes left behind: ${count} reaped, the rest ignore SIGKILL`,
      );
    }
    if (now > killAt) killAll(await childrenOf("self"));
    await new Promise((r) => setTimeout(r, 5));
  }
}
