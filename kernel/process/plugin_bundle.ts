/**
 * Bundled first-party plugins: one `deno bundle` of a builtin plugin's
 * module graph (tree-shaken, its npm packages included, split only where
 * the code imports lazily), cached per plugin and per locked checksum, and
 * started instead of the module graph. A bundled plugin starts with about a
 * quarter less CPU and 7 MiB less memory (README, "Benchmarks").
 *
 * **Where.** `<DENO_DIR>/agent-bundles/v2/<name>/<key>/`, where `<key>`
 * digests the plugin's lock-file checksum (its manifest and every module
 * of its graph, as `agent lock` records it) and the Deno version. The
 * entry lives in the Deno cache because it is made of it (the npm packages
 * it inlines) and shares its protection: the OS sandbox binds the Deno
 * cache read-only into every Deno plugin, even under a write grant that
 * covers it, so no plugin can change a bundle another plugin runs, as none
 * can change the npm packages the module graph loads.
 *
 * **Verified at every launch.** An entry holds the bundle's files and
 * `bundle.json`, which records the plugin, its checksum, the Deno version
 * and the SHA-256 of each file. {@linkcode PluginBundles.find} re-reads
 * and re-hashes every file: an entry with a missing, extra or changed file
 * (or whose record names another checksum) is refused, removed, and the
 * plugin runs from its module graph.
 *
 * **Built off the start path.** {@linkcode PluginBundles.build} runs
 * `deno bundle --code-splitting` into a private temporary folder, refuses
 * a bundle in which more than one module tests `import.meta.main`, checks
 * that the plugin's files still have the checksum the entry is keyed on,
 * writes the record and renames the folder into place (an entry is whole or
 * absent), under a lock file (created exclusively; a second builder skips
 * instead of waiting). A build that fails for good (`deno bundle` exits with
 * an error, or the bundle is refused) is recorded beside the entry
 * (`<key>.failed`) and tried again only with `retry` (`agent lock`); one
 * whose download failed (esbuild, fetched on first use) is recorded as
 * `<key>.offline` and tried again by a launch an hour later. It then
 * compiles the bundle once, with the plugins' V8 flags, so that V8's code
 * cache for it is in the Deno cache before the first sandboxed start (a
 * plugin cannot write the cache; V8 refuses a code cache made with other
 * flags); a warm-up that compiles nothing is reported.
 *
 * @module
 */
import { getLogger } from "@logtape/logtape";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { denoRuntimeEnv } from "../../contract/runtime_env.ts";
import { denoCacheDir, denoNpmRegistry } from "./_module_cache.ts";
import { warmUpArgs, warmUpFailure, warmUpModule } from "./_compile_only.ts";
import { pathExists as exists } from "./_path_exists.ts";

/**
 * Packages left out of every bundle: optional imports that no builtin
 * installs. Ink loads `react-devtools-core` only with `DEV=true`, after
 * checking that it resolves; esbuild would refuse the whole bundle of
 * builtin/tui for it.
 */
const BUNDLE_EXTERNALS: readonly string[] = ["react-devtools-core"];
/** What `deno bundle` prints when a download failed (not a final failure). */
const NOT_FINAL_BUNDLE_ERROR =
  /error sending request|Failed (?:loading|fetching|downloading) https?:/i;
/** How long launches skip a build whose download failed (`<key>.offline`). */
const OFFLINE_RETRY_MS = 60 * 60_000;
/** The format of `bundle.json`. */
const RECORD_FORMAT = 1;
/** The record's file name inside an entry. */
export const BUNDLE_RECORD = "bundle.json";
/** The bundle's entry module inside an entry. */
export const BUNDLE_ENTRY = "main.js";
/** A build lock older than this is taken over (its builder died). */
const STALE_LOCK_MS = 10 * 60_000;
/** Default bound on one `deno bundle` run and on the code-cache warm-up. */
export const DEFAULT_BUNDLE_TIMEOUT_MS = 120_000;

