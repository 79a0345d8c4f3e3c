/**
 * Locating and reading everything the compiler needs (the only I/O of the
 * config compiler): the project's `agent.hcl`, `.agent/agent.lock.hcl`, the
 * global `$XDG_CONFIG_HOME/agent/config.hcl`, the values of the environment
 * variables `env()` reads, and, for each provider available locally, its
 * manifest and the checksum of its artifact.
 *
 * Loading logs only file paths, at DEBUG (config.md §1.4); nothing on the
 * decode path logs.
 *
 * @module
 */

import { POLICY_TEST_FILE } from "./policy_test_file.ts";
import { getLogger } from "@logtape/logtape";
import { didYouMean } from "../contract/diagnostic.ts";
import { sha256Hex } from "./_sha256.ts";
import {
  basename,
  dirname,
  isAbsolute,
  join,
  relative,
  resolve,
} from "node:path";
import { fileURLToPath } from "node:url";
import {
  type Body,
  evaluate,
  type Expr,
  parseHcl,
  walkExpr,
} from "./hcl/mod.ts";
import {
  type ManifestError,
  parseManifest,
  type PluginManifest,
} from "../contract/manifest.ts";
import {
  BUILTIN_SOURCE_PREFIX,
  type BuiltinCatalog,
} from "../contract/builtins.ts";
import {
  ArtifactError,
  computeArtifactChecksum,
  ModuleGraphError,
} from "./checksum.ts";
import {
  artifactKey,
  type CompileInputs,
  type PluginArtifact,
  type SourceFile,
} from "./compile.ts";
import { classifySource } from "./decode.ts";
import { globalConfigPath } from "./global_config.ts";
import { LOCK_FILE_PATH } from "./lock_file.ts";
import type { ToolDeclaration } from "./plan.ts";
import { parseOnce } from "./_parse_once.ts";

const log = getLogger(["ph-agent", "config"]);

/** The project file's name. */
export const CONFIG_FILE_NAME = "agent.hcl";

/**
 * The shown path of {@linkcode LoadConfigInputsOptions.defaultConfig} (in
 * diagnostics and as the plan's `sourceFile`).
 */
export const DEFAULT_CONFIG_PATH = "<built-in agent.hcl>";

/** A file the result depends on, with the hash of its content. */
export interface Fingerprint {
  /** Absolute path. */
  path: string;
  /** SHA-256 of its bytes (lowercase hex); `null` when it does not exist. */
  sha256: string | null;
}

/** What {@linkcode loadConfigInputs} returns. */
export interface LoadedInputs extends CompileInputs {
  /**
   * Every file read beyond the three config files (manifests, plugin
   * modules, the Deno config of each plugin), for a cache to revalidate.
   */
  fingerprints: Fingerprint[];
  /** Absolute path of the global config that was looked for, if any. */
  globalPath?: string;
}

/** Options for {@linkcode loadConfigInputs}. */
export interface LoadConfigInputsOptions {
  /**
   * The environment (`env()` values, `XDG_CONFIG_HOME`, `HOME`).
   * @default {Deno.env.toObject()}
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * The global config's path; `null` for none.
   * @default {globalConfigPath(env)}
   */
  globalConfig?: string | null;
  /**
   * The configuration to compile when the directory has no `agent.hcl`
   * (the zero-config run: see `config/default_config.ts`). Its diagnostics
   * name {@linkcode DEFAULT_CONFIG_PATH}; the lock file is then not read,
   * since it belongs to a project's own `agent.hcl`. Ignored when
   * `agent.hcl` exists.
   * @default {undefined}
   */
  defaultConfig?: string;
  /**
   * The `deno` executable that lists Deno plugins' module graphs.
   * @default {Deno.execPath()}
   */
  deno?: string;
  /**
   * The first-party plugins that `builtin/<name>` sources name. The config
   * compiler never imports the plugins: the CLI and the root module pass
   * `BUILTINS` from `plugins/builtin.ts`. Without it, every builtin source
   * is reported as unavailable.
   * @default {none}
   */
  builtins?: BuiltinCatalog;
}

/**
 * Shows a path relative to the project when inside it, else with `~` for
 * the home directory, else absolute.
 *
 * @param path An absolute path.
 * @param dir The project directory.
 * @param home The home directory.
 * @returns The path as shown.
 */
