import assert from "node:assert/strict";
import { create, fromBinary } from "@bufbuild/protobuf";
import { ToolSchemaSchema } from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { ToolEventSchema } from "../../proto/gen/pluggableharness/tool/v1/events_pb.ts";
import {
  ApplyEventSchema,
  HookErrorEventSchema,
  MessageEventSchema,
  ToolResultEventSchema,
} from "../../proto/gen/pluggableharness/event/v1/events_pb.ts";
import { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import { HookDecision } from "../../proto/gen/pluggableharness/hook/v1/types_pb.ts";
import { SessionStatus } from "../../proto/gen/pluggableharness/session/v1/types_pb.ts";
import { ToolErrorCategory } from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import type { StreamCompletionRequest } from "../../proto/gen/pluggableharness/model/v1/rpc_request_pb.ts";
import type { PolicyRule } from "../../contract/policy.ts";
import { eventKindInfo } from "../state/event_kinds.ts";
import { SessionRegistry } from "../state/session_registry.ts";
import type { MemorySessionStore } from "../state/memory_session_store.ts";
import type {
  EmitInput,
  EmitOptions,
  SessionLog,
} from "../state/session_store.ts";
import { toolError } from "./_proto.ts";
import { SchemaType } from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import {
  ack,
  collect,
  FakeHook,
  FakeModel,
  type FakeOperation,
  FakeTool,
  hang,
  memoryStore,
  ModelErrorCategory,
  modelSpec,
  op,
  recordingSleep,
  type ScriptedTurn,
  textPreview,
  ToolKind,
} from "./_testing.ts";
import { AgentSession } from "./session.ts";
import { runSession, type RunSessionOptions } from "./run_session.ts";
import type { AgentDeps } from "./agent_deps.ts";
import { pathsOf } from "./_call_record.ts";
import { exitCodeOf } from "./exit_codes.ts";
import { CostBudget } from "../../contract/cost.ts";
import { replaySession } from "./history.ts";
import type { SessionEvent } from "./session_events.ts";
import type { HookSubscription, SessionSpec } from "./session_spec.ts";

// ---------------------------------------------------------------- harness

const READ = op("read_file", ToolKind.DATA_SOURCE, {
  concurrency: { safe: true },
});
const WRITE = op("write_file", ToolKind.RESOURCE);
const ALLOW_ALL: PolicyRule[] = [
  { name: "writes_ok", match: { kind: "resource" }, action: "allow" },
];

interface Setup {
  script: (
    | ScriptedTurn
    | ((req: StreamCompletionRequest, i: number) => ScriptedTurn)
  )[];
  ops?: FakeOperation[];
  hooks?: (HookSubscription & { hook: FakeHook })[];
  spec?: Partial<SessionSpec>;
  deps?: Partial<AgentDeps>;
  log?: string[];
}

function setup(s: Setup) {
  const store = memoryStore();
  const model = new FakeModel("llm", s.script, s.log ? { log: s.log } : {});
  const tool = new FakeTool(
    "fs",
    s.ops ?? [{ schema: READ }, { schema: WRITE }],
    s.log ? { log: s.log } : {},
  );
  const sleep = recordingSleep();
  const hookEndpoints = new Map(
    (s.hooks ?? []).map((h) => [h.provider, h.hook]),
  );
  const spec: SessionSpec = {
    profile: "test",
    models: [{ provider: "llm", id: "m1" }],
    tools: new Map([["fs", tool.toolSchemas]]),
    hooks: s.hooks ?? [],
    workingDirectory: "/work",
    ...s.spec,
  };
  const deps: AgentDeps = {
    store,
    models: new Map([["llm", model]]),
    tools: new Map([["fs", tool]]),
    hooks: hookEndpoints,
    sleep: sleep.sleep,
    random: () => 0,
    ...s.deps,
  };
  return {
    store,
    model,
    tool,
    spec,
    deps,
    delays: sleep.delays,
    run: (options: RunSessionOptions = { prompt: "go" }) =>
      collect(runSession(spec, deps, options)),
  };
}

async function stored(store: MemorySessionStore, sessionId: string) {
  const log = await store.open(sessionId);
  try {
    const events = [];
    for await (const e of log.readEvents()) events.push(e);
    return {
      events,
      kinds: events.map((e) => eventKindInfo(e.kind).text),
      info: await log.info(),
      planItems: await log.planItems(),
      ledger: await log.costLedger(),
    };
  } finally {
    await log.close();
  }
}

function ofType<T extends SessionEvent["type"]>(
  events: SessionEvent[],
  type: T,
): Extract<SessionEvent, { type: T }>[] {
  return events.filter((e) => e.type === type) as Extract<
    SessionEvent,
    { type: T }
  >[];
}

function lastToolResults(
  req: StreamCompletionRequest,
): { id: string; isError: boolean; text: string }[] {
  const m = req.messages.findLast((m) =>
    m.content.some((b) => b.block.case === "toolResult")
  );
  return (m?.content ?? []).flatMap((b) =>
    b.block.case === "toolResult"
      ? [{
        id: b.block.value.toolUseId,
        isError: b.block.value.isError,
        text: b.block.value.content.map((c) =>
          c.block.case === "text" ? c.block.value.text : ""
        ).join(""),
      }]
      : []
  );
}

const delayed =
  (ms: number, out: Record<string, string> = { ok: "yes" }) => async () => {
    await new Promise((r) => setTimeout(r, ms));
    return out;
  };

// ------------------------------------------------------------ §6.9 rows

Deno.test("§6.9-1 the turn's steps run in the documented order", async () => {
  const log: string[] = [];
  const points = [
    "session-start",
    "pre-model-call",
    "post-model-response",
    "pre-tool-call",
    "plan-ready",
    "post-tool-call",
    "post-apply",
    "session-end",
  ] as const;
  const obs = new FakeHook("obs", ack, { log });
  const h = setup({
    log,
    script: [
      {
        toolCalls: [
          { id: "r1", name: "read_file", input: { path: "a" } },
          { id: "w1", name: "write_file", input: { path: "b", text: "x" } },
        ],
      },
      { text: "done" },
    ],
    hooks: points.map((point) => ({
      point,
      provider: "obs",
      mode: "observe" as const,
      hook: obs,
    })),
    spec: { policies: ALLOW_ALL },
  });
  const { result, events } = await h.run();
  assert.equal(result.status, "completed");
  assert.deepEqual(log, [
    "hook:sessionStart:obs",
    "hook:preModelCall:obs",
    "model:llm",
    "hook:postModelResponse:obs",
    "hook:preToolCall:obs",
    "hook:preToolCall:obs",
    "tool:read_file",
    "hook:planReady:obs",
    "tool:write_file",
    "hook:postToolCall:obs",
    "hook:postToolCall:obs",
    "hook:postApply:obs",
    "hook:preModelCall:obs",
    "model:llm",
    "hook:postModelResponse:obs",
    "hook:sessionEnd:obs",
  ]);
  // post-tool-call follows tool_use order, not kind or completion order.
  const post = obs.requests.filter((r) =>
    r.payload?.payload.case === "postToolCall"
  );
  assert.deepEqual(
    post.map((r) =>
      r.payload?.payload.case === "postToolCall" &&
      r.payload.payload.value.call?.id
    ),
    ["r1", "w1"],
  );
  const s = await stored(h.store, result.sessionId);
  assert.deepEqual(s.kinds, [
    "message", // prompt
    "message", // assistant (tool use)
    "tool_call",
    "tool_call",
    "tool_result", // read
    "plan",
    "tool_result", // write
    "apply",
    "message", // final answer
  ]);
  assert.deepEqual(
    events.map((e) => e.type).filter((t) => t !== "text_delta"),
    [
      "session_started",
      "message",
      "turn_started",
      "message",
      "tool_call",
      "tool_call",
      "tool_result",
      "plan",
      "tool_result",
      "apply",
      "turn_started",
      "message",
      "session_ended",
    ],
  );
  // The tool results reach the model in tool_use order.
  assert.deepEqual(lastToolResults(h.model.requests[1]!).map((r) => r.id), [
    "r1",
    "w1",
  ]);
});

/**
 * The store of `h` with a record of the writes the session deferred
 * (`SessionLog.emit`'s `defer`), by kind.
 */
function deferralsOf(store: MemorySessionStore): {
  store: MemorySessionStore;
  deferred: string[];
} {
  const deferred: string[] = [];
  const wrap = (log: SessionLog): SessionLog =>
    new Proxy(log, {
      get(target, key) {
        if (key === "emit") {
          return (input: EmitInput, options?: EmitOptions) => {
            if (options?.defer) deferred.push(eventKindInfo(input.kind).text);
            return target.emit(input, options);
          };
        }
        const v = Reflect.get(target, key, target);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
  const proxy = new Proxy(store, {
    get(target, key) {
      if (key === "create" || key === "open") {
        return async (arg: never) => wrap(await target[key](arg));
      }
      const v = Reflect.get(target, key, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return { store: proxy, deferred };
}

Deno.test("a read turn's message commits with its tool_call and its tool_result with the round's stamp, events and order unchanged", async () => {
  const script: ScriptedTurn[] = [
    { text: "One.", toolCalls: [{ name: "read_file", input: { path: "a" } }] },
    { text: "Two.", toolCalls: [{ name: "read_file", input: { path: "b" } }] },
    { text: "Done." },
  ];
  const base = setup({ script, spec: { controlPlane: {} } });
  const { store, deferred } = deferralsOf(base.store);
  const h = setup({ script, spec: { controlPlane: {} }, deps: { store } });
  const { events, result } = await h.run();
  assert.equal(result.status, "completed");
  // Deferred: each read turn's message (it joins the tool_call's commit)
  // and its only tool_result (it joins the time stamp's).
  assert.deepEqual(deferred, [
    "message",
    "tool_result",
    "message",
    "tool_result",
  ]);
  const types = events.map((e) => e.type);
  const first = types.indexOf("tool_call");
  assert.deepEqual(types.slice(first - 1, first + 4), [
    "message",
    "tool_call",
    "tool_result",
    "control",
    "turn_started",
  ]);
  const s = await stored(base.store, result.sessionId);
  const from = s.kinds.indexOf("tool_call");
  assert.deepEqual(s.kinds.slice(from - 1, from + 4), [
    "message",
    "tool_call",
    "tool_result",
    "control",
    "message",
  ]);
  assert.equal((await base.store.verify(result.sessionId)).ok, true);
});

Deno.test("a post-tool-call subscriber keeps the tool_result's own commit, a pre-tool-call subscriber the message's", async () => {
  const script: ScriptedTurn[] = [
    { text: "One.", toolCalls: [{ name: "read_file", input: { path: "a" } }] },
    { text: "Done." },
  ];
  for (const point of ["post-tool-call", "pre-tool-call"] as const) {
    const base = setup({ script });
    const { store, deferred } = deferralsOf(base.store);
    const hook = new FakeHook("h", ack);
    const h = setup({
      script,
      spec: { controlPlane: {} },
      deps: { store },
      hooks: [{
        provider: "h",
        point,
        mode: point === "pre-tool-call" ? "veto" : "observe",
        hook,
      }],
    });
    const { result } = await h.run();
    assert.equal(result.status, "completed", point);
    assert.deepEqual(
      deferred,
      point === "post-tool-call" ? ["message"] : ["tool_result"],
      point,
    );
  }
});

Deno.test("§6.9-2 max_turns is configurable and ends through the final-answer turn", async () => {
  const h = setup({
    script: [
      (req) =>
        req.tools.length === 0 ? { text: "final answer" } : {
          toolCalls: [{
            name: "read_file",
            input: { path: String(Math.random()) },
          }],
        },
    ],
    spec: { bounds: { maxTurns: 2 } },
  });
  const { result, events } = await h.run();
  assert.equal(result.status, "error_max_turns");
  assert.equal(result.boundFired, "max_turns");
  assert.equal(result.finalText, "final answer");
  assert.equal(h.model.requests.length, 3, "two turns, then exactly one more");
  assert.equal(
    h.model.requests[2]!.tools.length,
    0,
    "the final turn withholds tools",
  );
  assert.ok(h.model.requests[1]!.tools.length > 0);
  const lastUser = h.model.requests[2]!.messages.at(-1)!;
  assert.match(JSON.stringify(lastUser.content), /maximum number of turns/);
  assert.deepEqual(ofType(events, "bound_fired").map((e) => e.bound), [
    "max_turns",
  ]);
  assert.equal(exitCodeOf(result), 5);
  const s = await stored(h.store, result.sessionId);
  assert.equal(s.info.status, SessionStatus.ERROR_MAX_TURNS);
});

Deno.test("§6.9-3 cost_usd is computed from declared pricing and accumulated", async () => {
  const h = setup({
    script: [
      {
        toolCalls: [{ name: "read_file", input: { path: "a" } }],
        usage: { input: 1_000, output: 100 },
      },
      { text: "ok", usage: { input: 2_000, output: 200 } },
    ],
  });
  const { result, events } = await h.run();
  const first = (1_000 * 3 + 100 * 15) / 1e6;
  const second = (2_000 * 3 + 200 * 15) / 1e6;
  const costs = ofType(events, "message").filter((m) => m.role === "assistant")
    .map((m) => m.costUsd);
  assert.deepEqual(costs, [first, second]);
  assert.ok(Math.abs(result.totalCostUsd - (first + second)) < 1e-12);
  const s = await stored(h.store, result.sessionId);
  assert.deepEqual(
    s.ledger.map((
      r,
    ) => [r.providerName, r.modelId, r.inputTokens, r.outputTokens, r.costUsd]),
    [
      ["llm", "m1", 1_000, 100, first],
      ["llm", "m1", 2_000, 200, second],
    ],
  );
  const msg = fromBinary(MessageEventSchema, s.events[1]!.payload);
  assert.equal(msg.costUsd, first);
  assert.equal(msg.model?.name, "llm");
  assert.equal(s.events[1]!.producer.category, "model");
});

Deno.test("§6.9-4 a session's spend is debited from its parent's budget", async () => {
  const parent = new CostBudget(1);
  const h = setup({
    script: [{ text: "hi", usage: { input: 100_000, output: 0 } }],
  });
  const { result } = await h.run({ prompt: "go", parentBudget: parent });
  assert.equal(result.status, "completed");
  assert.ok(Math.abs(parent.remainingUsd - (1 - 0.3)) < 1e-12);
  // A child whose parent has less left is capped by the parent.
  const h2 = setup({
    script: [
      (req) =>
        req.tools.length
          ? {
            toolCalls: [{ name: "read_file", input: {} }],
            usage: { input: 100_000, output: 0 },
          }
          : { text: "bye" },
    ],
    spec: { bounds: { maxCostUsd: 100 } },
  });
  const { result: r2 } = await h2.run({ prompt: "go", parentBudget: parent });
  assert.equal(
    r2.status,
    "error_max_budget_usd",
    "the parent's $0.70 caps the child's $100",
  );
  assert.equal(h2.model.requests.length, 4);
});

Deno.test("§6.9-5 every bound fires a graceful final-answer turn", async (t) => {
  await t.step("max_cost_usd", async () => {
    const h = setup({
      script: [
        (req) =>
          req.tools.length === 0 ? { text: "summary" } : {
            toolCalls: [{ name: "read_file", input: { n: Math.random() } }],
            usage: { input: 100_000, output: 0 },
          },
      ],
      spec: { bounds: { maxCostUsd: 0.5 } },
    });
    const { result } = await h.run();
    assert.equal(result.status, "error_max_budget_usd");
    assert.equal(
      h.model.requests.length,
      3,
      "$0.30 + $0.30 ≥ $0.50, then the final turn",
    );
    assert.equal(h.model.requests[2]!.tools.length, 0);
    assert.equal(result.finalText, "summary");
  });
  await t.step("max_wall_clock_s", async () => {
    let now = 1_000_000;
    const h = setup({
      script: [(req) => {
        now += 40_000;
        return req.tools.length === 0
          ? { text: "late answer" }
          : { toolCalls: [{ name: "read_file", input: { n: Math.random() } }] };
      }],
      spec: { bounds: { maxWallClockS: 60 } },
      deps: { now: () => now },
    });
    const { result } = await h.run();
    assert.equal(result.status, "error_max_wall_clock");
    assert.equal(h.model.requests.length, 3);
    assert.equal(result.finalText, "late answer");
  });
  await t.step(
    "DoneCheck takes precedence over a bound that fired on the last turn",
    async () => {
      const h = setup({
        script: [
          { toolCalls: [{ name: "read_file", input: {} }] },
          { text: "finished on the last allowed turn" },
        ],
        spec: { bounds: { maxTurns: 2 } },
      });
      const { result, events } = await h.run();
      assert.equal(result.status, "completed");
      assert.equal(result.boundFired, undefined);
      assert.equal(ofType(events, "bound_fired").length, 0);
      assert.equal(h.model.requests.length, 2);
    },
  );
  await t.step(
    "a failing final turn still ends with the bound's status",
    async () => {
      const h = setup({
        script: [
          { toolCalls: [{ name: "read_file", input: {} }] },
          { error: { category: ModelErrorCategory.AUTH_ERROR } },
        ],
        spec: { bounds: { maxTurns: 1 } },
      });
      const { result } = await h.run();
      assert.equal(result.status, "error_max_turns");
      assert.equal(result.error?.code, "auth_error");
    },
  );
});

Deno.test("§6.9-6 a response without tool calls ends the loop successfully", async () => {
  const h = setup({ script: [{ text: "Hello there" }] });
  const { result, events } = await h.run();
  assert.equal(result.status, "completed");
  assert.equal(result.finalText, "Hello there");
  assert.equal(h.model.requests.length, 1);
  assert.equal(exitCodeOf(result), 0);
  assert.deepEqual(
    ofType(events, "text_delta").map((e) => e.text).join(""),
    "Hello there",
  );
  const s = await stored(h.store, result.sessionId);
  assert.equal(s.info.status, SessionStatus.COMPLETED);
});

Deno.test("§6.9-7 a kernel-owned doom-loop detector fires after threshold identical calls", async (t) => {
  for (const threshold of [3, 4, 5]) {
    await t.step(`threshold ${threshold}`, async () => {
      const h = setup({
        script: [(req, i) =>
          req.tools.length === 0
            ? { text: "I was looping" }
            // The same call, with its keys in a different order each time.
            : {
              toolCalls: [{
                name: "read_file",
                input: i % 2 ? { a: 1, b: 2 } : { b: 2, a: 1 },
              }],
            }],
        spec: threshold === 4 ? {} : { doomLoop: { threshold } },
      });
      const { result, events } = await h.run();
      assert.deepEqual(ofType(events, "bound_fired").map((e) => e.bound), [
        "doom_loop",
      ]);
      assert.equal(h.model.requests.length, threshold + 1);
      assert.equal(h.model.requests.at(-1)!.tools.length, 0);
      // No dedicated status exists: ref-impl ends a doom loop as completed.
      assert.equal(result.status, "completed");
      assert.equal(result.boundFired, "doom_loop");
      assert.equal(exitCodeOf(result), 5);
    });
  }
});

Deno.test("§6.9-8 data-source calls run concurrently by default, with no declaration", async () => {
  const h = setup({
    ops: [{ schema: op("search", ToolKind.DATA_SOURCE), run: delayed(30) }],
    script: [
      {
        toolCalls: [1, 2, 3].map((n) => ({ name: "search", input: { q: n } })),
      },
      { text: "done" },
    ],
  });
  const { result } = await h.run();
  assert.equal(result.status, "completed");
  assert.equal(h.tool.maxConcurrent, 3);
});

Deno.test("§6.9-9 resource calls run sequentially when ConcurrencySpec is undeclared", async () => {
  const h = setup({
    ops: [{ schema: op("write_file", ToolKind.RESOURCE), run: delayed(10) }],
    script: [
      {
        toolCalls: [1, 2, 3].map((n) => ({
          id: `w${n}`,
          name: "write_file",
          input: { path: `f${n}` },
        })),
      },
      { text: "done" },
    ],
    spec: { policies: ALLOW_ALL },
  });
  const { result, events } = await h.run();
  assert.equal(result.status, "completed");
  assert.equal(h.tool.maxConcurrent, 1);
  assert.deepEqual(h.tool.invocations.map((i) => i.id), ["w1", "w2", "w3"]);
  assert.deepEqual(ofType(events, "apply")[0]!.items.map((i) => i.outcome), [
    "applied",
    "applied",
    "applied",
  ]);
});

Deno.test("§6.9-10 ConcurrencySpec governs scheduling, not the kind", async (t) => {
  await t.step(
    "a data source declaring safe: false runs sequentially",
    async () => {
      const h = setup({
        ops: [{
          schema: op("scan", ToolKind.DATA_SOURCE, {
            concurrency: { safe: false },
          }),
          run: delayed(10),
        }],
        script: [{
          toolCalls: [1, 2, 3].map((n) => ({ name: "scan", input: { n } })),
        }, { text: "ok" }],
      });
      await h.run();
      assert.equal(h.tool.maxConcurrent, 1);
    },
  );
  await t.step(
    "a resource keyed by path runs distinct paths concurrently",
    async () => {
      const h = setup({
        ops: [{
          schema: op("write_file", ToolKind.RESOURCE, {
            concurrency: { safe: true, keyFields: ["path"] },
          }),
          run: delayed(20),
        }],
        script: [
          {
            toolCalls: ["a", "b", "c"].map((p) => ({
              name: "write_file",
              input: { path: p },
            })),
          },
          { text: "ok" },
        ],
        spec: { policies: ALLOW_ALL },
      });
      await h.run();
      assert.equal(h.tool.maxConcurrent, 3);
    },
  );
  await t.step("the same key runs sequentially", async () => {
    const h = setup({
      ops: [{
        schema: op("write_file", ToolKind.RESOURCE, {
          concurrency: { safe: true, keyFields: ["path"] },
        }),
        run: delayed(10),
      }],
      script: [
        {
          toolCalls: [1, 2].map((n) => ({
            name: "write_file",
            input: { path: "same", n },
          })),
        },
        { text: "ok" },
      ],
      spec: { policies: ALLOW_ALL },
    });
    await h.run();
    assert.equal(h.tool.maxConcurrent, 1);
  });
});

Deno.test("§6.9-11 the session dispatches each point's subscribers in declaration order", async () => {
  const log: string[] = [];
  const subs = ["first", "second", "third"].map((name, i) => ({
    point: "plan-ready" as const,
    provider: name,
    mode: (["observe", "veto", "observe"] as const)[i]!,
    hook: new FakeHook(name, ack, { log }),
  }));
  const h = setup({
    script: [{ toolCalls: [{ name: "write_file", input: {} }] }, {
      text: "ok",
    }],
    hooks: subs,
    spec: { policies: ALLOW_ALL },
  });
  await h.run();
  assert.deepEqual(log, [
    "hook:planReady:first",
    "hook:planReady:second",
    "hook:planReady:third",
  ]);
});

Deno.test("§6.9-12 a failing observe subscriber never alters the payload or the loop", async () => {
  const broken = new FakeHook("audit", () => {
    throw new Error("disk full");
  });
  const slow = new FakeHook("slow", hang);
  const h = setup({
    script: [{ toolCalls: [{ name: "write_file", input: {} }] }, {
      text: "ok",
    }],
    hooks: [
      {
        point: "pre-model-call",
        provider: "audit",
        mode: "observe",
        hook: broken,
      },
      {
        point: "plan-ready",
        provider: "slow",
        mode: "observe",
        hook: slow,
        timeoutMs: 10,
      },
    ],
    spec: { policies: ALLOW_ALL },
  });
  const { result, events } = await h.run();
  assert.equal(result.status, "completed");
  assert.equal(h.tool.invocations.length, 1, "the write was applied");
  assert.deepEqual(
    ofType(events, "hook_error").map((e) => [e.subscriber, e.category]),
    [
      ["audit", "unknown"],
      ["slow", "timeout"],
      ["audit", "unknown"],
    ],
  );
  const s = await stored(h.store, result.sessionId);
  const errors = s.events.filter((e) => e.kind === EventKind.HOOK_ERROR);
  assert.equal(errors.length, 3);
  assert.equal(
    errors[0]!.producer.name,
    "audit",
    "hook_error carries the subscriber's identity",
  );
});

Deno.test("§6.9-13 a failing transform aborts the chain and surfaces hook_error", async (t) => {
  await t.step(
    "at pre-model-call the turn cannot proceed: the session fails",
    async () => {
      const redactor = new FakeHook("redactor", () => {
        throw new Error("redaction service unavailable");
      });
      const after = new FakeHook("after");
      const h = setup({
        script: [{ text: "never" }],
        hooks: [
          {
            point: "pre-model-call",
            provider: "redactor",
            mode: "transform",
            hook: redactor,
          },
          {
            point: "pre-model-call",
            provider: "after",
            mode: "observe",
            hook: after,
          },
        ],
      });
      const { result, events } = await h.run();
      assert.equal(result.status, "failed");
      assert.equal(result.error?.code, "hook_transform_failed");
      assert.equal(
        h.model.requests.length,
        0,
        "no silent fallback to the untransformed request",
      );
      assert.equal(after.requests.length, 0);
      assert.equal(
        ofType(events, "hook_error")[0]?.category,
        "transform_failed",
      );
      const s = await stored(h.store, result.sessionId);
      const e = s.events.find((e) => e.kind === EventKind.HOOK_ERROR)!;
      assert.equal(e.producer.name, "redactor");
      assert.equal(
        fromBinary(HookErrorEventSchema, e.payload).error?.subscriber?.name,
        "redactor",
      );
    },
  );
  await t.step(
    "a successful transform rewrites this request only",
    async () => {
      const redactor = new FakeHook("redactor", (req) => {
        const p = structuredClone(req.payload!);
        if (p.payload.case === "preModelCall") {
          p.payload.value.messages = p.payload.value.messages.slice(-1).map((
            m,
          ) => ({
            ...m,
            content: [{
              ...m.content[0]!,
              block: {
                case: "text",
                value: {
                  $typeName: "pluggableharness.content.v1.TextBlock",
                  text: "REDACTED",
                },
              },
            }],
          }));
        }
        return { outcome: { case: "transform", value: { payload: p } } };
      });
      const h = setup({
        script: [{ text: "ok" }],
        hooks: [{
          point: "pre-model-call",
          provider: "redactor",
          mode: "transform",
          hook: redactor,
        }],
      });
      const { result } = await h.run({ prompt: "my secret" });
      assert.equal(result.status, "completed");
      assert.match(
        JSON.stringify(h.model.requests[0]!.messages[0]!.content),
        /REDACTED/,
      );
      const s = await stored(h.store, result.sessionId);
      const prompt = fromBinary(MessageEventSchema, s.events[0]!.payload)
        .message!;
      assert.match(
        JSON.stringify(prompt.content),
        /my secret/,
        "the durable history keeps the pre-hook messages",
      );
    },
  );
});

Deno.test("§6.9-14 a failing veto subscriber fails closed at plan-ready and pre-tool-call", async (t) => {
  for (
    const [point, behaviour] of [
      ["plan-ready", () => {
        throw new Error("guard crashed");
      }],
      ["plan-ready", hang],
      ["pre-tool-call", () => {
        throw new Error("guard crashed");
      }],
    ] as const
  ) {
    await t.step(
      `${point}: ${behaviour === hang ? "timeout" : "error"}`,
      async () => {
        const guard = new FakeHook("guard", behaviour);
        const h = setup({
          script: [
            { toolCalls: [{ id: "w1", name: "write_file", input: {} }] },
            { text: "ok" },
          ],
          hooks: [{
            point,
            provider: "guard",
            mode: "veto",
            hook: guard,
            timeoutMs: 15,
          }],
          spec: { policies: ALLOW_ALL },
        });
        const { result, events } = await h.run();
        assert.equal(result.status, "completed");
        assert.equal(h.tool.invocations.length, 0, "the write never ran");
        const denied = ofType(events, "tool_result")[0]!;
        assert.equal(denied.deniedBy, "hook-veto:guard");
        assert.deepEqual(lastToolResults(h.model.requests[1]!), [{
          id: "w1",
          isError: true,
          text:
            "Error (permission_denied): The call was denied by hook-veto:guard and was not executed.",
        }]);
        assert.equal(ofType(events, "hook_error").length, 1);
      },
    );
  }
  await t.step(
    "a plugin veto cannot override a policy deny, and is recorded per item",
    async () => {
      const guard = new FakeHook(
        "guard",
        () => ({
          outcome: { case: "veto", value: { decision: HookDecision.DENY } },
        }),
      );
      const h = setup({
        ops: [{ schema: WRITE }, { schema: op("delete", ToolKind.RESOURCE) }],
        script: [{
          toolCalls: [{ name: "write_file", input: {} }, {
            name: "delete",
            input: {},
          }],
        }, { text: "ok" }],
        hooks: [{
          point: "plan-ready",
          provider: "guard",
          mode: "veto",
          hook: guard,
        }],
        spec: {
          policies: [...ALLOW_ALL, {
            name: "never_delete",
            match: { toolName: "delete" },
            action: "deny",
          }],
        },
      });
      const { result } = await h.run();
      const s = await stored(h.store, result.sessionId);
      assert.deepEqual(
        s.planItems.map((p) => [p.toolName, p.decision, p.decidedBy]),
        [
          ["write_file", "deny", "hook-veto:guard"],
          ["delete", "deny", "policy:never_delete"],
        ],
      );
      const planEvent = s.events.find((e) => e.kind === EventKind.PLAN)!;
      assert.equal(planEvent.producer.category, "kernel");
    },
  );
});

Deno.test("§6.9-15 hook timeouts apply to every invocation in a session", async () => {
  const slow = new FakeHook("slow", hang);
  const h = setup({
    script: [{ toolCalls: [{ name: "read_file", input: {} }] }, { text: "ok" }],
    hooks: [{
      point: "post-tool-call",
      provider: "slow",
      mode: "observe",
      hook: slow,
    }],
    spec: { defaultHookTimeoutMs: 10 },
  });
  const started = performance.now();
  const { result, events } = await h.run();
  assert.equal(result.status, "completed");
  assert.ok(performance.now() - started < 2_000);
  assert.deepEqual(ofType(events, "hook_error").map((e) => e.category), [
    "timeout",
  ]);
});

Deno.test("§6.9-16 transform and veto subscribers of a session run one at a time", async () => {
  const tracker = { inFlight: 0, max: 0 };
  const slowAck = async (req: Parameters<typeof ack>[0]) => {
    await new Promise((r) => setTimeout(r, 5));
    return ack(req);
  };
  const hooks = ["a", "b", "c"].map((name, i) => ({
    point: "pre-tool-call" as const,
    provider: name,
    mode: i === 1 ? "transform" as const : "veto" as const,
    hook: new FakeHook(name, slowAck, { tracker }),
  }));
  const h = setup({
    script: [{
      toolCalls: [1, 2].map((n) => ({ name: "read_file", input: { n } })),
    }, { text: "ok" }],
    hooks,
  });
  await h.run();
  assert.equal(tracker.max, 1);
  assert.equal(hooks[0]!.hook.requests.length, 2);
});

Deno.test("§6.9-17 policy is evaluated per plan item", async () => {
  const h = setup({
    ops: [{ schema: WRITE }, {
      schema: op("delete", ToolKind.RESOURCE, { risk: 5 }),
    }, { schema: op("touch", ToolKind.RESOURCE) }],
    script: [
      {
        toolCalls: [
          { name: "write_file", input: { path: "a" } },
          { name: "delete", input: { path: "b" } },
          { name: "touch", input: { path: "c" } },
        ],
      },
      { text: "ok" },
    ],
    spec: {
      policies: [
        {
          name: "writes_ok",
          match: { toolName: "write_file" },
          action: "allow",
        },
        { name: "no_critical", match: { risk: "critical" }, action: "deny" },
      ],
    },
  });
  const { result, events } = await h.run();
  const plan = ofType(events, "plan")[0]!;
  assert.deepEqual(plan.items.map((i) => [i.tool, i.decision, i.decidedBy]), [
    ["write_file", "allow", "policy:writes_ok"],
    ["delete", "deny", "policy:no_critical"],
    ["touch", "ask", "policy:default"],
  ]);
  const s = await stored(h.store, result.sessionId);
  assert.deepEqual(
    s.planItems.map((p) => [p.toolName, p.decision, p.decidedBy]),
    [
      ["write_file", "allow", "policy:writes_ok"],
      ["delete", "deny", "policy:no_critical"],
      ["touch", "ask", "policy:default"],
    ],
  );
  // Headless default on_ask = deny: the ask became a denial without hanging.
  assert.deepEqual(h.tool.invocations.map((i) => i.tool), ["write_file"]);
  const apply = fromBinary(
    ApplyEventSchema,
    s.events.find((e) => e.kind === EventKind.APPLY)!.payload,
  );
  assert.equal(apply.result?.items.length, 3);
});

Deno.test("§6.9-18 a denial becomes a tool_result the model sees, naming the rule", async () => {
  const h = setup({
    script: [
      {
        toolCalls: [{ id: "w1", name: "write_file", input: { path: "x" } }, {
          id: "r1",
          name: "read_file",
          input: {},
        }],
      },
      { text: "understood" },
    ],
    spec: {
      policies: [{
        name: "no_writes",
        match: { kind: "resource" },
        action: "deny",
      }],
    },
  });
  const { result } = await h.run();
  assert.equal(result.status, "completed");
  const results = lastToolResults(h.model.requests[1]!);
  assert.deepEqual(results.map((r) => [r.id, r.isError]), [["w1", true], [
    "r1",
    false,
  ]]);
  assert.match(results[0]!.text, /denied by policy:no_writes/);
  const s = await stored(h.store, result.sessionId);
  const denial = s.events.filter((e) => e.kind === EventKind.TOOL_RESULT)
    .map((e) => fromBinary(ToolResultEventSchema, e.payload))
    .find((r) => r.toolCallId === "w1")!;
  assert.equal(denial.outcome.case, "error");
  assert.equal(
    denial.outcome.case === "error" && denial.outcome.value.category,
    ToolErrorCategory.PERMISSION_DENIED,
  );
});

Deno.test("§6.9-19 plan mode removes resource tool schemas from the request", async () => {
  const h = setup({
    script: [{ toolCalls: [{ name: "write_file", input: {} }] }, {
      text: "ok",
    }],
    spec: { planMode: true, policies: ALLOW_ALL },
  });
  const { events } = await h.run();
  assert.deepEqual(h.model.requests[0]!.tools.map((t) => t.name), [
    "read_file",
  ]);
  assert.equal(h.tool.invocations.length, 0);
  assert.equal(
    ofType(events, "plan").length,
    0,
    "no plan: the call is out of scope",
  );
  assert.match(lastToolResults(h.model.requests[1]!)[0]!.text, /not available/);
});

Deno.test("§6.9-20 data-source and interactive calls are prechecked; a winning ask becomes deny", async () => {
  const h = setup({
    ops: [
      { schema: READ },
      { schema: op("grep", ToolKind.DATA_SOURCE) },
      { schema: op("ask_user", ToolKind.INTERACTIVE) },
      { schema: op("fetch", ToolKind.DATA_SOURCE) },
    ],
    script: [
      {
        toolCalls: [
          { id: "1", name: "read_file", input: {} },
          { id: "2", name: "grep", input: {} },
          { id: "3", name: "ask_user", input: {} },
          { id: "4", name: "fetch", input: {} },
        ],
      },
      { text: "ok" },
    ],
    spec: {
      policies: [
        { name: "confirm_grep", match: { toolName: "grep" }, action: "ask" },
        {
          name: "confirm_questions",
          match: { toolName: "ask_user" },
          action: "ask",
        },
        { name: "no_fetch", match: { toolName: "fetch" }, action: "deny" },
      ],
    },
  });
  const { events } = await h.run();
  assert.deepEqual(
    h.tool.invocations.map((i) => i.tool),
    ["read_file"],
    "no rule = allow",
  );
  const denied = ofType(events, "tool_result").filter((r) => r.deniedBy);
  assert.deepEqual(denied.map((r) => [r.tool, r.deniedBy]), [
    ["grep", "policy:confirm_grep"],
    ["fetch", "policy:no_fetch"],
    ["ask_user", "policy:confirm_questions"],
  ]);
  const warnings = ofType(events, "warning");
  assert.equal(
    warnings.length,
    2,
    "each downgrade is logged, a plain deny is not",
  );
  assert.ok(warnings.every((w) => w.code === "ask_downgraded"));
  assert.match(warnings[0]!.message, /policy:confirm_grep/);
  assert.equal(
    ofType(events, "approval_requested").length,
    0,
    "no approval gate for these kinds",
  );
});

Deno.test("§6.9-21 interactive calls run one at a time", async () => {
  const h = setup({
    ops: [{
      schema: op("ask_user", ToolKind.INTERACTIVE, {
        concurrency: { safe: true },
      }),
      run: delayed(10),
    }],
    script: [{
      toolCalls: [1, 2, 3].map((n) => ({ name: "ask_user", input: { n } })),
    }, { text: "ok" }],
  });
  await h.run();
  assert.equal(h.tool.invocations.length, 3);
  assert.equal(h.tool.maxConcurrent, 1);
});

Deno.test("§6.9-30 retries back off exponentially with jitter and honour retry_after", async () => {
  const h = setup({
    script: [
      { error: { category: ModelErrorCategory.RATE_LIMITED } },
      { error: { category: ModelErrorCategory.OVERLOADED } },
      {
        error: {
          category: ModelErrorCategory.RATE_LIMITED,
          retryAfterMs: 7_000,
        },
      },
      { text: "finally" },
    ],
    deps: { random: () => 0.5 },
  });
  const { result, events } = await h.run();
  assert.equal(result.status, "completed");
  // base 500 · 2^(n−1), jittered to 75 % with random 0.5; retry_after wins when longer.
  assert.deepEqual(h.delays, [375, 750, 7_000]);
  assert.deepEqual(
    ofType(events, "model_retry").map((
      e,
    ) => [e.category, e.attempt, e.delayMs]),
    [
      ["rate_limited", 1, 375],
      ["overloaded", 2, 750],
      ["rate_limited", 3, 7_000],
    ],
  );
  const random = setup({
    script: [{ error: { category: ModelErrorCategory.RATE_LIMITED } }, {
      text: "ok",
    }],
    deps: { random: () => 0 },
  });
  await random.run();
  assert.deepEqual(random.delays, [250], "jitter spans [½, 1) of the backoff");
});

Deno.test("§6.9-31 per-attempt and per-session retry caps are tracked separately", async (t) => {
  await t.step("the per-attempt cap ends one call", async () => {
    const h = setup({
      script: [{ error: { category: ModelErrorCategory.RATE_LIMITED } }],
      spec: { retry: { maxRetries: 2, maxSessionRetries: 10 } },
    });
    const { result } = await h.run();
    assert.equal(result.status, "failed");
    assert.equal(result.error?.code, "rate_limited");
    assert.equal(h.model.requests.length, 3);
    assert.equal(exitCodeOf(result), 6);
  });
  await t.step("the per-session cap spans calls", async () => {
    const h = setup({
      script: [
        { error: { category: ModelErrorCategory.RATE_LIMITED } },
        { error: { category: ModelErrorCategory.RATE_LIMITED } },
        { toolCalls: [{ name: "read_file", input: {} }] },
        { error: { category: ModelErrorCategory.RATE_LIMITED } },
      ],
      spec: { retry: { maxRetries: 2, maxSessionRetries: 3 } },
    });
    const { result } = await h.run();
    assert.equal(result.status, "failed");
    // Turn 1: two retries. Turn 2: one retry left for the session.
    assert.equal(h.model.requests.length, 3 + 2);
    assert.equal(h.delays.length, 3);
  });
  await t.step("a retry never sleeps past the wall-clock bound", async () => {
    const h = setup({
      script: [{
        error: {
          category: ModelErrorCategory.RATE_LIMITED,
          retryAfterMs: 120_000,
        },
      }],
      spec: { bounds: { maxWallClockS: 60 } },
    });
    const { result } = await h.run();
    assert.equal(result.error?.code, "rate_limited");
    assert.deepEqual(h.delays, []);
  });
});

Deno.test("§6.9-32 context_length_exceeded, auth_error and invalid_request are never retried", async (t) => {
  for (
    const [category, code] of [
      [ModelErrorCategory.CONTEXT_LENGTH_EXCEEDED, "context_length_exceeded"],
      [ModelErrorCategory.AUTH_ERROR, "auth_error"],
      [ModelErrorCategory.INVALID_REQUEST, "invalid_request"],
    ] as const
  ) {
    await t.step(code, async () => {
      const backup = new FakeModel("backup", [{ text: "from the fallback" }]);
      const h = setup({
        script: [{ error: { category } }, { text: "retried" }],
        spec: {
          models: [{ provider: "llm", id: "m1" }, {
            provider: "backup",
            id: "m1",
          }],
        },
      });
      const deps = {
        ...h.deps,
        models: new Map([...h.deps.models, ["backup", backup]]),
      };
      const { result } = await collect(
        runSession(h.spec, deps, { prompt: "go" }),
      );
      assert.equal(result.status, "failed");
      assert.equal(result.error?.code, code);
      assert.equal(h.model.requests.length, 1);
      assert.equal(backup.requests.length, 0, "never a silent fallback");
      assert.deepEqual(h.delays, []);
    });
  }
});

// ------------------------------------------------------------ routing, budget

Deno.test("overloaded falls through the chain once its retries are spent", async () => {
  const backup = new FakeModel("backup", [{ text: "from the fallback" }], {
    specs: [modelSpec("b1")],
  });
  const h = setup({
    script: [{ error: { category: ModelErrorCategory.OVERLOADED } }],
    spec: {
      models: [{ provider: "llm", id: "m1" }, { provider: "backup", id: "b1" }],
      retry: { maxRetries: 1 },
    },
  });
  const deps = {
    ...h.deps,
    models: new Map([...h.deps.models, ["backup", backup]]),
  };
  const { result, events } = await collect(
    runSession(h.spec, deps, { prompt: "go" }),
  );
  assert.equal(result.status, "completed");
  assert.equal(result.finalText, "from the fallback");
  assert.equal(h.model.requests.length, 2);
  assert.deepEqual(ofType(events, "model_retry").at(-1)?.fallback, {
    provider: "backup",
    id: "b1",
  });
  assert.equal(backup.requests[0]!.modelId, "b1");
});

Deno.test("routing skips a model that lacks a capability the turn needs", async () => {
  const small = new FakeModel("small", [{ text: "small" }], {
    specs: [modelSpec("s1", { supportsToolUse: false })],
  });
  const h = setup({
    script: [{ text: "from the tool-capable model" }],
    spec: {
      models: [{ provider: "small", id: "s1" }, { provider: "llm", id: "m1" }],
    },
  });
  const deps = {
    ...h.deps,
    models: new Map([...h.deps.models, ["small", small]]),
  };
  const { result } = await collect(runSession(h.spec, deps, { prompt: "go" }));
  assert.equal(result.finalText, "from the tool-capable model");
  assert.equal(small.requests.length, 0);
  // Without tools in scope, the primary is eligible again.
  const noTools = { ...h.spec, tools: new Map() };
  const { result: r2 } = await collect(
    runSession(noTools, deps, { prompt: "go" }),
  );
  assert.equal(r2.finalText, "small");
});

Deno.test("the context budget is context_window − reserved_output − system_overhead", async () => {
  const budgets: number[] = [];
  const h = setup({
    script: [{ text: "ok" }],
    spec: {
      context: { systemOverheadTokens: 2_000 },
      systemPrompt: "Be brief.",
    },
    deps: {
      contextAssembler: {
        assemble: (input) => {
          budgets.push(input.budgetTokens);
          return Promise.resolve({
            messages: [...input.history],
            sections: [...input.sections],
          });
        },
      },
    },
  });
  const { events } = await h.run();
  assert.deepEqual(budgets, [100_000 - 8_000 - 2_000]);
  assert.equal(ofType(events, "turn_started")[0]!.contextBudgetTokens, 90_000);
  assert.equal(h.model.requests[0]!.assembledContext[0]!.label, "system");
  const reserved = setup({
    script: [{ text: "ok" }],
    spec: { context: { reservedOutputTokens: 1_000 } },
  });
  const { events: e2 } = await reserved.run();
  assert.equal(ofType(e2, "turn_started")[0]!.contextBudgetTokens, 99_000);
});

// ----------------------------------------------------------------- approvals

Deno.test("approvals: ONCE asks every time; SESSION remembers the verdict in memory", async () => {
  for (const scope of ["once", "session"] as const) {
    const asked: string[] = [];
    const h = setup({
      script: [
        { toolCalls: [{ name: "write_file", input: { path: "a" } }] },
        { toolCalls: [{ name: "write_file", input: { path: "b" } }] },
        { text: "done" },
      ],
      ops: [{
        schema: WRITE,
        preview: () => Promise.resolve(textPreview("+ new line")),
      }],
    });
    const { events } = await h.run({
      prompt: "go",
      approve: (req) => {
        asked.push(req.planItemId);
        assert.deepEqual(req.scopes, ["once", "session"]);
        assert.deepEqual(req.preview, {
          root: { text: { content: "+ new line" } },
        });
        return Promise.resolve({ decision: "allow", scope });
      },
    });
    assert.equal(h.tool.invocations.length, 2);
    assert.equal(asked.length, scope === "once" ? 2 : 1);
    const plans = ofType(events, "plan");
    assert.equal(
      plans[1]!.items[0]!.decidedBy,
      scope === "once" ? "policy:default" : "session:fs.write_file",
    );
    assert.deepEqual(plans[0]!.items[0]!.preview, {
      root: { text: { content: "+ new line" } },
    });
    assert.equal(ofType(events, "approval_requested")[0]!.tool, "write_file");
  }
});

Deno.test("approvals: a SESSION deny suppresses later asks and allows", async () => {
  let asked = 0;
  const h = setup({
    script: [
      { toolCalls: [{ name: "write_file", input: { path: "a" } }] },
      { toolCalls: [{ name: "write_file", input: { path: "b" } }] },
      { text: "done" },
    ],
  });
  const { events } = await h.run({
    prompt: "go",
    approve: () => {
      asked++;
      return Promise.resolve({ decision: "deny", scope: "session" });
    },
  });
  assert.equal(asked, 1);
  assert.equal(h.tool.invocations.length, 0);
  assert.deepEqual(ofType(events, "tool_result").map((r) => r.deniedBy), [
    "approval:callback",
    "session:fs.write_file",
  ]);
});

Deno.test("approvals: ALWAYS is persisted, or refused with a distinct error, never downgraded", async (t) => {
  await t.step("without a persister", async () => {
    const h = setup({
      script: [{ toolCalls: [{ name: "write_file", input: {} }] }, {
        text: "done",
      }],
    });
    const { events } = await h.run({
      prompt: "go",
      approve: () => Promise.resolve({ decision: "allow", scope: "always" }),
    });
    assert.equal(h.tool.invocations.length, 0, "not downgraded to ONCE");
    const resolved = ofType(events, "approval_resolved")[0]!;
    assert.equal(resolved.refused?.code, "approval_always_unsupported");
    assert.equal(resolved.decision, "deny");
  });
  await t.step("with a persister", async () => {
    const persisted: PolicyRule[] = [];
    let asked = 0;
    const h = setup({
      script: [
        { toolCalls: [{ name: "write_file", input: { path: "a" } }] },
        { toolCalls: [{ name: "write_file", input: { path: "b" } }] },
        { text: "done" },
      ],
      deps: {
        persistAlwaysRule: (rule, ctx) => {
          assert.equal(ctx.profile, "test");
          persisted.push(rule);
          return Promise.resolve();
        },
      },
    });
    const { events } = await h.run({
      prompt: "go",
      approve: (req) => {
        asked++;
        assert.deepEqual(req.scopes, ["once", "session", "always"]);
        return Promise.resolve({ decision: "allow", scope: "always" });
      },
    });
    assert.equal(asked, 1);
    assert.equal(h.tool.invocations.length, 2);
    assert.deepEqual(persisted, [{
      name: "always:fs.write_file",
      match: { provider: "fs", toolName: "write_file" },
      action: "allow",
    }]);
    assert.equal(
      ofType(events, "plan")[1]!.items[0]!.decidedBy,
      "policy:always:fs.write_file",
    );
  });
});

Deno.test("approvals: the first answer wins across answerers", async () => {
  const h = setup({
    script: [{ toolCalls: [{ name: "write_file", input: {} }] }, {
      text: "done",
    }],
  });
  let callbackSignal: AbortSignal | undefined;
  const session: AgentSession = await AgentSession.open(h.spec, h.deps, {
    onEvent: (e) => {
      if (e.type === "approval_requested") {
        assert.equal(
          session.resolveApproval(e.planItemId, {
            decision: "deny",
            scope: "once",
          }),
          true,
        );
        assert.equal(
          session.resolveApproval(e.planItemId, {
            decision: "allow",
            scope: "once",
          }),
          false,
        );
      }
    },
    approve: (_req, { signal }) => {
      callbackSignal = signal;
      return new Promise((resolve) =>
        setTimeout(() => resolve({ decision: "allow", scope: "once" }), 20)
      );
    },
  });
  const run = session.send("go");
  const { events } = await collect(run);
  await session.close();
  assert.equal(h.tool.invocations.length, 0);
  assert.equal(ofType(events, "approval_resolved")[0]!.source, "external");
  assert.equal(
    callbackSignal?.aborted,
    true,
    "the slower answerer is told the ask is over",
  );
  await new Promise((r) => setTimeout(r, 30));
});

Deno.test("approvals: headless never hangs (on_ask deny, fail, callback with a timeout)", async (t) => {
  await t.step("fail", async () => {
    const h = setup({
      script: [{ toolCalls: [{ name: "write_file", input: {} }] }, {
        text: "done",
      }],
      spec: { onAsk: "fail" },
    });
    const { result } = await h.run();
    assert.equal(result.status, "failed");
    assert.equal(result.error?.code, "approval_required");
    assert.equal(exitCodeOf(result), 4);
  });
  await t.step("callback times out to deny", async () => {
    const h = setup({
      script: [{ toolCalls: [{ name: "write_file", input: {} }] }, {
        text: "done",
      }],
      spec: { onAsk: "callback", askTimeoutMs: 20 },
    });
    const { result, events } = await h.run({
      prompt: "go",
      approve: () => new Promise(() => {}),
    });
    assert.equal(result.status, "completed");
    assert.equal(
      ofType(events, "approval_resolved")[0]!.decidedBy,
      "on_ask:timeout",
    );
    assert.equal(h.tool.invocations.length, 0);
  });
});

// ------------------------------------------------------------ tools, done

Deno.test("a successful terminates_turn call ends the loop after its post-tool-call", async () => {
  const obs = new FakeHook("obs");
  const h = setup({
    ops: [
      { schema: op("finish", ToolKind.RESOURCE, { terminatesTurn: true }) },
      { schema: READ },
    ],
    script: [{
      toolCalls: [{ name: "finish", input: {} }, {
        name: "read_file",
        input: {},
      }],
    }, { text: "never" }],
    spec: { policies: ALLOW_ALL },
    hooks: [{
      point: "post-tool-call",
      provider: "obs",
      mode: "observe",
      hook: obs,
    }],
  });
  const { result } = await h.run();
  assert.equal(result.status, "completed");
  assert.equal(h.model.requests.length, 1);
  assert.equal(
    obs.requests.length,
    2,
    "the sibling's post-tool-call still runs",
  );
});

Deno.test("out-of-scope calls, invalid arguments, tool errors and crashes become error results", async () => {
  const { PluginCrashedError } = await import("../plugin/errors.ts");
  const pre = new FakeHook("pre");
  const h = setup({
    ops: [
      {
        schema: op("fail", ToolKind.DATA_SOURCE),
        run: () =>
          toolError(ToolErrorCategory.EXECUTION_FAILED, "tests failed"),
      },
      {
        schema: op("crash", ToolKind.DATA_SOURCE),
        run: () =>
          Promise.reject(
            new PluginCrashedError("fs", { code: 1, signal: null }),
          ),
      },
      { schema: READ },
    ],
    script: [
      {
        toolCalls: [
          { id: "1", name: "nope", input: {} },
          { id: "2", name: "read_file", rawArgs: "{not json" },
          { id: "3", name: "fail", input: {} },
          { id: "4", name: "crash", input: {} },
        ],
      },
      { text: "ok" },
    ],
    hooks: [{
      point: "pre-tool-call",
      provider: "pre",
      mode: "observe",
      hook: pre,
    }],
  });
  const { result } = await h.run();
  assert.equal(result.status, "completed");
  const results = lastToolResults(h.model.requests[1]!);
  assert.deepEqual(results.map((r) => r.id), ["1", "2", "3", "4"]);
  assert.ok(results.every((r) => r.isError));
  assert.match(results[0]!.text, /not_found/);
  assert.match(results[1]!.text, /invalid_arguments/);
  assert.match(results[2]!.text, /execution_failed\): tests failed/);
  assert.match(results[3]!.text, /process_crashed/);
  assert.equal(
    pre.requests.length,
    2,
    "the unknown tool and the bad arguments never reach a hook",
  );
});

Deno.test("grants are held while a plugin works for the session, and released", async () => {
  const registry = new SessionRegistry();
  let sessionId = "";
  const seen: boolean[] = [];
  const h = setup({
    ops: [{
      schema: READ,
      run: () => {
        seen.push(
          registry.isGranted({ category: "tool", name: "fs" }, sessionId),
        );
        return { ok: true };
      },
    }],
    script: [{ toolCalls: [{ name: "read_file", input: {} }] }, { text: "ok" }],
    deps: { registry },
  });
  const run = runSession(h.spec, h.deps, { prompt: "go" });
  for await (const e of run) {
    if (e.type === "session_started") {
      sessionId = e.sessionId;
      assert.ok(
        registry.get(sessionId),
        "the session is registered while it runs",
      );
    }
  }
  await run.result;
  assert.deepEqual(seen, [true]);
  assert.equal(
    registry.isGranted({ category: "tool", name: "fs" }, sessionId),
    false,
  );
  assert.equal(
    registry.isGranted({ category: "model", name: "llm" }, sessionId),
    false,
  );
  assert.equal(registry.get(sessionId), undefined);
});

Deno.test("a session that is closing refuses an injected control message instead of answering queued (its wake handler is gone)", async () => {
  const registry = new SessionRegistry();
  const h = setup({
    script: [{ text: "ok" }],
    deps: { registry },
  });
  const spec = { ...h.spec, controlPlane: {} };
  let live: ReturnType<SessionRegistry["get"]>;
  const run = runSession(spec, h.deps, { prompt: "go" });
  for await (const e of run) {
    if (e.type === "session_started") live = registry.get(e.sessionId);
  }
  await run.result;
  assert.ok(live?.inject, "a session with a control plane takes injections");
  assert.throws(
    () =>
      live!.inject!("trigger:ci", "look again", {
        channel: "external-trigger",
        attributes: { name: "ci", target: "x", session: "x" },
      }),
    /has ended; nothing was delivered/,
  );
});

Deno.test("stopWaking() then idle(): a wake turn a trigger started just before runs to its end, and a trigger after it is refused, never answered queued", async () => {
  const registry = new SessionRegistry();
  const h = setup({
    script: [{ text: "first" }, { text: "woken", delayMs: 50 }],
    deps: { registry },
    spec: { controlPlane: {} },
  });
  const session = await AgentSession.open(h.spec, h.deps);
  assert.equal((await session.send("go").result).outcome, "done");
  await session.idle();
  const live = registry.get(session.sessionId)!;
  const trigger = () =>
    live.inject!("trigger:ci", "look again", {
      channel: "external-trigger",
      attributes: { name: "ci", target: "x", session: "x" },
    });
  // The trigger lands after the caller's idle check: a wake turn starts.
  assert.equal(trigger(), "queued");
  session.stopWaking();
  assert.equal(live.isClosing?.(), true);
  assert.throws(trigger, /has ended; nothing was delivered/);
  await session.idle();
  const done = await session.close();
  assert.equal(done.status, "completed");
  assert.equal(h.model.requests.length, 2, "the wake turn called the model");
  const texts = (await stored(h.store, done.sessionId)).events
    .filter((e) => e.kind === EventKind.MESSAGE)
    .map((e) =>
      JSON.stringify(fromBinary(MessageEventSchema, e.payload).message?.content)
    );
  assert.ok(
    texts.some((t) => t.includes("woken")),
    "the wake turn's answer was stored before the session ended",
  );
});

// ------------------------------------------------------- cancel, resume, replay

Deno.test("cancellation closes the stream, ends the session cancelled, and still fires session-end", async () => {
  const statuses: SessionStatus[] = [];
  const stores: MemorySessionStore[] = [];
  const end = new FakeHook("end", async (req) => {
    if (req.payload?.payload.case === "sessionEnd") {
      statuses.push(req.payload.payload.value.status);
      const log = await stores[0]!.open(req.payload.payload.value.sessionId);
      statuses.push((await log.info()).status);
      await log.close();
    }
    return ack(req);
  });
  const ac = new AbortController();
  const h = setup({
    script: [{ text: "partial text", hang: true }],
    hooks: [{
      point: "session-end",
      provider: "end",
      mode: "observe",
      hook: end,
    }],
  });
  stores.push(h.store);
  const run = runSession(h.spec, h.deps, { prompt: "go", signal: ac.signal });
  const events: SessionEvent[] = [];
  for await (const e of run) {
    events.push(e);
    if (e.type === "text_delta") ac.abort();
  }
  const result = await run.result;
  assert.equal(result.status, "cancelled");
  assert.equal(exitCodeOf(result), 130);
  assert.deepEqual(
    statuses,
    [SessionStatus.CANCELLED, SessionStatus.CANCELLED],
    "persisted before session-end",
  );
  const s = await stored(h.store, result.sessionId);
  assert.deepEqual(
    s.kinds,
    ["message", "message"],
    "the partial message is kept for audit",
  );
});

Deno.test("a session resumes by id from its events, and replays without a model", async () => {
  const h = setup({
    script: [
      { toolCalls: [{ id: "r1", name: "read_file", input: { path: "a" } }] },
      { text: "first answer" },
      { text: "second answer" },
    ],
  });
  const first = await h.run({ prompt: "one" });
  assert.equal(first.result.status, "completed");
  const second = await h.run({
    prompt: "two",
    resumeSessionId: first.result.sessionId,
  });
  assert.equal(second.result.sessionId, first.result.sessionId);
  assert.equal(second.result.finalText, "second answer");
  assert.equal(
    second.events[0]!.type === "session_started" && second.events[0].resumed,
    true,
  );
  const req = h.model.requests[2]!;
  assert.deepEqual(
    req.messages.map((m) => m.content.map((b) => b.block.case).join(",")),
    ["text", "toolUse", "toolResult", "text", "text"],
    "prompt, tool use, its result, the answer, the new prompt",
  );
  // Replay: the transcript, no model call.
  const calls = h.model.requests.length;
  const replayed: SessionEvent[] = [];
  for await (const e of replaySession(h.store, first.result.sessionId)) {
    replayed.push(e);
  }
  assert.equal(h.model.requests.length, calls);
  assert.deepEqual(replayed.map((e) => e.type), [
    "session_started",
    "message",
    "message",
    "tool_call",
    "tool_result",
    "message",
    "message",
    "message",
    "session_ended",
  ]);
  const ended = replayed.at(-1)!;
  assert.ok(
    ended.type === "session_ended" && ended.status === "completed" &&
      ended.finalText === "second answer",
  );
});

Deno.test("a session left running by a dead process resumes; failed sessions do not", async () => {
  const h = setup({ script: [{ text: "resumed answer" }] });
  const log = await h.store.create({ profile: "test" });
  await log.close();
  const { result } = await h.run({
    prompt: "hello",
    resumeSessionId: log.sessionId,
  });
  assert.equal(result.status, "completed");
  const failed = await h.store.create({ profile: "test" });
  await failed.setStatus(SessionStatus.FAILED);
  await failed.close();
  const run = runSession(h.spec, h.deps, {
    prompt: "x",
    resumeSessionId: failed.sessionId,
  });
  await assert.rejects(run.result, { code: "session_not_resumable" });
  await assert.rejects(collect(run), { code: "session_not_resumable" });
});

Deno.test("AgentSession keeps one session across prompts; Ctrl-C interrupts a turn, not the session", async () => {
  const h = setup({
    script: [
      { text: "slow", hang: true },
      { text: "second prompt answered" },
    ],
  });
  const session = await AgentSession.open(h.spec, h.deps);
  const ac = new AbortController();
  const first = session.send("one", { signal: ac.signal });
  setTimeout(() => ac.abort(), 10);
  assert.equal((await first.result).outcome, "cancelled");
  assert.equal(session.ended, false);
  const second = await session.send("two").result;
  assert.equal(second.outcome, "done");
  assert.equal(second.finalText, "second prompt answered");
  const done = await session.close();
  assert.equal(done.status, "completed");
  assert.throws(() => session.send("three"), TypeError);
  const msgs = h.model.requests[1]!.messages;
  assert.equal(
    msgs.at(-1)!.role,
    1,
    "the new prompt follows the interrupted turn",
  );
  const planOf = (await stored(h.store, done.sessionId)).events.filter((e) =>
    e.kind === EventKind.PLAN
  );
  assert.equal(planOf.length, 0);
});

// ------------------------------------------------ tool schemas (§6.2 MUST 15)

const LOOKUP = op("lookup", ToolKind.DATA_SOURCE, {
  concurrency: { safe: true },
  inputSchema: {
    type: SchemaType.OBJECT,
    properties: {
      key: { type: SchemaType.STRING, enumValues: ["a", "b"] },
      limit: { type: SchemaType.NUMBER },
    },
    required: ["key"],
  },
  outputSchema: {
    type: SchemaType.OBJECT,
    properties: { value: { type: SchemaType.STRING } },
    required: ["value"],
  },
});

Deno.test("arguments that break the input schema never reach the tool; the model reads why", async () => {
  const h = setup({
    ops: [{ schema: LOOKUP, run: () => ({ value: "x" }) }],
    script: [{
      toolCalls: [
        { id: "1", name: "lookup", input: { key: "c" } },
        { id: "2", name: "lookup", input: { limit: "ten", key: "a" } },
        { id: "3", name: "lookup", input: { key: "a", limit: 3 } },
      ],
    }, { text: "ok" }],
  });
  const { events } = await h.run();
  assert.deepEqual(h.tool.invocations.map((i) => i.id), ["3"]);
  const results = ofType(events, "tool_result");
  const byId = new Map(results.map((r) => [r.callId, r]));
  assert.equal(byId.get("1")!.error?.category, "invalid_arguments");
  assert.match(
    byId.get("1")!.error!.message,
    /arguments\.key must be one of "a", "b", got "c"/,
  );
  assert.match(
    byId.get("2")!.error!.message,
    /arguments\.limit must be a number, got a string/,
  );
  assert.deepEqual(byId.get("3")!.result, { value: "x" });
});

Deno.test("§6.2 MUST 15: a result that breaks the output schema becomes an UNKNOWN error with the raw payload", async () => {
  const h = setup({
    ops: [{ schema: LOOKUP, run: () => ({ value: 42 }) }],
    script: [{
      toolCalls: [{ id: "1", name: "lookup", input: { key: "a" } }],
    }, { text: "ok" }],
  });
  const { result } = await h.run();
  const log = await stored(h.store, result.sessionId);
  const tr = log.events.filter((e) => e.kind === EventKind.TOOL_RESULT)
    .map((e) => fromBinary(ToolResultEventSchema, e.payload));
  assert.equal(tr.length, 1);
  const outcome = tr[0]!.outcome;
  assert.equal(outcome.case, "error");
  if (outcome.case !== "error") return;
  assert.equal(outcome.value.category, ToolErrorCategory.UNKNOWN);
  assert.match(outcome.value.message, /\$\.value must be a string/);
  assert.deepEqual(outcome.value.details, { payload: { value: 42 } });
});

// ------------------------------------------- generation parameters (§7.2)

const THINKER = modelSpec("m1", {
  maxOutputTokens: 16_000n,
  thinking: {
    supported: true,
    effort: { levels: ["low", "medium", "high"], default: "medium" },
    budget: { range: { min: 1024n, max: 32_000n } },
    disable: 2,
  },
});

Deno.test("generation parameters valid for the chosen model reach the request, and max_output_tokens is the reserved output", async () => {
  const h = setup({
    script: [{ text: "ok" }],
    spec: {
      generation: {
        thinkingEffort: "high",
        thinkingBudgetTokens: 4096,
        maxOutputTokens: 2000,
        temperature: 0.2,
        stopSequences: ["END"],
      },
    },
    deps: {},
  });
  const model = new FakeModel("llm", [{ text: "ok" }], { specs: [THINKER] });
  const { events } = await collect(
    runSession(h.spec, { ...h.deps, models: new Map([["llm", model]]) }, {
      prompt: "go",
    }),
  );
  const p = model.requests[0]!.params!;
  assert.equal(p.thinkingEffort, "high");
  assert.equal(p.thinkingBudgetTokens, 4096n);
  assert.equal(p.maxOutputTokens, 2000n);
  assert.equal(p.temperature, 0.2);
  assert.deepEqual(p.stopSequences, ["END"]);
  const started = ofType(events, "turn_started")[0]!;
  assert.equal(started.contextBudgetTokens, 100_000 - 2000);
});

Deno.test("invalid generation parameters are never forwarded: the candidate is skipped, and an exhausted chain names the parameter", async () => {
  const h = setup({
    script: [{ text: "ok" }],
    spec: {
      models: [{ provider: "llm", id: "m1" }, { provider: "llm", id: "m2" }],
      generation: { thinkingEffort: "extreme", maxOutputTokens: 99_000 },
    },
  });
  const model = new FakeModel("llm", [{ text: "ok" }], {
    specs: [THINKER, modelSpec("m2", { thinking: { supported: false } })],
  });
  const { result } = await collect(
    runSession(h.spec, { ...h.deps, models: new Map([["llm", model]]) }, {
      prompt: "go",
    }),
  );
  assert.equal(model.requests.length, 0, "nothing reached the wire");
  assert.equal(result.status, "failed");
  assert.match(
    result.error!.message,
    /thinking_effort is not one of its effort levels \("extreme"; it offers "low", "medium", "high"\)/,
  );
  assert.match(
    result.error!.message,
    /max_output_tokens is above its maximum output \(99000 > 16000\)/,
  );
  assert.match(result.error!.message, /"m2": the turn needs thinking/);
});

Deno.test("a provider whose tools may change (an MCP list_changed) is re-read before each turn", async () => {
  const h = setup({
    script: [
      { toolCalls: [{ id: "1", name: "read_file", input: {} }] },
      { toolCalls: [{ id: "2", name: "fresh_tool", input: {} }] },
      { text: "ok" },
    ],
  });
  const fresh = op("fresh_tool", ToolKind.DATA_SOURCE, {
    concurrency: { safe: true },
  });
  const tool = new FakeTool("fs", [{ schema: READ }, { schema: fresh }]);
  let reads = 0;
  const endpoint = {
    identity: tool.identity,
    schemas: () => {
      reads++;
      // The provider offers fresh_tool from its second GetSchema on.
      return Promise.resolve(
        reads === 1 ? [tool.toolSchemas[0]!] : tool.toolSchemas,
      );
    },
    invoke: tool.invoke.bind(tool),
  };
  const spec = {
    ...h.spec,
    tools: new Map([["fs", [tool.toolSchemas[0]!]]]),
    dynamicTools: new Map([["fs", { all: true, names: [] }]]),
  };
  const { events, result } = await collect(
    runSession(spec, { ...h.deps, tools: new Map([["fs", endpoint]]) }, {
      prompt: "go",
    }),
  );
  assert.equal(result.status, "completed");
  assert.deepEqual(h.model.requests.map((r) => r.tools.map((t) => t.name)), [
    ["read_file"],
    ["read_file", "fresh_tool"],
    ["read_file", "fresh_tool"],
  ]);
  assert.deepEqual(tool.invocations.map((i) => i.tool), [
    "read_file",
    "fresh_tool",
  ]);
  assert.equal(
    ofType(events, "warning").filter((w) => w.code === "tools_changed")
      .length,
    1,
  );
});

Deno.test("an unknown error the provider marks retryable (a vendor 5xx) is retried, never a fallback", async () => {
  const backup = new FakeModel("backup", [{ text: "from the fallback" }]);
  const h = setup({
    script: [{ error: { category: ModelErrorCategory.UNKNOWN } }, {
      text: "retried",
    }],
    spec: {
      models: [{ provider: "llm", id: "m1" }, { provider: "backup", id: "m1" }],
    },
  });
  const { result } = await collect(
    runSession(h.spec, {
      ...h.deps,
      models: new Map([...h.deps.models, ["backup", backup]]),
    }, { prompt: "go" }),
  );
  assert.equal(result.status, "completed");
  assert.equal(result.finalText, "retried");
  assert.equal(h.model.requests.length, 2);
  assert.equal(backup.requests.length, 0);
  assert.equal(h.delays.length, 1);
});

Deno.test("context assembly learns the files the session's tool calls named (files_touched), most recent last", async () => {
  const seen: string[][] = [];
  const h = setup({
    script: [
      {
        toolCalls: [
          { id: "1", name: "read_file", input: { path: "a.ts" } },
          { id: "2", name: "read_file", input: { path: "b.ts" } },
        ],
      },
      { toolCalls: [{ id: "3", name: "read_file", input: { path: "a.ts" } }] },
      { text: "ok" },
    ],
    deps: {
      contextAssembler: {
        assemble(input) {
          seen.push([...(input.filesTouched ?? [])]);
          return Promise.resolve({
            messages: [...input.history],
            sections: [...input.sections],
          });
        },
      },
    },
  });
  await h.run();
  assert.deepEqual(seen, [[], ["a.ts", "b.ts"], ["b.ts", "a.ts"]]);
});

Deno.test("pathsOf() reads a path argument and a files list", () => {
  assert.deepEqual(
    pathsOf({ path: "x", files: [{ path: "y" }, { content: "z" }, "w"] }),
    ["x", "y"],
  );
  assert.deepEqual(pathsOf({ command: "ls" }), []);
});

Deno.test("§6.2 MUST 6: the kernel sets call_context (session, turn, working directory) on every Invoke", async () => {
  const h = setup({
    script: [
      { toolCalls: [{ id: "1", name: "read_file", input: {} }] },
      { toolCalls: [{ id: "2", name: "read_file", input: {} }] },
      { text: "ok" },
    ],
  });
  const contexts: { session: string; turn: string; dir: string }[] = [];
  const inner = h.deps.tools!.get("fs")!;
  const spy = {
    identity: inner.identity,
    schemas: () => inner.schemas(),
    invoke(
      call: Parameters<typeof inner.invoke>[0],
      o?: Parameters<typeof inner.invoke>[1],
    ) {
      contexts.push({
        session: call.callContext?.sessionId ?? "",
        turn: call.callContext?.turnId ?? "",
        dir: call.callContext?.workingDirectory ?? "",
      });
      return inner.invoke(call, o);
    },
  };
  const { result, events } = await collect(
    runSession(h.spec, { ...h.deps, tools: new Map([["fs", spy]]) }, {
      prompt: "go",
    }),
  );
  const turns = ofType(events, "turn_started").map((t) => t.turnId);
  assert.deepEqual(contexts, [
    { session: result.sessionId, turn: turns[0]!, dir: "/work" },
    { session: result.sessionId, turn: turns[1]!, dir: "/work" },
  ]);
});

Deno.test("§6.2 circuit breaker: after 3 crashed calls in a row a provider is no longer called this session", async () => {
  const { PluginCrashedError } = await import("../plugin/errors.ts");
  let calls = 0;
  const h = setup({
    ops: [{
      schema: READ,
      run: () => {
        calls++;
        return Promise.reject(
          new PluginCrashedError("fs", { code: 1, signal: null }),
        );
      },
    }],
    script: [1, 2, 3, 4, 5].map((n) => ({
      toolCalls: [{ id: `c${n}`, name: "read_file", input: { n } }],
    })).concat([{ text: "giving up" } as never]),
  });
  const { events, result } = await h.run();
  assert.equal(result.status, "completed");
  assert.equal(calls, 3, "the fourth and fifth calls never reach the plugin");
  const results = ofType(events, "tool_result");
  assert.deepEqual(
    results.map((r) => r.error?.category),
    Array(5).fill("process_crashed"),
  );
  assert.match(results[3]!.error!.message, /circuit breaker/);
  assert.equal(
    ofType(events, "warning").filter((w) => w.code === "circuit_open").length,
    1,
  );
});

Deno.test("§6.2 MUST 16, §6.7 MUST 11: a resource call stopped at its deadline reports what it had done (its last partial_result) in a TIMEOUT error, never a success", async () => {
  const h = setup({
    script: [
      { toolCalls: [{ id: "1", name: "write_file", input: {} }] },
      { text: "ok" },
    ],
    spec: { policies: ALLOW_ALL },
  });
  const schema = create(
    ToolSchemaSchema,
    op("write_file", ToolKind.RESOURCE, {
      defaultTimeout: { nanos: 50_000_000 },
    }),
  );
  // Two steps reported, then it hangs until the kernel stops it (its
  // reports arrive before the 50 ms deadline can fire: no I/O between).
  const endpoint = {
    identity: h.tool.identity,
    schemas: () => Promise.resolve([schema]),
    async *invoke(_call: unknown, options?: { signal?: AbortSignal }) {
      for (const step of [["a.txt"], ["a.txt", "b.txt"]]) {
        yield create(ToolEventSchema, {
          event: {
            case: "partialResult",
            value: { payload: { written: step } },
          },
        });
      }
      await new Promise((r) =>
        options?.signal?.addEventListener("abort", r, { once: true })
      );
    },
  };
  const { events, result } = await collect(
    runSession(
      { ...h.spec, tools: new Map([["fs", [schema]]]) },
      { ...h.deps, tools: new Map([["fs", endpoint]]) },
      { prompt: "go" },
    ),
  );
  assert.equal(result.status, "completed");
  const [r] = ofType(events, "tool_result");
  assert.equal(r?.isError, true);
  assert.equal(r?.error?.category, "timeout");
  assert.equal(
    r?.error?.message,
    'The tool did not finish within 50 ms. Before it was stopped it had reported: {"written":["a.txt","b.txt"]}. The rest was not done.',
  );
  const seen = lastToolResults(h.model.requests[1]!);
  assert.match(
    seen[0]!.text,
    /had reported: \{"written":\["a\.txt","b\.txt"\]\}/,
  );
  const { events: logged } = await stored(h.store, result.sessionId);
  const stored_ = logged.find((e) => e.kind === EventKind.TOOL_RESULT)!;
  const outcome = fromBinary(ToolResultEventSchema, stored_.payload).outcome;
  assert.equal(outcome.case, "error");
  assert.deepEqual(
    outcome.case === "error" ? outcome.value.details : undefined,
    { partial_result: { written: ["a.txt", "b.txt"] } },
  );
});
