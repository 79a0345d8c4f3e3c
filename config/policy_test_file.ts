/**
 * `agent.test.hcl`: the policy test file beside `agent.hcl` (never merged
 * into the configuration). Each `test "<name>"` block states one call and
 * what policy must decide about it:
 *
 * ```hcl
 * test "no_rm_behind_and" {
 *   profile = "default"   # optional: the root profile otherwise
 *   call    = { provider = "sh", tool = "bash", input = { command = "git status && rm -rf build" } }
 *   expect  = "deny"      # allow | ask | deny
 *   rule    = "no_rm"     # optional: the rule that must decide
 * }
 * ```
 *
 * {@linkcode parsePolicyTests} reads the file against a closed schema and
 * reports every problem as a diagnostic with its file:line:col, like the
 * configuration's. Judging the calls is the kernel's job (the same gate it
 * runs at run time): see `kernel/agent/policy_probe.ts`.
 *
 * @module
 */

import {
  type Diagnostic,
  didYouMean,
  type SourceRange,
} from "../contract/diagnostic.ts";
import { POLICY_ACTIONS, type PolicyAction } from "../contract/policy.ts";
import {
  type Expr,
  type JsonValue,
  parseHcl,
  toJsonValue,
  type Value,
} from "./hcl/mod.ts";
import {
  checkBody,
  checkEnum,
  diag,
  evalAttr,
  headerRange,
  keyRanges,
} from "./_schema.ts";

/** The test file's name, beside `agent.hcl`. */
export const POLICY_TEST_FILE = "agent.test.hcl";

/** The call a test makes. */
export interface PolicyTestCall {
  /** The provider's local name. */
  provider: string;
  /** The bare operation name. */
  tool: string;
  /** The call's arguments (`{}` when omitted). */
  input: { [key: string]: JsonValue };
}

/** Where the parts of a test block are written. */
export interface PolicyTestRanges {
  /** The `profile` value. */
  profile?: SourceRange;
  /** The `parent` value. */
  parent?: SourceRange;
  /** The `provider` key of `call`. */
  provider?: SourceRange;
  /** The `tool` key of `call`. */
  tool?: SourceRange;
  /** The `expect` value. */
  expect?: SourceRange;
  /** The `rule` value. */
  rule?: SourceRange;
}

/** One `test` block. */
export interface PolicyTest {
  /** The block's label. */
  name: string;
  /** The profile whose session makes the call (else the root profile). */
  profile?: string;
  /**
   * The profile that delegates to {@linkcode PolicyTest.profile}: the call
   * is made by a sub-agent that a root session of `parent` spawned.
   */
  parent?: string;
  /** The call. */
  call: PolicyTestCall;
  /** What policy must decide. */
  expect: PolicyAction;
  /**
   * The rule that must decide: a policy's name, `default` (no rule
   * matched), `unparseable` (a command that cannot be parsed) or `scope`
   * (the tool is not in the session's scope).
   */
  rule?: string;
  /** The normalized text of the shell segment that must decide. */
  segment?: string;
  /** The block's header (`test "<name>"`). */
  range: SourceRange;
  /** Where its parts are written. */
  ranges: PolicyTestRanges;
}

/** What {@linkcode parsePolicyTests} returns. */
export interface ParsePolicyTestsResult {
  /** The valid tests, in file order. */
  tests: PolicyTest[];
  /** Every problem found (an invalid block is left out of `tests`). */
  diagnostics: Diagnostic[];
}

const TOP_SCHEMA = {
  attributes: {},
  blocks: { test: { labels: ["name"], unique: "label" as const } },
};

const TEST_SCHEMA = {
  attributes: {
    profile: { type: "string" as const },
    parent: { type: "string" as const },
    call: { type: "object" as const, required: true },
    expect: { type: "string" as const, required: true },
    rule: { type: "string" as const },
    segment: { type: "string" as const },
  },
  blocks: {},
};

const CALL_KEYS = ["provider", "tool", "input"];

/**
 * Reads `agent.test.hcl`: `test "<name>"` blocks only (closed schema, with
 * "did you mean"); in each, `call = { provider, tool, input }` and `expect`
 * are required, `profile`, `parent`, `rule` and `segment` optional. Values
 * are literals (no functions, no `env()`).
 *
 * @example Usage
 * ```ts
 * import { parsePolicyTests } from "./policy_test_file.ts";
 * import assert from "node:assert/strict";
 *
 * const { tests, diagnostics } = parsePolicyTests(`
 * test "reads" {
 *   call   = { provider = "fs", tool = "read_file", input = { path = "a.md" } }
 *   expect = "allow"
 * }
 * test "typo" {
 *   call   = { provider = "fs", tool = "read_file" }
 *   expct  = "deny"
 * }
 * `, "agent.test.hcl");
 * assert.equal(tests.length, 1);
 * assert.equal(tests[0]?.call.input.path, "a.md");
 * assert.match(diagnostics[0]?.detail ?? "", /Did you mean "expect"\?/);
 * ```
 *
 * @param text The file's text.
 * @param file The file's path as shown in diagnostics.
 * @returns The valid tests and the diagnostics.
 */
