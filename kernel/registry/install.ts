/**
 * Resolving, downloading, verifying and caching forge plugins (config.md
 * §5.4–§5.6): the newest release satisfying a constraint (or the locked
 * version while it still does), the goreleaser asset for a platform, the
 * release's checksum file checked **before** anything is unpacked, and the
 * shared cache `$XDG_CACHE_HOME/agent/plugins/<host>/<path>/<version>/<os>_<arch>/`
 * written atomically under a file lock and re-verified against the lock
 * file's checksum at every launch.
 *
 * A cache entry holds the downloaded archive (`<asset name>`) and its
 * unpacked files (`plugin/`); verifying an entry hashes the archive against
 * the lock's checksum and compares every unpacked file with the archive's.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { join } from "node:path";
// The leaf modules, not config/mod.ts: a second `agent` process that only
// installs loads no HCL machinery.
import { hostPlatform } from "../../config/checksum.ts";
import {
  type RegistryMirror,
  selectMirror,
} from "../../config/global_config.ts";
import {
  selectNewest,
  type VersionConstraint,
} from "../../config/version_constraint.ts";
import { ArchiveError, type ArchiveFile, readArchive } from "./archive.ts";
import { checkDenoBundleGraph } from "./bundle_check.ts";
import { warmForgeCodeCache } from "./_code_cache.ts";
import {
  ForgeClient,
  ForgeError,
  type ForgeSource,
  parseForgeSource,
  type Release,
} from "./forge_api.ts";
import { pathExists as exists } from "../process/_path_exists.ts";

export { ForgeError };

/** Where and how forge plugins are fetched and cached. */
export interface ForgeOptions {
  /**
   * The environment: `XDG_CACHE_HOME`/`HOME` (the cache), the API bases
   * and the tokens.
   * @default {{}}
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * The `registry_mirror` block of the global config: downloads go to the
   * mirror whose prefix matches the source (releases are still listed on
   * the forge).
   * @default {undefined}
   */
  mirror?: RegistryMirror | undefined;
  /**
   * Never touch the network: only the cache is used.
   * @default {false}
   */
  offline?: boolean;
  /**
   * Told about a refused cache entry (it is then fetched again).
   * @default {() => {}}
   */
  onWarning?: (message: string) => void;
  /**
   * The fetch implementation.
   * @default {globalThis.fetch}
   */
  fetch?: typeof fetch;
  /**
   * The largest archive downloaded or unpacked, in bytes.
   * @default {536870912}
   */
  maxBytes?: number;
}

/**
 * The cache's root: `$XDG_CACHE_HOME/agent/plugins` (`~/.cache` when
 * unset).
 *
 * @param env The environment.
 * @returns The folder.
 * @throws {ForgeError} When neither `XDG_CACHE_HOME` nor `HOME` is set.
 */
export function forgeCacheRoot(
  env: Readonly<Record<string, string | undefined>>,
): string {
  const base = env.XDG_CACHE_HOME ||
    (env.HOME ? join(env.HOME, ".cache") : undefined);
  if (base === undefined) {
    throw new ForgeError(
      "Cannot place the plugin cache: neither XDG_CACHE_HOME nor HOME is set",
    );
  }
  return join(base, "agent", "plugins");
}

/**
 * A version's cache entry for a platform.
 *
 * @param source The source.
 * @param version The version.
 * @param platform `<os>_<arch>`.
 * @param env The environment.
 * @returns The folder.
 */
export function forgeCacheEntry(
  source: string,
  version: string,
  platform: string,
  env: Readonly<Record<string, string | undefined>>,
): string {
  const s = parseForgeSource(source);
  return join(
    forgeCacheRoot(env),
    s.host,
    ...s.path.split("/"),
    version,
    platform,
  );
}

/**
 * The goreleaser asset names of a platform's archive, `.tar.gz` first.
 *
 * @example Usage
 * ```ts
 * import { assetNames } from "./install.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(assetNames("provider-fs", "0.9.7", "linux_amd64"), [
 *   "provider-fs_0.9.7_linux_amd64.tar.gz",
 *   "provider-fs_0.9.7_linux_amd64.zip",
 * ]);
 * ```
 *
 * @param name The project's name.
 * @param version The version (no `v`).
 * @param platform `<os>_<arch>`.
 * @returns The candidate names.
 */
