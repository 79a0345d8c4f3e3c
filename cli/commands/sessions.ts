/**
 * `agent sessions list | show ID | replay ID | verify ID | export ID | push`: the stored
 * sessions, read through the library API ({@linkcode openSessions}); its
 * arguments, its help and its views.
 *
 * @module
 */
import { openSessions } from "../../kernel/open_sessions.ts";
import type { SessionEvent } from "../../kernel/agent/session_events.ts";
import {
  SESSION_STATUS_TEXT,
  type SessionRecord,
  type VerifyResult,
} from "../../kernel/state/session_store.ts";
import { EventRenderer, styleFor } from "../render/events.ts";
import type { AgentIo } from "./io.ts";
import { EXIT_OK, EXIT_TASK_ERROR, EXIT_USAGE } from "./exit_codes.ts";
import { parseOptions, usageError, useColor } from "./_common.ts";
import { reportError } from "./_report_error.ts";
import { exportSessionJsonl, pushSessions } from "./_sessions_share.ts";
import { stateLocationsOf } from "../../kernel/open_sessions.ts";
import type { SessionStore } from "../../kernel/state/session_store.ts";

/** The `--help` text of `agent sessions`. */
export const SESSIONS_HELP: string = `Usage: agent sessions list [--json]
       agent sessions show ID [--json]
       agent sessions replay ID [--json]
       agent sessions verify ID
       agent sessions export ID --format jsonl
       agent sessions push ID | --all

Stored sessions ($XDG_STATE_HOME/agent/sessions, else
~/.local/state/agent/sessions):
  list     Every session, newest first: id, status, profile, cost, start;
           a running session whose kernel on this host is gone (killed,
           rebooted) shows as interrupted, one run by another host shows
           the host
  show     One session's record and its transcript summary
  replay   Prints a session's events again, without calling any model
  verify   Checks the session's keyed hash chain and its head kept outside
           the file, and says what that proves (exit 1 when broken)
  export   Prints a session's stored events as JSON lines (the record,
           then one line per event, payload in base64)
  push     Copies local sessions (one, or --all ended ones) into the shared
           PostgreSQL store, each verified before and after the copy

Options:
  --json           JSON output (one object, or one event per line for replay)
  --postgres       Read the shared PostgreSQL store instead of this
                   machine's files (push always writes there)
  --url-env NAME   The environment variable holding the database URL
                   (default AGENT_DATABASE_URL; the URL is never printed)
  --schema NAME    The PostgreSQL schema (default agent)
  --all            push: every local session that has ended
  --format jsonl   export: the output format (jsonl, the only one)
  -h, --help       Show this help
`;

/**
 * The status a listing shows: `interrupted` for a `running` session whose
 * kernel on this host is gone (the stored status stays `running`), and
 * `running (on HOST)` in text for one owned by another host.
 */
function statusText(s: SessionRecord, json: boolean): string {
  if (s.interrupted) return "interrupted";
  const text = SESSION_STATUS_TEXT[s.status];
  if (
    !json && text === "running" && s.owner && s.owner.host !== "" &&
    s.owner.host !== localHost()
  ) return `${text} (on ${s.owner.host})`;
  return text;
}

function localHost(): string {
  try {
    return Deno.hostname();
  } catch {
    return "";
  }
}

function eventLine(e: SessionEvent): string {
  return `${JSON.stringify(e)}\n`;
}

/**
 * `agent sessions list | show ID | replay ID | verify ID | export ID | push`.
 *
 * @param args The arguments after `sessions`.
 * @param io Streams, environment, directory.
 * @returns The exit code.
 */
