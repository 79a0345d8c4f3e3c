/**
 * `agent` with no command: a line-based interactive session on the library
 * API (`openKernel`), with approvals and questions asked on the
 * terminal; its arguments, its help and its exit code.
 *
 * @module
 */
import { resolve } from "node:path";

import type { Plan } from "../../config/mod.ts";
import { PLAN_APPROVED_PROMPT, sessionExitCode } from "../../kernel/api.ts";
import type { Approver } from "../../kernel/agent/approval_gate.ts";
import type { InteractiveAnswerer } from "../../kernel/agent/interactive_gate.ts";
import type { ApprovalAnswer } from "../../kernel/agent/session_events.ts";
import { EventRenderer, styleFor } from "../render/events.ts";
import type { AgentIo, CliIo } from "./io.ts";
import {
  EXIT_OK,
  EXIT_PROVIDER,
  EXIT_TERMINATED,
  EXIT_USAGE,
} from "./exit_codes.ts";
import type {
  Kernel,
  RunningFrontend,
  StartFrontendOptions,
} from "../../kernel/api.ts";

/** The first-party terminal UI's local name (`builtin/tui`). */
const TUI_FRONTEND = "tui";
/** Tests only: `1` makes the first terminal UI crash after its backfill. */
const TUI_CRASH_ENV = "AGENT_TEST_TUI_CRASH";
import { parseOptions, usageError, useColor } from "./_common.ts";
import { reportError } from "./_report_error.ts";
import { openProjectKernel } from "./_zero_config.ts";

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
  `Interactive session. On a terminal, \`agent\` opens the full-screen terminal UI
(builtin/tui; --frontend NAME or settings.default_frontend picks another
frontend plugin, --no-tui keeps this line UI). In the line UI, type a prompt
and press Enter. Plans are shown with their
diff and asked for: y = approve once, s = approve for the session, a = always
(written to agent.hcl as a policy), n = reject. Ctrl-C interrupts the running
turn; /exit (or Ctrl-D) ends the session. Other /name [args] lines run the
profile's direct-invoke slash commands (slash_commands), without a model turn;
/help lists builtin/commands' commands when the profile lists them.
`;

/**
 * `agent --frontend NAME` (or `settings.default_frontend`): the frontend
 * plugin drives the sessions through its callback channel; the CLI waits
 * until it exits. Ctrl-C or SIGTERM stops it. The terminal UI (`restart`)
 * that crashes while a session it opened runs is started once more,
 * attached to that session.
 */
