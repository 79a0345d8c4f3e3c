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
} from "./contract/manifest.ts";
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
} from "./contract/permissions.ts";
export {
  describeExit,
  type ExitInfo,
  PluginCrashedError,
  PluginStartError,
  type PluginStartErrorCode,
} from "./kernel/plugin/errors.ts";
export {
  type CheckConfigOptions,
  type CheckExitCode,
  type CheckResult,
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
  type OpenKernelOptions,
  openSessions,
  type PromptResult,
  ProviderError,
  sessionExitCode,
  type SessionOutcome,
} from "./kernel/kernel.ts";
export type { SessionRun } from "./kernel/agent/session_types.ts";
export type { ErrorInfo } from "./kernel/agent/errors.ts";
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
} from "./kernel/state/session_store.ts";
export type {
  HookModeName,
  HookPointName,
} from "./kernel/agent/session_spec.ts";
export type { UsageCounts } from "./contract/cost.ts";
export type { JsonObject, JsonValue } from "@bufbuild/protobuf";
export { SessionStatus } from "./proto/gen/pluggableharness/session/v1/types_pb.ts";

import {
  checkConfig as checkConfigWith,
  type CheckConfigOptions as CheckOptions,
  type CheckResult as Checked,
  compileConfig as compileConfigWith,
  type Diagnostic as Diag,
  type Plan as CompiledPlan,
} from "./config/mod.ts";
import {
  type Kernel as RunningKernel,
  openKernel as openKernelWith,
  type OpenKernelOptions as KernelOptions,
} from "./kernel/kernel.ts";
import { BUILTINS } from "./plugins/builtin.ts";

/**
 * Compiles `dir/agent.hcl`, launches every provider it names with its grant
 * and returns a running {@linkcode Kernel} (see `kernel/kernel.ts`). The
 * first-party plugins of this package are available as `builtin/<name>`.
 *
 * @example Usage
 * ```ts ignore
 * import { openKernel } from "@ph/agent";
 * await using kernel = await openKernel("./my-project");
 * ```
 *
 * @param dir The project directory.
 * @param options Lock, environment, sessions directory, persistence.
 * @returns The running kernel.
 * @throws {ConfigError} When the configuration or the lock file is invalid.
 */
export function openKernel(
  dir: string,
  options: KernelOptions = {},
): Promise<RunningKernel> {
  return openKernelWith(dir, { builtins: BUILTINS, ...options });
}

/**
 * Checks a project's configuration (`agent.hcl`, the lock file, the global
 * config and the local plugins' manifests) with this package's first-party
 * plugins available.
 *
 * @example Usage
 * ```ts
 * import { checkConfig } from "@ph/agent";
 * import assert from "node:assert/strict";
 * const r = await checkConfig("examples", { locked: true, globalConfig: null });
 * assert.equal(r.exitCode, 0);
 * ```
 *
 * @param dir The project directory.
 * @param options `locked`, the environment, the global config and platform.
 * @returns The plan (when valid), the diagnostics and the exit code.
 */
export function checkConfig(
  dir: string,
  options: CheckOptions = {},
): Promise<Checked> {
  return checkConfigWith(dir, { builtins: BUILTINS, ...options });
}

/**
 * Compiles a project's configuration with this package's first-party plugins
 * available.
 *
 * @example Usage
 * ```ts
 * import { compileConfig } from "@ph/agent";
 * import assert from "node:assert/strict";
 * const { plan } = await compileConfig("examples", { globalConfig: null });
 * assert.ok(plan);
 * ```
 *
 * @param dir The project directory.
 * @param options The environment, the global config and platform.
 * @returns The plan and the warnings.
 * @throws {ConfigError} Carrying every diagnostic, when there is an error.
 */
export function compileConfig(
  dir: string,
  options: CheckOptions = {},
): Promise<{ plan: CompiledPlan; diagnostics: Diag[] }> {
  return compileConfigWith(dir, { builtins: BUILTINS, ...options });
}
