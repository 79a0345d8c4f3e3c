/**
 * The library entry of a running agent: {@linkcode openKernel} compiles a
 * project's `agent.hcl`, launches the plugins it names, and opens sessions
 * on them. The `agent` command line is built on this same API.
 *
 * This file holds `openKernel`, its phases (compile, start the kernel's
 * services, launch the providers, open the store and the loop's
 * dependencies) and the kernel it returns. The API's types are in
 * `api.ts`, launching and configuring providers in `_providers.ts`.
 *
 * @example Run one prompt from automation
 * ```ts ignore
 * import { openKernel } from "@ph/agent";
 *
 * await using kernel = await openKernel("./my-project");
 * const run = kernel.run("Summarize notes.md into SUMMARY.md", {
 *   approve: (request) =>
 *     Promise.resolve({ decision: "allow", scope: "once" }),
 * });
 * for await (const event of run) console.log(event.type);
 * const { status, finalText } = await run.result;
 * ```
 *
 * @module
 */
import { join, resolve } from "node:path";
import {
  appendPolicyRule,
  CONFIG_FILE_NAME,
  ConfigError,
  type Diagnostic,
  type Plan,
} from "../config/mod.ts";
import type { ToolSchema } from "../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { AgentSession } from "./agent/session.ts";
import { holdWhileWatching, triggerStoredSession } from "./agent/trigger.ts";
import {
  type ControlEndpoint,
  RUN_DIR,
  startControlEndpoint,
} from "./control/control_endpoint.ts";
import { type DueTimer, storedDueTimers } from "./control/due_timers.ts";
import { EventQueue } from "./agent/_async.ts";
import type { SessionEvent } from "./agent/session_events.ts";
import type {
  SendResult,
  SessionResult,
  SessionRun,
} from "./agent/session_types.ts";
import type { AgentDeps } from "./agent/agent_deps.ts";
import { replaySession } from "./agent/history.ts";
import type { ModelChainEntry, SessionSpec } from "./agent/session_spec.ts";
import { sessionSpecFromPlan } from "./agent/session_spec_from_plan.ts";
import type { ModelSpec } from "../proto/gen/pluggableharness/model/v1/types_pb.ts";
import type { OpenedSession, OpenRequest } from "./frontend/hub.ts";
import {
  type RenderFn,
  RenderPipeline,
  replayRendered,
} from "./frontend/render.ts";
import { replayRenderItemOf } from "./_replay_render.ts";
import { producerKey } from "./state/_session_log.ts";
import type { ProducerCategory } from "./state/session_store.ts";
import { providerContextAssembler } from "./agent/provider_context.ts";
import { createOtelTracer, otelTracerOptionsOf } from "./agent/tracing.ts";
import {
  capSpawnTools,
  rootRemainingDepth,
  type SubagentProfile,
  SubagentSupervisor,
} from "./agent/subagents.ts";
import { PluginHost } from "./plugin/host.ts";
import { pluginBundlesOf } from "./process/plugin_bundle.ts";
import type { KernelServices } from "./callback/service.ts";
import {
  FrontendHub,
  type HubSession,
  type SlashCommandRoute,
} from "./frontend/hub.ts";
import { slashRoutesOf } from "./_slash_routes.ts";
import { modelTokenCounter } from "./agent/token_count.ts";
import { EventBus } from "./bus/event_bus.ts";
import {
  createTelemetryRelay,
  type TelemetryRelay,
} from "./telemetry/relay.ts";
import { telemetrySettingsOf } from "./telemetry/plan_settings.ts";
import { SessionRegistry } from "./state/session_registry.ts";
import { serveRemoteDecisions } from "./frontend/remote_decisions.ts";
import type { SessionStore } from "./state/session_store.ts";
import {
  type JudgeOutcome,
  type Kernel,
  type KernelSession,
  type KernelSessionOptions,
  type KernelSessions,
  type KernelTriggerOptions,
  type OpenKernelOptions,
  PLAN_APPROVED_PROMPT,
  type PromptResult,
  ProviderError,
  type ReplayRenderItem,
  type RunningFrontend,
  type SessionOutcome,
  type StartFrontendOptions,
} from "./api.ts";
import type { BuiltinCatalog } from "../contract/builtins.ts";
import {
  type LaunchedProviders,
  launchFrontend,
  launchProviders,
  plainEnvOf,
  type SpawnedFrontend,
  spawnFrontend,
} from "./_providers.ts";
import { stateLocationsOf } from "./open_sessions.ts";
import { compilePlan } from "./_compile_plan.ts";
import {
  JudgedSends,
  judgeLoop,
  type JudgeProfile,
  judgeRoundsOf,
} from "./_judge_loop.ts";

