/**
 * The kernel's side of a plugin's connection once its handshake is read:
 * the health check that gates readiness, the broker stream that announces
 * the callback channel on broker ID 1 (repeated until the plugin calls
 * back), and the draining of go-plugin's stdio stream.
 *
 * @module
 */
import type { Logger } from "@logtape/logtape";
import { getLogger } from "@logtape/logtape";
import type { BidiCall } from "../../proto/rpc.ts";
import {
  CALLBACK_BROKER_ID,
  CALLBACK_ON_DEMAND_SERVICE,
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
import type { PluginChannel } from "./_channel.ts";
import { StartFailure } from "./_start_failure.ts";

/** Interval at which the callback ConnInfo is re-announced. */
export const CALLBACK_REANNOUNCE_MS = 3_000;

const log = getLogger(["ph-agent", "kernel", "plugin-host"]);

/** What the health check learned besides "healthy". */
export interface HealthResult {
  /**
   * The plugin reports {@linkcode CALLBACK_ON_DEMAND_SERVICE} as SERVING:
   * it knocks for its callback channel when it first needs it, so the
   * channel is opened only then.
   */
  callbacksOnDemand: boolean;
}

/**
 * Checks the plugin's health within the time left of its start and, in
 * the same round trip, whether it asks for its callback channel itself.
 *
 * @param channel The connection to the plugin.
 * @param hs Its handshake (named in the error).
 * @param exited Resolves when the plugin has exited.
 * @param timeoutMs The time left.
 * @returns Whether the plugin asks for its callback channel.
 * @throws {StartFailure} `plugin_health_failed` when it does not answer
 * SERVING in time or exits.
 */
export async function checkHealth(
  channel: PluginChannel,
  hs: Handshake,
  exited: Promise<ExitInfo>,
  timeoutMs: number,
): Promise<HealthResult> {
  const health = channel.client(Health);
  // Any answer but SERVING (go-plugin's health server: NOT_FOUND) means
  // the plugin waits for the announcement, as go-plugin peers do.
  const onDemand = health.check({ service: CALLBACK_ON_DEMAND_SERVICE }, {
    timeoutMs,
  }).then(
    (r) => r.status === HealthCheckResponse_ServingStatus.SERVING,
    () => false,
  );
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
    return { callbacksOnDemand: await onDemand };
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
 * until the plugin's first callback or its exit. The endpoint is opened
 * at once, or with `onDemand` when the plugin first knocks for broker ID
 * 1 on the stream (a plugin that never calls back never gets one).
 *
 * @param channel The connection to the plugin.
 * @param open Opens the plugin's callback endpoint (once; later calls
 * return the same endpoint); `undefined` when the kernel serves the
 * callback service on the channel itself (the framed transport), so that
 * nothing is announced.
 * @param onDemand Open it at the plugin's knock, not at once.
 * @param exited Resolves when the plugin has exited.
 * @param name The plugin's name (for the log).
 * @returns A handle that stops the announcements.
 */
export function announceCallbacks(
  channel: PluginChannel,
  open: (() => Promise<CallbackEndpoint>) | undefined,
  onDemand: boolean,
  exited: Promise<ExitInfo>,
  name: string,
): CallbackAnnouncer {
  let stopped = false;
  const broker: BidiCall<typeof ConnInfoSchema, typeof ConnInfoSchema> = channel
    .client(GRPCBroker).startStream();
  const knocked = Promise.withResolvers<void>();
  void (async () => {
    try {
      for await (const info of broker.responses) {
        // Plugins may announce their own services; none are used yet.
        if (info.serviceId === CALLBACK_BROKER_ID && info.knock?.knock) {
          knocked.resolve();
        }
      }
    } catch {
      // the plugin went away; crash detection reports it
    }
  })();
  let reannounce: ReturnType<typeof setInterval> | undefined;
  const stop = {
    stop() {
      stopped = true;
      clearInterval(reannounce);
      broker.cancel();
    },
  };
  if (!open) return stop;
  const endpoint = onDemand ? knocked.promise.then(open) : open();
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
  return stop;
}

/**
 * Drains go-plugin's stdio stream into the plugin's log when the plugin
 * offers it (a Go plugin needs this); ends quietly otherwise.
 *
 * @param channel The connection to the plugin.
 * @param pluginLog The plugin's logger.
 */
export function relayStdio(
  channel: PluginChannel,
  pluginLog: Logger,
): void {
  void (async () => {
    try {
      for await (
        const d of channel.client(GRPCStdio).streamStdio({})
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
