/**
 * Glob patterns for the search plugin, compiled to regular expressions
 * over `/`-separated relative paths.
 *
 * | Syntax | Matches |
 * | --- | --- |
 * | `*` | any characters except `/` (dot files included) |
 * | `?` | one character except `/` |
 * | `**` | as a whole segment: zero or more directories (`a/**` also matches everything below `a`) |
 * | `[abc]`, `[a-z]`, `[!a]`, `[^a]` | one character of (or not of) the class |
 * | `{ts,tsx}` | one of the alternatives (they may hold globs, not nested braces) |
 * | `\x` | the character `x` itself |
 *
 * @module
 */

/** A compiled glob. */
export interface Glob {
  /** The pattern as given. */
  source: string;
  /** Matches a whole relative path. */
  regexp: RegExp;
  /** Leading segments without any glob syntax (where a walk can start). */
  base: string;
  /** Segments of the rest; `Infinity` when it holds `**`. */
  depth: number;
  /** True when the pattern has no `/` (then it matches a name). */
  nameOnly: boolean;
}

/** A malformed glob. */
export class GlobError extends Error {
  /**
   * Creates the error.
   *
   * @param message What is wrong, naming the pattern.
   */
  constructor(message: string) {
    super(message);
    this.name = "GlobError";
  }
}

const SPECIAL = /[*?[\]{}\\]/;

function escapeRegExp(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
}

/** Translates one segment (no `/`) to a regular expression source. */
function segment(seg: string, pattern: string, inBraces = false): string {
  let out = "";
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i]!;
    if (c === "\\") {
      const next = seg[i + 1];
      if (next === undefined) {
        throw new GlobError(
          `Invalid glob "${pattern}": it ends with a lone backslash`,
        );
      }
      out += escapeRegExp(next);
      i++;
    } else if (c === "*") {
      while (seg[i + 1] === "*") i++;
      out += "[^/]*";
    } else if (c === "?") out += "[^/]";
    else if (c === "[") {
      const end = seg.indexOf("]", i + 2);
      if (end === -1) {
        throw new GlobError(
          `Invalid glob "${pattern}": the class starting at "${
            seg.slice(i)
          }" has no closing "]"`,
        );
      }
      let body = seg.slice(i + 1, end);
      let negate = false;
      if (body[0] === "!" || body[0] === "^") {
        negate = true;
        body = body.slice(1);
      }
      body = body.replace(/[\\\]^]/g, (m) => `\\${m}`);
      out += negate ? `[^/${body}]` : `[${body}]`;
      i = end;
    } else if (c === "{") {
      if (inBraces) {
        throw new GlobError(
          `Invalid glob "${pattern}": braces cannot be nested`,
        );
      }
      const end = seg.indexOf("}", i + 1);
      if (end === -1) {
        throw new GlobError(
          `Invalid glob "${pattern}": "{" has no closing "}"`,
        );
      }
      const alternatives = seg.slice(i + 1, end).split(",");
      out += `(?:${
        alternatives.map((a) => segment(a, pattern, true)).join("|")
      })`;
      i = end;
    } else if (c === "}" || c === "]") {
      out += escapeRegExp(c);
    } else out += escapeRegExp(c);
  }
  return out;
}

/**
 * Compiles a glob.
 *
 * @param pattern The pattern, `/`-separated, relative (a leading `./` is
 * dropped).
 * @returns The compiled glob.
 * @throws {GlobError} When the pattern is empty, absolute, or malformed.
 */
export function compileGlob(pattern: string): Glob {
  let p = pattern;
  while (p.startsWith("./")) p = p.slice(2);
  if (p === "") throw new GlobError(`Invalid glob "${pattern}": it is empty`);
  if (p.startsWith("/")) {
    throw new GlobError(
      `Invalid glob "${pattern}": it must be relative (give the directory as "path")`,
    );
  }
  const segs = p.split("/").filter((s, i, all) =>
    s !== "" || i === all.length - 1
  );
  if (segs.at(-1) === "") segs.pop(); // "dir/" → "dir"
  if (segs.some((s) => s === "..")) {
    throw new GlobError(
      `Invalid glob "${pattern}": ".." is not allowed (give the directory as "path")`,
    );
  }
  const baseSegs: string[] = [];
  while (
    baseSegs.length < segs.length - 1 && !SPECIAL.test(segs[baseSegs.length]!)
  ) {
    baseSegs.push(segs[baseSegs.length]!);
  }
  const rest = segs.slice(baseSegs.length);
  let source = "";
  for (const [i, seg] of segs.entries()) {
    const last = i === segs.length - 1;
    if (seg === "**") {
      // "**/" = zero or more directories; a trailing "**" = anything below.
      source += last ? ".*" : "(?:[^/]+/)*";
    } else {
      source += segment(seg, pattern) + (last ? "" : "/");
    }
  }
  if (segs.at(-1) === "**" && segs.length > 1) {
    // "a/**" matches "a/x" and deeper but not "a" itself: drop the "/" need.
    source = source.replace(/\/\.\*$/, "/.+");
  }
  return {
    source: pattern,
    regexp: new RegExp(`^${source}$`),
    base: baseSegs.join("/"),
    depth: rest.includes("**") ? Infinity : rest.length,
    nameOnly: !p.includes("/"),
  };
}

/**
 * True when `rel` (a `/`-separated relative path) matches. A pattern
 * without `/` used as a filter (`byName`) matches the last segment.
 *
 * @param glob The compiled glob.
 * @param rel The relative path.
 * @param byName Match a `/`-less pattern against the name only.
 * @returns Whether it matches.
 */
export function globMatches(glob: Glob, rel: string, byName = false): boolean {
  if (byName && glob.nameOnly) {
    return glob.regexp.test(rel.slice(rel.lastIndexOf("/") + 1));
  }
  return glob.regexp.test(rel);
}
