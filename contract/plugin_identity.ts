/**
 * The identity of a launched plugin build, fixed at launch and bound to its
 * callback connection.
 *
 * @module
 */
import type { CategoryName } from "./manifest.ts";

/** `{category, name, version}` plus where the build came from. */
export interface PluginIdentity {
  /** The plugin's category. */
  category: CategoryName;
  /** Unique within the category. */
  name: string;
  /** Exact semantic version. */
  version: string;
  /** Install address, e.g. `builtin:echo`. */
  source: string;
}

/** What {@linkcode manifestNameConflict} compares: one provider of agent.hcl. */
export interface ProviderNaming {
  /** The operator's local name (the `required_providers` key). */
  readonly localName: string;
  /** Its source as written, e.g. `builtin/exec` or `./plugins/x`. */
  readonly source: string;
  /** The `name` its manifest claims. */
  readonly manifestName: string;
}

/**
 * Why a provider's manifest `name` is refused, or `undefined` when it is
 * accepted. A plugin's identity on the bus and in grants is the operator's
 * local name, never its manifest's `name`; a manifest that claims the local
 * name of another provider of the same configuration, or (from a source
 * other than `builtin/<name>`) the name of a first-party plugin, is an
 * attempt to pass for that provider and is refused.
 *
 * @example Usage
 * ```ts
 * import { manifestNameConflict } from "@ph/agent/contract";
 * import assert from "node:assert/strict";
 *
 * const problem = manifestNameConflict(
 *   { localName: "helper", source: "./plugins/helper", manifestName: "exec" },
 *   ["exec", "helper"],
 *   ["echo", "exec"],
 * );
 * assert.match(problem ?? "", /"helper".*"exec"/);
 * ```
 *
 * @param provider The provider being checked.
 * @param localNames Every provider's local name in the configuration.
 * @param builtinNames The first-party plugins' names.
 * @returns The refusal, naming both providers, or `undefined`.
 */
export function manifestNameConflict(
  provider: ProviderNaming,
  localNames: Iterable<string>,
  builtinNames: Iterable<string>,
): string | undefined {
  const { localName, source, manifestName } = provider;
  // A first-party plugin is trusted to carry its own name, under any alias.
  if (source === `builtin/${manifestName}`) return undefined;
  if (manifestName !== localName) {
    for (const other of localNames) {
      if (other === manifestName) {
        return `The plugin of provider "${localName}" (${
          JSON.stringify(source)
        }) names itself "${manifestName}" in its manifest, which is the local name of provider "${other}": a plugin may not pass for another provider`;
      }
    }
  }
  for (const b of builtinNames) {
    if (b === manifestName) {
      return `The plugin of provider "${localName}" (${
        JSON.stringify(source)
      }) names itself "${manifestName}" in its manifest, which is the name of the first-party plugin "builtin/${b}": only builtin/${b} may use that name`;
    }
  }
  return undefined;
}
