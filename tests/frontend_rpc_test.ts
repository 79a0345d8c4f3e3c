/**
 * The frontend RPCs of KernelCallbackService (kernel.md §2.6,
 * plugins.md §6.5) through the real transport: probe plugins launched as
 * frontends call them over their callback channel, against sessions the
 * kernel's hub runs with a scripted model.
 */
import assert from "node:assert/strict";
import { fromBinary, type JsonObject } from "@bufbuild/protobuf";
import { RenderPipeline } from "../kernel/frontend/render.ts";
import { RenderTreeSchema } from "../proto/gen/pluggableharness/render/v1/types_pb.ts";
import {
  EventBus,
  PluginHost,
  SESSION_ACCESS_DENIED_MESSAGE,
  SessionRegistry,
  SqliteSessionStore,
} from "../kernel/mod.ts";
import type { KernelServices, Plugin } from "../kernel/mod.ts";
import { FrontendHub } from "../kernel/frontend/hub.ts";
import { AgentSession } from "../kernel/agent/session.ts";
import type { AgentDeps } from "../kernel/agent/agent_deps.ts";
import type { SessionSpec } from "../kernel/agent/session_spec.ts";
import {
  FakeModel,
  FakeTool,
  identity,
  modelSpec,
  op,
  type ScriptedTurn,
} from "../kernel/agent/_testing.ts";
import type { ToolEndpoint } from "../kernel/agent/endpoints.ts";
import { create } from "@bufbuild/protobuf";
import {
  ToolKind,
  type ToolSchema,
  ToolSchemaSchema,
} from "../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import {
  type ToolEvent,
  ToolEventSchema,
} from "../proto/gen/pluggableharness/tool/v1/events_pb.ts";
import { SchemaType } from "../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import type { StreamCompletionRequest } from "../proto/gen/pluggableharness/model/v1/rpc_request_pb.ts";
import { SessionStateSchema } from "../proto/gen/pluggableharness/session/v1/types_pb.ts";
import { MetadataBlockSchema } from "../proto/gen/pluggableharness/metadata/v1/types_pb.ts";
import { ToolResultEventSchema } from "../proto/gen/pluggableharness/event/v1/events_pb.ts";
import { SessionStatus } from "../proto/gen/pluggableharness/session/v1/types_pb.ts";
import { invoke, launchProbe, PATH, waitFor } from "./_helpers.ts";
import { fileURLToPath } from "node:url";
import { readManifest } from "../plugins/sdk/mod.ts";
import type { SlashCommandRoute } from "../kernel/frontend/hub.ts";
import type { SessionEvent } from "../kernel/agent/session_events.ts";
import { slashCommandEndpointOf } from "../kernel/agent/slash_endpoint.ts";
import { SlashCommandService } from "../proto/gen/pluggableharness/slashcommand/v1/service_pb.ts";
import { ToolErrorCategory } from "../proto/gen/pluggableharness/tool/v1/errors_pb.ts";

const SLASHER = fileURLToPath(
  new URL("./fixtures/slasher", import.meta.url),
);

const WRITE = op("write_file", ToolKind.RESOURCE, {
  inputSchema: {
    type: SchemaType.OBJECT,
    properties: {
      path: { type: SchemaType.STRING },
      text: { type: SchemaType.STRING },
    },
    required: ["path", "text"],
  },
});

function lastText(req: StreamCompletionRequest): {
  text: string;
  toolResult: boolean;
} {
  const m = req.messages.at(-1);
  const blocks = m?.content ?? [];
  const toolResult = blocks.some((b) => b.block.case === "toolResult");
  const text = blocks.map((b) =>
    b.block.case === "text" ? b.block.value.text : ""
  )
    .join("");
  return { text, toolResult };
}

/**
 * An interactive tool (`ask_user`): it streams its prompt as a
 * `partial_result` and waits for the kernel to close the stream.
 */
class Asker implements ToolEndpoint {
  readonly identity = identity("tool", "ask");
  readonly schema: ToolSchema = create(
    ToolSchemaSchema,
    op("ask_user", ToolKind.INTERACTIVE),
  );
  /** Prompts streamed so far. */
  asked = 0;
  schemas(): Promise<ToolSchema[]> {
    return Promise.resolve([this.schema]);
  }
  async *invoke(
    _call: unknown,
    options?: { signal?: AbortSignal },
  ): AsyncGenerator<ToolEvent> {
    this.asked++;
    yield create(ToolEventSchema, {
      event: {
        case: "partialResult",
        value: { payload: { question: "Which colour?" } },
      },
    });
    await new Promise((resolve) =>
      options?.signal?.addEventListener("abort", resolve, { once: true })
    );
  }
}

/**
 * The model: "write P" calls write_file, "ask" calls ask_user, "hang"
 * waits, else it echoes; after a tool result it says "written".
 */
function respond(req: StreamCompletionRequest): ScriptedTurn {
  const { text, toolResult } = lastText(req);
  if (toolResult) return { text: "written" };
  if (text === "ask") {
    return { toolCalls: [{ name: "ask_user", input: { question: "?" } }] };
  }
  if (text.startsWith("write ")) {
    return {
      toolCalls: [{
        name: "write_file",
        input: { path: text.slice(6), text: "x" },
      }],
    };
  }
  if (text === "hang") return { text: "never", hang: true };
  return { text: `echo: ${text}` };
}

interface Fixture extends AsyncDisposable {
  hub: FrontendHub;
  registry: SessionRegistry;
  model: FakeModel;
  bus: EventBus;
  store: SqliteSessionStore;
  tool: FakeTool;
  asker: Asker;
  commands: FakeTool;
  /** More direct-invoke commands a step routes (a real plugin's). */
  slash: Map<string, SlashCommandRoute>;
  /** Every session event the hub's sessions emitted, in order. */
  seen: SessionEvent[];
  host: PluginHost;
  /** Two frontend plugins and one tool plugin. */
  a: Plugin;
  b: Plugin;
  tool_: Plugin;
  rpc(
    who: Plugin,
    method: string,
    request?: JsonObject,
    max?: number,
  ): Promise<JsonObject>;
  ok(who: Plugin, method: string, request?: JsonObject): Promise<JsonObject>;
  err(who: Plugin, method: string, request?: JsonObject): Promise<JsonObject>;
}

/**
 * The launched plugins: two frontends and a tool plugin, on a host whose
 * kernel services are swapped for each step's fresh sessions, bus and hub
 * (the callback service reads them at each call). Launching them is most of
 * a step's cost, so the steps share one set; each step that ends a
 * frontend ends a spare one of its own.
 */
