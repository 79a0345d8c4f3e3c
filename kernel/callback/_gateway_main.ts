/**
 * The callback gateway: a small subprocess that serves the kernel's
 * `KernelCallbackService` endpoints over gRPC and relays every call, as
 * opaque bytes, to the kernel over a framed unix socket.
 *
 * It exists because Deno's `node:http2` server can abort its whole process
 * when a client closes a busy connection (denoland/deno#36788). Here such an
 * abort costs only the calls in flight: the kernel restarts the gateway on
 * the same socket paths and plugins reconnect, while all kernel state stays
 * in the kernel process.
 *
 * Usage (by the kernel only): `deno run … _callback_gateway_main.ts <control socket>`
 *
 * @module
 */
import * as grpc from "@grpc/grpc-js";
// Neither protobuf-es nor the generated descriptors: the kernel sends the
// method table with each endpoint (start-up CPU and memory of this process).
import { STATUS_DETAILS_KEY } from "../../proto/_status_details.ts";

/** The status-details trailer of a relayed status, when it has one. */
function trailer(bin: Uint8Array | undefined): { metadata?: grpc.Metadata } {
  if (!bin) return {};
  const metadata = new grpc.Metadata();
  metadata.set(STATUS_DETAILS_KEY, Buffer.from(bin));
  return { metadata };
}
import {
  decodeJson,
  decodeStatus,
  encodeCall,
  encodeJson,
  Frame,
  FrameWriter,
  type GatewayOpen,
  readFrames,
} from "./_frames.ts";

interface Pending {
  onData(data: Buffer): void;
  onEnd(code: number, details: string, statusBin?: Uint8Array): void;
}

const identity = (b: Buffer) => b;

async function main(controlPath: string): Promise<void> {
  const conn = await Deno.connect({ transport: "unix", path: controlPath });
  const out = new FrameWriter(conn);
  const servers = new Map<number, grpc.Server>();
  const pending = new Map<number, Pending>();
  let nextCall = 1;

  const startCall = (
    endpoint: number,
    method: number,
    request: Buffer,
    p: Pending,
  ) => {
    const id = nextCall++;
    if (nextCall > 0xffff_fff0) nextCall = 1;
    pending.set(id, p);
    out.send(Frame.CALL, id, encodeCall(endpoint, method, request));
    return id;
  };

  const open = (endpoint: number, opts: GatewayOpen) => {
    const server = new grpc.Server({
      "grpc.max_receive_message_length": 256 * 1024 * 1024,
      "grpc.max_send_message_length": 256 * 1024 * 1024,
    });
    const def: Record<string, grpc.MethodDefinition<Buffer, Buffer>> = {};
    const handlers: grpc.UntypedServiceImplementation = {};
    opts.methods.forEach((m, index) => {
      const streaming = m.streaming;
      def[m.name] = {
        path: m.path,
        requestStream: false,
        responseStream: streaming,
        requestSerialize: identity,
        requestDeserialize: identity,
        responseSerialize: identity,
        responseDeserialize: identity,
      };
      if (streaming) {
        handlers[m.name] = (
          call: grpc.ServerWritableStream<Buffer, Buffer>,
        ) => {
          const id = startCall(endpoint, index, call.request, {
            onData: (d) => call.write(d),
            onEnd: (code, details, bin) =>
              code === 0
                ? call.end()
                : call.emit("error", { code, details, ...trailer(bin) }),
          });
          call.on("cancelled", () => {
            if (pending.delete(id)) out.send(Frame.CANCEL, id);
          });
        };
      } else {
        handlers[m.name] = (
          call: grpc.ServerUnaryCall<Buffer, Buffer>,
          callback: grpc.sendUnaryData<Buffer>,
        ) => {
          let response: Buffer | undefined;
          const id = startCall(endpoint, index, call.request, {
            onData: (d) => (response = d),
            onEnd: (code, details, bin) =>
              code === 0
                ? callback(null, response ?? Buffer.alloc(0))
                : callback({ code, details, ...trailer(bin) }),
          });
          call.on("cancelled", () => {
            if (pending.delete(id)) out.send(Frame.CANCEL, id);
          });
        };
      }
    });
    server.addService(def, handlers);
    const target = opts.tcp
      ? (opts.address ?? "127.0.0.1:0")
      : `unix:${opts.address}`;
    server.bindAsync(
      target,
      grpc.ServerCredentials.createInsecure(),
      (err, port) => {
        if (err) {
          out.send(Frame.OPENED, endpoint, encodeJson({ error: err.message }));
          return;
        }
        servers.set(endpoint, server);
        out.send(
          Frame.OPENED,
          endpoint,
          encodeJson(
            opts.tcp
              ? { network: "tcp", address: `127.0.0.1:${port}` }
              : { network: "unix", address: opts.address },
          ),
        );
      },
    );
  };

  for await (const f of readFrames(conn)) {
    switch (f.type) {
      case Frame.OPEN: {
        const opts = decodeJson<GatewayOpen>(f.payload);
        if (!opts.tcp && opts.address) {
          try {
            Deno.removeSync(opts.address); // a stale socket of a previous gateway
          } catch {
            // none
          }
        }
        open(f.id, opts);
        break;
      }
      case Frame.CLOSE: {
        const s = servers.get(f.id);
        servers.delete(f.id);
        s?.forceShutdown();
        out.send(Frame.CLOSED, f.id);
        break;
      }
      case Frame.DATA:
        pending.get(f.id)?.onData(Buffer.from(f.payload));
        break;
      case Frame.END: {
        const p = pending.get(f.id);
        if (p) {
          pending.delete(f.id);
          const { code, details, statusBin } = decodeStatus(f.payload);
          p.onEnd(code, details, statusBin);
        }
        break;
      }
    }
  }
  // The kernel closed the control connection: it is gone or done with us.
  Deno.exit(0);
}

if (import.meta.main) {
  // The kernel decides when the gateway stops; a terminal Ctrl-C does not.
  Deno.addSignalListener("SIGINT", () => {});
  const path = Deno.args[0];
  if (!path) {
    console.error("usage: _callback_gateway_main.ts <control socket>");
    Deno.exit(2);
  }
  await main(path);
}
