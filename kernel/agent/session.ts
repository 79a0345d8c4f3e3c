/**
 * The agent loop (kernel.md §6): {@linkcode AgentSession} runs one session
 * — `session-start`, then for each prompt the turns of `RunTurn` until
 * DoneCheck succeeds or a bound fires, then `session-end` — and
 * `run_session.ts` runs a session for one prompt as a stream of
 * {@linkcode SessionEvent}s with a final {@linkcode SessionResult}.
 *
 * This file owns the session's lifecycle (open or resume, send, close) and
 * the loop over turns; the parts of `RunTurn` each have a file of their own:
 *
 * 1. context-assemble (the `ContextAssembler`) over the history
 *    and the chosen model's budget — `turn.ts`;
 * 2. `pre-model-call` (transform may rewrite this request's messages only;
 *    plan mode and the final-answer turn withhold tool specs here);
 * 3. `StreamCompletion` with retries and fallback (text deltas are yielded
 *    live) — `model_call.ts`;
 * 4. the accumulated message is persisted (`message` + `cost_ledger`) —
 *    `session_log_writer.ts`;
 * 5. `post-model-response`;
 * 6. no `tool_use` → DoneCheck (implicit done);
 * 7. `pre-tool-call` per call in declaration order (veto-bearing) —
 *    `tool_dispatch.ts`;
 * 8. calls split by kind;
 * 9. data-source calls: policy precheck, then concurrently by key;
 *    9b. interactive calls: precheck, then one at a time;
 * 10. the plan from resource calls, with previews (5 s deadline) —
 *     `plan_gate.ts`;
 * 11. policy per item, then the `plan-ready` chain; the `plan` event;
 * 12. apply per concurrency key; an ask blocks only its own item;
 * 13. `post-tool-call` for every call in `tool_use` order;
 * 14. the `apply` event and `post-apply`;
 * 15. history += message + tool results in `tool_use` order;
 * 16. the doom-loop check; 17. the bounds check — `bounds.ts`;
 * 18. loop — DoneCheck (no tool use, or a successful `terminates_turn`
 *     call) first, then a fired bound: one more turn without tools and a
 *     synthetic instruction asking for the final answer, then the end.
 *
 * Crashed tool providers trip the `circuit_breaker.ts`; the spans are
 * `session_spans.ts`'s; the exit code of a result is `exit_codes.ts`'s.
 *
 * @module
 */
