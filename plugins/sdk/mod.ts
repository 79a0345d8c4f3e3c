/**
 * The plugin SDK (`@ph/agent/plugin`): everything a TypeScript plugin needs
 * to speak the go-plugin compatible transport to an `@ph/agent` kernel, or
 * to any go-plugin host using the same handshake.
 *
 * A plugin is a Deno module with a `plugin.json` manifest beside it. Its
 * main module calls {@linkcode serve} with its identity and services; the
 * SDK checks the magic cookie, listens, prints the handshake line, serves
 * go-plugin's health, broker, controller and stdio services, and connects
 * to the kernel's callback channel (broker ID 1) as soon as it is announced.
 *
 * This folder owns the plugin side of the transport and helpers for writing
 * plugins (tool schemas and results, config schemas, logging, roots). It
 * re-exports the manifest format from `contract/`.
 *
 * **Layering.** `plugins/sdk/` imports only `contract/` and `proto/`: a
 * plugin built on it never pulls in the config compiler or the kernel. It
 * must not import `config/`, `kernel/`, `cli/` or any first-party plugin;
 * first-party plugins (`plugins/<name>/`) import the SDK, `contract/` and
 * `proto/` only, never each other. `deno task layering` enforces this.
 *
 * @example A tool plugin skeleton
 * ```ts ignore
 * import { serve, service } from "@ph/agent/plugin";
 * import { ToolService } from "@ph/agent/proto/tool";
 *
 * if (import.meta.main) {
 *   await serve({
 *     identity: { name: "hello", version: "0.1.0", category: "tool" },
 *     services: (ctx) => [service(ToolService, {
 *       getSchema: () => ({ tools: [] }),
 *       configure: () => ({}),
 *       async *invoke() {},
 *       render: () => { throw new Error("unimplemented"); },
 *       preview: () => { throw new Error("unimplemented"); },
 *       describe: () => ({}),
 *     })],
 *   });
 * }
 * ```
 *
 * @module
 */
export {
  type KernelClient,
  type PluginContext,
  type PluginServer,
  serve,
  type ServeOptions,
  service,
  type ServiceBinding,
} from "./serve.ts";
export {
  createPluginLogger,
  type LogOptions,
  type PluginLogger,
  type PluginLoggerOptions,
} from "./logger.ts";
export { configSchemaOf } from "./config_schema.ts";
export {
  describeResponse,
  type InvokeEvent,
  numberSchema,
  objectSchema,
  type SchemaInit,
  stringSchema,
  toolError,
  toolProgress,
  toolResult,
} from "./tool_kit.ts";
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
} from "../../contract/manifest.ts";
export { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
export {
  type CallMetadata,
  type HandlerContext,
  type ServiceImpl,
} from "../../proto/rpc.ts";
export {
  confine,
  type ConfinedPath,
  isInside,
  parseRootsConfig,
  PathError,
  type ResolvedRoot,
  resolveRoots,
  RootsConfigError,
} from "./roots.ts";
export {
  type ArgumentType,
  checkArgumentTypes,
  classify,
  failureEvent,
  type FailureKind,
  ToolFailure,
} from "./tool_failure.ts";
