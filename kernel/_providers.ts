/**
 * Launching a plan's providers: where each one's manifest and entrypoint
 * are ({@linkcode launchableOf}), starting it with its grant and its
 * revealed configuration, and configuring it by category — model, tool,
 * context and memory (the context chain, {@linkcode chainProviderOf}),
 * hook subscribers — into the endpoints the agent loop runs on
 * ({@linkcode launchProviders}).
 *
 * @module
 */
import { rendererOf, type RenderFn } from "./frontend/render.ts";
import { producerKey } from "./state/_session_log.ts";
import { isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { JsonObject } from "@bufbuild/protobuf";
import {
  type Plan,
  type PlanProvider,
  revealProviderConfig,
} from "../config/mod.ts";
import { type BuiltinCatalog, WEB_UI_FRONTEND } from "../contract/builtins.ts";
import { type PluginManifest, readManifest } from "../contract/manifest.ts";
import { manifestNameConflict } from "../contract/plugin_identity.ts";
import { ModelService } from "../proto/gen/pluggableharness/model/v1/service_pb.ts";
import { ToolService } from "../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import { slashCommandEndpointOf } from "./agent/slash_endpoint.ts";
import type { ToolSchema } from "../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { Code, GrpcStatusError } from "../proto/grpc_status.ts";
import {
  contextEndpointOf,
  type HookEndpoint,
  hookEndpointOf,
  memoryEndpointOf,
  type ModelEndpoint,
  modelEndpointOf,
  type ToolEndpoint,
  toolEndpointOf,
} from "./agent/endpoints.ts";
import type { ChainProvider } from "./agent/provider_context.ts";
import type { ModelChainEntry } from "./agent/session_spec.ts";
import type { Plugin } from "./plugin/plugin.ts";
import type { PluginHost } from "./plugin/host.ts";
import { describeStatusError } from "./plugin/structured_error.ts";
import { ProviderError } from "./api.ts";
import { hostPlatform } from "../config/mod.ts";

/** What a provider runs: its manifest and its entrypoint's path. */
export interface Launchable {
  /** The plugin's manifest. */
  manifest: PluginManifest;
  /** The absolute path (or URL) of its entrypoint. */
  entrypoint: string;
  /** The plugin's folder (what the OS sandbox binds as its own files). */
  root?: string;
  /**
   * Where the search for its `deno.json` stops (`PluginSpec.configRoot`):
   * a forge release's cache folder. Absent for builtins and local
   * plugins, whose config is the nearest one above them.
   */
  configRoot?: string;
  /**
   * A first-party plugin in a checkout, with the checksum its files have
   * now (`PluginSpec.bundle`: it may run from its cached bundle).
   */
  bundle?: { name: string; checksum: string; manifestPath: string };
}

/**
 * Where a provider's plugin is: a `dev_overrides` or `path` source's
 * folder (its `plugin.json`), or a builtin from the catalogue.
 *
 * @param dir The absolute project directory (relative paths start here).
 * @param p The provider.
 * @param builtins The first-party plugins `builtin/<name>` names.
 * @returns Its manifest and entrypoint.
 * @throws {ProviderError} For an unknown builtin or a forge source.
 */
export async function launchableOf(
  dir: string,
  p: PlanProvider,
  builtins: BuiltinCatalog | undefined,
  plan?: Plan,
  forge?: ForgeLaunchOptions,
): Promise<Launchable> {
  // Refused when its manifest claims another provider's local name or a
  // first-party plugin's name: the plugin is known by its local name and
  // must not pass for another (checked again here because the plugin's
  // files may have changed since the config was compiled).
  const l = await findLaunchable(dir, p, builtins, plan, forge);
  const conflict = manifestNameConflict(
    { localName: p.name, source: p.source, manifestName: l.manifest.name },
    (plan?.providers ?? [p]).map((q) => q.name),
    builtins?.names ?? [],
  );
  if (conflict !== undefined) throw new ProviderError(p.name, conflict);
  return l;
}

async function findLaunchable(
  dir: string,
  p: PlanProvider,
  builtins: BuiltinCatalog | undefined,
  plan: Plan | undefined,
  forge: ForgeLaunchOptions | undefined,
): Promise<Launchable> {
  const folder = p.devOverride ??
    (p.sourceKind === "path" ? p.location ?? p.source : undefined);
  if (folder !== undefined) {
    const abs = isAbsolute(folder) ? folder : resolve(dir, folder);
    const manifest = await readManifest(join(abs, "plugin.json"));
    return {
      manifest,
      entrypoint: isAbsolute(manifest.entrypoint)
        ? manifest.entrypoint
        : join(abs, manifest.entrypoint),
      root: abs,
    };
  }
  if (p.sourceKind === "builtin") {
    const b = await builtins?.resolve(p.source);
    if (!b) throw new ProviderError(p.name, `unknown builtin "${p.source}"`);
    const name = p.source.slice(p.source.indexOf("/") + 1);
    const manifestUrl = builtins!.manifestUrl(name);
    return {
      manifest: b.manifest,
      entrypoint: b.entrypoint,
      ...(p.checksum !== undefined && manifestUrl.protocol === "file:"
        ? {
          bundle: {
            name,
            checksum: p.checksum,
            manifestPath: fileURLToPath(manifestUrl),
          },
        }
        : {}),
    };
  }
  return await forgeLaunchable(p, plan, forge);
}

/** How forge plugins are found for a launch. */
export interface ForgeLaunchOptions {
  /** The environment (the cache's place, the API bases, the tokens). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** `--locked`: never touch the network, use only the cache. */
  readonly offline?: boolean;
  /** Told about a refused cache entry. */
  readonly onWarning?: (message: string) => void;
}

/**
 * A forge provider's plugin from the cache, verified against its lock
 * entry's checksum for this platform (a tampered entry is refused and
 * fetched again, unless offline).
 */
async function forgeLaunchable(
  p: PlanProvider,
  plan: Plan | undefined,
  forge: ForgeLaunchOptions | undefined,
): Promise<Launchable> {
  const platform = hostPlatform();
  const expected = p.lock?.checksums[platform];
  if (p.lock === undefined || expected === undefined) {
    throw new ProviderError(
      p.name,
      p.lock === undefined
        ? `the forge source "${p.source}" is not locked: run "agent lock"`
        : `the lock entry of "${p.source}" ${p.lock.version} has no checksum for ${platform}: run "agent lock" on this platform, or without --platform`,
    );
  }
  // Loaded only for a forge source: archives, the forge API and the cache
  // are no part of a kernel start that needs none.
  const { installForgePlugin } = await import("./registry/mod.ts");
  let installed;
  try {
    installed = await installForgePlugin(p.source, p.lock.version, expected, {
      env: forge?.env ?? {},
      mirror: plan?.global.registryMirror,
      offline: forge?.offline ?? false,
      ...(forge?.onWarning ? { onWarning: forge.onWarning } : {}),
    });
  } catch (err) {
    throw new ProviderError(
      p.name,
      err instanceof Error ? err.message : String(err),
      { cause: err },
    );
  }
  const manifest = await readManifest(join(installed.root, "plugin.json"));
  if (manifest.version !== p.lock.version) {
    throw new ProviderError(
      p.name,
      `the cached plugin.json of "${p.source}" says version ${manifest.version}, the lock file ${p.lock.version}`,
    );
  }
  if (p.category !== undefined && manifest.category !== p.category) {
    throw new ProviderError(
      p.name,
      `the cached plugin.json of "${p.source}" ${p.lock.version} says category "${manifest.category}", the lock file "${p.category}": run "agent lock --upgrade ${p.name}" to record what the release carries`,
    );
  }
  return {
    manifest,
    entrypoint: isAbsolute(manifest.entrypoint)
      ? manifest.entrypoint
      : join(installed.root, manifest.entrypoint),
    root: installed.root,
    // Nothing above the release's folder configures it (issue 18): the
    // bundle check listed its graph with the release's own deno.json or
    // none, and so does the launch.
    configRoot: installed.root,
  };
}

/**
 * Configures a launched context or memory plugin and returns its place in
 * the context chain.
 *
 * @param plugin The launched plugin.
 * @param p Its provider.
 * @param config Its revealed configuration.
 * @returns Its chain entry.
 */
export async function chainProviderOf(
  plugin: Plugin,
  p: PlanProvider,
  config: JsonObject,
): Promise<ChainProvider> {
  // Each category's service descriptors load with its first provider.
  if (p.category === "context") {
    const { ContextService } = await import(
      "../proto/gen/pluggableharness/context/v1/service_pb.ts"
    );
    await plugin.client(ContextService).configure({ config });
    return await contextEndpointOf(plugin, p.name, p.tokenBudget);
  }
  const { MemoryService } = await import(
    "../proto/gen/pluggableharness/memory/v1/service_pb.ts"
  );
  await plugin.client(MemoryService).configure({ config });
  return await memoryEndpointOf(plugin, p.name, p.tokenBudget);
}

/**
 * The environment plugins are launched with: `env` without its unset
 * variables.
 *
 * @param env The environment.
 * @returns The variables that are set.
 */
export function plainEnvOf(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const plainEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined) plainEnv[k] = v;
  }
  return plainEnv;
}

