/**
 * Conformance rows of config.md §8 that the pure semantic modules decide
 * (version constraints, policy, profiles). One `Deno.test` per row, named
 * after it; rows that need the parser, the block decoder, the lock file or
 * the kernel are tested where those live.
 */
import assert from "node:assert/strict";
import {
  evaluatePolicy,
  type PolicyCall,
  type PolicyRule,
  type ToolKind,
} from "../contract/policy.ts";
import { normalizePolicy } from "../contract/policy_normalize.ts";
import { checkPolicies } from "../contract/policy_checks.ts";
import { chooseModel } from "./model_routing.ts";
import { orderSubscribers } from "./hook_order.ts";
import {
  remainingDepth,
  resolveSlashCommands,
  selectRootProfile,
  toolsForDepth,
} from "./profiles.ts";
import { resolveToolScope } from "./tool_scope.ts";
import {
  CONSTRAINT_OPERATORS,
  parseVersionConstraint,
  satisfies,
} from "./version_constraint.ts";

function call(kind: ToolKind, extra: Partial<PolicyCall> = {}): PolicyCall {
  return {
    kind,
    provider: "fs",
    toolName: "write_file",
    risk: "moderate",
    ...extra,
  };
}

// --- §8.1 -------------------------------------------------------------------

Deno.test("§8.1 row 7: version uses Terraform's operators = != > >= < <= ~>", () => {
  assert.deepEqual(CONSTRAINT_OPERATORS, [
    "=",
    "!=",
    ">",
    ">=",
    "<",
    "<=",
    "~>",
  ]);
  const cases: [string, string, boolean][] = [
    ["= 1.2.3", "1.2.3", true],
    ["1.2.3", "1.2.4", false], // no operator means "="
    ["!= 1.2.3", "1.2.3", false],
    ["> 1.2.3", "1.2.4", true],
    [">= 1.2.3", "1.2.3", true],
    ["< 1.2.3", "1.2.3", false],
    ["<= 1.2.3", "1.2.3", true],
    ["~> 1.2.3", "1.3.0", false], // >= 1.2.3, < 1.3.0
    ["~> 1.2", "1.9.0", true], // >= 1.2.0, < 2.0.0
    ["~> 1", "2.0.0", false], // >= 1.0.0, < 2.0.0 (provider parser)
    [">= 2.1.0, < 3.0.0", "2.5.0", true],
  ];
  for (const [text, version, want] of cases) {
    const { constraint } = parseVersionConstraint(text);
    assert.ok(constraint, text);
    assert.equal(satisfies(version, constraint), want, `${version} vs ${text}`);
  }
  for (const bad of ["=> 1.0", "=< 1.0", "^1.0", "v1.0", "1.0 || 2.0"]) {
    assert.equal(
      parseVersionConstraint(bad).diagnostics[0]?.code,
      "E_INVALID_VALUE",
      bad,
    );
  }
});

Deno.test("§8.1 row 9: overlapping policy rules resolve most-specific-wins (tool_name > provider > risk > kind)", () => {
  const rules: PolicyRule[] = [
    { name: "kind", match: { kind: "resource" }, action: "allow" },
    { name: "risk", match: { risk: "moderate" }, action: "ask" },
    { name: "provider", match: { provider: "fs" }, action: "ask" },
    { name: "tool", match: { toolName: "write_file" }, action: "allow" },
  ];
  assert.deepEqual(checkPolicies(rules), []);
  // Remove the current winner each time: the next field in the order wins.
  const winners: string[] = [];
  for (let n = rules.length; n > 0; n--) {
    winners.push(evaluatePolicy(rules.slice(0, n), call("resource")).decidedBy);
  }
  assert.deepEqual(winners, ["tool", "provider", "risk", "kind"]);
  // A tool_name rule outranks a rule specifying the other three fields.
  const broad: PolicyRule = {
    name: "broad",
    match: { provider: "fs", risk: "moderate", kind: "resource" },
    action: "ask",
  };
  assert.equal(
    evaluatePolicy([broad, rules[3]!], call("resource")).decidedBy,
    "tool",
  );
  // Divergence (config.md §6.4, issue 21 defect 3): a deny is set aside only
  // by a rule strictly narrower on the deny's own keys, so the same overlap
  // with deny rules keeps the deny.
  const denyBroad: PolicyRule = { ...broad, action: "deny" };
  assert.equal(
    evaluatePolicy([denyBroad, rules[3]!], call("resource")).decidedBy,
    "broad",
  );
  const denyProvider: PolicyRule = { ...rules[2]!, action: "deny" };
  assert.equal(
    evaluatePolicy([denyProvider, rules[3]!], call("resource")).decidedBy,
    "provider",
  );
});

