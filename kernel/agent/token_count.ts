/**
 * Token counts the kernel uses for its own models (plugins.md §5.2): a
 * model provider that implements `ModelService.CountTokens` counts exactly
 * with its own tokenizer; otherwise the kernel's single fallback formula
 * `ceil(utf8 bytes / 4)` applies and the count says `exact: false`.
 *
 * The CountTokens callback (`KernelServices.countTokens`), the context
 * chain's `history_tokens` and the session's `context-usage` all count
 * through here.
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import {
  type ContentBlock,
  type ContextSection,
  type Message,
  MessageSchema,
  Role,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { fallbackTokenCount } from "../../contract/tokens.ts";
import { CountTokensRequestSchema } from "../../proto/gen/pluggableharness/model/v1/rpc_request_pb.ts";
import type { ModelEndpoint } from "./endpoints.ts";

/** A token count and whether a model's own tokenizer produced it. */
export interface TokenCount {
  /** The tokens. */
  readonly count: number;
  /** `true` when the model provider's tokenizer counted them. */
  readonly exact: boolean;
}

/** What {@linkcode countRequestTokens} counts. */
export interface TokenCountRequest {
  /** The model provider's local name in `agent.hcl`. */
  readonly provider: string;
  /** The model id. */
  readonly modelId: string;
  /** The messages. */
  readonly messages: readonly Message[];
  /** The assembled context (system prompt and sections). */
  readonly sections?: readonly ContextSection[];
}

/**
 * Counts the tokens of a request for a model: exactly through the model
 * provider's `CountTokens` when it implements it (and the model is known to
 * its tokenizer), else with the fallback formula over every text block.
 *
 * @example Usage
 * ```ts
 * import { countRequestTokens } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 * const n = await countRequestTokens(new Map(), {
 *   provider: "none",
 *   modelId: "x",
 *   messages: [],
 * });
 * assert.deepEqual(n, { count: 0, exact: false });
 * ```
 *
 * @param models The launched model providers by local name.
 * @param request The provider, model and content.
 * @param signal Cancels the count.
 * @returns The count, `exact` when the provider counted it.
 */
export async function countRequestTokens(
  models: ReadonlyMap<string, ModelEndpoint>,
  request: TokenCountRequest,
  signal?: AbortSignal,
): Promise<TokenCount> {
  const endpoint = models.get(request.provider);
  if (endpoint?.countTokens) {
    const exact = await endpoint.countTokens(
      create(CountTokensRequestSchema, {
        modelId: request.modelId,
        messages: [...request.messages],
        assembledContext: [...(request.sections ?? [])],
      }),
      signal ? { signal } : {},
    );
    if (exact !== undefined) return { count: exact, exact: true };
  }
  const blocks = [
    ...(request.sections ?? []).flatMap((s) => s.content),
    ...request.messages.flatMap((m) => m.content),
  ];
  return { count: fallbackTokenCount(blocks), exact: false };
}

/**
 * The `CountTokens` callback's exact counter over the launched model
 * providers: the content as one user message to the named model.
 *
 * @param models The launched model providers by local name.
 * @returns The counter: `undefined` when the provider has no tokenizer.
 */
export function modelTokenCounter(
  models: ReadonlyMap<string, ModelEndpoint>,
): (
  modelRef: { provider: string; id: string },
  content: readonly ContentBlock[],
) => Promise<number | undefined> {
  return async (modelRef, content) => {
    const endpoint = models.get(modelRef.provider);
    if (!endpoint?.countTokens) return undefined;
    return await endpoint.countTokens(
      create(CountTokensRequestSchema, {
        modelId: modelRef.id,
        messages: [create(MessageSchema, {
          role: Role.USER,
          content: [...content],
        })],
      }),
    );
  };
}

/**
 * {@linkcode countRequestTokens}, but a failing provider count (a vendor
 * endpoint down, say) falls back to the formula, `exact: false`, instead of
 * failing the turn. Cancellation still throws.
 *
 * @param models The launched model providers by local name.
 * @param request The provider, model and content.
 * @param signal Cancels the count.
 * @returns The count.
 */
export async function countTokensOrFallback(
  models: ReadonlyMap<string, ModelEndpoint>,
  request: TokenCountRequest,
  signal?: AbortSignal,
): Promise<TokenCount> {
  try {
    return await countRequestTokens(models, request, signal);
  } catch (err) {
    if (signal?.aborted) throw err;
    return countRequestTokens(new Map(), request);
  }
}
