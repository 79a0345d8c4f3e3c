/**
 * The `web` tool provider through a real plugin subprocess, against local
 * HTTP servers on 127.0.0.1 started here: HTML to markdown, text passed
 * through, binary refused, redirects followed (and each hop's host checked
 * by Deno's own `--allow-net`), the byte and character caps, the deadline,
 * HTTP errors, and the §6.2 MUST list as it applies to this provider.
 *
 * The plugin is launched with an envelope naming the test server's host,
 * which is what the operator's `allow_net` grant gives it (see
 * plugins/web/README.md, "Permissions").
 */
import assert from "node:assert/strict";
import type { JsonObject } from "@bufbuild/protobuf";
import { type Plugin, PluginHost } from "../kernel/mod.ts";
import { parseManifest, readManifest } from "../plugins/sdk/mod.ts";
import { Code, GrpcStatusError } from "../proto/grpc_status.ts";
import { Category } from "../proto/gen/pluggableharness/common/v1/types_pb.ts";
import {
  type Schema,
  SchemaType,
} from "../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import { ToolErrorCategory } from "../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import type { ToolEvent } from "../proto/gen/pluggableharness/tool/v1/events_pb.ts";
import { ToolService } from "../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import {
  RiskClass,
  ToolKind,
} from "../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { PATH, REPO } from "./_helpers.ts";

const ENTRY = `${REPO}/plugins/web/main.ts`;

const HTML = `<!doctype html><html><head><title>Docs</title>
<style>body { color: red }</style><script>alert("x")</script></head>
<body><h1>Getting started</h1><p>Install with <code>deno add</code>, then read
<a href="/next">the next page</a>.</p><ul><li>one</li><li>two</li></ul></body></html>`;

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A local server; counts requests and notes cancelled streams. */
function startServer(otherOrigin: () => string) {
  const stats = { requests: 0, hugeCancelled: false, hugeSent: 0 };
  const slow: (() => void)[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req) => {
      stats.requests++;
      const path = new URL(req.url).pathname;
      switch (path) {
        case "/page.html":
          return new Response(HTML, {
            headers: { "content-type": "text/html; charset=utf-8" },
          });
        case "/notes.txt":
          return new Response("plain *text* <b>kept</b>\n", {
            headers: { "content-type": "text/plain" },
          });
        case "/data.json":
          return new Response('{"a":1}', {
            headers: { "content-type": "application/json" },
          });
        case "/latin1":
          return new Response(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), {
            headers: { "content-type": "text/plain; charset=iso-8859-1" },
          });
        case "/untyped":
          return new Response(new TextEncoder().encode("no type, but text"));
        case "/untyped-binary":
          return new Response(new Uint8Array([0x00, 0x01, 0x02, 0x00]));
        case "/image.png":
          return new Response(PNG, {
            headers: { "content-type": "image/png" },
          });
        case "/method":
          return new Response(req.method, {
            headers: { "content-type": "text/plain" },
          });
        case "/redirect":
          return Response.redirect(new URL("/hop", req.url), 302);
        case "/hop":
          return new Response(null, {
            status: 301,
            headers: { location: "/page.html" },
          });
        case "/loop":
          return new Response(null, {
            status: 307,
            headers: { location: "/loop" },
          });
        case "/elsewhere":
          return new Response(null, {
            status: 302,
            headers: { location: `${otherOrigin()}/page.html` },
          });
        case "/long.txt":
          return new Response("x".repeat(5_000), {
            headers: { "content-type": "text/plain" },
          });
        case "/huge": {
          // An endless body: only the reader's cap ends it.
          const chunk = new TextEncoder().encode("y".repeat(16_384));
          const body = new ReadableStream<Uint8Array>({
            pull(c) {
              stats.hugeSent += chunk.length;
              c.enqueue(chunk);
            },
            cancel() {
              stats.hugeCancelled = true;
            },
          });
          return new Response(body, {
            headers: { "content-type": "text/plain" },
          });
        }
        case "/slow":
          // Answers only when the test releases it (after the deadline).
          return new Promise<Response>((resolve) => {
            slow.push(() => resolve(new Response("late")));
          });
        case "/gone":
          return new Response("no", { status: 404 });
        case "/broken":
          return new Response("oops", { status: 503 });
        default:
          return new Response("not here", { status: 404 });
      }
    },
  );
  return {
    server,
    stats,
    port: server.addr.port,
    close: async () => {
      for (const release of slow) release();
      await server.shutdown();
    },
  };
}

