// memory and memory-recall produced from their kernel sources through a
// session driven by the scripted fake model: a memory provider's tools
// (remember, forget, search) and its Recall at context assembly. Exact
// rendering, no rate limit, persistence.
import assert from "node:assert/strict";
import { create, fromBinary, type JsonObject } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { ControlEventSchema } from "../../proto/gen/pluggableharness/event/v1/events_pb.ts";
import { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import {
  MemoryRecordSchema,
  MemoryScope,
  MemoryType,
} from "../../proto/gen/pluggableharness/memory/v1/types_pb.ts";
import type { StreamCompletionRequest } from "../../proto/gen/pluggableharness/model/v1/rpc_request_pb.ts";
import type { RecallRequest } from "../../proto/gen/pluggableharness/memory/v1/rpc_request_pb.ts";
import type { PluginIdentity } from "../../contract/plugin_identity.ts";
import { textBlock } from "../agent/_proto.ts";
import {
  FakeModel,
  FakeTool,
  identity,
  memoryStore,
  op,
  type ScriptedTurn,
  ToolKind,
} from "../agent/_testing.ts";
import { providerContextAssembler } from "../agent/provider_context.ts";
import { AgentSession } from "../agent/session.ts";
import type { MemorySessionStore } from "../state/memory_session_store.ts";

const T0 = Date.UTC(2026, 11, 2, 3, 0, 0);
const DAY = 86_400_000;

function cpBlocks(req: StreamCompletionRequest, channel: string): string[] {
  return req.messages.flatMap((m) =>
    m.content.flatMap((b) =>
      b.block.case === "text" &&
        b.block.value.text.startsWith(`<cp:${channel} `)
        ? [b.block.value.text]
        : []
    )
  );
}

async function storedControl(store: MemorySessionStore, sessionId: string) {
  const log = await store.open(sessionId);
  try {
    const out = [];
    for await (const e of log.readEvents({ kinds: [EventKind.CONTROL] })) {
      out.push(fromBinary(ControlEventSchema, e.payload));
    }
    return out;
  } finally {
    await log.close();
  }
}

/** A tool provider of category memory answering like builtin/memory. */
function memoryTools(): FakeTool {
  const tools = new FakeTool("mem", [
    {
      schema: op("remember", ToolKind.RESOURCE),
      run: (call): JsonObject => ({
        status: "created",
        message: `Saved memory "deploys-on-friday".`,
        id: "deploys-on-friday",
        record_status: "canonical",
        scope: call.arguments?.scope ?? "project",
      }),
    },
    {
      schema: op("forget", ToolKind.RESOURCE),
      run: (): JsonObject => ({
        id: "old-ci",
        title: "CI runs on Jenkins",
        scope: "project",
        deleted: true,
      }),
    },
    {
      schema: op("search", ToolKind.DATA_SOURCE),
      run: (): JsonObject => ({
        results: [{ id: "deploys-on-friday" }, { id: "release-train" }],
        count: 2,
      }),
    },
  ]);
  (tools as { identity: PluginIdentity }).identity = identity(
    "memory",
    "mem",
  );
  return tools;
}

Deno.test("memory: a memory provider's remember, forget and search reach the next round as save, delete and recall with scope and hit-count; unlimited; persisted", async () => {
  const store = memoryStore();
  const tools = memoryTools();
  const plain = new FakeTool("fs", [{
    schema: op("read_file", ToolKind.DATA_SOURCE),
    run: (): JsonObject => ({ status: "created", id: "x" }),
  }]);
  const script: ScriptedTurn[] = [
    {
      toolCalls: [
        {
          id: "a",
          name: "remember",
          input: {
            title: "Deploys on Friday",
            content: "…",
            type: "project",
            scope: "global",
          },
        },
        { id: "b", name: "search", input: { query: "deploy" } },
        { id: "c", name: "read_file", input: { path: "a" } },
      ],
    },
    { toolCalls: [{ id: "d", name: "forget", input: { id: "old-ci" } }] },
    { text: "ok" },
  ];
  const model = new FakeModel("llm", script);
  const session = await AgentSession.open({
    profile: "test",
    models: [{ provider: "llm", id: "m1" }],
    tools: new Map([["mem", tools.toolSchemas], ["fs", plain.toolSchemas]]),
    workingDirectory: "/work",
    policies: [{ name: "ok", match: { kind: "resource" }, action: "allow" }],
    controlPlane: { disable: ["time", "permission-context"] },
  }, {
    store,
    models: new Map([["llm", model]]),
    tools: new Map<string, FakeTool>([["mem", tools], ["fs", plain]]),
    sleep: () => Promise.resolve(),
    random: () => 0,
    now: () => T0,
  });
  assert.equal(
    (await session.send("remember the deploy day").result).outcome,
    "done",
  );
  await session.close();
  const save =
    '<cp:memory op="save" scope="global">Saved memory &quot;deploys-on-friday&quot;.</cp:memory>';
  const recall =
    '<cp:memory op="recall" scope="all" hit-count="2">Recalled 2 memories: deploys-on-friday, release-train.</cp:memory>';
  const del =
    '<cp:memory op="delete" scope="project">Deleted memory &quot;old-ci&quot;: CI runs on Jenkins.</cp:memory>';
  const r = model.requests;
  assert.equal(r.length, 3);
  // Both of the first round's (no limit; the read-only search ran first),
  // nothing for the plain tool's look-alike result; the delete at the
  // round after.
  assert.deepEqual(cpBlocks(r[0]!, "memory"), []);
  assert.deepEqual(cpBlocks(r[1]!, "memory"), [recall, save]);
  assert.deepEqual(cpBlocks(r[2]!, "memory"), [recall, save, del]);
  const stored = (await storedControl(store, session.sessionId))
    .filter((c) => c.channel === "memory");
  assert.deepEqual(stored.map((c) => c.rendered), [recall, save, del]);
  assert.deepEqual(
    stored.map((c) => c.attributes.map((a) => `${a.name}=${a.value}`)),
    [["op=recall", "scope=all", "hit-count=2"], ["op=save", "scope=global"], [
      "op=delete",
      "scope=project",
    ]],
  );
});

Deno.test("memory-recall: a turn's auto-recall rides beside its prompt in round 1 with count, names and a staleness warning; once per turn; persisted; no memory events", async () => {
  const store = memoryStore();
  const recalls: RecallRequest[] = [];
  const record = (
    id: string,
    title: string,
    ageDays: number,
    scope: MemoryScope,
  ) =>
    create(MemoryRecordSchema, {
      id,
      type: MemoryType.PROJECT,
      scope,
      title,
      content: [textBlock(`${title}.`)],
      tokens: 10n,
      updatedAt: timestampFromMs(T0 - ageDays * DAY),
    });
  const assembler = providerContextAssembler({
    providers: [{
      category: "memory",
      name: "mem",
      defaultTokenBudget: 2000,
      recall: (req) => {
        recalls.push(req);
        return Promise.resolve([
          record(
            "deploys-on-friday",
            "Deploys on Friday",
            2,
            MemoryScope.GLOBAL,
          ),
          record("old-ci", "CI runs on Jenkins", 90, MemoryScope.PROJECT),
        ]);
      },
    }],
  });
  const tool = new FakeTool("fs", [{
    schema: op("read_file", ToolKind.DATA_SOURCE),
  }]);
  const model = new FakeModel("llm", [
    { toolCalls: [{ id: "a", name: "read_file", input: { path: "x" } }] },
    { text: "one" },
    { text: "two" },
  ]);
  const session = await AgentSession.open({
    profile: "test",
    models: [{ provider: "llm", id: "m1" }],
    tools: new Map([["fs", tool.toolSchemas]]),
    workingDirectory: "/work",
    controlPlane: { disable: ["time", "permission-context"] },
  }, {
    store,
    models: new Map([["llm", model]]),
    tools: new Map([["fs", tool]]),
    contextAssembler: assembler,
    sleep: () => Promise.resolve(),
    random: () => 0,
    now: () => T0,
  });
  await session.send("when do we deploy?").result;
  await session.send("and CI?").result;
  await session.close();
  const block =
    '<cp:memory-recall count="2" names="deploys-on-friday,old-ci">- deploys-on-friday (global, project): Deploys on Friday — last written 2026-11-30\n' +
    "- old-ci (project, project): CI runs on Jenkins — last written 2026-09-03 (90 days ago: it may be stale; check it before relying on it)\n" +
    "Their contents are in this request's memory:&lt;type&gt;:&lt;name&gt; context sections.</cp:memory-recall>";
  const r = model.requests;
  assert.equal(recalls.length, 3); // every model call recalls
  // Round 1: beside the prompt, in the same user message.
  const first = r[0]!.messages.at(-1)!;
  assert.deepEqual(
    first.content.map((b) => b.block.case === "text" ? b.block.value.text : ""),
    ["when do we deploy?", block],
  );
  // Round 2 of the same turn: no second block.
  assert.equal(cpBlocks(r[1]!, "memory-recall").length, 1);
  // The next turn recalls again.
  assert.equal(cpBlocks(r[2]!, "memory-recall").length, 2);
  const stored = await storedControl(store, session.sessionId);
  assert.equal(stored.filter((c) => c.channel === "memory").length, 0);
  const recalled = stored.filter((c) => c.channel === "memory-recall");
  assert.equal(recalled.length, 2);
  assert.equal(recalled[0]!.rendered, block);
});
