/**
 * `mcp`: a bridge that offers any MCP server's tools as a tool provider.
 *
 * The provider block names one server: a stdio program (`command`,
 * `args`, `env`, `inherit_env`, `cwd`) started in an empty environment
 * plus exactly what is listed, or a streamable-HTTP endpoint (`url`,
 * `headers`, `bearer_token`). Configure connects and lists the server's
 * tools; GetSchema returns that list (translated to the common schema
 * subset, annotations mapped to kind and risk; see `_schema.ts`) and is
 * refreshed when the server sends `tools/list_changed`. Invoke forwards a
 * `tools/call` and maps its content to the result payload; a server error
 * (`isError`) is EXECUTION_FAILED; a server that exits or hangs gives a
 * clear error, and the next call starts (or reconnects to) it again. See
 * README.md.
 *
 * Run it only through the kernel; started by hand it explains itself and
 * exits 1.
 *
 * @module
 */
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import { isAbsolute, resolve } from "node:path";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import { ToolErrorCategory } from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import type {
  GetSchemaResponseSchema,
  InvokeResponseSchema,
} from "../../proto/gen/pluggableharness/tool/v1/rpc_response_pb.ts";
import { ToolService } from "../../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import {
  configSchemaOf,
  describeResponse,
  parseManifest,
  serve,
  service,
  toolError,
} from "../sdk/mod.ts";
import {
  BridgeFailure,
  type BridgeOptions,
  type FailureKind,
  McpBridge,
  type ServerSpec,
} from "./_bridge.ts";
import { DENO_RUNTIME_ENV_NAMES } from "../../contract/runtime_env.ts";
import manifestJson from "./plugin.json" with { type: "json" };

type Event = MessageInitShape<typeof InvokeResponseSchema>;

const manifest = parseManifest(manifestJson, "mcp/plugin.json");

const CATEGORY: Record<FailureKind, ToolErrorCategory> = {
  invalid_arguments: ToolErrorCategory.INVALID_ARGUMENTS,
  not_found: ToolErrorCategory.NOT_FOUND,
  permission_denied: ToolErrorCategory.PERMISSION_DENIED,
  execution_failed: ToolErrorCategory.EXECUTION_FAILED,
  timeout: ToolErrorCategory.TIMEOUT,
  cancelled: ToolErrorCategory.CANCELLED,
};

const STATUS: Record<FailureKind, (typeof Code)[keyof typeof Code]> = {
  invalid_arguments: Code.INVALID_ARGUMENT,
  not_found: Code.NOT_FOUND,
  permission_denied: Code.PERMISSION_DENIED,
  execution_failed: Code.UNAVAILABLE,
  timeout: Code.DEADLINE_EXCEEDED,
  cancelled: Code.CANCELLED,
};

function bad(message: string): never {
  throw new GrpcStatusError(Code.INVALID_ARGUMENT, message);
}

function stringList(cfg: JsonObject, name: string): string[] | undefined {
  const v = cfg[name];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) {
    bad(`config attribute "${name}" must be a list of strings`);
  }
  return v as string[];
}

function stringMap(cfg: JsonObject, name: string): Record<string, string> {
  const v = cfg[name];
  if (v === undefined || v === null) return {};
  if (
    typeof v !== "object" || Array.isArray(v) ||
    Object.values(v).some((x) => typeof x !== "string")
  ) {
    bad(`config attribute "${name}" must be a map of strings`);
  }
  return { ...(v as Record<string, string>) };
}

/**
 * A string attribute; "" counts as unset (the kernel decodes an absent
 * attribute without a default as its type's zero value).
 */
function optString(cfg: JsonObject, name: string): string | undefined {
  const v = cfg[name];
  if (v === undefined || v === null || v === "") return undefined;
  if (typeof v !== "string") bad(`config attribute "${name}" must be a string`);
  return v as string;
}

function seconds(cfg: JsonObject, name: string, fallback: number): number {
  const v = cfg[name];
  if (v === undefined || v === null) return fallback * 1000;
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) {
    bad(
      `config attribute "${name}" must be a positive number of seconds, got ${
        JSON.stringify(v)
      }`,
    );
  }
  return (v as number) * 1000;
}

