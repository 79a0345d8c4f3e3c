/**
 * Where the `agent` commands read and write: {@linkcode CliIo} (output,
 * environment, directory) and {@linkcode AgentIo} (plus standard input and
 * Ctrl-C and SIGTERM), and the process's own streams for a real run. Tests pass their
 * own to capture output.
 *
 * @module
 */

/** Where a CLI command reads and writes, so that tests capture output. */
export interface CliIo {
  /** Writes to standard output. */
  stdout(text: string): void;
  /** Writes to standard error. */
  stderr(text: string): void;
  /**
   * Writes UTF-8 bytes to standard output, when the stream takes bytes
   * (check-config's `--json` document is made as bytes); otherwise the
   * bytes are decoded and given to {@linkcode CliIo.stdout}.
   * @default {none}
   */
  stdoutBytes?: (bytes: Uint8Array) => void;
  /** Whether standard output is a terminal (colour only then). */
  isTerminal: boolean;
  /** The environment (`NO_COLOR`, `XDG_*`, `HOME`, and what `env()` reads). */
  env: Readonly<Record<string, string | undefined>>;
  /** The current directory. */
  cwd: string;
  /**
   * The platform whose checksums are checked.
   * @default {the host's}
   */
  platform?: string;
}

/** The streams of the session commands: {@linkcode CliIo} plus input. */
export interface AgentIo extends CliIo {
  /** Standard input (prompts, approval answers). */
  readonly stdin?: ReadableStream<Uint8Array>;
  /** Whether standard input is a terminal (only then does `agent` prompt). */
  readonly stdinIsTerminal?: boolean;
  /**
   * Whether standard error is a terminal (a full-screen frontend draws
   * there). @default {false}
   */
  readonly stderrIsTerminal?: boolean;
  /**
   * Subscribes to interrupts (Ctrl-C, and SIGTERM as a CI job's
   * cancellation sends); returns the unsubscribe function. The handler
   * gets the signal (none means `SIGINT`).
   * @default {none}
   */
  readonly onInterrupt?: (
    handler: (signal?: InterruptSignal) => void,
  ) => () => void;
}

/** The signals `agent` and `agent run` handle: Ctrl-C and termination. */
export type InterruptSignal = "SIGINT" | "SIGTERM";

/** How many UTF-16 units of output {@linkcode processIo} encodes at once. */
const WRITE_CHUNK = 1 << 18;

/**
 * The exit status of a process whose standard output was closed by its
 * reader (`agent ... | head`): 128 + SIGPIPE, what a shell reports for
 * `git log | head` under `set -o pipefail`.
 */
export const EXIT_PIPE_CLOSED = 141;

// The process's streams whose reader has gone (a write met EPIPE): later
// writes to them are dropped, and the callbacks hear of standard output's.
const closedStreams = new Set<unknown>();
const stdoutClosedCallbacks = new Set<() => void>();

/**
 * The exit status for the process: `code`, or
 * {@linkcode EXIT_PIPE_CLOSED} once a write to standard output found the
 * reader gone (the output was cut short, so the command's own status would
 * claim too much).
 *
 * @param code The status the command returned.
 * @returns The status to exit with.
 */
export function processExitCode(code: number): number {
  return closedStreams.has(Deno.stdout) ? EXIT_PIPE_CLOSED : code;
}

function writeAll(stream: typeof Deno.stdout, bytes: Uint8Array): void {
  if (closedStreams.has(stream)) return;
  try {
    let off = 0;
    while (off < bytes.length) off += stream.writeSync(bytes.subarray(off));
  } catch (e) {
    // The reader closed the pipe (`| head -c 300`): like a command killed
    // by SIGPIPE, say nothing more (no stack trace) and write nothing more.
    if (!(e instanceof Deno.errors.BrokenPipe)) throw e;
    closedStreams.add(stream);
    if (stream === Deno.stdout) {
      // Later, not inside the write its caller is still making.
      for (const callback of stdoutClosedCallbacks) queueMicrotask(callback);
    }
  }
}

/**
 * The process's own streams, environment and directory. A write to a pipe
 * whose reader has gone is dropped silently, as are all later writes to
 * that stream (see {@linkcode processExitCode}).
 *
 * @returns An {@linkcode CliIo} for a real run.
 */
export function processIo(): CliIo {
  const enc = new TextEncoder();
  // Long text (check-config's --json plan can be tens of MB) is encoded a
  // slice at a time into one buffer instead of into one copy of it all.
  let buffer: Uint8Array | undefined;
  const write = (stream: typeof Deno.stdout, text: string) => {
    if (text.length <= WRITE_CHUNK) return writeAll(stream, enc.encode(text));
    buffer ??= new Uint8Array(3 * WRITE_CHUNK + 4);
    for (let i = 0; i < text.length;) {
      let end = Math.min(i + WRITE_CHUNK, text.length);
      // Never split a surrogate pair.
      const last = text.charCodeAt(end - 1);
      if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++;
      const { written } = enc.encodeInto(text.slice(i, end), buffer);
      writeAll(stream, buffer.subarray(0, written));
      i = end;
    }
  };
  return {
    stdout: (t) => write(Deno.stdout, t),
    stdoutBytes: (b) => writeAll(Deno.stdout, b),
    stderr: (t) => write(Deno.stderr, t),
    isTerminal: Deno.stdout.isTerminal(),
    env: Deno.env.toObject(),
    cwd: Deno.cwd(),
  };
}

/**
 * The process's own streams, with standard input and Ctrl-C. When the
 * reader of standard output goes away, the interrupt handlers hear
 * `SIGTERM`: a session nobody reads any more ends as cancelled, cleanly,
 * where SIGPIPE would have killed it.
 *
 * @returns An {@linkcode AgentIo} for a real run.
 */
export function processAgentIo(): AgentIo {
  return {
    ...processIo(),
    get stdin() {
      return Deno.stdin.readable;
    },
    stdinIsTerminal: Deno.stdin.isTerminal(),
    stderrIsTerminal: Deno.stderr.isTerminal(),
    onInterrupt(handler) {
      const onInt = () => handler("SIGINT");
      const onTerm = () => handler("SIGTERM");
      Deno.addSignalListener("SIGINT", onInt);
      // Without a listener SIGTERM kills the process at once: no
      // session_ended, the session left "running", temp dirs behind.
      Deno.addSignalListener("SIGTERM", onTerm);
      stdoutClosedCallbacks.add(onTerm);
      return () => {
        stdoutClosedCallbacks.delete(onTerm);
        Deno.removeSignalListener("SIGINT", onInt);
        Deno.removeSignalListener("SIGTERM", onTerm);
      };
    },
  };
}
