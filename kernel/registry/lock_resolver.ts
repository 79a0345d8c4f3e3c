/**
 * The forge side of `agent lock`: a {@linkcode ForgeLockResolver} that
 * resolves a release, records the checksum of every platform its checksum
 * file lists (or those asked for), and installs the host's archive into
 * the cache to read the plugin's manifest.
 *
 * @module
 */
import { join } from "node:path";
import {
  type ForgeLockFacts,
  type ForgeLockRequest,
  type ForgeLockResolver,
  hostPlatform,
  readPluginManifest,
} from "../../config/mod.ts";
import {
  fetchReleaseChecksums,
  ForgeError,
  type ForgeOptions,
  installForgePlugin,
  resolveRelease,
} from "./install.ts";

/** Options for {@linkcode forgeLockResolver}. */
export interface ForgeLockResolverOptions extends ForgeOptions {
  /**
   * The platforms recorded (`--platform`); the host's archive is always
   * fetched to read the manifest.
   * @default {every platform of the release's checksum file}
   */
  platforms?: readonly string[];
}

/**
 * Makes the resolver `lockConfig` calls for forge providers.
 *
 * @param options The forge options and the platforms to record.
 * @returns The resolver.
 */
export function forgeLockResolver(
  options: ForgeLockResolverOptions = {},
): ForgeLockResolver {
  return async (req: ForgeLockRequest): Promise<ForgeLockFacts> => {
    if (req.mirror !== undefined && options.mirror === undefined) {
      options = { ...options, mirror: req.mirror };
    }
    const resolved = await resolveRelease(req.source, req.constraint, {
      ...options,
      ...(req.locked !== undefined ? { locked: req.locked } : {}),
      upgrade: req.upgrade,
    });
    const { version, checksums } = await fetchReleaseChecksums(
      resolved,
      options,
    );
    const host = hostPlatform();
    const expected = checksums[host];
    if (expected === undefined) {
      throw new ForgeError(
        `${req.source} ${version} publishes no archive for ${host} (its checksum file lists ${
          Object.keys(checksums).join(", ") || "no platform"
        })`,
      );
    }
    const recorded: Record<string, string> = {};
    for (const [k, v] of Object.entries(checksums)) {
      if (options.platforms === undefined || options.platforms.includes(k)) {
        recorded[k] = v;
      }
    }
    for (const p of options.platforms ?? []) {
      if (recorded[p] === undefined) {
        throw new ForgeError(
          `${req.source} ${version} publishes no archive for ${p} (its checksum file lists ${
            Object.keys(checksums).join(", ")
          })`,
        );
      }
    }
    const installed = await installForgePlugin(
      req.source,
      version,
      expected,
      options,
    );
    const { manifest, tools } = await readPluginManifest(
      join(installed.root, "plugin.json"),
      `plugin.json of ${req.source} ${version}`,
    );
    return {
      version,
      checksums: recorded,
      manifest,
      ...(tools ? { tools } : {}),
    };
  };
}
