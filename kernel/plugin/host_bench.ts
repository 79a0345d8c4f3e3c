/**
 * Transport benchmarks: launch to ready, kernel → plugin unary and
 * streaming, plugin → kernel callbacks (through the isolated gateway and
 * in-process for comparison). Run with `deno task bench`.
 */
import * as grpc from "@grpc/grpc-js";
import { createClient, dial } from "../../proto/grpc_adapter.ts";
import { Health } from "../../proto/gen/grpc/health/v1/health_pb.ts";
import { ToolService } from "../../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import { KernelCallbackService } from "../../proto/gen/pluggableharness/kernel/v1/service_pb.ts";
import { readManifest } from "../../plugins/sdk/mod.ts";
import {
  CALLBACK_SOCKET_NAME,
  InProcessCallbackHost,
} from "../callback/host.ts";
import { PluginHost } from "./host.ts";

const ECHO = new URL("../../plugins/echo/main.ts", import.meta.url).pathname;
const manifest = await readManifest(
  new URL("../../plugins/echo/plugin.json", import.meta.url),
);
const env = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" };

// Hosts with their gateway warm, so launch figures are per plugin. The
// launches go over the default (framed) transport; the calls below dial
// the plugin's socket and the callback gateway's, which only a gRPC plugin
// has, so that plugin is launched over gRPC.
const host = new PluginHost({ env });
await (await host.launch({ manifest, entrypoint: ECHO })).close();
const grpcHost = new PluginHost({ env, frame: false });
const warm = await grpcHost.launch({ manifest, entrypoint: ECHO });
const tool = warm.client(ToolService);
const health = createClient(
  Health,
  dial("unix", warm.path === ECHO ? await socketOf(warm.pid) : ""),
);

async function socketOf(pid: number): Promise<string> {
  // The plugin's socket is announced in its handshake; find it through /proc.
  const cmd = await Deno.readTextFile(`/proc/${pid}/cmdline`);
  const dir = /--allow-read=([^\0,]+)/.exec(cmd)![1]!;
  return `${dir}/plugin.sock`;
}

Deno.bench("launch to ready: Deno TypeScript plugin (warm cache)", {
  group: "launch",
  baseline: true,
  n: 20,
  warmup: 2,
}, async (b) => {
  b.start();
  const p = await host.launch({ manifest, entrypoint: ECHO });
  b.end();
  await p.close();
});

Deno.bench("launch to ready: four Deno plugins concurrently", {
  group: "launch",
  n: 10,
  warmup: 1,
}, async (b) => {
  b.start();
  const ps = await Promise.all(
    [1, 2, 3, 4].map(() => host.launch({ manifest, entrypoint: ECHO })),
  );
  b.end();
  await Promise.all(ps.map((p) => p.close()));
});

Deno.bench("unary kernel → plugin: grpc.health.v1.Health/Check", {
  group: "unary",
  baseline: true,
  n: 3000,
  warmup: 200,
}, async () => {
  await health.check({ service: "plugin" });
});

Deno.bench(
  "unary kernel → plugin: ToolService/Describe (crash-guarded client)",
  {
    group: "unary",
    n: 3000,
    warmup: 200,
  },
  async () => {
    await tool.describe({});
  },
);

const STREAM_N = 10_000;
Deno.bench(
  `server streaming kernel ← plugin: ${STREAM_N} messages per iteration`,
  {
    group: "stream",
    n: 10,
    warmup: 1,
  },
  async () => {
    let n = 0;
    for await (
      const _ of tool.invoke({
        call: { toolName: "count", arguments: { n: STREAM_N } },
      })
    ) n++;
    if (n !== STREAM_N + 1) throw new Error(`got ${n} messages`);
  },
);

// Plugin → kernel: a gRPC client on the plugin's callback socket, exactly
// as a plugin dials it (here from the bench process).
// Over gRPC it opens at the plugin's first callback: its `tokens` tool
// asks the kernel's CountTokens.
for await (
  const _ of tool.invoke({
    call: { id: "warm", toolName: "tokens", arguments: { text: "warm" } },
  })
);
const gatewaySocket = (await socketOf(warm.pid)).replace(
  "plugin.sock",
  CALLBACK_SOCKET_NAME,
);
const viaGateway = createClient(
  KernelCallbackService,
  dial("unix", gatewaySocket),
);
const text = {
  content: [{
    block: { case: "text" as const, value: { text: "hello world" } },
  }],
};

const inProcessRoot = await Deno.makeTempDir({ prefix: "ph-agent-bench-" });
const inProcessHost = new InProcessCallbackHost();
const { createCallbackService } = await import("../callback/service.ts");
const endpoint = await inProcessHost.open({
  dir: inProcessRoot,
  impl: createCallbackService({
    identity: { category: "tool", name: "bench", version: "0.0.0", source: "" },
  }),
});
const inProcess = createClient(
  KernelCallbackService,
  new grpc.Client(
    `unix:${endpoint.address}`,
    grpc.credentials.createInsecure(),
  ),
);

Deno.bench(
  "callback plugin → kernel: CountTokens through the isolated gateway",
  {
    group: "callback",
    baseline: true,
    n: 3000,
    warmup: 200,
  },
  async () => {
    await viaGateway.countTokens(text);
  },
);

Deno.bench(
  "callback plugin → kernel: CountTokens in-process (no isolation, for comparison)",
  {
    group: "callback",
    n: 3000,
    warmup: 200,
  },
  async () => {
    await inProcess.countTokens(text);
  },
);
