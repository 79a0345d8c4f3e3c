/**
 * Where the kernel serves `KernelCallbackService` for its plugins: one
 * endpoint (socket) per launched plugin, so that a call's producer identity
 * is a property of the connection it arrived on.
 *
 * Two implementations: {@linkcode InProcessCallbackHost} serves in the
 * kernel's own process; `IsolatedCallbackHost` (the default) serves from a
 * gateway subprocess so that a plugin that crashes Deno's HTTP/2 server
 * cannot take the kernel with it.
 *
 * @module
 */
import * as grpc from "@grpc/grpc-js";
import { addService, type ServiceImpl } from "../../proto/grpc_adapter.ts";
import { KernelCallbackService } from "../../proto/gen/pluggableharness/kernel/v1/service_pb.ts";

/** The handlers of one plugin's callback endpoint. */
export type CallbackImpl = ServiceImpl<typeof KernelCallbackService>;

/** A listening callback endpoint for one plugin. */
export interface CallbackEndpoint {
  /** `unix` or `tcp`. */
  readonly network: "unix" | "tcp";
  /** Socket path or `127.0.0.1:PORT`, announced as broker ID 1. */
  readonly address: string;
  /** Resolves at the first call that arrives on this endpoint. */
  readonly firstCall: Promise<void>;
  /** Stops serving and removes the socket. */
  close(): Promise<void>;
}

/** Options for {@linkcode CallbackHost.open}. */
export interface OpenEndpointOptions {
  /** A directory the plugin may read and write, for the unix socket. */
  dir: string;
  /** Listen on TCP 127.0.0.1 instead of a unix socket. */
  tcp?: boolean;
  /** The handlers, bound to the plugin's identity. */
  impl: CallbackImpl;
}

/** Serves callback endpoints. */
export interface CallbackHost {
  /** Opens an endpoint for one plugin. */
  open(options: OpenEndpointOptions): Promise<CallbackEndpoint>;
  /** Closes every endpoint and the host itself. */
  close(): Promise<void>;
}

export { CALLBACK_SOCKET_NAME } from "./_names.ts";
import { CALLBACK_SOCKET_NAME } from "./_names.ts";

/**
 * Wraps every handler so that the first call resolves `onFirst`.
 *
 * @param impl The handlers.
 * @param onFirst Called once, at the first call.
 * @returns Handlers with the same behaviour.
 */
export function observeFirstCall(
  impl: CallbackImpl,
  onFirst: () => void,
): CallbackImpl {
  let seen = false;
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(impl)) {
    out[name] = (...args: unknown[]) => {
      if (!seen) {
        seen = true;
        onFirst();
      }
      return (fn as (...a: unknown[]) => unknown)(...args);
    };
  }
  return out as CallbackImpl;
}

function bind(server: grpc.Server, target: string): Promise<number> {
  return new Promise((resolve, reject) =>
    server.bindAsync(
      target,
      grpc.ServerCredentials.createInsecure(),
      (err, port) => (err ? reject(err) : resolve(port)),
    )
  );
}

/**
 * Serves callback endpoints inside the kernel process. Fast, but a plugin
 * that closes a busy callback connection can abort the whole process on
 * Deno 2.9 (denoland/deno#36788); use it only where that risk is accepted
 * (tests, benchmarks comparing the two).
 */
export class InProcessCallbackHost implements CallbackHost {
  #servers = new Set<grpc.Server>();

  /** Opens one endpoint with its own grpc-js server. */
  async open(options: OpenEndpointOptions): Promise<CallbackEndpoint> {
    const server = new grpc.Server({
      "grpc.max_receive_message_length": 256 * 1024 * 1024,
    });
    let resolveFirst!: () => void;
    const firstCall = new Promise<void>((r) => (resolveFirst = r));
    addService(
      server,
      KernelCallbackService,
      observeFirstCall(options.impl, resolveFirst),
    );
    let network: "unix" | "tcp";
    let address: string;
    if (options.tcp) {
      const port = await bind(server, "127.0.0.1:0");
      network = "tcp";
      address = `127.0.0.1:${port}`;
    } else {
      address = `${options.dir}/${CALLBACK_SOCKET_NAME}`;
      await bind(server, `unix:${address}`);
      network = "unix";
    }
    this.#servers.add(server);
    return {
      network,
      address,
      firstCall,
      close: async () => {
        this.#servers.delete(server);
        server.forceShutdown();
        if (network === "unix") await Deno.remove(address).catch(() => {});
      },
    };
  }

  /** Closes every endpoint. */
  close(): Promise<void> {
    for (const s of this.#servers) s.forceShutdown();
    this.#servers.clear();
    return Promise.resolve();
  }
}