function promptResultOf(r: SendResult): PromptResult {
  return {
    outcome: r.outcome,
    finalText: r.finalText,
    turns: r.turns,
    ...(r.boundFired ? { boundFired: r.boundFired } : {}),
    ...(r.error ? { error: r.error } : {}),
  };
}

function outcomeOf(r: SessionResult): SessionOutcome {
  return {
    sessionId: r.sessionId,
    profile: r.profile,
    status: r.status,
    finalText: r.finalText,
    totalCostUsd: r.totalCostUsd,
    turns: r.turns,
    ...(r.boundFired ? { boundFired: r.boundFired } : {}),
    ...(r.error ? { error: r.error } : {}),
    ...(r.crashedProviders ? { crashedProviders: r.crashedProviders } : {}),
  };
}

function mapRun<A, B>(run: SessionRun<A>, f: (a: A) => B): SessionRun<B> {
  const result = run.result.then(f);
  result.catch(() => {});
  return { result, [Symbol.asyncIterator]: () => run[Symbol.asyncIterator]() };
}

class KernelImpl implements Kernel {
  readonly dir: string;
  readonly plan: Plan;
  readonly diagnostics: readonly Diagnostic[];
  readonly sessions: KernelSessions;
  readonly #host: PluginHost;
  readonly #store: SessionStore;
  readonly #deps: AgentDeps;
  readonly #toolSchemas: ReadonlyMap<string, readonly ToolSchema[]>;
  readonly #defaultModels: readonly ModelChainEntry[];
  readonly #subagents: SubagentSupervisor | undefined;
  readonly #telemetry: TelemetryRelay | undefined;
  /** The frontend surfaces: every session operation, for RPCs and this API. */
  readonly hub: FrontendHub;
  /** Renders persisted events through the build that produced them. */
  readonly render: RenderPipeline;
  readonly #renderers: ReadonlyMap<string, RenderFn>;
  #closed: Promise<void> | undefined;
  /** The endpoint `agent trigger` reaches this kernel's sessions on. */
  endpoint: ControlEndpoint | undefined;
  readonly #builtins: BuiltinCatalog | undefined;
  #prestarted: Prestarted | undefined;

  constructor(init: {
    dir: string;
    plan: Plan;
    diagnostics: readonly Diagnostic[];
    host: PluginHost;
    store: SessionStore;
    deps: AgentDeps;
    toolSchemas: ReadonlyMap<string, readonly ToolSchema[]>;
    defaultModels: readonly ModelChainEntry[];
    subagents?: SubagentSupervisor;
    telemetry?: TelemetryRelay;
    bus?: EventBus;
    registry?: SessionRegistry;
    renderers?: ReadonlyMap<string, RenderFn>;
    slashRoutes?: ReadonlyMap<string, ReadonlyMap<string, SlashCommandRoute>>;
    builtins?: BuiltinCatalog | undefined;
    prestarted?: Prestarted;
  }) {
    this.#builtins = init.builtins;
    this.#prestarted = init.prestarted;
    this.dir = init.dir;
    this.plan = init.plan;
    this.diagnostics = init.diagnostics;
    this.#host = init.host;
    this.#store = init.store;
    this.#deps = init.deps;
    this.#toolSchemas = init.toolSchemas;
    this.#defaultModels = init.defaultModels;
    this.#subagents = init.subagents;
    this.#telemetry = init.telemetry;
    const store = init.store;
    const specs = new Map<string, ModelSpec[]>();
    this.#renderers = init.renderers ?? new Map();
    this.render = new RenderPipeline({
      renderer: (p) => this.#renderers.get(producerKey(p)),
      onActions: (sessionId, actions) =>
        this.hub.recordActions(sessionId, actions),
    });
    this.hub = new FrontendHub({
      store,
      registry: init.registry ?? new SessionRegistry(),
      ...(init.bus ? { bus: init.bus } : {}),
      // On the shared store, other kernels follow this one's sessions.
      bridged: init.plan.state?.backend === "postgres",
      open: (req) => this.#openSession(req),
      render: this.render,
      toolSchema: (provider, tool) =>
        this.#toolSchemas.get(provider)?.find((t) => t.name === tool)
          ?.inputSchema,
      modelSpec: async (provider, id) => {
        let list = specs.get(provider);
        if (!list) {
          const endpoint = this.#deps.models.get(provider);
          if (!endpoint) return undefined;
          list = (await endpoint.capabilities()).models;
          specs.set(provider, list);
        }
        return list.find((m) => m.id === id);
      },
      slashCommands: (profile) => init.slashRoutes?.get(profile) ?? new Map(),
      profileModel: (profile) => {
        try {
          return this.#spec({ profile }).models[0];
        } catch {
          return undefined;
        }
      },
    });
    this.sessions = {
      list: (options) => store.list(options),
      replay: (id) => replaySession(store, id),
      verify: (id) => store.verify(id),
      render: (id, options = {}) => this.#renderReplay(id, options.signal),
    };
  }

