/**
 * `agent test [dir] [--json] [--locked]`: checks the configuration as
 * `check-config` does, then runs `agent.test.hcl` — each call judged
 * offline by the kernel's own gate — and prints one line per test: pass or
 * fail, the decision, the deciding rule and segment, and where the test is.
 *
 * Exit codes: 0 every test passes; 1 a test fails, or the configuration or
 * the test file is invalid (or missing); 2 the lock file is missing (with
 * `--locked`), outdated or does not match; 3 usage error.
 *
 * @module
 */
import { isAbsolute, join, relative, resolve } from "node:path";
import {
  type Diagnostic,
  formatDiagnostic,
} from "../../contract/diagnostic.ts";
import type { JsonValue } from "../../config/hcl/mod.ts";
import { BUILTINS } from "../../plugins/builtin.ts";
import type { CliIo } from "./io.ts";
import { parseOptions, usageError, useColor } from "./_common.ts";
import type { PolicyTestOutcome } from "./_policy_tests.ts";

/** The `--help` text of `agent test`. */
export const TEST_HELP: string = `Usage: agent test [dir] [--json] [--locked]

Runs the policy tests in dir/agent.test.hcl (dir defaults to the current
directory) against dir/agent.hcl. Each test block names a call and what
policy must decide about it:

  test "no_rm_behind_and" {
    profile = "default"      # optional; the root profile otherwise
    parent  = "lead"         # optional: the call is made by a sub-agent
                             # that a session of this profile spawned
    call    = { provider = "sh", tool = "bash", input = { command = "git status && rm -rf build" } }
    expect  = "deny"         # allow | ask | deny
    rule    = "no_rm"        # optional: the rule that must decide
    segment = "rm -rf build" # optional: the shell segment that must decide
  }

Calls are judged offline, without starting a plugin, by the gate the kernel
runs: the profile's tool scope and sub-agent depth, then policy (each
segment of a shell command). Tool kinds and risk classes come from the lock
file (else the plugins' manifests). Prints one line per test.

Options:
  --json       Print one JSON document: format_version, passed, the tests
               and the diagnostics
  --locked     Require a complete, current lock file (for CI)
  --no-color   Never colour the output
  -h, --help   Show this help

Exit codes: 0 every test passes; 1 a test fails, or agent.hcl or
agent.test.hcl is invalid or missing; 2 the lock file is missing (with
--locked), outdated or does not match; 3 usage error.
`;

const USAGE = "Usage: agent test [dir] [--json] [--locked] [--no-color]";

/**
 * Runs `agent test`.
 *
 * @param args The arguments after `test`.
 * @param io Streams, environment, directory.
 * @returns The exit code.
 */
