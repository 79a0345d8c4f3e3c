/**
 * `agent attach SESSION_ID`: follow a live session that another kernel
 * drives — on this machine or another — through the shared PostgreSQL
 * store (issue 19): the transcript so far, then each event as it is
 * committed ({@linkcode followSession}), and its pending asks answered from
 * here over the cross-kernel bus ({@linkcode decideRemotely}; the first
 * answer wins across machines).
 *
 * @module
 */
import { resolve } from "node:path";
import { join } from "node:path";
import { EventBus } from "../../kernel/bus/event_bus.ts";
import { followSession } from "../../kernel/frontend/follow_session.ts";
import { decideRemotely } from "../../kernel/frontend/remote_decisions.ts";
import type {
  ApprovalAnswer,
  PlanItemView,
} from "../../kernel/agent/session_events.ts";
import { stateLocationsOf } from "../../kernel/open_sessions.ts";
import type { PlanState } from "../../config/decode_state.ts";
import { GrpcStatusError } from "../../proto/grpc_status.ts";
import { EventRenderer, styleFor } from "../render/events.ts";
import type { AgentIo } from "./io.ts";
import {
  EXIT_CONFIG,
  EXIT_OK,
  EXIT_TASK_ERROR,
  EXIT_USAGE,
} from "./exit_codes.ts";
import { parseOptions, usageError, useColor } from "./_common.ts";
import { reportError } from "./_report_error.ts";

/** The `--help` text of `agent attach`. */
export const ATTACH_HELP: string =
  `Usage: agent attach SESSION_ID [--dir D] [--json] [--approve-all | --deny-all]

Follows a session that another kernel drives — on this machine or another —
through the shared PostgreSQL store: prints its transcript so far, then each
event as it is committed, until the session ends (Ctrl-C detaches; the
session goes on). Its asks are answered from here: each plan item waiting
for a decision is asked on standard input (or answered by --approve-all /
--deny-all) and sent to the kernel that drives the session; the first answer
wins, from whichever machine, and a later one is reported as too late.
The driving kernel must wait for answers (agent run --on-ask wait, or an
attached frontend).

The store is the state {} block of the project in D (agent.hcl), else of
the global config ($XDG_CONFIG_HOME/agent/config.hcl); it must select
backend = "postgres". Nothing else of the project runs here.

Options:
  --dir D         The project directory (default: the current directory)
  --json          One JSON line per event; decisions as {"type":"decision"}
  --approve-all   Approve every pending ask (once)
  --deny-all      Deny every pending ask
  -h, --help      Show this help

Exit codes: 0 the session ended (whatever its status), 1 it was
interrupted (its kernel is gone) or cannot be read, 2 the configuration
selects no shared store, 3 usage.
`;

/**
 * `agent attach`.
 *
 * @param args The arguments after `attach`.
 * @param io Streams, environment, directory.
 * @returns The exit code.
 */
export async function attachCommand(
  args: readonly string[],
  io: AgentIo,
): Promise<number> {
  const usage =
    "Usage: agent attach SESSION_ID [--dir D] [--json] [--approve-all | --deny-all]   (agent attach -h)";
  const parsed = parseOptions(io, usage, args, {
    help: { type: "boolean", short: "h" },
    dir: { type: "string" },
    json: { type: "boolean" },
    "approve-all": { type: "boolean" },
    "deny-all": { type: "boolean" },
  });
  if (!parsed) return EXIT_USAGE;
  const v = parsed.values;
  if (v.help) {
    io.stdout(ATTACH_HELP);
    return EXIT_OK;
  }
  const [sessionId, ...extra] = parsed.positionals;
  if (sessionId === undefined) {
    return usageError(io, usage, "a session id is required");
  }
  if (extra.length > 0) {
    return usageError(
      io,
      usage,
      `expected one session id, got also ${JSON.stringify(extra[0])}`,
    );
  }
  if (v["approve-all"] && v["deny-all"]) {
    return usageError(
      io,
      usage,
      "--approve-all and --deny-all contradict each other: give one",
    );
  }
  const dir = resolve(io.cwd, v.dir ?? ".");
  let state: PlanState | undefined;
  try {
    state = await sharedStateOf(dir, io);
  } catch (err) {
    return reportError(io, err);
  }
  if (state?.backend !== "postgres") {
    io.stderr(
      `error: agent attach follows sessions in the shared PostgreSQL store, but the configuration of "${dir}" keeps sessions in this machine's files: add state { backend = "postgres"  url = env("AGENT_DATABASE_URL") } to its agent.hcl or to the global config\n`,
    );
    return EXIT_CONFIG;
  }
  const url = io.env[state.urlEnv];
  if (!url) {
    io.stderr(
      `error: the environment variable ${state.urlEnv} (state.url, the database URL) is not set or empty\n`,
    );
    return EXIT_CONFIG;
  }
  const ac = new AbortController();
  const unsubscribe = io.onInterrupt?.(() => ac.abort());
  const bus = new EventBus({ subscribeQueueBound: Infinity });
  const { PostgresSessionStore } = await import(
    "../../kernel/state/postgres_session_store.ts"
  );
  const store = new PostgresSessionStore({
    url,
    schema: state.schema,
    keyPath: stateLocationsOf(io.env, undefined).keyPath,
    bus,
  });
  try {
    await store.startBusBridge();
    return await follow(io, bus, store, sessionId, {
      json: v.json === true,
      auto: v["approve-all"] ? "allow" : v["deny-all"] ? "deny" : undefined,
      signal: ac.signal,
    });
  } catch (err) {
    return reportError(io, err);
  } finally {
    unsubscribe?.();
    ac.abort();
    await store.close().catch(() => {});
    bus.close();
  }
}

