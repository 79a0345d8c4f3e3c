/**
 * The library entry of a running agent: {@linkcode openKernel} compiles a
 * project's `agent.hcl`, launches the plugins it names, and opens sessions
 * on them. The `agent` command line is built on this same API.
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
import { isAbsolute, join, resolve } from "node:path";
import type { JsonObject } from "@bufbuild/protobuf";
import {
  compileConfig,
  CONFIG_FILE_NAME,
  ConfigError,
  type Diagnostic,
  hasErrors,
  type Plan,
  type PlanProvider,
  revealProviderConfig,
} from "../config/mod.ts";
import type { PolicyRule } from "../contract/policy.ts";
import type { BuiltinCatalog } from "../contract/builtins.ts";
import { type PluginManifest, readManifest } from "../contract/manifest.ts";
import { manifestNameConflict } from "../contract/plugin_identity.ts";
import { ModelService } from "../proto/gen/pluggableharness/model/v1/service_pb.ts";
import { ToolService } from "../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import type { ToolSchema } from "../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { AgentSession } from "./agent/session.ts";
import { runSession } from "./agent/run_session.ts";
import type {
  SendResult,
  SessionResult,
  SessionRun,
} from "./agent/session_types.ts";
import type { AgentDeps } from "./agent/agent_deps.ts";
import type { ErrorInfo } from "./agent/errors.ts";
import { exitCodeOf } from "./agent/exit_codes.ts";
import type { BoundName, SessionStatusText } from "./agent/session_events.ts";
import type { Approver } from "./agent/approval_gate.ts";
import type { InteractiveAnswerer } from "./agent/interactive_gate.ts";
import {
  contextEndpointOf,
  type HookEndpoint,
  hookEndpointOf,
  memoryEndpointOf,
  type ModelEndpoint,
  modelEndpointOf,
  type ToolEndpoint,
  toolEndpointOf,
} from "./agent/endpoints.ts";
import { replaySession } from "./agent/history.ts";
import type { SessionEvent } from "./agent/session_events.ts";
import type {
  ModelChainEntry,
  OnAsk,
  SessionSpec,
} from "./agent/session_spec.ts";
import { sessionSpecFromPlan } from "./agent/session_spec_from_plan.ts";
import { ulid } from "./state/ulid.ts";
import {
  type ChainProvider,
  type ChainReport,
  providerContextAssembler,
  sectionTokens,
} from "./agent/provider_context.ts";
import { ContextService } from "../proto/gen/pluggableharness/context/v1/service_pb.ts";
import { MemoryService } from "../proto/gen/pluggableharness/memory/v1/service_pb.ts";
import { Code, GrpcStatusError } from "../proto/grpc_status.ts";
import { createOtelTracer, otelTracerOptionsOf } from "./agent/tracing.ts";
import type { Plugin } from "./plugin/plugin.ts";
import { PluginHost } from "./plugin/host.ts";
import { EventBus } from "./bus/event_bus.ts";
import {
  createTelemetryRelay,
  type TelemetryRelay,
  type TelemetrySettings,
} from "./telemetry/relay.ts";
import { LogLevel } from "../proto/gen/pluggableharness/log/v1/types_pb.ts";
import { SessionRegistry } from "./state/session_registry.ts";
import {
  capSpawnTools,
  rootRemainingDepth,
  type SubagentProfile,
  SubagentSupervisor,
} from "./agent/subagents.ts";
import type {
  ListSessionsOptions,
  ListSessionsResult,
  SessionStore,
  VerifyResult,
} from "./state/session_store.ts";

/** How one prompt ended ({@linkcode KernelSession.send}). */
export interface PromptResult {
  /**
   * `done`: the model finished; `cancelled`: the signal aborted the turn
   * (the session stays open); `bound`: a bound or the doom loop fired (the
   * session has ended); `failed`: an error ended the session.
   */
  readonly outcome: "done" | "cancelled" | "bound" | "failed";
  /** The text of the prompt's last assistant message. */
  readonly finalText: string;
  /** Turns (model calls) the prompt took. */
  readonly turns: number;
  /** The bound that fired. */
  readonly boundFired?: BoundName;
  /** The error, when one ended the turn. */
  readonly error?: ErrorInfo;
}

