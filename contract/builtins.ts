/**
 * The first-party plugin catalogue as the layers below the CLI see it: an
 * interface, so that the config compiler and the kernel never import the
 * plugins themselves. `plugins/builtin.ts` implements it; the CLI and the
 * root module pass that implementation in (`builtins` options).
 *
 * @module
 */
import type { PluginManifest } from "./manifest.ts";

/** What the kernel needs to launch a first-party plugin. */
export interface BuiltinPlugin {
  /** The plugin's manifest. */
  manifest: PluginManifest;
  /** A local path (checkout) or a remote module URL (registry). */
  entrypoint: string;
  /** `builtin/<name>`. */
  source: string;
}

/** The first-party plugins shipped with a version of the package. */
export interface BuiltinCatalog {
  /** Names of the first-party plugins (`builtin/<name>`). */
  readonly names: readonly string[];
  /**
   * Where a first-party plugin's manifest is: a `file:` URL in a checkout, a
   * remote URL when the package runs from a registry.
   *
   * @param name A name from {@linkcode BuiltinCatalog.names}.
   * @returns The manifest's URL.
   */
  manifestUrl(name: string): URL;
  /**
   * Resolves `builtin/<name>` to a launchable plugin.
   *
   * @param source A source such as `builtin/echo`.
   * @returns The manifest and entrypoint, or `undefined` for a source that is
   * not a first-party plugin.
   */
  resolve(source: string): Promise<BuiltinPlugin | undefined>;
  /**
   * The lock-file checksum of a first-party plugin as shipped in this
   * version of the package (its digest in a checkout). Used when the package
   * runs from a registry, where the plugin's files cannot be hashed as they
   * are in a checkout.
   *
   * @param name A name from {@linkcode BuiltinCatalog.names}.
   * @returns `sha256:<hex>`, or `undefined` when none is recorded.
   */
  checksum(name: string): string | undefined;
  /** Where the recorded checksums are kept (for messages). */
  readonly checksumsFile: string;
}

/** The source prefix of first-party plugins. */
export const BUILTIN_SOURCE_PREFIX = "builtin/";

/**
 * The frontend name that selects the first-party web UI
 * (`--frontend web`, `settings.default_frontend = "web"`, `agent web`)
 * when no frontend provider of that local name is declared, and the
 * source it runs. The plugin is `builtin/webui` because `builtin/web` is
 * the web-fetch tool.
 */
export const WEB_UI_FRONTEND: {
  readonly name: string;
  readonly source: string;
  readonly grant: { readonly net: readonly string[] };
} = {
  name: "web",
  source: "builtin/webui",
  grant: { net: ["127.0.0.1"] },
};
