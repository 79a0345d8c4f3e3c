import assert from "node:assert/strict";
import type { Plan, PlanProfile, ToolDeclaration } from "../../config/plan.ts";
import { PolicyProbe } from "./policy_probe.ts";

// A plan with two tool providers (fs and agents, whose spawn_subagent
// starts sub-agents: its manifest says "subagents": true) and profiles that
// delegate.
function plan(profiles: Partial<PlanProfile>[]): Plan {
  const provider = (name: string) => ({
    name,
    category: "tool",
    source: `builtin/${name}`,
    tools: TOOLS.get(name),
  });
  return {
    providers: [provider("fs"), provider("agents")],
    policies: [
      { name: "reads_ok", match: { kind: "data_source" }, action: "allow" },
      { name: "ask_reads", match: { toolName: "peek" }, action: "ask" },
      {
        name: "spawn_ok",
        match: { toolName: "spawn_subagent" },
        action: "allow",
      },
      { name: "no_rm", match: { command: "rm *" }, action: "deny" },
    ],
    hooks: [],
    settings: { retry: {} },
    profiles: profiles.map((p) => ({
      name: "default",
      tools: [],
      slashCommands: [],
      bounds: {},
      ...p,
    })),
  } as unknown as Plan;
}

const TOOLS = new Map<string, ToolDeclaration[]>([
  ["fs", [
    { name: "read_file", kind: "data_source", risk: "read_only" },
    { name: "peek", kind: "data_source", risk: "read_only" },
    { name: "write_file", kind: "resource", risk: "moderate" },
  ]],
  ["agents", [{
    name: "spawn_subagent",
    kind: "resource",
    risk: "moderate",
    subagents: true,
  }]],
]);

const entry = (text: string) => {
  const [provider, tool] = [
    text.slice(0, text.indexOf(".")),
    text.slice(text.indexOf(".") + 1),
  ];
  return { text, provider: provider!, tool: tool!, wildcard: tool === "*" };
};

Deno.test("PolicyProbe.decide() judges a call as the gate does: precheck, plan and scope", () => {
  const probe = new PolicyProbe(
    plan([{ tools: [entry("fs.*")] }]),
    TOOLS,
  );
  const read = probe.decide({ provider: "fs", tool: "read_file", input: {} });
  assert.equal(read.verdict?.action, "allow");
  assert.equal(read.verdict?.rule, "reads_ok");
  assert.equal(read.verdict?.gate, "precheck");
  // An ask on a data source is downgraded to deny, as in the precheck.
  const peek = probe.decide({ provider: "fs", tool: "peek", input: {} });
  assert.deepEqual(
    [peek.verdict?.action, peek.verdict?.rule, peek.verdict?.downgraded],
    ["deny", "ask_reads", true],
  );
  const write = probe.decide({
    provider: "fs",
    tool: "write_file",
    input: { path: "x", command: "ls && rm -rf x" },
  });
  assert.deepEqual(
    [
      write.verdict?.action,
      write.verdict?.rule,
      write.verdict?.segment,
      write.verdict?.gate,
    ],
    ["deny", "no_rm", "rm -rf x", "plan"],
  );
  const spawn = probe.decide({
    provider: "agents",
    tool: "spawn_subagent",
    input: {},
  });
  assert.deepEqual([spawn.verdict?.action, spawn.verdict?.rule], [
    "deny",
    "scope",
  ]);
  assert.match(
    spawn.verdict!.decidedBy,
    /not in the tools of profile "default"/,
  );
});

Deno.test("PolicyProbe.decide() applies the depth ceiling: spawn tools vanish at remaining depth 0", () => {
  const p = plan([
    { tools: [entry("fs.*"), entry("agents.*")], bounds: { maxDepth: 1 } },
    {
      name: "worker",
      tools: [entry("fs.read_file"), entry("agents.*")],
      bounds: { maxDepth: 5 },
    },
    { name: "leaf", tools: [entry("fs.read_file")], bounds: { maxDepth: 0 } },
    { name: "lonely", tools: [entry("agents.*")], bounds: { maxDepth: 0 } },
  ]);
  const probe = new PolicyProbe(p, TOOLS);
  const root = probe.decide({
    provider: "agents",
    tool: "spawn_subagent",
    input: {},
  });
  assert.equal(root.verdict?.action, "allow");
  // worker spawned by default: min(1 - 1, 5) = 0, so no spawning.
  const child = probe.decide(
    { provider: "agents", tool: "spawn_subagent", input: {} },
    { profile: "worker", parent: "default" },
  );
  assert.deepEqual([child.verdict?.action, child.verdict?.rule], [
    "deny",
    "scope",
  ]);
  assert.match(child.verdict!.decidedBy, /remaining depth is 0/);
  // A profile that cannot spawn refuses every delegation.
  const refused = probe.decide(
    { provider: "fs", tool: "read_file", input: {} },
    { profile: "leaf", parent: "lonely" },
  );
  assert.deepEqual([refused.verdict?.action, refused.verdict?.rule], [
    "deny",
    "delegation",
  ]);
  assert.match(refused.verdict!.decidedBy, /remaining depth is 0/);
  // The child's own tools, never the parent's.
  const notInherited = probe.decide(
    { provider: "fs", tool: "write_file", input: {} },
    { profile: "worker", parent: "default" },
  );
  assert.equal(notInherited.verdict?.rule, "scope");
});

Deno.test("PolicyProbe.decide() reports unknown profiles, providers and tools with suggestions", () => {
  const probe = new PolicyProbe(plan([{ tools: [entry("fs.*")] }]), TOOLS);
  const a = probe.decide({ provider: "fs", tool: "read_file", input: {} }, {
    profile: "defualt",
  });
  assert.equal(a.problem?.field, "profile");
  assert.match(a.problem!.diagnostic.detail ?? "", /Did you mean "default"\?/);
  const b = probe.decide({ provider: "fss", tool: "read_file", input: {} });
  assert.equal(b.problem?.field, "provider");
  assert.match(b.problem!.diagnostic.detail ?? "", /Did you mean "fs"\?/);
  const c = probe.decide({ provider: "fs", tool: "read_fil", input: {} });
  assert.equal(c.problem?.field, "tool");
  assert.match(
    c.problem!.diagnostic.detail ?? "",
    /Did you mean "read_file"\?/,
  );
});
