/**
 * The exit codes of the `agent` command line, in one table, and the
 * mapping from how a session ended to its code ({@linkcode exitCodeOf}).
 * The CLI imports its constants from here; the kernel's `sessionExitCode`
 * is {@linkcode exitCodeOf}.
 *
 * @module
 */
import type { SessionResult } from "./session_types.ts";

/** Exit code: the run succeeded. */
export const EXIT_OK = 0;
/** Exit code: the task failed (the model or a tool could not finish it). */
export const EXIT_TASK_ERROR = 1;
/** Exit code: the configuration or the lock file is invalid. */
export const EXIT_CONFIG = 2;
/** Exit code: a usage error (unknown option, missing argument). */
export const EXIT_USAGE = 3;
/** Exit code: policy denied a required action (`--on-ask fail` hit an ask). */
export const EXIT_POLICY = 4;
/** Exit code: a bound fired (max_turns, max_cost_usd, max_wall_clock_s, doom loop). */
export const EXIT_BOUND = 5;
/** Exit code: a provider failed (could not start, crashed, or a model error). */
export const EXIT_PROVIDER = 6;
/** Exit code: the session was cancelled (interrupted). */
export const EXIT_CANCELLED = 130;
/**
 * Exit code of `agent` and `agent run` on SIGTERM (128 + 15, what the
 * shell reports for a terminated process): the session ended as
 * `cancelled`, as on Ctrl-C.
 */
export const EXIT_TERMINATED = 143;

/** The error codes that end a session with {@linkcode EXIT_PROVIDER}. */
const PROVIDER_ERROR_CODES: ReadonlySet<string> = new Set([
  "context_length_exceeded",
  "rate_limited",
  "overloaded",
  "auth_error",
  "invalid_request",
  "content_filtered",
  "unknown",
  "no_eligible_model",
  "pricing_no_tier",
  "process_crashed",
]);

/**
 * The CLI exit code of a session result: 0 success, 1 task error, 4 policy
 * denied a required action (`on_ask = "fail"`), 5 a bound fired (the three
 * `error_max_*` statuses and the doom loop), 6 provider error (also when a
 * tool plugin crashed during a call and the model went on), 130
 * cancelled.
 *
 * @example Usage
 * ```ts
 * import { exitCodeOf } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 * const base = { sessionId: "s", profile: "default", finalText: "", totalCostUsd: 0, turns: 1 };
 * assert.equal(exitCodeOf({ ...base, status: "cancelled" }), 130);
 * ```
 *
 * @param result The session result.
 * @returns The exit code.
 */
export function exitCodeOf(result: SessionResult): number {
  if (result.status === "cancelled") return EXIT_CANCELLED;
  if (result.boundFired) return EXIT_BOUND;
  // A tool plugin that crashed mid-call is a provider error even when the
  // model went on and finished: the answer may lack what the tool had to do.
  if (result.crashedProviders?.length) return EXIT_PROVIDER;
  if (result.status === "completed") return EXIT_OK;
  const code = result.error?.code;
  if (code === "approval_required") return EXIT_POLICY;
  if (code !== undefined && PROVIDER_ERROR_CODES.has(code)) {
    return EXIT_PROVIDER;
  }
  return EXIT_TASK_ERROR;
}
