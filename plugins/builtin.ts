/**
 * First-party plugins shipped inside this package, named in `agent.hcl` by
 * the source `builtin/<name>` (the version is the package's own).
 *
 * Their modules sit beside this file, so they resolve against this
 * module's URL: a `file:` path in a checkout, or a registry URL when the
 * package itself runs from a registry. The kernel then makes a remote
 * module available to the child started with `--cached-only` by importing
 * it once (which caches its whole graph; plugin modules guard `serve()`
 * with `import.meta.main`).
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { parseManifest } from "../contract/manifest.ts";
import {
  BUILTIN_SOURCE_PREFIX,
  type BuiltinCatalog,
  type BuiltinPlugin,
} from "../contract/builtins.ts";

export { BUILTIN_SOURCE_PREFIX, type BuiltinCatalog, type BuiltinPlugin };

/** Names of the first-party plugins. */
export const BUILTIN_PLUGIN_NAMES: readonly string[] = [
  "agents-md",
  "anthropic",
  "echo",
  "exec",
  "filesystem",
  "mcp",
  "memory",
  "openai",
  "scripted",
  "search",
  "task",
  "user",
  "web",
];

/**
 * Resolves `builtin/<name>` to a launchable plugin.
 *
 * @param source A source such as `builtin/echo`.
 * @returns The manifest and entrypoint, or `undefined` for a source that is
 * not a first-party plugin.
 */
export async function resolveBuiltin(
  source: string,
): Promise<BuiltinPlugin | undefined> {
  if (!source.startsWith(BUILTIN_SOURCE_PREFIX)) return undefined;
  const name = source.slice(BUILTIN_SOURCE_PREFIX.length);
  if (!BUILTIN_PLUGIN_NAMES.includes(name)) return undefined;
  const manifestUrl = new URL(`./${name}/plugin.json`, import.meta.url);
  // A checkout reads the file (a dynamic import costs a module-graph pass,
  // ~30 ms on the start path); a remote package imports it (which also
  // caches it).
  const raw = manifestUrl.protocol === "file:"
    ? JSON.parse(await Deno.readTextFile(manifestUrl))
    : (await import(manifestUrl.href, { with: { type: "json" } })).default;
  const manifest = parseManifest(raw, manifestUrl.href);
  const entry = new URL(`./${name}/${manifest.entrypoint}`, import.meta.url);
  return {
    manifest,
    entrypoint: entry.protocol === "file:" ? fileURLToPath(entry) : entry.href,
    source,
  };
}

/**
 * The first-party plugins of this package, as the config compiler and the
 * kernel take them (`builtins` options).
 */
export const BUILTINS: BuiltinCatalog = {
  names: BUILTIN_PLUGIN_NAMES,
  manifestUrl: (name) => new URL(`./${name}/plugin.json`, import.meta.url),
  resolve: resolveBuiltin,
};
