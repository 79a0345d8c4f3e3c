/**
 * The two sides `agent plan` compares: the working tree as it is (what
 * `check-config` reads) and the configuration at a base commit, read with
 * `git` (no checkout). The base's `agent.hcl`, its lock file and the
 * manifests of its path plugins are written to a temporary directory,
 * compiled, and the directory is removed.
 *
 * The base is described by what it committed: a provider with a lock entry
 * of the same source gets that entry's version, checksum and envelope (a
 * first-party plugin's files belong to the installed @ph/agent, not to the
 * repository); a path plugin's manifest is the one at the base.
 *
 * Neither side needs secrets: a variable that `env()` reads and that is
 * not set compiles as an empty string, and its name is reported.
 *
 * @module
 */

import { join, posix, resolve } from "node:path";
import {
  artifactKey,
  compile,
  type CompileInputs,
  decodeAgentConfig,
  type Diagnostic,
  exitCodeFor,
  hostPlatform,
  loadConfigInputs,
  LOCK_FILE_PATH,
  parseLockFile,
  type Plan,
  type PluginArtifact,
  readPluginManifest,
} from "../../config/mod.ts";
import { parseHcl } from "../../config/hcl/mod.ts";
import { BUILTINS } from "../../plugins/builtin.ts";

/** A problem with the repository or the base ref (exit 3). */
export class PlanBaseError extends Error {
  /** A stable code for `--json`. */
  readonly code: string = "plan_base";
  /**
   * @param message What is wrong, and what to do.
   */
  constructor(message: string) {
    super(message);
    this.name = "PlanBaseError";
  }
}

/** The base commit `agent plan` compares against. */
export interface PlanBase {
  /** The ref as given, or the default branch it was derived from. */
  ref: string;
  /** The full commit id. */
  commit: string;
  /** How it was chosen, e.g. `--base HEAD~1`, `merge base of HEAD and main`. */
  how: string;
}

/** One compiled side. */
export interface PlanSide {
  /** `working tree` or `base <ref>`. */
  label: string;
  /** Whether it has an `agent.hcl`. */
  hasConfig: boolean;
  /** The plan, when valid (absent when invalid or without `agent.hcl`). */
  plan?: Plan;
  /** 0 valid (or no `agent.hcl`), 1 invalid, 2 lock problem. */
  exitCode: 0 | 1 | 2;
  /** Every diagnostic, with the placeholders' unset-variable errors removed. */
  diagnostics: Diagnostic[];
  /** File texts by shown path. */
  sources: Map<string, string>;
  /** The `env()` variables that are not set (compiled as empty strings). */
  unsetEnv: string[];
}

interface GitResult {
  ok: boolean;
  stdout: string;
  stderr: string;
}

async function git(args: string[], cwd: string): Promise<GitResult> {
  let out;
  try {
    out = await new Deno.Command("git", {
      args,
      cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      env: { GIT_TERMINAL_PROMPT: "0" },
    }).output();
  } catch (err) {
    throw new PlanBaseError(
      `Cannot run git: ${
        err instanceof Error ? err.message : String(err)
      } (agent plan reads the base with git)`,
    );
  }
  const dec = new TextDecoder();
  return {
    ok: out.success,
    stdout: dec.decode(out.stdout),
    stderr: dec.decode(out.stderr).trim(),
  };
}

/**
 * The project's path inside its repository (`""` at the root, else
 * `sub/dir/`).
 *
 * @param dir The project directory.
 * @returns The prefix.
 * @throws {PlanBaseError} When `dir` is not inside a git work tree.
 */
export async function repositoryPrefix(dir: string): Promise<string> {
  const r = await git(["rev-parse", "--show-prefix"], dir);
  if (!r.ok) {
    throw new PlanBaseError(
      `Cannot compare with a base: "${dir}" is not inside a git repository (${r.stderr})`,
    );
  }
  return r.stdout.trim();
}

