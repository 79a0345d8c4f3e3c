/**
 * The turn driver (kernel.md §6, `RunTurn`): {@linkcode TurnDriver} runs
 * one turn of a session — choose the model, context-assemble (step 1),
 * `pre-model-call` (2), the model call (3) and its persisted message and
 * cost (4), `post-model-response` (5), DoneCheck when there is no tool use
 * (6), then tool dispatch (7–14) and the tool results in the history (15).
 * It owns the session's tool index (refreshed when a provider's tools may
 * change) and counts the turns; the loop over turns and the bounds are the
 * session's.
 *
 * @module
 */
import { create, equals, type MessageInitShape } from "@bufbuild/protobuf";
import { getLogger } from "@logtape/logtape";
import type {
  GenerationSettings,
  TurnRequirements,
} from "../../config/model_routing.ts";
import type { Message } from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { HookPayloadSchema } from "../../proto/gen/pluggableharness/hook/v1/events_pb.ts";
import {
  type StreamCompletionRequest,
  StreamCompletionRequestSchema,
} from "../../proto/gen/pluggableharness/model/v1/rpc_request_pb.ts";
import type {
  GenerationParamsSchema,
  ToolDeclaration,
} from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import { ToolErrorCategory } from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import {
  ToolKind,
  type ToolSchema,
  ToolSchemaSchema,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { ulid } from "../state/ulid.ts";
import type { ToolTurn } from "./_call_record.ts";
import { producerRefOfIdentity, toolError } from "./_proto.ts";
import type { SessionCore } from "./_session_core.ts";
import { ToolIndex } from "./_tool_index.ts";
import {
  type ContextAssembly,
  passThroughAssembler,
  preambleSections,
} from "./context_assembly.ts";
import type { ToolEndpoint } from "./endpoints.ts";
import { isCancellation } from "./errors.ts";
import { type StoredOutcome, toolResultsMessage } from "./history.ts";
import {
  historyHasImages,
  type ModelChoice,
  type ModelResponse,
  type ModelRouter,
  stopReasonText,
} from "./model_call.ts";
import { sectionTokens } from "./provider_context.ts";
import { HistoryTokenCounter } from "./token_count.ts";
import {
  type CompactionOutcome,
  recordCompaction,
  reportUsage,
  type UsageBand,
} from "./compaction.ts";
import { endModelSpan, traceHeaders } from "./session_spans.ts";
import type { ToolDispatcher } from "./tool_dispatch.ts";
import { endSpanWithError } from "./tracing.ts";
import { postToolsChanged } from "../control/tool_channels.ts";
import { appendControlBlocks } from "../control/history.ts";
import { LiveTagFilter } from "../control/live_filter.ts";
import { postMemoryRecall } from "../control/memory_channels.ts";

const log = getLogger(["ph-agent", "kernel", "agent"]);

/** How a turn ended. */
export interface TurnOutcome {
  /** DoneCheck succeeded (no tool use, or a `terminates_turn` call). */
  readonly done: boolean;
  /** The turn's assistant message. */
  readonly message: Message;
  /**
   * The write of a `tool_result` left to commit with the round's time
   * stamps ({@linkcode ToolTurn.written}); await it with them.
   */
  readonly written?: Promise<void>;
}

/** What a {@linkcode TurnDriver} needs besides the session. */
export interface TurnDriverOptions {
  /** Chooses and calls the model. */
  readonly router: ModelRouter;
  /** Dispatches the turn's tool calls. */
  readonly dispatcher: ToolDispatcher;
  /** The session's tools at open. */
  readonly tools: ToolIndex;
  /** Turns of the session before this process (resumed). */
  readonly priorTurns: number;
  /** When this process opened the session (epoch ms). */
  readonly openedAt: number;
}

/** The model chosen for a turn and what the turn asks of it. */
interface TurnModel {
  readonly choice: ModelChoice;
  readonly requirements: TurnRequirements;
  readonly declarations: ToolDeclaration[];
  readonly budgetTokens: number;
}

/** Runs the turns of one session. */
/**
 * The `reason` of a compaction outcome when the profile has no compactor
 * context provider (`/compact` says so instead of "nothing to do").
 */
export const NO_COMPACTOR_REASON =
  "no compactor context provider is configured";

export class TurnDriver {
  /** Turns of the session before this process (resumed). */
  readonly priorTurns: number;
  readonly #core: SessionCore;
  readonly #router: ModelRouter;
  readonly #dispatcher: ToolDispatcher;
  readonly #openedAt: number;
  #tools: ToolIndex;
  #currentTools: ReadonlyMap<string, readonly ToolSchema[]>;
  #turns = 0;
  #outcomes = new Map<string, StoredOutcome>();
  /** `compactNow()` callers waiting for the next assembly. */
  #forced: PromiseWithResolvers<CompactionOutcome>[] = [];
  /** The last reported fill band. */
  #band: UsageBand = "comfortable";
  /** The history's token counts, kept so a turn counts only new messages. */
  #historyTokens = new HistoryTokenCounter();
  /** The models (`provider\0id`) whose overlapped history count has landed once. */
  #counted = new Set<string>();

  /**
   * Creates the driver of a session.
   *
   * @param core The session.
   * @param options Router, dispatcher, tools and counters.
   */
  constructor(core: SessionCore, options: TurnDriverOptions) {
    this.#core = core;
    this.#router = options.router;
    this.#dispatcher = options.dispatcher;
    this.#tools = options.tools;
    this.#currentTools = core.spec.tools;
    this.priorTurns = options.priorTurns;
    this.#openedAt = options.openedAt;
  }

  /** Turns run by this process. */
  get turns(): number {
    return this.#turns;
  }

  /** The tools the session may call this turn. */
  get tools(): ToolIndex {
    return this.#tools;
  }

  /** The outcomes of the current turn's calls so far, by `tool_use` id. */
  get outcomes(): ReadonlyMap<string, StoredOutcome> {
    return this.#outcomes;
  }

  /** Whether plan mode is on (resource tools left out). */
  get planMode(): boolean {
    return this.#tools.planMode;
  }

  /**
   * Turns plan mode on or off for the next turns.
   *
   * @param on Plan mode.
   */
  setPlanMode(on: boolean): void {
    if (on === this.#tools.planMode) return;
    this.#tools = new ToolIndex(
      this.#currentTools,
      this.#core.deps.tools ?? new Map(),
      on,
    );
  }

  /** Whether a `compactNow()` waits for an assembly. */
  get hasPendingCompaction(): boolean {
    return this.#forced.length > 0;
  }

  /**
   * Fails every waiting `compactNow()` (the session ended first).
   *
   * @param reason The error they get.
   */
  cancelCompactions(reason: Error): void {
    for (const d of this.#forced.splice(0)) d.reject(reason);
  }

  /**
   * Forces a compaction pass at the next assembly (a turn is running).
   *
   * @returns What that pass did.
   */
  requestCompaction(): Promise<CompactionOutcome> {
    const d = Promise.withResolvers<CompactionOutcome>();
    this.#forced.push(d);
    return d.promise;
  }

  /**
   * Runs a forced compaction pass now (the session is idle): the chain
   * assembles for the model the next turn would use, with the compactors
   * asked to compact whatever the fill.
   *
   * @param signal Cancels the pass (the history stays as it was).
   * @returns What the pass did.
   */
  async compact(signal: AbortSignal): Promise<CompactionOutcome> {
    const done = this.requestCompaction();
    const model = await this.#choose(false, signal);
    await this.#assemble(model, ulid(), signal);
    return done;
  }

  /**
   * Runs one turn under a `turn` span.
   *
   * @param final The final-answer turn (tools withheld).
   * @param signal Cancels the turn.
   * @param turnId The turn's id, when the caller chose it (a frontend's
   * `SubmitInput` returns it before the turn starts); a new ULID otherwise.
   * @returns Whether DoneCheck succeeded, and the message.
   */
  async run(
    final: boolean,
    signal: AbortSignal,
    turnId?: string,
  ): Promise<TurnOutcome> {
    const spans = this.#core.spans;
    if (!spans.tracer.enabled) return this.#turn(final, signal, turnId);
    const span = spans.tracer.startSpan("turn", {
      "session.id": this.#core.sessionId,
      "turn.number": this.priorTurns + this.#turns + 1,
      "turn.final": final,
    }, spans.session);
    spans.turn = span;
    try {
      const out = await this.#turn(final, signal, turnId);
      span.setAttribute("turn.done", out.done);
      span.end({ code: "ok" });
      return out;
    } catch (err) {
      endSpanWithError(span, err, isCancellation(err, signal));
      throw err;
    } finally {
      spans.turn = undefined;
    }
  }

  async #turn(
    final: boolean,
    signal: AbortSignal,
    presetId: string | undefined,
  ): Promise<TurnOutcome> {
    const core = this.#core;
    const turnId = presetId ?? ulid();
    this.#turns++;
    this.#outcomes = new Map();
    if (!final && core.spec.dynamicTools.size) {
      await this.#refreshTools(signal);
      // A tool-list change of this re-list reaches this round's request.
      if (core.control?.pending) {
        appendControlBlocks(core.history, await core.control.drain({ turnId }));
      }
    }
    const model = await this.#chooseModel(final, turnId, signal);
    const assembled = await this.#assemble(model, turnId, signal, true);
    if (
      core.control && !final && assembled.recalled?.length &&
      core.control.firstThisTurn("memory-recall")
    ) {
      // The turn's auto-recall rides beside this round's prompt.
      postMemoryRecall(
        core.control,
        assembled.recalled,
        (core.deps.now ?? Date.now)(),
      );
      const blocks = await core.control.drain({
        turnId,
        only: "memory-recall",
      });
      appendControlBlocks(core.history, blocks);
      if (assembled.messages !== core.history) {
        appendControlBlocks(assembled.messages, blocks);
      }
    }
    const messages = await this.#preModelCall(
      assembled.messages,
      model.choice,
      signal,
    );
    const generation = core.spec.generation;
    const request = create(StreamCompletionRequestSchema, {
      messages,
      modelId: model.choice.model.id,
      tools: model.declarations,
      ...(hasGeneration(generation)
        ? { params: generationParams(generation) }
        : {}),
      assembledContext: assembled.sections,
      callContext: {
        sessionId: core.sessionId,
        turnId,
        workingDirectory: core.spec.workingDirectory,
      },
    });
    let response: ModelResponse;
    // The write of the assistant message, when it was deferred.
    let stored: Promise<void> | undefined;
    try {
      ({ response, stored } = await this.#callModel(
        request,
        model,
        turnId,
        signal,
        assembled.streaming,
        assembled.countOnSend,
      ));
    } finally {
      // A count that overlapped the call reports the fill now, before the
      // response is acted on (a band crossing still reaches this round).
      assembled.streaming?.();
      await assembled.usage?.catch(() => {});
    }
    const message = response.message;

    // Step 5: post-model-response (after the message is persisted; it has
    // no subscriber when the write was deferred).
    await core.dispatchQuiet(
      "post-model-response",
      create(HookPayloadSchema, {
        payload: {
          case: "postModelResponse",
          value: {
            message,
            model: producerRefOfIdentity(response.endpoint.identity),
            usage: response.usage,
            costUsd: response.costUsd,
          },
        },
      }),
      signal,
    );
    core.history.push(message);

    // Step 6: no tool use → DoneCheck.
    const uses = message.content.flatMap((b) =>
      b.block.case === "toolUse" ? [b.block.value] : []
    );
    if (uses.length === 0) return { done: true, message };
    if (final) {
      // Tools were withheld; answer any stray tool use so the history stays
      // well-formed, and end.
      const stray = new Map<string, StoredOutcome>(uses.map((u) => [u.id, {
        error: toolError(
          ToolErrorCategory.INVALID_ARGUMENTS,
          "Tools are not available in the final-answer turn.",
        ),
      }]));
      core.history.push(toolResultsMessage(message, stray)!);
      return { done: false, message };
    }

    const t: ToolTurn = {
      turnId,
      signal,
      outcomes: this.#outcomes,
      ...(stored ? { messageStored: stored } : {}),
    };
    const done = await this.#dispatcher.run(
      t,
      this.#tools,
      uses,
      response.invalidArguments,
    );
    await stored;
    // Step 15: the tool results, in tool_use order.
    core.history.push(toolResultsMessage(message, this.#outcomes)!);
    return t.written
      ? { done, message, written: t.written }
      : { done, message };
  }

  /**
   * Chooses the turn's model for what the turn needs, and announces the
   * turn (`turn_started`) with its context budget.
   */
  async #chooseModel(
    final: boolean,
    turnId: string,
    signal: AbortSignal,
  ): Promise<TurnModel> {
    const model = await this.#choose(final, signal);
    const { choice, budgetTokens } = model;
    this.#core.emit({
      type: "turn_started",
      turn: this.priorTurns + this.#turns,
      turnId,
      model: { provider: choice.model.provider, id: choice.model.id },
      contextBudgetTokens: budgetTokens,
      final,
    });
    this.#core.spans.turn?.setAttributes({
      "turn.id": turnId,
      "model.provider": choice.model.provider,
      "model.id": choice.model.id,
    });
    return model;
  }

  /** The model a turn needs, and its context budget. */
  async #choose(final: boolean, signal: AbortSignal): Promise<TurnModel> {
    const spec = this.#core.spec;
    const declarations = final ? [] : this.#tools.declarations();
    const generation = spec.generation;
    const requirements = {
      toolUse: declarations.length > 0,
      vision: historyHasImages(this.#core.history),
      thinking: generation.thinkingEffort !== undefined ||
        (generation.thinkingBudgetTokens ?? 0) > 0,
      generation,
    };
    const choice = await this.#router.choose(requirements, 0, signal);
    const window = Number(choice.spec.contextWindow);
    const budgetTokens = window -
      (spec.context.reservedOutputTokens ??
        generation.maxOutputTokens ??
        Number(choice.spec.maxOutputTokens)) -
      (spec.context.systemOverheadTokens ?? 0);
    return { choice, requirements, declarations, budgetTokens };
  }

  /**
   * Step 1: context-assemble over the history and the model's budget.
   *
   * With `overlap`, and when nothing in the assembly reads the history's
   * count (no context chain, no forced compaction), the count is not
   * awaited: it runs while the model call goes out, and `usage` reports
   * the fill when it lands. A provider's `CountTokens` can be a network
   * round trip (anthropic's `count_tokens`); it is then off the turn's
   * critical path. `countOnSend` says when it starts: as soon as the
   * request is handed to the provider once a count for this model has
   * landed before, else once the answer streams.
   */
  async #assemble(
    model: TurnModel,
    turnId: string,
    signal: AbortSignal,
    overlap = false,
  ): Promise<
    ContextAssembly & {
      usage?: Promise<void>;
      streaming?: () => void;
      countOnSend?: boolean;
    }
  > {
    const core = this.#core;
    const spec = core.spec;
    const { choice } = model;
    const assembler = core.deps.contextAssembler ?? passThroughAssembler;
    const forced = this.#forced;
    this.#forced = [];
    const target = { provider: choice.model.provider, id: choice.model.id };
    const countHistory = (messages: readonly Message[]) =>
      this.#historyTokens.count(core.deps.models, {
        provider: target.provider,
        modelId: target.id,
        messages,
      }, signal);
    const overlapping = overlap && assembler === passThroughAssembler &&
      forced.length === 0;
    const counting = overlapping ? undefined : countHistory(core.history);
    // What every assembly of this round is told besides the history.
    const request = {
      budgetTokens: model.budgetTokens,
      model: {
        provider: choice.model.provider,
        id: choice.model.id,
        contextWindow: Number(choice.spec.contextWindow),
      },
      sections: preambleSections(spec.systemPrompt, spec.preamble),
      sessionId: core.sessionId,
      turnId,
      workingDirectory: spec.workingDirectory,
      filesTouched: [...core.filesTouched],
      signal,
    };
    if (overlapping) {
      const assembled = await assembler.assemble({
        history: core.history,
        ...request,
      });
      // The first count of a model starts once the model's answer streams
      // (or the call has ended): a provider that counts in its own process
      // (openai's tokenizer, whose first count loads its tables) would
      // otherwise handle the count before the request and hold the request
      // back. Later counts (only the messages new since the last one) start
      // as soon as the request is handed over, behind it on the same
      // connection: a count that is a network round trip (anthropic's) then
      // runs beside the request instead of after the answer's first event,
      // and is back by the time a short answer has been read.
      const key = `${target.provider}\u0000${target.id}`;
      const countOnSend = this.#counted.has(key);
      const history = [...core.history];
      const streaming = Promise.withResolvers<void>();
      const usage = streaming.promise.then(() => countHistory(history)).then(
        (before) => {
          this.#counted.add(key);
          this.#band = reportUsage(core, {
            turnId,
            used: before.count +
              assembled.sections.reduce((n, s) => n + sectionTokens(s), 0),
            window: Number(choice.spec.contextWindow),
            exact: before.exact,
            last: this.#band,
          });
        },
      );
      // Settled after the call; a turn that fails first must not leave it
      // unhandled (a rejection here is only a cancelled count).
      usage.catch(() => {});
      this.#emitAssembled(assembled, turnId);
      return {
        ...assembled,
        usage,
        streaming: () => streaming.resolve(),
        countOnSend,
      };
    }
    const before = await counting!.catch((err) => {
      for (const d of forced) d.reject(err);
      throw err;
    });
    const compactors = assembler.compactors ?? [];
    if (forced.length && compactors.length) {
      core.control?.post({ channel: "compaction-start", attrs: {} });
    }
    let assembled: ContextAssembly;
    try {
      assembled = await assembler.assemble({
        history: core.history,
        historyTokens: before.count,
        ...(forced.length ? { forceCompaction: true } : {}),
        ...request,
      });
    } catch (err) {
      for (const d of forced) d.reject(err);
      throw err;
    }
    let historyTokens = before.count;
    let outcome: CompactionOutcome = {
      compacted: false,
      tokensBefore: before.count,
      tokensAfter: before.count,
      exact: before.exact,
      reason: assembled.compactionFailure ??
        (compactors.length
          ? "the compactor found nothing older than the kept turns to summarize"
          : NO_COMPACTOR_REASON),
    };
    if (assembled.rewrittenBy !== undefined) {
      const after = await this.#historyTokens.count(core.deps.models, {
        provider: target.provider,
        modelId: target.id,
        messages: assembled.messages,
      }, signal);
      outcome = await recordCompaction(core, {
        provider: assembled.rewrittenBy,
        turnId,
        messages: assembled.messages,
        before,
        after,
        announce: forced.length === 0,
      });
      historyTokens = after.count;
    }
    for (const d of forced) d.resolve(outcome);
    const used = historyTokens +
      assembled.sections.reduce((n, s) => n + sectionTokens(s), 0);
    this.#band = reportUsage(core, {
      turnId,
      used,
      window: Number(choice.spec.contextWindow),
      exact: before.exact,
      last: this.#band,
    });
    this.#emitAssembled(assembled, turnId);
    return assembled;
  }

  #emitAssembled(assembled: ContextAssembly, turnId: string): void {
    if (!assembled.sections.length) return;
    const sections = assembled.sections.map((s) => ({
      provider: s.provider,
      label: s.label,
      tokens: sectionTokens(s),
    }));
    this.#core.emit({
      type: "context_assembled",
      turnId,
      sections,
      tokens: sections.reduce((n, s) => n + s.tokens, 0),
    });
  }

  /** Step 2: pre-model-call (transforms rewrite this request only). */
  async #preModelCall(
    messages: Message[],
    choice: ModelChoice,
    signal: AbortSignal,
  ): Promise<Message[]> {
    const hooks = this.#core.hooks;
    if (!hooks.has("pre-model-call")) return messages;
    const out = await hooks.dispatch(
      "pre-model-call",
      create(HookPayloadSchema, {
        payload: {
          case: "preModelCall",
          value: {
            messages,
            model: { provider: choice.model.provider, id: choice.model.id },
          },
        },
      }),
      signal,
    );
    if (out.payload.payload.case === "preModelCall") {
      return out.payload.payload.value.messages;
    }
    return messages;
  }

  /**
   * Steps 3–4: the model call, then the message and its cost; `stored` is
   * the message's write when it was deferred (see `#canDefer`).
   */
  async #callModel(
    request: StreamCompletionRequest,
    model: TurnModel,
    turnId: string,
    signal: AbortSignal,
    onStreaming?: () => void,
    onSent = false,
  ): Promise<{ response: ModelResponse; stored?: Promise<void> }> {
    const core = this.#core;
    const { choice } = model;
    const b = core.spec.bounds;
    const modelSpan = core.spans.tracer.startSpan("model.call", {
      "model.provider": choice.model.provider,
      "model.id": choice.model.id,
      "model.tools": model.declarations.length,
    }, core.spans.turn);
    const fail = (err: unknown): never => {
      endSpanWithError(modelSpan, err, isCancellation(err, signal));
      throw err;
    };
    // The stripped agent→system blocks never reach the live text either.
    const live = core.control ? new LiveTagFilter() : undefined;
    const response = await this.#router.complete({
      request,
      choice,
      requirements: model.requirements,
      signal,
      ...(b.maxWallClockS !== undefined
        ? { deadlineMs: this.#openedAt + b.maxWallClockS * 1000 }
        : {}),
      ...traceHeaders(modelSpan),
    }, {
      ...(onStreaming
        ? onSent ? { onSent: onStreaming } : { onEvent: onStreaming }
        : {}),
      onTextDelta: live
        ? (text) => {
          const shown = live.push(text);
          if (shown) core.emit({ type: "text_delta", turnId, text: shown });
        }
        : (text) => core.emit({ type: "text_delta", turnId, text }),
      onThinkingDelta: (text) =>
        core.emit({ type: "thinking_delta", turnId, text }),
      onRetry: (r) => {
        live?.reset();
        core.emit({
          type: "model_retry",
          turnId,
          provider: r.model.provider,
          modelId: r.model.id,
          category: r.category,
          attempt: r.attempt,
          delayMs: r.delayMs,
          ...(r.fallback
            ? { fallback: { provider: r.fallback.provider, id: r.fallback.id } }
            : {}),
        });
      },
    }).catch(fail);
    const rest = live?.flush();
    if (rest) core.emit({ type: "text_delta", turnId, text: rest });
    const { stored } = await core.recordAssistant(
      response.message,
      {
        usage: response.usage,
        costUsd: response.costUsd,
        model: response.model,
        identity: response.endpoint.identity,
      },
      turnId,
      stopReasonText(response.stopReason),
      this.#canDefer(response.message),
    ).catch(fail);
    endModelSpan(modelSpan, response);
    return stored ? { response, stored } : { response };
  }

  /**
   * Whether an assistant message's write may wait for the turn's first
   * `tool_call` write, to be committed with it in one transaction: every
   * `tool_use` names a tool in scope (each then gets its `tool_call` write
   * before anything else is emitted or run), and no `post-model-response`
   * or `pre-tool-call` subscriber could look at the session first. The
   * dispatcher awaits the message's write before any tool runs, so the
   * log, its order and what is durable before a tool runs do not change.
   */
  #canDefer(message: Message): boolean {
    const hooks = this.#core.hooks;
    if (hooks.has("post-model-response") || hooks.has("pre-tool-call")) {
      return false;
    }
    let uses = 0;
    for (const b of message.content) {
      if (b.block.case !== "toolUse") continue;
      const entry = this.#tools.lookup(b.block.value.name);
      if (!entry || entry.schema.kind === ToolKind.UNSPECIFIED) return false;
      uses++;
    }
    return uses > 0;
  }

  /**
   * Reads `GetSchema` again of the providers whose tools may change (an
   * MCP server's `tools/list_changed`) and rebuilds the tool index when
   * an answer differs. A provider that fails to answer keeps its last
   * schemas (logged).
   */
  async #refreshTools(signal: AbortSignal): Promise<void> {
    const spec = this.#core.spec;
    const endpoints = this.#core.deps.tools ?? new Map<string, ToolEndpoint>();
    let changed = false;
    const next = new Map(this.#currentTools);
    await Promise.all([...spec.dynamicTools].map(async ([provider, scope]) => {
      const endpoint = endpoints.get(provider);
      if (!endpoint) return;
      let schemas: ToolSchema[];
      try {
        schemas = await endpoint.schemas({ signal, timeoutMs: 5_000 });
      } catch (err) {
        log.warn(
          "Cannot refresh the tools of {provider}: {error}; keeping the last list",
          {
            provider,
            error: err instanceof Error ? err.message : String(err),
          },
        );
        return;
      }
      const scoped = (scope.all
        ? schemas
        : schemas.filter((s) =>
          scope.names.includes(s.name)
        ))
        .filter((s) => !scope.exclude?.includes(s.name));
      const before = next.get(provider) ?? [];
      const same = before.length === scoped.length &&
        before.every((s, i) => equals(ToolSchemaSchema, s, scoped[i]!));
      if (!same) {
        next.set(provider, scoped);
        changed = true;
        if (this.#core.control) {
          postToolsChanged(
            this.#core.control,
            provider,
            before.map((s) => s.name),
            scoped.map((s) => s.name),
          );
        }
      }
    }));
    if (!changed) return;
    this.#currentTools = next;
    this.#tools = new ToolIndex(next, endpoints, this.#tools.planMode);
    this.#core.emit({
      type: "warning",
      code: "tools_changed",
      message: `The tools changed: ${
        this.#tools.entries.map((e) => `${e.provider}.${e.schema.name}`)
          .join(", ") || "(none)"
      }`,
    });
  }
}

function hasGeneration(g: GenerationSettings): boolean {
  return g.thinkingEffort !== undefined ||
    g.thinkingBudgetTokens !== undefined || g.maxOutputTokens !== undefined ||
    g.temperature !== undefined || (g.stopSequences?.length ?? 0) > 0;
}

/** The request's `GenerationParams` (already checked against the model). */
function generationParams(
  g: GenerationSettings,
): MessageInitShape<typeof GenerationParamsSchema> {
  return {
    ...(g.thinkingEffort !== undefined
      ? { thinkingEffort: g.thinkingEffort }
      : {}),
    ...(g.thinkingBudgetTokens !== undefined
      ? { thinkingBudgetTokens: BigInt(g.thinkingBudgetTokens) }
      : {}),
    ...(g.maxOutputTokens !== undefined
      ? { maxOutputTokens: BigInt(g.maxOutputTokens) }
      : {}),
    ...(g.temperature !== undefined ? { temperature: g.temperature } : {}),
    stopSequences: [...(g.stopSequences ?? [])],
  };
}
