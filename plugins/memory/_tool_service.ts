/**
 * `ToolService`: the memory tools' schema, calls and previews.
 *
 * @module
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import { Category } from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import { ToolErrorCategory } from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import type {
  GetSchemaResponseSchema,
  InvokeResponseSchema,
} from "../../proto/gen/pluggableharness/tool/v1/rpc_response_pb.ts";
import { ToolService } from "../../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import { service } from "../sdk/mod.ts";
import { toolResult as result } from "../sdk/tool_kit.ts";
import { MemoryFailure, type Origin, scopeArg, typeArg } from "./_memory.ts";
import type { MemoryHost } from "./_host.ts";
import { invokeTool, strArg } from "./_tool_calls.ts";
import { previewTree, renderMutation } from "./_render.ts";
import { failureOf, rpc, toolFailure } from "./_wire.ts";

type Event = MessageInitShape<typeof InvokeResponseSchema>;

/** The ToolService binding over the host's provider. */
export function toolService(
  host: MemoryHost,
  TOOLS: MessageInitShape<typeof GetSchemaResponseSchema>,
): ReturnType<typeof service> {
  const { memory, configure, producer, ctx } = host;
  return service(ToolService, {
    getSchema: () => TOOLS,
    configure: (req) =>
      rpc(() => {
        configure(req.config);
        return {};
      }),
    async *invoke(req, { signal }): AsyncGenerator<Event> {
      const call = req.call;
      const tool = call?.toolName ?? "";
      try {
        if (!call) {
          throw new MemoryFailure("invalid_request", "The call is missing");
        }
        const origin: Origin = {
          sourceSessionId: call.callContext?.sessionId ?? "",
          ...(call.callContext?.turnId
            ? { sourceTurnId: call.callContext.turnId }
            : {}),
          recordedBy: `tool:${tool}`,
        };
        yield result(
          await invokeTool(host, tool, call.arguments ?? {}, origin, signal),
        );
      } catch (err) {
        if (err instanceof GrpcStatusError && err.code === Code.CANCELLED) {
          yield {
            event: {
              event: {
                case: "error",
                value: {
                  category: ToolErrorCategory.CANCELLED,
                  message: `${tool} was cancelled`,
                  retryable: false,
                },
              },
            },
          };
          return;
        }
        const f = failureOf(err);
        if (f.category === "unknown" || f.category === "source_unavailable") {
          ctx.log.warn(`${tool} failed`, { message: f.message });
        }
        yield toolFailure(f);
      }
    },
    preview: (req) =>
      rpc(() => {
        const call = req.call;
        const args = call?.arguments ?? {};
        switch (call?.toolName) {
          case "remember": {
            const title = strArg(args, "title", "remember", true)!;
            const content = strArg(args, "content", "remember", true)!;
            const type = typeArg(args.type);
            const scope = scopeArg(args.scope, "project");
            const updateId = strArg(args, "update_id", "remember", false);
            if (updateId !== undefined) {
              const old = memory.get(updateId);
              return {
                preview: previewTree(
                  `Update memory "${old.id}" (${old.type}/${old.scope}): ${old.title} → ${title}`,
                  content,
                ),
              };
            }
            return {
              preview: previewTree(
                `Remember a ${type} memory (scope ${scope}): ${title}`,
                content,
              ),
            };
          }
          case "forget": {
            const r = memory.get(strArg(args, "id", "forget", true)!);
            return {
              preview: previewTree(
                `Forget memory "${r.id}" (${r.type}/${r.scope}): ${r.title}`,
                r.content.join("\n"),
              ),
            };
          }
          default:
            throw new GrpcStatusError(
              Code.UNIMPLEMENTED,
              `${
                call?.toolName || "this tool"
              } has no preview (only remember and forget do)`,
            );
        }
      }),
    render: (req) => ({
      tree: renderMutation(req.payload, req.schemaVersion),
    }),
    describe: () => producer(Category.MEMORY),
  });
}
