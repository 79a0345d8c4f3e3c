/**
 * `web_fetch` of a 20 KB HTML page from a local server: through the
 * transport (a real plugin subprocess, fetch and conversion) and the
 * HTML-to-markdown conversion alone. Run with
 * `deno bench -A plugins/web/web_bench.ts`.
 */
import { PluginHost } from "../../kernel/mod.ts";
import { parseManifest } from "../sdk/mod.ts";
import { ToolService } from "../../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import { htmlToMarkdown } from "./_fetch.ts";
import manifestJson from "./plugin.json" with { type: "json" };

const section =
  "<h2>Section</h2><p>Some <b>bold</b> text and <a href='/x'>a link</a>.</p><ul><li>one</li><li>two</li></ul>\n";
const html = `<html><body>${section.repeat(200)}</body></html>`;
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen: () => {} },
  () => new Response(html, { headers: { "content-type": "text/html" } }),
);
const net = [`127.0.0.1:${server.addr.port}`];
const host = new PluginHost({
  env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
  cwd: Deno.cwd(),
});
const plugin = await host.launch({
  // The envelope an allow_net grant of the local server gives the plugin.
  manifest: parseManifest(
    { ...manifestJson, capabilities: { ...manifestJson.capabilities, net } },
    "web/plugin.json",
  ),
  entrypoint: new URL("./main.ts", import.meta.url).pathname,
  grant: { net },
});
const tool = plugin.client(ToolService);
await tool.configure({ config: {} });
const call = {
  id: "bench",
  toolName: "web_fetch",
  arguments: { url: `http://${net[0]}/page` },
  callContext: { sessionId: "01S", turnId: "01T", workingDirectory: "/" },
};

async function fetchOnce(): Promise<void> {
  for await (const r of tool.invoke({ call })) {
    if (r.event?.event.case !== "result") throw new Error("web_fetch failed");
  }
}
await fetchOnce();

Deno.bench("web_fetch 20 KB HTML through the transport", {
  group: "web_fetch 20 KB",
  baseline: true,
  n: 300,
  warmup: 30,
}, async () => {
  await fetchOnce();
});

Deno.bench("HTML to markdown alone (20 KB)", {
  group: "web_fetch 20 KB",
  n: 300,
  warmup: 30,
}, () => {
  htmlToMarkdown(html);
});
