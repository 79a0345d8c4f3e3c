/**
 * `exec`: the reference shell tool provider (plugins.md §7.2).
 *
 * - `bash` (resource, high): runs a command line with `bash -c` in the
 *   call's working directory, streaming stdout and stderr as
 *   `output_chunk` events, then one `exit_status`, then a `result` with the
 *   exit code and the (bounded, truncation-marked) output. A timeout (per
 *   call, a configured default and maximum) or a cancellation kills the
 *   whole process tree. With `run_in_background` it returns at once with a
 *   `background_id`.
 * - `bash_output` (data source, read only): the new output and the status
 *   of a background command.
 * - `bash_kill` (resource, low): kills a background command's tree.
 *
 * When a background command ends, the plugin publishes
 * `plugin.tool.exec.background_exited` on the kernel's event bus (JSON
 * payload), so that frontends and other plugins learn of it without
 * polling.
 *
 * The command's environment is exactly `PATH` (the plugin's own) plus the
 * provider block's `env` map: nothing else of the kernel's or the plugin's
 * environment. Deno's sandbox does not reach into the command: an allowed
 * `bash` can do whatever the operating-system user can, which is why every
 * call passes the plan/apply gate and policy judges each segment of the
 * command line (`command` rules, see README.md).
 *
 * Run it only through the kernel; started by hand it explains itself and
 * exits 1.
 *
 * @module
 */
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import { isAbsolute, relative, resolve } from "node:path";
import { parseShellCommand } from "../../contract/shell_command.ts";
import { Code, GrpcStatusError } from "../../proto/grpc_adapter.ts";
import {
  type RenderTreeSchema,
  TextStyle,
} from "../../proto/gen/pluggableharness/render/v1/types_pb.ts";
import {
  type SchemaSchema,
  SchemaType,
} from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import { ToolErrorCategory } from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import { OutputStream } from "../../proto/gen/pluggableharness/tool/v1/events_pb.ts";
import type {
  GetSchemaResponseSchema,
  InvokeResponseSchema,
} from "../../proto/gen/pluggableharness/tool/v1/rpc_response_pb.ts";
import { ToolService } from "../../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import {
  RiskClass,
  ToolKind,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import {
  configSchemaOf,
  describeResponse,
  parseManifest,
  type PluginContext,
  serve,
  service,
  toolError,
  toolProgress as progress,
  toolResult as result,
} from "../sdk/mod.ts";
import { objectSchema as object } from "../sdk/tool_kit.ts";
import {
  BoundedCapture,
  type Chunk,
  type ExitInfo,
  ShellProcess,
  UnreadBuffer,
} from "./_process.ts";
import manifestJson from "./plugin.json" with { type: "json" };

type Event = MessageInitShape<typeof InvokeResponseSchema>;
type Schema = MessageInitShape<typeof SchemaSchema>;
type Tree = MessageInitShape<typeof RenderTreeSchema>;
type Node = NonNullable<Tree["root"]>;

const manifest = parseManifest(manifestJson, "exec/plugin.json");

/** The largest `max_timeout_s` a provider block may set. */
const TIMEOUT_CEILING_S = 3600;
/** Streamed output per call stops here (the result is bounded separately). */
const MAX_STREAMED_BYTES = 4 * 1024 * 1024;
/** Unread output kept per stream of a background command. */
const MAX_UNREAD_BYTES = 1024 * 1024;
/** Background commands alive at once. */
const MAX_BACKGROUND = 16;
/** Finished background commands remembered for bash_output. */
const MAX_FINISHED = 64;

/** The bus event type of a finished background command. */
export const BACKGROUND_EXITED_EVENT = "background_exited";

type FailureKind =
  | "invalid_arguments"
  | "not_found"
  | "permission_denied"
  | "execution_failed"
  | "timeout"
  | "cancelled";

const CATEGORY: Record<FailureKind, ToolErrorCategory> = {
  invalid_arguments: ToolErrorCategory.INVALID_ARGUMENTS,
  not_found: ToolErrorCategory.NOT_FOUND,
  permission_denied: ToolErrorCategory.PERMISSION_DENIED,
  execution_failed: ToolErrorCategory.EXECUTION_FAILED,
  timeout: ToolErrorCategory.TIMEOUT,
  cancelled: ToolErrorCategory.CANCELLED,
};

/** A classified failure of a call. */
class ToolFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly details: JsonObject = {},
  ) {
    super(message);
  }
}