/** A first-party plugin that may run from a bundle. */
export interface BundleSource {
  /** The builtin's name, e.g. `filesystem`. */
  readonly name: string;
  /** Its lock-file checksum (`sha256:<hex>`), verified by the config compiler. */
  readonly checksum: string;
  /** The absolute path of its entry module. */
  readonly entrypoint: string;
  /** The absolute path of its `plugin.json`. */
  readonly manifestPath: string;
}

/** A verified bundle. */
export interface PluginBundle {
  /** The entry's folder (what the sandbox shows of the plugin). */
  readonly dir: string;
  /** Its entry module. */
  readonly entry: string;
}

/** What `bundle.json` holds. */
interface BundleRecord {
  format: number;
  name: string;
  checksum: string;
  deno: string;
  /** SHA-256 (hex) of each file of the bundle, by file name. */
  files: Record<string, string>;
}

/** Options of {@linkcode PluginBundles}. */
export interface PluginBundlesOptions {
  /** The Deno cache the entries live in (the plugins' `DENO_DIR`). */
  readonly denoDir: string;
  /**
   * The folder the entries live under.
   * @default {`<denoDir>/agent-bundles/v2`}
   */
  readonly root?: string;
  /**
   * The environment of the `deno bundle` and warm-up processes (its Deno
   * runtime settings: the npm registry, TLS roots, proxies).
   * @default {{}}
   */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * The `deno` executable.
   * @default {Deno.execPath()}
   */
  readonly deno?: string;
  /**
   * Bound on each child process of a build.
   * @default {120000}
   */
  readonly timeoutMs?: number;
  /** Told about a refused entry or a failed build. */
  readonly onWarning?: (message: string) => void;
}

/** Why a build did not produce an entry. */
export class BundleBuildError extends Error {
  /**
   * True when building again would fail the same way (`deno bundle`
   * refused the graph, or the bundle was refused): the failure is
   * recorded beside the entry and only a build with `retry` tries again.
   */
  readonly final: boolean;
  /**
   * True when a download failed (`deno bundle` fetches esbuild into the
   * Deno cache on first use): not final, but launches skip the build for
   * {@linkcode OFFLINE_RETRY_MS} instead of trying at every close.
   */
  readonly download: boolean;
  /**
   * Creates the error.
   *
   * @param message What failed.
   * @param options The cause, and whether the failure is final.
   */
  constructor(
    message: string,
    options?: ErrorOptions & { final?: boolean; download?: boolean },
  ) {
    super(message, options);
    this.name = "BundleBuildError";
    this.final = options?.final ?? false;
    this.download = options?.download ?? false;
  }
}

/** Options of {@linkcode PluginBundles.build}. */
export interface BundleBuildOptions {
  /**
   * Build even when an earlier build of the same plugin and checksum
   * failed for good (`agent lock` does; a launch does not).
   * @default {false}
   */
  readonly retry?: boolean;
}

