/**
 * `agent trigger SESSION_ID "text" [--name N]`: injects a turn into a
 * session (the control plane's `external-trigger`) — how CI or cron drives
 * a session. When a live process of the project holds the session (an
 * interactive `agent`, a frontend, `agent run`, another trigger), the text
 * goes to it through its control endpoint and runs there; otherwise this
 * process claims the stored session, resumes it, runs the turn the trigger
 * starts and closes it again. `agent trigger --due SESSION_ID…` fires the
 * due `control_plane` timers of stored sessions (for cron).
 *
 * @module
 */
import { join, resolve } from "node:path";
import { type Kernel, sessionExitCode } from "../../kernel/api.ts";
import type { Approver } from "../../kernel/agent/approval_gate.ts";
import type { SessionEvent } from "../../kernel/agent/session_events.ts";
import {
  deliverToLiveSession,
  findLiveHolder,
  RUN_DIR,
} from "../../kernel/control/control_endpoint.ts";
import {
  type SessionClaim,
  tryClaimSession,
} from "../../kernel/control/session_claim.ts";
import type { DueTimer } from "../../kernel/control/due_timers.ts";
import { EventRenderer, styleFor } from "../render/events.ts";
import type { AgentIo } from "./io.ts";
import {
  EXIT_BOUND,
  EXIT_OK,
  EXIT_TASK_ERROR,
  EXIT_USAGE,
} from "./exit_codes.ts";
import { parseOptions, usageError, useColor } from "./_common.ts";
import { reportError } from "./_report_error.ts";
import {
  openProjectKernel,
  type ZeroConfig,
  zeroConfig,
} from "./_zero_config.ts";
import { checkDueTimers, type DueCheck } from "../../kernel/due_sessions.ts";
import { BUILTINS } from "../../plugins/builtin.ts";

/** The `--help` text of `agent trigger`. */
export const TRIGGER_HELP: string =
  `Usage: agent trigger SESSION_ID "text" [--name N] [--profile P] [--json]
                    [--dir D] [--approve-all] [--locked] [--keep-alive]
       agent trigger --due SESSION_ID... [--now TIME] [options]

Injects a turn into the session SESSION_ID of the project in D (default:
the current directory); the text reaches the model as a
<cp:external-trigger name="N" …> block. For CI, cron or a sidecar.

- When a live process of this project holds the session (an interactive
  agent, a frontend, agent run, another trigger), the text is handed to it
  over its control endpoint (.agent/run/, a unix socket only this user can
  open) and runs there: as a wake turn when the session is idle, else at
  its next round boundary. This command then exits 0 at once (1 when the
  session's profile turned external-trigger off or it is rate limited).
- Otherwise this process claims the stored session (.agent/run/ID.claim:
  a second trigger meanwhile hands its text to this one instead of
  driving the session too), resumes it, runs the turn the trigger starts
  (asks are denied unless --approve-all), closes it, and exits with the
  turn's code.

--due fires the control_plane timers of each stored SESSION_ID whose period
has passed since they last fired (or since the session started), one
<cp:event-trigger source="timer:NAME"> each and one wake turn per session:
what cron runs for sessions no process holds. A session a live process
holds is skipped (its timers run there); so is one without a due timer.
When no session has a due timer, no plugin is started.

Options:
  --name N        The trigger's name, recorded as its provenance
                  (default: "trigger")
  --profile P     The profile to resume with (default: the session's own)
  --json          One JSON event per line on stdout
  --dir D         The project directory (holding agent.hcl)
  --approve-all   Approve every ask (once)
  --locked        Require .agent/agent.lock.hcl to match every provider
  --keep-alive    After the turn, keep the session open while it watches
                  background commands (each exit wakes it)
  --due           Fire the due timers of the given stored sessions
  --now TIME      With --due: decide what is due at TIME (ISO 8601)
  -h, --help      Show this help

Exit codes: as agent run (0 success, 1 task error, 2 config invalid,
3 usage, 4 policy denied, 5 a bound fired or is spent so nothing wakes the
session, 6 provider error). With --due: the first non-zero code of the
sessions it woke.
`;

const NAME_REGEXP = /^[A-Za-z0-9_.:-]{1,64}$/;

/** How long a trigger waits for the process that claimed the session. */
const CLAIM_WAIT_MS = 120_000;

/**
 * `agent trigger`.
 *
 * @param args The arguments after `trigger`.
 * @param io Streams, environment, directory.
 * @returns The exit code.
 */
