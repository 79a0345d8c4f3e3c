/**
 * `Plugin`: the handle of a launched plugin. It holds the plugin's identity
 * and connection, hands out typed clients that fail at once with
 * `PluginCrashedError` when the process dies, and shuts the plugin down
 * drain-then-kill.
 *
 * @module
 */
import type { DescService } from "@bufbuild/protobuf";
import { getLogger } from "@logtape/logtape";
import type { ServiceClient } from "../../proto/rpc.ts";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import { GRPCController } from "../../proto/gen/plugin/grpc_controller_pb.ts";
import type { EffectivePermissions } from "../../contract/permissions.ts";
import type { PluginIdentity } from "../../contract/plugin_identity.ts";
import type { LaunchedProcess } from "../process/launcher.ts";
import type { TailBuffer } from "../process/_process_output.ts";
import { describeExit, type ExitInfo, PluginCrashedError } from "./errors.ts";
import type { PluginChannel } from "./_channel.ts";

const log = getLogger(["ph-agent", "kernel", "plugin-host"]);

/**
 * A launched plugin: its identity, typed clients over its connection,
 * crash detection and a drain-then-kill {@linkcode Plugin.close}.
 */
export class Plugin {
  /** The plugin's identity, bound to its callback connection. */
  readonly identity: PluginIdentity;
  /** The process id (also its process group id). */
  readonly pid: number;
  /** The negotiated application protocol version. */
  readonly protocolVersion: number;
  /** The effective permissions it runs with. */
  readonly permissions: EffectivePermissions;
  /** The executable or module that runs. */
  readonly path: string;
  /** Resolves when the process has exited, for any reason. */
  readonly exited: Promise<ExitInfo>;
  /** The transport its handshake chose: `grpc`, or `frame` (our SDK). */
  readonly transport: "grpc" | "frame";

  #channel: PluginChannel;
  #process: LaunchedProcess;
  #stderr: TailBuffer;
  #exit: ExitInfo | undefined;
  #closing = false;
  #closed: Promise<void> | undefined;
  #crash = Promise.withResolvers<never>();
  #cleanup: () => Promise<void>;
  #shutdownTimeoutMs: number;

