/**
 * Agent profiles (config.md §7), as pure functions: which profile the root
 * session uses, the `slash_commands` allow-list, and the depth and cost
 * budgets that shrink down the session tree. The other profile concepts
 * have their own files: tool scoping (`tool_scope.ts`), model routing
 * (`model_routing.ts`), the loop bounds (`profile_bounds.ts`) and the order
 * of hook subscribers (`hook_order.ts`).
 *
 * The kernel calls these once plugins are running and per turn.
 *
 * @example Pick the root profile and spend the depth budget
 * ```ts
 * import { canSpawn, remainingDepth, selectRootProfile } from "./profiles.ts";
 * import assert from "node:assert/strict";
 *
 * const profiles = new Map([["default", { maxDepth: 2 }]]);
 * const root = selectRootProfile(profiles);
 * assert.equal(root.name, "default");
 * const depth = remainingDepth(undefined, root.profile?.maxDepth, 3);
 * assert.equal(depth, 2);
 * assert.ok(canSpawn(depth));
 * ```
 *
 * @module
 */
import { type Diagnostic, didYouMean } from "../contract/diagnostic.ts";
import { diag } from "./_schema.ts";

/** The profile the root session uses unless the CLI names another. */
export const DEFAULT_PROFILE_NAME: string = "default";

/** What {@linkcode selectRootProfile} returns. */
export interface RootProfileSelection<T> {
  /** The profile name the root session runs under. */
  name: string;
  /**
   * The declared profile, or `undefined` when `default` is not declared:
   * the kernel's built-in defaults then apply to every field.
   */
  profile: T | undefined;
  /** An error when the requested profile is not declared. */
  diagnostics: Diagnostic[];
}

/**
 * Picks the root session's profile: the one the CLI asked for, else the one
 * named `default`. A missing `default` is not an error (built-in defaults
 * apply); a profile the CLI asked for by name must exist
 * (`E_UNKNOWN_PROFILE`, with a suggestion).
 *
 * @example Usage
 * ```ts
 * import { selectRootProfile } from "./profiles.ts";
 * import assert from "node:assert/strict";
 *
 * const profiles = new Map([["default", { maxTurns: 120 }], ["auditor", { maxTurns: 25 }]]);
 * assert.equal(selectRootProfile(profiles).profile?.maxTurns, 120);
 * assert.equal(selectRootProfile(profiles, "auditor").name, "auditor");
 * assert.equal(selectRootProfile(new Map()).profile, undefined);
 * ```
 *
 * @param profiles The declared profiles by name.
 * @param requested The name given on the command line, if any.
 * @returns The name, the profile (if declared) and any error.
 */
export function selectRootProfile<T>(
  profiles: ReadonlyMap<string, T>,
  requested?: string,
): RootProfileSelection<T> {
  const name = requested ?? DEFAULT_PROFILE_NAME;
  const profile = profiles.get(name);
  if (profile !== undefined || requested === undefined) {
    return { name, profile, diagnostics: [] };
  }
  const names = [...profiles.keys()];
  const hint = didYouMean(name, names);
  return {
    name,
    profile: undefined,
    diagnostics: [diag(
      "error",
      "E_UNKNOWN_PROFILE",
      `Unknown agent profile "${name}"`,
      `${hint ? `Did you mean "${hint}"? ` : ""}${
        names.length === 0
          ? "No agent_profile block is declared."
          : `Declared profiles: ${names.map((n) => `"${n}"`).join(", ")}.`
      }`,
      undefined,
    )],
  };
}

/**
 * Applies a profile's `slash_commands` allow-list to the `prompt_expansion`
 * commands available this session. An omitted or empty list allows none.
 * A listed name that no loaded provider offers is not an error (its
 * provider may simply not be loaded, as with tools); it is returned in
 * `unknown` so that the caller can mention it.
 *
 * @example Usage
 * ```ts
 * import { resolveSlashCommands } from "./profiles.ts";
 * import assert from "node:assert/strict";
 *
 * const r = resolveSlashCommands(["summarize", "deploy"], ["reset", "summarize"]);
 * assert.deepEqual(r, { commands: ["summarize"], unknown: ["deploy"] });
 * ```
 *
 * @param allowList The `slash_commands` value, or `undefined` when omitted.
 * @param available The `prompt_expansion` command names offered this session.
 * @returns The allowed commands (in allow-list order) and the unknown names.
 */
export function resolveSlashCommands(
  allowList: readonly string[] | undefined,
  available: Iterable<string>,
): { commands: string[]; unknown: string[] } {
  const offered = new Set(available);
  const commands: string[] = [];
  const unknown: string[] = [];
  for (const name of new Set(allowList ?? [])) {
    (offered.has(name) ? commands : unknown).push(name);
  }
  return { commands, unknown };
}

/**
 * A session's remaining spawn depth (config.md §7.5):
 * root = `max_depth ?? kernelDefault`;
 * child = `min(parentRemaining - 1, max_depth ?? ∞)`, never below 0.
 * A profile's `max_depth` is a ceiling, never a grant: an ancestor's
 * tighter budget wins. Unset (`undefined`) differs from 0.
 *
 * @example Worked example of §7.5
 * ```ts
 * import { remainingDepth } from "./profiles.ts";
 * import assert from "node:assert/strict";
 *
 * const root = remainingDepth(undefined, 3, 5);          // root max_depth = 3
 * const child = remainingDepth(root, 5, 5);              // min(2, 5)
 * const grandchild = remainingDepth(child, undefined, 5); // min(1, ∞)
 * assert.deepEqual([root, child, grandchild, remainingDepth(grandchild, undefined, 5)], [3, 2, 1, 0]);
 * ```
 *
 * @param parentRemaining The parent's remaining depth; `undefined` for the root session.
 * @param profileMaxDepth The session's profile `max_depth`, if set.
 * @param kernelDefault The kernel's default for a root session without `max_depth`.
 * @returns The remaining depth, at least 0.
 * @throws {RangeError} When a number is negative or not an integer.
 */