/** The provider block, checked. */
export interface Config {
  /** Real paths of the roots. */
  roots: string[];
  /** The command's variables besides PATH. */
  env: Record<string, string>;
  /** `default_timeout_s`. */
  defaultTimeoutS: number;
  /** `max_timeout_s`. */
  maxTimeoutS: number;
  /** `max_output_bytes`. */
  maxOutputBytes: number;
}

let config: Config | undefined;

function str(description: string): Schema {
  return { type: SchemaType.STRING, description };
}

function num(description: string): Schema {
  return { type: SchemaType.NUMBER, description };
}

function bool(description: string): Schema {
  return { type: SchemaType.BOOLEAN, description };
}

const BACKGROUND_ID = str(
  "The id bash returned for a command started with run_in_background.",
);

const SCHEMA: MessageInitShape<typeof GetSchemaResponseSchema> = {
  tools: [
    {
      name: "bash",
      kind: ToolKind.RESOURCE,
      risk: RiskClass.HIGH,
      description:
        "Runs a bash command line (`bash -c`) in the session's working " +
        "directory and returns its exit code, stdout and stderr (long " +
        "output keeps its start and end, with a truncation marker). The " +
        "command gets no terminal, no stdin and only PATH plus the " +
        "configured variables. It is killed with its whole process tree " +
        "after timeout_s seconds. Set run_in_background for servers and " +
        "long jobs, then read them with bash_output and stop them with " +
        "bash_kill. Each simple command of the line is checked by policy, " +
        "so prefer plain commands over eval or variables as command names.",
      inputSchema: object({
        command: str("The command line, run with bash -c."),
        timeout_s: num(
          "Seconds before the command is killed (default and maximum set by the operator).",
        ),
        run_in_background: bool(
          "Start the command and return at once with a background_id.",
        ),
        description: str(
          "A few words saying what the command does, shown to the user.",
        ),
      }, ["command"]),
      outputSchema: object({
        status: str(
          '"exited" for a finished command, "background" for one started with run_in_background.',
        ),
        exit_code: num("The exit code (128 + n after signal n)."),
        signal: str("The signal that ended the command, if any."),
        stdout: str("Standard output, cut in the middle when too long."),
        stderr: str("Standard error, cut in the middle when too long."),
        truncated: bool("Whether output was cut."),
        duration_ms: num("How long the command ran."),
        working_directory: str("Where the command ran."),
        background_id: str("The background command's id."),
      }, ["status", "stdout", "stderr", "truncated", "working_directory"]),
      streaming: true,
      concurrency: { safe: false, keyFields: [] },
      defaultTimeout: { seconds: BigInt(TIMEOUT_CEILING_S + 30) },
      idempotent: false,
    },
    {
      name: "bash_output",
      kind: ToolKind.DATA_SOURCE,
      risk: RiskClass.READ_ONLY,
      description:
        "Returns the output a background command wrote since the last " +
        "bash_output call, and whether it is still running (with its exit " +
        "code once it ended).",
      inputSchema: object({ background_id: BACKGROUND_ID }, ["background_id"]),
      outputSchema: object({
        background_id: str("The background command's id."),
        command: str("Its command line."),
        status: str('"running" or "exited".'),
        exit_code: num("The exit code, once exited."),
        signal: str("The signal that ended it, if any."),
        stdout: str("New standard output."),
        stderr: str("New standard error."),
        dropped_bytes: num(
          "Unread bytes dropped because too much output piled up.",
        ),
      }, [
        "background_id",
        "command",
        "status",
        "stdout",
        "stderr",
        "dropped_bytes",
      ]),
      streaming: false,
      concurrency: { safe: true, keyFields: ["background_id"] },
      defaultTimeout: { seconds: 10n },
      idempotent: true,
    },
    {
      name: "bash_kill",
      kind: ToolKind.RESOURCE,
      risk: RiskClass.LOW,
      description: "Kills a background command and every process it started.",
      inputSchema: object({ background_id: BACKGROUND_ID }, ["background_id"]),
      outputSchema: object({
        background_id: str("The background command's id."),
        status: str('"killed", or "exited" when it had already ended.'),
        exit_code: num("Its exit code."),
        signal: str("The signal that ended it, if any."),
      }, ["background_id", "status"]),
      streaming: false,
      concurrency: { safe: true, keyFields: ["background_id"] },
      defaultTimeout: { seconds: 10n },
      idempotent: true,
    },
  ],
  configSchema: configSchemaOf(manifest),
  supportedHookPoints: [],
};

// ---------------------------------------------------------------------------
// Configure

