/**
 * The policy DSL (config.md §6): the vocabulary of `policy "<name>" { match
 * = {...} action = "..." }` rules and the evaluation function the kernel
 * runs for every call and plan item. Beside it: `policy_normalize.ts` (a
 * block to a rule), `policy_specificity.ts` (which rule wins),
 * `policy_checks.ts` (load-time conflict and empty-match checks) and
 * `command_pattern.ts` (the `command` glob).
 *
 * Everything here is pure. The block decoder turns HCL into raw values and
 * calls `normalizePolicy` and `checkPolicies`; the kernel
 * calls {@linkcode evaluatePolicy}.
 *
 * Extension (config.md §6 is silent on it): a `command` key in `match` holds
 * a glob (`*` any text, `?` one character, `\` escapes) over one *segment*
 * of a shell command line. A call whose arguments hold a string `command`
 * is judged per segment (see {@linkcode evaluatePolicy}); the segments come
 * from {@linkcode parseShellCommand}. A `command` rule is the most specific
 * kind of rule and never applies to a call without a command.
 *
 * @example Rules, checks and a decision
 * ```ts
 * import { evaluatePolicy, type PolicyRule } from "./policy.ts";
 * import { checkPolicies } from "./policy_checks.ts";
 * import assert from "node:assert/strict";
 *
 * const rules: PolicyRule[] = [
 *   { name: "reads_ok", match: { kind: "data_source" }, action: "allow" },
 *   { name: "never_delete", match: { toolName: "delete_tree" }, action: "deny" },
 * ];
 * assert.deepEqual(checkPolicies(rules), []);
 * assert.deepEqual(
 *   evaluatePolicy(rules, { kind: "resource", provider: "fs", toolName: "delete_tree", risk: "critical" }),
 *   { action: "deny", decidedBy: "never_delete", downgraded: false },
 * );
 * ```
 *
 * @module
 */
import type { SourceRange } from "./diagnostic.ts";
import { type CommandSegment, parseShellCommand } from "./shell_command.ts";
import { matchesCommandPattern } from "./command_pattern.ts";
import { compareSpecificity, isNarrowerMatch } from "./policy_specificity.ts";
import { FIELD_OF, MATCH_KEYS } from "./_policy_syntax.ts";

/** What a rule decides. */
export type PolicyAction = "allow" | "ask" | "deny";

/** Every policy action. */
export const POLICY_ACTIONS: readonly PolicyAction[] = ["allow", "ask", "deny"];

/** An operation's declared blast radius (`RiskClass` on the wire). */
export type RiskClass = "read_only" | "low" | "moderate" | "high" | "critical";

/** Every risk class, from least to most risky. */
export const RISK_CLASSES: readonly RiskClass[] = [
  "read_only",
  "low",
  "moderate",
  "high",
  "critical",
];

/** How a call passes the plan/apply gate (`ToolKind` on the wire). */
export type ToolKind = "resource" | "data_source" | "interactive";

/**
 * The kinds a rule may match on. `interactive` is deliberately absent (a
 * documented v1 limitation): interactive calls are targeted through
 * `tool_name`, `provider` or `risk`.
 */
export type PolicyMatchKind = "resource" | "data_source";

/** The kinds a rule may match on. */
export const POLICY_MATCH_KINDS: readonly PolicyMatchKind[] = [
  "resource",
  "data_source",
];

/**
 * A rule's `match` object. An absent field matches anything; a present one
 * must equal the call's value (an empty string is a value, not "absent").
 */
export interface PolicyMatch {
  /**
   * `command`: a glob over one normalized segment of the call's `command`
   * argument (`git status*`). Outranks every other field.
   */
  command?: string;
  /** `tool_name`: the call's bare operation name (no `provider.` prefix). */
  toolName?: string;
  /** `provider`: the call's provider local name. */
  provider?: string;
  /** `risk`: the operation's declared risk class. */
  risk?: RiskClass;
  /** `kind`: the call's kind; never matches an interactive call. */
  kind?: PolicyMatchKind;
}

/** One `policy` block, normalised. */
export interface PolicyRule {
  /** The block's label; unique among the rules. */
  name: string;
  /** What the rule applies to. */
  match: PolicyMatch;
  /** What it decides when it wins. */
  action: PolicyAction;
  /** Where the block is (diagnostics point here). */
  range?: SourceRange;
}