Deno.test("§8.1 row 10: policy rules with an identical specificity tuple and equal shared values are a load-time error", () => {
  const [d, ...rest] = checkPolicies([
    { name: "first", match: { risk: "high" }, action: "deny" },
    { name: "second", match: { risk: "high" }, action: "deny" },
    { name: "other_value", match: { risk: "low" }, action: "deny" },
    {
      name: "other_tuple",
      match: { risk: "high", kind: "resource" },
      action: "allow",
    },
  ]);
  assert.equal(rest.length, 0);
  assert.equal(d?.severity, "error");
  assert.equal(d?.code, "E_POLICY_CONFLICT");
  assert.equal(d?.summary, 'Conflicting policies "first" and "second"');
});

Deno.test("§8.1 row 11: policy evaluation covers data_source and interactive calls, with outcomes limited to allow/deny", () => {
  const rules: PolicyRule[] = [
    { name: "allow_ui", match: { provider: "ui" }, action: "allow" },
    { name: "ask_grep", match: { provider: "grep" }, action: "ask" },
    { name: "deny_web", match: { provider: "web" }, action: "deny" },
  ];
  for (const kind of ["data_source", "interactive"] as const) {
    for (const provider of ["ui", "grep", "web", "none"]) {
      const { action } = evaluatePolicy(rules, call(kind, { provider }));
      assert.ok(action === "allow" || action === "deny", `${kind} ${provider}`);
    }
    assert.equal(
      evaluatePolicy(rules, call(kind, { provider: "web" })).action,
      "deny",
    );
    assert.equal(
      evaluatePolicy(rules, call(kind, { provider: "ui" })).action,
      "allow",
    );
  }
});

Deno.test("§8.1 row 12: a winning ask on a data_source/interactive call becomes deny, flagged for the warning", () => {
  const rules: PolicyRule[] = [
    { name: "ask_everything", match: { provider: "fs" }, action: "ask" },
  ];
  for (const kind of ["data_source", "interactive"] as const) {
    // `downgraded` is what the caller logs its warning on, naming the rule
    // (decidedBy) and the call kind.
    assert.deepEqual(evaluatePolicy(rules, call(kind)), {
      action: "deny",
      decidedBy: "ask_everything",
      downgraded: true,
    });
  }
});

Deno.test("§8.1 row 13: the root session uses the profile named default", () => {
  const profiles = new Map([["auditor", "A"], ["default", "D"]]);
  const r = selectRootProfile(profiles);
  assert.equal(r.name, "default");
  assert.equal(r.profile, "D");
  // Without one, the kernel's built-in defaults apply (no error).
  assert.deepEqual(selectRootProfile(new Map([["auditor", "A"]])), {
    name: "default",
    profile: undefined,
    diagnostics: [],
  });
});

Deno.test("§8.1 row 14: model routing walks one primary, then the fallbacks in their declared order", () => {
  const m = (id: string) => ({
    id,
    contextWindow: 1000,
    supportsToolUse: true,
    supportsVision: false,
  });
  const available = new Map([["p", [m("a"), m("b"), m("c")]]]);
  const routing = {
    primary: { provider: "p", id: "a" },
    fallbacks: [{ provider: "p", id: "c" }, { provider: "p", id: "b" }],
  };
  const first = chooseModel(routing, available);
  assert.ok(first.ok);
  assert.equal(first.model.id, "a");
  const withoutA = new Map([["p", [m("b"), m("c")]]]);
  const second = chooseModel(routing, withoutA);
  assert.ok(second.ok);
  assert.equal(second.model.id, "c"); // declared order, not catalogue order
});