export function assetNames(
  name: string,
  version: string,
  platform: string,
): string[] {
  return [
    `${name}_${version}_${platform}.tar.gz`,
    `${name}_${version}_${platform}.zip`,
  ];
}

/**
 * The release's checksum file name (goreleaser's default).
 *
 * @param name The project's name.
 * @param version The version.
 * @returns `<name>_<version>_checksums.txt`.
 */
export function checksumFileName(name: string, version: string): string {
  return `${name}_${version}_checksums.txt`;
}

/**
 * Parses a checksum file: `<64 hex>  <file name>` lines.
 *
 * @param text The file.
 * @param what Its name, for messages.
 * @returns File name → `sha256:<hex>`.
 * @throws {ForgeError} For a malformed line.
 */
export function parseChecksumFile(
  text: string,
  what: string,
): Map<string, string> {
  const out = new Map<string, string>();
  for (const [i, line] of text.split("\n").entries()) {
    const l = line.trim();
    if (l === "") continue;
    const m = /^([0-9a-fA-F]{64})\s+\*?(\S+)$/.exec(l);
    if (!m) {
      throw new ForgeError(
        `${what} line ${i + 1} is not "<sha256 hex>  <file name>"`,
      );
    }
    out.set(m[2]!, `sha256:${m[1]!.toLowerCase()}`);
  }
  return out;
}

/** The platforms a checksum file lists archives for. */
function platformsOf(
  name: string,
  version: string,
  sums: Map<string, string>,
): Map<string, string> {
  const out = new Map<string, string>();
  const prefix = `${name}_${version}_`;
  for (const [file, sum] of sums) {
    if (!file.startsWith(prefix)) continue;
    const m = /^([a-z0-9]+_[a-z0-9]+)\.(tar\.gz|zip)$/.exec(
      file.slice(prefix.length),
    );
    if (m && !out.has(m[1]!)) out.set(m[1]!, sum);
  }
  return out;
}

function sha256(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/** A resolved release. */
export interface ResolvedRelease {
  /** The parsed source. */
  source: ForgeSource;
  /** The release. */
  release: Release;
  /** Every published version, newest-first order not guaranteed. */
  versions: string[];
}

/**
 * Lists a source's releases and picks one: the locked version while it
 * satisfies the constraint (unless `upgrade`), else the newest satisfying
 * version (pre-releases only for an exact pre-release constraint).
 *
 * @param source The source.
 * @param constraint The constraint.
 * @param options The locked version, `upgrade`, and the forge options.
 * @returns The chosen release and every version listed.
 * @throws {ForgeError} When none satisfies it or the forge cannot be read.
 */
export async function resolveRelease(
  source: string,
  constraint: VersionConstraint,
  options: ForgeOptions & { locked?: string; upgrade?: boolean } = {},
): Promise<ResolvedRelease> {
  const s = parseForgeSource(source);
  if (options.offline) {
    throw new ForgeError(
      `Cannot resolve ${source}: offline (--locked), and resolving lists its releases on the forge`,
    );
  }
  const client = new ForgeClient(s.host, clientOptions(options));
  const releases = await client.listReleases(s);
  const byVersion = new Map(releases.map((r) => [r.version, r]));
  const versions = [...byVersion.keys()];
  let chosen: string | undefined;
  if (
    options.locked !== undefined && !options.upgrade &&
    byVersion.has(options.locked) &&
    selectNewest([options.locked], constraint) !== undefined
  ) chosen = options.locked;
  chosen ??= selectNewest(versions, constraint);
  if (chosen === undefined) {
    throw new ForgeError(
      `No release of ${source} satisfies the constraint (published: ${
        versions.length === 0 ? "none" : versions.slice(0, 20).join(", ")
      })`,
    );
  }
  return { source: s, release: byVersion.get(chosen)!, versions };
}

function clientOptions(o: ForgeOptions): {
  env: Readonly<Record<string, string | undefined>>;
  fetch?: typeof fetch;
} {
  return { env: o.env ?? {}, ...(o.fetch ? { fetch: o.fetch } : {}) };
}

async function readBody(
  res: Response,
  max: number,
  what: string,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let n = 0;
  for await (const c of res.body ?? new ReadableStream<Uint8Array>()) {
    n += c.byteLength;
    if (n > max) {
      await res.body?.cancel().catch(() => {});
      throw new ForgeError(`${what} is larger than ${max} bytes`);
    }
    chunks.push(c);
  }
  const out = new Uint8Array(n);
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.byteLength;
  }
  return out;
}