export function displayPath(path: string, dir: string, home?: string): string {
  const r = relative(dir, path).split("\\").join("/");
  if (r === "") return ".";
  if (!isAbsolute(r)) {
    // Inside the project, or near it (a sibling folder): relative.
    const ups = r.match(/^(\.\.\/)*/)![0].length / 3;
    const depth = resolve(dir).split(/[\\/]/).filter(Boolean).length;
    if (!r.startsWith("..") || (ups <= 3 && ups < depth)) return r;
  }
  if (home) {
    const h = relative(home, path);
    if (!h.startsWith("..") && !isAbsolute(h)) {
      return `~/${h.split("\\").join("/")}`;
    }
  }
  return path;
}

async function readText(path: string): Promise<string | undefined> {
  try {
    const text = await Deno.readTextFile(path);
    log.debug("Loaded {path}", { path });
    return text;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    if (err instanceof Deno.errors.IsADirectory) return undefined;
    throw err;
  }
}

/** Every `env("LITERAL")` name in an expression tree (no recursion). */
function collectEnv(root: Expr, out: Set<string>): void {
  walkExpr(root, (e) => {
    if (e.kind === "call" && e.name === "env" && e.args[0]?.kind === "string") {
      out.add(e.args[0].value);
    }
  });
}

function envNamesIn(body: Body, out: Set<string>): void {
  for (const item of body.items) {
    if (item.kind === "attribute") collectEnv(item.expr, out);
    else envNamesIn(item.body, out);
  }
}

/** The sources named in `required_providers`, by local name. */
function sourcesIn(body: Body): Map<string, string> {
  const out = new Map<string, string>();
  for (const block of body.blocks) {
    if (block.type !== "required_providers") continue;
    for (const attr of block.body.attributes) {
      const { value } = evaluate(attr.expr, { allowEnv: false, env: {} });
      if (
        value !== null && typeof value === "object" && !Array.isArray(value)
      ) {
        const source = (value as Record<string, unknown>).source;
        if (typeof source === "string") out.set(attr.name, source);
      }
    }
  }
  return out;
}

function devOverridesIn(body: Body): Map<string, string> {
  const out = new Map<string, string>();
  for (const block of body.blocks) {
    if (block.type !== "dev_overrides") continue;
    for (const attr of block.body.attributes) {
      const { value } = evaluate(attr.expr, { allowEnv: false, env: {} });
      if (typeof value === "string") out.set(attr.name, value);
    }
  }
  return out;
}

/**
 * Reads a manifest: its JSON, the optional `tools` list (which this
 * compiler reads and the manifest parser does not know), and the rest
 * through `parseManifest`.
 *
 * @param path The manifest's path.
 * @param shown How to name it in messages.
 * @returns The manifest and its tools.
 * @throws {Error} With every problem, when it cannot be read or is invalid.
 */
export async function readPluginManifest(
  path: string,
  shown: string,
): Promise<{ manifest: PluginManifest; tools?: ToolDeclaration[] }> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
    log.debug("Loaded {path}", { path });
  } catch (err) {
    throw new Error(
      err instanceof Deno.errors.NotFound
        ? `There is no plugin manifest at "${shown}"`
        : `Cannot read "${shown}": ${err instanceof Error ? err.message : err}`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(
      `"${shown}" is not valid JSON: ${
        err instanceof Error ? err.message : err
      }`,
    );
  }
  try {
    const manifest = parseManifest(raw, shown);
    return manifest.tools === undefined
      ? { manifest }
      : { manifest, tools: manifest.tools };
  } catch (err) {
    const problems = (err as ManifestError).problems;
    throw new Error(
      problems
        ? `The plugin manifest "${shown}" is invalid: ${problems.join("; ")}`
        : String(err),
    );
  }
}

function unknownBuiltin(
  name: string,
  builtins: BuiltinCatalog | undefined,
): string {
  if (builtins === undefined) {
    return `The first-party plugin "${name}" is not available here: no builtin catalog was passed to the config compiler (the "builtins" option)`;
  }
  const hint = didYouMean(name, builtins.names);
  return `There is no first-party plugin "${name}" in this version of @ph/agent${
    hint ? `; did you mean "${BUILTIN_SOURCE_PREFIX}${hint}"?` : ""
  }`;
}

