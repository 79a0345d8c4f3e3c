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
 * runs one command at a time). Processes re-parented here that still run
 * when the command has exited are counted as `strays` (0 when the kernel
 * cleans up after itself); one that had already exited (a zombie waiting
 * for this process, its new parent, to reap it: e.g. the init of a
 * plugin's bubblewrap sandbox, which ends just after `bwrap` does and
 * which the kernel waits for) is reaped here but left nothing running.
 *
 * **Memory.** Every {@linkcode SAMPLE_MS} ms each process of the tree has
 * its resident set read from `/proc/<pid>/statm` (a counter: about 10 µs
 * through a file kept open; synchronous reads, because Deno's asynchronous
 * file calls cost several times the CPU of the read; 10 ms, because each
 * timer wake-up of this process costs CPU too), and every
 * {@linkcode PSS_MS} ms its `Rss` and `Pss` from
 * `/proc/<pid>/smaps_rollup`; the peaks of the per-sample sums are kept.
 * `smaps_rollup` is read less often because the kernel computes it by
 * walking all the process's mappings: 0.6–30 ms of CPU for one Deno
 * process on a busy 2-core machine, so reading it every few ms for four
 * processes kept a core busy and slowed the very tree being measured. The PSS peak can
 * therefore miss a short rise; the tree's memory climbs while the plugins
 * start and then stays flat through the turns, where it is sampled many
 * times. The tree (the child and its descendants, from
 * `/proc/<pid>/task/<tid>/children`) is listed again every
 * {@linkcode LIST_MS} ms, so a new process is counted within that time of
 * its start, long before its peak. {@linkcode TreeRun.observerCpuMs}
 * reports the CPU this process spent meanwhile (the sampler, and the fake
 * servers it hosts), i.e. the load competing with the tree.
 *
 * **The root's own figures.** The command's own process (the kernel, for
 * `agent run`) is reported apart as well: its peak RSS and PSS from the
 * same samples, and its own CPU (user + sys, not its children's) from
 * `/proc/<pid>/stat`, read at each listing of the tree: the last reading
 * before its exit, so it misses up to {@linkcode LIST_MS} ms of its CPU
 * (its exit path) and has the clock tick's resolution (10 ms).
 *
 * The RSS sum counts pages shared by several processes (the `deno`
 * executable) once per process; the PSS sum splits them between the
 * processes that map them, so it is the memory the tree costs the machine.
 *
 * @module
 */

/** Milliseconds between two RSS samples. */
export const SAMPLE_MS = 10;

/** Milliseconds between two PSS samples. */
export const PSS_MS = 200;

/** Milliseconds between two listings of the tree's processes. */
export const LIST_MS = 50;

/** How long strays may run after the child exits before they are killed. */
const STRAY_GRACE_MS = 5_000;

const PR_SET_CHILD_SUBREAPER = 36;
const RUSAGE_SELF = 0;
const RUSAGE_CHILDREN = -1;
const WNOHANG = 1;
const SC_PAGESIZE = 30;
const SC_CLK_TCK = 2;

let libc:
  | Deno.DynamicLibrary<{
    prctl: {
      parameters: ["i32", "u64", "u64", "u64", "u64"];
      result: "i32";
    };
    getrusage: { parameters: ["i32", "buffer"]; result: "i32" };
    wait4: { parameters: ["i32", "buffer", "i32", "buffer"]; result: "i32" };
    sysconf: { parameters: ["i32"]; result: "i64" };
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
    sysconf: { parameters: ["i32"], result: "i64" },
  });
  if (libc.symbols.prctl(PR_SET_CHILD_SUBREAPER, 1n, 0n, 0n, 0n) !== 0) {
    throw new Error("Cannot become a child subreaper: prctl failed");
  }
  return libc;
}

/** User + sys time of this process or of all its reaped children, µs. */
function cpuUs(who: typeof RUSAGE_SELF | typeof RUSAGE_CHILDREN): number {
  // struct rusage on 64-bit Linux starts with ru_utime and ru_stime, each
  // a struct timeval { long tv_sec; long tv_usec; }.
  const buf = new BigInt64Array(18);
  if (lib().symbols.getrusage(who, buf) !== 0) {
    throw new Error("Cannot read the CPU time: getrusage failed");
  }
  return rusageCpuUs(buf);
}

/**
 * User + sys time of a `struct rusage` (filled by `getrusage` or `wait4`),
 * µs.
 *
 * @param usage The structure, as 18 longs.
 * @returns `ru_utime + ru_stime` in microseconds.
 */
