/**
 * The `command` glob of the policy DSL (an extension; config.md §6 is silent
 * on it): {@linkcode checkCommandPattern} checks a pattern at load time and
 * gives its normalized form, {@linkcode matchesCommandPattern} matches it
 * against one segment of a shell command line, and
 * {@linkcode literalLength} ranks two patterns for specificity, and
 * {@linkcode isCommandPatternWithin} tells whether every segment one pattern
 * matches is matched by another (when an allow rule may set a deny aside).
 *
 * @module
 */
import { parseShellCommand, plainCommandText } from "./shell_command.ts";

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
  // Fill the globs with a placeholder word, parse, and check the shape. A
  // redirection pattern (`> /tmp/*`) gets placeholders without blanks, so
  // that its target stays one word.
  const redirection = WRITE_REDIRECTION_REGEXP.test(pattern);
  const star = redirection ? STAR_WORD : STAR_PLACEHOLDER;
  const qmark = redirection ? QMARK_WORD : QMARK_PLACEHOLDER;
  // Without escapes, two plain replacements (neither placeholder holds a
  // glob); a callback per glob cost more than the rest of the check.
  const filled = !pattern.includes("\\")
    ? pattern.replaceAll("*", star).replaceAll("?", qmark)
    : pattern.replace(
      /\\(.)|([*?])/g,
      (_, escaped: string | undefined, glob: string | undefined) =>
        escaped !== undefined ? `\\${escaped}` : glob === "*" ? star : qmark,
    );
  const unfill = (text: string) =>
    text.replaceAll(`${COMMAND_WORD} `, "").replaceAll(star, "*")
      .replaceAll(qmark, "?");
  // Bare words one blank apart: the filled pattern is its own one segment
  // (most patterns; the full parse was a quarter of a 5 MB file's check).
  const plain = redirection ? undefined : plainCommandText(filled);
  if (plain !== undefined) return { normalized: unfill(plain) };
  // A leading `&>` would read as `&` then `>`: put a command word before a
  // redirection pattern, and take it away again.
  const parsed = parseShellCommand(
    redirection ? `${COMMAND_WORD} ${filled}` : filled,
  );
  if (!parsed.ok) {
    return {
      error: `The pattern does not read as a command: ${parsed.reason}`,
    };
  }
  const top = parsed.segments.filter((s) =>
    s.via.length === 0 && !(redirection && s.text === COMMAND_WORD)
  );
  const writes = parsed.segments.filter((s) =>
    s.via.length === 1 && s.via[0] === "redirection"
  );
  const quoted = (list: readonly { text: string }[]) =>
    list.map((s) => JSON.stringify(unfill(s.text))).join(", ");
  if (top.length > 0 && writes.length > 0) {
    return {
      error: `The pattern joins a command (${
        quoted(top)
      }) and a redirection that writes a file (${
        quoted(writes)
      }), but such a redirection is always judged as a segment of its own, never as part of its command, so this pattern can never match; write one rule for the command and one for the redirection (e.g. ${
        quoted(writes.slice(0, 1))
      })`,
    };
  }
  const only = top.length === 0 ? writes : top;
  if (only.length !== 1) {
    return {
      error: only.length === 0
        ? "The pattern holds no command"
        : `The pattern spans ${only.length} ${
          top.length === 0 ? "redirections" : "commands"
        } (${
          quoted(only)
        }), but it is matched against one segment at a time; write one rule per ${
          top.length === 0 ? "redirection" : "command"
        }`,
    };
  }
  if (filled.includes("\\")) return { normalized: pattern }; // escapes: as written
  return { normalized: unfill(only[0]!.text) };
}

// A pattern that starts with a redirection writing a file: `> x`, `2>> x`,
// `&> x`, `>| x`, `>& x`, `<> x`.
const WRITE_REDIRECTION_REGEXP = /^([0-9]*(>>?|>\||>&|<>)|&>>?)/;
const STAR_WORD = "Zq9STARZq9";
const COMMAND_WORD = "Zq9CMDZq9";
const QMARK_WORD = "Zq9QMARKZq9";

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

