/**
 * Steps 3–4 of a turn: the model call with routing, retries and fallback
 * (kernel.md §6.8, config.md §7.2), and the turning of its stream (read by
 * `stream_accumulator.ts`) into one canonical assistant message with its
 * usage and cost.
 *
 * - Routing: the chain (primary, then fallbacks) is walked with
 *   `chooseModel`, skipping candidates that lack a capability the turn
 *   needs (tool use when tools are sent, vision when the history holds
 *   images).
 * - `rate_limited` / `overloaded`: retried with exponential backoff and
 *   jitter, `base · factor^(n−1) · [0.5, 1)`, never sooner than a supplied
 *   `retry_after`. Two caps are tracked separately: retries of one call
 *   (`maxRetries`) and of the whole session (`maxSessionRetries`). A retry
 *   whose delay would pass the wall-clock deadline is not taken. Once the
 *   retries of an `overloaded` call are spent, the call falls through to
 *   the next eligible model of the chain.
 * - `unknown` that the provider marked `retryable` (a vendor's 5xx, a
 *   dropped connection): retried like `rate_limited`, never a fallback.
 * - `auth_error`, `invalid_request`, `context_length_exceeded`,
 *   `content_filtered`, other `unknown`: never retried, never a fallback.
 * - Cost: each `usage` event is priced at receipt with the tier matching
 *   (now, input tokens); several usage events of one stream are added up
 *   (each is taken as a non-overlapping increment).
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import { getLogger } from "@logtape/logtape";
import {
  type ContentBlock,
  type Message,
  MessageSchema,
  Role,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import type { StreamEvent } from "../../proto/gen/pluggableharness/model/v1/events_pb.ts";
import {
  type ModelError,
  ModelErrorCategory,
} from "../../proto/gen/pluggableharness/model/v1/errors_pb.ts";
import type { StreamCompletionRequest } from "../../proto/gen/pluggableharness/model/v1/rpc_request_pb.ts";
import {
  type ModelSpec,
  StopReason,
  type Usage,
} from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import {
  chooseModel,
  type TurnRequirements,
} from "../../config/model_routing.ts";
import { PluginCrashedError } from "../plugin/errors.ts";
import type { PluginIdentity } from "../../contract/plugin_identity.ts";
import { ulid } from "../state/ulid.ts";
import { durationMs } from "./_proto.ts";
import { computeCostUsd } from "../../contract/cost.ts";
import type { ModelEndpoint } from "./endpoints.ts";
import {
  ModelCallError,
  type ModelErrorCode,
  NoEligibleModelError,
  TurnCancelledError,
} from "./errors.ts";
import type { ModelChainEntry, RetrySettings } from "./session_spec.ts";
import { StreamAccumulator, sumUsage } from "./stream_accumulator.ts";

const log = getLogger(["ph-agent", "kernel", "agent", "model"]);

/** What a cancelled stream had produced (persisted for audit). */
export interface PartialResponse {
  /** Text and thinking blocks received before cancellation. */
  readonly content: ContentBlock[];
  /** Usage received before cancellation (already paid). */
  readonly usage: Usage;
  /** Its cost. */
  readonly costUsd: number;
  /** The model that was streaming. */
  readonly model: ModelChainEntry;
  /** Its provider build. */
  readonly identity: PluginIdentity;
}

/** A model stream cancelled by the turn's signal. */
export class StreamCancelledError extends TurnCancelledError {
  /**
   * Creates the error.
   *
   * @param partial What had arrived before cancellation.
   * @param options Standard error options.
   */
  constructor(readonly partial: PartialResponse, options?: ErrorOptions) {
    super(options);
    this.name = "StreamCancelledError";
  }
}

/** One completed model call. */
export interface ModelResponse {
  /** The assistant message (kernel-assigned id). */
  readonly message: Message;
  /** The summed usage. */
  readonly usage: Usage;
  /** Its cost in dollars, priced at receipt. */
  readonly costUsd: number;
  /** The stop reason. */
  readonly stopReason: StopReason;
  /** The model that answered. */
  readonly model: ModelChainEntry;
  /** Its spec. */
  readonly spec: ModelSpec;
  /** Its provider. */
  readonly endpoint: ModelEndpoint;
  /** `tool_use` ids whose arguments were not a JSON object, with the reason. */
  readonly invalidArguments: ReadonlyMap<string, string>;
}

/** A chosen model. */
export interface ModelChoice {
  /** The chain entry. */
  readonly model: ModelChainEntry;
  /** Its spec. */
  readonly spec: ModelSpec;
  /** Its position in the chain. */
  readonly index: number;
  /** Its provider. */
  readonly endpoint: ModelEndpoint;
}

