/**
 * Issue 21, defects 4 and 11, through the real callback channel: a plugin
 * (the probe fixture) subscribes to `kernel.event.*` over gRPC while the
 * kernel writes two live sessions.
 *
 * - Defect 4: any plugin could subscribe to `kernel.*` and read every
 *   session's prompts and tool results. Now `kernel.*` needs the operator's
 *   `allow_subscribe` grant, and delivers only the sessions the plugin takes
 *   part in unless the grant ends in `@all`.
 * - Defect 11: a plugin's bus identity was its manifest's `name`. Now it is
 *   the operator's local name.
 */
import assert from "node:assert/strict";
import type { JsonObject } from "@bufbuild/protobuf";
import {
  EventBus,
  type Plugin,
  PluginHost,
  SessionRegistry,
  SqliteSessionStore,
} from "../kernel/mod.ts";
import { EventKind } from "../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import type { SessionLog } from "../kernel/state/session_store.ts";
import { invoke, launchProbe, PATH, waitFor } from "./_helpers.ts";

interface Scene extends AsyncDisposable {
  probe: Plugin;
  bus: EventBus;
  sessions: SessionRegistry;
  /** Session A: the probe is not part of it. */
  a: SessionLog;
  /** Session B: the probe serves its profile. */
  b: SessionLog;
  rpc(method: string, request?: JsonObject, max?: number): Promise<JsonObject>;
}

const KERNEL = { category: "tool", name: "kernel-test" } as const;

async function scene(
  as: { name?: string; manifestName?: string; subscribe?: string[] } = {},
): Promise<Scene> {
  const dir = await Deno.makeTempDir({ prefix: "ph-agent-bus-scope-" });
  const bus = new EventBus();
  const store = new SqliteSessionStore({ dir, bus });
  const sessions = new SessionRegistry();
  const host = new PluginHost({ env: { PATH }, services: { sessions, bus } });
  try {
    const probe = await launchProbe(host, {}, {}, undefined, as);
    const a = await store.create({ profile: "victim" });
    const b = await store.create({ profile: "probe-served" });
    const unregister = [
      sessions.register({
        log: a,
        remainingDepth: 0,
        remainingCostBudgetUsd: 0,
      }),
      sessions.register({
        log: b,
        remainingDepth: 0,
        remainingCostBudgetUsd: 0,
        participants: [probe.identity],
      }),
    ];
    return {
      probe,
      bus,
      sessions,
      a,
      b,
      rpc: (method, request = {}, max) =>
        invoke(probe, "rpc", {
          method,
          request,
          ...(max !== undefined ? { max } : {}),
        }),
      async [Symbol.asyncDispose]() {
        for (const u of unregister) u();
        await host.close();
        await a.close();
        await b.close();
        await store.close();
        await Deno.remove(dir, { recursive: true });
      },
    };
  } catch (err) {
    await host.close();
    await store.close();
    await Deno.remove(dir, { recursive: true });
    throw err;
  }
}

/** The kernel writes an event (a prompt, a file's contents) into a session. */
function write(log: SessionLog, text: string) {
  return log.emit({
    kind: EventKind.TOOL_RESULT,
    producer: { ...KERNEL, version: "0.0.0" },
    schemaVersion: "1",
    payload: new TextEncoder().encode(text),
  });
}

/**
 * Subscribes through the probe and waits until the bus has it; `received`
 * settles once `max` events arrived.
 */
async function subscribe(
  s: Scene,
  filters: string[],
  max: number,
): Promise<{ received: Promise<JsonObject> }> {
  const before = s.bus.subscriberCount;
  const pending = s.rpc("subscribe", { topicFilters: filters }, max);
  assert.ok(
    await waitFor(() => s.bus.subscriberCount > before, 5000),
    "the subscription reached the bus",
  );
  return { received: pending };
}

const texts = (res: JsonObject) =>
  ((res.ok ?? []) as JsonObject[]).map((e) => atob(String(e.payload)));