/**
 * The stdio server's environment: empty, plus `inherit_env` copied from
 * the plugin's own environment, plus `env`. The default `inherit_env` is
 * Deno's runtime settings ({@linkcode DENO_RUNTIME_ENV_NAMES}), which the
 * kernel gives every Deno plugin when they are set: a `deno run npm:…`
 * server finds the kernel's module cache and, for what the cache lacks,
 * reaches the registry through the same TLS roots and proxy.
 */
function serverEnv(
  inherit: readonly string[],
  values: Record<string, string>,
  explicit: boolean,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of inherit) {
    let value: string | undefined;
    try {
      value = Deno.env.get(name);
    } catch {
      if (!explicit) continue;
      bad(
        `config attribute "inherit_env" names "${name}", which this plugin may not read: it may read Deno's runtime settings (${
          DENO_RUNTIME_ENV_NAMES.join(", ")
        })${
          manifest.capabilities.env.length > 0
            ? ` and ${manifest.capabilities.env.join(", ")}`
            : ""
        }; set the value with env = { ${name} = env("${name}") } instead`,
      );
    }
    if (value !== undefined) env[name] = value;
  }
  for (const [k, v] of Object.entries(values)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) {
      bad(
        `config attribute "env" has key "${k}", which is not a variable name`,
      );
    }
    env[k] = v;
  }
  return env;
}

/**
 * Reads the provider block.
 *
 * @param config The decoded block.
 * @param warn Where the bridge's warnings go.
 * @returns The bridge's options.
 * @throws {GrpcStatusError} INVALID_ARGUMENT naming the attribute.
 */
export function bridgeOptionsOf(
  config: JsonObject | undefined,
  warn?: BridgeOptions["warn"],
): BridgeOptions {
  const cfg = config ?? {};
  const known = (manifest.configSchema ?? []).map((a) => a.name);
  for (const key of Object.keys(cfg)) {
    if (!known.includes(key)) {
      bad(
        `config attribute "${key}" is not supported by mcp (it takes ${
          known.join(", ")
        })`,
      );
    }
  }
  const command = optString(cfg, "command");
  const url = optString(cfg, "url");
  if ((command === undefined) === (url === undefined)) {
    bad(
      `set exactly one of "command" (a stdio MCP server) and "url" (a streamable-HTTP MCP server)`,
    );
  }
  let server: ServerSpec;
  if (command !== undefined) {
    if (
      Object.keys(stringMap(cfg, "headers")).length > 0 ||
      optString(cfg, "bearer_token") !== undefined
    ) {
      bad(
        `config attributes "headers" and "bearer_token" apply to a url server, not a command`,
      );
    }
    const cwd = optString(cfg, "cwd") ?? ".";
    const inherit = stringList(cfg, "inherit_env");
    server = {
      kind: "stdio",
      stdio: {
        command,
        args: stringList(cfg, "args") ?? [],
        env: serverEnv(
          inherit ?? DENO_RUNTIME_ENV_NAMES,
          stringMap(cfg, "env"),
          inherit !== undefined,
        ),
        cwd: isAbsolute(cwd) ? cwd : resolve(Deno.cwd(), cwd),
      },
    };
  } else {
    // inherit_env has a default and is simply unused here.
    if ((stringList(cfg, "args") ?? []).length > 0) {
      bad(`config attribute "args" applies to a command server, not a url`);
    }
    if (Object.keys(stringMap(cfg, "env")).length > 0) {
      bad(`config attribute "env" applies to a command server, not a url`);
    }
    if (optString(cfg, "cwd") !== undefined) {
      bad(`config attribute "cwd" applies to a command server, not a url`);
    }
    let parsed: URL;
    try {
      parsed = new URL(url!);
    } catch {
      bad(
        `config attribute "url" ${JSON.stringify(url)} is not an absolute URL`,
      );
    }
    if (parsed!.protocol !== "http:" && parsed!.protocol !== "https:") {
      bad(`config attribute "url" must be an http: or https: URL`);
    }
    const headers = stringMap(cfg, "headers");
    const token = optString(cfg, "bearer_token");
    if (token !== undefined) headers["Authorization"] = `Bearer ${token}`;
    server = { kind: "http", url: parsed!, headers };
  }
  const prefix = optString(cfg, "tool_prefix") ?? "";
  if (!/^[A-Za-z0-9_-]*$/.test(prefix)) {
    bad(
      `config attribute "tool_prefix" ${
        JSON.stringify(prefix)
      } may hold only letters, digits, _ and -`,
    );
  }
  const trust = cfg.trust_annotations;
  if (trust !== undefined && trust !== null && typeof trust !== "boolean") {
    bad(`config attribute "trust_annotations" must be true or false`);
  }
  const maxChars = cfg.max_result_chars;
  if (
    maxChars !== undefined && maxChars !== null &&
    (typeof maxChars !== "number" || maxChars < 1)
  ) {
    bad(`config attribute "max_result_chars" must be a positive number`);
  }
  // Empty (the kernel's decoding of an absent list) exposes every tool.
  const listed = stringList(cfg, "tools");
  const allow = listed && listed.length > 0 ? listed : undefined;
  return {
    server,
    prefix,
    ...(allow ? { allow } : {}),
    trustAnnotations: trust !== false,
    connectTimeoutMs: seconds(cfg, "connect_timeout_seconds", 30),
    callTimeoutMs: seconds(cfg, "call_timeout_seconds", 60),
    maxResultChars: typeof maxChars === "number"
      ? Math.floor(maxChars)
      : 100_000,
    version: manifest.version,
    ...(warn ? { warn } : {}),
  };
}

