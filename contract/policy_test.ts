import assert from "node:assert/strict";
import type { SourceRange } from "./diagnostic.ts";
import {
  evaluatePolicy,
  formatPolicyMatch,
  matchesCall,
  type PolicyCall,
  type PolicyDecision,
  type PolicyMatch,
  type PolicyRule,
  type RiskClass,
  type ToolKind,
} from "./policy.ts";
import { normalizePolicy } from "./policy_normalize.ts";
import { parseShellCommand } from "./shell_command.ts";
import {
  compareSpecificity,
  isNarrowerMatch,
  specificity,
} from "./policy_specificity.ts";
import {
  checkPolicies,
  detectConflicts,
  emptyMatchWarnings,
  shadowedDenyWarnings,
} from "./policy_checks.ts";
import {
  checkCommandPattern,
  isCommandPatternWithin,
  literalAffixes,
  matchesCommandPattern,
} from "./command_pattern.ts";

function at(line: number): SourceRange {
  return {
    file: "agent.hcl",
    start: { line, column: 1, byte: line * 100 },
    end: { line, column: 2, byte: line * 100 + 1 },
  };
}

function call(
  kind: ToolKind,
  provider: string,
  toolName: string,
  risk: RiskClass,
): PolicyCall {
  return { kind, provider, toolName, risk };
}

// config.md §6.6, the four rules of the worked example.
const WORKED_RULES: PolicyRule[] = [
  {
    name: "reads_ok",
    match: { kind: "data_source" },
    action: "allow",
    range: at(1),
  },
  {
    name: "fs_writes_need_approval",
    match: { provider: "fs", kind: "resource" },
    action: "ask",
    range: at(6),
  },
  {
    name: "never_delete",
    match: { toolName: "delete_tree" },
    action: "deny",
    range: at(11),
  },
  {
    name: "critical_blocked",
    match: { risk: "critical" },
    action: "deny",
    range: at(16),
  },
];

Deno.test("§6.6 worked example: the four rules load without errors or warnings", () => {
  assert.deepEqual(checkPolicies(WORKED_RULES), []);
});

Deno.test("§6.6 worked example: decisions per call", async (t) => {
  // [label, call, candidates, decision]
  const cases: [string, PolicyCall, string[], PolicyDecision][] = [
    [
      "data_source grep.search read_only -> reads_ok allows",
      call("data_source", "grep", "search", "read_only"),
      ["reads_ok"],
      { action: "allow", decidedBy: "reads_ok", downgraded: false },
    ],
    [
      "resource fs.write_file moderate -> fs_writes_need_approval asks",
      call("resource", "fs", "write_file", "moderate"),
      ["fs_writes_need_approval"],
      {
        action: "ask",
        decidedBy: "fs_writes_need_approval",
        downgraded: false,
      },
    ],
    [
      "resource fs.delete_tree critical -> never_delete (T,F,F,F) denies",
      call("resource", "fs", "delete_tree", "critical"),
      ["fs_writes_need_approval", "never_delete", "critical_blocked"],
      { action: "deny", decidedBy: "never_delete", downgraded: false },
    ],
    [
      "resource shell.exec critical -> critical_blocked denies",
      call("resource", "shell", "exec", "critical"),
      ["critical_blocked"],
      { action: "deny", decidedBy: "critical_blocked", downgraded: false },
    ],
    [
      "resource shell.exec high -> no candidate, ask by default",
      call("resource", "shell", "exec", "high"),
      [],
      { action: "ask", decidedBy: "", downgraded: false },
    ],
    [
      "interactive ui.ask_user read_only -> kind rules skip it, allow by default",
      call("interactive", "ui", "ask_user", "read_only"),
      [],
      { action: "allow", decidedBy: "", downgraded: false },
    ],
  ];
  for (const [label, c, candidates, decision] of cases) {
    await t.step(label, () => {
      assert.deepEqual(
        WORKED_RULES.filter((r) => matchesCall(r.match, c)).map((r) => r.name),
        candidates,
      );
      assert.deepEqual(evaluatePolicy(WORKED_RULES, c), decision);
    });
  }
});

Deno.test("§6.6 load-time verdicts", async (t) => {
  // [label, first match, second match, conflict?]
  const cases: [string, PolicyMatch, PolicyMatch, boolean][] = [
    [
      "{ provider = fs, kind = resource } vs { provider = web, kind = resource }: OK (shared field differs)",
      { provider: "fs", kind: "resource" },
      { provider: "web", kind: "resource" },
      false,
    ],
    [
      "{ tool_name = a } vs { tool_name = a }: conflict",
      { toolName: "a" },
      { toolName: "a" },
      true,
    ],
    [
      "{ risk = high } (deny) vs { risk = high } (deny): conflict, actions ignored",
      { risk: "high" },
      { risk: "high" },
      true,
    ],
    [
      "{ risk = high } vs { risk = high, kind = resource }: OK (different tuples)",
      { risk: "high" },
      { risk: "high", kind: "resource" },
      false,
    ],
  ];
  for (const [label, a, b, conflict] of cases) {
    await t.step(label, () => {
      const rules: PolicyRule[] = [
        { name: "first", match: a, action: "deny", range: at(1) },
        { name: "second", match: b, action: "deny", range: at(5) },
      ];
      const diagnostics = detectConflicts(rules);
      assert.equal(diagnostics.length, conflict ? 1 : 0);
      if (conflict) {
        assert.equal(diagnostics[0]?.code, "E_POLICY_CONFLICT");
        assert.equal(diagnostics[0]?.severity, "error");
      }
    });
  }
  await t.step("{} alone: OK + warning", () => {
    const rules: PolicyRule[] = [
      { name: "everything", match: {}, action: "ask", range: at(1) },
    ];
    assert.deepEqual(detectConflicts(rules), []);
    const all = checkPolicies(rules);
    assert.equal(all.length, 1);
    assert.equal(all[0]?.severity, "warning");
    assert.equal(all[0]?.code, "W_POLICY_EMPTY_MATCH");
    assert.deepEqual(all[0]?.range, at(1));
  });
});

Deno.test("§6.6 a { kind = data_source } rule that asks is legal and downgraded every time it wins", () => {
  const rules: PolicyRule[] = [
    { name: "ask_reads", match: { kind: "data_source" }, action: "ask" },
  ];
  assert.deepEqual(checkPolicies(rules), []);
  for (const tool of ["search", "read_file"]) {
    assert.deepEqual(
      evaluatePolicy(rules, call("data_source", "fs", tool, "read_only")),
      { action: "deny", decidedBy: "ask_reads", downgraded: true },
    );
  }
});

Deno.test("§6.5 detectConflicts() ignores the actions", () => {
  for (
    const [a, b] of [["allow", "allow"], ["allow", "deny"], ["ask", "ask"]]
  ) {
    const d = detectConflicts([
      { name: "x", match: { toolName: "t" }, action: a as "allow" },
      { name: "y", match: { toolName: "t" }, action: b as "allow" },
    ]);
    assert.equal(d.length, 1, `${a} vs ${b}`);
  }
});

Deno.test("§6.5 detectConflicts(): same tuple, different values do not conflict", () => {
  assert.deepEqual(
    detectConflicts([
      { name: "r", match: { toolName: "read_file" }, action: "allow" },
      { name: "w", match: { toolName: "write_file" }, action: "deny" },
    ]),
    [],
  );
});