export async function sessionsCommand(
  args: readonly string[],
  io: AgentIo,
): Promise<number> {
  const usage =
    "Usage: agent sessions list | show ID | replay ID | verify ID | export ID --format jsonl | push ID|--all";
  const parsed = parseOptions(io, usage, args, {
    help: { type: "boolean", short: "h" },
    json: { type: "boolean" },
    postgres: { type: "boolean" },
    "url-env": { type: "string" },
    schema: { type: "string" },
    all: { type: "boolean" },
    format: { type: "string" },
  });
  if (!parsed) return EXIT_USAGE;
  if (parsed.values.help) {
    io.stdout(SESSIONS_HELP);
    return EXIT_OK;
  }
  const [sub, id, ...extra] = parsed.positionals as string[];
  const json = parsed.values.json === true;
  const expected = "expected list, show, replay, verify, export or push";
  if (sub === undefined) return usageError(io, usage, expected);
  if (!["list", "show", "replay", "verify", "export", "push"].includes(sub)) {
    return usageError(
      io,
      usage,
      `unknown subcommand ${JSON.stringify(sub)}: ${expected}`,
    );
  }
  const urlEnv = (parsed.values["url-env"] as string | undefined) ??
    "AGENT_DATABASE_URL";
  const schema = parsed.values.schema as string | undefined;
  const shared = () => {
    const url = io.env[urlEnv];
    if (!url) {
      throw new Error(
        `Cannot open the shared PostgreSQL store: the environment variable ${urlEnv} is not set (set it to the database URL, or name another with --url-env)`,
      );
    }
    return { url, ...(schema !== undefined ? { schema } : {}) };
  };
  if (sub === "push") {
    if ((id === undefined) === (parsed.values.all !== true)) {
      return usageError(io, usage, "push takes one session id or --all");
    }
    if (extra.length > 0) return usageError(io, usage, "too many arguments");
    return await push(io, id, shared, json);
  }
  if (sub === "export") {
    if (parsed.values.format !== "jsonl") {
      return usageError(
        io,
        usage,
        `export needs --format jsonl${
          parsed.values.format === undefined
            ? ""
            : ` (got ${JSON.stringify(parsed.values.format)})`
        }`,
      );
    }
  }
  if (sub === "list" ? id !== undefined : id === undefined) {
    return usageError(
      io,
      usage,
      sub === "list" ? "list takes no argument" : `${sub} needs a session id`,
    );
  }
  if (extra.length > 0) return usageError(io, usage, "too many arguments");
  if (sub === "export") {
    try {
      await using store = await storeFor(
        io,
        parsed.values.postgres === true ? shared() : undefined,
      );
      await exportSessionJsonl(store, id!, (line) => io.stdout(line));
      return EXIT_OK;
    } catch (err) {
      return reportError(io, err);
    }
  }
  let sessions;
  try {
    sessions = openSessions({
      env: io.env,
      ...(parsed.values.postgres === true ? { postgres: shared() } : {}),
    });
  } catch (err) {
    return reportError(io, err);
  }
  await using store = sessions;
  const style = styleFor(useColor(io));
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
                  status: statusText(s, true),
                })),
                unreadable,
              })
            }\n`,
          );
        } else {
          for (const s of list) {
            io.stdout(
              `${s.sessionId}  ${statusText(s, false).padEnd(20)} ${
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
          status: statusText(record, true),
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
              `status    ${statusText(record, false)}`,
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

/** The local store, or the shared one. */
async function storeFor(
  io: AgentIo,
  pg: { url: string; schema?: string } | undefined,
): Promise<SessionStore> {
  const where = stateLocationsOf(io.env, undefined);
  if (pg) {
    const { PostgresSessionStore } = await import(
      "../../kernel/state/postgres_session_store.ts"
    );
    return new PostgresSessionStore({ ...pg, keyPath: where.keyPath });
  }
  const { SqliteSessionStore } = await import(
    "../../kernel/state/sqlite_session_store.ts"
  );
  return new SqliteSessionStore(where);
}

async function push(
  io: AgentIo,
  id: string | undefined,
  shared: () => { url: string; schema?: string },
  json: boolean,
): Promise<number> {
  try {
    await using local = await storeFor(io, undefined);
    const where = stateLocationsOf(io.env, undefined);
    const { PostgresSessionStore } = await import(
      "../../kernel/state/postgres_session_store.ts"
    );
    await using remote = new PostgresSessionStore({
      ...shared(),
      keyPath: where.keyPath,
    });
    const ids = id !== undefined
      ? [id]
      : (await local.list()).sessions.filter((s) =>
        s.interrupted || SESSION_STATUS_TEXT[s.status] !== "running"
      ).map((s) => s.sessionId).reverse();
    const outcomes = await pushSessions(local, remote, ids);
    if (json) io.stdout(`${JSON.stringify({ sessions: outcomes })}\n`);
    else {
      for (const o of outcomes) {
        io.stdout(
          o.result === "copied"
            ? `${o.sessionId}  copied (${o.events} events, chain verified)\n`
            : o.result === "present"
            ? `${o.sessionId}  already in the shared store\n`
            : `${o.sessionId}  refused: ${o.why}\n`,
        );
      }
      if (outcomes.length === 0) io.stderr("No sessions to push.\n");
    }
    return outcomes.some((o) => o.result === "refused")
      ? EXIT_TASK_ERROR
      : EXIT_OK;
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
