/**
 * A foreground `bash` call: its output streamed as events, then the exit
 * status and the result, or a timeout or cancellation.
 *
 * @module
 */
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import { OutputStream } from "../../proto/gen/pluggableharness/tool/v1/events_pb.ts";
import type { InvokeResponseSchema } from "../../proto/gen/pluggableharness/tool/v1/rpc_response_pb.ts";
import { toolProgress as progress, toolResult as result } from "../sdk/mod.ts";
import type { BashArgs } from "./_call.ts";
import type { Config } from "./_config.ts";
import { failure, ToolFailure } from "./_failure.ts";
import { BoundedCapture, type Chunk, type ExitInfo } from "./_process.ts";
import { start } from "./_spawn.ts";

type Event = MessageInitShape<typeof InvokeResponseSchema>;

/** Streamed output per call stops here (the result is bounded separately). */
const MAX_STREAMED_BYTES = 4 * 1024 * 1024;
function event(e: Event["event"]): Event {
  return { event: e };
}
function chunkEvent(c: Chunk): Event {
  return event({
    event: {
      case: "outputChunk",
      value: {
        stream: c.stream === "stdout"
          ? OutputStream.STDOUT
          : OutputStream.STDERR,
        data: c.data,
      },
    },
  });
}

function exitEvent(info: ExitInfo): Event {
  return event({
    event: {
      case: "exitStatus",
      value: {
        exitCode: info.code,
        ...(info.signal !== undefined ? { signal: info.signal } : {}),
      },
    },
  });
}

/** A queue the generator awaits: chunks, the end, a timeout, a cancel. */
type Happening =
  | { type: "chunk"; chunk: Chunk }
  | { type: "overflow" }
  | { type: "finished"; info: ExitInfo }
  | { type: "timeout" }
  | { type: "abort" };

class Inbox {
  #items: Happening[] = [];
  #wake: (() => void) | undefined;

  push(h: Happening): void {
    this.#items.push(h);
    this.#wake?.();
  }

  async next(): Promise<Happening> {
    while (this.#items.length === 0) {
      await new Promise<void>((r) => (this.#wake = r));
      this.#wake = undefined;
    }
    return this.#items.shift()!;
  }
}

/**
 * Runs a foreground `bash` call: output chunks as they arrive, then one
 * `exit_status`, then the result — or, after a timeout or an abort (the
 * process tree killed), a `TIMEOUT` error, or a `progress` event saying
 * what happened and a `CANCELLED` error, both with the output so far.
 *
 * @param args The checked arguments.
 * @param cwd The confined working directory.
 * @param cfg The provider's config.
 * @param signal Aborts (cancels) the call.
 * @returns The `InvokeResponse` events.
 */
export async function* runForeground(
  args: BashArgs,
  cwd: string,
  cfg: Config,
  signal: AbortSignal,
): AsyncGenerator<Event> {
  const inbox = new Inbox();
  const out = new BoundedCapture(cfg.maxOutputBytes);
  const err = new BoundedCapture(cfg.maxOutputBytes);
  const began = performance.now();
  // Capture at once; queue for streaming only up to the cap, so that a
  // command writing faster than the stream drains holds memory bounded.
  let queued = 0;
  const proc = start(args.command, cwd, cfg, (chunk) => {
    (chunk.stream === "stdout" ? out : err).push(chunk.data);
    if (queued >= MAX_STREAMED_BYTES) return;
    queued += chunk.data.length;
    inbox.push({ type: "chunk", chunk });
    if (queued >= MAX_STREAMED_BYTES) inbox.push({ type: "overflow" });
  });
  proc.finished.then((info) => inbox.push({ type: "finished", info }));
  const timer = setTimeout(
    () => inbox.push({ type: "timeout" }),
    args.timeoutS * 1000,
  );
  const onAbort = () => inbox.push({ type: "abort" });
  signal.addEventListener("abort", onAbort, { once: true });
  let ended: "timeout" | "cancelled" | undefined;
  try {
    for (;;) {
      const h = await inbox.next();
      if (h.type === "chunk") {
        yield chunkEvent(h.chunk);
        continue;
      }
      if (h.type === "overflow") {
        yield progress(
          `Output passed ${MAX_STREAMED_BYTES} bytes and is no longer streamed; the result keeps its start and end.`,
        );
        continue;
      }
      if (h.type === "timeout" || h.type === "abort") {
        ended ??= h.type === "timeout" ? "timeout" : "cancelled";
        void proc.kill();
        continue;
      }
      // finished: every chunk was queued before this
      const info = h.info;
      const durationMs = Math.round(performance.now() - began);
      yield exitEvent(info);
      const payload: JsonObject = {
        status: "exited",
        exit_code: info.code,
        ...(info.signal !== undefined ? { signal: info.signal } : {}),
        stdout: out.text(),
        stderr: err.text(),
        truncated: out.dropped + err.dropped > 0,
        duration_ms: durationMs,
        working_directory: cwd,
      };
      if (ended === "timeout") {
        yield failure(
          new ToolFailure(
            "timeout",
            `The command ran longer than ${args.timeoutS} s and was killed with its whole process tree; what it printed is in details`,
            payload,
          ),
        );
      } else if (ended === "cancelled") {
        yield progress(
          `Cancelled after ${durationMs} ms: the command was killed with its whole process tree; it may have changed things before that (output so far is in details).`,
        );
        yield failure(
          new ToolFailure(
            "cancelled",
            "The command was cancelled and killed; it may have run partly",
            payload,
          ),
        );
      } else {
        yield result(payload);
      }
      return;
    }
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
    if (!proc.done) await proc.kill();
  }
}
