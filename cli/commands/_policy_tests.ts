/**
 * Runs `agent.test.hcl` against a checked configuration: parses the file
 * (config/policy_test_file.ts), judges each call with the kernel's own
 * gate offline (kernel/agent/policy_probe.ts) and compares. Shared by
 * `agent test` and `check-config`, which reports each failure as a
 * diagnostic at the test's file:line.
 *
 * @module
 */
import { join } from "node:path";
import type { Diagnostic } from "../../contract/diagnostic.ts";
import { parseLockFile } from "../../config/lock_file.ts";
import type { Plan, ToolDeclaration } from "../../config/plan.ts";
import {
  parsePolicyTests,
  POLICY_TEST_FILE,
  type PolicyTest,
} from "../../config/policy_test_file.ts";
import {
  PolicyProbe,
  type PolicyProbeVerdict,
} from "../../kernel/agent/policy_probe.ts";

/** The outcome of one test. */
export interface PolicyTestOutcome {
  /** The test's name. */
  name: string;
  /** Where its block starts (`agent.test.hcl:12:1`). */
  where: string;
  /** Whether the verdict met every expectation. */
  passed: boolean;
  /** The expected decision. */
  expect: string;
  /** The expected rule, if any. */
  expectRule?: string;
  /** What the gate decided. */
  verdict: PolicyProbeVerdict;
  /** What did not match, in a sentence (failures only). */
  reason?: string;
}

/** What {@linkcode runPolicyTests} returns. */
export interface PolicyTestRun {
  /** Whether the project has a test file. */
  found: boolean;
  /** The test file's path as shown in diagnostics. */
  file: string;
  /** Its text (to show source lines), when found. */
  text?: string;
  /** One outcome per test that could be judged, in file order. */
  outcomes: PolicyTestOutcome[];
  /**
   * Problems in the test file (errors: it is invalid) and one
   * `E_POLICY_TEST_FAILED` error per failing test, at the test's block.
   */
  diagnostics: Diagnostic[];
}

/**
 * The tools each provider declares, as policy sees them: the lock file's
 * recorded tools when it has them, else the plugin manifest's.
 *
 * @param plan The plan.
 * @param lockText The lock file's text, if there is one.
 * @returns The declarations by provider (absent: unknown offline).
 */
export function declaredTools(
  plan: Plan,
  lockText: string | undefined,
): Map<string, ToolDeclaration[]> {
  const lock = lockText === undefined
    ? undefined
    : parseLockFile(lockText, "agent.lock.hcl").lock;
  const out = new Map<string, ToolDeclaration[]>();
  for (const p of plan.providers) {
    const locked = lock?.providers.get(p.name);
    const tools = locked && locked.source === p.source && locked.tools
      ? locked.tools
      : p.tools;
    if (tools) out.set(p.name, tools.map((t) => ({ ...t })));
  }
  return out;
}

/**
 * Reads `<dir>/agent.test.hcl` and runs it.
 *
 * @param dir The project directory.
 * @param plan The checked plan.
 * @returns The outcomes and diagnostics (`found: false` without the file).
 */
export async function runPolicyTestsIn(
  dir: string,
  plan: Plan,
): Promise<PolicyTestRun> {
  let text: string;
  try {
    text = await Deno.readTextFile(join(dir, POLICY_TEST_FILE));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      return {
        found: false,
        file: POLICY_TEST_FILE,
        outcomes: [],
        diagnostics: [],
      };
    }
    return {
      found: true,
      file: POLICY_TEST_FILE,
      outcomes: [],
      diagnostics: [{
        severity: "error",
        code: "E_POLICY_TEST_READ",
        summary: `Cannot read ${POLICY_TEST_FILE}`,
        detail: err instanceof Error ? err.message : String(err),
      }],
    };
  }
  let lockText: string | undefined;
  try {
    lockText = await Deno.readTextFile(join(dir, ".agent", "agent.lock.hcl"));
  } catch {
    lockText = undefined;
  }
  return runPolicyTests(text, plan, declaredTools(plan, lockText));
}

/**
 * Runs the tests of one file's text.
 *
 * @param text The test file's text.
 * @param plan The checked plan.
 * @param tools Each provider's declared tools ({@linkcode declaredTools}).
 * @param file The file's path as shown.
 * @returns The outcomes and diagnostics.
 */
export function runPolicyTests(
  text: string,
  plan: Plan,
  tools: ReadonlyMap<string, readonly ToolDeclaration[]>,
  file: string = POLICY_TEST_FILE,
): PolicyTestRun {
  const parsed = parsePolicyTests(text, file);
  const diagnostics = parsed.diagnostics;
  const outcomes: PolicyTestOutcome[] = [];
  const probe = new PolicyProbe(plan, tools);
  for (const test of parsed.tests) {
    const r = probe.decide(test.call, {
      ...(test.profile !== undefined ? { profile: test.profile } : {}),
      ...(test.parent !== undefined ? { parent: test.parent } : {}),
    });
    if (r.problem) {
      diagnostics.push({
        ...r.problem.diagnostic,
        summary: `${r.problem.diagnostic.summary} in test "${test.name}"`,
        range: test.ranges[r.problem.field] ?? test.range,
      });
      continue;
    }
    const outcome = judge(test, r.verdict);
    outcomes.push(outcome);
    if (!outcome.passed) {
      diagnostics.push({
        severity: "error",
        code: "E_POLICY_TEST_FAILED",
        summary: `Policy test "${test.name}" failed: expected ${
          describeExpected(test)
        }, got ${describeVerdict(r.verdict)}`,
        detail: `${outcome.reason} The gate's decided_by: ${
          JSON.stringify(r.verdict.decidedBy)
        }.`,
        range: test.range,
      });
    }
  }
  return { found: true, file, text, outcomes, diagnostics };
}

function judge(test: PolicyTest, v: PolicyProbeVerdict): PolicyTestOutcome {
  const s = test.range.start;
  const reasons: string[] = [];
  if (v.action !== test.expect) {
    reasons.push(`The decision is "${v.action}", not "${test.expect}".`);
  }
  if (test.rule !== undefined && v.rule !== test.rule) {
    reasons.push(`The deciding rule is "${v.rule}", not "${test.rule}".`);
  }
  if (test.segment !== undefined && v.segment !== test.segment) {
    reasons.push(
      v.segment === undefined
        ? `No shell segment decided, not ${JSON.stringify(test.segment)}.`
        : `The deciding segment is ${JSON.stringify(v.segment)}, not ${
          JSON.stringify(test.segment)
        }.`,
    );
  }
  return {
    name: test.name,
    where: `${test.range.file}:${s.line}:${s.column}`,
    passed: reasons.length === 0,
    expect: test.expect,
    ...(test.rule !== undefined ? { expectRule: test.rule } : {}),
    verdict: v,
    ...(reasons.length > 0 ? { reason: reasons.join(" ") } : {}),
  };
}

function describeExpected(test: PolicyTest): string {
  return `${test.expect}${test.rule !== undefined ? ` by "${test.rule}"` : ""}${
    test.segment !== undefined ? ` on ${JSON.stringify(test.segment)}` : ""
  }`;
}

/**
 * A verdict in a few words: `deny by "no_rm" on "rm -rf build"`.
 *
 * @param v The verdict.
 * @returns The text.
 */
export function describeVerdict(v: PolicyProbeVerdict): string {
  return `${v.action} by "${v.rule}"${
    v.segment !== undefined ? ` on ${JSON.stringify(v.segment)}` : ""
  }`;
}
