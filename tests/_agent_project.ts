/**
 * Helpers for the `agent` CLI tests: a temporary project (agent.hcl with
 * the scripted model and the filesystem tool, a script, files to read), a
 * private sessions directory, and an in-process `run` with captured
 * output. Plugins still run as real subprocesses.
 *
 * @module
 */
import type { AgentIo } from "../main.ts";
import { run } from "../main.ts";
import { DENO_ENV, PATH, REPO } from "./_helpers.ts";

export { REPO };

/** One scripted turn (see plugins/scripted/README.md). */
export type Turn = Record<string, unknown>;

/** What a test project is made of. */
export interface ProjectOptions {
  /** The script's turns. */
  turns: Turn[];
  /** Extra `agent_profile "default"` attributes, e.g. `max_turns = 2`. */
  profile?: string;
  /** Policy blocks (default: reads allowed, fs writes ask). */
  policies?: string;
  /** Files to create, by relative path. */
  files?: Record<string, string>;
  /** More `required_providers` entries, e.g. `sh = { source = "builtin/exec", version = "~> 0.1" }`. */
  extraRequired?: string;
  /** More `provider` blocks (and any other top-level blocks). */
  extraProviders?: string;
  /** The profile's `tools` patterns (default `["fs.*"]`). */
  tools?: string[];
}

/** A temporary project and its own sessions directory. */
export interface Project extends AsyncDisposable {
  /** The project directory (real path). */
  dir: string;
  /** The environment the CLI runs with. */
  env: Record<string, string>;
}

export const DEFAULT_POLICIES = `
policy "reads_ok" {
  match  = { kind = "data_source" }
  action = "allow"
}

policy "writes_ask" {
  match  = { provider = "fs", kind = "resource" }
  action = "ask"
}
`;

/**
 * Creates a project.
 *
 * @param options Turns, profile attributes, policies, files.
 * @returns The project; dispose of it to remove it.
 */
export async function makeProject(options: ProjectOptions): Promise<Project> {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-agent-cli-" }),
  );
  const dir = `${root}/project`;
  await Deno.mkdir(dir);
  await Deno.writeTextFile(
    `${dir}/agent.hcl`,
    `required_providers {
  scripted = { source = "builtin/scripted", version = "~> 0.1" }
  fs       = { source = "builtin/filesystem", version = "~> 0.1" }
  ${options.extraRequired ?? ""}
}

provider "scripted" {
  script     = "./script.json"
  allow_read = ["."]
}

provider "fs" {
  roots       = ["."]
  allow_read  = ["."]
  allow_write = ["."]
}
${options.extraProviders ?? ""}
${options.policies ?? DEFAULT_POLICIES}
agent_profile "default" {
  model {
    primary {
      provider = "scripted"
      id       = "scripted"
    }
  }
  tools = ${JSON.stringify(options.tools ?? ["fs.*"])}
  ${options.profile ?? ""}
}
`,
  );
  await Deno.writeTextFile(
    `${dir}/script.json`,
    JSON.stringify({ turns: options.turns }, null, 2),
  );
  for (const [name, text] of Object.entries(options.files ?? {})) {
    await Deno.writeTextFile(`${dir}/${name}`, text);
  }
  return {
    dir,
    env: {
      PATH,
      // The cache and Deno's network settings, for Deno children (an MCP
      // server run as `deno run npm:…`); HOME is temporary.
      ...DENO_ENV,
      HOME: root,
      XDG_STATE_HOME: `${root}/state`,
      NO_COLOR: "1",
    },
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

/** A captured run of the CLI. */
export interface CliRun {
  /** The exit code. */
  code: number;
  /** Standard output. */
  out: string;
  /** Standard error. */
  err: string;
}

/**
 * Runs `agent <args>` in process against a project.
 *
 * @param project The project (its env; the cwd is its directory).
 * @param args The arguments.
 * @param stdin Text for standard input, if any.
 * @param stdinIsTerminal Pretend standard input is a terminal.
 * @returns The exit code and output.
 */
export async function agent(
  project: Project,
  args: string[],
  stdin?: string,
  stdinIsTerminal = false,
): Promise<CliRun> {
  let out = "";
  let err = "";
  const io: AgentIo = {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    isTerminal: false,
    env: project.env,
    cwd: project.dir,
    ...(stdin !== undefined
      ? {
        stdin: ReadableStream.from([new TextEncoder().encode(stdin)]),
        stdinIsTerminal,
      }
      : {}),
  };
  const code = await run(args, io);
  return { code, out, err };
}

/** Parses `--json` output: one event per line. */
export function jsonLines(out: string): Record<string, unknown>[] {
  return out.trimEnd().split("\n").map((l) => JSON.parse(l));
}

export const README = "# Project\nHello from the project.\n";

/** A read of README.md. */
export const READ_TURN: Turn = {
  text: "Let me read the README.",
  tool_calls: [{
    id: "toolu_read",
    name: "read_file",
    arguments: { path: "README.md" },
  }],
  usage: { input_tokens: 1_200, output_tokens: 40 },
};

/** A write of SUMMARY.md (after the read). */
export const WRITE_TURN: Turn = {
  expect: "Hello from the project",
  tool_calls: [{
    id: "toolu_write",
    name: "write_file",
    arguments: { path: "SUMMARY.md", content: "# Summary\nA greeting.\n" },
  }],
  usage: { input_tokens: 1_500, output_tokens: 60 },
};
