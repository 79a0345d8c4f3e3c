/**
 * `echo`: the example tool plugin. It shows every part of a plugin built on
 * the SDK and the tests use it end to end:
 *
 * - `echo` returns its `text` argument (unary-shaped Invoke);
 * - `count` streams `n` progress events, then a result (server streaming);
 * - `tokens` asks the kernel to count tokens of `text` through the callback
 *   channel (plugin → kernel) and returns the answer.
 *
 * Run it only through the kernel; started by hand it explains itself and
 * exits 1.
 *
 * @module
 */
import { ToolErrorCategory } from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import { SchemaType } from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import {
  RiskClass,
  ToolKind,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { ToolService } from "../../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import type {
  InvokeResponseSchema,
} from "../../proto/gen/pluggableharness/tool/v1/rpc_response_pb.ts";
import type { SchemaSchema } from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  describeResponse,
  parseManifest,
  serve,
  service,
  toolError,
  toolProgress as progress,
  toolResult as result,
} from "../sdk/mod.ts";
import manifestJson from "./plugin.json" with { type: "json" };

const manifest = parseManifest(manifestJson, "echo/plugin.json");

type Event = MessageInitShape<typeof InvokeResponseSchema>;
type Schema = MessageInitShape<typeof SchemaSchema>;

const textInput: Schema = {
  type: SchemaType.OBJECT,
  properties: { text: { type: SchemaType.STRING, description: "Text" } },
  required: ["text"],
};

const tokensInput: Schema = {
  type: SchemaType.OBJECT,
  properties: {
    text: { type: SchemaType.STRING, description: "Text" },
    model: {
      type: SchemaType.STRING,
      description:
        'The model to count for, "provider/id" (its local provider name); absent, the kernel\'s fallback count',
    },
  },
  required: ["text"],
};

function object(properties: Record<string, SchemaType>): Schema {
  return {
    type: SchemaType.OBJECT,
    properties: Object.fromEntries(
      Object.entries(properties).map(([k, type]) => [k, { type }]),
    ),
  };
}

function invalidArguments(message: string): Event {
  return toolError(ToolErrorCategory.INVALID_ARGUMENTS, message);
}

let prefix = "";

if (import.meta.main) {
  await serve({
    identity: {
      name: manifest.name,
      version: manifest.version,
      category: "tool",
    },
    services: (ctx) => [
      service(ToolService, {
        getSchema: () => ({
          tools: [
            {
              name: "echo",
              kind: ToolKind.DATA_SOURCE,
              risk: RiskClass.READ_ONLY,
              description: "Returns its text argument unchanged.",
              inputSchema: textInput,
              outputSchema: textInput,
              concurrency: { safe: true },
              idempotent: true,
            },
            {
              name: "count",
              kind: ToolKind.DATA_SOURCE,
              risk: RiskClass.READ_ONLY,
              description: "Streams n progress events, then returns n.",
              inputSchema: {
                ...object({ n: SchemaType.NUMBER }),
                required: ["n"],
              },
              outputSchema: object({ count: SchemaType.NUMBER }),
              streaming: true,
              concurrency: { safe: true },
              idempotent: true,
            },
            {
              name: "tokens",
              kind: ToolKind.DATA_SOURCE,
              risk: RiskClass.READ_ONLY,
              description: "Counts the tokens of text through the kernel.",
              inputSchema: tokensInput,
              outputSchema: object({
                count: SchemaType.NUMBER,
                exact: SchemaType.BOOLEAN,
              }),
              concurrency: { safe: true },
              idempotent: true,
            },
          ],
          configSchema: {
            attributes: [{
              name: "prefix",
              type: 1, // ATTR_TYPE_STRING
              description: "Prepended to every echoed text.",
              defaultJson: '""',
            }],
          },
        }),
        configure: (req) => {
          const p = req.config?.prefix;
          if (p !== undefined && typeof p !== "string") {
            throw new GrpcStatusError(
              Code.INVALID_ARGUMENT,
              `config attribute "prefix" must be a string, got ${typeof p}`,
            );
          }
          prefix = p ?? "";
          return {};
        },
        async *invoke(req, { signal }): AsyncGenerator<Event> {
          const call = req.call;
          const args = call?.arguments ?? {};
          switch (call?.toolName) {
            case "echo":
              yield result({ text: prefix + String(args.text ?? "") });
              return;
            case "count": {
              const n = Number(args.n ?? 0);
              for (let i = 0; i < n && !signal.aborted; i++) {
                yield progress(String(i));
              }
              yield result({ count: n });
              return;
            }
            case "tokens": {
              const kernel = await ctx.kernel();
              const model = typeof args.model === "string" ? args.model : "";
              const slash = model.indexOf("/");
              const res = await kernel.countTokens({
                content: [{
                  block: {
                    case: "text",
                    value: { text: String(args.text ?? "") },
                  },
                }],
                ...(slash > 0
                  ? {
                    modelRef: {
                      provider: model.slice(0, slash),
                      id: model.slice(slash + 1),
                    },
                  }
                  : {}),
              });
              yield result({ count: Number(res.count), exact: res.exact });
              return;
            }
            default:
              yield invalidArguments(
                `unknown tool ${JSON.stringify(call?.toolName)}`,
              );
          }
        },
        render: () => {
          throw new GrpcStatusError(Code.UNIMPLEMENTED, "echo has no Render");
        },
        preview: () => {
          throw new GrpcStatusError(Code.UNIMPLEMENTED, "echo has no Preview");
        },
        describe: () => describeResponse(manifest),
      }),
    ],
  });
}
