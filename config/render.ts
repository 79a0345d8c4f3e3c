/**
 * How `check-config` prints its result: the human form (every diagnostic
 * with its source line and caret, grouped by file, errors before warnings,
 * then a one-line summary) and the versioned `--json` document.
 *
 * @module
 */

import {
  type Diagnostic,
  formatDiagnostic,
  type SourceRange,
} from "../contract/diagnostic.ts";
import type { JsonValue } from "./hcl/mod.ts";
import { LOCK_FILE_PATH } from "./lock_file.ts";
import { type Plan, planToStreamedJson } from "./plan.ts";
import type { ExplainReport } from "./explain.ts";
import type { CheckExitCode, SuppressedCounts } from "./check.ts";
import { E_TOO_MANY_DIAGNOSTICS, W_TOO_MANY_DIAGNOSTICS } from "./codes.ts";
import { writeJsonValue } from "./_json_indent.ts";

/** The `format_version` of the `--json` document. */
export const JSON_FORMAT_VERSION = "1";

/** What the renderers need from a check. */
export interface RenderInput {
  /** The exit code. */
  exitCode: CheckExitCode;
  /** The plan, when valid. */
  plan: Plan | undefined;
  /** Every diagnostic (or the first ones, see `suppressed`). */
  diagnostics: readonly Diagnostic[];
  /** Each file's text by shown path. */
  sources: ReadonlyMap<string, string>;
  /**
   * Problems found but not in `diagnostics` (a capped list): counted in
   * the totals.
   */
  suppressed?: SuppressedCounts;
}

/** Whether a diagnostic is the note that ends a capped list. */
function isCapNote(d: Diagnostic): boolean {
  return d.code === E_TOO_MANY_DIAGNOSTICS || d.code === W_TOO_MANY_DIAGNOSTICS;
}

/** Errors and warnings found: those listed plus those left out. */
function totals(input: RenderInput): { errors: number; warnings: number } {
  let errors = input.suppressed?.errors ?? 0;
  let warnings = input.suppressed?.warnings ?? 0;
  for (const d of input.diagnostics) {
    if (isCapNote(d)) continue;
    if (d.severity === "error") errors++;
    else warnings++;
  }
  return { errors, warnings };
}

/** Options for {@linkcode renderHuman}. */
export interface RenderHumanOptions {
  /**
   * Use ANSI colours.
   * @default {false}
   */
  color?: boolean;
  /**
   * Maps a file's shown path (relative to the project) to how it is printed,
   * e.g. relative to the current directory.
   * @default {the identity}
   */
  displayFile?: (file: string) => string;
  /**
   * Whether `--locked` was given (mentioned in the summary).
   * @default {false}
   */
  locked?: boolean;
}

function fileRank(file: string | undefined): [number, string] {
  if (file === undefined) return [4, ""];
  if (file === "agent.hcl" || file.endsWith("/agent.hcl")) return [0, file];
  if (file === LOCK_FILE_PATH || file.endsWith("agent.lock.hcl")) {
    return [1, file];
  }
  return [2, file];
}

/**
 * Sorts diagnostics for display: by file (`agent.hcl`, then the lock file,
 * then the others by name, then those without a place), errors before
 * warnings, then by position and code. Stable.
 *
 * @param diagnostics Any diagnostics.
 * @returns A sorted copy.
 */
export function sortDiagnostics(
  diagnostics: readonly Diagnostic[],
): Diagnostic[] {
  return [...diagnostics].sort((a, b) => {
    // The note ending a capped list stays last.
    const ca = isCapNote(a);
    if (ca !== isCapNote(b)) return ca ? 1 : -1;
    const [ra, fa] = fileRank(a.range?.file);
    const [rb, fb] = fileRank(b.range?.file);
    if (ra !== rb) return ra - rb;
    if (fa !== fb) return fa < fb ? -1 : 1;
    if (a.severity !== b.severity) return a.severity === "error" ? -1 : 1;
    const pa = a.range?.start.byte ?? 0;
    const pb = b.range?.start.byte ?? 0;
    if (pa !== pb) return pa - pb;
    return a.code < b.code ? -1 : a.code > b.code ? 1 : 0;
  });
}

function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function counts(
  ds: readonly Diagnostic[] | { errors: number; warnings: number },
): string {
  const e = "errors" in ds
    ? ds.errors
    : ds.filter((d) => d.severity === "error").length;
  const w = "warnings" in ds ? ds.warnings : ds.length - e;
  return [e > 0 ? count(e, "error") : "", w > 0 ? count(w, "warning") : ""]
    .filter(Boolean).join(", ");
}

const BOLD = "\x1b[1m";
const GREEN = "\x1b[1;32m";
const RED = "\x1b[1;31m";
const YELLOW = "\x1b[1;33m";
const RESET = "\x1b[0m";

/**
 * Renders the human output of `check-config`.
 *
 * @param input The check's outcome.
 * @param options Colour, how files are named and whether `--locked` was given.
 * @returns The text, ending with a newline.
 */
