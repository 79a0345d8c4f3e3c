/**
 * `serve()`: the plugin side of the go-plugin compatible transport.
 *
 * @module
 */
import type { DescService, MessageInitShape } from "@bufbuild/protobuf";
import type { ServiceClient, ServiceImpl } from "../../proto/rpc.ts";
import type { FrameConnection } from "../../proto/frame.ts";
import {
  CALLBACK_BROKER_ID,
  CALLBACK_ON_DEMAND_SERVICE,
  formatHandshakeLine,
  HANDSHAKE_ENV,
  HEALTH_SERVICE_NAME,
  LOG_LEVEL_ENV,
  MAGIC_COOKIE_KEY,
  MAGIC_COOKIE_VALUE,
  negotiateAppVersion,
  PLUGIN_SOCKET_NAME,
  TRANSPORTS_ENV,
} from "../../proto/handshake.ts";
import {
  type ConnInfo,
  type ConnInfoSchema,
  GRPCBroker,
} from "../../proto/gen/plugin/grpc_broker_pb.ts";
import { GRPCController } from "../../proto/gen/plugin/grpc_controller_pb.ts";
import { GRPCStdio } from "../../proto/gen/plugin/grpc_stdio_pb.ts";
import {
  Health,
  HealthCheckResponse_ServingStatus,
} from "../../proto/gen/grpc/health/v1/health_pb.ts";
import type { KernelCallbackService } from "../../proto/gen/pluggableharness/kernel/v1/service_pb.ts";
import {
  createPluginLogger,
  parseLogFloor,
  type PluginLogger,
} from "./logger.ts";
import type { CategoryName } from "../../contract/manifest.ts";

/** A message this plugin sends on the broker stream. */
type BrokerMessage = MessageInitShape<typeof ConnInfoSchema>;

/** The typed client of the kernel's callback service. */
export type KernelClient = ServiceClient<typeof KernelCallbackService>;

/** A service and its implementation, as built by {@linkcode service}. */
export interface ServiceBinding {
  /** The generated service descriptor. */
  readonly service: DescService;
  /** Handlers for every method. */
  readonly impl: unknown;
}

/**
 * Pairs a generated service with its handlers, type-checked.
 *
 * @param svc The generated service descriptor, e.g. `ToolService`.
 * @param impl A handler for every RPC of the service.
 * @returns A binding for {@linkcode ServeOptions.services}.
 */
export function service<S extends DescService>(
  svc: S,
  impl: ServiceImpl<S>,
): ServiceBinding {
  return { service: svc, impl };
}

/** What a plugin's handlers can use. */
export interface PluginContext {
  /**
   * The kernel callback client. Resolves once the kernel has announced
   * broker ID 1 and the connection is open; rejects after
   * {@linkcode ServeOptions.callbackTimeoutMs} if it never is.
   */
  kernel(): Promise<KernelClient>;
  /** A logger whose entries travel to the kernel through `Log`, batched. */
  readonly log: PluginLogger;
  /**
   * The name the kernel knows this plugin by: the operator's local name in
   * `agent.hcl`, which is the producer name of the events it emits and the
   * `{name}` of its bus topics. It can differ from the manifest's `name`
   * (`sh = { source = "builtin/exec" }`). Read from the launch environment;
   * {@linkcode ServeOptions.identity}'s name when the kernel sets none.
   */
  readonly name: string;
  /**
   * Resolves once the host has checked the plugin's health and opened its
   * broker stream: the moment a plugin can start heavy work without
   * delaying its own start (the terminal UI imports Ink and React then).
   * Stays pending under a host that never opens the broker.
   */
  readonly hostConnected: Promise<void>;
}

/** Options for {@linkcode serve}. */
export interface ServeOptions {
  /** The plugin's identity, as in its manifest. */
  identity: { name: string; version: string; category: CategoryName };
  /** Builds the category services (and optionally HookSubscriberService). */
  services: (ctx: PluginContext) => ServiceBinding[];
  /**
   * Called once when the host asks the plugin to stop, before the process
   * exits; bounded by 2 seconds.
   */
  onShutdown?: () => Promise<void> | void;
  /**
   * Milliseconds to wait for the kernel's callback announcement.
   * @default {10000}
   */
  callbackTimeoutMs?: number;
}

