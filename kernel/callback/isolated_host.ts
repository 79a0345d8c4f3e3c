/**
 * `IsolatedCallbackHost`: serves `KernelCallbackService` endpoints from a
 * gateway subprocess, so that no plugin behaviour can abort the kernel.
 *
 * Deno's `node:http2` server aborts its process when a client closes a busy
 * connection (denoland/deno#36788). The gateway takes that risk instead of
 * the kernel: it relays each call as bytes over a framed unix socket, and
 * the handlers (and every piece of kernel state) stay in the kernel. When
 * the gateway dies, calls in flight fail with `UNAVAILABLE`, the kernel
 * starts a new gateway on the same socket paths, and plugins' gRPC channels
 * reconnect by themselves.
 *
 * @module
 */
import * as grpc from "@grpc/grpc-js";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { getLogger } from "@logtape/logtape";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { KernelCallbackService } from "../../proto/gen/pluggableharness/kernel/v1/service_pb.ts";
import {
  Code,
  GRPC_JS_ENV,
  methodPath,
  STATUS_DETAILS_KEY,
  toMessage,
  toStatusObject,
} from "../../proto/grpc_adapter.ts";
import {
  CALLBACK_SOCKET_NAME,
  type CallbackEndpoint,
  type CallbackHost,
  type CallbackImpl,
  type OpenEndpointOptions,
} from "./host.ts";
import {
  decodeCall,
  decodeJson,
  encodeJson,
  encodeStatus,
  Frame,
  FrameWriter,
  type GatewayMethod,
  type GatewayOpen,
  readFrames,
} from "./_frames.ts";
import {
  denoCacheDir,
  ensureCached,
  importFlag,
  isRemoteSpecifier,
} from "../process/_module_cache.ts";
import { PLUGIN_V8_FLAGS } from "../process/_v8_flags.ts";
import {
  DenoCommandLauncher,
  type LaunchedProcess,
  type ProcessLauncher,
  type ProcessStatus,
} from "../process/launcher.ts";

const GATEWAY_MODULE = new URL("./_gateway_main.ts", import.meta.url).href;
const log = getLogger(["ph-agent", "kernel", "callback-gateway"]);

/**
 * The service's methods as the gateway serves them, in descriptor order
 * (a call names its method by this index). Sent with every endpoint, so
 * that the gateway never loads protobuf-es or the descriptors of every
 * package (about a third of its start-up CPU).
 */
let gatewayMethods: GatewayMethod[] | undefined;
function gatewayMethodsOf(): GatewayMethod[] {
  return gatewayMethods ??= KernelCallbackService.methods.map((m) => ({
    name: m.localName,
    path: methodPath(m),
    streaming: m.methodKind === "server_streaming",
  }));
}

/** Restarts allowed within one minute before the gateway is given up. */
export const MAX_GATEWAY_RESTARTS_PER_MINUTE = 20;

/** Options for {@linkcode IsolatedCallbackHost.start}. */
export interface IsolatedCallbackHostOptions {
  /** A private directory; every endpoint directory must be inside it. */
  root: string;
  /**
   * The environment whose `PATH` the gateway gets.
   * @default {Deno.env.toObject()}
   */
  env?: Record<string, string>;
  /**
   * Milliseconds allowed for the gateway to connect back.
   * @default {10000}
   */
  startTimeoutMs?: number;
  /**
   * Starts the gateway process.
   * @default {a DenoCommandLauncher}
   */
  launcher?: ProcessLauncher;
}

interface Endpoint {
  id: number;
  impl: CallbackImpl;
  tcp: boolean;
  address?: string;
  network?: "unix" | "tcp";
  firstSeen: boolean;
  resolveFirst: () => void;
  opened?: PromiseWithResolvers<{ network: "unix" | "tcp"; address: string }>;
  closed?: PromiseWithResolvers<void>;
}

