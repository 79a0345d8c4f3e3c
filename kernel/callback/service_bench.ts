/**
 * Callback RPCs with real work behind them, through the isolated gateway:
 * Emit (plugin call → committed → acknowledged) and a Log batch of 100.
 */
import { timestampNow } from "@bufbuild/protobuf/wkt";
import { createClient, dial } from "../../proto/grpc_adapter.ts";
import { KernelCallbackService } from "../../proto/gen/pluggableharness/kernel/v1/service_pb.ts";
import { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import { LogLevel } from "../../proto/gen/pluggableharness/log/v1/types_pb.ts";
import { ToolService } from "../../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import { readManifest } from "../../plugins/sdk/mod.ts";
import { CALLBACK_SOCKET_NAME } from "./host.ts";
import { EventBus } from "../bus/event_bus.ts";
import { PluginHost } from "../plugin/host.ts";
import { SessionRegistry } from "../state/session_registry.ts";
import { SqliteSessionStore } from "../state/sqlite_session_store.ts";

const dir = await Deno.makeTempDir({ prefix: "ph-agent-bench-" });
const bus = new EventBus();
const store = new SqliteSessionStore({
  dir,
  bus,
  keyPath: `${dir}/key/installation.key`,
});
const sessions = new SessionRegistry();
// The plugins' runtime directories under ours: the first launch's is p1.
// gRPC, not the framed transport: a framed plugin's callbacks ride its own
// connection and no gateway socket is opened, and the gateway is measured.
const host = new PluginHost({
  env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
  frame: false,
  services: { sessions, bus },
  runtimeDir: `${dir}/run`,
});
const manifest = await readManifest(
  new URL("../../plugins/echo/plugin.json", import.meta.url),
);
const echo = await host.launch({
  manifest,
  entrypoint: new URL("../../plugins/echo/main.ts", import.meta.url).pathname,
});
const session = await store.create({ profile: "bench" });
sessions.register({
  log: session,
  remainingDepth: 0,
  remainingCostBudgetUsd: 0,
});
sessions.grant(echo.identity, session.sessionId);

// The callback endpoint is opened after the launch returns: one callback
// through the plugin (its `tokens` tool asks the kernel's CountTokens) shows
// that it is up. Then dial it exactly as the plugin does.
for await (
  const _ of echo.client(ToolService).invoke({
    call: { id: "warm", toolName: "tokens", arguments: { text: "warm" } },
  })
);
const kernel = createClient(
  KernelCallbackService,
  dial("unix", `${dir}/run/p1/${CALLBACK_SOCKET_NAME}`),
);
const payload = new Uint8Array(1024).fill(7);

Deno.bench(
  "callback Emit: plugin call → committed → acknowledged (1 KB payload)",
  {
    group: "callback-state",
    baseline: true,
    n: 2000,
    warmup: 100,
  },
  async () => {
    await kernel.emit({
      sessionId: session.sessionId,
      kind: EventKind.TOOL_CALL,
      schemaVersion: "1",
      payload,
    });
  },
);

const batch = Array.from({ length: 100 }, (_, i) => ({
  level: LogLevel.DEBUG,
  message: `entry ${i}`,
  fields: { i },
  time: timestampNow(),
}));
Deno.bench("callback Log: one batch of 100 entries", {
  group: "callback-state",
  n: 1000,
  warmup: 50,
}, async () => {
  await kernel.log({ sessionId: session.sessionId, entries: batch });
});

globalThis.addEventListener("unload", () => {
  try {
    Deno.removeSync(dir, { recursive: true });
  } catch {
    // already gone
  }
});
