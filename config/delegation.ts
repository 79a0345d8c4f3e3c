/**
 * Delegation ceilings (config.md §7.3, §7.5): which tools can start a child
 * session and how much depth a session gets. Pure, so that the kernel's
 * sub-agent supervisor (kernel/agent/subagents.ts), `check-config
 * --explain` and `agent test` compute the same numbers from the same code.
 *
 * A tool is spawn-capable when its plugin's manifest says so
 * (`"subagents": true` on the tool), never by its name.
 *
 * @module
 */
import type { PlanProvider } from "./plan.ts";

/**
 * The spawn-capable tools of a plan: `"provider.tool"` for every tool whose
 * manifest (or lock entry) declares `"subagents": true`.
 *
 * @example Usage
 * ```ts
 * import { spawnCapableTools } from "./delegation.ts";
 * import type { PlanProvider } from "./plan.ts";
 * import assert from "node:assert/strict";
 *
 * const providers: Pick<PlanProvider, "name" | "tools">[] = [{
 *   name: "agents",
 *   tools: [
 *     { name: "spawn_subagent", kind: "resource", risk: "moderate", subagents: true },
 *     { name: "list_subagents", kind: "data_source", risk: "read_only" },
 *   ],
 * }];
 * assert.deepEqual([...spawnCapableTools(providers)], ["agents.spawn_subagent"]);
 * ```
 *
 * @param providers The plan's providers.
 * @returns The spawn-capable tools, `provider.tool`.
 */
export function spawnCapableTools(
  providers: readonly Pick<PlanProvider, "name" | "tools">[],
): ReadonlySet<string> {
  const out = new Set<string>();
  for (const p of providers) {
    for (const t of p.tools ?? []) {
      if (t.subagents) out.add(`${p.name}.${t.name}`);
    }
  }
  return out;
}

/**
 * The remaining depth of a root session whose profile sets no `max_depth`
 * (the spec leaves `kernel_default_max_depth` open; ref-impl is unbounded).
 */
export const KERNEL_DEFAULT_MAX_DEPTH = 3;

/**
 * The remaining depth of a root session.
 *
 * @example Usage
 * ```ts
 * import { rootRemainingDepth } from "./delegation.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(rootRemainingDepth(undefined), 3);
 * assert.equal(rootRemainingDepth(0), 0);
 * ```
 *
 * @param maxDepth The root profile's `max_depth`.
 * @returns `max_depth ?? KERNEL_DEFAULT_MAX_DEPTH`.
 */
export function rootRemainingDepth(maxDepth: number | undefined): number {
  return maxDepth ?? KERNEL_DEFAULT_MAX_DEPTH;
}

/**
 * A child's remaining depth: `min(parent − 1, max_depth)`, where an unset
 * `max_depth` is 0 (recursion is denied by default), narrowed by the
 * request's value, never below 0.
 *
 * @example Usage
 * ```ts
 * import { childRemainingDepth } from "./delegation.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(childRemainingDepth(3, undefined), 0); // recursion denied by default
 * assert.equal(childRemainingDepth(3, 5), 2);         // the parent's budget wins
 * assert.equal(childRemainingDepth(3, 5, 1), 1);      // the request narrows
 * ```
 *
 * @param parentRemaining The parent's remaining depth.
 * @param maxDepth The child profile's `max_depth`.
 * @param requested The request's `remaining_depth`, if any.
 * @returns The child's remaining depth.
 */
export function childRemainingDepth(
  parentRemaining: number,
  maxDepth: number | undefined,
  requested?: number,
): number {
  return Math.max(
    0,
    Math.min(parentRemaining - 1, maxDepth ?? 0, requested ?? Infinity),
  );
}