/** The state block of the project (agent.hcl), else of the global config. */
async function sharedStateOf(
  dir: string,
  io: AgentIo,
): Promise<PlanState | undefined> {
  let hasAgentHcl = true;
  try {
    await Deno.stat(join(dir, "agent.hcl"));
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    hasAgentHcl = false;
  }
  const { ConfigError } = await import("../../config/mod.ts");
  if (hasAgentHcl) {
    const { checkConfig } = await import("../../config/check.ts");
    const { BUILTINS } = await import("../../plugins/builtin.ts");
    // Provider secrets are not needed here: only the state block is used.
    const r = await checkConfig(dir, {
      builtins: BUILTINS,
      env: io.env,
      requireEnv: false,
    });
    if (r.plan === undefined) throw new ConfigError(r.diagnostics);
    return r.plan.state;
  }
  const { decodeGlobalConfig, globalConfigPath } = await import(
    "../../config/global_config.ts"
  );
  const path = globalConfigPath(io.env);
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
  const g = decodeGlobalConfig(text, path, io.env, { requireEnv: false });
  if (g.config === undefined) throw new ConfigError(g.diagnostics);
  return g.config.state;
}

/** A plan item waiting for a decision, as the follower saw it. */
interface Ask {
  readonly item: PlanItemView;
  offered: boolean;
}

