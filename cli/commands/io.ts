/**
 * Where the `agent` commands read and write: {@linkcode CliIo} (output,
 * environment, directory) and {@linkcode AgentIo} (plus standard input and
 * Ctrl-C), and the process's own streams for a real run. Tests pass their
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
   * Subscribes to interrupts (Ctrl-C); returns the unsubscribe function.
   * @default {none}
   */
  readonly onInterrupt?: (handler: () => void) => () => void;
}

/**
 * The process's own streams, environment and directory.
 *
 * @returns An {@linkcode CliIo} for a real run.
 */
export function processIo(): CliIo {
  const enc = new TextEncoder();
  const write = (stream: typeof Deno.stdout, text: string) => {
    const bytes = enc.encode(text);
    let off = 0;
    while (off < bytes.length) off += stream.writeSync(bytes.subarray(off));
  };
  return {
    stdout: (t) => write(Deno.stdout, t),
    stderr: (t) => write(Deno.stderr, t),
    isTerminal: Deno.stdout.isTerminal(),
    env: Deno.env.toObject(),
    cwd: Deno.cwd(),
  };
}

/**
 * The process's own streams, with standard input and Ctrl-C.
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
    onInterrupt(handler) {
      Deno.addSignalListener("SIGINT", handler);
      return () => Deno.removeSignalListener("SIGINT", handler);
    },
  };
}