/** How a session ended. */
export interface SessionOutcome {
  /** The session's ULID. */
  readonly sessionId: string;
  /** Its profile. */
  readonly profile: string;
  /** The terminal status. */
  readonly status: SessionStatusText;
  /** The text of the last assistant message. */
  readonly finalText: string;
  /** What the session cost in USD (resumed spend included). */
  readonly totalCostUsd: number;
  /** Turns run by this process. */
  readonly turns: number;
  /** The bound that fired (a doom loop ends `completed` with this set). */
  readonly boundFired?: BoundName;
  /** The error that ended the session. */
  readonly error?: ErrorInfo;
}

/**
 * The `agent` exit code of a session outcome: 0 success, 1 task error, 4
 * policy denied a required action (`on_ask = "fail"` hit an ask), 5 a
 * bound fired (or the doom loop), 6 provider error, 130 cancelled.
 *
 * @example Usage
 * ```ts
 * import { sessionExitCode } from "@ph/agent";
 * import assert from "node:assert/strict";
 * const base = { sessionId: "s", profile: "default", finalText: "", totalCostUsd: 0, turns: 1 };
 * assert.equal(sessionExitCode({ ...base, status: "completed" }), 0);
 * assert.equal(sessionExitCode({ ...base, status: "error_max_turns", boundFired: "max_turns" }), 5);
 * ```
 *
 * @param outcome How the session ended.
 * @returns The exit code.
 */
export function sessionExitCode(outcome: SessionOutcome): number {
  return exitCodeOf(outcome);
}

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
  };
}

function mapRun<A, B>(run: SessionRun<A>, f: (a: A) => B): SessionRun<B> {
  const result = run.result.then(f);
  result.catch(() => {});
  return { result, [Symbol.asyncIterator]: () => run[Symbol.asyncIterator]() };
}

/** Options of {@linkcode openKernel}. */
export interface OpenKernelOptions {
  /**
   * Require a complete lock file that matches every provider
   * (`.agent/agent.lock.hcl`); otherwise {@linkcode openKernel} throws a
   * {@linkcode ConfigError}. @default {false}
   */
  readonly locked?: boolean;
  /**
   * The environment: what `env()` in `agent.hcl` reads, where the sessions
   * directory is found (`XDG_STATE_HOME`, `HOME`), and what granted
   * variables plugins receive. @default {Deno.env.toObject()}
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Where session files are kept.
   * @default {$XDG_STATE_HOME/agent/sessions}
   */
  readonly sessionsDir?: string;
  /**
   * Write ALWAYS approvals as `policy` blocks appended to `agent.hcl` (so
   * they hold for later sessions). Without it an ALWAYS answer is refused.
   * @default {false}
   */
  readonly persistAlways?: boolean;
  /**
   * The `agent.hcl` text to compile when `dir` has none (the CLI's
   * zero-config run, from `config/default_config.ts`). The lock file is
   * then not read, and ALWAYS approvals are not persisted (there is no
   * `agent.hcl` to append them to: nothing is written into `dir`).
   * Ignored when `dir/agent.hcl` exists. @default {undefined}
   */
  readonly defaultConfig?: string;
  /** Aborting stops plugin launches in progress. */
  readonly signal?: AbortSignal;
  /**
   * The first-party plugins that `builtin/<name>` sources name. The kernel
   * never imports plugins: the root module (`@ph/agent`) and the CLI pass
   * `BUILTINS` from `plugins/builtin.ts`. Without it a builtin source is a
   * configuration error.
   * @default {none}
   */
  readonly builtins?: BuiltinCatalog;
}

/** Options of {@linkcode Kernel.session} and {@linkcode Kernel.run}. */
export interface KernelSessionOptions {
  /** The `agent_profile` to run. @default {"default"} */
  readonly profile?: string;
  /** Resume this stored session instead of starting a new one. */
  readonly resumeId?: string;
  /**
   * What an ask nobody answers becomes: `deny`, `fail` (the session ends
   * `failed` with `approval_required`) or `callback` (wait for
   * {@linkcode KernelSessionOptions.approve} up to the ask timeout, then
   * deny). @default {"deny"}
   */
  readonly onAsk?: OnAsk;
  /** Answers approval requests (plan items whose policy says `ask`). */
  readonly approve?: Approver;
  /**
   * Answers interactive calls (`ask_user`): the answer, e.g.
   * `{ answer: "yes" }`, becomes the call's result. Without it, `on_ask`
   * decides (the model is told nobody answered, or the session fails).
   */
  readonly answer?: InteractiveAnswerer;
  /** How long an ask waits for `approve`, in milliseconds. @default {300000} */
  readonly askTimeoutMs?: number;
  /** Cancels the running turn (every prompt of the session). */
  readonly signal?: AbortSignal;
  /**
   * Receives every event of the session, `session_started` to
   * `session_ended` ({@linkcode Kernel.session} only: iterate
   * {@linkcode Kernel.run} instead).
   */
  readonly onEvent?: (event: SessionEvent) => void;
}

