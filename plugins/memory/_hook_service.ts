/**
 * `HookSubscriberService`: `post-model-response` (the last response text
 * of a session) and `session-end`, in observe mode.
 *
 * @module
 */
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import { HookSubscriberService } from "../../proto/gen/pluggableharness/hook/v1/service_pb.ts";
import { HookMode } from "../../proto/gen/pluggableharness/hook/v1/types_pb.ts";
import { SessionStatus } from "../../proto/gen/pluggableharness/session/v1/types_pb.ts";
import { service } from "../sdk/mod.ts";
import type { MemoryHost } from "./_host.ts";
import { header, METADATA, rpc } from "./_wire.ts";

/** The HookSubscriberService binding over the host's provider. */
export function hookService(host: MemoryHost): ReturnType<typeof service> {
  const { memory } = host;
  return service(HookSubscriberService, {
    dispatchHook: (req, { metadata }) =>
      rpc(async () => {
        const payload = req.payload?.payload;
        if (req.mode !== HookMode.OBSERVE) {
          throw new GrpcStatusError(
            Code.FAILED_PRECONDITION,
            `memory subscribes in observe mode only, not ${
              HookMode[req.mode] ?? req.mode
            }`,
          );
        }
        switch (payload?.case) {
          case "postModelResponse": {
            const text = payload.value.message?.content.map((b) =>
              b.block.case === "text" ? b.block.value.text : ""
            ).join("\n") ?? "";
            memory.observeResponse(
              header(metadata, METADATA.sessionId) ?? "",
              text,
            );
            break;
          }
          case "sessionEnd":
            await memory.sessionEnded(
              payload.value.sessionId,
              payload.value.status === SessionStatus.COMPLETED,
            );
            break;
          default:
            throw new GrpcStatusError(
              Code.INVALID_ARGUMENT,
              `memory does not subscribe to ${
                payload?.case ?? "an empty payload"
              } (only post-model-response and session-end)`,
            );
        }
        return { outcome: { case: "observe" as const, value: {} } };
      }),
  });
}
