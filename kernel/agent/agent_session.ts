/**
 * The agent loop (kernel.md §6): {@linkcode AgentSession} runs one session
 * — `session-start`, then for each prompt the turns of `RunTurn` until
 * DoneCheck succeeds or a bound fires, then `session-end` — and
 * {@linkcode runSession} runs a session for one prompt as a stream of
 * {@linkcode SessionEvent}s with a final {@linkcode SessionResult}.
 *
 * `RunTurn`, in order, for every turn:
 *
 * 1. context-assemble (the {@linkcode ContextAssembler}) over the history
 *    and the chosen model's budget;
 * 2. `pre-model-call` (transform may rewrite this request's messages only;
 *    plan mode and the final-answer turn withhold tool specs here);
 * 3. `StreamCompletion` with retries and fallback (text deltas are yielded
 *    live);
 * 4. the accumulated message is persisted (`message` + `cost_ledger`);
 * 5. `post-model-response`;
 * 6. no `tool_use` → DoneCheck (implicit done);
 * 7. `pre-tool-call` per call in declaration order (veto-bearing);
 * 8. calls split by kind;
 * 9. data-source calls: policy precheck, then concurrently by key;
 *    9b. interactive calls: precheck, then one at a time;
 * 10. the plan from resource calls, with previews (5 s deadline);
 * 11. policy per item, then the `plan-ready` chain; the `plan` event;
 * 12. apply per concurrency key; an ask blocks only its own item;
 * 13. `post-tool-call` for every call in `tool_use` order;
 * 14. the `apply` event and `post-apply`;
 * 15. history += message + tool results in `tool_use` order;
 * 16. the doom-loop check; 17. the bounds check;
 * 18. loop — DoneCheck (no tool use, or a successful `terminates_turn`
 *     call) first, then a fired bound: one more turn without tools and a
 *     synthetic instruction asking for the final answer, then the end.
 *
 * @module
 */
