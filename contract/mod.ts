/**
 * The contract (`@ph/agent/contract`): the vocabulary every layer shares.
 * The plugin manifest and its capability envelope, the permission model,
 * diagnostics and {@linkcode ConfigError}, the policy DSL and the shell
 * parser its `command` matches use, a plugin's identity, the fallback token
 * count, cost and pricing, and the first-party plugin catalogue interface.
 *
 * Everything here is pure data and pure functions: no plugin process, no
 * network, no session state.
 *
 * The contract functions whose signatures take generated protobuf messages
 * (`fallbackTokenCount`, `pickPricingTier`, `computeCostUsd`) are exported
 * from `@ph/agent/kernel` instead, next to the wire types they take, so that
 * this entry point's documentation stays free of generated code.
 *
 * **Layering.** `contract/` imports only `proto/` (and `npm:`/`node:`
 * packages). It must not import `config/`, `kernel/`, `plugins/` or `cli/`:
 * every one of those imports it. `deno task layering` enforces this.
 *
 * @example What a plugin may do, before it runs
 * ```ts
 * import { parseManifest, resolvePermissions } from "@ph/agent/contract";
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
 * @example Decide a tool call with the policy DSL
 * ```ts
 * import { evaluatePolicy } from "@ph/agent/contract";
 * import assert from "node:assert/strict";
 *
 * const decision = evaluatePolicy(
 *   [
 *     { name: "exec_ok", match: { provider: "exec" }, action: "allow" },
 *     { name: "no_rm", match: { command: "rm *" }, action: "deny" },
 *   ],
 *   {
 *     kind: "resource", provider: "exec", toolName: "bash", risk: "high",
 *     command: "make && rm -rf build",
 *   },
 * );
 * assert.equal(decision.action, "deny");
 * assert.equal(decision.decidedBy, `no_rm (segment "rm -rf build")`);
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
} from "./manifest.ts";
export {
  ANY_GRANTED,
  denoPermissionFlags,
  type EffectivePermissions,
  expandPath,
  formatDenials,
  OPTIONAL_RUN_SUFFIX,
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
  ConfigError,
  type Diagnostic,
  didYouMean,
  formatDiagnostic,
  type FormatOptions,
  hasErrors,
  levenshtein,
  type Pos,
  type Severity,
  type SourceRange,
} from "./diagnostic.ts";
export {
  commandArgument,
  evaluatePolicy,
  formatPolicyMatch,
  matchesCall,
  POLICY_ACTIONS,
  POLICY_MATCH_KINDS,
  type PolicyAction,
  type PolicyCall,
  type PolicyDecision,
  type PolicyMatch,
  type PolicyMatchKind,
  type PolicyRule,
  RISK_CLASSES,
  type RiskClass,
  type ToolKind,
} from "./policy.ts";
export {
  normalizePolicy,
  type NormalizePolicyResult,
  type PolicySourceRanges,
} from "./policy_normalize.ts";
export {
  compareSpecificity,
  isNarrowerMatch,
  type Specificity,
  specificity,
} from "./policy_specificity.ts";
export {
  checkPolicies,
  detectConflicts,
  emptyMatchWarnings,
  MAX_SHADOW_COMPARISONS,
  MAX_SHADOW_WARNINGS,
  type ShadowedDenyOptions,
  shadowedDenyWarnings,
} from "./policy_checks.ts";
export {
  checkCommandPattern,
  type CommandPatternCheck,
  isCommandPatternWithin,
  literalAffixes,
  matchesCommandPattern,
} from "./command_pattern.ts";
export {
  type CommandSegment,
  MAX_COMMAND_DEPTH,
  type ParsedCommand,
  parseShellCommand,
  quoteShellWord,
  type ShellParseResult,
  type UnparseableCommand,
} from "./shell_command.ts";
export {
  manifestNameConflict,
  type PluginIdentity,
  type ProviderNaming,
} from "./plugin_identity.ts";
export {
  ALL_SESSIONS_SUFFIX,
  filterReachesKernel,
  grantCovers,
  grantMatches,
  parseSubscribeGrant,
  type SubscribeGrant,
} from "./subscribe_grant.ts";
export {
  CostBudget,
  type CostOptions,
  PricingError,
  type UsageCounts,
} from "./cost.ts";
export {
  BUILTIN_SOURCE_PREFIX,
  type BuiltinCatalog,
  type BuiltinPlugin,
  WEB_UI_FRONTEND,
} from "./builtins.ts";
export {
  DEFAULT_SANDBOX_MODE,
  SANDBOX_MODES,
  type SandboxMode,
} from "./sandbox.ts";
/** The control-plane channel names (seed 004). */
export {
  AGENT_CHANNELS,
  CHANNEL_NAMES,
  SYSTEM_CHANNELS,
} from "./control_channels.ts";
