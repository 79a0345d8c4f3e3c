/**
 * Stable diagnostic codes produced by the HCL front-end (config.md §4.4).
 * Tests and `--json` consumers match on these, never on the wording.
 *
 * @module
 */

/** Any syntax error: the file is not valid HCL native syntax. */
export const E_SYNTAX = "E_SYNTAX";

/**
 * Input nested beyond a fixed bound: blocks, brackets or template
 * directives deeper than `MAX_NESTING`, or an expression tree deeper than
 * `MAX_EXPR_DEPTH` (a very long operator chain). Reported at the position
 * where the bound is crossed, instead of exhausting the stack.
 */
export const E_TOO_DEEP = "E_TOO_DEEP";

/**
 * A value of the wrong type or a bad constant operation: `1 + true`,
 * a division by zero, an index out of range, a duplicate object key, a
 * number too large to represent.
 */
export const E_INVALID_VALUE = "E_INVALID_VALUE";

/**
 * A function call where none is allowed: `env()` outside provider bodies
 * and `mirror.auth`, or any function other than `env`.
 */
export const E_FUNCTION_NOT_ALLOWED = "E_FUNCTION_NOT_ALLOWED";

/** A reference to a variable (`var.x`, `foo`): agent configuration has none. */
export const E_VARIABLE_NOT_ALLOWED = "E_VARIABLE_NOT_ALLOWED";

/**
 * `env("NAME")` with `NAME` unset in the environment, when the environment
 * is required (the agent runs, or `check-config --require-env`).
 */
export const E_ENV_UNSET = "E_ENV_UNSET";

/**
 * `env("NAME")` with `NAME` unset, when the environment is not required
 * (`check-config` without `--require-env`: a CI job that lints the
 * configuration has no secrets).
 */
export const W_ENV_UNSET = "W_ENV_UNSET";

/** A sensitive attribute not written exactly as `env("LITERAL")`. */
export const E_SECRET_SHAPE = "E_SECRET_SHAPE";
