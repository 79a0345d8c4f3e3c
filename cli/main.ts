/**
 * The `agent` command line:
 *
 *     agent                                  (an interactive session)
 *     agent run "prompt" [--profile P] [--json] [--on-ask deny|fail]
 *                        [--resume ID] [--dir D] [--approve-all] [--locked]
 *     agent sessions list | show ID | replay ID | verify ID
 *     agent init [dir] [--yes] [--provider P] [--ci github]
 *     agent check-config [dir] [--json] [--locked] [--require-env] [--explain]
 *     agent lock [dir]
 *     agent plan [dir] [--base GIT_REF] [--json]
 *
 * Run it with `deno task agent <command>`. Exit codes of `agent` and
 * `agent run`: 0 success, 1 task error, 2 config or lock invalid, 3 usage,
 * 4 policy denied a required action, 5 a bound fired, 6 provider error
 * (130 interrupted). `check-config`: 0 valid; 1 invalid configuration; 2
 * the lock file is missing (with `--locked`), outdated or does not match;
 * 3 usage error. `plan`: 0 nothing widens; 10 a permission, an allow or a
 * tool widens; 1, 2 and 3 as `check-config`.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { resolve } from "node:path";
import {
  type CliIo,
  EXIT_USAGE,
  processIo,
  run as checkConfig,
} from "./cli/commands/check_config.ts";
import denoJson from "./deno.json" with { type: "json" };
import {
  type AgentIo,
  interactiveCommand,
  runCommand,
  sessionsCommand,
} from "./cli/agent_commands.ts";
import { BUILTINS } from "./plugins/builtin.ts";

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
  run "prompt"         Run one prompt non-interactively (see: agent run -h):
                       [--profile P] [--json] [--on-ask deny|fail]
                       [--resume ID] [--dir D] [--approve-all] [--locked]
  sessions             Stored sessions: list | show ID | replay ID | verify ID
  init [dir]           Write agent.hcl (the default configuration, commented)
                       and its lock file (see: agent init -h)
  check-config [dir]   Check agent.hcl, the lock file, the global config and
                       the local plugins' manifests (see: agent check-config -h)
  lock [dir]           Write .agent/agent.lock.hcl for the providers available
                       locally: version, checksums, envelope and config schema
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
`;

/** The `--help` text of `agent lock`. */
export const LOCK_HELP: string = `Usage: agent lock [dir]

Writes dir/.agent/agent.lock.hcl (dir defaults to the current directory) for
every provider available locally (builtin/<name> and path sources): its
version, the checksum of its artifact, its capability envelope and its config
schema. Forge providers keep their existing entries (they cannot be resolved
offline); dev_overrides names are never written. An unchanged project is
written byte for byte the same.

Options:
  -h, --help   Show this help
`;

const USAGE = "Usage: agent [command] [options]   (agent --help)";

function usageError(io: CliIo, usage: string, message: string): number {
  io.stderr(`${usage}\nerror: ${message}\n`);
  return EXIT_USAGE;
}

async function lock(args: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: { help: { type: "boolean", short: "h" } },
    });
  } catch (err) {
    return usageError(
      io,
      "Usage: agent lock [dir]",
      err instanceof Error ? err.message : String(err),
    );
  }
  if (parsed.values.help) {
    io.stdout(LOCK_HELP);
    return 0;
  }
  if (parsed.positionals.length > 1) {
    return usageError(
      io,
      "Usage: agent lock [dir]",
      "expected at most one directory",
    );
  }
  const dir = resolve(io.cwd, parsed.positionals[0] ?? ".");
  const { lockConfig } = await import("./config/lock.ts");
  const { renderHuman } = await import("./config/render.ts");
  const r = await lockConfig(dir, { builtins: BUILTINS, env: io.env });
  if (!r.ok) {
    io.stderr(
      renderHuman({
        exitCode: 1,
        plan: undefined,
        diagnostics: r.diagnostics,
        sources: r.sources,
      }).replace(/\n[^\n]*\n$/, "\n"),
    );
    io.stderr(
      `Cannot write the lock file: ${
        r.diagnostics.filter((d) => d.severity === "error").length
      } error(s).\n`,
    );
    return 1;
  }
  for (const c of r.changes) {
    const what = c.status === "locked"
      ? "locked"
      : c.status === "unchanged"
      ? "unchanged"
      : "kept (not resolvable here)";
    io.stderr(`  ${c.name}: ${c.version ?? "-"} from ${c.source}, ${what}\n`);
  }
  io.stderr(
    r.changed ? `Wrote ${r.path}\n` : `${r.path} is up to date\n`,
  );
  return 0;
}

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
    case "run":
      return await runCommand(rest, io);
    case "sessions":
      return await sessionsCommand(rest, io);
    case "-h":
    case "--help":
    case "help":
      io.stdout(AGENT_HELP);
      return 0;
    case "--version":
      io.stdout(`agent ${denoJson.version} (deno ${Deno.version.deno})\n`);
      return 0;
    case "check-config":
      return await checkConfig(rest, io);
    case "lock":
      return await lock(rest, io);
    case "init": {
      const { initCommand } = await import("./cli/init_command.ts");
      return await initCommand(rest, io);
    }
    case "plan": {
      const { planCommand } = await import("./cli/plan_command.ts");
      return await planCommand(rest, io);
    }
    case undefined:
      return await interactiveCommand([], io);
    default:
      if (command.startsWith("-")) return await interactiveCommand(args, io);
      return usageError(
        io,
        USAGE,
        `unknown command ${
          JSON.stringify(command)
        }: expected run, sessions, init, check-config, lock or plan`,
      );
  }
}

/**
 * The process's own streams, with standard input and Ctrl-C.
 *
 * @returns An {@linkcode AgentIo} for a real run.
 */
export function processAgentIo(): AgentIo {
  return {
    ...processIo(),
    get stdin() {
      return Deno.stdin.readable;
    },
    stdinIsTerminal: Deno.stdin.isTerminal(),
    onInterrupt(handler) {
      Deno.addSignalListener("SIGINT", handler);
      return () => Deno.removeSignalListener("SIGINT", handler);
    },
  };
}

if (import.meta.main) {
  Deno.exit(await run(Deno.args));
}
