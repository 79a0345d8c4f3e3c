/**
 * An MCP server whose npm package is not in the Deno cache yet starts: the
 * bridge runs `deno run npm:tiny-mcp-server@1.0.0` with an empty Deno cache
 * and a registry that is reachable only through the proxy in the kernel's
 * environment (a local stand-in), and the server's Deno downloads the
 * package document and tarball before the tool list arrives. The proxy
 * setting reaches the server only by the way a user's TLS or proxy settings
 * do: kernel → mcp plugin → `inherit_env`'s default. (Before, the server's
 * emptied environment had none of them, and only a machine whose cache
 * already held the package could start it.) In the OS sandbox the kernel's
 * Deno cache is read-only, so a server that downloads gets a cache of its
 * own (`env.DENO_DIR`) under a write grant, and a net grant for the proxy.
 */
import assert from "node:assert/strict";
import { PluginHost } from "../kernel/mod.ts";
import { readManifest } from "../plugins/sdk/mod.ts";
import { DENO_RUNTIME_ENV_NAMES } from "../contract/runtime_env.ts";
import { ToolService } from "../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import { DENO_ENV, invoke, PATH, REPO } from "./_helpers.ts";
import { serveNpmRegistry } from "./_npm_registry.ts";
import { probeSandbox } from "../kernel/process/sandbox.ts";

/**
 * A whole MCP server in plain JavaScript, no dependencies: JSON-RPC over
 * stdio (one message per line) for initialize, tools/list, tools/call and
 * ping.
 */
const SERVER_JS = `#!/usr/bin/env node
"use strict";
const readline = require("node:readline");
const tools = [{
  name: "add",
  description: "Adds two numbers",
  inputSchema: {
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" } },
    required: ["a", "b"],
  },
  annotations: { readOnlyHint: true },
}];
const send = (m) =>
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\\n");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  if (!line.trim()) return;
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  switch (m.method) {
    case "initialize":
      return send({ id: m.id, result: {
        protocolVersion: m.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "tiny-mcp-server", version: "1.0.0" },
      } });
    case "tools/list":
      return send({ id: m.id, result: { tools } });
    case "tools/call": {
      const { a, b } = m.params.arguments;
      return send({ id: m.id, result: {
        content: [{ type: "text", text: String(a + b) }],
      } });
    }
    case "ping":
      return send({ id: m.id, result: {} });
    default:
      return send({ id: m.id, error: {
        code: -32601, message: "Method not found: " + m.method,
      } });
  }
});
`;

const REGISTRY = "http://registry.invalid/";

async function cachedFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) out.push(...await cachedFiles(path));
    else out.push(path);
  }
  return out;
}

Deno.test("mcp bridge: a server whose npm package is not cached yet is downloaded and starts", async () => {
  await using registry = serveNpmRegistry([{
    name: "tiny-mcp-server",
    version: "1.0.0",
    bin: { "tiny-mcp-server": "index.js" },
    files: { "index.js": SERVER_JS },
  }]);
  // An empty cache for the server, a registry host that does not resolve
  // (.invalid), and a working directory without a deno.json (so nothing of
  // the project's config or lock file applies).
  const cache = await Deno.makeTempDir({ prefix: "ph-mcp-uncached-cache-" });
  const cwd = await Deno.makeTempDir({ prefix: "ph-mcp-uncached-" });
  try {
    await using host = new PluginHost({
      env: { PATH, ...DENO_ENV, HTTP_PROXY: registry.url },
      cwd,
    });
    const plugin = await host.launch({
      manifest: await readManifest(`${REPO}/plugins/mcp/plugin.json`),
      entrypoint: `${REPO}/plugins/mcp/main.ts`,
      // The OS sandbox shows the bridge (and so the server) only what it
      // is granted: the proxy it downloads through, and the server's own
      // Deno cache, which it fills (the kernel's cache is read-only there).
      grant: {
        run: ["deno"],
        net: [new URL(registry.url).host],
        write: [cache],
      },
    });
    const tool = plugin.client(ToolService);
    await tool.configure({
      config: {
        command: "deno",
        args: ["run", "--no-prompt", "npm:tiny-mcp-server@1.0.0"],
        env: { DENO_DIR: cache, NPM_CONFIG_REGISTRY: REGISTRY },
        tool_prefix: "tiny_",
      },
    });
    const schema = await tool.getSchema({});
    assert.deepEqual(schema.tools.map((t) => t.name), ["tiny_add"]);
    assert.deepEqual(await invoke(plugin, "tiny_add", { a: 2, b: 3 }), {
      text: "5",
      content: [{ type: "text", text: "5" }],
      truncated: false,
    });
    assert.deepEqual(registry.requests, [
      `GET ${REGISTRY}tiny-mcp-server`,
      `GET ${REGISTRY}tiny-mcp-server/-/tiny-mcp-server-1.0.0.tgz`,
    ]);
    // … and the server's cache now holds the package.
    assert.ok(
      (await cachedFiles(cache)).some((f) =>
        f.endsWith("/tiny-mcp-server/1.0.0/index.js")
      ),
    );
  } finally {
    await Deno.remove(cache, { recursive: true });
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test({
  name:
    "mcp bridge in the OS sandbox: a server that would download into the kernel's read-only Deno cache fails Configure, saying how to give it a cache",
  ignore: !(await probeSandbox()).available,
  fn: async () => {
    await using registry = serveNpmRegistry([{
      name: "tiny-mcp-server",
      version: "1.0.0",
      bin: { "tiny-mcp-server": "index.js" },
      files: { "index.js": SERVER_JS },
    }]);
    const cwd = await Deno.makeTempDir({ prefix: "ph-mcp-readonly-" });
    try {
      await using host = new PluginHost({
        env: { PATH, ...DENO_ENV, HTTP_PROXY: registry.url },
        cwd,
      });
      const plugin = await host.launch({
        manifest: await readManifest(`${REPO}/plugins/mcp/plugin.json`),
        entrypoint: `${REPO}/plugins/mcp/main.ts`,
        // The network to the proxy, but no cache of its own: DENO_DIR is
        // the kernel's, which the sandbox shows read-only.
        grant: { run: ["deno"], net: [new URL(registry.url).host] },
      });
      await assert.rejects(
        plugin.client(ToolService).configure({
          config: {
            command: "deno",
            args: ["run", "--no-prompt", "npm:tiny-mcp-server@1.0.0"],
            env: { NPM_CONFIG_REGISTRY: REGISTRY },
            connect_timeout_seconds: 20,
          },
        }),
        (e: Error) =>
          /Read-only file system/.test(e.message) &&
          /module cache is read-only: cache the server's package on the host first/
            .test(e.message),
      );
    } finally {
      await Deno.remove(cwd, { recursive: true });
    }
  },
});

Deno.test("mcp manifest: inherit_env's default is Deno's runtime settings, which the kernel gives every Deno plugin", async () => {
  const manifest = await readManifest(`${REPO}/plugins/mcp/plugin.json`);
  const inherit = manifest.configSchema?.find((a) => a.name === "inherit_env");
  assert.deepEqual(JSON.parse(inherit?.defaultJson ?? "null"), [
    ...DENO_RUNTIME_ENV_NAMES,
  ]);
  // Nothing to grant: the envelope declares no variables.
  assert.deepEqual(manifest.capabilities.env, []);
});
