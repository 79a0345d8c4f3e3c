/**
 * The microkernel (`@ph/agent/kernel`): it runs a compiled plan — launches
 * every plugin over the go-plugin compatible transport, serves their
 * callback channel, stores sessions and events, relays telemetry, and drives
 * the agent loop. `kernel/kernel.ts` (`openKernel`) ties these together; the
 * root module `@ph/agent` exports it with the first-party plugins plugged
 * in.
 *
 * This folder owns launching, supervising and stopping plugin processes
 * (`plugin/`, `process/`), the callback service (`callback/`), the session
 * store (`state/`), the event bus (`bus/`), the telemetry relay
 * (`telemetry/`) and the agent loop (`agent/`). It does not parse
 * `agent.hcl` (it calls `config/`) and holds no opinion about models, tools
 * or context: those are plugins.
 *
 * **Layering.** `kernel/` imports only `config/`, `contract/` and `proto/`.
 * It must not import `plugins/` (first-party plugins arrive through the
 * `builtins` option as a `contract/` `BuiltinCatalog`) or `cli/`; within
 * the folder, a subfolder never imports its parent's files.
 * `deno task layering` enforces this.
 *
 * @example Launch the example plugin and call it
 * ```ts ignore
 * import { PluginHost } from "@ph/agent/kernel";
 * import { readManifest } from "@ph/agent/plugin";
 *
 * await using host = new PluginHost({});
 * const manifest = await readManifest("plugins/echo/plugin.json");
 * const plugin = await host.launch({ manifest, entrypoint: "plugins/echo/main.ts" });
 * ```
 *
 * @module
 */
