/**
 * Compiling modules into V8's code cache without running them, for the
 * plugins' Deno processes, which cannot write the Deno cache themselves
 * (first-party bundles, forge Deno plugins).
 *
 * @module
 */
import { PLUGIN_V8_FLAGS } from "./_v8_flags.ts";

/** The message of the warm-up module's first import. */
export const WARM_UP_STOP = "compile only";

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
    `import "data:text/javascript,throw%20new%20Error(%22${
      encodeURIComponent(WARM_UP_STOP)
    }%22)";`,
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
 * assert.ok(warmUpArgs("/tmp/w.mjs", "/tmp/m.json").includes("/tmp/m.json"));
 * ```
 *
 * @param file The warm-up module's path.
 * @param importMap An import map to resolve bare specifiers the modules
 * import but that are not installed (a bundle's externals), so that the
 * module graph resolves and is compiled.
 * @returns The arguments after the `deno` executable.
 */
export function warmUpArgs(file: string, importMap?: string): string[] {
  return [
    "run",
    "--cached-only",
    "--no-prompt",
    "--no-config",
    ...(importMap === undefined ? [] : ["--import-map", importMap]),
    PLUGIN_V8_FLAGS,
    file,
  ];
}

/**
 * Why a warm-up did not compile its modules, from its exit: `undefined`
 * when it stopped where it should (the first import's error, after every
 * module of the graph was loaded and compiled), else the first lines of
 * its error (a module that does not resolve stops Deno before anything is
 * compiled, and then no code cache is written).
 *
 * @example Usage
 * ```ts
 * import { warmUpFailure } from "./_compile_only.ts";
 * import assert from "node:assert/strict";
 * const stderr = new TextEncoder().encode('error: Uncaught Error: compile only');
 * assert.equal(warmUpFailure({ success: false, stderr }), undefined);
 * const bad = new TextEncoder().encode('error: Import "x" not a dependency');
 * assert.match(warmUpFailure({ success: false, stderr: bad })!, /not a dependency/);
 * ```
 *
 * @param out The warm-up process's exit status and standard error.
 * @returns Why it failed, or `undefined`.
 */
export function warmUpFailure(
  out: { success: boolean; stderr: Uint8Array },
): string | undefined {
  const err = new TextDecoder().decode(out.stderr)
    // deno-lint-ignore no-control-regex
    .replace(/\x1b\[[0-9;]*m/g, "");
  if (!out.success && err.includes(`Error: ${WARM_UP_STOP}`)) return undefined;
  if (out.success) {
    return "it ran to the end instead of stopping at its first import";
  }
  const lines = err.split("\n").map((l) => l.trim()).filter((l) => l);
  return lines.slice(0, 2).join(" ") || "it exited with an error";
}