Deno.test("§6.5 detectConflicts(): different tuples never conflict even when both match a call", () => {
  const rules: PolicyRule[] = [
    { name: "fs", match: { provider: "fs" }, action: "allow" },
    { name: "write", match: { toolName: "write_file" }, action: "deny" },
  ];
  assert.deepEqual(detectConflicts(rules), []);
  assert.equal(
    evaluatePolicy(rules, call("resource", "fs", "write_file", "low"))
      .decidedBy,
    "write",
  );
});

Deno.test("§6.5 detectConflicts(): two empty matches conflict", () => {
  const d = detectConflicts([
    { name: "e1", match: {}, action: "allow" },
    { name: "e2", match: {}, action: "allow" },
  ]);
  assert.equal(d.length, 1);
  assert.equal(d[0]?.summary, 'Conflicting policies "e1" and "e2"');
});

Deno.test("§6.5 detectConflicts() names both rules and points at the second", () => {
  const [d, ...rest] = detectConflicts([
    { name: "a", match: { toolName: "a" }, action: "allow", range: at(3) },
    { name: "b", match: { toolName: "a" }, action: "deny", range: at(8) },
  ]);
  assert.equal(rest.length, 0);
  assert.ok(d);
  assert.equal(d.summary, 'Conflicting policies "a" and "b"');
  assert.deepEqual(d.range, at(8));
  assert.match(d.detail!, /policy "a" \(agent\.hcl:3:1\)/);
  assert.match(d.detail!, /\{ tool_name = "a" \}/);
  assert.match(d.detail!, /"allow" and "deny"/);
});

Deno.test("detectConflicts() reports each repeat once, against the first rule", () => {
  const rules: PolicyRule[] = ["r1", "r2", "r3"].map((name, i) => ({
    name,
    match: { provider: "fs", kind: "resource" },
    action: "ask",
    range: at(i + 1),
  }));
  const d = detectConflicts(rules);
  assert.deepEqual(d.map((x) => x.summary), [
    'Conflicting policies "r1" and "r2"',
    'Conflicting policies "r1" and "r3"',
  ]);
});

Deno.test("detectConflicts(): an empty string is a value, not an absent field", () => {
  assert.deepEqual(
    detectConflicts([
      { name: "a", match: { toolName: "" }, action: "allow" },
      { name: "b", match: {}, action: "allow" },
    ]),
    [],
  );
});

Deno.test("detectConflicts(): field order and object identity do not matter", () => {
  const d = detectConflicts([
    { name: "a", match: { kind: "resource", provider: "fs" }, action: "allow" },
    { name: "b", match: { provider: "fs", kind: "resource" }, action: "allow" },
  ]);
  assert.equal(d.length, 1);
});

Deno.test("§6.3 specificity(): the tuple examples", async (t) => {
  const cases: [PolicyMatch, [boolean, boolean, boolean, boolean]][] = [
    [{ toolName: "write_file" }, [true, false, false, false]],
    [{ provider: "fs", kind: "resource" }, [false, true, false, true]],
    [{ provider: "fs" }, [false, true, false, false]],
    [{ risk: "critical", kind: "resource" }, [false, false, true, true]],
    [{ kind: "data_source" }, [false, false, false, true]],
    [{}, [false, false, false, false]],
    [
      { toolName: "x", provider: "p", risk: "low", kind: "resource" },
      [true, true, true, true],
    ],
  ];
  for (const [match, tuple] of cases) {
    await t.step(formatPolicyMatch(match), () => {
      assert.deepEqual(specificity(match), tuple);
    });
  }
});

Deno.test("§6.3 compareSpecificity(): the ranking examples", async (t) => {
  // [more specific, less specific]
  const cases: [PolicyMatch, PolicyMatch][] = [
    [{ toolName: "write_file" }, { provider: "fs", kind: "resource" }],
    [{ toolName: "write_file" }, {
      provider: "fs",
      risk: "high",
      kind: "resource",
    }],
    [{ provider: "fs", kind: "resource" }, { provider: "fs" }],
    [{ provider: "fs" }, { risk: "critical", kind: "resource" }],
    [{ kind: "data_source" }, {}],
    [{ risk: "low" }, { kind: "resource" }],
    [{ toolName: "a", kind: "resource" }, { toolName: "a" }],
  ];
  for (const [a, b] of cases) {
    await t.step(`${formatPolicyMatch(a)} > ${formatPolicyMatch(b)}`, () => {
      assert.ok(compareSpecificity(a, b) > 0);
      assert.ok(compareSpecificity(b, a) < 0);
    });
  }
  await t.step("equal tuples compare equal", () => {
    assert.equal(compareSpecificity({ risk: "low" }, { risk: "high" }), 0);
  });
});

Deno.test("evaluatePolicy(): a tool_name rule outranks a provider + risk + kind rule", () => {
  const rules: PolicyRule[] = [
    {
      name: "broad",
      match: { provider: "fs", risk: "high", kind: "resource" },
      action: "ask",
    },
    { name: "exact", match: { toolName: "write_file" }, action: "allow" },
  ];
  assert.deepEqual(
    evaluatePolicy(rules, call("resource", "fs", "write_file", "high")),
    { action: "allow", decidedBy: "exact", downgraded: false },
  );
  // ... but it does not set a deny on other keys aside (§6.4)
  const denied: PolicyRule[] = [{ ...rules[0]!, action: "deny" }, rules[1]!];
  assert.deepEqual(
    evaluatePolicy(denied, call("resource", "fs", "write_file", "high")),
    { action: "deny", decidedBy: "broad", downgraded: false },
  );
});

Deno.test("evaluatePolicy(): defaults when no rule matches", async (t) => {
  const cases: [ToolKind, PolicyDecision["action"]][] = [
    ["data_source", "allow"],
    ["interactive", "allow"],
    ["resource", "ask"],
  ];
  for (const [kind, action] of cases) {
    await t.step(`${kind} -> ${action}`, () => {
      assert.deepEqual(
        evaluatePolicy(WORKED_RULES.slice(2), call(kind, "x", "y", "low")),
        { action, decidedBy: "", downgraded: false },
      );
    });
  }
});

Deno.test("evaluatePolicy(): interactive calls never match a rule that specifies kind", async (t) => {
  for (const kind of ["resource", "data_source"] as const) {
    await t.step(kind, () => {
      const rules: PolicyRule[] = [
        { name: "k", match: { kind, provider: "ui" }, action: "deny" },
      ];
      assert.equal(
        evaluatePolicy(
          rules,
          call("interactive", "ui", "ask_user", "read_only"),
        )
          .action,
        "allow",
      );
    });
  }
  await t.step("but tool_name, provider and risk reach them", () => {
    for (
      const match of [
        { toolName: "ask_user" },
        { provider: "ui" },
        { risk: "read_only" },
      ] as PolicyMatch[]
    ) {
      assert.deepEqual(
        evaluatePolicy(
          [{ name: "r", match, action: "deny" }],
          call("interactive", "ui", "ask_user", "read_only"),
        ),
        { action: "deny", decidedBy: "r", downgraded: false },
      );
    }
  });
});