/** The endpoints of a plan's launched providers. */
export interface LaunchedProviders {
  /** The context and memory providers, in declaration order. */
  readonly chain: readonly ChainProvider[];
  /** The model providers, by local name. */
  readonly models: Map<string, ModelEndpoint>;
  /** The tool providers (and memory providers serving tools), by name. */
  readonly tools: Map<string, ToolEndpoint>;
  /** The hook subscribers (memory providers included), by name. */
  readonly hooks: Map<string, HookEndpoint>;
  /** Each tool provider's tool schemas, by name. */
  readonly toolSchemas: Map<string, ToolSchema[]>;
  /** Each model provider's first model, in declaration order. */
  readonly defaultModels: ModelChainEntry[];
  /** Each launched build's `Render`, by `category/name@version`. */
  readonly renderers: Map<string, RenderFn>;
  /**
   * The slash-command providers: each one's endpoint and its direct-invoke
   * commands (as the plan/apply gate sees them), by local name.
   */
  readonly slashCommands: Map<string, SlashProvider>;
}

/** A launched slash-command provider. */
export interface SlashProvider {
  /** Its `Invoke`, as a tool endpoint. */
  readonly endpoint: ToolEndpoint;
  /** Its commands (from `GetCapabilities`), as tool schemas. */
  readonly commands: ToolSchema[];
}