import { create, type JsonObject } from "@bufbuild/protobuf";
import { getLogger } from "@logtape/logtape";
import {
  type ContentBlock,
  type Message,
  MessageSchema,
  Role,
  ToolUseBlockSchema,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import {
  type HookPayload,
  HookPayloadSchema,
} from "../../proto/gen/pluggableharness/hook/v1/events_pb.ts";
import { SessionStatus } from "../../proto/gen/pluggableharness/session/v1/types_pb.ts";
import type { PluginIdentity } from "../../contract/plugin_identity.ts";
import { CostBudget } from "../../contract/cost.ts";
import type {
  DelegationMessage,
  LiveSession,
  SubagentLifecycle,
} from "../state/session_registry.ts";
import {
  SESSION_STATUS_TEXT,
  type SessionLog,
} from "../state/session_store.ts";
import { ulid } from "../state/ulid.ts";
import { ControlPlane } from "../control/control_plane.ts";
import { MalformedAgentStatusError } from "../control/errors.ts";
import { appendControlBlocks } from "../control/history.ts";
import { pluginControlMessage } from "../control/render.ts";
import type { MessageOrigin } from "../control/channels.ts";
import {
  controlSection,
  goalNudge,
  permissionContextBody,
  startControlSources,
  TURN_SUMMARY_REMINDER,
} from "../control/session_sources.ts";
import { EventQueue, sleep as defaultSleep } from "./_async.ts";
import { textBlock } from "./_proto.ts";
import type { SessionCore } from "./_session_core.ts";
import { type ToolEntry, ToolIndex } from "./_tool_index.ts";
import { missingResultError, type StoredOutcome } from "./history.ts";
import type { ToolEndpoint } from "./endpoints.ts";
import { Category } from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import type { ToolSchema } from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import type { AgentDeps } from "./agent_deps.ts";
import { ApprovalGate } from "./approval_gate.ts";
import { BOUND_STATUS, finalAnswerInstruction, firedBound } from "./bounds.ts";
import { DoomLoopDetector } from "./doom_loop.ts";
import type { ModelEndpoint } from "./endpoints.ts";
import {
  type ErrorInfo,
  errorInfo,
  HookChainAbortedError,
  isCancellation,
  SessionNotResumableError,
  TurnCancelledError,
} from "./errors.ts";
import { rebuildHistory, toolResultsMessage } from "./history.ts";
import { HookDispatcher, type HookFailure } from "./hook_dispatch.ts";
import { InteractiveGate } from "./interactive_gate.ts";
import { ModelRouter, StreamCancelledError } from "./model_call.ts";
import {
  type BoundName,
  hookErrorEventOf,
  messageEventOf,
  messageText,
  type SessionEvent,
  type SessionStatusText,
} from "./session_events.ts";
import { type ModelSpend, SessionLogWriter } from "./session_log_writer.ts";
import { SessionSpans } from "./session_spans.ts";
import {
  type HookPointName,
  type ModelChainEntry,
  type ResolvedSessionSpec,
  resolveSessionSpec,
  type SessionSpec,
} from "./session_spec.ts";
import { ToolDispatcher } from "./tool_dispatch.ts";
import { NOOP_TRACER } from "./tracing.ts";
import { TurnDriver } from "./turn.ts";
import type { CompactionOutcome } from "./compaction.ts";
import type {
  OpenSessionOptions,
  SendOptions,
  SendResult,
  SessionResult,
  SessionRun,
} from "./session_types.ts";

const log = getLogger(["ph-agent", "kernel", "agent"]);

/**
 * One agent session: open (or resume) it, send prompts, close it.
 *
 * @example Usage
 * ```ts ignore
 * import { AgentSession } from "@ph/agent/kernel";
 * await using session = await AgentSession.open(spec, deps, { approve });
 * const run = session.send("Rename foo to bar");
 * for await (const event of run) if (event.type === "text_delta") console.log(event.text);
 * console.log((await run.result).finalText);
 * ```
 */
export class AgentSession implements AsyncDisposable {
  /** The session's ULID. */
  readonly sessionId: string;
  /** Its profile. */
  readonly profile: string;
  /** True when an existing session was resumed. */
  readonly resumed: boolean;

  readonly #spec: ResolvedSessionSpec;
  readonly #log: SessionLog;
  readonly #history: Message[];
  readonly #gate: ApprovalGate;
  readonly #interactive: InteractiveGate;
  readonly #hooks: HookDispatcher;
  readonly #doom: DoomLoopDetector;
  readonly #budget: CostBudget;
  readonly #writer: SessionLogWriter;
  readonly #spans: SessionSpans;
  readonly #driver: TurnDriver;
  readonly #dispatcher: ToolDispatcher;
  readonly #now: () => number;
  readonly #openedAt: number;
  readonly #onEvent: ((event: SessionEvent) => void) | undefined;
  readonly #userProducer: ModelEndpoint;
  readonly #live: LiveSession | undefined;
  #unregister: () => void = () => {};
  readonly #control: ControlPlane | undefined;
  readonly #toolDurations = new Map<string, number>();
  #stopSources: () => void = () => {};
  #roundStatus: "done" | "continue" | undefined;
  /** Whether this turn's model wrote a `<cp:compact>` summary yet. */
  #turnSummarized = false;
  #goal: string | undefined;
  #goalState: "done" | "blocked" | undefined;
  #current: Promise<unknown> | undefined;
  /** Set by {@linkcode AgentSession.stopWaking}: no wake turn starts. */
  #noWake = false;
  /** An immediate `compactNow()` pass, while it runs. */
  #compacting: Promise<unknown> | undefined;
  #busy = false;
  /** A direct invocation (a slash command) is running. */
  #direct = false;
  /** Cancels the running prompt's or wake turn's turn. */
  #turn: AbortController | undefined;
  readonly #router: ModelRouter;
  #sink: EventQueue<SessionEvent> | undefined;
  #lastOutcome: SendResult["outcome"] | undefined;
  #lastFinal: Message | undefined;
  #bound: BoundName | undefined;
  #error: ErrorInfo | undefined;
  #ended: Promise<SessionResult> | undefined;

  private constructor(init: {
    spec: ResolvedSessionSpec;
    deps: AgentDeps;
    log: SessionLog;
    history: Message[];
    resumed: boolean;
    options: OpenSessionOptions;
    priorTurns: number;
    priorSpend: number;
    userProducer: ModelEndpoint;
    tools: ToolIndex;
  }) {
    const { deps, options } = init;
    const cp = init.spec.controlPlane;
    // The system-prompt section teaching the enabled channels.
    const spec = cp ? controlSection(init.spec) : init.spec;
    this.#spec = spec;
    this.#log = init.log;
    this.#writer = new SessionLogWriter(init.log);
    this.sessionId = init.log.sessionId;
    this.profile = spec.profile;
    this.resumed = init.resumed;
    this.#history = init.history;
    this.#now = deps.now ?? Date.now;
    this.#openedAt = this.#now();
    this.#onEvent = options.onEvent;
    this.#userProducer = init.userProducer;
    this.#budget = new CostBudget(spec.bounds.maxCostUsd, options.parentBudget);
    if (init.priorSpend > 0) this.#budget.debit(init.priorSpend);
    this.#doom = new DoomLoopDetector(spec.doomLoop);
    this.#control = cp
      ? new ControlPlane({
        log: init.log,
        disabled: cp.disable ?? [],
        now: this.#now,
        onMessage: (v) => this.#emit({ type: "control", ...v }),
        onDropped: (channel, source) =>
          this.#emit({
            type: "warning",
            code: "control_rate_limited",
            message:
              `Dropped a ${channel} control message from ${source}: it is over its rate limit`,
          }),
      })
      : undefined;
    const tracer = deps.tracer ?? NOOP_TRACER;
    const spans = new SessionSpans(tracer, {
      "session.id": this.sessionId,
      "session.profile": spec.profile,
      "session.resumed": init.resumed,
      "session.parent_id": options.parentSessionId,
      "session.depth": options.depth,
    }, options.parentSpan);
    this.#spans = spans;
    const grant = (identity: PluginIdentity) =>
      deps.registry?.grant(identity, this.sessionId) ?? (() => {});
    this.#gate = new ApprovalGate({
      sessionId: this.sessionId,
      profile: spec.profile,
      rules: spec.policies,
      onAsk: spec.onAsk,
      askTimeoutMs: spec.askTimeoutMs,
      ...(options.approve ? { approve: options.approve } : {}),
      ...(deps.persistAlwaysRule
        ? { persistAlwaysRule: deps.persistAlwaysRule }
        : {}),
      emit: (e) => this.#emit(e),
    });
    this.#interactive = new InteractiveGate({
      onAsk: spec.onAsk,
      askTimeoutMs: spec.askTimeoutMs,
      ...(options.answer ? { answer: options.answer } : {}),
      emit: (e) => this.#emit(e),
    });
    this.#hooks = new HookDispatcher({
      sessionId: this.sessionId,
      subscriptions: spec.hooks,
      endpoints: deps.hooks ?? new Map(),
      defaultTimeoutMs: spec.defaultHookTimeoutMs,
      onHookError: (f) => this.#recordHookError(f),
      grant,
      tracer,
      parentSpan: () => spans.hookParent(),
    });
    const router = new ModelRouter({
      chain: spec.models,
      endpoints: deps.models,
      retry: spec.retry,
      now: this.#now,
      sleep: deps.sleep ?? defaultSleep,
      random: deps.random ?? Math.random,
      grant,
    });
    this.#router = router;
    const core: SessionCore = {
      sessionId: this.sessionId,
      spec,
      deps,
      history: this.#history,
      filesTouched: new Set<string>(),
      writer: this.#writer,
      hooks: this.#hooks,
      spans,
      control: this.#control,
      toolDurations: this.#toolDurations,
      deadlineAt: spec.bounds.maxWallClockS !== undefined
        ? this.#openedAt + spec.bounds.maxWallClockS * 1000
        : undefined,
      emit: (e) => this.#emit(e),
      dispatchQuiet: (point, payload, signal) =>
        this.#dispatchQuiet(point, payload, signal),
      recordAssistant: (message, spend, turnId, stopReason, defer) =>
        this.#recordAssistant(message, spend, turnId, stopReason, defer),
    };
    this.#dispatcher = new ToolDispatcher(core, {
      gate: this.#gate,
      interactive: this.#interactive,
      doom: this.#doom,
    });
    this.#driver = new TurnDriver(core, {
      router,
      dispatcher: this.#dispatcher,
      tools: init.tools,
      priorTurns: init.priorTurns,
      openedAt: this.#openedAt,
    });
    if (deps.registry) {
      this.#live = {
        log: init.log,
        remainingDepth: options.remainingDepth ?? Infinity,
        remainingCostBudgetUsd: this.#budget.remainingUsd,
        profile: spec.profile,
        depth: options.depth ?? (options.parentSessionId ? 1 : 0),
        budget: this.#budget,
        resolveInteractive: (callId, response) =>
          this.#interactive.resolve(callId, response),
        participants: participantsOf(spec, deps),
        workingDirectory: spec.workingDirectory,
        isClosing: () => this.#ended !== undefined || this.#noWake,
        ...(this.#control
          ? {
            inject: (
              plugin: string,
              text: string,
              to?: {
                readonly channel: string;
                readonly attributes: Readonly<Record<string, string>>;
              },
            ) => {
              // Closing takes the wake handler away before the session
              // leaves the registry: a message posted now would answer
              // "queued" and never run.
              if (this.#ended || this.#noWake) {
                throw new TypeError(
                  `session ${this.sessionId} has ended; nothing was delivered`,
                );
              }
              return this.#control!.post(
                to ? pluginControlMessage(plugin, text, to) : {
                  channel: "plugin-inject",
                  attrs: { plugin },
                  body: text,
                  source: plugin,
                },
              );
            },
            deliver: (m: DelegationMessage) => this.#control!.post(m),
            onSubagent: (e: SubagentLifecycle) => {
              this.#control!.post({
                channel: "subagent",
                attrs: {
                  state: e.state,
                  id: e.id,
                  kind: e.kind,
                  ...(e.rounds !== undefined ? { rounds: e.rounds } : {}),
                  ...(e.error !== undefined ? { error: e.error } : {}),
                },
                body: e.finalText ?? "",
              });
            },
          }
          : {}),
      };
      this.#unregister = deps.registry.register(this.#live);
    }
    if (this.#control) {
      this.#control.setWakeHandler(() => this.#wake());
      this.#stopSources = startControlSources(this.#control, cp!, {
        sessionId: this.sessionId,
        ...(deps.bus ? { bus: deps.bus } : {}),
        ...(deps.every ? { every: deps.every } : {}),
        now: this.#now,
        profile: spec.profile,
      });
    }
  }

  /**
   * Opens a new session, or resumes one, and dispatches `session-start`.
   *
   * @param spec The session's inputs.
   * @param deps Store, plugins and effects.
   * @param options Resume, approver, event listener, parent.
   * @returns The open session.
   * @throws {TypeError} When a scoped tool provider or hook provider has no
   * endpoint, or no model provider of the chain is loaded.
   * @throws {SessionNotResumableError} When resuming a `failed` or `error_max_*` session.
   */
  static async open(
    spec: SessionSpec,
    deps: AgentDeps,
    options: OpenSessionOptions = {},
  ): Promise<AgentSession> {
    const resolved = resolveSessionSpec(spec);
    const tools = new ToolIndex(
      resolved.tools,
      deps.tools ?? new Map(),
      resolved.planMode,
    );
    for (const h of resolved.hooks) {
      if (!deps.hooks?.has(h.provider)) {
        throw new TypeError(
          `Cannot subscribe "${h.provider}" to "${h.point}": no hook endpoint is loaded for it`,
        );
      }
    }
    const userProducer = resolved.models
      .map((m) => deps.models.get(m.provider))
      .find((e) => e !== undefined);
    if (!userProducer) {
      throw new TypeError(
        `Cannot open a session of profile "${resolved.profile}": no model provider of its chain is loaded`,
      );
    }
    let sessionLog: SessionLog;
    let history: Message[] = [];
    let priorSpend = 0;
    if (options.resumeSessionId !== undefined) {
      sessionLog = await deps.store.open(options.resumeSessionId);
      try {
        const info = await sessionLog.info();
        if (
          info.status !== SessionStatus.RUNNING &&
          info.status !== SessionStatus.COMPLETED &&
          info.status !== SessionStatus.CANCELLED
        ) {
          throw new SessionNotResumableError(
            sessionLog.sessionId,
            SESSION_STATUS_TEXT[info.status],
          );
        }
        if (info.status !== SessionStatus.RUNNING) {
          await sessionLog.setStatus(SessionStatus.RUNNING);
        } else {
          log.warn(
            "Resuming session {sessionId}, which is still marked running (its process ended without closing it)",
            { sessionId: info.sessionId },
          );
        }
        history = await rebuildHistory(sessionLog);
        priorSpend = await sessionLog.costUsd();
      } catch (err) {
        await sessionLog.close();
        throw err;
      }
    } else {
      sessionLog = await deps.store.create({
        profile: resolved.profile,
        ...(options.parentSessionId !== undefined
          ? {
            parentSessionId: options.parentSessionId,
            depth: options.depth ?? 1,
          }
          : {}),
      });
    }
    const session = new AgentSession({
      spec: resolved,
      deps,
      log: sessionLog,
      history,
      resumed: options.resumeSessionId !== undefined,
      options,
      priorTurns: history.filter((m) => m.role === Role.ASSISTANT).length,
      priorSpend,
      userProducer,
      tools,
    });
    session.#emit({
      type: "session_started",
      sessionId: session.sessionId,
      profile: resolved.profile,
      resumed: session.resumed,
    });
    await session.#dispatchQuiet(
      "session-start",
      create(HookPayloadSchema, {
        payload: {
          case: "sessionStart",
          value: {
            sessionId: session.sessionId,
            profile: resolved.profile,
            workingDirectory: resolved.workingDirectory,
            ...(options.parentSessionId !== undefined
              ? { parentSessionId: options.parentSessionId }
              : {}),
          },
        },
      }),
      new AbortController().signal,
    );
    return session;
  }

  /** The durable history (what the next turn assembles from). */
  get history(): readonly Message[] {
    return this.#history;
  }

  /**
   * The session's control plane (seed 004), when its spec has one: post a
   * system→agent message to it; a wake channel on an idle session starts
   * a wake turn.
   */
  get control(): ControlPlane | undefined {
    return this.#control;
  }

  /**
   * Sets the session goal (`agent run --goal`): until the agent declares it
   * `done` or `blocked` with `<cp:goal-status>`, a finished turn is
   * followed by a nudge to go on, within the bounds.
   *
   * @param goal The goal, or `undefined` to disarm.
   */
  setGoal(goal: string | undefined): void {
    this.#goal = goal;
    this.#goalState = undefined;
  }

  /** How the agent declared the goal, once it did. */
  get goalState(): "done" | "blocked" | undefined {
    return this.#goalState;
  }

  /**
   * Resolves when no prompt or wake turn is running.
   *
   * @returns When the session is idle.
   */
  async idle(): Promise<void> {
    while (this.#current || this.#compacting) {
      await (this.#current ?? this.#compacting)!.catch(() => {});
    }
  }

  /**
   * Cancels the running prompt or wake turn as its signal would:
   * sub-agents spawned in it are cancelled with it, and the session stays
   * open for the next prompt.
   *
   * @param reason The abort reason.
   * @returns Whether a prompt or wake turn was running.
   */
  interrupt(reason?: unknown): boolean {
    const turn = this.#turn;
    turn?.abort(reason);
    return turn !== undefined;
  }

  /** True once the session has ended. */
  get ended(): boolean {
    return this.#ended !== undefined;
  }

  /** Dollars spent in this session (resumed spend included). */
  get costUsd(): number {
    return this.#budget.spentUsd;
  }

  /**
   * Answers a pending approval from outside (another frontend); the first
   * answer wins.
   *
   * @param planItemId The plan item.
   * @param answer Decision and scope.
   * @returns True when this answer was the first for a pending ask.
   */
  resolveApproval(
    planItemId: string,
    answer: {
      decision: "allow" | "deny";
      scope: "once" | "session" | "always";
    },
  ): boolean {
    return this.#gate.resolve(planItemId, answer);
  }

  /**
   * Marks the session headless (no frontend attached) or attended again:
   * while headless, pending and new asks — plan items and interactive
   * calls (`ask_user`) alike — settle at once as `on_ask` says for an ask
   * nobody can answer.
   *
   * @param on True when no frontend is attached.
   */
  setHeadless(on: boolean): void {
    this.#gate.setHeadless(on);
    this.#interactive.setHeadless(on);
  }

  /**
   * Answers a pending interactive call (`ask_user`) from outside the
   * `answer` callback; the first answer wins and becomes the call's result.
   *
   * @param callId The interactive call.
   * @param response The answer, e.g. `{ answer: "yes" }`.
   * @returns True when this answer was the first for a pending call.
   */
  resolveInteractive(callId: string, response: JsonObject): boolean {
    return this.#interactive.resolve(callId, response);
  }

  /** Whether plan mode is on: only read-only tools are offered. */
  get planMode(): boolean {
    return this.#driver.planMode;
  }

  /**
   * Turns plan mode on or off between prompts: off, the next prompt has
   * every tool of the profile again (a plan approved for execution).
   *
   * A slash command's kernel action (`/plan`) may switch it while its
   * direct invocation runs.
   *
   * @param on Plan mode.
   * @throws {TypeError} When the session has ended or a prompt is running.
   */
  setPlanMode(on: boolean): void {
    if (this.#ended || (this.#busy && !this.#direct)) {
      throw new TypeError(
        `Cannot switch plan mode of session "${this.sessionId}": ${
          this.#ended ? "it has ended" : "a prompt is still running"
        }`,
      );
    }
    this.#driver.setPlanMode(on);
  }

  /**
   * Compacts the history now (`/compact`, the library's `compactNow()`):
   * the compactor context providers are asked for a pass whatever the
   * fill. On an idle session the pass runs at once; while a prompt runs it
   * runs at that prompt's next model call. A compactor that fails leaves
   * the history unchanged (`compacted: false` with the reason).
   *
   * @param options A signal that cancels an immediate pass.
   * @returns What the pass did, with the history's tokens before and after.
   * @throws {TypeError} When the session has ended.
   */
  async compactNow(
    options: { signal?: AbortSignal } = {},
  ): Promise<CompactionOutcome> {
    if (this.#ended) {
      throw new TypeError(
        `Cannot compact session "${this.sessionId}": it has ended`,
      );
    }
    // A slash command's kernel action (`/compact`) compacts at once: its
    // direct invocation holds the session, and no model call will come.
    const direct = this.#direct;
    if (this.#busy && !direct) return await this.#driver.requestCompaction();
    this.#busy = true;
    const run = this.#driver.compact(
      options.signal ?? new AbortController().signal,
    );
    if (!direct) this.#compacting = run;
    try {
      return await run;
    } finally {
      if (!direct) {
        this.#busy = false;
        this.#compacting = undefined;
      }
    }
  }

  /** The profile's model candidates, the current first choice first. */
  get models(): readonly ModelChainEntry[] {
    return this.#router.chain;
  }

  /**
   * Makes one of the profile's model candidates the first choice from the
   * next model call on (`/model ID`); the others stay fallbacks.
   *
   * @param model The candidate.
   * @throws {RangeError} When it is not a candidate of the profile.
   */
  selectModel(model: ModelChainEntry): void {
    const index = this.#router.chain.findIndex((m) =>
      m.provider === model.provider && m.id === model.id
    );
    if (index < 0) {
      throw new RangeError(
        `"${model.provider}/${model.id}" is not a model candidate of profile "${this.profile}"`,
      );
    }
    this.#router.prefer(index);
  }

  /**
   * The session's tool a `provider.tool` name names (an action node's
   * target), or `undefined` when it is not in scope.
   *
   * @param provider The provider's local name.
   * @param tool The tool's name.
   * @returns Its entry.
   */
  toolEntry(provider: string, tool: string): ToolEntry | undefined {
    return this.#driver.tools.lookup(`${provider}.${tool}`);
  }

  /**
   * Runs one call without a model turn (a slash command, an action node):
   * through the same identification, hooks, policy, plan/apply gate and
   * approvals as a model's tool call, recorded as `tool_call` and
   * `tool_result` events of `turnId`. The history the model sees is not
   * changed (no assistant message names the call).
   *
   * @param call The target (its provider, schema and endpoint) and arguments.
   * @param options The turn id and a signal.
   * @returns The call's outcome (for a cancelled resource call, the
   * `CANCELLED` error that says what it had done).
   * @throws {TypeError} When the session has ended or a prompt is running.
   */
  async invokeDirect(
    call: DirectCall,
    options: { turnId?: string; signal?: AbortSignal } = {},
  ): Promise<StoredOutcome> {
    if (this.#ended) {
      throw new TypeError(
        `Cannot invoke in session "${this.sessionId}": it has ended`,
      );
    }
    if (this.#busy) {
      throw new TypeError(
        `Cannot invoke in session "${this.sessionId}": a prompt is still running`,
      );
    }
    this.#busy = true;
    this.#direct = true;
    const done = (async () => {
      // Plan mode limits the model's tools; the operator's slash commands
      // (`/plan` itself) still run, through policy and the gate.
      const index = new ToolIndex(
        new Map([[call.provider, [call.schema]]]),
        new Map([[call.provider, call.endpoint]]),
        this.#driver.planMode &&
          call.producerCategory !== Category.SLASHCOMMAND,
        call.producerCategory,
      );
      const id = `direct_${ulid()}`;
      const t = {
        turnId: options.turnId ?? ulid(),
        signal: options.signal ?? new AbortController().signal,
        outcomes: new Map<string, StoredOutcome>(),
      };
      try {
        await this.#dispatcher.run(t, index, [
          create(ToolUseBlockSchema, {
            id,
            name: `${call.provider}.${call.schema.name}`,
            arguments: call.arguments,
          }),
        ], new Map());
      } catch (err) {
        // A cancelled resource call has recorded what it had done (§6.7
        // MUST 11): that is its outcome.
        const recorded = t.outcomes.get(id);
        if (recorded && err instanceof TurnCancelledError) return recorded;
        throw err;
      }
      return t.outcomes.get(id) ?? { error: missingResultError() };
    })();
    this.#current = done;
    try {
      return await done;
    } finally {
      this.#busy = false;
      this.#direct = false;
      this.#current = undefined;
      if (this.#control?.hasWakePending) this.#wake();
    }
  }

  /**
   * Sends a prompt and runs turns until DoneCheck succeeds, a bound fires,
   * an error ends the session, or the signal cancels the turn (the session
   * then stays open). Without a prompt, a resumed session continues from
   * its history when it ends with a user message.
   *
   * @param prompt The user's text.
   * @param options Signal and event buffering.
   * @returns The prompt's events and result.
   * @throws {TypeError} When the session has ended or a prompt is running.
   */
  send(
    prompt: string | undefined,
    options: SendOptions = {},
  ): SessionRun<SendResult> {
    return this.#start(prompt, options, false);
  }

  #start(
    prompt: string | undefined,
    options: SendOptions,
    wake: boolean,
  ): SessionRun<SendResult> {
    if (this.#ended) {
      throw new TypeError(
        `Cannot send to session "${this.sessionId}": it has ended`,
      );
    }
    if (this.#busy) {
      throw new TypeError(
        `Cannot send to session "${this.sessionId}": a prompt is still running`,
      );
    }
    if (!wake && prompt === undefined && this.#history.length === 0) {
      throw new TypeError(
        `Cannot continue session "${this.sessionId}" without a prompt: its history is empty`,
      );
    }
    this.#busy = true;
    const queue = new EventQueue<SessionEvent>();
    this.#sink = options.events === false ? undefined : queue;
    const result = this.#runPrompt(prompt, options, wake).finally(() => {
      this.#busy = false;
      this.#sink = undefined;
      this.#current = undefined;
      queue.close();
      if (this.#driver.hasPendingCompaction && !this.#ended) {
        // A compactNow() that came after the prompt's last model call.
        this.compactNow().catch(() => {}).finally(() => this.#wake());
        return;
      }
      // A wake channel that landed after the last drain.
      if (this.#control?.hasWakePending) this.#wake();
    });
    this.#current = result;
    return {
      result,
      [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator](),
    };
  }

  /**
   * Starts no more wake turns and takes no more injected messages (they
   * are refused, so a trigger goes to the stored session instead): the
   * first step of closing a session whose caller then waits for
   * {@linkcode AgentSession.idle} and closes it, so that a wake turn that
   * started before this runs to its end and none starts after.
   */
  stopWaking(): void {
    this.#noWake = true;
  }

  /**
   * Ends the session: persists the terminal status, then dispatches
   * `session-end` (the status is durable even if a hook hangs or the turn
   * was cancelled). Idempotent.
   *
   * @param status The status; by default `cancelled` when the last prompt
   * was cancelled, else `completed`.
   * @returns The result.
   */
  close(status?: "completed" | "cancelled"): Promise<SessionResult> {
    if (!this.#ended) {
      this.#driver.cancelCompactions(
        new TypeError(
          `Cannot compact session "${this.sessionId}": it has ended`,
        ),
      );
      this.#stopSources();
      this.#control?.setWakeHandler(undefined);
      const s = status === "cancelled" ||
          (status === undefined && this.#lastOutcome === "cancelled")
        ? SessionStatus.CANCELLED
        : SessionStatus.COMPLETED;
      this.#ended = this.#finish(s);
    }
    return this.#ended;
  }

  /** Closes the session. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  // -------------------------------------------------------------------------

  #emit(event: SessionEvent): void {
    try {
      this.#onEvent?.(event);
    } catch (err) {
      log.error("A session event listener failed: {error}", {
        error: err instanceof Error ? err.message : String(err),
      });
    }
    this.#sink?.push(event);
  }

  /** Starts a wake turn when the session is idle and its bounds allow. */
  #wake(): void {
    if (
      this.#busy || this.#ended || this.#noWake ||
      !this.#control?.hasWakePending
    ) return;
    const bound = this.#doom.fired ? "doom_loop" : this.#checkBounds();
    if (bound) {
      this.#emit({
        type: "warning",
        code: "wake_refused",
        message:
          `A control message did not wake session ${this.sessionId}: its ${bound} bound is exhausted`,
      });
      return;
    }
    this.#start(undefined, { events: false }, true).result.catch(() => {});
  }

  async #runPrompt(
    prompt: string | undefined,
    options: SendOptions,
    wake = false,
  ): Promise<SendResult> {
    const outer = options.signal;
    let turnId = options.turnId;
    const ac = new AbortController();
    const onAbort = () => ac.abort(outer!.reason);
    if (outer?.aborted) ac.abort(outer.reason);
    outer?.addEventListener("abort", onAbort, { once: true });
    this.#turn = ac;
    const signal = ac.signal;
    if (this.#live) this.#live.turnSignal = signal; // sub-agents cancel with it
    const turnsBefore = this.#driver.turns;
    let bound: BoundName | undefined;
    let finalTurn = false;
    let last: Message | undefined;
    const result = (
      outcome: SendResult["outcome"],
      error?: unknown,
    ): SendResult => {
      this.#lastOutcome = outcome;
      if (last) this.#lastFinal = last;
      return {
        outcome,
        ...(last ? { finalMessage: last } : {}),
        finalText: messageText(last),
        turns: this.#driver.turns - turnsBefore,
        ...(bound ? { boundFired: bound } : {}),
        ...(error !== undefined ? { error: errorInfo(error) } : {}),
      };
    };
    const control = this.#control;
    let firstRound = true;
    try {
      control?.newTurn();
      this.#turnSummarized = false;
      if (prompt !== undefined) {
        await this.#appendUser(prompt, "typed", options.extraContent);
      } else if (
        !wake && this.#history.at(-1)?.role === Role.ASSISTANT
      ) {
        return result("done");
      }
      if (control && !finalTurn) {
        control.post({
          channel: "permission-context",
          attrs: {},
          body: permissionContextBody(this.#spec.policies, this.#spec.onAsk),
          source: "policy",
        });
      }
      for (;;) {
        if (control) {
          if (this.#driver.planMode && !finalTurn) {
            control.post({
              channel: "plan-mode",
              attrs: {
                constraint: "read-only",
                round: this.#driver.priorTurns + this.#driver.turns + 1,
              },
              body:
                "Plan mode is on: only read-only tools are available; the user carries out the plan.",
            });
          }
          const blocks = await control.drain({ wake: wake && firstRound });
          if (wake && firstRound && blocks.length === 0) {
            return result("done"); // nothing left to act on
          }
          // Blocks that form a user message of their own (a wake turn, a
          // cascade) are stamped as a channel-origin message.
          const own = blocks.length > 0 &&
            this.#history.at(-1)?.role !== Role.USER;
          appendControlBlocks(this.#history, blocks);
          if (own) {
            const stamp = await control.stamp({ origin: "channel" });
            if (stamp) appendControlBlocks(this.#history, [stamp]);
          }
        }
        firstRound = false;
        this.#roundStatus = undefined;
        const turn = await this.#driver.run(finalTurn, signal, turnId);
        turnId = undefined;
        last = turn.message;
        this.#lastFinal = last;
        if (control) await this.#stampToolResults(turn.message, turn.written);
        else await turn.written;
        if (finalTurn) {
          await this.#end(BOUND_STATUS[bound!], undefined);
          return result("bound");
        }
        if (
          control && this.#spec.controlPlane?.turnSummaries &&
          !this.#turnSummarized
        ) {
          // Once per turn (its rate limit); as a cascade it continues a
          // turn that would end without the summary.
          control.post({
            channel: "turn-summary-missing",
            attrs: {},
            body: TURN_SUMMARY_REMINDER,
          });
        }
        let done = turn.done;
        let nudge: string | undefined;
        if (this.#roundStatus === "done") done = true;
        else if (this.#roundStatus === "continue" && done) {
          done = false;
          nudge = "Continue.";
        }
        // Cascade: a wake channel (or the turn-summary reminder) that
        // landed after this round's drain continues the turn; an
        // informational one (context-usage, compaction, …) waits for the
        // next round, so it never costs a model round of its own.
        if (done && control?.hasContinuationPending) done = false;
        if (
          done && this.#goal !== undefined && this.#goalState === undefined
        ) {
          done = false;
          nudge = goalNudge(this.#goal);
        }
        if (done) return result("done");
        // Step 16, then step 17: each fires the same graceful path.
        bound = this.#doom.fired ? "doom_loop" : this.#checkBounds();
        if (bound) {
          this.#bound = bound;
          log.info(
            "Session {sessionId}: {bound} fired; running the final-answer turn",
            {
              sessionId: this.sessionId,
              bound,
            },
          );
          this.#emit({ type: "bound_fired", bound });
          await this.#appendUser(finalAnswerInstruction(bound), "nudge");
          finalTurn = true;
        } else if (nudge !== undefined && !control?.pending) {
          await this.#appendUser(nudge, "nudge");
        }
      }
    } catch (err) {
      if (isCancellation(err, signal)) {
        await this.#afterCancel(err);
        return result("cancelled");
      }
      log.error("Session {sessionId} failed: {error}", {
        sessionId: this.sessionId,
        error: err instanceof Error ? err.message : String(err),
      });
      if (finalTurn && bound) {
        this.#error = errorInfo(err);
        await this.#end(BOUND_STATUS[bound], err);
        return result("bound", err);
      }
      await this.#end(SessionStatus.FAILED, err);
      return result("failed", err);
    } finally {
      outer?.removeEventListener("abort", onAbort);
      if (this.#turn === ac) this.#turn = undefined;
    }
  }

  /** Ends the session from inside a prompt (bound fired or failure). */
  async #end(status: SessionStatus, err: unknown): Promise<void> {
    if (err !== undefined) this.#error = errorInfo(err);
    this.#ended ??= this.#finish(status);
    await this.#ended;
  }

  #checkBounds(): BoundName | undefined {
    return firedBound(this.#spec.bounds, {
      turns: this.#driver.priorTurns + this.#driver.turns,
      budget: this.#budget,
      elapsedMs: this.#now() - this.#openedAt,
    });
  }

  async #afterCancel(err: unknown): Promise<void> {
    if (err instanceof StreamCancelledError) {
      const p = err.partial;
      if (p.content.length > 0 || p.costUsd > 0) {
        const message = create(MessageSchema, {
          role: Role.ASSISTANT,
          content: p.content,
          id: ulid(),
          producedByModelId: p.model.id,
          producedByProvider: p.model.provider,
        });
        try {
          await this.#recordAssistant(message, {
            usage: p.usage,
            costUsd: p.costUsd,
            model: p.model,
            identity: p.identity,
          });
          this.#history.push(message);
        } catch (e) {
          log.error("Cannot persist the partial message: {error}", {
            error: e instanceof Error ? e.message : String(e),
          });
        }
      }
    }
    // Keep the history well-formed: answer any unanswered tool use.
    const tail = this.#history.at(-1);
    if (tail?.role === Role.ASSISTANT) {
      const results = toolResultsMessage(tail, this.#driver.outcomes);
      if (results) this.#history.push(results);
    }
  }

  async #appendUser(
    text: string,
    origin: MessageOrigin,
    extra: readonly ContentBlock[] = [],
  ): Promise<void> {
    const message = create(MessageSchema, {
      role: Role.USER,
      content: [textBlock(text), ...extra],
      id: ulid(),
    });
    await this.#writer.userMessage(message, this.#userProducer.identity);
    this.#history.push(message);
    this.#emit(messageEventOf(message));
    const stamp = await this.#control?.stamp({ origin });
    if (stamp) appendControlBlocks(this.#history, [stamp]);
  }

  /** `time` on each tool result of a round, in `tool_use` order. */
  async #stampToolResults(
    message: Message,
    written?: Promise<void>,
  ): Promise<void> {
    const control = this.#control!;
    const blocks: string[] = [];
    // A tool result left to commit with the stamps (TurnOutcome.written).
    const writes: Promise<void>[] = written ? [written] : [];
    for (const b of message.content) {
      if (b.block.case !== "toolUse") continue;
      const ms = this.#toolDurations.get(b.block.value.id);
      this.#toolDurations.delete(b.block.value.id);
      const stamp = control.stampNow(
        ms !== undefined ? { duration_ms: ms } : {},
      );
      if (!stamp) continue;
      blocks.push(stamp.rendered);
      writes.push(stamp.written);
    }
    // One round's stamps reach the store together, not one write each.
    await Promise.all(writes);
    if (this.#history.at(-1)?.role === Role.USER) {
      appendControlBlocks(this.#history, blocks);
    }
  }

  /**
   * Parses the agent→system blocks of an assistant message, strips the
   * stripped channels from it (in place, before it is stored), and keeps
   * the round's `agent-status` and the goal's `goal-status`.
   *
   * @throws {MalformedAgentStatusError} When the first `agent-status` is malformed.
   */
  async #consumeControl(message: Message, turnId?: string): Promise<void> {
    const control = this.#control!;
    let status: "done" | "continue" | undefined;
    let bad: MalformedAgentStatusError | undefined;
    const content = [];
    for (const b of message.content) {
      if (b.block.case !== "text" || !b.block.value.text.includes("<cp:")) {
        content.push(b);
        continue;
      }
      const out = await control.consume(b.block.value.text, turnId);
      if (status === undefined && bad === undefined && out.status) {
        if (typeof out.status === "string") status = out.status;
        else {bad = new MalformedAgentStatusError(
            out.status.raw,
            out.status.reason,
          );}
      }
      if (out.tags.some((t) => t.channel === "compact")) {
        this.#turnSummarized = true;
      }
      if (out.goal && this.#goal !== undefined && !this.#goalState) {
        this.#goalState = out.goal.state;
      }
      for (const m of out.malformed) {
        if (m.channel === "agent-status" && bad?.raw === m.raw) continue;
        this.#emit({
          type: "warning",
          code: "control_malformed",
          message: `Ignored a malformed <cp:${m.channel}> block: ${m.reason}`,
        });
      }
      if (out.text !== b.block.value.text) {
        if (out.text) content.push(textBlock(out.text));
      } else content.push(b);
    }
    message.content = content;
    this.#roundStatus = status;
    if (bad) throw bad;
  }

  /**
   * Persists an assistant message with its cost, debits the budget once,
   * and emits the `message` event.
   */
  async #recordAssistant(
    message: Message,
    r: ModelSpend,
    turnId?: string,
    stopReason?: string,
    defer = false,
  ): Promise<{ stored?: Promise<void> }> {
    let malformed: unknown;
    if (this.#control) {
      try {
        await this.#consumeControl(message, turnId);
      } catch (err) {
        malformed = err; // stored first, then the hard stop
      }
    }
    const later = defer && malformed === undefined;
    const written = this.#writer.assistantMessage(message, r, later);
    if (!later) await written;
    // Debit once per model call, in memory (never re-summed from storage).
    this.#budget.debit(r.costUsd);
    if (this.#live) {
      this.#live.remainingCostBudgetUsd = this.#budget.remainingUsd;
    }
    const announce = () =>
      this.#emit(messageEventOf(message, {
        ...(turnId !== undefined ? { turnId } : {}),
        model: { provider: r.model.provider, id: r.model.id },
        usage: r.usage,
        costUsd: r.costUsd,
        ...(stopReason !== undefined ? { stopReason } : {}),
      }));
    if (later) {
      // Announced once stored, as before; the turn awaits it before any
      // tool runs.
      const stored = written.then(announce);
      stored.catch(() => {});
      return { stored };
    }
    announce();
    if (malformed !== undefined) throw malformed;
    return {};
  }

  async #recordHookError(f: HookFailure): Promise<void> {
    this.#emit(hookErrorEventOf(f.error, f.subscription.provider));
    await this.#writer.hookError(f);
  }

  /** Dispatches a point whose chain cannot deny; an aborted chain is logged. */
  async #dispatchQuiet(
    point: HookPointName,
    payload: HookPayload,
    signal: AbortSignal,
  ): Promise<void> {
    if (!this.#hooks.has(point)) return;
    try {
      await this.#hooks.dispatch(point, payload, signal);
    } catch (err) {
      if (err instanceof HookChainAbortedError) return; // already recorded
      if (
        (point === "session-start" || point === "session-end") &&
        !(err instanceof TurnCancelledError)
      ) {
        log.error("The {point} chain failed: {error}", {
          point,
          error: err instanceof Error ? err.message : String(err),
        });
        return;
      }
      throw err;
    }
  }

  // ------------------------------------------------------------------- end

  async #finish(status: SessionStatus): Promise<SessionResult> {
    try {
      await this.#log.setStatus(status);
    } catch (err) {
      log.error("Cannot record the status of session {sessionId}: {error}", {
        sessionId: this.sessionId,
        error: err instanceof Error ? err.message : String(err),
      });
    }
    await this.#dispatchQuiet(
      "session-end",
      create(HookPayloadSchema, {
        payload: {
          case: "sessionEnd",
          value: { sessionId: this.sessionId, status },
        },
      }),
      new AbortController().signal,
    );
    let total = this.#budget.spentUsd;
    try {
      total = await this.#log.costUsd();
    } catch {
      // keep the in-memory figure
    }
    this.#unregister();
    this.#spans.endSession(status, {
      turns: this.#driver.turns,
      costUsd: this.#budget.spentUsd,
      bound: this.#bound,
      error: this.#error,
    });
    await this.#log.close();
    const result: SessionResult = {
      sessionId: this.sessionId,
      profile: this.profile,
      status: SESSION_STATUS_TEXT[status] as SessionStatusText,
      ...(this.#lastFinal ? { finalMessage: this.#lastFinal } : {}),
      finalText: messageText(this.#lastFinal),
      totalCostUsd: total,
      turns: this.#driver.turns,
      ...(this.#bound ? { boundFired: this.#bound } : {}),
      ...(this.#error ? { error: this.#error } : {}),
      ...(this.#dispatcher.crashedProviders.size
        ? { crashedProviders: [...this.#dispatcher.crashedProviders] }
        : {}),
    };
    this.#emit({
      type: "session_ended",
      sessionId: this.sessionId,
      status: result.status,
      finalText: result.finalText,
      totalCostUsd: total,
      ...(result.boundFired ? { boundFired: result.boundFired } : {}),
      ...(result.error ? { error: result.error } : {}),
      ...(result.crashedProviders
        ? { crashedProviders: result.crashedProviders }
        : {}),
    });
    return result;
  }
}

/** The plugins serving a session's profile: its models, tools and hooks. */
function participantsOf(
  spec: ResolvedSessionSpec,
  deps: AgentDeps,
): PluginIdentity[] {
  const out: PluginIdentity[] = [];
  const add = (identity: PluginIdentity | undefined) => {
    if (identity) out.push(identity);
  };
  for (const m of spec.models) add(deps.models.get(m.provider)?.identity);
  for (const name of [...spec.tools.keys(), ...spec.dynamicTools.keys()]) {
    add(deps.tools?.get(name)?.identity);
  }
  for (const h of spec.hooks) add(deps.hooks?.get(h.provider)?.identity);
  return out;
}

/** A call {@linkcode AgentSession.invokeDirect} runs. */
export interface DirectCall {
  /** The provider's local name. */
  readonly provider: string;
  /** The operation's schema (kind, risk, input schema). */
  readonly schema: ToolSchema;
  /** Where the call goes. */
  readonly endpoint: ToolEndpoint;
  /** The call's arguments. */
  readonly arguments: JsonObject;
  /** The plan item's producer category when not a tool's. */
  readonly producerCategory?: Category;
}
