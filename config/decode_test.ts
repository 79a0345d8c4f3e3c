import assert from "node:assert/strict";
import type { Diagnostic } from "../contract/diagnostic.ts";
import { parseHcl } from "./hcl/mod.ts";
import { classifySource, decodeAgentConfig } from "./decode.ts";

function decode(text: string) {
  const { body, diagnostics } = parseHcl(text, "agent.hcl");
  assert.deepEqual(diagnostics, []);
  const ds: Diagnostic[] = [];
  return { config: decodeAgentConfig(body, ds), diagnostics: ds };
}

Deno.test("decodeAgentConfig() decodes required providers with normalised constraints", () => {
  const { config, diagnostics } = decode(
    'required_providers {\n  fs = { source = "gitlab.com/t/provider-fs", version = "~>0.9" }\n  grep = { source = "github.com/o/grep", version = "0.4.2" }\n}\n',
  );
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(
    config.requiredProviders.map((
      p,
    ) => [p.name, p.sourceKind, p.constraintText]),
    [["fs", "forge", "~> 0.9"], ["grep", "forge", "0.4.2"]],
  );
});

Deno.test("decodeAgentConfig() names the expected and the actual type", () => {
  const { diagnostics } = decode(
    'agent_profile "default" {\n  max_turns = "10"\n  tools = ["a.b", 3]\n}\n',
  );
  assert.deepEqual(diagnostics.map((d) => d.detail), [
    'Attribute "tools" of agent_profile "default" must be a list of strings, but element 2 is a number.',
    'Attribute "max_turns" of agent_profile "default" must be a number, but got a string.',
  ]);
});

Deno.test("decodeAgentConfig() suggests the closest name for unknown blocks and attributes", () => {
  const { diagnostics } = decode(
    'agent_profil "x" {\n}\nsettings {\n  telemetri = true\n  retri {\n  }\n}\nhook "pre-tool-cal" {\n  provider = "p"\n  mode = "obsrve"\n}\n',
  );
  const hints = diagnostics.map((d) =>
    (d.detail ?? "").match(/Did you mean "([^"]+)"/)?.[1]
  );
  // Blocks are decoded type by type; renderers sort by position.
  assert.deepEqual(hints, [
    "agent_profile",
    "pre-tool-call",
    undefined,
    "observe",
    "telemetry",
    "retry",
  ]);
});

Deno.test("decodeAgentConfig() keeps a profile's valid parts for stage B even when it has errors", () => {
  const { config, diagnostics } = decode(
    'agent_profile "default" {\n  tools = ["fs.*", "bad"]\n  max_turns = -1\n}\n',
  );
  assert.equal(diagnostics.filter((d) => d.severity === "error").length, 3);
  assert.deepEqual(config.profiles[0]?.tools.map((t) => t.text), []);
});

Deno.test("classifySource() separates builtin, path and forge sources", () => {
  assert.equal(classifySource("builtin/Echo"), undefined);
  assert.equal(classifySource("../sibling"), "path");
  assert.equal(classifySource("gitlab.com/a"), undefined);
});

Deno.test("decodeAgentConfig() reads doom_loop_threshold and a hook's timeout_ms, and refuses bad values where they are", () => {
  const ok = decode(
    'required_providers {\n  g = { source = "builtin/echo", version = "~> 0.1" }\n}\nagent_profile "default" {\n  doom_loop_threshold = 3\n}\nhook "plan-ready" {\n  provider   = "g"\n  mode       = "veto"\n  timeout_ms = 1500\n}\n',
  );
  assert.deepEqual(ok.diagnostics, []);
  assert.equal(ok.config.profiles[0]!.bounds.doomLoopThreshold, 3);
  assert.equal(ok.config.hooks[0]!.timeoutMs, 1500);
  const bad = decode(
    'required_providers {\n  g = { source = "builtin/echo", version = "~> 0.1" }\n}\nagent_profile "default" {\n  doom_loop_threshold = 1\n}\nhook "plan-ready" {\n  provider   = "g"\n  mode       = "veto"\n  timeout_ms = 0\n}\n',
  );
  assert.deepEqual(
    bad.diagnostics.map((d) => [d.summary, d.range?.start.line]),
    [
      ['Invalid doom_loop_threshold in profile "default"', 5],
      ['Invalid timeout_ms in hook "plan-ready"', 10],
    ],
  );
  assert.match(bad.diagnostics[0]!.detail!, /at least 2, got 1/);
});

Deno.test("decodeAgentConfig() reads a profile's generation block and refuses bad values where they are", () => {
  const ok = decode(
    'agent_profile "default" {\n  generation {\n    thinking_effort = "high"\n    thinking_budget_tokens = 8000\n    max_output_tokens = 4096\n    temperature = 0.3\n    stop_sequences = ["END"]\n  }\n}\n',
  );
  assert.deepEqual(ok.diagnostics, []);
  assert.deepEqual(ok.config.profiles[0]!.generation, {
    thinkingEffort: "high",
    thinkingBudgetTokens: 8000,
    maxOutputTokens: 4096,
    temperature: 0.3,
    stopSequences: ["END"],
  });
  const bad = decode(
    'agent_profile "default" {\n  generation {\n    max_output_tokens = 0\n    temperature = -1\n    effort = "high"\n  }\n}\n',
  );
  assert.deepEqual(
    bad.diagnostics.map((d) => [d.code, d.summary, d.range?.start.line]),
    [
      ["E_UNKNOWN_ATTR", 'Unsupported argument "effort"', 5],
      [
        "E_INVALID_VALUE",
        'Invalid max_output_tokens in the generation block of agent_profile "default"',
        3,
      ],
      [
        "E_INVALID_VALUE",
        'Invalid temperature in the generation block of agent_profile "default"',
        4,
      ],
    ],
  );
  assert.equal(bad.config.profiles[0]!.generation, undefined);
});