/**
 * Tells whether every text `inner` matches is also matched by `outer`
 * (`rm -i *` is within `rm *`; `*> /dev/null` is not). The answer is
 * conservative: `true` is always right, and a pair such as `*?` within
 * `?*`, equal in fact, may answer `false`. Policy uses it so that an allow
 * rule sets a deny rule aside only when it provably narrows it; a `false`
 * keeps the deny.
 *
 * @example Usage
 * ```ts
 * import { isCommandPatternWithin } from "./command_pattern.ts";
 * import assert from "node:assert/strict";
 *
 * assert.ok(isCommandPatternWithin("rm -i *", "rm *"));
 * assert.ok(isCommandPatternWithin("git push", "git push*"));
 * assert.ok(!isCommandPatternWithin("*> /dev/null", "rm *"));
 * assert.ok(!isCommandPatternWithin("rm *", "rm -i *"));
 * ```
 *
 * @param inner The pattern that should be the narrower one.
 * @param outer The pattern that should cover it.
 * @returns `true` when every text matching `inner` matches `outer`.
 */
export function isCommandPatternWithin(inner: string, outer: string): boolean {
  const a = globTokens(outer);
  const b = globTokens(inner);
  // covers(i, j): outer tokens from i cover inner tokens from j. Filled
  // bottom-up, one row of outer at a time (row i needs only row i + 1), so
  // the memory is linear in the inner pattern and there is no recursion.
  let below = new Uint8Array(b.length + 1); // row i + 1
  let row = new Uint8Array(b.length + 1); // row i
  below[b.length] = 1; // past the end of both: covered
  for (let i = a.length - 1; i >= 0; i--) {
    const o = a[i]!;
    for (let j = b.length; j >= 0; j--) {
      const n = b[j];
      let result: boolean;
      if (o === "*") {
        // `*` covers nothing more, or one more inner token of any kind
        result = below[j] === 1 || (n !== undefined && row[j + 1] === 1);
      } else if (n === undefined || n === "*") result = false;
      else if (o === "?") result = below[j + 1] === 1;
      else result = n !== "?" && n.lit === o.lit && below[j + 1] === 1;
      row[j] = result ? 1 : 0;
    }
    [below, row] = [row, below];
  }
  return below[0] === 1;
}

/**
 * The literal text a glob starts and ends with: the characters before its
 * first `*` or `?` and after its last one, escapes resolved (`\*` is a
 * literal star). A pattern without globs is all prefix and all suffix.
 * When `inner` is within `outer` ({@linkcode isCommandPatternWithin}),
 * `outer`'s prefix is a prefix of `inner`'s and `outer`'s suffix a suffix
 * of `inner`'s: a literal token of `outer` only ever covers the same
 * literal token of `inner`, and before `outer`'s first glob (after its
 * last) nothing else can consume `inner`'s tokens.
 *
 * @example Usage
 * ```ts
 * import { literalAffixes } from "./command_pattern.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(literalAffixes("rm -i *.txt"), { prefix: "rm -i ", suffix: ".txt" });
 * assert.deepEqual(literalAffixes("ls"), { prefix: "ls", suffix: "ls" });
 * ```
 *
 * @param pattern A `command` pattern.
 * @returns Its literal prefix and suffix.
 */
export function literalAffixes(
  pattern: string,
): { prefix: string; suffix: string } {
  // One scan, no tokens: the same text `globTokens` gives (an escape's
  // character is literal, a trailing backslash is itself).
  if (!pattern.includes("\\")) {
    const first = pattern.search(/[*?]/);
    if (first < 0) return { prefix: pattern, suffix: pattern };
    const last = Math.max(pattern.lastIndexOf("*"), pattern.lastIndexOf("?"));
    return { prefix: pattern.slice(0, first), suffix: pattern.slice(last + 1) };
  }
  let prefix: string | undefined;
  let run = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\" && i + 1 < pattern.length) run += pattern[++i];
    else if (c === "*" || c === "?") {
      prefix ??= run;
      run = "";
    } else run += c;
  }
  return { prefix: prefix ?? run, suffix: run };
}
