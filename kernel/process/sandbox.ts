/**
 * The OS sandbox under every plugin on Linux: bubblewrap (`bwrap`) with new
 * user, PID, IPC, UTS and (unless the plugin may use the network) network
 * namespaces, and a mount view built from nothing: a fresh `/proc` for the
 * new PID namespace (never the host's), `/dev` basics, a fresh `/tmp`,
 * the system libraries, and exactly the paths the {@linkcode SandboxView}
 * names (read-only or read-write). The kernel's files, its `/proc` entry
 * and `/etc` are not in the view, so a plugin cannot read the kernel's
 * environment (`/proc/$PPID/environ`), `/etc/passwd` or `agent.hcl`
 * unless a grant names them.
 *
 * {@linkcode sandboxCommand} wraps the very command the launcher spawns
 * (`bwrap <view> -- <command>`); {@linkcode probeSandbox} checks once per
 * process and `bwrap` path whether bubblewrap works here.
 *
 * @module
 */
import { isAbsolute, join } from "node:path";
import type {
  LaunchedProcess,
  ProcessCommand,
  ProcessStatus,
} from "./launcher.ts";

/** The `bwrap` executable looked up on `PATH` by default. */
export const DEFAULT_BWRAP = "bwrap";

/** What a sandboxed plugin sees of the host. */
export interface SandboxView {
  /** Files or directories bound read-only at the same path (absent ones are skipped). */
  readOnly: readonly string[];
  /** Files or directories bound read-write at the same path (absent ones are skipped). */
  readWrite: readonly string[];
  /** Keep the host's network namespace (a plugin granted `net`, or TCP transport). */
  network: boolean;
  /** The working directory inside (created empty when no bound path covers it). */
  cwd: string;
  /**
   * Files shown as `/dev/null` even where a bound path covers them (the
   * installation key); one that does not exist or that no bound path
   * covers is not in the view anyway and is skipped.
   */
  masked?: readonly string[];
  /**
   * Directories bound read-write at another path (`source` on the host,
   * shown at `path`), after every other bind: a private directory over a
   * part of a read-only one (a plugin's own `node_compat_bin` inside the
   * read-only Deno cache). The host directory at `path` must exist.
   */
  private?: readonly { source: string; path: string }[];
}

// The system's programs and libraries (every dynamically linked program,
// Deno included, needs them; a shell plugin and the commands a plugin is
// granted to run need the programs), and the loader's cache: no secrets.
// Binding the programs always also keeps Deno's own "Requires run access"
// answer for a program that is not granted.
const SYSTEM_PATHS = [
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  // The time zone (no secret: what `date` shows). Without it, ICU looks
  // for the zone by comparing every file of /usr/share/zoneinfo with the
  // missing /etc/localtime (about 5,600 system calls, ~20 ms of CPU, at
  // every Deno start), and plugins ran in UTC whatever the host's zone.
  "/etc/localtime",
];
// Name resolution and TLS roots, for a plugin that may use the network.
const NETWORK_PATHS = [
  "/etc/resolv.conf",
  "/etc/hosts",
  "/etc/nsswitch.conf",
  "/etc/gai.conf",
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/pki",
];

function lstat(path: string): Deno.FileInfo | undefined {
  try {
    return Deno.lstatSync(path);
  } catch {
    return undefined;
  }
}

/** `/a/b` is `/a/b` or below `/a`. */
function within(path: string, root: string): boolean {
  return path === root ||
    path.startsWith(root.endsWith("/") ? root : root + "/");
}

/**
 * The `bwrap` arguments (before `--`) for a view: namespaces, the base
 * mounts, system paths, then the view's paths from the shallowest to the
 * deepest (a deeper bind refines a shallower one; read-write wins over
 * read-only on the same path).
 *
 * @example Usage
 * ```ts
 * import { bwrapArgs } from "./sandbox.ts";
 * import assert from "node:assert/strict";
 * const args = bwrapArgs({
 *   readOnly: ["/srv/plugin"], readWrite: ["/tmp/p1"], network: false,
 *   cwd: "/srv/project",
 * });
 * assert.ok(args.includes("--unshare-all"));
 * assert.ok(!args.includes("--share-net"));
 * assert.ok(args.join(" ").includes("--bind-try /tmp/p1 /tmp/p1"));
 * ```
 *
 * @param view What the plugin sees.
 * @returns The arguments.
 * @throws {RangeError} When a path of the view is not absolute.
 */