export {
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  DEFAULT_START_TIMEOUT_MS,
  type LaunchOptions,
  PluginHost,
  type PluginHostOptions,
  type PluginSpec,
  SDK_ENV_NAMES,
} from "./plugin/host.ts";
export { Plugin } from "./plugin/plugin.ts";
export {
  DenoCommandLauncher,
  type LaunchedProcess,
  type ProcessCommand,
  type ProcessLauncher,
  type ProcessStatus,
} from "./process/launcher.ts";
export {
  BundleBuildError,
  type BundleBuildOptions,
  type BundleSource,
  type PluginBundle,
  PluginBundles,
  type PluginBundlesOptions,
} from "./process/plugin_bundle.ts";
export {
  type CallbackEndpoint,
  type CallbackHost,
  type CallbackImpl,
  InProcessCallbackHost,
  type OpenEndpointOptions,
} from "./callback/host.ts";
export {
  IsolatedCallbackHost,
  type IsolatedCallbackHostOptions,
} from "./callback/isolated_host.ts";
export {
  type CallbackServiceOptions,
  createCallbackService,
  type ExactTokenCounter,
  KERNEL_OWNED_KINDS,
  type KernelServices,
} from "./callback/service.ts";
export {
  type GrantHolder,
  type LiveSession,
  SESSION_ACCESS_DENIED_MESSAGE,
  sessionAccessDenied,
  SessionRegistry,
} from "./state/session_registry.ts";
export {
  type BoundedMetric,
  boundMetric,
  createTelemetryRelay,
  DEFAULT_TELEMETRY,
  MAX_ATTRIBUTE_KEY_LENGTH,
  MAX_ATTRIBUTE_SETS,
  MAX_ATTRIBUTE_VALUE_LENGTH,
  MAX_METRIC_ATTRIBUTES,
  metricProblem,
  OVERFLOW_ATTRIBUTES,
  type RelayStats,
  spanProblem,
  type TelemetryRelay,
  type TelemetrySettings,
} from "./telemetry/relay.ts";
export {
  denoPermissionFlags,
  type EffectivePermissions,
  formatDenials,
  PERMISSION_KINDS,
  type PermissionDenial,
  type PermissionGrant,
  type PermissionKind,
  type PermissionResolution,
  resolvePermissions,
  type ResolvePermissionsOptions,
  type TransportPermissions,
} from "../contract/permissions.ts";
export {
  describeExit,
  type ExitInfo,
  PluginCrashedError,
  PluginStartError,
  type PluginStartErrorCode,
} from "./plugin/errors.ts";
export type { PluginIdentity } from "../contract/plugin_identity.ts";
export { fallbackTokenCount } from "../contract/tokens.ts";
// State backend (issue 4): the session store, the event kinds, the hash
// chain and the event bus.
export {
  canChangeStatus,
  type ChainFailure,
  type ChainScheme,
  type CostLedgerEntry,
  type CostLedgerRecord,
  type CreateSessionOptions,
  type EmitInput,
  type EmittedEvent,
  type EventRecord,
  type HeadCheck,
  KERNEL_PRODUCER,
  type ListSessionsOptions,
  type ListSessionsResult,
  type PlanItemDecision,
  type PlanItemEntry,
  type PlanItemRecord,
  type Producer,
  type ProducerCategory,
  type ProducerRecord,
  type ReadEventsOptions,
  type RecoveryReport,
  SESSION_STATUS_TEXT,
  type SessionLog,
  type SessionOwner,
  type SessionRecord,
  type SessionStore,
  type SessionStoreOptions,
  type UnreadableSession,
  type VerifyResult,
} from "./state/session_store.ts";
export {
  DEFAULT_BUSY_TIMEOUT_MS,
  defaultSessionsDir,
  SCHEMA_VERSION,
  SqliteSessionStore,
  type SqliteSessionStoreOptions,
} from "./state/sqlite_session_store.ts";
export {
  MemorySessionStore,
  type MemorySessionStoreOptions,
} from "./state/memory_session_store.ts";
export {
  DEFAULT_LEASE_MS,
  DEFAULT_MAX_QUEUED,
  PG_SCHEMA_VERSION,
  PostgresSessionStore,
  type PostgresSessionStoreOptions,
} from "./state/postgres_session_store.ts";
export {
  BRIDGED_TOPICS,
  type CommitNotifier,
  type CommittedEvent,
  NOTIFY_INLINE_LIMIT,
  PostgresBusBridge,
  type PostgresBusBridgeOptions,
} from "./state/postgres_bus_bridge.ts";
export {
  type FollowItem,
  type FollowOptions,
  followSession,
} from "./frontend/follow_session.ts";
export {
  DECIDE_TOPIC,
  decideRemotely,
  type DecideRemotelyOptions,
  type RemoteDecision,
  REPLY_TOPIC,
  serveRemoteDecisions,
  type ServeRemoteDecisionsOptions,
} from "./frontend/remote_decisions.ts";
export {
  EVENT_KINDS,
  type EventKindInfo,
  eventKindInfo,
  type EventKindText,
  eventTopic,
  tryEventKindFromText,
} from "./state/event_kinds.ts";
export {
  canonicalEventBytes,
  chainGenesis,
  type ChainHasher,
  chainHasher,
  type ChainHead,
  eventHash,
  HASH_BYTES,
  type HashedEvent,
  headMac,
  keyedChainGenesis,
  keyedEventHash,
  type StoredHashedEvent,
  verifyChain,
  type VerifyChainOptions,
} from "./state/hash_chain.ts";
export {
  defaultInstallationKeyPath,
  INSTALLATION_KEY_BYTES,
  type InstallationKey,
  installationKeyFromBytes,
  installationKeyId,
  loadInstallationKey,
  type LoadInstallationKeyOptions,
} from "./state/installation_key.ts";
export {
  DuplicateEventIdError,
  InstallationKeyError,
  InvalidStatusTransitionError,
  MalformedEventRowError,
  ReservedProducerError,
  SchemaTooNewError,
  SessionClosedError,
  SessionExistsError,
  SessionLeasedError,
  SessionNotFoundError,
  SessionUnreadableError,
  StateError,
  type StateErrorCode,
  type StateGrpcStatus,
  StorageError,
  UnspecifiedEventKindError,
} from "./state/errors.ts";
export {
  createUlidGenerator,
  isUlid,
  ulid,
  type UlidGenerator,
  ulidTime,
} from "./state/ulid.ts";
export {
  type BusStats,
  DEFAULT_SUBSCRIBE_QUEUE_BOUND,
  EventBus,
  type EventBusOptions,
  type KernelPublication,
  type PluginPublication,
  type SubscribeOptions,
  Subscription,
} from "./bus/event_bus.ts";
export {
  filterMatches,
  pluginTopic,
  type TopicIdentity,
  validateFilter,
  validateTopic,
} from "./bus/topic.ts";
export {
  BusError,
  type BusErrorCode,
  type BusGrpcStatus,
  InvalidPublishError,
  InvalidTopicError,
  InvalidTopicFilterError,
  SubscriberOverflowError,
} from "./bus/errors.ts";
// Agent loop (issue 6): sessions, turns, hook dispatch, the plan/apply gate,
// bounds and retries, resume and replay.
export * from "./control/mod.ts";
export { AgentSession } from "./agent/session.ts";
export {
  type TriggerOptions,
  triggerSession,
  type TriggerStoredOptions,
  triggerStoredSession,
} from "./agent/trigger.ts";
export { runSession, type RunSessionOptions } from "./agent/run_session.ts";
export {
  directivePrompt,
  judgePrompt,
  type JudgeReview,
  JudgeSession,
  type JudgeVerdict,
  type OpenJudgeOptions,
  verdictOf,
} from "./agent/judge.ts";
export type {
  OpenSessionOptions,
  SendOptions,
  SendResult,
  SessionResult,
  SessionRun,
} from "./agent/session_types.ts";
export type { AgentDeps } from "./agent/agent_deps.ts";
export type { ErrorInfo } from "./agent/errors.ts";
export { exitCodeOf } from "./agent/exit_codes.ts";
export { finalAnswerInstruction } from "./agent/bounds.ts";
export {
  BUILTIN_DEFAULT_BOUNDS,
  type ContextBudgetSettings,
  DEFAULT_ASK_TIMEOUT_MS,
  DEFAULT_DOOM_LOOP_THRESHOLD,
  DEFAULT_HOOK_TIMEOUT_MS,
  DEFAULT_PREVIEW_TIMEOUT_MS,
  DEFAULT_TOOL_TIMEOUT_MS,
  type DoomLoopSettings,
  HOOK_POINT_NAMES,
  type HookModeName,
  type HookPointName,
  type HookSubscription,
  type ModelChainEntry,
  type OnAsk,
  type PreambleSection,
  type ResolvedSessionSpec,
  resolveSessionSpec,
  type RetrySettings,
  type SessionBounds,
  type SessionSpec,
  VETO_BEARING_POINTS,
} from "./agent/session_spec.ts";
export {
  countRequestTokens,
  countTokensOrFallback,
  HistoryTokenCounter,
  modelTokenCounter,
  type TokenCount,
  type TokenCountRequest,
} from "./agent/token_count.ts";
export { type CompactionOutcome, type UsageBand } from "./agent/compaction.ts";
export {
  type ApprovalAnswer,
  type ApprovalRequest,
  type ApprovalSource,
  type BoundName,
  type ContentView,
  type PlanItemView,
  type SessionEvent,
  type SessionEventType,
  type SessionStatusText,
  type ToolErrorView,
} from "./agent/session_events.ts";
export {
  type EndpointCallOptions,
  type HookEndpoint,
  hookEndpointOf,
  type ModelEndpoint,
  modelEndpointOf,
  type ToolEndpoint,
  toolEndpointOf,
} from "./agent/endpoints.ts";
export {
  ApprovalGate,
  type ApprovalGateOptions,
  type Approver,
  type PersistAlwaysRule,
  type PolicyVerdict,
} from "./agent/approval_gate.ts";
export {
  PolicyProbe,
  type PolicyProbeCall,
  type PolicyProbeOptions,
  type PolicyProbeProblem,
  type PolicyProbeResult,
  type PolicyProbeVerdict,
  toolSchemasOf,
} from "./agent/policy_probe.ts";
export {
  type InteractiveAnswerer,
  InteractiveGate,
  type InteractiveGateOptions,
  type InteractiveOutcome,
  type InteractiveRequest,
} from "./agent/interactive_gate.ts";
export {
  type ChainProvider,
  type ChainReport,
  type ContextProviderEndpoint,
  type MemoryProviderEndpoint,
  providerContextAssembler,
  type ProviderContextOptions,
} from "./agent/provider_context.ts";
export {
  type DispatchOutcome,
  HookDispatcher,
  type HookDispatcherOptions,
  type HookFailure,
} from "./agent/hook_dispatch.ts";
export {
  type ContextAssembler,
  type ContextAssembly,
  type ContextAssemblyInput,
  passThroughAssembler,
} from "./agent/context_assembly.ts";
export {
  computeCostUsd,
  CostBudget,
  type CostOptions,
  pickPricingTier,
  type UsageCounts,
} from "../contract/cost.ts";
export {
  callHash,
  canonicalJson,
  DoomLoopDetector,
  type HashedCall,
} from "./agent/doom_loop.ts";
export { concurrencyKey, KeyedQueue } from "./agent/concurrency.ts";
export {
  createOtelTracer,
  endSpanWithError,
  hookSpanName,
  type KernelSpan,
  type KernelTracer,
  NOOP_SPAN,
  NOOP_TRACER,
  type OtelTracerOptions,
  otelTracerOptionsOf,
  type RecordedSpan,
  RecordingTracer,
  type SpanAttributes,
  type SpanAttributeValue,
  type SpanStatus,
  type SpanTree,
  type TracingSettingsSource,
} from "./agent/tracing.ts";
export { rebuildHistory, replaySession } from "./agent/history.ts";
export {
  sessionSpecFromPlan,
  type SessionSpecFromPlanOptions,
  type SessionSpecFromPlanResult,
} from "./agent/session_spec_from_plan.ts";
export {
  AgentError,
  type AgentErrorCode,
  AlwaysScopeUnsupportedError,
  ApprovalRequiredError,
  HookChainAbortedError,
  ModelCallError,
  type ModelErrorCode,
  NoEligibleModelError,
  PricingError,
  SessionNotResumableError,
  TurnCancelledError,
} from "./agent/errors.ts";
