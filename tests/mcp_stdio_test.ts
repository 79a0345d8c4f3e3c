/**
 * The `mcp` bridge through a real plugin subprocess, against the real MCP
 * servers from npm run under Deno over stdio: server-memory,
 * server-filesystem and server-everything. Each server gets exactly the
 * Deno permissions it needs and an empty environment plus Deno's runtime
 * settings (DENO_DIR, so that it finds the module cache, and the TLS and
 * proxy settings that are set, so that it could download what the cache
 * lacks) and what the provider block sets.
 */
import assert from "node:assert/strict";
import type { JsonObject } from "@bufbuild/protobuf";
import { type Plugin, PluginHost } from "../kernel/mod.ts";
import { readManifest } from "../plugins/sdk/mod.ts";
import { Code, GrpcStatusError } from "../proto/grpc_status.ts";
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
  type ToolSchema,
} from "../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { DENO_ENV, PATH, REPO } from "./_helpers.ts";

const ENTRY = `${REPO}/plugins/mcp/main.ts`;
/**
 * The bridge's grant: the server's command, and the directory the server
 * works in (read and write), which is what the OS sandbox shows the
 * bridge and so the server it starts (the same paths as the server's own
 * `--allow-read`/`--allow-write`).
 */
const grant = (dir: string) => ({ run: ["deno"], read: [dir], write: [dir] });
const SERVER = (name: string) =>
  `npm:@modelcontextprotocol/server-${name}@2026.8.31`;

async function launchMcp(
  host: PluginHost,
  config: JsonObject,
  dir: string,
): Promise<Plugin> {
  const plugin = await host.launch({
    manifest: await readManifest(`${REPO}/plugins/mcp/plugin.json`),
    entrypoint: ENTRY,
    grant: grant(dir),
  });
  await plugin.client(ToolService).configure({ config });
  return plugin;
}

async function call(
  plugin: Plugin,
  toolName: string,
  args: JsonObject,
): Promise<ToolEvent[]> {
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
    assert.ok(r.event);
    out.push(r.event);
  }
  assert.equal(out.length, 1, "exactly one terminal event");
  return out;
}

async function ok(
  plugin: Plugin,
  toolName: string,
  args: JsonObject = {},
): Promise<JsonObject> {
  const [e] = await call(plugin, toolName, args);
  const ev = e!.event;
  assert.equal(
    ev.case,
    "result",
    ev.case === "error" ? ev.value.message : "",
  );
  return ev.value.payload ?? {};
}

function walkSchema(s: Schema | undefined, where: string): void {
  assert.ok(s, `${where}: present`);
  assert.ok(s.type >= SchemaType.OBJECT && s.type <= SchemaType.ARRAY, where);
  for (const r of s.required) assert.ok(r in s.properties, `${where}.${r}`);
  if (s.type === SchemaType.ARRAY) assert.ok(s.items, `${where}: items`);
  if (s.type !== SchemaType.STRING) assert.equal(s.enumValues.length, 0);
  for (const [k, v] of Object.entries(s.properties)) {
    walkSchema(v, `${where}.${k}`);
  }
  if (s.items) walkSchema(s.items, `${where}[]`);
}

/** MUST 7-11 for every bridged tool. */
function checkSchemas(tools: ToolSchema[]): void {
  for (const t of tools) {
    assert.ok(t.description.length > 0, `${t.name}: description`);
    assert.ok(t.kind !== ToolKind.UNSPECIFIED, `${t.name}: kind`);
    assert.ok(t.risk !== RiskClass.UNSPECIFIED, `${t.name}: risk`);
    if (t.kind === ToolKind.DATA_SOURCE) {
      assert.equal(t.risk, RiskClass.READ_ONLY, `${t.name}: read_only`);
    } else assert.notEqual(t.risk, RiskClass.READ_ONLY, `${t.name}`);
    assert.ok(t.concurrency, `${t.name}: concurrency declared`);
    assert.ok(t.defaultTimeout, `${t.name}: default timeout`);
    walkSchema(t.inputSchema, `${t.name}.input`);
    walkSchema(t.outputSchema, `${t.name}.output`);
  }
}

function byName(tools: ToolSchema[], name: string): ToolSchema {
  const t = tools.find((x) => x.name === name);
  assert.ok(t, `tool ${name} in ${tools.map((x) => x.name).join(", ")}`);
  return t;
}