  /**
   * A root session's spec and remaining depth (`max_depth ?? the kernel
   * default`); spawn-capable tools are removed when the depth is 0.
   */
  async *#renderReplay(
    sessionId: string,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<ReplayRenderItem> {
    const log = await this.#store.open(sessionId);
    try {
      const installed = [...this.#renderers.keys()].map((k) => {
        const [category, rest] = k.split("/") as [ProducerCategory, string];
        const at = rest.lastIndexOf("@");
        return {
          category,
          name: rest.slice(0, at),
          version: rest.slice(at + 1),
        };
      });
      for await (
        const item of replayRendered(log, this.render, installed, signal)
      ) yield replayRenderItemOf(item);
    } finally {
      await log.close();
    }
  }

  #rootSpec(
    options: KernelSessionOptions & { workingDirectory?: string },
  ): { spec: SessionSpec; remainingDepth: number } {
    const spec = this.#spec(options);
    const maxDepth = this.plan.profiles.find((p) => p.name === spec.profile)
      ?.bounds.maxDepth;
    const remainingDepth = rootRemainingDepth(maxDepth);
    return { spec: capSpawnTools(spec, remainingDepth), remainingDepth };
  }

  /** What the loop runs on (sub-agents run on the same). */
  get agentDeps(): AgentDeps {
    return this.#deps;
  }

  /** A profile for a sub-agent (`undefined` when it is not declared). */
  subagentProfile(name: string): SubagentProfile | undefined {
    const profile = this.plan.profiles.find((p) => p.name === name);
    if (!profile) return undefined;
    return {
      spec: this.#spec({ profile: name, onAsk: "deny" }),
      ...(profile.bounds.maxDepth !== undefined
        ? { maxDepth: profile.bounds.maxDepth }
        : {}),
      ...(profile.bounds.maxConcurrentSubagents !== undefined
        ? { maxConcurrentSubagents: profile.bounds.maxConcurrentSubagents }
        : {}),
    };
  }

  #spec(
    options: KernelSessionOptions & { workingDirectory?: string },
  ): SessionSpec {
    const r = sessionSpecFromPlan(this.plan, {
      ...(options.profile !== undefined ? { profile: options.profile } : {}),
      toolSchemas: this.#toolSchemas,
      workingDirectory: options.workingDirectory ?? this.dir,
      defaultModels: this.#defaultModels,
      onAsk: options.onAsk ?? "deny",
      ...(options.planMode ? { planMode: true } : {}),
      ...(options.askTimeoutMs !== undefined
        ? { askTimeoutMs: options.askTimeoutMs }
        : {}),
    });
    if (!r.spec) throw new ConfigError(r.diagnostics);
    return r.spec;
  }

  /** Opens an agent session for the hub (frontends and this API alike). */
  async #openSession(req: OpenRequest): Promise<OpenedSession> {
    const { spec, remainingDepth } = this.#rootSpec({
      ...(req.profile !== undefined ? { profile: req.profile } : {}),
      ...(req.onAsk ? { onAsk: req.onAsk } : {}),
      ...(req.askTimeoutMs !== undefined
        ? { askTimeoutMs: req.askTimeoutMs }
        : {}),
      ...(req.workingDirectory !== undefined
        ? { workingDirectory: req.workingDirectory }
        : {}),
      ...(req.planMode ? { planMode: true } : {}),
    });
    const session = await AgentSession.open(spec, this.#deps, {
      remainingDepth,
      ...(req.resumeId !== undefined ? { resumeSessionId: req.resumeId } : {}),
      ...(req.approve ? { approve: req.approve } : {}),
      ...(req.answer ? { answer: req.answer } : {}),
      onEvent: req.onEvent,
    });
    return { session, workingDirectory: spec.workingDirectory };
  }

  /** A judge profile by name, checked ({@linkcode judgeRoundsOf}). */
  #judgeProfile(name: string): JudgeProfile {
    const maxRounds = judgeRoundsOf(this.plan, name);
    return {
      name,
      spec: this.#spec({ profile: name, onAsk: "deny" }),
      maxRounds,
    };
  }

  async session(options: KernelSessionOptions = {}): Promise<KernelSession> {
    const hub = this.hub;
    const judge = options.judge !== undefined
      ? this.#judgeProfile(options.judge)
      : undefined;
    const judged = judge ? new JudgedSends(options.onEvent) : undefined;
    const first: HubSession = await hub.open({
      ...(options.profile !== undefined ? { profile: options.profile } : {}),
      ...(options.resumeId !== undefined ? { resumeId: options.resumeId } : {}),
      ...(options.onAsk ? { onAsk: options.onAsk } : {}),
      ...(options.askTimeoutMs !== undefined
        ? { askTimeoutMs: options.askTimeoutMs }
        : {}),
      ...(options.approve ? { approve: options.approve } : {}),
      ...(options.answer ? { answer: options.answer } : {}),
      ...(options.planMode ? { planMode: true } : {}),
    }, judged ? (e) => judged.onEvent(e) : options.onEvent);
    // `/clear` and `/resume` move this handle to another session (the
    // previous one is closed unless a frontend plugin still drives it).
    let h: HubSession = first;
    let session = h.agent!;
    const follow = async () => {
      const next = h.movedTo;
      if (!next?.agent) return;
      const previous = h;
      h = next;
      session = next.agent;
      previous.movedTo = undefined;
      if (previous.attached.size === 0) await hub.close(previous);
    };
    if (options.goal !== undefined) session.setGoal(options.goal);
    const deps = () => this.#deps;
    const outer = options.signal;
    return {
      get sessionId() {
        return session.sessionId;
      },
      get profile() {
        return session.profile;
      },
      get resumed() {
        return session.resumed;
      },
      get ended() {
        return session.ended;
      },
      send(prompt, sendOptions = {}) {
        if (session.ended) {
          throw new TypeError(
            `Cannot send to session "${session.sessionId}": it has ended`,
          );
        }
        const signals = [outer, sendOptions.signal].filter((s) =>
          s !== undefined
        );
        const signal = signals.length === 0
          ? undefined
          : signals.length === 1
          ? signals[0]
          : AbortSignal.any(signals);
        if (judge && judged) {
          return judged.send({
            prompt,
            submit: (text) => hub.submit(h, text, signal ? { signal } : {}).run,
            loop: (sent, submit, push) =>
              judgeLoop({
                worker: session,
                sent,
                submit,
                judge,
                deps: deps(),
                goal: options.goal ?? prompt,
                hasGoal: options.goal !== undefined,
                goalSummary: () => judged.goalSummary,
                push,
                ...(signal ? { signal } : {}),
              }),
            result: promptResultOf,
          });
        }
        return mapRun(
          hub.submit(h, prompt, signal ? { signal } : {}).run,
          promptResultOf,
        );
      },
      resolveApproval: (id, answer) => {
        try {
          hub.decide(h, id, answer);
          return true;
        } catch {
          return false;
        }
      },
      resolveInteractive: (id, response) =>
        session.resolveInteractive(id, response),
      command: async (name, args = "") => {
        const o = await hub.invokeSlashCommand(h, name, args).outcome;
        await follow();
        return "result" in o
          ? { ok: true, result: o.result }
          : { ok: false, error: o.error.message };
      },
      idle: () => session.idle(),
      interrupt: () =>
        hub.interrupt(
          h,
          new DOMException("Interrupted by the caller", "AbortError"),
        ),
      get planMode() {
        return session.planMode;
      },
      setPlanMode: (on) => session.setPlanMode(on),
      compactNow: (o) => hub.compact(h, o),
      close: (status) => hub.close(h, status).then((r) => outcomeOf(r!)),
      [Symbol.asyncDispose]: async () => {
        await hub.close(h);
      },
    };
  }

  run(
    prompt: string | undefined,
    options: KernelSessionOptions = {},
  ): SessionRun<SessionOutcome> {
    let judge: JudgeProfile | undefined;
    try {
      this.#rootSpec(options); // a bad profile fails before anything runs
      if (options.judge !== undefined) {
        judge = this.#judgeProfile(options.judge);
        if (options.goal === undefined && prompt === undefined) {
          throw new TypeError(
            `Cannot run with the judge "${options.judge}": it needs a goal or a prompt to review against`,
          );
        }
      }
    } catch (err) {
      const result = Promise.reject(err);
      result.catch(() => {});
      return {
        result,
        [Symbol.asyncIterator]: () => ({
          next: () => Promise.reject(err),
        }),
      };
    }
    // One prompt through the same hub operations a frontend uses: open,
    // submit, close.
    const hub = this.hub;
    const queue = new EventQueue<SessionEvent>();
    let goalSummary: string | undefined; // the worker's, for the judge
    const result = (async (): Promise<SessionOutcome> => {
      let h: HubSession;
      let judged: JudgeOutcome | undefined;
      try {
        h = await hub.open({
          ...(options.profile !== undefined
            ? { profile: options.profile }
            : {}),
          ...(options.resumeId !== undefined
            ? { resumeId: options.resumeId }
            : {}),
          ...(options.onAsk ? { onAsk: options.onAsk } : {}),
          ...(options.askTimeoutMs !== undefined
            ? { askTimeoutMs: options.askTimeoutMs }
            : {}),
          ...(options.approve ? { approve: options.approve } : {}),
          ...(options.answer ? { answer: options.answer } : {}),
          ...(options.planMode ? { planMode: true } : {}),
        }, (e) => {
          if (e.type === "control" && e.channel === "goal-status") {
            goalSummary = e.body;
          }
          queue.push(e);
        });
        if (options.goal !== undefined) h.agent?.setGoal(options.goal);
      } catch (err) {
        queue.close(err);
        throw err;
      }
      let sent: SendResult;
      const submit = (text: string | undefined) =>
        hub.submit(h, text, {
          events: false,
          ...(options.signal ? { signal: options.signal } : {}),
        }).run.result;
      try {
        sent = await submit(prompt);
        // Plan mode: the plan is offered; approved, the same session
        // carries it out with every tool.
        if (
          options.planMode && sent.outcome === "done" && h.agent &&
          !h.agent.ended &&
          (await options.approvePlan?.(sent.finalText) ?? false)
        ) {
          h.agent.setPlanMode(false);
          sent = await submit(PLAN_APPROVED_PROMPT);
        }
        if (judge && h.agent) {
          ({ sent, judge: judged } = await judgeLoop({
            worker: h.agent,
            sent,
            submit,
            judge,
            deps: this.#deps,
            goal: (options.goal ?? prompt)!,
            hasGoal: options.goal !== undefined,
            goalSummary: () => goalSummary,
            push: (e) => queue.push(e),
            ...(options.signal ? { signal: options.signal } : {}),
          }));
        }
      } catch (err) {
        await hub.close(h).catch(() => {});
        queue.close(err);
        throw err;
      }
      try {
        if (h.agent && sent.outcome !== "cancelled") {
          // A wake turn that started meanwhile (a trigger handed over from
          // another process, a background exit) runs to its end first.
          await h.agent.idle();
          if (options.keepAlive) {
            await holdWhileWatching(h.agent, options.signal);
          }
          // No wake turn starts from here on (a trigger is refused and goes
          // to the stored session); one that started meanwhile ends first.
          h.agent.stopWaking();
          await h.agent.idle();
        }
        const r = await hub.close(
          h,
          sent.outcome === "cancelled" ? "cancelled" : undefined,
        );
        return { ...outcomeOf(r!), ...(judged ? { judge: judged } : {}) };
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

  trigger(
    sessionId: string,
    text: string,
    options: KernelTriggerOptions = {},
  ): SessionRun<SessionOutcome> {
    const store = this.#store;
    const start = async () => {
      let profile = options.profile;
      if (profile === undefined) {
        const log = await store.open(sessionId);
        try {
          profile = (await log.info()).profile;
        } finally {
          await log.close();
        }
      }
      const { spec, remainingDepth } = this.#rootSpec({ ...options, profile });
      return triggerStoredSession(spec, this.#deps, sessionId, text, {
        remainingDepth,
        ...(options.name !== undefined ? { name: options.name } : {}),
        ...(options.approve ? { approve: options.approve } : {}),
        ...(options.answer ? { answer: options.answer } : {}),
        ...(options.timers ? { timers: options.timers } : {}),
        ...(options.keepAlive ? { keepAlive: true } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    };
    const started = start();
    started.catch(() => {});
    const result = started.then((run) => run.result);
    result.catch(() => {});
    return mapRun({
      result,
      [Symbol.asyncIterator]: () => {
        let inner: AsyncIterator<SessionEvent> | undefined;
        return {
          next: async () => {
            inner ??= (await started)[Symbol.asyncIterator]();
            return inner.next();
          },
        };
      },
    }, outcomeOf);
  }

  dueTimers(
    sessionId: string,
    options: { readonly now?: number; readonly profile?: string } = {},
  ): Promise<DueTimer[]> {
    return storedDueTimers(this.#store, this.plan.profiles, sessionId, options);
  }

  slashCommandNames(profile: string): string[] {
    return this.hub.slashCommandNames(profile);
  }

  async startFrontend(
    name?: string,
    options: StartFrontendOptions = {},
  ): Promise<RunningFrontend> {
    const chosen = name || this.plan.settings.defaultFrontend;
    if (!chosen) {
      const frontends = this.plan.providers.filter((p) =>
        p.category === "frontend"
      ).map((p) => `"${p.name}"`);
      throw new ProviderError(
        "frontend",
        `no frontend named: pass --frontend NAME or set settings.default_frontend${
          frontends.length
            ? ` (declared frontends: ${frontends.join(", ")})`
            : " (no frontend provider is declared)"
        }`,
      );
    }
    // The process openKernel started early for this frontend, used once.
    const early = this.#prestarted;
    const spawned = early && early.name === chosen &&
        early.terminal === (options.terminal === true) &&
        early.implicitBuiltin === options.implicitBuiltin
      ? early.spawned
      : undefined;
    if (spawned) this.#prestarted = undefined;
    const { plugin, notice } = await launchFrontend(
      this.#host,
      this.dir,
      this.plan,
      chosen,
      {
        builtins: this.#builtins,
        signal: options.signal,
        ...(options.terminal ? { terminal: true } : {}),
        ...(options.config ? { config: options.config } : {}),
        ...(options.implicitBuiltin
          ? { implicitBuiltin: options.implicitBuiltin }
          : {}),
      },
      spawned,
    );
    let stopping = false;
    return {
      name: chosen,
      notice,
      exited: plugin.exited.then((exit) => ({
        code: exit.signal ? null : exit.code,
        signal: exit.signal,
        crashed: !stopping && (exit.signal !== null || exit.code !== 0),
        // The host's exit hook (registered at launch, before this) has
        // already detached it: the sessions it left are known.
        sessions: this.hub.sessionsLeftBy(plugin.identity),
      })),
      stop: async () => {
        stopping = true;
        await plugin.close();
      },
      kill: () => plugin.killNow(),
    };
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      try {
        // No trigger from another process reaches a closing kernel.
        await this.endpoint?.close();
        // Cancel running sub-agents first: each records its status.
        await this.#subagents?.close();
        await this.hub.closeAll();
        await this.#host.close();
      } finally {
        await this.#deps.tracer?.close().catch(() => {});
        await this.#telemetry?.close().catch(() => {});
        await this.#store.close();
      }
    })();
    return this.#closed;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/**
 * Opens a kernel on a project directory: compiles `dir/agent.hcl` (with
 * `locked`, against a lock file that must match), launches every provider
 * it names (builtin and path sources) with its grant, configures each with
 * its decoded block (secrets are revealed only here), and opens the
 * session store. Close it with `await using` or {@linkcode Kernel.close}.
 *
 * @example Usage
 * ```ts ignore
 * import { openKernel } from "@ph/agent";
 * await using kernel = await openKernel("examples/quickstart");
 * await using session = await kernel.session({ profile: "default" });
 * const turn = session.send("Summarize notes.md");
 * for await (const e of turn) if (e.type === "text_delta") console.log(e.text);
 * console.log((await turn.result).finalText);
 * ```
 *
 * @param dir The project directory (holding `agent.hcl`).
 * @param options Lock requirement, environment, sessions directory.
 * @returns The running kernel.
 * @throws {ConfigError} When the configuration (or, with `locked`, the
 * lock file) is invalid.
 * @throws {ProviderError} When a provider cannot be started or configured.
 */
export async function openKernel(
  dir: string,
  options: OpenKernelOptions = {},
): Promise<Kernel> {
  const root = resolve(dir);
  const env = options.env ?? Deno.env.toObject();
  const { plan, diagnostics } = await compilePlan(root, env, options);
  // RunSession needs the kernel, which exists once every plugin runs.
  let kernel: KernelImpl | undefined;
  const runtime = startRuntime(root, env, plan, () => kernel);
  const { host } = runtime;
  let store: SessionStore | undefined;
  // The frontend the caller will start: its process starts now, beside the
  // other providers (Configure waits for startFrontend and the hub).
  const early = options.prestartFrontend?.(plan);
  const stopEarly = new AbortController();
  const prestarted = early
    ? {
      name: early.name,
      terminal: early.terminal === true,
      implicitBuiltin: early.implicitBuiltin,
      spawned: spawnFrontend(host, root, plan, early.name, {
        builtins: options.builtins,
        signal: options.signal
          ? AbortSignal.any([options.signal, stopEarly.signal])
          : stopEarly.signal,
        ...(early.terminal ? { terminal: true } : {}),
        ...(early.implicitBuiltin
          ? { implicitBuiltin: early.implicitBuiltin }
          : {}),
      }),
    }
    : undefined;
  prestarted?.spawned.catch(() => {}); // reported by startFrontend
  try {
    const providers = await launchProviders(host, root, plan, {
      builtins: options.builtins,
      signal: options.signal,
      forge: {
        env,
        offline: options.locked ?? false,
        ...(options.onWarning ? { onWarning: options.onWarning } : {}),
      },
    });
    store = await openStateStore(plan.state, env, options.sessionsDir, runtime);
    // CountTokens answers exactly for models whose provider has a tokenizer.
    runtime.services.countTokens = modelTokenCounter(providers.models);
    const deps = await agentDepsOf(root, plan, {
      store,
      bus: runtime.bus,
      registry: runtime.registry,
      providers,
      persistAlways: options.persistAlways ?? false,
    });
    kernel = new KernelImpl({
      dir: root,
      plan,
      diagnostics,
      host,
      store,
      deps,
      toolSchemas: providers.toolSchemas,
      defaultModels: providers.defaultModels,
      subagents: runtime.subagents,
      telemetry: runtime.telemetry,
      bus: runtime.bus,
      registry: runtime.registry,
      renderers: providers.renderers,
      slashRoutes: slashRoutesOf(plan, providers.slashCommands),
      builtins: options.builtins,
      ...(prestarted ? { prestarted } : {}),
    });
    runtime.services.frontend = kernel.hub;
    if (plan.state?.backend === "postgres") {
      // `agent attach` on another machine answers this kernel's asks.
      serveRemoteDecisions(kernel.hub, runtime.bus);
    }
    if (options.controlEndpoint) {
      try {
        kernel.endpoint = await startControlEndpoint(join(root, RUN_DIR), {
          lookup: (id) => runtime.registry.get(id),
        });
      } catch (err) {
        options.onWarning?.(
          `Cannot listen for triggers from other processes in "${
            join(root, RUN_DIR)
          }": ${
            err instanceof Error ? err.message : String(err)
          }; agent trigger from another process cannot reach the sessions of this one`,
        );
      }
    }
    return kernel;
  } catch (err) {
    stopEarly.abort();
    await prestarted?.spawned.catch(() => {});
    await host.close().catch(() => {});
    await store?.close().catch(() => {});
    throw err;
  }
}

/** A frontend process openKernel started early (`prestartFrontend`). */
interface Prestarted {
  readonly name: string;
  readonly terminal: boolean;
  readonly implicitBuiltin: string | undefined;
  readonly spawned: Promise<SpawnedFrontend>;
}

/** What the kernel runs besides its plugins, and the host they run on. */
interface Runtime {
  readonly registry: SessionRegistry;
  readonly subagents: SubagentSupervisor;
  readonly bus: EventBus;
  readonly telemetry: TelemetryRelay;
  readonly host: PluginHost;
  /** The services the host serves (the hub joins them once it exists). */
  readonly services: KernelServices;
  /** The sqlite store's module, loaded once a plugin has been spawned. */
  readonly sqliteModule: Promise<
    typeof import("./state/sqlite_session_store.ts")
  >;
}

/**
 * The session store the plan selects: the local sqlite files by default;
 * with `state { backend = "postgres" }` the shared store (its client loaded
 * only then) with the cross-kernel bus bridge, closed with the store.
 */
async function openStateStore(
  state: Plan["state"],
  env: Readonly<Record<string, string | undefined>>,
  sessionsDir: string | undefined,
  runtime: Runtime,
): Promise<SessionStore> {
  const where = stateLocationsOf(env, sessionsDir);
  if (state?.backend !== "postgres") {
    const { SqliteSessionStore } = await runtime.sqliteModule;
    return new SqliteSessionStore({ ...where, bus: runtime.bus });
  }
  const url = env[state.urlEnv];
  if (!url) {
    throw new Error(
      `Cannot open the postgres state backend: the environment variable ${state.urlEnv} (state.url) is not set or empty`,
    );
  }
  const { PostgresSessionStore } = await import(
    "./state/postgres_session_store.ts"
  );
  const store = new PostgresSessionStore({
    url,
    schema: state.schema,
    keyPath: where.keyPath,
    bus: runtime.bus,
  });
  try {
    await store.startBusBridge();
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
  return store;
}

/**
 * Starts the kernel's services (the session registry, the sub-agent
 * supervisor, the bus, the telemetry relay) and the plugin host serving
 * them; nothing is launched yet.
 */
function startRuntime(
  root: string,
  env: Readonly<Record<string, string | undefined>>,
  plan: Plan,
  kernel: () => KernelImpl | undefined,
): Runtime {
  const registry = new SessionRegistry();
  const subagents = new SubagentSupervisor({
    registry,
    deps: () => kernel()!.agentDeps,
    profile: (name) => kernel()?.subagentProfile(name),
    agent: (name) => plan.agents?.find((a) => a.name === name),
    defaultWorkingDirectory: root,
  });
  // The bus (Publish/Subscribe, kernel.event.* republication) and the
  // relay of plugin spans, metrics and log floor, from `settings`.
  const bus = new EventBus({
    subscribeQueueBound: plan.settings.eventBus.subscribeQueueBound,
  });
  const telemetry = createTelemetryRelay(telemetrySettingsOf(plan.settings));
  // The sqlite store is needed only once plugins run: load it while they
  // start (the host loads the gRPC stack then too), not before a spawn.
  const spawned = Promise.withResolvers<void>();
  // `frontend` is set once the session hub exists (after the launches).
  const services: KernelServices = {
    sessions: registry,
    bus,
    telemetry,
    runSession: (caller, request, signal) =>
      subagents.run(caller, request, signal),
    mergeWorktree: (caller, request) =>
      subagents.mergeWorktree(caller, request),
    sendMailbox: (caller, request) => subagents.sendMailbox(caller, request),
  };
  const host = new PluginHost({
    env: plainEnvOf(env),
    cwd: root,
    sandbox: plan.settings.sandbox,
    onSpawn: () => spawned.resolve(),
    services,
    ...pluginBundlesOf(env),
  });
  if (plan.providers.length === 0) spawned.resolve();
  const sqliteModule = spawned.promise.then(() =>
    import("./state/sqlite_session_store.ts")
  );
  sqliteModule.catch(() => {});
  return {
    registry,
    subagents,
    bus,
    telemetry,
    host,
    services,
    sqliteModule,
  };
}

/**
 * What the agent loop runs on: the store, the registry, the launched
 * providers' endpoints and context chain, the kernel's tracer (exported
 * only with telemetry and traces on) and, with `persistAlways` and a
 * project `agent.hcl`, the writer of ALWAYS approvals.
 */
async function agentDepsOf(
  root: string,
  plan: Plan,
  init: {
    store: SessionStore;
    bus: EventBus;
    registry: SessionRegistry;
    providers: LaunchedProviders;
    persistAlways: boolean;
  },
): Promise<AgentDeps> {
  const { store, registry, providers } = init;
  // The kernel's own spans: exported only with telemetry and traces on.
  const tracing = otelTracerOptionsOf(plan.settings);
  const tracer = tracing ? await createOtelTracer(tracing) : undefined;
  return {
    ...(tracer ? { tracer } : {}),
    ...(providers.chain.length
      ? {
        contextAssembler: providerContextAssembler({
          providers: providers.chain,
          grant: (identity, sessionId) =>
            init.registry.grant(identity, sessionId),
        }),
      }
      : {}),
    store,
    bus: init.bus,
    registry,
    models: providers.models,
    tools: providers.tools,
    hooks: providers.hooks,
    ...(init.persistAlways && plan.sourceFile === CONFIG_FILE_NAME
      ? { persistAlwaysRule: (rule) => appendPolicyRule(root, rule) }
      : {}),
  };
}
