/**
 * The stage-B checks that need what running plugins advertise (config.md
 * §4.3, stage B step 5): {@linkcode checkCapabilities} checks hook points
 * and profile tools against each provider's {@linkcode ProviderCapabilities}.
 *
 * @module
 */
import { type Diagnostic, didYouMean } from "../contract/diagnostic.ts";
import { E_HOOK_POINT_UNSUPPORTED } from "./codes.ts";
import type { PlanHook, PlanProfile } from "./plan.ts";
import { resolveToolScope } from "./tool_scope.ts";
import { diag } from "./_schema.ts";

/** What a running (or described) plugin advertises, for stage-B checks. */
export interface ProviderCapabilities {
  /** The tool (and `direct_invoke` command) names it advertises. */
  tools?: readonly string[];
  /** The hook points it supports (`supported_hook_points`). */
  hookPoints?: readonly string[];
}

/**
 * Checks every profile's tool scope against the tools the loaded providers
 * advertise (`E_TOOL_UNKNOWN`); providers without a tool list are skipped.
 *
 * @param profiles The plan's profiles.
 * @param caps What each provider advertises, by local name.
 * @returns The problems.
 */
export function checkProfileTools(
  profiles: readonly PlanProfile[],
  caps: ReadonlyMap<string, ProviderCapabilities>,
): Diagnostic[] {
  const loaded = new Map<string, readonly string[]>();
  for (const [name, c] of caps) if (c.tools) loaded.set(name, c.tools);
  const out: Diagnostic[] = [];
  for (const profile of profiles) {
    for (const each of resolveToolScope(profile.tools, loaded).diagnostics) {
      out.push(each);
    }
  }
  return out;
}

/**
 * The stage-B checks that need what plugins advertise (config.md §4.3,
 * stage B step 5), for the kernel once plugins run or for any caller that
 * knows their capabilities: a `hook` block naming a point its plugin does
 * not support (`E_HOOK_POINT_UNSUPPORTED`), and a profile's tool naming a
 * tool its (loaded) provider does not advertise (`E_TOOL_UNKNOWN`).
 * Providers missing from `capabilities` are not checked.
 *
 * @example Usage
 * ```ts
 * import { checkCapabilities } from "./check_capabilities.ts";
 * import assert from "node:assert/strict";
 * const range = { file: "agent.hcl", start: { line: 4, column: 1, byte: 60 }, end: { line: 4, column: 18, byte: 77 } };
 * const [d] = checkCapabilities(
 *   { profiles: [], hooks: [{ point: "post-apply", provider: "journal", mode: "observe", position: 60, range }] },
 *   new Map([["journal", { hookPoints: ["session-end"] }]]),
 * );
 * assert.equal(d?.code, "E_HOOK_POINT_UNSUPPORTED");
 * ```
 *
 * @param plan The plan's profiles and hooks.
 * @param capabilities What each provider advertises, by local name.
 * @returns The problems.
 */
export function checkCapabilities(
  plan: {
    readonly profiles: readonly PlanProfile[];
    readonly hooks: readonly PlanHook[];
  },
  capabilities: ReadonlyMap<string, ProviderCapabilities>,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const hook of plan.hooks) {
    const points = capabilities.get(hook.provider)?.hookPoints;
    if (points === undefined || points.includes(hook.point)) continue;
    const hint = didYouMean(hook.point, points);
    out.push(diag(
      "error",
      E_HOOK_POINT_UNSUPPORTED,
      `Provider "${hook.provider}" does not support hook point "${hook.point}"`,
      `${hint ? `Did you mean "${hint}"? ` : ""}Its plugin supports ${
        points.length === 0
          ? "no hook point"
          : points.map((p) => `"${p}"`).join(", ")
      }.`,
      hook.range,
    ));
  }
  for (const each of checkProfileTools(plan.profiles, capabilities)) {
    out.push(each);
  }
  return out;
}