Deno.test("evaluatePolicy(): ask on data_source and interactive becomes a flagged deny", async (t) => {
  const rules: PolicyRule[] = [
    { name: "ask_ui", match: { provider: "ui" }, action: "ask" },
  ];
  const cases: [ToolKind, PolicyDecision][] = [
    ["data_source", { action: "deny", decidedBy: "ask_ui", downgraded: true }],
    ["interactive", { action: "deny", decidedBy: "ask_ui", downgraded: true }],
    ["resource", { action: "ask", decidedBy: "ask_ui", downgraded: false }],
  ];
  for (const [kind, decision] of cases) {
    await t.step(kind, () => {
      assert.deepEqual(
        evaluatePolicy(rules, call(kind, "ui", "t", "low")),
        decision,
      );
    });
  }
});

Deno.test("evaluatePolicy(): a plain deny is not flagged as downgraded", () => {
  const rules: PolicyRule[] = [
    { name: "no", match: { provider: "ui" }, action: "deny" },
  ];
  for (const kind of ["data_source", "interactive", "resource"] as const) {
    assert.deepEqual(evaluatePolicy(rules, call(kind, "ui", "t", "low")), {
      action: "deny",
      decidedBy: "no",
      downgraded: false,
    });
  }
});

Deno.test("evaluatePolicy(): resource calls pass allow, ask and deny through", () => {
  for (const action of ["allow", "ask", "deny"] as const) {
    assert.deepEqual(
      evaluatePolicy(
        [{ name: "r", match: { kind: "resource" }, action }],
        call("resource", "fs", "write_file", "low"),
      ),
      { action, decidedBy: "r", downgraded: false },
    );
  }
});

Deno.test("evaluatePolicy(): on a tie the first declared rule wins", () => {
  // Load validation rules ties out; evaluation stays deterministic anyway.
  const rules: PolicyRule[] = [
    { name: "first", match: { risk: "low" }, action: "allow" },
    { name: "second", match: { risk: "low" }, action: "ask" },
  ];
  assert.equal(
    evaluatePolicy(rules, call("resource", "fs", "t", "low")).decidedBy,
    "first",
  );
  // Reversing the declaration order reverses the winner.
  assert.equal(
    evaluatePolicy([...rules].reverse(), call("resource", "fs", "t", "low"))
      .decidedBy,
    "second",
  );
  // A deny in a tie is not narrowed by its twin, so it wins in any order.
  const deny: PolicyRule = { ...rules[1]!, action: "deny" };
  for (const order of [[rules[0]!, deny], [deny, rules[0]!]]) {
    assert.equal(
      evaluatePolicy(order, call("resource", "fs", "t", "low")).action,
      "deny",
    );
  }
});

Deno.test("evaluatePolicy(): every specified field must match (AND)", () => {
  const rules: PolicyRule[] = [
    {
      name: "fs_high",
      match: { provider: "fs", risk: "high" },
      action: "deny",
    },
  ];
  assert.equal(
    evaluatePolicy(rules, call("resource", "fs", "t", "low")).decidedBy,
    "",
  );
  assert.equal(
    evaluatePolicy(rules, call("resource", "web", "t", "high")).decidedBy,
    "",
  );
  assert.equal(
    evaluatePolicy(rules, call("resource", "fs", "t", "high")).decidedBy,
    "fs_high",
  );
});

Deno.test("evaluatePolicy(): an empty match applies to every call", () => {
  const rules: PolicyRule[] = [
    { name: "all", match: {}, action: "deny" },
  ];
  for (const kind of ["data_source", "interactive", "resource"] as const) {
    assert.equal(
      evaluatePolicy(rules, call(kind, "p", "t", "low")).action,
      "deny",
    );
  }
});

Deno.test("emptyMatchWarnings() warns once per empty match and names the rule", () => {
  const w = emptyMatchWarnings([
    { name: "a", match: {}, action: "allow", range: at(2) },
    { name: "b", match: { toolName: "" }, action: "allow" },
    { name: "c", match: {}, action: "deny" },
  ]);
  assert.deepEqual(w.map((d) => d.summary), [
    'Policy "a" matches every call',
    'Policy "c" matches every call',
  ]);
  assert.deepEqual(w[0]?.range, at(2));
  assert.ok(w.every((d) => d.severity === "warning"));
});

Deno.test("checkPolicies() reports duplicate names, conflicts and empty matches", () => {
  const d = checkPolicies([
    { name: "a", match: { toolName: "x" }, action: "allow", range: at(1) },
    { name: "a", match: { toolName: "y" }, action: "allow", range: at(5) },
    { name: "b", match: { toolName: "x" }, action: "deny", range: at(9) },
    { name: "c", match: {}, action: "ask", range: at(13) },
  ]);
  assert.deepEqual(d.map((x) => [x.code, x.range?.start.line]), [
    ["E_DUPLICATE_BLOCK", 5],
    ["E_POLICY_CONFLICT", 9],
    ["W_POLICY_EMPTY_MATCH", 13],
  ]);
  assert.match(d[0]!.detail!, /already declared at agent\.hcl:1:1/);
});

Deno.test("normalizePolicy() builds rules from decoded values", async (t) => {
  const cases: [string, Record<string, unknown>, PolicyMatch][] = [
    ["empty", {}, {}],
    ["tool_name", { tool_name: "write_file" }, { toolName: "write_file" }],
    ["provider", { provider: "fs" }, { provider: "fs" }],
    ["risk", { risk: "critical" }, { risk: "critical" }],
    ["kind resource", { kind: "resource" }, { kind: "resource" }],
    ["kind data_source", { kind: "data_source" }, { kind: "data_source" }],
    ["all four", {
      tool_name: "x",
      provider: "p",
      risk: "read_only",
      kind: "data_source",
    }, {
      toolName: "x",
      provider: "p",
      risk: "read_only",
      kind: "data_source",
    }],
    ["an empty string is kept", { tool_name: "" }, { toolName: "" }],
  ];
  for (const [label, match, want] of cases) {
    await t.step(label, () => {
      const r = normalizePolicy("p", { match, action: "allow" });
      assert.deepEqual(r, {
        rule: { name: "p", match: want, action: "allow" },
        diagnostics: [],
      });
    });
  }
  await t.step("the block range becomes the rule's range", () => {
    const r = normalizePolicy("p", { match: {}, action: "deny" }, {
      block: at(4),
    });
    assert.deepEqual(r.rule?.range, at(4));
  });
  await t.step("every action", () => {
    for (const action of ["allow", "ask", "deny"]) {
      assert.equal(
        normalizePolicy("p", { match: {}, action }).rule?.action,
        action,
      );
    }
  });
});

