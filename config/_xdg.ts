/**
 * XDG base directories (config.md §1.1), with the XDG defaults when a
 * variable is unset or empty. Dependency-free: the warm path of
 * `check-config` uses it.
 *
 * @module
 */

import { join } from "node:path";

/**
 * The path of the global config: `$XDG_CONFIG_HOME/agent/config.hcl`, with
 * the XDG default `~/.config` when the variable is unset or empty.
 *
 * @param env The environment.
 * @returns The path, or `undefined` when neither variable is set.
 */
export function globalConfigPath(
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg) return join(xdg, "agent", "config.hcl");
  const home = env.HOME ?? env.USERPROFILE;
  return home ? join(home, ".config", "agent", "config.hcl") : undefined;
}
