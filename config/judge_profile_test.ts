import assert from "node:assert/strict";
import { codes, compileText } from "./_compile_testing.ts";
import { planToJson } from "./plan.ts";

function compileProfile(body: string) {
  return compileText(`agent_profile "reviewer" {\n${body}\n}\n`);
}

Deno.test('compile() reads kind = "judge" and max_judge_rounds into the profile and the plan JSON', () => {
  const r = compileProfile('  kind = "judge"\n  max_judge_rounds = 2');
  assert.deepEqual(
    codes(r.diagnostics).filter((c) => c !== "W_LOCK_MISSING"),
    [],
  );
  const p = r.plan!.profiles.find((x) => x.name === "reviewer")!;
  assert.equal(p.kind, "judge");
  assert.equal(p.maxJudgeRounds, 2);
  const json = planToJson(r.plan!) as { profiles: Record<string, unknown>[] };
  const j = json.profiles.find((x) => x.name === "reviewer")!;
  assert.equal(j.kind, "judge");
  assert.equal(j.max_judge_rounds, 2);
});

Deno.test("compile() defaults a judge's max_judge_rounds to 3 in the plan JSON and leaves agent profiles without a kind", () => {
  const r = compileProfile('  kind = "judge"');
  const json = planToJson(r.plan!) as { profiles: Record<string, unknown>[] };
  assert.equal(json.profiles[0]!.max_judge_rounds, 3);
  const a = compileProfile('  kind = "agent"');
  assert.equal(a.plan!.profiles[0]!.kind, undefined);
  const aj = planToJson(a.plan!) as { profiles: Record<string, unknown>[] };
  assert.equal("kind" in aj.profiles[0]!, false);
});

Deno.test("compile() reports a bad judge profile with diagnostics naming the value", async (t) => {
  const cases: [string, string, string, RegExp][] = [
    [
      '  kind = "judg"',
      "error",
      "E_INVALID_VALUE",
      /Unknown profile kind "judg".*\n?.*Did you mean "judge"/,
    ],
    [
      '  kind = "judge"\n  max_judge_rounds = 0',
      "error",
      "E_INVALID_VALUE",
      /at least 1.*got 0/,
    ],
    [
      '  kind = "judge"\n  max_judge_rounds = 1.5',
      "error",
      "E_INVALID_VALUE",
      /got 1\.5/,
    ],
    [
      "  max_judge_rounds = 2",
      "warning",
      "W_NO_EFFECT",
      /Only a judge profile/,
    ],
    [
      '  kind = "judge"\n  max_depth = 1',
      "warning",
      "W_NO_EFFECT",
      /cannot spawn sub-agents/,
    ],
    [
      '  kind = "judge"\n  control_plane {\n    disable = ["judge-directive"]\n  }',
      "error",
      "E_INVALID_VALUE",
      /no verdict could ever be read/,
    ],
  ];
  for (const [body, severity, code, text] of cases) {
    await t.step(body.trim().replace(/\s+/g, " "), () => {
      const r = compileProfile(body);
      const d = r.diagnostics.find((x) => x.code === code);
      assert.ok(d, `expected ${code}, got ${codes(r.diagnostics)}`);
      assert.equal(d.severity, severity);
      assert.match(`${d.summary}\n${d.detail ?? ""}`, text);
      assert.equal(d.range?.file, "agent.hcl");
    });
  }
});
