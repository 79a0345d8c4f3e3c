/**
 * The config compiler (`@ph/agent/config`): `agent.hcl` → diagnostics → a
 * typed {@linkcode Plan}.
 * No plugin process, no network: it reads the project's single `agent.hcl`,
 * the lock file `.agent/agent.lock.hcl`, the global
 * `$XDG_CONFIG_HOME/agent/config.hcl`, and the manifests of the plugins
 * available locally.
 *
 * - {@linkcode checkConfig} / {@linkcode compileConfig}: a project
 *   directory in, the plan and every diagnostic out (`compileConfig` throws
 *   a {@linkcode ConfigError} on errors). `check-config` is
 *   {@linkcode checkConfig} plus rendering.
 * - {@linkcode loadConfigInputs} (all the I/O) then {@linkcode compile}
 *   (pure: same inputs, byte-identical plan JSON).
 * - {@linkcode lockConfig} writes the lock file; {@linkcode parseLockFile}
 *   and {@linkcode formatLockFile} read and write its format.
 * - {@linkcode evaluatePolicy} decides calls for the kernel;
 *   {@linkcode checkCapabilities} runs the stage-B checks once plugins have
 *   said what they support.
 *
 * This folder owns configuration only: it never starts a plugin, opens a
 * session or touches the network. The vocabulary it shares with the kernel
 * and the plugins (manifests, permissions, diagnostics, the policy DSL) is
 * in `contract/` and re-exported here where the plan's types name it.
 *
 * **Layering.** `config/` imports only `contract/` and `proto/`. It must not
 * import `kernel/`, `plugins/` (the first-party catalogue comes in through
 * the `builtins` option, typed by `contract/`'s `BuiltinCatalog`) or `cli/`.
 * `deno task layering` enforces this.
 *
 * @example Check a project
 * ```ts
 * import { BUILTINS } from "../plugins/builtin.ts";
 * import { checkConfig, planToJson } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const result = await checkConfig("examples", {
 *   locked: true,
 *   globalConfig: null,
 *   builtins: BUILTINS,
 * });
 * assert.equal(result.exitCode, 0);
 * const json = planToJson(result.plan!) as { providers: { name: string }[] };
 * assert.deepEqual(json.providers.map((p) => p.name), ["echo", "notes"]);
 * ```
 *
 * @module
 */

