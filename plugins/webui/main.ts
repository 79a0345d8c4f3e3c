/**
 * `webui`: the first-party local web UI, a frontend plugin
 * (`FrontendService`, plugins.md §6.5) selected by `agent web`,
 * `--frontend web` or `settings.default_frontend = "web"`.
 *
 * Its Configure starts an HTTP server on 127.0.0.1 (the `port` attribute,
 * or a free one) guarded by a random token, and answers the URL as its
 * operator notice, which the kernel prints on its stderr. The pages list
 * the stored sessions, follow a live one (transcript from the kernel's
 * Render trees, token deltas, state and metadata over server-sent events),
 * answer its pending approvals, take input, interrupt, replay a stored one
 * with its hash-chain verification, and export it as Markdown or JSON.
 * Everything goes through the plugin's callback connection; its only
 * permission is the loopback network.
 *
 * @module
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { type KernelClient, serve, service } from "../sdk/mod.ts";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import { Category } from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import { FrontendService } from "../../proto/gen/pluggableharness/frontend/v1/service_pb.ts";
import { Wakeup, webUiApp } from "./server.ts";
import manifest from "./plugin.json" with { type: "json" };

/** The topics that say a session changed (granted by `allow_subscribe`). */
const TOPICS = ["kernel.event.*", "kernel.state", "kernel.metadata"];
/** How often the streams re-read when the bus is not granted. */
const POLL_MS = 250;

function portOf(config: JsonObject | undefined): number {
  const v = config?.["port"];
  if (v === undefined || v === null) return 0;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > 65535) {
    throw new GrpcStatusError(
      Code.INVALID_ARGUMENT,
      `config attribute "port" must be an integer from 0 to 65535: ${
        JSON.stringify(v)
      }`,
    );
  }
  return v;
}

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Wakes the streams on each kernel event. A subscriber closed for falling
 * behind subscribes again; without an `allow_subscribe` grant the streams
 * re-read on a timer instead.
 */
function follow(kernel: KernelClient, wakeup: Wakeup): void {
  (async () => {
    for (;;) {
      try {
        for await (const _ of kernel.subscribe({ topicFilters: TOPICS })) {
          wakeup.wake();
        }
      } catch (err) {
        if (
          err instanceof GrpcStatusError &&
          err.code === Code.RESOURCE_EXHAUSTED
        ) {
          wakeup.wake();
          continue;
        }
        if (
          err instanceof GrpcStatusError &&
          err.code === Code.PERMISSION_DENIED
        ) {
          setInterval(() => {
            if (wakeup.waiting) wakeup.wake();
          }, POLL_MS);
        }
        // Otherwise the kernel is going away with this process.
        return;
      }
      return;
    }
  })();
}

let url: Promise<string> | undefined;

/** Starts the server once; later Configure calls answer the same URL. */
function start(
  kernel: () => Promise<KernelClient>,
  port: number,
): Promise<string> {
  url ??= (async () => {
    const client = await kernel();
    const token = randomToken();
    const wakeup = new Wakeup();
    let bound = port;
    const ui = webUiApp(client, { token, port: () => bound, wakeup });
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port,
      onListen: () => {},
    }, ui.app.fetch);
    bound = server.addr.port;
    follow(client, wakeup);
    return `http://127.0.0.1:${bound}/?token=${token}`;
  })();
  return url;
}

if (import.meta.main) {
  await serve({
    identity: {
      name: manifest.name,
      version: manifest.version,
      category: "frontend",
    },
    services: (ctx) => [
      service(FrontendService, {
        getCapabilities: () => ({ capabilities: {} }),
        configure: async (req) => {
          const port = portOf(req.config);
          try {
            return {
              operatorNotice: `Web UI: ${await start(ctx.kernel, port)}`,
            };
          } catch (err) {
            url = undefined;
            throw new GrpcStatusError(
              Code.FAILED_PRECONDITION,
              `cannot serve the web UI on 127.0.0.1:${port}: ${
                err instanceof Error ? err.message : String(err)
              }`,
            );
          }
        },
        describe: () => ({
          producer: {
            name: manifest.name,
            version: manifest.version,
            category: Category.FRONTEND,
          },
        }),
      }),
    ],
  });
}
