/**
 * `agent trigger SESSION_ID "text" [--name N]`: injects a turn into a
 * stored session (the control plane's `external-trigger`): the session is
 * resumed, runs the turn the trigger starts and is closed again — how CI or
 * cron drives a session.
 *
 * @module
 */
import { resolve } from "node:path";
import { sessionExitCode } from "../../kernel/api.ts";
import type { Approver } from "../../kernel/agent/approval_gate.ts";
import { EventRenderer, styleFor } from "../render/events.ts";
import type { AgentIo } from "./io.ts";
import { EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";
import { parseOptions, usageError, useColor } from "./_common.ts";
import { reportError } from "./_report_error.ts";
import { openProjectKernel } from "./_zero_config.ts";

/** The `--help` text of `agent trigger`. */
export const TRIGGER_HELP: string =
  `Usage: agent trigger SESSION_ID "text" [--name N] [--profile P] [--json]
                    [--dir D] [--approve-all] [--locked]

Injects a turn into the stored session SESSION_ID of the project in D
(default: the current directory): the session is resumed, the text reaches
the model as a <cp:external-trigger name="N" …> block, the turn it starts
runs (asks are denied unless --approve-all), and the session is closed
again. For CI, cron or a sidecar: the exit code says how the turn ended.

Options:
  --name N        The trigger's name, recorded as its provenance
                  (default: "trigger")
  --profile P     The profile to resume with (default: the session's own)
  --json          One JSON event per line on stdout
  --dir D         The project directory (holding agent.hcl)
  --approve-all   Approve every ask (once)
  --locked        Require .agent/agent.lock.hcl to match every provider
  -h, --help      Show this help

Exit codes: as agent run (0 success, 1 task error, 2 config invalid,
3 usage, 4 policy denied, 5 a bound fired, 6 provider error).
`;

const NAME_REGEXP = /^[A-Za-z0-9_.:-]{1,64}$/;

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
  });
  if (!parsed) return EXIT_USAGE;
  const v = parsed.values;
  if (v.help) {
    io.stdout(TRIGGER_HELP);
    return EXIT_OK;
  }
  const [sessionId, text, ...extra] = parsed.positionals as string[];
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
  let kernel;
  try {
    const opened = await openProjectKernel(dir, io, {
      locked: v.locked === true,
    });
    if ("exit" in opened) return opened.exit;
    kernel = opened.kernel;
  } catch (err) {
    return reportError(io, err);
  }
  await using _k = kernel;
  const approveAll: Approver = () =>
    Promise.resolve({ decision: "allow", scope: "once" });
  const run = kernel.trigger(sessionId, text, {
    ...(name !== undefined ? { name } : {}),
    ...(v.profile !== undefined ? { profile: v.profile as string } : {}),
    ...(v["approve-all"] ? { approve: approveAll } : {}),
  });
  const renderer = new EventRenderer(
    { out: (t) => io.stdout(t), err: (t) => io.stderr(t) },
    styleFor(useColor(io)),
  );
  try {
    for await (const event of run) {
      if (v.json === true) io.stdout(`${JSON.stringify(event)}\n`);
      else renderer.render(event);
    }
    return sessionExitCode(await run.result);
  } catch (err) {
    return reportError(io, err);
  }
}
