/**
 * Measures one short-lived process exactly, for the baseline of
 * `tests/bench_e2e.ts` (`deno run` of an empty module).
 *
 * {@linkcode measureTree} samples memory every few milliseconds, which is
 * right for a tree that lives for seconds but misses the peak of a process
 * that lives for 15 ms (an empty `deno run` on a fast machine): a sample
 * taken just after `exec` sees a few hundred KiB, and the next one may find
 * the process gone. Here the process is started with `posix_spawn` and
 * reaped with `wait4` through libc (`Deno.Command` reaps its children
 * itself and gives no resource usage), so:
 *
 * - **CPU** is its `ru_utime + ru_stime` from `wait4`;
 * - **wall** runs from the spawn to the reap;
 * - **peak RSS and PSS**: `/proc/<pid>/smaps_rollup` is read every
 *   millisecond while the process lives, and the highest `Rss` and `Pss`
 *   seen are kept. (`ru_maxrss` cannot serve: `posix_spawn` starts the
 *   child in this process's memory until its `exec`, and Linux carries the
 *   high-water mark across `exec`, so it reports this process's size.)
 *
 * Linux only (glibc ≥ 2.29 for `posix_spawn_file_actions_addchdir_np`).
 *
 * @module
 */
import {
  rusageCpuUs,
  smapsRollupKb,
  type TreeCommand,
  type TreeRun,
} from "./_bench_tree.ts";

const O_WRONLY = 0o1;
const O_RDONLY = 0o0;
const O_CREAT = 0o100;
const O_TRUNC = 0o1000;

let libc:
  | Deno.DynamicLibrary<{
    posix_spawn: {
      parameters: ["buffer", "buffer", "buffer", "pointer", "buffer", "buffer"];
      result: "i32";
    };
    posix_spawn_file_actions_init: { parameters: ["buffer"]; result: "i32" };
    posix_spawn_file_actions_destroy: {
      parameters: ["buffer"];
      result: "i32";
    };
    posix_spawn_file_actions_addopen: {
      parameters: ["buffer", "i32", "buffer", "i32", "u32"];
      result: "i32";
    };
    posix_spawn_file_actions_addchdir_np: {
      parameters: ["buffer", "buffer"];
      result: "i32";
    };
    wait4: {
      parameters: ["i32", "buffer", "i32", "buffer"];
      result: "i32";
      nonblocking: true;
    };
  }>
  | undefined;

function lib(): NonNullable<typeof libc> {
  if (libc) return libc;
  if (Deno.build.os !== "linux") {
    throw new Error(
      `Cannot measure a process on "${Deno.build.os}": the benchmark needs Linux (/proc, posix_spawn, wait4)`,
    );
  }
  libc = Deno.dlopen("libc.so.6", {
    posix_spawn: {
      parameters: ["buffer", "buffer", "buffer", "pointer", "buffer", "buffer"],
      result: "i32",
    },
    posix_spawn_file_actions_init: { parameters: ["buffer"], result: "i32" },
    posix_spawn_file_actions_destroy: { parameters: ["buffer"], result: "i32" },
    posix_spawn_file_actions_addopen: {
      parameters: ["buffer", "i32", "buffer", "i32", "u32"],
      result: "i32",
    },
    posix_spawn_file_actions_addchdir_np: {
      parameters: ["buffer", "buffer"],
      result: "i32",
    },
    wait4: {
      parameters: ["i32", "buffer", "i32", "buffer"],
      result: "i32",
      nonblocking: true,
    },
  });
  return libc;
}

const encoder = new TextEncoder();

/** A NUL-terminated copy of `s`. */
function cString(s: string): Uint8Array<ArrayBuffer> {
  const bytes = encoder.encode(s);
  const out = new Uint8Array(bytes.length + 1);
  out.set(bytes);
  return out;
}

/**
 * A NULL-terminated array of pointers to the strings, for `argv`/`envp`.
 * The strings are returned too: they must stay reachable until the spawn.
 */
function cArray(
  items: readonly string[],
): [BigUint64Array<ArrayBuffer>, Uint8Array[]] {
  const strings = items.map(cString);
  const ptrs = new BigUint64Array(strings.length + 1);
  strings.forEach((s, i) => {
    ptrs[i] = BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(s)));
  });
  return [ptrs, strings];
}

