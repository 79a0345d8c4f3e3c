/**
 * The circuit breaker of tool providers (plugins.md §6.2): repeated
 * crashes of one provider open its circuit, and the session stops calling
 * it. A session owns one {@linkcode CircuitBreaker}.
 *
 * @module
 */
import { ToolErrorCategory } from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import type { StoredOutcome } from "./history.ts";

/**
 * Consecutive crashed calls of one tool provider after which the session
 * stops calling it (plugins.md §6.2: repeated crashes trip a circuit
 * breaker).
 */
export const CIRCUIT_BREAKER_CRASHES = 3;

/**
 * Counts consecutive crashed calls per tool provider; the circuit opens at
 * {@linkcode CIRCUIT_BREAKER_CRASHES} and stays open for the session.
 *
 * @example Usage
 * ```ts
 * import { CircuitBreaker } from "./circuit_breaker.ts";
 * import assert from "node:assert/strict";
 * const opened: string[] = [];
 * const breaker = new CircuitBreaker((provider) => opened.push(provider));
 * assert.equal(breaker.openCrashes("exec"), undefined);
 * ```
 */
export class CircuitBreaker {
  /** Consecutive crashed calls per tool provider. */
  readonly #crashes = new Map<string, number>();
  readonly #onOpen: (provider: string) => void;

  /**
   * Creates a breaker with every circuit closed.
   *
   * @param onOpen Called once when a provider's circuit opens.
   */
  constructor(onOpen: (provider: string) => void) {
    this.#onOpen = onOpen;
  }

  /**
   * The crash count of a provider whose circuit is open.
   *
   * @param provider The tool provider.
   * @returns The count when the circuit is open, else `undefined`.
   */
  openCrashes(provider: string): number | undefined {
    const crashes = this.#crashes.get(provider) ?? 0;
    return crashes >= CIRCUIT_BREAKER_CRASHES ? crashes : undefined;
  }

  /**
   * Counts a call's outcome: a crash adds one (opening the circuit at
   * {@linkcode CIRCUIT_BREAKER_CRASHES}), any other outcome closes the
   * count again unless the circuit is already open.
   *
   * @param provider The tool provider.
   * @param outcome The call's outcome.
   */
  record(provider: string, outcome: StoredOutcome): void {
    const crashed = "error" in outcome &&
      outcome.error.category === ToolErrorCategory.PROCESS_CRASHED;
    const before = this.#crashes.get(provider) ?? 0;
    if (!crashed) {
      if (before < CIRCUIT_BREAKER_CRASHES) this.#crashes.delete(provider);
      return;
    }
    if (before >= CIRCUIT_BREAKER_CRASHES) return;
    this.#crashes.set(provider, before + 1);
    if (before + 1 === CIRCUIT_BREAKER_CRASHES) this.#onOpen(provider);
  }
}
