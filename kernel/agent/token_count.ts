/**
 * Token counts the kernel uses for its own models (plugins.md §5.2): a
 * model provider that implements `ModelService.CountTokens` counts exactly
 * with its own tokenizer; otherwise the kernel's single fallback formula
 * `ceil(utf8 bytes / 4)` applies and the count says `exact: false`.
 *
 * The CountTokens callback (`KernelServices.countTokens`), the context
 * chain's `history_tokens` and the session's `context-usage` all count
 * through here. A session counts its history through a
 * {@linkcode HistoryTokenCounter}, which asks the provider only about the
 * messages that are new since the last turn.
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

/** The messages of one count, as the history held them, and their tokens. */
interface CountedRun {
  /** The messages, by identity (history messages are never edited in place). */
  readonly messages: readonly Message[];
  /** Each message's number of content blocks when counted (a cheap guard). */
  readonly blocks: readonly number[];
  /** Their tokens. */
  readonly count: number;
  /** `true` when the provider's tokenizer counted them. */
  readonly exact: boolean;
}

/**
 * Counts a session's history turn after turn, asking the model provider
 * only about the messages that are new since the last count.
 *
 * The history grows at its end (a turn appends the assistant message and
 * its tool results), so the counter keeps the runs of messages it counted,
 * in order, with their counts. A turn reuses every run whose messages are
 * still the history's, by identity, from the start, and counts the rest in
 * one request; a compaction or any replaced message ends the reuse there.
 * Switching the model (the router's fallback) starts over.
 *
 * The total is the sum of the runs' counts; it is `exact` when every run was
 * counted by the provider's tokenizer. A run counted with the fallback
 * formula because the provider failed is not kept: the next turn asks again
 * (with the new messages). A provider with no tokenizer for the model is
 * asked once per message run, as before.
 *
 * A vendor count is of a whole would-be request, so a vendor that adds a
 * fixed framing per request counts that framing once per run: the sum
 * exceeds a single count of the whole history by that framing for each run
 * after the first (for the openai plugin's chat format, the 3-token reply
 * primer per turn).
 *
 * @example Usage
 * ```ts
 * import { HistoryTokenCounter } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 * const counter = new HistoryTokenCounter();
 * const n = await counter.count(new Map(), {
 *   provider: "none",
 *   modelId: "x",
 *   messages: [],
 * });
 * assert.deepEqual(n, { count: 0, exact: false });
 * ```
 */
export class HistoryTokenCounter {
  #model = "";
  #runs: CountedRun[] = [];
  #requests = 0;

  /** Requests sent to a provider's `CountTokens` so far (for tests and benchmarks). */
  get requests(): number {
    return this.#requests;
  }

  /**
   * Counts `request.messages` (the history; `sections` are not part of it
   * and must be absent), reusing the counts of the messages it counted
   * before.
   *
   * @param models The launched model providers by local name.
   * @param request The provider, model and history.
   * @param signal Cancels the count (then it throws).
   * @returns The count, `exact` when every part was counted by the provider.
   * @throws {TypeError} When `request.sections` is given.
   */
  async count(
    models: ReadonlyMap<string, ModelEndpoint>,
    request: TokenCountRequest,
    signal?: AbortSignal,
  ): Promise<TokenCount> {
    if (request.sections?.length) {
      throw new TypeError("HistoryTokenCounter counts messages only");
    }
    const model = `${request.provider}\u0000${request.modelId}`;
    if (model !== this.#model) {
      this.#model = model;
      this.#runs = [];
    }
    const messages = request.messages;
    let at = 0;
    let kept = 0;
    for (const run of this.#runs) {
      if (!runMatches(run, messages, at)) break;
      at += run.messages.length;
      kept++;
    }
    this.#runs.length = kept;
    let count = 0;
    let exact = true;
    for (const run of this.#runs) {
      count += run.count;
      exact &&= run.exact;
    }
    const rest = messages.slice(at);
    if (rest.length === 0) return { count, exact: exact && at > 0 };
    const part = await this.#countNew(models, request, rest, signal);
    return { count: count + part.count, exact: exact && part.exact };
  }

  async #countNew(
    models: ReadonlyMap<string, ModelEndpoint>,
    request: TokenCountRequest,
    messages: readonly Message[],
    signal: AbortSignal | undefined,
  ): Promise<TokenCount> {
    const part = { provider: request.provider, modelId: request.modelId };
    let counted: TokenCount;
    let keep = true;
    try {
      if (models.get(request.provider)?.countTokens) this.#requests++;
      counted = await countRequestTokens(
        models,
        { ...part, messages },
        signal,
      );
    } catch (err) {
      if (signal?.aborted) throw err;
      counted = await countRequestTokens(new Map(), { ...part, messages });
      keep = false;
    }
    if (keep) {
      this.#runs.push({
        messages,
        blocks: messages.map((m) => m.content.length),
        count: counted.count,
        exact: counted.exact,
      });
    }
    return counted;
  }
}

function runMatches(
  run: CountedRun,
  messages: readonly Message[],
  at: number,
): boolean {
  if (at + run.messages.length > messages.length) return false;
  for (let i = 0; i < run.messages.length; i++) {
    const m = messages[at + i]!;
    if (m !== run.messages[i] || m.content.length !== run.blocks[i]) {
      return false;
    }
  }
  return true;
}