Deno.test("defect 4: a plugin without allow_subscribe gets PERMISSION_DENIED on every filter that reaches kernel.*", async () => {
  await using s = await scene();
  for (
    const filter of [
      "kernel.event.*",
      "kernel.*",
      "*",
      "kernel.event.message",
    ]
  ) {
    const res = await s.rpc("subscribe", { topicFilters: [filter] });
    const err = res.error as JsonObject;
    assert.equal(err.code, "PERMISSION_DENIED", filter);
    assert.match(String(err.message), /allow_subscribe/);
    assert.ok(String(err.message).includes(JSON.stringify(filter)));
  }
  // A mixed request is refused whole: nothing of kernel.* leaks through.
  const mixed = await s.rpc("subscribe", {
    topicFilters: ["plugin.tool.other.*", "kernel.event.*"],
  });
  assert.equal((mixed.error as JsonObject).code, "PERMISSION_DENIED");
  assert.equal(s.bus.subscriberCount, 0);
});

Deno.test("defect 4: a grant for kernel.event.* does not cover kernel.* or *", async () => {
  await using s = await scene({ subscribe: ["kernel.event.*"] });
  for (const filter of ["kernel.*", "*"]) {
    const res = await s.rpc("subscribe", { topicFilters: [filter] });
    assert.equal((res.error as JsonObject).code, "PERMISSION_DENIED", filter);
  }
});

Deno.test("defect 4: a granted plugin that takes no part in session A receives nothing of A (the cross-session attack)", async () => {
  await using s = await scene({ subscribe: ["kernel.event.*"] });
  const got = await subscribe(s, ["kernel.event.*"], 2);
  await write(s.a, "A's prompt: deploy with key sk-secret");
  await write(s.a, "contents of A's .env");
  await write(s.b, "b1");
  await write(s.b, "b2");
  // Per-subscriber FIFO: had A's events been delivered, they would be first.
  assert.deepEqual(texts(await got.received), ["b1", "b2"]);
});

Deno.test("defect 4: a plugin invoked in a session takes part in it, and keeps receiving after the invocation returns", async () => {
  await using s = await scene({ subscribe: ["kernel.event.*"] });
  const got = await subscribe(s, ["kernel.event.*"], 2);
  await write(s.a, "before the invocation");
  const release = s.sessions.grant(s.probe.identity, s.a.sessionId);
  release();
  await write(s.a, "after the invocation");
  await write(s.b, "b1");
  assert.deepEqual(texts(await got.received), ["after the invocation", "b1"]);
});

Deno.test("defect 4: the @all grant delivers every session's kernel events", async () => {
  await using s = await scene({ subscribe: ["kernel.event.*@all"] });
  const got = await subscribe(s, ["kernel.event.tool_result"], 3);
  await write(s.a, "a1");
  await write(s.b, "b1");
  await write(s.a, "a2");
  assert.deepEqual(texts(await got.received), ["a1", "b1", "a2"]);
});

Deno.test("defect 4: a session that ended is no longer delivered to a session-scoped subscription", async () => {
  await using s = await scene({ subscribe: ["kernel.*"] });
  const got = await subscribe(s, ["kernel.*"], 1);
  // B unregisters (its session ended); a later B event is not delivered.
  const again = s.sessions.register({
    log: s.b,
    remainingDepth: 0,
    remainingCostBudgetUsd: 0,
  });
  again();
  await write(s.b, "after the end");
  s.sessions.grant(s.probe.identity, s.a.sessionId);
  await write(s.a, "a1");
  assert.deepEqual(texts(await got.received), ["a1"]);
});

Deno.test("defect 11: a plugin publishes under the operator's local name, whatever its manifest claims", async () => {
  await using s = await scene({ name: "helper", manifestName: "exec" });
  assert.equal(s.probe.identity.name, "helper");
  const got = await subscribe(s, ["plugin.tool.*"], 1);
  const pub = await s.rpc("publish", {
    eventType: "done",
    payload: btoa("x"),
    payloadType: "text/plain",
    schemaVersion: "1",
  });
  assert.deepEqual(pub.ok, { topic: "plugin.tool.helper.done" });
  const events = (await got.received).ok as JsonObject[];
  assert.deepEqual(events.map((e) => e.topic), ["plugin.tool.helper.done"]);
});