function sha256(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * The bundle cache of first-party plugins: finds verified entries and
 * builds missing ones. Builds run as child processes that
 * {@linkcode PluginBundles.close} ends.
 *
 * @example Usage
 * ```ts ignore
 * const bundles = new PluginBundles({ denoDir: denoCacheDir() });
 * const found = await bundles.find(source); // undefined: not built yet
 * if (!found) await bundles.build(source);
 * ```
 */
export class PluginBundles {
  #options: PluginBundlesOptions;
  #children = new Set<Deno.ChildProcess>();
  #closed = false;

  /**
   * Creates the cache; nothing is read until the first call.
   *
   * @param options Where, and how builds run.
   */
  constructor(options: PluginBundlesOptions) {
    this.#options = options;
  }

  /** The folder every entry lives under. */
  get root(): string {
    return this.#options.root ??
      join(this.#options.denoDir, "agent-bundles", "v2");
  }

  /**
   * The entry's folder of a plugin at a checksum.
   *
   * @param source The plugin.
   * @returns The folder (which may not exist).
   */
  entryDir(source: Pick<BundleSource, "name" | "checksum">): string {
    if (!/^[a-z0-9][a-z0-9-]*$/.test(source.name)) {
      throw new RangeError(`Cannot bundle plugin "${source.name}": bad name`);
    }
    const key = sha256(`${source.checksum}\0${Deno.version.deno}`).slice(
      0,
      32,
    );
    return join(this.root, source.name, key);
  }

  /**
   * A verified bundle of the plugin at its checksum: every file of the
   * entry is hashed and compared with its record. An entry that does not
   * verify is reported, removed, and `undefined` returned.
   *
   * @param source The plugin and its locked checksum.
   * @returns The bundle, or `undefined` when there is no valid one.
   */
  async find(source: BundleSource): Promise<PluginBundle | undefined> {
    const dir = this.entryDir(source);
    const why = await verifyEntry(dir, source);
    if (why === undefined) return { dir, entry: join(dir, BUNDLE_ENTRY) };
    if (why === "") return undefined; // not built
    this.#options.onWarning?.(
      `The cached bundle of builtin/${source.name} at ${dir} is refused: ${why}; the plugin runs from its module graph and the bundle is built again`,
    );
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    return undefined;
  }

  /**
   * Builds the plugin's bundle into the cache (nothing when a valid entry
   * exists, when another process is building it, or, without `retry`,
   * when an earlier build failed for good).
   *
   * @param source The plugin and its locked checksum.
   * @param options Whether to retry a failed build.
   * @returns The bundle, or `undefined` when it was not built now.
   * @throws {BundleBuildError} When `deno bundle` fails, the bundle is
   * refused, or the plugin's files no longer have `source.checksum`.
   */
  async build(
    source: BundleSource,
    options: BundleBuildOptions = {},
  ): Promise<PluginBundle | undefined> {
    const existing = await this.find(source);
    if (existing) return existing;
    const dir = this.entryDir(source);
    const failedPath = `${dir}.failed`;
    const offlinePath = `${dir}.offline`;
    if (options.retry) {
      await Deno.remove(failedPath).catch(() => {});
      await Deno.remove(offlinePath).catch(() => {});
    } else if (
      await exists(failedPath) || await recentlyOffline(offlinePath)
    ) return undefined;
    const parent = join(dir, "..");
    await Deno.mkdir(parent, { recursive: true });
    const lockPath = `${dir}.lock`;
    if (!(await takeLock(lockPath))) return undefined;
    const tmp = join(parent, `.tmp-${crypto.randomUUID()}`);
    try {
      const again = await this.find(source);
      if (again) return again;
      // The files bundled are the files the entry is keyed on: checked
      // before (no build for nothing) and after the build.
      await this.#checkChecksum(source);
      await Deno.mkdir(tmp, { mode: 0o755 });
      await this.#bundle(source, tmp);
      const record = await recordOf(tmp, source);
      await this.#checkChecksum(source);
      await Deno.writeTextFile(
        join(tmp, BUNDLE_RECORD),
        JSON.stringify(record, null, 2) + "\n",
      );
      await Deno.rename(tmp, dir);
    } catch (err) {
      await Deno.remove(tmp, { recursive: true }).catch(() => {});
      const error = err instanceof BundleBuildError
        ? err
        : new BundleBuildError(
          err instanceof Error ? err.message : String(err),
          { cause: err },
        );
      if (error.final) {
        await Deno.writeTextFile(failedPath, error.message + "\n").catch(
          () => {},
        );
      } else if (error.download) {
        await Deno.writeTextFile(offlinePath, error.message + "\n").catch(
          () => {},
        );
      }
      throw error;
    } finally {
      await Deno.remove(lockPath).catch(() => {});
    }
    await this.#warm(dir, source.name);
    return { dir, entry: join(dir, BUNDLE_ENTRY) };
  }

  /** Ends every build in progress (their entries are never renamed into place). */
  close(): void {
    this.#closed = true;
    for (const c of this.#children) {
      try {
        c.kill("SIGKILL");
      } catch {
        // already gone
      }
    }
  }

  async #checkChecksum(source: BundleSource): Promise<void> {
    const { computeArtifactChecksum } = await import(
      "../../config/checksum.ts"
    );
    const { readManifest } = await import("../../contract/manifest.ts");
    const manifest = await readManifest(source.manifestPath);
    const now = await computeArtifactChecksum(source.manifestPath, manifest, {
      deno: this.#deno(),
    });
    if (now.checksum !== source.checksum) {
      throw new BundleBuildError(
        `the files of builtin/${source.name} have checksum ${now.checksum}, not ${source.checksum} (they changed since the configuration was compiled)`,
      );
    }
  }

  #deno(): string {
    return this.#options.deno ?? Deno.execPath();
  }

  /** Runs a child with the build's environment, bounded and killable. */
  async #run(args: string[], what: string): Promise<Deno.CommandOutput> {
    if (this.#closed) throw new BundleBuildError(`${what}: the host closed`);
    const child = new Deno.Command(this.#deno(), {
      args,
      env: {
        ...this.#options.env,
        DENO_DIR: this.#options.denoDir,
        DENO_NO_UPDATE_CHECK: "1",
        NO_COLOR: "1",
      },
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    this.#children.add(child);
    const timer = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch {
        // gone
      }
    }, this.#options.timeoutMs ?? DEFAULT_BUNDLE_TIMEOUT_MS);
    try {
      return await child.output();
    } finally {
      clearTimeout(timer);
      this.#children.delete(child);
    }
  }

  async #bundle(source: BundleSource, out: string): Promise<void> {
    const { findDenoConfig } = await import("../../config/files.ts");
    const config = await findDenoConfig(join(source.entrypoint, ".."));
    const result = await this.#run([
      "bundle",
      "--quiet",
      "--platform",
      "deno",
      "--code-splitting",
      ...BUNDLE_EXTERNALS.flatMap((name) => ["--external", name]),
      ...(config ? ["--config", config] : ["--no-config"]),
      "--outdir",
      out,
      source.entrypoint,
    ], `deno bundle of builtin/${source.name}`);
    if (!result.success) {
      const text = new TextDecoder().decode(result.stderr);
      const err = text.split("\n")
        .map((l) => l.trim())
        .filter((l) => l && !l.includes("experimental") && l !== "Caused by:")
        .slice(0, 2).join(" ");
      // Killed (timeout, close) is not final, nor is a download that failed
      // (esbuild is fetched into the Deno cache on first use: a kernel
      // whose environment lacks the TLS roots or the proxy of the shell
      // that ran `agent lock` would otherwise mark the bundle failed for
      // good in a fresh cache); any other exit with an error is.
      const fetching = NOT_FINAL_BUNDLE_ERROR.test(text);
      throw new BundleBuildError(
        result.signal !== null
          ? `deno bundle was killed (${result.signal})`
          : `deno bundle exited ${result.code}${err ? `: ${err}` : ""}`,
        {
          final: result.signal === null && !this.#closed && !fetching,
          download: result.signal === null && fetching,
        },
      );
    }
    let mains = 0;
    for await (const e of Deno.readDir(out)) {
      if (!e.isFile || !e.name.endsWith(".js")) continue;
      const text = await Deno.readTextFile(join(out, e.name));
      mains += text.split("import.meta.main").length - 1;
    }
    if (mains > 1) {
      // In a module graph only the entry module is main; in a bundle every
      // module's `import.meta` is the bundle's.
      throw new BundleBuildError(
        `${mains} modules of the bundle test import.meta.main, which would all be true in one bundle`,
        { final: true },
      );
    }
  }

  /**
   * Compiles every module of the entry once in a process with the plugins'
   * V8 flags and no permission at all, so that V8's code cache for them
   * is written to the Deno cache (the plugins, which cannot write it, then
   * read it). The modules are compiled and none of them runs (the warm-up
   * module's first import throws). The bundle's externals
   * ({@linkcode BUNDLE_EXTERNALS}) resolve to an empty module here: they
   * are installed nowhere, and one import that does not resolve stops
   * Deno before it compiles anything (it left builtin/tui without any code
   * cache, so each start compiled its 13 files again). A warm-up that does
   * not stop at its first import is reported through `onWarning`.
   */
  async #warm(dir: string, name: string): Promise<void> {
    const files: string[] = [];
    for await (const e of Deno.readDir(dir)) {
      if (e.isFile && e.name.endsWith(".js")) files.push(join(dir, e.name));
    }
    files.sort();
    const tmp = await Deno.makeTempDir({ prefix: "agent-bundle-warm-" });
    let why: string | undefined;
    try {
      const script = join(tmp, "warm.mjs");
      const importMap = join(tmp, "import_map.json");
      await Deno.writeTextFile(
        script,
        warmUpModule(files.map((f) => pathToFileURL(f).href)),
      );
      await Deno.writeTextFile(importMap, JSON.stringify(warmUpImportMap()));
      const out = await this.#run(
        warmUpArgs(script, importMap),
        "code cache warm-up",
      );
      why = warmUpFailure(out);
    } catch (err) {
      why = err instanceof Error ? err.message : String(err);
    } finally {
      await Deno.remove(tmp, { recursive: true }).catch(() => {});
    }
    if (why !== undefined && !this.#closed) {
      this.#options.onWarning?.(
        `The V8 code cache of builtin/${name}'s bundle at ${dir} was not written (${why}); the plugin compiles its bundle at every start`,
      );
    }
  }
}

