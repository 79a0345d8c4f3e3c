/**
 * The `task` tool provider through a real plugin subprocess and the real
 * kernel callback service: schema, create/update/list, persistence through
 * `Emit` and rebuild through `ReadEvents` (across a plugin restart), one
 * list per session, grants, previews, errors.
 */
import assert from "node:assert/strict";
import { fromBinary, type JsonObject } from "@bufbuild/protobuf";
import {
  EventBus,
  type Plugin,
  PluginHost,
  SessionRegistry,
  SqliteSessionStore,
} from "../kernel/mod.ts";
import { Code, GrpcStatusError } from "../proto/grpc_status.ts";
import { Category } from "../proto/gen/pluggableharness/common/v1/types_pb.ts";
import { MemoryMutationEventSchema } from "../proto/gen/pluggableharness/event/v1/events_pb.ts";
import { EventKind } from "../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import type { RenderTree } from "../proto/gen/pluggableharness/render/v1/types_pb.ts";
import { ToolErrorCategory } from "../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import type { ToolEvent } from "../proto/gen/pluggableharness/tool/v1/events_pb.ts";
import { ToolService } from "../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import {
  RiskClass,
  ToolKind,
} from "../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { readManifest } from "../plugins/sdk/mod.ts";
import { PATH, REPO } from "./_helpers.ts";

const ENTRY = `${REPO}/plugins/task/main.ts`;

interface Fixture extends AsyncDisposable {
  host: PluginHost;
  store: SqliteSessionStore;
  sessions: SessionRegistry;
  launch(): Promise<Plugin>;
  newSession(): Promise<string>;
}

