/**
 * The agent loop end to end with the `web` tool: the scripted model calls
 * `web_fetch` on a page served here on 127.0.0.1, the fetch (a data
 * source) runs without approval, the model sees the page as markdown, and
 * a fetch of a host that is not granted comes back to the model as a
 * PERMISSION_DENIED tool error naming the host.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  type ApprovalRequest,
  modelEndpointOf,
  PluginHost,
  runSession,
  type SessionEvent,
  SessionRegistry,
  type SessionSpec,
  SqliteSessionStore,
  toolEndpointOf,
} from "../kernel/mod.ts";
import { parseManifest, readManifest } from "../plugins/sdk/mod.ts";
import { ModelService } from "../proto/gen/pluggableharness/model/v1/service_pb.ts";
import { ToolService } from "../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import webManifest from "../plugins/web/plugin.json" with { type: "json" };
import { PATH, REPO } from "./_helpers.ts";

Deno.test("agent loop: web_fetch of a local page, and of a host that is not granted", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () =>
      new Response(
        "<html><body><h1>Release notes</h1><p>Version <b>2.0</b> ships today.</p></body></html>",
        { headers: { "content-type": "text/html" } },
      ),
  );
  const other = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const otherPort = (other.addr as Deno.NetAddr).port;
  other.close();
  const origin = `http://127.0.0.1:${server.addr.port}`;
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-web-e2e-" }),
  );
  try {
    await Deno.writeTextFile(
      `${dir}/script.json`,
      JSON.stringify({
        turns: [
          {
            text: "Let me read the release notes.",
            tool_calls: [{
              id: "toolu_fetch",
              name: "web_fetch",
              arguments: { url: `${origin}/notes` },
            }],
          },
          {
            expect: "# Release notes",
            tool_calls: [{
              id: "toolu_other",
              name: "web_fetch",
              arguments: { url: `http://127.0.0.1:${otherPort}/` },
            }],
          },
          {
            expect: `host "127.0.0.1:${otherPort}" is not granted`,
            text: "Version 2.0 ships today.",
          },
        ],
      }),
    );
    await using host = new PluginHost({ env: { PATH }, cwd: dir });
    const scripted = await host.launch({
      manifest: await readManifest(`${REPO}/plugins/scripted/plugin.json`),
      entrypoint: `${REPO}/plugins/scripted/main.ts`,
      grant: { read: [dir] },
    });
    await scripted.client(ModelService).configure({
      config: { script: `${dir}/script.json` },
    });
    // The envelope the operator's allow_net grant gives the plugin.
    const net = [`127.0.0.1:${server.addr.port}`];
    const web = await host.launch({
      manifest: parseManifest(
        { ...webManifest, capabilities: { ...webManifest.capabilities, net } },
        "web/plugin.json",
      ),
      entrypoint: `${REPO}/plugins/web/main.ts`,
      grant: { net },
    });
    await web.client(ToolService).configure({ config: {} });
    const webTool = toolEndpointOf(web);
    await using store = new SqliteSessionStore({ dir: `${dir}/.sessions` });
    const spec: SessionSpec = {
      profile: "default",
      models: [{ provider: "scripted", id: "scripted" }],
      tools: new Map([["web", await webTool.schemas()]]),
      policies: [],
      workingDirectory: dir,
      onAsk: "callback",
      askTimeoutMs: 10_000,
    };
    const asked: ApprovalRequest[] = [];
    const run = runSession(spec, {
      store,
      registry: new SessionRegistry(),
      models: new Map([["scripted", modelEndpointOf(scripted, "scripted")]]),
      tools: new Map([["web", webTool]]),
    }, {
      prompt: "What is in the release notes?",
      approve: (request) => {
        asked.push(request);
        return Promise.resolve({ decision: "deny", scope: "once" });
      },
    });
    const events: SessionEvent[] = [];
    for await (const e of run) events.push(e);
    const result = await run.result;
    assert.equal(result.status, "completed", JSON.stringify(result.error));
    assert.equal(result.finalText, "Version 2.0 ships today.");
    assert.equal(asked.length, 0, "a data source runs without approval");
    const results = events.filter((e) => e.type === "tool_result");
    assert.equal(results.length, 2);
    const [fetched, refused] = results;
    assert.ok(fetched?.type === "tool_result" && !fetched.isError);
    assert.match(JSON.stringify(fetched.result), /# Release notes/);
    assert.match(JSON.stringify(fetched.result), /Version \*\*2\.0\*\* ships/);
    assert.ok(refused?.type === "tool_result" && refused.isError);
    assert.match(
      JSON.stringify(refused),
      new RegExp(
        `Network access to host .*127\\.0\\.0\\.1:${otherPort}.* is not granted`,
      ),
    );
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
