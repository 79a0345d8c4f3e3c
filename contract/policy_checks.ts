/**
 * The load-time checks over a set of policy rules (config.md §6.5):
 * duplicate names, conflicting (identical) matches, the empty-match
 * warning and the warning for an allow rule that overrides a `command`
 * deny, run together by {@linkcode checkPolicies}.
 *
 * @module
 */
import type { Diagnostic } from "./diagnostic.ts";
import { literalAffixes } from "./command_pattern.ts";
import {
  formatPolicyMatch,
  type PolicyMatch,
  type PolicyRule,
} from "./policy.ts";
import { isNarrowerMatch } from "./policy_specificity.ts";
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
  // The first rule of each match, by the set of fields it sets (a bit
  // each), then by their values: the value itself when one field is set
  // (most rules: no new string to make and hash), else the length-prefixed
  // values, unambiguous, and no escaping pass over a long value
  // (JSON.stringify of a 5 MB tool_name cost a quarter second).
  const firstByMatch = new Map<number, Map<string, PolicyRule>>();
  const diagnostics: Diagnostic[] = [];
  for (const rule of rules) {
    const m = rule.match;
    let fields = 0;
    let only = "";
    let count = 0;
    for (let f = 0; f < MATCH_FIELDS.length; f++) {
      const v = m[MATCH_FIELDS[f]!];
      if (v === undefined) continue;
      fields |= 1 << f;
      only = v;
      count++;
    }
    const key = count === 1 ? only : matchKey(m.command) +
      matchKey(m.toolName) + matchKey(m.provider) + matchKey(m.risk) +
      matchKey(m.kind);
    let byKey = firstByMatch.get(fields);
    if (byKey === undefined) {
      byKey = new Map();
      firstByMatch.set(fields, byKey);
    }
    const first = byKey.get(key);
    if (first === undefined) {
      byKey.set(key, rule);
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

const MATCH_FIELDS = [
  "command",
  "toolName",
  "provider",
  "risk",
  "kind",
] as const;

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
  // Every field unset (the specificity tuple all false, without a tuple
  // per rule).
  return rules.filter((r) =>
    MATCH_FIELDS.every((f) => r.match[f] === undefined)
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
 * How many `W_POLICY_ALLOW_SHADOWS_DENY` warnings
 * {@linkcode shadowedDenyWarnings} gives one by one, by default; the
 * pairs past them are counted in one more warning.
 */
export const MAX_SHADOW_WARNINGS = 100;

/**
 * How many (allow, deny) pairs {@linkcode shadowedDenyWarnings} examines at
 * most, by default, after its index has set aside the pairs that cannot
 * be narrower. Realistic policy sets stay far below it; a hostile one gets
 * a warning that the check stopped.
 */
export const MAX_SHADOW_COMPARISONS = 200_000;

/** Options for {@linkcode shadowedDenyWarnings}. */
export interface ShadowedDenyOptions {
  /**
   * Give at most this many pair warnings; one more warning counts the rest.
   * @default {MAX_SHADOW_WARNINGS}
   */
  maxWarnings?: number;
  /**
   * Examine at most this many candidate pairs; past it, one warning says the
   * check stopped and how many pairs it found.
   * @default {MAX_SHADOW_COMPARISONS}
   */
  maxComparisons?: number;
  /**
   * The narrowing relation (tests pass a counting wrapper).
   * @default {isNarrowerMatch}
   */
  isNarrower?: (narrow: PolicyMatch, broad: PolicyMatch) => boolean;
}

const KEY_FIELDS = ["toolName", "provider", "risk", "kind"] as const;

/** What {@linkcode keysOf} gives for a match that sets none of them. */
const NO_KEYS = "-".repeat(KEY_FIELDS.length);

function keysOf(match: PolicyMatch, fields: number): string {
  if (fields === 0) return NO_KEYS; // most rules: no string to build
  let key = "";
  for (let f = 0; f < KEY_FIELDS.length; f++) {
    key += (fields & (1 << f)) !== 0 ? matchKey(match[KEY_FIELDS[f]!]) : "-";
  }
  return key;
}

// Anchors longer than this are indexed by their first (last) ANCHOR_KEY
// code units and checked in full with startsWith (endsWith).
const ANCHOR_KEY = 16;

interface DenyEntry {
  readonly index: number;
  readonly rule: PolicyRule;
  readonly prefix: string;
  readonly suffix: string;
}

/** The command denies of one key bucket, indexed by literal anchor. */
interface DenyBucket {
  /**
   * By anchor length, then by {@linkcode anchorHash} of the anchor: an
   * allow looks up numbers, not a new slice of its own anchor per length
   * (a hash shared by chance only adds candidates, which the prefix and
   * suffix check sets aside).
   */
  readonly byPrefix: Map<number, Map<number, DenyEntry[]>>;
  readonly bySuffix: Map<number, Map<number, DenyEntry[]>>;
  readonly floating: DenyEntry[];
  /** The lengths of the keys of `byPrefix` (`bySuffix`), ascending. */
  prefixLengths: number[];
  suffixLengths: number[];
}

function keyLengths(map: Map<number, unknown>): number[] {
  return [...map.keys()].sort((a, b) => a - b);
}

/**
 * A hash of `text`'s first `n` code units (`fromEnd`: its last `n`, read
 * backwards), continuing `h`, the hash of the ones before them from
 * `from`: anchors of growing length hash one code unit at a time.
 */
function anchorHash(
  text: string,
  fromEnd: boolean,
  h: number,
  from: number,
  n: number,
): number {
  for (let i = from; i < n; i++) {
    const c = text.charCodeAt(fromEnd ? text.length - 1 - i : i);
    h = (Math.imul(h, 31) + c) | 0;
  }
  return h;
}

function file(
  map: Map<number, Map<number, DenyEntry[]>>,
  anchor: string,
  fromEnd: boolean,
  entry: DenyEntry,
): void {
  const n = Math.min(anchor.length, ANCHOR_KEY);
  let byHash = map.get(n);
  if (byHash === undefined) {
    byHash = new Map();
    map.set(n, byHash);
  }
  push(byHash, anchorHash(anchor, fromEnd, 0, 0, n), entry);
}

/** Appends the denies filed under each leading (trailing) part of `anchor`. */
function collect(
  map: Map<number, Map<number, DenyEntry[]>>,
  lengths: readonly number[],
  anchor: string,
  fromEnd: boolean,
  candidates: DenyEntry[],
): void {
  let h = 0;
  let done = 0;
  for (const n of lengths) {
    if (n > anchor.length) break;
    h = anchorHash(anchor, fromEnd, h, done, n);
    done = n;
    const list = map.get(n)!.get(h);
    if (list !== undefined) candidates.push(...list);
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
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
 * The first `maxWarnings` pairs get a warning each; one more warning
 * counts the rest. The work is bounded: an allow is compared only with the
 * denies it could narrow (see the index below), and at most
 * `maxComparisons` pairs are examined; past that, a warning says the
 * check stopped.
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
 * @param options Output and work bounds.
 * @returns One warning per (allow, deny) pair, in the allow rules' order
 * (denies in declaration order for each), up to `maxWarnings`, then at
 * most one warning counting the rest or saying the check stopped.
 */
export function shadowedDenyWarnings(
  rules: readonly PolicyRule[],
  options: ShadowedDenyOptions = {},
): Diagnostic[] {
  const maxWarnings = options.maxWarnings ?? MAX_SHADOW_WARNINGS;
  const maxComparisons = options.maxComparisons ?? MAX_SHADOW_COMPARISONS;
  const isNarrower = options.isNarrower ?? isNarrowerMatch;
  // The index. `isNarrowerMatch(allow, deny)` with a deny `command` holds
  // only when (1) the allow sets every key (tool_name, provider, risk,
  // kind) the deny sets, to the same value: the denies are bucketed by the
  // keys they set and their values, and an allow looks only in the buckets
  // of the subsets of its own keys; and (2) the allow has a command within
  // the deny's (`isCommandPatternWithin`), so the deny's literal prefix is
  // a prefix of the allow's and its literal suffix a suffix of the allow's
  // (`literalAffixes` says why). Within a bucket a deny is filed under its
  // longer anchor (prefix, else suffix; the first or last ANCHOR_KEY code
  // units of it), and an allow looks up each leading (trailing) slice of
  // its own anchor of a length some key has; denies whose command starts
  // and ends with a glob are compared with every allow of their bucket.
  // Every pair the index skips fails (1) or (2), so the warnings are those
  // of the comparison of every pair; only the count of pairs examined
  // changes.
  const buckets = new Map<string, DenyBucket>();
  for (let index = 0; index < rules.length; index++) {
    const rule = rules[index]!;
    if (rule.action !== "deny" || rule.match.command === undefined) continue;
    let fields = 0;
    for (let f = 0; f < KEY_FIELDS.length; f++) {
      if (rule.match[KEY_FIELDS[f]!] !== undefined) fields |= 1 << f;
    }
    const key = keysOf(rule.match, fields);
    let bucket = buckets.get(key);
    if (bucket === undefined) {
      bucket = {
        byPrefix: new Map(),
        bySuffix: new Map(),
        floating: [],
        prefixLengths: [],
        suffixLengths: [],
      };
      buckets.set(key, bucket);
    }
    const { prefix, suffix } = literalAffixes(rule.match.command);
    const entry = { index, rule, prefix, suffix };
    if (prefix === "" && suffix === "") bucket.floating.push(entry);
    else if (prefix.length >= suffix.length) {
      file(bucket.byPrefix, prefix, false, entry);
    } else file(bucket.bySuffix, suffix, true, entry);
  }
  for (const bucket of buckets.values()) {
    bucket.prefixLengths = keyLengths(bucket.byPrefix);
    bucket.suffixLengths = keyLengths(bucket.bySuffix);
  }
  const out: Diagnostic[] = [];
  let found = 0;
  let examined = 0;
  let stoppedAt: PolicyRule | undefined;
  let firstUnshown: PolicyRule | undefined;
  rules: for (const allow of rules) {
    if (allow.action !== "allow" || allow.match.command === undefined) {
      continue; // narrows no command deny
    }
    if (buckets.size === 0) break;
    let own = 0;
    for (let f = 0; f < KEY_FIELDS.length; f++) {
      if (allow.match[KEY_FIELDS[f]!] !== undefined) own |= 1 << f;
    }
    const { prefix, suffix } = literalAffixes(allow.match.command);
    const candidates: DenyEntry[] = [];
    // every subset of the allow's own keys
    for (let fields = own;; fields = (fields - 1) & own) {
      const bucket = buckets.get(keysOf(allow.match, fields));
      if (bucket !== undefined) {
        collect(
          bucket.byPrefix,
          bucket.prefixLengths,
          prefix,
          false,
          candidates,
        );
        collect(
          bucket.bySuffix,
          bucket.suffixLengths,
          suffix,
          true,
          candidates,
        );
        candidates.push(...bucket.floating);
      }
      if (fields === 0) break;
    }
    candidates.sort((x, y) => x.index - y.index);
    for (const deny of candidates) {
      if (!prefix.startsWith(deny.prefix) || !suffix.endsWith(deny.suffix)) {
        continue;
      }
      if (examined === maxComparisons) {
        stoppedAt = allow;
        break rules;
      }
      examined++;
      if (!isNarrower(allow.match, deny.rule.match)) continue;
      found++;
      if (found > maxWarnings) {
        firstUnshown ??= allow;
        continue;
      }
      out.push(shadowWarning(allow, deny.rule));
    }
  }
  const more = found - Math.min(found, maxWarnings);
  if (stoppedAt !== undefined) {
    out.push(diag(
      "warning",
      "W_POLICY_ALLOW_SHADOWS_DENY",
      `Too many allow rules to compare with command denies: stopped after ${
        plural(examined, "pair")
      }`,
      `Allow rules that narrow a deny with a command override it. The check compares each allow only with the denies it could narrow, and stopped after ${
        plural(examined, "such pair")
      }; it found ${plural(found, "overriding pair")}${
        more > 0 ? ` (${thousands(more)} not shown one by one)` : ""
      }, and more may exist from policy "${stoppedAt.name}"${
        where(stoppedAt)
      } on. Fewer, more distinct command patterns keep the check complete.`,
      out[0]?.range ?? stoppedAt.range, // see below
    ));
  } else if (more > 0) {
    out.push(diag(
      "warning",
      "W_POLICY_ALLOW_SHADOWS_DENY",
      `${
        plural(more, "more allow/deny pair")
      } where the allow overrides the deny`,
      `Only the first ${
        plural(maxWarnings, "pair")
      } of an allow rule overriding a command deny are shown one by one; ${
        thousands(more)
      } more exist, the first of them at policy "${firstUnshown!.name}"${
        where(firstUnshown!)
      }.`,
      // At the first allow shown, not the first left out: a list sorted
      // in file order and cut at 100 (check-config) still shows this one.
      out[0]?.range,
    ));
  }
  return out;
}

function plural(n: number, word: string): string {
  return `${thousands(n)} ${word}${n === 1 ? "" : "s"}`;
}

// 12,345: what toLocaleString("en-US") gives, without loading the locale
// data (about 0.1 s of CPU on its first call).
function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

function shadowWarning(allow: PolicyRule, deny: PolicyRule): Diagnostic {
  return diag(
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
  );
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
