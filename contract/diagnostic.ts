/**
 * Diagnostics: problems in the user's configuration, collected (never
 * thrown one at a time) and printed with the source line and a caret, the
 * way rustc and terraform do.
 *
 * @module
 */

/** A position in a source file: 1-based line and column, 0-based byte offset. */
export interface Pos {
  /** 1-based line. */
  line: number;
  /** 1-based column, counted in Unicode code points. */
  column: number;
  /** 0-based UTF-8 byte offset from the start of the file. */
  byte: number;
}

/** A span of source text in one file. */
export interface SourceRange {
  /** The file's path as shown to the user (relative to the config dir when possible). */
  file: string;
  /** Where the span starts. */
  start: Pos;
  /** Where it ends (exclusive). */
  end: Pos;
}

/** How bad a diagnostic is. */
export type Severity = "error" | "warning";

/**
 * One problem in the user's configuration.
 *
 * `code` is stable across releases (tests and `--json` consumers match on
 * it); `summary` is a short title; `detail` is full sentences. A diagnostic
 * never contains the value of a secret.
 */
export interface Diagnostic {
  /** `error` makes the configuration invalid; `warning` does not. */
  severity: Severity;
  /** A stable code, e.g. `E_UNKNOWN_ATTR`. */
  code: string;
  /** Short title, sentence case, no trailing period. */
  summary: string;
  /** Full sentences: what is wrong, what was expected, how to fix it. */
  detail?: string;
  /** Where, when the problem has a place in a file. */
  range?: SourceRange;
  /**
   * The source text under `range` may be a secret (e.g. a key pasted where
   * only `env("NAME")` is allowed): renderers must not print it.
   * {@linkcode formatDiagnostic} masks it with `*`.
   */
  redactSource?: boolean;
}

/** Options for {@linkcode formatDiagnostic}. */
export interface FormatOptions {
  /** The text of each file by its shown path, to print the source line. */
  sources?: ReadonlyMap<string, string>;
  /**
   * Use ANSI colours.
   * @default {false}
   */
  color?: boolean;
}

const RED = "\x1b[1;31m";
const YELLOW = "\x1b[1;33m";
const BLUE = "\x1b[1;34m";
const BOLD = "\x1b[1m";
const RESET = "\x1b[0m";

/**
 * Line `index` (from 0) of `text` as `text.split("\n")[index]` gives it,
 * found without splitting: a report of 100 problems in a 5 MB file split
 * the whole file for each of them.
 */
function sourceLine(text: string, index: number): string | undefined {
  if (!(index >= 0) || !Number.isInteger(index)) return undefined;
  let from = 0;
  for (let i = 0; i < index; i++) {
    const nl = text.indexOf("\n", from);
    if (nl === -1) return undefined;
    from = nl + 1;
  }
  const to = text.indexOf("\n", from);
  return text.slice(from, to === -1 ? text.length : to);
}

/**
 * Renders one diagnostic for a terminal:
 *
 * ```text
 * error[E_UNKNOWN_ATTR]: Unsupported argument "max_turn"
 *   --> agent.hcl:12:3
 *    |
 * 12 |   max_turn = 5
 *    |   ^^^^^^^^
 *    = Did you mean "max_turns"?
 * ```
 *
 * @param d The diagnostic.
 * @param options Source texts and colour.
 * @returns The rendered text, ending without a newline.
 */