/** Every event of every Invoke, for the MUST checks. */
const streams: ToolEvent[][] = [];

async function launchWeb(
  host: PluginHost,
  grantedHosts: string[],
  config: JsonObject,
): Promise<Plugin> {
  const base = await readManifest(`${REPO}/plugins/web/plugin.json`);
  // The envelope the operator's allow_net grant produces for this plugin.
  const manifest = parseManifest(
    {
      name: base.name,
      version: base.version,
      category: base.category,
      protocol_version: 1,
      runtime: "deno",
      entrypoint: "main.ts",
      capabilities: { net: grantedHosts },
      config_schema: (await import("../plugins/web/plugin.json", {
        with: { type: "json" },
      })).default.config_schema,
    },
    "web/plugin.json",
  );
  const plugin = await host.launch({
    manifest,
    entrypoint: ENTRY,
    grant: { net: grantedHosts },
  });
  await plugin.client(ToolService).configure({ config });
  return plugin;
}

async function invoke(plugin: Plugin, args: JsonObject): Promise<ToolEvent[]> {
  const out: ToolEvent[] = [];
  for await (
    const r of plugin.client(ToolService).invoke({
      call: {
        id: `c${streams.length}`,
        toolName: "web_fetch",
        arguments: args,
        callContext: { sessionId: "s", turnId: "t", workingDirectory: "/" },
      },
    })
  ) {
    assert.ok(r.event);
    out.push(r.event);
  }
  streams.push(out);
  return out;
}

async function ok(plugin: Plugin, args: JsonObject): Promise<JsonObject> {
  const evs = await invoke(plugin, args);
  const last = evs.at(-1)?.event;
  assert.equal(
    last?.case,
    "result",
    last?.case === "error" ? last.value.message : "",
  );
  return last.value.payload ?? {};
}

async function fails(
  plugin: Plugin,
  args: JsonObject,
  category: ToolErrorCategory,
  pattern: RegExp,
): Promise<{ message: string; retryable: boolean; details?: JsonObject }> {
  const evs = await invoke(plugin, args);
  const last = evs.at(-1)?.event;
  assert.equal(last?.case, "error", `fails: ${JSON.stringify(last?.value)}`);
  assert.equal(
    ToolErrorCategory[last.value.category],
    ToolErrorCategory[category],
    last.value.message,
  );
  assert.match(last.value.message, pattern);
  return last.value;
}

function walkSchema(s: Schema | undefined, where: string): void {
  assert.ok(s, `${where}: present`);
  assert.ok(s.type >= SchemaType.OBJECT && s.type <= SchemaType.ARRAY, where);
  for (const r of s.required) assert.ok(r in s.properties, `${where}.${r}`);
  if (s.type !== SchemaType.STRING) assert.equal(s.enumValues.length, 0);
  for (const [k, v] of Object.entries(s.properties)) {
    walkSchema(v, `${where}.${k}`);
  }
}