/** Options of {@linkcode launchProviders}. */
export interface LaunchProvidersOptions {
  /** The first-party plugins `builtin/<name>` names. @default {none} */
  readonly builtins?: BuiltinCatalog | undefined;
  /** Aborting stops plugin launches in progress. */
  readonly signal?: AbortSignal | undefined;
  /** Where forge plugins come from. @default {no network tokens, online} */
  readonly forge?: ForgeLaunchOptions | undefined;
}

/** The maps {@linkcode configureProvider} fills. */
type Endpoints = Omit<LaunchedProviders, "chain"> & {
  readonly chain: Map<string, ChainProvider>;
};

/**
 * Launches every provider of a plan on `host` with its grant and
 * configures it. Every launch settles before the first failure is thrown,
 * so none is left half-started.
 *
 * @param host The plugin host (its working directory is `dir`).
 * @param dir The absolute project directory.
 * @param plan The compiled plan.
 * @param options The builtins and an abort signal.
 * @returns The endpoints.
 * @throws {ProviderError} When a provider cannot be started or configured.
 */
export async function launchProviders(
  host: PluginHost,
  dir: string,
  plan: Plan,
  options: LaunchProvidersOptions = {},
): Promise<LaunchedProviders> {
  // Where each plugin is, first: a forge provider's runtime (and, with a
  // lock entry older than its `category` attribute, its category) is known
  // only from its plugin.json, and the plan gets it before anything is
  // decided by category.
  const found = await Promise.allSettled(
    plan.providers.map((p) =>
      launchableOf(dir, p, options.builtins, plan, options.forge)
    ),
  );
  for (const r of found) if (r.status === "rejected") throw r.reason;
  const launchables = new Map(plan.providers.map((p, i) => {
    const l = (found[i] as PromiseFulfilledResult<Launchable>).value;
    p.runtime ??= l.manifest.runtime;
    if (p.category === undefined) {
      p.category = l.manifest.category;
      const budget = p.config["token_budget"];
      if (
        (p.category === "context" || p.category === "memory") &&
        typeof budget === "number"
      ) p.tokenBudget = budget;
    }
    return [p, l];
  }));
  const hooked = new Set([
    ...plan.hooks.map((h) => h.provider),
    // Memory providers are implicitly subscribed (plugins.md §6.4).
    ...plan.providers.filter((p) => p.category === "memory").map((p) => p.name),
  ]);
  const into: Endpoints = {
    chain: new Map(),
    models: new Map(),
    tools: new Map(),
    hooks: new Map(),
    toolSchemas: new Map(),
    defaultModels: [],
    renderers: new Map(),
    slashCommands: new Map(),
  };
  // Frontend plugins are started later, one at a time, once the session
  // hub serves their callbacks (`launchFrontend`).
  const launched = await Promise.allSettled(
    plan.providers.filter((p) => p.category !== "frontend").map(async (p) => {
      const { plugin, manifest, config } = await launchOne(
        host,
        dir,
        plan,
        p,
        options,
        launchables.get(p),
      );
      try {
        await configureProvider(plugin, manifest, p, config, hooked, into);
      } catch (err) {
        // A structured FrontendError/WidgetError/ToolError in the status
        // details is reported with its category (plugins.md §6.5 MUST 12).
        throw err instanceof ProviderError ? err : new ProviderError(
          p.name,
          `cannot configure: ${describeStatusError(err)}`,
          { cause: err },
        );
      }
      if (hooked.has(p.name)) into.hooks.set(p.name, hookEndpointOf(plugin));
      const render = rendererOf(plugin);
      if (render) into.renderers.set(producerKey(plugin.identity), render);
    }),
  );
  // Every launch has settled (none is left half-started): report the first failure.
  for (const r of launched) if (r.status === "rejected") throw r.reason;
  // Keep the declaration order of the model providers for the default chain.
  const order = new Map(plan.providers.map((p, i) => [p.name, i]));
  into.defaultModels.sort((a, b) =>
    order.get(a.provider)! - order.get(b.provider)!
  );
  const chain = plan.providers.flatMap((p) => {
    const c = into.chain.get(p.name);
    return c ? [c] : [];
  });
  return { ...into, chain };
}

