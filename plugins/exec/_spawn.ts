/**
 * Starting a command line with the provider's environment, and the set of
 * commands still running (killed at shutdown).
 *
 * @module
 */
import type { Config } from "./_config.ts";
import { ToolFailure } from "./_failure.ts";
import { type Chunk, ShellProcess } from "./_process.ts";

function commandEnv(cfg: Config): Record<string, string> {
  let path = "/usr/local/bin:/usr/bin:/bin";
  try {
    path = Deno.env.get("PATH") ?? path;
  } catch {
    // PATH not readable: the default
  }
  return { ...cfg.env, PATH: cfg.env.PATH ?? path };
}

/** Every command still running (foreground or background). */
const live = new Set<ShellProcess>();

/**
 * Starts a command line in `cwd` with the provider's environment and
 * tracks it until it ends.
 */
export function start(
  command: string,
  cwd: string,
  cfg: Config,
  onChunk: (c: Chunk) => void,
): ShellProcess {
  try {
    const proc = ShellProcess.start(command, {
      cwd,
      env: commandEnv(cfg),
      onChunk,
    });
    live.add(proc);
    proc.finished.finally(() => live.delete(proc));
    return proc;
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable) {
      throw new ToolFailure(
        "permission_denied",
        `exec may not run bash: grant it with allow_run = ["bash"] in the provider block (${
          (err as Error).message
        })`,
      );
    }
    if (err instanceof Deno.errors.NotFound) {
      throw new ToolFailure("not_found", `bash was not found on PATH`);
    }
    throw err;
  }
}
/** At shutdown: commands run in their own session and would outlive us. */
export async function killAll(): Promise<void> {
  await Promise.all([...live].map((p) => p.kill()));
}