Deno.test("web_fetch through a real plugin subprocess", async (t) => {
  let otherPort = 0;
  const main = startServer(() => `http://127.0.0.1:${otherPort}`);
  const other = startServer(() => "");
  otherPort = other.port;
  const origin = `http://127.0.0.1:${main.port}`;
  try {
    await using host = new PluginHost({ env: { PATH }, cwd: REPO });
    const plugin = await launchWeb(host, [`127.0.0.1:${main.port}`], {
      max_bytes: 65_536,
      max_chars: 2_000,
      timeout_seconds: 1,
      max_redirects: 3,
    });
    const tool = plugin.client(ToolService);

    await t.step("MUST 3, 4, 7-11: a static schema in the subset", async () => {
      const before = main.stats.requests;
      const schema = await tool.getSchema({});
      assert.equal(main.stats.requests, before, "GetSchema makes no request");
      assert.equal(schema.tools.length, 1);
      const s = schema.tools[0]!;
      assert.equal(s.name, "web_fetch");
      assert.equal(s.kind, ToolKind.DATA_SOURCE);
      assert.equal(s.risk, RiskClass.READ_ONLY);
      assert.equal(s.idempotent, true);
      assert.equal(s.streaming, false);
      assert.equal(s.concurrency?.safe, true);
      assert.ok(s.description.length > 0);
      assert.equal(s.defaultTimeout?.seconds, 1n);
      walkSchema(s.inputSchema, "input");
      walkSchema(s.outputSchema, "output");
      assert.deepEqual(s.inputSchema?.required, ["url"]);
      assert.deepEqual(
        schema.configSchema?.attributes.map((a) => a.name),
        [
          "max_bytes",
          "max_chars",
          "timeout_seconds",
          "max_redirects",
          "user_agent",
        ],
      );
      const d = await tool.describe({});
      assert.equal(d.producer?.name, "web");
      assert.equal(d.producer?.category, Category.TOOL);
    });

    await t.step(
      "HTML becomes markdown; scripts and styles are dropped",
      async () => {
        const r = await ok(plugin, { url: `${origin}/page.html` });
        assert.equal(r.format, "markdown");
        assert.equal(r.status, 200);
        assert.equal(r.content_type, "text/html");
        assert.equal(r.truncated, false);
        assert.equal(r.redirects, 0);
        const md = r.content as string;
        assert.match(md, /^# Getting started$/m);
        assert.match(md, /`deno add`/);
        assert.match(md, /\[the next page\]\(\/next\)/);
        assert.match(md, /^\* one$/m);
        assert.doesNotMatch(md, /alert|color: red|<h1>/);
      },
    );

    await t.step("text types pass through; a charset is honoured", async () => {
      const txt = await ok(plugin, { url: `${origin}/notes.txt` });
      assert.equal(txt.format, "text");
      assert.equal(txt.content, "plain *text* <b>kept</b>\n");
      const json = await ok(plugin, { url: `${origin}/data.json` });
      assert.equal(json.content, '{"a":1}');
      const latin = await ok(plugin, { url: `${origin}/latin1` });
      assert.equal(latin.content, "café");
      const untyped = await ok(plugin, { url: `${origin}/untyped` });
      assert.equal(untyped.content, "no type, but text");
      assert.equal(untyped.content_type, "");
    });

    await t.step("GET only", async () => {
      const r = await ok(plugin, { url: `${origin}/method` });
      assert.equal(r.content, "GET");
    });

    await t.step("binary content is refused", async () => {
      await fails(
        plugin,
        { url: `${origin}/image.png` },
        ToolErrorCategory.EXECUTION_FAILED,
        /image\/png, which is binary: web_fetch returns text and HTML only/,
      );
      await fails(
        plugin,
        { url: `${origin}/untyped-binary` },
        ToolErrorCategory.EXECUTION_FAILED,
        /no content type and its content is binary/,
      );
    });

    await t.step("redirects are followed, up to max_redirects", async () => {
      const r = await ok(plugin, { url: `${origin}/redirect` });
      assert.equal(r.redirects, 2);
      assert.equal(r.url, `${origin}/redirect`);
      assert.equal(r.final_url, `${origin}/page.html`);
      assert.match(r.content as string, /Getting started/);
      const f = await fails(
        plugin,
        { url: `${origin}/loop` },
        ToolErrorCategory.EXECUTION_FAILED,
        /Too many redirects: .*\/loop redirected more than 3 times/,
      );
      assert.equal(f.retryable, false);
    });

    await t.step(
      "a host that is not granted: Deno refuses, PERMISSION_DENIED names it",
      async () => {
        const before = other.stats.requests;
        const first = await fails(
          plugin,
          { url: `http://127.0.0.1:${otherPort}/page.html` },
          ToolErrorCategory.PERMISSION_DENIED,
          new RegExp(
            `Network access to host "127\\.0\\.0\\.1:${otherPort}" is not granted: .*allow_net`,
          ),
        );
        // Deno's own refusal is the cause.
        assert.match(String(first.details?.reason), /Requires net access/);
        const hop = await fails(
          plugin,
          { url: `${origin}/elsewhere` },
          ToolErrorCategory.PERMISSION_DENIED,
          new RegExp(
            `host "127\\.0\\.0\\.1:${otherPort}" is not granted \\(redirect 1, to http://127\\.0\\.0\\.1:${otherPort}/page\\.html\\)`,
          ),
        );
        assert.equal(hop.retryable, false);
        assert.equal(other.stats.requests, before, "nothing reached the host");
      },
    );

    await t.step("the character cap cuts with a clear marker", async () => {
      const r = await ok(plugin, { url: `${origin}/long.txt` });
      assert.equal(r.truncated, true);
      const content = r.content as string;
      assert.ok(content.startsWith("x".repeat(2_000) + "\n\n[web_fetch:"));
      assert.match(content, /output cut at 2000 of 5000 characters/);
      const smaller = await ok(plugin, {
        url: `${origin}/long.txt`,
        max_chars: 10,
      });
      assert.match(
        smaller.content as string,
        /^x{10}\n\n\[web_fetch: content truncated — output cut at 10 of 5000/,
      );
      const capped = await ok(plugin, {
        url: `${origin}/long.txt`,
        max_chars: 1e9,
      });
      assert.match(capped.content as string, /output cut at 2000 of 5000/);
    });

    await t.step("the byte cap stops an endless download", async () => {
      const r = await ok(plugin, { url: `${origin}/huge` });
      assert.equal(r.bytes, 65_536);
      assert.equal(r.truncated, true);
      assert.match(
        r.content as string,
        /download stopped at the 65536-byte limit/,
      );
      // The stream was cancelled, not drained.
      for (let i = 0; i < 50 && !main.stats.hugeCancelled; i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.ok(main.stats.hugeCancelled, "the server saw the cancellation");
      // What the sockets buffered before the cancellation reached the
      // server, no more: a bounded amount.
      assert.ok(
        main.stats.hugeSent < 32 * 2 ** 20,
        `sent ${main.stats.hugeSent}`,
      );
    });

    await t.step("the deadline: TIMEOUT, retryable", async () => {
      const started = Date.now();
      const f = await fails(
        plugin,
        { url: `${origin}/slow` },
        ToolErrorCategory.TIMEOUT,
        /took longer than 1000 ms/,
      );
      assert.equal(f.retryable, true);
      assert.ok(Date.now() - started < 4_000);
    });

    await t.step("HTTP errors are classified", async () => {
      const gone = await fails(
        plugin,
        { url: `${origin}/gone` },
        ToolErrorCategory.NOT_FOUND,
        /answered 404/,
      );
      assert.equal(gone.retryable, false);
      const broken = await fails(
        plugin,
        { url: `${origin}/broken` },
        ToolErrorCategory.EXECUTION_FAILED,
        /answered 503/,
      );
      assert.equal(broken.retryable, true);
    });

    await t.step(
      "bad arguments: INVALID_ARGUMENTS naming the problem",
      async () => {
        await fails(
          plugin,
          {},
          ToolErrorCategory.INVALID_ARGUMENTS,
          /"url" must be a non-empty string/,
        );
        await fails(
          plugin,
          { url: "docs/page" },
          ToolErrorCategory.INVALID_ARGUMENTS,
          /not an absolute URL/,
        );
        await fails(
          plugin,
          { url: "file:///etc/passwd" },
          ToolErrorCategory.INVALID_ARGUMENTS,
          /uses file: — web_fetch fetches only http: and https:/,
        );
        await fails(
          plugin,
          { url: `http://u:p@127.0.0.1:${main.port}/` },
          ToolErrorCategory.INVALID_ARGUMENTS,
          /must not carry credentials/,
        );
        await fails(
          plugin,
          { url: `${origin}/page.html`, max_chars: -1 },
          ToolErrorCategory.INVALID_ARGUMENTS,
          /"max_chars" must be a positive number/,
        );
        await fails(
          plugin,
          { url: `${origin}/page.html`, method: "POST" },
          ToolErrorCategory.INVALID_ARGUMENTS,
          /Unknown argument "method"/,
        );
      },
    );

    await t.step(
      "MUST 17: Configure rejects bad attributes by name",
      async () => {
        for (
          const [config, pattern] of [
            [
              { max_bytes: 0 },
              /"max_bytes" must be a number of at least 1, got 0/,
            ],
            [{ timeout_seconds: "soon" }, /"timeout_seconds" must be a number/],
            [
              { proxy: "x" },
              /config attribute "proxy" is not supported by web/,
            ],
            [{ user_agent: "" }, /"user_agent" must be a non-empty string/],
          ] as const
        ) {
          await assert.rejects(
            tool.configure({ config: config as JsonObject }),
            (e) =>
              e instanceof GrpcStatusError &&
              e.code === Code.INVALID_ARGUMENT && pattern.test(e.message),
          );
        }
      },
    );

    await t.step(
      "MUST 19: no Preview (the kernel falls back to the arguments)",
      async () => {
        await assert.rejects(
          tool.preview({
            call: { toolName: "web_fetch", arguments: { url: origin } },
          }),
          (e) => e instanceof GrpcStatusError && e.code === Code.UNIMPLEMENTED,
        );
      },
    );

    await t.step(
      "MUST 1, 2, 5, 12, 13: one terminal event per stream, no exit_status",
      () => {
        assert.ok(streams.length > 20);
        for (const s of streams) {
          assert.equal(s.length, 1, "one-shot: exactly the terminal event");
          const e = s[0]!.event;
          assert.ok(e.case === "result" || e.case === "error");
          if (e.case === "error") {
            assert.notEqual(e.value.category, ToolErrorCategory.UNSPECIFIED);
            assert.notEqual(e.value.category, ToolErrorCategory.UNKNOWN);
            assert.notEqual(
              e.value.category,
              ToolErrorCategory.PROCESS_CRASHED,
              "MUST 14",
            );
            assert.ok(e.value.message.length > 0);
          }
        }
      },
    );
  } finally {
    await main.close();
    await other.close();
  }
});

Deno.test("web_fetch with the shipped envelope and no grant: Deno refuses every host", async () => {
  const { close, port, stats } = startServer(() => "");
  try {
    await using host = new PluginHost({ env: { PATH }, cwd: REPO });
    const plugin = await host.launch({
      manifest: await readManifest(`${REPO}/plugins/web/plugin.json`),
      entrypoint: ENTRY,
    });
    await plugin.client(ToolService).configure({ config: {} });
    const f = await fails(
      plugin,
      { url: `http://127.0.0.1:${port}/page.html` },
      ToolErrorCategory.PERMISSION_DENIED,
      new RegExp(`host "127\\.0\\.0\\.1:${port}" is not granted`),
    );
    assert.equal(f.retryable, false);
    assert.equal(stats.requests, 0);
  } finally {
    await close();
  }
});