/** Options of {@linkcode ModelRouter}. */
export interface ModelRouterOptions {
  /** The routing chain. */
  readonly chain: readonly ModelChainEntry[];
  /** Model endpoints by provider local name. */
  readonly endpoints: ReadonlyMap<string, ModelEndpoint>;
  /** Retry settings. */
  readonly retry: Required<RetrySettings>;
  /** The clock (epoch ms). */
  readonly now: () => number;
  /** Sleeps, or rejects when the signal aborts. */
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** A random number in [0, 1) for jitter. */
  readonly random: () => number;
  /** Takes a session grant for a provider during one call. */
  readonly grant?: (identity: PluginIdentity) => () => void;
}

/** Callbacks of one {@linkcode ModelRouter.complete} call. */
export interface CompleteHooks {
  /**
   * An attempt's request was handed to the provider (its stream is open;
   * no event need have arrived).
   */
  onSent?(): void;
  /** A stream event of an attempt arrived (the answer is streaming). */
  onEvent?(): void;
  /** A text delta arrived. */
  onTextDelta?(text: string): void;
  /** A thinking delta arrived. */
  onThinkingDelta?(text: string): void;
  /** A retry (or fallback) is about to happen. */
  onRetry?(info: {
    model: ModelChainEntry;
    category: ModelErrorCode;
    attempt: number;
    delayMs: number;
    fallback?: ModelChainEntry;
  }): void;
}

const CATEGORY_CODE: Readonly<Record<ModelErrorCategory, ModelErrorCode>> = {
  [ModelErrorCategory.UNSPECIFIED]: "unknown",
  [ModelErrorCategory.CONTEXT_LENGTH_EXCEEDED]: "context_length_exceeded",
  [ModelErrorCategory.RATE_LIMITED]: "rate_limited",
  [ModelErrorCategory.OVERLOADED]: "overloaded",
  [ModelErrorCategory.AUTH_ERROR]: "auth_error",
  [ModelErrorCategory.INVALID_REQUEST]: "invalid_request",
  [ModelErrorCategory.CONTENT_FILTERED]: "content_filtered",
  [ModelErrorCategory.UNKNOWN]: "unknown",
};

/**
 * A `model.v1.ModelError` as a {@linkcode ModelCallError}.
 *
 * @param error The in-band error.
 * @param model The model that sent it.
 * @returns The error.
 */
export function modelCallErrorOf(
  error: ModelError | undefined,
  model: ModelChainEntry,
): ModelCallError {
  const code = CATEGORY_CODE[error?.category ?? ModelErrorCategory.UNKNOWN] ??
    "unknown";
  const retryAfterMs = durationMs(error?.retryAfter);
  return new ModelCallError(
    code,
    model.provider,
    model.id,
    error?.message ?? "the stream reported an error without details",
    {
      retryable: error?.retryable ?? false,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      ...(error?.rawDetail !== undefined ? { rawDetail: error.rawDetail } : {}),
    },
  );
}

/** Whether a model error category is retried. */
export function isRetriedCategory(code: ModelErrorCode): boolean {
  return code === "rate_limited" || code === "overloaded";
}

/**
 * The backoff delay before retry `attempt` (1-based):
 * `base · factor^(attempt−1)`, jittered into `[½, 1)` of that, and never
 * shorter than `retryAfterMs`.
 *
 * @param retry The settings.
 * @param attempt The retry number (1-based).
 * @param random A number in [0, 1).
 * @param retryAfterMs The provider's `retry_after`, if any.
 * @returns Milliseconds.
 */
export function backoffDelayMs(
  retry: Pick<Required<RetrySettings>, "baseDelayMs" | "backoffFactor">,
  attempt: number,
  random: number,
  retryAfterMs?: number,
): number {
  const full = retry.baseDelayMs * retry.backoffFactor ** (attempt - 1);
  const jittered = full * (0.5 + random / 2);
  return Math.round(Math.max(jittered, retryAfterMs ?? 0));
}

/** Walks the routing chain and calls models with retries and fallback. */
export class ModelRouter {
  readonly #o: ModelRouterOptions;
  #chain: readonly ModelChainEntry[];
  #available: Map<string, ModelSpec[]> | undefined;
  #sessionRetries = 0;

  /**
   * Creates a router.
   *
   * @param options Chain, endpoints, retry settings, clock, sleep, random.
   */
  constructor(options: ModelRouterOptions) {
    this.#o = options;
    this.#chain = options.chain;
  }

  /** The routing chain in its current order (first choice first). */
  get chain(): readonly ModelChainEntry[] {
    return this.#chain;
  }