export function rusageCpuUs(usage: BigInt64Array): number {
  return Number(
    usage[0]! * 1_000_000n + usage[1]! + usage[2]! * 1_000_000n +
      usage[3]!,
  );
}

/**
 * `Rss` and `Pss` of a process from `/proc/<pid>/smaps_rollup`, in kB.
 *
 * @param pid The process.
 * @returns The figures, or `undefined` once the process has gone.
 */
export function smapsRollupKb(
  pid: number,
): { rss: number; pss: number } | undefined {
  let s: string;
  try {
    s = Deno.readTextFileSync(`/proc/${pid}/smaps_rollup`);
  } catch {
    return undefined;
  }
  return {
    rss: Number(/^Rss:\s+(\d+) kB/m.exec(s)?.[1] ?? 0),
    pss: Number(/^Pss:\s+(\d+) kB/m.exec(s)?.[1] ?? 0),
  };
}

/** Reaps one exited child of this process: its pid, 0 if none has exited, -1 if there is none. */
function reapOne(): number {
  return lib().symbols.wait4(-1, new Int32Array(1), WNOHANG, null);
}

/** The pids of `pid`'s children (all threads). */
function childrenOf(pid: number | "self"): number[] {
  const out: number[] = [];
  try {
    for (const t of Deno.readDirSync(`/proc/${pid}/task`)) {
      let kids = "";
      try {
        kids = Deno.readTextFileSync(`/proc/${pid}/task/${t.name}/children`);
      } catch {
        // the thread is gone
      }
      for (const k of kids.split(/\s+/)) if (k) out.push(Number(k));
    }
  } catch {
    // gone
  }
  return out;
}

/** Whether a process runs (neither gone nor a zombie). */
function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) [ZX]/.test(Deno.readTextFileSync(`/proc/${pid}/stat`));
  } catch {
    return false;
  }
}

/**
 * The descendants of a process. Synchronous: /proc answers at once, and
 * Deno's asynchronous file calls cost several times the CPU of a read.
 *
 * @param pid The root, or `"self"` for this process.
 * @returns The pids, parents before their children, the root left out.
 */
export function descendants(pid: number | "self"): number[] {
  const out: number[] = [];
  const todo = [pid];
  while (todo.length) {
    for (const k of childrenOf(todo.pop()!)) {
      out.push(k);
      todo.push(k);
    }
  }
  return out;
}

/** A /proc file kept open and read again from the start on each sample. */
class ProcFile {
  #file: Deno.FsFile | undefined;
  #buf: Uint8Array;
  #dec = new TextDecoder();

  constructor(path: string, size: number) {
    this.#buf = new Uint8Array(size);
    try {
      this.#file = Deno.openSync(path);
    } catch {
      this.#file = undefined; // already gone
    }
  }

  /** The file's text, or "" once the process has gone. */
  read(): string {
    if (!this.#file) return "";
    try {
      this.#file.seekSync(0, Deno.SeekMode.Start);
      const n = this.#file.readSync(this.#buf) ?? 0;
      return this.#dec.decode(this.#buf.subarray(0, n));
    } catch {
      this.close();
      return "";
    }
  }

  close(): void {
    try {
      this.#file?.close();
    } catch {
      // already closed
    }
    this.#file = undefined;
  }
}

/** One process's memory, from /proc. */
class MemoryProbe {
  #pid: number;
  #statm: ProcFile;

  constructor(pid: number) {
    this.#pid = pid;
    // statm looks the process's memory up on each read, so the open file
    // stays right across exec. smaps_rollup binds to the memory of the
    // moment it is opened: it is opened anew on each read.
    this.#statm = new ProcFile(`/proc/${pid}/statm`, 256);
  }

