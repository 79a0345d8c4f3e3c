/**
 * Confinement for the filesystem plugin: resolves a tool's `path` argument
 * to a real path inside one of the configured roots, or refuses it.
 *
 * A path is accepted only if both hold:
 *
 * 1. lexically (after resolving `.` and `..` against the working directory)
 *    it lies inside a root; and
 * 2. really: the real path (symlinks resolved) of its deepest existing
 *    ancestor, joined with the components that do not exist yet, lies
 *    inside a root's real path.
 *
 * So neither `..` nor a symlink (to a file or to a directory on the way)
 * can leave the roots; a symlink whose target does not exist is refused,
 * since writing through it would create its target wherever it points.
 *
 * @module
 */
import {
  basename,
  dirname,
  isAbsolute,
  join,
  relative,
  resolve,
} from "./_posix_path.ts";

/** Why a path was refused: a ToolError category and a message. */
export class PathError extends Error {
  /** `invalid_arguments`, `permission_denied` or `not_found`. */
  readonly kind: "invalid_arguments" | "permission_denied" | "not_found";
  /**
   * Creates the error.
   *
   * @param kind The ToolError category it maps to.
   * @param message What is wrong, naming the path.
   */
  constructor(
    kind: "invalid_arguments" | "permission_denied" | "not_found",
    message: string,
  ) {
    super(message);
    this.name = "PathError";
    this.kind = kind;
  }
}

/** A path that passed confinement. */
export interface ConfinedPath {
  /** The argument as given. */
  given: string;
  /** Absolute, lexically normalized (what the user sees). */
  absolute: string;
  /** Absolute with every existing symlink resolved (what is touched). */
  real: string;
  /** Whether the path itself exists. */
  exists: boolean;
}

/** True if `path` is `root` or below it (both absolute and normalized). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" ||
    (rel !== ".." && !rel.startsWith("../") && !isAbsolute(rel));
}

function errorCode(err: unknown): string {
  if (err instanceof Deno.errors.NotFound) return "not_found";
  if (
    err instanceof Deno.errors.NotCapable ||
    err instanceof Deno.errors.PermissionDenied
  ) return "denied";
  if (err instanceof Deno.errors.NotADirectory) return "not_found";
  return "other";
}

/**
 * The real path of an existing path, or of its deepest existing ancestor
 * joined with the rest. Throws a {@linkcode PathError} for a dangling
 * symlink or a path the process may not inspect. A symlink whose target
 * does not resolve here but lies outside every root is refused as leaving
 * the roots, naming that target: in the OS sandbox a target outside the
 * plugin's grants is simply not in its view, although it exists on the
 * host, and the message must name the host path the user knows.
 */
async function realOf(
  absolute: string,
  stopAt: string,
  roots: readonly ResolvedRoot[],
  given: string,
): Promise<{ real: string; exists: boolean }> {
  const tail: string[] = [];
  let p = absolute;
  for (;;) {
    try {
      const real = await Deno.realPath(p);
      return { real: join(real, ...tail.reverse()), exists: tail.length === 0 };
    } catch (err) {
      const code = errorCode(err);
      if (code === "denied") {
        throw new PathError(
          "permission_denied",
          `Cannot inspect "${p}": the plugin has no permission to read it`,
        );
      }
      if (code !== "not_found") throw err;
    }
    // p does not resolve: a missing entry, or a symlink whose target is gone.
    let isLink = false;
    try {
      isLink = (await Deno.lstat(p)).isSymlink;
    } catch {
      // missing
    }
    if (isLink) {
      const target = await linkTarget(p);
      if (
        target !== undefined &&
        !roots.some((r) =>
          isInside(r.real, target) || isInside(r.absolute, target)
        )
      ) {
        throw new PathError(
          "permission_denied",
          `Refusing "${given}": through a symbolic link it resolves to "${
            join(target, ...tail.reverse())
          }", outside the allowed roots ${rootList(roots)}`,
        );
      }
      throw new PathError(
        "permission_denied",
        `Refusing "${absolute}": "${p}" is a symbolic link whose target does not exist`,
      );
    }
    if (p === stopAt || dirname(p) === p) {
      throw new PathError(
        "not_found",
        `Cannot resolve "${absolute}": the root "${stopAt}" does not exist`,
      );
    }
    tail.push(basename(p));
    p = dirname(p);
  }
}

/** Where a symlink points, as an absolute path (undefined if unreadable). */
async function linkTarget(link: string): Promise<string | undefined> {
  try {
    return resolve(dirname(link), await Deno.readLink(link));
  } catch {
    return undefined;
  }
}

/** The roots of one call: lexical and real forms. */
export interface ResolvedRoot {
  /** Absolute, lexically normalized. */
  absolute: string;
  /** With symlinks resolved. */
  real: string;
}

/**
 * Resolves configured roots for a call: absolute roots as they are,
 * relative ones against the working directory.
 *
 * @param roots The configured roots.
 * @param workingDirectory The call's working directory (may be empty).
 * @returns Each root's lexical and real form.
 * @throws {PathError} If a root cannot be resolved.
 */