Deno.test("§8.1 row 15: fallback candidates are eligible only if they meet the turn's capability requirements", () => {
  const available = new Map([["p", [
    {
      id: "no_tools",
      contextWindow: 200_000,
      supportsToolUse: false,
      supportsVision: true,
      thinking: { supported: true },
    },
    {
      id: "small",
      contextWindow: 8_000,
      supportsToolUse: true,
      supportsVision: true,
      thinking: { supported: true },
    },
    {
      id: "no_thinking",
      contextWindow: 200_000,
      supportsToolUse: true,
      supportsVision: true,
      thinking: { supported: false },
    },
    {
      id: "ok",
      contextWindow: 200_000,
      supportsToolUse: true,
      supportsVision: true,
      thinking: { supported: true },
    },
  ]]]);
  const chain = ["no_tools", "small", "no_thinking", "ok"].map((id) => ({
    provider: "p",
    id,
  }));
  const r = chooseModel(chain, available, {
    toolUse: true,
    vision: true,
    thinking: true,
    minContextWindow: 32_000,
  });
  assert.ok(r.ok);
  assert.equal(r.model.id, "ok");
  assert.deepEqual(r.skipped.map((s) => s.reasons), [
    ["no_tool_use"],
    ["context_window_too_small"],
    ["no_thinking"],
  ]);
});

Deno.test("§8.1 row 16: a profile without tools gets no tools", () => {
  const loaded = new Map([["fs", ["read_file"]], ["subagents", ["spawn"]]]);
  assert.deepEqual(resolveToolScope(undefined, loaded).tools, []);
  assert.deepEqual(resolveToolScope([], loaded).tools, []);
});

Deno.test("§8.1 row 17: a profile without slash_commands gets no prompt-expansion commands", () => {
  assert.deepEqual(resolveSlashCommands(undefined, ["summarize", "reset"]), {
    commands: [],
    unknown: [],
  });
  assert.deepEqual(resolveSlashCommands([], ["summarize"]).commands, []);
});

Deno.test("§8.1 row 18: max_depth is an inherited budget that only shrinks down the session tree", () => {
  const kernelDefault = 10;
  let remaining = remainingDepth(undefined, 3, kernelDefault);
  const chain = [remaining];
  // Children whose profiles ask for more, less or nothing.
  for (const childMax of [5, undefined, 100, undefined]) {
    remaining = remainingDepth(remaining, childMax, kernelDefault);
    chain.push(remaining);
  }
  assert.deepEqual(chain, [3, 2, 1, 0, 0]);
  for (let i = 1; i < chain.length; i++) {
    assert.ok(chain[i]! <= Math.max(0, chain[i - 1]! - 1));
  }
  // A tighter profile ceiling applies too.
  assert.equal(remainingDepth(5, 1, kernelDefault), 1);
});

Deno.test("§8.1 row 20: implicit and explicit hook subscribers are ordered by textual position in agent.hcl", () => {
  const subscribers = [
    { who: 'hook "post-model-response" (explicit, veto)', position: 1200 },
    { who: 'provider "memory" (implicit)', position: 300 },
    { who: 'hook "post-model-response" (explicit, observe)', position: 150 },
    { who: 'provider "journal" (implicit)', position: 800 },
  ];
  assert.deepEqual(orderSubscribers(subscribers).map((s) => s.position), [
    150,
    300,
    800,
    1200,
  ]);
});

// --- §8.2 -------------------------------------------------------------------

Deno.test("§8.2 row 45: an empty policy match = {} is legal but produces a load-time warning", () => {
  const { rule, diagnostics } = normalizePolicy("all", {
    match: {},
    action: "ask",
  });
  assert.deepEqual(diagnostics, []);
  assert.ok(rule);
  const checks = checkPolicies([rule]);
  assert.equal(checks.length, 1);
  assert.equal(checks[0]?.severity, "warning");
  assert.equal(checks[0]?.code, "W_POLICY_EMPTY_MATCH");
});

Deno.test("§8.2 row 46: match.kind accepts only resource/data_source", () => {
  for (const kind of ["resource", "data_source"]) {
    assert.ok(normalizePolicy("k", { match: { kind }, action: "deny" }).rule);
  }
  for (const kind of ["interactive", "read", ""]) {
    const r = normalizePolicy("k", { match: { kind }, action: "deny" });
    assert.equal(r.rule, undefined, kind);
    assert.equal(r.diagnostics[0]?.code, "E_INVALID_VALUE");
  }
});