Deno.test("normalizePolicy() rejects bad input with positioned diagnostics", async (t) => {
  const ranges = {
    block: at(1),
    match: at(2),
    action: at(3),
    matchKeys: { tool: at(10), risk: at(11), kind: at(12), tool_name: at(13) },
  };
  // [label, match, action, [code, summary, detail fragment, line]...]
  const cases: [
    string,
    unknown,
    unknown,
    [string, string, string, number][],
  ][] = [
    ["unknown match key with a suggestion", { tool: "x" }, "deny", [[
      "E_UNKNOWN_ATTR",
      'Unknown key "tool" in policy "p" match',
      "widen the rule to every call",
      10,
    ]]],
    ["misspelled key", { tool_nam: "x" }, "deny", [[
      "E_UNKNOWN_ATTR",
      'Unknown key "tool_nam" in policy "p" match',
      'Did you mean "tool_name"?',
      2,
    ]]],
    ["kind interactive", { kind: "interactive" }, "deny", [[
      "E_INVALID_VALUE",
      'Invalid kind in policy "p" match',
      'cannot name kind "interactive"',
      12,
    ]]],
    ["kind typo", { kind: "resorce" }, "deny", [[
      "E_INVALID_VALUE",
      'Invalid kind in policy "p" match',
      'Did you mean "resource"?',
      12,
    ]]],
    ["risk out of domain", { risk: "severe" }, "deny", [[
      "E_INVALID_VALUE",
      'Invalid risk in policy "p" match',
      '"severe" is not one of "read_only", "low", "moderate", "high", "critical"',
      11,
    ]]],
    ["non-string value", { tool_name: 3 }, "deny", [[
      "E_INVALID_VALUE",
      'Invalid tool_name in policy "p" match',
      "Expected a string, got a number",
      13,
    ]]],
    ["match is a list", ["x"], "deny", [[
      "E_INVALID_VALUE",
      'Invalid match in policy "p"',
      "got a list",
      2,
    ]]],
    ["match is null", null, "deny", [[
      "E_INVALID_VALUE",
      'Invalid match in policy "p"',
      "got null",
      2,
    ]]],
    ["action out of domain", {}, "block", [[
      "E_INVALID_VALUE",
      'Invalid action in policy "p"',
      '"block" is not one of "allow", "ask", "deny"',
      3,
    ]]],
    ["action typo", {}, "alow", [[
      "E_INVALID_VALUE",
      'Invalid action in policy "p"',
      'Did you mean "allow"?',
      3,
    ]]],
    ["action not a string", {}, true, [[
      "E_INVALID_VALUE",
      'Invalid action in policy "p"',
      "Expected a string, got a bool",
      3,
    ]]],
    ["every problem at once", { tool: "x", risk: "severe" }, "maybe", [
      ["E_UNKNOWN_ATTR", 'Unknown key "tool" in policy "p" match', "", 10],
      ["E_INVALID_VALUE", 'Invalid risk in policy "p" match', "", 11],
      ["E_INVALID_VALUE", 'Invalid action in policy "p"', "", 3],
    ]],
  ];
  for (const [label, match, action, want] of cases) {
    await t.step(label, () => {
      const r = normalizePolicy("p", { match, action }, ranges);
      assert.equal(r.rule, undefined);
      assert.deepEqual(
        r.diagnostics.map((d) => [d.code, d.summary, d.range?.start.line]),
        want.map(([code, summary, , line]) => [code, summary, line]),
      );
      for (const [i, [, , fragment]] of want.entries()) {
        assert.ok(
          r.diagnostics[i]!.detail!.includes(fragment),
          `${r.diagnostics[i]!.detail} should contain ${fragment}`,
        );
        assert.equal(r.diagnostics[i]!.severity, "error");
      }
    });
  }
  await t.step("without ranges the diagnostics have none", () => {
    const r = normalizePolicy("p", { match: { tool: 1 }, action: "x" });
    assert.ok(r.diagnostics.every((d) => !("range" in d)));
  });
});

Deno.test("formatPolicyMatch() writes HCL in specificity order", () => {
  assert.equal(
    formatPolicyMatch({
      kind: "resource",
      risk: "high",
      provider: "fs",
      toolName: "w",
    }),
    '{ tool_name = "w", provider = "fs", risk = "high", kind = "resource" }',
  );
  assert.equal(
    formatPolicyMatch({ toolName: 'a"b' }),
    '{ tool_name = "a\\"b" }',
  );
});

// --- the `command` key: per-segment policy for calls with a command line ---

const EXEC_RULES: PolicyRule[] = [
  {
    name: "git_status_ok",
    match: { provider: "sh", toolName: "bash", command: "git status*" },
    action: "allow",
  },
  { name: "ls_ok", match: { command: "ls*" }, action: "allow" },
  { name: "no_rm", match: { command: "rm *" }, action: "deny" },
  { name: "sh_asks", match: { provider: "sh" }, action: "ask" },
];

function bash(command: unknown): PolicyCall {
  return {
    kind: "resource",
    provider: "sh",
    toolName: "bash",
    risk: "high",
    ...(typeof command === "string" ? { command } : {}),
  };
}

Deno.test("command rules: a single allowed segment is allowed by its rule", () => {
  assert.deepEqual(evaluatePolicy(EXEC_RULES, bash("git status --short")), {
    action: "allow",
    decidedBy: 'git_status_ok (segment "git status --short")',
    downgraded: false,
    segment: "git status --short",
  });
});

Deno.test("command rules: the call gets its worst segment, named with its rule", async (t) => {
  const cases: [string, PolicyDecision["action"], string, string][] = [
    ["git status && rm -rf x", "deny", "no_rm", "rm -rf x"],
    ["echo ok; rm -rf /", "deny", "no_rm", "rm -rf /"],
    ["echo ok; cat x", "ask", "sh_asks", "echo ok"],
    ["ls $(rm -rf x)", "deny", "no_rm", "rm -rf x"],
    ['sh -c "rm -rf x"', "deny", "no_rm", "rm -rf x"],
    ["env FOO=1 rm -rf x", "deny", "no_rm", "rm -rf x"],
    ["ls | xargs rm", "ask", "sh_asks", "xargs rm"],
    ["true || rm -rf x", "deny", "no_rm", "rm -rf x"],
    ["git status | ls -la", "allow", "git_status_ok", "git status"],
    ["sudo git status", "ask", "sh_asks", "sudo git status"],
    ["FOO=1 git status", "ask", "sh_asks", "FOO=1 git status"],
    ["ls -la > listing.txt", "ask", "sh_asks", "> listing.txt"],
    ["/bin/rm -rf x", "deny", "no_rm", "rm -rf x"],
    ["/usr/bin/git status", "ask", "sh_asks", "/usr/bin/git status"],
    ["ls -la 2>&1 | ls", "allow", "ls_ok", "ls -la 2>&1"],
  ];
  for (const [command, action, rule, segment] of cases) {
    await t.step(command, () => {
      const d = evaluatePolicy(EXEC_RULES, bash(command));
      assert.equal(d.action, action);
      assert.equal(d.segment, segment);
      assert.equal(d.decidedBy, `${rule} (segment ${JSON.stringify(segment)})`);
    });
  }
});

Deno.test("command rules: an unparseable command is never allowed by a command rule", async (t) => {
  const everything: PolicyRule[] = [
    { name: "all_commands", match: { command: "*" }, action: "allow" },
    { name: "sh_ok", match: { provider: "sh" }, action: "allow" },
  ];
  for (
    const command of [
      "eval 'rm -rf x'",
      "$CMD x",
      "echo 'open",
      "cat <<E\nx",
    ]
  ) {
    await t.step(command, () => {
      const d = evaluatePolicy(everything, bash(command));
      assert.equal(d.action, "ask");
      assert.match(d.decidedBy, /^unparseable command \(.+\)$/);
      assert.ok(d.unparseable);
      // headless (a data-source precheck cannot ask): deny
      const read = evaluatePolicy(everything, {
        ...bash(command),
        kind: "data_source",
      });
      assert.equal(read.action, "deny");
    });
  }
  await t.step("a deny from the other rules stays a deny", () => {
    const d = evaluatePolicy(
      [{ name: "no_sh", match: { provider: "sh" }, action: "deny" }],
      bash("eval x"),
    );
    assert.equal(d.action, "deny");
    assert.equal(d.decidedBy, "no_sh");
    assert.ok(d.unparseable);
  });
});

