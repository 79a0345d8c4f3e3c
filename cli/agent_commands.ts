/**
 * The session commands of the `agent` command line, built on the library
 * API ({@linkcode openKernel}): `agent` (interactive), `agent run` and
 * `agent sessions`.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { ConfigError, formatDiagnostic } from "../config/mod.ts";
import type { CliIo } from "./commands/check_config.ts";
import {
  type KernelSessionOptions,
  openKernel,
  openSessions,
  ProviderError,
  sessionExitCode,
} from "../kernel/kernel.ts";
import type { Approver } from "../kernel/agent/approval_gate.ts";
import type { InteractiveAnswerer } from "../kernel/agent/interactive_gate.ts";
import type {
  ApprovalAnswer,
  SessionEvent,
} from "../kernel/agent/session_events.ts";
import type { OnAsk } from "../kernel/agent/session_spec.ts";
import {
  PluginCrashedError,
  PluginStartError,
} from "../kernel/plugin/errors.ts";
import {
  SESSION_STATUS_TEXT,
  type VerifyResult,
} from "../kernel/state/session_store.ts";
import { SessionNotFoundError, StateError } from "../kernel/state/errors.ts";
import { SessionNotResumableError } from "../kernel/agent/errors.ts";
import {
  EXIT_CONFIG,
  EXIT_OK,
  EXIT_PROVIDER,
  EXIT_TASK_ERROR,
  EXIT_USAGE,
} from "../kernel/agent/exit_codes.ts";
import { EventRenderer, styleFor } from "./render/events.ts";
import { BUILTINS } from "../plugins/builtin.ts";
import { zeroConfig } from "./zero_config.ts";

export {
  EXIT_BOUND,
  EXIT_CONFIG,
  EXIT_OK,
  EXIT_POLICY,
  EXIT_PROVIDER,
  EXIT_TASK_ERROR,
  EXIT_USAGE,
} from "../kernel/agent/exit_codes.ts";

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

/** The `--help` text of `agent run`. */
export const RUN_HELP: string =
  `Usage: agent run "prompt" [--profile P] [--json] [--on-ask deny|fail]
                [--resume ID] [--dir D] [--approve-all] [--locked]

Runs one prompt non-interactively in the project in D (default: the current
directory) and exits. Never prompts: a plan item whose policy says "ask" is
denied (--on-ask deny, the default; the model sees the denial) or ends the
run with exit code 4 (--on-ask fail), unless --approve-all approves it.

Options:
  --profile P     The agent_profile to run (default: "default")
  --json          One JSON event per line on stdout, the session id first
  --on-ask MODE   deny | fail: what an ask becomes (default: deny)
  --resume ID     Continue a stored session (the prompt is then optional)
  --dir D         The project directory (holding agent.hcl; without one,
                  the built-in default runs: see agent init -h)
  --approve-all   Approve every ask (once) — for sandboxes and demos
  --locked        Require .agent/agent.lock.hcl to match every provider
  -h, --help      Show this help

Exit codes: 0 success, 1 task error, 2 config or lock invalid, 3 usage,
4 policy denied a required action, 5 a bound fired, 6 provider error,
130 interrupted.
`;

/** The `--help` text of `agent sessions`. */
export const SESSIONS_HELP: string = `Usage: agent sessions list [--json]
       agent sessions show ID [--json]
       agent sessions replay ID [--json]
       agent sessions verify ID

Stored sessions ($XDG_STATE_HOME/agent/sessions, else
~/.local/state/agent/sessions):
  list     Every session, newest first: id, status, profile, cost, start
  show     One session's record and its transcript summary
  replay   Prints a session's events again, without calling any model
  verify   Checks the session's keyed hash chain and its head kept outside
           the file, and says what that proves (exit 1 when broken)

Options:
  --json       JSON output (one object, or one event per line for replay)
  -h, --help   Show this help
`;

function usageError(io: CliIo, usage: string, message: string): number {
  io.stderr(`${usage}\nerror: ${message}\n`);
  return EXIT_USAGE;
}

