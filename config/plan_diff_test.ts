import assert from "node:assert/strict";
import { artifact, compileText } from "./_compile_testing.ts";
import { diffPlans, EMPTY_PLAN } from "./plan_diff.ts";
import type { Plan } from "./plan.ts";
import type { PluginArtifact } from "./compile.ts";

const NOTES_TOOLS = [
  { name: "read_note", kind: "data_source", risk: "read_only" },
  { name: "write_note", kind: "resource", risk: "low" },
] as const;

function notes(
  version = "1.0.0",
  checksum?: string,
  net: string[] = ["sync.example:443"],
): PluginArtifact {
  return artifact({
    name: "notes",
    version,
    capabilities: { env: [], run: ["*"], read: [], write: [], net },
  }, {
    tools: NOTES_TOOLS.map((t) => ({ ...t })),
    ...(checksum ? { checksum } : {}),
  });
}

const REQUIRED = `required_providers {
  notes = { source = "./plugins/notes", version = ">= 1.0.0" }
}
`;

function plan(
  text: string,
  a: PluginArtifact = notes(),
): Plan {
  const r = compileText(text, { artifacts: { "./plugins/notes": a } });
  const errors = r.diagnostics.filter((d) => d.severity === "error");
  assert.deepEqual(errors, [], "the fixture compiles");
  return r.plan!;
}

const PROVIDER_NET = `provider "notes" {
  allow_net = ["sync.example:443"]
}
`;
const PROVIDER_NET_RUN = `provider "notes" {
  allow_net = ["sync.example:443"]
  allow_run = ["git"]
}
`;

Deno.test("diffPlans() reports nothing between equal plans", () => {
  const p = plan(REQUIRED + PROVIDER_NET_RUN);
  const d = diffPlans(p, plan(REQUIRED + PROVIDER_NET_RUN));
  assert.equal(d.widens, false);
  assert.deepEqual(
    [d.providers, d.grants, d.policies, d.loosened, d.profiles, d.reasons],
    [[], [], [], [], [], []],
  );
});

Deno.test("diffPlans() reports a new provider and its effective permissions as widening", () => {
  const d = diffPlans(EMPTY_PLAN, plan(REQUIRED + PROVIDER_NET_RUN));
  assert.deepEqual(
    d.providers.map((p) => [p.change, p.name, p.after?.version]),
    [
      ["added", "notes", "1.0.0"],
    ],
  );
  assert.deepEqual(d.grants.map((g) => `${g.change} ${g.kind} ${g.value}`), [
    "added run git",
    "added net sync.example:443",
  ]);
  assert.equal(d.widens, true);
  assert.deepEqual(d.reasons, [
    'provider "notes" gains run permission "git"',
    'provider "notes" gains net permission "sync.example:443"',
  ]);
});

Deno.test("diffPlans() compares effective grants: an added grant widens, a removed one narrows", async (t) => {
  await t.step("an added allow_run widens", () => {
    const d = diffPlans(
      plan(REQUIRED + PROVIDER_NET, notes("1.0.0", undefined)),
      plan(REQUIRED + PROVIDER_NET_RUN),
    );
    assert.deepEqual(d.grants, [
      { change: "added", provider: "notes", kind: "run", value: "git" },
    ]);
    assert.equal(d.widens, true);
  });
  await t.step("a removed grant narrows", () => {
    const d = diffPlans(
      plan(REQUIRED + PROVIDER_NET_RUN),
      plan(REQUIRED + PROVIDER_NET),
    );
    assert.deepEqual(d.grants, [
      { change: "removed", provider: "notes", kind: "run", value: "git" },
    ]);
    assert.equal(d.widens, false);
    assert.deepEqual(d.reasons, []);
  });
});