Deno.test("command rules: calls without a command keep the ordinary algorithm", () => {
  // command rules never match, whatever their pattern
  const rules: PolicyRule[] = [
    { name: "all_commands", match: { command: "*" }, action: "deny" },
    { name: "sh_ok", match: { provider: "sh" }, action: "allow" },
  ];
  assert.deepEqual(evaluatePolicy(rules, bash(undefined)), {
    action: "allow",
    decidedBy: "sh_ok",
    downgraded: false,
  });
  assert.deepEqual(evaluatePolicy(rules, bash(42)), {
    action: "allow",
    decidedBy: "sh_ok",
    downgraded: false,
  });
  // an empty command line: judged without command rules
  assert.deepEqual(evaluatePolicy(rules, bash("  ")), {
    action: "allow",
    decidedBy: "sh_ok",
    downgraded: false,
  });
  assert.equal(matchesCall({ command: "*" }, bash("ls")), false);
  assert.equal(matchesCall({ command: "*" }, bash("ls"), "ls"), true);
});

Deno.test("command rules: a command outranks every other field, a longer pattern a shorter one; equal ranks take the stricter action", () => {
  assert.ok(
    compareSpecificity(
      { command: "ls*" },
      { toolName: "bash", provider: "sh", risk: "high", kind: "resource" },
    ) > 0,
  );
  assert.ok(
    compareSpecificity({ command: "ls*", provider: "sh" }, { command: "ls*" }) >
      0,
  );
  // the longer literal pattern outranks the other fields
  assert.ok(
    compareSpecificity({ command: "rm *" }, { command: "*", provider: "sh" }) >
      0,
  );
  assert.ok(
    compareSpecificity({ command: "l?" }, { command: "ls" }) < 0,
  );
  assert.equal(
    compareSpecificity({ command: "a\\*" }, { command: "ab" }),
    0,
  );
  const everything: PolicyRule[] = [
    { name: "ask_all", match: { provider: "sh", command: "*" }, action: "ask" },
    { name: "echo_ok", match: { command: "echo *" }, action: "allow" },
    { name: "no_rm", match: { command: "rm *" }, action: "deny" },
  ];
  assert.equal(evaluatePolicy(everything, bash("echo hi")).action, "allow");
  assert.equal(evaluatePolicy(everything, bash("rm -rf x")).action, "deny");
  assert.equal(evaluatePolicy(everything, bash("touch x")).action, "ask");
  // equal rank: the stricter action, whatever the order
  const tie: PolicyRule[] = [
    { name: "ls_ok", match: { command: "ls *" }, action: "allow" },
    { name: "no_xx", match: { command: "* -R" }, action: "deny" },
  ];
  assert.equal(evaluatePolicy(tie, bash("ls -R")).action, "deny");
  assert.equal(
    evaluatePolicy([...tie].reverse(), bash("ls -R")).action,
    "deny",
  );
  const rules: PolicyRule[] = [
    { name: "git_ok", match: { command: "git *" }, action: "allow" },
    { name: "no_push", match: { command: "git push*" }, action: "deny" },
    { name: "bash_ok", match: { toolName: "bash" }, action: "allow" },
  ];
  const d = evaluatePolicy(rules, bash("git push origin main"));
  assert.equal(d.action, "deny");
  assert.match(d.decidedBy, /^no_push /);
  // declaration order does not matter
  assert.equal(
    evaluatePolicy([...rules].reverse(), bash("git push origin main")).action,
    "deny",
  );
  // data-source calls: a winning command ask is downgraded like any other
  const asks: PolicyRule[] = [{
    name: "a",
    match: { command: "ls*" },
    action: "ask",
  }];
  assert.deepEqual(
    evaluatePolicy(asks, { ...bash("ls"), kind: "data_source" }),
    {
      action: "deny",
      decidedBy: 'a (segment "ls")',
      downgraded: true,
      segment: "ls",
    },
  );
});

Deno.test("command rules: globs match the whole normalized segment", () => {
  const cases: [string, string, boolean][] = [
    ["git status", "git status", true],
    ["git status", "git status --short", false],
    ["git status*", "git status --short", true],
    ["git status*", "git statusx", true],
    ["git status *", "git status", false],
    ["ls ?", "ls a", true],
    ["ls ?", "ls ab", false],
    ["git commit -m *", "git commit -m 'fix bug'", true],
    ["echo \\*", "echo *", true],
    ["echo \\*", "echo x", false],
    ["a.b", "aXb", false],
    ["*", "anything at all", true],
  ];
  for (const [pattern, text, want] of cases) {
    assert.equal(
      matchesCommandPattern(pattern, text),
      want,
      `${pattern} ~ ${text}`,
    );
  }
});

Deno.test("command rules: conflicts compare the pattern; a command-only match is not empty", () => {
  const rules: PolicyRule[] = [
    { name: "a", match: { command: "ls*" }, action: "allow" },
    { name: "b", match: { command: "ls*" }, action: "deny" },
    { name: "c", match: { command: "ls *" }, action: "deny" },
    { name: "d", match: { command: "ls*", provider: "sh" }, action: "deny" },
  ];
  const ds = checkPolicies(rules);
  assert.deepEqual(ds.map((d) => [d.code, d.summary]), [[
    "E_POLICY_CONFLICT",
    'Conflicting policies "a" and "b"',
  ]]);
  assert.match(ds[0]!.detail!, /command = "ls\*"/);
  assert.deepEqual(emptyMatchWarnings([rules[0]!]), []);
  assert.equal(
    formatPolicyMatch({ provider: "sh", command: "git *" }),
    '{ command = "git *", provider = "sh" }',
  );
});

Deno.test("command rules: normalizePolicy() checks the pattern with a positioned diagnostic", async (t) => {
  const ranges = { block: at(1), match: at(2), matchKeys: { command: at(7) } };
  const bad: [unknown, RegExp][] = [
    ["", /empty/],
    ["  ls", /starts or ends with a blank/],
    ["ls\nrm", /line break/],
    ["git status && rm *", /spans 2 commands/],
    ["ls; *", /spans 2 commands/],
    ["echo 'open*", /does not read as a command: unterminated single quote/],
    ["eval *", /eval/],
    ["ls \\", /lone backslash/],
    [3, /Expected a string/],
  ];
  for (const [pattern, detail] of bad) {
    await t.step(String(pattern), () => {
      const r = normalizePolicy("p", {
        match: { command: pattern },
        action: "allow",
      }, ranges);
      assert.equal(r.rule, undefined);
      assert.equal(r.diagnostics.length, 1);
      const d = r.diagnostics[0]!;
      assert.equal(d.severity, "error");
      assert.equal(d.range?.start.line, 7);
      assert.match(d.detail!, detail);
    });
  }
  await t.step("a valid pattern builds a rule", () => {
    const r = normalizePolicy("p", {
      match: { command: "git status*", provider: "sh" },
      action: "allow",
    }, ranges);
    assert.deepEqual(r.rule?.match, { command: "git status*", provider: "sh" });
    assert.deepEqual(r.diagnostics, []);
  });
  await t.step(
    "a pattern not in normalized form is kept with a warning",
    () => {
      const r = normalizePolicy("p", {
        match: { command: 'git  commit -m "wip*"' },
        action: "allow",
      }, ranges);
      assert.equal(r.rule?.match.command, 'git  commit -m "wip*"');
      assert.deepEqual(r.diagnostics.map((d) => [d.code, d.severity]), [[
        "W_POLICY_COMMAND_FORM",
        "warning",
      ]]);
      assert.match(r.diagnostics[0]!.detail!, /write "git commit -m 'wip\*'"/);
    },
  );
  await t.step("checkCommandPattern() returns the normalized form", () => {
    assert.deepEqual(checkCommandPattern("sudo *"), { normalized: "sudo *" });
    assert.deepEqual(checkCommandPattern("ls  -la *"), {
      normalized: "ls -la *",
    });
  });
});