async function sha256File(path: string): Promise<string | null> {
  try {
    return await sha256Hex(await Deno.readFile(path));
  } catch (err) {
    if (err instanceof Deno.errors.IsADirectory) return await listingHash(path);
    return null;
  }
}

/**
 * A directory's fingerprint: the hash of its sorted entry names, so that a
 * file appearing in it changes the fingerprint. `check-config`'s cache
 * (cli/commands/_check_config_cache.ts) hashes directories the same way.
 */
async function listingHash(path: string): Promise<string | null> {
  try {
    const names: string[] = [];
    for await (const e of Deno.readDir(path)) names.push(e.name);
    return await sha256Hex(`dir\n${names.sort().join("\n")}`);
  } catch {
    return null;
  }
}

/** At most this many files and folders of a failed plugin are fingerprinted. */
const MAX_TREE_FINGERPRINTS = 5_000;

/**
 * Fingerprints every folder and file under a plugin's folder. Used when the
 * plugin could not be read: the failed read does not say which files it
 * would have needed (a missing entrypoint, an unresolved import), so the
 * whole folder, listings included, stands for them and a fix anywhere in
 * it is seen.
 */
async function fingerprintTree(
  root: string,
  fingerprints: Fingerprint[],
): Promise<void> {
  const pending = [root];
  let count = 0;
  while (pending.length > 0 && count < MAX_TREE_FINGERPRINTS) {
    const d = pending.pop()!;
    fingerprints.push({ path: d, sha256: await listingHash(d) });
    count++;
    let entries: Deno.DirEntry[] = [];
    try {
      entries = await Array.fromAsync(Deno.readDir(d));
    } catch {
      continue;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory) pending.push(p);
      else if (e.isFile && count++ < MAX_TREE_FINGERPRINTS) {
        fingerprints.push({ path: p, sha256: await sha256File(p) });
      }
    }
  }
}

/** The Deno config file that governs module resolution under `root`, and its lock. */
async function denoConfigFiles(root: string): Promise<string[]> {
  const config = await findDenoConfig(root);
  return config ? [config, join(dirname(config), "deno.lock")] : [];
}

