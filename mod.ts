/**
 * `@ph/agent`: a scriptable, permission-scoped AI-agent harness.
 *
 * The kernel launches every capability (models, tools, context, memory,
 * frontends) as a plugin subprocess speaking gRPC behind a hashicorp/go-plugin
 * compatible handshake, so plugins can be written in any language and each
 * runs with only the permissions its manifest declares and the operator
 * grants.
 *
 * This root module exports what most users need; the rest lives under
 * `@ph/agent/kernel`, `@ph/agent/plugin` (the plugin SDK) and
 * `@ph/agent/proto`.
 *
 * @example Launch a plugin and call it
 * ```ts ignore
 * import { PluginHost, readManifest } from "@ph/agent";
 * import { ToolService } from "@ph/agent/proto/tool";
 *
 * await using host = new PluginHost({});
 * const manifest = await readManifest("plugins/echo/plugin.json");
 * const echo = await host.launch({ manifest, entrypoint: "plugins/echo/main.ts" });
 * const tool = echo.client(ToolService);
 * for await (const ev of tool.invoke({ call: { toolName: "echo", arguments: { text: "hi" } } })) {
 *   console.log(ev.event?.event);
 * }
 * ```
 *
 * @module
 */
export {
  type ExitInfo,
  Plugin,
  PluginCrashedError,
  PluginHost,
  type PluginHostOptions,
  type PluginSpec,
  PluginStartError,
  resolvePermissions,
} from "./kernel/mod.ts";
export {
  ManifestError,
  type PluginManifest,
  readManifest,
} from "./plugins/sdk/mod.ts";
