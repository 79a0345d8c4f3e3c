import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { HookPayloadSchema } from "../../proto/gen/pluggableharness/hook/v1/events_pb.ts";
import { HookDecision } from "../../proto/gen/pluggableharness/hook/v1/types_pb.ts";
import type { PolicyRule } from "../../contract/policy.ts";
import {
  ack,
  collect,
  FakeHook,
  FakeModel,
  FakeTool,
  hang,
  memoryStore,
  ModelErrorCategory,
  op,
  recordingSleep,
  type ScriptedTurn,
  ToolKind,
} from "./_testing.ts";
import type { AgentDeps } from "./agent_deps.ts";
import { runSession } from "./run_session.ts";
import { HookChainAbortedError, TurnCancelledError } from "./errors.ts";
import { HookDispatcher } from "./hook_dispatch.ts";
import type { HookSubscription, SessionSpec } from "./session_spec.ts";
import {
  hookSpanName,
  NOOP_TRACER,
  otelTracerOptionsOf,
  type RecordedSpan,
  RecordingTracer,
} from "./tracing.ts";

const READ = op("read_file", ToolKind.DATA_SOURCE, {
  concurrency: { safe: true },
});
const WRITE = op("write_file", ToolKind.RESOURCE);
const ALLOW_ALL: PolicyRule[] = [
  { name: "writes_ok", match: { kind: "resource" }, action: "allow" },
];
const READ_AND_WRITE: ScriptedTurn = {
  toolCalls: [
    { id: "r1", name: "read_file", input: { path: "a" } },
    { id: "w1", name: "write_file", input: { path: "b", text: "x" } },
  ],
};

function setup(
  script: ScriptedTurn[],
  hooks: (HookSubscription & { hook: FakeHook })[] = [],
  spec: Partial<SessionSpec> = {},
) {
  const tracer = new RecordingTracer();
  const tool = new FakeTool("fs", [{ schema: READ }, { schema: WRITE }]);
  const deps: AgentDeps = {
    store: memoryStore(),
    models: new Map([["llm", new FakeModel("llm", script)]]),
    tools: new Map([["fs", tool]]),
    hooks: new Map(hooks.map((h) => [h.provider, h.hook])),
    sleep: recordingSleep().sleep,
    random: () => 0,
    tracer,
  };
  const full: SessionSpec = {
    profile: "test",
    models: [{ provider: "llm", id: "m1" }],
    tools: new Map([["fs", tool.toolSchemas]]),
    hooks,
    policies: ALLOW_ALL,
    workingDirectory: "/work",
    ...spec,
  };
  return {
    tracer,
    run: (signal?: AbortSignal) =>
      collect(
        runSession(full, deps, { prompt: "go", ...(signal ? { signal } : {}) }),
      ),
  };
}

const veto = (decision: HookDecision) => () => ({
  outcome: { case: "veto" as const, value: { decision } },
});

function only(spans: RecordedSpan[]): RecordedSpan {
  assert.equal(spans.length, 1, `one span, got ${spans.length}`);
  return spans[0]!;
}

