/**
 * The framed side of `serve()`: a unix socket whose connections speak
 * `proto/frame.ts`. The host dials it once; the plugin serves its
 * services on that connection and opens its callbacks to the kernel on
 * the same one.
 *
 * @module
 */
import { FrameConnection } from "../../proto/frame.ts";
import type { ServiceImpl } from "../../proto/rpc.ts";
import type { DescService } from "@bufbuild/protobuf";
import type { ServiceBinding } from "./serve.ts";

/** A listening framed socket. */
export interface FrameListener {
  /** The first connection (the host's). */
  readonly host: Promise<FrameConnection>;
}

/**
 * Listens on the unix socket `path`, accepts one connection (the host's;
 * the listener then closes) and serves `bindings` on it.
 *
 * @param bindings The services.
 * @param path The socket path.
 * @returns The listener, or `undefined` when the socket cannot be bound.
 */
export function serveFrame(
  bindings: readonly ServiceBinding[],
  path: string,
): FrameListener | undefined {
  let listener: Deno.UnixListener;
  try {
    listener = Deno.listen({ transport: "unix", path });
  } catch {
    return undefined;
  }
  const host = Promise.withResolvers<FrameConnection>();
  listener.accept().then((conn) => {
    const fc = new FrameConnection(conn);
    for (const b of bindings) {
      fc.serve(b.service, b.impl as ServiceImpl<DescService>);
    }
    host.resolve(fc);
  }, host.reject).finally(() => listener.close());
  host.promise.catch(() => {});
  return { host: host.promise };
}