/** Options of {@linkcode KernelSession.send}. */
export interface KernelSendOptions {
  /** Cancels this prompt's turn; the session stays open. */
  readonly signal?: AbortSignal;
}

/** Stored sessions: list, replay and verify them. */
export interface KernelSessions {
  /**
   * The stored sessions, most recently started first.
   *
   * @param options Filters.
   * @returns The sessions and the files that could not be read.
   */
  list(options?: ListSessionsOptions): Promise<ListSessionsResult>;
  /**
   * Replays a stored session's events without calling any model.
   *
   * @param sessionId The session.
   * @returns The events, `session_started` first.
   */
  replay(sessionId: string): AsyncIterable<SessionEvent>;
  /**
   * Verifies a session's hash chain.
   *
   * @param sessionId The session.
   * @returns `ok`, or the first bad event and why.
   */
  verify(sessionId: string): Promise<VerifyResult>;
}

/** One open session of a {@linkcode Kernel}. */
export interface KernelSession extends AsyncDisposable {
  /** The session's ULID (give it to `resumeId` to resume). */
  readonly sessionId: string;
  /** Its profile. */
  readonly profile: string;
  /** True when a stored session was resumed. */
  readonly resumed: boolean;
  /** True once the session has ended (closed, or a bound fired). */
  readonly ended: boolean;
  /**
   * Sends a prompt and runs turns until the model is done, a bound fires
   * or the signal cancels the turn. Iterate the result for this prompt's
   * events; await `result` for how it ended.
   *
   * @param prompt The user's text.
   * @param options A signal for this prompt.
   * @returns The events and the result.
   */
  send(prompt: string, options?: KernelSendOptions): SessionRun<PromptResult>;
  /**
   * Answers a pending approval from outside the `approve` callback; the
   * first answer wins.
   *
   * @param planItemId The plan item.
   * @param answer The decision and its scope.
   * @returns True when this answer was the first.
   */
  resolveApproval(
    planItemId: string,
    answer: {
      decision: "allow" | "deny";
      scope: "once" | "session" | "always";
    },
  ): boolean;
  /**
   * Answers a pending interactive call (`ask_user`) from outside the
   * `answer` callback; the first answer wins.
   *
   * @param callId The call (`interactive_requested.callId`).
   * @param response The answer, e.g. `{ answer: "yes" }`.
   * @returns True when this answer was the first.
   */
  resolveInteractive(callId: string, response: JsonObject): boolean;
  /**
   * Ends the session (idempotent).
   *
   * @returns How it ended.
   */
  close(): Promise<SessionOutcome>;
}

/** A running kernel: its plan, its plugins, its sessions. */
export interface Kernel extends AsyncDisposable {
  /** The absolute project directory (the sessions' working directory). */
  readonly dir: string;
  /** The compiled configuration. */
  readonly plan: Plan;
  /** The warnings the configuration compiled with. */
  readonly diagnostics: readonly Diagnostic[];
  /** The stored sessions. */
  readonly sessions: KernelSessions;
  /**
   * Opens (or resumes) a session.
   *
   * @param options Profile, resume, approvals, signal.
   * @returns The open session.
   * @throws {ConfigError} When the profile is unknown or its tools or model
   * are not loaded.
   */
  session(options?: KernelSessionOptions): Promise<KernelSession>;
  /**
   * Runs a session for one prompt: `session_started` first (with the
   * session id), `session_ended` last.
   *
   * @param prompt The user's text (optional when resuming a session that
   * ends with a user message).
   * @param options Profile, resume, approvals, signal.
   * @returns The events and the session's result.
   */
  run(
    prompt: string | undefined,
    options?: KernelSessionOptions,
  ): SessionRun<SessionOutcome>;
  /** Stops every plugin and closes the session store (idempotent). */
  close(): Promise<void>;
}

