/**
 * KernelCallbackService through the real transport: a plugin (the probe
 * fixture) calls every implemented RPC, including every rejection path.
 */
import assert from "node:assert/strict";
import type { JsonObject } from "@bufbuild/protobuf";
import {
  createTelemetryRelay,
  EventBus,
  type ExactTokenCounter,
  type KernelServices,
  PluginHost,
  SESSION_ACCESS_DENIED_MESSAGE,
  SessionRegistry,
  SqliteSessionStore,
  type TelemetrySettings,
} from "../kernel/mod.ts";
import { GrpcStatusError } from "../proto/grpc_adapter.ts";
import { LogLevel } from "../proto/gen/pluggableharness/log/v1/types_pb.ts";
import {
  captureLogs,
  invoke,
  launchProbe,
  PATH,
  renderRecord,
  waitFor,
} from "./_helpers.ts";
import type { Plugin } from "../kernel/mod.ts";

interface Fixture extends AsyncDisposable {
  answers: JsonObject[];
  probe: Plugin;
  sessions: SessionRegistry;
  bus: EventBus;
  store: SqliteSessionStore;
  sessionId: string;
  otherSessionId: string;
  telemetry: ReturnType<typeof createTelemetryRelay>;
  rpc(method: string, request?: JsonObject, max?: number): Promise<JsonObject>;
}

/**
 * The probe plugin most steps share, on a host whose kernel services are
 * swapped for each step's fresh sessions, bus and token counter (the
 * callback service reads them at each call). A step whose plugin needs its
 * own launch settings (config, subscribe grant, telemetry) or whose
 * assertions read the telemetry relay's counters launches its own.
 */
interface SharedProbe extends AsyncDisposable {
  services: KernelServices;
  telemetry: ReturnType<typeof createTelemetryRelay>;
  probe: Plugin;
}

let shared: SharedProbe | undefined;

async function launchShared(): Promise<SharedProbe> {
  const telemetry = createTelemetryRelay();
  const services: KernelServices = { telemetry };
  const host = new PluginHost({ env: { PATH }, services });
  try {
    const probe = await launchProbe(host);
    return {
      services,
      telemetry,
      probe,
      async [Symbol.asyncDispose]() {
        await host.close();
        await telemetry.close();
      },
    };
  } catch (err) {
    await host.close();
    await telemetry.close();
    throw err;
  }
}

