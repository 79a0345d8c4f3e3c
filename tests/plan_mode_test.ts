/**
 * Plan mode from the library and the CLI (issue 17 part 1): resource tools
 * are left out (a write the model tries is refused and nothing is
 * written), the model is told each round (`<cp:plan-mode>`), and the plan
 * it answers with is offered: approved, the same session carries it out
 * with every tool; rejected, it ends with the plan.
 *
 * @module
 */
import assert from "node:assert/strict";
import { openKernel } from "../kernel/kernel.ts";
import type { SessionEvent } from "../kernel/mod.ts";
import { BUILTINS } from "../plugins/builtin.ts";
import {
  agent,
  makeProject,
  READ_TURN,
  README,
  type Turn,
} from "./_agent_project.ts";

const WRITE = {
  name: "write_file",
  arguments: { path: "SUMMARY.md", content: "# Summary\n" },
};

/** Plan: read, try a write (refused), answer with the plan; then execute. */
const TURNS: Turn[] = [
  READ_TURN,
  { tool_calls: [{ id: "toolu_w1", ...WRITE }] },
  { text: "Plan: write SUMMARY.md with a one-line summary." },
  {
    expect: "The plan is approved",
    tool_calls: [{ id: "toolu_w2", ...WRITE }],
  },
  { text: "Done: SUMMARY.md written." },
];

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

for (const approved of [true, false]) {
  Deno.test(
    `Kernel.run({ planMode }): read-only tools, the model told each round, the plan ${
      approved ? "approved and carried out in the same session" : "rejected"
    }`,
    async () => {
      await using p = await makeProject({
        turns: TURNS,
        files: { "README.md": README },
      });
      await using kernel = await openKernel(p.dir, {
        builtins: BUILTINS,
        env: p.env,
      });
      const offered: string[] = [];
      const events: SessionEvent[] = [];
      const run = kernel.run("Summarize the README into SUMMARY.md.", {
        planMode: true,
        approve: () => Promise.resolve({ decision: "allow", scope: "once" }),
        approvePlan: (plan) => {
          offered.push(plan);
          return Promise.resolve(approved);
        },
      });
      for await (const e of run) events.push(e);
      const outcome = await run.result;
      assert.equal(outcome.status, "completed");
      assert.deepEqual(offered, [
        "Plan: write SUMMARY.md with a one-line summary.",
      ]);
      const results = events.flatMap((e) =>
        e.type === "tool_result" ? [e] : []
      );
      const w1 = results.find((r) => r.callId === "toolu_w1");
      assert.ok(w1?.isError, "the write in plan mode is refused");
      const rounds = events.filter((e) =>
        e.type === "control" && e.channel === "plan-mode"
      );
      assert.equal(rounds.length, 3, "one plan-mode block per planning round");
      assert.equal(await exists(`${p.dir}/SUMMARY.md`), approved);
      if (approved) {
        const w2 = results.find((r) => r.callId === "toolu_w2");
        assert.equal(w2?.isError, false);
        assert.equal(outcome.finalText, "Done: SUMMARY.md written.");
      } else {
        assert.equal(outcome.finalText, offered[0]);
      }
    },
  );
}

Deno.test("KernelSession: session({ planMode: true }) and setPlanMode(false) between prompts", async () => {
  await using p = await makeProject({
    turns: TURNS,
    files: { "README.md": README },
  });
  await using kernel = await openKernel(p.dir, {
    builtins: BUILTINS,
    env: p.env,
  });
  await using session = await kernel.session({
    planMode: true,
    approve: () => Promise.resolve({ decision: "allow", scope: "once" }),
  });
  assert.equal(session.planMode, true);
  const plan = await session.send("Summarize the README.").result;
  assert.equal(
    plan.finalText,
    "Plan: write SUMMARY.md with a one-line summary.",
  );
  assert.equal(await exists(`${p.dir}/SUMMARY.md`), false);
  session.setPlanMode(false);
  assert.equal(session.planMode, false);
  const done = await session.send("The plan is approved: go.").result;
  assert.equal(done.finalText, "Done: SUMMARY.md written.");
  assert.equal(await exists(`${p.dir}/SUMMARY.md`), true);
});

Deno.test("agent run --plan: without --approve-all the run ends with the plan; with it the plan is carried out", async () => {
  for (const approveAll of [false, true]) {
    await using p = await makeProject({
      turns: TURNS,
      files: { "README.md": README },
    });
    const r = await agent(p, [
      "run",
      "Summarize the README into SUMMARY.md.",
      "--plan",
      ...(approveAll ? ["--approve-all"] : []),
    ]);
    assert.equal(r.code, 0, r.err);
    assert.equal(await exists(`${p.dir}/SUMMARY.md`), approveAll);
    if (approveAll) assert.match(r.out, /Done: SUMMARY\.md written\./);
    else assert.match(r.err, /The plan was not carried out/);
  }
});

Deno.test("agent --plan on a terminal: the plan is offered; y carries it out in the same session", async () => {
  await using p = await makeProject({
    turns: TURNS,
    files: { "README.md": README },
  });
  const r = await agent(
    p,
    ["--plan"],
    "Summarize the README into SUMMARY.md.\ny\ny\n/exit\n",
    true,
  );
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /carry out this plan\? \[y\]es \/ \[n\]o/);
  assert.match(r.out, /Done: SUMMARY\.md written\./);
  assert.equal(await exists(`${p.dir}/SUMMARY.md`), true);
});
