import assert from "node:assert/strict";
import type { SourceRange } from "../contract/diagnostic.ts";
import {
  BOUND_ATTRIBUTES,
  type ProfileBounds,
  validateBounds,
} from "./profile_bounds.ts";
import {
  canSpawn,
  DEFAULT_PROFILE_NAME,
  remainingCost,
  remainingDepth,
  resolveSlashCommands,
  selectRootProfile,
  toolsForDepth,
} from "./profiles.ts";
import {
  chooseModel,
  type IneligibleReason,
  type ModelCapabilities,
  type ModelRef,
  type ModelRouting,
  type TurnRequirements,
} from "./model_routing.ts";
import { implicitSubscriberPosition, orderSubscribers } from "./hook_order.ts";
import {
  parseToolScope,
  parseToolScopeEntry,
  resolveToolScope,
} from "./tool_scope.ts";

function at(line: number): SourceRange {
  return {
    file: "agent.hcl",
    start: { line, column: 3, byte: line * 100 },
    end: { line, column: 9, byte: line * 100 + 6 },
  };
}

// --- root profile ----------------------------------------------------------

Deno.test("selectRootProfile() uses the profile named default", () => {
  assert.equal(DEFAULT_PROFILE_NAME, "default");
  const profiles = new Map([["default", { id: 1 }], ["auditor", { id: 2 }]]);
  assert.deepEqual(selectRootProfile(profiles), {
    name: "default",
    profile: { id: 1 },
    diagnostics: [],
  });
});

Deno.test("selectRootProfile() falls back to built-in defaults without a default profile", () => {
  assert.deepEqual(selectRootProfile(new Map([["auditor", 1]])), {
    name: "default",
    profile: undefined,
    diagnostics: [],
  });
});

Deno.test("selectRootProfile() honours the CLI's choice", () => {
  const profiles = new Map([["default", 1], ["auditor", 2]]);
  assert.equal(selectRootProfile(profiles, "auditor").profile, 2);
  assert.equal(selectRootProfile(profiles, "default").profile, 1);
});

Deno.test("selectRootProfile() rejects an unknown requested profile", async (t) => {
  await t.step("with a suggestion", () => {
    const r = selectRootProfile(new Map([["auditor", 1]]), "auditr");
    assert.equal(r.profile, undefined);
    assert.equal(r.diagnostics[0]?.code, "E_UNKNOWN_PROFILE");
    assert.equal(r.diagnostics[0]?.summary, 'Unknown agent profile "auditr"');
    assert.match(r.diagnostics[0]!.detail!, /Did you mean "auditor"\?/);
  });
  await t.step("with no profiles at all", () => {
    const r = selectRootProfile(new Map(), "default");
    assert.match(r.diagnostics[0]!.detail!, /No agent_profile block/);
  });
});

// --- tool scoping ----------------------------------------------------------

Deno.test("parseToolScopeEntry() splits at the first dot", async (t) => {
  const cases: [string, string, string, boolean][] = [
    ["fs.read_file", "fs", "read_file", false],
    ["fs.*", "fs", "*", true],
    ["fs.read_*", "fs", "read_*", false],
    ["fs.**", "fs", "**", false],
    ["fs.*.x", "fs", "*.x", false],
    ["mcp.github.create_issue", "mcp", "github.create_issue", false],
    ["md-reader.read", "md-reader", "read", false],
    ["_x.y", "_x", "y", false],
    ["fs..", "fs", ".", false],
    ["élan.go", "élan", "go", false],
  ];
  for (const [text, provider, tool, wildcard] of cases) {
    await t.step(text, () => {
      assert.deepEqual(parseToolScopeEntry(text), {
        entry: { text, provider, tool, wildcard },
        diagnostics: [],
      });
    });
  }
  await t.step("the range is kept", () => {
    assert.deepEqual(parseToolScopeEntry("fs.*", at(3)).entry?.range, at(3));
  });
});

