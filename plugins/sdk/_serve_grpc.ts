/**
 * The gRPC side of `serve()`: a grpc-js server for the plugin's services
 * on a unix socket (TCP on 127.0.0.1 as fallback), and the kernel's
 * callback client over gRPC. Loaded only when the host did not offer the
 * framed transport, so that a plugin on it never loads grpc-js.
 *
 * @module
 */
import * as grpc from "@grpc/grpc-js";
import type { DescService } from "@bufbuild/protobuf";
import {
  addService,
  createClient,
  dial,
  type ServiceImpl,
} from "../../proto/grpc_adapter.ts";
import type { KernelCallbackService } from "../../proto/gen/pluggableharness/kernel/v1/service_pb.ts";
import type { KernelClient, ServiceBinding } from "./serve.ts";

function bindServer(server: grpc.Server, target: string): Promise<number> {
  return new Promise((resolve, reject) =>
    server.bindAsync(
      target,
      grpc.ServerCredentials.createInsecure(),
      (err, port) => err ? reject(err) : resolve(port),
    )
  );
}

/**
 * Serves `bindings` with grpc-js, on the unix socket `path` when given
 * (and bindable), else on the first free port of `ports` on 127.0.0.1.
 *
 * @param bindings The services.
 * @param path The unix socket path to try first.
 * @param ports The TCP port range.
 * @returns Where it listens, or `undefined` when nothing could be bound.
 */
export async function serveGrpc(
  bindings: readonly ServiceBinding[],
  path: string | undefined,
  ports: { min: number; max: number },
): Promise<{ network: "unix" | "tcp"; address: string } | undefined> {
  const server = new grpc.Server({
    "grpc.max_receive_message_length": 256 * 1024 * 1024,
    "grpc.max_send_message_length": 256 * 1024 * 1024,
  });
  for (const b of bindings) {
    addService(server, b.service, b.impl as ServiceImpl<DescService>);
  }
  if (path !== undefined) {
    try {
      await bindServer(server, `unix:${path}`);
      return { network: "unix", address: path };
    } catch {
      // fall through to TCP on loopback
    }
  }
  for (let port = ports.min; port <= ports.max; port++) {
    try {
      const bound = await bindServer(server, `127.0.0.1:${port}`);
      return { network: "tcp", address: `127.0.0.1:${bound}` };
    } catch {
      // try the next port
    }
  }
  return undefined;
}

/**
 * The kernel's callback client over gRPC, at the announced address.
 *
 * @param service The kernel callback service descriptor.
 * @param network The announced network.
 * @param address The announced address.
 * @returns The client.
 */
export function grpcKernelClient(
  service: typeof KernelCallbackService,
  network: "unix" | "tcp",
  address: string,
): KernelClient {
  return createClient(service, dial(network, address));
}
