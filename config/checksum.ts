/**
 * Plugin artifact checksums for the lock file (config.md §5.4): platform
 * keys in Go's `<os>_<arch>` form, the digest of a plugin's artifact, and
 * the comparison.
 *
 * The artifact of a Deno plugin is its whole local module graph: the
 * manifest plus every `file:` module `deno info --json` lists for its
 * entrypoint, sorted by path relative to the plugin's root, each path and
 * each file's bytes length-prefixed, plus the exact specifiers of its
 * `npm:` and remote modules. Any change to any file the plugin runs changes
 * the digest. The artifact of an executable plugin is its binary plus its
 * manifest.
 *
 * @module
 */

import { sha256Hex } from "./_sha256.ts";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { PluginManifest } from "../contract/manifest.ts";

/**
 * The platforms a Deno plugin is locked for: Deno's release targets. A Deno
 * plugin's artifact is the same on each, so `agent lock` records the same
 * digest under every key (config.md §8.1 row 26: checksums cover every
 * platform the kernel installs for, not only the invoking one).
 */
export const DENO_PLATFORMS: readonly string[] = [
  "darwin_amd64",
  "darwin_arm64",
  "linux_amd64",
  "linux_arm64",
  "windows_amd64",
];

const GO_ARCH: Readonly<Record<string, string>> = {
  x86_64: "amd64",
  aarch64: "arm64",
};

/**
 * The lock file's key for a platform: Go's `GOOS_GOARCH` names
 * (`x86_64` → `amd64`, `aarch64` → `arm64`).
 *
 * @example Usage
 * ```ts
 * import { hostPlatform } from "./checksum.ts";
 * import assert from "node:assert/strict";
 * assert.equal(hostPlatform("linux", "x86_64"), "linux_amd64");
 * assert.equal(hostPlatform("darwin", "aarch64"), "darwin_arm64");
 * ```
 *
 * @param os The operating system.
 * @param arch The architecture.
 * @returns E.g. `linux_amd64`.
 */
export function hostPlatform(
  os: string = Deno.build.os,
  arch: string = Deno.build.arch,
): string {
  return `${os}_${GO_ARCH[arch] ?? arch}`;
}

/**
 * Compares a recorded checksum with a computed one by plain string equality
 * (config.md §5.4): checksums are public, so there is no timing channel to
 * protect, and the spec forbids a constant-time comparison.
 *
 * @example Usage
 * ```ts
 * import { checksumsEqual } from "./checksum.ts";
 * import assert from "node:assert/strict";
 * assert.ok(checksumsEqual("sha256:ab", "sha256:ab"));
 * assert.ok(!checksumsEqual("sha256:AB", "sha256:ab"));
 * ```
 *
 * @param recorded The lock file's value.
 * @param actual The computed value.
 * @returns Whether they are the same string.
 */
export function checksumsEqual(recorded: string, actual: string): boolean {
  return recorded === actual;
}

/** One file that went into a digest. */
export interface DigestedFile {
  /** Absolute path. */
  path: string;
  /** Path relative to the plugin's root, `/`-separated. */
  relative: string;
  /** SHA-256 of the file's bytes, lowercase hex. */
  sha256: string;
}

/** What {@linkcode computeArtifactChecksum} returns. */
export interface ArtifactDigest {
  /** `"sha256:<64 lowercase hex>"`. */
  checksum: string;
  /** The files hashed, sorted by relative path. */
  files: DigestedFile[];
  /** The exact `npm:` and remote module specifiers, sorted. */
  modules: string[];
}