/** What {@linkcode evaluatePolicy} decides about. */
export interface PolicyCall {
  /** The call's kind. */
  kind: ToolKind;
  /** The provider's local name. */
  provider: string;
  /** The bare operation (or `direct_invoke` command) name. */
  toolName: string;
  /** The operation's declared risk class. */
  risk: RiskClass;
  /**
   * The call's `command` argument, when it has a string one (e.g.
   * `exec.bash`): the call is then judged per segment of the command line.
   */
  command?: string;
}

/**
 * The shell command a call's arguments carry: a string `command` argument
 * (what `command` rules judge, segment by segment), else `undefined`.
 *
 * @param args The call's arguments.
 * @returns The command line, if any.
 */
export function commandArgument(
  args: Readonly<Record<string, unknown>> | undefined,
): string | undefined {
  const c = args?.command;
  return typeof c === "string" ? c : undefined;
}

/** The outcome of {@linkcode evaluatePolicy}. */
export interface PolicyDecision {
  /** `ask` only ever for resource calls. */
  action: PolicyAction;
  /**
   * The winning rule's name, or `""` when no rule matched (a default). For
   * a call with a command: `<rule or "default"> (segment "<text>")` naming
   * the segment that decided, or `unparseable command (<reason>)`.
   */
  decidedBy: string;
  /**
   * `true` when the winner said `ask` on a data-source or interactive call
   * and the answer became `deny`; the caller must log a warning naming the
   * rule and the call kind.
   */
  downgraded: boolean;
  /** For a call with a command: the normalized text of the deciding segment. */
  segment?: string;
  /** For a call with a command that cannot be parsed: why. */
  unparseable?: string;
}

/**
 * Tells whether a rule's match applies to a call: every specified field
 * equals the call's value, and a rule that specifies `kind` never applies to
 * an interactive call. A rule with a `command` applies only to a segment:
 * pass the segment's normalized text; without one it never applies.
 *
 * @example Usage
 * ```ts
 * import { matchesCall } from "./policy.ts";
 * import assert from "node:assert/strict";
 *
 * const ask = { kind: "interactive", provider: "ui", toolName: "ask_user", risk: "read_only" } as const;
 * assert.ok(matchesCall({ provider: "ui" }, ask));
 * assert.ok(!matchesCall({ kind: "data_source" }, ask));
 * ```
 *
 * @param match A rule's match.
 * @param call The call.
 * @param segment The normalized text of the segment being judged, if any.
 * @returns `true` when the rule is a candidate for the call.
 */
export function matchesCall(
  match: PolicyMatch,
  call: PolicyCall,
  segment?: string,
): boolean {
  if (match.command !== undefined) {
    if (
      segment === undefined || !matchesCommandPattern(match.command, segment)
    ) {
      return false;
    }
  }
  if (match.kind !== undefined) {
    if (call.kind === "interactive" || match.kind !== call.kind) return false;
  }
  return (match.toolName === undefined || match.toolName === call.toolName) &&
    (match.provider === undefined || match.provider === call.provider) &&
    (match.risk === undefined || match.risk === call.risk);
}

/**
 * Decides a call (config.md §6.4): the candidates are the rules whose match
 * applies; with none, data-source and interactive calls are allowed and
 * resource calls need approval (`ask`); otherwise the most specific
 * candidate wins (on a tie, which load validation rules out, the first
 * declared), except that a `deny` candidate is set aside only by a winner
 * strictly narrower on the deny's own keys ({@linkcode isNarrowerMatch}):
 * when the winner does not narrow every `deny` candidate, the most specific
 * of those it does not narrow decides. So `{ tool_name = "x" }` (allow)
 * does not override `{ risk = "critical" }` (deny), while
 * `{ risk = "critical", tool_name = "x" }` does. A winning `ask` on a
 * data-source or interactive call becomes `deny` with `downgraded` set, so
 * that it stays distinguishable from a plain `deny`.
 *
 * A call with a string `command` is judged per segment
 * ({@linkcode parseShellCommand}): each segment is decided as above with
 * the `command` rules that match it as candidates too (of two `command`
 * candidates of equal rank, the stricter action wins), and the call gets
 * the worst decision (deny > ask > allow; the first such segment names it
 * in `decidedBy` and `segment`). A command that cannot be parsed is the
 * highest risk: no `command` rule applies, and the call gets at least
 * `ask` (a data-source call: `deny`), or `deny` when the other rules say
 * so. An empty command line is judged without `command` rules.
 *
 * @example Usage
 * ```ts
 * import { evaluatePolicy, type PolicyRule } from "./policy.ts";
 * import assert from "node:assert/strict";
 *
 * const rules: PolicyRule[] = [{ name: "ask_reads", match: { kind: "data_source" }, action: "ask" }];
 * const search = { kind: "data_source", provider: "grep", toolName: "search", risk: "read_only" } as const;
 * assert.deepEqual(evaluatePolicy(rules, search), { action: "deny", decidedBy: "ask_reads", downgraded: true });
 * assert.deepEqual(evaluatePolicy([], search), { action: "allow", decidedBy: "", downgraded: false });
 * ```
 *
 * @param rules The rules in declaration order.
 * @param call The call or plan item.
 * @returns The action, the deciding rule and whether `ask` was downgraded.
 */
