/**
 * The policy DSL (config.md §6): `policy "<name>" { match = {...} action =
 * "..." }` rules, their specificity, load-time conflict detection, the
 * empty-match warning, and the evaluation function the kernel runs for every
 * call and plan item.
 *
 * Everything here is pure. The block decoder turns HCL into raw values and
 * calls {@linkcode normalizePolicy} and {@linkcode checkPolicies}; the kernel
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
 * import { checkPolicies, evaluatePolicy, type PolicyRule } from "./policy.ts";
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
import { type Diagnostic, didYouMean, type SourceRange } from "./diagnostic.ts";
import { type CommandSegment, parseShellCommand } from "./shell_command.ts";

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
 * The specificity tuple: does the rule specify (`tool_name`, `provider`,
 * `risk`, `kind`)? Compared lexicographically, `true` above `false`.
 */
export type Specificity = readonly [
  toolName: boolean,
  provider: boolean,
  risk: boolean,
  kind: boolean,
];

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

const MATCH_KEYS = [
  "command",
  "tool_name",
  "provider",
  "risk",
  "kind",
] as const;
type MatchKey = typeof MATCH_KEYS[number];
const FIELD_OF: Readonly<Record<MatchKey, keyof PolicyMatch>> = {
  command: "command",
  tool_name: "toolName",
  provider: "provider",
  risk: "risk",
  kind: "kind",
};

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
 * import { normalizePolicy } from "./policy.ts";
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
  const diagnostics: Diagnostic[] = [];
  const push = (
    code: string,
    summary: string,
    detail: string,
    range: SourceRange | undefined,
  ) => diagnostics.push(diag("error", code, summary, detail, range));
  const matchRange = ranges.match ?? ranges.block;
  const match: PolicyMatch = {};
  const warnings: Diagnostic[] = [];
  const m = raw.match;
  if (typeof m !== "object" || m === null || Array.isArray(m)) {
    push(
      "E_INVALID_VALUE",
      `Invalid match in policy "${name}"`,
      `The match must be an object such as { tool_name = "write_file" }, got ${
        typeName(m)
      }.`,
      matchRange,
    );
  } else {
    for (const [key, value] of Object.entries(m)) {
      const range = ranges.matchKeys?.[key] ?? matchRange;
      if (!isMatchKey(key)) {
        const hint = didYouMean(key, MATCH_KEYS);
        push(
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
        push(
          "E_INVALID_VALUE",
          `Invalid ${key} in policy "${name}" match`,
          `Expected a string, got ${typeName(value)}.`,
          range,
        );
        continue;
      }
      if (key === "command") {
        const check = checkCommandPattern(value);
        if ("error" in check) {
          push(
            "E_POLICY_COMMAND",
            `Invalid command pattern in policy "${name}" match`,
            `${check.error} (pattern ${JSON.stringify(value)}).`,
            range,
          );
          continue;
        }
        // Only quoting and spacing are worth a warning: a glob next to an
        // operator (`*> /dev/null`) reads differently once filled in.
        if (check.normalized !== value && /["'\\\t]| {2}/.test(value)) {
          warnings.push(diag(
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
          push(
            "E_INVALID_VALUE",
            `Invalid risk in policy "${name}" match`,
            domainDetail(value, RISK_CLASSES),
            range,
          );
          continue;
        }
        match.risk = value;
      } else if (key === "kind") {
        if (!isOneOf(value, POLICY_MATCH_KINDS)) {
          push(
            "E_INVALID_VALUE",
            `Invalid kind in policy "${name}" match`,
            value === "interactive"
              ? 'A match cannot name kind "interactive": rules with a kind never apply to interactive calls. Target them with tool_name, provider or risk instead.'
              : domainDetail(value, POLICY_MATCH_KINDS),
            range,
          );
          continue;
        }
        match.kind = value;
      } else {
        match[FIELD_OF[key] as "toolName" | "provider"] = value;
      }
    }
  }
  const a = raw.action;
  let action: PolicyAction | undefined;
  if (typeof a !== "string" || !isOneOf(a, POLICY_ACTIONS)) {
    push(
      "E_INVALID_VALUE",
      `Invalid action in policy "${name}"`,
      typeof a === "string"
        ? domainDetail(a, POLICY_ACTIONS)
        : `Expected a string, got ${typeName(a)}.`,
      ranges.action ?? ranges.block,
    );
  } else {
    action = a;
  }
  if (diagnostics.length > 0 || action === undefined) {
    return { rule: undefined, diagnostics };
  }
  const rule: PolicyRule = { name, match, action };
  if (ranges.block !== undefined) rule.range = ranges.block;
  return { rule, diagnostics: warnings };
}

/** What {@linkcode checkCommandPattern} finds. */
export type CommandPatternCheck =
  | { normalized: string }
  | { error: string };

// Placeholders for `*` and `?`: the blanks keep a quoted glob quoted in the
// normalized form, and vanish into single spaces elsewhere.
const STAR_PLACEHOLDER = "Zq9 STAR Zq9";
const QMARK_PLACEHOLDER = "Zq9 QMARK Zq9";

/**
 * Checks a `command` pattern: it must be non-empty, hold no line break and
 * no leading or trailing blank, and read as exactly one simple command once
 * its globs are filled in (a pattern such as `git status && rm *` can never
 * match one segment). Returns the pattern in normalized form, which is what
 * segments are matched in (the caller warns when it differs).
 *
 * @example Usage
 * ```ts
 * import { checkCommandPattern } from "./policy.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(checkCommandPattern("git status*"), { normalized: "git status*" });
 * assert.deepEqual(checkCommandPattern('git commit -m "wip*"'), { normalized: "git commit -m 'wip*'" });
 * assert.ok("error" in checkCommandPattern("ls && rm *"));
 * ```
 *
 * @param pattern The pattern as written.
 * @returns The normalized pattern, or why it can never match.
 */
export function checkCommandPattern(pattern: string): CommandPatternCheck {
  if (pattern.trim() === "") return { error: "The pattern is empty" };
  if (/[\r\n]/.test(pattern)) {
    return {
      error: "The pattern holds a line break, which never occurs in a segment",
    };
  }
  if (pattern !== pattern.trim()) {
    return {
      error:
        "The pattern starts or ends with a blank, which never occurs in a segment",
    };
  }
  if (/(^|[^\\])(\\\\)*\\$/.test(pattern)) {
    return { error: "The pattern ends with a lone backslash" };
  }
  // Fill the globs with a placeholder word, parse, and check the shape.
  const filled = pattern.replace(
    /\\(.)|([*?])/g,
    (_, escaped: string | undefined, glob: string | undefined) =>
      escaped !== undefined
        ? `\\${escaped}`
        : glob === "*"
        ? STAR_PLACEHOLDER
        : QMARK_PLACEHOLDER,
  );
  const parsed = parseShellCommand(filled);
  if (!parsed.ok) {
    return {
      error: `The pattern does not read as a command: ${parsed.reason}`,
    };
  }
  const unfill = (text: string) =>
    text.replaceAll(STAR_PLACEHOLDER, "*").replaceAll(QMARK_PLACEHOLDER, "?");
  const top = parsed.segments.filter((s) => s.via.length === 0);
  if (top.length !== 1) {
    return {
      error: top.length === 0
        ? "The pattern holds no command"
        : `The pattern spans ${top.length} commands (${
          top.map((s) => JSON.stringify(unfill(s.text))).join(", ")
        }), but it is matched against one segment at a time; write one rule per command`,
    };
  }
  if (filled.includes("\\")) return { normalized: pattern }; // escapes: as written
  return { normalized: unfill(top[0]!.text) };
}

type GlobToken = "*" | "?" | { readonly lit: string };

const GLOB_CACHE = new Map<string, readonly GlobToken[]>();

function globTokens(pattern: string): readonly GlobToken[] {
  let tokens = GLOB_CACHE.get(pattern);
  if (tokens === undefined) {
    const out: GlobToken[] = [];
    const chars = Array.from(pattern);
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      if (c === "\\" && i + 1 < chars.length) out.push({ lit: chars[++i]! });
      else if (c === "*") {
        if (out.at(-1) !== "*") out.push("*");
      } else if (c === "?") out.push("?");
      else out.push({ lit: c });
    }
    tokens = out;
    if (GLOB_CACHE.size > 1000) GLOB_CACHE.clear();
    GLOB_CACHE.set(pattern, tokens);
  }
  return tokens;
}

/**
 * Matches a `command` glob against a segment's normalized text: `*` any
 * text (spaces and slashes included), `?` one character, `\x` the
 * character x; the whole text must match. Linear in the text per star
 * (no regular expression, so no catastrophic backtracking on long,
 * model-written command lines).
 *
 * @example Usage
 * ```ts
 * import { matchesCommandPattern } from "./policy.ts";
 * import assert from "node:assert/strict";
 *
 * assert.ok(matchesCommandPattern("git status*", "git status --short"));
 * assert.ok(!matchesCommandPattern("git status", "git status --short"));
 * assert.ok(!matchesCommandPattern("git *", "sudo git push"));
 * ```
 *
 * @param pattern The glob.
 * @param text A segment's normalized text.
 * @returns Whether the whole text matches.
 */
export function matchesCommandPattern(pattern: string, text: string): boolean {
  const tokens = globTokens(pattern);
  const chars = Array.from(text);
  let p = 0;
  let t = 0;
  let starP = -1;
  let starT = 0;
  while (t < chars.length) {
    const tok = tokens[p];
    if (tok === "?" || (typeof tok === "object" && tok.lit === chars[t])) {
      p++;
      t++;
    } else if (tok === "*") {
      starP = p++;
      starT = t;
    } else if (starP >= 0) {
      p = starP + 1;
      t = ++starT;
    } else return false;
  }
  while (tokens[p] === "*") p++;
  return p === tokens.length;
}

/** Characters of a glob that are not `*` or `?` (an escape counts once). */
function literalLength(pattern: string): number {
  let n = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") {
      i++;
      n++;
    } else if (c !== "*" && c !== "?") n++;
  }
  return n;
}