async function commitOf(ref: string, dir: string): Promise<string | undefined> {
  const r = await git(
    ["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`],
    dir,
  );
  return r.ok ? r.stdout.trim() : undefined;
}

/**
 * Resolves `--base`, or, without it, the merge base of `HEAD` with the
 * default branch: `origin/HEAD` when it is set, else `main`, else `master`.
 *
 * @param dir The project directory.
 * @param ref The `--base` value, if given.
 * @returns The base.
 * @throws {PlanBaseError} When `dir` is not in a git work tree, the ref is
 * not a commit, or there is no default branch.
 */
export async function resolveBase(
  dir: string,
  ref: string | undefined,
): Promise<PlanBase> {
  await repositoryPrefix(dir);
  if (ref !== undefined) {
    const commit = ref.startsWith("-") ? undefined : await commitOf(ref, dir);
    if (commit === undefined) {
      throw new PlanBaseError(
        `Cannot resolve --base ${
          JSON.stringify(ref)
        }: it is not a commit of this repository`,
      );
    }
    return { ref, commit, how: `--base ${ref}` };
  }
  let branch: string | undefined;
  const origin = await git(
    ["symbolic-ref", "--quiet", "refs/remotes/origin/HEAD"],
    dir,
  );
  if (origin.ok && origin.stdout.trim() !== "") {
    branch = origin.stdout.trim().replace(/^refs\/remotes\//, "");
  } else {
    for (const b of ["main", "master"]) {
      if (await commitOf(`refs/heads/${b}`, dir)) {
        branch = b;
        break;
      }
    }
  }
  if (branch === undefined) {
    throw new PlanBaseError(
      "Cannot find the default branch: origin/HEAD is not set and there is no main or master branch. Pass --base GIT_REF",
    );
  }
  const mb = await git(["merge-base", "HEAD", branch], dir);
  if (!mb.ok || mb.stdout.trim() === "") {
    throw new PlanBaseError(
      `Cannot find the merge base of HEAD and ${branch}${
        mb.stderr ? ` (${mb.stderr})` : ""
      }. Pass --base GIT_REF`,
    );
  }
  return {
    ref: branch,
    commit: mb.stdout.trim(),
    how: `merge base of HEAD and ${branch}`,
  };
}

/** A file's text at a commit, or `undefined` when it is not there. */
async function showAt(
  commit: string,
  repoPath: string,
  dir: string,
): Promise<string | undefined> {
  if (repoPath.startsWith("../") || repoPath === "..") return undefined;
  const spec = `${commit}:${repoPath}`;
  const type = await git(["cat-file", "-t", spec], dir);
  if (!type.ok || type.stdout.trim() !== "blob") return undefined;
  const r = await git(["cat-file", "blob", spec], dir);
  if (!r.ok) {
    throw new PlanBaseError(`Cannot read ${spec}: ${r.stderr}`);
  }
  return r.stdout;
}

/** Compiles with unset `env()` variables as warnings (empty secrets). */
function compileWithoutSecrets(
  inputs: CompileInputs,
  platform: string,
  label: string,
): PlanSide {
  const env = inputs.env ?? {};
  const unsetEnv = Object.keys(env).filter((k) => env[k] === undefined).sort();
  // No secrets in review: an unset env() is a W_ENV_UNSET warning, as in
  // check-config, and the value compiles as an empty secret.
  const r = compile(inputs, { locked: false, platform, requireEnv: false });
  const side: PlanSide = {
    label,
    hasConfig: inputs.agent !== undefined,
    exitCode: exitCodeFor(r.diagnostics),
    diagnostics: r.diagnostics,
    sources: r.sources,
    unsetEnv,
  };
  if (r.plan) side.plan = r.plan;
  return side;
}

/** Options for {@linkcode compileWorkingTree} and {@linkcode compileBase}. */
export interface CompileSideOptions {
  /** The environment (`env()` values, `HOME`, XDG variables). */
  env: Readonly<Record<string, string | undefined>>;
  /**
   * The platform whose checksums are compared.
   * @default {the host's}
   */
  platform?: string;
}

/**
 * Compiles the working tree's configuration (the global config is left
 * out: it belongs to a machine, not to the change under review).
 *
 * @param dir The project directory.
 * @param options The environment and platform.
 * @returns The compiled side.
 */
export async function compileWorkingTree(
  dir: string,
  options: CompileSideOptions,
): Promise<PlanSide> {
  const inputs = await loadConfigInputs(dir, {
    builtins: BUILTINS,
    env: options.env,
    globalConfig: null,
  });
  return compileWithoutSecrets(
    inputs,
    options.platform ?? hostPlatform(),
    "working tree",
  );
}

/**
 * Compiles the configuration at a base commit from a temporary copy of
 * the few files the compiler reads, and removes the copy.
 *
 * @param dir The project directory (inside the repository).
 * @param base The base commit.
 * @param options The environment and platform.
 * @returns The compiled side (`hasConfig: false` without `agent.hcl`).
 */
export async function compileBase(
  dir: string,
  base: PlanBase,
  options: CompileSideOptions,
): Promise<PlanSide> {
  const label = `base ${base.ref}`;
  const platform = options.platform ?? hostPlatform();
  const prefix = await repositoryPrefix(dir);
  const at = (rel: string) =>
    showAt(base.commit, posix.normalize(posix.join(prefix, rel)), dir);
  const agentText = await at("agent.hcl");
  if (agentText === undefined) {
    return {
      label,
      hasConfig: false,
      exitCode: 0,
      diagnostics: [],
      sources: new Map(),
      unsetEnv: [],
    };
  }
  const lockText = await at(LOCK_FILE_PATH);
  const tmp = await Deno.makeTempDir({ prefix: "agent-plan-" });
  try {
    // The copy mirrors the project's absolute path below the temporary
    // directory, so that a grant outside the project ("../shared") is the
    // same path on both sides once the prefix is taken off.
    const root = join(tmp, resolve(dir));
    await Deno.mkdir(join(root, ".agent"), { recursive: true });
    await Deno.writeTextFile(join(root, "agent.hcl"), agentText);
    if (lockText !== undefined) {
      await Deno.writeTextFile(join(root, LOCK_FILE_PATH), lockText);
    }
    const config = decodeAgentConfig(
      parseHcl(agentText, "agent.hcl").body,
      [],
    );
    const manifests = new Map<string, string>();
    for (const rp of config.requiredProviders) {
      if (rp.sourceKind !== "path") continue;
      const rel = posix.join(rp.source, "plugin.json");
      const text = await at(rel);
      if (text === undefined) continue;
      const path = join(root, rel);
      await Deno.mkdir(join(path, ".."), { recursive: true });
      await Deno.writeTextFile(path, text);
      manifests.set(rp.name, path);
    }
    const inputs = await loadConfigInputs(root, {
      builtins: BUILTINS,
      env: options.env,
      globalConfig: null,
    });
    const lock = lockText === undefined
      ? undefined
      : parseLockFile(lockText, LOCK_FILE_PATH).lock;
    const artifacts = new Map<string, PluginArtifact>(inputs.artifacts ?? []);
    for (const rp of config.requiredProviders) {
      if (rp.sourceKind === "forge") continue;
      const key = artifactKey(rp.sourceKind, rp.source, root);
      const entry = lock?.providers.get(rp.name);
      const pinned = entry?.source === rp.source ? entry : undefined;
      let artifact: PluginArtifact;
      if (rp.sourceKind === "path") {
        const path = manifests.get(rp.name);
        if (path === undefined) {
          artifact = {
            error: `There is no ${
              posix.join(rp.source, "plugin.json")
            } at ${base.ref}`,
          };
        } else {
          try {
            const m = await readPluginManifest(
              path,
              `${posix.join(rp.source, "plugin.json")} at ${base.ref}`,
            );
            artifact = { manifest: m.manifest };
            if (m.tools) artifact.tools = m.tools;
            // The files beside the manifest are not copied: the checksum
            // is the one the base locked for this very version.
            const c = pinned?.version === m.manifest.version
              ? pinned.checksums[platform]
              : undefined;
            if (c !== undefined) artifact.checksum = c;
          } catch (err) {
            artifact = {
              error: err instanceof Error ? err.message : String(err),
            };
          }
        }
      } else {
        const current = artifacts.get(key);
        if (pinned === undefined || current?.manifest === undefined) continue;
        artifact = {
          ...current,
          manifest: {
            ...current.manifest,
            version: pinned.version,
            capabilities: pinned.envelope ?? current.manifest.capabilities,
            configSchema: pinned.configSchema ??
              current.manifest.configSchema ?? [],
          },
        };
        const c = pinned.checksums[platform];
        if (c !== undefined) artifact.checksum = c;
        else delete artifact.checksum;
      }
      artifacts.set(key, artifact);
    }
    inputs.artifacts = artifacts;
    const side = compileWithoutSecrets(inputs, platform, label);
    if (side.plan) unmirror(side.plan, tmp);
    return side;
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}

/** Takes the temporary prefix off absolute paths in the effective grants. */
function unmirror(plan: Plan, tmp: string): void {
  const strip = (p: string) =>
    p === tmp ? "/" : p.startsWith(`${tmp}/`) ? p.slice(tmp.length) : p;
  for (const p of plan.providers) {
    const e = p.permissions.effective;
    e.read = e.read.map(strip);
    e.write = e.write.map(strip);
  }
}
