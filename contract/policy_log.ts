/**
 * {@linkcode decidePolicy}: {@linkcode evaluatePolicy} plus the warning the
 * spec requires when a winning `ask` on a data-source or interactive call
 * is downgraded to `deny` (config.md §6.4 step 4, §8.1 row 12).
 *
 * @module
 */

import { getLogger, type Logger } from "@logtape/logtape";
import {
  evaluatePolicy,
  type PolicyCall,
  type PolicyDecision,
  type PolicyRule,
} from "./policy.ts";

const POLICY_LOGGER: Logger = getLogger(["ph-agent", "policy"]);

/**
 * Decides a call and, when the winning rule's `ask` was downgraded to
 * `deny`, logs a warning naming the rule and the call kind (category
 * `["ph-agent", "policy"]`). The log line carries names only, never
 * arguments.
 *
 * @example Usage
 * ```ts
 * import { decidePolicy } from "./policy_log.ts";
 * import assert from "node:assert/strict";
 * const d = decidePolicy(
 *   [{ name: "ask_reads", match: { kind: "data_source" }, action: "ask" }],
 *   { kind: "data_source", provider: "grep", toolName: "search", risk: "read_only" },
 * );
 * assert.deepEqual(d, { action: "deny", decidedBy: "ask_reads", downgraded: true });
 * ```
 *
 * @param rules The rules in declaration order.
 * @param call The call or plan item.
 * @param logger Where the warning goes.
 * @returns The decision.
 */
export function decidePolicy(
  rules: readonly PolicyRule[],
  call: PolicyCall,
  logger: Logger = POLICY_LOGGER,
): PolicyDecision {
  const decision = evaluatePolicy(rules, call);
  if (decision.downgraded) {
    logger.warn(
      'Policy "{rule}" says ask for a {kind} call ({provider}.{tool}), which cannot wait for approval: denied instead',
      {
        rule: decision.decidedBy,
        kind: call.kind,
        provider: call.provider,
        tool: call.toolName,
      },
    );
  }
  return decision;
}
