import assert from "node:assert/strict";
import { clone, create } from "@bufbuild/protobuf";
import { HookPayloadSchema } from "../../proto/gen/pluggableharness/hook/v1/events_pb.ts";
import { HookErrorCategory } from "../../proto/gen/pluggableharness/hook/v1/errors_pb.ts";
import { HookDecision } from "../../proto/gen/pluggableharness/hook/v1/types_pb.ts";
import { Role } from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { PluginCrashedError } from "../plugin/errors.ts";
import { ack, FakeHook, hang, type HookBehaviour } from "./_testing.ts";
import { HookDispatcher, type HookFailure } from "./hook_dispatch.ts";
import { HookChainAbortedError, TurnCancelledError } from "./errors.ts";
import type { HookSubscription } from "./session_spec.ts";

function preModelCall(text = "hello") {
  return create(HookPayloadSchema, {
    payload: {
      case: "preModelCall",
      value: {
        messages: [{
          role: Role.USER,
          id: "m1",
          content: [{ block: { case: "text", value: { text } } }],
        }],
        model: { provider: "claude", id: "large" },
      },
    },
  });
}

function planReady() {
  return create(HookPayloadSchema, {
    payload: {
      case: "planReady",
      value: { plan: { turnId: "t1", items: [] } },
    },
  });
}

function text(p: ReturnType<typeof preModelCall>): string {
  const v = p.payload.case === "preModelCall" ? p.payload.value : undefined;
  const b = v?.messages[0]?.content[0]?.block;
  return b?.case === "text" ? b.value.text : "";
}

const redact: HookBehaviour = (req) => {
  const p = req.payload!;
  if (p.payload.case !== "preModelCall") throw new Error("unexpected");
  const next = clone(HookPayloadSchema, p);
  if (next.payload.case === "preModelCall") {
    const b = next.payload.value.messages[0]!.content[0]!.block;
    if (b.case === "text") {
      b.value.text = b.value.text.replace("hello", "[redacted]");
    }
  }
  return { outcome: { case: "transform", value: { payload: next } } };
};

function dispatcher(
  subs: (HookSubscription & { hook: FakeHook })[],
  defaultTimeoutMs = 2_000,
) {
  const failures: HookFailure[] = [];
  const d = new HookDispatcher({
    subscriptions: subs,
    endpoints: new Map(subs.map((s) => [s.provider, s.hook])),
    defaultTimeoutMs,
    onHookError: (f) => {
      failures.push(f);
    },
  });
  return { d, failures };
}

Deno.test("§6.9-11 hooks dispatch in one declaration-ordered pass across modes", async () => {
  const log: string[] = [];
  const a = new FakeHook("a", ack, { log });
  const b = new FakeHook("b", redact, { log });
  const c = new FakeHook("c", ack, { log });
  const seen: string[] = [];
  const dd = new FakeHook("d", (req) => {
    seen.push(text(req.payload as ReturnType<typeof preModelCall>));
    return ack(req);
  }, { log });
  const { d } = dispatcher([
    { point: "pre-model-call", provider: "a", mode: "observe", hook: a },
    { point: "pre-model-call", provider: "b", mode: "transform", hook: b },
    { point: "pre-model-call", provider: "c", mode: "veto", hook: c },
    { point: "pre-model-call", provider: "d", mode: "observe", hook: dd },
    { point: "post-apply", provider: "a", mode: "observe", hook: a },
  ]);
  const out = await d.dispatch(
    "pre-model-call",
    preModelCall(),
    new AbortController().signal,
  );
  assert.deepEqual(log, [
    "hook:preModelCall:a",
    "hook:preModelCall:b",
    "hook:preModelCall:c",
    "hook:preModelCall:d",
  ]);
  assert.deepEqual(seen, ["[redacted]"]);
  assert.equal(
    text(out.payload as ReturnType<typeof preModelCall>),
    "[redacted]",
  );
  assert.equal(out.decision, "allow");
  assert.equal(c.requests[0]!.mode, 3);
});

