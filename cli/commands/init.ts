/**
 * `agent init [dir]`: writes the default `agent.hcl` (the text the
 * zero-config run compiles, `config/default_config.ts`), locks it with the
 * same code as `agent lock`, adds the tasks `agent` and `check-config` to
 * an existing `deno.json`, and with `--ci github` writes a workflow that
 * checks the configuration on pull requests. It never overwrites a file:
 * every target is checked before anything is written, and a step that
 * fails undoes the steps before it.
 *
 * @module
 */
import { dirname, join, resolve } from "node:path";
import denoJson from "../../deno.json" with { type: "json" };
import {
  defaultConfigText,
  describeChoice,
  LOCAL_BASE_URL,
  type ModelChoice,
  modelChoiceFromEnv,
} from "../../config/default_config.ts";
import { CONFIG_FILE_NAME } from "../../config/files.ts";
import { LOCK_FILE_PATH } from "../../config/lock_file.ts";
import { BUILTINS } from "../../plugins/builtin.ts";
import { KERNEL_V8_FLAGS } from "../../kernel/process/_v8_flags.ts";
import type { AgentIo } from "./io.ts";
import { errorText, parseOptions, usageError } from "./_common.ts";
import { EXIT_USAGE } from "./exit_codes.ts";

/** The `--help` text of `agent init`. */
export const INIT_HELP: string =
  `Usage: agent init [dir] [--yes] [--provider anthropic|openai|local]
                  [--ci github]

Writes dir/agent.hcl (dir defaults to the current directory; it is created
when missing): the configuration \`agent\` uses by default, with comments.
The model provider follows the keys in the environment: ANTHROPIC_API_KEY
(and ANTHROPIC_BASE_URL), else OPENAI_API_KEY (and OPENAI_BASE_URL). With
neither, it asks on a terminal; otherwise it writes Anthropic's and lists
OpenAI and a local OpenAI-compatible server as commented choices.

Then it writes dir/.agent/agent.lock.hcl (as \`agent lock\`) and, when dir has
a deno.json, adds the tasks "agent" and "check-config" (a deno.jsonc is left
as it is: the two lines to add are printed). It never overwrites a file: if
one exists, it exits 1 naming it, having written nothing.

Options:
  --yes            Ask no question (the default when stdin is not a terminal)
  --provider P     anthropic | openai | local: the model provider, whatever
                   keys are set (local: Ollama at ${LOCAL_BASE_URL})
  --ci github      Also write .github/workflows/agent-check.yml: runs
                   check-config --locked --json on every pull request
  -h, --help       Show this help

Exit codes: 0 written, 1 a file exists or a step failed (nothing written),
3 usage error.
`;

const USAGE = "Usage: agent init [dir] [options]   (agent init -h)";

/** The path of the workflow `--ci github` writes. */
export const WORKFLOW_PATH = ".github/workflows/agent-check.yml";

/** The package specifier the deno.json tasks and the workflow run. */
export const PACKAGE_SPECIFIER = `jsr:@ph/agent@${denoJson.version}`;

/**
 * The tasks `agent init` adds to `deno.json`. `agent` runs the kernel with
 * {@linkcode KERNEL_V8_FLAGS}, which a module cannot set for itself.
 */
export const INIT_TASKS: Readonly<Record<string, string>> = {
  agent: `deno run -A ${KERNEL_V8_FLAGS} ${PACKAGE_SPECIFIER}`,
  "check-config": `deno run -A ${PACKAGE_SPECIFIER} check-config`,
};

/**
 * The GitHub Actions workflow of `--ci github`: on every pull request,
 * `check-config --locked --json` with the Deno this command runs on.
 *
 * @param denoVersion The Deno version to install.
 * @returns The workflow's YAML text.
 */
