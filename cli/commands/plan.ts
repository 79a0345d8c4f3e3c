/**
 * `agent plan [dir] [--base GIT_REF] [--json]`: what a change lets the
 * agent do. Compiles `agent.hcl` and the lock file in the working tree and
 * at a base commit, and prints the capability diff (see
 * {@linkcode diffPlans}). Exit codes: 0 nothing widens; 10 a permission, an
 * allow or a tool widens; 1 invalid configuration; 2 lock problem; 3 usage
 * error (a bad `--base` included).
 *
 * @module
 */

import { join, relative, resolve } from "node:path";
import {
  diagnosticToJson,
  diffPlans,
  EMPTY_PLAN,
  type JsonValue,
  renderHuman,
  sortDiagnostics,
} from "../../config/mod.ts";
import { styleFor } from "../render/events.ts";
import {
  PLAN_JSON_FORMAT_VERSION,
  renderPlanJson,
  renderPlanText,
} from "../render/plan.ts";
import type { CliIo } from "./io.ts";
import { EXIT_USAGE, EXIT_WIDENS } from "./exit_codes.ts";
import { parseOptions, usageError, useColor } from "./_common.ts";
import {
  compileBase,
  compileWorkingTree,
  PlanBaseError,
  type PlanSide,
  resolveBase,
} from "./_plan_sides.ts";

/** The usage line of `agent plan`. */
export const PLAN_USAGE = "Usage: agent plan [dir] [--base GIT_REF] [--json]";

/** The `--help` text of `agent plan`. */
export const PLAN_HELP: string = `${PLAN_USAGE}

Shows what a change lets the agent do: compiles agent.hcl and
.agent/agent.lock.hcl in the working tree of dir (default: the current
directory; uncommitted changes included) and at a base commit (read with
git show, no checkout), and prints the differences a reviewer needs:

  providers added, removed, upgraded (version, checksum);
  each provider's effective permissions (env, run, read, write, net:
    declared ∩ granted) added or removed;
  policy rules added, removed or changed, and the calls that now run with
    less asking;
  profile changes (models, tools, slash commands, bounds, budgets, depth).

No secret is needed or printed: an unset env() variable compiles as an empty
string. The global config (dev_overrides) is left out on both sides.

Options:
  --base GIT_REF  The commit to compare with (default: the merge base of
                  HEAD and the default branch: origin/HEAD when set, else
                  main, else master)
  --json          Print one JSON document (format_version "1")
  --no-color      Never colour the output (also: NO_COLOR, or not a terminal)
  -h, --help      Show this help

Exit codes: 0 nothing widens; 10 a permission, an allow or a tool widens;
1 invalid configuration; 2 lock file problem; 3 usage error (a --base that
is not a commit, not a git repository, no default branch).
`;

function failureJson(
  sides: readonly PlanSide[],
  exitCode: number,
  message: string,
): string {
  const doc: JsonValue = {
    format_version: PLAN_JSON_FORMAT_VERSION,
    valid: false,
    exit_code: exitCode,
    error: message,
    sides: sides.map((s) => ({
      side: s.label,
      exit_code: s.exitCode,
      diagnostics: sortDiagnostics(s.diagnostics).map(diagnosticToJson),
    })),
  };
  return JSON.stringify(doc, null, 2) + "\n";
}

/**
 * Runs `agent plan`.
 *
 * @param args The arguments after `plan`.
 * @param io Streams, environment, directory.
 * @returns The exit code.
 */