Deno.test("tracing: a session's spans nest session → turn → hooks, model call, tools", async () => {
  const obs = new FakeHook("obs");
  const v1 = new FakeHook("v1", veto(HookDecision.ALLOW));
  const v2 = new FakeHook("v2", veto(HookDecision.ALLOW));
  const h = setup([READ_AND_WRITE, { text: "done" }], [
    { point: "pre-model-call", provider: "obs", mode: "observe", hook: obs },
    { point: "plan-ready", provider: "v1", mode: "veto", hook: v1 },
    { point: "plan-ready", provider: "v2", mode: "veto", hook: v2 },
  ]);
  const { result } = await h.run();
  assert.equal(result.status, "completed");
  const t = h.tracer;
  assert.deepEqual(t.tree(), [
    ["session", [
      ["turn", [
        ["hook.pre_model_call", [["hook.subscriber", []]]],
        ["model.call", []],
        ["tool.execute", []],
        ["policy.veto_chain", [
          ["hook.plan_ready", [["hook.subscriber", []], [
            "hook.subscriber",
            [],
          ]]],
        ]],
        ["tool.execute", []],
      ]],
      ["turn", [
        ["hook.pre_model_call", [["hook.subscriber", []]]],
        ["model.call", []],
      ]],
    ]],
  ]);
  assert.ok(t.spans.every((s) => s.ended), "every span ended");
  assert.ok(
    t.spans.every((s) => s.status === undefined || s.status.code === "ok"),
    "no span is an error",
  );

  const session = only(t.named("session"));
  assert.equal(session.attributes["session.id"], result.sessionId);
  assert.equal(session.attributes["session.profile"], "test");
  assert.equal(session.attributes["session.status"], "completed");
  assert.equal(session.attributes["session.turns"], 2);

  const [turn1, turn2] = t.named("turn");
  assert.equal(turn1!.attributes["turn.number"], 1);
  assert.equal(turn2!.attributes["turn.number"], 2);
  assert.equal(turn1!.attributes["model.id"], "m1");
  assert.equal(turn1!.attributes["model.provider"], "llm");
  assert.equal(turn1!.attributes["turn.done"], false);
  assert.equal(turn2!.attributes["turn.done"], true);

  const [call1, call2] = t.named("model.call");
  assert.deepEqual(
    {
      provider: call1!.attributes["model.provider"],
      id: call1!.attributes["model.id"],
      input: call1!.attributes["usage.input_tokens"],
      output: call1!.attributes["usage.output_tokens"],
      stop: call1!.attributes["model.stop_reason"],
    },
    { provider: "llm", id: "m1", input: 100, output: 10, stop: "tool_use" },
  );
  assert.equal(call2!.attributes["model.stop_reason"], "end_turn");

  const [read, write] = t.named("tool.execute");
  assert.deepEqual(
    [read!, write!].map((s) => [
      s.attributes["tool.provider"],
      s.attributes["tool.name"],
      s.attributes["tool.kind"],
      s.attributes["tool.outcome"],
    ]),
    [
      ["fs", "read_file", "data_source", "ok"],
      ["fs", "write_file", "resource", "ok"],
    ],
  );

  const chain = only(t.named("policy.veto_chain"));
  assert.deepEqual(
    [
      chain.attributes["plan.items"],
      chain.attributes["plan.allow"],
      chain.attributes["plan.deny"],
    ],
    [1, 1, 0],
  );
  const plan = only(t.named("hook.plan_ready"));
  assert.equal(plan.parentId, chain.id);
  assert.equal(plan.attributes["hook.point"], "plan-ready");
  assert.equal(plan.attributes["hook.subscribers"], 2);
  assert.equal(plan.attributes["hook.decision"], "allow");
  assert.deepEqual(
    t.children(plan).map((s) => [
      s.attributes["hook.provider"],
      s.attributes["hook.mode"],
      s.attributes["hook.decision"],
      s.attributes["hook.outcome"],
    ]),
    [["v1", "veto", "allow", "ok"], ["v2", "veto", "allow", "ok"]],
  );
});

Deno.test("tracing: a denying veto chain stops at the denier; the denied call's span says so without an error", async () => {
  const v1 = new FakeHook("v1", veto(HookDecision.ALLOW));
  const v2 = new FakeHook("v2", veto(HookDecision.DENY));
  const v3 = new FakeHook("v3", veto(HookDecision.ALLOW));
  const h = setup([READ_AND_WRITE, { text: "done" }], [
    { point: "plan-ready", provider: "v1", mode: "veto", hook: v1 },
    { point: "plan-ready", provider: "v2", mode: "veto", hook: v2 },
    { point: "plan-ready", provider: "v3", mode: "veto", hook: v3 },
  ]);
  await h.run();
  const t = h.tracer;
  const plan = only(t.named("hook.plan_ready"));
  assert.equal(plan.attributes["hook.decision"], "deny");
  assert.equal(plan.attributes["hook.decided_by"], "hook-veto:v2");
  assert.equal(only(t.named("policy.veto_chain")).attributes["plan.deny"], 1);
  assert.deepEqual(
    t.children(plan).map((s) => [
      s.attributes["hook.provider"],
      s.attributes["hook.decision"],
    ]),
    [["v1", "allow"], ["v2", "deny"]],
  );
  const write = t.named("tool.execute").find((s) =>
    s.attributes["tool.name"] === "write_file"
  )!;
  assert.equal(write.attributes["tool.outcome"], "denied");
  assert.equal(write.attributes["tool.denied_by"], "hook-veto:v2");
  assert.equal(write.status, undefined);
  assert.equal(write.parentId, t.named("turn")[0]!.id);
});

Deno.test("tracing: without plan-ready subscribers the policy veto chain still has its span", async () => {
  const h = setup([READ_AND_WRITE, { text: "done" }], [], {
    policies: [{
      name: "no_writes",
      match: { kind: "resource" },
      action: "deny",
    }],
  });
  await h.run();
  const t = h.tracer;
  const chain = only(t.named("policy.veto_chain"));
  assert.equal(chain.parentId, t.named("turn")[0]!.id);
  assert.deepEqual(t.children(chain), []);
  assert.equal(chain.attributes["plan.deny"], 1);
  const write = t.named("tool.execute").find((s) =>
    s.attributes["tool.name"] === "write_file"
  )!;
  assert.equal(write.attributes["tool.outcome"], "denied");
  assert.equal(write.attributes["tool.denied_by"], "policy:no_writes");
});