  /** Resident pages (0 once the process has gone). */
  residentPages(): number {
    return Number(this.#statm.read().split(" ")[1] ?? 0);
  }

  /** `Rss` and `Pss` in kB (0 once the process has gone). */
  smapsKb(): { rss: number; pss: number } {
    return smapsRollupKb(this.#pid) ?? { rss: 0, pss: 0 };
  }

  close(): void {
    this.#statm.close();
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
  /**
   * CPU this process spent meanwhile (the sampler, and whatever else it
   * serves, e.g. a fake server): load the measured tree competed with.
   */
  observerCpuMs: number;
  /** Descendants left running or unreaped when the child exited. */
  strays: number;
  /** The child's exit code. */
  code: number;
  /** The child's own figures (its descendants left out). */
  root: RootFigures;
  /** Its standard output. */
  stdout: string;
  /** Its standard error. */
  stderr: string;
}

/** The figures of the command's own process (see the module doc). */
export interface RootFigures {
  /** Its own user + sys time, ms (sampled: see the module doc). */
  cpuMs: number;
  /** Its peak `Rss`, bytes. */
  peakRssBytes: number;
  /** Its peak `Pss`, bytes. */
  peakPssBytes: number;
}

/** User + sys ticks of a process from its `/proc/<pid>/stat` text. */
function ownTicks(stat: string): number | undefined {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 14 and 15 of proc(5), counted from the state (field 3).
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return Number.isFinite(utime) && Number.isFinite(stime)
    ? utime + stime
    : undefined;
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
  const cpuBefore = cpuUs(RUSAGE_CHILDREN);
  const selfBefore = cpuUs(RUSAGE_SELF);
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
  let peakRss = 0;
  let peakPss = 0;
  let processes = 0;
  const pageBytes = Number(lib().symbols.sysconf(SC_PAGESIZE));
  const tickMs = 1000 / Number(lib().symbols.sysconf(SC_CLK_TCK));
  const probes = new Map<number, MemoryProbe>();
  const rootStat = new ProcFile(`/proc/${child.pid}/stat`, 1024);
  let rootTicks = 0;
  let rootRss = 0;
  let rootPss = 0;
  let listedAt = -Infinity;
  let pssAt = -Infinity;
  const sample = () => {
    const now = performance.now();
    // Listing the tree reads a file per thread of every process: do it
    // less often than the memory, which is one open file per process.
    if (now - listedAt >= LIST_MS) {
      listedAt = now;
      for (const pid of [child.pid, ...descendants(child.pid)]) {
        if (!probes.has(pid)) probes.set(pid, new MemoryProbe(pid));
      }
      const ticks = ownTicks(rootStat.read());
      if (ticks !== undefined) rootTicks = Math.max(rootTicks, ticks);
    }
    let rss = 0;
    let alive = 0;
    for (const [pid, p] of probes) {
      const pages = p.residentPages();
      rss += pages * pageBytes;
      if (pages > 0) alive++;
      if (pid === child.pid) rootRss = Math.max(rootRss, pages * pageBytes);
    }
    // A lone process (the empty-module baseline, or a kernel before its
    // plugins) is cheap to read and may live less than PSS_MS: read it at
    // every sample, so its peak is not missed.
    if (now - pssAt >= (probes.size <= 1 ? 0 : PSS_MS)) {
      pssAt = now;
      let pssKb = 0;
      let rssKb = 0;
      for (const [pid, p] of probes) {
        const m = p.smapsKb();
        pssKb += m.pss;
        rssKb += m.rss;
        if (pid === child.pid) {
          rootPss = Math.max(rootPss, m.pss * 1024);
          rootRss = Math.max(rootRss, m.rss * 1024);
        }
      }
      peakPss = Math.max(peakPss, pssKb * 1024);
      rss = Math.max(rss, rssKb * 1024);
    }
    peakRss = Math.max(peakRss, rss);
    processes = Math.max(processes, alive);
  };
  const sampler = setInterval(sample, SAMPLE_MS);
  sample();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), cmd.timeoutMs);
  });
  const first = await Promise.race([status, timedOut]);
  if (first === "timeout") {
    killAll([child.pid, ...descendants(child.pid)]);
  }
  const s = await status;
  clearTimeout(timer);
  clearInterval(sampler);
  for (const p of probes.values()) p.close();
  rootStat.close();
  const strays = childrenOf("self").filter(isRunning).length;
  await reapStrays();
  const cpuMs = (cpuUs(RUSAGE_CHILDREN) - cpuBefore) / 1000;
  const observerCpuMs = (cpuUs(RUSAGE_SELF) - selfBefore) / 1000;
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
    observerCpuMs,
    peakRssBytes: peakRss,
    peakPssBytes: peakPss,
    processes,
    strays,
    code: s.code,
    root: {
      cpuMs: rootTicks * tickMs,
      peakRssBytes: rootRss,
      peakPssBytes: rootPss,
    },
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
    if (now > killAt) killAll(childrenOf("self"));
    await new Promise((r) => setTimeout(r, 5));
  }
}