/**
 * A provider that could not be started or configured. The CLI maps it to
 * exit code 6.
 */
export class ProviderError extends Error {
  /** The provider's local name. */
  readonly provider: string;

  /**
   * Creates the error.
   *
   * @param provider The provider's local name.
   * @param message What went wrong.
   * @param options The cause.
   */
  constructor(provider: string, message: string, options?: ErrorOptions) {
    super(`Provider "${provider}": ${message}`, options);
    this.name = "ProviderError";
    this.provider = provider;
  }
}

interface Launchable {
  manifest: PluginManifest;
  entrypoint: string;
}

/**
 * The plugin of a provider, refused when its manifest claims another
 * provider's local name or a first-party plugin's name: the plugin is
 * known by its local name, and must not pass for another (checked again
 * here because the plugin's files may have changed since the config was
 * compiled).
 */
async function launchableOf(
  dir: string,
  p: PlanProvider,
  builtins: BuiltinCatalog | undefined,
  plan?: Plan,
): Promise<Launchable> {
  const l = await findLaunchable(dir, p, builtins);
  const conflict = manifestNameConflict(
    { localName: p.name, source: p.source, manifestName: l.manifest.name },
    (plan?.providers ?? [p]).map((q) => q.name),
    builtins?.names ?? [],
  );
  if (conflict !== undefined) throw new ProviderError(p.name, conflict);
  return l;
}

async function findLaunchable(
  dir: string,
  p: PlanProvider,
  builtins: BuiltinCatalog | undefined,
): Promise<Launchable> {
  const folder = p.devOverride ??
    (p.sourceKind === "path" ? p.location ?? p.source : undefined);
  if (folder !== undefined) {
    const abs = isAbsolute(folder) ? folder : resolve(dir, folder);
    const manifest = await readManifest(join(abs, "plugin.json"));
    return {
      manifest,
      entrypoint: isAbsolute(manifest.entrypoint)
        ? manifest.entrypoint
        : join(abs, manifest.entrypoint),
    };
  }
  if (p.sourceKind === "builtin") {
    const b = await builtins?.resolve(p.source);
    if (!b) throw new ProviderError(p.name, `unknown builtin "${p.source}"`);
    return { manifest: b.manifest, entrypoint: b.entrypoint };
  }
  throw new ProviderError(
    p.name,
    `the forge source "${p.source}" cannot be run yet: this kernel runs builtin/<name> and path sources only (use a dev_overrides path in the global config to run a local checkout)`,
  );
}

/** A quoted HCL string: JSON escapes, and `${` / `%{` kept literal. */
/**
 * Configures a launched context or memory plugin and returns its place in
 * the context chain.
 */
async function chainProviderOf(
  plugin: Plugin,
  p: PlanProvider,
  config: JsonObject,
): Promise<ChainProvider> {
  if (p.category === "context") {
    await plugin.client(ContextService).configure({ config });
    return await contextEndpointOf(plugin, p.name, p.tokenBudget);
  }
  await plugin.client(MemoryService).configure({ config });
  return await memoryEndpointOf(plugin, p.name, p.tokenBudget);
}

function hclString(s: string): string {
  return JSON.stringify(s).replaceAll("${", "$${").replaceAll("%{", "%%{");
}