export function renderHuman(
  input: RenderInput,
  options: RenderHumanOptions = {},
): string {
  const c = (
    code: string,
    s: string,
  ) => (options.color ? `${code}${s}${RESET}` : s);
  const show = options.displayFile ?? ((f: string) => f);
  const sources = new Map<string, string>();
  for (const [f, t] of input.sources) sources.set(show(f), t);
  const sorted = sortDiagnostics(input.diagnostics);
  const out: string[] = [];
  let group: string | undefined | null = null;
  for (const d of sorted) {
    const file = d.range?.file;
    if (file !== group) {
      group = file;
      const inGroup = sorted.filter((x) => x.range?.file === file);
      out.push(
        c(
          BOLD,
          `${file === undefined ? "General" : show(file)}: ${counts(inGroup)}`,
        ),
        "",
      );
    }
    const shown: Diagnostic = { ...d };
    if (d.range) {
      const range: SourceRange = {
        file: show(d.range.file),
        start: d.range.start,
        end: d.range.end,
      };
      shown.range = range;
    }
    out.push(
      formatDiagnostic(shown, { sources, color: options.color ?? false }),
      "",
    );
  }
  const plan = input.plan;
  let summary: string;
  switch (input.exitCode) {
    case 0: {
      const parts = plan
        ? [
          count(plan.providers.length, "provider"),
          count(plan.policies.length, "policy").replace("policys", "policies"),
          count(plan.profiles.length, "profile"),
          count(plan.hooks.length, "hook"),
        ].join(", ")
        : "";
      const w = totals(input).warnings;
      summary = c(GREEN, "The configuration is valid") +
        `${
          w > 0 ? c(YELLOW, `, with ${count(w, "warning")}`) : ""
        }: ${parts}.` +
        (plan?.locked ? " Every provider matches the lock file." : "");
      break;
    }
    case 1:
      summary = c(RED, "The configuration is invalid") +
        `: ${counts(totals(input))}.`;
      break;
    case 2:
      summary = c(
        RED,
        "The lock file is missing, unreadable, outdated or does not match",
      ) +
        `: ${
          counts(totals(input))
        }. Review the changes, then run "agent lock".`;
      break;
  }
  out.push(summary);
  return out.join("\n") + "\n";
}

function rangeJson(r: SourceRange): JsonValue {
  return {
    filename: r.file,
    start: { line: r.start.line, column: r.start.column, byte: r.start.byte },
    end: { line: r.end.line, column: r.end.column, byte: r.end.byte },
  };
}

/**
 * One diagnostic in the `--json` document. Never includes source text.
 *
 * @param d The diagnostic.
 * @returns Plain JSON data.
 */
export function diagnosticToJson(d: Diagnostic): JsonValue {
  const out: { [key: string]: JsonValue } = {
    severity: d.severity,
    code: d.code,
    summary: d.summary,
    detail: d.detail ?? "",
  };
  if (d.range) out.range = rangeJson(d.range);
  return out;
}

/**
 * Renders the `--json` document: `{ "format_version": "1", "valid",
 * "error_count", "warning_count", "diagnostics": [...], "plan": {...} }`
 * (the plan only when valid, secrets redacted), plus `"explain"` when asked.
 * The counts include problems left out of a capped list.
 *
 * @param input The check's outcome.
 * @param explain The `--explain` report, if asked for.
 * @param sandbox Which plugins run in the OS sandbox (shown when valid).
 * @returns The JSON text, ending with a newline.
 */
export function renderJson(
  input: RenderInput,
  explain?: ExplainReport,
  sandbox?: JsonValue,
): string {
  return JSON.stringify(jsonDocument(input, explain, sandbox), null, 2) + "\n";
}

/**
 * Writes the `--json` document of {@linkcode renderJson} as UTF-8 bytes, a
 * chunk at a time, without making its text: the same bytes as encoding
 * `renderJson()`'s result, at a fraction of the cost for a large plan.
 *
 * @param input The check's outcome.
 * @param sink Called with each chunk, in order; the array is reused for
 * the next chunk, so consume or copy it before returning.
 * @param explain The `--explain` report, if asked for.
 * @param sandbox Which plugins run in the OS sandbox (shown when valid).
 */
export function writeJson(
  input: RenderInput,
  sink: (bytes: Uint8Array) => void,
  explain?: ExplainReport,
  sandbox?: JsonValue,
): void {
  writeJsonValue(jsonDocument(input, explain, sandbox), sink);
  sink(NEWLINE);
}

const NEWLINE = new Uint8Array([10]);

function jsonDocument(
  input: RenderInput,
  explain: ExplainReport | undefined,
  sandbox: JsonValue | undefined,
): JsonValue {
  const sorted = sortDiagnostics(input.diagnostics);
  const { errors, warnings } = totals(input);
  const doc: { [key: string]: JsonValue } = {
    format_version: JSON_FORMAT_VERSION,
    valid: input.exitCode === 0,
    exit_code: input.exitCode,
    error_count: errors,
    warning_count: warnings,
    diagnostics: sorted.map(diagnosticToJson),
  };
  if (input.plan && input.exitCode === 0) {
    doc.plan = planToStreamedJson(input.plan);
  }
  if (sandbox !== undefined && input.exitCode === 0) doc.sandbox = sandbox;
  if (explain) doc.explain = JSON.parse(JSON.stringify(explain));
  return doc;
}
