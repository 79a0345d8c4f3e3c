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
 * The lock file records a first-party plugin's checksum as computed in a
 * checkout (its manifest and every local module of its graph, by content).
 * A registry serves those modules rewritten and from its own URLs, so the
 * package ships the checkout's digests in `builtin_checksums.json`
 * (regenerated and verified by `plugins/builtin_test.ts`): a lock file
 * written in a checkout then holds when the package runs from a registry,
 * and the other way round.
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
import checksumTable from "./builtin_checksums.json" with { type: "json" };

/** Names of the first-party plugins. */
export const BUILTIN_PLUGIN_NAMES: readonly string[] = [
  "agents",
  "agents-md",
  "anthropic",
  "commands",
  "compactor",
  "echo",
  "exec",
  "filesystem",
  "lsp",
  "mcp",
  "memory",
  "openai",
  "scripted",
  "search",
  "task",
  "tui",
  "user",
  "web",
  "webui",
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

/** What `builtin_checksums.json` holds. */
interface ChecksumTable {
  /** The table's format (1). */
  format: number;
  /** `sha256:<hex>` by plugin name. */
  checksums: Record<string, string>;
}

/** The file, beside this module, with the digests of the first-party plugins. */
export const BUILTIN_CHECKSUMS_FILE = "builtin_checksums.json";

/**
 * The lock-file checksum of a first-party plugin as shipped in this version
 * of the package: its digest in a checkout, read from
 * `builtin_checksums.json`. Used when the package runs from a registry,
 * where the plugin's files cannot be hashed as they are in a checkout.
 *
 * @example Usage
 * ```ts
 * import { builtinChecksum } from "./builtin.ts";
 * import assert from "node:assert/strict";
 * assert.match(builtinChecksum("echo")!, /^sha256:[0-9a-f]{64}$/);
 * assert.equal(builtinChecksum("no-such-plugin"), undefined);
 * ```
 *
 * @param name The plugin's name, e.g. `filesystem`.
 * @returns `sha256:<hex>`, or `undefined` when the table has no entry.
 * @throws {Error} When the table has the wrong shape.
 */
export function builtinChecksum(name: string): string | undefined {
  const table = checksumTable as Partial<ChecksumTable> | null;
  if (
    typeof table !== "object" || table === null || table.format !== 1 ||
    typeof table.checksums !== "object" || table.checksums === null
  ) {
    throw new Error(
      `Cannot read "${
        new URL(`./${BUILTIN_CHECKSUMS_FILE}`, import.meta.url).href
      }": expected {"format": 1, "checksums": {...}}`,
    );
  }
  const value = Object.hasOwn(table.checksums, name)
    ? table.checksums[name]
    : undefined;
  return typeof value === "string" ? value : undefined;
}

/**
 * The first-party plugins of this package, as the config compiler and the
 * kernel take them (`builtins` options).
 */
export const BUILTINS: BuiltinCatalog = {
  names: BUILTIN_PLUGIN_NAMES,
  manifestUrl: (name) => new URL(`./${name}/plugin.json`, import.meta.url),
  resolve: resolveBuiltin,
  checksum: builtinChecksum,
  checksumsFile: BUILTIN_CHECKSUMS_FILE,
};