Deno.test("§6.9-12 observe errors and timeouts never alter the payload or abort the chain", async () => {
  const failing = new FakeHook("failing", () => {
    throw new Error("audit log is down");
  });
  const slow = new FakeHook("slow", hang);
  const wrong = new FakeHook("wrong", () => ({
    outcome: { case: "veto", value: { decision: HookDecision.DENY } },
  }));
  const after = new FakeHook("after", redact);
  const { d, failures } = dispatcher([
    {
      point: "pre-model-call",
      provider: "failing",
      mode: "observe",
      hook: failing,
    },
    {
      point: "pre-model-call",
      provider: "slow",
      mode: "observe",
      hook: slow,
      timeoutMs: 20,
    },
    {
      point: "pre-model-call",
      provider: "wrong",
      mode: "observe",
      hook: wrong,
    },
    {
      point: "pre-model-call",
      provider: "after",
      mode: "transform",
      hook: after,
    },
  ]);
  const out = await d.dispatch(
    "pre-model-call",
    preModelCall(),
    new AbortController().signal,
  );
  assert.equal(after.requests.length, 1);
  assert.equal(
    text(after.requests[0]!.payload as ReturnType<typeof preModelCall>),
    "hello",
  );
  assert.equal(out.decision, "allow");
  assert.deepEqual(
    failures.map((f) => [f.subscription.provider, f.error.category]),
    [
      ["failing", HookErrorCategory.UNKNOWN],
      ["slow", HookErrorCategory.TIMEOUT],
      ["wrong", HookErrorCategory.INVALID_RESPONSE],
    ],
  );
  assert.equal(failures[0]!.identity.name, "failing");
});

Deno.test("§6.9-13 transform errors and timeouts abort the chain with hook_error", async (t) => {
  const cases: [string, HookBehaviour, HookErrorCategory][] = [
    ["an error", () => {
      throw new Error("boom");
    }, HookErrorCategory.TRANSFORM_FAILED],
    ["a timeout", hang, HookErrorCategory.TIMEOUT],
    ["a wrong variant", (req) => ({
      outcome: { case: "transform", value: { payload: planReady() } },
      ...(req ? {} : {}),
    }), HookErrorCategory.INVALID_RESPONSE],
    ["a change of the immutable model", (req) => {
      const next = clone(HookPayloadSchema, req.payload!);
      if (next.payload.case === "preModelCall") {
        next.payload.value.model!.id = "other";
      }
      return { outcome: { case: "transform", value: { payload: next } } };
    }, HookErrorCategory.INVALID_RESPONSE],
    [
      "an observe ack",
      () => ({ outcome: { case: "observe", value: {} } }),
      HookErrorCategory.INVALID_RESPONSE,
    ],
    ["a crash", () => {
      throw new PluginCrashedError("x", { code: 1, signal: null });
    }, HookErrorCategory.PROCESS_CRASHED],
  ];
  for (const [name, behaviour, category] of cases) {
    await t.step(name, async () => {
      const x = new FakeHook("x", behaviour);
      const next = new FakeHook("next");
      const { d, failures } = dispatcher([
        {
          point: "pre-model-call",
          provider: "x",
          mode: "transform",
          hook: x,
          timeoutMs: 20,
        },
        {
          point: "pre-model-call",
          provider: "next",
          mode: "observe",
          hook: next,
        },
      ]);
      await assert.rejects(
        d.dispatch(
          "pre-model-call",
          preModelCall(),
          new AbortController().signal,
        ),
        (e) => e instanceof HookChainAbortedError && e.subscriber === "x",
      );
      assert.equal(next.requests.length, 0);
      assert.equal(failures.length, 1);
      assert.equal(failures[0]!.error.category, category);
      assert.equal(failures[0]!.error.subscriber?.name, "x");
    });
  }
  await t.step(
    "a transform at an immutable point must echo the payload",
    async () => {
      const echo = new FakeHook("echo");
      const { d } = dispatcher([{
        point: "plan-ready",
        provider: "echo",
        mode: "transform",
        hook: echo,
      }]);
      const out = await d.dispatch(
        "plan-ready",
        planReady(),
        new AbortController().signal,
      );
      assert.equal(out.decision, "allow");
    },
  );
});

