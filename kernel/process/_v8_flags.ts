/**
 * The V8 flags of the Deno processes the kernel starts for plugins and for
 * the callback gateway, and of the kernel itself.
 *
 * @module
 */

/**
 * V8 flags for every Deno plugin (and the callback gateway): a 1 MB young
 * generation and no Sparkplug or Maglev tier, so that warm code stays in
 * bytecode while hot code still reaches TurboFan (WebAssembly keeps
 * working, unlike with `--lite-mode`). Measured with `deno task bench:e2e`
 * (anthropic, 20 reads): the tree's peak RSS 18-20 MiB and PSS 26-27 MiB
 * lower, its CPU within the run-to-run noise (+1 to +4%).
 */
export const PLUGIN_V8_FLAGS: string =
  "--v8-flags=--max-semi-space-size=1,--no-sparkplug,--no-maglev";

/**
 * The `deno run` flags of the kernel's own process, which it cannot set on
 * itself: `deno task agent`, the tasks `agent init` writes and
 * `deno task bench:e2e` start it with them. A 1 MB young generation (V8's
 * default grows it to 16 MB or more). Measured in `deno task bench:e2e`
 * (README, "Benchmarks").
 */
export const KERNEL_V8_FLAGS: string = "--v8-flags=--max-semi-space-size=1";
