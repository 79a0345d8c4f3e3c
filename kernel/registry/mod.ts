/**
 * Third-party plugins from the forge: the Releases APIs
 * ({@linkcode ForgeClient}), safe archive reading ({@linkcode readArchive})
 * and resolving, verifying and caching releases
 * ({@linkcode installForgePlugin}, {@linkcode resolveRelease}).
 *
 * @module
 */
export {
  ArchiveError,
  type ArchiveFile,
  DEFAULT_MAX_UNPACKED_BYTES,
  readArchive,
  type ReadArchiveOptions,
} from "./archive.ts";
export {
  FORGE_API_DEFAULTS,
  ForgeClient,
  type ForgeClientOptions,
  ForgeError,
  type ForgeHost,
  type ForgeSource,
  type FoundRepository,
  parseForgeSource,
  type Release,
  type ReleaseAsset,
  searchTopic,
  type SearchTopicOptions,
  type TopicSearchResult,
} from "./forge_api.ts";
export {
  assetNames,
  checksumFileName,
  type FetchedRelease,
  fetchReleaseChecksums,
  forgeCacheEntry,
  forgeCacheRoot,
  type ForgeOptions,
  type InstalledPlugin,
  installForgePlugin,
  parseChecksumFile,
  type ResolvedRelease,
  resolveRelease,
} from "./install.ts";
export {
  forgeLockResolver,
  type ForgeLockResolverOptions,
} from "./lock_resolver.ts";