/**
 * The warm-up's import map: each bundle external resolves to an empty
 * module with a default export (the warm-up never evaluates it).
 */
function warmUpImportMap(): { imports: Record<string, string> } {
  const empty = `data:text/javascript,${
    encodeURIComponent("export default undefined;")
  }`;
  return {
    imports: Object.fromEntries(BUNDLE_EXTERNALS.map((n) => [n, empty])),
  };
}

/** Whether a download failed for this entry less than {@linkcode OFFLINE_RETRY_MS} ago. */
async function recentlyOffline(path: string): Promise<boolean> {
  const st = await Deno.stat(path).catch(() => undefined);
  const at = st?.mtime?.getTime();
  return at !== undefined && Date.now() - at < OFFLINE_RETRY_MS;
}

/** Creates the lock file exclusively; a stale one is taken over. */
async function takeLock(path: string): Promise<boolean> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const f = await Deno.open(path, { createNew: true, write: true });
      await f.write(new TextEncoder().encode(`${Deno.pid}\n`));
      f.close();
      return true;
    } catch (err) {
      if (!(err instanceof Deno.errors.AlreadyExists)) return false;
      const st = await Deno.stat(path).catch(() => undefined);
      const age = Date.now() - (st?.mtime?.getTime() ?? Date.now());
      if (age < STALE_LOCK_MS && await holderAlive(path)) return false;
      await Deno.remove(path).catch(() => {});
    }
  }
  return false;
}

