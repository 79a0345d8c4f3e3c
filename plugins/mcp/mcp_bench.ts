/**
 * One MCP tool call (`echo` of the test server in testdata/, over stdio):
 * through the bridge (kernel → plugin Invoke stream → `tools/call` → back)
 * and with the MCP SDK client alone, to show what the bridge and the
 * transport add. Run with `deno bench -A plugins/mcp/mcp_bench.ts`.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { PluginHost } from "../../kernel/mod.ts";
import { ToolService } from "../../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import { readManifest } from "../sdk/mod.ts";
import { ProcessTransport } from "./_stdio.ts";

const repo = new URL("../../", import.meta.url).pathname;
const server = {
  command: "deno",
  args: [
    "run",
    "--no-prompt",
    "--cached-only",
    "--config",
    `${repo}deno.json`,
    "--allow-env",
    `${repo}plugins/mcp/testdata/flaky_server.ts`,
  ],
};

const host = new PluginHost({
  env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
  cwd: repo,
});
const plugin = await host.launch({
  manifest: await readManifest(new URL("./plugin.json", import.meta.url)),
  entrypoint: new URL("./main.ts", import.meta.url).pathname,
  grant: { run: ["deno"] },
});
const tool = plugin.client(ToolService);
await tool.configure({ config: server });
const call = {
  id: "bench",
  toolName: "echo",
  arguments: { text: "hello" },
  callContext: { sessionId: "01S", turnId: "01T", workingDirectory: repo },
};

async function bridged(): Promise<void> {
  for await (const r of tool.invoke({ call })) {
    if (r.event?.event.case !== "result") throw new Error("echo failed");
  }
}
await bridged();

const direct = new Client({ name: "bench", version: "0" });
await direct.connect(
  new ProcessTransport({
    ...server,
    env: {
      DENO_DIR: Deno.env.get("DENO_DIR") ??
        `${Deno.env.get("HOME")}/.cache/deno`,
    },
    cwd: repo,
  }),
);

Deno.bench("MCP echo through the bridge (Invoke stream)", {
  group: "MCP tools/call",
  baseline: true,
  n: 500,
  warmup: 50,
}, async () => {
  await bridged();
});

Deno.bench("MCP echo with the SDK client alone", {
  group: "MCP tools/call",
  n: 500,
  warmup: 50,
}, async () => {
  await direct.callTool({ name: "echo", arguments: { text: "hello" } });
});