function failure(f: BridgeFailure): Event {
  return toolError(CATEGORY[f.kind], f.message, {
    retryable: f.retryable,
    details: f.details,
  });
}

if (import.meta.main) {
  let bridge: McpBridge | undefined;
  const schema = (): MessageInitShape<typeof GetSchemaResponseSchema> => ({
    tools: bridge?.tools.map((t) => t.schema) ?? [],
    configSchema: configSchemaOf(manifest),
    supportedHookPoints: [],
  });
  await serve({
    // The server stops with the plugin (it is also in the plugin's process
    // group, which the kernel kills as a whole).
    onShutdown: async () => {
      await bridge?.close();
    },
    identity: {
      name: manifest.name,
      version: manifest.version,
      category: "tool",
    },
    services: (ctx) => [
      service(ToolService, {
        getSchema: () => schema(),
        configure: async (req) => {
          const options = bridgeOptionsOf(
            req.config,
            (message, fields) =>
              ctx.log.warn(message, (fields ?? {}) as JsonObject),
          );
          await bridge?.close();
          bridge = new McpBridge(options);
          bridge.onToolsChanged = (tools) =>
            ctx.log.info("the MCP server's tools changed", {
              tools: tools.map((t) => t.name).join(","),
            });
          try {
            await bridge.start();
          } catch (err) {
            const b = bridge;
            bridge = undefined;
            await b.close();
            if (err instanceof BridgeFailure) {
              throw new GrpcStatusError(STATUS[err.kind], err.message);
            }
            throw err;
          }
          return {};
        },
        async *invoke(req, { signal }): AsyncGenerator<Event> {
          const tool = req.call?.toolName ?? "";
          try {
            if (!bridge) {
              throw new BridgeFailure(
                "execution_failed",
                "The mcp provider is not configured: Configure must name a server first",
              );
            }
            const payload = await bridge.call(
              tool,
              req.call?.arguments ?? {},
              signal,
            );
            yield { event: { event: { case: "result", value: { payload } } } };
          } catch (err) {
            const f = err instanceof BridgeFailure ? err : new BridgeFailure(
              "execution_failed",
              `${tool} failed: ${(err as Error).message}`,
            );
            if (f.kind === "execution_failed" || f.kind === "timeout") {
              ctx.log.warn(`${tool} failed`, { message: f.message });
            }
            yield failure(f);
          }
        },
        preview: () => {
          throw new GrpcStatusError(
            Code.UNIMPLEMENTED,
            "mcp has no Preview (MCP has no dry run; the kernel shows the arguments)",
          );
        },
        render: () => {
          throw new GrpcStatusError(Code.UNIMPLEMENTED, "mcp has no Render");
        },
        describe: () => describeResponse(manifest),
      }),
    ],
  });
}
