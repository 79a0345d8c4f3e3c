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
import { resolve } from "node:path";
import {
  appendPolicyRule,
  compileConfig,
  CONFIG_FILE_NAME,
  ConfigError,
  type Diagnostic,
  hasErrors,
  type Plan,
} from "../config/mod.ts";
import type { ToolSchema } from "../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { AgentSession } from "./agent/session.ts";
import { runSession } from "./agent/run_session.ts";
import type {
  SendResult,
  SessionResult,
  SessionRun,
} from "./agent/session_types.ts";
import type { AgentDeps } from "./agent/agent_deps.ts";
import { replaySession } from "./agent/history.ts";
import type { ModelChainEntry, SessionSpec } from "./agent/session_spec.ts";
import { sessionSpecFromPlan } from "./agent/session_spec_from_plan.ts";
import { providerContextAssembler } from "./agent/provider_context.ts";
import { createOtelTracer, otelTracerOptionsOf } from "./agent/tracing.ts";
import {
  capSpawnTools,
  rootRemainingDepth,
  type SubagentProfile,
  SubagentSupervisor,
} from "./agent/subagents.ts";
import { PluginHost } from "./plugin/host.ts";
import { EventBus } from "./bus/event_bus.ts";
import {
  createTelemetryRelay,
  type TelemetryRelay,
} from "./telemetry/relay.ts";
import { telemetrySettingsOf } from "./telemetry/plan_settings.ts";
import { SessionRegistry } from "./state/session_registry.ts";
import type { SessionStore } from "./state/session_store.ts";
import type {
  Kernel,
  KernelSession,
  KernelSessionOptions,
  KernelSessions,
  OpenKernelOptions,
  PromptResult,
  SessionOutcome,
} from "./api.ts";
import {
  type LaunchedProviders,
  launchProviders,
  plainEnvOf,
} from "./_providers.ts";
import { stateLocationsOf } from "./open_sessions.ts";

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
  #closed: Promise<void> | undefined;

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
  }) {
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
    this.sessions = {
      list: (options) => store.list(options),
      replay: (id) => replaySession(store, id),
      verify: (id) => store.verify(id),
    };
  }

  /**
   * A root session's spec and remaining depth (`max_depth ?? the kernel
   * default`); spawn-capable tools are removed when the depth is 0.
   */
  #rootSpec(
    options: KernelSessionOptions,
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

  #spec(options: KernelSessionOptions): SessionSpec {
    const r = sessionSpecFromPlan(this.plan, {
      ...(options.profile !== undefined ? { profile: options.profile } : {}),
      toolSchemas: this.#toolSchemas,
      workingDirectory: this.dir,
      defaultModels: this.#defaultModels,
      onAsk: options.onAsk ?? "deny",
      ...(options.askTimeoutMs !== undefined
        ? { askTimeoutMs: options.askTimeoutMs }
        : {}),
    });
    if (!r.spec) throw new ConfigError(r.diagnostics);
    return r.spec;
  }

  async session(options: KernelSessionOptions = {}): Promise<KernelSession> {
    const { spec, remainingDepth } = this.#rootSpec(options);
    const session = await AgentSession.open(spec, this.#deps, {
      remainingDepth,
      ...(options.resumeId !== undefined
        ? { resumeSessionId: options.resumeId }
        : {}),
      ...(options.approve ? { approve: options.approve } : {}),
      ...(options.answer ? { answer: options.answer } : {}),
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    });
    const outer = options.signal;
    return {
      sessionId: session.sessionId,
      profile: session.profile,
      resumed: session.resumed,
      get ended() {
        return session.ended;
      },
      send(prompt, sendOptions = {}) {
        const signals = [outer, sendOptions.signal].filter((s) =>
          s !== undefined
        );
        const signal = signals.length === 0
          ? undefined
          : signals.length === 1
          ? signals[0]
          : AbortSignal.any(signals);
        return mapRun(
          session.send(prompt, signal ? { signal } : {}),
          promptResultOf,
        );
      },
      resolveApproval: (id, answer) => session.resolveApproval(id, answer),
      resolveInteractive: (id, response) =>
        session.resolveInteractive(id, response),
      close: (status) => session.close(status).then(outcomeOf),
      [Symbol.asyncDispose]: async () => {
        await session.close();
      },
    };
  }

  run(
    prompt: string | undefined,
    options: KernelSessionOptions = {},
  ): SessionRun<SessionOutcome> {
    let spec: SessionSpec;
    let remainingDepth: number;
    try {
      ({ spec, remainingDepth } = this.#rootSpec(options));
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
    return mapRun(
      runSession(spec, this.#deps, {
        remainingDepth,
        ...(prompt !== undefined ? { prompt } : {}),
        ...(options.resumeId !== undefined
          ? { resumeSessionId: options.resumeId }
          : {}),
        ...(options.approve ? { approve: options.approve } : {}),
        ...(options.answer ? { answer: options.answer } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      }),
      outcomeOf,
    );
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      try {
        // Cancel running sub-agents first: each records its status.
        await this.#subagents?.close();
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
  try {
    const providers = await launchProviders(host, root, plan, {
      builtins: options.builtins,
      signal: options.signal,
    });
    store = await openStateStore(plan.state, env, options.sessionsDir, runtime);
    const deps = await agentDepsOf(root, plan, {
      store,
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
    });
    return kernel;
  } catch (err) {
    await host.close().catch(() => {});
    await store?.close().catch(() => {});
    throw err;
  }
}

/** Compiles `root/agent.hcl`; any error diagnostic is thrown. */
async function compilePlan(
  root: string,
  env: Readonly<Record<string, string | undefined>>,
  options: OpenKernelOptions,
): Promise<{ plan: Plan; diagnostics: Diagnostic[] }> {
  const { plan, diagnostics } = await compileConfig(root, {
    env,
    locked: options.locked ?? false,
    ...(options.builtins ? { builtins: options.builtins } : {}),
    ...(options.defaultConfig !== undefined
      ? { defaultConfig: options.defaultConfig }
      : {}),
  });
  if (hasErrors(diagnostics)) throw new ConfigError(diagnostics);
  return { plan, diagnostics };
}

/** What the kernel runs besides its plugins, and the host they run on. */
interface Runtime {
  readonly registry: SessionRegistry;
  readonly subagents: SubagentSupervisor;
  readonly bus: EventBus;
  readonly telemetry: TelemetryRelay;
  readonly host: PluginHost;
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
  const host = new PluginHost({
    env: plainEnvOf(env),
    cwd: root,
    sandbox: plan.settings.sandbox,
    onSpawn: () => spawned.resolve(),
    services: {
      sessions: registry,
      bus,
      telemetry,
      runSession: (caller, request, signal) =>
        subagents.run(caller, request, signal),
    },
  });
  if (plan.providers.length === 0) spawned.resolve();
  const sqliteModule = spawned.promise.then(() =>
    import("./state/sqlite_session_store.ts")
  );
  sqliteModule.catch(() => {});
  return { registry, subagents, bus, telemetry, host, sqliteModule };
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
        }),
      }
      : {}),
    store,
    registry,
    models: providers.models,
    tools: providers.tools,
    hooks: providers.hooks,
    ...(init.persistAlways && plan.sourceFile === CONFIG_FILE_NAME
      ? { persistAlwaysRule: (rule) => appendPolicyRule(root, rule) }
      : {}),
  };
}