/** Starts one provider's plugin with its grant and revealed configuration. */
async function launchOne(
  host: PluginHost,
  dir: string,
  plan: Plan,
  p: PlanProvider,
  options: LaunchProvidersOptions,
  found?: Launchable,
  terminal = false,
): Promise<{ plugin: Plugin; manifest: PluginManifest; config: JsonObject }> {
  const { manifest, entrypoint, root: pluginRoot, configRoot, bundle } =
    found ??
      await launchableOf(dir, p, options.builtins, plan, options.forge);
  const config = revealProviderConfig(p) as JsonObject;
  try {
    const plugin = await host.launch({
      manifest,
      entrypoint,
      ...(pluginRoot ? { root: pluginRoot } : {}),
      ...(configRoot ? { configRoot } : {}),
      ...(bundle ? { bundle } : {}),
      grant: p.permissions.granted,
      config,
      source: p.source,
      name: p.name,
      subscribe: p.permissions.subscribe ?? [],
      // InjectControl: the manifest asks and the operator granted.
      inject: manifest.inject === true && p.permissions.inject === true,
      ...(terminal ? { terminal: true } : {}),
    }, options.signal ? { signal: options.signal } : {});
    return { plugin, manifest, config };
  } catch (err) {
    throw new ProviderError(
      p.name,
      `cannot start: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
}

/** A frontend plugin {@linkcode launchFrontend} started. */
export interface LaunchedFrontend {
  /** The plugin. */
  readonly plugin: Plugin;
  /** The line its Configure asked the kernel to show the operator. */
  readonly notice: string | undefined;
}

/**
 * The provider a frontend name selects: a declared frontend provider of
 * that local name; else, for `web` ({@linkcode WEB_UI_FRONTEND}), a
 * declared `builtin/webui` provider, or the first-party web UI itself with
 * its loopback grant (net 127.0.0.1, nothing else).
 */
function frontendProvider(plan: Plan, name: string): PlanProvider {
  const p = plan.providers.find((q) => q.name === name);
  const frontends = plan.providers.filter((q) => q.category === "frontend")
    .map((q) => `"${q.name}"`);
  if (p?.category === "frontend" || (p && name !== WEB_UI_FRONTEND.name)) {
    if (p.category !== "frontend") {
      throw new ProviderError(
        name,
        `it is a ${
          p.category ?? "plugin of unknown category"
        }, not a frontend provider`,
      );
    }
    return p;
  }
  if (name === WEB_UI_FRONTEND.name) {
    const declared = plan.providers.find((q) =>
      q.source === WEB_UI_FRONTEND.source
    );
    if (declared) return declared;
    const none = { env: [], run: [], read: [], write: [], net: [] };
    return undeclaredFrontend(
      "webui",
      WEB_UI_FRONTEND.source,
      { ...none, net: [...WEB_UI_FRONTEND.grant.net] },
      // Live pages wake on the sessions' events instead of polling.
      { subscribe: ["kernel.event.*", "kernel.state", "kernel.metadata"] },
    );
  }
  throw new ProviderError(
    name,
    `no such provider: a frontend must be declared in required_providers (${
      frontends.length ? frontends.join(", ") : "no frontend is declared"
    }), or name "${WEB_UI_FRONTEND.name}" for the built-in web UI`,
  );
}

/** Options of {@linkcode launchFrontend}. */
export interface LaunchFrontendOptions extends LaunchProvidersOptions {
  /**
   * The kernel runs on a terminal: a frontend whose manifest declares
   * `"terminal": true` gets it (stdin and stderr). @default {false}
   */
  readonly terminal?: boolean;
  /**
   * Attributes laid over the provider's config for this launch (the CLI's
   * `--profile`, `--resume`, `--plan`). @default {none}
   */
  readonly config?: JsonObject;
  /**
   * A first-party frontend (`builtin/<name>`) started when the plan
   * declares no provider of that local name, with exactly the
   * capabilities its manifest declares (the default terminal UI of
   * interactive `agent`). @default {none: the name must be declared}
   */
  readonly implicitBuiltin?: string;
}

/**
 * A first-party frontend provider the plan does not declare, granted
 * exactly `envelope` (declared, granted and effective alike).
 */
function undeclaredFrontend(
  name: string,
  source: string,
  envelope: PlanProvider["permissions"]["declared"],
  extra: Pick<Partial<PlanProvider>, "version" | "runtime"> & {
    subscribe?: string[];
  } = {},
): PlanProvider {
  const { subscribe, ...rest } = extra;
  return {
    name,
    source,
    sourceKind: "builtin",
    constraint: "",
    category: "frontend",
    ...rest,
    permissions: {
      declared: envelope,
      granted: envelope,
      effective: envelope,
      ...(subscribe ? { subscribe } : {}),
    },
    config: {},
    position: 0,
    range: {
      file: "(built in)",
      start: { line: 0, column: 0, byte: 0 },
      end: { line: 0, column: 0, byte: 0 },
    },
  };
}

/**
 * A provider for a first-party frontend the plan does not declare: its
 * grant is its manifest's capability envelope (paths relative to the
 * project), and it takes no config.
 */
async function implicitFrontend(
  name: string,
  builtins: BuiltinCatalog | undefined,
): Promise<{ provider: PlanProvider; found: Launchable } | undefined> {
  const found = builtins?.names.includes(name)
    ? await builtins.resolve(`builtin/${name}`)
    : undefined;
  if (!found || found.manifest.category !== "frontend") return undefined;
  const caps = found.manifest.capabilities;
  const provider = undeclaredFrontend(name, `builtin/${name}`, {
    env: [...caps.env],
    run: [...caps.run],
    read: [...caps.read],
    write: [...caps.write],
    net: [...caps.net],
  }, { version: found.manifest.version, runtime: found.manifest.runtime });
  // An implicit frontend has no lock entry: its bundle is keyed on the
  // checksum this package records for it (a build checks the files against
  // it, so a checkout edited since runs from its module graph).
  const checksum = builtins!.checksum(name);
  const manifestUrl = builtins!.manifestUrl(name);
  return {
    provider,
    found: {
      manifest: found.manifest,
      entrypoint: found.entrypoint,
      ...(checksum !== undefined && manifestUrl.protocol === "file:"
        ? {
          bundle: {
            name,
            checksum,
            manifestPath: fileURLToPath(manifestUrl),
          },
        }
        : {}),
    },
  };
}

/**
 * Starts a frontend plugin (`FrontendService`, plugins.md §6.5) with its
 * grant, under the host's sandbox, and configures it. It then drives
 * sessions through its callback channel; the kernel does not push to it.
 * The name `web` selects the first-party web UI unless a frontend provider
 * of that local name is declared ({@linkcode WEB_UI_FRONTEND}).
 *
 * @param host The plugin host (serving the session hub).
 * @param dir The absolute project directory.
 * @param plan The compiled plan.
 * @param name The frontend provider's local name.
 * @param options The builtins, the terminal, config overrides (`agent web
 * --port`), an abort signal.
 * @param spawned The process {@linkcode spawnFrontend} already started
 * for `name` (else it is started here).
 * @returns The running plugin and its notice for the operator.
 * @throws {ProviderError} When `name` is not a frontend provider, or it
 * cannot be started or configured.
 */
export async function launchFrontend(
  host: PluginHost,
  dir: string,
  plan: Plan,
  name: string,
  options: LaunchFrontendOptions = {},
  spawned?: Promise<SpawnedFrontend>,
): Promise<LaunchedFrontend> {
  const { plugin, config } = await (spawned ??
    spawnFrontend(host, dir, plan, name, options));
  try {
    const { FrontendService } = await import(
      "../proto/gen/pluggableharness/frontend/v1/service_pb.ts"
    );
    const r = await plugin.client(FrontendService).configure({
      config: { ...config, ...options.config },
    });
    return { plugin, notice: r.operatorNotice || undefined };
  } catch (err) {
    await plugin.close().catch(() => {});
    throw new ProviderError(
      name,
      `cannot configure: ${describeStatusError(err)}`,
      { cause: err },
    );
  }
}

/** A frontend plugin started (handshake done) but not yet configured. */
export interface SpawnedFrontend {
  /** The plugin. */
  readonly plugin: Plugin;
  /** Its provider block's config (Configure lays the overrides over it). */
  readonly config: JsonObject;
}

/**
 * The first half of {@linkcode launchFrontend}: starts the frontend's
 * process up to its handshake, which needs no session hub, so a kernel can
 * start it beside its other providers (the terminal UI's own start-up then
 * overlaps theirs). `options.config` is not used here.
 *
 * @param host The plugin host.
 * @param dir The absolute project directory.
 * @param plan The compiled plan.
 * @param name The frontend provider's local name.
 * @param options The builtins, the terminal, an abort signal.
 * @returns The started plugin and its config.
 * @throws {ProviderError} When `name` is not a frontend provider, or it
 * cannot be started.
 */
export async function spawnFrontend(
  host: PluginHost,
  dir: string,
  plan: Plan,
  name: string,
  options: LaunchFrontendOptions = {},
): Promise<SpawnedFrontend> {
  let p: PlanProvider | undefined;
  let found: Launchable | undefined;
  if (
    options.implicitBuiltin === name &&
    !plan.providers.some((q) => q.name === name)
  ) {
    const implicit = await implicitFrontend(name, options.builtins);
    if (implicit) ({ provider: p, found } = implicit);
  }
  p ??= frontendProvider(plan, name);
  const launchable = found ??
    await launchableOf(dir, p, options.builtins, plan, options.forge);
  const { plugin, config } = await launchOne(
    host,
    dir,
    plan,
    p,
    options,
    launchable,
    options.terminal === true && launchable.manifest.terminal === true,
  );
  return { plugin, config };
}

/**
 * Configures one launched plugin by its manifest's category and records
 * its endpoints.
 */
async function configureProvider(
  plugin: Plugin,
  manifest: PluginManifest,
  p: PlanProvider,
  config: JsonObject,
  hooked: ReadonlySet<string>,
  into: Endpoints,
): Promise<void> {
  switch (manifest.category) {
    case "model": {
      await plugin.client(ModelService).configure({ config });
      const endpoint = modelEndpointOf(plugin, p.name);
      into.models.set(p.name, endpoint);
      const caps = await endpoint.capabilities();
      const first = caps.models[0];
      if (first) into.defaultModels.push({ provider: p.name, id: first.id });
      break;
    }
    case "tool": {
      await plugin.client(ToolService).configure({ config });
      const endpoint = toolEndpointOf(plugin);
      into.tools.set(p.name, endpoint);
      into.toolSchemas.set(p.name, await endpoint.schemas());
      break;
    }
    case "context":
    case "memory": {
      into.chain.set(p.name, await chainProviderOf(plugin, p, config));
      if (manifest.category === "context") break;
      // The memory tools (`remember`, `forget`, `search`), when the
      // plugin serves ToolService too.
      const endpoint = toolEndpointOf(plugin);
      let schemas: ToolSchema[];
      try {
        schemas = await endpoint.schemas();
      } catch (err) {
        if (
          err instanceof GrpcStatusError &&
          err.code === Code.UNIMPLEMENTED
        ) break;
        throw err;
      }
      await plugin.client(ToolService).configure({ config });
      into.tools.set(p.name, endpoint);
      into.toolSchemas.set(p.name, schemas);
      break;
    }
    case "slashcommand": {
      const { SlashCommandService } = await import(
        "../proto/gen/pluggableharness/slashcommand/v1/service_pb.ts"
      );
      await plugin.client(SlashCommandService).configure({ config });
      const endpoint = slashCommandEndpointOf(plugin);
      into.slashCommands.set(p.name, {
        endpoint,
        commands: await endpoint.schemas(),
      });
      break;
    }
    case "widget": {
      // A widget only publishes metadata blocks through its callback
      // channel (plugins.md §6.6); the kernel configures it and is done.
      const { WidgetService } = await import(
        "../proto/gen/pluggableharness/widget/v1/service_pb.ts"
      );
      await plugin.client(WidgetService).configure({ config });
      break;
    }
    default:
      if (!hooked.has(p.name)) {
        throw new Error(
          `its category "${manifest.category}" is not run by this kernel yet (model and tool providers are; others only as hook subscribers)`,
        );
      }
  }
}