Deno.test("parseToolScopeEntry() rejects malformed entries", async (t) => {
  const cases: [string, string][] = [
    ["fs", "no dot"],
    ["", "no dot"],
    ["fs.", "tool half is empty"],
    [".read", "provider half is empty"],
    [".", "provider half is empty"],
    ["*.read", "a provider must be named"],
    ["*.*", "a provider must be named"],
    ["f*.read", "a provider must be named"],
    ["f s.read", 'provider half "f s" is not a valid local name'],
    ["1fs.read", 'provider half "1fs" is not a valid local name'],
  ];
  for (const [text, fragment] of cases) {
    await t.step(JSON.stringify(text), () => {
      const r = parseToolScopeEntry(text, at(7));
      assert.equal(r.entry, undefined);
      assert.equal(r.diagnostics.length, 1);
      const [d] = r.diagnostics;
      assert.equal(d?.code, "E_TOOL_SCOPE_MALFORMED");
      assert.equal(d?.severity, "error");
      assert.equal(
        d?.summary,
        `Malformed tool scope entry ${JSON.stringify(text)}`,
      );
      assert.ok(d?.detail?.includes(fragment), d?.detail ?? "");
      assert.deepEqual(d?.range, at(7));
    });
  }
  await t.step("a non-string is caller misuse", () => {
    assert.throws(
      () => parseToolScopeEntry(undefined as unknown as string),
      TypeError,
    );
  });
});

Deno.test("parseToolScope() parses a list and reports every problem", () => {
  const r = parseToolScope(
    ["fs.*", "fs", "grep.search", "web.", "gerp.search", "shell.exec"],
    {
      ranges: [at(1), at(2), at(3), at(4), at(5)],
      declaredProviders: new Set(["fs", "grep", "web"]),
      profile: "auditor",
    },
  );
  assert.deepEqual(r.entries.map((e) => e.text), ["fs.*", "grep.search"]);
  assert.deepEqual(r.entries.map((e) => e.range), [at(1), at(3)]);
  assert.deepEqual(
    r.diagnostics.map((d) => [d.code, d.range?.start.line]),
    [
      ["E_TOOL_SCOPE_MALFORMED", 2],
      ["E_TOOL_SCOPE_MALFORMED", 4],
      ["E_UNKNOWN_PROVIDER", 5],
      ["E_UNKNOWN_PROVIDER", undefined],
    ],
  );
  assert.equal(
    r.diagnostics[2]?.summary,
    'Unknown provider "gerp" in tool scope entry "gerp.search"',
  );
  assert.match(r.diagnostics[2]!.detail!, /profile "auditor"/);
});

Deno.test("parseToolScope(): an omitted or empty list is no tools", () => {
  assert.deepEqual(parseToolScope(undefined), { entries: [], diagnostics: [] });
  assert.deepEqual(parseToolScope([]), { entries: [], diagnostics: [] });
});

Deno.test("parseToolScope() does not check providers unless told which are declared", () => {
  assert.equal(parseToolScope(["anything.x"]).diagnostics.length, 0);
});

const LOADED = new Map<string, readonly string[]>([
  ["fs", ["read_file", "write_file", "delete_tree"]],
  ["grep", ["search"]],
  ["mcp", ["github.create_issue", "github.list_issues"]],
  ["empty", []],
]);

Deno.test("resolveToolScope() resolves against the loaded providers", async (t) => {
  // [label, entries, tools]
  const cases: [string, string[] | undefined, string[]][] = [
    ["omitted list: no tools", undefined, []],
    ["empty list: no tools", [], []],
    ["wildcard: every advertised tool in order", ["fs.*"], [
      "fs.read_file",
      "fs.write_file",
      "fs.delete_tree",
    ]],
    ["concrete names", ["grep.search", "fs.write_file"], [
      "grep.search",
      "fs.write_file",
    ]],
    ["tool names with dots", ["mcp.github.list_issues"], [
      "mcp.github.list_issues",
    ]],
    ["not loaded: concrete is a silent no-op", ["web.fetch", "grep.search"], [
      "grep.search",
    ]],
    ["not loaded: wildcard is a silent no-op", ["web.*"], []],
    ["duplicates and overlaps are merged", [
      "fs.read_file",
      "fs.*",
      "fs.read_file",
    ], ["fs.read_file", "fs.write_file", "fs.delete_tree"]],
    ["a loaded provider with no tools", ["empty.*"], []],
  ];
  for (const [label, entries, tools] of cases) {
    await t.step(label, () => {
      const r = resolveToolScope(entries, LOADED);
      assert.deepEqual(r.diagnostics, []);
      assert.deepEqual(r.tools, tools);
    });
  }
});