function colorOf(io: CliIo): boolean {
  return io.isTerminal && !io.env.NO_COLOR;
}

interface Parsed {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

type OptionSpec = Record<
  string,
  { type: "string" | "boolean"; short?: string }
>;

function parse(
  io: CliIo,
  usage: string,
  args: readonly string[],
  options: OptionSpec,
): Parsed | undefined {
  try {
    const r = parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options,
    });
    return {
      values: r.values as Parsed["values"],
      positionals: r.positionals,
    };
  } catch (err) {
    usageError(io, usage, err instanceof Error ? err.message : String(err));
    return undefined;
  }
}

/**
 * Maps an error of opening a kernel or a session to an exit code, and
 * prints it.
 *
 * @param io Where to print.
 * @param err The error.
 * @returns The exit code.
 */
export function reportError(io: CliIo, err: unknown): number {
  if (err instanceof ConfigError) {
    for (const d of err.diagnostics) {
      io.stderr(`${formatDiagnostic(d)}\n`);
    }
    io.stderr(`error: ${err.message}\n`);
    return EXIT_CONFIG;
  }
  const message = err instanceof Error ? err.message : String(err);
  if (
    err instanceof ProviderError || err instanceof PluginStartError ||
    err instanceof PluginCrashedError
  ) {
    io.stderr(`error: ${message}\n`);
    return EXIT_PROVIDER;
  }
  if (
    err instanceof SessionNotFoundError ||
    err instanceof SessionNotResumableError || err instanceof StateError
  ) {
    io.stderr(`error: ${message}\n`);
    return EXIT_TASK_ERROR;
  }
  io.stderr(`error: ${message}\n`);
  return EXIT_TASK_ERROR;
}

const approveAll: Approver = () =>
  Promise.resolve({ decision: "allow", scope: "once" });

/**
 * `agent run`.
 *
 * @param args The arguments after `run`.
 * @param io Streams, environment, directory.
 * @returns The exit code.
 */
export async function runCommand(
  args: readonly string[],
  io: AgentIo,
): Promise<number> {
  const usage = `Usage: agent run "prompt" [options]   (agent run --help)`;
  const parsed = parse(io, usage, args, {
    help: { type: "boolean", short: "h" },
    profile: { type: "string" },
    json: { type: "boolean" },
    "on-ask": { type: "string" },
    resume: { type: "string" },
    dir: { type: "string" },
    "approve-all": { type: "boolean" },
    locked: { type: "boolean" },
  });
  if (!parsed) return EXIT_USAGE;
  const v = parsed.values;
  if (v.help) {
    io.stdout(RUN_HELP);
    return EXIT_OK;
  }
  const onAsk = v["on-ask"] as string | undefined;
  if (onAsk !== undefined && onAsk !== "deny" && onAsk !== "fail") {
    return usageError(
      io,
      usage,
      `--on-ask must be "deny" or "fail", not ${JSON.stringify(onAsk)}`,
    );
  }
  if (parsed.positionals.length > 1) {
    return usageError(
      io,
      usage,
      'expected one prompt (quote it: agent run "fix the typo")',
    );
  }
  const prompt = parsed.positionals[0] as string | undefined;
  if (prompt === undefined && v.resume === undefined) {
    return usageError(io, usage, "a prompt is required");
  }
  if (prompt !== undefined && prompt.trim() === "") {
    return usageError(io, usage, "the prompt is empty");
  }
  const dir = resolve(io.cwd, (v.dir as string | undefined) ?? ".");
  const json = v.json === true;
  const ac = new AbortController();
  const unsubscribe = io.onInterrupt?.(() =>
    ac.abort(new Error("interrupted"))
  );
  try {
    let kernel;
    try {
      const config = await zeroConfig(dir, io, { locked: v.locked === true });
      if (config.kind === "exit") return config.code;
      kernel = await openKernel(dir, {
        builtins: BUILTINS,
        env: io.env,
        locked: v.locked === true,
        ...(config.kind === "default" ? { defaultConfig: config.text } : {}),
      });
    } catch (err) {
      return reportError(io, err);
    }
    await using _k = kernel;
    const options: KernelSessionOptions = {
      ...(v.profile !== undefined ? { profile: v.profile as string } : {}),
      ...(v.resume !== undefined ? { resumeId: v.resume as string } : {}),
      onAsk: (onAsk as OnAsk | undefined) ?? "deny",
      ...(v["approve-all"] ? { approve: approveAll } : {}),
      signal: ac.signal,
    };
    const run = kernel.run(prompt, options);
    const renderer = new EventRenderer(
      { out: (t) => io.stdout(t), err: (t) => io.stderr(t) },
      styleFor(colorOf(io)),
    );
    try {
      for await (const event of run) {
        if (json) io.stdout(`${JSON.stringify(event)}\n`);
        else renderer.render(event);
      }
      const outcome = await run.result;
      return sessionExitCode(outcome);
    } catch (err) {
      return reportError(io, err);
    }
  } finally {
    unsubscribe?.();
  }
}

