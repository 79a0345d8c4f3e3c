/**
 * The exit codes of the `agent` command line, in one table.
 *
 * `agent` and `agent run` exit with a session's code ({@linkcode EXIT_OK}
 * to {@linkcode EXIT_PROVIDER}, and 130 when interrupted: the numbers the
 * library's `sessionExitCode` returns), {@linkcode EXIT_TERMINATED} (143)
 * on SIGTERM, or {@linkcode EXIT_USAGE}.
 * `check-config` exits 0 when the configuration is valid, 1 when it is
 * invalid and 2 on a lock file problem (the codes `config/check.ts` computes
 * as `CheckExitCode`), or {@linkcode EXIT_USAGE}. `plan` uses those of
 * `check-config` plus {@linkcode EXIT_WIDENS}.
 *
 * @module
 */

export {
  EXIT_BOUND,
  EXIT_CANCELLED,
  EXIT_CONFIG,
  EXIT_OK,
  EXIT_POLICY,
  EXIT_PROVIDER,
  EXIT_TASK_ERROR,
  EXIT_TERMINATED,
  EXIT_USAGE,
} from "../../kernel/agent/exit_codes.ts";
/** Exit code of `agent plan`: a permission, an allow or a tool widens. */
export const EXIT_WIDENS = 10;