Deno.test("§6.9-14 veto errors and timeouts fail closed", async (t) => {
  const cases: [string, HookBehaviour, HookErrorCategory | undefined][] = [
    ["an explicit deny", () => ({
      outcome: { case: "veto", value: { decision: HookDecision.DENY } },
    }), undefined],
    ["an error", () => {
      throw new Error("policy server down");
    }, HookErrorCategory.VETO_FAILED],
    ["a timeout", hang, HookErrorCategory.TIMEOUT],
    ["UNSPECIFIED", () => ({
      outcome: { case: "veto", value: { decision: HookDecision.UNSPECIFIED } },
    }), HookErrorCategory.INVALID_RESPONSE],
    ["a transform answer", (req) => ({
      outcome: { case: "transform", value: { payload: req.payload! } },
    }), HookErrorCategory.INVALID_RESPONSE],
  ];
  for (const [name, behaviour, category] of cases) {
    await t.step(name, async () => {
      const v = new FakeHook("guard", behaviour);
      const later = new FakeHook("later");
      const { d, failures } = dispatcher([
        {
          point: "plan-ready",
          provider: "guard",
          mode: "veto",
          hook: v,
          timeoutMs: 20,
        },
        { point: "plan-ready", provider: "later", mode: "veto", hook: later },
      ]);
      const out = await d.dispatch(
        "plan-ready",
        planReady(),
        new AbortController().signal,
      );
      assert.equal(out.decision, "deny");
      assert.equal(out.decidedBy, "hook-veto:guard");
      assert.equal(later.requests.length, 0, "a deny short-circuits");
      assert.deepEqual(
        failures.map((f) => f.error.category),
        category === undefined ? [] : [category],
      );
    });
  }
  await t.step(
    "parent cancellation is no verdict and persists nothing",
    async () => {
      const ac = new AbortController();
      const v = new FakeHook("guard", (req, signal) => {
        setTimeout(() => ac.abort(), 5);
        return hang(req, signal);
      });
      const { d, failures } = dispatcher([
        {
          point: "plan-ready",
          provider: "guard",
          mode: "veto",
          hook: v,
          timeoutMs: 1_000,
        },
      ]);
      await assert.rejects(
        d.dispatch("plan-ready", planReady(), ac.signal),
        TurnCancelledError,
      );
      assert.deepEqual(failures, []);
    },
  );
});

Deno.test("§6.9-15 a per-subscriber timeout is enforced on every invocation", async () => {
  const own = new FakeHook("own", hang);
  const dflt = new FakeHook("dflt", hang);
  const { d, failures } = dispatcher([
    {
      point: "post-apply",
      provider: "own",
      mode: "observe",
      hook: own,
      timeoutMs: 10,
    },
    { point: "post-apply", provider: "dflt", mode: "observe", hook: dflt },
  ], 30);
  const payload = create(HookPayloadSchema, {
    payload: { case: "postApply", value: { apply: { turnId: "t" } } },
  });
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    await d.dispatch("post-apply", payload, new AbortController().signal);
    const elapsed = performance.now() - start;
    assert.ok(elapsed >= 38 && elapsed < 1_000, `took ${elapsed} ms`);
  }
  assert.equal(failures.length, 6);
  assert.ok(
    failures.every((f) => f.error.category === HookErrorCategory.TIMEOUT),
  );
  assert.match(failures[0]!.error.message, /10 ms/);
  assert.match(failures[1]!.error.message, /30 ms/);
});

Deno.test("§6.9-16 transform and veto subscribers run sequentially", async () => {
  const tracker = { inFlight: 0, max: 0 };
  const slow = (mode: "transform" | "veto"): HookBehaviour => async (req) => {
    await new Promise((r) => setTimeout(r, 10));
    return mode === "transform"
      ? { outcome: { case: "transform", value: { payload: req.payload! } } }
      : { outcome: { case: "veto", value: { decision: HookDecision.ALLOW } } };
  };
  const subs = ["t1", "v1", "t2", "v2"].map((name) => {
    const mode = name.startsWith("t") ? "transform" as const : "veto" as const;
    return {
      point: "pre-tool-call" as const,
      provider: name,
      mode,
      hook: new FakeHook(name, slow(mode), { tracker }),
    };
  });
  const { d } = dispatcher(subs);
  const payload = create(HookPayloadSchema, {
    payload: {
      case: "preToolCall",
      value: { call: { id: "c1", toolName: "x" } },
    },
  });
  const out = await d.dispatch(
    "pre-tool-call",
    payload,
    new AbortController().signal,
  );
  assert.equal(out.decision, "allow");
  assert.equal(tracker.max, 1);
  assert.ok(subs.every((s) => s.hook.requests.length === 1));
});

Deno.test("HookDispatcher refuses a subscription without an endpoint", () => {
  assert.throws(
    () =>
      new HookDispatcher({
        subscriptions: [{
          point: "plan-ready",
          provider: "ghost",
          mode: "veto",
        }],
        endpoints: new Map(),
        defaultTimeoutMs: 10,
      }),
    TypeError,
  );
});
