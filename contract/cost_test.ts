import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import {
  PricingSchema,
  UsageSchema,
} from "../proto/gen/pluggableharness/model/v1/types_pb.ts";
import { computeCostUsd, CostBudget, pickPricingTier } from "./cost.ts";
import { PricingError } from "./cost.ts";

function near(actual: number, expected: number): void {
  assert.ok(Math.abs(actual - expected) < 1e-12, `${actual} != ${expected}`);
}

const JAN = Date.UTC(2026, 0, 1);
const JUL = Date.UTC(2026, 6, 1);

const pricing = create(PricingSchema, {
  currency: "USD",
  tiers: [
    // Before July: one price.
    { effectiveUntil: timestampFromMs(JUL), inputPerMtok: 1, outputPerMtok: 2 },
    // From July: small and large prompts are priced differently.
    {
      effectiveFrom: timestampFromMs(JUL),
      inputTokensUntil: 200_000n,
      inputPerMtok: 3,
      outputPerMtok: 15,
      cacheWritePerMtok: 3.75,
      cacheReadPerMtok: 0.3,
    },
    {
      effectiveFrom: timestampFromMs(JUL),
      inputTokensFrom: 200_000n,
      inputPerMtok: 6,
      outputPerMtok: 22.5,
    },
  ],
});

Deno.test("§6.9-3 pickPricingTier() matches time and input tokens", () => {
  assert.equal(
    pickPricingTier(pricing, { atMs: JAN, inputTokens: 10 })?.inputPerMtok,
    1,
  );
  assert.equal(
    pickPricingTier(pricing, { atMs: JUL, inputTokens: 199_999 })?.inputPerMtok,
    3,
  );
  assert.equal(
    pickPricingTier(pricing, { atMs: JUL + 1, inputTokens: 200_000 })
      ?.inputPerMtok,
    6,
  );
});

Deno.test("§6.9-3 computeCostUsd() sums every counter, reasoning at the output rate", () => {
  const usage = create(UsageSchema, {
    inputTokens: 1_000n,
    outputTokens: 500n,
    cacheWriteTokens: 2_000n,
    cacheReadTokens: 10_000n,
    reasoningTokens: 100n,
  });
  const expected =
    (1_000 * 3 + 500 * 15 + 2_000 * 3.75 + 10_000 * 0.3 + 100 * 15) / 1e6;
  near(computeCostUsd(pricing, usage, { atMs: JUL, modelId: "m" }), expected);
  usage.reasoningAlreadyCounted = true;
  near(
    computeCostUsd(pricing, usage, { atMs: JUL, modelId: "m" }),
    expected - 100 * 15 / 1e6,
  );
  near(
    computeCostUsd(pricing, usage, { atMs: JAN, modelId: "m" }),
    (1_000 + 500 * 2) / 1e6,
  );
  assert.equal(
    computeCostUsd(create(PricingSchema, { free: true }), usage, {
      atMs: JUL,
      modelId: "m",
    }),
    0,
  );
  assert.throws(
    () =>
      computeCostUsd(create(PricingSchema, { tiers: [] }), usage, {
        atMs: JUL,
        modelId: "m",
      }),
    PricingError,
  );
});

Deno.test("§6.9-4 cost rolls up the session tree as an inherited, only-shrinking budget", () => {
  const root = new CostBudget(1.0);
  const child = new CostBudget(5.0, root);
  const grandchild = new CostBudget(undefined, child);
  assert.equal(
    child.remainingUsd,
    1.0,
    "a child never gets more than its parent",
  );
  assert.equal(grandchild.remainingUsd, 1.0);
  grandchild.debit(0.25);
  assert.equal(child.remainingUsd, 0.75);
  assert.equal(
    root.remainingUsd,
    0.75,
    "a descendant's spend is debited at every ancestor",
  );
  assert.equal(root.spentUsd, 0.25);
  const sibling = new CostBudget(0.5, root);
  sibling.debit(0.8);
  assert.ok(sibling.exhausted);
  assert.ok(
    root.exhausted,
    "the root fires even though the spend was a descendant's",
  );
  assert.equal(new CostBudget().remainingUsd, Infinity);
  assert.throws(() => new CostBudget(-1), RangeError);
  assert.throws(() => root.debit(-1), RangeError);
});