/**
 * Whether the process that wrote a build lock may still be running: false
 * only when the lock names a process id that no longer exists on this
 * machine (a kernel killed mid-build), so its lock is not honoured for
 * {@linkcode STALE_LOCK_MS}.
 */
async function holderAlive(path: string): Promise<boolean> {
  const pid = Number((await Deno.readTextFile(path).catch(() => "")).trim());
  if (!Number.isInteger(pid) || pid <= 0 || Deno.build.os !== "linux") {
    return true;
  }
  try {
    await Deno.stat(`/proc/${pid}`);
    return true;
  } catch (err) {
    return !(err instanceof Deno.errors.NotFound);
  }
}

/** The record of a freshly built bundle in `dir`. */
async function recordOf(
  dir: string,
  source: BundleSource,
): Promise<BundleRecord> {
  const files: Record<string, string> = {};
  for await (const e of Deno.readDir(dir)) {
    if (!e.isFile) {
      throw new BundleBuildError(`deno bundle wrote "${e.name}", not a file`);
    }
    files[e.name] = sha256(await Deno.readFile(join(dir, e.name)));
  }
  if (files[BUNDLE_ENTRY] === undefined) {
    throw new BundleBuildError(`deno bundle wrote no ${BUNDLE_ENTRY}`);
  }
  return {
    format: RECORD_FORMAT,
    name: source.name,
    checksum: source.checksum,
    deno: Deno.version.deno,
    files: Object.fromEntries(Object.entries(files).sort()),
  };
}