/**
 * Runs a command that starts no other process and measures it (see the
 * module doc). Its standard input and output are `/dev/null`; its standard
 * error is kept (`stderr`), its standard output is not (`stdout` is "").
 *
 * @param cmd The command; `env` is its whole environment.
 * @returns Its figures; `processes` is 1, `strays` 0.
 * @throws {Error} when it cannot be started, or does not exit within
 * `timeoutMs` (it is killed and reaped first).
 */
export async function measureLone(cmd: TreeCommand): Promise<TreeRun> {
  const c = lib().symbols;
  const errFile = await Deno.makeTempFile({ prefix: "ph-bench-lone-" });
  const actions = new Uint8Array(128); // posix_spawn_file_actions_t: 80 bytes
  if (c.posix_spawn_file_actions_init(actions) !== 0) {
    throw new Error(
      "Cannot prepare the spawn: posix_spawn_file_actions_init failed",
    );
  }
  const devNull = cString("/dev/null");
  const errPath = cString(errFile);
  const cwd = cString(cmd.cwd);
  const path = cString(cmd.command);
  const [argv, argvStrings] = cArray([cmd.command, ...cmd.args]);
  const [envp, envStrings] = cArray(
    Object.entries(cmd.env).map(([k, v]) => `${k}=${v}`),
  );
  const pidBuf = new Int32Array(1);
  let spawnedAt: number;
  try {
    for (
      const [fd, file, flags] of [
        [0, devNull, O_RDONLY],
        [1, devNull, O_WRONLY],
        [2, errPath, O_WRONLY | O_CREAT | O_TRUNC],
      ] as const
    ) {
      if (
        c.posix_spawn_file_actions_addopen(actions, fd, file, flags, 0o600) !==
          0
      ) {
        throw new Error(`Cannot prepare the spawn: addopen of fd ${fd} failed`);
      }
    }
    if (c.posix_spawn_file_actions_addchdir_np(actions, cwd) !== 0) {
      throw new Error(`Cannot prepare the spawn: chdir to ${cmd.cwd} failed`);
    }
    spawnedAt = performance.now();
    const rc = c.posix_spawn(pidBuf, path, actions, null, argv, envp);
    if (rc !== 0) {
      throw new Error(
        `Cannot start ${cmd.label}: posix_spawn of ${cmd.command} failed with errno ${rc}`,
      );
    }
  } finally {
    c.posix_spawn_file_actions_destroy(actions);
    // The strings were only needed until the spawn (it copies them).
    void argvStrings;
    void envStrings;
  }
  const pid = pidBuf[0]!;
  const status = new Int32Array(1);
  const usage = new BigInt64Array(18); // struct rusage: 144 bytes
  const reaped = c.wait4(pid, status, 0, usage);
  let peakPssKb = 0;
  let peakRssKb = 0;
  const sample = () => {
    const m = smapsRollupKb(pid);
    if (!m) return;
    peakPssKb = Math.max(peakPssKb, m.pss);
    peakRssKb = Math.max(peakRssKb, m.rss);
  };
  sample();
  const sampler = setInterval(sample, 1);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      Deno.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }, cmd.timeoutMs);
  let waited: number;
  try {
    waited = await reaped;
  } finally {
    clearInterval(sampler);
    clearTimeout(timer);
  }
  const exitedAt = performance.now();
  const stderr = await Deno.readTextFile(errFile).finally(() =>
    Deno.remove(errFile).catch(() => {})
  );
  if (waited !== pid) {
    throw new Error(`Cannot reap ${cmd.label}: wait4 returned ${waited}`);
  }
  if (!timedOut && peakRssKb === 0) {
    throw new Error(
      `Cannot measure ${cmd.label}: it ended before its memory could be read once`,
    );
  }
  if (timedOut) {
    throw new Error(
      `Cannot finish ${cmd.label}: no exit within ${cmd.timeoutMs} ms, it was killed; stderr: ${
        stderr.slice(-2000)
      }`,
    );
  }
  const cpuUs = rusageCpuUs(usage);
  const s = status[0]!;
  const code = (s & 0x7f) === 0 ? (s >> 8) & 0xff : 128 + (s & 0x7f);
  return {
    spawnedAt,
    exitedAt,
    wallMs: exitedAt - spawnedAt,
    cpuMs: cpuUs / 1000,
    observerCpuMs: 0,
    peakRssBytes: peakRssKb * 1024,
    peakPssBytes: peakPssKb * 1024,
    processes: 1,
    strays: 0,
    code,
    root: {
      cpuMs: cpuUs / 1000,
      peakRssBytes: peakRssKb * 1024,
      peakPssBytes: peakPssKb * 1024,
    },
    stdout: "",
    stderr,
  };
}