async function fixture(
  options: {
    telemetry?: TelemetrySettings;
    config?: JsonObject;
    countTokens?: ExactTokenCounter;
    subscribe?: string[];
    /** Launch a probe of its own even without launch settings. */
    own?: boolean;
  } = {},
): Promise<Fixture> {
  const dir = await Deno.makeTempDir({ prefix: "ph-agent-callback-" });
  const bus = new EventBus();
  const store = new SqliteSessionStore({ dir, bus });
  const sessions = new SessionRegistry();
  const own = options.own || options.telemetry || options.config ||
    options.subscribe || !shared;
  let probe: Plugin;
  let telemetry: ReturnType<typeof createTelemetryRelay>;
  let stop: () => Promise<void>;
  if (own) {
    telemetry = createTelemetryRelay(options.telemetry);
    const host = new PluginHost({
      env: { PATH },
      services: {
        sessions,
        bus,
        telemetry,
        ...(options.countTokens ? { countTokens: options.countTokens } : {}),
      },
    });
    probe = await launchProbe(host, {}, {}, options.config, {
      ...(options.subscribe ? { subscribe: options.subscribe } : {}),
    });
    stop = async () => {
      await host.close();
      await telemetry.close();
    };
  } else {
    const s = shared!;
    s.services.sessions = sessions;
    s.services.bus = bus;
    if (options.countTokens) s.services.countTokens = options.countTokens;
    else delete s.services.countTokens;
    probe = s.probe;
    telemetry = s.telemetry;
    stop = () => Promise.resolve();
  }
  const mine = await store.create({ profile: "default" });
  const other = await store.create({ profile: "default" });
  const answers: JsonObject[] = [];
  const unregister = [
    sessions.register({
      log: mine,
      remainingDepth: 3,
      remainingCostBudgetUsd: 2.5,
      // One interactive call waits for an answer; the first answer wins.
      resolveInteractive: (callId, response) => {
        if (callId !== "call_waiting" || answers.length > 0) return false;
        answers.push(response);
        return true;
      },
    }),
    sessions.register({
      log: other,
      remainingDepth: 3,
      remainingCostBudgetUsd: 2.5,
    }),
  ];
  const release = sessions.grant(probe.identity, mine.sessionId);
  return {
    answers,
    probe,
    sessions,
    bus,
    store,
    sessionId: mine.sessionId,
    otherSessionId: other.sessionId,
    telemetry,
    rpc: (method, request = {}, max) =>
      invoke(probe, "rpc", {
        method,
        request,
        ...(max !== undefined ? { max } : {}),
      }),
    async [Symbol.asyncDispose]() {
      release();
      for (const u of unregister) u();
      await stop();
      await store.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

const STEPS: { name: string; fn: (t: Deno.TestContext) => Promise<void> }[] =
  [];

/** Registers a step of the one test at the end of this file. */
function callbackTest(
  name: string,
  fn: (t: Deno.TestContext) => Promise<void>,
): void {
  STEPS.push({ name, fn });
}

const b64 = (s: string) => btoa(s);
const nowIso = () => new Date().toISOString();

function denied(res: JsonObject) {
  assert.deepEqual(res.error, {
    code: "PERMISSION_DENIED",
    message: SESSION_ACCESS_DENIED_MESSAGE,
  });
}

callbackTest(
  "Emit persists with kernel-assigned id and sequence, the connection's producer, and republishes after commit",
  async () => {
    await using f = await fixture();
    const seen: { topic: string; sequence: bigint }[] = [];
    const stop = f.bus.listen(
      ["kernel.event.*"],
      (e) => seen.push({ topic: e.topic, sequence: e.sequence }),
    );
    try {
      const res = await f.rpc("emit", {
        sessionId: f.sessionId,
        kind: "EVENT_KIND_TOOL_CALL",
        schemaVersion: "1",
        payload: b64("opaque bytes"),
      });
      const ok = res.ok as JsonObject;
      assert.match(String(ok.id), /^[0-9A-HJKMNP-TV-Z]{26}$/, "a ULID");
      assert.equal(ok.sequence, "1");
      assert.deepEqual(seen, [{
        topic: "kernel.event.tool_call",
        sequence: 1n,
      }]);
      const log = await f.store.open(f.sessionId);
      const events = [];
      for await (const e of log.readEvents()) events.push(e);
      assert.equal(events.length, 1);
      assert.deepEqual(events[0]!.producer, {
        category: "tool",
        name: "probe",
        version: "0.0.1",
      });
      assert.equal(
        new TextDecoder().decode(events[0]!.payload),
        "opaque bytes",
      );
    } finally {
      stop();
    }
  },
);

callbackTest(
  "session-scoped calls are refused with one uniform PERMISSION_DENIED",
  async (t) => {
    await using f = await fixture();
    const emit = (sessionId: string) =>
      f.rpc("emit", {
        sessionId,
        kind: "EVENT_KIND_TOOL_CALL",
        schemaVersion: "1",
        payload: b64("x"),
      });
    await t.step(
      "a live session the plugin was not invoked for",
      async () => denied(await emit(f.otherSessionId)),
    );
    await t.step(
      "a session that does not exist",
      async () => denied(await emit("01J00000000000000000000000")),
    );
    await t.step("an empty session id", async () => denied(await emit("")));
    await t.step(
      "ReadEvents, GetSession, and Log naming another session",
      async () => {
        denied(await f.rpc("readEvents", { sessionId: f.otherSessionId }));
        denied(await f.rpc("getSession", { sessionId: f.otherSessionId }));
        denied(
          await f.rpc("log", {
            sessionId: f.otherSessionId,
            entries: [{
              level: "LOG_LEVEL_INFO",
              message: "x",
              time: nowIso(),
            }],
          }),
        );
      },
    );
    await t.step("after the grant is released", async () => {
      const release = f.sessions.grant(f.probe.identity, f.otherSessionId);
      assert.ok((await emit(f.otherSessionId)).ok);
      release();
      denied(await emit(f.otherSessionId));
    });
  },
);

callbackTest(
  "Emit validates kind, schema_version and kernel-owned kinds",
  async () => {
    await using f = await fixture();
    const emit = (kind: string, schemaVersion = "1") =>
      f.rpc("emit", {
        sessionId: f.sessionId,
        kind,
        schemaVersion,
        payload: b64("x"),
      });
    assert.deepEqual((await emit("EVENT_KIND_UNSPECIFIED")).error, {
      code: "INVALID_ARGUMENT",
      message: "kind is EVENT_KIND_UNSPECIFIED: set the event kind",
    });
    assert.match(
      String(
        ((await emit("EVENT_KIND_TOOL_RESULT", "")).error as JsonObject)
          .message,
      ),
      /schema_version is required/,
    );
    for (
      const kind of [
        "EVENT_KIND_MESSAGE",
        "EVENT_KIND_PLAN",
        "EVENT_KIND_APPLY",
        "EVENT_KIND_HOOK_ERROR",
      ]
    ) {
      const err = (await emit(kind)).error as JsonObject;
      assert.equal(err.code, "PERMISSION_DENIED", kind);
      assert.match(String(err.message), /only the kernel writes/);
    }
    // Nothing was written by the refused calls.
    assert.equal(
      (await f.store.open(f.sessionId).then((l) => l.info())).sessionId,
      f.sessionId,
    );
    const log = await f.store.open(f.sessionId);
    let n = 0;
    for await (const _ of log.readEvents()) n++;
    assert.equal(n, 0);
  },
);

callbackTest(
  "ReadEvents streams the session's events by sequence, filtered and limited",
  async () => {
    await using f = await fixture();
    const kinds = [
      "EVENT_KIND_TOOL_CALL",
      "EVENT_KIND_TOOL_RESULT",
      "EVENT_KIND_TOOL_CALL",
      "EVENT_KIND_MEMORY_WRITE",
    ];
    for (const kind of kinds) {
      await f.rpc("emit", {
        sessionId: f.sessionId,
        kind,
        schemaVersion: "1",
        payload: b64(kind),
      });
    }
    const all = (await f.rpc("readEvents", { sessionId: f.sessionId }))
      .ok as JsonObject[];
    assert.deepEqual(all.map((e) => e.sequence), ["1", "2", "3", "4"]);
    assert.deepEqual(all.map((e) => e.kind), kinds);
    assert.equal((all[0]!.producer as JsonObject).name, "probe");
    const calls = (await f.rpc("readEvents", {
      sessionId: f.sessionId,
      kinds: ["EVENT_KIND_TOOL_CALL"],
    })).ok as JsonObject[];
    assert.deepEqual(calls.map((e) => e.sequence), ["1", "3"]);
    const page = (await f.rpc("readEvents", {
      sessionId: f.sessionId,
      fromSequence: "2",
      limit: 2,
    })).ok as JsonObject[];
    assert.deepEqual(page.map((e) => e.sequence), ["2", "3"]);
    assert.equal(
      ((await f.rpc("readEvents", {
        sessionId: f.sessionId,
        kinds: ["EVENT_KIND_UNSPECIFIED"],
      })).error as JsonObject)
        .code,
      "INVALID_ARGUMENT",
    );
  },
);

callbackTest(
  "GetSession returns the persisted info and the live budgets",
  async () => {
    await using f = await fixture();
    const ok = (await f.rpc("getSession", { sessionId: f.sessionId }))
      .ok as JsonObject;
    assert.equal((ok.info as JsonObject).sessionId, f.sessionId);
    assert.equal((ok.info as JsonObject).status, "SESSION_STATUS_RUNNING");
    assert.equal(ok.remainingDepth, 3);
    assert.equal(ok.remainingCostBudgetUsd, 2.5);
  },
);

callbackTest(
  "Publish builds the topic from the connection's identity; Subscribe streams by filter",
  async () => {
    await using f = await fixture({ subscribe: ["kernel.event.*"] });
    const subscribed = f.rpc("subscribe", {
      topicFilters: ["plugin.tool.probe.*", "kernel.event.*"],
    }, 3);
    assert.ok(
      await waitFor(() => f.bus.subscriberCount > 0, 5000),
      "the subscription reached the bus",
    );
    const pub = await f.rpc("publish", {
      eventType: "file_changed",
      payload: b64("{}"),
      payloadType: "application/json",
      schemaVersion: "1",
    });
    assert.deepEqual(pub.ok, { topic: "plugin.tool.probe.file_changed" });
    f.bus.publishPlugin({ category: "tool", name: "other" }, {
      eventType: "ignored",
      payload: new Uint8Array(),
      payloadType: "x",
      schemaVersion: "1",
    });
    await f.rpc("emit", {
      sessionId: f.sessionId,
      kind: "EVENT_KIND_TOOL_CALL",
      schemaVersion: "1",
      payload: b64("a"),
    });
    await f.rpc("emit", {
      sessionId: f.sessionId,
      kind: "EVENT_KIND_TOOL_CALL",
      schemaVersion: "1",
      payload: b64("b"),
    });
    const events = (await subscribed).ok as JsonObject[];
    assert.deepEqual(events.map((e) => e.topic), [
      "plugin.tool.probe.file_changed",
      "kernel.event.tool_call",
      "kernel.event.tool_call",
    ]);
    assert.deepEqual(events.map((e) => e.sequence ?? "0"), ["0", "1", "2"]);
    for (const eventType of ["a.b", "x*", "", "Upper"]) {
      const err = (await f.rpc("publish", {
        eventType,
        payloadType: "x",
        schemaVersion: "1",
      })).error as JsonObject;
      assert.equal(err.code, "INVALID_ARGUMENT", eventType);
    }
    assert.equal(
      ((await f.rpc("subscribe", { topicFilters: ["plugin.*.x"] }))
        .error as JsonObject).code,
      "INVALID_ARGUMENT",
    );
    assert.equal(
      ((await f.rpc("subscribe", { topicFilters: [] })).error as JsonObject)
        .code,
      "INVALID_ARGUMENT",
    );
  },
);

callbackTest(
  "Log batches entries into the kernel's logging, skips malformed ones, applies the level floor",
  async () => {
    await using logs = await captureLogs();
    await using f = await fixture({
      telemetry: {
        tracesEnabled: false,
        metricsEnabled: false,
        logsEnabled: true,
        logLevel: LogLevel.DEBUG,
        samplingRatio: 1,
      },
    });
    const res = await f.rpc("log", {
      sessionId: f.sessionId,
      entries: [
        {
          level: "LOG_LEVEL_TRACE",
          message: "below the floor",
          time: nowIso(),
        },
        {
          level: "LOG_LEVEL_DEBUG",
          logger: "cache.lru",
          message: "evicted",
          fields: { n: 3 },
          time: nowIso(),
        },
        { level: "LOG_LEVEL_UNSPECIFIED", message: "no level", time: nowIso() },
        { level: "LOG_LEVEL_INFO", message: "no time" },
        { level: "LOG_LEVEL_FATAL", message: "a label only", time: nowIso() },
      ],
    });
    assert.deepEqual(res.ok, {});
    const plugin = logs.records.filter((r) => r.category[1] === "plugin");
    assert.deepEqual(plugin.map((r) => r.properties.message), [
      "evicted",
      "a label only",
    ]);
    assert.deepEqual(plugin[0]!.category, [
      "ph-agent",
      "plugin",
      "probe",
      "cache.lru",
    ]);
    assert.equal(plugin[0]!.properties.n, 3);
    assert.equal(plugin[0]!.properties.session, f.sessionId);
    assert.equal(plugin[1]!.level, "fatal");
    const warnings = logs.records.filter((r) =>
      /Skipped malformed log entry/.test(renderRecord(r))
    );
    assert.equal(warnings.length, 2);
    assert.match(
      String(
        ((await f.rpc("log", { entries: [] })).error as JsonObject).message,
      ),
      /at least one entry/,
    );
    assert.match(
      String(
        ((await f.rpc("log", {
          entries: [{ level: "LOG_LEVEL_INFO", message: "" }],
        })).error as JsonObject).message,
      ),
      /every one of the 1 log entries is malformed/,
    );
    // FATAL ended nothing.
    assert.deepEqual(await invoke(f.probe, "tokens", { text: "abcd" }), {
      count: 1,
      exact: false,
    });
  },
);

callbackTest(
  "CountTokens uses the model provider's exact count when it has one, else the one fallback",
  async () => {
    const asked: string[] = [];
    await using f = await fixture({
      countTokens: (ref) => {
        asked.push(`${ref.provider}/${ref.id}`);
        if (ref.provider === "exact") return Promise.resolve(7);
        if (ref.provider === "unimplemented") {
          return Promise.reject(
            new GrpcStatusError(12, "CountTokens is not implemented"),
          );
        }
        return Promise.resolve(undefined);
      },
    });
    const content: JsonObject[] = [
      { text: { text: "héllo wörld" } },
      { image: { data: b64("x".repeat(4000)), mediaType: "image/png" } },
    ];
    assert.deepEqual((await f.rpc("countTokens", { content })).ok, {
      count: "4",
      exact: false,
    });
    assert.deepEqual(
      (await f.rpc("countTokens", {
        content,
        modelRef: { provider: "exact", id: "m" },
      })).ok,
      {
        count: "7",
        exact: true,
      },
    );
    assert.deepEqual(
      (await f.rpc("countTokens", {
        content,
        modelRef: { provider: "unimplemented", id: "m" },
      })).ok,
      { count: "4", exact: false },
    );
    assert.deepEqual(
      (await f.rpc("countTokens", {
        content,
        modelRef: { provider: "none", id: "m" },
      })).ok,
      {
        count: "4",
        exact: false,
      },
    );
    assert.deepEqual(asked, ["exact/m", "unimplemented/m", "none/m"]);
    assert.equal(
      ((await f.rpc("countTokens", { content: [] })).error as JsonObject).code,
      "INVALID_ARGUMENT",
    );
  },
);

callbackTest(
  "GetConfig returns the plugin's own config, and no secret reaches any log even at TRACE",
  async () => {
    const SECRET = "sk-live-4f2d-never-log-me";
    await using logs = await captureLogs();
    await using f = await fixture({
      config: { api_key: SECRET, base_url: "https://example.test" },
    });
    const res = await f.rpc("getConfig");
    assert.deepEqual(res.ok, {
      config: { api_key: SECRET, base_url: "https://example.test" },
    });
    assert.ok(
      logs.records.length > 0,
      "the kernel logged at TRACE during the test",
    );
    for (const r of logs.records) {
      assert.ok(
        !renderRecord(r).includes(SECRET),
        `a log record leaked the secret: ${renderRecord(r)}`,
      );
    }
    assert.ok(!f.probe.stderrTail().includes(SECRET));
  },
);

callbackTest(
  "GetTelemetryConfig reports the configured telemetry",
  async () => {
    await using f = await fixture({
      telemetry: {
        tracesEnabled: true,
        metricsEnabled: false,
        logsEnabled: true,
        logLevel: LogLevel.WARN,
        samplingRatio: 0.25,
      },
    });
    assert.deepEqual((await f.rpc("getTelemetryConfig")).ok, {
      tracesEnabled: true,
      metricsEnabled: false,
      logsEnabled: true,
      logLevel: "LOG_LEVEL_WARN",
      samplingRatio: 0.25,
    });
  },
);

callbackTest(
  "ExportSpans and RecordMetrics validate, then count and drop without an endpoint",
  async () => {
    await using f = await fixture({ own: true });
    const span = {
      traceId: "0af7651916cd43dd8448eb211c80319c",
      spanId: "b7ad6b7169203331",
      name: "read",
      kind: "SPAN_KIND_INTERNAL",
      startTime: "2026-11-30T10:00:00Z",
      endTime: "2026-11-30T10:00:01Z",
    };
    assert.deepEqual((await f.rpc("exportSpans", { spans: [span] })).ok, {});
    assert.equal(f.telemetry.stats.spansReceived, 1);
    assert.equal(f.telemetry.stats.spansDropped, 1);
    assert.match(
      String(
        ((await f.rpc("exportSpans", { spans: [{ ...span, traceId: "XYZ" }] }))
          .error as JsonObject).message,
      ),
      /spans\[0\]\.trace_id must be 32 lowercase hex digits/,
    );
    assert.equal(
      ((await f.rpc("exportSpans", { spans: [] })).error as JsonObject).code,
      "INVALID_ARGUMENT",
    );
    denied(
      await f.rpc("exportSpans", {
        sessionId: f.otherSessionId,
        spans: [span],
      }),
    );
    const metric = {
      name: "reads",
      kind: "METRIC_KIND_COUNTER",
      intValue: "1",
    };
    assert.deepEqual(
      (await f.rpc("recordMetrics", { metrics: [metric] })).ok,
      {},
    );
    assert.equal(f.telemetry.stats.metricsDropped, 1);
    assert.match(
      String(
        ((await f.rpc("recordMetrics", {
          metrics: [{ name: "x", intValue: "1" }],
        })).error as JsonObject).message,
      ),
      /METRIC_KIND_UNSPECIFIED/,
    );
    assert.match(
      String(
        ((await f.rpc("recordMetrics", {
          metrics: [{ name: "x", kind: "METRIC_KIND_COUNTER" }],
        })).error as JsonObject).message,
      ),
      /needs int_value or double_value/,
    );
  },
);

callbackTest(
  "spans and metrics reach an OTLP collector: spans unaltered, producer on the resource, metrics namespaced",
  async () => {
    const received: { path: string; body: JsonObject }[] = [];
    const collector = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      onListen: () => {},
    }, async (req) => {
      received.push({
        path: new URL(req.url).pathname,
        body: await req.json(),
      });
      return Response.json({});
    });
    try {
      await using f = await fixture({
        telemetry: {
          tracesEnabled: true,
          metricsEnabled: true,
          logsEnabled: true,
          logLevel: LogLevel.INFO,
          samplingRatio: 1,
          endpoint: `http://127.0.0.1:${collector.addr.port}`,
          exportIntervalMs: 100,
        },
      });
      await f.rpc("exportSpans", {
        spans: [{
          traceId: "0af7651916cd43dd8448eb211c80319c",
          spanId: "b7ad6b7169203331",
          parentSpanId: "00f067aa0ba902b7",
          name: "tool.read",
          kind: "SPAN_KIND_CLIENT",
          startTime: "2026-11-30T10:00:00.000000123Z",
          endTime: "2026-11-30T10:00:01Z",
          attributes: { path: "/tmp/x" },
          status: { code: "STATUS_CODE_OK" },
          scope: { name: "probe", version: "0.0.1" },
        }],
      });
      await f.rpc("recordMetrics", {
        metrics: [{
          name: "reads",
          kind: "METRIC_KIND_COUNTER",
          intValue: "2",
          attributes: Object.fromEntries(
            Array.from(
              { length: 12 },
              (_, i) => [`k${String(i).padStart(2, "0")}`, "v"],
            ),
          ),
        }],
      });
      assert.ok(
        await waitFor(
          () => received.some((r) => r.path === "/v1/metrics"),
          5000,
        ),
        "metrics exported",
      );
      const traces = received.find((r) => r.path === "/v1/traces")!.body;
      const rs = (traces.resourceSpans as JsonObject[])[0]!;
      const resourceAttrs = Object.fromEntries(
        ((rs.resource as JsonObject).attributes as JsonObject[]).map((
          a,
        ) => [a.key, (a.value as JsonObject).stringValue]),
      );
      assert.equal(resourceAttrs["pluggableharness.producer.name"], "probe");
      assert.equal(resourceAttrs["pluggableharness.producer.category"], "tool");
      const span =
        ((rs.scopeSpans as JsonObject[])[0]!.spans as JsonObject[])[0]!;
      assert.equal(span.traceId, "0af7651916cd43dd8448eb211c80319c");
      assert.equal(span.spanId, "b7ad6b7169203331");
      assert.equal(span.parentSpanId, "00f067aa0ba902b7");
      assert.equal(
        String(span.startTimeUnixNano),
        String(BigInt(Date.parse("2026-11-30T10:00:00Z")) * 1_000_000n + 123n),
      );
      const metrics = JSON.stringify(
        received.filter((r) => r.path === "/v1/metrics").map((r) => r.body),
      );
      assert.match(metrics, /"name":"plugin\.tool\.probe\.reads"/);
      assert.ok(
        metrics.includes('"k07"') && !metrics.includes('"k08"'),
        "only 8 attribute keys were kept",
      );
      assert.equal(f.telemetry.stats.attributeKeysDropped, 4);
    } finally {
      await collector.shutdown();
    }
  },
);

callbackTest(
  "RunSession validates its request and answers UNIMPLEMENTED without a runSession service",
  async () => {
    await using f = await fixture();
    const run = (req: JsonObject) => f.rpc("runSession", req);
    assert.match(
      String(
        ((await run({ parentSessionId: f.sessionId })).error as JsonObject)
          .message,
      ),
      /profile is required/,
    );
    denied(await run({ profile: "worker", parentSessionId: f.otherSessionId }));
    assert.match(
      String(
        ((await run({
          profile: "worker",
          parentSessionId: f.sessionId,
          remainingDepth: -1,
        })).error as JsonObject).message,
      ),
      /remaining_depth/,
    );
    assert.match(
      String(
        ((await run({
          profile: "worker",
          parentSessionId: f.sessionId,
          scopedProviders: [{ name: "fs" }],
        })).error as JsonObject)
          .message,
      ),
      /scoped_providers\[0\]\.category must be set/,
    );
    const message = async (rpc: string, req: JsonObject) =>
      String(((await f.rpc(rpc, req)).error as JsonObject).message);
    assert.match(
      await message("runSession", {
        profile: "worker",
        agent: "reviewer",
        parentSessionId: f.sessionId,
      }),
      /set profile or agent, not both/,
    );
    assert.match(
      await message("runSession", {
        agent: "reviewer",
        name: "Bad Name",
        parentSessionId: f.sessionId,
      }),
      /name must match \[a-z\]\[a-z0-9_-\]\*/,
    );
    const err = (await run({
      profile: "worker",
      parentSessionId: f.sessionId,
      remainingDepth: 1,
    })).error as JsonObject;
    assert.equal(err.code, "UNIMPLEMENTED");
    assert.match(
      String(err.message),
      /this kernel runs no child sessions/,
    );
    // The delegation extensions: authorization first, then their fields.
    denied(
      await f.rpc("sendMailbox", {
        sessionId: f.otherSessionId,
        to: "parent",
        text: "hi",
      }),
    );
    assert.match(
      await message("sendMailbox", { sessionId: f.sessionId, text: "hi" }),
      /to is required/,
    );
    assert.match(
      await message("sendMailbox", {
        sessionId: f.sessionId,
        to: "x",
        text: " ",
      }),
      /text is required/,
    );
    denied(
      await f.rpc("mergeWorktree", {
        sessionId: f.otherSessionId,
        name: "w",
      }),
    );
    assert.match(
      await message("mergeWorktree", { sessionId: f.sessionId }),
      /name is required/,
    );
    assert.equal(
      ((await f.rpc("mergeWorktree", { sessionId: f.sessionId, name: "w" }))
        .error as JsonObject).code,
      "UNIMPLEMENTED",
    );
  },
);

callbackTest(
  "without a session hub the frontend RPCs answer UNIMPLEMENTED, naming what is missing (tests/frontend_rpc_test.ts covers them with one)",
  async () => {
    await using f = await fixture();
    for (
      const m of [
        "getSessionState",
        "submitInput",
        "resolvePlanDecision",
        "interrupt",
        "createSession",
        "attachSession",
        "resumeSession",
        "detachSession",
        "listSessions",
        "publishMetadata",
        "retractMetadata",
        "listMetadata",
        "streamDeltas",
        "invokeSlashCommand",
        "triggerAction",
        "renderEvents",
        "verifySession",
      ]
    ) {
      const err = (await f.rpc(m, {}, 1)).error as JsonObject;
      assert.equal(err.code, "UNIMPLEMENTED", m);
      assert.match(
        String(err.message),
        /this kernel runs without frontend surfaces/,
        m,
      );
    }
  },
);

callbackTest(
  "ResolveInteractive answers a waiting interactive call once; a late or unknown answer and another session are refused",
  async () => {
    await using f = await fixture();
    const ok = await f.rpc("resolveInteractive", {
      sessionId: f.sessionId,
      callId: "call_waiting",
      response: { answer: "blue" },
    });
    assert.deepEqual(ok.ok, {});
    assert.deepEqual(f.answers, [{ answer: "blue" }]);
    const late = (await f.rpc("resolveInteractive", {
      sessionId: f.sessionId,
      callId: "call_waiting",
      response: { answer: "red" },
    })).error as JsonObject;
    assert.equal(late.code, "FAILED_PRECONDITION");
    assert.match(String(late.message), /answered already/);
    const missing = (await f.rpc("resolveInteractive", {
      sessionId: f.sessionId,
      response: {},
    })).error as JsonObject;
    assert.equal(missing.code, "INVALID_ARGUMENT");
    denied(
      await f.rpc("resolveInteractive", {
        sessionId: f.otherSessionId,
        callId: "call_waiting",
        response: {},
      }),
    );
  },
);

Deno.test("KernelCallbackService through the real transport", async (t) => {
  shared = await launchShared();
  try {
    for (const step of STEPS) await t.step(step.name, step.fn);
  } finally {
    await shared[Symbol.asyncDispose]();
    shared = undefined;
  }
});
