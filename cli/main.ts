/**
 * The `agent` command line:
 *
 *     agent                                  (an interactive session)
 *     agent run "prompt" [--profile P] [--json] [--on-ask deny|fail]
 *                        [--resume ID] [--dir D] [--approve-all] [--locked]
 *     agent sessions list | show ID | replay ID | verify ID | export ID | push ID|--all
 *     agent init [dir] [--yes] [--provider P] [--ci github]
 *     agent check-config [dir] [--json] [--locked] [--require-env] [--explain]
 *     agent lock [dir] [--accept-widening] [--upgrade[=NAME]] [--platform P]
 *     agent providers list|outdated|install|search [--json]
 *     agent plan [dir] [--base GIT_REF] [--json]
 *     agent test [dir] [--json] [--locked]
 *     agent web [--port P] [--dir D] [--locked]
 *
 * Run it with `deno task agent <command>`. Exit codes of `agent` and
 * `agent run`: 0 success, 1 task error, 2 config or lock invalid, 3 usage,
 * 4 policy denied a required action, 5 a bound fired, 6 provider error
 * (130 interrupted). `check-config`: 0 valid; 1 invalid configuration; 2
 * the lock file is missing (with `--locked`), outdated or does not match;
 * 3 usage error. `plan`: 0 nothing widens; 10 a permission, an allow or a
 * tool widens; 1, 2 and 3 as `check-config`. `test`: 0 every policy test
 * passes; 1 one fails; 2 and 3 as `check-config`.
 *
 * @module
 */

import denoJson from "../deno.json" with { type: "json" };
import {
  type AgentIo,
  type CliIo,
  processAgentIo,
  processExitCode,
} from "./commands/io.ts";
import { usageError } from "./commands/_common.ts";
// Every command's module loads when the command is named (a literal
// specifier, so the package's module graph still holds it): `check-config`
// does not pay for the kernel that `run` loads, nor `run` for the others.

export type { AgentIo, CliIo };

/** The `--help` text of `agent`. */
export const AGENT_HELP: string = `Usage: agent [command] [options]

A scriptable, permission-scoped AI-agent harness.

Without agent.hcl in the directory, agent and agent run use the built-in
default configuration (the one agent init writes), with the model provider
that ANTHROPIC_API_KEY or OPENAI_API_KEY selects.

Commands:
  (none)               An interactive session in the current directory:
                       agent [--profile P] [--resume ID] [--dir D] [--locked]
                       [--frontend NAME] (a frontend plugin drives it instead)
                       [--plan] (plan mode: read-only tools; the plan is then
                       offered for execution)
  run "prompt"         Run one prompt non-interactively (see: agent run -h):
                       [--profile P] [--json] [--on-ask deny|fail|wait]
                       [--resume ID] [--dir D] [--approve-all] [--locked]
                       [--plan]
  trigger ID "text"    Inject a turn into a stored session (CI, cron; see:
                       agent trigger -h): [--name N] [--json] [--dir D]
  sessions             Stored sessions: list | show ID | replay ID | verify ID
  attach ID            Follow a live session another kernel drives, on this
                       machine or another, through the shared PostgreSQL
                       store, and answer its asks (see: agent attach -h):
                       [--dir D] [--json] [--approve-all | --deny-all]
  web                  Serve the local web UI (sessions, live transcript,
                       approvals, replay, export) on 127.0.0.1 and print its
                       URL (see: agent web -h): [--port P] [--dir D]
  init [dir]           Write agent.hcl (the default configuration, commented)
                       and its lock file (see: agent init -h)
  check-config [dir]   Check agent.hcl, the lock file, the global config and
                       the local plugins' manifests (see: agent check-config -h)
  lock [dir]           Write .agent/agent.lock.hcl for the providers available
                       locally: version, checksums, envelope, config schema
                       and tools; [--accept-widening] records a version that
                       widens them
  providers            Forge providers: list | outdated | install | search
                       [TOPIC] (see: agent providers -h), each with --json
  test [dir]           Run the policy tests in agent.test.hcl offline, with
                       the kernel's gate (see: agent test -h): [--json]
                       [--locked]; exit 1 when a test fails
  plan [dir]           What a change lets the agent do: the capability diff of
                       the working tree against a base commit (see: agent plan
                       -h): [--base GIT_REF] [--json]; exit 10 when it widens

Options:
  -h, --help           Show this help (or a command's, after the command)
  --version            Show the version

Exit codes (agent, agent run):
  0  success
  1  task error (the session failed)
  2  config or lock invalid
  3  usage error
  4  policy denied a required action (--on-ask fail met an ask)
  5  a bound fired (max_turns, max_cost_usd, max_wall_clock_s, doom loop)
  6  provider error (a plugin could not start, crashed, or the model failed)
  130 interrupted (Ctrl-C)
  143 terminated (SIGTERM: the session ends as cancelled)
`;