/** Downloads one asset of a release: from the mirror when one applies. */
async function download(
  s: ForgeSource,
  release: Release,
  file: string,
  options: ForgeOptions,
  client: ForgeClient,
): Promise<Uint8Array> {
  const max = options.maxBytes ?? 512 * 1024 * 1024;
  const what = `${file} of ${s.source} ${release.version}`;
  if (options.mirror) {
    const sel = selectMirror(options.mirror, s.source);
    const rest = s.source.slice(sel.prefix?.length ?? 0).replace(/^\/+/, "");
    const url = `${sel.url.replace(/\/+$/, "")}/${rest}/${release.tag}/${file}`;
    const origin = new URL(url).origin;
    let current = url;
    for (let hop = 0; hop < 5; hop++) {
      const headers: Record<string, string> = { "user-agent": "ph-agent" };
      if (sel.auth !== undefined && new URL(current).origin === origin) {
        headers.authorization = `Bearer ${String(sel.auth.reveal())}`;
      }
      let res: Response;
      try {
        res = await (options.fetch ?? fetch)(current, {
          headers,
          redirect: "manual",
        });
      } catch (err) {
        throw new ForgeError(
          `Cannot fetch ${what} from the mirror ${origin}: ${
            err instanceof Error ? err.message : String(err)
          }`,
        );
      }
      if (
        res.status >= 300 && res.status < 400 && res.headers.has("location")
      ) {
        await res.body?.cancel();
        current = new URL(res.headers.get("location")!, current).href;
        continue;
      }
      if (!res.ok) {
        await res.body?.cancel();
        throw new ForgeError(
          `Cannot fetch ${what} from the mirror ${origin}: HTTP ${res.status}`,
        );
      }
      return await readBody(res, max, what);
    }
    throw new ForgeError(`Cannot fetch ${what}: too many redirects`);
  }
  const asset = release.assets.find((a) => a.name === file);
  if (!asset) {
    throw new ForgeError(
      `Release ${release.tag} of ${s.source} has no ${file}`,
    );
  }
  const res = await client.get(asset.url, what, {
    ...(asset.accept ? { headers: { accept: asset.accept } } : {}),
  });
  return await readBody(res, max, what);
}

/** What {@linkcode fetchRelease} returns. */
export interface FetchedRelease {
  /** The version. */
  version: string;
  /** Every platform the checksum file lists → `sha256:<hex>` of its archive. */
  checksums: Record<string, string>;
}

/**
 * Reads a release's checksum file: the archive checksum of every platform.
 *
 * @param resolved The release.
 * @param options The forge options.
 * @returns The version and its checksums.
 * @throws {ForgeError} When the file is missing or malformed.
 */
export async function fetchReleaseChecksums(
  resolved: ResolvedRelease,
  options: ForgeOptions = {},
): Promise<FetchedRelease> {
  const { source: s, release } = resolved;
  const client = new ForgeClient(s.host, clientOptions(options));
  const name = checksumFileName(s.name, release.version);
  const text = new TextDecoder().decode(
    await download(s, release, name, options, client),
  );
  const sums = platformsOf(
    s.name,
    release.version,
    parseChecksumFile(text, name),
  );
  const checksums: Record<string, string> = {};
  for (const k of [...sums.keys()].sort()) checksums[k] = sums.get(k)!;
  return { version: release.version, checksums };
}

/** What {@linkcode installForgePlugin} returns. */
export interface InstalledPlugin {
  /** The plugin's folder (its `plugin.json`). */
  root: string;
  /** The cache entry. */
  entry: string;
  /** The archive's checksum. */
  checksum: string;
  /** Whether it was downloaded now (not found valid in the cache). */
  downloaded: boolean;
}

/**
 * Checks a cache entry: the archive's hash equals `expected`, and the
 * unpacked files are exactly the archive's.
 *
 * @returns `undefined` when valid, else why not.
 */
