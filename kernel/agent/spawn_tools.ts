/**
 * Spawn-capable tools (kernel.md §6.7, config.md §7.5): which tool
 * operations start a child session, and their removal from a session whose
 * remaining depth is spent. Kept apart from the sub-agent supervisor
 * (subagents.ts) so that `agent test` judges scope without loading the
 * session loop.
 *
 * @module
 */
import type { ToolSchema } from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { SPAWN_CAPABLE_TOOL_NAMES } from "../../config/delegation.ts";
import type { SessionSpec } from "./session_spec.ts";

/**
 * Whether a tool operation can start a child session.
 *
 * @param schema The operation's schema.
 * @returns True for the names in {@linkcode SPAWN_CAPABLE_TOOL_NAMES}.
 */
export function isSpawnCapable(schema: Pick<ToolSchema, "name">): boolean {
  return SPAWN_CAPABLE_TOOL_NAMES.has(schema.name);
}

/**
 * Removes every spawn-capable tool from a spec when its session's remaining
 * depth is 0 or less (schema removal: the model never sees them).
 *
 * @example Usage
 * ```ts
 * import { capSpawnTools } from "./spawn_tools.ts";
 * import assert from "node:assert/strict";
 *
 * const tools = new Map([["agents", [{ name: "spawn_subagent" }, { name: "peek" }]]]);
 * const spec = { profile: "p", models: [], tools } as never;
 * const capped = capSpawnTools(spec, 0);
 * assert.deepEqual(capped.tools?.get("agents")?.map((s) => s.name), ["peek"]);
 * assert.equal(capSpawnTools(spec, 1), spec);
 * ```
 *
 * @param spec The session's spec.
 * @param remainingDepth The session's remaining depth.
 * @returns The spec, without spawn-capable tools when the depth is spent.
 */
export function capSpawnTools(
  spec: SessionSpec,
  remainingDepth: number,
): SessionSpec {
  if (remainingDepth > 0 || spec.tools === undefined) return spec;
  const tools = new Map<string, readonly ToolSchema[]>();
  for (const [provider, schemas] of spec.tools) {
    const kept = schemas.filter((s) => !isSpawnCapable(s));
    if (kept.length > 0) tools.set(provider, kept);
  }
  // A provider whose tools are re-read each turn must not bring them back.
  const dynamicTools = spec.dynamicTools && new Map(
    [...spec.dynamicTools].map(([provider, scope]) => [provider, {
      ...scope,
      exclude: [...(scope.exclude ?? []), ...SPAWN_CAPABLE_TOOL_NAMES],
    }]),
  );
  return { ...spec, tools, ...(dynamicTools ? { dynamicTools } : {}) };
}