export function bwrapArgs(view: SandboxView): string[] {
  const args = [
    "--unshare-all",
    ...(view.network ? ["--share-net"] : []),
    "--die-with-parent",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--tmpfs",
    "/tmp",
  ];
  const system = [...SYSTEM_PATHS, ...(view.network ? NETWORK_PATHS : [])];
  for (const p of system) {
    const st = lstat(p);
    if (st === undefined) continue;
    if (st.isSymlink) {
      args.push("--symlink", Deno.readLinkSync(p), p);
    } else args.push("--ro-bind", p, p);
  }
  for (const p of [...view.readOnly, ...view.readWrite, view.cwd]) {
    if (!isAbsolute(p)) {
      throw new RangeError(`Cannot sandbox a relative path: "${p}"`);
    }
  }
  // The working directory exists even when nothing bound covers it.
  if (
    ![...view.readOnly, ...view.readWrite].some((r) => within(view.cwd, r))
  ) {
    args.push("--dir", view.cwd);
  }
  const mounts = new Map<string, "ro" | "rw">();
  for (const p of view.readOnly) if (!mounts.has(p)) mounts.set(p, "ro");
  for (const p of view.readWrite) mounts.set(p, "rw");
  const ordered = [...mounts].sort(([a], [b]) =>
    a.split("/").length - b.split("/").length || (a < b ? -1 : 1)
  );
  for (const [p, mode] of ordered) {
    args.push(mode === "rw" ? "--bind-try" : "--ro-bind-try", p, p);
  }
  for (const { source, path } of view.private ?? []) {
    if (!isAbsolute(source) || !isAbsolute(path)) {
      throw new RangeError(
        `Cannot sandbox a relative path: "${isAbsolute(path) ? source : path}"`,
      );
    }
    args.push("--bind", source, path);
  }
  // Masks go last, over the binds that cover them: by the path as named
  // and by its real path (a grant may name either).
  const masks = new Set<string>();
  for (const p of view.masked ?? []) {
    if (!isAbsolute(p)) {
      throw new RangeError(`Cannot sandbox a relative path: "${p}"`);
    }
    if (lstat(p) === undefined) continue;
    masks.add(p);
    try {
      masks.add(Deno.realPathSync(p));
    } catch {
      // unreadable: the path as named is masked
    }
  }
  for (const p of masks) {
    if ([...mounts.keys()].some((r) => within(p, r))) {
      args.push("--ro-bind", "/dev/null", p);
    }
  }
  args.push("--chdir", view.cwd);
  return args;
}

/**
 * Wraps a command in bubblewrap: the returned command starts `bwrap`,
 * which builds the view and then executes the original command with its
 * arguments and environment (bubblewrap passes its environment through,
 * and the launcher gives it exactly the plugin's).
 *
 * @param command The plugin's command.
 * @param view What it may see.
 * @param bwrap The `bwrap` executable.
 * @returns The command to spawn.
 */
export function sandboxCommand(
  command: ProcessCommand,
  view: SandboxView,
  bwrap: string = DEFAULT_BWRAP,
): ProcessCommand {
  return {
    ...command,
    command: bwrap,
    args: [...bwrapArgs(view), "--", command.command, ...command.args],
  };
}

/** Whether bubblewrap works on this host. */
export interface SandboxProbe {
  /** True when a sandboxed `true` ran and exited 0. */
  available: boolean;
  /** Why not, when it does not. */
  reason?: string;
}

const probes = new Map<string, Promise<SandboxProbe>>();
const settled = new Map<string, SandboxProbe>();

/**
 * Checks once per process (and `bwrap` and `PATH`) whether bubblewrap can
 * build a sandbox here: it runs `true` with the namespaces and base
 * mounts a plugin gets. A bare `bwrap` is looked up on `path`, as a
 * launch looks it up on the `PATH` the plugin gets (the kernel's).
 *
 * @param bwrap The `bwrap` executable.
 * @param path The `PATH` to find it on (default: this process's).
 * @returns Whether it works, and why not.
 */
export function probeSandbox(
  bwrap: string = DEFAULT_BWRAP,
  path: string = processPath(),
): Promise<SandboxProbe> {
  const key = `${bwrap}\0${path}`;
  let p = probes.get(key);
  if (p === undefined) {
    p = runProbe(bwrap, path);
    probes.set(key, p);
    p.then((r) => settled.set(key, r), () => {});
  }
  return p;
}

