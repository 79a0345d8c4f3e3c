/**
 * `agent run "prompt"`: one prompt, non-interactively, on the library API
 * (`openKernel`); its arguments, its help and its exit code.
 *
 * @module
 */
import { resolve } from "node:path";

import {
  type KernelSessionOptions,
  type RunningFrontend,
  sessionExitCode,
} from "../../kernel/api.ts";
import type { Approver } from "../../kernel/agent/approval_gate.ts";
import type { OnAsk } from "../../kernel/agent/session_spec.ts";
import { EventRenderer, styleFor } from "../render/events.ts";
import type { AgentIo } from "./io.ts";
import { EXIT_OK, EXIT_TERMINATED, EXIT_USAGE } from "./exit_codes.ts";
import { parseOptions, usageError, useColor } from "./_common.ts";
import { reportError } from "./_report_error.ts";
import { openProjectKernel } from "./_zero_config.ts";

/** The `--help` text of `agent run`. */
export const RUN_HELP: string =
  `Usage: agent run "prompt" [--profile P] [--json] [--on-ask deny|fail|wait]
                [--resume ID] [--dir D] [--approve-all] [--locked]
                [--goal "…"] [--judge NAME] [--plan] [--frontend NAME]
                [--keep-alive]

Runs one prompt non-interactively in the project in D (default: the current
directory) and exits. Never prompts: a plan item whose policy says "ask" is
denied (--on-ask deny, the default; the model sees the denial) or ends the
run with exit code 4 (--on-ask fail), unless --approve-all approves it.

Options:
  --profile P     The agent_profile to run (default: "default")
  --json          One JSON event per line on stdout, the session id first
  --on-ask MODE   deny | fail | wait: what an ask becomes (default: deny);
                  wait: it waits, up to the ask timeout, for an answer
                  from an attached frontend or, on the shared PostgreSQL
                  store, from agent attach on any machine
  --resume ID     Continue a stored session (the prompt is then optional)
  --dir D         The project directory (holding agent.hcl; without one,
                  the built-in default runs: see agent init -h)
  --approve-all   Approve every ask (once) — for sandboxes and demos
  --locked        Require .agent/agent.lock.hcl to match every provider
  --goal TEXT     A session goal: the session goes on until the agent
                  declares it done or blocked (<cp:goal-status>), within
                  the profile's bounds
  --judge NAME    Review the result with the judge profile NAME
                  (kind = "judge"): each time the agent finishes, the
                  judge checks its answer against the goal (or the
                  prompt) and answers <cp:judge-directive>: accept ends
                  the run, continue sends its directive to the agent as
                  the next prompt; at most max_judge_rounds reviews
                  (default 3; exit code 5 when none accepted), within
                  the profile's bounds (the judge's cost counts)
  --plan          Plan mode: only read-only tools, the model told so each
                  round; the plan it answers with is then carried out in
                  the same session with every tool if --approve-all is
                  given, else the run ends with the plan
  --frontend NAME Also start this frontend plugin for the run: it may
                  attach the session (ListSessions, AttachSession), watch
                  it and answer its asks (without --on-ask or
                  --approve-all an ask waits for an attached frontend, up
                  to the ask timeout); it is stopped when the run ends
  --keep-alive    After the prompt, keep the session open while it watches
                  background commands: each one's exit wakes it (a wake
                  turn); exits once none is left (agent trigger from
                  another process reaches it meanwhile)
  -h, --help      Show this help

Exit codes: 0 success, 1 task error, 2 config or lock invalid, 3 usage,
4 policy denied a required action, 5 a bound fired, 6 provider error
(also a tool plugin that crashed during a call), 130 interrupted (Ctrl-C),
143 terminated (SIGTERM; the session ends as cancelled).
`;

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
  const parsed = parseOptions(io, usage, args, {
    help: { type: "boolean", short: "h" },
    profile: { type: "string" },
    json: { type: "boolean" },
    "on-ask": { type: "string" },
    resume: { type: "string" },
    dir: { type: "string" },
    "approve-all": { type: "boolean" },
    locked: { type: "boolean" },
    goal: { type: "string" },
    judge: { type: "string" },
    frontend: { type: "string" },
    plan: { type: "boolean" },
    "keep-alive": { type: "boolean" },
  });
  if (!parsed) return EXIT_USAGE;
  const v = parsed.values;
  if (v.help) {
    io.stdout(RUN_HELP);
    return EXIT_OK;
  }
  const onAsk = v["on-ask"];
  if (
    onAsk !== undefined && onAsk !== "deny" && onAsk !== "fail" &&
    onAsk !== "wait"
  ) {
    return usageError(
      io,
      usage,
      `--on-ask must be "deny", "fail" or "wait", not ${JSON.stringify(onAsk)}`,
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
  const goal = v.goal;
  if (goal !== undefined && goal.trim() === "") {
    return usageError(io, usage, "the goal is empty");
  }
  if (v.judge !== undefined && v.judge.trim() === "") {
    return usageError(io, usage, "--judge needs a profile name");
  }
  const dir = resolve(io.cwd, v.dir ?? ".");
  const json = v.json === true;
  const ac = new AbortController();
  let terminated = false;
  const unsubscribe = io.onInterrupt?.((signal) => {
    if (signal === "SIGTERM") terminated = true;
    ac.abort(new Error(signal === "SIGTERM" ? "terminated" : "interrupted"));
  });
  try {
    const opened = await openProjectKernel(dir, io, {
      locked: v.locked === true,
      ...(v.resume !== undefined ? { resume: v.resume } : {}),
    });
    if ("exit" in opened) return opened.exit;
    await using _claim = opened.claim;
    await using kernel = opened.kernel;
    let frontend: RunningFrontend | undefined;
    if (v.frontend !== undefined) {
      try {
        frontend = await kernel.startFrontend(v.frontend);
      } catch (err) {
        return reportError(io, err);
      }
    }
    await using _f = {
      [Symbol.asyncDispose]: () => frontend?.stop() ?? Promise.resolve(),
    };
    const options: KernelSessionOptions = {
      ...(v.profile !== undefined ? { profile: v.profile } : {}),
      ...(v.resume !== undefined ? { resumeId: v.resume } : {}),
      // With a frontend, an ask waits for its answer (ResolvePlanDecision).
      // wait: the same, for whoever answers (agent attach, a frontend).
      onAsk: onAsk === "wait" ? "callback" : (onAsk as OnAsk | undefined) ??
        (frontend && !v["approve-all"] ? "callback" : "deny"),
      ...(v["approve-all"] ? { approve: approveAll } : {}),
      ...(goal !== undefined ? { goal } : {}),
      ...(v.judge !== undefined ? { judge: v.judge } : {}),
      ...(v["keep-alive"] ? { keepAlive: true } : {}),
      ...(v.plan
        ? {
          planMode: true,
          approvePlan: () => {
            if (v["approve-all"]) return Promise.resolve(true);
            io.stderr(
              "The plan was not carried out (plan mode; --approve-all carries it out)\n",
            );
            return Promise.resolve(false);
          },
        }
        : {}),
      signal: ac.signal,
    };
    const run = kernel.run(prompt, options);
    const renderer = new EventRenderer(
      { out: (t) => io.stdout(t), err: (t) => io.stderr(t) },
      styleFor(useColor(io)),
    );
    const lines = json ? new LineBatch((t) => io.stdout(t)) : undefined;
    try {
      for await (const event of run) {
        if (lines) lines.push(JSON.stringify(event));
        else renderer.render(event);
      }
      lines?.flush();
      const outcome = await run.result;
      // SIGTERM ends the session like Ctrl-C (cancelled, session_ended);
      // the plugins stop and temp dirs go when the kernel is disposed.
      return terminated ? EXIT_TERMINATED : sessionExitCode(outcome);
    } catch (err) {
      lines?.flush();
      return reportError(io, err);
    }
  } finally {
    unsubscribe?.();
  }
}

/**
 * The `--json` lines, written together once the events of one burst are
 * out: a line is queued, and the queue goes to standard output in one
 * write in the next macrotask (or at {@linkcode LineBatch.flush}). A turn
 * emits its events (`message`, `tool_call`, `tool_result`,
 * `turn_started`, …) from one chain of microtasks on the way to the next
 * model request; a write per line made that chain wait for each system
 * call. The lines, their order and their content are unchanged.
 */
class LineBatch {
  readonly #write: (text: string) => void;
  #lines: string[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(write: (text: string) => void) {
    this.#write = write;
  }

  /** Queues one line (without its newline). */
  push(line: string): void {
    this.#lines.push(line);
    this.#timer ??= setTimeout(() => this.flush(), 0);
  }

  /** Writes the queued lines now. */
  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#lines.length === 0) return;
    const text = this.#lines.join("\n") + "\n";
    this.#lines = [];
    this.#write(text);
  }
}