Deno.test("tracing: a failing veto subscriber is an error span; the chain fails closed without being one", async () => {
  const boom = new FakeHook("boom", () => {
    throw new Error("kaput");
  });
  const h = setup([READ_AND_WRITE, { text: "done" }], [
    { point: "plan-ready", provider: "boom", mode: "veto", hook: boom },
  ]);
  await h.run();
  const plan = only(h.tracer.named("hook.plan_ready"));
  assert.equal(plan.attributes["hook.decision"], "deny");
  assert.deepEqual(plan.status, { code: "ok" });
  const sub = only(h.tracer.children(plan));
  assert.equal(sub.attributes["hook.outcome"], "error");
  assert.equal(sub.attributes["hook.error_category"], "veto_failed");
  assert.equal(sub.attributes["hook.decision"], "deny");
  assert.equal(sub.status?.code, "error");
});

Deno.test("tracing: a failed model call is an error span up to the session", async () => {
  const h = setup([{ error: { category: ModelErrorCategory.AUTH_ERROR } }]);
  const { result } = await h.run();
  assert.equal(result.status, "failed");
  const t = h.tracer;
  for (const name of ["model.call", "turn", "session"]) {
    const s = only(t.named(name));
    assert.equal(s.status?.code, "error", `${name} is an error`);
    assert.ok(s.ended);
  }
  assert.equal(
    only(t.named("model.call")).attributes["error.type"],
    "auth_error",
  );
});

Deno.test("tracing: a cancelled turn is not a span error", async () => {
  const ac = new AbortController();
  const h = setup([{ hang: true }]);
  const run = h.run(ac.signal);
  setTimeout(() => ac.abort(), 20);
  const { result } = await run;
  assert.equal(result.status, "cancelled");
  const t = h.tracer;
  for (const name of ["model.call", "turn", "session"]) {
    const s = only(t.named(name));
    assert.ok(s.ended, `${name} ended`);
    assert.equal(s.status, undefined, `${name} has no error status`);
    assert.equal(s.attributes.cancelled, true);
  }
});

Deno.test("tracing: hook dispatch — one span per point, a child per subscriber; observe failures leave the chain ok, transform failures abort it", async () => {
  const tracer = new RecordingTracer();
  const parent = tracer.startSpan("turn");
  const hooks = new Map([
    ["obs", new FakeHook("obs")],
    [
      "bad",
      new FakeHook("bad", () => ({ outcome: { case: "observe", value: {} } })),
    ],
    ["tx", new FakeHook("tx", ack)],
    ["slow", new FakeHook("slow", hang)],
  ]);
  const dispatcher = (subs: HookSubscription[]) =>
    new HookDispatcher({
      subscriptions: subs,
      endpoints: hooks,
      defaultTimeoutMs: 50,
      tracer,
      parentSpan: () => parent,
    });
  const payload = create(HookPayloadSchema, {
    payload: { case: "postApply", value: {} },
  });
  const signal = new AbortController().signal;

  // Observe: a timed-out subscriber is an error child; the chain is not.
  await dispatcher([
    { point: "post-apply", provider: "obs", mode: "observe" },
    { point: "post-apply", provider: "slow", mode: "observe" },
  ]).dispatch("post-apply", payload, signal);
  const observe = only(tracer.named("hook.post_apply"));
  assert.equal(observe.parentId, 1);
  assert.deepEqual(observe.status, { code: "ok" });
  assert.deepEqual(
    tracer.children(observe).map((s) => [
      s.attributes["hook.provider"],
      s.attributes["hook.mode"],
      s.attributes["hook.outcome"],
      s.attributes["hook.error_category"],
    ]),
    [["obs", "observe", "ok", undefined], [
      "slow",
      "observe",
      "error",
      "timeout",
    ]],
  );

  // Transform: an invalid response aborts the chain; the point span is an error.
  await assert.rejects(
    dispatcher([
      { point: "post-apply", provider: "tx", mode: "transform" },
      { point: "post-apply", provider: "bad", mode: "transform" },
    ]).dispatch("post-apply", payload, signal),
    HookChainAbortedError,
  );
  const aborted = tracer.named("hook.post_apply")[1]!;
  assert.equal(aborted.status?.code, "error");
  assert.equal(aborted.attributes["hook.outcome"], "aborted");
  assert.equal(aborted.attributes["hook.aborted_by"], "bad");
  assert.deepEqual(
    tracer.children(aborted).map((s) => s.attributes["hook.error_category"]),
    [undefined, "invalid_response"],
  );

  // Cancellation: no error status anywhere.
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 10);
  await assert.rejects(
    dispatcher([{ point: "post-apply", provider: "slow", mode: "observe" }])
      .dispatch("post-apply", payload, ac.signal),
    TurnCancelledError,
  );
  const cancelled = tracer.named("hook.post_apply")[2]!;
  for (const s of [cancelled, ...tracer.children(cancelled)]) {
    assert.equal(s.status, undefined);
    assert.equal(s.attributes.cancelled, true);
  }
  assert.equal(hookSpanName("pre-tool-call"), "hook.pre_tool_call");
});