export async function resolveRoots(
  roots: readonly string[],
  workingDirectory: string,
): Promise<ResolvedRoot[]> {
  const out: ResolvedRoot[] = [];
  for (const root of roots) {
    let absolute: string;
    if (isAbsolute(root)) absolute = resolve(root);
    else if (workingDirectory && isAbsolute(workingDirectory)) {
      absolute = resolve(workingDirectory, root);
    } else {
      throw new PathError(
        "invalid_arguments",
        `Cannot resolve the relative root "${root}": the call has no absolute working directory`,
      );
    }
    let real: string;
    try {
      real = await Deno.realPath(absolute);
    } catch (err) {
      throw new PathError(
        errorCode(err) === "denied" ? "permission_denied" : "not_found",
        errorCode(err) === "denied"
          ? `Cannot use the root "${absolute}": the plugin may not read it (grant it with allow_read and allow_write)`
          : `Cannot use the root "${absolute}": it does not exist`,
      );
    }
    out.push({ absolute, real });
  }
  return out;
}

function rootList(roots: readonly ResolvedRoot[]): string {
  return roots.map((r) => `"${r.absolute}"`).join(", ");
}

/**
 * Confines a tool's path argument to the roots.
 *
 * @param given The `path` argument.
 * @param workingDirectory The call's working directory (relative paths
 * resolve against it; it must itself lie inside a root).
 * @param roots The call's resolved roots.
 * @returns The path's lexical and real forms.
 * @throws {PathError} If the path is malformed, escapes the roots, or
 * cannot be inspected.
 */
export async function confine(
  given: string,
  workingDirectory: string,
  roots: readonly ResolvedRoot[],
): Promise<ConfinedPath> {
  if (given === "") {
    throw new PathError("invalid_arguments", `"path" must not be empty`);
  }
  if (given.includes("\0")) {
    throw new PathError(
      "invalid_arguments",
      `"path" must not contain a NUL character`,
    );
  }
  let absolute: string;
  if (isAbsolute(given)) absolute = resolve(given);
  else {
    if (!workingDirectory || !isAbsolute(workingDirectory)) {
      throw new PathError(
        "invalid_arguments",
        `Cannot resolve the relative path "${given}": the call has no absolute working directory; pass an absolute path`,
      );
    }
    const cwd = resolve(workingDirectory);
    if (
      !roots.some((r) => isInside(r.absolute, cwd) || isInside(r.real, cwd))
    ) {
      throw new PathError(
        "permission_denied",
        `Refusing "${given}": the working directory "${cwd}" is outside the allowed roots ${
          rootList(roots)
        }`,
      );
    }
    absolute = resolve(cwd, given);
  }
  const lexicalRoot = roots.find((r) =>
    isInside(r.absolute, absolute) || isInside(r.real, absolute)
  );
  if (!lexicalRoot) {
    throw new PathError(
      "permission_denied",
      `Refusing "${given}": it resolves to "${absolute}", outside the allowed roots ${
        rootList(roots)
      }`,
    );
  }
  const stopAt = isInside(lexicalRoot.absolute, absolute)
    ? lexicalRoot.absolute
    : lexicalRoot.real;
  const { real, exists } = await realOf(absolute, stopAt, roots, given);
  if (!roots.some((r) => isInside(r.real, real))) {
    throw new PathError(
      "permission_denied",
      `Refusing "${given}": through a symbolic link it resolves to "${real}", outside the allowed roots ${
        rootList(roots)
      }`,
    );
  }
  return { given, absolute, real, exists };
}

/**
 * Validates a provider block that takes only `roots` (the filesystem and
 * search plugins): a non-empty list of non-empty strings, each absolute
 * one an existing directory the plugin may read (relative roots resolve
 * per call, against the call's working directory).
 *
 * @param config The decoded provider block.
 * @param provider The plugin's name (for messages).
 * @param purpose What the roots are for, e.g. "the directories the tools may touch".
 * @param grants The grants that give access, e.g. "allow_read and allow_write".
 * @returns The roots.
 * @throws {RootsConfigError} Naming the attribute or root that is wrong.
 */
export async function parseRootsConfig(
  config: Readonly<Record<string, unknown>> | undefined,
  provider: string,
  purpose: string,
  grants: string,
): Promise<string[]> {
  const bad = (message: string): never => {
    throw new RootsConfigError(message);
  };
  const cfg = config ?? {};
  for (const key of Object.keys(cfg)) {
    if (key !== "roots") {
      bad(
        `config attribute "${key}" is not supported by ${provider} (it takes "roots")`,
      );
    }
  }
  const value = cfg.roots;
  if (value === undefined || value === null) {
    bad(`config attribute "roots" is required: ${purpose}`);
  }
  if (
    !Array.isArray(value) ||
    value.some((r) => typeof r !== "string" || r === "")
  ) {
    bad(`config attribute "roots" must be a list of non-empty strings`);
  }
  const list = value as string[];
  if (list.length === 0) {
    bad(`config attribute "roots" must name at least one directory`);
  }
  for (const root of list) {
    if (!isAbsolute(root)) continue; // resolved per call
    try {
      const info = await Deno.stat(root);
      if (!info.isDirectory) bad(`root "${root}" is not a directory`);
    } catch (err) {
      if (err instanceof RootsConfigError) throw err;
      if (err instanceof Deno.errors.NotFound) {
        bad(`root "${root}" does not exist`);
      }
      bad(
        `root "${root}" cannot be read by the plugin (the operator grants access with ${grants} in the provider block): ${
          (err as Error).message
        }`,
      );
    }
  }
  return [...list];
}

/** A `roots` configuration that cannot be used; the message names why. */
export class RootsConfigError extends Error {
  /** @param message What is wrong. */
  constructor(message: string) {
    super(message);
    this.name = "RootsConfigError";
  }
}