function eventLine(e: SessionEvent): string {
  return `${JSON.stringify(e)}\n`;
}

/**
 * `agent sessions list | show ID | replay ID | verify ID`.
 *
 * @param args The arguments after `sessions`.
 * @param io Streams, environment, directory.
 * @returns The exit code.
 */
export async function sessionsCommand(
  args: readonly string[],
  io: AgentIo,
): Promise<number> {
  const usage = "Usage: agent sessions list | show ID | replay ID | verify ID";
  const parsed = parse(io, usage, args, {
    help: { type: "boolean", short: "h" },
    json: { type: "boolean" },
  });
  if (!parsed) return EXIT_USAGE;
  if (parsed.values.help) {
    io.stdout(SESSIONS_HELP);
    return EXIT_OK;
  }
  const [sub, id, ...extra] = parsed.positionals as string[];
  const json = parsed.values.json === true;
  if (sub === undefined) {
    return usageError(io, usage, "expected list, show, replay or verify");
  }
  if (!["list", "show", "replay", "verify"].includes(sub)) {
    return usageError(
      io,
      usage,
      `unknown subcommand ${
        JSON.stringify(sub)
      }: expected list, show, replay or verify`,
    );
  }
  if (sub === "list" ? id !== undefined : id === undefined) {
    return usageError(
      io,
      usage,
      sub === "list" ? "list takes no argument" : `${sub} needs a session id`,
    );
  }
  if (extra.length > 0) return usageError(io, usage, "too many arguments");
  let sessions;
  try {
    sessions = openSessions({ env: io.env });
  } catch (err) {
    return reportError(io, err);
  }
  await using store = sessions;
  const style = styleFor(colorOf(io));
  try {
    switch (sub) {
      case "list": {
        const { sessions: list, unreadable } = await store.list();
        if (json) {
          io.stdout(
            `${
              JSON.stringify({
                sessions: list.map((s) => ({
                  ...s,
                  status: SESSION_STATUS_TEXT[s.status],
                })),
                unreadable,
              })
            }\n`,
          );
        } else {
          for (const s of list) {
            io.stdout(
              `${s.sessionId}  ${SESSION_STATUS_TEXT[s.status].padEnd(20)} ${
                s.profile.padEnd(12)
              } $${(s.costUsd ?? 0).toFixed(4)}  ${s.startedAt}\n`,
            );
          }
          for (const u of unreadable) {
            io.stderr(`warning: cannot read session ${u.sessionId}\n`);
          }
          if (list.length === 0) io.stderr("No sessions.\n");
        }
        return EXIT_OK;
      }
      case "show": {
        const { sessions: list } = await store.list();
        const record = list.find((s) => s.sessionId === id);
        if (!record) {
          io.stderr(`error: no session ${JSON.stringify(id)}\n`);
          return EXIT_TASK_ERROR;
        }
        let messages = 0;
        let toolCalls = 0;
        let plans = 0;
        let finalText = "";
        for await (const e of store.replay(id!)) {
          if (e.type === "message") {
            messages++;
            if (e.role === "assistant" && e.text) finalText = e.text;
          } else if (e.type === "tool_call") toolCalls++;
          else if (e.type === "plan") plans++;
        }
        const view = {
          ...record,
          status: SESSION_STATUS_TEXT[record.status],
          messages,
          toolCalls,
          plans,
          finalText,
        };
        if (json) io.stdout(`${JSON.stringify(view)}\n`);
        else {
          io.stdout(
            [
              `session   ${view.sessionId}`,
              `status    ${view.status}`,
              `profile   ${view.profile}`,
              `started   ${view.startedAt}`,
              `ended     ${view.endedAt ?? "-"}`,
              `cost      $${(view.costUsd ?? 0).toFixed(4)}`,
              `messages  ${messages}, tool calls ${toolCalls}, plans ${plans}`,
              `final     ${finalText}`,
              "",
            ].join("\n"),
          );
        }
        return EXIT_OK;
      }
      case "replay": {
        const renderer = new EventRenderer(
          { out: (t) => io.stdout(t), err: (t) => io.stderr(t) },
          style,
        );
        for await (const e of store.replay(id!)) {
          if (json) io.stdout(eventLine(e));
          else renderer.render(e);
        }
        return EXIT_OK;
      }
      default: {
        const r = await store.verify(id!);
        if (json) io.stdout(`${JSON.stringify(r)}\n`);
        else io.stdout(verifyReport(r));
        return r.ok ? EXIT_OK : EXIT_TASK_ERROR;
      }
    }
  } catch (err) {
    return reportError(io, err);
  }
}

