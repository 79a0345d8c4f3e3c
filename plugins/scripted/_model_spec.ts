/**
 * The ModelSpec a script declares, for GetCapabilities.
 *
 * @module
 */

import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ModelSpecSchema } from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import { DISABLE, type ScriptModel, TOOL_CHOICES } from "./_format.ts";

/**
 * The ModelSpec a script declares, for GetCapabilities.
 *
 * @param model The script's model.
 * @returns The ModelSpec init.
 */
export function modelSpec(
  model: ScriptModel,
): MessageInitShape<typeof ModelSpecSchema> {
  const th = model.thinking;
  return {
    id: model.id,
    contextWindow: BigInt(model.contextWindow),
    maxOutputTokens: BigInt(model.maxOutputTokens),
    supportsToolUse: model.supportsToolUse,
    supportsVision: model.supportsVision,
    supportsStreaming: true,
    supportsParallelToolCalls: model.supportsParallelToolCalls,
    supportsDocuments: model.supportsDocuments,
    supportedToolChoiceModes: model.toolChoiceModes.map((m) => TOOL_CHOICES[m]),
    thinking: {
      supported: th.supported,
      adaptiveByDefault: th.adaptiveByDefault,
      ...(th.disable ? { disable: DISABLE[th.disable] } : {}),
      ...(th.effort
        ? { effort: { levels: th.effort.levels, default: th.effort.default } }
        : {}),
      ...(th.budget
        ? {
          budget: {
            range: { min: BigInt(th.budget.min), max: BigInt(th.budget.max) },
            ...(th.budget.default !== undefined
              ? { default: BigInt(th.budget.default) }
              : {}),
            deprecated: false,
          },
        }
        : {}),
    },
    caching: { ...model.caching },
    pricing: {
      currency: "USD",
      free: model.pricing.free,
      tiers: model.pricing.tiers.map((t) => ({
        inputPerMtok: t.inputPerMtok,
        outputPerMtok: t.outputPerMtok,
        ...(t.cacheReadPerMtok !== undefined
          ? { cacheReadPerMtok: t.cacheReadPerMtok }
          : {}),
        ...(t.cacheWritePerMtok !== undefined
          ? { cacheWritePerMtok: t.cacheWritePerMtok }
          : {}),
        ...(t.inputTokensFrom !== undefined
          ? { inputTokensFrom: BigInt(t.inputTokensFrom) }
          : {}),
        ...(t.inputTokensUntil !== undefined
          ? { inputTokensUntil: BigInt(t.inputTokensUntil) }
          : {}),
      })),
    },
    catalog: {
      displayName: `Scripted (${model.id})`,
      description:
        "Replays a script of turns: deterministic, for tests and demos",
      aliases: [],
    },
  };
}