async function follow(
  io: AgentIo,
  bus: EventBus,
  store: Parameters<typeof followSession>[0],
  sessionId: string,
  options: {
    json: boolean;
    auto: "allow" | "deny" | undefined;
    signal: AbortSignal;
  },
): Promise<number> {
  const style = styleFor(useColor(io));
  const renderer = new EventRenderer(
    { out: (t) => io.stdout(t), err: (t) => io.stderr(t) },
    style,
  );
  const asks = new Map<string, Ask>();
  const lines = io.stdin && options.auto === undefined
    ? new Lines(io.stdin)
    : undefined;
  let answering: Promise<void> = Promise.resolve();
  // Questions and decisions in flight are dropped once the session ends.
  const ended = new AbortController();
  const answerSignal = AbortSignal.any([options.signal, ended.signal]);
  const answer = async (ask: Ask): Promise<void> => {
    if (answerSignal.aborted || !asks.has(ask.item.planItemId)) return;
    const what = `${ask.item.provider}.${ask.item.tool}`;
    let chosen: ApprovalAnswer | undefined;
    if (options.auto !== undefined) {
      chosen = { decision: options.auto, scope: "once" };
    } else if (lines !== undefined) {
      io.stderr(
        style.yellow(`approve ${what}? [y]es once / [s]ession / [n]o: `),
      );
      while (chosen === undefined) {
        const line = await lines.next(answerSignal);
        if (line === undefined) break;
        const a = line.trim().toLowerCase();
        if (a === "y" || a === "yes") {
          chosen = { decision: "allow", scope: "once" };
        } else if (a === "s" || a === "session") {
          chosen = { decision: "allow", scope: "session" };
        } else if (a === "n" || a === "no") {
          chosen = { decision: "deny", scope: "once" };
        } else io.stderr("please answer y, s or n: ");
      }
    }
    if (chosen === undefined) {
      if (!answerSignal.aborted) {
        io.stderr(
          `note: plan item ${ask.item.planItemId} (${what}) is left to the driving kernel: no answer was given here\n`,
        );
      }
      return;
    }
    let outcome: { ok: true } | { ok: false; message: string; code?: string };
    try {
      await decideRemotely(bus, {
        sessionId,
        planItemId: ask.item.planItemId,
        answer: chosen,
      }, { signal: answerSignal });
      outcome = { ok: true };
    } catch (err) {
      if (answerSignal.aborted) return;
      outcome = {
        ok: false,
        message: err instanceof Error ? err.message : String(err),
        ...(err instanceof GrpcStatusError ? { code: err.codeName } : {}),
      };
    }
    if (options.json) {
      io.stdout(
        `${
          JSON.stringify({
            type: "decision",
            planItemId: ask.item.planItemId,
            decision: chosen.decision,
            scope: chosen.scope,
            accepted: outcome.ok,
            ...(outcome.ok
              ? {}
              : { code: outcome.code, error: outcome.message }),
          })
        }\n`,
      );
    } else if (outcome.ok) {
      io.stderr(
        `${
          chosen.decision === "allow" ? "approved" : "denied"
        } ${what} (${chosen.scope}) from here\n`,
      );
    } else io.stderr(`not accepted: ${outcome.message}\n`);
  };
  for await (
    const item of followSession(store, bus, sessionId, {
      signal: options.signal,
    })
  ) {
    if (item.type === "event") {
      const e = item.event;
      if (e.type === "plan") {
        for (const i of e.items) {
          if (i.decision === "ask") {
            asks.set(i.planItemId, { item: i, offered: false });
          }
        }
      } else if (e.type === "apply") {
        for (const i of e.items) asks.delete(i.planItemId);
      }
      if (options.json) io.stdout(`${JSON.stringify(e)}\n`);
      else renderer.render(e);
      continue;
    }
    if (item.type === "caught_up") {
      // What is still waiting now is offered, one at a time.
      for (const ask of asks.values()) {
        if (ask.offered) continue;
        ask.offered = true;
        answering = answering.then(() => answer(ask));
      }
      continue;
    }
    const { record } = item;
    if (options.json) {
      io.stdout(
        `${
          JSON.stringify({
            type: "session_ended",
            sessionId,
            status: item.status,
            totalCostUsd: record.costUsd ?? 0,
          })
        }\n`,
      );
    } else {
      io.stderr(
        `${item.status} · $${
          (record.costUsd ?? 0).toFixed(4)
        } · session ${sessionId}\n`,
      );
    }
    asks.clear();
    ended.abort();
    lines?.cancel();
    await answering;
    return item.status === "interrupted" ? EXIT_TASK_ERROR : EXIT_OK;
  }
  lines?.cancel();
  await answering;
  return EXIT_OK;
}

/** Lines of standard input, one read in flight, abandoned on abort. */
class Lines {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = "";
  #done = false;
  #read: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.getReader();
  }

  async next(signal: AbortSignal): Promise<string | undefined> {
    while (true) {
      const nl = this.#buffer.indexOf("\n");
      if (nl >= 0) {
        const line = this.#buffer.slice(0, nl).replace(/\r$/, "");
        this.#buffer = this.#buffer.slice(nl + 1);
        return line;
      }
      if (this.#done) {
        const rest = this.#buffer;
        this.#buffer = "";
        return rest === "" ? undefined : rest;
      }
      if (signal.aborted) return undefined;
      this.#read ??= this.#reader.read();
      const aborted = new Promise<"aborted">((r) =>
        signal.addEventListener("abort", () => r("aborted"), { once: true })
      );
      const r = await Promise.race([this.#read, aborted]);
      if (r === "aborted") return undefined;
      this.#read = undefined;
      if (r.done) {
        this.#done = true;
        this.#buffer += this.#decoder.decode();
      } else this.#buffer += this.#decoder.decode(r.value, { stream: true });
    }
  }

  cancel(): void {
    this.#done = true;
    this.#reader.cancel().catch(() => {});
  }
}