Deno.test("resolveToolScope() groups tools by provider", () => {
  const r = resolveToolScope(["grep.*", "fs.read_file", "grep.search"], LOADED);
  assert.deepEqual([...r.byProvider], [
    ["grep", ["search"]],
    ["fs", ["read_file"]],
  ]);
});

Deno.test("resolveToolScope() rejects a tool its loaded provider does not advertise", async (t) => {
  await t.step("a typo gets a suggestion", () => {
    const r = resolveToolScope(["fs.reed_file", "grep.search"], LOADED);
    assert.deepEqual(r.tools, ["grep.search"]);
    assert.equal(r.diagnostics.length, 1);
    const [d] = r.diagnostics;
    assert.equal(d?.code, "E_TOOL_UNKNOWN");
    assert.equal(d?.severity, "error");
    assert.equal(d?.summary, 'Unknown tool "fs.reed_file"');
    assert.match(d!.detail!, /Did you mean "fs\.read_file"\?/);
    assert.match(d!.detail!, /It advertises: "read_file", "write_file"/);
  });
  await t.step("a glob is literal, and the message says so", () => {
    const [d] = resolveToolScope(["fs.read_*"], LOADED).diagnostics;
    assert.equal(d?.code, "E_TOOL_UNKNOWN");
    assert.match(d!.detail!, /Only a tool half of exactly "\*" is a wildcard/);
  });
  await t.step("a long list of advertised tools is shortened", () => {
    const many = Array.from({ length: 13 }, (_, i) => `t${i}`);
    const [d] = resolveToolScope(["big.nope"], new Map([["big", many]]))
      .diagnostics;
    assert.match(d!.detail!, /"t9" and 3 more\.$/);
  });
  await t.step("a provider that advertises nothing", () => {
    const [d] = resolveToolScope(["empty.x"], LOADED).diagnostics;
    assert.match(d!.detail!, /It advertises no tools/);
  });
  await t.step("a parsed entry keeps its range", () => {
    const { entries } = parseToolScope(["fs.nope"], { ranges: [at(9)] });
    const [d] = resolveToolScope(entries, LOADED).diagnostics;
    assert.deepEqual(d?.range, at(9));
  });
  await t.step("malformed strings are reported too", () => {
    const r = resolveToolScope(["fs", "fs.nope"], LOADED);
    assert.deepEqual(r.diagnostics.map((d) => d.code), [
      "E_TOOL_SCOPE_MALFORMED",
      "E_TOOL_UNKNOWN",
    ]);
  });
});

Deno.test("resolveSlashCommands() applies the allow-list", async (t) => {
  const available = ["summarize", "reset", "explain"];
  const cases: [
    string,
    string[] | undefined,
    { commands: string[]; unknown: string[] },
  ][] = [
    ["omitted: none", undefined, { commands: [], unknown: [] }],
    ["empty: none", [], { commands: [], unknown: [] }],
    ["allow-list order", ["reset", "summarize"], {
      commands: ["reset", "summarize"],
      unknown: [],
    }],
    ["unknown names are returned, not errors", ["summarize", "deploy"], {
      commands: ["summarize"],
      unknown: ["deploy"],
    }],
    ["duplicates once", ["reset", "reset"], {
      commands: ["reset"],
      unknown: [],
    }],
  ];
  for (const [label, allow, want] of cases) {
    await t.step(label, () => {
      assert.deepEqual(resolveSlashCommands(allow, available), want);
    });
  }
});

