/**
 * The specificity order of policy rules (config.md §6.3): the tuple a plan
 * shows ({@linkcode specificity}) and the comparison that picks the winning
 * rule among the candidates for a call ({@linkcode compareSpecificity}).
 *
 * @module
 */
import { literalLength } from "./command_pattern.ts";
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
