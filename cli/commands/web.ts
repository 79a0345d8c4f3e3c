/**
 * `agent web [--port P] [--dir D] [--locked]`: opens the kernel on the
 * project and starts the first-party web UI (`builtin/webui`, the
 * frontend named `web`), prints its URL (with the token that guards it)
 * and serves until Ctrl-C or SIGTERM.
 *
 * @module
 */
import { resolve } from "node:path";
import type { AgentIo } from "./io.ts";
import { EXIT_OK, EXIT_PROVIDER, EXIT_USAGE } from "./exit_codes.ts";
import type { RunningFrontend } from "../../kernel/api.ts";
import { WEB_UI_FRONTEND } from "../../contract/builtins.ts";
import { parseOptions, usageError } from "./_common.ts";
import { reportError } from "./_report_error.ts";
import { openProjectKernel } from "./_zero_config.ts";

/** The `--help` text of `agent web`. */
export const WEB_HELP: string =
  `Usage: agent web [--port P] [--dir D] [--locked]

Serve the local web UI of the project's sessions on 127.0.0.1: the stored
sessions with filters, a live session's transcript, state and metadata, its
pending approvals (approve once, for the session, always, or reject; the
first answer wins when a terminal is attached too), input and Interrupt, the
replay of a stored session with its hash-chain verification, and export as
Markdown or JSON.

The URL printed on stdout carries a random token; open it as printed (the
page then keeps an HttpOnly cookie). Requests without the token or the
cookie get 403. The UI runs as the frontend plugin builtin/webui with only
the loopback network granted. Ctrl-C stops it.

It is the frontend named "web": agent --frontend web, or
settings.default_frontend = "web", start the same UI (unless agent.hcl
declares its own frontend provider named "web").

Options:
  --port P     The port to listen on (default: a free port)
  --dir D      The project directory (default: the current one)
  --locked     Require agent.hcl's lock file to match
  -h, --help   Show this help
`;

const USAGE =
  "Usage: agent web [--port P] [--dir D] [--locked]   (agent web --help)";

/**
 * Runs `agent web`.
 *
 * @param args The arguments after `web`.
 * @param io Streams, environment, directory.
 * @returns The exit code: 0 when stopped with Ctrl-C or SIGTERM, 6 when
 * the UI could not start or crashed, 2 on a config error, 3 on a usage
 * error.
 */
export async function webCommand(
  args: readonly string[],
  io: AgentIo,
): Promise<number> {
  const parsed = parseOptions(io, USAGE, args, {
    port: { type: "string" },
    dir: { type: "string" },
    locked: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (!parsed) return EXIT_USAGE;
  const v = parsed.values;
  if (v.help) {
    io.stdout(WEB_HELP);
    return EXIT_OK;
  }
  if (parsed.positionals.length > 0) {
    return usageError(
      io,
      USAGE,
      `unexpected argument ${JSON.stringify(parsed.positionals[0])}`,
    );
  }
  let port: number | undefined;
  if (v.port !== undefined) {
    port = Number(v.port);
    if (!/^\d+$/.test(v.port) || port > 65535) {
      return usageError(
        io,
        USAGE,
        `--port must be an integer from 0 to 65535: ${JSON.stringify(v.port)}`,
      );
    }
  }
  const dir = resolve(io.cwd, v.dir ?? ".");
  const opened = await openProjectKernel(dir, io, {
    locked: v.locked === true,
    persistAlways: true,
  });
  if ("exit" in opened) return opened.exit;
  await using kernel = opened.kernel;
  let fe: RunningFrontend;
  try {
    fe = await kernel.startFrontend(WEB_UI_FRONTEND.name, {
      ...(port !== undefined ? { config: { port } } : {}),
    });
  } catch (err) {
    return reportError(io, err);
  }
  let stopped = false;
  const unsubscribe = io.onInterrupt?.(() => {
    stopped = true;
    fe.stop().catch(() => {});
  });
  try {
    const url = fe.notice?.match(/https?:\/\/\S+/)?.[0];
    if (url) io.stdout(`${url}\n`);
    io.stderr("agent web: serving the web UI; Ctrl-C stops it\n");
    const exit = await fe.exited;
    if (stopped) return EXIT_OK;
    io.stderr(
      `agent web: the web UI ended with ${
        exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`
      }\n`,
    );
    return EXIT_PROVIDER;
  } finally {
    unsubscribe?.();
  }
}
