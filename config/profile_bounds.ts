/**
 * A profile's loop bounds (config.md §2.5, §7.6, §7.7): the
 * {@linkcode ProfileBounds} shape, the HCL name of each bound and their
 * load-time validation ({@linkcode validateBounds}).
 *
 * @module
 */
import type { Diagnostic, SourceRange } from "../contract/diagnostic.ts";
import { diag } from "./_schema.ts";

/** A profile's bounds; `undefined` means unset, which is not 0. */
export interface ProfileBounds {
  /** `max_turns`: integer. */
  maxTurns?: number;
  /** `max_cost_usd`: number; unset means unbounded. */
  maxCostUsd?: number;
  /** `max_wall_clock_s`: integer seconds. */
  maxWallClockS?: number;
  /** `max_depth`: integer; see {@linkcode remainingDepth}. */
  maxDepth?: number;
  /** `max_concurrent_subagents`: integer cap on in-flight children. */
  maxConcurrentSubagents?: number;
  /**
   * `doom_loop_threshold`: how many consecutive identical tool calls end
   * the loop (integer, at least 2; the kernel's default is 4).
   */
  doomLoopThreshold?: number;
  /**
   * `max_result_bytes`: how many bytes of one tool call's result (and of
   * its live output) reach the model and the session log; the rest goes to
   * an overflow file beside the session file (integer, at least 1024; the
   * kernel's default is 262144).
   */
  maxResultBytes?: number;
}

/** Options for {@linkcode validateBounds}. */
export interface ValidateBoundsOptions {
  /**
   * The profile's name, for messages.
   * @default {undefined}
   */
  profile?: string;
  /**
   * Where each attribute's value is.
   * @default {{}}
   */
  ranges?: { readonly [K in keyof ProfileBounds]?: SourceRange };
}

/** The HCL attribute name of each bound, in validation order. */
export const BOUND_ATTRIBUTES: Readonly<Record<keyof ProfileBounds, string>> = {
  maxTurns: "max_turns",
  maxCostUsd: "max_cost_usd",
  maxWallClockS: "max_wall_clock_s",
  maxDepth: "max_depth",
  maxConcurrentSubagents: "max_concurrent_subagents",
  doomLoopThreshold: "doom_loop_threshold",
  maxResultBytes: "max_result_bytes",
};

/**
 * Validates a profile's bounds: each set value must be a finite,
 * non-negative number, and a whole number except `max_cost_usd` (a
 * fraction is refused, not truncated). Errors are `E_INVALID_VALUE`. A
 * `max_concurrent_subagents = 0` is legal but gets a warning
 * (`W_BOUND_ZERO`): every spawn would wait forever; `max_depth = 0` is the
 * way to forbid spawning.
 *
 * @example Usage
 * ```ts
 * import { validateBounds } from "./profile_bounds.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(validateBounds({ maxTurns: 120, maxCostUsd: 2.5, maxDepth: 0 }), []);
 * const [d] = validateBounds({ maxTurns: 2.9 }, { profile: "default" });
 * assert.equal(d?.summary, 'Invalid max_turns in profile "default"');
 * ```
 *
 * @param bounds The decoded values (any type is checked).
 * @param options The profile's name and the values' ranges.
 * @returns The problems, errors and warnings, in attribute order.
 */
export function validateBounds(
  bounds: { readonly [K in keyof ProfileBounds]?: unknown },
  options: ValidateBoundsOptions = {},
): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  // Made only for a message: a profile is checked per block, 50,000 times
  // in a large file, and nearly always passes.
  const inProfile = () =>
    options.profile === undefined ? "" : ` in profile "${options.profile}"`;
  for (const [field, attr] of BOUND_ENTRIES) {
    const value = bounds[field];
    if (value === undefined) continue;
    const whole = field !== "maxCostUsd";
    const range = options.ranges?.[field];
    const fail = (detail: string) =>
      diagnostics.push(
        diag(
          "error",
          "E_INVALID_VALUE",
          `Invalid ${attr}${inProfile()}`,
          detail,
          range,
        ),
      );
    const expected = whole ? "a whole number" : "a number";
    if (typeof value !== "number") {
      fail(`Expected ${expected}, got ${describe(value)}.`);
    } else if (!Number.isFinite(value)) {
      fail(`Expected ${expected}, got ${value}: the value must be finite.`);
    } else if (value < 0) {
      fail(`Expected a non-negative value, got ${value}.`);
    } else if (whole && !Number.isInteger(value)) {
      fail(
        `Expected a whole number, got ${value}: fractions are not rounded or truncated.`,
      );
    } else if (whole && !Number.isSafeInteger(value)) {
      fail(`The value ${value} is too large.`);
    } else if (field === "doomLoopThreshold" && value < 2) {
      fail(
        `Expected at least 2, got ${value}: the loop needs two identical calls in a row to see a repeat.`,
      );
    } else if (field === "maxResultBytes" && value < 1024) {
      fail(
        `Expected at least 1024, got ${value}: a smaller result would not leave room for the note naming the overflow file.`,
      );
    } else if (field === "maxConcurrentSubagents" && value === 0) {
      diagnostics.push(diag(
        "warning",
        "W_BOUND_ZERO",
        `max_concurrent_subagents is 0${inProfile()}`,
        "No child session could ever run: spawn calls would wait forever. To forbid spawning, set max_depth = 0 or leave spawn-capable tools out of the profile.",
        range,
      ));
    }
  }
  return diagnostics;
}

const BOUND_ENTRIES = Object.entries(BOUND_ATTRIBUTES) as [
  keyof ProfileBounds,
  string,
][];

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  switch (typeof value) {
    case "string":
      return `a string (${JSON.stringify(value)})`;
    case "boolean":
      return "a bool";
    case "bigint":
      return "a bigint";
    case "object":
      return "an object";
    default:
      return typeof value;
  }
}
