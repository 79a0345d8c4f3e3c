/**
 * Money: the pricing tier of a usage event, its dollar cost (plugins.md
 * §6.1 "Cost"; kernel.md §3.7) and the only-shrinking cost budget that is
 * debited up the session tree (kernel.md §6.4).
 *
 * @module
 */
import { timestampMs } from "@bufbuild/protobuf/wkt";
import type {
  Pricing,
  PricingTier,
  Usage,
} from "../proto/gen/pluggableharness/model/v1/types_pb.ts";

/**
 * The tier of `pricing` that matches a usage event at `atMs` with
 * `inputTokens` input tokens: `effective_from ≤ at < effective_until` and
 * `input_tokens_from ≤ input < input_tokens_until`, absent bounds open.
 *
 * @param pricing The model's declared pricing.
 * @param at When the usage arrived (epoch milliseconds) and its input tokens.
 * @returns The first matching tier, or `undefined`.
 */
export function pickPricingTier(
  pricing: Pricing,
  at: { readonly atMs: number; readonly inputTokens: number },
): PricingTier | undefined {
  const { atMs, inputTokens } = at;
  return pricing.tiers.find((t) =>
    (t.effectiveFrom === undefined || timestampMs(t.effectiveFrom) <= atMs) &&
    (t.effectiveUntil === undefined || atMs < timestampMs(t.effectiveUntil)) &&
    (t.inputTokensFrom === undefined ||
      BigInt(inputTokens) >= t.inputTokensFrom) &&
    (t.inputTokensUntil === undefined ||
      BigInt(inputTokens) < t.inputTokensUntil)
  );
}

/** The token counters of a usage event, as numbers. */
export interface UsageCounts {
  /** Uncached input tokens. */
  readonly inputTokens: number;
  /** Output tokens. */
  readonly outputTokens: number;
  /** Cache-read tokens. */
  readonly cacheReadTokens: number;
  /** Cache-write tokens. */
  readonly cacheWriteTokens: number;
  /** Reasoning tokens (billed at the output rate unless already counted). */
  readonly reasoningTokens: number;
  /** Whether reasoning tokens are already inside `outputTokens`. */
  readonly reasoningAlreadyCounted: boolean;
}

/**
 * The counters of a `model.v1.Usage` as numbers.
 *
 * @param usage The usage message.
 * @returns The counts.
 */
export function usageCounts(usage: Usage): UsageCounts {
  return {
    inputTokens: Number(usage.inputTokens),
    outputTokens: Number(usage.outputTokens),
    cacheReadTokens: Number(usage.cacheReadTokens ?? 0n),
    cacheWriteTokens: Number(usage.cacheWriteTokens ?? 0n),
    reasoningTokens: Number(usage.reasoningTokens ?? 0n),
    reasoningAlreadyCounted: usage.reasoningAlreadyCounted ?? false,
  };
}

/** Options of {@linkcode computeCostUsd}. */
export interface CostOptions {
  /** When the usage arrived (picks the tier). @default {Date.now()} */
  readonly atMs?: number;
  /** The model id, for the error message. @default {""} */
  readonly modelId?: string;
}

/**
 * The dollar cost of one usage event:
 * `(in·input + out·output + cache_write·cw + cache_read·cr + reasoning·output) / 1e6`
 * with the per-million prices of the tier matching (time, input tokens).
 * Reasoning is not added again when the provider reports it as already
 * counted in the output. A free model costs 0.
 *
 * @example Usage
 * ```ts
 * import { computeCostUsd } from "@ph/agent/kernel";
 * import { create } from "@bufbuild/protobuf";
 * import { PricingSchema, UsageSchema } from "@ph/agent/proto/model";
 * import assert from "node:assert/strict";
 *
 * const pricing = create(PricingSchema, {
 *   currency: "USD",
 *   tiers: [{ inputPerMtok: 3, outputPerMtok: 15, cacheReadPerMtok: 0.3 }],
 * });
 * const usage = create(UsageSchema, { inputTokens: 1000n, outputTokens: 200n, cacheReadTokens: 10_000n });
 * assert.equal(computeCostUsd(pricing, usage), (3000 + 3000 + 3000) / 1e6);
 * ```
 *
 * @param pricing The model's declared pricing.
 * @param usage The usage event.
 * @param options When it arrived, and the model id for the error.
 * @returns Dollars.
 * @throws {PricingError} When no tier of a non-free model matches.
 */