function positive(
  cfg: JsonObject,
  key: string,
  fallback: number,
  max: number,
): number {
  const v = cfg[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0 || v > max) {
    throw new GrpcStatusError(
      Code.INVALID_ARGUMENT,
      `config attribute "${key}" must be a number above 0 and at most ${max}, got ${
        JSON.stringify(v)
      }`,
    );
  }
  return v;
}

async function configure(raw: JsonObject | undefined): Promise<void> {
  const bad = (message: string): never => {
    throw new GrpcStatusError(Code.INVALID_ARGUMENT, message);
  };
  const cfg = raw ?? {};
  const known = [
    "roots",
    "env",
    "default_timeout_s",
    "max_timeout_s",
    "max_output_bytes",
  ];
  for (const key of Object.keys(cfg)) {
    if (!known.includes(key)) {
      bad(
        `config attribute "${key}" is not supported by exec (it takes ${
          known.map((k) => `"${k}"`).join(", ")
        })`,
      );
    }
  }
  const list = cfg.roots;
  if (list === undefined || list === null) {
    bad(
      `config attribute "roots" is required: the directories commands may run in`,
    );
  }
  if (
    !Array.isArray(list) || list.length === 0 ||
    list.some((r) => typeof r !== "string" || r === "")
  ) {
    bad(
      `config attribute "roots" must be a non-empty list of non-empty strings`,
    );
  }
  const roots: string[] = [];
  for (const root of list as string[]) {
    const abs = resolve(Deno.cwd(), root);
    try {
      const real = await Deno.realPath(abs);
      if (!(await Deno.stat(real)).isDirectory) {
        bad(`root "${root}" is not a directory`);
      }
      roots.push(real);
    } catch (err) {
      if (err instanceof GrpcStatusError) throw err;
      if (err instanceof Deno.errors.NotFound) {
        bad(`root "${root}" does not exist`);
      }
      bad(
        `root "${root}" cannot be read by the plugin (it may read what the provider block grants with allow_read): ${
          (err as Error).message
        }`,
      );
    }
  }
  const env: Record<string, string> = {};
  const e = cfg.env ?? {};
  if (typeof e !== "object" || e === null || Array.isArray(e)) {
    bad(`config attribute "env" must be a map of strings`);
  }
  for (const [k, v] of Object.entries(e as JsonObject)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) {
      bad(
        `config attribute "env" has an invalid variable name ${
          JSON.stringify(k)
        }`,
      );
    }
    if (typeof v !== "string") {
      bad(
        `config attribute "env" must map names to strings; "${k}" is not a string`,
      );
    }
    env[k] = v as string;
  }
  const maxTimeoutS = positive(cfg, "max_timeout_s", 600, TIMEOUT_CEILING_S);
  const defaultTimeoutS = positive(cfg, "default_timeout_s", 120, maxTimeoutS);
  const maxOutputBytes = Math.floor(
    positive(cfg, "max_output_bytes", 30000, 16 * 1024 * 1024),
  );
  config = { roots, env, defaultTimeoutS, maxTimeoutS, maxOutputBytes };
}

// ---------------------------------------------------------------------------
// Calls

interface Call {
  toolName?: string;
  arguments?: JsonObject;
  callContext?: { sessionId: string; workingDirectory: string };
}

function configured(): Config {
  if (!config) {
    throw new ToolFailure(
      "execution_failed",
      "The exec provider is not configured: Configure must set roots first",
    );
  }
  return config;
}

function within(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** The call's working directory, resolved and confined to the roots. */
async function workingDirectory(call: Call, cfg: Config): Promise<string> {
  const wd = call.callContext?.workingDirectory ?? "";
  if (wd === "" || !isAbsolute(wd)) {
    throw new ToolFailure(
      "invalid_arguments",
      `The call's working directory must be an absolute path, got ${
        JSON.stringify(wd)
      }`,
    );
  }
  let real: string;
  try {
    real = await Deno.realPath(wd);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw new ToolFailure(
        "not_found",
        `The working directory ${wd} does not exist`,
      );
    }
    throw new ToolFailure(
      "permission_denied",
      `The working directory ${wd} is outside what exec may read (the roots are ${
        cfg.roots.join(", ")
      })`,
    );
  }
  if (!cfg.roots.some((r) => within(real, r))) {
    throw new ToolFailure(
      "permission_denied",
      `The working directory ${wd} is outside the roots of this exec provider (${
        cfg.roots.join(", ")
      })`,
      { working_directory: wd, roots: cfg.roots },
    );
  }
  return real;
}