/**
 * The specificity tuple of a match (config.md §6.3). A `command` is not
 * part of the tuple (which plans show as written in config.md); it ranks
 * above it, see {@linkcode compareSpecificity}.
 *
 * @example Usage
 * ```ts
 * import { specificity } from "./policy.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(specificity({ provider: "fs", kind: "resource" }), [false, true, false, true]);
 * ```
 *
 * @param match A rule's match.
 * @returns Which of `tool_name`, `provider`, `risk`, `kind` it specifies.
 */
export function specificity(match: PolicyMatch): Specificity {
  return [
    match.toolName !== undefined,
    match.provider !== undefined,
    match.risk !== undefined,
    match.kind !== undefined,
  ];
}

/**
 * Orders two matches by specificity: a match with a `command` outranks one
 * without, and of two with a command the pattern with more literal
 * characters (not `*` or `?`) outranks the other (`rm *` above `*`); then
 * lexicographic over the tuple, with `true` above `false`. A `tool_name`
 * rule therefore outranks a `provider + risk + kind` rule.
 *
 * @example Usage
 * ```ts
 * import { compareSpecificity } from "./policy.ts";
 * import assert from "node:assert/strict";
 *
 * assert.ok(compareSpecificity({ toolName: "x" }, { provider: "fs", risk: "high", kind: "resource" }) > 0);
 * assert.equal(compareSpecificity({ risk: "low" }, { risk: "high" }), 0);
 * ```
 *
 * @param a One match.
 * @param b Another.
 * @returns Positive when `a` is more specific, negative when `b` is, else 0.
 */