/** The plugin's artifact cannot be read or its module graph resolved. */
export class ArtifactError extends Error {
  /**
   * Creates the error.
   *
   * @param message What went wrong.
   * @param options The cause.
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ArtifactError";
  }
}

/**
 * A Deno plugin's module graph loads a local file outside the folders it
 * may load from (its own folder and this package's SDK tree): a literal
 * `import("/etc/passwd", { with: { type: "text" } })` is not checked
 * against `--allow-read` by Deno, so such a plugin is refused up front.
 */
export class ModuleGraphError extends ArtifactError {
  /** The file outside the allowed folders. */
  readonly file: string;
  /**
   * Creates the error.
   *
   * @param message What was refused.
   * @param file The file outside the allowed folders.
   */
  constructor(message: string, file: string) {
    super(message);
    this.name = "ModuleGraphError";
    this.file = file;
  }
}

/**
 * The folders a local Deno plugin's modules may come from: the plugin's
 * own folder, and, when this package runs from a checkout, the package's
 * plugin SDK and the modules the SDK imports (`plugins/sdk`, `contract`,
 * `proto`). The OS sandbox binds exactly these folders read-only.
 *
 * @example Usage
 * ```ts
 * import { pluginModuleRoots } from "./checksum.ts";
 * import assert from "node:assert/strict";
 * const roots = pluginModuleRoots("/srv/plugins/notes");
 * assert.equal(roots[0], "/srv/plugins/notes");
 * ```
 *
 * @param pluginDir The plugin's folder (its manifest's directory).
 * @returns Absolute folders.
 */
export function pluginModuleRoots(pluginDir: string): string[] {
  const roots = [resolve(pluginDir)];
  for (const rel of ["../plugins/sdk/", "../contract/", "../proto/"]) {
    const u = new URL(rel, import.meta.url);
    if (u.protocol === "file:") roots.push(fileURLToPath(u).replace(/\/$/, ""));
  }
  return roots;
}

function underAny(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const rel = relative(root, path);
    return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
  });
}

/** Options for {@linkcode computeArtifactChecksum}. */
export interface ComputeArtifactChecksumOptions {
  /**
   * The `deno` executable that lists a Deno plugin's module graph.
   * @default {Deno.execPath()}
   */
  deno?: string;
}

/**
 * Computes the digest of a plugin's artifact.
 *
 * @example Usage
 * ```ts ignore
 * import { computeArtifactChecksum } from "./checksum.ts";
 * import { readManifest } from "../contract/manifest.ts";
 * const manifest = await readManifest("plugins/echo/plugin.json");
 * const { checksum } = await computeArtifactChecksum("plugins/echo/plugin.json", manifest);
 * console.log(checksum); // sha256:…
 * ```
 *
 * @param manifestPath The manifest's path (the plugin's root is its folder).
 * @param manifest The parsed manifest.
 * @param options Which `deno` lists the module graph.
 * @returns The checksum and what went into it.
 * @throws {ArtifactError} When a file cannot be read or a module of the
 *   graph cannot be resolved.
 */
export async function computeArtifactChecksum(
  manifestPath: string,
  manifest: PluginManifest,
  options: ComputeArtifactChecksumOptions = {},
): Promise<ArtifactDigest> {
  const root = dirname(resolve(manifestPath));
  const paths = new Set<string>([resolve(manifestPath)]);
  const modules = new Set<string>();
  const entry = resolve(root, manifest.entrypoint);
  // Each file is read and hashed once per call: the cached module graph is
  // validated with the same bytes (and hashes) that go into the digest.
  const reads = new FileReads();
  if (manifest.runtime === "executable") {
    paths.add(entry);
  } else {
    const graph = await moduleGraph(
      entry,
      root,
      options.deno ?? Deno.execPath(),
      reads,
    );
    const roots = pluginModuleRoots(root);
    for (const p of graph.files) {
      if (!underAny(p, roots)) {
        const by = graph.importers?.[p];
        throw new ModuleGraphError(
          `Its module graph loads "${p}"${
            by ? ` (imported by "${by}")` : ""
          }, outside the plugin's folder "${root}" and the plugin SDK: a Deno plugin may load local files only from its own folder`,
          p,
        );
      }
      paths.add(p);
    }
    for (const m of graph.modules) modules.add(m);
  }
  const files: DigestedFile[] = [];
  const contents = new Map<string, Uint8Array>();
  // Read and hashed side by side; the order of `paths` does not matter,
  // the files are sorted below.
  const read = await Promise.all([...paths].map(async (path) => {
    try {
      return { path, ...await reads.get(path) };
    } catch (err) {
      throw new ArtifactError(
        `Cannot read "${path}": ${err instanceof Error ? err.message : err}`,
        { cause: err },
      );
    }
  }));
  for (const { path, bytes, sha256 } of read) {
    const rel = relative(root, path).split(sep).join("/");
    contents.set(rel, bytes);
    files.push({ path, relative: rel, sha256 });
  }
  files.sort((
    a,
    b,
  ) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0));
  const h: (string | Uint8Array)[] = [];
  h.push("ph-agent-artifact-v1\n");
  h.push(`runtime\0${manifest.runtime}\n`);
  for (const f of files) {
    const bytes = contents.get(f.relative)!;
    const name = new TextEncoder().encode(f.relative);
    h.push(`file\0${name.byteLength}\0`);
    h.push(name);
    h.push(`\0${bytes.byteLength}\0`);
    h.push(bytes);
  }
  const sortedModules = [...modules].sort();
  for (const m of sortedModules) {
    const bytes = new TextEncoder().encode(m);
    h.push(`module\0${bytes.byteLength}\0`);
    h.push(bytes);
  }
  return {
    checksum: `sha256:${await sha256Hex(h)}`,
    files,
    modules: sortedModules,
  };
}