async function loadArtifact(
  manifestPath: string,
  dir: string,
  home: string | undefined,
  deno: string | undefined,
  fingerprints: Fingerprint[],
): Promise<PluginArtifact> {
  const shown = displayPath(manifestPath, dir, home);
  fingerprints.push({
    path: manifestPath,
    sha256: await sha256File(manifestPath),
  });
  try {
    const { manifest, tools } = await readPluginManifest(manifestPath, shown);
    const digest = await computeArtifactChecksum(
      manifestPath,
      manifest,
      deno ? { deno } : {},
    );
    for (const f of digest.files) {
      fingerprints.push({ path: f.path, sha256: f.sha256 });
    }
    if (manifest.runtime === "deno") {
      for (const p of await denoConfigFiles(dirname(manifestPath))) {
        fingerprints.push({ path: p, sha256: await sha256File(p) });
      }
    }
    const artifact: PluginArtifact = {
      manifest,
      checksum: digest.checksum,
      location: displayPath(dirname(manifestPath), dir, home),
      origin: shown,
    };
    if (tools !== undefined) artifact.tools = tools;
    return artifact;
  } catch (err) {
    await fingerprintTree(dirname(manifestPath), fingerprints);
    if (err instanceof ModuleGraphError) {
      fingerprints.push({ path: err.file, sha256: await sha256File(err.file) });
      return {
        error: `The plugin at "${shown}" is refused: ${err.message}`,
      };
    }
    if (err instanceof ArtifactError) {
      return {
        error:
          `The artifact of the plugin at "${shown}" cannot be hashed: ${err.message}`,
      };
    }
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

async function loadBuiltin(
  name: string,
  source: string,
  dir: string,
  home: string | undefined,
  deno: string | undefined,
  fingerprints: Fingerprint[],
  builtins: BuiltinCatalog | undefined,
): Promise<PluginArtifact> {
  if (builtins === undefined || !builtins.names.includes(name)) {
    return { error: unknownBuiltin(name, builtins) };
  }
  const url = builtins.manifestUrl(name);
  if (url.protocol === "file:") {
    return loadArtifact(fileURLToPath(url), dir, home, deno, fingerprints);
  }
  // The package runs from a registry: its plugins are remote modules,
  // served rewritten from the registry's URLs, so their checksum is the
  // checkout's digest the package ships (plugins/builtin.ts).
  try {
    const b = await builtins.resolve(source);
    if (b === undefined) return { error: unknownBuiltin(name, builtins) };
    const checksum = builtins.checksum(name);
    if (checksum === undefined) {
      return {
        error:
          `The first-party plugin "${name}" has no recorded checksum in this package (${builtins.checksumsFile})`,
      };
    }
    return { manifest: b.manifest, checksum, origin: url.href };
  } catch (err) {
    return {
      error: `The first-party plugin "${name}" cannot be read: ${
        err instanceof Error ? err.message : err
      }`,
    };
  }
}

async function manifestOf(path: string): Promise<string> {
  try {
    const st = await Deno.stat(path);
    if (st.isDirectory) return join(path, "plugin.json");
    return basename(path) === "plugin.json"
      ? path
      : join(dirname(path), "plugin.json");
  } catch {
    return join(path, "plugin.json");
  }
}

/**
 * Reads everything {@linkcode compile} needs from a project directory.
 *
 * @example Usage
 * ```ts
 * import { BUILTINS } from "../plugins/builtin.ts";
 * import { compile, loadConfigInputs } from "./mod.ts";
 * import assert from "node:assert/strict";
 * const inputs = await loadConfigInputs("examples", {
 *   globalConfig: null,
 *   builtins: BUILTINS,
 * });
 * const { plan } = compile(inputs, { locked: true });
 * assert.ok(plan?.locked);
 * ```
 *
 * @param dir The project directory.
 * @param options The environment, the global config's path and `deno`.
 * @returns The inputs, plus the fingerprints of every other file read.
 */
export async function loadConfigInputs(
  dir: string,
  options: LoadConfigInputsOptions = {},
): Promise<LoadedInputs> {
  const root = resolve(dir);
  const env = options.env ?? Deno.env.toObject();
  const home = env.HOME ?? env.USERPROFILE;
  const fingerprints: Fingerprint[] = [];
  const inputs: LoadedInputs = { dir: root, fingerprints };

  let agentText = await readText(join(root, CONFIG_FILE_NAME));
  let agentPath = CONFIG_FILE_NAME;
  const isDefault = agentText === undefined &&
    options.defaultConfig !== undefined;
  if (isDefault) {
    agentText = options.defaultConfig;
    agentPath = DEFAULT_CONFIG_PATH;
  }
  if (agentText !== undefined) {
    inputs.agent = { path: agentPath, text: agentText };
  }
  const lockText = isDefault
    ? undefined
    : await readText(join(root, LOCK_FILE_PATH));
  if (lockText !== undefined) {
    inputs.lock = { path: LOCK_FILE_PATH, text: lockText };
  }
  const globalPath = options.globalConfig === null
    ? undefined
    : options.globalConfig ?? globalConfigPath(env);
  if (globalPath !== undefined) {
    const abs = resolve(root, globalPath);
    inputs.globalPath = abs;
    const text = await readText(abs);
    if (text !== undefined) {
      inputs.global = {
        path: displayPath(abs, root, home),
        text,
      } satisfies SourceFile;
    }
  }
  const extra: string[] = [];
  try {
    for await (const e of Deno.readDir(root)) {
      // agent.test.hcl holds policy tests (agent test), never config.
      if (
        e.isFile && e.name.endsWith(".hcl") && e.name !== CONFIG_FILE_NAME &&
        e.name !== POLICY_TEST_FILE
      ) {
        extra.push(e.name);
      }
    }
  } catch {
    // no directory: agent.hcl is missing, reported by compile
  }
  if (extra.length > 0) inputs.extraHclFiles = extra.sort();
  if (options.builtins) inputs.builtinNames = [...options.builtins.names];

  const names = new Set<string>();
  const agentBody = inputs.agent === undefined
    ? undefined
    : parseOnce(inputs.agent).body;
  const globalBody = inputs.global === undefined
    ? undefined
    : parseHcl(inputs.global.text, inputs.global.path).body;
  // An env() call is written with the identifier `env`: a text without
  // those three letters has none, and its syntax tree is not walked.
  if (agentBody && inputs.agent?.text.includes("env")) {
    envNamesIn(agentBody, names);
  }
  if (globalBody && inputs.global?.text.includes("env")) {
    envNamesIn(globalBody, names);
  }
  const envValues: Record<string, string | undefined> = {};
  for (const n of [...names].sort()) envValues[n] = env[n];
  inputs.env = envValues;

  const sources = agentBody ? sourcesIn(agentBody) : new Map<string, string>();
  const overrides = globalBody
    ? devOverridesIn(globalBody)
    : new Map<string, string>();
  const artifacts = new Map<string, PluginArtifact>();
  const jobs: Promise<void>[] = [];
  const add = (key: string, load: () => Promise<PluginArtifact>) => {
    if (artifacts.has(key)) return;
    artifacts.set(key, { error: "not loaded" });
    jobs.push(load().then((a) => void artifacts.set(key, a)));
  };
  for (const [name, source] of sources) {
    const dev = overrides.get(name);
    if (dev !== undefined) {
      const key = artifactKey("dev", dev, root);
      add(
        key,
        async () =>
          loadArtifact(
            await manifestOf(key.slice(4)),
            root,
            home,
            options.deno,
            fingerprints,
          ),
      );
      continue;
    }
    const kind = classifySource(source);
    if (kind === "builtin") {
      const name = source.slice(BUILTIN_SOURCE_PREFIX.length);
      add(
        source,
        () =>
          loadBuiltin(
            name,
            source,
            root,
            home,
            options.deno,
            fingerprints,
            options.builtins,
          ),
      );
    } else if (kind === "path") {
      const key = artifactKey("path", source, root);
      add(
        key,
        () =>
          loadArtifact(
            join(key, "plugin.json"),
            root,
            home,
            options.deno,
            fingerprints,
          ),
      );
    }
  }
  await Promise.all(jobs);
  if (artifacts.size > 0) inputs.artifacts = artifacts;
  const unique = new Map(fingerprints.map((f) => [f.path, f]));
  inputs.fingerprints = [...unique.values()].sort((a, b) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : 0
  );
  return inputs;
}

/** Options for {@linkcode findDenoConfig}. */
export interface FindDenoConfigOptions {
  /**
   * The last folder searched: the search goes up from `dir` to this folder
   * and no further (a plugin's own folder, so that a `deno.json` above it
   * is never its config). A `dir` outside it finds nothing.
   * @default {the filesystem root}
   */
  stopAt?: string;
}

/**
 * The nearest `deno.json` or `deno.jsonc` at or above `dir`: the config (and
 * import map) Deno uses for modules there.
 *
 * @example Bounded by a plugin's folder
 * ```ts
 * import { findDenoConfig } from "./files.ts";
 * import assert from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * try {
 *   await Deno.mkdir(`${dir}/plugin`);
 *   await Deno.writeTextFile(`${dir}/deno.json`, "{}");
 *   assert.equal(await findDenoConfig(`${dir}/plugin`), `${dir}/deno.json`);
 *   assert.equal(
 *     await findDenoConfig(`${dir}/plugin`, { stopAt: `${dir}/plugin` }),
 *     undefined,
 *   );
 * } finally {
 *   await Deno.remove(dir, { recursive: true });
 * }
 * ```
 *
 * @param dir The directory to start from.
 * @param options Where the search stops.
 * @returns The config file's path, or `undefined` when there is none.
 */
export async function findDenoConfig(
  dir: string,
  options: FindDenoConfigOptions = {},
): Promise<string | undefined> {
  const stop = options.stopAt === undefined
    ? undefined
    : resolve(options.stopAt);
  let d = resolve(dir);
  if (stop !== undefined) {
    const rel = relative(stop, d);
    if (rel.startsWith("..") || isAbsolute(rel)) return undefined;
  }
  for (;; d = dirname(d)) {
    for (const name of ["deno.json", "deno.jsonc"]) {
      try {
        if ((await Deno.stat(join(d, name))).isFile) return join(d, name);
      } catch {
        // not here
      }
    }
    if (d === stop || dirname(d) === d) return undefined;
  }
}
