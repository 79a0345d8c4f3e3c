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
  DEFAULT_TELEMETRY,
  type TelemetrySettings,
} from "./callback_service.ts";
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
