/**
 * The result cache of `check-config`, under
 * `$XDG_CACHE_HOME/ph-agent/check-config/`: an unchanged run replays the
 * previous output without loading the compiler.
 *
 * An entry is keyed by the content hashes of `agent.hcl`, the lock file and
 * the global config, the names of other `.hcl` files beside `agent.hcl`, the
 * flags, the platform, the home directory (the global config and the paths
 * shown as `~/…` depend on it), Deno's version and the compiler's own files. It
 * records every other file the result depended on (manifests, plugin
 * modules, Deno configs) with its hash, and a salted hash of the values of
 * the environment variables the configuration reads — never the values
 * themselves. A replay re-hashes all of them first.
 *
 * Kept light on purpose: this module is the whole warm path.
 *
 * @module
 */

import { sha256Hex } from "../../config/_sha256.ts";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const CACHE_FORMAT = 1;

/** What a cache entry replays. */
export interface CachedRun {
  /** The process's exit code. */
  exitCode: number;
  /** What it wrote to stdout. */
  stdout: string;
  /** What it wrote to stderr. */
  stderr: string;
}

interface Entry extends CachedRun {
  format: number;
  fingerprints: { path: string; sha256: string | null }[];
  envNames: string[];
  envDigest: string;
}

/** The cache directory for an environment. */
export function cacheDir(
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const base = env.XDG_CACHE_HOME ||
    (env.HOME ? join(env.HOME, ".cache") : undefined);
  return base ? join(base, "ph-agent", "check-config") : undefined;
}

function sha256(data: string | Uint8Array): Promise<string> {
  return sha256Hex(data);
}

async function hashFile(path: string): Promise<string | null> {
  try {
    return await sha256(await Deno.readFile(path));
  } catch (err) {
    if (!(err instanceof Deno.errors.IsADirectory)) return null;
  }
  // A folder stands for its listing (as config/files.ts fingerprints it):
  // a file appearing in it is a change.
  try {
    const names: string[] = [];
    for await (const e of Deno.readDir(path)) names.push(e.name);
    return await sha256(`dir\n${names.sort().join("\n")}`);
  } catch {
    return null;
  }
}

async function codeStamp(): Promise<string> {
  const here = new URL(".", import.meta.url);
  if (here.protocol !== "file:") return here.href;
  // Everything that shapes check-config's output: the command and its
  // renderer, the compiler and the vocabulary beneath it.
  const dirs = [
    fileURLToPath(here),
    fileURLToPath(new URL("../../config/", here)),
    fileURLToPath(new URL("../../config/hcl/", here)),
    fileURLToPath(new URL("../../contract/", here)),
    // agent.test.hcl is judged by the kernel's gate.
    fileURLToPath(new URL("../../kernel/agent/", here)),
  ];
  const extra = [
    fileURLToPath(new URL("../../plugins/builtin.ts", here)),
  ];
  const parts: string[] = [];
  const stat = async (p: string) => {
    try {
      const s = await Deno.stat(p);
      parts.push(`${p}:${s.size}:${s.mtime?.getTime() ?? 0}`);
    } catch {
      parts.push(`${p}:-`);
    }
  };
  for (const d of dirs) {
    const names: string[] = [];
    try {
      for await (const e of Deno.readDir(d)) {
        if (
          e.isFile && e.name.endsWith(".ts") && !e.name.endsWith("_test.ts")
        ) {
          names.push(e.name);
        }
      }
    } catch {
      // not a directory we can read: the URL stands for the version
    }
    await Promise.all(names.sort().map((n) => stat(join(d, n))));
  }
  await Promise.all(extra.map(stat));
  return await sha256(parts.sort().join("\n"));
}

/** Inputs of {@linkcode computeCacheKey}. */
export interface CacheKeyInput {
  /** Absolute project directory. */
  dir: string;
  /** The flags that shape the output, normalised. */
  flags: readonly string[];
  /** Colour on or off. */
  color: boolean;
  /** The platform key. */
  platform: string;
  /** The global config's absolute path, if one is looked for. */
  globalPath: string | undefined;
  /**
   * The home directory (`HOME`, else `USERPROFILE`): paths under it are
   * shown as `~/…`, and the global config's default place is under it.
   */
  home: string | undefined;
}