Deno.test("diffPlans() reports an added allow_subscribe entry as widening, its @all form as another entry", () => {
  const scoped = `provider "notes" {
  allow_net       = ["sync.example:443"]
  allow_subscribe = ["kernel.event.*"]
}
`;
  const all = `provider "notes" {
  allow_net       = ["sync.example:443"]
  allow_subscribe = ["kernel.event.*@all"]
}
`;
  const d = diffPlans(plan(REQUIRED + PROVIDER_NET), plan(REQUIRED + scoped));
  assert.deepEqual(d.grants, [
    {
      change: "added",
      provider: "notes",
      kind: "subscribe",
      value: "kernel.event.*",
    },
  ]);
  assert.equal(d.widens, true);
  assert.deepEqual(d.reasons, [
    'provider "notes" gains subscribe permission "kernel.event.*"',
  ]);
  const wider = diffPlans(plan(REQUIRED + scoped), plan(REQUIRED + all));
  assert.equal(wider.widens, true);
  assert.deepEqual(wider.grants.map((g) => `${g.change} ${g.value}`), [
    "added kernel.event.*@all",
    "removed kernel.event.*",
  ]);
  assert.equal(
    diffPlans(plan(REQUIRED + scoped), plan(REQUIRED + PROVIDER_NET)).widens,
    false,
  );
});

Deno.test("diffPlans() reports a provider upgrade with its version and checksum, without widening", () => {
  const sumB = `sha256:${"b".repeat(64)}`;
  const d = diffPlans(
    plan(REQUIRED + PROVIDER_NET),
    plan(REQUIRED + PROVIDER_NET, notes("1.1.0", sumB)),
  );
  assert.equal(d.providers.length, 1);
  const [c] = d.providers;
  assert.equal(c?.change, "changed");
  assert.equal(c?.update, "upgraded");
  assert.equal(c?.before?.version, "1.0.0");
  assert.equal(c?.after?.version, "1.1.0");
  assert.equal(c?.before?.checksum, `sha256:${"a".repeat(64)}`);
  assert.equal(c?.after?.checksum, sumB);
  assert.equal(d.widens, false);
  const rebuilt = diffPlans(
    plan(REQUIRED + PROVIDER_NET),
    plan(REQUIRED + PROVIDER_NET, notes("1.0.0", sumB)),
  );
  assert.equal(rebuilt.providers[0]?.update, "rebuilt");
  const down = diffPlans(
    plan(REQUIRED + PROVIDER_NET, notes("1.1.0")),
    plan(REQUIRED + PROVIDER_NET),
  );
  assert.equal(down.providers[0]?.update, "downgraded");
});

Deno.test("diffPlans() reports a removed provider and its lost permissions as narrowing", () => {
  const d = diffPlans(plan(REQUIRED + PROVIDER_NET), EMPTY_PLAN);
  assert.deepEqual(d.providers.map((p) => [p.change, p.name]), [
    ["removed", "notes"],
  ]);
  assert.deepEqual(d.grants.map((g) => g.change), ["removed"]);
  assert.equal(d.widens, false);
});

function policy(name: string, match: string, action: string): string {
  return `policy "${name}" {\n  match  = ${match}\n  action = "${action}"\n}\n`;
}

const WRITES = '{ provider = "notes", kind = "resource" }';