  /** @internal Created by {@linkcode PluginHost.launch}. */
  constructor(init: {
    identity: PluginIdentity;
    process: LaunchedProcess;
    channel: PluginChannel;
    stderr: TailBuffer;
    exited: Promise<ExitInfo>;
    protocolVersion: number;
    permissions: EffectivePermissions;
    path: string;
    cleanup: () => Promise<void>;
    shutdownTimeoutMs: number;
  }) {
    this.identity = init.identity;
    this.pid = init.process.pid;
    this.protocolVersion = init.protocolVersion;
    this.permissions = init.permissions;
    this.path = init.path;
    this.#process = init.process;
    this.#channel = init.channel;
    this.transport = init.channel.protocol;
    this.#stderr = init.stderr;
    this.#cleanup = init.cleanup;
    this.#shutdownTimeoutMs = init.shutdownTimeoutMs;
    this.#crash.promise.catch(() => {});
    this.exited = init.exited.then((exit) => {
      this.#exit = exit;
      if (!this.#closing) {
        const err = new PluginCrashedError(
          this.identity.name,
          exit,
          this.#stderr.text(),
        );
        log.error("Plugin {plugin} crashed ({exit})", {
          plugin: this.identity.name,
          exit: describeExit(exit),
        });
        this.#crash.reject(err);
      } else {
        this.#crash.reject(
          new GrpcStatusError(
            Code.UNAVAILABLE,
            `plugin "${this.identity.name}" is closed`,
          ),
        );
      }
      return exit;
    });
  }

  /** True once the process has exited. */
  get isExited(): boolean {
    return this.#exit !== undefined;
  }

  /** The last bytes the plugin wrote to stderr. */
  stderrTail(): string {
    return this.#stderr.text();
  }

  #failure(): Error {
    return this.#closing
      ? new GrpcStatusError(
        Code.UNAVAILABLE,
        `plugin "${this.identity.name}" is closed`,
      )
      : new PluginCrashedError(
        this.identity.name,
        this.#exit!,
        this.#stderr.text(),
      );
  }

  /** Maps a failed call to a crash when the process is (about to be) gone. */
  async #classify(err: unknown): Promise<unknown> {
    if (
      err instanceof GrpcStatusError &&
      (err.code === Code.UNAVAILABLE || err.code === Code.INTERNAL ||
        err.code === Code.CANCELLED)
    ) {
      if (this.#exit === undefined) {
        await Promise.race([
          this.exited,
          new Promise((r) => setTimeout(r, 250)),
        ]);
      }
      if (this.#exit !== undefined) return this.#failure();
    }
    return err;
  }

  async *#guardStream(
    open: () => AsyncIterable<unknown>,
  ): AsyncGenerator<unknown> {
    if (this.#exit !== undefined || this.#closing) throw this.#failure();
    const it = open()[Symbol.asyncIterator]();
    try {
      while (true) {
        let r: IteratorResult<unknown>;
        try {
          r = await Promise.race([it.next(), this.#crash.promise]);
        } catch (err) {
          throw await this.#classify(err);
        }
        if (r.done) return;
        yield r.value;
      }
    } finally {
      await it.return?.();
    }
  }

  /**
   * A typed client for one of the plugin's services. Calls fail at once
   * with {@linkcode PluginCrashedError} when the plugin exits mid-call or
   * has exited before the call.
   *
   * @param service The generated service descriptor.
   * @returns The client.
   */
  client<S extends DescService>(service: S): ServiceClient<S> {
    const raw = this.#channel.client(service) as Record<
      string,
      unknown
    >;
    const out: Record<string, unknown> = {};
    for (const m of service.methods) {
      const fn = raw[m.localName] as (...a: unknown[]) => unknown;
      if (m.methodKind === "unary") {
        out[m.localName] = async (
          req: unknown,
          opts?: { signal?: AbortSignal },
        ) => {
          if (this.#exit !== undefined || this.#closing) throw this.#failure();
          const ac = new AbortController();
          const onAbort = () => ac.abort();
          opts?.signal?.addEventListener("abort", onAbort, { once: true });
          try {
            return await Promise.race([
              fn(req, { ...opts, signal: ac.signal }) as Promise<unknown>,
              this.#crash.promise,
            ]);
          } catch (err) {
            ac.abort();
            throw await this.#classify(err);
          } finally {
            opts?.signal?.removeEventListener("abort", onAbort);
          }
        };
      } else if (m.methodKind === "server_streaming") {
        out[m.localName] = (req: unknown, opts?: object) =>
          this.#guardStream(() => fn(req, opts) as AsyncIterable<unknown>);
      } else {
        out[m.localName] = fn;
      }
    }
    return out as ServiceClient<S>;
  }

  /**
   * Shuts the plugin down: `GRPCController.Shutdown`, a wait for the
   * process to exit, then SIGKILL of its whole process group once the drain
   * window ends. The channel is closed only after the process is gone.
   *
   * @returns Resolves when the process has exited and sockets are removed.
   */
  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    this.#closing = true;
    const deadline = Date.now() + this.#shutdownTimeoutMs;
    if (this.#exit === undefined) {
      const controller = this.#channel.client(GRPCController);
      const shutdown = controller.shutdown({}, {
        timeoutMs: Math.min(2000, this.#shutdownTimeoutMs),
      }).catch(() => {});
      const grace = Math.max(0, Math.min(2000, deadline - Date.now()));
      await Promise.race([
        this.exited,
        shutdown.then(() => new Promise((r) => setTimeout(r, grace))),
        new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now()))),
      ]);
    }
    this.#killGroup();
    await this.exited;
    this.#killGroup(); // anything the plugin left in its group
    this.#channel.close();
    await this.#cleanup();
  }

  /** Sends SIGKILL to the plugin's process group (ignoring "no such process"). */
  #killGroup(): void {
    this.#process.kill("SIGKILL");
  }

  /** @internal Kills the process group synchronously (process exit path). */
  killNow(): void {
    this.#closing = true;
    this.#killGroup();
  }
}
