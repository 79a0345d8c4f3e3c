/**
 * The `command` glob of the policy DSL (an extension; config.md §6 is silent
 * on it): {@linkcode checkCommandPattern} checks a pattern at load time and
 * gives its normalized form, {@linkcode matchesCommandPattern} matches it
 * against one segment of a shell command line, and
 * {@linkcode literalLength} ranks two patterns for specificity.
 *
 * @module
 */
import { parseShellCommand } from "./shell_command.ts";

/** What {@linkcode checkCommandPattern} finds. */
export type CommandPatternCheck =
  | { normalized: string }
  | { error: string };

// Placeholders for `*` and `?`: the blanks keep a quoted glob quoted in the
// normalized form, and vanish into single spaces elsewhere.
const STAR_PLACEHOLDER = "Zq9 STAR Zq9";
const QMARK_PLACEHOLDER = "Zq9 QMARK Zq9";

/**
 * Checks a `command` pattern: it must be non-empty, hold no line break and
 * no leading or trailing blank, and read as exactly one simple command once
 * its globs are filled in (a pattern such as `git status && rm *` can never
 * match one segment). Returns the pattern in normalized form, which is what
 * segments are matched in (the caller warns when it differs).
 *
 * @example Usage
 * ```ts
 * import { checkCommandPattern } from "./command_pattern.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(checkCommandPattern("git status*"), { normalized: "git status*" });
 * assert.deepEqual(checkCommandPattern('git commit -m "wip*"'), { normalized: "git commit -m 'wip*'" });
 * assert.ok("error" in checkCommandPattern("ls && rm *"));
 * ```
 *
 * @param pattern The pattern as written.
 * @returns The normalized pattern, or why it can never match.
 */
export function checkCommandPattern(pattern: string): CommandPatternCheck {
  if (pattern.trim() === "") return { error: "The pattern is empty" };
  if (/[\r\n]/.test(pattern)) {
    return {
      error: "The pattern holds a line break, which never occurs in a segment",
    };
  }
  if (pattern !== pattern.trim()) {
    return {
      error:
        "The pattern starts or ends with a blank, which never occurs in a segment",
    };
  }
  if (/(^|[^\\])(\\\\)*\\$/.test(pattern)) {
    return { error: "The pattern ends with a lone backslash" };
  }
  // Fill the globs with a placeholder word, parse, and check the shape.
  const filled = pattern.replace(
    /\\(.)|([*?])/g,
    (_, escaped: string | undefined, glob: string | undefined) =>
      escaped !== undefined
        ? `\\${escaped}`
        : glob === "*"
        ? STAR_PLACEHOLDER
        : QMARK_PLACEHOLDER,
  );
  const parsed = parseShellCommand(filled);
  if (!parsed.ok) {
    return {
      error: `The pattern does not read as a command: ${parsed.reason}`,
    };
  }
  const unfill = (text: string) =>
    text.replaceAll(STAR_PLACEHOLDER, "*").replaceAll(QMARK_PLACEHOLDER, "?");
  const top = parsed.segments.filter((s) => s.via.length === 0);
  if (top.length !== 1) {
    return {
      error: top.length === 0
        ? "The pattern holds no command"
        : `The pattern spans ${top.length} commands (${
          top.map((s) => JSON.stringify(unfill(s.text))).join(", ")
        }), but it is matched against one segment at a time; write one rule per command`,
    };
  }
  if (filled.includes("\\")) return { normalized: pattern }; // escapes: as written
  return { normalized: unfill(top[0]!.text) };
}

type GlobToken = "*" | "?" | { readonly lit: string };

const GLOB_CACHE = new Map<string, readonly GlobToken[]>();

function globTokens(pattern: string): readonly GlobToken[] {
  let tokens = GLOB_CACHE.get(pattern);
  if (tokens === undefined) {
    const out: GlobToken[] = [];
    const chars = Array.from(pattern);
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      if (c === "\\" && i + 1 < chars.length) out.push({ lit: chars[++i]! });
      else if (c === "*") {
        if (out.at(-1) !== "*") out.push("*");
      } else if (c === "?") out.push("?");
      else out.push({ lit: c });
    }
    tokens = out;
    if (GLOB_CACHE.size > 1000) GLOB_CACHE.clear();
    GLOB_CACHE.set(pattern, tokens);
  }
  return tokens;
}

/**
 * Matches a `command` glob against a segment's normalized text: `*` any
 * text (spaces and slashes included), `?` one character, `\x` the
 * character x; the whole text must match. Linear in the text per star
 * (no regular expression, so no catastrophic backtracking on long,
 * model-written command lines).
 *
 * @example Usage
 * ```ts
 * import { matchesCommandPattern } from "./command_pattern.ts";
 * import assert from "node:assert/strict";
 *
 * assert.ok(matchesCommandPattern("git status*", "git status --short"));
 * assert.ok(!matchesCommandPattern("git status", "git status --short"));
 * assert.ok(!matchesCommandPattern("git *", "sudo git push"));
 * ```
 *
 * @param pattern The glob.
 * @param text A segment's normalized text.
 * @returns Whether the whole text matches.
 */
export function matchesCommandPattern(pattern: string, text: string): boolean {
  const tokens = globTokens(pattern);
  const chars = Array.from(text);
  let p = 0;
  let t = 0;
  let starP = -1;
  let starT = 0;
  while (t < chars.length) {
    const tok = tokens[p];
    if (tok === "?" || (typeof tok === "object" && tok.lit === chars[t])) {
      p++;
      t++;
    } else if (tok === "*") {
      starP = p++;
      starT = t;
    } else if (starP >= 0) {
      p = starP + 1;
      t = ++starT;
    } else return false;
  }
  while (tokens[p] === "*") p++;
  return p === tokens.length;
}

/**
 * Counts the characters of a glob that are not `*` or `?` (an escape counts
 * once): how `compareSpecificity` ranks two `command` rules.
 *
 * @param pattern A `command` pattern.
 * @returns The number of literal characters.
 */
export function literalLength(pattern: string): number {
  let n = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") {
      i++;
      n++;
    } else if (c !== "*" && c !== "?") n++;
  }
  return n;
}