export function computeCostUsd(
  pricing: Pricing | undefined,
  usage: Usage,
  options: CostOptions = {},
): number {
  const atMs = options.atMs ?? Date.now();
  const modelId = options.modelId ?? "";
  if (pricing === undefined || pricing.free) return 0;
  const u = usageCounts(usage);
  const tier = pickPricingTier(pricing, { atMs, inputTokens: u.inputTokens });
  if (tier === undefined) throw new PricingError(modelId, u.inputTokens);
  const reasoning = u.reasoningAlreadyCounted ? 0 : u.reasoningTokens;
  return (u.inputTokens * tier.inputPerMtok +
    u.outputTokens * tier.outputPerMtok +
    u.cacheWriteTokens * (tier.cacheWritePerMtok ?? 0) +
    u.cacheReadTokens * (tier.cacheReadPerMtok ?? 0) +
    reasoning * tier.outputPerMtok) / 1e6;
}

/**
 * A session's cost budget in the live (in-memory) session tree:
 * `remaining(root) = max_cost_usd ?? ∞`,
 * `remaining(child) = min(remaining(parent), child max_cost_usd ?? ∞)`.
 * A debit is subtracted at this node and at every ancestor, synchronously,
 * so a spend can never slip past an ancestor's `≤ 0` check and a cost
 * bound cannot be dodged by spawning sub-agents.
 *
 * @example Usage
 * ```ts
 * import { CostBudget } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * const root = new CostBudget(1.0);
 * const child = new CostBudget(5.0, root); // only-shrinking: capped at 1.0
 * assert.equal(child.remainingUsd, 1.0);
 * child.debit(0.4);
 * assert.equal(root.remainingUsd, 0.6);
 * assert.ok(!root.exhausted);
 * ```
 */
export class CostBudget {
  /** The parent session's budget, if any. */
  readonly parent: CostBudget | undefined;
  #remaining: number;
  #spent = 0;

  /**
   * Creates a budget node.
   *
   * @param maxCostUsd The session's own `max_cost_usd`; `undefined` is unbounded.
   * @param parent The parent session's budget.
   * @throws {RangeError} For a negative or NaN limit.
   */
  constructor(maxCostUsd?: number, parent?: CostBudget) {
    if (maxCostUsd !== undefined && !(maxCostUsd >= 0)) {
      throw new RangeError(
        `Cannot create a cost budget: max_cost_usd must be a non-negative number, got ${maxCostUsd}`,
      );
    }
    this.parent = parent;
    this.#remaining = Math.min(
      parent?.remainingUsd ?? Infinity,
      maxCostUsd ?? Infinity,
    );
  }

  /** Dollars this session may still spend (may be negative once exceeded). */
  get remainingUsd(): number {
    return this.#remaining;
  }

  /** Dollars debited at this node (its own spend and its descendants'). */
  get spentUsd(): number {
    return this.#spent;
  }

  /** True once the remaining budget is `≤ 0`. */
  get exhausted(): boolean {
    return this.#remaining <= 0;
  }

  /**
   * Subtracts a spend here and at every ancestor.
   *
   * @param usd Dollars (non-negative).
   */
  debit(usd: number): void {
    if (!(usd >= 0)) {
      throw new RangeError(
        `Cannot debit the cost budget: the amount must be non-negative, got ${usd}`,
      );
    }
    this.#remaining -= usd;
    this.#spent += usd;
    this.parent?.debit(usd);
  }
}

/** No pricing tier of a non-free model matches a usage event. */
export class PricingError extends Error {
  /** The stable code (for `--json` output). */
  readonly code = "pricing_no_tier" as const;
  /**
   * Creates the error.
   *
   * @param modelId The model id.
   * @param inputTokens The usage's input tokens.
   */
  constructor(modelId: string, inputTokens: number) {
    super(
      `Cannot price usage of model "${modelId}": no pricing tier matches now and ${inputTokens} input tokens`,
    );
    this.name = "PricingError";
  }
}