export function formatDiagnostic(
  d: Diagnostic,
  options: FormatOptions = {},
): string {
  const c = (
    code: string,
    s: string,
  ) => (options.color ? `${code}${s}${RESET}` : s);
  const head =
    c(d.severity === "error" ? RED : YELLOW, `${d.severity}[${d.code}]`) +
    c(BOLD, `: ${d.summary}`);
  const lines = [head];
  if (d.range) {
    const { file, start, end } = d.range;
    lines.push(`${c(BLUE, "  -->")} ${file}:${start.line}:${start.column}`);
    const text = options.sources?.get(file);
    const srcLine = text === undefined
      ? undefined
      : sourceLine(text, start.line - 1);
    if (srcLine !== undefined) {
      const gutter = String(start.line).length;
      const pad = " ".repeat(gutter);
      const chars = [...srcLine.replace(/\r$/, "")];
      if (d.redactSource) {
        const stop = end.line === start.line ? end.column - 1 : chars.length;
        for (let i = start.column - 1; i < stop && i < chars.length; i++) {
          chars[i] = "*";
        }
      }
      const width = end.line === start.line
        ? Math.max(1, end.column - start.column)
        : Math.max(1, chars.length - start.column + 1);
      const lead = chars.slice(0, start.column - 1).map((
        ch,
      ) => (ch === "\t" ? "\t" : " ")).join("");
      lines.push(`${c(BLUE, `${pad} |`)}`);
      lines.push(`${c(BLUE, `${start.line} |`)} ${chars.join("")}`);
      lines.push(
        `${c(BLUE, `${pad} |`)} ${lead}${
          c(d.severity === "error" ? RED : YELLOW, "^".repeat(width))
        }`,
      );
    }
  }
  if (d.detail) {
    for (const [i, line] of d.detail.split("\n").entries()) {
      lines.push(`${i === 0 ? c(BLUE, "   =") : "    "} ${line}`);
    }
  }
  return lines.join("\n");
}

/** True when any diagnostic is an error. */
export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === "error");
}

/**
 * Thrown by APIs that must throw on invalid configuration; carries every
 * diagnostic.
 */
export class ConfigError extends SyntaxError {
  /** Every problem found. */
  readonly diagnostics: readonly Diagnostic[];
  /**
   * Creates the error.
   *
   * @param diagnostics The problems (at least one error).
   */
  constructor(diagnostics: readonly Diagnostic[]) {
    const errors = diagnostics.filter((d) => d.severity === "error");
    const first = errors[0];
    const where = first?.range
      ? ` (${first.range.file}:${first.range.start.line}:${first.range.start.column})`
      : "";
    super(
      `Invalid configuration: ${errors.length} error${
        errors.length === 1 ? "" : "s"
      }; first: ${first?.summary ?? "unknown"}${where}`,
    );
    this.name = "ConfigError";
    this.diagnostics = diagnostics;
  }
}

/**
 * Suggests the closest candidate for a misspelled name ("did you mean"),
 * or `undefined` when nothing is close (Levenshtein distance at most a third
 * of the name's length, and at most 3).
 *
 * @param name What the user wrote.
 * @param candidates The valid names.
 * @returns The best candidate, if one is close enough.
 */
export function didYouMean(
  name: string,
  candidates: readonly string[],
): string | undefined {
  let best: string | undefined;
  let bestDist = Infinity;
  const limit = Math.min(3, Math.max(1, Math.floor(name.length / 3)));
  const lower = name.toLowerCase();
  for (const cand of candidates) {
    // The distance is at least the difference in length: a candidate
    // beyond the limit that way can be neither returned nor preferred to
    // one within it, so its distance is not computed.
    const candLower = cand.toLowerCase();
    if (Math.abs(candLower.length - lower.length) > limit) continue;
    const dist = levenshtein(lower, candLower);
    if (
      dist < bestDist ||
      (dist === bestDist && best !== undefined && cand < best)
    ) {
      best = cand;
      bestDist = dist;
    }
  }
  return bestDist <= limit ? best : undefined;
}

/**
 * The Levenshtein edit distance between two strings (insertions, deletions
 * and substitutions of UTF-16 code units each cost 1).
 *
 * @param a One string.
 * @param b The other.
 * @returns The distance.
 */
export function levenshtein(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(
        prev[j]! + 1,
        prev[j - 1]! + 1,
        diag + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      diag = tmp;
    }
  }
  return prev[b.length]!;
}