export async function testCommand(
  args: readonly string[],
  io: CliIo,
): Promise<number> {
  const parsed = parseOptions(io, USAGE, args, {
    json: { type: "boolean" },
    locked: { type: "boolean" },
    "no-color": { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (!parsed) return 3;
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(TEST_HELP);
    return 0;
  }
  if (positionals.length > 1) {
    return usageError(io, USAGE, "expected at most one directory");
  }
  const dir = resolve(io.cwd, positionals[0] ?? ".");
  try {
    if (!(await Deno.stat(dir)).isDirectory) {
      return usageError(io, USAGE, `"${positionals[0]}" is not a directory`);
    }
  } catch {
    return usageError(
      io,
      USAGE,
      `there is no directory "${positionals[0] ?? "."}"`,
    );
  }
  const json = values.json === true;
  const color = useColor(io, {
    noColor: values["no-color"] === true,
    json,
  });
  const show = (f: string) => {
    if (f.startsWith("~") || isAbsolute(f)) return f;
    const r = relative(io.cwd, join(dir, f));
    return r === "" ? "." : r.split("\\").join("/");
  };
  const { checkConfig } = await import("../../config/check.ts");
  const { diagnosticToJson, sortDiagnostics } = await import(
    "../../config/render.ts"
  );
  const checked = await checkConfig(dir, {
    builtins: BUILTINS,
    locked: values.locked === true,
    requireEnv: false,
    env: io.env,
    ...(io.platform ? { platform: io.platform } : {}),
  });
  const { runPolicyTestsIn } = await import("./_policy_tests.ts");
  const run = checked.plan
    ? await runPolicyTestsIn(dir, checked.plan)
    : undefined;
  const sources = new Map<string, string>();
  for (const [f, t] of checked.sources) sources.set(show(f), t);
  if (run?.text !== undefined) sources.set(show(run.file), run.text);
  const shown = (d: Diagnostic): Diagnostic =>
    d.range
      ? {
        ...d,
        range: {
          file: show(d.range.file),
          start: d.range.start,
          end: d.range.end,
        },
      }
      : d;
  // A valid configuration's warnings are check-config's to report.
  const diagnostics = sortDiagnostics([
    ...checked.diagnostics.filter((d) =>
      checked.exitCode !== 0 || d.severity === "error"
    ),
    ...(run?.diagnostics ?? []).filter((d) =>
      d.code !== "E_POLICY_TEST_FAILED"
    ),
  ]).map(shown);
  const errors = diagnostics.filter((d) => d.severity === "error");
  const outcomes = run?.outcomes ?? [];
  const failed = outcomes.filter((o) => !o.passed).length;
  let exitCode: number;
  if (checked.exitCode !== 0) exitCode = checked.exitCode;
  else if (errors.length > 0 || !run?.found) exitCode = 1;
  else exitCode = failed > 0 ? 1 : 0;
  const missing = run !== undefined && !run.found
    ? `No ${run.file} in ${show(".")}: nothing to test.`
    : undefined;

  if (json) {
    const doc: { [key: string]: JsonValue } = {
      format_version: "1",
      passed: exitCode === 0,
      exit_code: exitCode,
      tests: outcomes.map((o) => outcomeJson(o, show)),
      diagnostics: diagnostics.map(diagnosticToJson),
    };
    if (missing) doc.message = missing;
    io.stdout(JSON.stringify(doc, null, 2) + "\n");
    return exitCode;
  }
  const paint = (code: string, s: string) =>
    color ? `\x1b[${code}m${s}\x1b[0m` : s;
  for (const d of diagnostics) {
    io.stderr(formatDiagnostic(d, { sources, color }) + "\n\n");
  }
  if (missing) io.stderr(missing + "\n");
  for (const o of outcomes) {
    const v = o.verdict;
    const decided = `${v.action}${
      v.downgraded ? " (ask downgraded)" : ""
    } by "${v.rule}"${
      v.segment !== undefined ? ` on ${JSON.stringify(v.segment)}` : ""
    }`;
    const where = show(o.where);
    io.stdout(
      o.passed
        ? `${paint("32", "PASS")}  ${o.name}: ${decided}  (${where})\n`
        : `${paint("1;31", "FAIL")}  ${o.name}: expected ${o.expect}${
          o.expectRule !== undefined ? ` by "${o.expectRule}"` : ""
        }, got ${decided}  (${where})\n        ${o.reason} decided_by: ${v.decidedBy}\n`,
    );
  }
  if (run?.found && checked.exitCode === 0 && errors.length === 0) {
    io.stdout(
      `${
        outcomes.length - failed
      } passed, ${failed} failed (${outcomes.length} test${
        outcomes.length === 1 ? "" : "s"
      })\n`,
    );
  } else if (checked.exitCode !== 0) {
    io.stderr(
      `Cannot run the policy tests: the configuration has ${errors.length} error(s).\n`,
    );
  } else if (errors.length > 0) {
    io.stderr(
      `${
        show(run!.file)
      } has ${errors.length} error(s); ${outcomes.length} test(s) ran, ${failed} failed.\n`,
    );
  }
  return exitCode;
}

function outcomeJson(
  o: PolicyTestOutcome,
  show: (f: string) => string,
): JsonValue {
  const v = o.verdict;
  return {
    name: o.name,
    where: show(o.where),
    passed: o.passed,
    expect: o.expect,
    ...(o.expectRule !== undefined ? { expect_rule: o.expectRule } : {}),
    decision: v.action,
    rule: v.rule,
    ...(v.segment !== undefined ? { segment: v.segment } : {}),
    decided_by: v.decidedBy,
    gate: v.gate,
    ...(v.downgraded ? { downgraded: true } : {}),
    ...(v.kind !== undefined ? { kind: v.kind } : {}),
    ...(v.risk !== undefined ? { risk: v.risk } : {}),
    ...(o.reason !== undefined ? { reason: o.reason } : {}),
  };
}
