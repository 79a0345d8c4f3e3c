/**
 * The two library entry points over a project directory:
 * {@linkcode checkConfig} (what `check-config` runs: never throws on a bad
 * configuration, returns the diagnostics, the plan and the exit code) and
 * {@linkcode compileConfig} (for the kernel: the plan, or a
 * {@linkcode ConfigError} carrying every diagnostic).
 *
 * @module
 */

import { ConfigError, type Diagnostic } from "../contract/diagnostic.ts";
import { compile, isLockProblem } from "./compile.ts";
import {
  type Fingerprint,
  loadConfigInputs,
  type LoadConfigInputsOptions,
} from "./files.ts";
import { LOCK_FILE_PATH } from "./lock_file.ts";
import type { Plan } from "./plan.ts";
import { E_TOO_MANY_DIAGNOSTICS, W_TOO_MANY_DIAGNOSTICS } from "./codes.ts";
import { sortDiagnostics } from "./render.ts";

/**
 * How many diagnostics {@linkcode checkConfig} reports at most (as
 * compilers stop after so many errors): a file with 150,000 problems is
 * reported as its first 100 and one diagnostic counting the rest.
 */
export const MAX_DIAGNOSTICS = 100;

/** Options for {@linkcode checkConfig} and {@linkcode compileConfig}. */
export interface CheckConfigOptions extends LoadConfigInputsOptions {
  /**
   * Require a complete, current lock file (`--locked`).
   * @default {false}
   */
  locked?: boolean;
  /**
   * The platform key whose checksum is checked.
   * @default {the host's}
   */
  platform?: string;
  /**
   * Whether an unset `env()` variable is an error (`E_ENV_UNSET`) or a
   * warning (`W_ENV_UNSET`, what `check-config` reports unless
   * `--require-env`). {@linkcode compileConfig} always requires it: a plan
   * it returns is about to run.
   * @default {true}
   */
  requireEnv?: boolean;
  /**
   * Report at most this many diagnostics (see {@linkcode capDiagnostics});
   * `Infinity` reports every one.
   * @default {MAX_DIAGNOSTICS}
   */
  maxDiagnostics?: number;
}

/** How many problems a capped list leaves out. */
export interface SuppressedCounts {
  /** Errors not reported. */
  errors: number;
  /** Warnings not reported. */
  warnings: number;
}

/** `check-config`'s exit codes. */
export type CheckExitCode = 0 | 1 | 2;

/** What {@linkcode checkConfig} returns. */
export interface CheckResult {
  /** No error (warnings allowed). */
  valid: boolean;
  /**
   * 0 valid; 1 invalid configuration; 2 valid except that the lock file is
   * missing (with `locked`), unreadable, outdated or does not match.
   */
  exitCode: CheckExitCode;
  /** The plan, when valid. */
  plan: Plan | undefined;
  /**
   * The problems found, in display order, at most `maxDiagnostics` of
   * them plus, when there were more, one `E_TOO_MANY_DIAGNOSTICS` (or
   * `W_`) at the end counting those left out.
   */
  diagnostics: Diagnostic[];
  /** Set when problems were left out: how many. */
  suppressed?: SuppressedCounts;
  /** Each file's text by its shown path, to print source lines. */
  sources: Map<string, string>;
  /** The absolute project directory. */
  dir: string;
  /** The environment variables the configuration reads (names only). */
  envNames: string[];
  /** Every other file the result depends on, with its hash. */
  fingerprints: Fingerprint[];
  /** Absolute path of the global config that was looked for, if any. */
  globalPath?: string;
}

/**
 * The exit code for a set of diagnostics: 1 when any error is not a lock
 * problem, else 2 when there is any error, else 0.
 *
 * @example Usage
 * ```ts
 * import { exitCodeFor } from "./check.ts";
 * import assert from "node:assert/strict";
 * assert.equal(exitCodeFor([]), 0);
 * assert.equal(exitCodeFor([{ severity: "error", code: "E_CHECKSUM_MISMATCH", summary: "x" }]), 2);
 * assert.equal(exitCodeFor([{ severity: "error", code: "E_UNKNOWN_ATTR", summary: "x" }]), 1);
 * ```
 *
 * @param diagnostics The diagnostics.
 * @returns 0, 1 or 2.
 */
export function exitCodeFor(diagnostics: readonly Diagnostic[]): CheckExitCode {
  const errors = diagnostics.filter((d) => d.severity === "error");
  if (errors.length === 0) return 0;
  return errors.every((d) => isLockProblem(d, LOCK_FILE_PATH)) ? 2 : 1;
}

/**
 * Caps a list of diagnostics: sorts them for display and, when there are
 * more than `max`, keeps the first `max` and ends with one diagnostic
 * saying how many errors and warnings were left out (`E_TOO_MANY_DIAGNOSTICS`
 * when some of them are errors, else `W_TOO_MANY_DIAGNOSTICS`). Compute
 * the exit code from the whole list first.
 *
 * @example Usage
 * ```ts
 * import { capDiagnostics } from "./check.ts";
 * import assert from "node:assert/strict";
 * const many = Array.from({ length: 5 }, (_, i) => ({
 *   severity: "error" as const, code: "E_X", summary: `problem ${i}`,
 * }));
 * const { diagnostics, suppressed } = capDiagnostics(many, 3);
 * assert.equal(diagnostics.length, 4);
 * assert.equal(diagnostics[3]!.code, "E_TOO_MANY_DIAGNOSTICS");
 * assert.deepEqual(suppressed, { errors: 2, warnings: 0 });
 * ```
 *
 * @param diagnostics Every diagnostic found.
 * @param max How many to keep (at least 0; `Infinity` keeps every one).
 * @returns The sorted, capped list and, when any were left out, how many.
 * @throws {RangeError} When `max` is negative or not a whole number.
 */
