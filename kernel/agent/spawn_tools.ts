/**
 * Spawn-capable tools (kernel.md §6.7, config.md §7.5): which tool
 * operations start a child session, and their removal from a session whose
 * remaining depth is spent. Kept apart from the sub-agent supervisor
 * (subagents.ts) so that `agent test` judges scope without loading the
 * session loop.
 *
 * A tool is spawn-capable when its plugin's manifest declares it
 * (`"subagents": true`); the spec carries the set
 * ({@linkcode SessionSpec.spawnTools}).
 *
 * @module
 */
import type { ToolSchema } from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import type { SessionSpec } from "./session_spec.ts";

/**
 * Whether a tool operation of a spec can start a child session.
 *
 * @param spec The session's spec (its `spawnTools`).
 * @param provider The tool's provider.
 * @param name The operation's name.
 * @returns True when the manifest declares the tool spawn-capable.
 */
export function isSpawnCapable(
  spec: Pick<SessionSpec, "spawnTools">,
  provider: string,
  name: string,
): boolean {
  return spec.spawnTools?.has(`${provider}.${name}`) ?? false;
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
 * const spec = {
 *   profile: "p",
 *   models: [],
 *   tools,
 *   spawnTools: new Set(["agents.spawn_subagent"]),
 * } as never;
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
    const kept = schemas.filter((s) => !isSpawnCapable(spec, provider, s.name));
    if (kept.length > 0) tools.set(provider, kept);
  }
  // A provider whose tools are re-read each turn must not bring them back.
  const dynamicTools = spec.dynamicTools && new Map(
    [...spec.dynamicTools].map(([provider, scope]) => [provider, {
      ...scope,
      exclude: [
        ...(scope.exclude ?? []),
        ...[...spec.spawnTools ?? []].filter((t) =>
          t.startsWith(`${provider}.`)
        ).map((t) => t.slice(provider.length + 1)),
      ],
    }]),
  );
  return { ...spec, tools, ...(dynamicTools ? { dynamicTools } : {}) };
}
