/**
 * Turns a decoded `policy` block into a {@linkcode PolicyRule}
 * ({@linkcode normalizePolicy}): the closed `match` schema, the domains of
 * `risk`, `kind` and `action`, and the `command` pattern check.
 *
 * @module
 */
import { type Diagnostic, didYouMean, type SourceRange } from "./diagnostic.ts";
import { checkCommandPattern } from "./command_pattern.ts";
import {
  POLICY_ACTIONS,
  POLICY_MATCH_KINDS,
  type PolicyAction,
  type PolicyMatch,
  type PolicyRule,
  RISK_CLASSES,
} from "./policy.ts";
import {
  FIELD_OF,
  isMatchKey,
  MATCH_KEYS,
  type MatchKey,
  policyDiagnostic as diag,
} from "./_policy_syntax.ts";

/** Source ranges {@linkcode normalizePolicy} can attach to its diagnostics. */
export interface PolicySourceRanges {
  /** The whole `policy` block. */
  block?: SourceRange;
  /** The `match` attribute's value. */
  match?: SourceRange;
  /** The `action` attribute's value. */
  action?: SourceRange;
  /** Each `match` item by its key as written (`tool_name`, `risk`, …). */
  matchKeys?: Readonly<Record<string, SourceRange>>;
}

/** What {@linkcode normalizePolicy} returns. */
export type NormalizePolicyResult =
  | { rule: PolicyRule; diagnostics: Diagnostic[] }
  | { rule: undefined; diagnostics: Diagnostic[] };

/**
 * Builds a {@linkcode PolicyRule} from a decoded `policy` block: `match` as
 * an object keyed as in HCL (`command`, `tool_name`, `provider`, `risk`,
 * `kind`) and
 * `action` as written. Checks that `match` is an object, that it holds only
 * those keys (an ignored typo such as `tool = "x"` would silently make the
 * rule match everything), that every value is a string, that `risk`, `kind`
 * and `action` are in their domains (`kind = "interactive"` is refused with
 * an explanation), and reports every problem at once.
 *
 * Codes: `E_UNKNOWN_ATTR` for an unknown `match` key, `E_INVALID_VALUE`
 * for a wrong type or a value outside its domain, `E_POLICY_COMMAND` for a
 * `command` pattern that can never match a segment (see
 * {@linkcode checkCommandPattern}). A pattern that is not written in the
 * normalized form segments are matched in gets a warning
 * (`W_POLICY_COMMAND_FORM`) with the form to write; the rule is kept.
 *
 * @example Usage
 * ```ts
 * import { normalizePolicy } from "./policy_normalize.ts";
 * import assert from "node:assert/strict";
 *
 * const ok = normalizePolicy("fs_writes", { match: { provider: "fs", kind: "resource" }, action: "ask" });
 * assert.deepEqual(ok.rule?.match, { provider: "fs", kind: "resource" });
 *
 * const bad = normalizePolicy("typo", { match: { tool: "x" }, action: "deny" });
 * assert.equal(bad.diagnostics[0]?.summary, 'Unknown key "tool" in policy "typo" match');
 * ```
 *
 * @param name The block's label.
 * @param raw The decoded `match` and `action` values.
 * @param ranges Where the parts are, for diagnostics and the rule's `range`.
 * @returns The rule (with any warnings), or `undefined` with at least one
 *   error.
 */
export function normalizePolicy(
  name: string,
  raw: { readonly match: unknown; readonly action: unknown },
  ranges: PolicySourceRanges = {},
): NormalizePolicyResult {
  const out: Collected = { errors: [], warnings: [] };
  const match = normalizeMatch(name, raw.match, ranges, out);
  const action = normalizeAction(name, raw.action, ranges, out);
  if (out.errors.length > 0 || action === undefined) {
    return { rule: undefined, diagnostics: out.errors };
  }
  const rule: PolicyRule = { name, match, action };
  if (ranges.block !== undefined) rule.range = ranges.block;
  return { rule, diagnostics: out.warnings };
}

// The errors (which drop the rule) and warnings (which keep it) found so far.
interface Collected {
  errors: Diagnostic[];
  warnings: Diagnostic[];
}

function error(
  out: Collected,
  code: string,
  summary: string,
  detail: string,
  range: SourceRange | undefined,
): void {
  out.errors.push(diag("error", code, summary, detail, range));
}

