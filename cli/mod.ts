/**
 * The `agent` command line: the top layer of `@ph/agent`.
 *
 * `cli/` owns argument parsing (`node:util` `parseArgs`), terminal I/O
 * (through {@linkcode CliIo} and {@linkcode AgentIo}, so tests capture
 * output), exit codes (one table, `commands/exit_codes.ts`) and the views
 * that turn results into text. It holds no business logic: each command
 * parses its arguments, calls `kernel/` (sessions, the session store) or
 * `config/` (check, lock, plan), and renders what comes back.
 *
 * Layout, one command = its run, its arguments and its help:
 * - `main.ts`: the `agent` entry ({@linkcode run}, {@linkcode AGENT_HELP},
 *   the command switch);
 * - `commands/`: `run.ts`, `interactive.ts`, `sessions.ts`,
 *   `check_config.ts`, `lock.ts`, `init.ts`, `plan.ts`, `test.ts` (with
 *   `_policy_tests.ts`, shared with `check-config`), with the streams
 *   (`io.ts`), the exit codes (`exit_codes.ts`) and the helpers they share
 *   (`_common.ts`, `_report_error.ts`, `_zero_config.ts`);
 * - `render/`: `events.ts` (session events) and `plan.ts` (`agent plan`).
 *   The rendering of `check-config` is `config/render.ts`.
 *
 * It may import `kernel/`, `config/`, `contract/`, `proto/` and
 * `plugins/builtin.ts` only (the catalogue of first-party plugins it passes
 * down as `builtins`); nothing below it imports `cli/`. Within `cli/`, the
 * folders import downwards only: `main.ts` imports `commands/`, `commands/`
 * imports `render/`, never the reverse (`deno task layering` checks both).
 *
 * @example Run the command line with captured output
 * ```ts
 * import { run } from "./mod.ts";
 * import assert from "node:assert/strict";
 * let out = "";
 * const io = { stdout: (t: string) => (out += t), stderr: () => {}, isTerminal: false, env: {}, cwd: Deno.cwd() };
 * assert.equal(await run(["--help"], io), 0);
 * assert.match(out, /^Usage: agent/);
 * ```
 *
 * @module
 */
export { AGENT_HELP, run } from "./main.ts";
export {
  type AgentIo,
  type CliIo,
  EXIT_PIPE_CLOSED,
  processAgentIo,
  processExitCode,
  processIo,
} from "./commands/io.ts";
export {
  EXIT_BOUND,
  EXIT_CONFIG,
  EXIT_OK,
  EXIT_POLICY,
  EXIT_PROVIDER,
  EXIT_TASK_ERROR,
  EXIT_USAGE,
  EXIT_WIDENS,
} from "./commands/exit_codes.ts";
