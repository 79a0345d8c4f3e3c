/**
 * The `mcp` bridge when things go wrong, against a small stdio MCP server
 * of our own (plugins/mcp/testdata/flaky_server.ts): a server that
 * crashes mid-call, one call that hangs, a server that stops answering
 * altogether, error results, `tools/list_changed`, content mapping,
 * arguments the schema subset carries as JSON text, the server's
 * environment, servers that cannot start, bad provider blocks, and the
 * §6.2 MUST list as it applies to the bridge.
 */
import assert from "node:assert/strict";
import type { JsonObject } from "@bufbuild/protobuf";
import { type Plugin, PluginHost } from "../kernel/mod.ts";
import { readManifest } from "../plugins/sdk/mod.ts";
import { Code, GrpcStatusError } from "../proto/grpc_status.ts";
import { SchemaType } from "../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import { ToolErrorCategory } from "../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import type { ToolEvent } from "../proto/gen/pluggableharness/tool/v1/events_pb.ts";
import { ToolService } from "../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import {
  RiskClass,
  ToolKind,
} from "../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { DENO_ENV, PATH, REPO } from "./_helpers.ts";

const ENTRY = `${REPO}/plugins/mcp/main.ts`;
const FLAKY = `${REPO}/plugins/mcp/testdata/flaky_server.ts`;
const GRANT = { run: ["deno"] };

function flakyConfig(extra: JsonObject = {}, flags: string[] = []): JsonObject {
  return {
    command: "deno",
    args: [
      "run",
      "--no-prompt",
      "--cached-only",
      "--config",
      `${REPO}/deno.json`,
      "--allow-env",
      FLAKY,
      ...flags,
    ],
    env: { FLAKY_VAR: "from-the-block" },
    call_timeout_seconds: 1,
    ...extra,
  };
}

/** Every event of every Invoke, for the MUST checks. */
const streams: ToolEvent[][] = [];

async function launch(host: PluginHost): Promise<Plugin> {
  return await host.launch({
    manifest: await readManifest(`${REPO}/plugins/mcp/plugin.json`),
    entrypoint: ENTRY,
    grant: GRANT,
  });
}

async function call(
  plugin: Plugin,
  toolName: string,
  args: JsonObject = {},
  signal?: AbortSignal,
): Promise<ToolEvent["event"]> {
  const out: ToolEvent[] = [];
  for await (
    const r of plugin.client(ToolService).invoke({
      call: {
        id: `c${streams.length}`,
        toolName,
        arguments: args,
        callContext: { sessionId: "s", turnId: "t", workingDirectory: "/" },
      },
    }, signal ? { signal } : {})
  ) {
    assert.ok(r.event);
    out.push(r.event);
  }
  streams.push(out);
  return out.at(-1)!.event;
}

async function text(plugin: Plugin, toolName: string, args: JsonObject = {}) {
  const e = await call(plugin, toolName, args);
  assert.equal(e.case, "result", e.case === "error" ? e.value.message : "");
  return String(e.value.payload?.text);
}

async function error(
  plugin: Plugin,
  toolName: string,
  category: ToolErrorCategory,
  pattern: RegExp,
) {
  const e = await call(plugin, toolName);
  assert.equal(e.case, "error", `${toolName} fails`);
  assert.equal(
    ToolErrorCategory[e.value.category],
    ToolErrorCategory[category],
    e.value.message,
  );
  assert.match(e.value.message, pattern);
  return e.value;
}

function statusError(code: number, pattern: RegExp) {
  return (e: unknown) =>
    e instanceof GrpcStatusError && e.code === code && pattern.test(e.message);
}

