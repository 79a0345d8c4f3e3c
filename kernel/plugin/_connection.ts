/**
 * The kernel's side of a plugin's connection once its handshake is read:
 * the health check that gates readiness, the broker stream that announces
 * the callback channel on broker ID 1 (repeated until the plugin calls
 * back), and the draining of go-plugin's stdio stream.
 *
 * @module
 */
import type * as grpc from "@grpc/grpc-js";
import type { Logger } from "@logtape/logtape";
import { getLogger } from "@logtape/logtape";
import type { BidiCall } from "../../proto/grpc_adapter.ts";
import {
  CALLBACK_BROKER_ID,
  type Handshake,
  HEALTH_SERVICE_NAME,
} from "../../proto/handshake.ts";
import { GRPCBroker } from "../../proto/gen/plugin/grpc_broker_pb.ts";
import type { ConnInfoSchema } from "../../proto/gen/plugin/grpc_broker_pb.ts";
import {
  GRPCStdio,
  StdioData_Channel,
} from "../../proto/gen/plugin/grpc_stdio_pb.ts";
import {
  Health,
  HealthCheckResponse_ServingStatus,
} from "../../proto/gen/grpc/health/v1/health_pb.ts";
import type { CallbackEndpoint } from "../callback/host.ts";
import { describeExit, type ExitInfo } from "./errors.ts";
import type { GrpcAdapter } from "./_grpc.ts";
import { StartFailure } from "./_start_failure.ts";

/** Interval at which the callback ConnInfo is re-announced. */
export const CALLBACK_REANNOUNCE_MS = 3_000;

const log = getLogger(["ph-agent", "kernel", "plugin-host"]);

/**
 * Checks the plugin's health within the time left of its start.
 *
 * @param grpc The gRPC adapter.
 * @param channel The connection to the plugin.
 * @param hs Its handshake (named in the error).
 * @param exited Resolves when the plugin has exited.
 * @param timeoutMs The time left.
 * @throws {StartFailure} `plugin_health_failed` when it does not answer
 * SERVING in time or exits.
 */
export async function checkHealth(
  grpc: GrpcAdapter,
  channel: grpc.Client,
  hs: Handshake,
  exited: Promise<ExitInfo>,
  timeoutMs: number,
): Promise<void> {
  const health = grpc.createClient(Health, channel);
  try {
    const res = await Promise.race([
      health.check({ service: HEALTH_SERVICE_NAME }, { timeoutMs }),
      exited.then((e) => {
        throw new Error(`it exited (${describeExit(e)}) after its handshake`);
      }),
    ]);
    if (res.status !== HealthCheckResponse_ServingStatus.SERVING) {
      throw new Error(
        `health check of service "plugin" returned ${
          HealthCheckResponse_ServingStatus[res.status]
        }, expected SERVING`,
      );
    }
  } catch (err) {
    throw new StartFailure(
      "plugin_health_failed",
      `it did not answer its health check at ${hs.network}:${hs.address}: ${
        err instanceof Error ? err.message : err
      }`,
      { cause: err },
    );
  }
}

/** The broker stream of a plugin; stopping it ends the announcements. */
export interface CallbackAnnouncer {
  /** Stops re-announcing and cancels the broker stream. */
  stop(): void;
}

/**
 * Opens the broker stream and, once the callback endpoint listens,
 * announces it on broker ID 1 every {@linkcode CALLBACK_REANNOUNCE_MS}
 * until the plugin's first callback or its exit.
 *
 * @param grpc The gRPC adapter.
 * @param channel The connection to the plugin.
 * @param endpoint Resolves with the plugin's callback endpoint.
 * @param exited Resolves when the plugin has exited.
 * @param name The plugin's name (for the log).
 * @returns A handle that stops the announcements.
 */
export function announceCallbacks(
  grpc: GrpcAdapter,
  channel: grpc.Client,
  endpoint: Promise<CallbackEndpoint>,
  exited: Promise<ExitInfo>,
  name: string,
): CallbackAnnouncer {
  let stopped = false;
  const broker: BidiCall<typeof ConnInfoSchema, typeof ConnInfoSchema> = grpc
    .createClient(GRPCBroker, channel).startStream();
  void (async () => {
    try {
      for await (const _ of broker.responses) {
        // plugins may announce their own services; none are used yet
      }
    } catch {
      // the plugin went away; crash detection reports it
    }
  })();
  let reannounce: ReturnType<typeof setInterval> | undefined;
  endpoint.then((ep) => {
    if (stopped) return;
    const announce = () =>
      broker.send({
        serviceId: CALLBACK_BROKER_ID,
        network: ep.network,
        address: ep.address,
      });
    announce();
    reannounce = setInterval(announce, CALLBACK_REANNOUNCE_MS);
    Deno.unrefTimer(reannounce);
    ep.firstCall.then(() => clearInterval(reannounce));
    exited.then(() => clearInterval(reannounce));
  }, (err) =>
    log.error(
      "Cannot serve the callback channel of plugin {plugin}: {error}",
      { plugin: name, error: (err as Error).message },
    ));
  return {
    stop() {
      stopped = true;
      clearInterval(reannounce);
      broker.cancel();
    },
  };
}

/**
 * Drains go-plugin's stdio stream into the plugin's log when the plugin
 * offers it (a Go plugin needs this); ends quietly otherwise.
 *
 * @param grpc The gRPC adapter.
 * @param channel The connection to the plugin.
 * @param pluginLog The plugin's logger.
 */
export function relayStdio(
  grpc: GrpcAdapter,
  channel: grpc.Client,
  pluginLog: Logger,
): void {
  void (async () => {
    try {
      for await (
        const d of grpc.createClient(GRPCStdio, channel).streamStdio({})
      ) {
        const text = new TextDecoder().decode(d.data);
        pluginLog.debug("{message}", {
          message: text.replace(/\n$/, ""),
          stream: d.channel === StdioData_Channel.STDERR ? "stderr" : "stdout",
        });
      }
    } catch {
      // UNIMPLEMENTED, or the plugin went away
    }
  })();
}