async function runFrontend(
  kernel: Kernel,
  name: string,
  io: AgentIo,
  options: StartFrontendOptions = {},
  restart = false,
): Promise<number> {
  let fe: RunningFrontend;
  try {
    fe = await kernel.startFrontend(name, options);
  } catch (err) {
    return reportError(io, err);
  }
  if (fe.notice) io.stderr(`agent: ${fe.notice}\n`);
  let stopped = false;
  const unsubscribe = io.onInterrupt?.(() => {
    stopped = true;
    fe.stop().catch(() => {});
  });
  try {
    const exit = await fe.exited;
    if (options.terminal) restoreTerminal(io);
    if (stopped) return EXIT_TERMINATED;
    if (exit.crashed) {
      const ended = `agent: frontend "${name}" ended with ${
        exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`
      }`;
      const session = exit.sessions[0];
      if (restart && session) {
        // The session went on headless; the terminal UI comes back once,
        // attached to it (AttachSession, then the stored events backfill).
        io.stderr(`${ended}; restarting it on session ${session}\n`);
        return await runFrontend(kernel, name, io, {
          ...options,
          config: {
            ...Object.fromEntries(
              Object.entries(options.config ?? {}).filter(([k]) =>
                k !== "crash_after_backfill"
              ),
            ),
            attach: session,
            restarted: ended.replace(/^agent: /, ""),
          },
        }, false);
      }
      io.stderr(`${ended}\n`);
      return EXIT_PROVIDER;
    }
    return EXIT_OK;
  } finally {
    unsubscribe?.();
  }
}

/**
 * Leaves the terminal usable after a full-screen frontend, even one that
 * crashed: cooked mode, the main screen, a visible cursor.
 */
function restoreTerminal(io: AgentIo): void {
  try {
    if (io.stdinIsTerminal) Deno.stdin.setRaw(false);
  } catch {
    // not our terminal (a test's io)
  }
  io.stderr("\x1b[?1049l\x1b[?25h");
}

/**
 * What the terminal UI needs to know of the profiles that no RPC tells a
 * frontend: the bounds it shows in its status line and the slash
 * commands it completes, as JSON by profile name.
 */
function profilesForFrontend(kernel: Kernel): string {
  const out: Record<string, unknown> = {};
  for (const p of kernel.plan.profiles) {
    out[p.name] = {
      ...(p.bounds.maxTurns !== undefined
        ? { max_turns: p.bounds.maxTurns }
        : {}),
      ...(p.bounds.maxCostUsd !== undefined
        ? { max_cost_usd: p.bounds.maxCostUsd }
        : {}),
      commands: kernel.slashCommandNames(p.name),
    };
  }
  return JSON.stringify(out);
}

/** A slash command's result as text: its `text`, else its JSON. */
function commandText(result: Readonly<Record<string, unknown>>): string {
  const text = typeof result.text === "string"
    ? result.text
    : JSON.stringify(result, null, 2);
  return text.endsWith("\n") ? text : `${text}\n`;
}

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
    "Usage: agent [--profile P] [--resume ID] [--frontend NAME | --no-tui] [--dir D] [--locked] [--plan]   (agent --help)";
  const parsed = parseOptions(io, usage, args, {
    plan: { type: "boolean" },
    profile: { type: "string" },
    resume: { type: "string" },
    frontend: { type: "string" },
    "no-tui": { type: "boolean" },
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
      }: expected run, trigger, sessions, init, check-config, lock, plan or test (or no command for an interactive session)`,
    );
  }
  const v = parsed.values;
  const stdin = io.stdin;
  if (!stdin) {
    return usageError(io, usage, "no standard input to read prompts from");
  }
  const tty = io.stdinIsTerminal === true;
  const dir = resolve(io.cwd, v.dir ?? ".");
  if (v.plan && v.frontend !== undefined && v.frontend !== TUI_FRONTEND) {
    return usageError(
      io,
      usage,
      `--plan works with the terminal UI and the line UI, not with frontend "${v.frontend}"`,
    );
  }
  // A terminal on stdin and stderr: the full-screen UI (builtin/tui,
  // started even when agent.hcl does not declare it), unless --no-tui or
  // another frontend is named. Pipes and non-terminals keep the line UI.
  // Plan mode (--plan) is the terminal UI's and the line UI's: with
  // another default frontend it stays in the line UI.
  const terminal = tty && io.stderrIsTerminal === true;
  const frontendOf = (plan: Plan): string | undefined => {
    const byDefault = plan.settings.defaultFrontend ??
      (terminal ? TUI_FRONTEND : undefined);
    return v.frontend ??
      (v["no-tui"] || (v.plan && byDefault !== TUI_FRONTEND)
        ? undefined
        : byDefault);
  };
  // The terminal UI paints its first screen (on the alternate screen) as
  // soon as its process starts: what is printed while the kernel opens
  // (warnings, or the error that stops it) would be drawn over that screen
  // and gone with it, so it is held and printed once the UI has gone.
  const held: string[] = [];
  let holding = false;
  let painted = false;
  const flushHeld = () => {
    holding = false;
    for (const text of held.splice(0)) io.stderr(text);
  };
  const openIo: CliIo = {
    stdout: (text) => io.stdout(text),
    stderr: (text) => holding ? held.push(text) : io.stderr(text),
    isTerminal: io.isTerminal,
    env: io.env,
    cwd: io.cwd,
    ...(io.platform !== undefined ? { platform: io.platform } : {}),
  };
  const opened = await openProjectKernel(dir, openIo, {
    locked: v.locked === true,
    persistAlways: tty,
    // The frontend's process starts beside the providers (its own
    // start-up, Ink and React for the terminal UI, overlaps theirs).
    prestartFrontend: (plan) => {
      const name = frontendOf(plan);
      holding = painted = terminal && name === TUI_FRONTEND;
      return name
        ? { name, terminal, implicitBuiltin: TUI_FRONTEND }
        : undefined;
    },
    ...(v.resume !== undefined ? { resume: v.resume } : {}),
  });
  if ("exit" in opened) {
    // A TUI stopped before its Configure may not have restored the
    // terminal it painted on (the kernel kills an unconfigured plugin).
    if (painted) restoreTerminal(io);
    flushHeld();
    return opened.exit;
  }
  await using _claim = opened.claim;
  await using kernel = opened.kernel;
  const style = styleFor(useColor(io));
  const frontend = frontendOf(kernel.plan);
  if (frontend) {
    // Held output is printed once the frontend has gone.
    try {
      return await runFrontend(kernel, frontend, io, {
        terminal,
        implicitBuiltin: TUI_FRONTEND,
        ...(frontend === TUI_FRONTEND
          ? {
            config: {
              ...(v.profile !== undefined ? { profile: v.profile } : {}),
              ...(v.resume !== undefined ? { resume: v.resume } : {}),
              ...(v.plan ? { plan: "true" } : {}),
              profiles_json: profilesForFrontend(kernel),
              // Tests only: the first terminal UI exits abruptly once it has
              // drawn its session (the restart path).
              ...(io.env[TUI_CRASH_ENV] === "1"
                ? { crash_after_backfill: "true" }
                : {}),
            },
          }
          : {}),
      }, frontend === TUI_FRONTEND);
    } finally {
      flushHeld();
    }
  }
  flushHeld();
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
  // Events of the prompt the user typed are rendered as it is iterated;
  // a wake turn (a background command's exit, a timer, a trigger) has no
  // iterator, so its events are rendered as they come.
  let foreground = false;
  try {
    session = await kernel.session({
      ...(v.profile !== undefined ? { profile: v.profile } : {}),
      ...(v.resume !== undefined ? { resumeId: v.resume } : {}),
      onAsk: tty ? "callback" : "deny",
      ...(tty ? { approve, answer } : {}),
      ...(v.plan ? { planMode: true } : {}),
      onEvent: (e) => {
        if (
          !foreground || e.type === "session_started" ||
          e.type === "session_ended"
        ) {
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
  const stop = new AbortController();
  const unsubscribe = io.onInterrupt?.((signal) => {
    if (signal === "SIGTERM") {
      // Termination ends the session (cancelled), not just the turn.
      stop.abort(new Error("terminated"));
      current?.abort(new Error("terminated"));
      return;
    }
    if (current) {
      current.abort(new Error("interrupted"));
      io.stderr(style.yellow("\ninterrupted\n"));
    } else if (session.interrupt()) {
      // A wake turn (or a slash command) runs: it stops, the session stays.
      io.stderr(style.yellow("\ninterrupted\n"));
    } else {
      io.stderr(style.dim("\n(/exit ends the session)\n"));
      if (tty) io.stderr("> ");
    }
  });
  const foregroundTurn = async (text: string, signal: AbortSignal) => {
    foreground = true;
    const turn = session.send(text, { signal });
    try {
      for await (const e of turn) renderer.render(e);
    } finally {
      foreground = false;
    }
    return await turn.result;
  };
  let code = EXIT_OK;
  try {
    while (!session.ended && !stop.signal.aborted) {
      if (tty) io.stderr("> ");
      const line = await lines.next(stop.signal);
      if (line === undefined || line.trim() === "/exit") break;
      if (line.trim() === "") continue;
      await session.idle(); // a wake turn finishes first
      if (line.trim().startsWith("/")) {
        // A direct-invoke slash command: no model turn, the same hub
        // operation as a frontend's InvokeSlashCommand.
        const text = line.trim().slice(1);
        const space = text.indexOf(" ");
        const name = space < 0 ? text : text.slice(0, space);
        try {
          const r = await session.command(
            name,
            space < 0 ? "" : text.slice(space + 1),
          );
          if (r.ok) io.stdout(commandText(r.result));
          else io.stderr(style.red(`/${name}: ${r.error}\n`));
        } catch (err) {
          io.stderr(
            style.red(
              `/${name}: ${err instanceof Error ? err.message : String(err)}\n`,
            ),
          );
        }
        continue;
      }
      current = new AbortController();
      let r = await foregroundTurn(line, current.signal);
      if (r.outcome === "done" && session.planMode) {
        // Plan mode: offer the plan; approved, the same session carries
        // it out with every tool; rejected (or no terminal), it ends.
        io.stderr(style.yellow("carry out this plan? [y]es / [n]o: "));
        const ok = tty &&
          /^y(es)?$/i.test((await lines.next(stop.signal))?.trim() ?? "");
        if (!ok) break;
        session.setPlanMode(false);
        r = await foregroundTurn(PLAN_APPROVED_PROMPT, current.signal);
      }
      current = undefined;
      if (r.outcome === "bound" || r.outcome === "failed") break;
    }
  } catch (err) {
    code = reportError(io, err);
  } finally {
    unsubscribe?.();
    lines.cancel();
  }
  const outcome = await session.close(
    stop.signal.aborted ? "cancelled" : undefined,
  );
  if (stop.signal.aborted) return EXIT_TERMINATED;
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
