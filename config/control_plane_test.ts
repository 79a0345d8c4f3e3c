import assert from "node:assert/strict";
import { codes, compileText } from "./_compile_testing.ts";
import { planToJson } from "./plan.ts";

function compileProfile(body: string) {
  return compileText(`agent_profile "worker" {\n${body}\n}\n`);
}

Deno.test("compile() reads control_plane turn_summaries into the profile and the plan JSON; false leaves both as before", () => {
  const r = compileProfile("  control_plane {\n    turn_summaries = true\n  }");
  assert.deepEqual(
    codes(r.diagnostics).filter((c) => c !== "W_LOCK_MISSING"),
    [],
  );
  const p = r.plan!.profiles.find((x) => x.name === "worker")!;
  assert.equal(p.controlPlane?.turnSummaries, true);
  const json = planToJson(r.plan!) as { profiles: Record<string, unknown>[] };
  assert.deepEqual(
    json.profiles.find((x) => x.name === "worker")!.control_plane,
    {
      disable: [],
      topics: [],
      timers: [],
      turn_summaries: true,
    },
  );
  const off = compileProfile(
    "  control_plane {\n    turn_summaries = false\n  }",
  );
  assert.equal(off.plan!.profiles[0]!.controlPlane?.turnSummaries, undefined);
  const offJson = planToJson(off.plan!) as {
    profiles: Record<string, unknown>[];
  };
  assert.deepEqual(offJson.profiles[0]!.control_plane, {
    disable: [],
    topics: [],
    timers: [],
  });
});

Deno.test("compile() refuses turn_summaries whose channels are disabled, or that is not a bool, naming the block", async (t) => {
  const cases: [string, RegExp][] = [
    [
      '    disable = ["compact"]\n    turn_summaries = true',
      /turn_summaries = true needs the "compact" channel in the control_plane block of agent_profile "worker"/,
    ],
    [
      '    disable = ["turn-summary-missing", "compact"]\n    turn_summaries = true',
      /needs the "turn-summary-missing" and "compact" channels/,
    ],
    ['    turn_summaries = "yes"', /turn_summaries/],
  ];
  for (const [body, text] of cases) {
    await t.step(body.trim().replace(/\s+/g, " "), () => {
      const r = compileProfile(`  control_plane {\n${body}\n  }`);
      const d = r.diagnostics.find((x) => x.severity === "error");
      assert.ok(d, `expected an error, got ${codes(r.diagnostics)}`);
      assert.match(`${d.summary}\n${d.detail ?? ""}`, text);
      assert.equal(d.range?.file, "agent.hcl");
      assert.equal(
        r.plan?.profiles.find((x) => x.name === "worker")?.controlPlane,
        undefined,
      );
    });
  }
});

Deno.test("compile() reads control_plane watch_fs into the profile and the plan JSON; a non-bool is refused", () => {
  const r = compileProfile("  control_plane {\n    watch_fs = true\n  }");
  assert.deepEqual(
    codes(r.diagnostics).filter((c) => c !== "W_LOCK_MISSING"),
    [],
  );
  assert.equal(r.plan!.profiles[0]!.controlPlane?.watchFs, true);
  const json = planToJson(r.plan!) as { profiles: Record<string, unknown>[] };
  assert.deepEqual(json.profiles[0]!.control_plane, {
    disable: [],
    topics: [],
    timers: [],
    watch_fs: true,
  });
  const bad = compileProfile('  control_plane {\n    watch_fs = "yes"\n  }');
  const d = bad.diagnostics.find((x) => x.severity === "error");
  assert.ok(d);
  assert.match(`${d.summary}\n${d.detail ?? ""}`, /watch_fs/);
});

Deno.test("compile() reads control_plane trigger hooks (on, text) into the plan; a bad topic filter or empty text is refused naming the hook", () => {
  const r = compileProfile(
    '  control_plane {\n    hook "ci" {\n      on   = "plugin.tool.ci.*"\n      text = "CI failed: fix it."\n    }\n  }',
  );
  assert.deepEqual(
    codes(r.diagnostics).filter((c) => c !== "W_LOCK_MISSING"),
    [],
  );
  assert.deepEqual(r.plan!.profiles[0]!.controlPlane?.hooks, [
    { name: "ci", on: "plugin.tool.ci.*", text: "CI failed: fix it." },
  ]);
  const json = planToJson(r.plan!) as { profiles: Record<string, unknown>[] };
  assert.deepEqual(
    (json.profiles[0]!.control_plane as { hooks: unknown }).hooks,
    [{ name: "ci", on: "plugin.tool.ci.*", text: "CI failed: fix it." }],
  );
  for (
    const [body, text] of [
      [
        'on = "CI Failed"\n      text = "x"',
        /Invalid event-bus topic filter "CI Failed" in hook "ci"/,
      ],
      ['on = "ci"\n      text = " "', /Empty text in hook "ci"/],
      ['text = "x"', /on/],
    ] as const
  ) {
    const bad = compileProfile(
      `  control_plane {\n    hook "ci" {\n      ${body}\n    }\n  }`,
    );
    const d = bad.diagnostics.find((x) => x.severity === "error");
    assert.ok(d, body);
    assert.match(`${d.summary}\n${d.detail ?? ""}`, text);
  }
});