interface Probes extends AsyncDisposable {
  services: KernelServices;
  host: PluginHost;
  a: Plugin;
  b: Plugin;
  tool_: Plugin;
  /** Stand in for `a` or `b` in the steps that end it, one each. */
  spares: { a: Plugin[]; b: Plugin[] };
}

async function launchProbes(): Promise<Probes> {
  const services: KernelServices = {};
  const host = new PluginHost({ env: { PATH }, services });
  const grant = ["kernel.state", "kernel.metadata", "kernel.event.*"];
  const frontend = (name: string) =>
    launchProbe(host, {}, {}, undefined, {
      name,
      category: "frontend",
      subscribe: grant,
    });
  try {
    const ending = (side: "a" | "b") =>
      STEPS.filter((s) => s.options.ends === side).map((_, i) =>
        frontend(`${side === "a" ? "tui" : "web"}-spare-${i}`)
      );
    const spareA = ending("a");
    const spareB = ending("b");
    const [a, b, tool_, ...spares] = await Promise.all([
      frontend("tui"),
      frontend("web"),
      launchProbe(host, {}, {}, undefined, { name: "probe" }),
      ...spareA,
      ...spareB,
    ]);
    return {
      services,
      host,
      a: a!,
      b: b!,
      tool_: tool_!,
      spares: {
        a: spares.slice(0, spareA.length) as Plugin[],
        b: spares.slice(spareA.length) as Plugin[],
      },
      [Symbol.asyncDispose]: () => host.close(),
    };
  } catch (err) {
    await host.close();
    throw err;
  }
}

