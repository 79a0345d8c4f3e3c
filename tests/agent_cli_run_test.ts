/**
 * `agent run` end to end through real plugin subprocesses (the scripted
 * model and the filesystem tool): an approved write, a denied write the
 * model sees, `--json` output, and the exit codes 0, 1, 2, 3, 4 and 6.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  agent,
  jsonLines,
  makeProject,
  READ_TURN,
  README,
  WRITE_TURN,
} from "./_agent_project.ts";
import { run } from "../main.ts";

const DONE_TURN = {
  expect: "SUMMARY.md",
  text: "Done: SUMMARY.md has the summary.",
  usage: { input_tokens: 1_700, output_tokens: 12 },
};

Deno.test("agent run: reads, plans a write, is approved, writes and ends (exit 0)", async () => {
  await using p = await makeProject({
    turns: [READ_TURN, WRITE_TURN, DONE_TURN],
    files: { "README.md": README },
  });
  const r = await agent(p, [
    "run",
    "Summarize the README into SUMMARY.md",
    "--approve-all",
  ]);
  assert.equal(r.code, 0, r.err);
  assert.equal(
    await Deno.readTextFile(`${p.dir}/SUMMARY.md`),
    "# Summary\nA greeting.\n",
  );
  // The transcript on stdout: the read, the plan with its diff, the
  // approval, the write, the answer; the session on stderr.
  assert.match(r.out, /→ fs\.read_file README\.md\n✓ read_file: 2 lines/);
  assert.match(
    r.out,
    /plan fs\.write_file SUMMARY\.md \[moderate\] → ask \(policy:writes_ask\)/,
  );
  assert.match(
    r.out,
    /│ @@ -0,0 \+1,2 @@\n {2}│ \+# Summary\n {2}│ \+A greeting\./,
  );
  assert.match(r.out, /approved \(once, approval:callback\)/);
  assert.match(r.out, /Done: SUMMARY\.md has the summary\.\n$/);
  assert.match(r.err, /^session [0-9A-Z]{26} \(profile default\)\n/);
  assert.match(r.err, /completed · \$0\.0149 · session /);
});

Deno.test("agent run: a denied write is not applied and the model sees the denial", async () => {
  await using p = await makeProject({
    turns: [READ_TURN, WRITE_TURN, {
      expect: "denied by on_ask:deny",
      text: "The write was denied; here is the summary instead: a greeting.",
    }],
    files: { "README.md": README },
  });
  const r = await agent(p, ["run", "Summarize the README", "--json"]);
  assert.equal(r.code, 0, r.err);
  await assert.rejects(Deno.stat(`${p.dir}/SUMMARY.md`), Deno.errors.NotFound);
  const events = jsonLines(r.out);
  const denied = events.find((e) =>
    e.type === "tool_result" && e.tool === "write_file"
  );
  assert.equal(denied?.isError, true);
  assert.equal(denied?.deniedBy, "on_ask:deny");
  assert.equal(events.at(-1)?.status, "completed");
});

Deno.test("agent run --json: the session id first, one JSON event per line", async () => {
  await using p = await makeProject({
    turns: [READ_TURN, { expect: "Hello", text: "It says hello." }],
    files: { "README.md": README },
  });
  const r = await agent(p, ["run", "What does the README say?", "--json"]);
  assert.equal(r.code, 0, r.err);
  const lines = r.out.trimEnd().split("\n");
  const events = lines.map((l) => JSON.parse(l));
  assert.equal(events[0].type, "session_started");
  assert.match(events[0].sessionId, /^[0-9A-Z]{26}$/);
  assert.equal(events.at(-1).type, "session_ended");
  assert.equal(events.at(-1).sessionId, events[0].sessionId);
  assert.equal(events.at(-1).finalText, "It says hello.");
  assert.ok(events.some((e) => e.type === "text_delta"));
  assert.equal(r.err, "");
});

Deno.test("agent run exit codes: 3 usage, 2 config or lock, 1 task error", async () => {
  await using p = await makeProject({
    turns: [{ text: "Hi." }],
  });
  for (
    const args of [
      ["run"],
      ["run", "a", "b"],
      ["run", "x", "--on-ask", "maybe"],
      ["run", "x", "--frobnicate"],
      ["run", ""],
      ["sessions"],
      ["sessions", "show"],
      ["sessions", "frob"],
      ["nonsense"],
    ]
  ) {
    const r = await agent(p, args);
    assert.equal(r.code, 3, `${args.join(" ")}: ${r.err}`);
    assert.match(r.err, /\nerror: /);
  }
  // --locked without a lock file; an unknown profile; an invalid agent.hcl.
  let r = await agent(p, ["run", "hi", "--locked"]);
  assert.equal(r.code, 2, r.err);
  r = await agent(p, ["run", "hi", "--profile", "nope"]);
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, /nope/);
  await Deno.writeTextFile(
    `${p.dir}/agent.hcl`,
    (await Deno.readTextFile(`${p.dir}/agent.hcl`)).replace(
      "roots",
      "rootz",
    ),
  );
  r = await agent(p, ["run", "hi"]);
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, /rootz/);
  // Resuming a session that does not exist is a task error.
  await using q = await makeProject({ turns: [{ text: "Hi." }] });
  r = await agent(q, ["run", "hi", "--resume", "01J00000000000000000000000"]);
  assert.equal(r.code, 1, r.err);
});

Deno.test("agent run exit codes: 4 when --on-ask fail meets an ask, 6 on a provider error", async () => {
  await using p = await makeProject({
    turns: [READ_TURN, WRITE_TURN, { text: "unreachable" }],
    files: { "README.md": README },
  });
  let r = await agent(p, ["run", "Summarize", "--on-ask", "fail"]);
  assert.equal(r.code, 4, r.err);
  assert.match(r.err, /approval_required/);
  await assert.rejects(Deno.stat(`${p.dir}/SUMMARY.md`), Deno.errors.NotFound);

  await using q = await makeProject({
    turns: [{ error: { category: "auth_error", message: "bad key" } }],
  });
  r = await agent(q, ["run", "hi"]);
  assert.equal(r.code, 6, r.err);
  assert.match(r.err, /auth_error/);

  // A provider that cannot start (its script is missing) is a provider error.
  await Deno.remove(`${q.dir}/script.json`);
  r = await agent(q, ["run", "hi"]);
  assert.equal(r.code, 6, r.err);
  assert.match(r.err, /scripted/);
});

Deno.test("agent run: Ctrl-C cancels the session (exit 130, status cancelled)", async () => {
  await using p = await makeProject({
    turns: [{ text: "one two three four five six seven eight", delay_ms: 100 }],
  });
  let interrupt: (() => void) | undefined;
  let out = "";
  let err = "";
  const code = await run(["run", "Count slowly", "--json"], {
    stdout: (t) => {
      out += t;
      if (t.includes('"text":"one ') && interrupt) {
        interrupt();
        interrupt = undefined;
      }
    },
    stderr: (t) => (err += t),
    isTerminal: false,
    env: p.env,
    cwd: p.dir,
    onInterrupt: (h) => {
      interrupt = h;
      return () => {};
    },
  });
  assert.equal(code, 130, err);
  const end = jsonLines(out).at(-1)!;
  assert.equal(end.type, "session_ended");
  assert.equal(end.status, "cancelled");
  assert.doesNotMatch(out, /eight/);
});