Deno.test("mcp bridge: crashes, hangs, list_changed and content, through a real plugin", async (t) => {
  await using host = new PluginHost({ env: { PATH, ...DENO_ENV }, cwd: REPO });
  const plugin = await launch(host);
  const tool = plugin.client(ToolService);

  await t.step(
    "MUST 3, 17: before Configure, no tools and a clear error",
    async () => {
      const schema = await tool.getSchema({});
      assert.equal(schema.tools.length, 0);
      assert.ok((schema.configSchema?.attributes.length ?? 0) > 5);
      const e = await call(plugin, "echo", { text: "x" });
      assert.equal(e.case, "error");
      assert.match(e.value.message, /not configured/);
    },
  );

  await tool.configure({ config: flakyConfig() });

  await t.step(
    "MUST 4, 7-11: GetSchema answers from the list made at Configure",
    async () => {
      const { tools } = await tool.getSchema({});
      const names = tools.map((x) => x.name);
      assert.ok(
        names.includes("echo") && names.includes("crash"),
        names.join(),
      );
      const crash = tools.find((x) => x.name === "crash")!;
      // No annotations: MCP's defaults (not read-only, destructive).
      assert.equal(crash.kind, ToolKind.RESOURCE);
      assert.equal(crash.risk, RiskClass.HIGH);
      assert.equal(crash.idempotent, false);
      assert.equal(crash.defaultTimeout?.seconds, 1n);
      const echoJson = tools.find((x) => x.name === "echo_json")!;
      const value = echoJson.inputSchema?.properties["value"];
      assert.equal(value?.type, SchemaType.STRING);
      assert.match(value?.description ?? "", /a JSON-encoded value matching/);
    },
  );

  await t.step(
    "a JSON-encoded argument is decoded before forwarding",
    async () => {
      assert.equal(
        await text(plugin, "echo_json", { value: "[1, 2]" }),
        "[1,2]",
      );
      assert.equal(await text(plugin, "echo_json", { value: 5 }), "5");
    },
  );

  await t.step(
    "the server's environment: empty plus inherit_env (Deno's runtime settings that are set) and env",
    async () => {
      const names: string[] = JSON.parse(await text(plugin, "environment"));
      const own = ["DENO_NODE_SHIM_ACTIVE", "PATH", "npm_config_user_agent"];
      assert.deepEqual(
        names.filter((n) => !own.includes(n)).sort(),
        [
          ...Object.keys(DENO_ENV),
          "FLAKY_VAR",
        ].sort(),
      );
    },
  );

  await t.step("content: image and resource blocks", async () => {
    const e = await call(plugin, "image");
    assert.equal(e.case, "result");
    const content = e.value.payload?.content as JsonObject[];
    assert.equal(content[0]!.type, "image");
    assert.equal(content[0]!.mime_type, "image/png");
    assert.match(String(content[0]!.data), /^iVBOR/);
    assert.deepEqual(content[1], {
      type: "resource",
      uri: "mem://note",
      mime_type: "text/plain",
      text: "a note",
    });
  });

  await t.step("isError: EXECUTION_FAILED with the server's text", async () => {
    const v = await error(
      plugin,
      "fail",
      ToolErrorCategory.EXECUTION_FAILED,
      /^the widget is broken$/,
    );
    assert.equal(v.retryable, false);
  });

  await t.step(
    "a crash mid-call: a clear error, then a restart on the next call",
    async () => {
      const before = await text(plugin, "pid");
      const v = await error(
        plugin,
        "crash",
        ToolErrorCategory.EXECUTION_FAILED,
        /exited with code 3 during crash; it is started again on the next call\. Its stderr ends with: flaky: crashing now/,
      );
      assert.equal(v.retryable, true);
      assert.equal(v.details?.exit_code, 3);
      const after = await text(plugin, "pid");
      assert.notEqual(after, before, "a new server process");
      assert.equal(await text(plugin, "echo", { text: "back" }), "back");
    },
  );

  await t.step("a call that hangs: TIMEOUT; the server is kept", async () => {
    const before = await text(plugin, "pid");
    const started = Date.now();
    const v = await error(
      plugin,
      "hang",
      ToolErrorCategory.TIMEOUT,
      /^hang did not answer within 1000 ms$/,
    );
    assert.equal(v.retryable, true);
    assert.ok(Date.now() - started < 5_000);
    assert.equal(await text(plugin, "pid"), before, "the same server");
  });

  await t.step(
    "a server that stops answering: TIMEOUT, stopped, restarted",
    async () => {
      const before = await text(plugin, "pid");
      const started = Date.now();
      await error(
        plugin,
        "freeze",
        ToolErrorCategory.TIMEOUT,
        /did not answer a ping either: it was stopped and is started again on the next call/,
      );
      assert.ok(Date.now() - started < 8_000);
      const after = await text(plugin, "pid");
      assert.notEqual(after, before);
    },
  );

  await t.step(
    "tools/list_changed: GetSchema returns the new list",
    async () => {
      const before = (await tool.getSchema({})).tools.map((x) => x.name);
      assert.ok(!before.includes("late"));
      assert.equal(await text(plugin, "add_tool"), "added");
      let names: string[] = [];
      for (let i = 0; i < 100; i++) {
        names = (await tool.getSchema({})).tools.map((x) => x.name);
        if (names.includes("late")) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.ok(names.includes("late"), names.join());
      assert.equal(await text(plugin, "late"), "late answer");
    },
  );

  await t.step("cancellation ends the call at once", async () => {
    const ac = new AbortController();
    const started = Date.now();
    setTimeout(() => ac.abort(), 100);
    await assert.rejects(call(plugin, "hang", {}, ac.signal));
    assert.ok(Date.now() - started < 900, "before the 1 s call timeout");
    assert.equal(
      await text(plugin, "echo", { text: "still here" }),
      "still here",
    );
  });

  await t.step("MUST 19: no Preview", async () => {
    await assert.rejects(
      tool.preview({ call: { toolName: "echo", arguments: {} } }),
      statusError(Code.UNIMPLEMENTED, /no Preview/),
    );
  });

  await t.step(
    "MUST 1, 2, 5, 12, 13, 14: one classified terminal event, never PROCESS_CRASHED",
    () => {
      assert.ok(streams.length > 10);
      for (const s of streams) {
        assert.equal(s.length, 1);
        const e = s[0]!.event;
        assert.ok(e.case === "result" || e.case === "error");
        if (e.case === "error") {
          assert.notEqual(e.value.category, ToolErrorCategory.UNSPECIFIED);
          assert.notEqual(e.value.category, ToolErrorCategory.UNKNOWN);
          assert.notEqual(e.value.category, ToolErrorCategory.PROCESS_CRASHED);
          assert.ok(e.value.message.length > 0);
        }
      }
    },
  );
});

Deno.test("mcp bridge: servers that cannot start and bad provider blocks fail Configure clearly", async () => {
  await using host = new PluginHost({ env: { PATH, ...DENO_ENV }, cwd: REPO });
  const plugin = await launch(host);
  const configure = (config: JsonObject) =>
    plugin.client(ToolService).configure({ config });

  await assert.rejects(
    configure(flakyConfig({}, ["--exit-at-start"])),
    statusError(
      Code.UNAVAILABLE,
      /exited with code 7 before it was ready\. Its stderr ends with: flaky: refusing to start/,
    ),
  );
  // Deno's --allow-run refuses a program the operator did not grant.
  await assert.rejects(
    configure({ command: "sh", args: ["-c", "exit 0"] }),
    statusError(
      Code.PERMISSION_DENIED,
      /running "sh" is not granted: the operator grants it with allow_run/,
    ),
  );
  await assert.rejects(
    configure({ ...flakyConfig(), cwd: "/no/such/dir" }),
    statusError(Code.UNAVAILABLE, /Cannot start .*the cwd "\/no\/such\/dir"/),
  );
  for (
    const [config, pattern] of [
      [{}, /set exactly one of "command" .* and "url"/],
      [{ command: "deno", url: "http://127.0.0.1:1/mcp" }, /exactly one/],
      [{ command: "deno", proxy: 1 }, /"proxy" is not supported by mcp/],
      [{ command: "deno", args: "run" }, /"args" must be a list of strings/],
      [
        { command: "deno", env: { "A-B": "x" } },
        /key "A-B", which is not a variable name/,
      ],
      [
        { command: "deno", inherit_env: ["HOME"] },
        /"inherit_env" names "HOME", which this plugin may not read/,
      ],
      [
        { command: "deno", headers: { a: "b" } },
        /"headers" and "bearer_token" apply to a url server/,
      ],
      [{ url: "ftp://x/" }, /must be an http: or https: URL/],
      [
        { url: "http://127.0.0.1:1/mcp", args: ["x"] },
        /"args" applies to a command server/,
      ],
      [
        { command: "deno", tool_prefix: "a.b" },
        /"tool_prefix" "a\.b" may hold only/,
      ],
      [
        { command: "deno", call_timeout_seconds: 0 },
        /"call_timeout_seconds" must be a positive number/,
      ],
    ] as const
  ) {
    await assert.rejects(
      configure(config as JsonObject),
      statusError(Code.INVALID_ARGUMENT, pattern),
      JSON.stringify(config),
    );
  }

  // A good block after the bad ones: prefix, allow-list, and annotations
  // not trusted (every tool is resource / high).
  await configure(
    flakyConfig({
      trust_annotations: false,
      tool_prefix: "f_",
      tools: ["echo"],
    }),
  );
  const { tools } = await plugin.client(ToolService).getSchema({});
  assert.deepEqual(tools.map((x) => [x.name, x.kind, x.risk, x.idempotent]), [
    ["f_echo", ToolKind.RESOURCE, RiskClass.HIGH, false],
  ]);
  assert.equal(await text(plugin, "f_echo", { text: "ok" }), "ok");
});