export function compareSpecificity(a: PolicyMatch, b: PolicyMatch): number {
  const ca = a.command !== undefined;
  if (ca !== (b.command !== undefined)) return ca ? 1 : -1;
  if (ca) {
    const la = literalLength(a.command!);
    const lb = literalLength(b.command!);
    if (la !== lb) return la > lb ? 1 : -1;
  }
  const sa = specificity(a);
  const sb = specificity(b);
  for (let i = 0; i < sa.length; i++) {
    if (sa[i] !== sb[i]) return sa[i] ? 1 : -1;
  }
  return 0;
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
 * declared). A winning `ask` on a data-source or interactive call becomes
 * `deny` with `downgraded` set, so that it stays distinguishable from a
 * plain `deny`.
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

function decide(
  rules: readonly PolicyRule[],
  call: PolicyCall,
  segment?: string,
): PolicyDecision {
  let winner: PolicyRule | undefined;
  for (const rule of rules) {
    if (!matchesCall(rule.match, call, segment)) continue;
    if (winner === undefined) {
      winner = rule;
      continue;
    }
    const rank = compareSpecificity(rule.match, winner.match);
    if (
      rank > 0 ||
      (rank === 0 && rule.match.command !== undefined &&
        SEVERITY[rule.action] > SEVERITY[winner.action])
    ) {
      winner = rule;
    }
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
 * Finds conflicting rules (config.md §6.5): two rules conflict when their
 * match objects are identical (same fields, same values), whatever their
 * actions. Each later rule that repeats an earlier match gets one error
 * (`E_POLICY_CONFLICT`) that names both rules and points at the later one.
 * Rules with different specificity tuples never conflict, even when both can
 * match the same call: specificity decides.
 *
 * @example Usage
 * ```ts
 * import { detectConflicts, type PolicyRule } from "./policy.ts";
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
    const key = JSON.stringify(
      [
        rule.match.command,
        rule.match.toolName,
        rule.match.provider,
        rule.match.risk,
        rule.match.kind,
      ]
        .map((v) => v ?? null),
    );
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

/**
 * Warns about rules with an empty `match = {}`: legal, but it applies to
 * every call (`W_POLICY_EMPTY_MATCH`).
 *
 * @example Usage
 * ```ts
 * import { emptyMatchWarnings } from "./policy.ts";
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

/**
 * Runs every load-time check over the rules, in a stable order: duplicate
 * names (`E_DUPLICATE_BLOCK`: names identify rules in diagnostics and in
 * `decided_by`), then {@linkcode detectConflicts}, then
 * {@linkcode emptyMatchWarnings}.
 *
 * @example Usage
 * ```ts
 * import { checkPolicies } from "./policy.ts";
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
  ];
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

function isMatchKey(key: string): key is MatchKey {
  return (MATCH_KEYS as readonly string[]).includes(key);
}

function isOneOf<T extends string>(
  value: string,
  domain: readonly T[],
): value is T {
  return (domain as readonly string[]).includes(value);
}

function domainDetail(value: string, domain: readonly string[]): string {
  const hint = didYouMean(value, domain);
  return `${JSON.stringify(value)} is not one of ${
    domain.map((d) => `"${d}"`).join(", ")
  }.${hint ? ` Did you mean "${hint}"?` : ""}`;
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

function diag(
  severity: Diagnostic["severity"],
  code: string,
  summary: string,
  detail: string,
  range: SourceRange | undefined,
): Diagnostic {
  const d: Diagnostic = { severity, code, summary, detail };
  if (range !== undefined) d.range = range;
  return d;
}