/** The arguments of a `bash` call, checked. */
export interface BashArgs {
  /** The command line. */
  command: string;
  /** The call's timeout_s, else the default (foreground) or the maximum (background). */
  timeoutS: number;
  /** `run_in_background`. */
  background: boolean;
}

function bashArgs(call: Call, cfg: Config): BashArgs {
  const a = call.arguments ?? {};
  for (const key of Object.keys(a)) {
    if (
      !["command", "timeout_s", "run_in_background", "description"].includes(
        key,
      )
    ) {
      throw new ToolFailure(
        "invalid_arguments",
        `Unknown argument ${
          JSON.stringify(key)
        }: bash takes command, timeout_s, run_in_background and description`,
      );
    }
  }
  if (typeof a.command !== "string" || a.command.trim() === "") {
    throw new ToolFailure(
      "invalid_arguments",
      "command must be a non-empty string",
    );
  }
  let timeoutS = cfg.defaultTimeoutS;
  if (a.timeout_s !== undefined && a.timeout_s !== null) {
    if (
      typeof a.timeout_s !== "number" || !(a.timeout_s > 0) ||
      a.timeout_s > cfg.maxTimeoutS
    ) {
      throw new ToolFailure(
        "invalid_arguments",
        `timeout_s must be a number above 0 and at most ${cfg.maxTimeoutS}, got ${
          JSON.stringify(a.timeout_s)
        }`,
      );
    }
    timeoutS = a.timeout_s;
  }
  const bg = a.run_in_background ?? false;
  if (typeof bg !== "boolean") {
    throw new ToolFailure(
      "invalid_arguments",
      "run_in_background must be a boolean",
    );
  }
  if (a.description !== undefined && typeof a.description !== "string") {
    throw new ToolFailure("invalid_arguments", "description must be a string");
  }
  if (bg && (a.timeout_s === undefined || a.timeout_s === null)) {
    timeoutS = cfg.maxTimeoutS;
  }
  return { command: a.command, timeoutS, background: bg };
}

function commandEnv(cfg: Config): Record<string, string> {
  let path = "/usr/local/bin:/usr/bin:/bin";
  try {
    path = Deno.env.get("PATH") ?? path;
  } catch {
    // PATH not readable: the default
  }
  return { ...cfg.env, PATH: cfg.env.PATH ?? path };
}

/** Every command still running (foreground or background). */
const live = new Set<ShellProcess>();

function start(
  command: string,
  cwd: string,
  cfg: Config,
  onChunk: (c: Chunk) => void,
): ShellProcess {
  try {
    const proc = ShellProcess.start(command, {
      cwd,
      env: commandEnv(cfg),
      onChunk,
    });
    live.add(proc);
    proc.finished.finally(() => live.delete(proc));
    return proc;
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable) {
      throw new ToolFailure(
        "permission_denied",
        `exec may not run bash: grant it with allow_run = ["bash"] in the provider block (${
          (err as Error).message
        })`,
      );
    }
    if (err instanceof Deno.errors.NotFound) {
      throw new ToolFailure("not_found", `bash was not found on PATH`);
    }
    throw err;
  }
}

function event(e: Event["event"]): Event {
  return { event: e };
}

