/**
 * `multi_edit`: several files changed as one all-or-nothing operation.
 *
 * - {@linkcode planMultiEdit} checks the arguments, confines every path and
 *   computes each file's new text (a list of exact `old_str → new_str`
 *   edits applied in order, or a complete new `content`) without touching
 *   anything, so that Preview can show one diff section per file.
 * - {@linkcode commitAll} applies such a plan atomically: every new text is
 *   first written to a temporary file beside its target and synced; then,
 *   file by file, the target is checked to be unchanged since it was read,
 *   its current inode is kept under a hard-linked backup name, and the
 *   temporary file is renamed over it. Any failure (a file that changed, a
 *   rename refused, a cancellation) undoes the renames already made in
 *   reverse order (backups renamed back, created files removed, created
 *   directories removed), so the files end as they all were, or as they
 *   all should be.
 * - {@linkcode PathLocks} serializes the plugin's own writes per real path,
 *   whatever tool they come from.
 *
 * @module
 */
import { basename, dirname, join } from "node:path";
import {
  closeFile,
  createTempIn,
  lstatOrUndefined,
  makeDirectories,
  randomSuffix,
  removeIfSame,
  renameVerified,
  type TempFile,
  writeAll,
} from "../sdk/confined_fs.ts";
import {
  confine,
  type ConfinedPath,
  type ResolvedRoot,
  resolveRoots,
} from "../sdk/roots.ts";
import {
  type CallInput,
  classify,
  looksBinary,
  readVerified,
  replaceExact,
  ToolFailure,
} from "./_tools.ts";

/** Files one `multi_edit` may change. */
export const MULTI_MAX_FILES = 100;
/** Edits one file of a `multi_edit` may list. */
export const MULTI_MAX_EDITS = 100;

/** One file's change in a multi-file plan. */
export interface MultiFilePlan {
  /** The confined target. */
  target: ConfinedPath;
  /** The roots it was confined to (verified again when it is written). */
  roots: readonly ResolvedRoot[];
  /** `edit` (a list of replacements) or `write` (complete content). */
  mode: "edit" | "write";
  /** The current bytes, or undefined when the file does not exist. */
  oldBytes: Uint8Array | undefined;
  /** The current text, or undefined when missing or not UTF-8 text. */
  oldText: string | undefined;
  /** True when the current file is not UTF-8 text. */
  oldIsBinary: boolean;
  /** The text after the change. */
  newText: string;
  /** Replacements made (edits), or 1 (content). */
  replacements: number;
}

/** A snapshot of what a file holds: `missing` or a SHA-256 of its bytes. */
export type Fingerprint = string;

/**
 * The fingerprint of a file's content as planned.
 *
 * @param bytes The bytes, or undefined for a missing file.
 * @returns `missing` or `sha256:<hex>`.
 */
export async function fingerprintOf(
  bytes: Uint8Array | undefined,
): Promise<Fingerprint> {
  if (bytes === undefined) return "missing";
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>),
  );
  return `sha256:${
    Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")
  }`;
}

