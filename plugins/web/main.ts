/**
 * `web`: the reference web tool provider (plugins.md §7.2).
 *
 * - `web_fetch` (data source, read only): GETs an `http:`/`https:` URL,
 *   follows redirects itself (at most `max_redirects`), converts HTML to
 *   markdown, passes other text types through and refuses binary content.
 *   The download is streamed and stops at `max_bytes`; the output stops at
 *   `max_chars` with a truncation marker; the whole fetch has a deadline.
 *
 * Network access is per host: the plugin runs with Deno's `--allow-net`
 * listing the hosts granted by `allow_net` in the provider block, so a
 * host that is not granted (first hop or redirect target) is refused by
 * Deno itself, and the call fails with PERMISSION_DENIED naming the host.
 * See README.md.
 *
 * Run it only through the kernel; started by hand it explains itself and
 * exits 1.
 *
 * @module
 */
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import {
  type SchemaSchema,
  SchemaType,
} from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import { ToolErrorCategory } from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import type {
  GetSchemaResponseSchema,
  InvokeResponseSchema,
} from "../../proto/gen/pluggableharness/tool/v1/rpc_response_pb.ts";
import { ToolService } from "../../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import {
  RiskClass,
  ToolKind,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import {
  configSchemaOf,
  describeResponse,
  parseManifest,
  serve,
  service,
  toolError,
} from "../sdk/mod.ts";
import {
  DEFAULT_LIMITS,
  type FailureKind,
  FetchFailure,
  type FetchLimits,
  fetchPage,
  parseTarget,
} from "./_fetch.ts";
import manifestJson from "./plugin.json" with { type: "json" };

type Event = MessageInitShape<typeof InvokeResponseSchema>;
type Schema = MessageInitShape<typeof SchemaSchema>;

const manifest = parseManifest(manifestJson, "web/plugin.json");

const CATEGORY: Record<FailureKind, ToolErrorCategory> = {
  invalid_arguments: ToolErrorCategory.INVALID_ARGUMENTS,
  not_found: ToolErrorCategory.NOT_FOUND,
  permission_denied: ToolErrorCategory.PERMISSION_DENIED,
  execution_failed: ToolErrorCategory.EXECUTION_FAILED,
  timeout: ToolErrorCategory.TIMEOUT,
  cancelled: ToolErrorCategory.CANCELLED,
};

function str(description: string): Schema {
  return { type: SchemaType.STRING, description };
}

function num(description: string): Schema {
  return { type: SchemaType.NUMBER, description };
}

/** The effective limits: the defaults until Configure sets others. */
let limits: FetchLimits = { ...DEFAULT_LIMITS };

function schema(): MessageInitShape<typeof GetSchemaResponseSchema> {
  return {
    tools: [{
      name: "web_fetch",
      kind: ToolKind.DATA_SOURCE,
      risk: RiskClass.READ_ONLY,
      description:
        "Fetches a web page or text document with HTTP GET and returns its " +
        "content: HTML converted to markdown, other text as is. Binary " +
        "content (images, PDFs, archives) is refused. Only hosts the " +
        "operator granted can be reached. Long content is cut, with a " +
        `truncation marker (at most ${limits.maxChars} characters).`,
      inputSchema: {
        type: SchemaType.OBJECT,
        properties: {
          url: str("The absolute http: or https: URL to fetch."),
          max_chars: num(
            `Return at most this many characters (default and maximum ${limits.maxChars}).`,
          ),
        },
        required: ["url"],
      },
      outputSchema: {
        type: SchemaType.OBJECT,
        properties: {
          url: str("The URL asked for."),
          final_url: str("The URL of the content returned, after redirects."),
          status: num("The HTTP status."),
          content_type: str("The media type, without parameters."),
          format: {
            type: SchemaType.STRING,
            description: "markdown (converted HTML) or text (as sent).",
            enumValues: ["markdown", "text"],
          },
          content: str("The content, then a truncation marker if it was cut."),
          truncated: {
            type: SchemaType.BOOLEAN,
            description: "Whether the download or the output was cut.",
          },
          bytes: num("Body bytes downloaded."),
          redirects: num("Redirects followed."),
        },
        required: [
          "url",
          "final_url",
          "status",
          "content_type",
          "format",
          "content",
          "truncated",
          "bytes",
          "redirects",
        ],
      },
      streaming: false,
      concurrency: { safe: true, keyFields: [] },
      defaultTimeout: { seconds: BigInt(Math.ceil(limits.timeoutMs / 1000)) },
      idempotent: true,
    }],
    configSchema: configSchemaOf(manifest),
    supportedHookPoints: [],
  };
}

