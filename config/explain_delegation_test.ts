import assert from "node:assert/strict";
import { explainPlan, formatExplain } from "./explain.ts";
import type { Plan, PlanProfile } from "./plan.ts";

const entry = (text: string) => {
  const dot = text.indexOf(".");
  const tool = text.slice(dot + 1);
  return { text, provider: text.slice(0, dot), tool, wildcard: tool === "*" };
};

function plan(profiles: Partial<PlanProfile>[]): Plan {
  const provider = (name: string, tools: unknown[]) => ({
    name,
    category: "tool",
    source: `builtin/${name}`,
    runtime: "deno",
    permissions: {
      effective: { env: [], run: [], read: [], write: [], net: [] },
    },
    tools,
  });
  return {
    providers: [
      provider("fs", [
        { name: "read_file", kind: "data_source", risk: "read_only" },
        { name: "write_file", kind: "resource", risk: "moderate" },
      ]),
      provider("agents", [
        {
          name: "spawn_subagent",
          kind: "resource",
          risk: "moderate",
          subagents: true,
        },
      ]),
    ],
    policies: [
      { name: "reads_ok", match: { kind: "data_source" }, action: "allow" },
      { name: "no_rm", match: { command: "rm *" }, action: "deny" },
      { name: "web_only", match: { provider: "web" }, action: "deny" },
    ],
    hooks: [],
    profiles: profiles.map((p) => ({
      name: "default",
      tools: [],
      slashCommands: [],
      bounds: {},
      ...p,
    })),
  } as unknown as Plan;
}

Deno.test("explainPlan() lists each profile's effective rules and what each delegate actually gets", () => {
  const report = explainPlan(plan([
    {
      tools: [entry("fs.read_file"), entry("agents.*")],
      bounds: { maxDepth: 2, maxCostUsd: 1 },
    },
    {
      name: "writer",
      tools: [entry("fs.*"), entry("agents.*")],
      bounds: { maxDepth: 5, maxCostUsd: 3 },
    },
    { name: "leaf", tools: [entry("fs.read_file")] },
  ]));
  const [root, writer, leaf] = report.profiles;
  assert.deepEqual(root!.rules, ["reads_ok", "no_rm"]);
  assert.equal(root!.remainingDepth, 2);
  assert.deepEqual(root!.delegates.find((d) => d.child === "writer"), {
    child: "writer",
    remainingDepth: 1, // min(2 - 1, 5): the parent's budget wins
    maxCostUsd: 1, // min(1, 3)
    tools: ["fs.read_file", "fs.write_file", "agents.spawn_subagent"],
    removed: [],
    notInParent: ["fs.write_file"],
  });
  // leaf has no max_depth: recursion is denied by default.
  assert.equal(
    root!.delegates.find((d) => d.child === "leaf")?.remainingDepth,
    0,
  );
  // writer spawns default with depth min(4, 2) = 2 ... and leaf cannot spawn.
  assert.equal(writer!.delegates.length, 3);
  assert.deepEqual(leaf!.delegates, []);
  const text = formatExplain(report);
  assert.match(text, /effective rules: reads_ok, no_rm/);
  assert.match(
    text,
    /delegates to "writer": depth 1, cost <= 1 USD, tools: fs\.read_file, fs\.write_file, agents\.spawn_subagent\n {4}! not in "default" itself: fs\.write_file/,
  );
});

Deno.test("explainPlan() removes spawn tools from a delegate with no depth left", () => {
  const report = explainPlan(plan([
    { tools: [entry("agents.*")], bounds: { maxDepth: 1 } },
    {
      name: "child",
      tools: [entry("agents.*"), entry("fs.read_file")],
      bounds: { maxDepth: 4 },
    },
  ]));
  const d = report.profiles[0]!.delegates.find((x) => x.child === "child")!;
  assert.equal(d.remainingDepth, 0);
  assert.deepEqual(d.tools, ["fs.read_file"]);
  assert.deepEqual(d.removed, ["agents.spawn_subagent"]);
});