const USAGE = "Usage: agent [command] [options]   (agent --help)";

/**
 * Runs the `agent` command line.
 *
 * @example Usage
 * ```ts
 * import { run } from "./main.ts";
 * import assert from "node:assert/strict";
 * let out = "";
 * const io = { stdout: (t: string) => (out += t), stderr: () => {}, isTerminal: false, env: {}, cwd: Deno.cwd() };
 * assert.equal(await run(["--version"], io), 0);
 * assert.match(out, /^agent \d+\.\d+\.\d+/);
 * ```
 *
 * @param args The arguments after `agent`.
 * @param io Streams, environment, directory.
 * @returns The exit code.
 */
export async function run(
  args: readonly string[],
  io: AgentIo = processAgentIo(),
): Promise<number> {
  const [command, ...rest] = args;
  switch (command) {
    case "run": {
      const { runCommand } = await import("./commands/run.ts");
      return await runCommand(rest, io);
    }
    case "sessions": {
      const { sessionsCommand } = await import("./commands/sessions.ts");
      return await sessionsCommand(rest, io);
    }
    case "attach": {
      const { attachCommand } = await import("./commands/attach.ts");
      return await attachCommand(rest, io);
    }
    case "trigger": {
      const { triggerCommand } = await import("./commands/trigger.ts");
      return await triggerCommand(rest, io);
    }
    case "-h":
    case "--help":
    case "help":
      io.stdout(AGENT_HELP);
      return 0;
    case "--version":
      io.stdout(`agent ${denoJson.version} (deno ${Deno.version.deno})\n`);
      return 0;
    case "check-config": {
      const { run: checkConfig } = await import("./commands/check_config.ts");
      return await checkConfig(rest, io);
    }
    case "lock": {
      const { lockCommand } = await import("./commands/lock.ts");
      return await lockCommand(rest, io);
    }
    case "providers": {
      const { providersCommand } = await import("./commands/providers.ts");
      return await providersCommand(rest, io);
    }
    case "init": {
      const { initCommand } = await import("./commands/init.ts");
      return await initCommand(rest, io);
    }
    case "test": {
      const { testCommand } = await import("./commands/test.ts");
      return await testCommand(rest, io);
    }
    case "web": {
      const { webCommand } = await import("./commands/web.ts");
      return await webCommand(rest, io);
    }
    case "plan": {
      const { planCommand } = await import("./commands/plan.ts");
      return await planCommand(rest, io);
    }
    case undefined:
      return await interactive([], io);
    default:
      if (command.startsWith("-")) return await interactive(args, io);
      return usageError(
        io,
        USAGE,
        `unknown command ${
          JSON.stringify(command)
        }: expected run, trigger, sessions, attach, init, check-config, lock, providers, plan, test or web`,
      );
  }
}

async function interactive(
  args: readonly string[],
  io: AgentIo,
): Promise<number> {
  const { interactiveCommand } = await import("./commands/interactive.ts");
  return await interactiveCommand(args, io);
}

if (import.meta.main) {
  Deno.exit(processExitCode(await run(Deno.args)));
}
