/**
 * Compiling `agent.hcl` for the kernel and for the light paths that decide
 * something before a kernel opens (`agent trigger --due`).
 *
 * @module
 */
import type { Diagnostic } from "../contract/diagnostic.ts";
import {
  compileConfig,
  ConfigError,
  hasErrors,
  type Plan,
} from "../config/mod.ts";
import type { OpenKernelOptions } from "./api.ts";

/**
 * Compiles `root/agent.hcl` (or the default configuration); any error
 * diagnostic is thrown as a {@linkcode ConfigError}.
 *
 * @param root The project directory, resolved.
 * @param env The environment the configuration reads.
 * @param options The kernel options that shape the compile.
 * @returns The plan and its warnings.
 */
export async function compilePlan(
  root: string,
  env: Readonly<Record<string, string | undefined>>,
  options: Pick<OpenKernelOptions, "locked" | "builtins" | "defaultConfig">,
): Promise<{ plan: Plan; diagnostics: Diagnostic[] }> {
  const { plan, diagnostics } = await compileConfig(root, {
    env,
    locked: options.locked ?? false,
    ...(options.builtins ? { builtins: options.builtins } : {}),
    ...(options.defaultConfig !== undefined
      ? { defaultConfig: options.defaultConfig }
      : {}),
  });
  if (hasErrors(diagnostics)) throw new ConfigError(diagnostics);
  return { plan, diagnostics };
}
