/**
 * The exit codes of the `agent` command line, in one table.
 *
 * `agent` and `agent run` exit with a session's code ({@linkcode EXIT_OK}
 * to {@linkcode EXIT_PROVIDER}, and 130 when interrupted: the numbers the
 * library's `sessionExitCode` returns) or {@linkcode EXIT_USAGE}.
 * `check-config` exits 0 when the configuration is valid, 1 when it is
 * invalid and 2 on a lock file problem (the codes `config/check.ts` computes
 * as `CheckExitCode`), or {@linkcode EXIT_USAGE}. `plan` uses those of
 * `check-config` plus {@linkcode EXIT_WIDENS}.
 *
 * @module
 */

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
/** Exit code of `agent plan`: a permission, an allow or a tool widens. */
export const EXIT_WIDENS = 10;
