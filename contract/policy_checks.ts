/**
 * The load-time checks over a set of policy rules (config.md §6.5):
 * duplicate names, conflicting (identical) matches, the empty-match
 * warning and the warning for an allow rule that overrides a `command`
 * deny, run together by {@linkcode checkPolicies}.
 *
 * @module
 */
import type { Diagnostic } from "./diagnostic.ts";
import { formatPolicyMatch, type PolicyRule } from "./policy.ts";
import { isNarrowerMatch, specificity } from "./policy_specificity.ts";
import { policyDiagnostic as diag } from "./_policy_syntax.ts";

/**
 * Finds conflicting rules (config.md §6.5): two rules conflict when their
 * match objects are identical (same fields, same values), whatever their
 * actions. Each later rule that repeats an earlier match gets one error
 * (`E_POLICY_CONFLICT`) that names both rules and points at the later one.
 * Rules with different specificity tuples never conflict, even when both can
 * match the same call: specificity decides.
 *
 * @example Usage
 * ```ts
 * import type { PolicyRule } from "./policy.ts";
 * import { detectConflicts } from "./policy_checks.ts";
 * import assert from "node:assert/strict";
 *
 * const rules: PolicyRule[] = [
 *   { name: "a", match: { risk: "high" }, action: "deny" },
 *   { name: "b", match: { risk: "high" }, action: "deny" },
 * ];
 * const [d] = detectConflicts(rules);
 * assert.equal(d?.summary, 'Conflicting policies "a" and "b"');
 * ```
 *
 * @param rules The rules in declaration order.
 * @returns One error per rule whose match repeats an earlier rule's.
 */
export function detectConflicts(rules: readonly PolicyRule[]): Diagnostic[] {
  const firstByMatch = new Map<string, PolicyRule>();
  const diagnostics: Diagnostic[] = [];
  for (const rule of rules) {
    const m = rule.match;
    // Length-prefixed fields: unambiguous, and no escaping pass over a
    // long value (JSON.stringify of a 5 MB tool_name cost a quarter second).
    const key = matchKey(m.command) + matchKey(m.toolName) +
      matchKey(m.provider) + matchKey(m.risk) + matchKey(m.kind);
    const first = firstByMatch.get(key);
    if (first === undefined) {
      firstByMatch.set(key, rule);
      continue;
    }
    const where = first.range
      ? ` (${first.range.file}:${first.range.start.line}:${first.range.start.column})`
      : "";
    const actions = first.action === rule.action
      ? `Both say "${rule.action}"; identical matches conflict even when the actions agree.`
      : `They say "${first.action}" and "${rule.action}", and neither is more specific.`;
    diagnostics.push(diag(
      "error",
      "E_POLICY_CONFLICT",
      `Conflicting policies "${first.name}" and "${rule.name}"`,
      `Policy "${rule.name}" has the same match as policy "${first.name}"${where}: ${
        formatPolicyMatch(rule.match)
      }. ${actions} Remove one of them, or add a field to one so that the more specific rule wins.`,
      rule.range,
    ));
  }
  return diagnostics;
}

function matchKey(value: string | undefined): string {
  return value === undefined ? "-" : `${value.length}:${value}`;
}

/**
 * Warns about rules with an empty `match = {}`: legal, but it applies to
 * every call (`W_POLICY_EMPTY_MATCH`).
 *
 * @example Usage
 * ```ts
 * import { emptyMatchWarnings } from "./policy_checks.ts";
 * import assert from "node:assert/strict";
 *
 * const [w] = emptyMatchWarnings([{ name: "all", match: {}, action: "ask" }]);
 * assert.equal(w?.severity, "warning");
 * ```
 *
 * @param rules The rules in declaration order.
 * @returns One warning per rule with an empty match.
 */
export function emptyMatchWarnings(rules: readonly PolicyRule[]): Diagnostic[] {
  return rules.filter((r) =>
    r.match.command === undefined && !specificity(r.match).includes(true)
  ).map((r) =>
    diag(
      "warning",
      "W_POLICY_EMPTY_MATCH",
      `Policy "${r.name}" matches every call`,
      `Its match is empty, so it decides "${r.action}" for every call that no more specific rule covers. If that is intended, nothing needs to change; otherwise add command, tool_name, provider, risk or kind.`,
      r.range,
    )
  );
}

function where(rule: PolicyRule): string {
  return rule.range
    ? ` (${rule.range.file}:${rule.range.start.line}:${rule.range.start.column})`
    : "";
}

