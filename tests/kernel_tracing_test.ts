/**
 * The kernel's own spans (kernel.md §5.5) reach an OTLP/HTTP collector:
 * through {@linkcode createOtelTracer} with the loop's fakes, and through
 * `openKernel` with `settings { observability {…} }` and real plugins.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { JsonObject } from "@bufbuild/protobuf";
import { openKernel } from "../kernel/kernel.ts";
import {
  collect,
  FakeHook,
  FakeModel,
  FakeTool,
  memoryStore,
  op,
  ToolKind,
} from "../kernel/agent/_testing.ts";
import { runSession } from "../kernel/agent/run_session.ts";
import { createOtelTracer } from "../kernel/agent/tracing.ts";
import { makeProject } from "./_agent_project.ts";
import { BUILTINS } from "../plugins/builtin.ts";

interface ExportedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
}

interface Collector extends AsyncDisposable {
  endpoint: string;
  /** Every span received, and each batch's resource attributes. */
  spans: ExportedSpan[];
  resources: Record<string, unknown>[];
}

function attributesOf(list: unknown): Record<string, unknown> {
  return Object.fromEntries(
    ((list ?? []) as JsonObject[]).map((a) => {
      const v = a.value as JsonObject;
      return [a.key as string, Object.values(v)[0]];
    }),
  );
}

/** A fake OTLP/HTTP JSON collector on 127.0.0.1. */
function collector(): Collector {
  const spans: ExportedSpan[] = [];
  const resources: Record<string, unknown>[] = [];
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: () => {},
  }, async (req) => {
    const body = await req.json() as JsonObject;
    if (new URL(req.url).pathname === "/v1/traces") {
      for (const rs of body.resourceSpans as JsonObject[]) {
        resources.push(
          attributesOf((rs.resource as JsonObject | undefined)?.attributes),
        );
        for (const ss of rs.scopeSpans as JsonObject[]) {
          for (const s of ss.spans as JsonObject[]) {
            spans.push({
              name: s.name as string,
              traceId: s.traceId as string,
              spanId: s.spanId as string,
              ...(s.parentSpanId
                ? { parentSpanId: s.parentSpanId as string }
                : {}),
              attributes: attributesOf(s.attributes),
            });
          }
        }
      }
    }
    return Response.json({});
  });
  return {
    endpoint: `http://127.0.0.1:${server.addr.port}`,
    spans,
    resources,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

function parentName(spans: ExportedSpan[], s: ExportedSpan) {
  return spans.find((p) => p.spanId === s.parentSpanId)?.name;
}

Deno.test("kernel spans: exported through the OTel SDK with W3C ids, parent links and service.name", async () => {
  await using c = collector();
  const tracer = await createOtelTracer({
    endpoint: c.endpoint,
    serviceName: "kernel-trace-test",
    resourceAttributes: { team: "core" },
  });
  const tool = new FakeTool("fs", [{
    schema: op("read_file", ToolKind.DATA_SOURCE),
  }]);
  const { result } = await collect(runSession({
    profile: "test",
    models: [{ provider: "llm", id: "m1" }],
    tools: new Map([["fs", tool.toolSchemas]]),
    hooks: [{ point: "post-tool-call", provider: "obs", mode: "observe" }],
    workingDirectory: "/work",
  }, {
    store: memoryStore(),
    models: new Map([
      [
        "llm",
        new FakeModel("llm", [
          {
            toolCalls: [{ id: "r1", name: "read_file", input: { path: "a" } }],
          },
          { text: "done" },
        ]),
      ],
    ]),
    tools: new Map([["fs", tool]]),
    hooks: new Map([["obs", new FakeHook("obs")]]),
    tracer,
  }, { prompt: "go" }));
  assert.equal(result.status, "completed");
  await tracer.close();

  const spans = c.spans;
  assert.deepEqual(
    spans.map((s) => s.name).sort(),
    [
      "hook.post_tool_call",
      "hook.subscriber",
      "model.call",
      "model.call",
      "session",
      "tool.execute",
      "turn",
      "turn",
    ],
  );
  for (const s of spans) {
    assert.match(s.traceId, /^[0-9a-f]{32}$/);
    assert.match(s.spanId, /^[0-9a-f]{16}$/);
  }
  assert.equal(new Set(spans.map((s) => s.traceId)).size, 1, "one trace");
  assert.equal(new Set(spans.map((s) => s.spanId)).size, spans.length);
  const session = spans.find((s) => s.name === "session")!;
  assert.equal(session.parentSpanId, undefined);
  assert.equal(session.attributes["session.id"], result.sessionId);
  const parents = Object.fromEntries(
    spans.map((s) => [s.name, parentName(spans, s)]),
  );
  assert.deepEqual(parents, {
    session: undefined,
    turn: "session",
    "model.call": "turn",
    "tool.execute": "turn",
    "hook.post_tool_call": "turn",
    "hook.subscriber": "hook.post_tool_call",
  });
  assert.equal(c.resources[0]!["service.name"], "kernel-trace-test");
  assert.equal(c.resources[0]!.team, "core");
});

Deno.test("kernel spans: a sampling ratio of 0 exports nothing", async () => {
  await using c = collector();
  const tracer = await createOtelTracer({
    endpoint: c.endpoint,
    samplingRatio: 0,
  });
  const session = tracer.startSpan("session");
  const turn = tracer.startSpan("turn", {}, session);
  assert.equal(turn.recording, false);
  turn.end();
  session.end({ code: "ok" });
  await tracer.close();
  assert.deepEqual(c.spans, []);
});

Deno.test("kernel spans: openKernel exports them when settings.observability enables traces over OTLP/HTTP", async () => {
  await using c = collector();
  await using project = await makeProject({
    turns: [
      {
        tool_calls: [{
          id: "toolu_1",
          name: "read_file",
          arguments: { path: "notes.md" },
        }],
      },
      { text: "Read it." },
    ],
    files: { "notes.md": "hello\n" },
  });
  await Deno.writeTextFile(
    `${project.dir}/agent.hcl`,
    `
settings {
  observability {
    endpoint           = "${c.endpoint.replace("http://", "")}"
    protocol           = "http"
    sampling_ratio     = 1
    traces_enabled     = true
    metrics_enabled    = false
    logs_enabled       = true
    export_interval_ms = 60000
    service_name       = "kernel-e2e"
  }
}
`,
    { append: true },
  );
  {
    await using kernel = await openKernel(project.dir, {
      builtins: BUILTINS,
      env: project.env,
    });
    const outcome = await kernel.run("Read notes.md").result;
    assert.equal(outcome.status, "completed");
  }
  const spans = c.spans;
  const names = new Set(spans.map((s) => s.name));
  for (const n of ["session", "turn", "model.call", "tool.execute"]) {
    assert.ok(names.has(n), `${n} exported`);
  }
  const tool = spans.find((s) => s.name === "tool.execute")!;
  assert.equal(parentName(spans, tool), "turn");
  assert.equal(tool.attributes["tool.name"], "read_file");
  assert.equal(tool.attributes["tool.outcome"], "ok");
  const model = spans.find((s) => s.name === "model.call")!;
  assert.equal(model.attributes["model.provider"], "scripted");
  assert.equal(c.resources[0]!["service.name"], "kernel-e2e");
});
