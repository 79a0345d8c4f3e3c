/**
 * Errors of the control plane.
 *
 * @module
 */

/**
 * The model's first `<cp:agent-status>` block of a round is malformed: a
 * hard stop (seed 004), the session ends `failed` with this error.
 */
export class MalformedAgentStatusError extends Error {
  /** The stable code. */
  readonly code: "malformed_agent_status" = "malformed_agent_status";
  /** The offending text. */
  readonly raw: string;

  /**
   * Creates the error.
   *
   * @param raw The offending text.
   * @param reason What is wrong with it.
   */
  constructor(raw: string, reason: string) {
    super(
      `The model's <cp:agent-status> block is malformed, so the session stops: ${reason} (got ${
        JSON.stringify(raw)
      })`,
    );
    this.name = "MalformedAgentStatusError";
    this.raw = raw;
  }
}
