/**
 * The V8 flags of the Deno processes the kernel starts for plugins and for
 * the callback gateway.
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