Deno.test("command rules: glob matching is linear, even with many stars on a long text", () => {
  const text = "a".repeat(200_000);
  // a backtracking regular expression would take O(n^5) here
  assert.equal(matchesCommandPattern("*a*a*a*a*b", text), false);
  assert.equal(matchesCommandPattern("*a*a*a*a*", text), true);
  assert.equal(matchesCommandPattern("a?*", "aé"), true);
  assert.equal(matchesCommandPattern("??", "é😀"), true);
});

// --- issue 21, defect 3: an allow rule bypassed a deny in the exec example ---

Deno.test("defect 3 (exec example bypass): `*> /dev/null` no longer covers the command before it", () => {
  // The shipped example's rules as they were: the allow rule had more
  // literal characters than `rm *`, so it won the segment
  // `rm -rf victim > /dev/null`.
  const old: PolicyRule[] = [
    {
      name: "discard_output",
      match: { provider: "sh", command: "*> /dev/null" },
      action: "allow",
    },
    { name: "no_rm", match: { command: "rm *" }, action: "deny" },
  ];
  const d = evaluatePolicy(old, bash("rm -rf victim > /dev/null"));
  assert.equal(d.action, "deny");
  assert.equal(d.decidedBy, 'no_rm (segment "rm -rf victim")');
  // the redirection is a segment of its own, never part of the command's
  const parsed = parseShellCommand("rm -rf victim > /dev/null");
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.segments.map((s) => s.text), [
    "rm -rf victim",
    "> /dev/null",
  ]);
  // and a pattern joining a command and such a redirection is refused
  const check = checkCommandPattern("*> /dev/null");
  assert.ok("error" in check);
  assert.match(
    check.error,
    /never match; write one rule for the command and one for the redirection \(e\.g\. "> \/dev\/null"\)/,
  );
  // the fixed example's rules: the redirection alone is allowed
  const fixed: PolicyRule[] = [
    {
      name: "discard_output",
      match: { provider: "sh", command: "> /dev/null" },
      action: "allow",
    },
    { name: "ls", match: { provider: "sh", command: "ls *" }, action: "allow" },
    { name: "no_rm", match: { command: "rm *" }, action: "deny" },
  ];
  assert.equal(
    evaluatePolicy(fixed, bash("rm -rf victim > /dev/null")).action,
    "deny",
  );
  assert.equal(
    evaluatePolicy(fixed, bash("ls -la > /dev/null")).action,
    "allow",
  );
  assert.equal(evaluatePolicy(fixed, bash("ls -la > out.txt")).action, "ask");
});

Deno.test("defect 3: redirection patterns are checked as one redirection", async (t) => {
  const good: [string, string][] = [
    ["> /dev/null", "> /dev/null"],
    ["2> /dev/null", "2> /dev/null"],
    ["&> /dev/null", "&> /dev/null"],
    [">> /tmp/*", ">> /tmp/*"],
    ["2>/dev/null", "2> /dev/null"],
  ];
  for (const [pattern, normalized] of good) {
    await t.step(pattern, () => {
      assert.deepEqual(checkCommandPattern(pattern), { normalized });
    });
  }
  const bad: [string, RegExp][] = [
    ["*> /dev/null", /joins a command \("\*"\)/],
    ["?> /dev/null", /joins a command/],
    ["rm * > /dev/null", /joins a command \("rm \*"\)/],
    ["FOO=1 > out", /joins a command/],
    ["> a > b", /spans 2 redirections/],
  ];
  for (const [pattern, error] of bad) {
    await t.step(pattern, () => {
      const check = checkCommandPattern(pattern);
      assert.ok("error" in check, pattern);
      assert.match(check.error, error);
    });
  }
});

Deno.test("defect 3: isCommandPatternWithin() proves one glob narrower than another, conservatively", () => {
  const cases: [string, string, boolean][] = [
    ["rm -i *", "rm *", true],
    ["rm *", "rm *", true],
    ["rm *", "rm -i *", false],
    ["*> /dev/null", "rm *", false],
    ["git push", "git push*", true],
    ["git push*", "git *", true],
    ["git *", "git push*", false],
    ["ls ?", "ls *", true],
    ["ls *", "ls ?", false],
    ["ls a", "ls ?", true],
    ["echo \\*", "echo *", true],
    ["echo *", "echo \\*", false],
    ["anything", "*", true],
    ["*", "*x*", false],
  ];
  for (const [inner, outer, want] of cases) {
    assert.equal(
      isCommandPatternWithin(inner, outer),
      want,
      `${inner} within ${outer}`,
    );
  }
  // soundness on samples: whenever it says "within", every sample that the
  // inner pattern matches is matched by the outer one
  const samples = [
    "rm -i x",
    "rm x",
    "git push",
    "git pushx",
    "ls a",
    "ls ab",
    "echo *",
    "x",
  ];
  for (const [inner, outer, want] of cases) {
    if (!want) continue;
    for (const t of samples) {
      if (matchesCommandPattern(inner, t)) {
        assert.ok(
          matchesCommandPattern(outer, t),
          `${inner} / ${outer} / ${t}`,
        );
      }
    }
  }
});

