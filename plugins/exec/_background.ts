/**
 * Background commands: starting them, reading their new output, killing
 * them, and announcing their end on the kernel's event bus.
 *
 * @module
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { PluginContext } from "../sdk/mod.ts";
import type { BashArgs, Call } from "./_call.ts";
import type { Config } from "./_config.ts";
import { ToolFailure } from "./_failure.ts";
import { type ExitInfo, type ShellProcess, UnreadBuffer } from "./_process.ts";
import { start } from "./_spawn.ts";

/** Unread output kept per stream of a background command. */
const MAX_UNREAD_BYTES = 1024 * 1024;
/** Background commands alive at once. */
const MAX_BACKGROUND = 16;
/** Bytes of a command's last output (both streams) its exit event carries. */
const EXIT_TAIL_BYTES = 4096;
/** Finished background commands remembered for bash_output. */
const MAX_FINISHED = 64;

/** The bus event type of a finished background command. */
export const BACKGROUND_EXITED_EVENT = "background_exited";
interface Job {
  readonly id: string;
  readonly sessionId: string;
  readonly command: string;
  readonly proc: ShellProcess;
  readonly stdout: UnreadBuffer;
  readonly stderr: UnreadBuffer;
  /** The last output of both streams, in arrival order (read at exit). */
  readonly tail: UnreadBuffer;
  exit?: ExitInfo;
  killed: boolean;
}

const jobs = new Map<string, Job>();

function jobId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return `bg_${
    Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")
  }`;
}

/** Starts a background command; its result carries the `background_id`. */
export function startBackground(
  args: BashArgs,
  cwd: string,
  cfg: Config,
  sessionId: string,
  ctx: PluginContext,
): JsonObject {
  const running = [...jobs.values()].filter((j) => !j.exit).length;
  if (running >= MAX_BACKGROUND) {
    throw new ToolFailure(
      "execution_failed",
      `${running} background commands are running already (at most ${MAX_BACKGROUND}); stop one with bash_kill first`,
    );
  }
  const stdout = new UnreadBuffer(MAX_UNREAD_BYTES);
  const stderr = new UnreadBuffer(MAX_UNREAD_BYTES);
  const tail = new UnreadBuffer(EXIT_TAIL_BYTES);
  const proc = start(
    args.command,
    cwd,
    cfg,
    (c) => {
      (c.stream === "stdout" ? stdout : stderr).push(c.data);
      tail.push(c.data);
    },
  );
  const job: Job = {
    id: jobId(),
    sessionId,
    command: args.command,
    proc,
    stdout,
    stderr,
    tail,
    killed: false,
  };
  jobs.set(job.id, job);
  const timer = setTimeout(() => void proc.kill(), args.timeoutS * 1000);
  proc.finished.then(async (info) => {
    clearTimeout(timer);
    job.exit = info;
    forgetOldJobs();
    await notifyExited(job, ctx);
  });
  return {
    status: "background",
    background_id: job.id,
    stdout: "",
    stderr: "",
    truncated: false,
    working_directory: cwd,
  };
}

function forgetOldJobs(): void {
  const finished = [...jobs.values()].filter((j) => j.exit);
  for (
    const j of finished.slice(0, Math.max(0, finished.length - MAX_FINISHED))
  ) {
    jobs.delete(j.id);
  }
}

async function notifyExited(job: Job, ctx: PluginContext): Promise<void> {
  const payload = {
    background_id: job.id,
    session_id: job.sessionId,
    command: job.command,
    exit_code: job.exit!.code,
    signal: job.exit!.signal ?? null,
    killed: job.killed,
    // The last few KiB of output, so a listener (the control plane's
    // shell-exit) can act without a bash_output round trip.
    output_tail: job.tail.take().text,
  };
  try {
    const kernel = await ctx.kernel();
    await kernel.publish({
      eventType: BACKGROUND_EXITED_EVENT,
      payload: new TextEncoder().encode(JSON.stringify(payload)),
      payloadType: "application/json",
      schemaVersion: "1",
    });
  } catch (err) {
    ctx.log.warn("Cannot publish the end of a background command", {
      background_id: job.id,
      error: err instanceof Error ? err.message : String(err),
    });
  }
}

function findJob(call: Call): Job {
  const id = call.arguments?.background_id;
  if (typeof id !== "string" || id === "") {
    throw new ToolFailure(
      "invalid_arguments",
      "background_id must be the id bash returned",
    );
  }
  const job = jobs.get(id);
  // Another session's command is as unknown as a missing one.
  if (!job || job.sessionId !== (call.callContext?.sessionId ?? "")) {
    throw new ToolFailure(
      "not_found",
      `No background command ${JSON.stringify(id)} in this session`,
    );
  }
  return job;
}

function exitFields(exit: ExitInfo | undefined): JsonObject {
  if (!exit) return {};
  return {
    exit_code: exit.code,
    ...(exit.signal !== undefined ? { signal: exit.signal } : {}),
  };
}

/** `bash_output`: a background command's new output and status. */
export function readJob(call: Call): JsonObject {
  const job = findJob(call);
  // the end is known only once the pipes are drained, so the last output
  // is never missed
  const exit = job.exit;
  const out = job.stdout.take();
  const err = job.stderr.take();
  return {
    background_id: job.id,
    command: job.command,
    status: exit ? "exited" : "running",
    ...exitFields(exit),
    stdout: out.text,
    stderr: err.text,
    dropped_bytes: out.dropped + err.dropped,
  };
}

/** `bash_kill`: kills a background command's tree. */
export async function killJob(call: Call): Promise<JsonObject> {
  const job = findJob(call);
  const already = job.exit !== undefined;
  if (!already) {
    job.killed = true;
    await job.proc.kill();
  }
  const exit = await job.proc.finished;
  return {
    background_id: job.id,
    status: already ? "exited" : "killed",
    ...exitFields(exit),
  };
}
