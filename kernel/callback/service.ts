/**
 * The kernel's handlers for `KernelCallbackService`: one instance per
 * launched plugin, with that plugin's identity bound at construction. No
 * request field can name another producer: identity is the connection.
 *
 * Scope (kernel.md §2.3): plugin-scoped RPCs (CountTokens, GetConfig,
 * GetTelemetryConfig, Publish, Subscribe) carry no session; session-scoped
 * ones (Emit, ReadEvents, GetSession, RunSession through its parent, and
 * Log, ExportSpans, RecordMetrics when they name one) are refused unless
 * the plugin currently holds a grant on that live session, always with the
 * same `PERMISSION_DENIED` (see {@linkcode SessionRegistry}).
 *
 * Subscribe to a filter that can match a `kernel.*` topic needs the
 * operator's `allow_subscribe` grant ({@linkcode
 * CallbackServiceOptions.subscribeGrant}); the kernel events delivered are
 * those of sessions the plugin takes part in, or of every session for an
 * `@all` entry. Plugin topics need no grant.
 *
 * The frontend state surfaces (kernel.md §2.6) are served by
 * {@linkcode KernelServices.frontend} (the kernel's session hub), which
 * binds them to the connection's identity too.
 *
 * RPCs whose machinery is absent (RunSession without a
 * {@linkcode KernelServices.runSession}, the frontend surfaces without a
 * {@linkcode KernelServices.frontend}) answer `UNIMPLEMENTED` with a
 * message naming what is missing; they never fake a result.
 *
 * @module
 */