Deno.test("defect 3: a deny is set aside only by an allow strictly narrower on the deny's own keys", async (t) => {
  const deny = (match: PolicyMatch): PolicyRule => ({
    name: "deny",
    match,
    action: "deny",
  });
  const allow = (match: PolicyMatch): PolicyRule => ({
    name: "allow",
    match,
    action: "allow",
  });
  const fsWrite = call("resource", "fs", "write_file", "critical");
  // [what, deny, allow, call, expected]
  const cases: [string, PolicyMatch, PolicyMatch, PolicyCall, string][] = [
    [
      "more specific on other keys: the deny holds",
      { risk: "critical" },
      {
        toolName: "write_file",
      },
      fsWrite,
      "deny",
    ],
    [
      "narrower on the same keys: the allow wins",
      { risk: "critical" },
      {
        risk: "critical",
        toolName: "write_file",
      },
      fsWrite,
      "allow",
    ],
    [
      "a provider deny and an allow naming the provider and the tool",
      {
        provider: "fs",
      },
      { provider: "fs", toolName: "write_file" },
      fsWrite,
      "allow",
    ],
    [
      "a provider deny and an allow naming only the tool",
      { provider: "fs" },
      {
        toolName: "write_file",
      },
      fsWrite,
      "deny",
    ],
    [
      "a deny more specific than the allow",
      { toolName: "write_file" },
      {
        provider: "fs",
      },
      fsWrite,
      "deny",
    ],
    [
      "command: a longer glob that is not inside the deny's",
      {
        command: "rm *",
      },
      { provider: "sh", command: "*> /dev/null" },
      bash("rm -rf x"),
      "deny",
    ],
    [
      "command: a narrower glob",
      { command: "rm *" },
      {
        command: "rm -i *",
      },
      bash("rm -i x"),
      "allow",
    ],
    [
      "command: a narrower glob, the deny still covers the rest",
      {
        command: "rm *",
      },
      { command: "rm -i *" },
      bash("rm -rf x"),
      "deny",
    ],
    [
      "command: the allow adds a key to the same glob",
      { command: "rm *" },
      {
        command: "rm *",
        provider: "sh",
      },
      bash("rm -rf x"),
      "allow",
    ],
    [
      "command: an allow glob with more literals on another command",
      {
        command: "git push*",
      },
      { command: "git push --dry-run*" },
      bash("git push --dry-run"),
      "allow",
    ],
    [
      "command allow against a provider deny: not on the deny's keys",
      {
        provider: "sh",
      },
      { command: "ls *" },
      bash("ls -la"),
      "deny",
    ],
    [
      "command allow naming the denied provider",
      { provider: "sh" },
      {
        provider: "sh",
        command: "ls *",
      },
      bash("ls -la"),
      "allow",
    ],
    [
      "a command deny is not set aside by a rule without a command",
      {
        command: "rm *",
      },
      { provider: "sh", toolName: "bash" },
      bash("rm -rf x"),
      "deny",
    ],
  ];
  for (const [what, d, a, c, want] of cases) {
    await t.step(what, () => {
      for (const rules of [[deny(d), allow(a)], [allow(a), deny(d)]]) {
        const got = evaluatePolicy(rules, c);
        assert.equal(got.action, want);
        assert.match(got.decidedBy, new RegExp(`^${want}( |$)`));
      }
      // the allow may be narrower and still not match the call
      const narrower = want === "allow" || what.endsWith("covers the rest");
      assert.equal(isNarrowerMatch(a, d), narrower);
    });
  }
  await t.step(
    "an ask winner does not set a deny on other keys aside either",
    () => {
      const rules: PolicyRule[] = [
        { name: "no_critical", match: { risk: "critical" }, action: "deny" },
        {
          name: "ask_writes",
          match: { toolName: "write_file" },
          action: "ask",
        },
      ];
      assert.equal(evaluatePolicy(rules, fsWrite).action, "deny");
    },
  );
  await t.step(
    "with several denies, the winner must narrow each of them",
    () => {
      const rules: PolicyRule[] = [
        { name: "no_fs", match: { provider: "fs" }, action: "deny" },
        { name: "no_critical", match: { risk: "critical" }, action: "deny" },
        {
          name: "fs_write_ok",
          match: { provider: "fs", toolName: "write_file" },
          action: "allow",
        },
      ];
      assert.deepEqual(evaluatePolicy(rules, fsWrite), {
        action: "deny",
        decidedBy: "no_critical",
        downgraded: false,
      });
      assert.equal(
        evaluatePolicy(rules, call("resource", "fs", "write_file", "low"))
          .action,
        "allow",
      );
    },
  );
});

Deno.test("defect 3: check-config warns when an allow rule overrides a command deny, naming both rules' file:line", () => {
  const rules: PolicyRule[] = [
    {
      name: "no_rm",
      match: { command: "rm *" },
      action: "deny",
      range: at(10),
    },
    {
      name: "rm_interactive",
      match: { provider: "sh", command: "rm -i *" },
      action: "allow",
      range: at(20),
    },
    // not narrower: never overrides the deny, so no warning
    {
      name: "discard_output",
      match: { command: "> /dev/null" },
      action: "allow",
      range: at(30),
    },
    // a provider-wide deny with command exceptions is an allowlist: no warning
    { name: "no_sh", match: { provider: "sh" }, action: "deny", range: at(40) },
    {
      name: "ls_ok",
      match: { provider: "sh", command: "ls *" },
      action: "allow",
      range: at(50),
    },
  ];
  const warnings = shadowedDenyWarnings(rules);
  assert.deepEqual(warnings.map((w) => [w.code, w.severity, w.summary]), [[
    "W_POLICY_ALLOW_SHADOWS_DENY",
    "warning",
    'Policy "rm_interactive" allows commands that policy "no_rm" denies',
  ]]);
  assert.equal(warnings[0]!.range?.start.line, 20);
  assert.match(warnings[0]!.detail!, /"rm_interactive" \(agent\.hcl:20:1\)/);
  assert.match(warnings[0]!.detail!, /"no_rm" \(agent\.hcl:10:1\)/);
  assert.deepEqual(
    checkPolicies(rules).map((d) => d.code),
    ["W_POLICY_ALLOW_SHADOWS_DENY"],
  );
});

// A small deterministic generator (no Math.random: failures reproduce).
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

// The recursive, memoized `isCommandPatternWithin` this module had before
// its table became two rows: the reference the rewrite must agree with.
// The tokens of a glob, as command_pattern.ts reads them.
function refTokens(p: string): ("*" | "?" | { lit: string })[] {
  const out: ("*" | "?" | { lit: string })[] = [];
  const cs = Array.from(p);
  for (let i = 0; i < cs.length; i++) {
    const c = cs[i]!;
    if (c === "\\" && i + 1 < cs.length) out.push({ lit: cs[++i]! });
    else if (c === "*") {
      if (out.at(-1) !== "*") out.push("*");
    } else if (c === "?") out.push("?");
    else out.push({ lit: c });
  }
  return out;
}

