/**
 * An MCP stdio client transport on `Deno.Command`, so that the server
 * process starts exactly as configured: an empty environment plus what the
 * bridge passes (never the plugin's environment wholesale), a working
 * directory, stdin/stdout for JSON-RPC lines and stderr kept as a bounded
 * tail for error messages.
 *
 * The server stays in the plugin's process group, so the kernel's
 * group-wide shutdown of the plugin also ends the server and anything it
 * started.
 *
 * @module
 */
import {
  ReadBuffer,
  serializeMessage,
} from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { Buffer } from "node:buffer";

/** How to start a stdio MCP server. */
export interface StdioServerSpec {
  /** The program (a name looked up on PATH, or a path). */
  command: string;
  /** Its arguments. */
  args: string[];
  /** Its complete environment. */
  env: Record<string, string>;
  /** Its working directory. */
  cwd: string;
}

const STDERR_TAIL = 4096;
const KILL_GRACE_MS = 2000;

/** How the process ended. */
export interface ExitInfo {
  /** Its exit code. */
  code: number;
  /** The signal that ended it, if one did. */
  signal: string | null;
}

/** A stdio transport owning one server process. */
export class ProcessTransport implements Transport {
  readonly #spec: StdioServerSpec;
  #child?: Deno.ChildProcess;
  #writer?: WritableStreamDefaultWriter<Uint8Array>;
  #stderr = "";
  #closed = false;
  #exit?: ExitInfo;
  #done?: Promise<void>;
  /** Called when the connection ends (process exit or close). */
  onclose?: () => void;
  /** Called on a transport error. */
  onerror?: (error: Error) => void;
  /** Called with each message from the server. */
  onmessage?: (message: JSONRPCMessage) => void;

  /**
   * Creates the transport; nothing starts before {@linkcode start}.
   *
   * @param spec How to start the server.
   */
  constructor(spec: StdioServerSpec) {
    this.#spec = spec;
  }

  /** The last bytes the server wrote to stderr. */
  get stderrTail(): string {
    return this.#stderr;
  }

  /** How the process ended; undefined while it runs. */
  get exit(): ExitInfo | undefined {
    return this.#exit;
  }

  /** The process id, once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Starts the process. */
  start(): Promise<void> {
    if (this.#child) throw new Error("ProcessTransport already started");
    const child = new Deno.Command(this.#spec.command, {
      args: this.#spec.args,
      env: this.#spec.env,
      clearEnv: true,
      cwd: this.#spec.cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    const reading = this.#readStdout(child.stdout);
    const draining = this.#readStderr(child.stderr);
    this.#done = (async () => {
      const status = await child.status;
      this.#exit = { code: status.code, signal: status.signal };
      await Promise.allSettled([reading, draining]);
      this.#closed = true;
      this.onclose?.();
    })();
    return Promise.resolve();
  }

  async #readStdout(stream: ReadableStream<Uint8Array>): Promise<void> {
    const buffer = new ReadBuffer();
    try {
      for await (const chunk of stream) {
        buffer.append(Buffer.from(chunk));
        while (true) {
          let message: JSONRPCMessage | null;
          try {
            message = buffer.readMessage();
          } catch (err) {
            this.onerror?.(err as Error);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      }
    } catch (err) {
      if (!this.#closed) this.onerror?.(err as Error);
    }
  }

  async #readStderr(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of stream) {
        this.#stderr = (this.#stderr + decoder.decode(chunk, { stream: true }))
          .slice(-STDERR_TAIL);
      }
    } catch {
      // The process is gone; the tail is what it is.
    }
  }

  /**
   * Writes one message as a line.
   *
   * @param message The JSON-RPC message.
   */
  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.#writer || this.#closed) {
      throw new Error("the MCP server process is not running");
    }
    await this.#writer.write(
      new TextEncoder().encode(serializeMessage(message)),
    );
  }

  /** Ends the process: stdin closed, then SIGTERM, then SIGKILL. */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child || !this.#done) return;
    if (!this.#exit) {
      await this.#writer?.close().catch(() => {});
      const timer = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch {
          // Already gone.
        }
      }, KILL_GRACE_MS);
      try {
        child.kill("SIGTERM");
      } catch {
        // Already gone.
      }
      await this.#done;
      clearTimeout(timer);
    } else {
      await this.#done;
    }
  }
}
