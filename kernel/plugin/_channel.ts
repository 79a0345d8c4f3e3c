/**
 * The kernel's connection to one plugin, over either transport: gRPC
 * (grpc-js, loaded on first use) for every go-plugin peer, or the framed
 * protocol of `proto/frame.ts` for a plugin built on our SDK that took it
 * in its handshake. Both hand out the same typed clients.
 *
 * @module
 */
import type { DescService } from "@bufbuild/protobuf";
import type { ServiceClient } from "../../proto/rpc.ts";
import type { Handshake } from "../../proto/handshake.ts";
import type { FrameConnection } from "../../proto/frame.ts";
import { loadGrpcAdapter } from "./_grpc.ts";

/** One plugin's connection. */
export interface PluginChannel {
  /** The transport. */
  readonly protocol: "grpc" | "frame";
  /**
   * The framed connection, on which the kernel also serves the plugin's
   * callback service (`undefined` over gRPC).
   */
  readonly frame: FrameConnection | undefined;
  /** A typed client for one of the plugin's services. */
  client<S extends DescService>(service: S): ServiceClient<S>;
  /** Closes the connection. */
  close(): void;
}

/**
 * Connects to a plugin as its handshake says.
 *
 * @param hs The accepted handshake.
 * @returns The channel.
 * @throws {Error} When a framed plugin's socket refuses the connection.
 */
export async function connectPlugin(hs: Handshake): Promise<PluginChannel> {
  if (hs.protocol === "frame") {
    const { FrameConnection } = await import("../../proto/frame.ts");
    const conn = await Deno.connect({ transport: "unix", path: hs.address });
    const frame = new FrameConnection(conn, { dialer: true });
    return {
      protocol: "frame",
      frame,
      client: (service) => frame.client(service),
      close: () => frame.close(),
    };
  }
  // The gRPC library loads here, while the plugin started, not before.
  const grpc = await loadGrpcAdapter();
  const channel = grpc.dial(hs.network, hs.address);
  return {
    protocol: "grpc",
    frame: undefined,
    client: (service) => grpc.createClient(service, channel),
    close: () => channel.close(),
  };
}
