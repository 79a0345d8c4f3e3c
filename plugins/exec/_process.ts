/**
 * One `bash -c` command as a process group: spawn, live output, bounded
 * capture, and killing the whole tree.
 *
 * The command is started with Deno's `detached` option, so bash leads a new
 * session and process group (`setsid`); every process it starts, however
 * deep, stays in that group unless it leaves it on purpose. Signals go to
 * the whole group through the granted `bash` itself (`kill -- -PGID`):
 * `Deno.kill` would need unrestricted `--allow-run`.
 *
 * When bash exits, its pipes get {@linkcode DRAIN_MS} to close; processes it
 * left running (e.g. `sleep 100 &`) still hold them, so the group is then
 * killed, and the pipes are let go after a further second if something
 * escaped the group.
 *
 * @module
 */

/** How long the pipes may stay open after bash exited. */
export const DRAIN_MS = 300;

/** How long a TERM gets before the KILL. */
export const KILL_GRACE_MS = 1000;

/** A piece of output. */
export interface Chunk {
  /** Which pipe. */
  readonly stream: "stdout" | "stderr";
  /** The bytes. */
  readonly data: Uint8Array;
}

/** How the process ended. */
export interface ExitInfo {
  /** The exit code (128 + n when killed by signal n). */
  readonly code: number;
  /** The terminating signal's name, if any. */
  readonly signal: string | undefined;
}

/** Options of {@linkcode ShellProcess.start}. */
export interface ShellProcessOptions {
  /** The working directory. */
  readonly cwd: string;
  /** The command's whole environment. */
  readonly env: Readonly<Record<string, string>>;
  /** Receives output as it arrives, in order per pipe. */
  readonly onChunk: (chunk: Chunk) => void;
}

/** A running `bash -c` command and its process group. */
export class ShellProcess {
  /** The process id of bash, which is also the group id. */
  readonly pid: number;
  /** Resolves once bash exited and its pipes are closed. */
  readonly finished: Promise<ExitInfo>;
  readonly #path: string;
  readonly #readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
  #exited = false;
  #pipesClosed = false;
  #killing: Promise<void> | undefined;

  private constructor(
    child: Deno.ChildProcess,
    path: string,
    onChunk: (chunk: Chunk) => void,
  ) {
    this.pid = child.pid;
    this.#path = path;
    const pump = async (
      stream: ReadableStream<Uint8Array>,
      name: Chunk["stream"],
    ) => {
      const reader = stream.getReader();
      this.#readers.push(reader);
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          onChunk({ stream: name, data: value });
        }
      } catch {
        // cancelled: the pipe is let go
      } finally {
        reader.releaseLock();
      }
    };
    const pipes = Promise.all([
      pump(child.stdout, "stdout"),
      pump(child.stderr, "stderr"),
    ]).then(() => {
      this.#pipesClosed = true;
    });
    this.finished = (async () => {
      const status = await child.status;
      this.#exited = true;
      if (!await settlesWithin(pipes, DRAIN_MS)) {
        await this.#signalGroup("KILL");
        if (!await settlesWithin(pipes, KILL_GRACE_MS)) {
          await Promise.all(
            this.#readers.map((r) => r.cancel().catch(() => {})),
          );
          await pipes;
        }
      }
      return { code: status.code, signal: status.signal ?? undefined };
    })();
  }

  /**
   * Starts `bash -c <command>` in a new session and process group, stdin
   * closed, with exactly the given environment.
   *
   * @param command The command line.
   * @param options Working directory, environment, output sink.
   * @returns The process.
   * @throws {Deno.errors.NotCapable} When the plugin may not run bash.
   */
  static start(command: string, options: ShellProcessOptions): ShellProcess {
    const path = options.env.PATH ?? "/usr/bin:/bin";
    const child = new Deno.Command("bash", {
      args: ["-c", command],
      cwd: options.cwd,
      clearEnv: true,
      env: { ...options.env },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    }).spawn();
    return new ShellProcess(child, path, options.onChunk);
  }

  /** Whether bash has exited and the pipes are closed. */
  get done(): boolean {
    return this.#exited && this.#pipesClosed;
  }

  /**
   * Kills the whole process group: TERM, then KILL after
   * {@linkcode KILL_GRACE_MS} unless everything is gone. Resolves once the
   * process has finished.
   *
   * @returns When the command is over.
   */
  kill(): Promise<void> {
    this.#killing ??= (async () => {
      if (this.done) return;
      await this.#signalGroup("TERM");
      if (!await settlesWithin(this.finished, KILL_GRACE_MS)) {
        await this.#signalGroup("KILL");
      }
      await this.finished;
    })();
    return this.#killing;
  }

  /** Sends a signal to the group, through the granted bash. */
  async #signalGroup(signal: "TERM" | "KILL"): Promise<void> {
    if (this.done) return;
    try {
      await new Deno.Command("bash", {
        args: ["-c", `kill -s ${signal} -- -${this.pid} 2>/dev/null; exit 0`],
        clearEnv: true,
        env: { PATH: this.#path },
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).output();
    } catch {
      // the group is gone, or bash cannot be run any more
    }
  }
}