function alwaysPersister(dir: string) {
  return async (rule: PolicyRule): Promise<void> => {
    const name = rule.name.replace(/[^A-Za-z0-9_]/g, "_").replace(
      /^([^A-Za-z_])/,
      "_$1",
    );
    const match = Object.entries({
      provider: rule.match.provider,
      tool_name: rule.match.toolName,
      command: rule.match.command,
      kind: rule.match.kind,
      risk: rule.match.risk,
    }).filter(([, v]) => v !== undefined).map(([k, v]) =>
      `${k} = ${hclString(String(v))}`
    ).join(", ");
    const text = `\n# Added by \`agent\` (an "always" approval).\npolicy ${
      hclString(name)
    } {\n  match  = { ${match} }\n  action = ${hclString(rule.action)}\n}\n`;
    await Deno.writeTextFile(join(dir, "agent.hcl"), text, { append: true });
  };
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
      close: () => session.close().then(outcomeOf),
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
  const { plan, diagnostics } = await compileConfig(root, {
    env,
    locked: options.locked ?? false,
    ...(options.builtins ? { builtins: options.builtins } : {}),
    ...(options.defaultConfig !== undefined
      ? { defaultConfig: options.defaultConfig }
      : {}),
  });
  if (hasErrors(diagnostics)) throw new ConfigError(diagnostics);
  const plainEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined) plainEnv[k] = v;
  }
  const registry = new SessionRegistry();
  // RunSession needs the kernel, which exists once every plugin runs.
  let kernel: KernelImpl | undefined;
  const subagents = new SubagentSupervisor({
    registry,
    deps: () => kernel!.agentDeps,
    profile: (name) => kernel?.subagentProfile(name),
  });
  // The bus (Publish/Subscribe, kernel.event.* republication) and the
  // relay of plugin spans, metrics and log floor, from `settings`.
  const bus = new EventBus({
    subscribeQueueBound: plan.settings.eventBus.subscribeQueueBound,
  });
  const telemetry = createTelemetryRelay(telemetrySettingsOf(plan.settings));
  const host = new PluginHost({
    env: plainEnv,
    cwd: root,
    onSpawn: () => spawned.resolve(),
    services: {
      sessions: registry,
      bus,
      telemetry,
      runSession: (caller, request, signal) =>
        subagents.run(caller, request, signal),
    },
  });
  let store: SessionStore | undefined;
  // The sqlite store is needed only once plugins run: load it while they
  // start (the host loads the gRPC stack then too), not before a spawn.
  const spawned = Promise.withResolvers<void>();
  if (plan.providers.length === 0) spawned.resolve();
  const sqliteModule = spawned.promise.then(() =>
    import("./state/sqlite_session_store.ts")
  );
  sqliteModule.catch(() => {});
  try {
    const hooked = new Set([
      ...plan.hooks.map((h) => h.provider),
      // Memory providers are implicitly subscribed (plugins.md §6.4).
      ...plan.providers.filter((p) => p.category === "memory").map((p) =>
        p.name
      ),
    ]);
    const chain = new Map<string, ChainProvider>();
    const models = new Map<string, ModelEndpoint>();
    const tools = new Map<string, ToolEndpoint>();
    const hooks = new Map<string, HookEndpoint>();
    const toolSchemas = new Map<string, ToolSchema[]>();
    const defaultModels: ModelChainEntry[] = [];
    const launched = await Promise.allSettled(plan.providers.map(async (p) => {
      const { manifest, entrypoint } = await launchableOf(
        root,
        p,
        options.builtins,
        plan,
      );
      const config = revealProviderConfig(p) as JsonObject;
      let plugin: Plugin;
      try {
        plugin = await host.launch({
          manifest,
          entrypoint,
          grant: p.permissions.granted,
          config,
          source: p.source,
          name: p.name,
          subscribe: p.permissions.subscribe ?? [],
        }, options.signal ? { signal: options.signal } : {});
      } catch (err) {
        throw new ProviderError(
          p.name,
          `cannot start: ${err instanceof Error ? err.message : String(err)}`,
          { cause: err },
        );
      }
      try {
        switch (manifest.category) {
          case "model": {
            await plugin.client(ModelService).configure({ config });
            const endpoint = modelEndpointOf(plugin, p.name);
            models.set(p.name, endpoint);
            const caps = await endpoint.capabilities();
            const first = caps.models[0];
            if (first) defaultModels.push({ provider: p.name, id: first.id });
            break;
          }
          case "tool": {
            await plugin.client(ToolService).configure({ config });
            const endpoint = toolEndpointOf(plugin);
            tools.set(p.name, endpoint);
            toolSchemas.set(p.name, await endpoint.schemas());
            break;
          }
          case "context":
          case "memory": {
            chain.set(p.name, await chainProviderOf(plugin, p, config));
            if (manifest.category === "context") break;
            // The memory tools (`remember`, `forget`, `search`), when the
            // plugin serves ToolService too.
            const endpoint = toolEndpointOf(plugin);
            let schemas: ToolSchema[];
            try {
              schemas = await endpoint.schemas();
            } catch (err) {
              if (
                err instanceof GrpcStatusError &&
                err.code === Code.UNIMPLEMENTED
              ) break;
              throw err;
            }
            await plugin.client(ToolService).configure({ config });
            tools.set(p.name, endpoint);
            toolSchemas.set(p.name, schemas);
            break;
          }
          default:
            if (!hooked.has(p.name)) {
              throw new Error(
                `its category "${manifest.category}" is not run by this kernel yet (model and tool providers are; others only as hook subscribers)`,
              );
            }
        }
      } catch (err) {
        throw err instanceof ProviderError ? err : new ProviderError(
          p.name,
          `cannot configure: ${
            err instanceof Error ? err.message : String(err)
          }`,
          { cause: err },
        );
      }
      if (hooked.has(p.name)) hooks.set(p.name, hookEndpointOf(plugin));
    }));
    // Every launch has settled (none is left half-started): report the first failure.
    for (const r of launched) if (r.status === "rejected") throw r.reason;
    // Keep the declaration order of the model providers for the default chain.
    const order = new Map(plan.providers.map((p, i) => [p.name, i]));
    defaultModels.sort((a, b) =>
      order.get(a.provider)! - order.get(b.provider)!
    );
    const { SqliteSessionStore } = await sqliteModule;
    store = new SqliteSessionStore({
      dir: options.sessionsDir ?? sessionsDirOf(env),
      bus,
    });
    // The kernel's own spans: exported only with telemetry and traces on.
    const tracing = otelTracerOptionsOf(plan.settings);
    const tracer = tracing ? await createOtelTracer(tracing) : undefined;
    const chainInOrder = plan.providers.flatMap((p) => {
      const c = chain.get(p.name);
      return c ? [c] : [];
    });
    const deps: AgentDeps = {
      ...(tracer ? { tracer } : {}),
      ...(chainInOrder.length
        ? {
          contextAssembler: providerContextAssembler({
            providers: chainInOrder,
          }),
        }
        : {}),
      store,
      registry,
      models,
      tools,
      hooks,
      ...(options.persistAlways && plan.sourceFile === CONFIG_FILE_NAME
        ? { persistAlwaysRule: alwaysPersister(root) }
        : {}),
    };
    kernel = new KernelImpl({
      dir: root,
      plan,
      diagnostics,
      host,
      store,
      deps,
      toolSchemas,
      defaultModels,
      subagents,
      telemetry,
    });
    return kernel;
  } catch (err) {
    await host.close().catch(() => {});
    await store?.close().catch(() => {});
    throw err;
  }
}

