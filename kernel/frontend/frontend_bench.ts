/**
 * The frontend surfaces through the callback channel (the isolated
 * gateway, as a plugin frontend uses it): StreamDeltas kernel-to-frontend
 * latency (one delta forwarded, then received by the client), throughput
 * on one stream (windows of 64 deltas, the per-subscriber buffer), and a
 * GetSessionState snapshot.
 */
import { create } from "@bufbuild/protobuf";
import { createClient, dial } from "../../proto/grpc_adapter.ts";
import { KernelCallbackService } from "../../proto/gen/pluggableharness/kernel/v1/service_pb.ts";
import {
  type TokenDelta,
  TokenDeltaSchema,
} from "../../proto/gen/pluggableharness/kernel/v1/events_pb.ts";
import { readManifest } from "../../plugins/sdk/mod.ts";
import { CALLBACK_SOCKET_NAME } from "../callback/host.ts";
import { EventBus } from "../bus/event_bus.ts";
import { PluginHost } from "../plugin/host.ts";
import { ToolService } from "../../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import { SessionRegistry } from "../state/session_registry.ts";
import { SqliteSessionStore } from "../state/sqlite_session_store.ts";
import { AgentSession } from "../agent/session.ts";
import { FakeModel } from "../agent/_testing.ts";
import { FrontendHub } from "./hub.ts";

const dir = await Deno.makeTempDir({ prefix: "ph-agent-bench-" });
const bus = new EventBus();
const store = new SqliteSessionStore({
  dir,
  bus,
  keyPath: `${dir}/key/installation.key`,
});
const registry = new SessionRegistry();
const model = new FakeModel("llm", [{ text: "ok" }]);
const hub = new FrontendHub({
  store,
  registry,
  bus,
  open: async (req) => ({
    session: await AgentSession.open(
      {
        profile: "bench",
        models: [{ provider: "llm", id: "m1" }],
        workingDirectory: dir,
      },
      { store, registry, models: new Map([["llm", model]]) },
      {
        onEvent: req.onEvent,
      },
    ),
    workingDirectory: dir,
  }),
});
// gRPC, not the framed transport: the bench dials the callback gateway's
// socket, which a framed plugin does not get.
const host = new PluginHost({
  frame: false,
  env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
  services: { sessions: registry, bus, frontend: hub },
});
const manifest = await readManifest(
  new URL("../../plugins/echo/plugin.json", import.meta.url),
);
const echo = await host.launch({
  manifest,
  entrypoint: new URL("../../plugins/echo/main.ts", import.meta.url).pathname,
});
const h = await hub.open({});
const sessionId = h.sessionId;
// The echo plugin reads the session as a plugin invoked in it would.
registry.grant(echo.identity, sessionId);

// Over gRPC the callback endpoint opens at the plugin's first callback:
// its `tokens` tool asks the kernel's CountTokens.
for await (
  const _ of echo.client(ToolService).invoke({
    call: { id: "warm", toolName: "tokens", arguments: { text: "warm" } },
  })
);
// Dial the plugin's callback endpoint exactly as the plugin does.
const cmdline = await Deno.readTextFile(`/proc/${echo.pid}/cmdline`);
const socketDir = /--allow-read=([^\0,]+)/.exec(cmdline)![1]!;
const socket = `${socketDir}/${CALLBACK_SOCKET_NAME}`;
// The endpoint listens once the gateway has opened it.
for (let i = 0; i < 500; i++) {
  if (await Deno.stat(socket).then(() => true, () => false)) break;
  await new Promise((r) => setTimeout(r, 10));
}
const kernel = createClient(KernelCallbackService, dial("unix", socket));
const stream = kernel.streamDeltas({ sessionId })[Symbol.asyncIterator]();
const delta: TokenDelta = create(TokenDeltaSchema, {
  sessionId,
  targetId: "01J00000000000000000000000",
  text: "token ",
});
// The call starts with the first read: wait until the kernel subscribed.
const first = stream.next();
while (h.deltas.size === 0) await new Promise((r) => setTimeout(r, 5));
h.deltas.push(delta);
await first;

Deno.bench(
  "StreamDeltas: one delta, kernel forward → frontend client receives it",
  { group: "frontend", baseline: true, n: 5000, warmup: 200 },
  async () => {
    h.deltas.push(delta);
    await stream.next();
  },
);

const WINDOW = 64;
Deno.bench(
  `StreamDeltas throughput: ${WINDOW} deltas in flight on one stream (divide by ${WINDOW} per delta)`,
  { group: "frontend", n: 500, warmup: 20 },
  async () => {
    for (let i = 0; i < WINDOW; i++) h.deltas.push(delta);
    for (let i = 0; i < WINDOW; i++) await stream.next();
  },
);

Deno.bench(
  "GetSessionState: snapshot of a live session",
  { group: "frontend", n: 3000, warmup: 100 },
  async () => {
    await kernel.getSessionState({ sessionId });
  },
);

Deno.bench(
  "reference: CountTokens through the same gateway (no work behind it)",
  { group: "frontend", n: 3000, warmup: 100 },
  async () => {
    await kernel.countTokens({
      content: [{ block: { case: "text", value: { text: "abcd" } } }],
    });
  },
);

Deno.bench(
  "GetSessionState work alone: the hub's snapshot, in process",
  { group: "frontend", n: 3000, warmup: 100 },
  async () => {
    await hub.state(h);
  },
);

globalThis.addEventListener("unload", () => {
  try {
    Deno.removeSync(dir, { recursive: true });
  } catch {
    // already gone
  }
});