interface Gateway {
  child: LaunchedProcess;
  conn: Deno.UnixConn;
  writer: FrameWriter;
  done: Promise<void>;
}

/** Serves callback endpoints from a restartable gateway subprocess. */
export class IsolatedCallbackHost implements CallbackHost {
  #options: IsolatedCallbackHostOptions;
  #endpoints = new Map<number, Endpoint>();
  #calls = new Map<number, AbortController>();
  #nextEndpoint = 1;
  #gateway: Gateway | undefined;
  #ready: Promise<Gateway> | undefined;
  #closing = false;
  #restartTimes: number[] = [];
  #restarts = 0;

  private constructor(options: IsolatedCallbackHostOptions) {
    this.#options = options;
  }

  /**
   * Starts the gateway and returns the host once it is connected.
   *
   * @param options The private root directory and environment.
   * @returns The running host.
   */
  static async start(
    options: IsolatedCallbackHostOptions,
  ): Promise<IsolatedCallbackHost> {
    const host = new IsolatedCallbackHost(options);
    host.#ready = host.#spawn();
    await host.#ready;
    return host;
  }

  /** How many times the gateway was restarted after dying. */
  get restarts(): number {
    return this.#restarts;
  }

  /** The gateway's process id (tests kill it to prove isolation). */
  get gatewayPid(): number | undefined {
    return this.#gateway?.child.pid;
  }