// --- depth and cost --------------------------------------------------------

Deno.test("remainingDepth(): the worked example of §7.5", () => {
  const kernelDefault = 4;
  const root = remainingDepth(undefined, 3, kernelDefault);
  assert.equal(root, 3);
  const child = remainingDepth(root, 5, kernelDefault); // min(2, 5)
  assert.equal(child, 2);
  const grandchild = remainingDepth(child, undefined, kernelDefault); // min(1, ∞)
  assert.equal(grandchild, 1);
  const greatGrandchild = remainingDepth(grandchild, undefined, kernelDefault);
  assert.equal(greatGrandchild, 0);
  assert.ok(!canSpawn(greatGrandchild));
  assert.deepEqual(
    toolsForDepth(
      ["fs.read_file", "subagents.spawn"],
      greatGrandchild,
      new Set(["subagents.spawn"]),
    ),
    ["fs.read_file"],
  );
});

Deno.test("remainingDepth() follows the formula", async (t) => {
  // [parentRemaining, profileMaxDepth, kernelDefault, want]
  const cases: [number | undefined, number | undefined, number, number][] = [
    [undefined, undefined, 3, 3], // root without max_depth: kernel default
    [undefined, 0, 3, 0], // root max_depth = 0: no spawning; 0 is not unset
    [undefined, 7, 3, 7], // root may set a budget above the default
    [3, undefined, 9, 2], // child without max_depth: unbounded ceiling
    [3, 1, 9, 1], // the profile is a ceiling
    [3, 10, 9, 2], // never a grant
    [1, undefined, 9, 0],
    [1, 5, 9, 0],
    [0, undefined, 9, 0], // never negative
    [0, 0, 9, 0],
  ];
  for (const [parent, max, def, want] of cases) {
    await t.step(`parent=${parent} max_depth=${max} default=${def}`, () => {
      assert.equal(remainingDepth(parent, max, def), want);
    });
  }
});

Deno.test("remainingDepth() throws a RangeError on misuse", () => {
  for (
    const args of [
      [-1, undefined, 3],
      [1.5, undefined, 3],
      [undefined, -1, 3],
      [undefined, NaN, 3],
      [undefined, undefined, Infinity],
    ] as [number | undefined, number | undefined, number][]
  ) {
    assert.throws(() => remainingDepth(...args), RangeError);
  }
});

Deno.test("toolsForDepth() keeps spawn tools while depth remains", () => {
  const tools = ["a.x", "sub.spawn", "sub.fork"];
  const spawn = new Set(["sub.spawn", "sub.fork"]);
  assert.deepEqual(toolsForDepth(tools, 2, spawn), tools);
  assert.deepEqual(toolsForDepth(tools, 0, spawn), ["a.x"]);
  assert.deepEqual(toolsForDepth(tools, -1, spawn), ["a.x"]);
  assert.notEqual(toolsForDepth(tools, 2, spawn), tools); // a copy
});

Deno.test("remainingCost() rolls the budget up the tree", async (t) => {
  const cases: [number | undefined, number | undefined, number][] = [
    [undefined, undefined, Infinity],
    [undefined, 2.5, 2.5],
    [undefined, 0, 0],
    [Infinity, undefined, Infinity],
    [Infinity, 1, 1],
    [0.75, 2.5, 0.75],
    [0.75, 0.5, 0.5],
    [0.75, undefined, 0.75],
    [0, 5, 0],
  ];
  for (const [parent, max, want] of cases) {
    await t.step(`parent=${parent} max_cost_usd=${max}`, () => {
      assert.equal(remainingCost(parent, max), want);
    });
  }
  await t.step("misuse throws a RangeError", () => {
    assert.throws(() => remainingCost(-1, undefined), RangeError);
    assert.throws(() => remainingCost(undefined, NaN), RangeError);
  });
});

// --- model routing ---------------------------------------------------------

interface TestSpec extends ModelCapabilities {
  label: string;
}

