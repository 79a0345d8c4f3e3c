import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import type { Plan } from "../../config/plan.ts";
import {
  ToolKind,
  ToolSchemaSchema,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { hookChain, sessionSpecFromPlan } from "./session_spec_from_plan.ts";
import { resolveSessionSpec } from "./session_spec.ts";

const range = {
  file: "agent.hcl",
  start: { line: 1, column: 1, byte: 0 },
  end: { line: 1, column: 1, byte: 0 },
};

function plan(profiles: unknown[]): Plan {
  return {
    profiles,
    policies: [{
      name: "no_writes",
      match: { kind: "resource" },
      action: "deny",
    }],
    hooks: [{
      point: "plan-ready",
      provider: "guard",
      mode: "veto",
      position: 10,
      range,
    }],
    providers: [],
    settings: { retry: { baseDelayMs: 250, backoffFactor: 3, maxRetries: 4 } },
  } as unknown as Plan;
}

const fs = [
  create(ToolSchemaSchema, { name: "read_file", kind: ToolKind.DATA_SOURCE }),
  create(ToolSchemaSchema, { name: "write_file", kind: ToolKind.RESOURCE }),
];

Deno.test("sessionSpecFromPlan() takes the profile's chain, scoped tools, bounds, policies, hooks and retry", () => {
  const { spec, diagnostics } = sessionSpecFromPlan(
    plan([{
      name: "default",
      model: {
        primary: { provider: "claude", id: "large" },
        fallbacks: [{ provider: "claude", id: "small" }],
      },
      tools: ["fs.read_file"],
      slashCommands: [],
      bounds: { maxTurns: 12 },
      range,
    }]),
    {
      toolSchemas: new Map([["fs", fs]]),
      workingDirectory: "/w",
      onAsk: "fail",
    },
  );
  assert.deepEqual(diagnostics, []);
  assert.ok(spec);
  assert.deepEqual(spec.models, [{ provider: "claude", id: "large" }, {
    provider: "claude",
    id: "small",
  }]);
  assert.deepEqual(
    [...spec.tools!].map(([p, s]) => [p, s.map((x) => x.name)]),
    [["fs", ["read_file"]]],
  );
  assert.deepEqual(spec.bounds, { maxTurns: 12 });
  assert.deepEqual(spec.hooks, [{
    point: "plan-ready",
    provider: "guard",
    mode: "veto",
  }]);
  assert.equal(spec.policies?.[0]?.name, "no_writes");
  assert.equal(spec.onAsk, "fail");
  const resolved = resolveSessionSpec(spec);
  assert.equal(resolved.retry.baseDelayMs, 250);
  assert.equal(resolved.retry.maxRetries, 4);
});

Deno.test("sessionSpecFromPlan() uses built-in defaults without a default profile, and reports errors", () => {
  const noProfile = sessionSpecFromPlan(plan([]), {
    toolSchemas: new Map([["fs", fs]]),
    workingDirectory: "/w",
    defaultModels: [{ provider: "scripted", id: "demo" }],
  });
  assert.deepEqual(noProfile.spec?.bounds, {
    maxTurns: 200,
    maxCostUsd: 5,
    maxWallClockS: 3600,
  });
  assert.equal(
    noProfile.spec?.tools?.size,
    0,
    "a profile that omits tools gets none",
  );
  const unknown = sessionSpecFromPlan(plan([]), {
    profile: "nope",
    toolSchemas: new Map(),
    workingDirectory: "/w",
  });
  assert.equal(unknown.spec, undefined);
  assert.equal(unknown.diagnostics[0]?.code, "E_UNKNOWN_PROFILE");
  const noModel = sessionSpecFromPlan(plan([]), {
    toolSchemas: new Map(),
    workingDirectory: "/w",
  });
  assert.equal(noModel.diagnostics[0]?.code, "E_NO_MODEL");
  const badTool = sessionSpecFromPlan(
    plan([{
      name: "default",
      tools: ["fs.reed_file"],
      slashCommands: [],
      bounds: {},
      range,
      model: { primary: { provider: "m", id: "x" }, fallbacks: [] },
    }]),
    { toolSchemas: new Map([["fs", fs]]), workingDirectory: "/w" },
  );
  assert.equal(badTool.diagnostics[0]?.code, "E_TOOL_UNKNOWN");
});

Deno.test("memory providers are implicitly subscribed to post-model-response and session-end, in declaration order", () => {
  const p = plan([]);
  const withMemory = {
    ...p,
    providers: [
      { name: "mem", category: "memory", position: 5 },
      { name: "fs", category: "tool", position: 1 },
    ],
    hooks: [
      ...p.hooks,
      {
        point: "session-end",
        provider: "mem",
        mode: "observe",
        position: 30,
        range,
      },
    ],
  } as unknown as Plan;
  assert.deepEqual(hookChain(withMemory), [
    { point: "post-model-response", provider: "mem", mode: "observe" },
    { point: "plan-ready", provider: "guard", mode: "veto" },
    { point: "session-end", provider: "mem", mode: "observe" },
  ]);
});

Deno.test("a hook block's timeout_ms and the profile's doom_loop_threshold reach the session spec", () => {
  const p = plan([{
    name: "default",
    tools: [],
    slashCommands: [],
    bounds: { doomLoopThreshold: 3 },
    model: {
      primary: { provider: "llm", id: "m" },
      fallbacks: [],
    },
  }]);
  const withTimeout = {
    ...p,
    hooks: [{ ...p.hooks[0]!, timeoutMs: 750 }],
  } as unknown as Plan;
  const { spec } = sessionSpecFromPlan(withTimeout, {
    toolSchemas: new Map(),
    workingDirectory: "/w",
  });
  assert.deepEqual(spec?.hooks, [
    { point: "plan-ready", provider: "guard", mode: "veto", timeoutMs: 750 },
  ]);
  assert.equal(resolveSessionSpec(spec!).doomLoop.threshold, 3);
});

Deno.test("sessionSpecFromPlan() marks manifest-declared spawn tools and lists the named agents in their descriptions", () => {
  const p = plan([{
    name: "default",
    model: { primary: { provider: "claude", id: "large" }, fallbacks: [] },
    tools: ["agents.spawn_subagent", "agents.list_subagents"],
    slashCommands: [],
    bounds: {},
    range,
  }]);
  p.providers = [{
    name: "agents",
    tools: [
      {
        name: "spawn_subagent",
        kind: "data_source",
        risk: "low",
        subagents: true,
      },
      { name: "list_subagents", kind: "data_source", risk: "read_only" },
    ],
  }] as unknown as Plan["providers"];
  p.agents = [{
    name: "reviewer",
    profile: "review",
    description: "Reviews a change.",
    range,
  }];
  const agents = [
    create(ToolSchemaSchema, {
      name: "spawn_subagent",
      kind: ToolKind.DATA_SOURCE,
      description: "Hands a task to a sub-agent.",
    }),
    create(ToolSchemaSchema, {
      name: "list_subagents",
      kind: ToolKind.DATA_SOURCE,
      description: "Lists them.",
    }),
  ];
  const { spec } = sessionSpecFromPlan(p, {
    toolSchemas: new Map([["agents", agents]]),
    workingDirectory: "/w",
  });
  assert.deepEqual([...spec!.spawnTools!], ["agents.spawn_subagent"]);
  const [spawn, list] = spec!.tools!.get("agents")!;
  assert.equal(
    spawn!.description,
    'Hands a task to a sub-agent.\n\nNamed agents (pass the name as "agent"):\n- reviewer (profile review): Reviews a change.',
  );
  assert.equal(list!.description, "Lists them.");
  // The same tool under a name the manifest does not flag is not special.
  p.providers[0]!.tools![0]!.subagents = undefined;
  const plain = sessionSpecFromPlan(p, {
    toolSchemas: new Map([["agents", agents]]),
    workingDirectory: "/w",
  }).spec!;
  assert.equal(plain.spawnTools, undefined);
  assert.equal(
    plain.tools!.get("agents")![0]!.description,
    "Hands a task to a sub-agent.",
  );
});

Deno.test("a profile's control_plane turn_summaries reaches the session spec only when set", () => {
  const profile = (controlPlane: unknown) => ({
    name: "default",
    tools: [],
    slashCommands: [],
    bounds: {},
    model: { primary: { provider: "llm", id: "m" }, fallbacks: [] },
    controlPlane,
  });
  const options = { toolSchemas: new Map(), workingDirectory: "/w" };
  const on = sessionSpecFromPlan(
    plan([profile({
      disable: ["time"],
      topics: [],
      timers: [],
      turnSummaries: true,
    })]),
    options,
  ).spec!;
  assert.deepEqual(on.controlPlane, {
    disable: ["time"],
    timers: [],
    topics: [],
    turnSummaries: true,
  });
  const off = sessionSpecFromPlan(
    plan([profile({ disable: [], topics: [], timers: [] })]),
    options,
  ).spec!;
  assert.equal(off.controlPlane?.turnSummaries, undefined);
});

Deno.test("control_plane watch_fs watches the write-granted roots of the profile's tool providers only", () => {
  const p = plan([{
    name: "default",
    tools: ["fs.*"],
    slashCommands: [],
    bounds: {},
    model: { primary: { provider: "llm", id: "m" }, fallbacks: [] },
    controlPlane: { disable: [], topics: [], timers: [], watchFs: true },
    range,
  }]);
  const grant = (write: string[]) => ({
    effective: { read: [], write, net: [], env: [], run: [] },
  });
  (p as { providers: unknown[] }).providers = [
    { name: "fs", permissions: grant(["./src", "/abs", "*", "./src"]) },
    { name: "other", permissions: grant(["/elsewhere"]) },
  ];
  const { spec, diagnostics } = sessionSpecFromPlan(p, {
    toolSchemas: new Map([["fs", fs], ["other", fs]]),
    workingDirectory: "/w",
  });
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(spec!.controlPlane?.watch, ["/w/src", "/abs"]);
  const off = sessionSpecFromPlan(
    plan([{
      name: "default",
      tools: ["fs.*"],
      slashCommands: [],
      bounds: {},
      model: { primary: { provider: "llm", id: "m" }, fallbacks: [] },
      controlPlane: { disable: [], topics: [], timers: [] },
      range,
    }]),
    { toolSchemas: new Map([["fs", fs]]), workingDirectory: "/w" },
  );
  assert.equal(off.spec!.controlPlane?.watch, undefined);
});
