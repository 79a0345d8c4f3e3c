import assert from "node:assert/strict";
import { artifact, compileText } from "./_compile_testing.ts";
import { planToJson } from "./plan.ts";

const PROFILES = `agent_profile "default" {
  tools = []
}
agent_profile "review" {
  tools = []
}
`;

Deno.test('agent "NAME" {} blocks compile into plan.agents, in declaration order', () => {
  const r = compileText(
    PROFILES +
      `agent "reviewer" {
  profile     = "review"
  description = "Reviews a change and lists what is wrong with it."
}
agent "helper" {
  profile     = "default"
  description = " Does small chores. "
}
`,
  );
  assert.deepEqual(r.diagnostics.filter((d) => d.severity === "error"), []);
  assert.deepEqual(
    r.plan?.agents?.map((a) => [a.name, a.profile, a.description]),
    [
      [
        "reviewer",
        "review",
        "Reviews a change and lists what is wrong with it.",
      ],
      ["helper", "default", "Does small chores."],
    ],
  );
  const json = planToJson(r.plan!) as { agents: { declared_at: string }[] };
  assert.equal(json.agents[0]?.declared_at, "agent.hcl:7:7");
});

Deno.test("a plan without agent blocks has no agents key (plan JSON unchanged)", () => {
  const r = compileText(PROFILES);
  assert.equal(r.plan?.agents, undefined);
  assert.equal("agents" in (planToJson(r.plan!) as object), false);
});

Deno.test("an agent naming an unknown profile is an error at the profile's value, with a suggestion", () => {
  const r = compileText(
    PROFILES + `agent "reviewer" {
  profile     = "reviw"
  description = "Reviews."
}
`,
  );
  const d = r.diagnostics.find((x) => x.code === "E_UNKNOWN_PROFILE");
  assert.ok(d, JSON.stringify(r.diagnostics));
  assert.equal(d.severity, "error");
  assert.equal(d.summary, 'Unknown profile "reviw"');
  assert.match(d.detail ?? "", /Did you mean "review"\?/);
  assert.equal(d.range?.file, "agent.hcl");
  assert.equal(d.range?.start.line, 8);
  assert.equal(d.range?.start.column, 17);
  assert.equal(r.plan, undefined);
});

Deno.test("a duplicate agent name is an error pointing at the first declaration", () => {
  const r = compileText(
    PROFILES + `agent "reviewer" {
  profile     = "review"
  description = "Reviews."
}
agent "reviewer" {
  profile     = "default"
  description = "Reviews too."
}
`,
  );
  const d = r.diagnostics.find((x) => x.code === "E_DUPLICATE_BLOCK");
  assert.ok(d, JSON.stringify(r.diagnostics));
  assert.equal(d.range?.start.line, 11);
  assert.match(d.detail ?? "", /already declared at agent\.hcl:7:1/);
});

Deno.test("an agent needs a profile and a non-empty description, and a name usable as an address", () => {
  const r = compileText(
    PROFILES + `agent "Bad Name" {
  profile     = "review"
  description = "   "
}
agent "quiet" {
  profile = "review"
}
`,
  );
  const codes = r.diagnostics.map((d) => d.code);
  assert.ok(codes.includes("E_AGENT_NAME"), codes.join(","));
  assert.ok(
    r.diagnostics.some((d) =>
      d.code === "E_INVALID_VALUE" &&
      /Empty description in agent "Bad Name"/.test(d.summary)
    ),
  );
  assert.ok(
    r.diagnostics.some((d) =>
      d.code === "E_MISSING_ATTR" && /description/.test(d.summary)
    ),
    JSON.stringify(r.diagnostics),
  );
});

Deno.test("check-config warns that agent blocks have no effect when no profile has a spawn-capable tool", () => {
  const text = `required_providers {
  agents = { source = "./agents", version = "~> 1.0" }
}
agent_profile "default" {
  tools = []
}
agent "helper" {
  profile     = "default"
  description = "Does chores."
}
`;
  const agents = {
    "./agents": artifact({ name: "agents" }, {
      tools: [
        {
          name: "spawn_subagent",
          kind: "data_source",
          risk: "low",
          subagents: true,
        },
        { name: "list_subagents", kind: "data_source", risk: "read_only" },
      ],
    }),
  };
  const warned = compileText(text, { artifacts: agents }).diagnostics
    .filter((d) => d.code === "W_NO_EFFECT");
  assert.equal(warned.length, 1);
  assert.equal(warned[0]?.summary, "agent blocks have no effect");
  assert.equal(warned[0]?.range?.start.line, 7);
  // A profile that can spawn (a wildcard over the flagged tool) silences it.
  const ok = compileText(text.replace("tools = []", 'tools = ["agents.*"]'), {
    artifacts: agents,
  }).diagnostics.filter((d) => d.code === "W_NO_EFFECT");
  assert.deepEqual(ok, []);
  // A tool of the same name that the manifest does not flag does not count.
  const unflagged = {
    "./agents": artifact({ name: "agents" }, {
      tools: [{ name: "spawn_subagent", kind: "data_source", risk: "low" }],
    }),
  };
  assert.equal(
    compileText(text.replace("tools = []", 'tools = ["agents.*"]'), {
      artifacts: unflagged,
    }).diagnostics.filter((d) => d.code === "W_NO_EFFECT").length,
    1,
  );
});