function spec(
  id: string,
  caps: Partial<Omit<TestSpec, "id" | "label">> = {},
): TestSpec {
  return {
    id,
    label: `spec:${id}`,
    contextWindow: 100_000,
    supportsToolUse: true,
    supportsVision: true,
    thinking: { supported: true },
    ...caps,
  };
}

const MODELS = new Map<string, readonly TestSpec[]>([
  ["claude", [
    spec("large"),
    spec("medium", { supportsVision: false, contextWindow: 50_000 }),
    spec("small", {
      supportsVision: false,
      thinking: { supported: false },
      contextWindow: 8_000n,
    }),
  ]],
  ["local", [
    spec("tiny", {
      supportsToolUse: false,
      supportsVision: false,
      thinking: undefined,
      contextWindow: 4_096,
    }),
  ]],
]);

function ref(provider: string, id: string): ModelRef {
  return { provider, id };
}

Deno.test("chooseModel() returns the first eligible candidate", async (t) => {
  // [label, chain, requirements, chosen id, skipped [id, reasons]]
  const cases: [
    string,
    ModelRef[],
    TurnRequirements,
    string,
    [string, IneligibleReason[]][],
  ][] = [
    [
      "the primary when eligible",
      [
        ref("claude", "small"),
        ref("claude", "large"),
      ],
      {},
      "small",
      [],
    ],
    [
      "provider not loaded is skipped",
      [
        ref("openai", "gpt"),
        ref("claude", "medium"),
      ],
      {},
      "medium",
      [["gpt", ["provider_not_loaded"]]],
    ],
    [
      "model not offered is skipped",
      [
        ref("claude", "huge"),
        ref("claude", "medium"),
      ],
      {},
      "medium",
      [["huge", ["model_not_offered"]]],
    ],
    [
      "tool use",
      [ref("local", "tiny"), ref("claude", "small")],
      {
        toolUse: true,
      },
      "small",
      [["tiny", ["no_tool_use"]]],
    ],
    [
      "vision",
      [ref("claude", "small"), ref("claude", "large")],
      {
        vision: true,
      },
      "large",
      [["small", ["no_vision"]]],
    ],
    [
      "thinking unsupported",
      [ref("claude", "small"), ref("claude", "medium")],
      {
        thinking: true,
      },
      "medium",
      [["small", ["no_thinking"]]],
    ],
    [
      "thinking spec absent",
      [ref("local", "tiny"), ref("claude", "medium")],
      {
        thinking: true,
      },
      "medium",
      [["tiny", ["no_thinking"]]],
    ],
    [
      "context window (bigint and number)",
      [
        ref("claude", "small"),
        ref("claude", "medium"),
        ref("claude", "large"),
      ],
      { minContextWindow: 60_000 },
      "large",
      [
        ["small", ["context_window_too_small"]],
        ["medium", ["context_window_too_small"]],
      ],
    ],
    [
      "an exactly sufficient window is eligible",
      [ref("claude", "medium")],
      {
        minContextWindow: 50_000,
      },
      "medium",
      [],
    ],
    [
      "min context 0 means no minimum",
      [ref("local", "tiny")],
      {
        minContextWindow: 0,
      },
      "tiny",
      [],
    ],
    [
      "requirements that are false do not filter",
      [ref("local", "tiny")],
      {
        toolUse: false,
        vision: false,
        thinking: false,
      },
      "tiny",
      [],
    ],
    [
      "every reason is listed",
      [ref("local", "tiny"), ref("claude", "large")],
      {
        toolUse: true,
        vision: true,
        thinking: true,
        minContextWindow: 10_000,
      },
      "large",
      [["tiny", [
        "no_tool_use",
        "no_vision",
        "no_thinking",
        "context_window_too_small",
      ]]],
    ],
  ];
  for (const [label, chain, req, chosen, skipped] of cases) {
    await t.step(label, () => {
      const r = chooseModel(chain, MODELS, req);
      assert.ok(r.ok, label);
      assert.equal(r.model.id, chosen);
      assert.equal(r.spec.label, `spec:${chosen}`); // the caller's own type
      assert.equal(r.index, chain.findIndex((m) => m.id === chosen));
      assert.deepEqual(
        r.skipped.map((s) => [s.model.id, s.reasons]),
        skipped,
      );
    });
  }
});