/**
 * Opens the session store alone (no configuration, no plugins): what
 * `agent sessions` needs.
 *
 * @param options The environment or the sessions directory.
 * @returns The stored sessions, and a way to close the store.
 */
export function openSessions(
  options: Pick<OpenKernelOptions, "env" | "sessionsDir"> = {},
): KernelSessions & AsyncDisposable {
  const env = options.env ?? Deno.env.toObject();
  const dir = options.sessionsDir ?? sessionsDirOf(env);
  const store = import("./state/sqlite_session_store.ts").then((m) =>
    new m.SqliteSessionStore({ dir })
  );
  store.catch(() => {});
  return {
    list: async (o) => (await store).list(o),
    replay: async function* (id) {
      yield* replaySession(await store, id);
    },
    verify: async (id) => (await store).verify(id),
    [Symbol.asyncDispose]: async () => (await store).close(),
  };
}

function sessionsDirOf(env: Readonly<Record<string, string | undefined>>) {
  const xdg = env.XDG_STATE_HOME;
  if (xdg && xdg.startsWith("/")) return `${xdg}/agent/sessions`;
  if (!env.HOME) {
    throw new Error(
      "Cannot locate the sessions directory: neither XDG_STATE_HOME nor HOME is set",
    );
  }
  return `${env.HOME}/.local/state/agent/sessions`;
}

const LOG_LEVELS: Record<string, LogLevel> = {
  trace: LogLevel.TRACE,
  debug: LogLevel.DEBUG,
  info: LogLevel.INFO,
  warn: LogLevel.WARN,
  error: LogLevel.ERROR,
  fatal: LogLevel.FATAL,
};