Deno.test("diffPlans() reports policy changes and what now runs with less asking", async (t) => {
  const cfg = (...rules: string[]) =>
    plan(REQUIRED + PROVIDER_NET + rules.join(""));
  await t.step("ask turned into allow widens, naming the tool", () => {
    const d = diffPlans(
      cfg(policy("writes", WRITES, "ask")),
      cfg(policy("writes", WRITES, "allow")),
    );
    assert.deepEqual(d.policies.map((p) => [p.change, p.name, p.widens]), [
      ["changed", "writes", true],
    ]);
    assert.deepEqual(d.loosened, [{
      provider: "notes",
      tool: "write_note",
      kind: "resource",
      risks: ["low"],
      before: "ask",
      after: "allow",
      decidedBy: "writes",
      decidedBefore: "writes",
    }]);
    assert.deepEqual(d.reasons, ['policy "writes" turns ask into allow']);
    assert.equal(d.widens, true);
  });
  await t.step("allow turned into ask narrows", () => {
    const d = diffPlans(
      cfg(policy("writes", WRITES, "allow")),
      cfg(policy("writes", WRITES, "ask")),
    );
    assert.deepEqual(d.policies.map((p) => [p.change, p.widens]), [
      ["changed", false],
    ]);
    assert.deepEqual(d.loosened, []);
    assert.equal(d.widens, false);
  });
  await t.step("a new allow rule widens; a new deny rule does not", () => {
    const allow = diffPlans(cfg(), cfg(policy("writes", WRITES, "allow")));
    assert.deepEqual(allow.reasons, ['new policy "writes" says allow']);
    const deny = diffPlans(cfg(), cfg(policy("no_writes", WRITES, "deny")));
    assert.deepEqual(
      deny.policies.map((p) => [p.change, p.name, p.widens]),
      [["added", "no_writes", false]],
    );
    assert.equal(deny.widens, false);
  });
  await t.step("a removed deny widens; a removed allow does not", () => {
    const d = diffPlans(cfg(policy("no_writes", WRITES, "deny")), cfg());
    assert.deepEqual(d.reasons, ['policy "no_writes" (deny) is removed']);
    assert.deepEqual(d.loosened.map((l) => [l.tool, l.before, l.after]), [
      ["write_note", "deny", "ask"],
    ]);
    const a = diffPlans(cfg(policy("writes", WRITES, "allow")), cfg());
    assert.equal(a.widens, false);
    assert.deepEqual(a.policies.map((p) => [p.change, p.widens]), [
      ["removed", false],
    ]);
  });
  await t.step("a deny whose match moves away from a tool widens", () => {
    const d = diffPlans(
      cfg(policy("no_writes", WRITES, "deny")),
      cfg(
        policy(
          "no_writes",
          '{ provider = "other", kind = "resource" }',
          "deny",
        ),
      ),
    );
    assert.deepEqual(d.policies.map((p) => [p.change, p.widens]), [
      ["changed", true],
    ]);
    assert.deepEqual(d.reasons, ['policy "no_writes" matches other calls']);
  });
  await t.step(
    "a deny whose match only narrows elsewhere does not widen",
    () => {
      const d = diffPlans(
        cfg(policy("no_high", '{ risk = "high" }', "deny")),
        cfg(policy("no_high", '{ risk = "critical" }', "deny")),
      );
      // notes declares no high or critical tool: nothing it can call changes.
      assert.deepEqual(d.policies.map((p) => [p.change, p.widens]), [
        ["changed", false],
      ]);
      assert.equal(d.widens, false);
    },
  );
});

Deno.test("diffPlans() reports profile changes: tools added widen, bounds and models do not", () => {
  const profile = (body: string) =>
    plan(REQUIRED + PROVIDER_NET + `agent_profile "default" {\n${body}}\n`);
  const d = diffPlans(
    profile(
      '  tools = ["notes.read_note"]\n  max_turns = 10\n  max_depth = 1\n',
    ),
    profile(
      '  tools = ["notes.*"]\n  max_turns = 20\n  max_cost_usd = 1.5\n',
    ),
  );
  assert.equal(d.profiles.length, 1);
  const [p] = d.profiles;
  assert.deepEqual(p?.toolsAdded, ["notes.*"]);
  assert.deepEqual(p?.toolsRemoved, ["notes.read_note"]);
  assert.deepEqual(p?.bounds, [
    { name: "max_turns", before: 10, after: 20, raised: true },
    { name: "max_cost_usd", after: 1.5, raised: false },
    { name: "max_depth", before: 1, raised: true },
  ]);
  assert.equal(p?.widens, true);
  assert.deepEqual(d.reasons, ['profile "default" gains tools "notes.*"']);

  const narrow = diffPlans(
    profile('  tools = ["notes.*"]\n  max_turns = 20\n'),
    profile('  tools = ["notes.read_note"]\n  max_turns = 10\n'),
  );
  assert.equal(narrow.widens, false);
  assert.deepEqual(narrow.profiles[0]?.bounds, [
    { name: "max_turns", before: 20, after: 10, raised: false },
  ]);
});