function problem(message: string): ToolFailure {
  return new ToolFailure(
    "invalid_arguments",
    `Invalid arguments for multi_edit: ${message}`,
  );
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function typeName(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
}

/** A checked file entry of the arguments. */
interface FileSpec {
  path: string;
  edits?: { old_str: string; new_str: string; replace_all: boolean }[];
  content?: string;
}

/**
 * Checks `multi_edit` arguments: `files`, a non-empty list of
 * `{path, edits: [{old_str, new_str, replace_all?}]}` or
 * `{path, content}`.
 *
 * @param args The arguments.
 * @returns The checked file entries.
 * @throws {ToolFailure} `invalid_arguments` naming every problem.
 */
export function checkMultiArguments(
  args: Readonly<Record<string, unknown>>,
): FileSpec[] {
  const problems: string[] = [];
  for (const key of Object.keys(args)) {
    if (key !== "files") {
      problems.push(`unknown argument "${key}" (expected "files")`);
    }
  }
  const files = args.files;
  if (files === undefined || files === null) {
    problems.push(`"files" is required`);
  } else if (!Array.isArray(files)) {
    problems.push(`"files" must be an array, got ${typeName(files)}`);
  } else if (files.length === 0) {
    problems.push(`"files" must list at least one file`);
  } else if (files.length > MULTI_MAX_FILES) {
    problems.push(
      `"files" lists ${files.length} files; at most ${MULTI_MAX_FILES} per call`,
    );
  }
  const out: FileSpec[] = [];
  if (Array.isArray(files) && files.length <= MULTI_MAX_FILES) {
    files.forEach((f, i) => {
      const at = `files[${i}]`;
      if (!isObject(f)) {
        problems.push(`"${at}" must be an object, got ${typeName(f)}`);
        return;
      }
      for (const key of Object.keys(f)) {
        if (!["path", "edits", "content"].includes(key)) {
          problems.push(
            `unknown argument "${at}.${key}" (expected "path", "edits" or "content")`,
          );
        }
      }
      if (typeof f.path !== "string" || f.path === "") {
        problems.push(
          `"${at}.path" must be a non-empty string, got ${
            JSON.stringify(f.path) ?? "nothing"
          }`,
        );
      }
      const hasEdits = f.edits !== undefined && f.edits !== null;
      const hasContent = f.content !== undefined && f.content !== null;
      if (hasEdits === hasContent) {
        problems.push(
          `"${at}" must have exactly one of "edits" (replacements) and "content" (the whole new text)`,
        );
        return;
      }
      if (hasContent) {
        if (typeof f.content !== "string") {
          problems.push(
            `"${at}.content" must be a string, got ${typeName(f.content)}`,
          );
        } else out.push({ path: String(f.path), content: f.content });
        return;
      }
      if (!Array.isArray(f.edits) || f.edits.length === 0) {
        problems.push(`"${at}.edits" must be a non-empty array`);
        return;
      }
      if (f.edits.length > MULTI_MAX_EDITS) {
        problems.push(
          `"${at}.edits" lists ${f.edits.length} edits; at most ${MULTI_MAX_EDITS}`,
        );
        return;
      }
      const edits: NonNullable<FileSpec["edits"]> = [];
      f.edits.forEach((e, j) => {
        const where = `${at}.edits[${j}]`;
        if (!isObject(e)) {
          problems.push(`"${where}" must be an object, got ${typeName(e)}`);
          return;
        }
        for (const key of Object.keys(e)) {
          if (!["old_str", "new_str", "replace_all"].includes(key)) {
            problems.push(
              `unknown argument "${where}.${key}" (expected "old_str", "new_str", "replace_all")`,
            );
          }
        }
        if (typeof e.old_str !== "string" || e.old_str === "") {
          problems.push(`"${where}.old_str" must be a non-empty string`);
        }
        if (typeof e.new_str !== "string") {
          problems.push(`"${where}.new_str" must be a string`);
        }
        if (
          e.replace_all !== undefined && e.replace_all !== null &&
          typeof e.replace_all !== "boolean"
        ) {
          problems.push(`"${where}.replace_all" must be a boolean`);
        }
        if (
          typeof e.old_str === "string" && e.old_str !== "" &&
          e.old_str === e.new_str
        ) {
          problems.push(
            `"${where}": "old_str" and "new_str" are the same; the edit would change nothing`,
          );
        }
        edits.push({
          old_str: String(e.old_str),
          new_str: String(e.new_str),
          replace_all: e.replace_all === true,
        });
      });
      out.push({ path: String(f.path), edits });
    });
  }
  if (problems.length > 0) throw problem(problems.join("; "));
  return out;
}

/**
 * Confines every path of a `multi_edit` call (for locking before the
 * plan is computed).
 *
 * @param input The roots and the call.
 * @returns The confined paths, in argument order.
 * @throws {ToolFailure} Classified.
 */
export async function multiTargets(input: CallInput): Promise<ConfinedPath[]> {
  return (await confineAll(input)).targets;
}

async function confineAll(
  input: CallInput,
): Promise<{ targets: ConfinedPath[]; roots: readonly ResolvedRoot[] }> {
  const specs = checkMultiArguments(input.args);
  const roots = await resolveRoots(input.roots, input.workingDirectory);
  const targets: ConfinedPath[] = [];
  for (const spec of specs) {
    try {
      targets.push(await confine(spec.path, input.workingDirectory, roots));
    } catch (err) {
      throw classify(err, `Cannot edit "${spec.path}"`);
    }
  }
  return { targets, roots };
}

/** The bytes of a confined file, read through a verified handle. */
async function readBytes(
  path: ConfinedPath,
  roots: readonly ResolvedRoot[],
  action: string,
): Promise<Uint8Array | undefined> {
  try {
    return await readVerified(path, roots, action);
  } catch (err) {
    if (err instanceof ToolFailure && err.kind === "not_found") {
      return undefined;
    }
    throw err;
  }
}

function decode(bytes: Uint8Array): string | undefined {
  if (looksBinary(bytes)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(
      bytes,
    );
  } catch {
    return undefined;
  }
}

/**
 * Plans `multi_edit` without touching anything: every path confined, each
 * file's edits applied in order to its current text (a file with `edits`
 * must exist and be UTF-8 text; one with `content` is created or
 * overwritten). The same file twice is refused: list its edits together.
 *
 * @param input The roots and the call.
 * @returns One plan per file, in argument order.
 * @throws {ToolFailure} Classified, naming the file and the edit.
 */
export async function planMultiEdit(
  input: CallInput,
): Promise<MultiFilePlan[]> {
  const specs = checkMultiArguments(input.args);
  const { targets, roots } = await confineAll(input);
  const seen = new Map<string, number>();
  targets.forEach((t, i) => {
    const before = seen.get(t.real);
    if (before !== undefined) {
      throw problem(
        `"files[${i}]" ("${t.given}") and "files[${before}]" ("${
          targets[before]!.given
        }") are the same file "${t.real}"; list all its edits in one entry`,
      );
    }
    seen.set(t.real, i);
  });
  const plans: MultiFilePlan[] = [];
  for (const [i, spec] of specs.entries()) {
    const path = targets[i]!;
    const action = `Cannot edit "${path.absolute}" (files[${i}])`;
    const oldBytes = path.exists
      ? await readBytes(path, roots, action)
      : undefined;
    const oldText = oldBytes === undefined ? undefined : decode(oldBytes);
    const oldIsBinary = oldBytes !== undefined && oldText === undefined;
    if (spec.content !== undefined) {
      plans.push({
        target: path,
        roots,
        mode: "write",
        oldBytes,
        oldText,
        oldIsBinary,
        newText: spec.content,
        replacements: 1,
      });
      continue;
    }
    if (oldBytes === undefined) {
      throw new ToolFailure(
        "not_found",
        `${action}: it does not exist (to create it, give "content" instead of "edits")`,
      );
    }
    if (oldText === undefined) {
      throw new ToolFailure(
        "invalid_arguments",
        `${action}: it is not a UTF-8 text file`,
      );
    }
    let text = oldText;
    let replacements = 0;
    for (const [j, e] of spec.edits!.entries()) {
      const r = replaceExact(
        text,
        e.old_str,
        e.new_str,
        e.replace_all,
        `${action}, edit ${j}`,
      );
      text = r.text;
      replacements += r.replacements;
    }
    plans.push({
      target: path,
      roots,
      mode: "edit",
      oldBytes,
      oldText,
      oldIsBinary: false,
      newText: text,
      replacements,
    });
  }
  return plans;
}

/** Test hooks for {@linkcode commitAll}: failure injection. */
export interface CommitHooks {
  /** Runs before the rename of plan `index` (after earlier renames). */
  beforeRename?: (index: number, plan: MultiFilePlan) => Promise<void> | void;
}

/** What {@linkcode commitAll} did for one file. */
export interface CommittedFile {
  /** The absolute path (as the user sees it). */
  path: string;
  /** True when the file did not exist. */
  created: boolean;
  /** Bytes written. */
  bytes: number;
}

interface Staged {
  plan: MultiFilePlan;
  data: Uint8Array;
  tmp: TempFile | undefined;
  mode: number | undefined;
  backup?: string;
  renamed: boolean;
}

async function bytesEqual(
  plan: MultiFilePlan,
  expected: Uint8Array | undefined,
): Promise<boolean> {
  const info = lstatOrUndefined(plan.target.real);
  if (info !== undefined && !info.isFile) return false;
  const now = info === undefined ? undefined : await readBytes(
    plan.target,
    plan.roots,
    `Cannot read "${plan.target.absolute}"`,
  );
  if (now === undefined || expected === undefined) return now === expected;
  if (now.length !== expected.length) return false;
  for (let i = 0; i < now.length; i++) if (now[i] !== expected[i]) return false;
  return true;
}

/**
 * Applies a multi-file plan atomically (all files or none; see the module
 * documentation). Cancellation is honoured until the last rename; a
 * cancelled or failed commit has undone everything it did.
 *
 * @param plans The plan, one entry per file.
 * @param signal Aborts when the call is cancelled.
 * @param hooks Failure injection for tests.
 * @returns What was written per file.
 * @throws {ToolFailure} `concurrency_conflict` when a file changed since it
 * was read, `cancelled`, or the classified failure; the message says that
 * nothing was changed, or exactly which files could not be restored.
 */
export async function commitAll(
  plans: readonly MultiFilePlan[],
  signal?: AbortSignal,
  hooks: CommitHooks = {},
): Promise<CommittedFile[]> {
  const encoder = new TextEncoder();
  const staged: Staged[] = [];
  const createdDirs: string[] = [];
  const undo = async (): Promise<string[]> => {
    const stuck: string[] = [];
    for (const s of [...staged].reverse()) {
      if (s.renamed) {
        try {
          if (s.backup) await Deno.rename(s.backup, s.plan.target.real);
          else if (!removeIfSame(s.plan.target.real, s.tmp)) {
            throw new Error("it is no longer the file written");
          }
          s.renamed = false;
          s.backup = undefined;
        } catch (err) {
          stuck.push(
            `"${s.plan.target.absolute}" (${
              err instanceof Error ? err.message : String(err)
            })`,
          );
        }
      }
      if (s.tmp) {
        closeFile(s.tmp);
        if (!s.renamed) removeIfSame(s.tmp.path, s.tmp);
      }
      if (s.backup) removeIfSame(s.backup, undefined);
    }
    // Innermost first, and only if empty: never a tree through a swapped path.
    for (const d of createdDirs.reverse()) {
      await Deno.remove(d).catch(() => {});
    }
    return stuck;
  };
  const fail = async (err: unknown, what: string): Promise<never> => {
    const stuck = await undo();
    const f = classify(err, what);
    if (stuck.length > 0) {
      throw new ToolFailure(
        "execution_failed",
        `${f.message}; rolling back failed, these files hold the new content: ${
          stuck.join(", ")
        }`,
        { partial: "true" },
      );
    }
    throw new ToolFailure(
      f.kind,
      `${f.message}; nothing was changed (every file was left as it was)`,
      f.details,
    );
  };

  // 1. Stage: every new text in a synced temporary file beside its target,
  // created in a directory verified to be inside the roots.
  for (const plan of plans) {
    const real = plan.target.real;
    const shown = plan.target.absolute;
    const action = `Cannot write "${shown}"`;
    const dir = dirname(real);
    const s: Staged = {
      plan,
      data: encoder.encode(plan.newText),
      tmp: undefined,
      mode: undefined,
      renamed: false,
    };
    try {
      if (signal?.aborted) {
        throw new ToolFailure("cancelled", "Cancelled before any file changed");
      }
      createdDirs.push(...makeDirectories(dir, plan.roots, shown));
      const info = lstatOrUndefined(real);
      if (info?.isDirectory) {
        throw new ToolFailure(
          "invalid_arguments",
          `${action}: it is a directory`,
        );
      }
      if (info?.isSymlink) {
        throw new ToolFailure(
          "permission_denied",
          `Refusing "${shown}": it became a symbolic link after it was resolved`,
        );
      }
      if (info) s.mode = info.mode === null ? undefined : info.mode & 0o7777;
      staged.push(s);
      s.tmp = createTempIn(
        dir,
        basename(real),
        s.mode ?? 0o666,
        plan.roots,
        shown,
      );
      writeAll(s.tmp, s.data, s.mode);
      closeFile(s.tmp);
    } catch (err) {
      await fail(err, action);
    }
  }

  // 2. Swap, file by file, each checked unchanged since it was read.
  for (const [i, s] of staged.entries()) {
    const real = s.plan.target.real;
    const action = `Cannot write "${s.plan.target.absolute}"`;
    try {
      await hooks.beforeRename?.(i, s.plan);
      if (signal?.aborted) {
        throw new ToolFailure("cancelled", "Cancelled");
      }
      if (!(await bytesEqual(s.plan, s.plan.oldBytes))) {
        throw new ToolFailure(
          "concurrency_conflict",
          `"${s.plan.target.absolute}" changed since it was read`,
        );
      }
      if (s.plan.oldBytes !== undefined) {
        const backup = join(
          dirname(real),
          `.${basename(real)}.${randomSuffix()}.bak`,
        );
        try {
          await Deno.link(real, backup);
        } catch {
          await Deno.copyFile(real, backup);
        }
        s.backup = backup;
      }
      try {
        renameVerified(
          s.tmp!,
          basename(real),
          s.plan.roots,
          s.plan.target.absolute,
        );
      } finally {
        // Renamed unless the temporary file is still where it was made.
        s.renamed = lstatOrUndefined(s.tmp!.path) === undefined;
      }
    } catch (err) {
      await fail(err, action);
    }
  }

  // 3. Done: drop the backups.
  for (const s of staged) {
    if (s.backup) removeIfSame(s.backup, undefined);
  }
  return staged.map((s) => ({
    path: s.plan.target.absolute,
    created: s.plan.oldBytes === undefined,
    bytes: s.data.length,
  }));
}

/**
 * Per-path mutual exclusion inside the plugin: a task holding a set of
 * real paths runs only when no other task holds any of them. Locks are
 * taken in sorted order, so two multi-file tasks cannot deadlock.
 */
export class PathLocks {
  #tails = new Map<string, Promise<void>>();

  /**
   * Runs `task` holding every path in `paths`.
   *
   * @param paths Real paths.
   * @param task The task.
   * @returns The task's result.
   */
  async run<T>(paths: readonly string[], task: () => Promise<T>): Promise<T> {
    const keys = [...new Set(paths)].sort();
    const releases: (() => void)[] = [];
    try {
      for (const key of keys) {
        const prev = this.#tails.get(key) ?? Promise.resolve();
        const { promise, resolve } = Promise.withResolvers<void>();
        const tail = prev.then(() => promise);
        this.#tails.set(key, tail);
        releases.push(() => {
          resolve();
          tail.then(() => {
            if (this.#tails.get(key) === tail) this.#tails.delete(key);
          });
        });
        await prev;
      }
      return await task();
    } finally {
      for (const release of releases) release();
    }
  }

  /** Paths currently held or awaited (for tests). */
  get size(): number {
    return this.#tails.size;
  }
}