Deno.test("chooseModel() walks a model {} block: primary, then fallbacks in order", () => {
  const routing: ModelRouting = {
    primary: ref("openai", "gpt"),
    fallbacks: [ref("claude", "medium"), ref("claude", "large")],
  };
  const r = chooseModel(routing, MODELS, { vision: true });
  assert.ok(r.ok);
  assert.equal(r.model.id, "large");
  assert.equal(r.index, 2);
});

Deno.test("chooseModel() fails only when the chain is exhausted", () => {
  const routing: ModelRouting = {
    primary: { ...ref("claude", "small"), range: at(4) },
    fallbacks: [ref("local", "tiny"), ref("openai", "gpt")],
  };
  const r = chooseModel(routing, MODELS, { vision: true }, {
    profile: "default",
    range: at(3),
  });
  assert.ok(!r.ok);
  assert.equal(r.diagnostic.code, "E_NO_ELIGIBLE_MODEL");
  assert.equal(r.diagnostic.severity, "error");
  assert.deepEqual(r.diagnostic.range, at(3));
  assert.equal(
    r.diagnostic.detail,
    [
      'Every model in the chain of profile "default" was skipped:',
      '- "claude" / "small": the turn needs vision, which it does not support',
      '- "local" / "tiny": the turn needs vision, which it does not support',
      '- "openai" / "gpt": its provider is not loaded',
    ].join("\n"),
  );
  assert.deepEqual(r.skipped.map((s) => s.reasons), [
    ["no_vision"],
    ["no_vision"],
    ["provider_not_loaded"],
  ]);
});

Deno.test("chooseModel(): an empty chain is an error, not a throw", () => {
  const r = chooseModel([], MODELS);
  assert.ok(!r.ok);
  assert.match(r.diagnostic.detail!, /chain of the profile is empty/);
});

// --- bounds ----------------------------------------------------------------

Deno.test("validateBounds() accepts valid and unset bounds", async (t) => {
  const cases: [string, ProfileBounds][] = [
    ["all unset", {}],
    ["the §2.5 default profile", {
      maxTurns: 120,
      maxCostUsd: 2.5,
      maxWallClockS: 1800,
      maxDepth: 2,
    }],
    ["zeros (0 is not unset)", {
      maxTurns: 0,
      maxCostUsd: 0,
      maxWallClockS: 0,
      maxDepth: 0,
    }],
    ["a fractional cost", { maxCostUsd: 0.015 }],
    ["a whole-number cost", { maxCostUsd: 3 }],
    ["large integers", {
      maxTurns: Number.MAX_SAFE_INTEGER,
      maxConcurrentSubagents: 64,
    }],
    ["1e3 is a whole number", { maxWallClockS: 1e3 }],
  ];
  for (const [label, bounds] of cases) {
    await t.step(label, () => {
      assert.deepEqual(validateBounds(bounds), []);
    });
  }
});