export function workflowText(denoVersion: string): string {
  return `# Checks agent.hcl and .agent/agent.lock.hcl on every pull request
# (written by \`agent init --ci github\`). Exit code 1: the configuration is
# invalid; 2: the lock file is missing or does not match (run "agent lock").
name: agent-check

on:
  pull_request:

permissions:
  contents: read

jobs:
  check-config:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: denoland/setup-deno@v2
        with:
          deno-version: v${denoVersion}
      - name: agent check-config --locked
        run: deno run -A ${PACKAGE_SPECIFIER} check-config --locked --json
`;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

/** Reads lines from a stream, keeping what a read brought past the line. */
function lineReader(
  stream: ReadableStream<Uint8Array>,
): { next(): Promise<string | undefined>; close(): void } {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let done = false;
  return {
    async next() {
      while (!buffer.includes("\n") && !done) {
        const r = await reader.read();
        if (r.done) done = true;
        else buffer += decoder.decode(r.value, { stream: true });
      }
      const nl = buffer.indexOf("\n");
      if (nl < 0) {
        const rest = buffer;
        buffer = "";
        return rest === "" ? undefined : rest;
      }
      const line = buffer.slice(0, nl).replace(/\r$/, "");
      buffer = buffer.slice(nl + 1);
      return line;
    },
    close: () => reader.releaseLock(),
  };
}

async function askProvider(
  io: AgentIo,
  stdin: ReadableStream<Uint8Array>,
): Promise<ModelChoice | undefined> {
  io.stderr(
    `Neither ANTHROPIC_API_KEY nor OPENAI_API_KEY is set. Which model provider should agent.hcl use?
  1. Anthropic (set ANTHROPIC_API_KEY before running)
  2. OpenAI (set OPENAI_API_KEY before running)
  3. An OpenAI-compatible server on this machine, no key (Ollama at ${LOCAL_BASE_URL})
`,
  );
  const lines = lineReader(stdin);
  try {
    while (true) {
      io.stderr("answer 1, 2 or 3 [1]: ");
      const line = await lines.next();
      if (line === undefined) return undefined;
      const a = line.trim().toLowerCase();
      if (a === "" || a === "1" || a === "anthropic") {
        return { provider: "anthropic" };
      }
      if (a === "2" || a === "openai") return { provider: "openai" };
      if (a === "3" || a === "local") return { provider: "local" };
    }
  } finally {
    lines.close();
  }
}

/** One planned change to `deno.json`. */
interface DenoJsonEdit {
  path: string;
  original: string;
  text: string;
  added: string[];
  kept: string[];
}

async function planDenoJson(
  dir: string,
): Promise<
  | { edit?: DenoJsonEdit; jsonc?: boolean; error?: undefined }
  | { error: string }
> {
  const path = join(dir, "deno.json");
  let original: string;
  try {
    original = await Deno.readTextFile(path);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) {
      return {
        error: `Cannot read "${path}": ${
          err instanceof Error ? err.message : String(err)
        }`,
      };
    }
    return { jsonc: await exists(join(dir, "deno.jsonc")) };
  }
  let config: unknown;
  try {
    config = JSON.parse(original);
  } catch (err) {
    return {
      error: `Cannot add tasks to "${path}": it is not valid JSON (${
        err instanceof Error ? err.message : String(err)
      }); nothing was written`,
    };
  }
  if (config === null || typeof config !== "object" || Array.isArray(config)) {
    return {
      error:
        `Cannot add tasks to "${path}": it is not a JSON object; nothing was written`,
    };
  }
  const obj = config as Record<string, unknown>;
  const tasks = obj.tasks ?? {};
  if (tasks === null || typeof tasks !== "object" || Array.isArray(tasks)) {
    return {
      error:
        `Cannot add tasks to "${path}": its "tasks" is not an object; nothing was written`,
    };
  }
  const merged = { ...tasks as Record<string, unknown> };
  const added: string[] = [];
  const kept: string[] = [];
  for (const [name, command] of Object.entries(INIT_TASKS)) {
    if (Object.hasOwn(merged, name)) kept.push(name);
    else {
      merged[name] = command;
      added.push(name);
    }
  }
  obj.tasks = merged;
  const indent = /^[ \t]*\{\s*\n([ \t]+)/.exec(original)?.[1] ?? "  ";
  return {
    edit: {
      path,
      original,
      text: `${JSON.stringify(obj, null, indent)}\n`,
      added,
      kept,
    },
  };
}

/**
 * `agent init [dir] [--yes] [--provider P] [--ci github]`.
 *
 * @param args The arguments after `init`.
 * @param io Streams, environment, directory, and stdin for the question.
 * @returns The exit code: 0 written, 1 nothing written, 3 usage error.
 */
export async function initCommand(
  args: readonly string[],
  io: AgentIo,
): Promise<number> {
  const parsed = parseOptions(io, USAGE, args, {
    help: { type: "boolean", short: "h" },
    yes: { type: "boolean", short: "y" },
    provider: { type: "string" },
    ci: { type: "string" },
  });
  if (!parsed) return EXIT_USAGE;
  const v = parsed.values;
  if (v.help) {
    io.stdout(INIT_HELP);
    return 0;
  }
  if (parsed.positionals.length > 1) {
    return usageError(io, USAGE, "expected at most one directory");
  }
  if (v.ci !== undefined && v.ci !== "github") {
    return usageError(
      io,
      USAGE,
      `--ci must be "github", not ${JSON.stringify(v.ci)}`,
    );
  }
  if (
    v.provider !== undefined &&
    !["anthropic", "openai", "local"].includes(v.provider)
  ) {
    return usageError(
      io,
      USAGE,
      `--provider must be "anthropic", "openai" or "local", not ${
        JSON.stringify(v.provider)
      }`,
    );
  }
  const dir = resolve(io.cwd, parsed.positionals[0] ?? ".");

  // 1. Every target is checked before anything is written.
  const targets = [
    CONFIG_FILE_NAME,
    LOCK_FILE_PATH,
    ...(v.ci === "github" ? [WORKFLOW_PATH] : []),
  ];
  for (const t of targets) {
    if (await exists(join(dir, t))) {
      io.stderr(
        `error: Cannot init "${dir}": "${t}" already exists and agent init never overwrites a file; nothing was written\n`,
      );
      return 1;
    }
  }
  const deno = await planDenoJson(dir);
  if (deno.error !== undefined) {
    io.stderr(`error: ${deno.error}\n`);
    return 1;
  }

  // 2. The model provider: --provider, else the keys, else a question.
  const fromEnv = modelChoiceFromEnv(io.env);
  let choice: ModelChoice | undefined;
  let noKey = false;
  if (v.provider === "local") choice = { provider: "local" };
  else if (v.provider === "anthropic" || v.provider === "openai") {
    const picked = modelChoiceFromEnv(
      v.provider === "anthropic"
        ? {
          ANTHROPIC_API_KEY: "-",
          ANTHROPIC_BASE_URL: io.env.ANTHROPIC_BASE_URL,
        }
        : { OPENAI_API_KEY: "-", OPENAI_BASE_URL: io.env.OPENAI_BASE_URL },
    );
    if (picked.error !== undefined) {
      io.stderr(`error: ${picked.error}\n`);
      return 1;
    }
    choice = picked.choice;
  } else if (fromEnv.error !== undefined) {
    io.stderr(`error: ${fromEnv.error}\n`);
    return 1;
  } else choice = fromEnv.choice;
  if (choice === undefined) {
    if (v.yes !== true && io.stdinIsTerminal === true && io.stdin) {
      choice = await askProvider(io, io.stdin);
    }
    if (choice === undefined) {
      choice = { provider: "anthropic" };
      noKey = true;
    }
  }
  const text = defaultConfigText(choice, { noKey });

  // 3. Write, undoing what was written when a later step fails.
  const undo: (() => Promise<void>)[] = [];
  const rollback = async () => {
    for (const u of undo.reverse()) {
      try {
        await u();
      } catch {
        // best effort: the error that caused the rollback is reported
      }
    }
  };
  try {
    if (!await exists(dir)) {
      let top = dir;
      while (!await exists(dirname(top))) top = dirname(top);
      await Deno.mkdir(dir, { recursive: true });
      undo.push(() => Deno.remove(top, { recursive: true }));
    }
    const agentPath = join(dir, CONFIG_FILE_NAME);
    await Deno.writeTextFile(agentPath, text, { createNew: true });
    undo.push(() => Deno.remove(agentPath));
    io.stderr(`Wrote ${agentPath} (model: ${describeChoice(choice)})\n`);

    const agentDir = join(dir, dirname(LOCK_FILE_PATH));
    const hadAgentDir = await exists(agentDir);
    const { lockConfig } = await import("../../config/lock.ts");
    const { renderHuman } = await import("../../config/render.ts");
    const lock = await lockConfig(dir, { builtins: BUILTINS, env: io.env });
    if (lock.ok) {
      undo.push(async () => {
        await Deno.remove(lock.path);
        if (!hadAgentDir) await Deno.remove(agentDir);
      });
    } else {
      io.stderr(
        renderHuman({
          exitCode: 1,
          plan: undefined,
          diagnostics: lock.diagnostics,
          sources: lock.sources,
        }).replace(/\n[^\n]*\n$/, "\n"),
      );
      await rollback();
      io.stderr(
        `error: Cannot write the lock file; nothing was written\n`,
      );
      return 1;
    }
    for (const c of lock.changes) {
      io.stderr(`  ${c.name}: ${c.version ?? "-"} from ${c.source}\n`);
    }
    io.stderr(`Wrote ${lock.path}\n`);

    if (deno.edit) {
      const edit = deno.edit;
      if (edit.added.length > 0) {
        const tmp = `${edit.path}.${crypto.randomUUID()}.tmp`;
        await Deno.writeTextFile(tmp, edit.text, { createNew: true });
        await Deno.rename(tmp, edit.path);
        undo.push(() => Deno.writeTextFile(edit.path, edit.original));
        io.stderr(
          `Added ${
            edit.added.map((t) => `"${t}"`).join(" and ")
          } to the tasks of ${edit.path}\n`,
        );
      }
      for (const t of edit.kept) {
        io.stderr(
          `note: ${edit.path} already has a task "${t}": left as it is\n`,
        );
      }
    } else if (deno.jsonc) {
      io.stderr(
        `note: deno.jsonc is not edited (its comments would be lost); add these tasks to it:\n${
          Object.entries(INIT_TASKS).map(([k, c]) =>
            `    ${JSON.stringify(k)}: ${JSON.stringify(c)}`
          ).join(",\n")
        }\n`,
      );
    }

    if (v.ci === "github") {
      const path = join(dir, WORKFLOW_PATH);
      const created: string[] = [];
      for (
        let d = dirname(path);
        d.startsWith(dir) && d !== dir && !await exists(d);
        d = dirname(d)
      ) created.unshift(d);
      await Deno.mkdir(dirname(path), { recursive: true });
      undo.push(async () => {
        for (const d of created.reverse()) await Deno.remove(d);
      });
      await Deno.writeTextFile(path, workflowText(Deno.version.deno), {
        createNew: true,
      });
      undo.push(() => Deno.remove(path));
      io.stderr(`Wrote ${path}\n`);
    }
  } catch (err) {
    await rollback();
    io.stderr(
      `error: Cannot init "${dir}": ${errorText(err)}; nothing was written\n`,
    );
    return 1;
  }
  io.stderr(
    noKey
      ? `Next: set ANTHROPIC_API_KEY (or pick another provider in agent.hcl), then run "agent" or agent run "…"\n`
      : `Next: run "agent" or agent run "…"; commit agent.hcl and .agent/agent.lock.hcl\n`,
  );
  return 0;
}