export function capDiagnostics(
  diagnostics: readonly Diagnostic[],
  max: number = MAX_DIAGNOSTICS,
): { diagnostics: Diagnostic[]; suppressed?: SuppressedCounts } {
  if (!(max >= 0) || (max !== Infinity && !Number.isInteger(max))) {
    throw new RangeError(
      `Cannot cap diagnostics: max must be a whole number >= 0, got ${max}`,
    );
  }
  const sorted = sortDiagnostics(diagnostics);
  if (sorted.length <= max) return { diagnostics: sorted };
  const kept = sorted.slice(0, max);
  let errors = 0;
  for (let i = max; i < sorted.length; i++) {
    if (sorted[i]!.severity === "error") errors++;
  }
  const warnings = sorted.length - max - errors;
  const left = [
    errors > 0 ? `${plural(errors, "error")}` : "",
    warnings > 0 ? `${plural(warnings, "warning")}` : "",
  ].filter(Boolean).join(" and ");
  kept.push({
    severity: errors > 0 ? "error" : "warning",
    code: errors > 0 ? E_TOO_MANY_DIAGNOSTICS : W_TOO_MANY_DIAGNOSTICS,
    summary: `Too many problems: ${left} not shown`,
    detail: `Only the first ${
      plural(max, "problem")
    } are shown, in file order; ${left} more ${
      errors + warnings === 1 ? "was" : "were"
    } found. Fix these and check again.`,
  });
  return { diagnostics: kept, suppressed: { errors, warnings } };
}

function plural(n: number, word: string): string {
  return `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;
}

/**
 * Checks the configuration in a project directory, as `check-config` does:
 * reads `agent.hcl`, the lock file, the global config and each local
 * plugin's manifest, compiles, and classifies the outcome.
 *
 * @example Usage
 * ```ts
 * import { BUILTINS } from "../plugins/builtin.ts";
 * import { checkConfig } from "./check.ts";
 * import assert from "node:assert/strict";
 * const r = await checkConfig("examples", {
 *   locked: true,
 *   globalConfig: null,
 *   builtins: BUILTINS,
 * });
 * assert.equal(r.exitCode, 0);
 * assert.equal(r.plan?.profiles[0]?.name, "default");
 * ```
 *
 * @param dir The project directory.
 * @param options `locked`, the environment, the global config and platform.
 * @returns The outcome; never throws on a bad configuration.
 */
export async function checkConfig(
  dir: string,
  options: CheckConfigOptions = {},
): Promise<CheckResult> {
  const inputs = await loadConfigInputs(dir, options);
  const r = compile(inputs, {
    locked: options.locked ?? false,
    requireEnv: options.requireEnv ?? true,
    ...(options.platform ? { platform: options.platform } : {}),
  });
  // The exit code is the whole list's; only the report is capped.
  const exitCode = exitCodeFor(r.diagnostics);
  const capped = capDiagnostics(
    r.diagnostics,
    options.maxDiagnostics ?? MAX_DIAGNOSTICS,
  );
  const out: CheckResult = {
    valid: exitCode === 0,
    exitCode,
    plan: r.plan,
    diagnostics: capped.diagnostics,
    sources: r.sources,
    dir: inputs.dir,
    envNames: r.envNames,
    fingerprints: inputs.fingerprints,
  };
  if (capped.suppressed) out.suppressed = capped.suppressed;
  if (inputs.globalPath !== undefined) out.globalPath = inputs.globalPath;
  return out;
}

/**
 * Compiles the configuration in a project directory for the kernel: the
 * same plan and diagnostics as {@linkcode checkConfig}, but a configuration
 * with errors throws.
 *
 * @example Usage
 * ```ts
 * import { BUILTINS } from "../plugins/builtin.ts";
 * import { compileConfig } from "./check.ts";
 * import assert from "node:assert/strict";
 * const { plan, diagnostics } = await compileConfig("examples", {
 *   globalConfig: null,
 *   builtins: BUILTINS,
 * });
 * assert.equal(diagnostics.filter((d) => d.severity === "error").length, 0);
 * assert.ok(plan.providers.length > 0);
 * ```
 *
 * @param dir The project directory.
 * @param options `locked`, the environment, the global config and platform
 *   (`requireEnv` is always `true` here).
 * @returns The plan and the warnings.
 * @throws {ConfigError} Carrying every diagnostic, when there is an error.
 */
export async function compileConfig(
  dir: string,
  options: CheckConfigOptions = {},
): Promise<{ plan: Plan; diagnostics: Diagnostic[] }> {
  // Config MUST 6: every env() variable is set when the agent runs.
  const r = await checkConfig(dir, { ...options, requireEnv: true });
  if (r.plan === undefined) throw new ConfigError(r.diagnostics);
  return { plan: r.plan, diagnostics: r.diagnostics };
}
