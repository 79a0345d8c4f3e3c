/**
 * The session's bounds (kernel.md §6, steps 16–18): which bound fired
 * after a turn ({@linkcode firedBound}), the terminal status each bound
 * ends the session with, and the synthetic instruction of the final-answer
 * turn ({@linkcode finalAnswerInstruction}).
 *
 * @module
 */
import { SessionStatus } from "../../proto/gen/pluggableharness/session/v1/types_pb.ts";
import type { CostBudget } from "../../contract/cost.ts";
import type { BoundName } from "./session_events.ts";
import type { SessionBounds } from "./session_spec.ts";

/** The terminal status a fired bound ends the session with. */
export const BOUND_STATUS: Readonly<Record<BoundName, SessionStatus>> = {
  max_turns: SessionStatus.ERROR_MAX_TURNS,
  max_cost_usd: SessionStatus.ERROR_MAX_BUDGET_USD,
  max_wall_clock_s: SessionStatus.ERROR_MAX_WALL_CLOCK,
  // No dedicated status exists; ref-impl ends a doom loop as completed
  // (a final answer exists), with the reason kept in the result.
  doom_loop: SessionStatus.COMPLETED,
};

const BOUND_TEXT: Readonly<Record<BoundName, string>> = {
  max_turns: "the maximum number of turns",
  max_cost_usd: "the cost budget",
  max_wall_clock_s: "the wall-clock limit",
  doom_loop: "a repeated-call loop (the same tool call several times in a row)",
};

/**
 * The synthetic instruction of the final-answer turn.
 *
 * @param bound The bound that fired.
 * @returns The text.
 */
export function finalAnswerInstruction(bound: BoundName): string {
  return `The session has reached ${
    BOUND_TEXT[bound]
  }. Tools are no longer available. Give your final answer now, based on what you have so far.`;
}

/** Where a session stands against its bounds after a turn. */
export interface BoundsState {
  /** Turns of the session, resumed ones included. */
  readonly turns: number;
  /** The session's cost budget. */
  readonly budget: CostBudget;
  /** Milliseconds since the session was opened by this process. */
  readonly elapsedMs: number;
}

/**
 * The bound that fired (step 17), checked in order: turns, cost, wall
 * clock.
 *
 * @param bounds The session's bounds.
 * @param state Turns, budget and elapsed time.
 * @returns The bound, or `undefined` when none fired.
 */
export function firedBound(
  bounds: SessionBounds,
  state: BoundsState,
): BoundName | undefined {
  if (bounds.maxTurns !== undefined && state.turns >= bounds.maxTurns) {
    return "max_turns";
  }
  if (state.budget.exhausted) return "max_cost_usd";
  if (
    bounds.maxWallClockS !== undefined &&
    state.elapsedMs >= bounds.maxWallClockS * 1000
  ) {
    return "max_wall_clock_s";
  }
  return undefined;
}