/**
 * Computes the digest of a plugin served from a remote module URL (a
 * first-party plugin when `@ph/agent` itself runs from a registry): the
 * manifest as parsed plus the exact specifiers of its module graph, which
 * name immutable, versioned files.
 *
 * @param entry The entrypoint's URL.
 * @param manifest The parsed manifest.
 * @param options Which `deno` lists the module graph.
 * @returns The checksum and the specifiers.
 * @throws {ArtifactError} When the module graph cannot be resolved.
 */
export async function computeRemoteArtifactChecksum(
  entry: string,
  manifest: PluginManifest,
  options: ComputeArtifactChecksumOptions = {},
): Promise<ArtifactDigest> {
  const graph = await moduleGraph(
    entry,
    Deno.cwd(),
    options.deno ?? Deno.execPath(),
  );
  const modules = [...new Set([...graph.modules, ...graph.files])].sort();
  const h: (string | Uint8Array)[] = [];
  h.push("ph-agent-artifact-v1\n");
  h.push(`runtime\0${manifest.runtime}\n`);
  const m = new TextEncoder().encode(JSON.stringify(manifest));
  h.push(`manifest\0${m.byteLength}\0`);
  h.push(m);
  for (const spec of modules) {
    const bytes = new TextEncoder().encode(spec);
    h.push(`module\0${bytes.byteLength}\0`);
    h.push(bytes);
  }
  return {
    checksum: `sha256:${await sha256Hex(h)}`,
    files: [],
    modules,
  };
}

interface DenoInfo {
  modules?: {
    specifier: string;
    local?: string;
    kind?: string;
    error?: string;
    dependencies?: {
      code?: { specifier?: string };
      type?: { specifier?: string };
    }[];
  }[];
}

interface Graph {
  files: string[];
  modules: string[];
  /** A module that imports each local file, by the file's path. */
  importers?: Record<string, string>;
}

interface CachedGraph extends Graph {
  key: string;
  /** Every file the graph depends on (modules, deno.json, deno.lock) and its hash. */
  inputs: { path: string; sha256: string }[];
}

async function graphCachePath(key: string): Promise<string | undefined> {
  const env = (k: string) => {
    try {
      return Deno.env.get(k);
    } catch {
      return undefined;
    }
  };
  const base = env("XDG_CACHE_HOME") ??
    (env("HOME") ? join(env("HOME")!, ".cache") : undefined);
  if (!base) return undefined;
  const name = (await sha256Hex(key)).slice(0, 32);
  return join(base, "ph-agent", "module-graphs", `${name}.json`);
}

/**
 * The files one checksum reads: each read and hashed at most once, so the
 * bytes that validate a cached module graph are the bytes digested.
 */
class FileReads {
  #reads = new Map<string, Promise<{ bytes: Uint8Array; sha256: string }>>();

  /** The file's bytes and SHA-256 (rejects when it cannot be read). */
  get(path: string): Promise<{ bytes: Uint8Array; sha256: string }> {
    let r = this.#reads.get(path);
    if (r === undefined) {
      r = Deno.readFile(path).then(async (bytes) => ({
        bytes,
        sha256: await sha256Hex(bytes),
      }));
      this.#reads.set(path, r);
    }
    return r;
  }

  /** The file's SHA-256, or `undefined` when it cannot be read. */
  async hash(path: string): Promise<string | undefined> {
    try {
      return (await this.get(path)).sha256;
    } catch {
      return undefined;
    }
  }
}

/** deno.json(c) and deno.lock at and above `dir` (what resolution depends on). */
async function resolutionFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (let d = dir;; d = dirname(d)) {
    for (const name of ["deno.json", "deno.jsonc", "deno.lock"]) {
      try {
        if ((await Deno.stat(join(d, name))).isFile) out.push(join(d, name));
      } catch {
        // absent
      }
    }
    if (dirname(d) === d) return out;
  }
}

