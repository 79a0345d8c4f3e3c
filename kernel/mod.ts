/**
 * The microkernel (`@ph/agent/kernel`): plugin lifecycle over the go-plugin
 * compatible transport, the kernel callback service and the permission
 * model that scopes every plugin.
 *
 * This folder owns launching, supervising and stopping plugin processes,
 * serving their callback channel, and deciding their permissions. It does
 * not parse `agent.hcl` (see `config/`) and holds no opinion about models,
 * tools or context: those are plugins.
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
  Plugin,
  PluginHost,
  type PluginHostOptions,
  type PluginSpec,
  SDK_ENV_NAMES,
} from "./plugin_host.ts";
export {
  type CallbackEndpoint,
  type CallbackHost,
  type CallbackImpl,
  InProcessCallbackHost,
  type OpenEndpointOptions,
} from "./callback_host.ts";
export {
  IsolatedCallbackHost,
  type IsolatedCallbackHostOptions,
} from "./isolated_callback_host.ts";
export {
  type CallbackServiceOptions,
  createCallbackService,
  type ExactTokenCounter,
  KERNEL_OWNED_KINDS,
  type KernelServices,
} from "./callback_service.ts";
export {
  type GrantHolder,
  type LiveSession,
  SESSION_ACCESS_DENIED_MESSAGE,
  sessionAccessDenied,
  SessionRegistry,
} from "./session_registry.ts";
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
} from "./telemetry_relay.ts";
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
} from "./permissions.ts";
export {
  describeExit,
  type ExitInfo,
  PluginCrashedError,
  PluginStartError,
  type PluginStartErrorCode,
} from "./errors.ts";
export type { PluginIdentity } from "./plugin_identity.ts";
export { fallbackTokenCount } from "./tokens.ts";
// State backend (issue 4): the session store, the event kinds, the hash
// chain and the event bus.
export {
  canChangeStatus,
  type ChainFailure,
  type CostLedgerEntry,
  type CostLedgerRecord,
  type CreateSessionOptions,
  type EmitInput,
  type EmittedEvent,
  type EventRecord,
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
  type SessionRecord,
  type SessionStore,
  type SessionStoreOptions,
  type UnreadableSession,
  type VerifyResult,
} from "./session_store.ts";
export {
  DEFAULT_BUSY_TIMEOUT_MS,
  defaultSessionsDir,
  SCHEMA_VERSION,
  SqliteSessionStore,
  type SqliteSessionStoreOptions,
} from "./sqlite_session_store.ts";
export { MemorySessionStore } from "./memory_session_store.ts";
export {
  EVENT_KINDS,
  type EventKindInfo,
  eventKindInfo,
  type EventKindText,
  eventTopic,
  tryEventKindFromText,
} from "./event_kinds.ts";
export {
  canonicalEventBytes,
  chainGenesis,
  eventHash,
  HASH_BYTES,
  type HashedEvent,
  type StoredHashedEvent,
  verifyChain,
  type VerifyChainOptions,
} from "./hash_chain.ts";
export {
  DuplicateEventIdError,
  InvalidStatusTransitionError,
  MalformedEventRowError,
  ReservedProducerError,
  SchemaTooNewError,
  SessionClosedError,
  SessionExistsError,
  SessionNotFoundError,
  SessionUnreadableError,
  StateError,
  type StateErrorCode,
  type StateGrpcStatus,
  StorageError,
  UnspecifiedEventKindError,
} from "./state_errors.ts";
export {
  createUlidGenerator,
  isUlid,
  ulid,
  type UlidGenerator,
  ulidTime,
} from "./ulid.ts";
export {
  type BusStats,
  DEFAULT_SUBSCRIBE_QUEUE_BOUND,
  EventBus,
  type EventBusOptions,
  type KernelPublication,
  type PluginPublication,
  type SubscribeOptions,
  Subscription,
} from "./event_bus.ts";
export {
  filterMatches,
  pluginTopic,
  type TopicIdentity,
  validateFilter,
  validateTopic,
} from "./bus_topic.ts";
export {
  BusError,
  type BusErrorCode,
  type BusGrpcStatus,
  InvalidPublishError,
  InvalidTopicError,
  InvalidTopicFilterError,
  SubscriberOverflowError,
} from "./bus_errors.ts";
