/**
 * Bounded tool results (kernel.md §6.3): a tool call's result, error
 * message and live output reach the model, the events and the session log
 * only up to `max_result_bytes`; the whole of anything longer is written to
 * an overflow file in the session's directory (beside the session file),
 * and the truncated result names that file. {@linkcode OutputBound} caps
 * live output while it is received (chunks past the bound go straight to
 * the file, never into memory); {@linkcode boundOutcome} caps the
 * terminal result or error.
 *
 * @module
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { ulid } from "../state/ulid.ts";
import { toolError } from "./_proto.ts";
import type { StoredOutcome } from "./history.ts";

/** Where a call's overflow files go, and how much reaches the model. */
export interface ResultBoundOptions {
  /** Bytes of the result (or of the live output) kept. */
  readonly maxBytes: number;
  /** The session's directory for overflow files; none: the rest is dropped. */
  readonly dir: string | undefined;
  /** The call's `tool_use` id (part of the file name). */
  readonly callId: string;
}

const encoder = new TextEncoder();

/** A file name part from a model-chosen id: letters, digits, `-`, `_`. */
function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64) || "call";
}

/** The path of a new overflow file for a call. */
function overflowPath(o: ResultBoundOptions, suffix: string): string {
  return `${o.dir}/${ulid()}-${safeName(o.callId)}.${suffix}`;
}

/**
 * The first `maxBytes` bytes of `text` as text (never splitting a
 * character).
 */
function headOf(text: string, maxBytes: number): string {
  const buf = new Uint8Array(maxBytes);
  const { read } = encoder.encodeInto(text, buf);
  return text.slice(0, read);
}

/** Writes `text` to a new file (mode 0600), creating the directory. */
async function writeNew(path: string, dir: string, text: string) {
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  await Deno.writeTextFile(path, text, { createNew: true, mode: 0o600 });
}

/**
 * Bounds a call's outcome: a result whose JSON text, or an error whose
 * message, is over `maxBytes` is written whole to an overflow file and
 * replaced by its head and the file's name.
 *
 * @param outcome The outcome as the tool returned it.
 * @param options The bound, the directory and the call.
 * @returns The outcome, bounded.
 */
export async function boundOutcome(
  outcome: StoredOutcome,
  options: ResultBoundOptions,
): Promise<StoredOutcome> {
  const max = options.maxBytes;
  // An error's details (a schema violation carries the whole result) count
  // with its message.
  const text = "result" in outcome
    ? JSON.stringify(outcome.result)
    : outcome.error.details
    ? JSON.stringify({
      message: outcome.error.message,
      details: outcome.error.details,
    })
    : outcome.error.message;
  // A UTF-16 unit is at most 3 UTF-8 bytes: short texts skip the encode.
  if (text.length * 3 <= max) return outcome;
  const total = encoder.encode(text).length;
  if (total <= max) return outcome;
  const head = headOf(text, max);
  let file: string | undefined;
  let note: string;
  if (options.dir !== undefined) {
    file = overflowPath(options, "result" in outcome ? "json" : "txt");
    try {
      await writeNew(file, options.dir, text);
      note = `The ${
        "result" in outcome ? "result" : "error message"
      } was ${total} bytes; only the first ${max} are shown. The whole text is in "${file}" (read it with read_file if that path is granted).`;
    } catch (err) {
      file = undefined;
      note = `The ${
        "result" in outcome ? "result" : "error message"
      } was ${total} bytes; only the first ${max} are shown (the rest could not be saved: ${
        err instanceof Error ? err.message : String(err)
      }).`;
    }
  } else {
    note = `The ${
      "result" in outcome ? "result" : "error message"
    } was ${total} bytes; only the first ${max} are shown (this session has no directory to keep the rest).`;
  }
  if ("result" in outcome) {
    const result: JsonObject = {
      truncated: true,
      total_bytes: total,
      ...(file !== undefined ? { overflow_file: file } : {}),
      note,
      head,
    };
    return { result };
  }
  const e = outcome.error;
  return {
    error: toolError(e.category, `${head}\n[${note}]`, e.retryable),
  };
}

/**
 * Caps a call's live output while it is received: up to `maxBytes` bytes
 * are passed on as events; the rest is appended to an overflow file and
 * dropped from memory at once.
 */
export class OutputBound implements AsyncDisposable {
  readonly #options: ResultBoundOptions;
  #passed = 0;
  #file: Deno.FsFile | undefined;
  #path: string | undefined;
  #failed = false;

  /**
   * Creates the bound of one call's output.
   *
   * @param options The bound, the directory and the call.
   */
  constructor(options: ResultBoundOptions) {
    this.#options = options;
  }

  /**
   * Takes a chunk of output.
   *
   * @param data The chunk.
   * @returns What to pass on (possibly empty), and the note to show once
   * when the bound is first crossed.
   */
  async take(data: Uint8Array): Promise<{ pass: Uint8Array; note?: string }> {
    const room = Math.max(0, this.#options.maxBytes - this.#passed);
    const pass = data.subarray(0, room);
    this.#passed += pass.length;
    const rest = data.subarray(pass.length);
    if (rest.length === 0) return { pass };
    let note: string | undefined;
    if (!this.#file && !this.#failed) {
      const dir = this.#options.dir;
      if (dir === undefined) {
        this.#failed = true;
        note =
          `\n[output over ${this.#options.maxBytes} bytes; the rest is dropped: this session has no directory to keep it]\n`;
      } else {
        this.#path = overflowPath(this.#options, "output");
        try {
          await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
          this.#file = await Deno.open(this.#path, {
            createNew: true,
            write: true,
            mode: 0o600,
          });
          note =
            `\n[output over ${this.#options.maxBytes} bytes; the rest is in "${this.#path}"]\n`;
        } catch (err) {
          this.#failed = true;
          note =
            `\n[output over ${this.#options.maxBytes} bytes; the rest is dropped: ${
              err instanceof Error ? err.message : String(err)
            }]\n`;
        }
      }
    }
    if (this.#file) {
      let off = 0;
      while (off < rest.length) {
        off += await this.#file.write(rest.subarray(off));
      }
    }
    return note !== undefined ? { pass, note } : { pass };
  }

  /** Closes the overflow file, if one was opened. */
  [Symbol.asyncDispose](): Promise<void> {
    this.#file?.close();
    this.#file = undefined;
    return Promise.resolve();
  }
}