/**
 * The module graph of `entry`, from a cache when nothing it depends on has
 * changed. A graph is a function of its local modules' contents, the
 * deno.json/deno.lock that resolve them and the Deno version, so when
 * every recorded input still hashes the same the cached graph is exact;
 * otherwise `deno info` runs again (about 100 ms, off the warm start path).
 */
async function moduleGraph(
  entry: string,
  root: string,
  deno: string,
  reads: FileReads = new FileReads(),
): Promise<Graph> {
  const key = `${Deno.version.deno}\0${deno}\0${entry}\0${root}`;
  const cachePath = await graphCachePath(key);
  if (cachePath) {
    try {
      const cached = JSON.parse(
        await Deno.readTextFile(cachePath),
      ) as CachedGraph;
      if (cached.key === key) {
        const hashes = await Promise.all(
          cached.inputs.map((i) => reads.hash(i.path)),
        );
        if (hashes.every((h, i) => h === cached.inputs[i]!.sha256)) {
          return {
            files: cached.files,
            modules: cached.modules,
            ...(cached.importers ? { importers: cached.importers } : {}),
          };
        }
      }
    } catch {
      // no usable cache entry
    }
  }
  const graph = await denoInfoGraph(entry, root, deno);
  if (cachePath) {
    try {
      const inputPaths = [
        ...new Set([...graph.files, ...await resolutionFiles(root)]),
      ];
      const inputs = [];
      for (const path of inputPaths) {
        const sha256 = await reads.hash(path);
        if (sha256) inputs.push({ path, sha256 });
      }
      const entryOut: CachedGraph = {
        key,
        files: graph.files,
        modules: graph.modules,
        ...(graph.importers ? { importers: graph.importers } : {}),
        inputs,
      };
      await Deno.mkdir(dirname(cachePath), { recursive: true });
      const tmp = `${cachePath}.${crypto.randomUUID()}.tmp`;
      await Deno.writeTextFile(tmp, JSON.stringify(entryOut));
      await Deno.rename(tmp, cachePath);
    } catch {
      // the cache is an optimization only
    }
  }
  return graph;
}

async function denoInfoGraph(
  entry: string,
  root: string,
  deno: string,
): Promise<Graph> {
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command(deno, {
      args: ["info", "--json", entry],
      cwd: root,
      env: { DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
  } catch (err) {
    throw new ArtifactError(
      `Cannot run "${deno} info": ${err instanceof Error ? err.message : err}`,
      { cause: err },
    );
  }
  const stderr = new TextDecoder().decode(out.stderr).trim();
  if (!out.success) {
    throw new ArtifactError(
      `Cannot list the module graph of "${entry}": ${
        stderr.split("\n").slice(0, 3).join(" ") ||
        `deno info exited ${out.code}`
      }`,
    );
  }
  let info: DenoInfo;
  try {
    info = JSON.parse(new TextDecoder().decode(out.stdout));
  } catch (err) {
    throw new ArtifactError(
      `Cannot read the output of "deno info" for "${entry}"`,
      {
        cause: err,
      },
    );
  }
  const files: string[] = [];
  const modules: string[] = [];
  const importers: Record<string, string> = {};
  const localOf = (specifier: string): string => {
    const local = fileURLToPath(specifier);
    return isAbsolute(local) ? local : join(root, local);
  };
  for (const m of info.modules ?? []) {
    if (!m.specifier.startsWith("file:")) continue;
    for (const d of m.dependencies ?? []) {
      for (const s of [d.code?.specifier, d.type?.specifier]) {
        if (s?.startsWith("file:")) {
          importers[localOf(s)] ??= localOf(m.specifier);
        }
      }
    }
  }
  for (const m of info.modules ?? []) {
    if (m.error !== undefined) {
      throw new ArtifactError(
        `Cannot resolve module "${m.specifier}" of the plugin: ${
          m.error.split("\n")[0]
        }`,
      );
    }
    if (m.specifier.startsWith("file:")) {
      const local = m.local ?? fileURLToPath(m.specifier);
      files.push(isAbsolute(local) ? local : join(root, local));
    } else {
      modules.push(m.specifier);
    }
  }
  return { files, modules, importers };
}
