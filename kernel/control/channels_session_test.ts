// Each wired channel produced from its real source through a session
// driven by the scripted fake model: exact rendering, rate limit and
// persistence. Agent→system tags with well-formed, malformed and
// duplicated blocks.
import assert from "node:assert/strict";
import { create, fromBinary, type JsonObject } from "@bufbuild/protobuf";
import { ControlEventSchema } from "../../proto/gen/pluggableharness/event/v1/events_pb.ts";
import { Role } from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import type { StreamCompletionRequest } from "../../proto/gen/pluggableharness/model/v1/rpc_request_pb.ts";
import { ToolErrorCategory } from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import {
  type ToolSchema,
  ToolSchemaSchema,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { toolError } from "../agent/_proto.ts";
import {
  FakeModel,
  type FakeOperation,
  FakeTool,
  memoryStore,
  op,
  type ScriptedTurn,
  ToolKind,
} from "../agent/_testing.ts";
import type { AgentDeps } from "../agent/agent_deps.ts";
import { replaySession } from "../agent/history.ts";
import { AgentSession } from "../agent/session.ts";
import type { SessionEvent } from "../agent/session_events.ts";
import type { SessionSpec } from "../agent/session_spec.ts";
import { triggerSession, triggerStoredSession } from "../agent/trigger.ts";
import { SubagentSupervisor } from "../agent/subagents.ts";
import { RunSessionRequestSchema } from "../../proto/gen/pluggableharness/kernel/v1/rpc_request_pb.ts";
import { EventBus } from "../bus/event_bus.ts";
import { SessionRegistry } from "../state/session_registry.ts";
import { createCallbackService } from "../callback/service.ts";
import { InjectControlRequestSchema } from "../../proto/gen/pluggableharness/kernel/v1/rpc_request_pb.ts";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import type { MemorySessionStore } from "../state/memory_session_store.ts";

const READ = op("read_file", ToolKind.DATA_SOURCE);
const WRITE = op("write_file", ToolKind.RESOURCE);
const T0 = Date.UTC(2026, 11, 2, 3, 0, 0);

interface Setup {
  script: (ScriptedTurn | ((req: StreamCompletionRequest) => ScriptedTurn))[];
  ops?: FakeOperation[];
  spec?: Partial<SessionSpec>;
  deps?: Partial<AgentDeps>;
}

function setup(s: Setup) {
  const store = memoryStore();
  const model = new FakeModel("llm", s.script);
  const tool = new FakeTool(
    "fs",
    s.ops ?? [{ schema: READ }, {
      schema: WRITE,
    }],
  );
  const clock = { now: T0 };
  const events: SessionEvent[] = [];
  const spec: SessionSpec = {
    profile: "test",
    models: [{ provider: "llm", id: "m1" }],
    tools: new Map([["fs", tool.toolSchemas]]),
    workingDirectory: "/work",
    policies: [{
      name: "writes_ok",
      match: { kind: "resource" },
      action: "allow",
    }],
    controlPlane: { disable: ["time"] },
    ...s.spec,
  };
  const deps: AgentDeps = {
    store,
    models: new Map([["llm", model]]),
    tools: new Map([["fs", tool]]),
    sleep: () => Promise.resolve(),
    random: () => 0,
    now: () => clock.now,
    ...s.deps,
  };
  return {
    store,
    model,
    tool,
    spec,
    deps,
    clock,
    events,
    open: (resumeSessionId?: string) =>
      AgentSession.open(spec, deps, {
        onEvent: (e) => events.push(e),
        ...(resumeSessionId ? { resumeSessionId } : {}),
      }),
  };
}

/** Every `<cp:` text block of a request, in order. */
function cpBlocks(req: StreamCompletionRequest, channel?: string): string[] {
  return req.messages.flatMap((m) =>
    m.content.flatMap((b) =>
      b.block.case === "text" && b.block.value.text.startsWith("<cp:") &&
        (channel === undefined ||
          b.block.value.text.startsWith(`<cp:${channel}`))
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

Deno.test("permission-context: the rules in force are delivered once per turn, persisted, replayed, and limited to 60/min per source", async () => {
  const h = setup({
    script: Array.from({ length: 62 }, () => ({ text: "ok" })),
    spec: {
      policies: [{
        name: "no_writes",
        match: { kind: "resource" },
        action: "deny",
      }],
    },
  });
  const session = await h.open();
  await session.send("one").result;
  const expected =
    "<cp:permission-context>no_writes: deny when kind=&quot;resource&quot;\nUnanswered asks: deny.</cp:permission-context>";
  assert.deepEqual(cpBlocks(h.model.requests[0]!), [expected]);
  for (let i = 0; i < 60; i++) await session.send(`p${i}`).result;
  // 61 turns in the same minute: the 61st context is dropped.
  assert.equal(
    cpBlocks(h.model.requests[60]!, "permission-context").length,
    60,
  );
  assert.ok(
    h.events.some((e) =>
      e.type === "warning" && e.code === "control_rate_limited"
    ),
  );
  h.clock.now += 60_001;
  await session.send("later").result;
  assert.equal(
    cpBlocks(h.model.requests[61]!, "permission-context").length,
    61,
  );
  await session.close();
  const stored = await storedControl(h.store, session.sessionId);
  assert.equal(stored.length, 61);
  assert.equal(stored[0]!.rendered, expected);
  assert.equal(stored[0]!.source, "policy");
  const replayed = [];
  for await (const e of replaySession(h.store, session.sessionId)) {
    if (e.type === "control") replayed.push(e);
  }
  assert.equal(replayed.length, 61);
  assert.equal(replayed[0]!.channel, "permission-context");
});

Deno.test("permission-denied: a policy denial and a tool's own refusal reach the next round with tool, reason-code and path", async () => {
  const h = setup({
    script: [
      {
        toolCalls: [
          { id: "w1", name: "write_file", input: { path: "x.txt" } },
          { id: "r1", name: "read_file", input: { path: "/etc/shadow" } },
        ],
      },
      {
        toolCalls: [{ id: "x1", name: "delete_all", input: { path: "/" } }],
      },
      { text: "understood" },
    ],
    ops: [{
      schema: READ,
      run: () =>
        toolError(
          ToolErrorCategory.PERMISSION_DENIED,
          "/etc/shadow is outside the granted roots",
        ),
    }, { schema: WRITE }],
    spec: {
      policies: [{
        name: "no_writes",
        match: { kind: "resource" },
        action: "deny",
      }],
    },
  });
  const session = await h.open();
  await session.send("go").result;
  await session.close();
  const denied = [
    '<cp:permission-denied tool="read_file" reason-code="tool-refused" path="/etc/shadow">/etc/shadow is outside the granted roots</cp:permission-denied>',
    '<cp:permission-denied tool="write_file" reason-code="policy" path="x.txt">The call was denied by policy:no_writes and was not executed.</cp:permission-denied>',
  ];
  assert.deepEqual(
    cpBlocks(h.model.requests[1]!, "permission-denied").sort(),
    denied,
  );
  assert.deepEqual(cpBlocks(h.model.requests[0]!, "permission-denied"), []);
  // A tool outside the profile's scope.
  const outOfScope =
    '<cp:permission-denied tool="delete_all" reason-code="out-of-scope" path="/">The tool &quot;delete_all&quot; is not available in this session.</cp:permission-denied>';
  assert.deepEqual(
    cpBlocks(h.model.requests[2]!, "permission-denied").at(-1),
    outOfScope,
  );
  const stored = (await storedControl(h.store, session.sessionId))
    .filter((c) => c.channel === "permission-denied");
  assert.deepEqual(
    stored.map((c) => c.rendered).sort(),
    [outOfScope, ...denied].sort(),
  );
});

Deno.test("time: a wake turn's message carries origin channel", async () => {
  const h = setup({
    script: [{ text: "first" }, { text: "on it" }],
    spec: { controlPlane: {} },
  });
  const session = await h.open();
  await session.send("hello").result;
  triggerSession(session, "go", { name: "ci" });
  await session.idle();
  await session.close();
  const last = h.model.requests[1]!.messages.at(-1)!;
  const texts = last.content.map((b) =>
    b.block.case === "text" ? b.block.value.text : ""
  );
  assert.equal(texts.length, 3); // the trigger, the turn's context, time
  assert.match(texts[0]!, /^<cp:external-trigger name="ci"/);
  assert.match(texts[1]!, /^<cp:permission-context>/);
  assert.match(
    texts[2]!,
    /^<cp:time utc="[^"]+" local="[^"]+" origin="channel"><\/cp:time>$/,
  );
});

Deno.test("time: user prompts carry origin, tool results duration_ms; a resumed history keeps them; off per profile", async () => {
  const h = setup({
    script: [
      { toolCalls: [{ id: "r1", name: "read_file", input: { path: "a" } }] },
      { text: "done" },
      { text: "again" },
    ],
    ops: [{
      schema: READ,
      run: () => {
        h.clock.now += 250;
        return { text: "content" };
      },
    }],
    spec: { controlPlane: {} },
  });
  const session = await h.open();
  await session.send("go").result;
  await session.close();
  const utc = new Date(T0).toISOString();
  const later = new Date(T0 + 250).toISOString();
  const [prompt, result] = cpBlocks(h.model.requests[1]!, "time");
  assert.match(
    prompt!,
    new RegExp(
      `^<cp:time utc="${utc}" local="[^"]+" origin="typed"></cp:time>$`,
    ),
  );
  assert.match(
    result!,
    new RegExp(
      `^<cp:time utc="${later}" local="[^"]+" duration_ms="250"></cp:time>$`,
    ),
  );
  // Resumed: the history is rebuilt with the same blocks in place.
  const again = await h.open(session.sessionId);
  await again.send("more").result;
  await again.close();
  const resumed = h.model.requests[2]!;
  assert.deepEqual(
    cpBlocks(resumed, "time").slice(0, 2),
    [prompt, result],
  );
  // Off per profile: nothing stamped.
  const off = setup({
    script: [{ text: "x" }],
    spec: { controlPlane: { disable: ["time"] } },
  });
  const s2 = await off.open();
  await s2.send("go").result;
  await s2.close();
  assert.deepEqual(cpBlocks(off.model.requests[0]!, "time"), []);
});

Deno.test("tool-empty-output: an empty result nudges the next round; a non-empty one does not", async () => {
  const h = setup({
    script: [
      {
        toolCalls: [
          { id: "r1", name: "read_file", input: { path: "empty" } },
          { id: "r2", name: "read_file", input: { path: "full" } },
        ],
      },
      { text: "ok" },
    ],
    ops: [{
      schema: READ,
      run: (call): JsonObject =>
        call.arguments?.path === "empty" ? { matches: [] } : { text: "x" },
    }],
  });
  const session = await h.open();
  await session.send("go").result;
  await session.close();
  const expected =
    '<cp:tool-empty-output tool="read_file">The call succeeded but returned nothing. Check its input or try another way before assuming it worked.</cp:tool-empty-output>';
  assert.deepEqual(cpBlocks(h.model.requests[1]!, "tool-empty-output"), [
    expected,
  ]);
  const stored = await storedControl(h.store, session.sessionId);
  assert.equal(
    stored.filter((c) => c.channel === "tool-empty-output").length,
    1,
  );
});

Deno.test("plan-mode: a read-only reminder rides every round while plan mode is on", async () => {
  const h = setup({
    script: [
      { toolCalls: [{ id: "r1", name: "read_file", input: { path: "a" } }] },
      { text: "plan ready" },
    ],
    spec: { planMode: true },
  });
  const session = await h.open();
  await session.send("plan it").result;
  await session.close();
  const block = (round: number) =>
    `<cp:plan-mode constraint="read-only" round="${round}">Plan mode is on: only read-only tools are available; the user carries out the plan.</cp:plan-mode>`;
  assert.deepEqual(cpBlocks(h.model.requests[0]!, "plan-mode"), [block(1)]);
  assert.deepEqual(cpBlocks(h.model.requests[1]!, "plan-mode"), [
    block(1),
    block(2),
  ]);
  const stored = (await storedControl(h.store, session.sessionId))
    .filter((c) => c.channel === "plan-mode");
  assert.deepEqual(stored.map((c) => c.rendered), [block(1), block(2)]);
});

Deno.test("external-trigger: an idle live session is woken by triggerSession and acts on it", async () => {
  const h = setup({ script: [{ text: "first" }, { text: "on it" }] });
  const session = await h.open();
  await session.send("hello").result;
  assert.equal(
    triggerSession(session, "The nightly build failed", { name: "ci" }),
    "queued",
  );
  await session.idle();
  assert.equal(h.model.requests.length, 2);
  const block =
    `<cp:external-trigger name="ci" target="${session.sessionId}" session="${session.sessionId}">The nightly build failed</cp:external-trigger>`;
  assert.deepEqual(cpBlocks(h.model.requests[1]!, "external-trigger"), [block]);
  await session.close();
  const stored = (await storedControl(h.store, session.sessionId))
    .filter((c) => c.channel === "external-trigger");
  assert.equal(stored.length, 1);
  assert.equal(stored[0]!.wake, true);
  assert.throws(
    () => triggerSession(session, "again"),
    /it has ended/,
  );
});

Deno.test("external-trigger: a stored session is resumed, runs the injected turn and is closed again", async () => {
  const h = setup({ script: [{ text: "first" }, { text: "handled" }] });
  const session = await h.open();
  await session.send("hello").result;
  await session.close();
  const run = triggerStoredSession(
    h.spec,
    h.deps,
    session.sessionId,
    "deploy failed",
    {
      name: "cron",
    },
  );
  const seen: string[] = [];
  for await (const e of run) seen.push(e.type);
  const result = await run.result;
  assert.equal(result.status, "completed");
  assert.equal(result.finalText, "handled");
  assert.ok(seen.includes("control"));
  const req = h.model.requests[1]!;
  // The resumed history keeps the first turn's delivered context; the
  // wake turn is a turn of its own, with its own context.
  assert.equal(cpBlocks(req, "permission-context").length, 2);
  assert.deepEqual(cpBlocks(req, "external-trigger"), [
    `<cp:external-trigger name="cron" target="${session.sessionId}" session="${session.sessionId}">deploy failed</cp:external-trigger>`,
  ]);
});

Deno.test("external-trigger: nothing wakes a session whose bounds are exhausted", async () => {
  const h = setup({
    script: [{ text: "first" }, { text: "never" }],
    spec: { bounds: { maxTurns: 1 } },
  });
  const session = await h.open();
  await session.send("hello").result;
  assert.equal(triggerSession(session, "wake up"), "queued");
  await session.idle();
  assert.equal(h.model.requests.length, 1);
  assert.ok(
    h.events.some((e) => e.type === "warning" && e.code === "wake_refused"),
  );
  await session.close();
});

function exitPayload(o: Record<string, unknown>): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(o));
}

Deno.test("shell-exit: exec's background_exited wakes an idle session once, with an ANSI-stripped, bounded tail", async () => {
  const bus = new EventBus();
  const h = setup({
    script: [{ text: "started it" }, { text: "saw the exit" }],
    deps: { bus },
  });
  const session = await h.open();
  await session.send("run the build in the background").result;
  const exit = {
    background_id: "bg_1",
    session_id: session.sessionId,
    command: "make",
    exit_code: 2,
    signal: null,
    killed: false,
    output_tail: "\x1b[31merror:\x1b[0m missing ;\n" + "x".repeat(3000),
  };
  const publish = (o: Record<string, unknown>) =>
    bus.publishPlugin({ category: "tool", name: "exec" }, {
      eventType: "background_exited",
      payload: exitPayload(o),
      payloadType: "application/json",
      schemaVersion: "1",
    });
  publish({ ...exit, session_id: "another-session" }); // not ours
  publish(exit);
  await session.idle();
  publish(exit); // re-published: never re-issued
  await session.idle();
  assert.equal(h.model.requests.length, 2);
  const [block] = cpBlocks(h.model.requests[1]!, "shell-exit");
  assert.ok(
    block!.startsWith(
      '<cp:shell-exit exec-id="bg_1" exit-code="2">The background command &quot;make&quot; exited with code 2.\nOutput tail:\n[… ',
    ),
  );
  assert.ok(!block!.includes("\x1b"));
  assert.ok(block!.length < 2_300);
  await session.close();
  const stored = (await storedControl(h.store, session.sessionId))
    .filter((c) => c.channel === "shell-exit");
  assert.equal(stored.length, 1);
  assert.equal(stored[0]!.wake, true);
});

Deno.test("event-trigger: a control_plane timer and a bus topic wake the session, 60/min per source", async () => {
  const bus = new EventBus();
  const timers: { ms: number; fn: () => void; stopped: boolean }[] = [];
  const h = setup({
    script: Array.from({ length: 70 }, () => ({ text: "ok" })),
    spec: {
      controlPlane: {
        disable: ["time"],
        timers: [{ name: "tick", everyS: 30, text: "check the queue" }],
        topics: ["plugin.tool.watch.*"],
      },
    },
    deps: {
      bus,
      every: (ms, fn) => {
        const t = { ms, fn, stopped: false };
        timers.push(t);
        return () => t.stopped = true;
      },
    },
  });
  const session = await h.open();
  assert.equal(timers.length, 1);
  assert.equal(timers[0]!.ms, 30_000);
  timers[0]!.fn();
  await session.idle();
  assert.deepEqual(cpBlocks(h.model.requests[0]!, "event-trigger"), [
    '<cp:event-trigger source="timer:tick">check the queue</cp:event-trigger>',
  ]);
  bus.publishPlugin({ category: "tool", name: "watch" }, {
    eventType: "changed",
    payload: new TextEncoder().encode('{"file":"a.txt"}'),
    payloadType: "application/json",
    schemaVersion: "1",
  });
  await session.idle();
  assert.deepEqual(
    cpBlocks(h.model.requests[1]!, "event-trigger").at(-1),
    '<cp:event-trigger source="bus:plugin.tool.watch.changed">{&quot;file&quot;:&quot;a.txt&quot;}</cp:event-trigger>',
  );
  // 60/min per source: the timer's 61st firing within the minute is dropped.
  for (let i = 0; i < 60; i++) {
    timers[0]!.fn();
    await session.idle();
  }
  assert.equal(h.model.requests.length, 61);
  await session.close();
  assert.equal(timers[0]!.stopped, true);
  const stored = (await storedControl(h.store, session.sessionId))
    .filter((c) => c.channel === "event-trigger");
  assert.equal(stored.length, 61);
});

Deno.test("hook-fired: a control_plane trigger hook fired by its bus topic wakes the session with its line, name, target and session; 30/min per hook; persisted", async () => {
  const bus = new EventBus();
  const h = setup({
    script: Array.from({ length: 40 }, () => ({ text: "ok" })),
    spec: {
      controlPlane: {
        disable: ["time", "permission-context"],
        hooks: [
          { name: "ci", on: "plugin.tool.ci.*", text: "CI failed: fix it." },
          { name: "deploy", on: "plugin.tool.deploy.done", text: "Deployed." },
        ],
      },
    },
    deps: { bus },
  });
  const session = await h.open();
  const fire = (name: string, eventType: string, body: string) =>
    bus.publishPlugin({ category: "tool", name }, {
      eventType,
      payload: new TextEncoder().encode(body),
      payloadType: "text/plain",
      schemaVersion: "1",
    });
  fire("ci", "failed", "job 7 <red>");
  await session.idle();
  const first =
    `<cp:hook-fired name="ci" target="profile:test" session="${session.sessionId}">CI failed: fix it.\nFired by plugin.tool.ci.failed: job 7 &lt;red&gt;</cp:hook-fired>`;
  assert.equal(h.model.requests.length, 1); // a wake turn
  assert.deepEqual(cpBlocks(h.model.requests[0]!, "hook-fired"), [first]);
  // 30/min per hook: the ci hook's 31st firing in the minute is dropped,
  // the deploy hook has its own count.
  for (let i = 0; i < 30; i++) {
    fire("ci", "failed", `job ${i}`);
    await session.idle();
  }
  assert.equal(h.model.requests.length, 30);
  assert.equal(
    h.events.filter((e) =>
      e.type === "warning" && e.code === "control_rate_limited"
    ).length,
    1,
  );
  fire("deploy", "done", "v2");
  fire("deploy", "started", "ignored: not its topic");
  await session.idle();
  assert.equal(h.model.requests.length, 31);
  assert.deepEqual(
    cpBlocks(h.model.requests[30]!, "hook-fired").at(-1),
    `<cp:hook-fired name="deploy" target="profile:test" session="${session.sessionId}">Deployed.\nFired by plugin.tool.deploy.done: v2</cp:hook-fired>`,
  );
  await session.close();
  const stored = (await storedControl(h.store, session.sessionId))
    .filter((c) => c.channel === "hook-fired");
  assert.equal(stored.length, 31);
  assert.equal(stored[0]!.rendered, first);
  assert.equal(stored[0]!.wake, true);
});

class ChangingTool extends FakeTool {
  list: ToolSchema[];
  constructor(ops: FakeOperation[]) {
    super("mcp", ops);
    this.list = ops.map((o) => create(ToolSchemaSchema, o.schema));
  }
  override schemas(): Promise<ToolSchema[]> {
    return Promise.resolve(this.list);
  }
}

Deno.test("mcp-tools-changed: a re-list that changes the tools names them; a no-op re-list emits nothing", async () => {
  const a = op("a", ToolKind.DATA_SOURCE);
  const b = op("b", ToolKind.DATA_SOURCE);
  const mcp = new ChangingTool([{ schema: a }, { schema: b }]);
  const h = setup({
    script: [
      { toolCalls: [{ id: "c1", name: "a", input: {} }] },
      { toolCalls: [{ id: "c2", name: "c", input: {} }] },
      { text: "done" },
    ],
  });
  const spec: SessionSpec = {
    ...h.spec,
    tools: new Map([["mcp", mcp.toolSchemas]]),
    dynamicTools: new Map([["mcp", { all: true, names: [] }]]),
  };
  const deps: AgentDeps = { ...h.deps, tools: new Map([["mcp", mcp]]) };
  const session = await AgentSession.open(spec, deps);
  const run = session.send("go");
  // Round 1 re-lists the same tools (no-op); then "b" goes and "c" comes.
  mcp.list = [
    create(ToolSchemaSchema, a),
    create(ToolSchemaSchema, op("c", ToolKind.DATA_SOURCE)),
  ];
  await run.result;
  await session.close();
  assert.deepEqual(cpBlocks(h.model.requests[0]!, "mcp-tools-changed"), [
    '<cp:mcp-tools-changed server="mcp" added="1" removed="1">Added: mcp.c\nRemoved: mcp.b</cp:mcp-tools-changed>',
  ]);
  assert.equal(cpBlocks(h.model.requests[2]!, "mcp-tools-changed").length, 1);
  const stored = (await storedControl(h.store, session.sessionId))
    .filter((c) => c.channel === "mcp-tools-changed");
  assert.equal(stored.length, 1);
  assert.equal(stored[0]!.source, "mcp");
});

Deno.test("subagent: a child spawned through the supervisor reaches its parent as started and finished at the next round boundary", async () => {
  const registry = new SessionRegistry();
  const ref: { supervisor?: SubagentSupervisor } = {};
  let parentId = "";
  const spawn = op("spawn", ToolKind.DATA_SOURCE);
  const h = setup({
    script: [
      { toolCalls: [{ id: "s1", name: "spawn", input: {} }] },
      { text: "child result: all tests pass" }, // the child's only round
      { text: "noted" },
    ],
    ops: [{
      schema: spawn,
      run: async (_call, signal) => {
        const r = await ref.supervisor!.run(
          h.tool.identity,
          create(RunSessionRequestSchema, {
            parentSessionId: parentId,
            profile: "worker",
            prompt: "run the tests",
          }),
          signal,
        );
        return { child: r.sessionId ?? "" };
      },
    }],
    deps: { registry },
  });
  ref.supervisor = new SubagentSupervisor({
    registry,
    deps: () => h.deps,
    profile: () => ({
      spec: { ...h.spec, profile: "worker", controlPlane: undefined },
      maxDepth: 1,
    }),
  });
  const session = await AgentSession.open(h.spec, h.deps, {
    remainingDepth: 1,
    onEvent: (e) => h.events.push(e),
  });
  parentId = session.sessionId;
  await session.send("delegate").result;
  await session.close();
  const blocks = cpBlocks(h.model.requests[2]!, "subagent");
  assert.equal(blocks.length, 2);
  assert.match(
    blocks[0]!,
    /^<cp:subagent state="started" id="[0-9A-Z]{26}" kind="worker"><\/cp:subagent>$/,
  );
  assert.match(
    blocks[1]!,
    /^<cp:subagent state="finished" id="[0-9A-Z]{26}" kind="worker" rounds="1">child result: all tests pass<\/cp:subagent>$/,
  );
  const stored = (await storedControl(h.store, session.sessionId))
    .filter((c) => c.channel === "subagent");
  assert.equal(stored.length, 2);
});

Deno.test("agent-status: done ends the turn after its tools; continue asks for another round; stripped from history", async () => {
  const h = setup({
    script: [
      {
        text: 'thinking\n<cp:agent-status state="continue"></cp:agent-status>',
      },
      {
        text: 'writing\n<cp:agent-status state="done"/>',
        toolCalls: [{ id: "w", name: "write_file", input: { path: "a" } }],
      },
      { text: "never" },
    ],
  });
  const session = await h.open();
  const r = await session.send("go").result;
  await session.close();
  assert.equal(r.outcome, "done");
  assert.equal(h.model.requests.length, 2);
  const history = h.model.requests[1]!.messages;
  const texts = history.flatMap((m) =>
    m.content.flatMap((b) =>
      b.block.case === "text" ? [b.block.value.text] : []
    )
  );
  assert.ok(texts.includes("thinking"));
  assert.ok(texts.includes("Continue."));
  assert.ok(!texts.some((t) => t.includes("agent-status")));
  const stored = (await storedControl(h.store, session.sessionId))
    .filter((c) => c.channel === "agent-status");
  assert.deepEqual(stored.map((c) => c.attributes[0]!.value), [
    "continue",
    "done",
  ]);
  assert.equal(stored[0]!.direction, "agent_to_system");
});

Deno.test("agent-status: a malformed first block is a hard stop with a clear error; a duplicate after a good one is ignored", async () => {
  const bad = setup({
    script: [{
      text: 'x <cp:agent-status state="finished"></cp:agent-status>',
    }],
  });
  const s1 = await bad.open();
  const r1 = await s1.send("go").result;
  assert.equal(r1.outcome, "failed");
  assert.equal(r1.error?.code, "malformed_agent_status");
  assert.match(
    r1.error!.message,
    /state="finished" is not one of "done", "continue"/,
  );
  const end = bad.events.find((e) => e.type === "session_ended");
  assert.equal(end?.type === "session_ended" && end.status, "failed");

  const dup = setup({
    script: [{
      text:
        'ok <cp:agent-status state="done"/> <cp:agent-status state="oops"/>',
    }],
  });
  const s2 = await dup.open();
  const r2 = await s2.send("go").result;
  assert.equal(r2.outcome, "done");
  assert.ok(
    dup.events.some((e) =>
      e.type === "warning" && e.code === "control_malformed"
    ),
  );
  await s2.close();
});

Deno.test("goal-status: the goal keeps the session going until the agent declares it; the summary is a control event; stripped", async () => {
  const h = setup({
    script: [
      { text: "step one" },
      {
        text:
          'all green\n<cp:goal-status state="done">tests pass</cp:goal-status>',
      },
      { text: "never" },
    ],
  });
  const session = await h.open();
  session.setGoal("make the tests pass");
  const r = await session.send("start").result;
  await session.close();
  assert.equal(r.outcome, "done");
  assert.equal(session.goalState, "done");
  assert.equal(h.model.requests.length, 2);
  assert.equal(r.finalText, "all green");
  const goal = h.events.find((e) =>
    e.type === "control" && e.channel === "goal-status"
  );
  assert.equal(goal?.type === "control" && goal.body, "tests pass");
  const nudge = h.model.requests[1]!.messages.at(-1)!;
  assert.match(
    nudge.content[0]!.block.case === "text"
      ? nudge.content[0]!.block.value.text
      : "",
    /Keep working toward the session goal: make the tests pass/,
  );
});

Deno.test("the system prompt teaches the enabled channels only", async () => {
  const h = setup({
    script: [{ text: "x" }],
    spec: { controlPlane: { disable: ["time", "plan-mode"] } },
  });
  const session = await h.open();
  await session.send("go").result;
  await session.close();
  const section = h.model.requests[0]!.assembledContext.find((s) =>
    s.label === "control-plane"
  );
  assert.ok(section);
  const text = section.content.map((c) =>
    c.block.case === "text" ? c.block.value.text : ""
  ).join("");
  assert.match(text, /<cp:permission-denied tool reason-code path\?>/);
  assert.match(text, /<cp:agent-status state>/);
  assert.doesNotMatch(text, /<cp:time /);
  assert.doesNotMatch(text, /<cp:plan-mode /);
});

Deno.test("plugin-inject: a granted plugin serving the session wakes it through InjectControl; others are refused", async () => {
  const registry = new SessionRegistry();
  const h = setup({
    script: [{ text: "hi" }, { text: "looking at the log" }],
    deps: { registry },
  });
  const session = await h.open();
  await session.send("watch the log").result;
  const call = (
    grant: boolean,
    who = h.tool.identity,
    text = "ERROR: disk full",
  ) =>
    createCallbackService({
      identity: who,
      injectGrant: grant,
      services: { sessions: registry },
    }).injectControl(
      create(InjectControlRequestSchema, {
        sessionId: session.sessionId,
        text,
      }),
      {} as never,
    );
  assert.throws(() => call(false), /no inject grant/);
  assert.throws(
    () => call(true, { ...h.tool.identity, name: "stranger" }),
    (e: unknown) =>
      e instanceof GrpcStatusError && e.code === Code.PERMISSION_DENIED,
  );
  assert.deepEqual(await call(true, h.tool.identity, "  "), {
    outcome: "empty",
  });
  assert.deepEqual(await call(true), { outcome: "queued" });
  await session.idle();
  assert.deepEqual(cpBlocks(h.model.requests[1]!, "plugin-inject"), [
    '<cp:plugin-inject plugin="fs">ERROR: disk full</cp:plugin-inject>',
  ]);
  await session.close();
  const stored = (await storedControl(h.store, session.sessionId))
    .filter((c) => c.channel === "plugin-inject");
  assert.equal(stored.length, 1);
  assert.equal(stored[0]!.wake, true);
});

Deno.test("InjectControl with a channel: lsp-diagnostics is posted with its attributes; other channels and attributes are refused", async () => {
  const registry = new SessionRegistry();
  const h = setup({
    script: [{ text: "hi" }, { text: "I will fix bad.ts" }],
    deps: { registry },
  });
  const session = await h.open();
  await session.send("write bad.ts").result;
  const call = (channel: string, attributes: Record<string, string>) =>
    createCallbackService({
      identity: h.tool.identity,
      injectGrant: true,
      services: { sessions: registry },
    }).injectControl(
      create(InjectControlRequestSchema, {
        sessionId: session.sessionId,
        text: "bad.ts:1:7: Type 'string' is not assignable",
        channel,
        attributes,
      }),
      {} as never,
    );
  const invalid = (e: unknown) =>
    e instanceof GrpcStatusError && e.code === Code.INVALID_ARGUMENT;
  assert.throws(() => call("permission-denied", {}), invalid);
  assert.throws(() => call("plugin-inject", { plugin: "forged" }), invalid);
  assert.throws(
    () => call("lsp-diagnostics", { path: "bad.ts", count: "1", x: "y" }),
    (e: unknown) => invalid(e) && /no attribute "x"/.test(String(e)),
  );
  assert.throws(
    () => call("lsp-diagnostics", { path: "bad.ts" }),
    (e: unknown) => invalid(e) && /needs the attribute "count"/.test(String(e)),
  );
  assert.deepEqual(
    await call("lsp-diagnostics", { path: "bad.ts", count: "1" }),
    { outcome: "queued" },
  );
  // Not a wake channel: delivered with the next prompt.
  await session.send("go on").result;
  assert.deepEqual(cpBlocks(h.model.requests[1]!, "lsp-diagnostics"), [
    '<cp:lsp-diagnostics path="bad.ts" count="1">bad.ts:1:7: Type \'string\' is not assignable</cp:lsp-diagnostics>',
  ]);
  await session.close();
  const stored = (await storedControl(h.store, session.sessionId))
    .filter((c) => c.channel === "lsp-diagnostics");
  assert.equal(stored.length, 1);
  assert.equal(stored[0]!.source, "fs");
});

Deno.test("shell-notice: a crashed shell provider's watched background commands are reported lost once, never re-run", async () => {
  const bash = op("bash", ToolKind.DATA_SOURCE);
  let call = 0;
  const h = setup({
    script: [
      { toolCalls: [{ id: "b1", name: "bash", input: { command: "make" } }] },
      { toolCalls: [{ id: "b2", name: "bash", input: { command: "ls" } }] },
      { text: "I will check what make did." },
    ],
    ops: [{
      schema: bash,
      run: () =>
        call++ === 0
          ? { status: "background", background_id: "bg_7" }
          : toolError(ToolErrorCategory.PROCESS_CRASHED, "the plugin exited"),
    }],
  });
  const session = await h.open();
  await session.send("build").result;
  await session.close();
  assert.deepEqual(cpBlocks(h.model.requests[2]!, "shell-notice"), [
    '<cp:shell-notice kind="command-terminated">The &quot;fs&quot; tool provider crashed; its background commands bg_7 were terminated with it. Their outcome is unknown and they are never re-run automatically: check their effects before running them again.</cp:shell-notice>',
  ]);
  assert.deepEqual(cpBlocks(h.model.requests[2]!, "shell-exit"), [
    '<cp:shell-exit exec-id="bg_7" terminated="provider-crashed">The background command bg_7 was lost when &quot;fs&quot; crashed; no exit status will come.</cp:shell-exit>',
  ]);
  const stored = (await storedControl(h.store, session.sessionId))
    .filter((c) => c.channel === "shell-notice" || c.channel === "shell-exit");
  assert.equal(stored.length, 2);
});

Deno.test("agent-thinking, plan-revision, compact: thinking is stripped from history and from the live deltas, and shown; revisions and summaries stay in both; all persisted", async () => {
  const h = setup({
    script: [
      {
        text:
          "<cp:agent-thinking>read the config first, it is long enough to be split</cp:agent-thinking>Plan changed.\n" +
          '<cp:plan-revision from="1" to="2" reason="config first">swap steps</cp:plan-revision>\n' +
          '<cp:compact type="decision">read config before code</cp:compact>',
      },
      { text: "ok" },
    ],
  });
  const session = await h.open();
  await session.send("plan").result;
  await session.send("next").result;
  await session.close();
  const assistant = h.model.requests[1]!.messages.find((m) =>
    m.role === Role.ASSISTANT
  )!;
  const text = assistant.content.map((b) =>
    b.block.case === "text" ? b.block.value.text : ""
  ).join("");
  assert.equal(
    text,
    'Plan changed.\n<cp:plan-revision from="1" to="2" reason="config first">swap steps</cp:plan-revision>\n' +
      '<cp:compact type="decision">read config before code</cp:compact>',
  );
  // The scripted model streams the answer in two deltas: the live text is
  // the stored text (the split points are covered by live_filter_test.ts).
  const live = h.events.flatMap((e) => e.type === "text_delta" ? [e.text] : []);
  assert.equal(live.join(""), text + "ok");
  assert.ok(live.every((d) => !d.includes("agent-thinking")));
  const thinking = h.events.find((e) =>
    e.type === "control" && e.channel === "agent-thinking"
  );
  assert.equal(
    thinking?.type === "control" && thinking.body,
    "read the config first, it is long enough to be split",
  );
  const stored = (await storedControl(h.store, session.sessionId))
    .filter((c) => c.direction === "agent_to_system");
  assert.deepEqual(stored.map((c) => c.channel), [
    "agent-thinking",
    "plan-revision",
    "compact",
  ]);
});

Deno.test("turn-summary-missing: a profile asking for turn summaries reminds a turn without <cp:compact> once per turn; a turn about to end continues for it; persisted", async () => {
  const compact = '<cp:compact type="response">read a, answered</cp:compact>';
  const script: ScriptedTurn[] = [
    // Turn 1: a tool round without a summary, then an answer without one.
    { toolCalls: [{ id: "r1", name: "read_file", input: { path: "a" } }] },
    { text: "a holds 1" },
    // Turn 2: an answer without a summary continues the turn once.
    { text: "still 1" },
    { text: `Summary written.\n${compact}` },
    // Turn 3: summarised in its only round.
    { text: `1 again\n${compact}` },
  ];
  const h = setup({
    script,
    spec: { controlPlane: { disable: ["time"], turnSummaries: true } },
  });
  const session = await h.open();
  for (const p of ["read a", "again", "once more"]) {
    assert.equal((await session.send(p).result).outcome, "done");
  }
  await session.close();
  const expected =
    "<cp:turn-summary-missing>This turn has no summary yet. Before you end it, summarise it in &lt;cp:compact type=&quot;…&quot;&gt; blocks (type: fact, learning, decision, request, response or tool), one line each.</cp:turn-summary-missing>";
  const r = h.model.requests;
  assert.equal(r.length, 5);
  // Turn 1: after the tool round; the answer's miss is over the limit.
  assert.deepEqual(cpBlocks(r[0]!, "turn-summary-missing"), []);
  assert.deepEqual(cpBlocks(r[1]!, "turn-summary-missing"), [expected]);
  assert.deepEqual(
    h.events.filter((e) =>
      e.type === "warning" && e.code === "control_rate_limited"
    ).map((e) => e.type === "warning" && e.message),
    [
      "Dropped a turn-summary-missing control message from kernel: it is over its rate limit",
    ],
  );
  // Turn 2: the reminder forms a user message of its own after the answer.
  const last = r[3]!.messages.at(-1)!;
  assert.equal(last.role, Role.USER);
  assert.deepEqual(cpBlocks(r[3]!, "turn-summary-missing"), [
    expected,
    expected,
  ]);
  // Turn 3 summarised: no new reminder.
  assert.equal(cpBlocks(r[4]!, "turn-summary-missing").length, 2);
  const stored = (await storedControl(h.store, session.sessionId))
    .filter((c) => c.channel === "turn-summary-missing");
  assert.deepEqual(stored.map((c) => c.rendered), [expected, expected]);

  // Without turn_summaries the same unsummarised turn gets no reminder.
  const plain = setup({ script: [{ text: "a holds 1" }] });
  const s2 = await plain.open();
  await s2.send("read a").result;
  await s2.close();
  assert.equal(
    plain.events.filter((e) =>
      e.type === "control" && e.channel === "turn-summary-missing"
    ).length,
    0,
  );
});