export function evaluatePolicy(
  rules: readonly PolicyRule[],
  call: PolicyCall,
): PolicyDecision {
  if (typeof call.command !== "string") return decide(rules, call);
  const parsed = parseShellCommand(call.command);
  if (!parsed.ok) {
    const base = decide(rules, call);
    const decidedBy = `unparseable command (${parsed.reason})`;
    if (base.action === "deny") {
      return { ...base, unparseable: parsed.reason };
    }
    return {
      action: call.kind === "resource" ? "ask" : "deny",
      decidedBy,
      downgraded: false,
      unparseable: parsed.reason,
    };
  }
  return worstSegment(rules, call, parsed.segments);
}

const SEVERITY: Readonly<Record<PolicyAction, number>> = {
  allow: 0,
  ask: 1,
  deny: 2,
};

function worstSegment(
  rules: readonly PolicyRule[],
  call: PolicyCall,
  segments: readonly CommandSegment[],
): PolicyDecision {
  let worst: PolicyDecision | undefined;
  for (const s of segments) {
    const d = decide(rules, call, s.text);
    if (worst === undefined || SEVERITY[d.action] > SEVERITY[worst.action]) {
      worst = {
        ...d,
        decidedBy: `${d.decidedBy || "default"} (segment ${
          JSON.stringify(s.text)
        })`,
        segment: s.text,
      };
    }
  }
  return worst ?? decide(rules, call);
}

// Whether `rule` beats the current `winner` on specificity (of two
// `command` rules of equal rank, the stricter action).
function outranks(rule: PolicyRule, winner: PolicyRule): boolean {
  const rank = compareSpecificity(rule.match, winner.match);
  return rank > 0 ||
    (rank === 0 && rule.match.command !== undefined &&
      SEVERITY[rule.action] > SEVERITY[winner.action]);
}

function decide(
  rules: readonly PolicyRule[],
  call: PolicyCall,
  segment?: string,
): PolicyDecision {
  let winner: PolicyRule | undefined;
  const denies: PolicyRule[] = [];
  for (const rule of rules) {
    if (!matchesCall(rule.match, call, segment)) continue;
    if (rule.action === "deny") denies.push(rule);
    if (winner === undefined) {
      winner = rule;
      continue;
    }
    if (outranks(rule, winner)) winner = rule;
  }
  // A deny candidate is set aside only by a winner strictly narrower on
  // the deny's own keys; otherwise the most specific such deny decides.
  if (winner !== undefined && winner.action !== "deny") {
    let blocker: PolicyRule | undefined;
    for (const deny of denies) {
      if (isNarrowerMatch(winner.match, deny.match)) continue;
      if (blocker === undefined || outranks(deny, blocker)) blocker = deny;
    }
    if (blocker !== undefined) winner = blocker;
  }
  const readLike = call.kind !== "resource";
  if (winner === undefined) {
    return {
      action: readLike ? "allow" : "ask",
      decidedBy: "",
      downgraded: false,
    };
  }
  if (readLike && winner.action === "ask") {
    return { action: "deny", decidedBy: winner.name, downgraded: true };
  }
  return { action: winner.action, decidedBy: winner.name, downgraded: false };
}

/**
 * Writes a match the way it looks in `agent.hcl`, fields in specificity
 * order (`command` first): `{ tool_name = "write_file", kind = "resource" }`.
 *
 * @example Usage
 * ```ts
 * import { formatPolicyMatch } from "./policy.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(formatPolicyMatch({ kind: "resource", provider: "fs" }), '{ provider = "fs", kind = "resource" }');
 * assert.equal(formatPolicyMatch({}), "{}");
 * ```
 *
 * @param match A rule's match.
 * @returns HCL object syntax.
 */
export function formatPolicyMatch(match: PolicyMatch): string {
  const items = MATCH_KEYS.flatMap((key) => {
    const value = match[FIELD_OF[key]];
    return value === undefined ? [] : [`${key} = ${JSON.stringify(value)}`];
  });
  return items.length === 0 ? "{}" : `{ ${items.join(", ")} }`;
}