/**
 * What `agent sessions verify` proved, and what it cannot prove, in words.
 *
 * @param r The verification result.
 * @returns The text for stdout.
 */
export function verifyReport(r: VerifyResult): string {
  const key = "anyone without the installation key";
  const holder =
    "It cannot rule out changes by someone holding the installation key (the kernel's user), nor a rollback of both the session file and its head to copies saved earlier.";
  if (!r.ok) {
    const what = r.chain === "keyed" ? "keyed chain" : "unkeyed (legacy) chain";
    return `broken: ${r.message} (${what}; ${r.events} events verified before the break)\n`;
  }
  const lines = [`ok: ${r.events} events, head ${r.head}`];
  if (r.chain === "keyed") {
    lines.push(
      r.headCheck === "behind"
        ? `keyed chain valid; the head outside the file names an earlier event (the kernel stopped between a commit and the head write): no event up to it was deleted or edited by ${key}, and every later event carries a valid keyed hash.`
        : `keyed chain valid; head matches: no event was deleted or edited by ${key}.`,
      holder,
    );
  } else {
    lines.push(
      "unkeyed (legacy): integrity only against accidental damage. This session was written before the chain was keyed, so anyone who can write its file could have edited it and recomputed the chain.",
    );
    if (r.headCheck === "match" || r.headCheck === "behind") {
      lines.push(
        `Its head outside the file (written since the upgrade) matches: the events it covers were not deleted or rewritten since by ${key}.`,
      );
    } else {
      lines.push(
        "It has no head outside the file, so a deletion of its newest events cannot be ruled out either.",
      );
    }
  }
  return `${lines.join("\n")}\n`;
}

/**
 * Reads lines from a byte stream. One read is in flight at a time; a
 * waiter that gives up (its signal aborts, e.g. an approval question whose
 * turn was interrupted) leaves the next line to the next waiter.
 */
class LineReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = "";
  #done = false;
  #pending: Promise<string | undefined> | undefined;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.getReader();
  }

  async #read(): Promise<string | undefined> {
    while (true) {
      const nl = this.#buffer.indexOf("\n");
      if (nl >= 0) {
        const line = this.#buffer.slice(0, nl).replace(/\r$/, "");
        this.#buffer = this.#buffer.slice(nl + 1);
        return line;
      }
      if (this.#done) {
        if (this.#buffer === "") return undefined;
        const line = this.#buffer;
        this.#buffer = "";
        return line;
      }
      const { value, done } = await this.#reader.read();
      if (done) {
        this.#done = true;
        this.#buffer += this.#decoder.decode();
      } else this.#buffer += this.#decoder.decode(value, { stream: true });
    }
  }

  /**
   * The next line; `undefined` at the end of input or when the signal
   * aborts (the line then goes to the next caller).
   */
  async next(signal?: AbortSignal): Promise<string | undefined> {
    if (signal?.aborted) return undefined;
    this.#pending ??= this.#read();
    const pending = this.#pending;
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<"aborted">((resolve) => {
      onAbort = () => resolve("aborted");
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    try {
      const r = await Promise.race([pending, aborted]);
      if (r === "aborted") return undefined;
      this.#pending = undefined;
      return r;
    } finally {
      if (onAbort) signal?.removeEventListener("abort", onAbort);
    }
  }

  cancel(): void {
    this.#reader.cancel().catch(() => {});
  }
}

/** The `--help` text of interactive `agent`. */
export const INTERACTIVE_HELP: string =
  `Interactive session: type a prompt and press Enter. Plans are shown with their
diff and asked for: y = approve once, s = approve for the session, a = always
(written to agent.hcl as a policy), n = reject. Ctrl-C interrupts the running
turn; /exit (or Ctrl-D) ends the session.
`;

/**
 * `agent` with no command: a line-based interactive session on the
 * project directory. Without a terminal on standard input it never
 * prompts for approvals (asks are denied) and reads prompts line by line.
 *
 * @param args Options (`--profile`, `--resume`, `--dir`, `--locked`).
 * @param io Streams, environment, directory.
 * @returns The exit code.
 */
export async function interactiveCommand(
  args: readonly string[],
  io: AgentIo,
): Promise<number> {
  const usage =
    "Usage: agent [--profile P] [--resume ID] [--dir D] [--locked]   (agent --help)";
  const parsed = parse(io, usage, args, {
    profile: { type: "string" },
    resume: { type: "string" },
    dir: { type: "string" },
    locked: { type: "boolean" },
  });
  if (!parsed) return EXIT_USAGE;
  if (parsed.positionals.length > 0) {
    return usageError(
      io,
      usage,
      `unknown command ${
        JSON.stringify(parsed.positionals[0])
      }: expected run, sessions, init, check-config or lock (or no command for an interactive session)`,
    );
  }
  const v = parsed.values;
  const stdin = io.stdin;
  if (!stdin) {
    return usageError(io, usage, "no standard input to read prompts from");
  }
  const tty = io.stdinIsTerminal === true;
  const dir = resolve(io.cwd, (v.dir as string | undefined) ?? ".");
  let kernel;
  try {
    const config = await zeroConfig(dir, io, { locked: v.locked === true });
    if (config.kind === "exit") return config.code;
    kernel = await openKernel(dir, {
      builtins: BUILTINS,
      env: io.env,
      locked: v.locked === true,
      persistAlways: tty,
      ...(config.kind === "default" ? { defaultConfig: config.text } : {}),
    });
  } catch (err) {
    return reportError(io, err);
  }
  await using _k = kernel;
  const style = styleFor(colorOf(io));
  const renderer = new EventRenderer(
    { out: (t) => io.stdout(t), err: (t) => io.stderr(t) },
    style,
  );
  const lines = new LineReader(stdin);
  const approve: Approver = async (request, { signal }) => {
    const scopes = request.scopes;
    io.stderr(
      style.yellow(
        `approve ${request.provider}.${request.tool}? [y]es once / [s]ession${
          scopes.includes("always") ? " / [a]lways" : ""
        } / [n]o: `,
      ),
    );
    while (true) {
      const answer = (await lines.next(signal))?.trim().toLowerCase();
      const pick = (
        decision: "allow" | "deny",
        scope: ApprovalAnswer["scope"],
      ) => ({ decision, scope }) as ApprovalAnswer;
      if (answer === undefined || answer === "n" || answer === "no") {
        return pick("deny", "once");
      }
      if (answer === "y" || answer === "yes") return pick("allow", "once");
      if (answer === "s" || answer === "session") {
        return pick("allow", "session");
      }
      if (
        (answer === "a" || answer === "always") && scopes.includes("always")
      ) {
        return pick("allow", "always");
      }
      io.stderr("please answer y, s, a or n: ");
    }
  };
  const answer: InteractiveAnswerer = async (request, { signal }) => {
    const p = request.prompt;
    const options = Array.isArray(p.options)
      ? p.options.flatMap((o) =>
        o && typeof o === "object" && !Array.isArray(o) &&
          typeof o.label === "string"
          ? [{
            label: o.label,
            description: typeof o.description === "string" ? o.description : "",
          }]
          : []
      )
      : [];
    const multi = p.multi_select === true;
    io.stderr(style.yellow(`\n? ${String(p.question ?? "")}\n`));
    options.forEach((o, i) =>
      io.stderr(
        `  ${i + 1}. ${o.label}${
          o.description ? style.dim(` — ${o.description}`) : ""
        }\n`,
      )
    );
    io.stderr(
      style.yellow(
        options.length
          ? `answer (${
            multi ? "numbers separated by commas" : "a number"
          }, or your own words): `
          : "answer: ",
      ),
    );
    const line = (await lines.next(signal))?.trim() ?? "";
    return { answer: interpretAnswer(line, options.map((o) => o.label)) };
  };
  let session;
  try {
    session = await kernel.session({
      ...(v.profile !== undefined ? { profile: v.profile as string } : {}),
      ...(v.resume !== undefined ? { resumeId: v.resume as string } : {}),
      onAsk: tty ? "callback" : "deny",
      ...(tty ? { approve, answer } : {}),
      onEvent: (e) => {
        if (e.type === "session_started" || e.type === "session_ended") {
          renderer.render(e);
        }
      },
    });
  } catch (err) {
    lines.cancel();
    return reportError(io, err);
  }
  if (tty) io.stderr(style.dim(INTERACTIVE_HELP));
  let current: AbortController | undefined;
  const unsubscribe = io.onInterrupt?.(() => {
    if (current) {
      current.abort(new Error("interrupted"));
      io.stderr(style.yellow("\ninterrupted\n"));
    } else {
      io.stderr(style.dim("\n(/exit ends the session)\n"));
      if (tty) io.stderr("> ");
    }
  });
  let code = EXIT_OK;
  try {
    while (!session.ended) {
      if (tty) io.stderr("> ");
      const line = await lines.next();
      if (line === undefined || line.trim() === "/exit") break;
      if (line.trim() === "") continue;
      current = new AbortController();
      const turn = session.send(line, { signal: current.signal });
      for await (const e of turn) renderer.render(e);
      const r = await turn.result;
      current = undefined;
      if (r.outcome === "bound" || r.outcome === "failed") break;
    }
  } catch (err) {
    code = reportError(io, err);
  } finally {
    unsubscribe?.();
    lines.cancel();
  }
  const outcome = await session.close();
  return code !== EXIT_OK
    ? code
    : sessionExitCode(outcome) === 130
    ? EXIT_OK
    : sessionExitCode(outcome);
}

/**
 * An answer line as the model should read it: option numbers (`2`, or
 * `1, 3`) become their labels; anything else is the user's own words.
 *
 * @param line The line the user typed.
 * @param labels The options' labels.
 * @returns The answer text.
 */
export function interpretAnswer(
  line: string,
  labels: readonly string[],
): string {
  const parts = line.split(",").map((x) => x.trim()).filter((x) => x !== "");
  if (
    labels.length && parts.length &&
    parts.every((x) => /^\d+$/.test(x) && +x >= 1 && +x <= labels.length)
  ) {
    return parts.map((x) => labels[+x - 1]!).join(", ");
  }
  return line;
}