  async #spawn(): Promise<Gateway> {
    const root = this.#options.root;
    const env = this.#options.env ?? Deno.env.toObject();
    const controlPath = join(root, "gw.sock");
    await Deno.remove(controlPath).catch(() => {});
    const listener = Deno.listen({ transport: "unix", path: controlPath });
    await ensureCached(GATEWAY_MODULE);
    const remote = isRemoteSpecifier(GATEWAY_MODULE);
    const childEnv: Record<string, string> = {
      PATH: env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
      DENO_DIR: denoCacheDir(),
      DENO_NO_UPDATE_CHECK: "1",
      NO_COLOR: "1",
    };
    const launcher = this.#options.launcher ?? new DenoCommandLauncher();
    const child = launcher.start({
      command: Deno.execPath(),
      args: [
        "run",
        "--cached-only",
        "--no-prompt",
        PLUGIN_V8_FLAGS,
        ...(remote ? ["--no-config", ...importFlag(GATEWAY_MODULE)] : []),
        `--allow-env=${GRPC_JS_ENV.join(",")}`,
        `--allow-read=${root}`,
        `--allow-write=${root}`,
        // Endpoint sockets are created on demand and Deno needs an exact
        // "unix:<path>" per socket, so the gateway (kernel code, not a
        // plugin) gets net access; reads and writes stay in `root`.
        "--allow-net",
        remote ? GATEWAY_MODULE : fileURLToPath(GATEWAY_MODULE),
        controlPath,
      ],
      cwd: remote ? root : dirname(fileURLToPath(GATEWAY_MODULE)),
      env: childEnv,
      stdout: "null",
    });
    const stderrChunks: string[] = [];
    let stderrBytes = 0;
    const stderrDone = (async () => {
      const dec = new TextDecoder();
      for await (const c of child.stderr) {
        const t = dec.decode(c, { stream: true });
        if (stderrBytes < 16384) {
          stderrChunks.push(t);
          stderrBytes += t.length;
        }
        for (const line of t.split("\n")) {
          if (line.trim()) log.warn("gateway: {line}", { line });
        }
      }
    })().catch(() => {});
    const timeoutMs = this.#options.startTimeoutMs ?? 10_000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let conn: Deno.UnixConn;
    try {
      conn = await Promise.race([
        listener.accept() as Promise<Deno.UnixConn>,
        child.status.then(async (s) => {
          await stderrDone;
          throw new Error(
            `the callback gateway exited (code ${s.code}${
              s.signal ? `, ${s.signal}` : ""
            }) before connecting: ${stderrChunks.join("").trim()}`,
          );
        }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () =>
              reject(
                new Error(
                  `the callback gateway did not connect within ${timeoutMs} ms`,
                ),
              ),
            timeoutMs,
          );
        }),
      ]);
    } catch (err) {
      child.kill("SIGKILL");
      await child.status;
      throw err;
    } finally {
      clearTimeout(timer);
      listener.close();
      await Deno.remove(controlPath).catch(() => {});
    }
    const writer = new FrameWriter(conn);
    const gw: Gateway = { child, conn, writer, done: Promise.resolve() };
    gw.done = this.#serve(gw);
    this.#gateway = gw;
    child.status.then((s) => this.#onExit(gw, s));
    return gw;
  }

  async #serve(gw: Gateway): Promise<void> {
    try {
      for await (const f of readFrames(gw.conn)) {
        switch (f.type) {
          case Frame.OPENED: {
            const ep = this.#endpoints.get(f.id);
            const res = decodeJson<
              { network?: "unix" | "tcp"; address?: string; error?: string }
            >(
              f.payload,
            );
            if (res.error) ep?.opened?.reject(new Error(res.error));
            else {ep?.opened?.resolve({
                network: res.network!,
                address: res.address!,
              });}
            break;
          }
          case Frame.CLOSED:
            this.#endpoints.get(f.id)?.closed?.resolve();
            break;
          case Frame.CALL:
            this.#dispatch(gw, f.id, f.payload);
            break;
          case Frame.CANCEL:
            this.#calls.get(f.id)?.abort();
            this.#calls.delete(f.id);
            break;
        }
      }
    } catch (err) {
      if (!this.#closing && this.#gateway === gw) {
        log.error("Callback gateway stream failed: {error}", {
          error: String(err),
        });
      }
    }
  }

  #dispatch(gw: Gateway, id: number, payload: Uint8Array): void {
    const { endpoint, method, request } = decodeCall(payload);
    const ep = this.#endpoints.get(endpoint);
    const m = KernelCallbackService.methods[method];
    const end = (code: number, details: string, statusBin?: Uint8Array) =>
      gw.writer.send(Frame.END, id, encodeStatus(code, details, statusBin));
    if (!ep || !m) {
      end(Code.UNAVAILABLE, "the callback endpoint is closed");
      return;
    }
    if (!ep.firstSeen) {
      ep.firstSeen = true;
      ep.resolveFirst();
    }
    let req;
    try {
      req = fromBinary(m.input, request);
    } catch (err) {
      end(
        Code.INVALID_ARGUMENT,
        `cannot decode ${m.input.typeName}: ${(err as Error).message}`,
      );
      return;
    }
    const ac = new AbortController();
    this.#calls.set(id, ac);
    const ctx = { signal: ac.signal, metadata: new grpc.Metadata() };
    const fn =
      (ep.impl as Record<string, (...a: unknown[]) => unknown>)[m.localName]!;
    const fail = (err: unknown) => {
      if (ac.signal.aborted) return;
      const s = toStatusObject(err);
      const bin = s.metadata?.get(STATUS_DETAILS_KEY)[0];
      end(s.code, s.details, bin instanceof Uint8Array ? bin : undefined);
    };
    const finish = () => this.#calls.delete(id);
    if (m.methodKind === "server_streaming") {
      (async () => {
        for await (const msg of fn(req, ctx) as AsyncIterable<never>) {
          if (ac.signal.aborted) return;
          gw.writer.send(
            Frame.DATA,
            id,
            toBinary(m.output, toMessage(m.output, msg)),
          );
        }
        if (!ac.signal.aborted) end(0, "");
      })().catch(fail).finally(finish);
    } else {
      Promise.resolve().then(() => fn(req, ctx)).then((res) => {
        if (ac.signal.aborted) return;
        gw.writer.send(
          Frame.DATA,
          id,
          toBinary(m.output, toMessage(m.output, res as never)),
        );
        end(0, "");
      }).catch(fail).finally(finish);
    }
  }

  #onExit(gw: Gateway, status: ProcessStatus): void {
    try {
      gw.conn.close();
    } catch {
      // already closed
    }
    for (const ac of this.#calls.values()) ac.abort();
    this.#calls.clear();
    if (this.#closing || this.#gateway !== gw) return;
    const now = Date.now();
    this.#restartTimes = this.#restartTimes.filter((t) => now - t < 60_000);
    log.error(
      "Callback gateway died ({how}); calls in flight failed. Restarting it on the same sockets",
      {
        how: status.signal
          ? `signal ${status.signal}`
          : `exit code ${status.code}`,
      },
    );
    if (this.#restartTimes.length >= MAX_GATEWAY_RESTARTS_PER_MINUTE) {
      log.fatal("Callback gateway died {n} times within a minute; giving up", {
        n: this.#restartTimes.length,
      });
      this.#gateway = undefined;
      return;
    }
    this.#restartTimes.push(now);
    this.#restarts++;
    this.#ready = (async () => {
      const next = await this.#spawn();
      await Promise.all(
        [...this.#endpoints.values()].map((ep) => this.#openOn(next, ep)),
      );
      return next;
    })();
    this.#ready.catch((err) =>
      log.error("Cannot restart the callback gateway: {error}", {
        error: String(err),
      })
    );
  }

  async #openOn(gw: Gateway, ep: Endpoint): Promise<void> {
    ep.opened = Promise.withResolvers();
    gw.writer.send(
      Frame.OPEN,
      ep.id,
      encodeJson(
        {
          ...(ep.tcp ? { tcp: true } : {}),
          ...(ep.address !== undefined ? { address: ep.address } : {}),
          methods: gatewayMethodsOf(),
        } satisfies GatewayOpen,
      ),
    );
    const r = await ep.opened.promise;
    ep.network = r.network;
    ep.address = r.address;
  }

  /** Opens one plugin's endpoint in the gateway. */
  async open(options: OpenEndpointOptions): Promise<CallbackEndpoint> {
    const gw = await this.#ready!;
    const first = Promise.withResolvers<void>();
    const ep: Endpoint = {
      id: this.#nextEndpoint++,
      impl: options.impl,
      tcp: options.tcp ?? false,
      firstSeen: false,
      resolveFirst: first.resolve,
    };
    if (!ep.tcp) ep.address = join(options.dir, CALLBACK_SOCKET_NAME);
    this.#endpoints.set(ep.id, ep);
    try {
      await this.#openOn(gw, ep);
    } catch (err) {
      this.#endpoints.delete(ep.id);
      throw err;
    }
    return {
      network: ep.network!,
      address: ep.address!,
      firstCall: first.promise,
      close: async () => {
        if (!this.#endpoints.has(ep.id)) return;
        const cur = this.#gateway;
        if (cur && !this.#closing) {
          ep.closed = Promise.withResolvers();
          cur.writer.send(Frame.CLOSE, ep.id);
          await Promise.race([ep.closed.promise, cur.child.status]);
        }
        this.#endpoints.delete(ep.id);
        if (!ep.tcp) await Deno.remove(ep.address!).catch(() => {});
      },
    };
  }

  /** Stops the gateway and forgets every endpoint. */
  async close(): Promise<void> {
    this.#closing = true;
    const gw = this.#gateway;
    this.#gateway = undefined;
    if (!gw) return;
    try {
      gw.conn.close(); // the gateway exits when its control connection ends
    } catch {
      // closed
    }
    const timer = setTimeout(() => gw.child.kill("SIGKILL"), 2000);
    await gw.child.status;
    clearTimeout(timer);
    await gw.done;
    for (const ep of this.#endpoints.values()) {
      if (!ep.tcp && ep.address) await Deno.remove(ep.address).catch(() => {});
    }
    this.#endpoints.clear();
  }
}