async function verifyEntry(
  entry: string,
  expected: string,
  max: number,
): Promise<string | undefined> {
  let archiveName: string | undefined;
  try {
    for await (const e of Deno.readDir(entry)) {
      if (e.isFile && (e.name.endsWith(".tar.gz") || e.name.endsWith(".zip"))) {
        archiveName = e.name;
      }
    }
  } catch {
    return "it is missing";
  }
  if (archiveName === undefined) return "its archive is missing";
  const bytes = await Deno.readFile(join(entry, archiveName));
  const actual = sha256(bytes);
  if (actual !== expected) {
    return `its archive's checksum is ${actual}, the lock file records ${expected}`;
  }
  let files: ArchiveFile[];
  try {
    files = readArchive(archiveName, bytes, { maxBytes: max });
  } catch (err) {
    return `its archive cannot be read (${(err as Error).message})`;
  }
  const want = new Map(files.map((f) => [f.path, f]));
  const root = join(entry, "plugin");
  const chunk = new Uint8Array(256 * 1024);
  const seen = new Set<string>();
  const walk = async (
    dir: string,
    rel: string,
  ): Promise<string | undefined> => {
    for await (const e of Deno.readDir(dir)) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory) {
        const why = await walk(join(dir, e.name), r);
        if (why) return why;
        continue;
      }
      const f = want.get(r);
      if (!e.isFile || f === undefined) return `"${r}" is not in its archive`;
      if (!(await fileHolds(join(dir, e.name), f.data, chunk))) {
        return `"${r}" differs from its archive`;
      }
      seen.add(r);
    }
    return undefined;
  };
  try {
    const why = await walk(root, "");
    if (why) return why;
  } catch {
    return "its files cannot be read";
  }
  for (const p of want.keys()) {
    if (!seen.has(p)) return `"${p}" is missing`;
  }
  return undefined;
}

/**
 * Whether the file at `path` holds exactly `want`. It is read through one
 * reused buffer and compared in place: a launch compares every cached file
 * with the archive's, and reading a 1.2 MB bundle whole and copying it into
 * a Buffer cost 11-18 ms of a cold kernel's CPU, this 4-8 ms.
 */
async function fileHolds(
  path: string,
  want: Uint8Array,
  chunk: Uint8Array,
): Promise<boolean> {
  const file = await Deno.open(path);
  try {
    let off = 0;
    for (;;) {
      const n = await file.read(chunk);
      if (n === null) return off === want.byteLength;
      if (off + n > want.byteLength) return false;
      const got = Buffer.from(chunk.buffer, chunk.byteOffset, n);
      if (!got.equals(want.subarray(off, off + n))) return false;
      off += n;
    }
  } finally {
    file.close();
  }
}