Deno.test("tracing: the no-op tracer records nothing", async () => {
  assert.equal(NOOP_TRACER.enabled, false);
  const span = NOOP_TRACER.startSpan("x", { a: 1 });
  assert.equal(span.recording, false);
  span.setAttribute("b", 2);
  span.end({ code: "ok" });
  await NOOP_TRACER.close();
});

Deno.test("tracing: otelTracerOptionsOf exports only with telemetry, traces and OTLP/HTTP", () => {
  const observability = {
    endpoint: "127.0.0.1:4318",
    protocol: "http" as const,
    samplingRatio: 0.25,
    tracesEnabled: true,
    serviceName: "svc",
    resourceAttrs: { team: "x" },
  };
  assert.deepEqual(otelTracerOptionsOf({ telemetry: true, observability }), {
    endpoint: "127.0.0.1:4318",
    samplingRatio: 0.25,
    serviceName: "svc",
    resourceAttributes: { team: "x" },
  });
  assert.equal(
    otelTracerOptionsOf({ telemetry: false, observability }),
    undefined,
  );
  assert.equal(
    otelTracerOptionsOf({
      telemetry: true,
      observability: { ...observability, tracesEnabled: false },
    }),
    undefined,
  );
  assert.equal(
    otelTracerOptionsOf({
      telemetry: true,
      observability: { ...observability, protocol: "grpc" },
    }),
    undefined,
  );
});

Deno.test("trace context crosses the plugin boundary: model, tool and hook calls carry their span's traceparent", async () => {
  const tracer = new RecordingTracer();
  const model = new FakeModel("llm", [
    { toolCalls: [{ id: "r1", name: "read_file", input: { path: "a" } }] },
    { text: "done" },
  ]);
  const tool = new FakeTool("fs", [{ schema: READ }]);
  const hook = new FakeHook("journal", (req) => ack(req));
  const seen: { what: string; traceparent: string | undefined }[] = [];
  const spyModel = {
    identity: model.identity,
    capabilities: () => model.capabilities(),
    streamCompletion(
      req: Parameters<typeof model.streamCompletion>[0],
      o?: Parameters<typeof model.streamCompletion>[1],
    ) {
      seen.push({ what: "model", traceparent: o?.headers?.traceparent });
      return model.streamCompletion(req, o);
    },
  };
  const spyTool = {
    identity: tool.identity,
    schemas: () => tool.schemas(),
    invoke(
      call: Parameters<typeof tool.invoke>[0],
      o?: Parameters<typeof tool.invoke>[1],
    ) {
      seen.push({ what: "tool", traceparent: o?.headers?.traceparent });
      return tool.invoke(call, o);
    },
  };
  const spyHook = {
    identity: hook.identity,
    dispatchHook(
      req: Parameters<typeof hook.dispatchHook>[0],
      o?: Parameters<typeof hook.dispatchHook>[1],
    ) {
      seen.push({ what: "hook", traceparent: o?.headers?.traceparent });
      return hook.dispatchHook(req, o);
    },
  };
  await collect(runSession({
    profile: "test",
    models: [{ provider: "llm", id: "m1" }],
    tools: new Map([["fs", tool.toolSchemas]]),
    hooks: [{ point: "post-tool-call", provider: "journal", mode: "observe" }],
    policies: ALLOW_ALL,
    workingDirectory: "/work",
  }, {
    store: memoryStore(),
    models: new Map([["llm", spyModel]]),
    tools: new Map([["fs", spyTool]]),
    hooks: new Map([["journal", spyHook]]),
    sleep: recordingSleep().sleep,
    random: () => 0,
    tracer,
  }, { prompt: "go" }));
  const tp = (s: { id: number; traceId: string }) =>
    `00-${s.traceId}-${s.id.toString(16).padStart(16, "0")}-01`;
  const modelSpans = tracer.named("model.call").map(tp);
  const toolSpans = tracer.named("tool.execute").map(tp);
  const hookSpans = tracer.named("hook.subscriber").map(tp);
  assert.deepEqual(
    seen.filter((s) => s.what === "model").map((s) => s.traceparent),
    modelSpans,
  );
  assert.deepEqual(
    seen.filter((s) => s.what === "tool").map((s) => s.traceparent),
    toolSpans,
  );
  assert.deepEqual(
    seen.filter((s) => s.what === "hook").map((s) => s.traceparent),
    hookSpans,
  );
  const traces = new Set(tracer.spans.map((s) => s.traceId));
  assert.equal(traces.size, 1, "one trace for the whole session");
});