  /**
   * Makes one candidate of the chain the first choice (`/model ID`); the
   * others stay fallbacks in their order.
   *
   * @param index The candidate's index in {@linkcode ModelRouter.chain}.
   * @throws {RangeError} When there is no such candidate.
   */
  prefer(index: number): void {
    const entry = this.#chain[index];
    if (!entry) {
      throw new RangeError(
        `No model candidate #${index}: the chain has ${this.#chain.length}`,
      );
    }
    this.#chain = [entry, ...this.#chain.filter((_, i) => i !== index)];
  }

  /** Retries taken in this session so far (the per-session counter). */
  get sessionRetries(): number {
    return this.#sessionRetries;
  }

  /**
   * The models each chain provider offers (capabilities, fetched once). A
   * provider whose capabilities cannot be read counts as not loaded.
   *
   * @param signal Cancels the fetch.
   * @returns Provider → model specs.
   */
  async available(signal?: AbortSignal): Promise<Map<string, ModelSpec[]>> {
    if (this.#available) return this.#available;
    const out = new Map<string, ModelSpec[]>();
    for (const entry of this.#chain) {
      if (out.has(entry.provider)) continue;
      const endpoint = this.#o.endpoints.get(entry.provider);
      if (!endpoint) continue;
      try {
        const caps = await endpoint.capabilities(signal ? { signal } : {});
        out.set(entry.provider, caps.models);
      } catch (err) {
        log.error(
          "Cannot read the capabilities of model provider {provider}: {error}",
          {
            provider: entry.provider,
            error: err instanceof Error ? err.message : String(err),
          },
        );
      }
    }
    this.#available = out;
    return out;
  }

  /**
   * The first eligible model at or after `fromIndex`.
   *
   * @param requirements What the turn needs.
   * @param fromIndex Where to start in the chain.
   * @returns The choice.
   * @throws {NoEligibleModelError} When none is eligible.
   */
  async choose(
    requirements: TurnRequirements,
    fromIndex = 0,
    signal?: AbortSignal,
  ): Promise<ModelChoice> {
    const available = await this.available(signal);
    const chain = this.#chain.slice(fromIndex);
    const choice = chooseModel(
      chain.map((m) => ({ provider: m.provider, id: m.id })),
      available,
      requirements,
    );
    if (!choice.ok) {
      throw new NoEligibleModelError(
        choice.diagnostic.detail ?? choice.diagnostic.summary,
      );
    }
    const index = fromIndex + choice.index;
    return {
      model: this.#chain[index]!,
      spec: choice.spec,
      index,
      endpoint: this.#o.endpoints.get(choice.model.provider)!,
    };
  }

  /**
   * Calls the model with retries and fallback.
   *
   * @param input The request (its `modelId` is set per candidate), the
   * first choice, what the turn needs, the signal and the wall-clock
   * deadline.
   * @param hooks Delta and retry callbacks.
   * @returns The response.
   * @throws {ModelCallError} A non-retried error, or a retried one whose caps are spent.
   * @throws {StreamCancelledError} When the signal aborted.
   */
  async complete(
    input: {
      request: StreamCompletionRequest;
      choice: ModelChoice;
      requirements: TurnRequirements;
      signal: AbortSignal;
      deadlineMs?: number;
      /** Request metadata, e.g. the `traceparent` of the model-call span. */
      headers?: Readonly<Record<string, string>>;
    },
    hooks: CompleteHooks = {},
  ): Promise<ModelResponse> {
    let choice = input.choice;
    let attempt = 0;
    for (;;) {
      try {
        return await this.#streamOnce(
          choice,
          input.request,
          input.signal,
          hooks,
          input.headers,
        );
      } catch (err) {
        if (input.signal.aborted || err instanceof TurnCancelledError) {
          throw err;
        }
        if (
          !(err instanceof ModelCallError) ||
          !(isRetriedCategory(err.code) ||
            (err.code === "unknown" && err.retryable))
        ) {
          throw err;
        }
        const { retry, now } = this.#o;
        const capped = attempt >= retry.maxRetries ||
          this.#sessionRetries >= retry.maxSessionRetries;
        if (capped) {
          if (err.code !== "overloaded") throw err;
          let next: ModelChoice;
          try {
            next = await this.choose(input.requirements, choice.index + 1);
          } catch {
            throw err;
          }
          if (this.#sessionRetries >= retry.maxSessionRetries) throw err;
          this.#sessionRetries++;
          hooks.onRetry?.({
            model: choice.model,
            category: err.code,
            attempt: attempt + 1,
            delayMs: 0,
            fallback: next.model,
          });
          log.warn(
            "Model {provider}/{model} is overloaded; falling back to {next}",
            {
              provider: choice.model.provider,
              model: choice.model.id,
              next: `${next.model.provider}/${next.model.id}`,
            },
          );
          choice = next;
          attempt = 0;
          continue;
        }
        attempt++;
        const delayMs = backoffDelayMs(
          retry,
          attempt,
          this.#o.random(),
          err.retryAfterMs,
        );
        if (
          input.deadlineMs !== undefined && now() + delayMs > input.deadlineMs
        ) {
          throw err;
        }
        this.#sessionRetries++;
        hooks.onRetry?.({
          model: choice.model,
          category: err.code,
          attempt,
          delayMs,
        });
        log.info(
          "Retrying {provider}/{model} after {category} in {delayMs} ms",
          {
            provider: choice.model.provider,
            model: choice.model.id,
            category: err.code,
            delayMs,
          },
        );
        try {
          await this.#o.sleep(delayMs, input.signal);
        } catch (cause) {
          throw new TurnCancelledError({ cause });
        }
      }
    }
  }

  async #streamOnce(
    choice: ModelChoice,
    base: StreamCompletionRequest,
    signal: AbortSignal,
    hooks: CompleteHooks,
    headers?: Readonly<Record<string, string>>,
  ): Promise<ModelResponse> {
    const { model, spec, endpoint } = choice;
    const request: StreamCompletionRequest = { ...base, modelId: model.id };
    const acc = new StreamAccumulator();
    let costUsd = 0;
    const ac = new AbortController();
    const onAbort = () => ac.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    const release = this.#o.grant?.(endpoint.identity);
    const aborted = Promise.withResolvers<"aborted">();
    ac.signal.addEventListener("abort", () => aborted.resolve("aborted"), {
      once: true,
    });
    const partial = (): PartialResponse => ({
      content: acc.finish({ partial: true }).content,
      usage: sumUsage(acc.usages),
      costUsd,
      model,
      identity: endpoint.identity,
    });
    let it: AsyncIterator<StreamEvent> | undefined;
    try {
      it = endpoint.streamCompletion(request, {
        signal: ac.signal,
        ...(headers ? { headers } : {}),
      })[
        Symbol.asyncIterator
      ]();
      let sent = false;
      for (;;) {
        if (signal.aborted) throw new StreamCancelledError(partial());
        const next = it.next();
        next.catch(() => {});
        if (!sent) {
          // The first `next()` opened the provider's stream.
          sent = true;
          hooks.onSent?.();
        }
        const r = await Promise.race([next, aborted.promise]);
        if (r === "aborted") throw new StreamCancelledError(partial());
        if (r.done) break;
        const e = r.value.event;
        acc.push(r.value);
        hooks.onEvent?.();
        if (e.case === "textDelta") hooks.onTextDelta?.(e.value.text);
        else if (e.case === "thinkingDelta") {
          hooks.onThinkingDelta?.(e.value.text);
        } else if (e.case === "usage") {
          costUsd += computeCostUsd(spec.pricing, e.value, {
            atMs: this.#o.now(),
            modelId: model.id,
          });
        } else if (e.case === "error") {
          throw modelCallErrorOf(e.value.error, model);
        }
      }
    } catch (err) {
      if (signal.aborted && !(err instanceof StreamCancelledError)) {
        throw new StreamCancelledError(partial(), { cause: err });
      }
      if (err instanceof PluginCrashedError) {
        throw new ModelCallError(
          "unknown",
          model.provider,
          model.id,
          err.message,
          {},
          {
            cause: err,
          },
        );
      }
      throw err;
    } finally {
      signal.removeEventListener("abort", onAbort);
      ac.abort();
      release?.();
      it?.return?.().catch(() => {});
    }
    if (acc.stopReason === undefined) {
      log.warn(
        "Model {provider}/{model} ended its stream without a stop event",
        {
          provider: model.provider,
          model: model.id,
        },
      );
    }
    const { content, invalidArguments } = acc.finish();
    const message = create(MessageSchema, {
      role: Role.ASSISTANT,
      content,
      id: ulid(),
      producedByModelId: model.id,
      producedByProvider: model.provider,
    });
    return {
      message,
      usage: sumUsage(acc.usages),
      costUsd,
      stopReason: acc.stopReason ?? StopReason.END_TURN,
      model,
      spec,
      endpoint,
      invalidArguments,
    };
  }
}

/**
 * The stop reason as text (`end_turn`, `tool_use`, …).
 *
 * @param reason The enum value.
 * @returns The text.
 */
export function stopReasonText(reason: StopReason): string {
  return (StopReason[reason] ?? "unspecified").toLowerCase();
}

/**
 * Whether a message holds an image (anywhere, tool results included).
 *
 * @param messages The history.
 * @returns True when a turn over it needs vision.
 */
export function historyHasImages(messages: readonly Message[]): boolean {
  const has = (blocks: readonly ContentBlock[]): boolean =>
    blocks.some((b) =>
      b.block.case === "image" ||
      (b.block.case === "toolResult" && has(b.block.value.content))
    );
  return messages.some((m) => has(m.content));
}