/**
 * The outcome of {@linkcode probeSandbox} for this `bwrap` and `PATH`
 * once it has finished in this process, without starting one: a launch
 * that finds none tries the sandbox straight away and probes only if it
 * fails.
 *
 * @example Usage
 * ```ts
 * import { settledSandboxProbe } from "./sandbox.ts";
 * import assert from "node:assert/strict";
 * assert.equal(settledSandboxProbe("never-probed-bwrap", "/nowhere"), undefined);
 * ```
 *
 * @param bwrap The `bwrap` executable.
 * @param path The `PATH` it is looked up on (default: this process's).
 * @returns The probe's outcome, or `undefined` when none has finished.
 */
export function settledSandboxProbe(
  bwrap: string = DEFAULT_BWRAP,
  path: string = processPath(),
): SandboxProbe | undefined {
  return settled.get(`${bwrap}\0${path}`);
}

function processPath(): string {
  try {
    return Deno.env.get("PATH") ?? "/usr/bin:/bin";
  } catch {
    return "/usr/bin:/bin"; // no env permission
  }
}

async function runProbe(bwrap: string, path: string): Promise<SandboxProbe> {
  if (Deno.build.os !== "linux") {
    return {
      available: false,
      reason: `bubblewrap runs on Linux only (this is ${Deno.build.os})`,
    };
  }
  const view: SandboxView = {
    readOnly: [],
    readWrite: [],
    network: false,
    cwd: "/",
  };
  try {
    const out = await new Deno.Command(bwrap, {
      // `true` is the namespace's init, so that bwrap waits for it and
      // leaves no init of its own behind. A plugin keeps bwrap's init: it
      // reaps orphans inside, and lets the plugin signal itself (an init
      // ignores its own namespace's signals).
      args: ["--as-pid-1", ...bwrapArgs(view), "--", "true"],
      // `bwrap` is found on this PATH, as a launch finds it.
      env: { PATH: path },
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    if (out.success) return { available: true };
    const err = new TextDecoder().decode(out.stderr).trim().split("\n")[0];
    return {
      available: false,
      reason: `"${bwrap}" exited ${out.code}${err ? `: ${err}` : ""}`,
    };
  } catch (err) {
    return {
      available: false,
      reason: err instanceof Deno.errors.NotFound
        ? `"${bwrap}" is not installed (install the bubblewrap package)`
        : `cannot run "${bwrap}": ${err instanceof Error ? err.message : err}`,
    };
  }
}

/**
 * Where a granted program is: an absolute path as it is, a bare name
 * looked up on `PATH` (the file found and, when it is a symbolic link,
 * its target), so that the view can bind it.
 *
 * @example Usage
 * ```ts
 * import { programPaths } from "./sandbox.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(programPaths("/opt/x/tool", "/usr/bin"), ["/opt/x/tool"]);
 * assert.deepEqual(programPaths("no-such-program-here", "/nonexistent"), []);
 * ```
 *
 * @param program A `run` grant.
 * @param path The `PATH` the plugin gets.
 * @returns The paths to bind (none when it is not found).
 */
export function programPaths(program: string, path: string): string[] {
  if (isAbsolute(program)) return [program];
  if (program.includes("/")) return [];
  for (const dir of path.split(":")) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, program);
    const st = lstat(candidate);
    if (st === undefined || st.isDirectory) continue;
    try {
      const real = Deno.realPathSync(candidate);
      return real === candidate ? [candidate] : [candidate, real];
    } catch {
      return [candidate];
    }
  }
  return [];
}

// Linux signal numbers, for the status bubblewrap reports (128 + n).
const SIGNALS: readonly string[] = [
  "",
  "SIGHUP",
  "SIGINT",
  "SIGQUIT",
  "SIGILL",
  "SIGTRAP",
  "SIGABRT",
  "SIGBUS",
  "SIGFPE",
  "SIGKILL",
  "SIGUSR1",
  "SIGSEGV",
  "SIGUSR2",
  "SIGPIPE",
  "SIGALRM",
  "SIGTERM",
];

/**
 * The same process, with the status of a sandboxed child as if it had
 * not been wrapped: bubblewrap exits `128 + n` when the program inside
 * was killed by signal `n`, which is reported as that signal.
 *
 * @param process The started `bwrap` process.
 * @returns A view of it whose `status` names the signal.
 */
export function sandboxedProcess(process: LaunchedProcess): LaunchedProcess {
  const status = process.status.then((s): ProcessStatus => {
    const name = s.signal === null && s.code > 128
      ? SIGNALS[s.code - 128]
      : undefined;
    return name ? { code: s.code, signal: name } : s;
  });
  return {
    pid: process.pid,
    stdout: process.stdout,
    stderr: process.stderr,
    status,
    kill: (signal) => process.kill(signal),
  };
}