/**
 * Reads the provider block into limits.
 *
 * @param config The decoded block.
 * @returns The limits.
 * @throws {GrpcStatusError} INVALID_ARGUMENT naming the attribute.
 */
function configure(config: JsonObject | undefined): FetchLimits {
  const bad = (message: string): never => {
    throw new GrpcStatusError(Code.INVALID_ARGUMENT, message);
  };
  const cfg = config ?? {};
  const known = (manifest.configSchema ?? []).map((a) => a.name);
  for (const key of Object.keys(cfg)) {
    if (!known.includes(key)) {
      bad(
        `config attribute "${key}" is not supported by web (it takes ${
          known.join(", ")
        })`,
      );
    }
  }
  const positive = (name: string, fallback: number, min = 1): number => {
    const v = cfg[name];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== "number" || !Number.isFinite(v) || v < min) {
      bad(
        `config attribute "${name}" must be a number of at least ${min}, got ${
          JSON.stringify(v)
        }`,
      );
    }
    return v as number;
  };
  const ua = cfg.user_agent;
  if (ua !== undefined && ua !== null && (typeof ua !== "string" || !ua)) {
    bad(`config attribute "user_agent" must be a non-empty string`);
  }
  return {
    maxBytes: Math.floor(positive("max_bytes", DEFAULT_LIMITS.maxBytes)),
    maxChars: Math.floor(positive("max_chars", DEFAULT_LIMITS.maxChars)),
    timeoutMs: positive(
      "timeout_seconds",
      DEFAULT_LIMITS.timeoutMs / 1000,
      0.001,
    ) * 1000,
    maxRedirects: Math.floor(
      positive("max_redirects", DEFAULT_LIMITS.maxRedirects, 0),
    ),
    userAgent: typeof ua === "string" ? ua : DEFAULT_LIMITS.userAgent,
  };
}

function failure(f: FetchFailure): Event {
  return toolError(CATEGORY[f.kind], f.message, {
    retryable: f.retryable,
    details: f.details,
  });
}

/**
 * Runs one `web_fetch` call.
 *
 * @param args The call's arguments.
 * @param signal The call's cancellation.
 * @returns The result payload.
 * @throws {FetchFailure} Classified failures.
 */
async function webFetch(
  args: JsonObject,
  signal: AbortSignal,
): Promise<JsonObject> {
  for (const key of Object.keys(args)) {
    if (key !== "url" && key !== "max_chars") {
      throw new FetchFailure(
        "invalid_arguments",
        `Unknown argument "${key}": web_fetch takes url and max_chars`,
      );
    }
  }
  const target = parseTarget(args.url);
  let maxChars = limits.maxChars;
  if (args.max_chars !== undefined && args.max_chars !== null) {
    const m = args.max_chars;
    if (typeof m !== "number" || !Number.isFinite(m) || m < 1) {
      throw new FetchFailure(
        "invalid_arguments",
        `"max_chars" must be a positive number, got ${JSON.stringify(m)}`,
      );
    }
    maxChars = Math.min(Math.floor(m), limits.maxChars);
  }
  const result = await fetchPage(target, { ...limits, maxChars }, signal);
  return { ...result };
}

if (import.meta.main) {
  await serve({
    identity: {
      name: manifest.name,
      version: manifest.version,
      category: "tool",
    },
    services: (ctx) => [
      service(ToolService, {
        getSchema: () => schema(),
        configure: (req) => {
          limits = configure(req.config);
          return {};
        },
        async *invoke(req, { signal }): AsyncGenerator<Event> {
          const tool = req.call?.toolName ?? "";
          try {
            if (tool !== "web_fetch") {
              throw new FetchFailure(
                "invalid_arguments",
                `Unknown tool ${
                  JSON.stringify(tool)
                }: this provider has web_fetch`,
              );
            }
            const payload = await webFetch(req.call?.arguments ?? {}, signal);
            yield { event: { event: { case: "result", value: { payload } } } };
          } catch (err) {
            const f = err instanceof FetchFailure ? err : new FetchFailure(
              "execution_failed",
              `${tool} failed: ${(err as Error).message}`,
            );
            if (f.kind === "execution_failed") {
              ctx.log.warn(`${tool} failed`, { message: f.message });
            }
            yield failure(f);
          }
        },
        preview: () => {
          throw new GrpcStatusError(
            Code.UNIMPLEMENTED,
            "web has no Preview (web_fetch is a data source)",
          );
        },
        render: () => {
          throw new GrpcStatusError(Code.UNIMPLEMENTED, "web has no Render");
        },
        describe: () => describeResponse(manifest),
      }),
    ],
  });
}
