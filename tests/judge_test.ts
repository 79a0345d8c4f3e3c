/**
 * A judge profile (issue 17 part 6) through real sessions with the scripted
 * model: the worker and the judge take turns on one script (worker turns,
 * then the judge's review, in order). One loop ends when the judge accepts
 * (library), one when `max_judge_rounds` reviews ran without an accept
 * (CLI, exit code 5).
 *
 * @module
 */
import assert from "node:assert/strict";
import { openKernel } from "../kernel/kernel.ts";
import { sessionExitCode } from "../kernel/api.ts";
import type { SessionEvent } from "../kernel/mod.ts";
import { BUILTINS } from "../plugins/builtin.ts";
import { agent, jsonLines, makeProject, type Turn } from "./_agent_project.ts";

const JUDGE_REQUIRED =
  'judgebot = { source = "builtin/scripted", version = "~> 0.1" }';

/** The judge: its own scripted model (one turn per review), read-only fs. */
const judgeBlocks = (rounds: number, turns: Turn[]) => `
provider "judgebot" {
  turns_json = ${JSON.stringify(JSON.stringify(turns))}
  allow_read = ["."]
}

agent_profile "reviewer" {
  kind             = "judge"
  max_judge_rounds = ${rounds}
  model {
    primary {
      provider = "judgebot"
      id       = "scripted"
    }
  }
  tools = ["fs.read_file"]
}
`;

const write = (id: string, content: string): Turn => ({
  tool_calls: [{
    id,
    name: "write_file",
    arguments: { path: "NOTES.md", content },
  }],
});
const done = (expect: string): Turn => ({
  expect,
  text:
    'NOTES.md is written.\n<cp:goal-status state="done">NOTES.md holds the notes.</cp:goal-status>',
});
const verdict = (v: "accept" | "continue", body: string): Turn => ({
  expect: "You are the judge of another agent's work",
  text:
    `Reviewed.\n<cp:judge-directive verdict="${v}">${body}</cp:judge-directive>`,
});

Deno.test("Kernel.run({ judge }): the worker goes on with the judge's directive until the judge accepts", async () => {
  await using p = await makeProject({
    turns: [
      write("w1", "one\n"),
      done("NOTES.md"),
      {
        expect: "Add a line that says two.",
        ...write("w2", "one\ntwo\n"),
      },
      done("NOTES.md"),
    ],
    extraRequired: JUDGE_REQUIRED,
    extraProviders: judgeBlocks(3, [
      verdict("continue", "Add a line that says two."),
      {
        ...verdict("accept", "NOTES.md has both lines."),
        expect: "review 2 of at most 3",
      },
    ]),
  });
  await using kernel = await openKernel(p.dir, {
    builtins: BUILTINS,
    env: p.env,
  });
  const events: SessionEvent[] = [];
  const run = kernel.run("Write NOTES.md", {
    goal: "NOTES.md lists one and two",
    judge: "reviewer",
    approve: () => Promise.resolve({ decision: "allow", scope: "once" }),
  });
  for await (const e of run) events.push(e);
  const outcome = await run.result;
  assert.equal(outcome.status, "completed");
  assert.equal(await Deno.readTextFile(`${p.dir}/NOTES.md`), "one\ntwo\n");
  assert.equal(outcome.judge?.verdict, "accept");
  assert.equal(outcome.judge?.rounds, 2);
  assert.equal(outcome.judge?.directive, "NOTES.md has both lines.");
  assert.equal(outcome.judge?.boundFired, undefined);
  assert.equal(sessionExitCode(outcome), 0);
  // Each verdict is a control event of the worker, written by the judge.
  const verdicts = events.flatMap((e) =>
    e.type === "control" && e.channel === "judge-directive" ? [e] : []
  );
  const judgeId = outcome.judge!.sessionId!;
  assert.deepEqual(
    verdicts.map((v) => [v.attributes.verdict, v.source]),
    [["continue", `judge:${judgeId}`], ["accept", `judge:${judgeId}`]],
  );
  // The judge is one session, a child of the worker.
  const { sessions } = await kernel.sessions.list();
  const judge = sessions.find((x) => x.sessionId === judgeId);
  assert.equal(judge?.parentSessionId, outcome.sessionId);
  assert.equal(judge?.profile, "reviewer");
  assert.equal(judge?.depth, 1);
  assert.ok((judge?.costUsd ?? 0) > 0);
});

Deno.test("agent run --judge: the loop ends on max_judge_rounds without an accept (exit code 5)", async () => {
  await using p = await makeProject({
    turns: [
      done("Write NOTES.md"),
      { expect: "Write the file first.", ...write("w1", "one\n") },
      done("NOTES.md"),
    ],
    extraRequired: JUDGE_REQUIRED,
    extraProviders: judgeBlocks(2, [
      verdict("continue", "Write the file first."),
      verdict("continue", "Still not enough."),
    ]),
  });
  const r = await agent(p, [
    "run",
    "Write NOTES.md",
    "--goal",
    "NOTES.md lists one and two",
    "--judge",
    "reviewer",
    "--approve-all",
    "--json",
  ]);
  assert.equal(r.code, 5, r.err);
  const events = jsonLines(r.out);
  const warnings = events.filter((e) => e.type === "warning").map((e) =>
    e.code
  );
  assert.ok(warnings.includes("judge_rounds_exhausted"), r.out);
  const verdicts = events.filter((e) =>
    e.type === "control" && e.channel === "judge-directive"
  );
  assert.equal(verdicts.length, 2);

  const bad = await agent(p, [
    "run",
    "Write NOTES.md",
    "--judge",
    "default",
  ]);
  assert.equal(bad.code, 2, bad.err);
  assert.match(bad.err, /Profile "default" is not a judge/);
  assert.match(bad.err, /Judge profiles of this configuration: "reviewer"/);
});

Deno.test("KernelSession: session({ judge }) judges each send; the verdicts are in the send's events", async () => {
  await using p = await makeProject({
    turns: [
      write("w1", "one\n"),
      done("NOTES.md"),
      { expect: "Say it is final.", text: "It is final." },
    ],
    extraRequired: JUDGE_REQUIRED,
    extraProviders: judgeBlocks(3, [
      verdict("continue", "Say it is final."),
      verdict("accept", "Final."),
    ]),
  });
  await using kernel = await openKernel(p.dir, {
    builtins: BUILTINS,
    env: p.env,
  });
  await using session = await kernel.session({
    judge: "reviewer",
    approve: () => Promise.resolve({ decision: "allow", scope: "once" }),
  });
  const run = session.send("Write NOTES.md");
  const verdicts: string[] = [];
  for await (const e of run) {
    if (e.type === "control" && e.channel === "judge-directive") {
      verdicts.push(e.attributes.verdict!);
    }
  }
  const r = await run.result;
  assert.equal(r.outcome, "done");
  assert.equal(r.finalText, "It is final.");
  assert.deepEqual(verdicts, ["continue", "accept"]);
  assert.equal(r.judge?.verdict, "accept");
  assert.equal(r.judge?.rounds, 2);
});
