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
 * V8 flags for a frontend started on the terminal (builtin/tui): those of
 * every plugin with a 2 MB young generation instead of 1 MB. Ink draws
 * each keystroke as a whole new frame, about 0.85 MB of short-lived
 * objects at 80×24: with 1 MB about six keys in ten ran a scavenge, with
 * 2 MB about one in three, for 15–25% less CPU per key and 0.3–1.9 MB
 * more RSS after 40 keys (4 MB: 3.6–6 MB more; README, Terminal UI). V8 accepts a code cache made under another
 * heap size, so the bundles' warmed cache still serves.
 */
export const TERMINAL_V8_FLAGS: string =
  "--v8-flags=--max-semi-space-size=2,--no-sparkplug,--no-maglev";

/**
 * The `deno run` flags of the kernel's own process, which it cannot set on
 * itself: `deno task agent`, the tasks `agent init` writes and
 * `deno task bench:e2e` start it with them. A 1 MB young generation (V8's
 * default grows it to 16 MB or more). Measured in `deno task bench:e2e`
 * (README, "Benchmarks").
 */
export const KERNEL_V8_FLAGS: string = "--v8-flags=--max-semi-space-size=1";