Deno.test("§8.2 row 47: with no matching rule, data_source/interactive are allowed and resource calls ask", () => {
  const rules: PolicyRule[] = [
    { name: "other", match: { provider: "elsewhere" }, action: "deny" },
  ];
  assert.equal(evaluatePolicy(rules, call("data_source")).action, "allow");
  assert.equal(evaluatePolicy(rules, call("interactive")).action, "allow");
  assert.equal(evaluatePolicy(rules, call("resource")).action, "ask");
  assert.equal(evaluatePolicy(rules, call("resource")).decidedBy, "");
});

Deno.test("§8.2 row 49: the evaluation result distinguishes a downgraded ask→deny from a plain deny", () => {
  const downgraded = evaluatePolicy(
    [{ name: "ask", match: { kind: "data_source" }, action: "ask" }],
    call("data_source"),
  );
  const plain = evaluatePolicy(
    [{ name: "deny", match: { kind: "data_source" }, action: "deny" }],
    call("data_source"),
  );
  assert.equal(downgraded.action, "deny");
  assert.equal(plain.action, "deny");
  assert.equal(downgraded.downgraded, true);
  assert.equal(plain.downgraded, false);
});

Deno.test('§8.2 row 50: a "<provider>.<tool>" naming a loaded provider that does not advertise the tool is a config-validation error', () => {
  const r = resolveToolScope(
    ["fs.read_fil"],
    new Map([["fs", ["read_file"]]]),
  );
  assert.equal(r.diagnostics.length, 1);
  assert.equal(r.diagnostics[0]?.severity, "error");
  assert.equal(r.diagnostics[0]?.code, "E_TOOL_UNKNOWN");
});

Deno.test("§8.2 row 51: a tool scope entry naming a provider not loaded this session is a silent no-op", () => {
  const r = resolveToolScope(
    ["web.fetch", "web.*", "fs.read_file"],
    new Map([["fs", ["read_file"]]]),
  );
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(r.tools, ["fs.read_file"]);
});

Deno.test('§8.2 row 52: a malformed scoping string ("fs", "fs.") is a config-validation error', () => {
  const r = resolveToolScope(
    ["fs", "fs.", ".read_file"],
    new Map([["fs", ["read_file"]]]),
  );
  assert.deepEqual(r.tools, []);
  assert.deepEqual(r.diagnostics.map((d) => [d.severity, d.code]), [
    ["error", "E_TOOL_SCOPE_MALFORMED"],
    ["error", "E_TOOL_SCOPE_MALFORMED"],
    ["error", "E_TOOL_SCOPE_MALFORMED"],
  ]);
});

Deno.test("§8.2 row 53: at remaining depth ≤ 0, all spawn-capable tools are removed from the session's registry", () => {
  const loaded = new Map([
    ["fs", ["read_file"]],
    ["subagents", ["spawn", "spawn_many"]],
  ]);
  const { tools } = resolveToolScope(["fs.*", "subagents.*"], loaded);
  const spawning = new Set(["subagents.spawn", "subagents.spawn_many"]);
  const remaining = remainingDepth(undefined, 0, 3); // max_depth = 0
  assert.deepEqual(toolsForDepth(tools, remaining, spawning), ["fs.read_file"]);
  assert.deepEqual(toolsForDepth(tools, 1, spawning), tools);
});

Deno.test("§8.2 row 54: a model reference not available this session is skipped, not an error; only an exhausted chain fails", () => {
  const available = new Map([["claude", [{
    id: "medium",
    contextWindow: 1,
    supportsToolUse: true,
    supportsVision: false,
  }]]]);
  const skipping = chooseModel(
    [
      { provider: "openai", id: "gpt" }, // provider not loaded
      { provider: "claude", id: "large" }, // model not offered
      { provider: "claude", id: "medium" },
    ],
    available,
  );
  assert.ok(skipping.ok);
  assert.equal(skipping.model.id, "medium");
  const exhausted = chooseModel(
    [{ provider: "openai", id: "gpt" }, { provider: "claude", id: "large" }],
    available,
  );
  assert.ok(!exhausted.ok);
  assert.equal(exhausted.diagnostic.code, "E_NO_ELIGIBLE_MODEL");
});