export function remainingDepth(
  parentRemaining: number | undefined,
  profileMaxDepth: number | undefined,
  kernelDefault: number,
): number {
  checkCount("parentRemaining", parentRemaining);
  checkCount("profileMaxDepth", profileMaxDepth);
  checkCount("kernelDefault", kernelDefault);
  if (parentRemaining === undefined) return profileMaxDepth ?? kernelDefault;
  return Math.max(
    0,
    Math.min(parentRemaining - 1, profileMaxDepth ?? Infinity),
  );
}

/**
 * Whether a session may spawn children: its remaining depth is above 0.
 *
 * @example Usage
 * ```ts
 * import { canSpawn } from "./profiles.ts";
 * import assert from "node:assert/strict";
 *
 * assert.ok(canSpawn(1));
 * assert.ok(!canSpawn(0));
 * ```
 *
 * @param remaining The session's remaining depth.
 * @returns `true` when spawn-capable tools stay in its registry.
 */
export function canSpawn(remaining: number): boolean {
  return remaining > 0;
}

/**
 * Removes every spawn-capable tool from a session's tools when its remaining
 * depth is 0 or less (they leave the schema the model sees; they are not
 * blocked at call time). Otherwise returns the tools unchanged.
 *
 * @example Usage
 * ```ts
 * import { toolsForDepth } from "./profiles.ts";
 * import assert from "node:assert/strict";
 *
 * const tools = ["fs.read_file", "subagents.spawn"];
 * const spawning = new Set(["subagents.spawn"]);
 * assert.deepEqual(toolsForDepth(tools, 0, spawning), ["fs.read_file"]);
 * assert.deepEqual(toolsForDepth(tools, 1, spawning), tools);
 * ```
 *
 * @param tools The resolved tools (`"<provider>.<tool>"`).
 * @param remaining The session's remaining depth.
 * @param spawnCapable The tools that can start a child session.
 * @returns The tools the session's registry keeps.
 */
export function toolsForDepth(
  tools: readonly string[],
  remaining: number,
  spawnCapable: ReadonlySet<string>,
): string[] {
  return canSpawn(remaining)
    ? [...tools]
    : tools.filter((t) => !spawnCapable.has(t));
}

/**
 * A session's cost budget in USD (config.md §7.6): root =
 * `max_cost_usd ?? ∞`; child = `min(parentRemaining, max_cost_usd ?? ∞)`.
 * Pass the parent's budget as it stands when the child starts (its own
 * spending already subtracted); every usage event is later subtracted at
 * every ancestor.
 *
 * @example Usage
 * ```ts
 * import { remainingCost } from "./profiles.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(remainingCost(undefined, undefined), Infinity);
 * assert.equal(remainingCost(undefined, 2.5), 2.5);
 * assert.equal(remainingCost(0.75, 2.5), 0.75); // the parent's budget wins
 * assert.equal(remainingCost(0.75, 0.5), 0.5);
 * ```
 *
 * @param parentRemaining The parent's remaining budget; `undefined` for the root session.
 * @param profileMaxCostUsd The session's profile `max_cost_usd`, if set.
 * @returns The budget, possibly `Infinity`.
 * @throws {RangeError} When a number is negative or NaN.
 */
export function remainingCost(
  parentRemaining: number | undefined,
  profileMaxCostUsd: number | undefined,
): number {
  for (
    const [name, v] of [
      ["parentRemaining", parentRemaining],
      ["profileMaxCostUsd", profileMaxCostUsd],
    ] as const
  ) {
    if (v !== undefined && !(v >= 0)) {
      throw new RangeError(
        `Cannot compute the cost budget: ${name} must be a non-negative number, got ${v}`,
      );
    }
  }
  return Math.min(parentRemaining ?? Infinity, profileMaxCostUsd ?? Infinity);
}

function checkCount(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) {
    throw new RangeError(
      `Cannot compute the remaining depth: ${name} must be a non-negative integer, got ${value}`,
    );
  }
}

/**
 * A `slash_commands` entry that names direct-invoke commands of a
 * slash-command provider: `"<provider>.<command>"` or `"<provider>.*"`
 * (the namespace the tool scope uses). A plain name (no dot) is a
 * `prompt_expansion` command name instead, and gives `undefined`.
 *
 * @example Usage
 * ```ts
 * import { directInvokeEntry } from "./profiles.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(directInvokeEntry("cmds.*"), { provider: "cmds", command: "*" });
 * assert.equal(directInvokeEntry("summarize"), undefined);
 * ```
 *
 * @param entry One `slash_commands` value.
 * @returns The provider and command (`*` for all), or `undefined`.
 */
export function directInvokeEntry(
  entry: string,
): { provider: string; command: string } | undefined {
  const dot = entry.indexOf(".");
  if (dot < 0) return undefined;
  return { provider: entry.slice(0, dot), command: entry.slice(dot + 1) };
}