async function fixture(
  probes: Probes,
  options: StepOptions = {},
): Promise<Fixture> {
  const dir = await Deno.makeTempDir({ prefix: "ph-agent-frontend-" });
  const bus = new EventBus();
  const store = new SqliteSessionStore({ dir, bus });
  const registry = new SessionRegistry();
  const model = new FakeModel("llm", [respond], {
    specs: [modelSpec("m1", { supportsVision: options.vision ?? false })],
  });
  const tool = new FakeTool("fs", [{ schema: WRITE }]);
  const asker = new Asker();
  const slash = new Map<string, SlashCommandRoute>();
  const seen: SessionEvent[] = [];
  // A direct-invoke slash command `/model ID`, as a slash-command
  // provider's endpoint (the gate runs it like a tool call).
  const commands = new FakeTool("commands", [{
    schema: op("model", ToolKind.DATA_SOURCE, {
      inputSchema: {
        type: SchemaType.OBJECT,
        properties: { id: { type: SchemaType.STRING } },
      },
    }),
  }, {
    // Kernel actions (kernel/frontend/kernel_actions.ts): the result names
    // the session operation the kernel carries out.
    schema: op("clear", ToolKind.RESOURCE),
    run: () => Promise.resolve({ kernel_action: { action: "clear" } }),
  }, {
    schema: op("sneak", ToolKind.DATA_SOURCE),
    run: () => Promise.resolve({ kernel_action: { action: "plan" } }),
  }, {
    schema: op("bogus", ToolKind.DATA_SOURCE),
    run: () => Promise.resolve({ kernel_action: { action: "format_disk" } }),
  }]);
  const deps: AgentDeps = {
    store,
    registry,
    models: new Map([["llm", model]]),
    tools: new Map<string, ToolEndpoint>([["fs", tool], ["ask", asker]]),
    ...(options.persistAlways ? { persistAlwaysRule: async () => {} } : {}),
  };
  const spec: SessionSpec = {
    profile: "default",
    models: [{ provider: "llm", id: "m1" }],
    tools: new Map([["fs", tool.toolSchemas], ["ask", [asker.schema]]]),
    policies: [{
      name: "ask_writes",
      match: { kind: "resource" },
      action: "ask",
    }, {
      // The slasher's /scatter (the §6.7 MUST 11 step) runs unasked.
      name: "scatter_ok",
      match: { provider: "sl", toolName: "scatter" },
      action: "allow",
    }],
    workingDirectory: "/work",
  };
  const hub = new FrontendHub({
    store,
    registry,
    bus,
    ...(options.render
      ? {
        // The model's events are painted by "its build"; others fall back.
        render: new RenderPipeline({
          renderer: (p) =>
            p.category === "model"
              ? (payload) =>
                Promise.resolve(create(RenderTreeSchema, {
                  root: {
                    node: {
                      case: "text",
                      value: { content: `painted ${payload.length} bytes` },
                    },
                  },
                }))
              : undefined,
        }),
      }
      : {}),
    open: async (req) => {
      if (req.profile === "missing") {
        throw new TypeError('Unknown agent_profile "missing"');
      }
      return {
        session: await AgentSession.open(
          {
            ...spec,
            ...(req.profile ? { profile: req.profile } : {}),
            ...(req.workingDirectory
              ? { workingDirectory: req.workingDirectory }
              : {}),
            ...(req.planMode ? { planMode: true } : {}),
            onAsk: req.onAsk ?? "deny",
          },
          deps,
          {
            onEvent: (e) => {
              seen.push(e);
              req.onEvent(e);
            },
            ...(req.resumeId ? { resumeSessionId: req.resumeId } : {}),
          },
        ),
        workingDirectory: req.workingDirectory ?? "/work",
      };
    },
    toolSchema: (provider, name) =>
      provider === "fs"
        ? tool.toolSchemas.find((t) => t.name === name)?.inputSchema
        : undefined,
    modelSpec: async (_p, id) =>
      (await model.capabilities()).models.find((m) => m.id === id),
    profileModel: () => ({ provider: "llm", id: "m1" }),
    slashCommands: () =>
      new Map([
        ...commands.toolSchemas.map((schema): [string, SlashCommandRoute] => [
          schema.name,
          {
            provider: "commands",
            schema,
            endpoint: commands,
            ...(schema.inputSchema ? { inputSchema: schema.inputSchema } : {}),
          },
        ]),
        ...slash,
      ]),
  });
  probes.services.sessions = registry;
  probes.services.bus = bus;
  probes.services.frontend = hub;
  const { host, tool_ } = probes;
  const a = options.ends === "a" ? probes.spares.a.shift() : probes.a;
  const b = options.ends === "b" ? probes.spares.b.shift() : probes.b;
  const rpc = (who: Plugin, method: string, request = {}, max?: number) =>
    invoke(who!, "rpc", {
      method,
      request,
      ...(max !== undefined ? { max } : {}),
    });
  return {
    hub,
    registry,
    model,
    bus,
    store,
    tool,
    asker,
    commands,
    slash,
    seen,
    host,
    a: a!,
    b: b!,
    tool_: tool_!,
    rpc,
    async ok(who, method, request = {}) {
      const r = await rpc(who, method, request);
      assert.ok(r.ok, `${method}: ${JSON.stringify(r.error)}`);
      return r.ok as JsonObject;
    },
    async err(who, method, request = {}) {
      const r = await rpc(who, method, request);
      assert.ok(r.error, `${method} succeeded: ${JSON.stringify(r.ok)}`);
      return r.error as JsonObject;
    },
    async [Symbol.asyncDispose]() {
      await hub.closeAll();
      await store.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

interface StepOptions {
  vision?: boolean;
  render?: boolean;
  persistAlways?: boolean;
  /** The step ends this frontend: a spare one stands in for it. */
  ends?: "a" | "b";
}

const STEPS: {
  name: string;
  fn: (f: Fixture) => Promise<void>;
  options: StepOptions;
}[] = [];

/** Registers a step of the one test below. */
function frontendTest(
  name: string,
  fn: (f: Fixture) => Promise<void>,
  options: StepOptions = {},
): void {
  STEPS.push({ name, fn, options });
}

/** Creates a session from frontend `a`, and attaches frontend `b`. */
async function twoAttached(f: Fixture): Promise<string> {
  const created = await f.ok(f.a, "createSession", {});
  const id = (created.info as JsonObject).sessionId as string;
  await f.ok(f.b, "attachSession", { sessionId: id });
  return id;
}

frontendTest(
  "CreateSession creates and attaches the caller; GetSessionState answers a fixed-schema snapshot of that one session",
  async (f) => {
    const created = await f.ok(f.a, "createSession", {
      workingDirectory: "/srv/project",
    });
    const info = created.info as JsonObject;
    assert.equal(info.profile, "default");
    assert.equal(info.status, "SESSION_STATUS_RUNNING");
    const state = (await f.ok(f.a, "getSessionState", {
      sessionId: info.sessionId,
    })).state as JsonObject;
    assert.equal((state.info as JsonObject).sessionId, info.sessionId);
    assert.equal(state.workingDirectory, "/srv/project");
    assert.deepEqual(state.model, { id: "m1", provider: "llm" });
    assert.equal(state.turnCount, 0);
    assert.equal(state.totalTokens, "0");
    assert.match(String(state.elapsed), /^\d+(\.\d+)?s$/);
  },
);

frontendTest(
  "CreateSession with plan_mode starts in plan mode (GetSessionState says so, the model gets no resource tool); SubmitInput with plan_mode false turns it off when its turn starts",
  async (f) => {
    const id = ((await f.ok(f.a, "createSession", { planMode: true }))
      .info as JsonObject).sessionId as string;
    const state = async () =>
      (await f.ok(f.a, "getSessionState", { sessionId: id }))
        .state as JsonObject;
    assert.equal((await state()).planMode, true);
    const toolsOf = (i: number) =>
      f.model.requests[i]!.tools.map((t) => t.name).sort();
    const before = f.model.requests.length;
    await f.ok(f.a, "submitInput", {
      sessionId: id,
      content: [{ text: { text: "plan it" } }],
    });
    assert.ok(await waitFor(async () => (await state()).turnCount === 1));
    assert.ok(!toolsOf(before).includes("write_file"), `${toolsOf(before)}`);
    await f.ok(f.a, "submitInput", {
      sessionId: id,
      content: [{ text: { text: "carry it out" } }],
      planMode: false,
    });
    assert.ok(await waitFor(async () => (await state()).turnCount === 2));
    assert.equal((await state()).planMode, false);
    assert.ok(toolsOf(before + 1).includes("write_file"));
  },
);

frontendTest(
  "the frontend RPCs refuse a caller that neither attached nor was invoked in the session with the uniform PERMISSION_DENIED",
  async (f) => {
    const id = ((await f.ok(f.a, "createSession", {})).info as JsonObject)
      .sessionId as string;
    for (
      const [m, req] of [
        ["getSessionState", { sessionId: id }],
        ["submitInput", { sessionId: id, content: [{ text: { text: "hi" } }] }],
        ["interrupt", { sessionId: id }],
        ["listMetadata", { sessionId: id }],
        ["resolvePlanDecision", { sessionId: id, planItemId: "x" }],
        ["getSessionState", { sessionId: "" }],
      ] as const
    ) {
      const e = await f.err(f.b, m, req as JsonObject);
      assert.equal(e.code, "PERMISSION_DENIED", m);
      assert.equal(e.message, SESSION_ACCESS_DENIED_MESSAGE, m);
    }
  },
);

frontendTest(
  "session lifecycle RPCs are for frontend plugins only; an unknown session is SESSION_NOT_FOUND",
  async (f) => {
    for (const m of ["createSession", "listSessions"]) {
      const e = await f.err(f.tool_, m, {});
      assert.equal(e.code, "PERMISSION_DENIED", m);
      assert.match(String(e.message), /only a frontend plugin/);
    }
    for (const m of ["attachSession", "resumeSession"]) {
      const e = await f.err(f.a, m, {
        sessionId: "01J0000000000000000000000Z",
      });
      assert.equal(e.code, "NOT_FOUND", m);
      assert.deepEqual(e.details, ["SESSION_NOT_FOUND"], m);
      const empty = await f.err(f.a, m, { sessionId: "" });
      assert.equal(empty.code, "INVALID_ARGUMENT", m);
      assert.deepEqual(empty.details, ["INVALID_REQUEST"], m);
    }
    const failed = await f.err(f.a, "createSession", { profile: "missing" });
    assert.equal(failed.code, "FAILED_PRECONDITION");
    assert.deepEqual(failed.details, ["SESSION_CREATE_FAILED"]);
    assert.match(
      String(failed.message),
      /Cannot create a session of profile "missing": Unknown agent_profile "missing"/,
    );
    const bad = await f.err(f.a, "createSession", { workingDirectory: "rel" });
    assert.equal(bad.code, "INVALID_ARGUMENT");
    assert.match(String(bad.message), /must be absolute: "rel"/);
  },
);

frontendTest(
  "SubmitInput returns the turn_id that the turn's StreamDeltas carry as target_id, one delta per message in order, to every attached frontend, never through the bus",
  async (f) => {
    const id = await twoAttached(f);
    const streams = [f.a, f.b].map((who) =>
      f.rpc(who, "streamDeltas", { sessionId: id }, 2)
    );
    assert.ok(await waitFor(() => f.hub.get(id)!.deltas.size === 2));
    // Deltas bypass the bus: nothing on it carries a TokenDelta.
    const onBus: string[] = [];
    const unlisten = f.bus.listen(
      ["kernel.*", "plugin.*"],
      (e) => onBus.push(e.payloadType),
    );
    const { turnId } = await f.ok(f.a, "submitInput", {
      sessionId: id,
      content: [{ text: { text: "hello world" } }],
    });
    assert.match(String(turnId), /^[0-9A-Z]{26}$/);
    const [da, db] = await Promise.all(streams);
    assert.deepEqual(da!.ok, db!.ok, "both frontends see the same deltas");
    const deltas = da!.ok as JsonObject[];
    assert.equal(deltas.map((d) => d.text).join(""), "echo: hello world");
    for (const d of deltas) {
      assert.equal(d.sessionId, id);
      assert.equal(d.targetId, turnId);
      assert.equal(d.kind, "DELTA_KIND_UNSPECIFIED");
    }
    await f.hub.get(id)!.queue;
    unlisten();
    assert.ok(onBus.length > 0, "the turn's events are on the bus");
    assert.ok(!onBus.some((t) => /TokenDelta/.test(t)), onBus.join(", "));
  },
);

frontendTest(
  "SubmitInput validates its content: at least one non-empty text block",
  async (f) => {
    const id = ((await f.ok(f.a, "createSession", {})).info as JsonObject)
      .sessionId as string;
    const image = { image: { mediaType: "image/png", data: btoa("png") } };
    for (
      const [content, pattern] of [
        [[], /at least one block/],
        [[{ text: { text: "  " } }], /non-empty text block/],
        [[{ text: { text: "look" } }, image], /does not support vision/],
        [[{ thinking: { text: "x" } }], /text and image blocks only/],
      ] as const
    ) {
      const e = await f.err(f.a, "submitInput", {
        sessionId: id,
        content: content as unknown as JsonObject[],
      });
      assert.equal(e.code, "INVALID_ARGUMENT");
      assert.deepEqual(e.details, ["INVALID_REQUEST"]);
      assert.match(String(e.message), pattern);
    }
  },
);

frontendTest(
  "SubmitInput takes images when the model supports vision, and the image reaches the model",
  async (f) => {
    const id = ((await f.ok(f.a, "createSession", {})).info as JsonObject)
      .sessionId as string;
    await f.ok(f.a, "submitInput", {
      sessionId: id,
      content: [{ text: { text: "look" } }, {
        image: { mediaType: "image/png", data: btoa("png") },
      }],
    });
    assert.ok(
      await waitFor(async () =>
        ((await f.ok(f.a, "getSessionState", { sessionId: id }))
          .state as JsonObject).turnCount === 1
      ),
    );
    const user = f.model.requests[0]!.messages.at(-1)!;
    assert.deepEqual(user.content.map((b) => b.block.case), ["text", "image"]);
  },
  { vision: true },
);

frontendTest(
  "input from two frontends is processed in arrival order; GetSessionState counts the completed turns and kernel.state is republished on change",
  async (f) => {
    const id = await twoAttached(f);
    const states = f.bus.subscribe(["kernel.state"]);
    const one = await f.ok(f.a, "submitInput", {
      sessionId: id,
      content: [{ text: { text: "first" } }],
    });
    const two = await f.ok(f.b, "submitInput", {
      sessionId: id,
      content: [{ text: { text: "second" } }],
    });
    assert.notEqual(one.turnId, two.turnId);
    assert.ok(
      await waitFor(async () =>
        ((await f.ok(f.b, "getSessionState", { sessionId: id }))
          .state as JsonObject).turnCount === 2
      ),
    );
    const seen: number[] = [];
    for (;;) {
      const next = await Promise.race([
        states.next(),
        new Promise<undefined>((r) => setTimeout(() => r(undefined), 200)),
      ]);
      if (!next || next.done) break;
      const ev = next.value;
      assert.equal(ev.payloadType, "pluggableharness.session.v1.SessionState");
      const s = fromBinary(SessionStateSchema, ev.payload);
      assert.equal(s.info?.sessionId, id);
      seen.push(s.turnCount);
    }
    states.close();
    assert.ok(seen.includes(1) && seen.includes(2), `states: ${seen}`);
    assert.deepEqual(seen, [...seen].sort(), "state turn counts never go back");
  },
);

frontendTest(
  "ResolvePlanDecision: first response wins, a late answer and an unknown id get distinct errors, ALWAYS without a persister is refused",
  async (f) => {
    const id = await twoAttached(f);
    await f.ok(f.a, "submitInput", {
      sessionId: id,
      content: [{ text: { text: "write a.txt" } }],
    });
    const h = f.hub.get(id)!;
    assert.ok(await waitFor(() => h.pendingPlans.size === 1));
    const [planItemId] = [...h.pendingPlans.keys()];
    const always = await f.err(f.b, "resolvePlanDecision", {
      sessionId: id,
      planItemId,
      decision: "CLIENT_DECISION_ALLOW",
      scope: "PLAN_DECISION_SCOPE_ALWAYS",
    });
    assert.equal(always.code, "FAILED_PRECONDITION");
    assert.match(String(always.message), /cannot persist policy/);
    const noScope = await f.err(f.b, "resolvePlanDecision", {
      sessionId: id,
      planItemId,
      decision: "CLIENT_DECISION_ALLOW",
    });
    assert.equal(noScope.code, "INVALID_ARGUMENT");
    assert.equal(
      h.pendingPlans.size,
      1,
      "a refused answer leaves the item pending",
    );
    // Both frontends answer at once: exactly one wins.
    const answers = await Promise.all(
      [f.a, f.b].map((who) =>
        f.rpc(who, "resolvePlanDecision", {
          sessionId: id,
          planItemId,
          decision: "CLIENT_DECISION_ALLOW",
          scope: "PLAN_DECISION_SCOPE_ONCE",
        })
      ),
    );
    assert.equal(answers.filter((r) => r.ok).length, 1);
    const late = answers.find((r) => r.error)!.error as JsonObject;
    assert.equal(late.code, "FAILED_PRECONDITION");
    assert.deepEqual(late.details, ["INVALID_REQUEST"]);
    assert.match(
      String(late.message),
      /already resolved: the first answer won/,
    );
    const unknown = await f.err(f.a, "resolvePlanDecision", {
      sessionId: id,
      planItemId: "no-such-item",
      decision: "CLIENT_DECISION_DENY",
      scope: "PLAN_DECISION_SCOPE_ONCE",
    });
    assert.equal(unknown.code, "NOT_FOUND");
    assert.ok(await waitFor(() => f.tool.invocations.length === 1));
  },
);

frontendTest(
  "ResolvePlanDecision re-validates corrected input against the tool's input_schema (reject, never coerce) and runs the call with valid corrected input",
  async (f) => {
    const id = ((await f.ok(f.a, "createSession", {})).info as JsonObject)
      .sessionId as string;
    await f.ok(f.a, "submitInput", {
      sessionId: id,
      content: [{ text: { text: "write a.txt" } }],
    });
    const h = f.hub.get(id)!;
    assert.ok(await waitFor(() => h.pendingPlans.size === 1));
    const [planItemId] = [...h.pendingPlans.keys()];
    const wrongType = await f.err(f.a, "resolvePlanDecision", {
      sessionId: id,
      planItemId,
      decision: "CLIENT_DECISION_ALLOW",
      scope: "PLAN_DECISION_SCOPE_ONCE",
      correctedInput: { path: 42, text: "x" },
    });
    assert.equal(wrongType.code, "INVALID_ARGUMENT");
    assert.match(String(wrongType.message), /\$\.path must be a string/);
    const missing = await f.err(f.a, "resolvePlanDecision", {
      sessionId: id,
      planItemId,
      decision: "CLIENT_DECISION_ALLOW",
      scope: "PLAN_DECISION_SCOPE_ONCE",
      correctedInput: { path: "b.txt" },
    });
    assert.match(String(missing.message), /\$\.text is required/);
    const denyWithInput = await f.err(f.a, "resolvePlanDecision", {
      sessionId: id,
      planItemId,
      decision: "CLIENT_DECISION_DENY",
      scope: "PLAN_DECISION_SCOPE_ONCE",
      correctedInput: { path: "b.txt", text: "y" },
    });
    assert.match(
      String(denyWithInput.message),
      /only valid with decision ALLOW/,
    );
    await f.ok(f.a, "resolvePlanDecision", {
      sessionId: id,
      planItemId,
      decision: "CLIENT_DECISION_ALLOW",
      scope: "PLAN_DECISION_SCOPE_ALWAYS",
      correctedInput: { path: "b.txt", text: "corrected" },
    });
    assert.ok(await waitFor(() => f.tool.invocations.length === 1));
    assert.deepEqual(f.tool.invocations[0]!.input, {
      path: "b.txt",
      text: "corrected",
    });
  },
  { persistAlways: true },
);

frontendTest(
  "Interrupt cancels the running turn and the signal its sub-agents cancel with; the session stays open and takes the next input",
  async (f) => {
    const id = ((await f.ok(f.a, "createSession", {})).info as JsonObject)
      .sessionId as string;
    await f.ok(f.a, "submitInput", {
      sessionId: id,
      content: [{ text: { text: "hang" } }],
    });
    const h = f.hub.get(id)!;
    assert.ok(await waitFor(() => h.running !== undefined));
    // Sub-agents spawned in a turn are cancelled with its turn signal.
    assert.ok(
      await waitFor(() => f.registry.get(id)?.turnSignal !== undefined),
    );
    const turnSignal = f.registry.get(id)!.turnSignal!;
    assert.equal(turnSignal.aborted, false);
    await f.ok(f.a, "interrupt", { sessionId: id });
    assert.ok(await waitFor(() => h.running === undefined));
    assert.equal(turnSignal.aborted, true, "the cascade signal fired");
    const stream = f.rpc(f.a, "streamDeltas", { sessionId: id }, 2);
    assert.ok(await waitFor(() => h.deltas.size === 1));
    await f.ok(f.a, "submitInput", {
      sessionId: id,
      content: [{ text: { text: "again" } }],
    });
    const deltas = (await stream).ok as JsonObject[];
    assert.equal(deltas.map((d) => d.text).join(""), "echo: again");
    // Nothing running: Interrupt has nothing to cancel and succeeds.
    await f.ok(f.a, "interrupt", { sessionId: id });
  },
);

frontendTest(
  "§6.7 MUST 11: a resource slash command cancelled midway by Interrupt reports the partial mutation it had made: a CANCELLED tool_result with the files already written reaches every frontend, never a success",
  async (f) => {
    // A real slash-command plugin (tests/fixtures/slasher) whose /scatter
    // writes one file per step and reports each step as a partial_result.
    const dir = await Deno.realPath(
      await Deno.makeTempDir({ prefix: "ph-agent-scatter-" }),
    );
    const sl = await f.host.launch({
      manifest: await readManifest(`${SLASHER}/plugin.json`),
      entrypoint: `${SLASHER}/main.ts`,
      root: SLASHER,
      grant: { write: [dir] },
      name: "sl",
    });
    try {
      await sl.client(SlashCommandService).configure({ config: {} });
      const endpoint = slashCommandEndpointOf(sl);
      for (const schema of await endpoint.schemas()) {
        f.slash.set(schema.name, {
          provider: "sl",
          schema,
          endpoint,
          ...(schema.inputSchema ? { inputSchema: schema.inputSchema } : {}),
        });
      }
      const id = await twoAttached(f);
      const invoked = f.rpc(f.a, "invokeSlashCommand", {
        sessionId: id,
        name: "scatter",
        args: JSON.stringify({ dir, count: 4, hold_after: 2 }),
      });
      // The progress note follows the two reports on the call's stream, so
      // once the kernel has relayed it, it has read both.
      assert.ok(
        await waitFor(
          () =>
            f.seen.some((e) =>
              e.type === "tool_progress" &&
              e.message === "holding after 2 of 4"
            ),
          60_000,
        ),
        JSON.stringify(
          await Promise.race([invoked, Promise.resolve("running")]),
        ),
      );
      await f.ok(f.b, "interrupt", { sessionId: id });
      assert.ok((await invoked).ok, "InvokeSlashCommand answers the outcome");
      const results = ((await f.rpc(f.b, "readEvents", {
        sessionId: id,
        kinds: ["EVENT_KIND_TOOL_RESULT"],
      })).ok as JsonObject[]).map((e) =>
        fromBinary(
          ToolResultEventSchema,
          Uint8Array.from(atob(e.payload as string), (c) => c.charCodeAt(0)),
        ).outcome
      );
      assert.equal(results.length, 1);
      const outcome = results[0]!;
      assert.equal(outcome.case, "error", "never a success");
      if (outcome.case !== "error") return;
      assert.equal(outcome.value.category, ToolErrorCategory.CANCELLED);
      assert.deepEqual(outcome.value.details, {
        partial_result: { of: 4, written: ["part-1.txt", "part-2.txt"] },
      });
      assert.match(
        outcome.value.message,
        /^The call was cancelled before it finished\. Before it was stopped it had reported: \{"of":4,"written":\["part-1\.txt","part-2\.txt"\]\}\. The rest was not done\.$/,
      );
      // Exactly what it reported is what it changed.
      const files = [];
      for await (const e of Deno.readDir(dir)) files.push(e.name);
      assert.deepEqual(files.sort(), ["part-1.txt", "part-2.txt"]);
      // The session stays open and idle.
      assert.ok(await waitFor(() => f.hub.get(id)?.running === undefined));
    } finally {
      await sl.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
);

frontendTest(
  "ResumeSession re-opens a COMPLETED session; a FAILED one attaches replay-only and SubmitInput answers SESSION_REPLAY_ONLY",
  async (f) => {
    const id = ((await f.ok(f.a, "createSession", {})).info as JsonObject)
      .sessionId as string;
    await f.hub.close(f.hub.get(id)!, "completed");
    const resumed = await f.ok(f.b, "resumeSession", { sessionId: id });
    assert.equal((resumed.info as JsonObject).status, "SESSION_STATUS_RUNNING");
    assert.ok((resumed.info as JsonObject).endedAt === undefined);
    await f.ok(f.b, "submitInput", {
      sessionId: id,
      content: [{ text: { text: "more" } }],
    });

    const failed = await f.store.create({ profile: "default" });
    await failed.setStatus(SessionStatus.FAILED);
    await failed.close();
    const info = (await f.ok(f.a, "resumeSession", {
      sessionId: failed.sessionId,
    })).info as JsonObject;
    assert.equal(info.status, "SESSION_STATUS_FAILED");
    const e = await f.err(f.a, "submitInput", {
      sessionId: failed.sessionId,
      content: [{ text: { text: "hi" } }],
    });
    assert.equal(e.code, "FAILED_PRECONDITION");
    assert.deepEqual(e.details, ["SESSION_REPLAY_ONLY"]);
    // Replay-only still reads: state and the event log.
    const state = (await f.ok(f.a, "getSessionState", {
      sessionId: failed.sessionId,
    })).state as JsonObject;
    assert.equal((state.info as JsonObject).status, "SESSION_STATUS_FAILED");
  },
);

frontendTest(
  "AttachSession subscribes to a stored session without re-opening it; DetachSession drops only this frontend",
  async (f) => {
    const stored = await f.store.create({ profile: "default" });
    await stored.setStatus(SessionStatus.COMPLETED);
    await stored.close();
    const info = (await f.ok(f.a, "attachSession", {
      sessionId: stored.sessionId,
    })).info as JsonObject;
    assert.equal(info.status, "SESSION_STATUS_COMPLETED", "not re-opened");
    const e = await f.err(f.a, "submitInput", {
      sessionId: stored.sessionId,
      content: [{ text: { text: "hi" } }],
    });
    assert.deepEqual(e.details, ["SESSION_REPLAY_ONLY"]);

    const id = await twoAttached(f);
    await f.ok(f.b, "detachSession", { sessionId: id });
    const gone = await f.err(f.b, "getSessionState", { sessionId: id });
    assert.equal(gone.code, "PERMISSION_DENIED");
    await f.ok(f.a, "getSessionState", { sessionId: id });
    const again = await f.err(f.b, "detachSession", { sessionId: id });
    assert.equal(again.code, "FAILED_PRECONDITION");
  },
);

frontendTest(
  "ListSessions lists most-recently-started first and filters by status, parent and roots_only",
  async (f) => {
    const root = await f.store.create({ profile: "default" });
    await root.setStatus(SessionStatus.COMPLETED);
    const child = await f.store.create({
      profile: "default",
      parentSessionId: root.sessionId,
      depth: 1,
    });
    for (const l of [root, child]) await l.close();
    const ids = async (req: JsonObject) =>
      ((await f.ok(f.a, "listSessions", req)).sessions as JsonObject[]).map((
        s,
      ) => s.sessionId);
    assert.deepEqual(await ids({}), [child.sessionId, root.sessionId]);
    assert.deepEqual(await ids({ rootsOnly: true }), [root.sessionId]);
    assert.deepEqual(await ids({ parentSessionId: root.sessionId }), [
      child.sessionId,
    ]);
    assert.deepEqual(await ids({ status: "SESSION_STATUS_COMPLETED" }), [
      root.sessionId,
    ]);
    const e = await f.err(f.a, "listSessions", {
      rootsOnly: true,
      parentSessionId: root.sessionId,
    });
    assert.equal(e.code, "INVALID_ARGUMENT");
  },
);

frontendTest(
  "PublishMetadata upserts with the server-derived producer and LIVE, republished on kernel.metadata; RetractMetadata and the publisher's exit flip to DISCONNECTED, never delete",
  async (f) => {
    const id = await twoAttached(f);
    const sub = f.bus.subscribe(["kernel.metadata"]);
    const block = {
      id: "ci",
      tone: "TONE_INFO",
      status: { text: "building" },
      producer: { name: "spoofed" },
      liveness: "LIVENESS_DISCONNECTED",
    };
    const stored =
      (await f.ok(f.a, "publishMetadata", { sessionId: id, block }))
        .block as JsonObject;
    assert.equal((stored.producer as JsonObject).name, "tui");
    assert.equal(stored.liveness, "LIVENESS_LIVE");
    assert.equal(stored.sessionId, id);
    const ev = (await sub.next()).value!;
    assert.equal(ev.payloadType, "pluggableharness.metadata.v1.MetadataBlock");
    assert.equal(fromBinary(MetadataBlockSchema, ev.payload).id, "ci");
    // Upsert by id; the other frontend sees the same list.
    await f.ok(f.a, "publishMetadata", {
      sessionId: id,
      block: { ...block, status: { text: "passed" }, tone: "TONE_SUCCESS" },
    });
    await f.ok(f.b, "publishMetadata", {
      sessionId: id,
      block: {
        id: "cost",
        tone: "TONE_NEUTRAL",
        keyValue: { key: "$", value: "0" },
      },
    });
    const listA = await f.ok(f.a, "listMetadata", { sessionId: id });
    assert.deepEqual(listA, await f.ok(f.b, "listMetadata", { sessionId: id }));
    assert.deepEqual(
      (listA.blocks as JsonObject[]).map((b) => [b.id, b.tone]),
      [["ci", "TONE_SUCCESS"], ["cost", "TONE_NEUTRAL"]],
    );
    for (
      const [bad, pattern] of [
        [{ tone: "TONE_INFO", status: { text: "x" } }, /block.id is required/],
        [{ id: "x", status: { text: "x" } }, /needs tone/],
        [{ id: "x", tone: "TONE_INFO" }, /has no body/],
      ] as const
    ) {
      const e = await f.err(f.a, "publishMetadata", {
        sessionId: id,
        block: bad,
      });
      assert.equal(e.code, "INVALID_ARGUMENT");
      assert.match(String(e.message), pattern);
    }
    const foreign = await f.err(f.b, "retractMetadata", {
      sessionId: id,
      blockId: "ci",
    });
    assert.equal(foreign.code, "PERMISSION_DENIED");
    const retracted = (await f.ok(f.a, "retractMetadata", {
      sessionId: id,
      blockId: "ci",
    })).block as JsonObject;
    assert.equal(retracted.liveness, "LIVENESS_DISCONNECTED");
    const missing = await f.err(f.a, "retractMetadata", {
      sessionId: id,
      blockId: "nope",
    });
    assert.equal(missing.code, "NOT_FOUND");
    // Frontend b's process exits: its block stays, DISCONNECTED.
    await f.b.close();
    assert.ok(
      await waitFor(() =>
        f.hub.metadata.list(id).find((b) => b.id === "cost")?.liveness === 2
      ),
    );
    assert.equal(f.hub.metadata.list(id).length, 2, "never deleted");
    sub.close();
  },
  { ends: "b" },
);

frontendTest(
  "InvokeSlashCommand and TriggerAction validate and route: unknown command, leading slash, bad arguments, no such action",
  async (f) => {
    const id = ((await f.ok(f.a, "createSession", {})).info as JsonObject)
      .sessionId as string;
    const slash = await f.err(f.a, "invokeSlashCommand", {
      sessionId: id,
      name: "/model",
    });
    assert.equal(slash.code, "INVALID_ARGUMENT");
    assert.match(String(slash.message), /without the leading slash/);
    const unknown = await f.err(f.a, "invokeSlashCommand", {
      sessionId: id,
      name: "nope",
    });
    assert.equal(unknown.code, "NOT_FOUND");
    assert.match(String(unknown.message), /Unknown slash command "\/nope"/);
    const badJson = await f.err(f.a, "invokeSlashCommand", {
      sessionId: id,
      name: "model",
      args: "{not json",
    });
    assert.equal(badJson.code, "INVALID_ARGUMENT");
    // A valid command runs through the gate into its provider, no model turn.
    const turnsBefore = f.model.requests.length;
    await f.ok(f.a, "invokeSlashCommand", {
      sessionId: id,
      name: "model",
      args: "m2",
    });
    assert.deepEqual(f.commands.invocations.map((i) => i.input), [{
      id: "m2",
    }]);
    assert.equal(f.model.requests.length, turnsBefore);
    const noNode = await f.err(f.a, "triggerAction", {
      sessionId: id,
      nodeId: "n1",
      toolName: "write_file",
      provider: "fs",
    });
    assert.equal(noNode.code, "NOT_FOUND");
    assert.match(String(noNode.message), /No action node "n1"/);
    f.hub.recordActions(
      id,
      new Map([["n1", { toolName: "write_file", provider: "fs", args: {} }]]),
    );
    const changed = await f.err(f.a, "triggerAction", {
      sessionId: id,
      nodeId: "n1",
      toolName: "delete_file",
      provider: "fs",
    });
    assert.equal(changed.code, "INVALID_ARGUMENT");
    const missing = await f.err(f.a, "triggerAction", { sessionId: id });
    assert.equal(missing.code, "INVALID_ARGUMENT");
  },
);

frontendTest(
  "InvokeSlashCommand of a command whose result names a kernel action: /clear attaches the invoking frontend to a new session named in the old one's tool_result; a data-source command may not change the session, an unknown action is named",
  async (f) => {
    const id = await twoAttached(f);
    const h = f.hub.get(id)!;
    const cleared = f.rpc(f.a, "invokeSlashCommand", {
      sessionId: id,
      name: "clear",
    });
    // A resource command: policy asks, and either frontend may answer.
    assert.ok(await waitFor(() => h.pendingPlans.size === 1));
    await f.ok(f.b, "resolvePlanDecision", {
      sessionId: id,
      planItemId: [...h.pendingPlans.keys()][0],
      decision: "CLIENT_DECISION_ALLOW",
      scope: "PLAN_DECISION_SCOPE_ONCE",
    });
    assert.ok((await cleared).ok);
    for (const name of ["sneak", "bogus"]) {
      await f.ok(f.a, "invokeSlashCommand", { sessionId: id, name });
    }
    const results = ((await f.rpc(f.a, "readEvents", {
      sessionId: id,
      kinds: ["EVENT_KIND_TOOL_RESULT"],
    })).ok as JsonObject[]).map((e) =>
      fromBinary(
        ToolResultEventSchema,
        Uint8Array.from(atob(e.payload as string), (c) => c.charCodeAt(0)),
      ).outcome
    );
    assert.equal(results.length, 3);
    assert.equal(results[0]!.case, "result");
    const payload = results[0]!.value as { payload: JsonObject };
    const next = payload.payload.session_id as string;
    assert.equal(payload.payload.previous_session_id, id);
    assert.match(String(payload.payload.text), /^New session /);
    assert.notEqual(next, id);
    // The invoking frontend is attached to the new session (and still to
    // the old one); the other frontend only to the old one.
    const state = (await f.ok(f.a, "getSessionState", { sessionId: next }))
      .state as JsonObject;
    assert.equal((state.info as JsonObject).profile, "default");
    await f.ok(f.a, "getSessionState", { sessionId: id });
    assert.equal(
      (await f.err(f.b, "getSessionState", { sessionId: next })).code,
      "PERMISSION_DENIED",
    );
    assert.equal(results[1]!.case, "error");
    assert.match(
      String((results[1]!.value as { message: string }).message),
      /"\/sneak" of provider "commands" is not declared kind resource, so it may not change the session/,
    );
    assert.equal(h.agent!.planMode, false);
    assert.match(
      String((results[2]!.value as { message: string }).message),
      /unknown kernel action "format_disk"/,
    );
  },
);

frontendTest(
  "TriggerAction runs an action node's tool call through the plan/apply gate: the ask reaches every frontend and the first answer applies it",
  async (f) => {
    const id = await twoAttached(f);
    f.hub.recordActions(
      id,
      new Map([["n2", {
        toolName: "write_file",
        provider: "fs",
        args: { path: "b.txt", text: "x" },
      }]]),
    );
    const triggered = f.rpc(f.a, "triggerAction", {
      sessionId: id,
      nodeId: "n2",
      toolName: "write_file",
      provider: "fs",
    });
    const h = f.hub.get(id)!;
    assert.ok(await waitFor(() => h.pendingPlans.size === 1));
    assert.equal(f.tool.invocations.length, 0, "asks before it runs");
    const [planItemId] = [...h.pendingPlans.keys()];
    await f.ok(f.b, "resolvePlanDecision", {
      sessionId: id,
      planItemId,
      decision: "CLIENT_DECISION_ALLOW",
      scope: "PLAN_DECISION_SCOPE_ONCE",
    });
    const r = await triggered;
    assert.ok(r.ok, JSON.stringify(r.error));
    assert.deepEqual(f.tool.invocations.map((i) => i.input), [{
      path: "b.txt",
      text: "x",
    }]);
  },
);

frontendTest(
  "when the last frontend detaches, the session goes on headless: a pending ask is settled by on_ask at once instead of waiting for the ask timeout",
  async (f) => {
    const id = ((await f.ok(f.a, "createSession", {})).info as JsonObject)
      .sessionId as string;
    await f.ok(f.a, "submitInput", {
      sessionId: id,
      content: [{ text: { text: "write c.txt" } }],
    });
    const h = f.hub.get(id)!;
    assert.ok(await waitFor(() => h.pendingPlans.size === 1));
    await f.ok(f.a, "detachSession", { sessionId: id });
    // (The ask timeout is 5 minutes: only headless settles it this soon.)
    assert.ok(await waitFor(() => h.pendingPlans.size === 0, 30_000));
    await h.queue;
    assert.equal(f.tool.invocations.length, 0, "the write was denied");
  },
);

frontendTest(
  "a frontend that crashes while ask_user waits leaves the session headless: the interactive question is settled by on_ask at once and the turn goes on",
  async (f) => {
    const id = ((await f.ok(f.a, "createSession", {})).info as JsonObject)
      .sessionId as string;
    await f.ok(f.a, "submitInput", {
      sessionId: id,
      content: [{ text: { text: "ask" } }],
    });
    assert.ok(await waitFor(() => f.asker.asked === 1));
    const h = f.hub.get(id)!;
    await f.a.close(); // the only frontend exits while the question waits
    // (The ask timeout is 5 minutes: only headless settles it this soon.)
    assert.ok(await waitFor(() => f.model.requests.length === 2, 30_000));
    await h.queue;
    const answer = f.model.requests[1]!.messages.at(-1)!.content
      .find((b) => b.block.case === "toolResult");
    assert.match(JSON.stringify(answer), /Nobody can answer in this run/);
    assert.equal(h.turnCount, 2, "the turn finished after the question");
  },
  { ends: "a" },
);

frontendTest(
  "RenderEvents streams a readable session's events in sequence, each with its producer's tree or the kernel's visible fallback; VerifySession checks the hash chain; both refuse a caller that cannot read the session",
  async (f) => {
    const id = await twoAttached(f);
    await f.ok(f.a, "submitInput", {
      sessionId: id,
      content: [{ text: { text: "hello" } }],
    });
    let events: JsonObject[] = [];
    assert.ok(
      await waitFor(async () => {
        events = (await f.ok(f.b, "renderEvents", { sessionId: id })) as never;
        return events.filter((e) =>
          (e.event as JsonObject).kind === "EVENT_KIND_MESSAGE"
        ).length === 2;
      }),
    );
    const seqs = events.map((e) => Number((e.event as JsonObject).sequence));
    assert.deepEqual(seqs, seqs.map((_, i) => i + 1), "every event, in order");
    for (const e of events) {
      const kind = (e.event as JsonObject).kind;
      const tree = JSON.stringify(e.tree);
      if (kind === "EVENT_KIND_MESSAGE") {
        assert.equal(e.fallback ?? "", "", "the producer painted it");
        assert.match(tree, /painted \d+ bytes/);
      } else {
        assert.ok(e.fallback, `${kind} falls back visibly`);
        assert.match(tree, /Rendered by the kernel/);
      }
    }
    const from = await f.ok(f.b, "renderEvents", {
      sessionId: id,
      fromSequence: "2",
      limit: 1,
    }) as unknown as JsonObject[];
    assert.deepEqual(
      from.map((e) => (e.event as JsonObject).sequence),
      ["2"],
    );
    const bad = await f.err(f.b, "renderEvents", { sessionId: id, limit: -1 });
    assert.equal(bad.code, "INVALID_ARGUMENT");
    const v = await f.ok(f.b, "verifySession", { sessionId: id });
    assert.equal(v.ok, true);
    assert.equal(v.events, String(events.length));
    assert.match(String(v.summary), /^ok: \d+ events, keyed chain valid/);
    // A session `b` never attached.
    const other = ((await f.ok(f.a, "createSession", {})).info as JsonObject)
      .sessionId as string;
    for (const m of ["renderEvents", "verifySession"]) {
      const e = await f.err(f.b, m, { sessionId: other });
      assert.equal(e.code, "PERMISSION_DENIED", m);
      assert.equal(e.message, SESSION_ACCESS_DENIED_MESSAGE, m);
    }
  },
  { render: true },
);

frontendTest(
  "two frontends attached to one session see identical transcripts on kernel.event.*",
  async (f) => {
    const id = await twoAttached(f);
    const before = f.bus.subscriberCount;
    const streams = [f.a, f.b].map((who) =>
      f.rpc(who, "subscribe", { topicFilters: ["kernel.event.message"] }, 4)
    );
    assert.ok(await waitFor(() => f.bus.subscriberCount === before + 2));
    for (const text of ["one", "two"]) {
      await f.ok(f.a, "submitInput", {
        sessionId: id,
        content: [{ text: { text } }],
      });
    }
    const [ta, tb] = await Promise.all(streams);
    const view = (r: JsonObject | undefined) =>
      (r!.ok as JsonObject[]).map((e) => [e.sequence, e.payload]);
    assert.equal(view(ta).length, 4, "two prompts and two replies");
    assert.deepEqual(view(ta), view(tb));
    const seqs = view(ta).map(([s]) => Number(s));
    assert.deepEqual(seqs, [...seqs].sort((x, y) => x - y));
  },
);

frontendTest(
  "killing a frontend mid-turn loses nothing: the turn waits on its plan item, and the other frontend's answer completes it",
  async (f) => {
    const id = await twoAttached(f);
    await f.ok(f.a, "submitInput", {
      sessionId: id,
      content: [{ text: { text: "write kept.txt" } }],
    });
    const h = f.hub.get(id)!;
    assert.ok(await waitFor(() => h.pendingPlans.size === 1));
    await f.a.close(); // the frontend that typed the input exits mid-turn
    assert.ok(await waitFor(() => h.attached.size === 1));
    const [planItemId] = [...h.pendingPlans.keys()];
    await f.ok(f.b, "resolvePlanDecision", {
      sessionId: id,
      planItemId,
      decision: "CLIENT_DECISION_ALLOW",
      scope: "PLAN_DECISION_SCOPE_ONCE",
    });
    assert.ok(
      await waitFor(async () =>
        ((await f.ok(f.b, "getSessionState", { sessionId: id }))
          .state as JsonObject).turnCount === 2
      ),
    );
    assert.deepEqual(f.tool.invocations.map((i) => i.input.path), [
      "kept.txt",
    ]);
  },
  { ends: "a" },
);

/**
 * Every step above runs against fresh sessions, bus and hub; the launched
 * plugins are shared.
 */
Deno.test("the frontend RPCs through the real transport", async (t) => {
  await using probes = await launchProbes();
  for (const step of STEPS) {
    await t.step(step.name, async () => {
      await using f = await fixture(probes, step.options);
      await step.fn(f);
    });
  }
});
