/**
 * Compiling modules into V8's code cache without running them, for the
 * plugins' Deno processes, which cannot write the Deno cache themselves
 * (first-party bundles, forge Deno plugins).
 *
 * @module
 */
import { PLUGIN_V8_FLAGS } from "./_v8_flags.ts";

/**
 * The text of the warm-up module for `modules`: a first import that
 * throws (evaluation stops there), then each module.
 *
 * @example Usage
 * ```ts
 * import { warmUpModule } from "./_compile_only.ts";
 * import assert from "node:assert/strict";
 * const text = warmUpModule(["file:///p/main.js"]);
 * assert.ok(text.indexOf("throw") < text.indexOf("file:///p/main.js"));
 * ```
 *
 * @param modules The file URLs to compile.
 * @returns The module's source.
 */
export function warmUpModule(modules: readonly string[]): string {
  return [
    `import "data:text/javascript,throw%20new%20Error(%22compile%20only%22)";`,
    ...modules.map((m) => `import ${JSON.stringify(m)};`),
  ].join("\n") + "\n";
}

/**
 * The `deno` arguments that compile `file` (a module from
 * {@linkcode warmUpModule}) with the plugins' V8 flags (V8 refuses a code
 * cache made with other flags), with no permission and no network.
 *
 * @example Usage
 * ```ts
 * import { warmUpArgs } from "./_compile_only.ts";
 * import assert from "node:assert/strict";
 * assert.equal(warmUpArgs("/tmp/w.mjs").at(-1), "/tmp/w.mjs");
 * ```
 *
 * @param file The warm-up module's path.
 * @returns The arguments after the `deno` executable.
 */
export function warmUpArgs(file: string): string[] {
  return [
    "run",
    "--cached-only",
    "--no-prompt",
    "--no-config",
    PLUGIN_V8_FLAGS,
    file,
  ];
}
