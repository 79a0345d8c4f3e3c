/**
 * V8's code cache for a forge Deno plugin's cached modules.
 *
 * A plugin runs with the Deno cache read-only (the OS sandbox binds it so),
 * so it never writes V8's code cache for its own modules, and a forge
 * bundle would compile from source at every launch while a first-party
 * plugin's bundle starts from its cache. After a forge entry is installed,
 * the kernel compiles the plugin's modules once, in a `deno` process with
 * the plugins' V8 flags (V8 refuses a code cache made with other flags) and
 * no permission, without running any of them: the warm-up module's first
 * import is a module that throws, and ES modules are all compiled (and
 * their code cache written) before the first one is evaluated, so the
 * plugin's top-level code never runs outside its sandbox.
 *
 * @module
 */
import { pathToFileURL } from "node:url";
import { denoRuntimeEnv } from "../../contract/runtime_env.ts";
import { denoCacheDir } from "../process/_module_cache.ts";
import { warmUpArgs, warmUpModule } from "../process/_compile_only.ts";

/** Bound on the warm-up process. */
const WARM_TIMEOUT_MS = 60_000;

/**
 * Writes V8's code cache for a forge Deno plugin's entry module and every
 * module it imports statically into the Deno cache the plugins read,
 * without running them. Best effort: a failure only means the plugin
 * compiles from source.
 *
 * @param entrypoint The path of the plugin's entry module in the cache.
 * @param env The kernel's environment (its Deno runtime settings).
 * @param denoDir The Deno cache the plugins read.
 * @returns The warm-up process's output (it ends with the error that
 * stopped evaluation), or why it could not run.
 */
export async function warmForgeCodeCache(
  entrypoint: string,
  env: Readonly<Record<string, string | undefined>>,
  denoDir: string = denoCacheDir(),
): Promise<string> {
  const modules = [pathToFileURL(entrypoint).href];
  const tmp = await Deno.makeTempFile({
    prefix: "agent-forge-warm-",
    suffix: ".mjs",
  });
  try {
    await Deno.writeTextFile(tmp, warmUpModule(modules));
    const child = new Deno.Command(Deno.execPath(), {
      args: warmUpArgs(tmp),
      env: {
        ...denoRuntimeEnv(env),
        DENO_DIR: denoDir,
        DENO_NO_UPDATE_CHECK: "1",
        NO_COLOR: "1",
      },
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const timer = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch {
        // gone
      }
    }, WARM_TIMEOUT_MS);
    try {
      const out = await child.output();
      const text = new TextDecoder();
      return text.decode(out.stdout) + text.decode(out.stderr);
    } finally {
      clearTimeout(timer);
    }
  } catch (err) {
    // best effort: the plugin compiles from source
    return err instanceof Error ? err.message : String(err);
  } finally {
    await Deno.remove(tmp).catch(() => {});
  }
}