export async function planCommand(
  args: readonly string[],
  io: CliIo,
): Promise<number> {
  const parsed = parseOptions(io, PLAN_USAGE, args, {
    base: { type: "string" },
    json: { type: "boolean" },
    "no-color": { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (!parsed) return EXIT_USAGE;
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(PLAN_HELP);
    return 0;
  }
  if (positionals.length > 1) {
    return usageError(
      io,
      PLAN_USAGE,
      `expected at most one directory, got ${positionals.length}`,
    );
  }
  if (values.base === "") {
    return usageError(io, PLAN_USAGE, "--base needs a git ref");
  }
  const shownDir = positionals[0] ?? ".";
  const dir = resolve(io.cwd, shownDir);
  try {
    if (!(await Deno.stat(dir)).isDirectory) {
      return usageError(io, PLAN_USAGE, `"${shownDir}" is not a directory`);
    }
  } catch {
    return usageError(io, PLAN_USAGE, `there is no directory "${shownDir}"`);
  }
  const color = useColor(io, {
    noColor: values["no-color"],
    json: values.json,
  });
  const style = styleFor(color);
  const sideOptions = {
    env: io.env,
    ...(io.platform ? { platform: io.platform } : {}),
  };

  let base;
  let before: PlanSide;
  try {
    base = await resolveBase(dir, values.base);
    before = await compileBase(dir, base, sideOptions);
  } catch (err) {
    if (err instanceof PlanBaseError) {
      return usageError(io, PLAN_USAGE, err.message);
    }
    throw err;
  }
  const after = await compileWorkingTree(dir, sideOptions);

  const fail = (exitCode: number, message: string, sides: PlanSide[]) => {
    if (values.json) {
      io.stdout(failureJson(sides, exitCode, message));
      return exitCode;
    }
    for (const s of sides) {
      const prefix = s === before ? `${base.ref}:` : "";
      io.stderr(
        `${style.bold(`The configuration in the ${s.label}:`)}\n` +
          renderHuman(
            {
              exitCode: s.exitCode,
              plan: s.plan,
              diagnostics: s.diagnostics,
              sources: s.sources,
            },
            {
              color,
              displayFile: (f) => {
                const shown = relative(io.cwd, resolve(dir, f)) || f;
                return `${prefix}${shown}`;
              },
            },
          ),
      );
    }
    io.stderr(`error: ${message}\n`);
    return exitCode;
  };

  if (!before.hasConfig && !after.hasConfig) {
    return fail(
      1,
      `there is no agent.hcl in "${shownDir}", neither in the working tree nor at ${base.ref}`,
      [],
    );
  }
  const broken = [before, after].filter((s) => s.hasConfig && s.exitCode !== 0);
  if (broken.length > 0) {
    const code = broken.some((s) => s.exitCode === 1) ? 1 : 2;
    return fail(
      code,
      `cannot compare: the configuration in the ${
        broken.map((s) => s.label).join(" and in the ")
      } ${
        code === 1
          ? "is invalid"
          : 'has a lock file problem (run "agent lock" and commit it)'
      }`,
      broken,
    );
  }
  const diff = diffPlans(before.plan ?? EMPTY_PLAN, after.plan ?? EMPTY_PLAN);
  const meta = {
    baseRef: base.ref,
    baseCommit: base.commit,
    baseHow: base.how,
    baseHasConfig: before.hasConfig,
    headHasConfig: after.hasConfig,
    dir: (relative(io.cwd, dir) || ".").split("\\").join("/"),
    unsetEnv: [...new Set([...before.unsetEnv, ...after.unsetEnv])].sort(),
  };
  const accepted = await acceptedWidening(dir);
  if (values.json) {
    const doc = JSON.parse(renderPlanJson(diff, meta));
    doc.accepted_widening = accepted;
    io.stdout(JSON.stringify(doc, null, 2) + "\n");
  } else {
    let text = renderPlanText(diff, meta, style);
    if (accepted.length > 0) {
      text +=
        `\nAccepted widening (recorded by agent lock --accept-widening):\n${
          accepted.map((a) => `  ${a.provider}: ${a.item}\n`).join("")
        }`;
    }
    io.stdout(text);
  }
  return diff.widens ? EXIT_WIDENS : 0;
}

/** What the working tree's lock file records as accepted widening. */
async function acceptedWidening(
  dir: string,
): Promise<{ provider: string; item: string }[]> {
  const { parseLockFile, LOCK_FILE_PATH } = await import(
    "../../config/lock_file.ts"
  );
  let text: string;
  try {
    text = await Deno.readTextFile(join(dir, LOCK_FILE_PATH));
  } catch {
    return [];
  }
  const lock = parseLockFile(text, LOCK_FILE_PATH).lock;
  return [...(lock?.providers.values() ?? [])].flatMap((p) =>
    (p.acceptedWidening ?? []).map((item) => ({ provider: p.name, item }))
  );
}
