/**
 * `@ph/agent`: a scriptable, permission-scoped AI-agent harness.
 *
 * The kernel launches every capability (models, tools, context, memory,
 * frontends) as a plugin subprocess speaking gRPC behind a hashicorp/go-plugin
 * compatible handshake, so plugins can be written in any language and each
 * runs with only the permissions its manifest declares and the operator
 * grants.
 *
 * This root module holds what every user of the package needs to reason about
 * plugins: the manifest format, the permission model and the errors a launch
 * can end with. The plugin host is in `@ph/agent/kernel`, the plugin SDK in
 * `@ph/agent/plugin`, and the wire contracts in `@ph/agent/proto` and
 * `@ph/agent/proto/<area>`.
 *
 * @example What a plugin may do, before it runs
 * ```ts
 * import { parseManifest, resolvePermissions } from "@ph/agent";
 * import assert from "node:assert/strict";
 *
 * const manifest = parseManifest({
 *   name: "gh", version: "1.0.0", category: "tool", protocol_version: 1,
 *   runtime: "deno", entrypoint: "main.ts",
 *   capabilities: { env: ["GITHUB_TOKEN"], run: ["git"] },
 * }, "gh/plugin.json");
 * const { effective, denied } = resolvePermissions(
 *   manifest.capabilities,
 *   { env: ["GITHUB_TOKEN"] },
 *   { cwd: "/repo" },
 * );
 * assert.deepEqual(effective.env, ["GITHUB_TOKEN"]);
 * assert.deepEqual(denied, [{ kind: "run", value: "git" }]);
 * ```
 *
 * @module
 */
export {
  type CapabilityEnvelope,
  CATEGORY_NAMES,
  type CategoryName,
  CONFIG_ATTR_TYPES,
  type ConfigAttributeSpec,
  type ConfigAttrType,
  ManifestError,
  type ManifestTool,
  parseManifest,
  type PluginManifest,
  type PluginRuntime,
  readManifest,
} from "./plugins/sdk/manifest.ts";
export {
  type EffectivePermissions,
  formatDenials,
  PERMISSION_KINDS,
  type PermissionDenial,
  type PermissionGrant,
  type PermissionKind,
  type PermissionResolution,
  resolvePermissions,
  type ResolvePermissionsOptions,
} from "./kernel/permissions.ts";
export {
  describeExit,
  type ExitInfo,
  PluginCrashedError,
  PluginStartError,
  type PluginStartErrorCode,
} from "./kernel/errors.ts";
export {
  checkConfig,
  type CheckConfigOptions,
  type CheckExitCode,
  type CheckResult,
  compileConfig,
  ConfigError,
  type Diagnostic,
  type Fingerprint,
  type GenerationSettings,
  type GlobalConfig,
  type HookMode,
  type HookPoint,
  type LoadConfigInputsOptions,
  type LogLevel,
  type ModelRef,
  type ModelRouting,
  type ObjectValue,
  type ObservabilitySettings,
  type Plan,
  type PlanHook,
  type PlanLockEntry,
  type PlanPermissions,
  type PlanProfile,
  type PlanProvider,
  type PolicyAction,
  type PolicyMatch,
  type PolicyMatchKind,
  type PolicyRule,
  type Pos,
  type ProfileBounds,
  type RegistryMirror,
  type RegistryMirrorEntry,
  type RetrySettings,
  type RiskClass,
  Secret,
  type Settings,
  type Severity,
  type SourceKind,
  type SourceRange,
  type ToolDeclaration,
  type ToolKind,
  type ToolScopeEntry,
  type TypeName,
  type Value,
} from "./config/mod.ts";
/**
 * Running an agent: {@linkcode openKernel} compiles a project's
 * `agent.hcl`, launches its plugins and opens sessions; each session
 * streams typed {@linkcode SessionEvent}s and asks for approvals through a
 * callback.
 */
export {
  type Kernel,
  type KernelSendOptions,
  type KernelSession,
  type KernelSessionOptions,
  type KernelSessions,
  openKernel,
  type OpenKernelOptions,
  openSessions,
  type PromptResult,
  ProviderError,
  sessionExitCode,
  type SessionOutcome,
} from "./kernel/agent_kernel.ts";
export type { ErrorInfo, SessionRun } from "./kernel/agent/agent_session.ts";
export type { Approver } from "./kernel/agent/approval_gate.ts";
export type {
  InteractiveAnswerer,
  InteractiveRequest,
} from "./kernel/agent/interactive_gate.ts";
export type { OnAsk } from "./kernel/agent/session_spec.ts";
export type {
  ApprovalAnswer,
  ApprovalRequest,
  ApprovalSource,
  BoundName,
  ContentView,
  PlanItemView,
  SessionEvent,
  SessionEventType,
  SessionStatusText,
  ToolErrorView,
} from "./kernel/agent/session_events.ts";
export type {
  ChainFailure,
  ListSessionsOptions,
  ListSessionsResult,
  SessionRecord,
  UnreadableSession,
  VerifyResult,
} from "./kernel/session_store.ts";
export type {
  HookModeName,
  HookPointName,
} from "./kernel/agent/session_spec.ts";
export type { UsageCounts } from "./kernel/agent/cost.ts";
export type { JsonObject, JsonValue } from "@bufbuild/protobuf";
export { SessionStatus } from "./proto/gen/pluggableharness/session/v1/types_pb.ts";

// `deno run -A jsr:@ph/agent [args]` runs this module: behave as the `agent`
// command line then. The CLI is imported lazily so that a library import of
// this module stays as cheap as its re-exports.
if (import.meta.main) {
  const { run } = await import("./main.ts");
  Deno.exit(await run(Deno.args));
}
