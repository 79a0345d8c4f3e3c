/**
 * The kernel's frontend surfaces (kernel.md §2.6): one implementation of
 * every session operation a frontend performs — create, attach, resume,
 * detach, list, state, input, plan decisions, interrupt, metadata, token
 * deltas — called both by the callback RPC handlers ({@linkcode
 * FrontendHub.handlers}) and by the in-process library (`openKernel`'s
 * `Kernel.session`), so that the CLI and a plugin frontend are frontends of
 * the same operations.
 *
 * Multi-attach: any number of frontends attach one session, each on its own
 * connection, and all see the same state (`kernel.state`), metadata
 * (`kernel.metadata`) and transcript (`kernel.event.*`). Input is queued
 * and run in arrival order; a pending plan item or interactive call takes
 * the first answer, and a later one gets a distinct `FAILED_PRECONDITION`.
 *
 * What it does not own: the agent loop (`kernel/agent/`), the callback
 * transport (`kernel/callback/`), storage (`kernel/state/`).
 *
 * @module
 */
import type { CompactionOutcome } from "../agent/compaction.ts";
import { create, type JsonObject, toBinary } from "@bufbuild/protobuf";
import { durationFromMs } from "@bufbuild/protobuf/wkt";
import {
  type ContentBlock,
  Role,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import type { ModelSpec } from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import type { Schema } from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import {
  ContextStateSchema,
  ModelStateSchema,
  type SessionState,
  SessionStateSchema,
  SessionStatus,
} from "../../proto/gen/pluggableharness/session/v1/types_pb.ts";
import { DeltaKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import {
  type TokenDelta,
  TokenDeltaSchema,
} from "../../proto/gen/pluggableharness/kernel/v1/events_pb.ts";
import type { ListSessionsRequest } from "../../proto/gen/pluggableharness/kernel/v1/rpc_request_pb.ts";
import type { PluginIdentity } from "../../contract/plugin_identity.ts";
import type { AgentSession, DirectCall } from "../agent/session.ts";
import type { StoredOutcome } from "../agent/history.ts";
import type { ToolEndpoint } from "../agent/endpoints.ts";
import type { ToolSchema } from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import type { SendResult, SessionRun } from "../agent/session_types.ts";
import type {
  ApprovalAnswer,
  ApprovalRequest,
  SessionEvent,
} from "../agent/session_events.ts";
import { schemaViolation } from "../agent/schema_check.ts";
import type { Approver } from "../agent/approval_gate.ts";
import type { InteractiveAnswerer } from "../agent/interactive_gate.ts";
import { EventQueue } from "../agent/_async.ts";
import type { EventBus } from "../bus/event_bus.ts";
import { ulid } from "../state/ulid.ts";
import { sessionInfoOf } from "../state/_convert.ts";
import type {
  SessionLog,
  SessionRecord,
  SessionStore,
} from "../state/session_store.ts";
import type {
  GrantHolder,
  SessionRegistry,
} from "../state/session_registry.ts";
import {
  Code,
  frontendError,
  FrontendErrorCategory,
  type FrontendHandlers,
  type FrontendSurface,
  invalidRequest,
} from "../callback/frontend_surface.ts";
import { DEFAULT_DELTA_BUFFER, DeltaFanout } from "./delta_fanout.ts";
import { MetadataBoard } from "./metadata_board.ts";
import type { RenderPipeline } from "./render.ts";
import { frontendHandlers } from "./rpc_handlers.ts";
import { parseSlashArgs } from "./slash_args.ts";
import { performKernelAction, withKernelActions } from "./kernel_actions.ts";
import { Category } from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";

/** The bus topic of session state changes. */
export const STATE_TOPIC = "kernel.state";

/** What {@linkcode SessionOpener} is asked to open. */
export interface OpenRequest {
  /** The profile (the kernel's default when absent). */
  readonly profile?: string;
  /** Resume this stored session. */
  readonly resumeId?: string;
  /** The working directory (the kernel's when absent). */
  readonly workingDirectory?: string;
  /**
   * Who answers asks: `callback` for a session frontends drive (answers
   * arrive through ResolvePlanDecision), or the library caller's choice.
   */
  readonly onAsk?: "deny" | "fail" | "callback";
  /** The library caller's approver. */
  readonly approve?: Approver;
  /** The library caller's interactive answerer. */
  readonly answer?: InteractiveAnswerer;
  /** How long an ask waits, in milliseconds. */
  readonly askTimeoutMs?: number;
  /** Start in plan mode (read-only tools). */
  readonly planMode?: boolean;
  /** Receives every session event (the hub's listener). */
  readonly onEvent: (event: SessionEvent) => void;
}

/** A session the opener opened. */
export interface OpenedSession {
  /** The session. */
  readonly session: AgentSession;
  /** Its absolute working directory. */
  readonly workingDirectory: string;
}

/** Opens agent sessions for the hub (the kernel's profiles and plugins). */
export type SessionOpener = (request: OpenRequest) => Promise<OpenedSession>;

/** A direct-invoke slash command the kernel routes to its provider. */
export interface SlashCommandRoute {
  /** The slash-command provider's local name. */
  readonly provider: string;
  /** The command's `input_schema`. */
  readonly inputSchema?: Schema;
  /** The command as the plan/apply gate sees it (kind, risk, schema). */
  readonly schema: ToolSchema;
  /** The provider's `Invoke`, as a tool endpoint. */
  readonly endpoint: ToolEndpoint;
}

/** Options of {@linkcode FrontendHub}. */
export interface FrontendHubOptions {
  /** The session store (lists, replay-only attach). */
  readonly store: SessionStore;
  /** Live sessions and grants. */
  readonly registry: SessionRegistry;
  /** Opens sessions. */
  readonly open: SessionOpener;
  /** Where `kernel.state` and `kernel.metadata` are published. */
  readonly bus?: EventBus;
  /**
   * The bus reaches other kernels (the PostgreSQL bus bridge): `kernel.state`
   * is published even when nobody subscribes here.
   */
  readonly bridged?: boolean;
  /** A tool's `input_schema` (corrected input is checked against it). */
  readonly toolSchema?: (provider: string, tool: string) => Schema | undefined;
  /** A model's spec (`supports_vision`, context window). */
  readonly modelSpec?: (
    provider: string,
    id: string,
  ) => Promise<ModelSpec | undefined>;
  /** The first model of a profile's chain. */
  readonly profileModel?: (
    profile: string,
  ) => { provider: string; id: string } | undefined;
  /** Direct-invoke slash commands by name, for a profile. */
  readonly slashCommands?: (
    profile: string,
  ) => ReadonlyMap<string, SlashCommandRoute>;
  /** Renders stored events for `RenderEvents` (kernel fallback when absent). */
  readonly render?: RenderPipeline;
  /** Each `StreamDeltas` subscriber's buffer. @default {64} */
  readonly deltaBuffer?: number;
  /** The clock. @default {Date.now} */
  readonly now?: () => number;
}

/** An action node the kernel rendered into a session's transcript. */
export interface RenderedAction {
  /** The tool to invoke. */
  readonly toolName: string;
  /** Its provider. */
  readonly provider: string;
  /** Its arguments. */
  readonly args: JsonObject;
}

/** One session as the hub sees it. */
export class HubSession {
  /** The session's ULID. */
  readonly sessionId: string;
  /** Its profile. */
  readonly profile: string;
  /** Its working directory. */
  readonly workingDirectory: string;
  /** The running agent session; absent for a replay-only attach. */
  readonly agent: AgentSession | undefined;
  /** The token delta fan-out. */
  readonly deltas: DeltaFanout<TokenDelta>;
  /** Attached frontends and their grant releases. */
  readonly attached: Map<string, () => void> = new Map();
  /** Plan items waiting for an answer. */
  readonly pendingPlans: Map<string, ApprovalRequest> = new Map();
  /** Plan items answered (a late answer is told apart from an unknown id). */
  readonly resolvedPlans: Set<string> = new Set();
  /** Called whenever a plan item starts or stops waiting for an answer. */
  readonly planWatchers: Set<() => void> = new Set();
  /** Action nodes rendered in this session, by node id. */
  readonly actions: Map<string, RenderedAction> = new Map();
  /** The log of a replay-only attach (closed with the handle). */
  readonly replayLog: SessionLog | undefined;
  /** Releases the registry entry of a replay-only attach. */
  readonly unregister: (() => void) | undefined;
  /** Completed turns. */
  turnCount = 0;
  /** Input plus output tokens of the turns this kernel ran. */
  totalTokens = 0;
  /** The model of the latest turn. */
  model: { provider: string; id: string } | undefined;
  /** Input tokens of the latest model call. */
  usedTokens: number | undefined;
  /** The inputs waiting to run, in arrival order. */
  queue: Promise<void> = Promise.resolve();
  /** Cancels the running input's turn. */
  running: AbortController | undefined;
  /** The last published state (without `elapsed`), for change detection. */
  lastState = "";
  /** Serializes state publication. */
  stateChain: Promise<void> = Promise.resolve();
  /** What the session was opened with (`/clear` and `/resume` reuse it). */
  request: Omit<OpenRequest, "onEvent"> = {};
  /** The in-process listener it was opened with. */
  listener: ((event: SessionEvent) => void) | undefined;
  /**
   * The session an in-process caller's `/clear` or `/resume` moved to
   * (the library's session handle follows it).
   */
  movedTo: HubSession | undefined;

  /**
   * Creates a handle.
   *
   * @param init Its fields.
   */
  constructor(init: {
    sessionId: string;
    profile: string;
    workingDirectory: string;
    agent?: AgentSession;
    deltaBuffer: number;
    replayLog?: SessionLog;
    unregister?: () => void;
  }) {
    this.sessionId = init.sessionId;
    this.profile = init.profile;
    this.workingDirectory = init.workingDirectory;
    this.agent = init.agent;
    this.deltas = new DeltaFanout(init.deltaBuffer);
    this.replayLog = init.replayLog;
    this.unregister = init.unregister;
  }

  /** True when the session takes no input: attached replay-only, or ended. */
  get replayOnly(): boolean {
    return this.agent === undefined || this.agent.ended;
  }
}

function holderKey(h: GrantHolder): string {
  return `${h.category}/${h.name}`;
}

/** The `SESSION_NOT_FOUND` error of a frontend's Attach or Resume. */
export function notFound(sessionId: string): Error {
  return frontendError(
    Code.NOT_FOUND,
    FrontendErrorCategory.SESSION_NOT_FOUND,
    `No session "${sessionId}" in this kernel's session store`,
  );
}

/** The `SESSION_REPLAY_ONLY` error of input to a replay-only session. */
export function replayOnlyError(sessionId: string): Error {
  return frontendError(
    Code.FAILED_PRECONDITION,
    FrontendErrorCategory.SESSION_REPLAY_ONLY,
    `Session "${sessionId}" is replay-only (it ended, or was attached without re-opening): new input is refused`,
  );
}

/** Statuses a frontend's Resume attaches replay-only. */
export const BOUND_STATUSES: ReadonlySet<SessionStatus> = new Set([
  SessionStatus.ERROR_MAX_TURNS,
  SessionStatus.ERROR_MAX_BUDGET_USD,
  SessionStatus.ERROR_MAX_WALL_CLOCK,
  SessionStatus.FAILED,
]);

/** Every session frontends (and the library) operate on. */
export class FrontendHub implements FrontendSurface {
  readonly #o: FrontendHubOptions;
  readonly #sessions = new Map<string, HubSession>();
  readonly #now: () => number;
  /** By holder: the running sessions it was attached to when it exited. */
  readonly #left = new Map<string, string[]>();
  /** The metadata surface. */
  readonly metadata: MetadataBoard;

  /**
   * Creates the hub.
   *
   * @param options Store, registry, opener and lookups.
   */
  constructor(options: FrontendHubOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.metadata = new MetadataBoard(options.bus);
  }

  /**
   * The handle of a session this hub holds.
   *
   * @param sessionId The session.
   * @returns The handle, or `undefined`.
   */
  get(sessionId: string): HubSession | undefined {
    return this.#sessions.get(sessionId);
  }

  /** The hub's options (internal: the RPC handlers). */
  get _options(): FrontendHubOptions {
    return this.#o;
  }

  // ----- lifecycle ---------------------------------------------------------

  /**
   * Opens (creates or resumes) a session and holds it.
   *
   * @param request What to open (the hub sets `onEvent`).
   * @param onEvent Also receives every session event.
   * @returns The handle.
   */
  async open(
    request: Omit<OpenRequest, "onEvent">,
    onEvent?: (event: SessionEvent) => void,
  ): Promise<HubSession> {
    // Events that arrive while the session opens wait for its handle.
    const ref: { handle?: HubSession } = {};
    const early: SessionEvent[] = [];
    const opened = await this.#o.open({
      ...request,
      onEvent: (e) => {
        if (ref.handle) this.#onEvent(ref.handle, e);
        else early.push(e);
        onEvent?.(e);
      },
    });
    const s = opened.session;
    const handle = ref.handle = new HubSession({
      sessionId: s.sessionId,
      profile: s.profile,
      workingDirectory: opened.workingDirectory,
      agent: s,
      deltaBuffer: this.#o.deltaBuffer ?? DEFAULT_DELTA_BUFFER,
    });
    handle.request = request;
    handle.listener = onEvent;
    handle.turnCount = s.history.filter((m) => m.role === Role.ASSISTANT)
      .length;
    this.#sessions.set(s.sessionId, handle);
    for (const e of early) this.#onEvent(handle, e);
    this.#publishState(handle);
    return handle;
  }

  /**
   * Submits input: queued behind earlier input, run in arrival order.
   *
   * @param h The session.
   * @param text The prompt text; `undefined` continues a resumed session
   * from its history.
   * @param options Extra content blocks, a signal, event buffering, and
   * the plan mode to switch to when this input's turn starts.
   * @returns The first turn's id and the run.
   */
  submit(
    h: HubSession,
    text: string | undefined,
    options: {
      extraContent?: readonly ContentBlock[];
      signal?: AbortSignal;
      events?: boolean;
      planMode?: boolean;
    } = {},
  ): { turnId: string; run: SessionRun<SendResult> } {
    const agent = h.agent;
    if (!agent || agent.ended) throw replayOnlyError(h.sessionId);
    const turnId = ulid();
    const events = new EventQueue<SessionEvent>();
    const result = Promise.withResolvers<SendResult>();
    result.promise.catch(() => {});
    const start = async () => {
      if (agent.ended) {
        result.reject(replayOnlyError(h.sessionId));
        events.close();
        return;
      }
      const ac = new AbortController();
      h.running = ac;
      const signal = options.signal
        ? AbortSignal.any([ac.signal, options.signal])
        : ac.signal;
      try {
        if (
          options.planMode !== undefined && options.planMode !== agent.planMode
        ) {
          agent.setPlanMode(options.planMode);
          this.#publishState(h);
        }
        const run = agent.send(text, {
          signal,
          turnId,
          events: options.events ?? true,
          ...(options.extraContent
            ? { extraContent: options.extraContent }
            : {}),
        });
        if (options.events ?? true) {
          for await (const e of run) events.push(e);
        }
        result.resolve(await run.result);
      } catch (err) {
        result.reject(err);
      } finally {
        if (h.running === ac) h.running = undefined;
        events.close();
        this.#publishState(h);
      }
    };
    h.queue = h.queue.then(start, start);
    return {
      turnId,
      run: {
        result: result.promise,
        [Symbol.asyncIterator]: () => events[Symbol.asyncIterator](),
      },
    };
  }

  /**
   * Runs one call without a model turn (a slash command, an action node),
   * queued behind earlier input like {@linkcode FrontendHub.submit}, through
   * the session's plan/apply gate (policy and approvals apply); its
   * `tool_call` and `tool_result` reach every attached frontend.
   *
   * @param h The session.
   * @param call The target and its arguments.
   * @returns The turn id the call's events carry, and its outcome.
   * @throws {GrpcStatusError} `SESSION_REPLAY_ONLY` for a session that
   * takes no input.
   */
  invoke(
    h: HubSession,
    call: DirectCall,
  ): { turnId: string; outcome: Promise<StoredOutcome> } {
    const agent = h.agent;
    if (!agent || agent.ended) throw replayOnlyError(h.sessionId);
    const turnId = ulid();
    const outcome = Promise.withResolvers<StoredOutcome>();
    outcome.promise.catch(() => {});
    const start = async () => {
      if (agent.ended) {
        outcome.reject(replayOnlyError(h.sessionId));
        return;
      }
      const ac = new AbortController();
      h.running = ac;
      try {
        outcome.resolve(
          await agent.invokeDirect(call, { turnId, signal: ac.signal }),
        );
      } catch (err) {
        outcome.reject(err);
      } finally {
        if (h.running === ac) h.running = undefined;
        this.#publishState(h);
      }
    };
    h.queue = h.queue.then(start, start);
    return { turnId, outcome: outcome.promise };
  }

  /**
   * The direct-invoke slash commands a profile lists, by name (what a
   * frontend completes after `/`).
   *
   * @param profile The profile's name.
   * @returns The command names, without the slash, sorted.
   */
  slashCommandNames(profile: string): string[] {
    return [...(this.#o.slashCommands?.(profile).keys() ?? [])].sort();
  }

  /**
   * Runs a direct-invoke slash command (`InvokeSlashCommand`, and `/name`
   * typed in the CLI): the profile's route, `args` parsed against its
   * `input_schema`, then {@linkcode FrontendHub.invoke} as a
   * `CATEGORY_SLASHCOMMAND` plan item.
   *
   * A result that names a kernel action (`kernel_action`, see
   * `kernel_actions.ts`) is carried out for this session and `caller`.
   *
   * @param h The session.
   * @param name The command name, without the slash.
   * @param args The raw argument string.
   * @param options The frontend that invoked it (absent in process).
   * @returns The turn id and the outcome.
   * @throws {GrpcStatusError} `INVALID_ARGUMENT` for a missing name, a
   * leading slash or bad arguments; `NOT_FOUND` for a command the profile
   * does not list; `SESSION_REPLAY_ONLY` for a session without input.
   */
  invokeSlashCommand(
    h: HubSession,
    name: string,
    args: string,
    options: { caller?: PluginIdentity } = {},
  ): { turnId: string; outcome: Promise<StoredOutcome> } {
    if (!name) throw invalidRequest("name is required");
    if (name.startsWith("/")) {
      throw invalidRequest(
        `name is "${name}": send the command name without the leading slash`,
      );
    }
    const route = this.#o.slashCommands?.(h.profile).get(name);
    if (!route) {
      const known = [...(this.#o.slashCommands?.(h.profile).keys() ?? [])]
        .map((n) => `/${n}`);
      throw frontendError(
        Code.NOT_FOUND,
        FrontendErrorCategory.INVALID_REQUEST,
        `Unknown slash command "/${name}": profile "${h.profile}" lists no such direct-invoke command (${
          known.length ? `it has ${known.join(", ")}` : "it lists none"
        })`,
      );
    }
    if (h.replayOnly) throw replayOnlyError(h.sessionId);
    const parsed = parseSlashArgs(name, args, route.inputSchema);
    return this.invoke(h, {
      provider: route.provider,
      schema: route.schema,
      endpoint: withKernelActions(
        route.endpoint,
        (action, signal) =>
          performKernelAction(this, h, action, {
            schema: route.schema,
            provider: route.provider,
            ...(options.caller ? { caller: options.caller } : {}),
            ...(signal ? { signal } : {}),
          }),
      ),
      arguments: parsed,
      producerCategory: Category.SLASHCOMMAND,
    });
  }

  /**
   * Opens another session like `h` was opened — same profile, working
   * directory, asks and listener — new, or resuming a stored one
   * (`/clear`, `/resume`).
   *
   * @param h The session to copy.
   * @param options A session to resume, and its profile.
   * @returns The new handle.
   */
  reopen(
    h: HubSession,
    options: { resumeId?: string; profile?: string },
  ): Promise<HubSession> {
    const { resumeId: _, ...request } = h.request;
    return this.open({
      ...request,
      profile: options.profile ?? h.profile,
      ...(h.workingDirectory ? { workingDirectory: h.workingDirectory } : {}),
      ...(options.resumeId ? { resumeId: options.resumeId } : {}),
    }, h.listener);
  }

  /**
   * Hands the operator of `from` over to `to` (`/clear`, `/resume`): a
   * frontend plugin is attached to `to` (it stays attached to `from`
   * until it detaches); an in-process caller's handle moves to `to`.
   *
   * @param from The session the command ran in.
   * @param to The session to go on in.
   * @param caller The frontend plugin, if one invoked the command.
   */
  handOver(from: HubSession, to: HubSession, caller?: PluginIdentity): void {
    if (caller) this._attach(to, caller);
    else from.movedTo = to;
  }

  /**
   * Records the model a `/model` switch chose and republishes the state.
   *
   * @param h The session.
   * @param model The new first choice.
   */
  modelSelected(h: HubSession, model: { provider: string; id: string }): void {
    h.model = { provider: model.provider, id: model.id };
    this.#publishState(h);
  }

  /**
   * Switches plan mode (the `/plan` kernel action) and republishes the
   * state.
   *
   * @param h The session.
   * @param on Plan mode.
   * @throws {TypeError} When the session has ended or a prompt runs.
   */
  setPlanMode(h: HubSession, on: boolean): void {
    if (!h.agent) throw replayOnlyError(h.sessionId);
    h.agent.setPlanMode(on);
    this.#publishState(h);
  }

  /**
   * Answers a pending plan item; the first answer wins.
   *
   * @param h The session.
   * @param planItemId The item.
   * @param answer Decision, scope and corrected input.
   * @throws {GrpcStatusError} `NOT_FOUND` for an unknown item,
   * `FAILED_PRECONDITION` for one already answered or an ALWAYS that cannot
   * be persisted, `INVALID_ARGUMENT` for corrected input that breaks the
   * tool's `input_schema`.
   */
  decide(h: HubSession, planItemId: string, answer: ApprovalAnswer): void {
    if (!planItemId) throw invalidRequest("plan_item_id is required");
    const pending = h.pendingPlans.get(planItemId);
    if (!pending) {
      if (h.resolvedPlans.has(planItemId)) {
        throw frontendError(
          Code.FAILED_PRECONDITION,
          FrontendErrorCategory.INVALID_REQUEST,
          `Plan item "${planItemId}" is already resolved: the first answer won`,
        );
      }
      throw frontendError(
        Code.NOT_FOUND,
        FrontendErrorCategory.INVALID_REQUEST,
        `No plan item "${planItemId}" waits for a decision in session "${h.sessionId}"`,
      );
    }
    if (answer.scope === "always" && !pending.scopes.includes("always")) {
      throw frontendError(
        Code.FAILED_PRECONDITION,
        FrontendErrorCategory.INVALID_REQUEST,
        `Cannot accept scope ALWAYS for plan item "${planItemId}": this kernel cannot persist policy (answer ONCE or SESSION)`,
      );
    }
    if (answer.input !== undefined) {
      if (answer.decision !== "allow") {
        throw invalidRequest(
          "corrected_input is only valid with decision ALLOW",
        );
      }
      const schema = this.#o.toolSchema?.(pending.provider, pending.tool);
      if (!schema) {
        throw frontendError(
          Code.FAILED_PRECONDITION,
          FrontendErrorCategory.INVALID_REQUEST,
          `Cannot check corrected_input: no input_schema is known for "${pending.provider}.${pending.tool}"`,
        );
      }
      const bad = schemaViolation(answer.input, schema);
      if (bad) {
        throw invalidRequest(
          `corrected_input does not match the input_schema of "${pending.provider}.${pending.tool}": ${bad}`,
        );
      }
    }
    if (!h.agent?.resolveApproval(planItemId, answer)) {
      throw frontendError(
        Code.FAILED_PRECONDITION,
        FrontendErrorCategory.INVALID_REQUEST,
        `Plan item "${planItemId}" is already resolved: the first answer won`,
      );
    }
  }

  /**
   * Cancels the running turn, a prompt's, a slash command's or a wake
   * turn's (sub-agents spawned in it are cancelled with it). Input queued
   * behind it still runs. No turn running: nothing to do.
   *
   * @param h The session.
   * @param reason The abort reason.
   * @returns Whether a turn was running.
   */
  interrupt(
    h: HubSession,
    reason: unknown = new DOMException(
      "Interrupted by a frontend",
      "AbortError",
    ),
  ): boolean {
    const running = h.running;
    running?.abort(reason);
    // A wake turn runs in the agent session, not through the hub's queue.
    const turn = h.agent?.interrupt(reason) ?? false;
    return running !== undefined || turn;
  }

  /**
   * Compacts a session's history now (`/compact`): the compactor context
   * providers run whatever the fill; while a turn runs, at its next model
   * call. The outcome reports the history's tokens before and after; a
   * failed pass leaves the history unchanged.
   *
   * @param h The session.
   * @param options Cancels an immediate pass.
   * @returns What the pass did.
   * @throws {TypeError} When the session is replay-only or has ended.
   */
  compact(
    h: HubSession,
    options: { signal?: AbortSignal } = {},
  ): Promise<CompactionOutcome> {
    if (!h.agent) {
      return Promise.reject(
        new TypeError(
          `Cannot compact session "${h.sessionId}": it is attached replay-only`,
        ),
      );
    }
    return h.agent.compactNow(options);
  }

  /**
   * Ends a session the hub holds and forgets it.
   *
   * @param h The session.
   * @param status The terminal status.
   * @returns The agent session's result, for a live session.
   */
  async close(
    h: HubSession,
    status?: "completed" | "cancelled",
  ): Promise<Awaited<ReturnType<AgentSession["close"]>> | undefined> {
    try {
      if (h.agent) {
        await h.queue;
        return await h.agent.close(status);
      }
      return undefined;
    } finally {
      this._forget(h);
      this.#publishState(h);
      // The final state reaches the bus (and other kernels) before the
      // kernel can close it.
      await h.stateChain;
    }
  }

  /** Ends every session the hub holds. */
  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.#sessions.values()].map((h) => {
      h.running?.abort();
      return this.close(h);
    }));
  }

  /** Forgets a session (internal: the RPC handlers). */
  _forget(h: HubSession): void {
    if (this.#sessions.get(h.sessionId) !== h) return;
    this.#sessions.delete(h.sessionId);
    for (const release of h.attached.values()) release();
    h.attached.clear();
    h.deltas.close();
    h.unregister?.();
    h.replayLog?.close().catch(() => {});
  }

  /** Attaches a frontend, with a registry grant (internal). */
  _attach(h: HubSession, caller: PluginIdentity): void {
    const k = holderKey(caller);
    if (h.attached.has(k)) return;
    h.attached.set(k, this.#o.registry.grant(caller, h.sessionId));
    h.agent?.setHeadless(false);
  }

  /** The log a readable session is read from (internal). */
  _log(h: HubSession): SessionLog | undefined {
    return this.#o.registry.get(h.sessionId)?.log ?? h.replayLog;
  }

  /** A session's stored record (internal). */
  async _record(sessionId: string): Promise<SessionRecord | undefined> {
    const live = this.#o.registry.get(sessionId);
    if (live) return await live.log.info();
    const { sessions } = await this.#o.store.list();
    return sessions.find((s) => s.sessionId === sessionId);
  }

  /** Opens a stored session replay-only: no input, read and watch (internal). */
  async _openReplayOnly(record: SessionRecord): Promise<HubSession> {
    const existing = this.#sessions.get(record.sessionId);
    if (existing) return existing;
    const log = await this.#o.store.open(record.sessionId);
    const unregister = this.#o.registry.register({
      log,
      remainingDepth: 0,
      remainingCostBudgetUsd: 0,
      profile: record.profile,
      depth: record.depth,
    });
    const h = new HubSession({
      sessionId: record.sessionId,
      profile: record.profile,
      workingDirectory: "",
      deltaBuffer: this.#o.deltaBuffer ?? DEFAULT_DELTA_BUFFER,
      replayLog: log,
      unregister,
    });
    this.#sessions.set(h.sessionId, h);
    return h;
  }

  // ----- state -------------------------------------------------------------

  /**
   * The session's `SessionState` snapshot.
   *
   * @param h The session.
   * @returns The state.
   */
  async state(h: HubSession): Promise<SessionState> {
    const log = this.#o.registry.get(h.sessionId)?.log ?? h.replayLog;
    const record = log ? await log.info() : await this._record(h.sessionId);
    if (!record) throw notFound(h.sessionId);
    return this.#stateOf(h, record, true);
  }

  async #stateOf(
    h: HubSession,
    record: SessionRecord,
    withElapsed: boolean,
  ): Promise<SessionState> {
    const state = create(SessionStateSchema, {
      info: sessionInfoOf(record),
      workingDirectory: h.workingDirectory,
      turnCount: h.turnCount,
      totalTokens: BigInt(h.totalTokens),
      planMode: h.agent?.planMode ?? false,
    });
    const model = h.model ?? this.#o.profileModel?.(h.profile);
    if (model) {
      state.model = create(ModelStateSchema, model);
      const spec = await this.#o.modelSpec?.(model.provider, model.id);
      if (spec && h.usedTokens !== undefined) {
        state.context = create(ContextStateSchema, {
          usedTokens: BigInt(h.usedTokens),
          windowTokens: spec.contextWindow,
        });
      }
    }
    if (withElapsed) {
      const start = Date.parse(record.startedAt);
      const end = record.endedAt ? Date.parse(record.endedAt) : this.#now();
      state.elapsed = durationFromMs(Math.max(0, end - start));
    }
    return state;
  }

  #publishState(h: HubSession): void {
    const bus = this.#o.bus;
    // Nobody listens: no snapshot to build (the next change is published).
    if (!bus || (bus.subscriberCount === 0 && !this.#o.bridged)) return;
    h.stateChain = h.stateChain.then(async () => {
      const log = this.#o.registry.get(h.sessionId)?.log ?? h.replayLog;
      const record = log
        ? await log.info().catch(() => undefined)
        : await this._record(h.sessionId).catch(() => undefined);
      if (!record) return;
      const watched = await this.#stateOf(h, record, false);
      const key = JSON.stringify(toBinary(SessionStateSchema, watched));
      if (key === h.lastState) return;
      h.lastState = key;
      const start = Date.parse(record.startedAt);
      const end = record.endedAt ? Date.parse(record.endedAt) : this.#now();
      watched.elapsed = durationFromMs(Math.max(0, end - start));
      bus.publishKernel(STATE_TOPIC, {
        payload: toBinary(SessionStateSchema, watched),
        payloadType: SessionStateSchema.typeName,
        schemaVersion: "1",
        sessionId: h.sessionId,
      });
    }).catch(() => {});
  }

  #onEvent(h: HubSession, e: SessionEvent): void {
    switch (e.type) {
      case "text_delta":
      case "thinking_delta":
        h.deltas.push(create(TokenDeltaSchema, {
          sessionId: h.sessionId,
          targetId: e.turnId,
          text: e.text,
          kind: e.type === "thinking_delta"
            ? DeltaKind.THINKING
            : DeltaKind.UNSPECIFIED,
        }));
        return;
      case "turn_started":
        h.model = { provider: e.model.provider, id: e.model.id };
        this.#publishState(h);
        return;
      case "message":
        if (e.role === "assistant") {
          h.turnCount++;
          if (e.usage) {
            const input = e.usage.inputTokens + e.usage.cacheReadTokens +
              e.usage.cacheWriteTokens;
            h.usedTokens = input;
            h.totalTokens += input + e.usage.outputTokens;
          }
        }
        this.#publishState(h);
        return;
      case "approval_requested":
        h.pendingPlans.set(e.planItemId, e);
        for (const watch of h.planWatchers) watch();
        return;
      case "approval_resolved":
        h.pendingPlans.delete(e.planItemId);
        h.resolvedPlans.add(e.planItemId);
        for (const watch of h.planWatchers) watch();
        return;
    }
  }

  // ----- the RPC handlers --------------------------------------------------

  /**
   * The plugin exited: it detaches everywhere, and its metadata blocks
   * turn `DISCONNECTED`.
   *
   * @param caller The plugin.
   */
  released(caller: PluginIdentity): void {
    const k = holderKey(caller);
    const left: string[] = [];
    for (const h of this.#sessions.values()) {
      const release = h.attached.get(k);
      if (!release) continue;
      release();
      h.attached.delete(k);
      if (h.agent) left.push(h.sessionId);
      // The last frontend went away (it exited or crashed): the session
      // goes on headless, its pending asks settled by on_ask.
      if (h.attached.size === 0) h.agent?.setHeadless(true);
    }
    if (left.length) this.#left.set(k, left);
    this.metadata.publisherExited(caller);
  }

  /**
   * The running sessions a frontend was attached to when its process
   * exited (a restarted frontend re-attaches to them).
   *
   * @param caller The frontend plugin.
   * @returns Their ids, in the order the hub holds them; empty when none.
   */
  sessionsLeftBy(caller: PluginIdentity): string[] {
    return [...(this.#left.get(holderKey(caller)) ?? [])];
  }

  /**
   * The frontend RPC handlers for one connection.
   *
   * @param caller The connection's identity.
   * @returns The handlers.
   */
  handlers(caller: PluginIdentity): FrontendHandlers {
    return frontendHandlers(this, caller);
  }

  /**
   * Stored sessions for `ListSessions`, most recently started first.
   *
   * @param req The filters.
   * @returns The infos.
   */
  async list(
    req: Pick<ListSessionsRequest, "status" | "parentSessionId" | "rootsOnly">,
  ): Promise<ReturnType<typeof sessionInfoOf>[]> {
    if (
      req.status !== undefined &&
      (req.status === SessionStatus.UNSPECIFIED ||
        SessionStatus[req.status] === undefined)
    ) {
      throw invalidRequest(
        "status must be a session status (RUNNING, COMPLETED, …), not UNSPECIFIED",
      );
    }
    if (req.rootsOnly && req.parentSessionId) {
      throw invalidRequest(
        "roots_only and parent_session_id contradict each other: set one",
      );
    }
    const { sessions } = await this.#o.store.list({
      ...(req.status !== undefined ? { status: req.status } : {}),
      ...(req.parentSessionId ? { parentSessionId: req.parentSessionId } : {}),
      rootsOnly: req.rootsOnly,
    });
    return sessions.map(sessionInfoOf);
  }

  /**
   * Recorded action nodes become triggerable (the Render pipeline calls
   * this for every tree it paints).
   *
   * @param sessionId The session.
   * @param nodes The tree's action nodes by id.
   */
  recordActions(
    sessionId: string,
    nodes: ReadonlyMap<string, RenderedAction>,
  ): void {
    const h = this.#sessions.get(sessionId);
    if (!h) return;
    for (const [id, a] of nodes) h.actions.set(id, a);
  }

  /** Checks operator input content (internal). */
  async _checkContent(
    h: HubSession,
    content: readonly ContentBlock[],
  ): Promise<{ text: string; extra: ContentBlock[] }> {
    if (content.length === 0) {
      throw invalidRequest("content needs at least one block (a text block)");
    }
    const texts: string[] = [];
    const extra: ContentBlock[] = [];
    for (const [i, b] of content.entries()) {
      switch (b.block.case) {
        case "text":
          texts.push(b.block.value.text);
          break;
        case "image": {
          const model = h.model ?? this.#o.profileModel?.(h.profile);
          const spec = model
            ? await this.#o.modelSpec?.(model.provider, model.id)
            : undefined;
          if (!spec?.supportsVision) {
            throw invalidRequest(
              `content[${i}] is an image, but model "${
                model ? `${model.provider}/${model.id}` : "(none)"
              }" does not support vision`,
            );
          }
          extra.push(b);
          break;
        }
        default:
          throw invalidRequest(
            `content[${i}] is a ${
              b.block.case ?? "empty"
            } block: operator input takes text and image blocks only`,
          );
      }
    }
    if (texts.length === 0 || texts.join("").trim() === "") {
      throw invalidRequest("content needs a non-empty text block");
    }
    return { text: texts.join("\n"), extra };
  }
}