Deno.test("mcp bridge: server-memory over stdio", async () => {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-mcp-mem-" }),
  );
  try {
    await using host = new PluginHost({ env: { PATH, ...DENO_ENV }, cwd: dir });
    const plugin = await launchMcp(host, {
      command: "deno",
      args: [
        "run",
        "--no-prompt",
        `--allow-read=${dir}`,
        `--allow-write=${dir}`,
        "--allow-env=MEMORY_FILE_PATH",
        SERVER("memory"),
      ],
      env: { MEMORY_FILE_PATH: `${dir}/memory.jsonl` },
      cwd: dir,
      tool_prefix: "mem_",
    }, dir);
    const { tools } = await plugin.client(ToolService).getSchema({});
    checkSchemas(tools);
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      "mem_add_observations",
      "mem_create_entities",
      "mem_create_relations",
      "mem_delete_entities",
      "mem_delete_observations",
      "mem_delete_relations",
      "mem_open_nodes",
      "mem_read_graph",
      "mem_search_nodes",
    ]);
    // Annotations: readOnly → data source; destructive → high;
    // not destructive in a closed world → low.
    const create = byName(tools, "mem_create_entities");
    assert.equal(create.kind, ToolKind.RESOURCE);
    assert.equal(create.risk, RiskClass.LOW);
    assert.equal(create.idempotent, false);
    assert.equal(create.concurrency?.safe, false);
    const del = byName(tools, "mem_delete_entities");
    assert.equal(del.kind, ToolKind.RESOURCE);
    assert.equal(del.risk, RiskClass.HIGH);
    assert.equal(del.idempotent, true);
    const read = byName(tools, "mem_read_graph");
    assert.equal(read.kind, ToolKind.DATA_SOURCE);
    assert.equal(read.risk, RiskClass.READ_ONLY);
    assert.equal(read.idempotent, true);
    assert.equal(read.concurrency?.safe, true);
    // The input schema, translated: an array of objects with required keys.
    const entities = create.inputSchema?.properties["entities"];
    assert.equal(entities?.type, SchemaType.ARRAY);
    assert.equal(entities?.items?.type, SchemaType.OBJECT);
    assert.deepEqual(
      entities?.items?.required.slice().sort(),
      ["entityType", "name", "observations"],
    );
    assert.equal(
      entities?.items?.properties["observations"]?.items?.type,
      SchemaType.STRING,
    );

    const created = await ok(plugin, "mem_create_entities", {
      entities: [{
        name: "Ada",
        entityType: "person",
        observations: ["wrote the first program"],
      }],
    });
    assert.match(String(created.text), /"name": "Ada"/);
    const graph = await ok(plugin, "mem_read_graph");
    assert.equal((graph.content as JsonObject[])[0]!.type, "text");
    assert.match(String(graph.text), /wrote the first program/);
    assert.equal(graph.truncated, false);
    // The server wrote where its env told it to.
    assert.match(
      await Deno.readTextFile(`${dir}/memory.jsonl`),
      /"name":"Ada"/,
    );
    // An unknown tool name.
    const [missing] = await call(plugin, "mem_nope", {});
    assert.equal(missing!.event.case, "error");
    assert.equal(
      missing!.event.value.category,
      ToolErrorCategory.NOT_FOUND,
    );
    assert.match(missing!.event.value.message, /has no tool "mem_nope"/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("mcp bridge: server-filesystem over stdio, with a tool allow-list", async () => {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-mcp-fs-" }),
  );
  try {
    await Deno.writeTextFile(`${dir}/hello.txt`, "hello from disk\n");
    await using host = new PluginHost({ env: { PATH, ...DENO_ENV }, cwd: dir });
    const plugin = await launchMcp(host, {
      command: "deno",
      args: [
        "run",
        "--no-prompt",
        `--allow-read=${dir}`,
        `--allow-write=${dir}`,
        "--allow-env=__MINIMATCH_TESTING_PLATFORM__",
        SERVER("filesystem"),
        dir,
      ],
      tools: ["read_text_file", "write_file", "list_directory"],
    }, dir);
    const { tools } = await plugin.client(ToolService).getSchema({});
    checkSchemas(tools);
    assert.deepEqual(
      tools.map((t) => t.name).sort(),
      ["list_directory", "read_text_file", "write_file"],
    );
    const write = byName(tools, "write_file");
    assert.equal(write.kind, ToolKind.RESOURCE);
    assert.equal(write.risk, RiskClass.HIGH, "destructiveHint: true");
    assert.equal(write.idempotent, true);
    // Validation keywords are kept as notes in the description.
    const head = byName(tools, "read_text_file").inputSchema
      ?.properties["head"];
    assert.equal(head?.type, SchemaType.NUMBER);
    const listing = await ok(plugin, "list_directory", { path: dir });
    assert.match(String(listing.text), /\[FILE\] hello\.txt/);
    const text = await ok(plugin, "read_text_file", {
      path: `${dir}/hello.txt`,
    });
    assert.equal(String(text.text).trim(), "hello from disk");
    await ok(plugin, "write_file", {
      path: `${dir}/new.txt`,
      content: "made\n",
    });
    assert.equal(await Deno.readTextFile(`${dir}/new.txt`), "made\n");
    // The server's own refusal (outside its roots) is an error result.
    const [outside] = await call(plugin, "read_text_file", {
      path: "/etc/hostname",
    });
    assert.equal(outside!.event.case, "error");
    assert.equal(
      outside!.event.value.category,
      ToolErrorCategory.EXECUTION_FAILED,
    );
    assert.match(outside!.event.value.message, /denied|outside|not allowed/i);
    // A tool outside the allow-list is not offered.
    const [hidden] = await call(plugin, "move_file", {
      source: "a",
      destination: "b",
    });
    assert.equal(hidden!.event.case, "error");
    assert.equal(hidden!.event.value.category, ToolErrorCategory.NOT_FOUND);

    // An allow-list naming a tool the server lacks: Configure says which.
    await assert.rejects(
      plugin.client(ToolService).configure({
        config: {
          command: "deno",
          args: [
            "run",
            "--no-prompt",
            `--allow-read=${dir}`,
            "--allow-env=__MINIMATCH_TESTING_PLATFORM__",
            SERVER("filesystem"),
            dir,
          ],
          tools: ["read_text_file", "format_disk"],
        },
      }),
      (e) =>
        e instanceof GrpcStatusError && e.code === Code.INVALID_ARGUMENT &&
        /"tools" names "format_disk", which the MCP server .* does not offer \(it offers .*read_text_file/
          .test(e.message),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("mcp bridge: server-everything over stdio (content kinds, schemas, environment)", async () => {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-mcp-ev-" }),
  );
  try {
    await using host = new PluginHost({ env: { PATH, ...DENO_ENV }, cwd: dir });
    const plugin = await launchMcp(host, {
      command: "deno",
      args: [
        "run",
        "--no-prompt",
        // get-env reports the whole environment, which needs every
        // variable: it sees only what the bridge passed, nothing more.
        "--allow-env",
        SERVER("everything"),
        "stdio",
      ],
      env: { EVERYTHING_PROBE: "set-by-agent-hcl" },
      tools: [
        "echo",
        "get-sum",
        "get-env",
        "get-tiny-image",
        "get-structured-content",
        "get-resource-reference",
        "get-annotated-message",
        "toggle-simulated-logging",
      ],
      tool_prefix: "ev_",
    }, dir);
    const { tools } = await plugin.client(ToolService).getSchema({});
    checkSchemas(tools);
    assert.equal(tools.length, 8);
    // Names with "-" are valid tool names and kept.
    const sum = byName(tools, "ev_get-sum");
    assert.equal(sum.inputSchema?.properties["a"]?.type, SchemaType.NUMBER);
    const structured = byName(tools, "ev_get-structured-content");
    assert.deepEqual(
      structured.inputSchema?.properties["location"]?.enumValues,
      ["New York", "Chicago", "Los Angeles"],
    );
    const annotated = byName(tools, "ev_get-annotated-message");
    assert.match(
      annotated.inputSchema?.properties["includeImage"]?.description ?? "",
      /default false/,
    );
    // No readOnlyHint, not destructive, closed world: resource / low.
    const toggle = byName(tools, "ev_toggle-simulated-logging");
    assert.equal(toggle.kind, ToolKind.RESOURCE);
    assert.equal(toggle.risk, RiskClass.LOW);

    const echo = await ok(plugin, "ev_echo", { message: "hi there" });
    assert.equal(echo.text, "Echo: hi there");
    const added = await ok(plugin, "ev_get-sum", { a: 2, b: 40 });
    assert.match(String(added.text), /42/);
    const image = await ok(plugin, "ev_get-tiny-image");
    const blocks = image.content as JsonObject[];
    const img = blocks.find((b) => b.type === "image");
    assert.equal(img?.mime_type, "image/png");
    assert.ok(String(img?.data).length > 100);
    const weather = await ok(plugin, "ev_get-structured-content", {
      location: "Chicago",
    });
    assert.equal(typeof weather.structured_content, "object");
    assert.ok("temperature" in (weather.structured_content as JsonObject));
    const ref = await ok(plugin, "ev_get-resource-reference", {
      resourceType: "Text",
      resourceId: 2,
    });
    const resource = (ref.content as JsonObject[]).find((b) =>
      b.type === "resource"
    );
    assert.match(String(resource?.uri), /2/);
    assert.equal(typeof resource?.text, "string");

    // The server's environment: empty, plus Deno's runtime settings that
    // are set (the kernel's environment here is PATH and DENO_ENV) and the
    // block's env.
    const env = JSON.parse(String((await ok(plugin, "ev_get-env")).text));
    // Deno's npm runtime adds its own markers (and a PATH holding only its
    // node shim); nothing comes from the plugin's or the kernel's
    // environment (no PLUGIN_* cookie, TMPDIR, HOME, OTEL_*…).
    const own = ["DENO_NODE_SHIM_ACTIVE", "PATH", "npm_config_user_agent"];
    assert.deepEqual(
      Object.keys(env).filter((k) => !own.includes(k)).sort(),
      [...Object.keys(DENO_ENV), "EVERYTHING_PROBE"].sort(),
    );
    assert.equal(env.PATH, `${env.DENO_DIR}/node_compat_bin`);
    assert.equal(env.EVERYTHING_PROBE, "set-by-agent-hcl");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