/**
 * The telemetry plugins see (GetTelemetryConfig, the Log floor) and the
 * relay's export target, from the plan's `settings`: exported only with
 * telemetry on and an OTLP/HTTP endpoint.
 */
function telemetrySettingsOf(settings: {
  telemetry: boolean;
  logLevel: string;
  observability: {
    endpoint: string;
    protocol: string;
    samplingRatio: number;
    tracesEnabled: boolean;
    metricsEnabled: boolean;
    logsEnabled: boolean;
    exportIntervalMs: number;
    serviceName: string;
  };
}): TelemetrySettings {
  const o = settings.observability;
  const exported = settings.telemetry && o.protocol === "http";
  return {
    tracesEnabled: exported && o.tracesEnabled,
    metricsEnabled: exported && o.metricsEnabled,
    logsEnabled: o.logsEnabled,
    logLevel: LOG_LEVELS[settings.logLevel] ?? LogLevel.INFO,
    samplingRatio: o.samplingRatio,
    exportIntervalMs: o.exportIntervalMs,
    serviceName: o.serviceName,
    ...(exported
      ? {
        endpoint: o.endpoint.startsWith("http")
          ? o.endpoint
          : `http://${o.endpoint}`,
      }
      : {}),
  };
}

/** One section of the context chain, as `check-config --explain` shows it. */
export interface MeasuredSection {
  /** The provider that contributed it. */
  readonly provider: string;
  /** Its label. */
  readonly label: string;
  /** Its tokens (through the kernel's CountTokens: the fallback formula here). */
  readonly tokens: number;
}

/** What {@linkcode measureContextChain} found. */
export interface MeasuredContext {
  /** The sections in chain order. */
  readonly sections: readonly MeasuredSection[];
  /** Per provider: what happened (`ok`, `failed`, `over_budget`, …). */
  readonly reports: readonly ChainReport[];
}

/**
 * Runs a compiled plan's context and memory providers once, as a session
 * started in `dir` would before its first model call, and reports the
 * assembled sections and their sizes. Only those providers are started
 * (no model, no tools); each gets its `token_budget` (or its default) and
 * no model ceiling. This is what `check-config --explain` shows as the
 * assembled context of every profile.
 *
 * @param dir The project directory.
 * @param plan The compiled plan.
 * @param env The environment (for granted variables).
 * @param builtins The first-party plugins `builtin/<name>` names.
 * @returns The sections, or `undefined` when the plan has no context or
 * memory provider.
 */
export async function measureContextChain(
  dir: string,
  plan: Plan,
  env: Readonly<Record<string, string | undefined>> = Deno.env.toObject(),
  builtins?: BuiltinCatalog,
): Promise<MeasuredContext | undefined> {
  const wanted = plan.providers.filter((p) =>
    p.category === "context" || p.category === "memory"
  );
  if (wanted.length === 0) return undefined;
  const root = resolve(dir);
  const plainEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined) plainEnv[k] = v;
  }
  await using host = new PluginHost({
    env: plainEnv,
    cwd: root,
    services: { sessions: new SessionRegistry() },
  });
  const chain: ChainProvider[] = [];
  for (const p of wanted) {
    const { manifest, entrypoint } = await launchableOf(
      root,
      p,
      builtins,
      plan,
    );
    const config = revealProviderConfig(p) as JsonObject;
    const plugin = await host.launch({
      manifest,
      entrypoint,
      grant: p.permissions.granted,
      config,
      source: p.source,
      name: p.name,
      subscribe: p.permissions.subscribe ?? [],
    });
    chain.push(await chainProviderOf(plugin, p, config));
  }
  const reports: ChainReport[] = [];
  const assembled = await providerContextAssembler({
    providers: chain,
    onReport: (_s, _t, r) => reports.push(...r),
  }).assemble({
    history: [],
    budgetTokens: Number.MAX_SAFE_INTEGER,
    model: { provider: "", id: "", contextWindow: 0 },
    sections: [],
    sessionId: "check-config",
    turnId: ulid(),
    workingDirectory: root,
    signal: new AbortController().signal,
  });
  return {
    sections: assembled.sections.map((s) => ({
      provider: s.provider,
      label: s.label,
      tokens: sectionTokens(s),
    })),
    reports,
  };
}
