/**
 * The agents-md chain, independent of the wire: which directories and files
 * a working directory gets, and how the found files are fitted to a token
 * budget (farthest files dropped first, then the nearest one cut, with a
 * marker).
 *
 * @module
 */
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** The file names read by default, in the order they are read per directory. */
export const DEFAULT_FILE_NAMES: readonly string[] = [
  "AGENTS.md",
  "CLAUDE.md",
  "GEMINI.md",
];

/** One instruction file found. */
export interface FoundFile {
  /** Its path relative to the root, `/`-separated: the section label. */
  label: string;
  /** Its absolute path. */
  path: string;
  /** Its text. */
  text: string;
}

/** Why a file could not be read (kept out of the chain). */
export interface Skipped {
  /** Its absolute path. */
  path: string;
  /** The reason. */
  reason: string;
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false; // absent, or not visible to this plugin
  }
}

/**
 * The repository root of a directory: the nearest ancestor (itself
 * included) holding `.git` (a directory, or a file in a worktree). An
 * ancestor the plugin may not read counts as not holding it.
 *
 * @param dir An absolute directory.
 * @returns The root, or `undefined` when no ancestor has `.git`.
 */
export function findRepoRoot(dir: string): string | undefined {
  let d = resolve(dir);
  for (;;) {
    if (exists(join(d, ".git"))) return d;
    const up = dirname(d);
    if (up === d) return undefined;
    d = up;
  }
}

/**
 * The directories read for a working directory, farthest first: the root,
 * each directory below it, and the working directory last. A working
 * directory outside the root gets only itself.
 *
 * @param root The root (absolute).
 * @param workingDirectory The working directory (absolute).
 * @returns The directories.
 */
export function chainDirectories(
  root: string,
  workingDirectory: string,
): string[] {
  const rel = relative(root, workingDirectory);
  if (rel.startsWith("..") || isAbsolute(rel)) return [workingDirectory];
  const dirs = [root];
  let d = root;
  for (const part of rel.split(sep).filter(Boolean)) {
    d = join(d, part);
    dirs.push(d);
  }
  return dirs;
}

/**
 * Reads the instruction files of a chain of directories, farthest first;
 * within a directory, in `fileNames` order. Missing files are skipped
 * silently; unreadable ones (not a file, no permission, not UTF-8) are
 * reported in `skipped`.
 *
 * @param root Labels are relative to it.
 * @param dirs The directories, farthest first.
 * @param fileNames The names to look for.
 * @returns The files found and the ones skipped.
 */
export async function readChain(
  root: string,
  dirs: readonly string[],
  fileNames: readonly string[],
): Promise<{ files: FoundFile[]; skipped: Skipped[] }> {
  const files: FoundFile[] = [];
  const skipped: Skipped[] = [];
  const seen = new Set<string>();
  for (const dir of dirs) {
    for (const name of fileNames) {
      const path = join(dir, name);
      let real: string;
      try {
        const info = await Deno.stat(path);
        if (!info.isFile) {
          skipped.push({ path, reason: "not a regular file" });
          continue;
        }
        real = await Deno.realPath(path);
      } catch (err) {
        if (!(err instanceof Deno.errors.NotFound)) {
          skipped.push({ path, reason: (err as Error).message });
        }
        continue;
      }
      // CLAUDE.md is often a link to AGENTS.md: one file, one section.
      if (seen.has(real)) continue;
      seen.add(real);
      try {
        const bytes = await Deno.readFile(path);
        const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
        const rel = relative(root, path);
        files.push({
          label: (rel.startsWith("..") ? relative(dir, path) : rel)
            .split(sep).join("/"),
          path,
          text,
        });
      } catch (err) {
        skipped.push({
          path,
          reason: err instanceof TypeError
            ? "not UTF-8 text"
            : (err as Error).message,
        });
      }
    }
  }
  return { files, skipped };
}

/** A section after fitting. */
export interface FittedSection {
  /** The label. */
  label: string;
  /** The text (possibly cut, with the marker). */
  text: string;
  /** Its tokens, from the counter. */
  tokens: number;
  /** Whether it was cut. */
  truncated: boolean;
}

/** What fitting did. */
export interface Fitted {
  /** The sections kept, farthest first. */
  sections: FittedSection[];
  /** Labels of files dropped whole, farthest first. */
  dropped: string[];
}

/** The marker that ends a cut section. */
export function truncationMarker(
  label: string,
  shown: number,
  total: number,
): string {
  return `\n\n[agents-md: ${label} truncated to fit the token budget; showing the first ${shown} of ${total} characters]`;
}

/**
 * Fits files to a budget: all of them if they fit; otherwise the farthest
 * files are dropped whole, one at a time, until the rest fit; if the
 * nearest file alone is over the budget, it is cut (at a line end when one
 * is close) and ends with {@linkcode truncationMarker}. Every count comes
 * from `count` (the kernel's CountTokens).
 *
 * @param files The files, farthest first.
 * @param budget The token budget.
 * @param count Counts the tokens of a text.
 * @returns The sections, or `undefined` when files exist but not even a
 *   cut nearest file with its marker fits.
 */
export async function fitToBudget(
  files: readonly FoundFile[],
  budget: number,
  count: (text: string) => Promise<number>,
): Promise<Fitted | undefined> {
  const tokens = await Promise.all(files.map((f) => count(f.text)));
  let start = 0;
  let total = tokens.reduce((a, b) => a + b, 0);
  while (start < files.length && total > budget) {
    total -= tokens[start]!;
    start++;
  }
  const dropped = files.slice(0, start).map((f) => f.label);
  if (start < files.length) {
    return {
      sections: files.slice(start).map((f, i) => ({
        label: f.label,
        text: f.text,
        tokens: tokens[start + i]!,
        truncated: false,
      })),
      dropped,
    };
  }
  if (files.length === 0) return { sections: [], dropped: [] };
  // Even the nearest file alone is over: cut it.
  const nearest = files.at(-1)!;
  const full = nearest.text;
  let keep = Math.floor(full.length * budget / Math.max(1, tokens.at(-1)!));
  for (let attempt = 0; attempt < 12 && keep > 0; attempt++) {
    let cut = full.slice(0, keep);
    const nl = cut.lastIndexOf("\n");
    if (nl >= keep * 0.8) cut = cut.slice(0, nl);
    const text = cut + truncationMarker(nearest.label, cut.length, full.length);
    const n = await count(text);
    if (n <= budget) {
      return {
        sections: [{ label: nearest.label, text, tokens: n, truncated: true }],
        dropped: files.slice(0, -1).map((f) => f.label),
      };
    }
    keep = Math.floor(keep * Math.min(0.9, budget / n));
  }
  return undefined;
}