function withinReference(inner: string, outer: string): boolean {
  const a = refTokens(outer);
  const b = refTokens(inner);
  const memo = new Map<string, boolean>();
  const covers = (i: number, j: number): boolean => {
    const key = `${i},${j}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    const o = a[i];
    const n = b[j];
    let r: boolean;
    if (o === undefined) r = n === undefined;
    else if (o === "*") {
      r = covers(i + 1, j) || (n !== undefined && covers(i, j + 1));
    } else if (n === undefined || n === "*") r = false;
    else if (o === "?") r = covers(i + 1, j + 1);
    else r = n !== "?" && n.lit === o.lit && covers(i + 1, j + 1);
    memo.set(key, r);
    return r;
  };
  return covers(0, 0);
}

// Globs over a tiny alphabet, so that many pairs overlap: escapes,
// leading and trailing globs, all-literal patterns.
function tinyGlob(next: () => number): string {
  const parts = ["a", "b", " ", "*", "?", "\\*", "ab", "a b"];
  let p = "";
  const n = 1 + Math.floor(next() * 5);
  for (let i = 0; i < n; i++) p += parts[Math.floor(next() * parts.length)];
  return p;
}

function tinyRules(seed: number, count: number): PolicyRule[] {
  const next = lcg(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)];
  const rules: PolicyRule[] = [];
  for (let i = 0; i < count; i++) {
    const match: PolicyMatch = {};
    if (next() < 0.9) match.command = tinyGlob(next);
    if (next() < 0.3) match.provider = pick(["sh", "fs"]);
    if (next() < 0.2) match.toolName = pick(["bash", "exec"]);
    if (next() < 0.2) match.risk = pick(["low", "high"] as const);
    if (next() < 0.1) match.kind = "resource";
    rules.push({
      name: `r${i}`,
      match,
      action: pick(["allow", "deny", "ask"] as const)!,
      range: at(i + 1),
    });
  }
  return rules;
}

Deno.test("isCommandPatternWithin() agrees with the recursive reference on random globs", () => {
  const next = lcg(7);
  for (let k = 0; k < 3000; k++) {
    const inner = tinyGlob(next);
    const outer = tinyGlob(next);
    assert.equal(
      isCommandPatternWithin(inner, outer),
      withinReference(inner, outer),
      `${JSON.stringify(inner)} within ${JSON.stringify(outer)}`,
    );
  }
});

Deno.test("literalAffixes() gives the literal tokens before the first glob and after the last", () => {
  const next = lcg(11);
  const lit = (ts: ReturnType<typeof refTokens>) =>
    ts.map((t) => typeof t === "object" ? t.lit : "").join("");
  for (let k = 0; k < 2000; k++) {
    const p = tinyGlob(next) + (next() < 0.1 ? "\\" : "");
    const ts = refTokens(p);
    const first = ts.findIndex((t) => typeof t !== "object");
    let last = ts.length;
    while (last > 0 && typeof ts[last - 1] === "object") last--;
    const prefix = lit(first < 0 ? ts : ts.slice(0, first));
    const suffix = first < 0 ? prefix : lit(ts.slice(last));
    assert.deepEqual(literalAffixes(p), { prefix, suffix }, JSON.stringify(p));
  }
});

Deno.test("shadowedDenyWarnings() gives the same warnings as comparing every allow with every deny", () => {
  for (const seed of [1, 2, 3]) {
    const rules = tinyRules(seed, 300);
    const expected: string[] = [];
    for (const allow of rules) {
      if (allow.action !== "allow") continue;
      for (const deny of rules) {
        if (deny.action !== "deny" || deny.match.command === undefined) {
          continue;
        }
        if (!isNarrowerMatch(allow.match, deny.match)) continue;
        expected.push(
          `Policy "${allow.name}" allows commands that policy "${deny.name}" denies`,
        );
      }
    }
    assert.ok(expected.length > 20, `seed ${seed}: ${expected.length} pairs`);
    const got = shadowedDenyWarnings(rules, { maxWarnings: Infinity });
    assert.deepEqual(got.map((w) => w.summary), expected, `seed ${seed}`);
  }
});

// The shape of issue 21: 2,000 allow rules and 2,000 command denies with
// realistic globs, every tenth allow narrowing one deny.
function manyCommandRules(n: number): PolicyRule[] {
  const tools = ["git", "rm", "curl", "npm", "docker", "kubectl", "ssh"];
  const rules: PolicyRule[] = [];
  for (let i = 0; i < n; i++) {
    const tool = tools[i % tools.length];
    rules.push({
      name: `deny_${i}`,
      match: i % 3 === 0
        ? { command: `${tool} op${i} *` }
        : i % 3 === 1
        ? { command: `*--target-${i}` }
        : { provider: "sh", command: `${tool} op${i} * --force` },
      action: "deny",
      range: at(2 * i + 1),
    });
    rules.push({
      name: `allow_${i}`,
      match: i % 10 === 0
        ? { command: `${tool} op${i} --dry-run *` }
        : i % 10 === 1
        ? { command: `${tool} x --target-${i}` }
        : i % 10 === 2
        ? { provider: "sh", command: `${tool} op${i} --dry-run * --force` }
        : { command: `${tool} status${i} *` },
      action: "allow",
      range: at(2 * i + 2),
    });
  }
  return rules;
}

Deno.test("shadowedDenyWarnings() compares 2,000 allows with 2,000 command denies in work linear in the rules", () => {
  const rules = manyCommandRules(2000);
  let calls = 0;
  const counting = (narrow: PolicyMatch, broad: PolicyMatch) => {
    calls++;
    return isNarrowerMatch(narrow, broad);
  };
  const warnings = shadowedDenyWarnings(rules, { isNarrower: counting });
  // every pair compared would be 4,000,000 calls; the index leaves the
  // pairs whose literal prefix and suffix agree
  assert.ok(calls <= 2 * 2000, `${calls} comparisons`);
  // allow i narrows deny i: a `--dry-run` allow narrows an `op` deny
  // (also the provider-bound one when it sets the provider), a target
  // allow narrows its target deny
  let pairs = 0;
  for (let i = 0; i < 2000; i++) {
    if (i % 10 === 0 && i % 3 === 0) pairs++;
    if (i % 10 === 1 && i % 3 === 1) pairs++;
    if (i % 10 === 2 && i % 3 !== 1) pairs++;
  }
  const all = shadowedDenyWarnings(rules, { maxWarnings: Infinity });
  assert.equal(all.length, pairs);
  assert.equal(warnings.length, 101);
  // the same first 100 as an unbounded run, then one counting the rest
  assert.deepEqual(warnings.slice(0, 100), all.slice(0, 100));
  assert.equal(
    warnings[100]!.summary,
    `${pairs - 100} more allow/deny pairs where the allow overrides the deny`,
  );
  // placed at the first pair, so that a list cut at 100 in file order
  // keeps it; it names the first pair left out
  assert.deepEqual(warnings[100]!.range, all[0]!.range);
  assert.match(
    warnings[100]!.detail!,
    new RegExp(
      `the first of them at policy "${
        all[100]!.summary.match(/^Policy "([^"]+)"/)![1]
      }" \\(agent\\.hcl:`,
    ),
  );
});

Deno.test("shadowedDenyWarnings() stops after maxComparisons pairs and says so", () => {
  // every allow narrows every deny: the pairs, not the index, are the work
  const rules: PolicyRule[] = [];
  for (let i = 0; i < 50; i++) {
    rules.push({
      name: `d${i}`,
      match: { command: `*${"*".repeat(i)}` },
      action: "deny",
      range: at(i + 1),
    });
  }
  for (let i = 0; i < 50; i++) {
    rules.push({
      name: `a${i}`,
      match: { command: `cmd ${i}` },
      action: "allow",
      range: at(100 + i),
    });
  }
  let calls = 0;
  const warnings = shadowedDenyWarnings(rules, {
    maxComparisons: 1000,
    isNarrower: (n, b) => (calls++, isNarrowerMatch(n, b)),
  });
  assert.equal(calls, 1000);
  assert.equal(warnings.length, 101);
  const last = warnings[100]!;
  assert.equal(last.code, "W_POLICY_ALLOW_SHADOWS_DENY");
  assert.equal(
    last.summary,
    "Too many allow rules to compare with command denies: stopped after 1,000 pairs",
  );
  assert.match(
    last.detail!,
    /found 1,000 overriding pairs \(900 not shown one by one\)/,
  );
  assert.match(last.detail!, /from policy "a20" \(agent\.hcl:120:1\) on/);
  assert.equal(last.range?.start.line, 100);
});
