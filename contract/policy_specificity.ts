/**
 * The specificity order of policy rules (config.md §6.3): the tuple a plan
 * shows ({@linkcode specificity}), the comparison that picks the winning
 * rule among the candidates for a call ({@linkcode compareSpecificity}),
 * and the narrowing relation that decides when a deny rule may be set
 * aside ({@linkcode isNarrowerMatch}, config.md §6.4).
 *
 * @module
 */
import { isCommandPatternWithin, literalLength } from "./command_pattern.ts";
import type { PolicyMatch } from "./policy.ts";

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

/**
 * The specificity tuple of a match (config.md §6.3). A `command` is not
 * part of the tuple (which plans show as written in config.md); it ranks
 * above it, see {@linkcode compareSpecificity}.
 *
 * @example Usage
 * ```ts
 * import { specificity } from "./policy_specificity.ts";
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
 * import { compareSpecificity } from "./policy_specificity.ts";
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
 * Tells whether `narrow` is strictly narrower than `broad` on `broad`'s own
 * keys (config.md §6.4): it specifies every key `broad` specifies, with the
 * same value (a `command` glob: one whose every match `broad`'s glob also
 * matches, see {@linkcode isCommandPatternWithin}), and it is strictly more
 * specific ({@linkcode compareSpecificity}). Only such a rule sets a deny
 * rule aside: `{ provider = "fs", tool_name = "read_file" }` is narrower
 * than `{ provider = "fs" }`, but `{ tool_name = "read_file" }` is not (it
 * says nothing about the provider), and `{ command = "*> /dev/null" }` is
 * not narrower than `{ command = "rm *" }`.
 *
 * @example Usage
 * ```ts
 * import { isNarrowerMatch } from "./policy_specificity.ts";
 * import assert from "node:assert/strict";
 *
 * assert.ok(isNarrowerMatch({ provider: "fs", toolName: "read_file" }, { provider: "fs" }));
 * assert.ok(!isNarrowerMatch({ toolName: "read_file" }, { provider: "fs" }));
 * assert.ok(isNarrowerMatch({ command: "rm -i *" }, { command: "rm *" }));
 * assert.ok(!isNarrowerMatch({ command: "rm *" }, { command: "rm *" }));
 * ```
 *
 * @param narrow The match that should be the narrower one.
 * @param broad The match it should narrow.
 * @returns `true` when `narrow` only ever applies where `broad` does and
 * is strictly more specific.
 */
export function isNarrowerMatch(
  narrow: PolicyMatch,
  broad: PolicyMatch,
): boolean {
  if (broad.command !== undefined) {
    if (
      narrow.command === undefined ||
      !isCommandPatternWithin(narrow.command, broad.command)
    ) {
      return false;
    }
  }
  for (const field of ["toolName", "provider", "risk", "kind"] as const) {
    if (broad[field] !== undefined && narrow[field] !== broad[field]) {
      return false;
    }
  }
  return compareSpecificity(narrow, broad) > 0;
}
