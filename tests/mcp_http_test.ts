/**
 * The `mcp` bridge over streamable HTTP, against the real
 * server-everything (its `streamableHttp` transport, started here under
 * Deno on a free port): tools listed and called with a header sent, the
 * host refused by Deno's own `--allow-net` when it is not granted, and a
 * server that goes away and comes back (the next call reconnects).
 *
 * server-everything listens on every interface (`[::]:<port>`, it has no
 * host option); the bridge reaches it on 127.0.0.1.
 */
import assert from "node:assert/strict";
import type { JsonObject } from "@bufbuild/protobuf";
import { type Plugin, PluginHost } from "../kernel/mod.ts";
import { parseManifest, readManifest } from "../plugins/sdk/mod.ts";
import { Code, GrpcStatusError } from "../proto/grpc_status.ts";
import { ToolErrorCategory } from "../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import type { ToolEvent } from "../proto/gen/pluggableharness/tool/v1/events_pb.ts";
import { ToolService } from "../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import { ToolKind } from "../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { DENO_ENV, PATH, REPO } from "./_helpers.ts";

const ENTRY = `${REPO}/plugins/mcp/main.ts`;

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** server-everything over streamable HTTP; resolves once it listens. */
async function startEverything(port: number) {
  const cwd = await Deno.makeTempDir({ prefix: "ph-mcp-http-" });
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      `--allow-net=[::]:${port}`,
      // Its logging library enumerates the environment, which holds only
      // PORT and Deno's runtime settings.
      "--allow-env",
      "npm:@modelcontextprotocol/server-everything@2026.8.31",
      "streamableHttp",
    ],
    clearEnv: true,
    env: {
      PORT: String(port),
      ...DENO_ENV,
    },
    cwd,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const lines = child.stderr.pipeThrough(new TextDecoderStream());
  const reader = lines.getReader();
  let seen = "";
  const deadline = Date.now() + 15_000;
  while (!/listening on port/.test(seen)) {
    const { done, value } = await reader.read();
    if (done || Date.now() > deadline) {
      child.kill("SIGKILL");
      await child.status;
      await reader.cancel();
      await Deno.remove(cwd, { recursive: true });
      throw new Error(`server-everything did not start: ${seen}`);
    }
    seen += value;
  }
  // Keep draining stderr so the server never blocks on it.
  const drained = (async () => {
    try {
      while (!(await reader.read()).done) { /* discard */ }
    } catch { /* closed */ }
  })();
  return {
    async [Symbol.asyncDispose]() {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      await child.status;
      await drained;
      await Deno.remove(cwd, { recursive: true });
    },
  };
}

async function launchMcp(
  host: PluginHost,
  net: string[],
): Promise<Plugin> {
  const base = await readManifest(`${REPO}/plugins/mcp/plugin.json`);
  const raw = (await import("../plugins/mcp/plugin.json", {
    with: { type: "json" },
  })).default;
  // The envelope the operator's allow_net grant produces for this plugin.
  const manifest = parseManifest(
    { ...raw, capabilities: { ...raw.capabilities, net } },
    "mcp/plugin.json",
  );
  assert.equal(manifest.name, base.name);
  return await host.launch({
    manifest,
    entrypoint: ENTRY,
    grant: { run: ["deno"], net },
  });
}

async function call(
  plugin: Plugin,
  toolName: string,
  args: JsonObject = {},
): Promise<ToolEvent["event"]> {
  const out: ToolEvent[] = [];
  for await (
    const r of plugin.client(ToolService).invoke({
      call: {
        id: "c",
        toolName,
        arguments: args,
        callContext: { sessionId: "s", turnId: "t", workingDirectory: "/" },
      },
    })
  ) {
    if (r.event) out.push(r.event);
  }
  assert.equal(out.length, 1);
  return out[0]!.event;
}

Deno.test("mcp bridge: server-everything over streamable HTTP", async () => {
  const port = freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  let server: AsyncDisposable | undefined = await startEverything(port);
  try {
    await using host = new PluginHost({
      env: { PATH, ...DENO_ENV },
      cwd: REPO,
    });
    const plugin = await launchMcp(host, [`127.0.0.1:${port}`]);
    const tool = plugin.client(ToolService);
    await tool.configure({
      config: {
        url,
        headers: { "X-Agent": "ph-agent-test" },
        tools: ["echo", "get-sum", "get-tiny-image"],
      },
    });
    const { tools } = await tool.getSchema({});
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      "echo",
      "get-sum",
      "get-tiny-image",
    ]);
    assert.ok(tools.every((t) => t.kind === ToolKind.DATA_SOURCE));
    const echo = await call(plugin, "echo", { message: "over http" });
    assert.equal(echo.case, "result");
    assert.equal(echo.value.payload?.text, "Echo: over http");
    const sum = await call(plugin, "get-sum", { a: 1.5, b: 2 });
    assert.equal(sum.case, "result");
    assert.match(String(sum.value.payload?.text), /3\.5/);

    // The server goes away: a clear error, not a hang.
    await server[Symbol.asyncDispose]();
    server = undefined;
    const gone = await call(plugin, "echo", { message: "anyone?" });
    assert.equal(gone.case, "error");
    assert.equal(gone.value.category, ToolErrorCategory.EXECUTION_FAILED);
    assert.equal(gone.value.retryable, true);
    assert.match(
      gone.value.message,
      /unavailable|could not be reached|Cannot connect/,
    );
    // It comes back on the same port: the next call connects afresh.
    server = await startEverything(port);
    const back = await call(plugin, "echo", { message: "again" });
    assert.equal(
      back.case,
      "result",
      back.case === "error" ? back.value.message : "",
    );
    assert.equal(back.value.payload?.text, "Echo: again");
  } finally {
    await server?.[Symbol.asyncDispose]();
  }
});

Deno.test("mcp bridge: a url host that is not granted is refused by Deno, by name", async () => {
  await using host = new PluginHost({ env: { PATH, ...DENO_ENV }, cwd: REPO });
  const plugin = await host.launch({
    manifest: await readManifest(`${REPO}/plugins/mcp/plugin.json`),
    entrypoint: ENTRY,
    grant: { run: ["deno"] },
  });
  const port = freePort();
  await assert.rejects(
    plugin.client(ToolService).configure({
      config: { url: `http://127.0.0.1:${port}/mcp` },
    }),
    (e) =>
      e instanceof GrpcStatusError && e.code === Code.PERMISSION_DENIED &&
      new RegExp(
        `network access to "127\\.0\\.0\\.1:${port}" is not granted: the operator grants it with allow_net`,
      ).test(e.message),
  );
});