export function parsePolicyTests(
  text: string,
  file: string,
): ParsePolicyTestsResult {
  const parsed = parseHcl(text, file);
  const diagnostics: Diagnostic[] = [...parsed.diagnostics];
  const tests: PolicyTest[] = [];
  const top = checkBody(parsed.body, TOP_SCHEMA, "", diagnostics);
  for (const block of top.blocks.get("test") ?? []) {
    const test = decodeTest(block, diagnostics);
    if (test) tests.push(test);
  }
  if (tests.length === 0 && diagnostics.length === 0) {
    diagnostics.push(diag(
      "warning",
      "W_NO_TESTS",
      `No test blocks in ${file}`,
      'Add test "<name>" { call = { provider = "...", tool = "..." }, expect = "allow" } blocks, or delete the file.',
      undefined,
    ));
  }
  return { tests, diagnostics };
}

function decodeTest(
  block: Parameters<typeof headerRange>[0],
  diagnostics: Diagnostic[],
): PolicyTest | undefined {
  const name = block.labels[0]!.value;
  const where = `test ${JSON.stringify(name)}`;
  const header = headerRange(block);
  const before = diagnostics.length;
  const { attrs } = checkBody(
    block.body,
    TEST_SCHEMA,
    where,
    diagnostics,
    header,
  );
  const ranges: PolicyTestRanges = {};
  const str = (key: keyof typeof TEST_SCHEMA.attributes) => {
    const a = attrs.get(key);
    if (!a) return undefined;
    const v = evalAttr(a, "string", where, diagnostics);
    if (typeof v !== "string") return undefined;
    if (key !== "call" && key !== "segment") ranges[key] = a.expr.range;
    return v;
  };
  const profile = str("profile");
  const parent = str("parent");
  const rule = str("rule");
  const segment = str("segment");
  const expectText = str("expect");
  let expect: PolicyAction | undefined;
  if (expectText !== undefined) {
    if (
      checkEnum(
        expectText,
        POLICY_ACTIONS,
        "expect",
        where,
        ranges.expect!,
        diagnostics,
      )
    ) {
      expect = expectText as PolicyAction;
    }
  }
  if (parent !== undefined && profile === undefined) {
    diagnostics.push(diag(
      "error",
      "E_MISSING_ATTR",
      `Missing "profile" beside "parent" in ${where}`,
      `"parent" names the profile that delegates; "profile" must name the sub-agent's profile it spawns.`,
      ranges.parent,
    ));
  }
  const callAttr = attrs.get("call");
  const call = callAttr
    ? decodeCall(callAttr.expr, where, ranges, diagnostics)
    : undefined;
  if (
    diagnostics.length > before || call === undefined || expect === undefined
  ) {
    return undefined;
  }
  return {
    name,
    ...(profile !== undefined ? { profile } : {}),
    ...(parent !== undefined ? { parent } : {}),
    call,
    expect,
    ...(rule !== undefined ? { rule } : {}),
    ...(segment !== undefined ? { segment } : {}),
    range: header,
    ranges,
  };
}

function decodeCall(
  expr: Expr,
  where: string,
  ranges: PolicyTestRanges,
  diagnostics: Diagnostic[],
): PolicyTestCall | undefined {
  const before = diagnostics.length;
  const value = evalCallObject(expr, where, diagnostics);
  if (value === undefined) return undefined;
  const keyAt = keyRanges(expr);
  for (const key of Object.keys(value)) {
    if (CALL_KEYS.includes(key)) continue;
    const hint = didYouMean(key, CALL_KEYS);
    diagnostics.push(diag(
      "error",
      "E_UNKNOWN_ATTR",
      `Unsupported key "${key}" in the call of ${where}`,
      hint
        ? `Did you mean "${hint}"?`
        : 'A call has "provider", "tool" and optionally "input".',
      keyAt[key] ?? expr.range,
    ));
  }
  const text = (key: "provider" | "tool"): string | undefined => {
    const v = value[key];
    if (v === undefined) {
      diagnostics.push(diag(
        "error",
        "E_MISSING_FIELD",
        `Missing "${key}" in the call of ${where}`,
        `A call names its provider's local name and the tool's bare name: call = { provider = "fs", tool = "read_file", input = { ... } }.`,
        expr.range,
      ));
      return undefined;
    }
    if (typeof v !== "string" || v === "") {
      diagnostics.push(diag(
        "error",
        "E_INVALID_VALUE",
        `Wrong type for "${key}" in the call of ${where}`,
        `"${key}" must be a non-empty string.`,
        keyAt[key] ?? expr.range,
      ));
      return undefined;
    }
    ranges[key] = keyAt[key] ?? expr.range;
    return v;
  };
  const provider = text("provider");
  const tool = text("tool");
  const raw = value.input;
  let input: { [key: string]: JsonValue } = {};
  if (raw !== undefined) {
    const json = toJsonValue(raw as Value);
    if (json === null || typeof json !== "object" || Array.isArray(json)) {
      diagnostics.push(diag(
        "error",
        "E_INVALID_VALUE",
        `Wrong type for "input" in the call of ${where}`,
        `"input" must be an object of the tool's arguments, as in input = { path = "notes.md" }.`,
        keyAt.input ?? expr.range,
      ));
    } else {
      input = json;
    }
  }
  if (
    diagnostics.length > before || provider === undefined || tool === undefined
  ) {
    return undefined;
  }
  return { provider, tool, input };
}

function evalCallObject(
  expr: Expr,
  where: string,
  diagnostics: Diagnostic[],
): Record<string, Value> | undefined {
  const fake = {
    kind: "attribute" as const,
    name: "call",
    nameRange: expr.range,
    expr,
    range: expr.range,
  };
  const v = evalAttr(fake, "object", where, diagnostics);
  return v === undefined ? undefined : v as Record<string, Value>;
}
