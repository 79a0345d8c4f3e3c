/**
 * `@ph/agent`: a scriptable, permission-scoped AI-agent harness.
 *
 * The kernel launches every capability (models, tools, context, memory,
 * frontends) as a plugin subprocess speaking gRPC behind a hashicorp/go-plugin
 * compatible handshake, so plugins can be written in any language and each
 * runs with only the permissions its manifest declares and the operator
 * grants.
 *
 * This root module holds what a script running sessions needs:
 * {@linkcode openKernel} and {@linkcode openSessions}, the session, event,
 * outcome and approval types, {@linkcode sessionExitCode},
 * {@linkcode checkConfig} and {@linkcode compileConfig} (with this package's
 * first-party plugins available), and the errors a run can end with
 * ({@linkcode ConfigError}, {@linkcode ProviderError},
 * {@linkcode PluginStartError}, {@linkcode PluginCrashedError}).
 *
 * Everything else has its own entry point: the shared vocabulary (manifests,
 * permissions, diagnostics, the policy DSL) in `@ph/agent/contract`, the
 * config compiler and its plan types in `@ph/agent/config`, the plugin host
 * and the agent loop's parts in `@ph/agent/kernel`, the plugin SDK in
 * `@ph/agent/plugin`, and the wire contracts in `@ph/agent/proto` and
 * `@ph/agent/proto/<area>`.
 *
 * @example Check a project, then run a prompt
 * ```ts ignore
 * import { checkConfig, openKernel, sessionExitCode } from "@ph/agent";
 *
 * const checked = await checkConfig("./my-project");
 * if (checked.exitCode !== 0) Deno.exit(2);
 * await using kernel = await openKernel("./my-project");
 * const run = kernel.run("Summarize notes.md", { profile: "default" });
 * for await (const event of run) {
 *   if (event.type === "text_delta") console.log(event.text);
 * }
 * Deno.exit(sessionExitCode(await run.result));
 * ```
 *
 * @module
 */
export {
  type ExitInfo,
  PluginCrashedError,
  PluginStartError,
  type PluginStartErrorCode,
} from "./kernel/plugin/errors.ts";
/**
 * The configuration types that {@linkcode checkConfig} and
 * {@linkcode compileConfig} return or take (the plan and everything it
 * names). The config compiler itself is `@ph/agent/config`; manifests,
 * permissions and the policy DSL are `@ph/agent/contract`.
 */
export {
  type BuiltinCatalog,
  type BuiltinPlugin,
  type CapabilityEnvelope,
  type CategoryName,
  type CheckConfigOptions,
  type CheckExitCode,
  type CheckResult,
  type ConfigAttributeSpec,
  type ConfigAttrType,
  ConfigError,
  type Diagnostic,
  type EffectivePermissions,
  type Fingerprint,
  type GenerationSettings,
  type GlobalConfig,
  type HookMode,
  type HookPoint,
  type LoadConfigInputsOptions,
  type LogLevel,
  type ManifestTool,
  type ModelRef,
  type ModelRouting,
  type ObjectValue,
  type ObservabilitySettings,
  type PermissionKind,
  type Plan,
  type PlanHook,
  type PlanLockEntry,
  type PlanPermissions,
  type PlanProfile,
  type PlanProvider,
  type PluginManifest,
  type PluginRuntime,
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
  type Secret,
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
  type CommandOutcome,
  type JudgeOutcome,
  type Kernel,
  type KernelSendOptions,
  type KernelSession,
  type KernelSessionOptions,
  type KernelSessions,
  type KernelTriggerOptions,
  type OpenKernelOptions,
  PLAN_APPROVED_PROMPT,
  type PrestartFrontend,
  type PromptResult,
  ProviderError,
  type RenderedReplayEvent,
  type ReplayRenderItem,
  type RunningFrontend,
  sessionExitCode,
  type SessionOutcome,
  type StartFrontendOptions,
} from "./kernel/api.ts";
export { openSessions } from "./kernel/open_sessions.ts";
export type { CompactionOutcome } from "./kernel/agent/compaction.ts";
export type { DueTimer } from "./kernel/control/due_timers.ts";
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
/** The control plane's messages as sessions report them (`control` events). */
export type {
  AgentChannel,
  ChannelDirection,
  ChannelName,
  ControlView,
  SystemChannel,
} from "./kernel/control/mod.ts";
export type {
  ChainFailure,
  HeadCheck,
  ListSessionsOptions,
  ListSessionsResult,
  Producer,
  ProducerCategory,
  SessionOwner,
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
import type {
  Kernel as RunningKernel,
  OpenKernelOptions as KernelOptions,
} from "./kernel/api.ts";
import { openKernel as openKernelWith } from "./kernel/kernel.ts";
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

// `deno run -A jsr:@ph/agent [args]` runs this module: behave as the `agent`
// command line then. The CLI is imported lazily so that a library import of
// this module stays as cheap as its re-exports.
if (import.meta.main) {
  const { run } = await import("./main.ts");
  Deno.exit(await run(Deno.args));
}
