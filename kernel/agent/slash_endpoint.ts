/**
 * A slash-command provider (`SlashCommandService`, plugins.md §6.7) seen
 * through the loop's {@linkcode ToolEndpoint}: a direct-invoke command is
 * run by the same plan/apply gate and dispatch as a tool call, so policy
 * and approvals apply to it unchanged. Its `SlashCommandSpec` becomes a
 * `ToolSchema` (the same kind, risk, concurrency and idempotency; no
 * output schema) and its `SlashCommandEvent` stream becomes tool events.
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import {
  type ToolEvent,
  ToolEventSchema,
} from "../../proto/gen/pluggableharness/tool/v1/events_pb.ts";
import {
  type ToolSchema,
  ToolSchemaSchema,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import type { SlashCommandService } from "../../proto/gen/pluggableharness/slashcommand/v1/service_pb.ts";
import type { SlashCommandSpec } from "../../proto/gen/pluggableharness/slashcommand/v1/types_pb.ts";
import type { SlashCommandEvent } from "../../proto/gen/pluggableharness/slashcommand/v1/events_pb.ts";
import type { RenderTree } from "../../proto/gen/pluggableharness/render/v1/types_pb.ts";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import type { ServiceClient } from "../../proto/rpc.ts";
import type { Plugin } from "../plugin/plugin.ts";
import type { EndpointCallOptions, ToolEndpoint } from "./endpoints.ts";

/**
 * The tool schema a slash command is gated and dispatched by.
 *
 * @param spec The command's spec.
 * @returns The schema.
 */
export function toolSchemaOfSlash(spec: SlashCommandSpec): ToolSchema {
  return create(ToolSchemaSchema, {
    name: spec.name,
    kind: spec.kind,
    risk: spec.risk,
    description: spec.description,
    ...(spec.inputSchema ? { inputSchema: spec.inputSchema } : {}),
    streaming: spec.streaming,
    ...(spec.concurrency ? { concurrency: spec.concurrency } : {}),
    ...(spec.defaultTimeout ? { defaultTimeout: spec.defaultTimeout } : {}),
    idempotent: spec.idempotent,
  });
}

function toolEventOf(e: SlashCommandEvent): ToolEvent | undefined {
  const ev = e.event;
  switch (ev.case) {
    case "outputChunk":
      return create(ToolEventSchema, {
        event: {
          case: "outputChunk",
          value: { stream: ev.value.stream, data: ev.value.data },
        },
      });
    case "progress":
      return create(ToolEventSchema, {
        event: {
          case: "progress",
          value: {
            message: ev.value.message,
            ...(ev.value.fractionComplete !== undefined
              ? { fractionComplete: ev.value.fractionComplete }
              : {}),
          },
        },
      });
    case "partialResult":
      return create(ToolEventSchema, {
        event: {
          case: "partialResult",
          value: ev.value.payload ? { payload: ev.value.payload } : {},
        },
      });
    case "exitStatus":
      return create(ToolEventSchema, {
        event: {
          case: "exitStatus",
          value: {
            exitCode: ev.value.exitCode,
            ...(ev.value.signal !== undefined
              ? { signal: ev.value.signal }
              : {}),
          },
        },
      });
    case "result":
      return create(ToolEventSchema, {
        event: { case: "result", value: ev.value },
      });
    case "error":
      return create(ToolEventSchema, {
        event: { case: "error", value: ev.value },
      });
    default:
      return undefined;
  }
}

function grpcOptions(options: EndpointCallOptions | undefined): {
  signal?: AbortSignal;
  timeoutMs?: number;
  headers?: Readonly<Record<string, string>>;
} {
  return {
    ...(options?.signal ? { signal: options.signal } : {}),
    ...(options?.timeoutMs !== undefined
      ? { timeoutMs: options.timeoutMs }
      : {}),
    ...(options?.headers ? { headers: options.headers } : {}),
  };
}

/**
 * The loop's view of a launched slash-command plugin: `schemas` are its
 * commands (from `GetCapabilities`), `invoke` runs `Invoke` with the
 * kernel's `call_context`, `preview` its optional `Preview`.
 *
 * @param plugin The launched, configured plugin.
 * @returns The endpoint.
 */
export function slashCommandEndpointOf(plugin: Plugin): ToolEndpoint {
  // The service's descriptors load at the endpoint's first call, so a
  // kernel without slash-command plugins never builds them.
  let connected:
    | Promise<ServiceClient<typeof SlashCommandService>>
    | undefined;
  const connect = () =>
    connected ??= import(
      "../../proto/gen/pluggableharness/slashcommand/v1/service_pb.ts"
    ).then((m) => plugin.client(m.SlashCommandService));
  return {
    identity: plugin.identity,
    async schemas(options) {
      const client = await connect();
      const caps = await client.getCapabilities({}, grpcOptions(options));
      return caps.commands.map(toolSchemaOfSlash);
    },
    async *invoke(call, options) {
      const client = await connect();
      const stream = client.invoke({
        call: {
          id: call.id,
          name: call.toolName,
          ...(call.arguments ? { arguments: call.arguments } : {}),
          ...(call.callContext ? { callContext: call.callContext } : {}),
        },
      }, grpcOptions(options));
      for await (const res of stream) {
        const e = res.event && toolEventOf(res.event);
        if (e) yield e;
      }
    },
    async preview(call, options): Promise<RenderTree | undefined> {
      const client = await connect();
      try {
        return (await client.preview({
          call: {
            id: call.id,
            name: call.toolName,
            ...(call.arguments ? { arguments: call.arguments } : {}),
            ...(call.callContext ? { callContext: call.callContext } : {}),
          },
        }, grpcOptions(options))).preview;
      } catch (err) {
        if (err instanceof GrpcStatusError && err.code === Code.UNIMPLEMENTED) {
          return undefined;
        }
        throw err;
      }
    },
  };
}