/**
 * Warns about each `allow` rule that overrides a `deny` rule with a
 * `command` for some command lines (`W_POLICY_ALLOW_SHADOWS_DENY`): the
 * allow is strictly narrower on the deny's keys
 * ({@linkcode isNarrowerMatch}), so it wins where both match (config.md
 * §6.4), e.g. `{ command = "rm -i *" }` (allow) against
 * `{ command = "rm *" }` (deny). The warning points at the allow rule and
 * names both rules with their `file:line:col`. An allow that is not
 * narrower never overrides the deny, and gets no warning.
 *
 * @example Usage
 * ```ts
 * import { shadowedDenyWarnings } from "./policy_checks.ts";
 * import assert from "node:assert/strict";
 *
 * const [w] = shadowedDenyWarnings([
 *   { name: "no_rm", match: { command: "rm *" }, action: "deny" },
 *   { name: "rm_i", match: { command: "rm -i *" }, action: "allow" },
 * ]);
 * assert.equal(w?.code, "W_POLICY_ALLOW_SHADOWS_DENY");
 * assert.deepEqual(shadowedDenyWarnings([
 *   { name: "no_rm", match: { command: "rm *" }, action: "deny" },
 *   { name: "quiet", match: { command: "> /dev/null" }, action: "allow" },
 * ]), []);
 * ```
 *
 * @param rules The rules in declaration order.
 * @returns One warning per (allow, deny) pair, in the allow rules' order.
 */
export function shadowedDenyWarnings(
  rules: readonly PolicyRule[],
): Diagnostic[] {
  const denies = rules.filter((r) =>
    r.action === "deny" && r.match.command !== undefined
  );
  const out: Diagnostic[] = [];
  for (const allow of rules) {
    if (allow.action !== "allow") continue;
    for (const deny of denies) {
      if (!isNarrowerMatch(allow.match, deny.match)) continue;
      out.push(diag(
        "warning",
        "W_POLICY_ALLOW_SHADOWS_DENY",
        `Policy "${allow.name}" allows commands that policy "${deny.name}" denies`,
        `Policy "${allow.name}"${where(allow)} ${
          formatPolicyMatch(allow.match)
        } is narrower than policy "${deny.name}"${where(deny)} ${
          formatPolicyMatch(deny.match)
        }, so it overrides that deny for every command segment it matches (${
          JSON.stringify(allow.match.command)
        }). If that exception is intended, nothing needs to change; otherwise remove "${allow.name}" or narrow it so that it no longer matches what "${deny.name}" denies.`,
        allow.range,
      ));
    }
  }
  return out;
}

/**
 * Runs every load-time check over the rules, in a stable order: duplicate
 * names (`E_DUPLICATE_BLOCK`: names identify rules in diagnostics and in
 * `decided_by`), then {@linkcode detectConflicts}, then
 * {@linkcode emptyMatchWarnings}, then {@linkcode shadowedDenyWarnings}.
 *
 * @example Usage
 * ```ts
 * import { checkPolicies } from "./policy_checks.ts";
 * import assert from "node:assert/strict";
 *
 * const codes = checkPolicies([
 *   { name: "all", match: {}, action: "allow" },
 *   { name: "all", match: { kind: "resource" }, action: "ask" },
 * ]).map((d) => d.code);
 * assert.deepEqual(codes, ["E_DUPLICATE_BLOCK", "W_POLICY_EMPTY_MATCH"]);
 * ```
 *
 * @param rules The rules in declaration order.
 * @returns Errors first, then warnings.
 */
export function checkPolicies(rules: readonly PolicyRule[]): Diagnostic[] {
  const seen = new Map<string, PolicyRule>();
  const duplicates: Diagnostic[] = [];
  for (const rule of rules) {
    const first = seen.get(rule.name);
    if (first === undefined) {
      seen.set(rule.name, rule);
      continue;
    }
    const where = first.range
      ? ` at ${first.range.file}:${first.range.start.line}:${first.range.start.column}`
      : "";
    duplicates.push(diag(
      "error",
      "E_DUPLICATE_BLOCK",
      `Duplicate policy "${rule.name}"`,
      `A policy named "${rule.name}" is already declared${where}. Policy names identify the deciding rule in approvals and logs; give each policy its own name.`,
      rule.range,
    ));
  }
  return [
    ...duplicates,
    ...detectConflicts(rules),
    ...emptyMatchWarnings(rules),
    ...shadowedDenyWarnings(rules),
  ];
}