/**
 * The key of a run: hashes of the three config files and everything else
 * that does not depend on reading a plugin.
 *
 * @param input The run's facts.
 * @returns A hex key.
 */
export async function computeCacheKey(input: CacheKeyInput): Promise<string> {
  const extra: string[] = [];
  try {
    for await (const e of Deno.readDir(input.dir)) {
      if (e.isFile && e.name.endsWith(".hcl")) extra.push(e.name);
    }
  } catch {
    // no directory
  }
  const [agent, tests, lock, global, code] = await Promise.all([
    hashFile(join(input.dir, "agent.hcl")),
    hashFile(join(input.dir, "agent.test.hcl")),
    hashFile(join(input.dir, ".agent", "agent.lock.hcl")),
    input.globalPath ? hashFile(input.globalPath) : Promise.resolve(null),
    codeStamp(),
  ]);
  return await sha256(JSON.stringify({
    format: CACHE_FORMAT,
    deno: Deno.version.deno,
    code,
    dir: input.dir,
    flags: [...input.flags],
    color: input.color,
    platform: input.platform,
    agent,
    tests,
    lock,
    global: [input.globalPath ?? null, global],
    home: input.home ?? null,
    hcl: extra.sort(),
  }));
}

async function salt(dir: string): Promise<string> {
  const path = join(dir, "salt");
  try {
    const s = (await Deno.readTextFile(path)).trim();
    if (/^[0-9a-f]{64}$/.test(s)) return s;
  } catch {
    // create it
  }
  const s = Array.from(
    crypto.getRandomValues(new Uint8Array(32)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  await Deno.writeTextFile(path, s, { mode: 0o600 });
  return s;
}

async function envDigest(
  dir: string,
  names: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<string> {
  const s = await salt(dir);
  return await sha256(
    s + JSON.stringify(names.map((n) => [n, env[n] ?? null])),
  );
}

/**
 * Replays a cached run when every file and environment value it depended
 * on is unchanged.
 *
 * @param key From {@linkcode computeCacheKey}.
 * @param env The environment.
 * @returns The run, or `undefined` on a miss.
 */
export async function lookup(
  key: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<CachedRun | undefined> {
  const dir = cacheDir(env);
  if (dir === undefined) return undefined;
  let entry: Entry;
  try {
    entry = JSON.parse(await Deno.readTextFile(join(dir, `${key}.json`)));
  } catch {
    return undefined;
  }
  if (entry.format !== CACHE_FORMAT) return undefined;
  const hashes = await Promise.all(
    entry.fingerprints.map((f) => hashFile(f.path)),
  );
  if (hashes.some((h, i) => h !== entry.fingerprints[i]!.sha256)) {
    return undefined;
  }
  try {
    if (await envDigest(dir, entry.envNames, env) !== entry.envDigest) {
      return undefined;
    }
  } catch {
    return undefined;
  }
  return {
    exitCode: entry.exitCode,
    stdout: entry.stdout,
    stderr: entry.stderr,
  };
}

/**
 * Stores a run. Failures are ignored: the cache never fails a check.
 *
 * @param key From {@linkcode computeCacheKey}.
 * @param run What to replay.
 * @param deps The files and environment variables the run depended on.
 * @param env The environment.
 */
export async function store(
  key: string,
  run: CachedRun,
  deps: {
    fingerprints: readonly { path: string; sha256: string | null }[];
    envNames: readonly string[];
  },
  env: Readonly<Record<string, string | undefined>>,
): Promise<void> {
  const dir = cacheDir(env);
  if (dir === undefined) return;
  try {
    const entry: Entry = {
      format: CACHE_FORMAT,
      ...run,
      fingerprints: [...deps.fingerprints],
      envNames: [...deps.envNames],
      envDigest: await envDigest(dir, deps.envNames, env),
    };
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, `${key}.json`);
    const tmp = join(dirname(path), `.${key}.${crypto.randomUUID()}.tmp`);
    await Deno.writeTextFile(tmp, JSON.stringify(entry), { mode: 0o600 });
    await Deno.rename(tmp, path);
  } catch {
    // a read-only or full disk only costs speed
  }
}