// Checks the `match` object and keeps every valid item of it.
function normalizeMatch(
  name: string,
  m: unknown,
  ranges: PolicySourceRanges,
  out: Collected,
): PolicyMatch {
  const matchRange = ranges.match ?? ranges.block;
  const match: PolicyMatch = {};
  if (typeof m !== "object" || m === null || Array.isArray(m)) {
    error(
      out,
      "E_INVALID_VALUE",
      `Invalid match in policy "${name}"`,
      `The match must be an object such as { tool_name = "write_file" }, got ${
        typeName(m)
      }.`,
      matchRange,
    );
    return match;
  }
  for (const [key, value] of Object.entries(m)) {
    const range = ranges.matchKeys?.[key] ?? matchRange;
    if (!isMatchKey(key)) {
      const hint = didYouMean(key, MATCH_KEYS);
      error(
        out,
        "E_UNKNOWN_ATTR",
        `Unknown key "${key}" in policy "${name}" match`,
        `${hint ? `Did you mean "${hint}"? ` : ""}A match may only use ${
          MATCH_KEYS.map((k) => `"${k}"`).join(", ")
        }; an ignored key would widen the rule to every call.`,
        range,
      );
      continue;
    }
    if (typeof value !== "string") {
      error(
        out,
        "E_INVALID_VALUE",
        `Invalid ${key} in policy "${name}" match`,
        `Expected a string, got ${typeName(value)}.`,
        range,
      );
      continue;
    }
    normalizeMatchItem(name, key, value, range, match, out);
  }
  return match;
}

// Checks one string-valued `match` item against its key's domain and, when
// valid, sets the field it fills.
function normalizeMatchItem(
  name: string,
  key: MatchKey,
  value: string,
  range: SourceRange | undefined,
  match: PolicyMatch,
  out: Collected,
): void {
  if (key === "command") {
    const check = checkCommandPattern(value);
    if ("error" in check) {
      error(
        out,
        "E_POLICY_COMMAND",
        `Invalid command pattern in policy "${name}" match`,
        `${check.error} (pattern ${JSON.stringify(value)}).`,
        range,
      );
      return;
    }
    // Only quoting and spacing are worth a warning: a glob next to an
    // operator (`*> /dev/null`) reads differently once filled in.
    if (check.normalized !== value && /["'\\\t]| {2}/.test(value)) {
      out.warnings.push(diag(
        "warning",
        "W_POLICY_COMMAND_FORM",
        `Command pattern of policy "${name}" is not in normalized form`,
        `Segments are matched in their normalized text (words re-quoted, single spaces), so ${
          JSON.stringify(value)
        } may never match; write ${JSON.stringify(check.normalized)}.`,
        range,
      ));
    }
    match.command = value;
  } else if (key === "risk") {
    if (!isOneOf(value, RISK_CLASSES)) {
      error(
        out,
        "E_INVALID_VALUE",
        `Invalid risk in policy "${name}" match`,
        domainDetail(value, RISK_CLASSES),
        range,
      );
      return;
    }
    match.risk = value;
  } else if (key === "kind") {
    if (!isOneOf(value, POLICY_MATCH_KINDS)) {
      error(
        out,
        "E_INVALID_VALUE",
        `Invalid kind in policy "${name}" match`,
        value === "interactive"
          ? 'A match cannot name kind "interactive": rules with a kind never apply to interactive calls. Target them with tool_name, provider or risk instead.'
          : domainDetail(value, POLICY_MATCH_KINDS),
        range,
      );
      return;
    }
    match.kind = value;
  } else {
    match[FIELD_OF[key] as "toolName" | "provider"] = value;
  }
}

// Checks the `action` attribute; `undefined` when it is invalid.
function normalizeAction(
  name: string,
  a: unknown,
  ranges: PolicySourceRanges,
  out: Collected,
): PolicyAction | undefined {
  if (typeof a === "string" && isOneOf(a, POLICY_ACTIONS)) return a;
  error(
    out,
    "E_INVALID_VALUE",
    `Invalid action in policy "${name}"`,
    typeof a === "string"
      ? domainDetail(a, POLICY_ACTIONS)
      : `Expected a string, got ${typeName(a)}.`,
    ranges.action ?? ranges.block,
  );
  return undefined;
}

function isOneOf<T extends string>(
  value: string,
  domain: readonly T[],
): value is T {
  return (domain as readonly string[]).includes(value);
}

/** Each domain written as a list (`"a", "b"`), made once per domain. */
const domainLists = new Map<readonly string[], string>();

function domainDetail(value: string, domain: readonly string[]): string {
  const hint = didYouMean(value, domain);
  let list = domainLists.get(domain);
  if (list === undefined) {
    list = domain.map((d) => `"${d}"`).join(", ");
    if (domainLists.size < 16) domainLists.set(domain, list);
  }
  return `${JSON.stringify(value)} is not one of ${list}.${
    hint ? ` Did you mean "${hint}"?` : ""
  }`;
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  switch (typeof value) {
    case "string":
      return "a string";
    case "number":
    case "bigint":
      return "a number";
    case "boolean":
      return "a bool";
    case "object":
      return "an object";
    default:
      return typeof value;
  }
}
