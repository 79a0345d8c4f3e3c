/**
 * `agent sessions list | show ID | replay ID | verify ID`: the stored
 * sessions, read through the library API ({@linkcode openSessions}); its
 * arguments, its help and its views.
 *
 * @module
 */
import { openSessions } from "../../kernel/open_sessions.ts";
import type { SessionEvent } from "../../kernel/agent/session_events.ts";
import { SESSION_STATUS_TEXT } from "../../kernel/state/session_store.ts";
import { EventRenderer, styleFor } from "../render/events.ts";
import type { AgentIo } from "./io.ts";
import { EXIT_OK, EXIT_TASK_ERROR, EXIT_USAGE } from "./exit_codes.ts";
import { parseOptions, usageError, useColor } from "./_common.ts";
import { reportError } from "./_report_error.ts";

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
  verify   Checks the session's hash chain (exit 1 when it is broken)

Options:
  --json       JSON output (one object, or one event per line for replay)
  -h, --help   Show this help
`;

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
  const parsed = parseOptions(io, usage, args, {
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
        if (r.ok) {
          if (!json) {
            io.stdout(
              `ok: ${r.events} events, the hash chain is intact (head ${r.head})\n`,
            );
          }
          return EXIT_OK;
        }
        if (!json) io.stdout(`broken: ${JSON.stringify(r)}\n`);
        return EXIT_TASK_ERROR;
      }
    }
  } catch (err) {
    return reportError(io, err);
  }
}