/**
 * Checks an entry against its record and the plugin's checksum.
 *
 * @returns `undefined` when valid, `""` when there is no entry, else why
 * it is refused.
 */
async function verifyEntry(
  dir: string,
  source: BundleSource,
): Promise<string | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(join(dir, BUNDLE_RECORD));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      try {
        await Deno.lstat(dir);
        return `its ${BUNDLE_RECORD} is missing`;
      } catch {
        return "";
      }
    }
    return `its ${BUNDLE_RECORD} cannot be read`;
  }
  let record: Partial<BundleRecord>;
  try {
    record = JSON.parse(text);
  } catch {
    return `its ${BUNDLE_RECORD} is not JSON`;
  }
  if (
    record?.format !== RECORD_FORMAT || typeof record.files !== "object" ||
    record.files === null
  ) {
    return `its ${BUNDLE_RECORD} has the wrong shape`;
  }
  if (record.name !== source.name || record.checksum !== source.checksum) {
    return `its ${BUNDLE_RECORD} names ${record.name} ${record.checksum}, not ${source.name} ${source.checksum}`;
  }
  if (record.deno !== Deno.version.deno) {
    return `it was built by Deno ${record.deno}, this is ${Deno.version.deno}`;
  }
  const want = new Map(Object.entries(record.files));
  if (!want.has(BUNDLE_ENTRY)) return `its record lists no ${BUNDLE_ENTRY}`;
  const seen = new Set<string>();
  try {
    for await (const e of Deno.readDir(dir)) {
      if (e.name === BUNDLE_RECORD) continue;
      const expected = want.get(e.name);
      if (!e.isFile || expected === undefined) {
        return `"${e.name}" is not in its record`;
      }
      if (sha256(await Deno.readFile(join(dir, e.name))) !== expected) {
        return `"${e.name}" differs from its record`;
      }
      seen.add(e.name);
    }
  } catch {
    return "its files cannot be read";
  }
  for (const name of want.keys()) {
    if (!seen.has(name)) return `"${name}" is missing`;
  }
  return undefined;
}

/** The variable that turns bundles off (`AGENT_PLUGIN_BUNDLES=off`). */
export const PLUGIN_BUNDLES_ENV = "AGENT_PLUGIN_BUNDLES";

/**
 * The kernel's bundle cache, unless `AGENT_PLUGIN_BUNDLES=off` is set: in
 * the Deno cache the plugins get, built with the Deno runtime settings of
 * `env`, refusals logged as warnings.
 *
 * @example Usage
 * ```ts
 * import { pluginBundlesOf } from "./plugin_bundle.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(pluginBundlesOf({ AGENT_PLUGIN_BUNDLES: "off" }), {});
 * ```
 *
 * @param env The kernel's environment.
 * @returns `{ bundles }` for the plugin host's options, or `{}`.
 */
export function pluginBundlesOf(
  env: Readonly<Record<string, string | undefined>>,
): { bundles?: PluginBundles } {
  if (env[PLUGIN_BUNDLES_ENV] === "off") return {};
  const plain: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) plain[k] = v;
  const runtime: Record<string, string> = { ...denoRuntimeEnv(plain) };
  delete runtime.NPM_CONFIG_REGISTRY;
  const registry = denoNpmRegistry();
  if (registry !== undefined) runtime.NPM_CONFIG_REGISTRY = registry;
  const log = getLogger(["ph-agent", "kernel", "bundles"]);
  return {
    bundles: new PluginBundles({
      denoDir: denoCacheDir(),
      env: runtime,
      onWarning: (message) => log.warn("{message}", { message }),
    }),
  };
}