/** The entrypoint of a release's Deno plugin, from its plugin.json. */
function denoEntrypoint(files: readonly ArchiveFile[]): string | undefined {
  const f = files.find((x) => x.path === "plugin.json");
  if (f === undefined) return undefined;
  try {
    const m = JSON.parse(new TextDecoder().decode(f.data));
    // An invalid manifest is refused when it is read, with its own error.
    return m?.runtime === "deno" && typeof m.entrypoint === "string"
      ? m.entrypoint
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Makes a forge plugin's version available in the cache for a platform
 * and returns its folder: a valid cache entry is used as it is (verified
 * against `expected`); a tampered one is removed and fetched again (unless
 * offline); otherwise the archive is downloaded, checked against the
 * release's checksum file (and `expected`) before anything is unpacked,
 * unpacked safely into a temporary folder and renamed into place, under a
 * file lock so that concurrent installs of the same entry wait for each
 * other.
 *
 * @param source The source.
 * @param version The exact version.
 * @param expected The lock file's checksum for the platform, when locked.
 * @param options The platform, the forge options.
 * @returns The plugin's folder.
 * @throws {ForgeError} When it cannot be fetched or verified.
 */
export async function installForgePlugin(
  source: string,
  version: string,
  expected: string | undefined,
  options: ForgeOptions & { platform?: string } = {},
): Promise<InstalledPlugin> {
  const env = options.env ?? {};
  const platform = options.platform ?? hostPlatform();
  const max = options.maxBytes ?? 512 * 1024 * 1024;
  const s = parseForgeSource(source);
  const entry = forgeCacheEntry(source, version, platform, env);
  const label = `${source} ${version} (${platform})`;
  const check = async (): Promise<InstalledPlugin | undefined> => {
    if (!(await exists(entry))) return undefined;
    if (expected === undefined) {
      // Not locked yet: the entry is trusted as far as the release's
      // checksum file says; re-read it then.
      return undefined;
    }
    const why = await verifyEntry(entry, expected, max);
    if (why === undefined) {
      return {
        root: join(entry, "plugin"),
        entry,
        checksum: expected,
        downloaded: false,
      };
    }
    options.onWarning?.(
      `The cached ${label} at ${entry} is refused: ${why}. ${
        options.offline ? "" : "Fetching it again."
      }`.trimEnd(),
    );
    await Deno.remove(entry, { recursive: true }).catch(() => {});
    return undefined;
  };
  const cached = await check();
  if (cached) return cached;
  if (options.offline) {
    throw new ForgeError(
      `${label} is not in the plugin cache (${entry}) and --locked forbids the network: run "agent providers install" or "agent lock" first`,
    );
  }
  const parent = join(entry, "..");
  await Deno.mkdir(parent, { recursive: true });
  const lock = await Deno.open(join(parent, `.${platform}.lock`), {
    create: true,
    write: true,
  });
  try {
    await lock.lock(true);
    const again = await check();
    if (again) return again;
    if (await exists(entry)) {
      await Deno.remove(entry, { recursive: true });
    }
    const client = new ForgeClient(s.host, clientOptions(options));
    const releases = await client.listReleases(s);
    const release = releases.find((r) => r.version === version);
    if (!release) {
      throw new ForgeError(`${source} has no published release ${version}`);
    }
    const sumsName = checksumFileName(s.name, version);
    const sums = parseChecksumFile(
      new TextDecoder().decode(
        await download(s, release, sumsName, options, client),
      ),
      sumsName,
    );
    const names = assetNames(s.name, version, platform);
    const assetName = names.find((n) => sums.has(n));
    if (assetName === undefined) {
      const have = [...platformsOf(s.name, version, sums).keys()];
      throw new ForgeError(
        `${source} ${version} publishes no archive for ${platform} (its checksum file ${sumsName} lists ${
          have.length ? have.join(", ") : "no platform"
        })`,
      );
    }
    const published = sums.get(assetName)!;
    if (expected !== undefined && expected !== published) {
      throw new ForgeError(
        `${label}: the release's checksum file now lists ${published} for ${assetName}, the lock file records ${expected}. The release was changed after it was locked; refusing it.`,
      );
    }
    const bytes = await download(s, release, assetName, options, client);
    const actual = sha256(bytes);
    if (actual !== published) {
      throw new ForgeError(
        `${label}: ${assetName} has checksum ${actual}, but ${sumsName} lists ${published}. Refusing the download (nothing was unpacked).`,
      );
    }
    let files: ArchiveFile[];
    try {
      files = readArchive(assetName, bytes, { maxBytes: max });
    } catch (err) {
      throw new ForgeError(
        `${label}: ${assetName} is refused: ${
          err instanceof ArchiveError ? err.message : String(err)
        }`,
      );
    }
    const tmp = join(parent, `.tmp-${platform}-${crypto.randomUUID()}`);
    try {
      await Deno.mkdir(join(tmp, "plugin"), { recursive: true });
      await Deno.writeFile(join(tmp, assetName), bytes);
      for (const f of files) {
        const path = join(tmp, "plugin", ...f.path.split("/"));
        await Deno.mkdir(join(path, ".."), { recursive: true });
        await Deno.writeFile(path, f.data, {
          mode: f.executable ? 0o755 : 0o644,
        });
      }
      // A Deno plugin's imports must stay inside its folder before it is
      // cached: the cache is verified file for file at every launch, so
      // the graph checked here is the one that runs.
      const deno = denoEntrypoint(files);
      if (deno !== undefined) {
        await checkDenoBundleGraph(join(tmp, "plugin"), deno, label);
      }
      await Deno.rename(tmp, entry);
      if (deno !== undefined) {
        await warmForgeCodeCache(join(entry, "plugin", deno), env);
      }
    } catch (err) {
      await Deno.remove(tmp, { recursive: true }).catch(() => {});
      if (err instanceof ForgeError) throw err;
      throw new ForgeError(
        `${label}: cannot write the cache entry ${entry}: ${
          err instanceof Error ? err.message : String(err)
        }`,
      );
    }
    return {
      root: join(entry, "plugin"),
      entry,
      checksum: actual,
      downloaded: true,
    };
  } finally {
    await lock.unlock().catch(() => {});
    lock.close();
  }
}