import { getLogger, type LogLevel as LogTapeLevel } from "@logtape/logtape";
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import { LogLevel } from "../../proto/gen/pluggableharness/log/v1/types_pb.ts";
import { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import { Category } from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import type { ContentBlock } from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import type {
  MergeWorktreeRequest,
  RunSessionRequest,
  SendMailboxRequest,
} from "../../proto/gen/pluggableharness/kernel/v1/rpc_request_pb.ts";
import type {
  MergeWorktreeResultSchema,
  RunSessionResultSchema,
  SendMailboxResultSchema,
} from "../../proto/gen/pluggableharness/kernel/v1/rpc_response_pb.ts";
import type { CallbackImpl } from "./host.ts";
import type {
  FrontendHandlers,
  FrontendRpc,
  FrontendSurface,
} from "./frontend_surface.ts";
import { fallbackTokenCount } from "../../contract/tokens.ts";
import { logAt } from "../telemetry/_log.ts";
import type { PluginIdentity } from "../../contract/plugin_identity.ts";
import type { EventBus } from "../bus/event_bus.ts";
import { BusError } from "../bus/errors.ts";
import { validateFilter } from "../bus/topic.ts";
import {
  filterReachesKernel,
  grantCovers,
  grantMatches,
  parseSubscribeGrant,
} from "../../contract/subscribe_grant.ts";
import { StateError } from "../state/errors.ts";
import { sessionInfoOf, storedEventOf } from "../state/_convert.ts";
import {
  type LiveSession,
  sessionAccessDenied,
  type SessionRegistry,
} from "../state/session_registry.ts";
import {
  createTelemetryRelay,
  DEFAULT_TELEMETRY,
  metricProblem,
  spanProblem,
  type TelemetryRelay,
} from "../telemetry/relay.ts";

/** Counts tokens exactly with a model provider's own tokenizer. */
export type ExactTokenCounter = (
  modelRef: { provider: string; id: string },
  content: readonly ContentBlock[],
) => Promise<number | undefined>;

/**
 * The kernel services a callback endpoint works with. Each is optional: an
 * RPC whose service is absent answers `UNIMPLEMENTED`, naming it.
 */

/**
 * The channels a plugin may post through `InjectControl`: its own
 * `plugin-inject`, and `lsp-diagnostics` (a language-server provider's
 * post-edit errors).
 */
const PLUGIN_CHANNELS: readonly string[] = ["plugin-inject", "lsp-diagnostics"];

export interface KernelServices {
  /** Live sessions and grants (session-scoped RPCs). */
  sessions?: SessionRegistry;
  /** The event bus (Publish, Subscribe). */
  bus?: EventBus;
  /** The observability relay (ExportSpans, RecordMetrics, GetTelemetryConfig, Log's floor). */
  telemetry?: TelemetryRelay;
  /**
   * Exact counts from model providers that implement `CountTokens`;
   * `undefined` (or an `UNIMPLEMENTED` failure) means "use the fallback".
   */
  countTokens?: ExactTokenCounter;
  /**
   * The frontend surfaces (GetSessionState, SubmitInput, session
   * lifecycle, metadata, StreamDeltas, …); without them those RPCs answer
   * `UNIMPLEMENTED`.
   */
  frontend?: FrontendSurface;
  /**
   * Runs a child session for `RunSession` (sub-agents, kernel.md §6.7).
   * Called after the request is validated and the caller is authorized on
   * the parent session; resolves once the child is terminal. `signal`
   * aborts when the caller cancels its call.
   */
  runSession?: (
    caller: PluginIdentity,
    request: RunSessionRequest,
    signal: AbortSignal,
  ) => Promise<MessageInitShape<typeof RunSessionResultSchema>>;
  /**
   * Merges a finished worktree child's branch (`MergeWorktree`, our
   * extension). Called after the request is validated.
   */
  mergeWorktree?: (
    caller: PluginIdentity,
    request: MergeWorktreeRequest,
  ) => Promise<MessageInitShape<typeof MergeWorktreeResultSchema>>;
  /**
   * Delivers a mailbox message (`SendMailbox`, our extension). Called after
   * the request is validated.
   */
  sendMailbox?: (
    caller: PluginIdentity,
    request: SendMailboxRequest,
  ) => MessageInitShape<typeof SendMailboxResultSchema>;
}

/** Options for {@linkcode createCallbackService}. */
export interface CallbackServiceOptions {
  /** The calling plugin's identity, fixed for the connection. */
  identity: PluginIdentity;
  /** The plugin's decoded config, returned by GetConfig. Never logged. */
  config?: JsonObject;
  /**
   * The operator's `allow_subscribe` grant: the `kernel.*` filters the
   * plugin may subscribe to, each optionally suffixed `@all` (every
   * session; otherwise only the sessions it takes part in). Without it a
   * Subscribe that could match a `kernel.*` topic is `PERMISSION_DENIED`.
   * @default {[]}
   */
  subscribeGrant?: readonly string[];
  /**
   * Whether the plugin may inject control-plane text into the sessions it
   * serves (`InjectControl`, our extension): its manifest declares
   * `"inject": true` and the operator wrote `allow_inject = true` in its
   * provider block. @default {false}
   */
  injectGrant?: boolean;
  /** The kernel services. */
  services?: KernelServices;
  /** Handlers that replace the defaults (tests, later issues). */
  extend?: Partial<CallbackImpl>;
}

/**
 * Kinds only the kernel writes: `message` and `plan` need companion rows a
 * generic Emit cannot supply; `apply` is stored under the reserved kernel
 * producer; `hook_error` is written on a failing subscriber's behalf;
 * `control` is the control plane's (a plugin injects through the
 * `inject` capability instead).
 */
export const KERNEL_OWNED_KINDS: ReadonlySet<EventKind> = new Set([
  EventKind.MESSAGE,
  EventKind.PLAN,
  EventKind.APPLY,
  EventKind.HOOK_ERROR,
  EventKind.CONTROL,
]);

const LEVELS: Record<LogLevel, LogTapeLevel | undefined> = {
  [LogLevel.UNSPECIFIED]: undefined,
  [LogLevel.TRACE]: "trace",
  [LogLevel.DEBUG]: "debug",
  [LogLevel.INFO]: "info",
  [LogLevel.WARN]: "warning",
  [LogLevel.ERROR]: "error",
  [LogLevel.FATAL]: "fatal",
};

function unimplemented(rpc: string, missing: string): never {
  throw new GrpcStatusError(
    Code.UNIMPLEMENTED,
    `${rpc} is not available: ${missing}`,
  );
}

function invalid(message: string): never {
  throw new GrpcStatusError(Code.INVALID_ARGUMENT, message);
}

/** Maps state and bus errors to their gRPC status; passes others through. */
function asStatus(err: unknown): unknown {
  if (err instanceof GrpcStatusError) return err;
  if (err instanceof BusError) {
    return new GrpcStatusError(Code[err.grpcStatus], err.message, {
      cause: err,
    });
  }
  if (err instanceof StateError) {
    return new GrpcStatusError(
      Code.INTERNAL,
      `storage failed: ${err.message}`,
      { cause: err },
    );
  }
  return err;
}

const FRONTEND_MISSING =
  "this kernel runs without frontend surfaces (no session hub was given to the plugin host)";

const FRONTEND_RPCS: Readonly<Record<FrontendRpc, string>> = {
  getSessionState: "GetSessionState",
  submitInput: "SubmitInput",
  resolvePlanDecision: "ResolvePlanDecision",
  interrupt: "Interrupt",
  createSession: "CreateSession",
  attachSession: "AttachSession",
  resumeSession: "ResumeSession",
  detachSession: "DetachSession",
  listSessions: "ListSessions",
  publishMetadata: "PublishMetadata",
  retractMetadata: "RetractMetadata",
  listMetadata: "ListMetadata",
  streamDeltas: "StreamDeltas",
  invokeSlashCommand: "InvokeSlashCommand",
  triggerAction: "TriggerAction",
  renderEvents: "RenderEvents",
  verifySession: "VerifySession",
};

/**
 * The frontend handlers, looked up at call time (the kernel's session hub
 * exists only once the providers run), or `UNIMPLEMENTED` without one.
 */
function frontendHandlers(
  services: KernelServices,
  identity: PluginIdentity,
): FrontendHandlers {
  let bound: FrontendHandlers | undefined;
  let boundTo: FrontendSurface | undefined;
  const out: Record<string, unknown> = {};
  for (const [method, rpc] of Object.entries(FRONTEND_RPCS)) {
    out[method] = (req: unknown, ctx: unknown) => {
      const surface = services.frontend;
      if (!surface) return unimplemented(rpc, FRONTEND_MISSING);
      if (boundTo !== surface || !bound) {
        // Bound once per surface (a test swaps the hub between steps).
        bound = surface.handlers(identity);
        boundTo = surface;
      }
      return (bound[method as FrontendRpc] as (
        req: unknown,
        ctx: unknown,
      ) => unknown)(req, ctx);
    };
  }
  return out as FrontendHandlers;
}

/**
 * Builds the callback handlers for one plugin.
 *
 * @param options The plugin's identity, config and the kernel services.
 * @returns Handlers for every RPC of `KernelCallbackService`.
 */
export function createCallbackService(
  options: CallbackServiceOptions,
): CallbackImpl {
  const { identity } = options;
  const services = options.services ?? {};
  const telemetry = services.telemetry ??
    createTelemetryRelay(DEFAULT_TELEMETRY);
  const settings = telemetry.settings;
  const pluginLog = getLogger(["ph-agent", "plugin", identity.name]);
  const kernelLog = getLogger(["ph-agent", "kernel", "callback"]);
  const producer = `${identity.category}/${identity.name}@${identity.version}`;

  const session = (sessionId: string): LiveSession => {
    if (!services.sessions) throw sessionAccessDenied();
    return services.sessions.authorize(identity, sessionId);
  };
  const optionalSession = (sessionId: string | undefined) => {
    if (sessionId !== undefined) session(sessionId);
  };
  const bus = (rpc: string): EventBus =>
    services.bus ?? unimplemented(rpc, "this kernel runs without an event bus");
  const grants = (options.subscribeGrant ?? []).map(parseSubscribeGrant)
    .filter((g) => g.problem === undefined);
  // kernel.* topics carry every session's prompts and tool results: a
  // filter that can match one must be covered by the operator's grant.
  const authorizeSubscribe = (filters: readonly string[]) => {
    for (const f of filters) {
      if (!filterReachesKernel(f)) continue;
      if (grants.some((g) => grantCovers(g.filter, f))) continue;
      throw new GrpcStatusError(
        Code.PERMISSION_DENIED,
        `Subscribe to ${
          JSON.stringify(f)
        } is refused: provider "${identity.name}" has no allow_subscribe grant covering it (kernel.* topics carry sessions' prompts and tool results; the operator grants them with allow_subscribe = ["kernel.event.*"] in its provider block)`,
      );
    }
  };

  const base: CallbackImpl = {
    log: (req) => {
      if (req.entries.length === 0) invalid("Log needs at least one entry");
      optionalSession(req.sessionId);
      let valid = 0;
      for (const [i, e] of req.entries.entries()) {
        const level = LEVELS[e.level];
        if (level === undefined || e.message === "" || e.time === undefined) {
          const missing = [
            level === undefined ? "level" : "",
            e.message === "" ? "message" : "",
            e.time === undefined ? "time" : "",
          ].filter(Boolean).join(", ");
          kernelLog.warn(
            "Skipped malformed log entry {index} from plugin {producer}: missing {missing}",
            { index: i, producer, missing },
          );
          continue;
        }
        valid++;
        if (!settings.logsEnabled || e.level < settings.logLevel) continue;
        const logger = e.logger ? pluginLog.getChild(e.logger) : pluginLog;
        logAt(logger, level, e.message, {
          ...(e.fields ?? {}),
          producer,
          ...(req.sessionId ? { session: req.sessionId } : {}),
          pluginTime: timestampDate(e.time).toISOString(),
        });
      }
      if (valid === 0) {
        invalid(
          `every one of the ${req.entries.length} log entries is malformed (each needs level, message and time)`,
        );
      }
      return {};
    },

    countTokens: async (req) => {
      if (req.content.length === 0) {
        invalid("CountTokens needs at least one content block");
      }
      if (req.modelRef && services.countTokens) {
        if (!req.modelRef.provider || !req.modelRef.id) {
          invalid("model_ref needs both provider and id");
        }
        try {
          const exact = await services.countTokens(
            { provider: req.modelRef.provider, id: req.modelRef.id },
            req.content,
          );
          if (exact !== undefined) return { count: BigInt(exact), exact: true };
        } catch (err) {
          if (
            !(err instanceof GrpcStatusError && err.code === Code.UNIMPLEMENTED)
          ) throw err;
        }
      }
      return { count: BigInt(fallbackTokenCount(req.content)), exact: false };
    },

    emit: async (req) => {
      const live = session(req.sessionId); // authorization first: learn nothing
      if (KERNEL_OWNED_KINDS.has(req.kind)) {
        throw new GrpcStatusError(
          Code.PERMISSION_DENIED,
          `Emit of kind ${
            EventKind[req.kind]
          } is refused: only the kernel writes message, plan, apply, hook_error and control events`,
        );
      }
      if (
        req.kind === EventKind.UNSPECIFIED || EventKind[req.kind] === undefined
      ) {
        invalid("kind is EVENT_KIND_UNSPECIFIED: set the event kind");
      }
      if (!req.schemaVersion) {
        invalid('schema_version is required ("1" for event.v1 payloads)');
      }
      try {
        const e = await live.log.emit({
          kind: req.kind,
          producer: identity,
          schemaVersion: req.schemaVersion,
          payload: req.payload,
        });
        return { id: e.id, sequence: BigInt(e.sequence) };
      } catch (err) {
        throw asStatus(err);
      }
    },

    readEvents: async function* (req, ctx) {
      const live = session(req.sessionId);
      for (const k of req.kinds) {
        if (k === EventKind.UNSPECIFIED || EventKind[k] === undefined) {
          invalid("kinds must not contain EVENT_KIND_UNSPECIFIED");
        }
      }
      if (req.limit !== undefined && req.limit < 0) {
        invalid("limit must not be negative");
      }
      if (req.fromSequence !== undefined && req.fromSequence < 0n) {
        invalid("from_sequence must not be negative");
      }
      try {
        for await (
          const e of live.log.readEvents({
            kinds: req.kinds,
            ...(req.fromSequence !== undefined
              ? { fromSequence: Number(req.fromSequence) }
              : {}),
            ...(req.limit !== undefined ? { limit: req.limit } : {}),
          })
        ) {
          if (ctx.signal.aborted) return;
          yield storedEventOf(e);
        }
      } catch (err) {
        throw asStatus(err);
      }
    },

    getSession: async (req) => {
      const live = session(req.sessionId);
      try {
        return {
          info: sessionInfoOf(await live.log.info()),
          remainingDepth: live.remainingDepth,
          remainingCostBudgetUsd: live.budget?.remainingUsd ??
            live.remainingCostBudgetUsd,
        };
      } catch (err) {
        throw asStatus(err);
      }
    },

    publish: (req) => {
      try {
        return {
          topic: bus("Publish").publishPlugin(identity, {
            eventType: req.eventType,
            payload: req.payload,
            payloadType: req.payloadType,
            schemaVersion: req.schemaVersion,
          }),
        };
      } catch (err) {
        throw asStatus(err);
      }
    },

    subscribe: async function* (req, ctx) {
      if (req.topicFilters.length === 0) {
        invalid("Subscribe needs at least one topic filter");
      }
      let sub;
      try {
        const b = bus("Subscribe");
        for (const f of req.topicFilters) validateFilter(f);
        authorizeSubscribe(req.topicFilters);
        sub = b.subscribe(req.topicFilters, {
          signal: ctx.signal,
          label: producer,
          accept: (event, sessionId) => {
            if (!event.topic.startsWith("kernel.")) return true;
            for (const g of grants) {
              if (!grantMatches(g.filter, event.topic)) continue;
              if (g.allSessions) return true;
              if (
                sessionId !== undefined &&
                services.sessions?.takesPart(identity, sessionId)
              ) return true;
            }
            return false;
          },
        });
      } catch (err) {
        throw asStatus(err);
      }
      try {
        for await (const ev of sub) yield ev;
      } catch (err) {
        throw asStatus(err);
      } finally {
        sub.close();
      }
    },

    exportSpans: async (req) => {
      if (req.spans.length === 0) {
        invalid("ExportSpans needs at least one span");
      }
      optionalSession(req.sessionId);
      req.spans.forEach((s, i) => {
        const p = spanProblem(s, i);
        if (p) invalid(p);
      });
      await telemetry.exportSpans(identity, req.spans, req.sessionId);
      return {};
    },

    recordMetrics: (req) => {
      if (req.metrics.length === 0) {
        invalid("RecordMetrics needs at least one metric");
      }
      optionalSession(req.sessionId);
      req.metrics.forEach((m, i) => {
        const p = metricProblem(m, i);
        if (p) invalid(p);
      });
      telemetry.recordMetrics(identity, req.metrics, req.sessionId);
      return {};
    },

    getTelemetryConfig: () => ({
      tracesEnabled: settings.tracesEnabled,
      metricsEnabled: settings.metricsEnabled,
      logsEnabled: settings.logsEnabled,
      logLevel: settings.logLevel,
      samplingRatio: settings.samplingRatio,
    }),

    // Deliberately unlogged at every level: the config holds resolved secrets.
    getConfig: () => ({ config: options.config ?? {} }),

    runSession: (req, ctx) => {
      if (!req.profile && !req.agent) {
        invalid(
          "profile is required: name an agent_profile (or set agent to a named agent)",
        );
      }
      if (req.profile && req.agent) {
        invalid(
          `set profile or agent, not both (profile "${req.profile}", agent "${req.agent}")`,
        );
      }
      if (req.name && !/^[a-z][a-z0-9_-]{0,62}$/.test(req.name)) {
        invalid(
          `name must match [a-z][a-z0-9_-]* (at most 63 characters): "${req.name}"`,
        );
      }
      session(req.parentSessionId);
      if (!Number.isInteger(req.remainingDepth) || req.remainingDepth < 0) {
        invalid("remaining_depth must be a non-negative integer");
      }
      if (
        !Number.isFinite(req.remainingCostBudgetUsd) ||
        req.remainingCostBudgetUsd < 0
      ) {
        invalid("remaining_cost_budget_usd must be a non-negative number");
      }
      req.scopedProviders.forEach((p, i) => {
        if (
          p.category === Category.UNSPECIFIED ||
          Category[p.category] === undefined
        ) {
          invalid(`scoped_providers[${i}].category must be set`);
        }
        if (!p.name) invalid(`scoped_providers[${i}].name is required`);
      });
      if (!services.runSession) {
        return unimplemented(
          "RunSession",
          "the request is valid, but this kernel runs no child sessions",
        );
      }
      return services.runSession(identity, req, ctx.signal).catch((err) => {
        throw asStatus(err);
      });
    },

    mergeWorktree: (req) => {
      session(req.sessionId); // authorization first
      if (!req.name) invalid("name is required: the worktree child's name");
      if (!services.mergeWorktree) {
        return unimplemented(
          "MergeWorktree",
          "this kernel runs no child sessions",
        );
      }
      return services.mergeWorktree(identity, req).catch((err) => {
        throw asStatus(err);
      });
    },

    sendMailbox: (req) => {
      session(req.sessionId); // authorization first
      if (!req.to) {
        invalid("to is required: a sibling's or child's name, or \"parent\"");
      }
      if (!req.text.trim()) invalid("text is required: the message");
      if (!services.sendMailbox) {
        return unimplemented(
          "SendMailbox",
          "this kernel runs no child sessions",
        );
      }
      return services.sendMailbox(identity, req);
    },

    resolveInteractive: (req) => {
      const live = session(req.sessionId); // authorization first
      if (!req.callId) {
        throw new GrpcStatusError(
          Code.INVALID_ARGUMENT,
          "ResolveInteractive needs call_id: the interactive call to answer",
        );
      }
      if (!live.resolveInteractive?.(req.callId, req.response ?? {})) {
        throw new GrpcStatusError(
          Code.FAILED_PRECONDITION,
          `No interactive call "${req.callId}" is waiting for an answer in this session (it was answered already, withdrawn, or never asked)`,
        );
      }
      return {};
    },
    ...frontendHandlers(services, identity),
    injectControl: (req) => {
      if (options.injectGrant !== true) {
        throw new GrpcStatusError(
          Code.PERMISSION_DENIED,
          `InjectControl is refused: provider "${identity.name}" has no inject grant (its manifest must declare "inject": true and the operator must write allow_inject = true in its provider block)`,
        );
      }
      // The plugin must serve the session: a grant of a running call, or a
      // participant of its profile (a watcher injects while it is idle).
      const registry = services.sessions;
      const live = registry?.get(req.sessionId);
      if (
        !registry || !live ||
        !(registry.isGranted(identity, req.sessionId) ||
          live.participants?.some((p) =>
            p.category === identity.category && p.name === identity.name
          ))
      ) throw sessionAccessDenied();
      if (!live.inject) {
        throw new GrpcStatusError(
          Code.FAILED_PRECONDITION,
          `Session "${req.sessionId}" has no control plane to inject into`,
        );
      }
      const channel = req.channel || "plugin-inject";
      if (!PLUGIN_CHANNELS.includes(channel)) {
        throw new GrpcStatusError(
          Code.INVALID_ARGUMENT,
          `InjectControl cannot post to channel "${channel}": a plugin may post ${
            PLUGIN_CHANNELS.map((c) => `"${c}"`).join(" or ")
          }`,
        );
      }
      const attributes = Object.entries(req.attributes);
      if (channel === "plugin-inject" && attributes.length > 0) {
        throw new GrpcStatusError(
          Code.INVALID_ARGUMENT,
          `InjectControl: plugin-inject takes no attributes (its plugin attribute is the plugin's name), got ${
            attributes.map(([k]) => `"${k}"`).join(", ")
          }`,
        );
      }
      try {
        return {
          outcome: channel === "plugin-inject"
            ? live.inject(identity.name, req.text)
            : live.inject(identity.name, req.text, {
              channel,
              attributes: req.attributes,
            }),
        };
      } catch (err) {
        if (!(err instanceof TypeError)) throw err;
        throw new GrpcStatusError(
          Code.INVALID_ARGUMENT,
          `InjectControl: ${err.message}`,
        );
      }
    },
  };
  return { ...base, ...options.extend } as CallbackImpl;
}

/** Re-exported for callers that configure telemetry. */
export {
  DEFAULT_TELEMETRY,
  type TelemetrySettings,
} from "../telemetry/relay.ts";
