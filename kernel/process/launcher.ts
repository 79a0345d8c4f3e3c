/**
 * `ProcessLauncher`: how the kernel starts a child process, as an
 * interface (the role of go-plugin's `runner.Runner`), and
 * `DenoCommandLauncher`, its `Deno.Command` implementation.
 *
 * A launched child runs in its own process group with exactly the
 * environment it is given; signals go to the whole group, so that nothing
 * the child started outlives it. Tests substitute a fake launcher to drive
 * the plugin host's logic without spawning anything.
 *
 * @module
 */

/** What to start. */
export interface ProcessCommand {
  /** The executable. */
  command: string;
  /** Its arguments. */
  args: readonly string[];
  /** The child's whole environment (nothing else is inherited). */
  env: Record<string, string>;
  /** The child's working directory. */
  cwd: string;
  /**
   * What happens to the child's stdout.
   * @default {"piped"}
   */
  stdout?: "piped" | "null";
  /**
   * Give the child this process's terminal: its stdin and stderr are
   * inherited (stdout stays as `stdout` says), and it stays in this
   * process group (the terminal's foreground group), so that it may read
   * keys, set raw mode and receive `SIGWINCH`. Signals then go to the
   * child alone, not to a group.
   * @default {false}
   */
  terminal?: boolean;
}

/** How a child process ended. */
export interface ProcessStatus {
  /** Exit code, when the process exited by itself. */
  code: number;
  /** Signal name, when it was killed by one. */
  signal: string | null;
}

/** A started child process. */
export interface LaunchedProcess {
  /** The process id, which is also its process group id. */
  readonly pid: number;
  /** Its stdout (an empty stream when the command asked for `"null"`). */
  readonly stdout: ReadableStream<Uint8Array>;
  /** Its stderr. */
  readonly stderr: ReadableStream<Uint8Array>;
  /** Resolves once the process has exited. */
  readonly status: Promise<ProcessStatus>;
  /**
   * Sends a signal to the whole process group; a group that is already
   * gone is ignored.
   *
   * @param signal The signal.
   */
  kill(signal: Deno.Signal): void;
}

/** Starts child processes. */
export interface ProcessLauncher {
  /**
   * Starts a child in its own process group, stdin closed, stderr piped.
   *
   * @param command What to start.
   * @returns The running child.
   * @throws {Error} When it cannot be started (e.g.
   * `Deno.errors.NotFound`, `Deno.errors.PermissionDenied`).
   */
  start(command: ProcessCommand): LaunchedProcess;
}

/** Starts children with `Deno.Command` (detached: a new process group). */
export class DenoCommandLauncher implements ProcessLauncher {
  /**
   * Starts a child with `Deno.Command`.
   *
   * @param command What to start.
   * @returns The running child.
   */
  start(command: ProcessCommand): LaunchedProcess {
    const stdout = command.stdout ?? "piped";
    const terminal = command.terminal === true;
    const child = new Deno.Command(command.command, {
      args: [...command.args],
      env: command.env,
      clearEnv: true,
      cwd: command.cwd,
      stdin: terminal ? "inherit" : "null",
      stdout,
      stderr: terminal ? "inherit" : "piped",
      detached: !terminal,
    }).spawn();
    const pid = child.pid;
    return {
      pid,
      stdout: stdout === "piped" ? child.stdout : emptyStream(),
      stderr: terminal ? emptyStream() : child.stderr,
      status: child.status.then((s) => ({ code: s.code, signal: s.signal })),
      kill(signal: Deno.Signal): void {
        try {
          // A terminal child shares this process's group: signal it alone.
          Deno.kill(terminal ? pid : -pid, signal);
        } catch {
          // already gone
        }
      },
    };
  }
}

function emptyStream(): ReadableStream<Uint8Array> {
  return new ReadableStream({ start: (c) => c.close() });
}