async function fixture(): Promise<Fixture> {
  const dir = await Deno.makeTempDir({ prefix: "ph-task-test-" });
  const bus = new EventBus();
  const store = new SqliteSessionStore({ dir, bus });
  const sessions = new SessionRegistry();
  const host = new PluginHost({ env: { PATH }, services: { sessions, bus } });
  const manifest = await readManifest(`${REPO}/plugins/task/plugin.json`);
  const cleanup: (() => void)[] = [];
  const logs: { close(): Promise<void> }[] = [];
  return {
    host,
    store,
    sessions,
    launch: async () => {
      const p = await host.launch({ manifest, entrypoint: ENTRY });
      await p.client(ToolService).configure({ config: {} });
      return p;
    },
    newSession: async () => {
      const log = await store.create({ profile: "default" });
      logs.push(log);
      cleanup.push(sessions.register({
        log,
        remainingDepth: 1,
        remainingCostBudgetUsd: 1,
      }));
      return log.sessionId;
    },
    async [Symbol.asyncDispose]() {
      for (const c of cleanup) c();
      await host.close();
      for (const l of logs) await l.close();
      await store.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

let callNo = 0;

/** Invokes with a grant on the session for the call's duration. */
async function call(
  f: Fixture,
  plugin: Plugin,
  sessionId: string,
  toolName: string,
  args: JsonObject,
  grant = true,
): Promise<ToolEvent[]> {
  const release = grant
    ? f.sessions.grant(plugin.identity, sessionId)
    : () => {};
  try {
    const out: ToolEvent[] = [];
    for await (
      const r of plugin.client(ToolService).invoke({
        call: {
          id: `call_${++callNo}`,
          toolName,
          arguments: args,
          callContext: { sessionId, turnId: "01TURN", workingDirectory: "/" },
        },
      })
    ) {
      assert.ok(r.event);
      out.push(r.event);
    }
    const terminal = out.filter((e) =>
      e.event.case === "result" || e.event.case === "error"
    );
    assert.equal(terminal.length, 1, "exactly one terminal event");
    assert.equal(out.at(-1), terminal[0], "the terminal event is the last");
    return out;
  } finally {
    release();
  }
}

async function ok(
  f: Fixture,
  plugin: Plugin,
  sessionId: string,
  toolName: string,
  args: JsonObject,
): Promise<JsonObject> {
  const last = (await call(f, plugin, sessionId, toolName, args)).at(-1)!
    .event;
  assert.equal(
    last.case,
    "result",
    last.case === "error" ? last.value.message : String(last.case),
  );
  return last.value.payload ?? {};
}

async function fails(
  f: Fixture,
  plugin: Plugin,
  sessionId: string,
  toolName: string,
  args: JsonObject,
  category: ToolErrorCategory,
  pattern: RegExp,
  grant = true,
): Promise<void> {
  const last =
    (await call(f, plugin, sessionId, toolName, args, grant)).at(-1)!.event;
  assert.equal(last.case, "error");
  assert.equal(
    ToolErrorCategory[last.value.category],
    ToolErrorCategory[category],
    last.value.message,
  );
  assert.equal(last.value.retryable, false);
  assert.match(last.value.message, pattern);
}

function summary(tree: RenderTree | undefined): string {
  const g = tree?.root?.node;
  assert.equal(g?.case, "group");
  const t = g.value.children[0]?.node;
  assert.equal(t?.case, "text");
  return t.value.content;
}

function rows(tree: RenderTree | undefined): string[][] {
  const g = tree?.root?.node;
  assert.equal(g?.case, "group");
  const table = g.value.children.find((c) => c.node.case === "table")?.node;
  assert.equal(table?.case, "table");
  return table.value.rows.map((r) => r.cells);
}

Deno.test("task: tool MUST 3, 4, 8-11 — Describe; schema declares kind, risk, concurrency and idempotence of the three tools", async () => {
  await using f = await fixture();
  const p = await f.launch();
  const tool = p.client(ToolService);
  const schema = await tool.getSchema({});
  assert.deepEqual(
    schema.tools.map((t) => [
      t.name,
      ToolKind[t.kind],
      RiskClass[t.risk],
      t.concurrency?.safe,
      t.concurrency?.keyFields,
      t.idempotent,
      t.streaming,
    ]),
    [
      ["task_create", "RESOURCE", "LOW", false, [], false, false],
      ["task_update", "RESOURCE", "LOW", false, [], true, false],
      ["task_list", "DATA_SOURCE", "READ_ONLY", true, [], true, false],
    ],
  );
  const manifest = await readManifest(`${REPO}/plugins/task/plugin.json`);
  assert.deepEqual(
    manifest.tools?.map((t) => [t.name, t.kind, t.risk]),
    schema.tools.map((t) => [
      t.name,
      ToolKind[t.kind].toLowerCase(),
      RiskClass[t.risk].toLowerCase(),
    ]),
    "the manifest's tools match GetSchema",
  );
  assert.deepEqual(schema.tools[1]?.inputSchema?.required, ["id"]);
  assert.deepEqual(
    schema.tools[0]?.inputSchema?.properties.status?.enumValues,
    ["pending", "in_progress", "completed"],
  );
  const d = await tool.describe({});
  assert.equal(d.producer?.name, "task");
  assert.equal(d.producer?.category, Category.TOOL);
  await assert.rejects(
    tool.configure({ config: { dir: "x" } }),
    (e) =>
      e instanceof GrpcStatusError && e.code === Code.INVALID_ARGUMENT &&
      /"dir" is not supported/.test(e.message),
  );
});

Deno.test("task: create, update and list one session's list, persisted as events through Emit", async () => {
  await using f = await fixture();
  const p = await f.launch();
  const s = await f.newSession();

  assert.deepEqual(await ok(f, p, s, "task_list", {}), {
    tasks: [],
    counts: { pending: 0, in_progress: 0, completed: 0 },
    list: "The task list is empty.",
  });
  const a = await ok(f, p, s, "task_create", {
    subject: "Read the code",
    description: "kernel/ first",
  });
  assert.deepEqual(a.task, {
    id: "1",
    subject: "Read the code",
    description: "kernel/ first",
    status: "pending",
    order: 1,
  });
  const b = await ok(f, p, s, "task_create", { subject: "Write the tests" });
  assert.equal((b.task as JsonObject).id, "2");
  assert.equal(b.list, "[ ] 1. Read the code\n[ ] 2. Write the tests");

  const u = await ok(f, p, s, "task_update", {
    id: "1",
    status: "in_progress",
  });
  assert.deepEqual(u.changed, ["status"]);
  assert.equal((u.task as JsonObject).status, "in_progress");
  const same = await ok(f, p, s, "task_update", {
    id: "1",
    status: "in_progress",
  });
  assert.deepEqual(same.changed, [], "an update that changes nothing");
  await ok(f, p, s, "task_update", { id: 2, order: 0, status: "completed" });

  const list = await ok(f, p, s, "task_list", {});
  assert.deepEqual(
    (list.tasks as JsonObject[]).map((t) => [t.id, t.status]),
    [["2", "completed"], ["1", "in_progress"]],
    "ordered by order, then id",
  );
  assert.deepEqual(list.counts, { pending: 0, in_progress: 1, completed: 1 });
  assert.equal(list.list, "[x] 2. Write the tests\n[~] 1. Read the code");
  const done = await ok(f, p, s, "task_list", { status: "completed" });
  assert.deepEqual((done.tasks as JsonObject[]).map((t) => t.id), ["2"]);

  // One event per change (the no-op update wrote nothing), attributed to
  // the plugin, each holding the task's whole state.
  const log = await f.store.open(s);
  try {
    const events = [];
    for await (const e of log.readEvents()) events.push(e);
    assert.deepEqual(
      events.map((e) => [e.kind, e.producer.name, e.producer.category]),
      [
        [EventKind.MEMORY_WRITE, "task", "tool"],
        [EventKind.MEMORY_WRITE, "task", "tool"],
        [EventKind.MEMORY_UPDATE, "task", "tool"],
        [EventKind.MEMORY_UPDATE, "task", "tool"],
      ],
    );
    const last = fromBinary(MemoryMutationEventSchema, events[3]!.payload);
    assert.equal(last.recordId, "2");
    assert.deepEqual(
      { ...last.attributes, call_id: "-" },
      {
        schema: "task/1",
        subject: "Write the tests",
        status: "completed",
        order: "0",
        call_id: "-",
      },
    );
    const tree = await p.client(ToolService).render({
      payload: events[3]!.payload,
      schemaVersion: "1",
    });
    assert.equal(summary(tree.tree), "[x] 2. Write the tests");
  } finally {
    await log.close();
  }
});

Deno.test("task: the list survives a plugin restart (rebuilt with ReadEvents) and sessions do not share lists", async () => {
  await using f = await fixture();
  const first = await f.launch();
  const s1 = await f.newSession();
  const s2 = await f.newSession();
  await ok(f, first, s1, "task_create", { subject: "One" });
  await ok(f, first, s1, "task_create", { subject: "Two" });
  await ok(f, first, s1, "task_update", { id: "2", status: "completed" });
  await ok(f, first, s2, "task_create", { subject: "Other session" });
  await first.close();

  const second = await f.launch();
  const l1 = await ok(f, second, s1, "task_list", {});
  assert.equal(l1.list, "[ ] 1. One\n[x] 2. Two");
  const l2 = await ok(f, second, s2, "task_list", {});
  assert.equal(l2.list, "[ ] 1. Other session");
  // Ids continue after the rebuilt list.
  const c = await ok(f, second, s1, "task_create", { subject: "Three" });
  assert.equal((c.task as JsonObject).id, "3");
});

Deno.test("task: concurrent creates on one session get distinct ids", async () => {
  await using f = await fixture();
  const p = await f.launch();
  const s = await f.newSession();
  const results = await Promise.all(
    ["a", "b", "c", "d", "e"].map((subject) =>
      ok(f, p, s, "task_create", { subject })
    ),
  );
  assert.deepEqual(
    results.map((r) => (r.task as JsonObject).id).sort(),
    ["1", "2", "3", "4", "5"],
  );
});

Deno.test("task: tool MUST 1, 2, 13 — bad arguments, unknown ids and ungranted sessions are classified tool errors, one terminal event each", async (t) => {
  await using f = await fixture();
  const p = await f.launch();
  const s = await f.newSession();
  await ok(f, p, s, "task_create", { subject: "Only" });
  await t.step("INVALID_ARGUMENTS names each problem", async () => {
    await fails(
      f,
      p,
      s,
      "task_create",
      { subject: "", status: "done", colour: 1 },
      ToolErrorCategory.INVALID_ARGUMENTS,
      /unknown argument "colour".*"subject" must not be empty.*"status" must be one of pending, in_progress, completed, not "done"/,
    );
    await fails(
      f,
      p,
      s,
      "task_update",
      { id: "1" },
      ToolErrorCategory.INVALID_ARGUMENTS,
      /nothing to change/,
    );
    await fails(
      f,
      p,
      s,
      "task_list",
      { status: "later" },
      ToolErrorCategory.INVALID_ARGUMENTS,
      /"status" must be one of/,
    );
    await fails(
      f,
      p,
      s,
      "task_delete",
      {},
      ToolErrorCategory.INVALID_ARGUMENTS,
      /Unknown tool "task_delete"/,
    );
  });
  await t.step("NOT_FOUND for an unknown id, listing the ids", async () => {
    await fails(
      f,
      p,
      s,
      "task_update",
      { id: "9", status: "completed" },
      ToolErrorCategory.NOT_FOUND,
      /no task "9".*its ids are 1/,
    );
  });
  await t.step(
    "PERMISSION_DENIED when the kernel has not granted the session",
    async () => {
      await fails(
        f,
        p,
        s,
        "task_list",
        {},
        ToolErrorCategory.PERMISSION_DENIED,
        /refused access to the session/,
        false,
      );
    },
  );
});

Deno.test("task: tool MUST 19 — Preview shows what a create or an update will change and writes nothing", async () => {
  await using f = await fixture();
  const p = await f.launch();
  const s = await f.newSession();
  await ok(f, p, s, "task_create", { subject: "Draft", description: "v1" });
  const tool = p.client(ToolService);
  const preview = async (toolName: string, args: JsonObject) => {
    const release = f.sessions.grant(p.identity, s);
    try {
      return (await tool.preview({
        call: {
          id: "pv",
          toolName,
          arguments: args,
          callContext: { sessionId: s, turnId: "01TURN" },
        },
      })).preview;
    } finally {
      release();
    }
  };
  const create = await preview("task_create", { subject: "Ship it" });
  assert.equal(summary(create), "Create task: Ship it");
  assert.deepEqual(rows(create), [
    ["subject", "", "Ship it"],
    ["description", "", ""],
    ["status", "", "pending"],
    ["order", "", "last"],
  ]);
  const placed = await preview("task_create", {
    subject: "First",
    status: "in_progress",
    order: 0,
  });
  assert.deepEqual(rows(placed).slice(2), [
    ["status", "", "in_progress"],
    ["order", "", "0"],
  ]);
  await assert.rejects(
    preview("task_create", { subject: 3 }),
    (e) =>
      e instanceof GrpcStatusError && e.code === Code.INVALID_ARGUMENT &&
      /"subject" must be a string/.test(e.message),
  );
  const update = await preview("task_update", {
    id: "1",
    status: "completed",
    description: "v2",
  });
  assert.equal(summary(update), "Update task 1 (Draft): description, status");
  assert.deepEqual(rows(update), [
    ["description", "v1", "v2"],
    ["status", "pending", "completed"],
  ]);
  await assert.rejects(
    preview("task_update", { id: "7", status: "completed" }),
    (e) => e instanceof GrpcStatusError && e.code === Code.NOT_FOUND,
  );
  await assert.rejects(
    preview("task_list", {}),
    (e) => e instanceof GrpcStatusError && e.code === Code.UNIMPLEMENTED,
  );
  // Nothing was written by the previews.
  const list = await ok(f, p, s, "task_list", {});
  assert.equal(list.list, "[ ] 1. Draft");
  assert.equal(
    ((list.tasks as JsonObject[])[0] as JsonObject).description,
    "v1",
  );
});