export {
  ConfigError,
  type Diagnostic,
  didYouMean,
  formatDiagnostic,
  type FormatOptions,
  hasErrors,
  type Pos,
  type Severity,
  type SourceRange,
} from "../contract/diagnostic.ts";
export {
  capDiagnostics,
  checkConfig,
  type CheckConfigOptions,
  type CheckExitCode,
  type CheckResult,
  compileConfig,
  exitCodeFor,
  MAX_DIAGNOSTICS,
  type SuppressedCounts,
} from "./check.ts";
export {
  artifactKey,
  compile,
  type CompileInputs,
  type CompileOptions,
  type CompileResult,
  isLockProblem,
  type PluginArtifact,
  type SourceFile,
} from "./compile.ts";
export {
  checkCapabilities,
  type ProviderCapabilities,
} from "./check_capabilities.ts";
export {
  CONFIG_FILE_NAME,
  DEFAULT_CONFIG_PATH,
  findDenoConfig,
  type FindDenoConfigOptions,
  type Fingerprint,
  loadConfigInputs,
  type LoadConfigInputsOptions,
  type LoadedInputs,
  readPluginManifest,
} from "./files.ts";
export {
  type ForgeLockFacts,
  type ForgeLockRequest,
  type ForgeLockResolver,
  type LockChange,
  lockConfig,
  type LockConfigOptions,
  type LockResult,
} from "./lock.ts";
export {
  formatLockFile,
  hclString,
  LOCK_FILE_PATH,
  LOCK_FILE_VERSION,
  type LockedProvider,
  type LockFile,
  parseLockFile,
  type ParseLockFileResult,
} from "./lock_file.ts";
export {
  type ArtifactDigest,
  ArtifactError,
  checksumsEqual,
  computeArtifactChecksum,
  type ComputeArtifactChecksumOptions,
  computeRemoteArtifactChecksum,
  DENO_PLATFORMS,
  type DigestedFile,
  hostPlatform,
  ModuleGraphError,
  pluginModuleRoots,
} from "./checksum.ts";
export {
  decodeGlobalConfig,
  type DecodeGlobalConfigResult,
  type GlobalConfig,
  globalConfigPath,
  type MirrorSelection,
  type RegistryMirror,
  type RegistryMirrorEntry,
  selectMirror,
} from "./global_config.ts";
export {
  type ConfigAttributeSpec,
  type ConfigAttrType,
  decodeProviderBody,
  type DecodeProviderBodyOptions,
  type DecodeProviderBodyResult,
  GRANT_ATTRIBUTES,
  TOKEN_BUDGET_ATTRIBUTE,
  validateConfigSchema,
} from "./provider_schema.ts";
export {
  DEFAULT_MAX_JUDGE_ROUNDS,
  DEFAULT_OBSERVABILITY,
  DEFAULT_RETRY,
  DEFAULT_SUBSCRIBE_QUEUE_BOUND,
  HOOK_MODES,
  HOOK_POINTS,
  type HookMode,
  type HookPoint,
  LOG_LEVELS,
  type LogLevel,
  type ObservabilitySettings,
  type Plan,
  type PlanAgent,
  type PlanControlPlane,
  type PlanHook,
  type PlanLockEntry,
  type PlanPermissions,
  type PlanProfile,
  type PlanProvider,
  planToJson,
  type RetrySettings,
  revealProviderConfig,
  type Settings,
  type SourceKind,
  type ToolDeclaration,
} from "./plan.ts";
export { appendPolicyRule, policyBlockOf } from "./policy_writer.ts";
export {
  type ExplainContext,
  type ExplainDelegate,
  type ExplainOutcome,
  explainPlan,
  type ExplainProfile,
  type ExplainProvider,
  type ExplainReport,
  formatExplain,
} from "./explain.ts";
export {
  type BoundChange,
  type ChangeKind,
  diffPlans,
  EMPTY_PLAN,
  type GrantChange,
  type LoosenedCall,
  type PlanDiff,
  type PolicyChange,
  type PolicyRuleSide,
  type ProfileChange,
  type ProviderChange,
  type ProviderSide,
} from "./plan_diff.ts";
export {
  type AgentConfig,
  decodeAgentConfig,
  type ProviderBlock,
  type RequiredProvider,
} from "./decode.ts";
export {
  decodeState,
  DEFAULT_STATE,
  type PlanState,
  STATE_BACKENDS,
} from "./decode_state.ts";
export {
  type ConstraintOperator,
  parseVersionConstraint,
  type ParseVersionConstraintResult,
  satisfies,
  selectNewest,
  type VersionCondition,
  type VersionConstraint,
} from "./version_constraint.ts";
export {
  diagnosticToJson,
  JSON_FORMAT_VERSION,
  renderHuman,
  type RenderHumanOptions,
  type RenderInput,
  renderJson,
  sortDiagnostics,
} from "./render.ts";
export {
  type CommandSegment,
  type ParsedCommand,
  parseShellCommand,
  type ShellParseResult,
  type UnparseableCommand,
} from "../contract/shell_command.ts";
export {
  checkCommandPattern,
  type CommandPatternCheck,
  matchesCommandPattern,
} from "../contract/command_pattern.ts";
export {
  evaluatePolicy,
  formatPolicyMatch,
  type PolicyAction,
  type PolicyCall,
  type PolicyDecision,
  type PolicyMatch,
  type PolicyMatchKind,
  type PolicyRule,
  type RiskClass,
  type ToolKind,
} from "../contract/policy.ts";
export {
  type GenerationSettings,
  type ModelRef,
  type ModelRouting,
} from "./model_routing.ts";
export { type ProfileBounds } from "./profile_bounds.ts";
export { type ToolScopeEntry } from "./tool_scope.ts";
export {
  type EnvLookup,
  type JsonValue,
  type ObjectValue,
  Secret,
  type TypeName,
  type Value,
} from "./hcl/mod.ts";
export type {
  CapabilityEnvelope,
  CategoryName,
  ManifestTool,
  PluginManifest,
  PluginRuntime,
} from "../contract/manifest.ts";
export type { BuiltinCatalog, BuiltinPlugin } from "../contract/builtins.ts";
export type {
  EffectivePermissions,
  PermissionKind,
} from "../contract/permissions.ts";
export type * from "./hcl/ast.ts";
export * from "./codes.ts";