/** Resolves true when `p` settles within `ms`, else false. */
async function settlesWithin(
  p: Promise<unknown>,
  ms: number,
): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      p.then(() => true, () => true),
      new Promise<boolean>((r) => {
        timer = setTimeout(() => r(false), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Keeps the first and the last bytes of a stream within a bound, counting
 * what was dropped in between.
 */
export class BoundedCapture {
  readonly #limit: number;
  readonly #head: Uint8Array[] = [];
  #headBytes = 0;
  #tail: Uint8Array[] = [];
  #tailBytes = 0;
  #dropped = 0;

  /**
   * Creates a capture.
   *
   * @param limit Bytes kept at most (half from the start, half from the end).
   */
  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Bytes dropped so far. */
  get dropped(): number {
    return this.#dropped;
  }

  /**
   * Adds bytes.
   *
   * @param data The bytes.
   */
  push(data: Uint8Array): void {
    const headRoom = Math.ceil(this.#limit / 2) - this.#headBytes;
    if (headRoom > 0) {
      const take = data.subarray(0, headRoom);
      this.#head.push(take.slice());
      this.#headBytes += take.length;
      data = data.subarray(take.length);
    }
    if (data.length === 0) return;
    this.#tail.push(data.slice());
    this.#tailBytes += data.length;
    const tailLimit = Math.floor(this.#limit / 2);
    while (this.#tailBytes > tailLimit) {
      const first = this.#tail[0]!;
      const excess = this.#tailBytes - tailLimit;
      if (first.length <= excess) {
        this.#tail.shift();
        this.#tailBytes -= first.length;
        this.#dropped += first.length;
      } else {
        this.#tail[0] = first.subarray(excess);
        this.#tailBytes -= excess;
        this.#dropped += excess;
      }
    }
  }

  /**
   * The text kept, with a marker where bytes were dropped.
   *
   * @returns UTF-8 text (invalid sequences replaced).
   */
  text(): string {
    const decode = (parts: Uint8Array[]) =>
      new TextDecoder().decode(concat(parts));
    const head = decode(this.#head);
    if (this.#dropped === 0) return head + decode(this.#tail);
    return `${head}\n[… ${this.#dropped} bytes truncated …]\n${
      decode(this.#tail)
    }`;
  }
}

/**
 * Unread output of a background command: everything not yet read, up to a
 * bound; older unread bytes are dropped first and counted.
 */
export class UnreadBuffer {
  readonly #limit: number;
  #parts: Uint8Array[] = [];
  #bytes = 0;
  #dropped = 0;

  /**
   * Creates a buffer.
   *
   * @param limit Unread bytes kept at most.
   */
  constructor(limit: number) {
    this.#limit = limit;
  }

  /**
   * Adds bytes, dropping the oldest unread ones beyond the bound.
   *
   * @param data The bytes.
   */
  push(data: Uint8Array): void {
    this.#parts.push(data.slice());
    this.#bytes += data.length;
    while (this.#bytes > this.#limit) {
      const first = this.#parts[0]!;
      const excess = this.#bytes - this.#limit;
      if (first.length <= excess) {
        this.#parts.shift();
        this.#bytes -= first.length;
        this.#dropped += first.length;
      } else {
        this.#parts[0] = first.subarray(excess);
        this.#bytes -= excess;
        this.#dropped += excess;
      }
    }
  }

  /**
   * Takes everything unread.
   *
   * @returns The text, and how many unread bytes were dropped since the
   *   last read.
   */
  take(): { text: string; dropped: number } {
    const text = new TextDecoder().decode(concat(this.#parts));
    const dropped = this.#dropped;
    this.#parts = [];
    this.#bytes = 0;
    this.#dropped = 0;
    return { text, dropped };
  }
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