Deno.test("validateBounds() rejects bad values", async (t) => {
  // [field, value, detail fragment]
  const cases: [keyof ProfileBounds, unknown, string][] = [
    ["maxTurns", 2.9, "Expected a whole number, got 2.9"],
    ["maxTurns", -1, "Expected a non-negative value, got -1"],
    ["maxTurns", "10", 'got a string ("10")'],
    ["maxTurns", Infinity, "must be finite"],
    ["maxTurns", NaN, "must be finite"],
    ["maxTurns", 2 ** 60, "too large"],
    ["maxCostUsd", -0.01, "non-negative"],
    ["maxCostUsd", Infinity, "must be finite"],
    ["maxCostUsd", true, "Expected a number, got a bool"],
    ["maxWallClockS", 1.5, "whole number"],
    ["maxWallClockS", null, "got null"],
    ["maxDepth", -2, "non-negative"],
    ["maxDepth", 0.5, "whole number"],
    ["maxDepth", [1], "got a list"],
    ["maxConcurrentSubagents", 2.5, "whole number"],
    ["maxConcurrentSubagents", { n: 1 }, "got an object"],
    ["maxConcurrentSubagents", 3n, "got a bigint"],
  ];
  for (const [field, value, fragment] of cases) {
    const attr = BOUND_ATTRIBUTES[field];
    await t.step(`${attr} = ${String(value)}`, () => {
      const d = validateBounds({ [field]: value }, {
        profile: "p",
        ranges: { [field]: at(6) },
      });
      assert.equal(d.length, 1);
      assert.equal(d[0]?.code, "E_INVALID_VALUE");
      assert.equal(d[0]?.severity, "error");
      assert.equal(d[0]?.summary, `Invalid ${attr} in profile "p"`);
      assert.deepEqual(d[0]?.range, at(6));
      assert.ok(d[0]?.detail?.includes(fragment), d[0]?.detail ?? "");
    });
  }
});

Deno.test("validateBounds() reports every bad bound, in attribute order", () => {
  const d = validateBounds({
    maxConcurrentSubagents: -1,
    maxDepth: 1.5,
    maxTurns: -3,
  });
  assert.deepEqual(d.map((x) => x.summary), [
    "Invalid max_turns",
    "Invalid max_depth",
    "Invalid max_concurrent_subagents",
  ]);
  assert.ok(d.every((x) => !("range" in x)));
});

Deno.test("validateBounds() warns about max_concurrent_subagents = 0", () => {
  const d = validateBounds({ maxConcurrentSubagents: 0 }, { profile: "p" });
  assert.equal(d.length, 1);
  assert.equal(d[0]?.severity, "warning");
  assert.equal(d[0]?.code, "W_BOUND_ZERO");
  assert.match(d[0]!.detail!, /max_depth = 0/);
});

// --- hook subscribers ------------------------------------------------------

Deno.test("orderSubscribers() orders by textual position, modes interleaved", () => {
  const subs = [
    { name: "journal (explicit observe)", position: 900 },
    { name: "memory (implicit)", position: 120 },
    { name: "guard (explicit veto)", position: 400 },
    { name: "context (implicit)", position: 80 },
    { name: "rewrite (explicit transform)", position: 650 },
  ];
  const ordered = orderSubscribers(subs);
  assert.deepEqual(ordered.map((s) => s.name), [
    "context (implicit)",
    "memory (implicit)",
    "guard (explicit veto)",
    "rewrite (explicit transform)",
    "journal (explicit observe)",
  ]);
  assert.equal(subs[0]?.position, 900); // the input is not sorted in place
});

Deno.test("orderSubscribers() is stable and checks positions", () => {
  const subs = [
    { id: "a", position: 5 },
    { id: "b", position: 5 },
    { id: "c", position: 1 },
  ];
  assert.deepEqual(orderSubscribers(subs).map((s) => s.id), ["c", "a", "b"]);
  assert.deepEqual(orderSubscribers([]), []);
  assert.throws(() => orderSubscribers([{ position: -1 }]), RangeError);
  assert.throws(() => orderSubscribers([{ position: 1.5 }]), RangeError);
  assert.throws(() => orderSubscribers([{ position: NaN }]), RangeError);
});

Deno.test("implicitSubscriberPosition() uses the provider block, else the required_providers entry", () => {
  const positions = {
    providerBlocks: new Map([["memory", 610], ["ctx", 700]]),
    requiredProviders: new Map([["memory", 40], ["ctx", 75], ["bare", 90]]),
  };
  assert.equal(implicitSubscriberPosition("memory", positions), 610);
  assert.equal(implicitSubscriberPosition("bare", positions), 90);
  assert.equal(implicitSubscriberPosition("ghost", positions), undefined);
  assert.equal(
    implicitSubscriberPosition("x", {
      providerBlocks: new Map([["x", 0]]),
      requiredProviders: new Map([["x", 50]]),
    }),
    0,
  );
});
