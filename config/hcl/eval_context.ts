/**
 * {@linkcode EvalContext}: where and how an expression is evaluated (is
 * `env()` allowed, which environment, must its variables be set), shared by
 * the evaluator and its function library.
 *
 * @module
 */

/** Looks up an environment variable; `undefined` when it is not set. */
export type EnvLookup = (name: string) => string | undefined;

/** Where and how an expression is evaluated. */
export interface EvalContext {
  /**
   * Whether `env()` may be called: true only for provider bodies and a
   * registry mirror's `auth` (config.md §3.1).
   */
  allowEnv: boolean;
  /**
   * The environment, as a lookup function or a record. Tests pass their
   * own.
   * @default {Deno.env.get}
   */
  env?: EnvLookup | Readonly<Record<string, string | undefined>>;
  /**
   * Whether an unset `env()` variable is an error (`E_ENV_UNSET`: the agent
   * is about to run) or a warning (`W_ENV_UNSET`: the configuration is only
   * checked, as in CI without secrets). With `false`, the call evaluates to
   * an empty {@linkcode Secret} so that the rest of the value is checked.
   * @default {true}
   */
  requireEnv?: boolean;
  /**
   * Names the place being evaluated in messages, e.g.
   * `provider "claude", attribute "api_key"`.
   */
  place?: string;
}
