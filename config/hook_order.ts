/**
 * Hook subscriber ordering (config.md §7.8): subscribers run in their
 * textual order in `agent.hcl` ({@linkcode orderSubscribers}); a provider
 * subscribed without a `hook` block is placed by its provider block or
 * `required_providers` entry ({@linkcode implicitSubscriberPosition}).
 *
 * @module
 */

/** Anything placed in `agent.hcl` by a byte offset. */
export interface Positioned {
  /** 0-based byte offset of the block that creates the subscription. */
  readonly position: number;
}

/**
 * Orders the subscribers of one hook point by textual position in
 * `agent.hcl` (config.md §7.8): ascending byte offset, all modes
 * interleaved, in one pass. An implicit (category-implied) subscription is
 * positioned at its provider's `provider` block (see
 * {@linkcode implicitSubscriberPosition}); an explicit one at its `hook`
 * block. The sort is stable, so equal positions keep their input order.
 *
 * @example Usage
 * ```ts
 * import { orderSubscribers } from "./hook_order.ts";
 * import assert from "node:assert/strict";
 *
 * const subs = [
 *   { provider: "journal", mode: "observe", position: 900 },
 *   { provider: "memory", mode: "transform", position: 120 },
 *   { provider: "guard", mode: "veto", position: 400 },
 * ];
 * assert.deepEqual(orderSubscribers(subs).map((s) => s.provider), ["memory", "guard", "journal"]);
 * ```
 *
 * @param subscribers The subscribers of one hook point.
 * @returns A new array in execution order.
 * @throws {RangeError} When a position is not a non-negative integer.
 */
export function orderSubscribers<T extends Positioned>(
  subscribers: readonly T[],
): T[] {
  for (const s of subscribers) {
    if (!(Number.isSafeInteger(s.position) && s.position >= 0)) {
      throw new RangeError(
        `Cannot order hook subscribers: position must be a non-negative integer byte offset, got ${s.position}`,
      );
    }
  }
  return [...subscribers].sort((a, b) => a.position - b.position);
}

/**
 * The position of a provider's implicit (category-implied) subscription:
 * its `provider` block's byte offset or, when it has no `provider` block
 * (the spec leaves this open), its `required_providers` entry's. A provider
 * in neither has no position (`undefined`).
 *
 * @example Usage
 * ```ts
 * import { implicitSubscriberPosition } from "./hook_order.ts";
 * import assert from "node:assert/strict";
 *
 * const positions = {
 *   providerBlocks: new Map([["memory", 610]]),
 *   requiredProviders: new Map([["memory", 40], ["ctx", 75]]),
 * };
 * assert.equal(implicitSubscriberPosition("memory", positions), 610);
 * assert.equal(implicitSubscriberPosition("ctx", positions), 75);
 * ```
 *
 * @param provider The provider's local name.
 * @param positions Byte offsets of `provider` blocks and `required_providers` entries.
 * @returns The byte offset, or `undefined`.
 */
export function implicitSubscriberPosition(
  provider: string,
  positions: {
    readonly providerBlocks: ReadonlyMap<string, number>;
    readonly requiredProviders: ReadonlyMap<string, number>;
  },
): number | undefined {
  return positions.providerBlocks.get(provider) ??
    positions.requiredProviders.get(provider);
}