function failure(f: ToolFailure): Event {
  return toolError(CATEGORY[f.kind], f.message, { details: f.details });
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

// ---------------------------------------------------------------------------
// Background commands

interface Job {
  readonly id: string;
  readonly sessionId: string;
  readonly command: string;
  readonly proc: ShellProcess;
  readonly stdout: UnreadBuffer;
  readonly stderr: UnreadBuffer;
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

function startBackground(
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
  const proc = start(
    args.command,
    cwd,
    cfg,
    (c) => (c.stream === "stdout" ? stdout : stderr).push(c.data),
  );
  const job: Job = {
    id: jobId(),
    sessionId,
    command: args.command,
    proc,
    stdout,
    stderr,
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

function readJob(call: Call): JsonObject {
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

async function killJob(call: Call): Promise<JsonObject> {
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

/** At shutdown: commands run in their own session and would outlive us. */
async function killAll(): Promise<void> {
  await Promise.all([...live].map((p) => p.kill()));
}

// ---------------------------------------------------------------------------
// Preview

function text(content: string, bold = false): Node {
  return {
    node: {
      case: "text",
      value: { content, style: bold ? TextStyle.BOLD : TextStyle.NORMAL },
    },
  };
}

async function previewTree(call: Call): Promise<Tree> {
  const cfg = configured();
  const tool = call.toolName ?? "bash";
  if (tool !== "bash") {
    const id = call.arguments?.background_id;
    return {
      root: text(
        `Kill background command ${
          typeof id === "string" ? id : "?"
        } and every process it started`,
        true,
      ),
    };
  }
  const args = bashArgs(call, cfg);
  const cwd = await workingDirectory(call, cfg);
  const parsed = parseShellCommand(args.command);
  const segments: Node = parsed.ok
    ? {
      node: {
        case: "list",
        value: {
          ordered: false,
          items: parsed.segments.map((s) =>
            text(
              s.via.length > 0
                ? `${s.text}   (via ${s.via.join(" › ")})`
                : s.text,
            )
          ),
        },
      },
    }
    : text(
      `The command cannot be split into simple commands with certainty: ${parsed.reason}`,
      true,
    );
  return {
    root: {
      node: {
        case: "group",
        value: {
          children: [
            text(
              args.background
                ? `Run in the background in ${cwd}`
                : `Run in ${cwd} (killed after ${args.timeoutS} s)`,
              true,
            ),
            ...(typeof call.arguments?.description === "string" &&
                call.arguments.description !== ""
              ? [text(call.arguments.description)]
              : []),
            {
              node: {
                case: "codeBlock",
                value: { language: "bash", content: args.command },
              },
            },
            text(parsed.ok ? "Simple commands:" : "Simple commands: unknown"),
            segments,
          ],
        },
      },
    },
  };
}

// ---------------------------------------------------------------------------

function classify(err: unknown): ToolFailure {
  if (err instanceof ToolFailure) return err;
  if (err instanceof Deno.errors.NotCapable) {
    return new ToolFailure("permission_denied", (err as Error).message);
  }
  return new ToolFailure(
    "execution_failed",
    err instanceof Error ? err.message : String(err),
  );
}

if (import.meta.main) {
  await serve({
    identity: {
      name: manifest.name,
      version: manifest.version,
      category: "tool",
    },
    onShutdown: killAll,
    services: (ctx) => [
      service(ToolService, {
        getSchema: () => SCHEMA,
        configure: async (req) => {
          await configure(req.config);
          return {};
        },
        async *invoke(req, { signal }): AsyncGenerator<Event> {
          const call = req.call;
          const tool = call?.toolName ?? "";
          try {
            if (!call) {
              throw new ToolFailure("invalid_arguments", "The call is missing");
            }
            const cfg = configured();
            switch (tool) {
              case "bash": {
                const args = bashArgs(call, cfg);
                const cwd = await workingDirectory(call, cfg);
                if (args.background) {
                  yield result(
                    startBackground(
                      args,
                      cwd,
                      cfg,
                      call.callContext?.sessionId ?? "",
                      ctx,
                    ),
                  );
                  return;
                }
                yield* runForeground(args, cwd, cfg, signal);
                return;
              }
              case "bash_output":
                yield result(readJob(call));
                return;
              case "bash_kill":
                yield result(await killJob(call));
                return;
              default:
                throw new ToolFailure(
                  "invalid_arguments",
                  `Unknown tool ${
                    JSON.stringify(tool)
                  }: this provider has bash, bash_output and bash_kill`,
                );
            }
          } catch (err) {
            const f = classify(err);
            if (f.kind === "execution_failed") {
              ctx.log.warn(`${tool} failed`, { message: f.message });
            }
            yield failure(f);
          }
        },
        preview: async (req) => {
          const call = req.call;
          try {
            if (!call) {
              throw new ToolFailure("invalid_arguments", "The call is missing");
            }
            if (call.toolName === "bash_output") {
              throw new GrpcStatusError(
                Code.UNIMPLEMENTED,
                "bash_output has no preview (it changes nothing)",
              );
            }
            return { preview: await previewTree(call) };
          } catch (err) {
            if (err instanceof GrpcStatusError) throw err;
            const f = classify(err);
            const code = {
              invalid_arguments: Code.INVALID_ARGUMENT,
              not_found: Code.NOT_FOUND,
              permission_denied: Code.PERMISSION_DENIED,
              execution_failed: Code.INTERNAL,
              timeout: Code.DEADLINE_EXCEEDED,
              cancelled: Code.CANCELLED,
            }[f.kind];
            throw new GrpcStatusError(code, f.message);
          }
        },
        render: () => {
          throw new GrpcStatusError(Code.UNIMPLEMENTED, "exec has no Render");
        },
        describe: () => describeResponse(manifest),
      }),
    ],
  });
}