export async function triggerCommand(
  args: readonly string[],
  io: AgentIo,
): Promise<number> {
  const usage =
    `Usage: agent trigger SESSION_ID "text" [options]   (agent trigger --help)`;
  const parsed = parseOptions(io, usage, args, {
    help: { type: "boolean", short: "h" },
    name: { type: "string" },
    profile: { type: "string" },
    json: { type: "boolean" },
    dir: { type: "string" },
    "approve-all": { type: "boolean" },
    locked: { type: "boolean" },
    "keep-alive": { type: "boolean" },
    due: { type: "boolean" },
    now: { type: "string" },
  });
  if (!parsed) return EXIT_USAGE;
  const v = parsed.values;
  if (v.help) {
    io.stdout(TRIGGER_HELP);
    return EXIT_OK;
  }
  const positionals = parsed.positionals as string[];
  if (v.due) return await dueCommand(positionals, v, io, usage);
  if (v.now !== undefined) {
    return usageError(io, usage, "--now goes with --due");
  }
  const [sessionId, text, ...extra] = positionals;
  if (sessionId === undefined || text === undefined || extra.length) {
    return usageError(
      io,
      usage,
      'expected a session id and one text (quote it: agent trigger 01J… "the build failed")',
    );
  }
  if (text.trim() === "") return usageError(io, usage, "the text is empty");
  const name = v.name as string | undefined;
  if (name !== undefined && !NAME_REGEXP.test(name)) {
    return usageError(
      io,
      usage,
      `--name must be 1 to 64 letters, digits or _ . : -, not ${
        JSON.stringify(name)
      }`,
    );
  }
  const dir = resolve(io.cwd, (v.dir as string | undefined) ?? ".");
  const runDir = join(dir, RUN_DIR);
  // A live process that holds the session runs the turn; else claim it.
  let claim: SessionClaim;
  try {
    const deadline = Date.now() + CLAIM_WAIT_MS;
    while (true) {
      const delivered = await deliverToLiveSession(runDir, {
        session: sessionId,
        text,
        ...(name !== undefined ? { name } : {}),
      });
      if (delivered?.outcome === "closing") {
        // Its holder is closing it: wait until it is stored, then claim.
        if (Date.now() > deadline) {
          io.stderr(
            `error: Cannot trigger session ${sessionId}: process ${delivered.pid} is closing it and has not finished in ${
              CLAIM_WAIT_MS / 1000
            } s\n`,
          );
          return EXIT_TASK_ERROR;
        }
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      if (delivered) {
        return reportDelivered(io, sessionId, delivered, v.json === true);
      }
      const c = await tryClaimSession(runDir, sessionId);
      if (c.claimed) {
        claim = c.claim;
        break;
      }
      if (Date.now() > deadline) {
        io.stderr(
          `error: Cannot trigger session ${sessionId}: process ${c.holder.pid} claimed it but does not answer on its control endpoint in ${RUN_DIR}\n`,
        );
        return EXIT_TASK_ERROR;
      }
      // The claimant is opening the session: its endpoint will hold it.
      await new Promise((r) => setTimeout(r, 50));
    }
  } catch (err) {
    return reportError(io, err);
  }
  await using _claim = claim;
  const opened = await openProjectKernel(dir, io, {
    locked: v.locked === true,
  });
  if ("exit" in opened) return opened.exit;
  await using kernel = opened.kernel;
  return await drive(kernel, sessionId, text, v, io, {
    ...(name !== undefined ? { name } : {}),
  });
}

type TriggerValues = {
  readonly json?: boolean | undefined;
  readonly profile?: string | undefined;
  readonly "approve-all"?: boolean | undefined;
  readonly "keep-alive"?: boolean | undefined;
  readonly locked?: boolean | undefined;
  readonly dir?: string | undefined;
  readonly now?: string | undefined;
};

/** Runs the wake turn of a claimed stored session and renders it. */
async function drive(
  kernel: Kernel,
  sessionId: string,
  text: string,
  v: TriggerValues,
  io: AgentIo,
  extra: { name?: string; timers?: readonly DueTimer[] },
): Promise<number> {
  const approveAll: Approver = () =>
    Promise.resolve({ decision: "allow", scope: "once" });
  const ac = new AbortController();
  const unsubscribe = io.onInterrupt?.((signal) =>
    ac.abort(new Error(signal === "SIGTERM" ? "terminated" : "interrupted"))
  );
  const run = kernel.trigger(sessionId, text, {
    ...(extra.name !== undefined ? { name: extra.name } : {}),
    ...(extra.timers ? { timers: extra.timers } : {}),
    ...(v.profile !== undefined ? { profile: v.profile } : {}),
    ...(v["approve-all"] ? { approve: approveAll } : {}),
    ...(v["keep-alive"] ? { keepAlive: true } : {}),
    signal: ac.signal,
  });
  const renderer = new EventRenderer(
    { out: (t) => io.stdout(t), err: (t) => io.stderr(t) },
    styleFor(useColor(io)),
  );
  let refused = false;
  try {
    for await (const event of run as AsyncIterable<SessionEvent>) {
      if (event.type === "warning" && event.code === "wake_refused") {
        refused = true;
      }
      if (v.json === true) io.stdout(`${JSON.stringify(event)}\n`);
      else renderer.render(event);
    }
    const code = sessionExitCode(await run.result);
    // Nothing woke the session: its bounds are spent.
    return refused && code === EXIT_OK ? EXIT_BOUND : code;
  } catch (err) {
    return reportError(io, err);
  } finally {
    unsubscribe?.();
  }
}

function reportDelivered(
  io: AgentIo,
  sessionId: string,
  delivered: { pid: number; outcome: string },
  json: boolean,
): number {
  const ok = delivered.outcome === "queued";
  if (json) {
    io.stdout(
      `${
        JSON.stringify({
          type: "trigger_delivered",
          sessionId,
          pid: delivered.pid,
          outcome: delivered.outcome,
        })
      }\n`,
    );
  } else if (ok) {
    io.stdout(
      `Delivered to session ${sessionId}, which process ${delivered.pid} holds: the turn runs there.\n`,
    );
  }
  if (!ok) {
    io.stderr(
      `error: The trigger was not delivered to session ${sessionId} (held by process ${delivered.pid}): ${
        delivered.outcome === "disabled"
          ? "external-trigger is disabled for its profile"
          : delivered.outcome === "rate_limited"
          ? "external-trigger is over its rate limit"
          : delivered.outcome === "no_control_plane"
          ? "the session has no control plane"
          : delivered.outcome
      }\n`,
    );
  }
  return ok ? EXIT_OK : EXIT_TASK_ERROR;
}

/** `agent trigger --due SESSION_ID...`. */
async function dueCommand(
  ids: readonly string[],
  v: TriggerValues & { readonly name?: string | undefined },
  io: AgentIo,
  usage: string,
): Promise<number> {
  if (ids.length === 0) {
    return usageError(
      io,
      usage,
      "--due needs the stored sessions whose timers to fire (agent trigger --due 01J…)",
    );
  }
  if (v.name !== undefined) {
    return usageError(io, usage, "--name does not go with --due");
  }
  let now = Date.now();
  if (v.now !== undefined) {
    now = Date.parse(v.now);
    if (!Number.isFinite(now)) {
      return usageError(
        io,
        usage,
        `--now must be an ISO 8601 time, not ${JSON.stringify(v.now)}`,
      );
    }
  }
  const dir = resolve(io.cwd, v.dir ?? ".");
  const runDir = join(dir, RUN_DIR);
  const locked = v.locked === true;
  const note = (id: string, status: string, text: string) => {
    if (v.json === true) {
      io.stdout(
        `${JSON.stringify({ type: "due", sessionId: id, status, text })}\n`,
      );
    } else io.stderr(`${id}: ${text}\n`);
  };
  // What is due is decided first, without launching a plugin: with nothing
  // due (cron's usual case) no kernel is opened.
  let config: Exclude<ZeroConfig, { kind: "exit" }>;
  let checks: DueCheck[];
  try {
    const decided = await zeroConfig(dir, io, { locked });
    if (decided.kind === "exit") return decided.code;
    config = decided;
    checks = await checkDueTimers(dir, ids, {
      env: io.env,
      builtins: BUILTINS,
      locked,
      now,
      ...(config.kind === "default" ? { defaultConfig: config.text } : {}),
      ...(v.profile !== undefined ? { profile: v.profile } : {}),
    });
  } catch (err) {
    return reportError(io, err);
  }
  if (!checks.some((c) => "timers" in c && c.timers.length > 0)) {
    let worst = EXIT_OK;
    for (const c of checks) {
      if ("error" in c) {
        const code = reportError(io, c.error);
        if (worst === EXIT_OK) worst = code;
      } else note(c.sessionId, "not_due", "no timer is due");
    }
    return worst;
  }
  const opened = await openProjectKernel(dir, io, { locked, config });
  if ("exit" in opened) return opened.exit;
  await using kernel = opened.kernel;
  let worst = EXIT_OK;
  for (const id of ids) {
    let code: number;
    try {
      const timers = await kernel.dueTimers(id, {
        now,
        ...(v.profile !== undefined ? { profile: v.profile } : {}),
      });
      if (timers.length === 0) {
        note(id, "not_due", "no timer is due");
        continue;
      }
      const holder = await findLiveHolder(runDir, id);
      if (holder !== undefined) {
        note(
          id,
          "held",
          `process ${holder} holds the session: its timers run there`,
        );
        continue;
      }
      const c = await tryClaimSession(runDir, id);
      if (!c.claimed) {
        note(
          id,
          "claimed",
          `process ${c.holder.pid} is waking the session now`,
        );
        continue;
      }
      await using _claim = c.claim;
      note(
        id,
        "due",
        `firing ${timers.map((t) => `timer:${t.name}`).join(", ")}`,
      );
      code = await drive(kernel, id, "", v, io, { timers });
    } catch (err) {
      code = reportError(io, err);
    }
    if (worst === EXIT_OK) worst = code;
  }
  return worst;
}
