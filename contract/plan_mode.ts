/**
 * Plan mode's shared words: the prompt that carries out an approved plan,
 * sent by every frontend (the line UI, the library's `run`, the terminal
 * UI) so that the model reads the same thing whichever approved it.
 *
 * @module
 */

/**
 * The prompt that carries out an approved plan (plan mode then off).
 */
export const PLAN_APPROVED_PROMPT: string =
  "The plan is approved and plan mode is off: carry it out now.";