/** A running plugin server. */
export interface PluginServer {
  /** The announced network. */
  readonly network: "unix" | "tcp";
  /** The announced address. */
  readonly address: string;
  /** The plugin context handed to the services. */
  readonly context: PluginContext;
}

const NOT_A_PLUGIN_MESSAGE =
  "This binary is a plugin. These are not meant to be executed directly.\n" +
  "Please execute the program that consumes these plugins, which will\n" +
  "load any plugins automatically.\n";

function env(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined; // not granted: treat as unset
  }
}

/**
 * The producer name the kernel put in `OTEL_RESOURCE_ATTRIBUTES`
 * (`pluggableharness.producer.name=<local name>`), if any.
 */
function kernelAssignedName(): string | undefined {
  const attrs = env("OTEL_RESOURCE_ATTRIBUTES") ?? "";
  for (const pair of attrs.split(",")) {
    const eq = pair.indexOf("=");
    if (pair.slice(0, eq).trim() !== "pluggableharness.producer.name") continue;
    try {
      return decodeURIComponent(pair.slice(eq + 1).trim()) || undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function fail(message: string): never {
  Deno.stderr.writeSync(new TextEncoder().encode(message));
  Deno.exit(1);
}

/** Where the plugin listens. */
interface Listening {
  network: "unix" | "tcp";
  address: string;
  /** The host's framed connection, when the host took the framed transport. */
  frame?: Promise<FrameConnection>;
}

/** A unix socket path in the socket directory, or none (Windows). */
function socketPath(dir: string): string | undefined {
  if (Deno.build.os === "windows") return undefined;
  // In a private socket directory the name is fixed, so that the kernel
  // can grant exactly this socket; in a shared one it is random.
  const path = `${dir}/${PLUGIN_SOCKET_NAME}`;
  try {
    Deno.lstatSync(path);
    return `${dir}/plugin${crypto.getRandomValues(new Uint32Array(1))[0]}`;
  } catch {
    return path; // free: use the fixed name
  }
}

async function listen(bindings: readonly ServiceBinding[]): Promise<Listening> {
  const dir = env(HANDSHAKE_ENV.unixSocketDir) ?? env("TMPDIR") ?? "/tmp";
  const path = socketPath(dir);
  const offered = (env(TRANSPORTS_ENV) ?? "").split(",").map((t) => t.trim());
  if (path !== undefined && offered.includes("frame")) {
    // The framed transport: no grpc-js in this process at all.
    const { serveFrame } = await import("./_serve_frame.ts");
    const frame = serveFrame(bindings, path);
    if (frame) return { network: "unix", address: path, frame: frame.host };
  }
  const min = Number(env(HANDSHAKE_ENV.minPort) ?? 0);
  const max = Number(env(HANDSHAKE_ENV.maxPort) ?? 0);
  if (min > max) {
    fail(`plugin: PLUGIN_MIN_PORT ${min} is above PLUGIN_MAX_PORT ${max}\n`);
  }
  const { serveGrpc } = await import("./_serve_grpc.ts");
  const bound = await serveGrpc(bindings, path, { min, max });
  if (bound) return bound;
  fail(
    `plugin: cannot listen on a unix socket in "${dir}" or on 127.0.0.1 ports ${min}-${max}\n`,
  );
}

/**
 * Serves a plugin: checks the magic cookie, listens on a unix socket (TCP
 * on 127.0.0.1 as fallback), prints the handshake line, serves health,
 * broker, controller, stdio and the plugin's own services, and dials the
 * kernel's callback channel when it is announced on broker ID 1.
 *
 * The process exits when the host calls `GRPCController.Shutdown` (before
 * replying, which spares Deno's HTTP/2 server the client's GOAWAY), or when
 * the host's broker stream ends (the host is gone).
 *
 * @example A minimal tool plugin
 * ```ts ignore
 * import { serve, service } from "@ph/agent/plugin";
 * import { ToolService } from "@ph/agent/plugin/tool";
 * await serve({
 *   identity: { name: "hello", version: "0.1.0", category: "tool" },
 *   services: () => [service(ToolService, impl)],
 * });
 * ```
 *
 * @param options The plugin's identity and services.
 * @returns The running server.
 */
export async function serve(options: ServeOptions): Promise<PluginServer> {
  if (env(MAGIC_COOKIE_KEY) !== MAGIC_COOKIE_VALUE) fail(NOT_A_PLUGIN_MESSAGE);
  if (env(HANDSHAKE_ENV.clientCert)) {
    fail(
      `plugin "${options.identity.name}": the host requested mutual TLS (PLUGIN_CLIENT_CERT), which this plugin SDK does not implement\n`,
    );
  }
  // A terminal Ctrl-C reaches the whole process group; the host decides.
  try {
    Deno.addSignalListener("SIGINT", () => {});
  } catch {
    // signals are unavailable on some platforms
  }
  const appVersion = negotiateAppVersion(env(HANDSHAKE_ENV.protocolVersions));

  const callbackTimeoutMs = options.callbackTimeoutMs ?? 10_000;
  // Every announcement is kept for the process lifetime (go-plugin's own
  // broker forgets one after 5 s). The callback channel is dialed at its
  // first use, so a plugin that never calls back never pays for it, and
  // start-up stays short.
  const announced = new Map<number, ConnInfo>();
  const callbackAnnounced = Promise.withResolvers<ConnInfo>();
  const hostConnected = Promise.withResolvers<void>();
  let kernelClient: Promise<KernelClient> | undefined;
  // A host that asked for CALLBACK_ON_DEMAND_SERVICE in its health check
  // (before it opens the broker stream) opens the callback channel only
  // when this plugin knocks for it on the broker stream.
  let onDemand = false;
  let knocked = false;
  const brokerOpen = Promise.withResolvers<(info: BrokerMessage) => void>();
  const knock = async () => {
    const send = await brokerOpen.promise;
    if (!onDemand || knocked) return;
    knocked = true;
    send({ serviceId: CALLBACK_BROKER_ID, knock: { knock: true } });
  };

  // Resolves once the plugin listens: with the host's framed connection
  // to come when the host took the framed transport (the kernel serves
  // the callback service on it), else with none (gRPC, broker ID 1). In
  // an object, so that the connection is awaited within the timeout.
  const listening = Promise.withResolvers<
    { frame: Promise<FrameConnection> | undefined }
  >();
  const context: PluginContext = {
    kernel: () =>
      kernelClient ??= (async () => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        try {
          const { frame } = await listening.promise;
          if (!frame) void knock();
          const ready = await Promise.race([
            frame ?? callbackAnnounced.promise,
            new Promise<never>((_, reject) => {
              timer = setTimeout(
                () =>
                  reject(
                    new Error(
                      `plugin "${options.identity.name}": the kernel callback channel was not announced within ${callbackTimeoutMs} ms`,
                    ),
                  ),
                callbackTimeoutMs,
              );
            }),
          ]);
          return await createKernelClient(ready);
        } catch (err) {
          kernelClient = undefined; // let a later call try again
          throw err;
        } finally {
          clearTimeout(timer);
        }
      })(),
    log: undefined as unknown as PluginLogger,
    name: kernelAssignedName() ?? options.identity.name,
    hostConnected: hostConnected.promise,
  };
  const floor = parseLogFloor(env(LOG_LEVEL_ENV));
  (context as { log: PluginLogger }).log = createPluginLogger(
    context.kernel,
    floor !== undefined ? { floor } : {},
  );

  let exiting = false;
  let socketPath: string | undefined;
  // Under a go-plugin host the socket sits in a shared directory, where a
  // stale file would pile up.
  const removeSocket = () => {
    if (!socketPath) return;
    try {
      Deno.removeSync(socketPath);
    } catch {
      // already gone
    }
    socketPath = undefined;
  };
  const exit = async (code: number) => {
    if (exiting) return;
    exiting = true;
    try {
      await Promise.race([
        (async () => {
          await context.log.flush().catch(() => {});
          await options.onShutdown?.();
        })(),
        new Promise((r) => setTimeout(r, 2000)),
      ]);
    } finally {
      removeSocket();
      Deno.exit(code);
    }
  };

  const bindings: ServiceBinding[] = [];
  bindings.push(service(Health, {
    check: (req) => {
      if (req.service === "" || req.service === HEALTH_SERVICE_NAME) {
        return { status: HealthCheckResponse_ServingStatus.SERVING };
      }
      if (req.service === CALLBACK_ON_DEMAND_SERVICE) {
        onDemand = true;
        return { status: HealthCheckResponse_ServingStatus.SERVING };
      }
      return { status: HealthCheckResponse_ServingStatus.SERVICE_UNKNOWN };
    },
    async *watch(req, ctx) {
      yield {
        status: req.service === "" || req.service === HEALTH_SERVICE_NAME
          ? HealthCheckResponse_ServingStatus.SERVING
          : HealthCheckResponse_ServingStatus.SERVICE_UNKNOWN,
      };
      await new Promise((r) =>
        ctx.signal.addEventListener("abort", r, { once: true })
      );
    },
  }));
  bindings.push(service(GRPCBroker, {
    async *startStream(reqs) {
      // The host is connected (it opens the broker right after dialing):
      // unlink our socket now, so that nothing is left behind even if this
      // process dies abruptly (Deno's HTTP/2 stack can crash on a peer's
      // GOAWAY; see the README).
      removeSocket();
      hostConnected.resolve();
      // What this plugin sends the host (a knock for the callback channel).
      const outgoing: BrokerMessage[] = [];
      let wake: (() => void) | undefined;
      let ended = false;
      brokerOpen.resolve((info) => {
        outgoing.push(info);
        wake?.();
      });
      void (async () => {
        try {
          for await (const info of reqs) {
            announced.set(info.serviceId, info);
            if (info.serviceId === CALLBACK_BROKER_ID) {
              callbackAnnounced.resolve(info);
            }
          }
        } catch {
          // the host went away
        }
        ended = true;
        wake?.();
        // The host closed the broker: it is shutting down or gone.
        void exit(0);
      })();
      while (!ended) {
        const next = outgoing.shift();
        if (next) {
          yield next;
          continue;
        }
        await new Promise<void>((r) => (wake = r));
        wake = undefined;
      }
    },
  }));
  bindings.push(service(GRPCController, {
    shutdown: async () => {
      // Exit before replying: the host ignores the error, and Deno's HTTP/2
      // server never sees the host's GOAWAY on a busy connection.
      await exit(0);
      return {};
    },
  }));
  bindings.push(service(GRPCStdio, {
    // Deno plugins do not capture their own stdio; end the stream at once,
    // which go-plugin hosts accept as "mirroring off".
    async *streamStdio() {},
  }));
  bindings.push(...options.services(context));

  // Orphan guard: if the host dies before (or without) closing the broker
  // stream, this process is re-parented; exit instead of lingering.
  const parent = Deno.ppid;
  const watchdog = setInterval(() => {
    if (Deno.ppid !== parent) void exit(0);
  }, 500);
  Deno.unrefTimer(watchdog);

  const { network, address, frame } = await listen(bindings);
  listening.resolve({ frame });
  if (network === "unix") socketPath = address;
  const line = new TextEncoder().encode(
    formatHandshakeLine({
      appVersion,
      network,
      address,
      protocol: frame ? "frame" : "grpc",
    }) + "\n",
  );
  let written = 0;
  while (written < line.length) {
    written += Deno.stdout.writeSync(line.subarray(written));
  }
  return { network, address, context };
}

async function createKernelClient(
  via: FrameConnection | ConnInfo,
): Promise<KernelClient> {
  // Loaded on first use: the kernel service's descriptors pull in every
  // package, which need not delay the handshake.
  const { KernelCallbackService } = await import(
    "../../proto/gen/pluggableharness/kernel/v1/service_pb.ts"
  );
  if (!("serviceId" in via)) return via.client(KernelCallbackService);
  const { grpcKernelClient } = await import("./_serve_grpc.ts");
  return grpcKernelClient(
    KernelCallbackService,
    via.network === "tcp" ? "tcp" : "unix",
    via.address,
  );
}