import {
  create,
  equals,
  type JsonObject,
  type MessageInitShape,
  toBinary,
} from "@bufbuild/protobuf";
import { getLogger } from "@logtape/logtape";
import { commandArgument, type PolicyCall } from "../../contract/policy.ts";
import { Category } from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import {
  type Message,
  MessageSchema,
  Role,
  type ToolUseBlock,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import {
  ApplyEventSchema,
  HookErrorEventSchema,
  MessageEventSchema,
  PlanEventSchema,
  ToolCallEventSchema,
  ToolResultEventSchema,
} from "../../proto/gen/pluggableharness/event/v1/events_pb.ts";
import {
  type HookPayload,
  HookPayloadSchema,
} from "../../proto/gen/pluggableharness/hook/v1/events_pb.ts";
import { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import { StreamCompletionRequestSchema } from "../../proto/gen/pluggableharness/model/v1/rpc_request_pb.ts";
import {
  type ToolDeclaration,
  ToolDeclarationSchema,
} from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import {
  type ApplyResult_ApplyItem,
  ApplyResult_ApplyItemSchema,
  ApplyResult_ApplyOutcome,
  ApplyResultSchema,
  PlanDecision,
  type PlanItem,
  PlanItemSchema,
  PlanSchema,
} from "../../proto/gen/pluggableharness/plan/v1/types_pb.ts";
import { SessionStatus } from "../../proto/gen/pluggableharness/session/v1/types_pb.ts";
import { ToolErrorCategory } from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import {
  type ToolCall,
  ToolCallSchema,
  ToolKind,
  type ToolSchema,
  ToolSchemaSchema,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { OutputStream } from "../../proto/gen/pluggableharness/tool/v1/events_pb.ts";
import { planItemEntriesOf } from "../state/_convert.ts";
import { PluginCrashedError } from "../plugin/errors.ts";
import type { PluginIdentity } from "../../contract/plugin_identity.ts";
import type {
  LiveSession,
  SessionRegistry,
} from "../state/session_registry.ts";
import {
  KERNEL_PRODUCER,
  SESSION_STATUS_TEXT,
  type SessionLog,
  type SessionStore,
} from "../state/session_store.ts";
import { ulid } from "../state/ulid.ts";
import {
  abortable,
  AbortedIteration,
  allSettledOrThrow,
  EventQueue,
  sleep as defaultSleep,
} from "./_async.ts";
import {
  denialError,
  durationMs,
  producerOf,
  producerRefOfIdentity,
  textBlock,
  toolError,
} from "./_proto.ts";
import {
  ApprovalGate,
  type Approver,
  type PersistAlwaysRule,
} from "./approval_gate.ts";
import { concurrencyKey, INTERACTIVE_LOCK, KeyedQueue } from "./concurrency.ts";
import { sectionTokens } from "./provider_context.ts";
import { schemaViolation } from "./schema_check.ts";
import type { GenerationSettings } from "../../config/model_routing.ts";
import type { GenerationParamsSchema } from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import type { Schema } from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import {
  type InteractiveAnswerer,
  InteractiveGate,
} from "./interactive_gate.ts";
import {
  type ContextAssembler,
  passThroughAssembler,
  preambleSections,
} from "./context_assembly.ts";
import { CostBudget } from "../../contract/cost.ts";
import { callHash, DoomLoopDetector, sortJsonKeys } from "./doom_loop.ts";
import type { HookEndpoint, ModelEndpoint, ToolEndpoint } from "./endpoints.ts";
import {
  AgentError,
  HookChainAbortedError,
  SessionNotResumableError,
  TurnCancelledError,
} from "./errors.ts";
import {
  rebuildHistory,
  type StoredOutcome,
  toolResultsMessage,
} from "./history.ts";
import { HookDispatcher, type HookFailure } from "./hook_dispatch.ts";
import {
  historyHasImages,
  type ModelResponse,
  ModelRouter,
  stopReasonText,
  StreamCancelledError,
} from "./model_call.ts";
import {
  applyEventOf,
  type BoundName,
  hookErrorEventOf,
  messageEventOf,
  messageText,
  planItemView,
  previewJson,
  riskText,
  type SessionEvent,
  type SessionStatusText,
  toolErrorText,
  toolErrorView,
  toolKindText,
} from "./session_events.ts";
import {
  type HookPointName,
  type ResolvedSessionSpec,
  resolveSessionSpec,
  type SessionSpec,
} from "./session_spec.ts";
import {
  endSpanWithError,
  type KernelSpan,
  type KernelTracer,
  NOOP_TRACER,
} from "./tracing.ts";

const log = getLogger(["ph-agent", "kernel", "agent"]);

/**
 * Consecutive crashed calls of one tool provider after which the session
 * stops calling it (plugins.md §6.2: repeated crashes trip a circuit
 * breaker).
 */
export const CIRCUIT_BREAKER_CRASHES = 3;

/** What the loop runs on: the store, the plugins, and injectable effects. */
export interface AgentDeps {
  /** Where the session is persisted. */
  readonly store: SessionStore;
  /** Model endpoints by provider local name. */
  readonly models: ReadonlyMap<string, ModelEndpoint>;
  /** Tool endpoints by provider local name. @default {none} */
  readonly tools?: ReadonlyMap<string, ToolEndpoint>;
  /** Hook endpoints by provider local name. @default {none} */
  readonly hooks?: ReadonlyMap<string, HookEndpoint>;
  /**
   * Live sessions and callback grants: the session is registered while it
   * runs, and every plugin holds a grant while it is invoked on its behalf.
   * @default {none (plugins cannot name the session on their callback channel)}
   */
  readonly registry?: SessionRegistry;
  /** Persists ALWAYS decisions; without it ALWAYS is refused. */
  readonly persistAlwaysRule?: PersistAlwaysRule;
  /** Step 1. @default {passThroughAssembler} */
  readonly contextAssembler?: ContextAssembler;
  /** The clock in epoch milliseconds. @default {Date.now} */
  readonly now?: () => number;
  /** Sleeps for retries. @default {an abortable setTimeout} */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Jitter source in [0, 1). @default {Math.random} */
  readonly random?: () => number;
  /** The kernel's own spans (session, turn, model call, tools, hooks). @default {NOOP_TRACER} */
  readonly tracer?: KernelTracer;
}

/** Options of {@linkcode AgentSession.open}. */
export interface OpenSessionOptions {
  /** Resume this session (completed, cancelled, or left running by a dead process). */
  readonly resumeSessionId?: string;
  /** Answers approvals interactively. */
  readonly approve?: Approver;
  /** Answers interactive calls (`ask_user`). */
  readonly answer?: InteractiveAnswerer;
  /** Receives every event of the session (all prompts). */
  readonly onEvent?: (event: SessionEvent) => void;
  /** The parent session (sub-agents; recorded in `session_meta`). */
  readonly parentSessionId?: string;
  /** The depth in the session tree. @default {0} */
  readonly depth?: number;
  /** The parent session's live cost budget (debited by this session's spend). */
  readonly parentBudget?: CostBudget;
  /** The span the `session` span nests under (a sub-agent's spawning call). */
  readonly parentSpan?: KernelSpan;
  /**
   * Sub-agent spawns still allowed below this session (what `GetSession`
   * and `RunSession` read). @default {Infinity}
   */
  readonly remainingDepth?: number;
}

/** Options of {@linkcode AgentSession.send}. */
export interface SendOptions {
  /** Cancels this prompt's turn (the session stays open). */
  readonly signal?: AbortSignal;
  /**
   * Buffer this prompt's events for iteration; set `false` when they are
   * consumed through {@linkcode OpenSessionOptions.onEvent}.
   * @default {true}
   */
  readonly events?: boolean;
}

/** An error as plain data. */
export interface ErrorInfo {
  /** The stable code (`rate_limited`, `approval_required`, …). */
  readonly code: string;
  /** The message. */
  readonly message: string;
}

/** How one prompt ended. */
export interface SendResult {
  /**
   * `done`: DoneCheck succeeded; `cancelled`: the signal aborted the turn;
   * `bound`: a bound or the doom loop fired (the session has ended);
   * `failed`: an error ended the session.
   */
  readonly outcome: "done" | "cancelled" | "bound" | "failed";
  /** The last assistant message of the prompt. */
  readonly finalMessage?: Message;
  /** Its text. */
  readonly finalText: string;
  /** Turns (model calls) this prompt took. */
  readonly turns: number;
  /** The bound that fired. */
  readonly boundFired?: BoundName;
  /** The error, when one ended the turn. */
  readonly error?: ErrorInfo;
}

/** How a session ended. */
export interface SessionResult {
  /** The session. */
  readonly sessionId: string;
  /** Its profile. */
  readonly profile: string;
  /** The terminal status. */
  readonly status: SessionStatusText;
  /** The last assistant message. */
  readonly finalMessage?: Message;
  /** Its text. */
  readonly finalText: string;
  /** The session's cost rollup (`SUM(cost_ledger.cost_usd)`), resumed spend included. */
  readonly totalCostUsd: number;
  /** Turns run by this process. */
  readonly turns: number;
  /** The bound that fired (`doom_loop` ends as `completed`). */
  readonly boundFired?: BoundName;
  /** The error that ended the session, if any. */
  readonly error?: ErrorInfo;
}

/** A running prompt or session: its events, and its result. */
export interface SessionRun<R> extends AsyncIterable<SessionEvent> {
  /** Resolves when it is over (also when nobody iterates the events). */
  readonly result: Promise<R>;
}

const BOUND_STATUS: Readonly<Record<BoundName, SessionStatus>> = {
  max_turns: SessionStatus.ERROR_MAX_TURNS,
  max_cost_usd: SessionStatus.ERROR_MAX_BUDGET_USD,
  max_wall_clock_s: SessionStatus.ERROR_MAX_WALL_CLOCK,
  // No dedicated status exists; ref-impl ends a doom loop as completed
  // (a final answer exists), with the reason kept in the result.
  doom_loop: SessionStatus.COMPLETED,
};

const BOUND_TEXT: Readonly<Record<BoundName, string>> = {
  max_turns: "the maximum number of turns",
  max_cost_usd: "the cost budget",
  max_wall_clock_s: "the wall-clock limit",
  doom_loop: "a repeated-call loop (the same tool call several times in a row)",
};

/**
 * The synthetic instruction of the final-answer turn.
 *
 * @param bound The bound that fired.
 * @returns The text.
 */
export function finalAnswerInstruction(bound: BoundName): string {
  return `The session has reached ${
    BOUND_TEXT[bound]
  }. Tools are no longer available. Give your final answer now, based on what you have so far.`;
}

interface ToolEntry {
  readonly provider: string;
  readonly schema: ToolSchema;
  readonly endpoint: ToolEndpoint;
  readonly modelName: string;
}

class ToolIndex {
  readonly entries: ToolEntry[] = [];
  readonly #byName = new Map<string, ToolEntry>();
  readonly #planMode: boolean;

  constructor(
    tools: ReadonlyMap<string, readonly ToolSchema[]>,
    endpoints: ReadonlyMap<string, ToolEndpoint>,
    planMode: boolean,
  ) {
    this.#planMode = planMode;
    const counts = new Map<string, number>();
    for (const schemas of tools.values()) {
      for (const s of schemas) {
        counts.set(s.name, (counts.get(s.name) ?? 0) + 1);
      }
    }
    for (const [provider, schemas] of tools) {
      const endpoint = endpoints.get(provider);
      if (!endpoint) {
        throw new TypeError(
          `Cannot scope the tools of "${provider}": no tool endpoint is loaded for it`,
        );
      }
      for (const schema of schemas) {
        if (planMode && schema.kind === ToolKind.RESOURCE) continue;
        const modelName = (counts.get(schema.name) ?? 0) > 1
          ? `${provider}__${schema.name}`
          : schema.name;
        const entry = { provider, schema, endpoint, modelName };
        this.entries.push(entry);
        this.#byName.set(modelName, entry);
      }
    }
  }

  /** The declarations sent to the model (never an UNSPECIFIED kind). */
  declarations(): ToolDeclaration[] {
    return this.entries
      .filter((e) => e.schema.kind !== ToolKind.UNSPECIFIED)
      .map((e) =>
        create(ToolDeclarationSchema, {
          name: e.modelName,
          description: e.schema.description,
          ...(e.schema.inputSchema
            ? { inputSchema: e.schema.inputSchema }
            : {}),
        })
      );
  }

  lookup(name: string): ToolEntry | undefined {
    const direct = this.#byName.get(name);
    if (direct) return direct;
    const dot = name.indexOf(".");
    if (dot > 0) {
      const provider = name.slice(0, dot);
      const tool = name.slice(dot + 1);
      return this.entries.find((e) =>
        e.provider === provider && e.schema.name === tool
      );
    }
    return undefined;
  }

  get planMode(): boolean {
    return this.#planMode;
  }
}

interface CallRecord {
  readonly toolUse: ToolUseBlock;
  readonly entry: ToolEntry | undefined;
  call?: ToolCall;
  planItem?: PlanItem;
  outcome?: StoredOutcome;
  deniedBy?: string;
  span?: KernelSpan;
}

interface TurnOutcome {
  readonly done: boolean;
  readonly message: Message;
}

/** Ends a `model.call` span with the response's model, usage and stop reason. */
function endModelSpan(span: KernelSpan, r: ModelResponse): void {
  if (!span.recording) return;
  span.setAttributes({
    "model.response.provider": r.model.provider,
    "model.response.id": r.model.id,
    "model.stop_reason": stopReasonText(r.stopReason),
    "usage.input_tokens": Number(r.usage.inputTokens),
    "usage.output_tokens": Number(r.usage.outputTokens),
    "usage.cache_read_tokens": Number(r.usage.cacheReadTokens ?? 0n),
    "usage.cache_write_tokens": Number(r.usage.cacheWriteTokens ?? 0n),
    "cost_usd": r.costUsd,
  });
  span.end({ code: "ok" });
}

/** Ends the step-11 span with the per-item decisions after policy and hooks. */
function endVetoSpan(span: KernelSpan, items: readonly PlanItem[]): void {
  if (!span.recording) return;
  const count = (d: PlanDecision) =>
    items.filter((i) => i.decision === d).length;
  span.setAttributes({
    "plan.allow": count(PlanDecision.ALLOW),
    "plan.ask": count(PlanDecision.ASK),
    "plan.deny": count(PlanDecision.DENY),
  });
  span.end({ code: "ok" });
}

/** The decided_by text of a hook chain aborted by a failing transform. */
function abortedBy(err: HookChainAbortedError): string {
  return `hook-error:${err.subscriber}`;
}

function errorInfo(err: unknown): ErrorInfo {
  if (err instanceof AgentError) {
    return { code: err.code, message: err.message };
  }
  if (err instanceof PluginCrashedError) {
    return { code: err.code, message: err.message };
  }
  if (
    err && typeof err === "object" && "code" in err &&
    typeof err.code === "string"
  ) {
    return {
      code: err.code,
      message: err instanceof Error ? err.message : String(err),
    };
  }
  return {
    code: "internal",
    message: err instanceof Error ? err.message : String(err),
  };
}

function isCancellation(err: unknown, signal: AbortSignal): boolean {
  return signal.aborted || err instanceof TurnCancelledError ||
    err instanceof AbortedIteration;
}

function decisionEnum(action: "allow" | "ask" | "deny"): PlanDecision {
  return action === "allow"
    ? PlanDecision.ALLOW
    : action === "ask"
    ? PlanDecision.ASK
    : PlanDecision.DENY;
}

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
  readonly #deps: AgentDeps;
  readonly #log: SessionLog;
  readonly #history: Message[];
  readonly #gate: ApprovalGate;
  readonly #interactive: InteractiveGate;
  readonly #hooks: HookDispatcher;
  readonly #router: ModelRouter;
  readonly #doom: DoomLoopDetector;
  readonly #budget: CostBudget;
  #tools: ToolIndex;
  /** Consecutive crashed calls per tool provider (the circuit breaker). */
  readonly #crashes = new Map<string, number>();
  /** Paths the session's tool calls named, oldest first (`files_touched`). */
  readonly #filesTouched = new Set<string>();
  #currentTools: ReadonlyMap<string, readonly ToolSchema[]>;
  readonly #now: () => number;
  readonly #openedAt: number;
  readonly #onEvent: ((event: SessionEvent) => void) | undefined;
  readonly #userProducer: ModelEndpoint;
  readonly #live: LiveSession | undefined;
  #unregister: () => void = () => {};
  #priorTurns: number;
  #turns = 0;
  #busy = false;
  #sink: EventQueue<SessionEvent> | undefined;
  #lastOutcome: SendResult["outcome"] | undefined;
  #lastFinal: Message | undefined;
  #bound: BoundName | undefined;
  #error: ErrorInfo | undefined;
  #ended: Promise<SessionResult> | undefined;
  #currentOutcomes = new Map<string, StoredOutcome>();
  readonly #tracer: KernelTracer;
  readonly #sessionSpan: KernelSpan;
  #turnSpan: KernelSpan | undefined;
  #vetoSpan: KernelSpan | undefined;

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
    const { spec, deps, options } = init;
    this.#spec = spec;
    this.#deps = deps;
    this.#log = init.log;
    this.sessionId = init.log.sessionId;
    this.profile = spec.profile;
    this.resumed = init.resumed;
    this.#history = init.history;
    this.#priorTurns = init.priorTurns;
    this.#now = deps.now ?? Date.now;
    this.#openedAt = this.#now();
    this.#onEvent = options.onEvent;
    this.#userProducer = init.userProducer;
    this.#tools = init.tools;
    this.#currentTools = spec.tools;
    this.#budget = new CostBudget(spec.bounds.maxCostUsd, options.parentBudget);
    if (init.priorSpend > 0) this.#budget.debit(init.priorSpend);
    this.#doom = new DoomLoopDetector(spec.doomLoop);
    this.#tracer = deps.tracer ?? NOOP_TRACER;
    this.#sessionSpan = this.#tracer.startSpan("session", {
      "session.id": this.sessionId,
      "session.profile": spec.profile,
      "session.resumed": init.resumed,
      "session.parent_id": options.parentSessionId,
      "session.depth": options.depth,
    }, options.parentSpan);
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
      tracer: this.#tracer,
      parentSpan: () => this.#vetoSpan ?? this.#turnSpan ?? this.#sessionSpan,
    });
    this.#router = new ModelRouter({
      chain: spec.models,
      endpoints: deps.models,
      retry: spec.retry,
      now: this.#now,
      sleep: deps.sleep ?? defaultSleep,
      random: deps.random ?? Math.random,
      grant,
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
      };
      this.#unregister = deps.registry.register(this.#live);
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
    if (prompt === undefined && this.#history.length === 0) {
      throw new TypeError(
        `Cannot continue session "${this.sessionId}" without a prompt: its history is empty`,
      );
    }
    this.#busy = true;
    const queue = new EventQueue<SessionEvent>();
    this.#sink = options.events === false ? undefined : queue;
    const result = this.#runPrompt(prompt, options.signal).finally(() => {
      this.#busy = false;
      this.#sink = undefined;
      queue.close();
    });
    return {
      result,
      [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator](),
    };
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

  async #runPrompt(
    prompt: string | undefined,
    outer: AbortSignal | undefined,
  ): Promise<SendResult> {
    const ac = new AbortController();
    const onAbort = () => ac.abort(outer!.reason);
    if (outer?.aborted) ac.abort(outer.reason);
    outer?.addEventListener("abort", onAbort, { once: true });
    const signal = ac.signal;
    if (this.#live) this.#live.turnSignal = signal; // sub-agents cancel with it
    const turnsBefore = this.#turns;
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
        turns: this.#turns - turnsBefore,
        ...(bound ? { boundFired: bound } : {}),
        ...(error !== undefined ? { error: errorInfo(error) } : {}),
      };
    };
    try {
      if (prompt !== undefined) {
        await this.#appendUser(prompt);
      } else if (this.#history.at(-1)?.role === Role.ASSISTANT) {
        return result("done");
      }
      for (;;) {
        const turn = await this.#tracedTurn(finalTurn, signal);
        last = turn.message;
        this.#lastFinal = last;
        if (finalTurn) {
          await this.#end(BOUND_STATUS[bound!], undefined);
          return result("bound");
        }
        if (turn.done) return result("done");
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
          await this.#appendUser(finalAnswerInstruction(bound));
          finalTurn = true;
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
    }
  }

  /** Ends the session from inside a prompt (bound fired or failure). */
  async #end(status: SessionStatus, err: unknown): Promise<void> {
    if (err !== undefined) this.#error = errorInfo(err);
    this.#ended ??= this.#finish(status);
    await this.#ended;
  }

  #checkBounds(): BoundName | undefined {
    const b = this.#spec.bounds;
    if (
      b.maxTurns !== undefined && this.#priorTurns + this.#turns >= b.maxTurns
    ) {
      return "max_turns";
    }
    if (this.#budget.exhausted) return "max_cost_usd";
    if (
      b.maxWallClockS !== undefined &&
      this.#now() - this.#openedAt >= b.maxWallClockS * 1000
    ) {
      return "max_wall_clock_s";
    }
    return undefined;
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
          await this.#persistAssistant(message, {
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
      const results = toolResultsMessage(tail, this.#currentOutcomes);
      if (results) this.#history.push(results);
    }
  }

  async #appendUser(text: string): Promise<void> {
    const message = create(MessageSchema, {
      role: Role.USER,
      content: [textBlock(text)],
      id: ulid(),
    });
    const identity = this.#userProducer.identity;
    await this.#log.emit({
      kind: EventKind.MESSAGE,
      producer: producerOf(identity),
      schemaVersion: "1",
      id: message.id,
      payload: toBinary(
        MessageEventSchema,
        create(MessageEventSchema, {
          message,
          model: producerRefOfIdentity(identity),
        }),
      ),
    });
    this.#history.push(message);
    this.#emit(messageEventOf(message));
  }

  async #persistAssistant(
    message: Message,
    r: {
      usage: ModelResponse["usage"];
      costUsd: number;
      model: { provider: string; id: string };
      identity: PluginIdentity;
    },
    turnId?: string,
    stopReason?: string,
  ): Promise<void> {
    await this.#log.emit({
      kind: EventKind.MESSAGE,
      producer: producerOf(r.identity),
      schemaVersion: "1",
      id: message.id,
      payload: toBinary(
        MessageEventSchema,
        create(MessageEventSchema, {
          message,
          model: producerRefOfIdentity(r.identity),
          usage: r.usage,
          costUsd: r.costUsd,
        }),
      ),
      cost: {
        providerName: r.model.provider,
        modelId: r.model.id,
        inputTokens: r.usage.inputTokens,
        outputTokens: r.usage.outputTokens,
        cacheWriteTokens: r.usage.cacheWriteTokens ?? 0n,
        cacheReadTokens: r.usage.cacheReadTokens ?? 0n,
        costUsd: r.costUsd,
      },
    });
    // Debit once per model call, in memory (never re-summed from storage).
    this.#budget.debit(r.costUsd);
    if (this.#live) {
      this.#live.remainingCostBudgetUsd = this.#budget.remainingUsd;
    }
    this.#emit(messageEventOf(message, {
      ...(turnId !== undefined ? { turnId } : {}),
      model: { provider: r.model.provider, id: r.model.id },
      usage: r.usage,
      costUsd: r.costUsd,
      ...(stopReason !== undefined ? { stopReason } : {}),
    }));
  }

  async #recordHookError(f: HookFailure): Promise<void> {
    this.#emit(hookErrorEventOf(f.error, f.subscription.provider));
    await this.#log.emit({
      kind: EventKind.HOOK_ERROR,
      producer: producerOf(f.identity),
      schemaVersion: "1",
      payload: toBinary(
        HookErrorEventSchema,
        create(HookErrorEventSchema, { error: f.error }),
      ),
    });
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

  // ------------------------------------------------------------------ turn

  /** {@linkcode AgentSession.#turn} under a `turn` span. */
  async #tracedTurn(
    final: boolean,
    signal: AbortSignal,
  ): Promise<TurnOutcome> {
    if (!this.#tracer.enabled) return this.#turn(final, signal);
    const span = this.#tracer.startSpan("turn", {
      "session.id": this.sessionId,
      "turn.number": this.#priorTurns + this.#turns + 1,
      "turn.final": final,
    }, this.#sessionSpan);
    this.#turnSpan = span;
    try {
      const out = await this.#turn(final, signal);
      span.setAttribute("turn.done", out.done);
      span.end({ code: "ok" });
      return out;
    } catch (err) {
      endSpanWithError(span, err, isCancellation(err, signal));
      throw err;
    } finally {
      this.#turnSpan = undefined;
    }
  }

  async #turn(final: boolean, signal: AbortSignal): Promise<TurnOutcome> {
    const turnId = ulid();
    this.#turns++;
    this.#currentOutcomes = new Map();
    const spec = this.#spec;
    if (!final && this.#spec.dynamicTools.size) {
      await this.#refreshTools(signal);
    }
    const declarations = final ? [] : this.#tools.declarations();
    const generation = spec.generation;
    const requirements = {
      toolUse: declarations.length > 0,
      vision: historyHasImages(this.#history),
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
    this.#emit({
      type: "turn_started",
      turn: this.#priorTurns + this.#turns,
      turnId,
      model: { provider: choice.model.provider, id: choice.model.id },
      contextBudgetTokens: budgetTokens,
      final,
    });
    this.#turnSpan?.setAttributes({
      "turn.id": turnId,
      "model.provider": choice.model.provider,
      "model.id": choice.model.id,
    });

    // Step 1: context-assemble.
    const assembled =
      await (this.#deps.contextAssembler ?? passThroughAssembler)
        .assemble({
          history: this.#history,
          budgetTokens,
          model: {
            provider: choice.model.provider,
            id: choice.model.id,
            contextWindow: window,
          },
          sections: preambleSections(spec.systemPrompt, spec.preamble),
          sessionId: this.sessionId,
          turnId,
          workingDirectory: spec.workingDirectory,
          filesTouched: [...this.#filesTouched],
          signal,
        });
    if (assembled.sections.length) {
      const sections = assembled.sections.map((s) => ({
        provider: s.provider,
        label: s.label,
        tokens: sectionTokens(s),
      }));
      this.#emit({
        type: "context_assembled",
        turnId,
        sections,
        tokens: sections.reduce((n, s) => n + s.tokens, 0),
      });
    }

    // Step 2: pre-model-call (transforms rewrite this request only).
    let messages = assembled.messages;
    if (this.#hooks.has("pre-model-call")) {
      const out = await this.#hooks.dispatch(
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
        messages = out.payload.payload.value.messages;
      }
    }
    const request = create(StreamCompletionRequestSchema, {
      messages,
      modelId: choice.model.id,
      tools: declarations,
      ...(hasGeneration(generation)
        ? { params: generationParams(generation) }
        : {}),
      assembledContext: assembled.sections,
      callContext: {
        sessionId: this.sessionId,
        turnId,
        workingDirectory: spec.workingDirectory,
      },
    });

    // Steps 3–4: the model call, then the message and its cost.
    const b = spec.bounds;
    const modelSpan = this.#tracer.startSpan("model.call", {
      "model.provider": choice.model.provider,
      "model.id": choice.model.id,
      "model.tools": declarations.length,
    }, this.#turnSpan);
    const fail = (err: unknown): never => {
      endSpanWithError(modelSpan, err, isCancellation(err, signal));
      throw err;
    };
    const response = await this.#router.complete({
      request,
      choice,
      requirements,
      signal,
      ...(b.maxWallClockS !== undefined
        ? { deadlineMs: this.#openedAt + b.maxWallClockS * 1000 }
        : {}),
      ...traceHeaders(modelSpan),
    }, {
      onTextDelta: (text) => this.#emit({ type: "text_delta", turnId, text }),
      onThinkingDelta: (text) =>
        this.#emit({ type: "thinking_delta", turnId, text }),
      onRetry: (r) =>
        this.#emit({
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
        }),
    }).catch(fail);
    const message = response.message;
    await this.#persistAssistant(
      message,
      {
        usage: response.usage,
        costUsd: response.costUsd,
        model: response.model,
        identity: response.endpoint.identity,
      },
      turnId,
      stopReasonText(response.stopReason),
    ).catch(fail);
    endModelSpan(modelSpan, response);

    // Step 5: post-model-response (after the message is persisted).
    await this.#dispatchQuiet(
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
    this.#history.push(message);

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
      this.#history.push(toolResultsMessage(message, stray)!);
      return { done: false, message };
    }

    const done = await this.#runTools(
      uses,
      response.invalidArguments,
      turnId,
      signal,
    );
    // Step 15: the tool results, in tool_use order.
    this.#history.push(toolResultsMessage(message, this.#currentOutcomes)!);
    return { done, message };
  }

  /**
   * Reads `GetSchema` again of the providers whose tools may change (an
   * MCP server's `tools/list_changed`) and rebuilds the tool index when
   * an answer differs. A provider that fails to answer keeps its last
   * schemas (logged).
   */
  async #refreshTools(signal: AbortSignal): Promise<void> {
    const spec = this.#spec;
    const endpoints = this.#deps.tools ?? new Map<string, ToolEndpoint>();
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
      }
    }));
    if (!changed) return;
    this.#currentTools = next;
    this.#tools = new ToolIndex(next, endpoints, spec.planMode);
    this.#emit({
      type: "warning",
      code: "tools_changed",
      message: `The tools changed: ${
        this.#tools.entries.map((e) => `${e.provider}.${e.schema.name}`)
          .join(", ") || "(none)"
      }`,
    });
  }

  /** Steps 7–14; returns whether a `terminates_turn` call succeeded. */
  async #runTools(
    uses: ToolUseBlock[],
    invalidArguments: ReadonlyMap<string, string>,
    turnId: string,
    signal: AbortSignal,
  ): Promise<boolean> {
    const spec = this.#spec;
    const records: CallRecord[] = uses.map((toolUse) => ({
      toolUse,
      entry: this.#tools.lookup(toolUse.name),
    }));

    // Identification: out-of-scope tools (or an UNSPECIFIED kind) never
    // reach a hook; they become an error result in their own slot.
    for (const r of records) {
      const entry = r.entry;
      if (!entry || entry.schema.kind === ToolKind.UNSPECIFIED) {
        const error = toolError(
          ToolErrorCategory.NOT_FOUND,
          `The tool "${r.toolUse.name}" is not available in this session.`,
        );
        this.#setOutcome(r, { error });
        this.#emit({
          type: "tool_result",
          turnId,
          callId: r.toolUse.id,
          provider: entry?.provider ?? "",
          tool: r.toolUse.name,
          isError: true,
          error: toolErrorView(error),
          text: toolErrorText(error),
        });
        continue;
      }
      const input = sortJsonKeys(r.toolUse.arguments ?? {});
      r.call = create(ToolCallSchema, {
        id: r.toolUse.id,
        toolName: entry.schema.name,
        arguments: input,
        callContext: {
          sessionId: this.sessionId,
          turnId,
          workingDirectory: spec.workingDirectory,
        },
      });
      for (const path of pathsOf(input)) {
        this.#filesTouched.delete(path);
        this.#filesTouched.add(path);
      }
      r.planItem = create(PlanItemSchema, {
        id: ulid(),
        callId: r.toolUse.id,
        provider: entry.provider,
        operationName: entry.schema.name,
        input,
        decision: PlanDecision.PENDING,
        kind: entry.schema.kind,
        risk: entry.schema.risk,
        description: entry.schema.description,
        producerCategory: Category.TOOL,
      });
      await this.#log.emit({
        kind: EventKind.TOOL_CALL,
        producer: producerOf(entry.endpoint.identity),
        schemaVersion: "1",
        payload: toBinary(
          ToolCallEventSchema,
          create(ToolCallEventSchema, { call: r.call }),
        ),
      });
      this.#emit({
        type: "tool_call",
        turnId,
        callId: r.call.id,
        provider: entry.provider,
        tool: entry.schema.name,
        kind: toolKindText(entry.schema.kind)!,
        input,
      });
      if (entry.schema.kind !== ToolKind.INTERACTIVE) {
        this.#doom.record(
          callHash({
            provider: entry.provider,
            tool: entry.schema.name,
            input,
          }),
        );
      }
      const bad = invalidArguments.get(r.toolUse.id) ??
        (entry.schema.inputSchema
          ? argumentsViolation(input, entry.schema.inputSchema)
          : undefined);
      if (bad !== undefined) {
        await this.#finishCall(r, turnId, {
          error: toolError(ToolErrorCategory.INVALID_ARGUMENTS, bad),
        });
      }
    }

    // Step 7: pre-tool-call, per call in declaration order (veto-bearing).
    if (this.#hooks.has("pre-tool-call")) {
      for (const r of records) {
        if (!r.call || r.outcome) continue;
        let verdict: { decision: "allow" | "deny"; decidedBy?: string };
        try {
          verdict = await this.#hooks.dispatch(
            "pre-tool-call",
            create(HookPayloadSchema, {
              payload: {
                case: "preToolCall",
                value: { call: r.call, planItem: r.planItem },
              },
            }),
            signal,
          );
        } catch (err) {
          if (!(err instanceof HookChainAbortedError)) throw err;
          verdict = { decision: "deny", decidedBy: abortedBy(err) };
        }
        if (verdict.decision === "deny") {
          await this.#deny(r, turnId, verdict.decidedBy ?? "hook-veto");
        }
      }
    }

    // Step 8: split by kind.
    const pending = (kind: ToolKind) =>
      records.filter((r) =>
        r.call && !r.outcome && r.entry!.schema.kind === kind
      );
    const queue = new KeyedQueue();

    // Step 9: data-source calls — precheck, then concurrently by key.
    const dataSources: CallRecord[] = [];
    for (const r of pending(ToolKind.DATA_SOURCE)) {
      if (await this.#precheck(r, turnId)) dataSources.push(r);
    }
    await allSettledOrThrow(dataSources.map((r) =>
      queue.run(
        concurrencyKey(r.entry!.schema, {
          provider: r.entry!.provider,
          input: r.call!.arguments ?? {},
        }),
        () => this.#execute(r, turnId, signal),
      )
    ));

    // Step 9b: interactive calls — precheck, then one at a time.
    for (const r of pending(ToolKind.INTERACTIVE)) {
      if (!(await this.#precheck(r, turnId))) continue;
      await queue.run(INTERACTIVE_LOCK, () => this.#execute(r, turnId, signal));
    }

    // Steps 10–12: the plan of resource calls.
    const resources = pending(ToolKind.RESOURCE);
    let applied: ApplyResult_ApplyItem[] | undefined;
    if (resources.length > 0) {
      applied = await this.#planAndApply(resources, turnId, queue, signal);
    }

    // Step 13: post-tool-call in tool_use order; DoneCheck for terminates_turn.
    let terminates = false;
    for (const r of records) {
      if (!r.call || !r.outcome) continue;
      await this.#dispatchQuiet(
        "post-tool-call",
        create(HookPayloadSchema, {
          payload: {
            case: "postToolCall",
            value: {
              call: r.call,
              outcome: "result" in r.outcome
                ? { case: "result", value: { payload: r.outcome.result } }
                : { case: "error", value: r.outcome.error },
            },
          },
        }),
        signal,
      );
      if (
        r.entry!.schema.terminatesTurn &&
        r.entry!.schema.kind === ToolKind.RESOURCE && "result" in r.outcome
      ) {
        terminates = true;
      }
    }

    // Step 14: post-apply.
    if (applied) {
      const apply = create(ApplyResultSchema, { turnId, items: applied });
      await this.#dispatchQuiet(
        "post-apply",
        create(HookPayloadSchema, {
          payload: { case: "postApply", value: { apply } },
        }),
        signal,
      );
    }
    return terminates;
  }

  /**
   * What policy judges: kind, provider, tool and risk, and the arguments'
   * string `command` when there is one (a shell line such as `exec.bash`'s:
   * policy then judges each of its segments, contract/policy.ts).
   */
  #policyCall(r: CallRecord): PolicyCall {
    const s = r.entry!.schema;
    const command = commandArgument(r.call?.arguments ?? r.toolUse.arguments);
    return {
      kind: toolKindText(s.kind)!,
      provider: r.entry!.provider,
      toolName: s.name,
      risk: riskText(s.risk, s.kind),
      ...(command !== undefined ? { command } : {}),
    };
  }

  /** The data-source / interactive precheck: allow or deny (ask → deny). */
  async #precheck(r: CallRecord, turnId: string): Promise<boolean> {
    const v = this.#gate.evaluate(this.#policyCall(r));
    if (v.downgraded) {
      const message = `Policy ${v.decidedBy} asks for ${r.entry!.provider}.${
        r.entry!.schema.name
      }, a ${
        toolKindText(r.entry!.schema.kind)
      } call that cannot be approved: the ask is downgraded to deny`;
      log.warn("{message}", { message, rule: v.decidedBy });
      this.#emit({ type: "warning", code: "ask_downgraded", message });
    }
    if (v.action === "allow") return true;
    await this.#deny(r, turnId, v.decidedBy);
    return false;
  }

  async #planAndApply(
    resources: CallRecord[],
    turnId: string,
    queue: KeyedQueue,
    signal: AbortSignal,
  ): Promise<ApplyResult_ApplyItem[]> {
    const spec = this.#spec;
    // Step 10: the plan, with previews under a deadline (failure = none).
    await Promise.all(resources.map(async (r) => {
      const endpoint = r.entry!.endpoint;
      if (!endpoint.preview) return;
      const ac = new AbortController();
      const onAbort = () => ac.abort();
      signal.addEventListener("abort", onAbort, { once: true });
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => {
          ac.abort();
          resolve(undefined);
        }, spec.previewTimeoutMs);
      });
      const release = this.#deps.registry?.grant(
        endpoint.identity,
        this.sessionId,
      );
      try {
        const call = endpoint.preview(r.call!, {
          signal: ac.signal,
          timeoutMs: spec.previewTimeoutMs,
        });
        call.catch(() => {});
        const tree = await Promise.race([call, deadline]);
        if (tree) r.planItem!.preview = tree;
      } catch (err) {
        log.debug("No preview for {call}: {error}", {
          call: r.call!.id,
          error: err instanceof Error ? err.message : String(err),
        });
      } finally {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        release?.();
      }
    }));
    if (signal.aborted) throw new TurnCancelledError({ cause: signal.reason });

    // Step 11: policy per item first, then the plugin veto chain.
    const vetoSpan = this.#tracer.startSpan("policy.veto_chain", {
      "plan.items": resources.length,
    }, this.#turnSpan);
    for (const r of resources) {
      const v = this.#gate.evaluate(this.#policyCall(r));
      r.planItem!.decision = decisionEnum(v.action);
      r.planItem!.decidedBy = v.decidedBy;
    }
    if (vetoSpan.recording) this.#vetoSpan = vetoSpan;
    const plan = create(PlanSchema, {
      turnId,
      items: resources.map((r) => r.planItem!),
    });
    if (this.#hooks.has("plan-ready")) {
      let verdict: { decision: "allow" | "deny"; decidedBy?: string };
      try {
        verdict = await this.#hooks.dispatch(
          "plan-ready",
          create(HookPayloadSchema, {
            payload: { case: "planReady", value: { plan } },
          }),
          signal,
        );
      } catch (err) {
        this.#vetoSpan = undefined;
        if (!(err instanceof HookChainAbortedError)) {
          endSpanWithError(vetoSpan, err, isCancellation(err, signal));
          throw err;
        }
        verdict = { decision: "deny", decidedBy: abortedBy(err) };
      }
      if (verdict.decision === "deny") {
        for (const item of plan.items) {
          if (item.decision !== PlanDecision.DENY) {
            item.decision = PlanDecision.DENY;
            item.decidedBy = verdict.decidedBy ?? "hook-veto";
          }
        }
      }
    }
    this.#vetoSpan = undefined;
    endVetoSpan(vetoSpan, plan.items);
    await this.#log.emit({
      kind: EventKind.PLAN,
      producer: KERNEL_PRODUCER,
      schemaVersion: "1",
      payload: toBinary(PlanEventSchema, create(PlanEventSchema, { plan })),
      planItems: planItemEntriesOf(plan),
    });
    this.#emit({ type: "plan", turnId, items: plan.items.map(planItemView) });

    // Step 12: apply; an ask blocks only its own item (and its key).
    const applied: ApplyResult_ApplyItem[] = [];
    const record = (r: CallRecord, outcome: ApplyResult_ApplyOutcome) => {
      const o = r.outcome;
      applied.push(create(ApplyResult_ApplyItemSchema, {
        planItemId: r.planItem!.id,
        callId: r.call!.id,
        outcome,
        ...(outcome === ApplyResult_ApplyOutcome.DENIED || !o
          ? {}
          : "result" in o
          ? { result: { case: "toolResult", value: { payload: o.result } } }
          : { result: { case: "toolError", value: o.error } }),
      }));
    };
    await allSettledOrThrow(resources.map(async (r) => {
      const item = r.planItem!;
      if (item.decision === PlanDecision.DENY) {
        await this.#deny(r, turnId, item.decidedBy);
        record(r, ApplyResult_ApplyOutcome.DENIED);
        return;
      }
      await queue.run(
        concurrencyKey(r.entry!.schema, {
          provider: r.entry!.provider,
          input: r.call!.arguments ?? {},
        }),
        async () => {
          if (item.decision === PlanDecision.ASK) {
            const preview = previewJson(item.preview);
            const answer = await this.#gate.ask({
              planItemId: item.id,
              callId: item.callId,
              provider: item.provider,
              tool: item.operationName,
              input: item.input ?? {},
              risk: riskText(item.risk, item.kind),
              description: item.description,
              ...(preview !== undefined ? { preview } : {}),
            }, signal);
            if (answer.decision === "deny") {
              await this.#deny(r, turnId, answer.decidedBy);
              record(r, ApplyResult_ApplyOutcome.DENIED);
              return;
            }
          }
          await this.#execute(r, turnId, signal);
          record(
            r,
            r.outcome && "result" in r.outcome
              ? ApplyResult_ApplyOutcome.APPLIED
              : ApplyResult_ApplyOutcome.FAILED,
          );
        },
      );
    }));

    // The apply event, once every item is terminal.
    const result = create(ApplyResultSchema, { turnId, items: applied });
    await this.#log.emit({
      kind: EventKind.APPLY,
      producer: KERNEL_PRODUCER,
      schemaVersion: "1",
      payload: toBinary(ApplyEventSchema, create(ApplyEventSchema, { result })),
    });
    this.#emit(applyEventOf(result));
    return applied;
  }

  #setOutcome(r: CallRecord, outcome: StoredOutcome, deniedBy?: string): void {
    r.outcome = outcome;
    if (deniedBy !== undefined) r.deniedBy = deniedBy;
    this.#currentOutcomes.set(r.toolUse.id, outcome);
  }

  async #deny(r: CallRecord, turnId: string, decidedBy: string): Promise<void> {
    await this.#finishCall(
      r,
      turnId,
      { error: denialError(decidedBy) },
      decidedBy,
    );
  }

  /** Records a call's outcome: the `tool_result` event and session event. */
  async #finishCall(
    r: CallRecord,
    turnId: string,
    outcome: StoredOutcome,
    deniedBy?: string,
  ): Promise<void> {
    const entry = r.entry!;
    this.#trackCrash(entry.provider, outcome);
    // Tool MUST 15: a result that breaks the output schema is an error.
    if ("result" in outcome && entry.schema.outputSchema) {
      const bad = schemaViolation(outcome.result, entry.schema.outputSchema);
      if (bad) {
        outcome = {
          error: toolError(
            ToolErrorCategory.UNKNOWN,
            `The tool's result does not match its output schema: ${bad}`,
            false,
            { payload: outcome.result },
          ),
        };
      }
    }
    this.#setOutcome(r, outcome, deniedBy);
    this.#endToolSpan(r, outcome, deniedBy);
    await this.#log.emit({
      kind: EventKind.TOOL_RESULT,
      producer: producerOf(entry.endpoint.identity),
      schemaVersion: "1",
      payload: toBinary(
        ToolResultEventSchema,
        create(ToolResultEventSchema, {
          toolCallId: r.toolUse.id,
          outcome: "result" in outcome
            ? { case: "result", value: { payload: outcome.result } }
            : { case: "error", value: outcome.error },
        }),
      ),
    });
    this.#emit({
      type: "tool_result",
      turnId,
      callId: r.toolUse.id,
      provider: entry.provider,
      tool: entry.schema.name,
      isError: "error" in outcome,
      ...("result" in outcome
        ? { result: outcome.result, text: JSON.stringify(outcome.result) }
        : {
          error: toolErrorView(outcome.error),
          text: toolErrorText(outcome.error),
        }),
      ...(deniedBy !== undefined ? { deniedBy } : {}),
    });
  }

  /** Invokes one call under its deadline and records the outcome. */
  async #execute(
    r: CallRecord,
    turnId: string,
    signal: AbortSignal,
  ): Promise<void> {
    if (signal.aborted) throw new TurnCancelledError({ cause: signal.reason });
    const entry = r.entry!;
    const crashes = this.#crashes.get(entry.provider) ?? 0;
    if (crashes >= CIRCUIT_BREAKER_CRASHES) {
      // The circuit is open: the provider is not called again this session.
      return await this.#finishCall(r, turnId, {
        error: toolError(
          ToolErrorCategory.PROCESS_CRASHED,
          `The "${entry.provider}" tool provider crashed ${crashes} times in a row; its tools are disabled for the rest of this session (circuit breaker). Go on without them.`,
        ),
      });
    }
    if (entry.schema.kind === ToolKind.INTERACTIVE) {
      return await this.#executeInteractive(r, turnId, signal);
    }
    const timeoutMs = durationMs(entry.schema.defaultTimeout) ??
      this.#spec.defaultToolTimeoutMs;
    const { outcome } = await this.#invokeTool(r, turnId, signal, timeoutMs);
    await this.#finishCall(
      r,
      turnId,
      outcome ?? {
        error: toolError(
          ToolErrorCategory.UNKNOWN,
          "The tool ended its stream without a result or an error.",
        ),
      },
    );
  }

  /**
   * Invokes a call's tool and reads its stream until the terminal event
   * (or, with `timeoutMs` undefined, an interactive tool's prompt): live
   * output and progress become session events, and a failure of the call
   * itself becomes an error outcome (`TIMEOUT` past the deadline,
   * `PROCESS_CRASHED` when the plugin died, else `UNKNOWN`). The call's
   * grant lasts while the stream is read; the stream is closed on return.
   *
   * @throws {TurnCancelledError} When the turn is cancelled.
   */
  async #invokeTool(
    r: CallRecord,
    turnId: string,
    signal: AbortSignal,
    timeoutMs: number | undefined,
  ): Promise<{ outcome?: StoredOutcome; prompt?: JsonObject }> {
    const entry = r.entry!;
    const call = r.call!;
    if (this.#tracer.enabled) r.span = this.#startToolSpan(r);
    const ac = new AbortController();
    const onAbort = () => ac.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    let timedOut = false;
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => {
      timedOut = true;
      ac.abort(new Error("tool deadline exceeded"));
    }, timeoutMs);
    const release = this.#deps.registry?.grant(
      entry.endpoint.identity,
      this.sessionId,
    );
    try {
      const events = entry.endpoint.invoke(call, {
        signal: ac.signal,
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        ...traceHeaders(r.span),
      });
      const decoder = new TextDecoder();
      for await (const ev of abortable(events, ac.signal)) {
        const e = ev.event;
        switch (e.case) {
          case "result":
            return {
              outcome: {
                result: sortJsonKeys(e.value.payload ?? {}) as JsonObject,
              },
            };
          case "error":
            return { outcome: { error: e.value } };
          case "partialResult":
            if (timeoutMs === undefined) {
              return {
                prompt: sortJsonKeys(e.value.payload ?? {}) as JsonObject,
              };
            }
            break;
          case "outputChunk":
            this.#emit({
              type: "tool_output",
              turnId,
              callId: call.id,
              stream: e.value.stream === OutputStream.STDERR
                ? "stderr"
                : "stdout",
              text: decoder.decode(e.value.data, { stream: true }),
            });
            break;
          case "progress":
            this.#emit({
              type: "tool_progress",
              turnId,
              callId: call.id,
              message: e.value.message,
              ...(e.value.fractionComplete !== undefined
                ? { fraction: e.value.fractionComplete }
                : {}),
            });
            break;
        }
      }
      return {};
    } catch (err) {
      if (signal.aborted) {
        if (r.span) endSpanWithError(r.span, err, true);
        throw new TurnCancelledError({ cause: err });
      }
      const message = err instanceof Error ? err.message : String(err);
      return {
        outcome: timedOut
          ? {
            error: toolError(
              ToolErrorCategory.TIMEOUT,
              `The tool did not finish within ${timeoutMs} ms.`,
              true,
            ),
          }
          : err instanceof PluginCrashedError
          ? { error: toolError(ToolErrorCategory.PROCESS_CRASHED, message) }
          : { error: toolError(ToolErrorCategory.UNKNOWN, message) },
      };
    } finally {
      clearTimeout(timer);
      ac.abort(new Error("tool call settled"));
      signal.removeEventListener("abort", onAbort);
      release?.();
    }
  }

  /**
   * Runs an interactive call: the tool streams its prompt as a
   * `partial_result`, the {@linkcode InteractiveGate} waits for the first
   * answer (no tool deadline applies; the ask timeout does), and the
   * answer becomes the result. The tool's stream is closed either way.
   */
  async #executeInteractive(
    r: CallRecord,
    turnId: string,
    signal: AbortSignal,
  ): Promise<void> {
    const entry = r.entry!;
    const call = r.call!;
    let { outcome, prompt } = await this.#invokeTool(
      r,
      turnId,
      signal,
      undefined,
    );
    if (!outcome && prompt) {
      let asked;
      try {
        asked = await this.#interactive.ask({
          sessionId: this.sessionId,
          callId: call.id,
          provider: entry.provider,
          tool: call.toolName,
          prompt,
        }, signal);
      } catch (err) {
        if (r.span) endSpanWithError(r.span, err, true);
        throw err;
      }
      if (asked.answered) {
        outcome = { result: sortJsonKeys(asked.response) as JsonObject };
      } else if (asked.decidedBy === "on_ask:fail") {
        const err = new AgentError(
          "approval_required",
          `Cannot run "${entry.provider}.${call.toolName}": it asks the user, nobody can answer and on_ask is "fail"`,
        );
        if (r.span) endSpanWithError(r.span, err, false);
        throw err;
      } else {
        outcome = {
          error: toolError(
            ToolErrorCategory.EXECUTION_FAILED,
            asked.decidedBy === "on_ask:timeout"
              ? `Nobody answered within ${this.#spec.askTimeoutMs} ms. Go on with your best judgement and say what you assumed.`
              : "Nobody can answer in this run (it is not interactive). Go on with your best judgement and say what you assumed.",
          ),
        };
      }
    }
    await this.#finishCall(
      r,
      turnId,
      outcome ?? {
        error: toolError(
          ToolErrorCategory.UNKNOWN,
          "The interactive tool ended its stream without a prompt, a result or an error.",
        ),
      },
    );
  }

  /**
   * Counts consecutive crashed calls of a provider; the breaker opens at
   * {@linkcode CIRCUIT_BREAKER_CRASHES} (with a warning), and any other
   * outcome closes the count again.
   */
  #trackCrash(provider: string, outcome: StoredOutcome): void {
    const crashed = "error" in outcome &&
      outcome.error.category === ToolErrorCategory.PROCESS_CRASHED;
    const before = this.#crashes.get(provider) ?? 0;
    if (!crashed) {
      if (before < CIRCUIT_BREAKER_CRASHES) this.#crashes.delete(provider);
      return;
    }
    if (before >= CIRCUIT_BREAKER_CRASHES) return;
    this.#crashes.set(provider, before + 1);
    if (before + 1 === CIRCUIT_BREAKER_CRASHES) {
      this.#emit({
        type: "warning",
        code: "circuit_open",
        message:
          `The "${provider}" tool provider crashed ${CIRCUIT_BREAKER_CRASHES} times in a row; its tools are disabled for the rest of this session.`,
      });
    }
  }

  /** Ends the `session` span with the terminal status. */
  #endSessionSpan(status: SessionStatus): void {
    const span = this.#sessionSpan;
    if (!span.recording) return;
    span.setAttributes({
      "session.status": SESSION_STATUS_TEXT[status],
      "session.turns": this.#turns,
      "session.cost_usd": this.#budget.spentUsd,
      "session.bound": this.#bound,
      "error.type": this.#error?.code,
    });
    if (status === SessionStatus.FAILED) {
      span.end({ code: "error", message: this.#error?.message ?? "failed" });
    } else if (status === SessionStatus.CANCELLED) {
      span.setAttribute("cancelled", true);
      span.end();
    } else span.end({ code: "ok" });
  }

  /** Starts the `tool.execute` span of a call (under the turn). */
  #startToolSpan(r: CallRecord): KernelSpan {
    const s = r.entry!.schema;
    return this.#tracer.startSpan("tool.execute", {
      "tool.provider": r.entry!.provider,
      "tool.name": s.name,
      "tool.kind": toolKindText(s.kind),
      "tool.call_id": r.toolUse.id,
      "tool.plan_item_id": r.planItem?.id,
    }, this.#turnSpan);
  }

  /**
   * Ends a call's `tool.execute` span with its outcome; a call that never
   * ran (denied, invalid arguments) gets an instantaneous one, so the turn
   * stays reconstructible from its trace.
   */
  #endToolSpan(
    r: CallRecord,
    outcome: StoredOutcome,
    deniedBy: string | undefined,
  ): void {
    if (!this.#tracer.enabled) return;
    const span = r.span ?? this.#startToolSpan(r);
    r.span = span;
    if ("result" in outcome) {
      span.setAttribute("tool.outcome", "ok");
      span.end({ code: "ok" });
      return;
    }
    const category = ToolErrorCategory[outcome.error.category]?.toLowerCase();
    span.setAttributes({
      "tool.outcome": deniedBy !== undefined ? "denied" : "error",
      "tool.error_category": category,
      "tool.denied_by": deniedBy,
    });
    // A denial is a decision, not a failure of the call.
    if (deniedBy !== undefined) span.end();
    else span.end({ code: "error", message: outcome.error.message });
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
    this.#endSessionSpan(status);
    await this.#log.close();
    const result: SessionResult = {
      sessionId: this.sessionId,
      profile: this.profile,
      status: SESSION_STATUS_TEXT[status] as SessionStatusText,
      ...(this.#lastFinal ? { finalMessage: this.#lastFinal } : {}),
      finalText: messageText(this.#lastFinal),
      totalCostUsd: total,
      turns: this.#turns,
      ...(this.#bound ? { boundFired: this.#bound } : {}),
      ...(this.#error ? { error: this.#error } : {}),
    };
    this.#emit({
      type: "session_ended",
      sessionId: this.sessionId,
      status: result.status,
      finalText: result.finalText,
      totalCostUsd: total,
      ...(result.boundFired ? { boundFired: result.boundFired } : {}),
      ...(result.error ? { error: result.error } : {}),
    });
    return result;
  }
}

/** Options of {@linkcode runSession}. */
export interface RunSessionOptions extends Omit<OpenSessionOptions, "onEvent"> {
  /** The user's prompt (optional when resuming a session that ends with a user message). */
  readonly prompt?: string;
  /** Cancels the turn; the session then ends `cancelled`. */
  readonly signal?: AbortSignal;
}

/**
 * Runs a session for one prompt: opens (or resumes) it, sends the prompt,
 * and closes it. Iterate the result for the events — `session_started`
 * first, `session_ended` last — and await `result` for the outcome. The
 * session runs whether or not anyone iterates.
 *
 * @example Usage
 * ```ts ignore
 * import { runSession } from "@ph/agent/kernel";
 * const run = runSession(spec, deps, { prompt: "Fix the typo in README.md", approve });
 * for await (const event of run) if (event.type === "text_delta") console.log(event.text);
 * const { status, finalText } = await run.result;
 * ```
 *
 * @param spec The session's inputs.
 * @param deps Store, plugins and effects.
 * @param options Prompt, signal, approver, resume.
 * @returns The events and the result. `result` rejects only when the
 * session cannot be opened (then iteration throws the same error).
 */
export function runSession(
  spec: SessionSpec,
  deps: AgentDeps,
  options: RunSessionOptions = {},
): SessionRun<SessionResult> {
  const queue = new EventQueue<SessionEvent>();
  const { prompt, signal, ...open } = options;
  const result = (async () => {
    let session: AgentSession;
    try {
      session = await AgentSession.open(spec, deps, {
        ...open,
        onEvent: (e) => queue.push(e),
      });
    } catch (err) {
      queue.close(err);
      throw err;
    }
    let sent: SendResult;
    try {
      sent = await session.send(prompt, {
        ...(signal ? { signal } : {}),
        events: false,
      }).result;
    } catch (err) {
      await session.close();
      queue.close(err);
      throw err;
    }
    try {
      return await session.close(
        sent.outcome === "cancelled" ? "cancelled" : undefined,
      );
    } finally {
      queue.close();
    }
  })();
  result.catch(() => {});
  return {
    result,
    [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator](),
  };
}

/**
 * The CLI exit code of a session result: 0 success, 1 task error, 4 policy
 * denied a required action (`on_ask = "fail"`), 5 a bound fired (the three
 * `error_max_*` statuses and the doom loop), 6 provider error, 130
 * cancelled.
 *
 * @param result The session result.
 * @returns The exit code.
 */
export function exitCodeOf(result: SessionResult): number {
  if (result.status === "cancelled") return 130;
  if (result.boundFired) return 5;
  if (result.status === "completed") return 0;
  const code = result.error?.code;
  if (code === "approval_required") return 4;
  if (
    code !== undefined && [
      "context_length_exceeded",
      "rate_limited",
      "overloaded",
      "auth_error",
      "invalid_request",
      "content_filtered",
      "unknown",
      "no_eligible_model",
      "pricing_no_tier",
      "process_crashed",
    ].includes(code)
  ) return 6;
  return 1;
}

/** A call's arguments against its input schema, as the model should read it. */
function argumentsViolation(
  input: JsonObject,
  schema: Schema,
): string | undefined {
  const bad = schemaViolation(input, schema, "arguments");
  return bad ? `Invalid arguments: ${bad}.` : undefined;
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

/**
 * The paths a call's arguments name: a string `path`, and the `path` of
 * each object of a `files` list (multi-file edits).
 */
export function pathsOf(input: JsonObject): string[] {
  const out: string[] = [];
  if (typeof input.path === "string" && input.path !== "") out.push(input.path);
  if (Array.isArray(input.files)) {
    for (const f of input.files) {
      if (
        f && typeof f === "object" && !Array.isArray(f) &&
        typeof f.path === "string" && f.path !== ""
      ) out.push(f.path);
    }
  }
  return out;
}

/**
 * The W3C Trace Context header of a span, for the plugin a call goes to
 * (kernel.md: trace context crosses the plugin boundary as `traceparent`).
 */
function traceHeaders(
  span: KernelSpan | undefined,
): { headers?: Readonly<Record<string, string>> } {
  const tp = span?.traceparent;
  return tp ? { headers: { traceparent: tp } } : {};
}
