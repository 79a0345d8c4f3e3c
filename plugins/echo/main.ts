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
import { Code, GrpcStatusError } from "../../proto/grpc_adapter.ts";
import { Category } from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
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
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import { serve, service } from "../sdk/mod.ts";
import manifest from "./plugin.json" with { type: "json" };

type Event = MessageInitShape<typeof InvokeResponseSchema>;
type Schema = MessageInitShape<typeof SchemaSchema>;

const textInput: Schema = {
  type: SchemaType.OBJECT,
  properties: { text: { type: SchemaType.STRING, description: "Text" } },
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

function result(payload: JsonObject): Event {
  return { event: { event: { case: "result", value: { payload } } } };
}

function progress(message: string): Event {
  return { event: { event: { case: "progress", value: { message } } } };
}

function invalidArguments(message: string): Event {
  return {
    event: {
      event: {
        case: "error",
        // TOOL_ERROR_CATEGORY_INVALID_ARGUMENTS
        value: { category: 1, message, retryable: false },
      },
    },
  };
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
              inputSchema: textInput,
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
              const res = await kernel.countTokens({
                content: [{
                  block: {
                    case: "text",
                    value: { text: String(args.text ?? "") },
                  },
                }],
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
        describe: () => ({
          producer: {
            name: manifest.name,
            version: manifest.version,
            source: manifest.source,
            category: Category.TOOL,
            protocolVersion: manifest.protocol_version,
          },
        }),
      }),
    ],
  });
}
