/**
 * `agent sessions list | show | replay | verify`; the kernel killed
 * (SIGKILL) mid-session and the session resumed with `--resume`; the
 * interactive `agent` (without a terminal, and with one); `deno task
 * demo` and the quickstart's lock file.
 *
 * @module
 */
import assert from "node:assert/strict";
import { DENO_ENV, runDeno } from "./_helpers.ts";
import {
  agent,
  jsonLines,
  makeProject,
  READ_TURN,
  README,
  REPO,
  WRITE_TURN,
} from "./_agent_project.ts";
import { type AgentIo, run } from "../main.ts";

Deno.test("agent sessions list, show, replay and verify a stored session", async () => {
  await using p = await makeProject({
    turns: [READ_TURN, WRITE_TURN, {
      expect: "SUMMARY.md",
      text: "Done.",
    }],
    files: { "README.md": README },
  });
  const ran = await agent(p, ["run", "Summarize", "--approve-all", "--json"]);
  assert.equal(ran.code, 0, ran.err);
  const id = jsonLines(ran.out)[0]!.sessionId as string;

  const list = await agent(p, ["sessions", "list"]);
  assert.equal(list.code, 0, list.err);
  assert.match(
    list.out,
    new RegExp(`^${id}  completed +default +\\$0\\.0\\d+`),
  );
  const listJson = JSON.parse(
    (await agent(p, ["sessions", "list", "--json"])).out,
  );
  assert.equal(listJson.sessions[0].sessionId, id);
  assert.equal(listJson.sessions[0].status, "completed");

  const show = await agent(p, ["sessions", "show", id]);
  assert.equal(show.code, 0, show.err);
  assert.match(show.out, /status +completed/);
  assert.match(show.out, /tool calls 2, plans 1/);
  assert.match(show.out, /final +Done\./);

  // Replay prints the same transcript without calling the model.
  const replay = await agent(p, ["sessions", "replay", id]);
  assert.equal(replay.code, 0, replay.err);
  assert.match(replay.out, /^> Summarize\n/);
  assert.match(replay.out, /plan fs\.write_file SUMMARY\.md/);
  assert.match(replay.out, /\+A greeting\./);
  assert.match(replay.out, /Done\.\n$/);
  const replayJson = jsonLines(
    (await agent(p, ["sessions", "replay", id, "--json"])).out,
  );
  assert.equal(replayJson[0]!.type, "session_started");
  assert.equal(replayJson.at(-1)!.type, "session_ended");

  const verify = await agent(p, ["sessions", "verify", id]);
  assert.equal(verify.code, 0, verify.err);
  assert.match(
    verify.out,
    /^ok: \d+ events, head [0-9a-f]{64}\nkeyed chain valid; head matches/,
  );

  const missing = await agent(p, [
    "sessions",
    "show",
    "01J00000000000000000000000",
  ]);
  assert.equal(missing.code, 1);
});

Deno.test("defect 13: agent run killed (SIGKILL) mid-turn lists as interrupted, not running; --resume continues the session", async () => {
  await using p = await makeProject({
    turns: [READ_TURN, {
      expect: "Hello from the project",
      text: "The README greets the reader, slowly, one word at a time here.",
      delay_ms: 80,
    }],
    files: { "README.md": README },
  });
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `${REPO}/main.ts`,
      "run",
      "What does the README say?",
      "--json",
    ],
    cwd: p.dir,
    // The project's HOME is a temporary directory: keep Deno's own cache.
    env: { ...p.env, ...DENO_ENV },
    clearEnv: true,
    stdout: "piped",
    stderr: "null",
  }).spawn();
  let id: string | undefined;
  let buffer = "";
  const lines = async function* () {
    for await (
      const chunk of child.stdout.pipeThrough(new TextDecoderStream())
    ) {
      buffer += chunk;
      let nl;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        yield buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
      }
    }
  };
  for await (const line of lines()) {
    const e = JSON.parse(line);
    if (e.type === "session_started") id = e.sessionId;
    // Kill during the second (slow) turn, after its first text arrived.
    if (e.type === "text_delta" && e.text.startsWith("The")) {
      child.kill("SIGKILL");
      break;
    }
  }
  const status = await child.status;
  assert.equal(status.signal, "SIGKILL");
  assert.ok(id);
  const listed = JSON.parse(
    (await agent(p, ["sessions", "list", "--json"])).out,
  );
  const entry = listed.sessions.find((s: { sessionId: string }) =>
    s.sessionId === id
  );
  assert.equal(entry.status, "interrupted");
  assert.equal(entry.interrupted, true);
  assert.equal(entry.owner.pid, child.pid);
  assert.equal(entry.owner.host, Deno.hostname());
  const text = await agent(p, ["sessions", "list"]);
  assert.match(text.out, new RegExp(`^${id}  interrupted `, "m"));
  const before = JSON.parse(
    (await agent(p, ["sessions", "show", id, "--json"])).out,
  );
  assert.equal(before.status, "interrupted");
  assert.equal(before.toolCalls, 1);

  const resumed = await agent(p, ["run", "--resume", id, "--json"]);
  assert.equal(resumed.code, 0, resumed.err);
  const events = jsonLines(resumed.out);
  assert.deepEqual(events[0], {
    type: "session_started",
    sessionId: id,
    profile: "default",
    resumed: true,
  });
  const end = events.at(-1)!;
  assert.equal(end.status, "completed");
  assert.match(end.finalText as string, /^The README greets the reader/);
  const after = JSON.parse(
    (await agent(p, ["sessions", "list", "--json"])).out,
  ).sessions.find((s: { sessionId: string }) => s.sessionId === id);
  assert.equal(after.status, "completed");
  assert.equal(after.owner, undefined, "the resumed run removed its owner row");
  const verify = await agent(p, ["sessions", "verify", id]);
  assert.equal(verify.code, 0, verify.out + verify.err);
});

Deno.test("agent (interactive) without a terminal: prompts from stdin, asks denied, /exit ends", async () => {
  await using p = await makeProject({
    turns: [READ_TURN, WRITE_TURN, {
      expect: "denied by on_ask:deny",
      text: "Could not write.",
    }, { expect: "again", text: "Still here." }],
    files: { "README.md": README },
  });
  const r = await agent(p, [], "Summarize\nagain\n/exit\nignored\n");
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /rejected \(once, on_ask:deny\)|denied by on_ask:deny/);
  assert.match(r.out, /Could not write\.\n> again\nStill here\.\n$/);
  assert.doesNotMatch(r.err, /approve/);
  await assert.rejects(Deno.stat(`${p.dir}/SUMMARY.md`), Deno.errors.NotFound);
});

Deno.test("agent (interactive) on a terminal: shows the plan and asks; y approves", async () => {
  await using p = await makeProject({
    turns: [READ_TURN, WRITE_TURN, { expect: "SUMMARY.md", text: "Written." }],
    files: { "README.md": README },
  });
  const r = await agent(p, [], "Summarize\ny\n/exit\n", true);
  assert.equal(r.code, 0, r.err);
  assert.match(
    r.err,
    /approve fs\.write_file\? \[y\]es once \/ \[s\]ession \/ \[a\]lways \/ \[n\]o: /,
  );
  assert.match(r.out, /plan fs\.write_file SUMMARY\.md/);
  assert.match(r.out, /approved \(once, approval:callback\)/);
  assert.match(r.out, /Written\.\n$/);
  assert.equal(
    await Deno.readTextFile(`${p.dir}/SUMMARY.md`),
    "# Summary\nA greeting.\n",
  );
});

const deno = (args: string[], env: Record<string, string> = {}) =>
  runDeno(args, { env });

Deno.test("deno task demo runs the quickstart, shows the diff and leaves the repo clean", async () => {
  if (Deno.env.get("UPDATE_GOLDEN") === "1") {
    const lock = await deno([
      "run",
      "-A",
      "main.ts",
      "lock",
      "examples/quickstart",
    ]);
    assert.equal(lock.code, 0, lock.stderr);
  }
  // Two independent processes (the demo runs in a temporary copy), run
  // side by side.
  const [check, r] = await Promise.all([
    deno([
      "run",
      "-A",
      "main.ts",
      "check-config",
      "examples/quickstart",
      "--locked",
      "--no-cache",
    ]),
    deno(["task", "demo"]),
  ]);
  assert.equal(check.code, 0, check.stdout + check.stderr);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /plan fs\.write_file SUMMARY\.md .* → ask/);
  assert.match(r.stdout, /approved \(once, approval:callback\)/);
  assert.match(
    r.stdout,
    /What the agent changed:\n--- \/dev\/null\n\+\+\+ b\/SUMMARY\.md\n\+# Summary of the 12 March sync\n/,
  );
  assert.match(r.stdout, /agent run exited with 0 \(success\)\./);
  await assert.rejects(
    Deno.stat(`${REPO}/examples/quickstart/SUMMARY.md`),
    Deno.errors.NotFound,
  );
});

Deno.test("agent (interactive): Ctrl-C interrupts the turn, not the session", async () => {
  await using p = await makeProject({
    turns: [
      { text: "one two three four five six seven eight", delay_ms: 100 },
      { text: "Still here." },
    ],
  });
  const input = new TransformStream<Uint8Array, Uint8Array>();
  const writer = input.writable.getWriter();
  const enc = new TextEncoder();
  let interrupt: (() => void) | undefined;
  let out = "";
  let err = "";
  const io: AgentIo = {
    stdout: (t) => {
      out += t;
      // Interrupt once the slow turn has started streaming.
      if (t.startsWith("one") && interrupt) {
        const i = interrupt;
        interrupt = undefined;
        setTimeout(() => {
          i();
          writer.write(enc.encode("again\n/exit\n"));
        }, 50);
      }
    },
    stderr: (t) => (err += t),
    isTerminal: false,
    env: p.env,
    cwd: p.dir,
    stdin: input.readable,
    stdinIsTerminal: true,
    onInterrupt: (h) => {
      interrupt = h;
      return () => {};
    },
  };
  writer.write(enc.encode("Count slowly\n"));
  const code = await run([], io);
  assert.equal(code, 0, err);
  assert.match(err, /\ninterrupted\n/);
  assert.match(out, /^> Count slowly\none /);
  assert.doesNotMatch(out, /eight/);
  // The session went on: the next prompt got an answer.
  assert.match(out, /\n> again\nStill here\.\n$/);
  assert.match(err, /completed · \$[\d.]+ · session /);
});

Deno.test("agent (interactive): 'always' is written to agent.hcl as a policy that later runs obey", async () => {
  await using p = await makeProject({
    turns: [READ_TURN, WRITE_TURN, { expect: "SUMMARY.md", text: "Written." }],
    files: { "README.md": README },
  });
  const r = await agent(p, [], "Summarize\na\n/exit\n", true);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /approved \(always, approval:callback\)/);
  const hcl = await Deno.readTextFile(`${p.dir}/agent.hcl`);
  assert.match(hcl, /policy "always_fs_write_file" \{/);
  await Deno.remove(`${p.dir}/SUMMARY.md`);
  // The next run needs no approval: --on-ask fail does not fire.
  const again = await agent(p, ["run", "Summarize", "--on-ask", "fail"]);
  assert.equal(again.code, 0, again.err);
  assert.match(again.out, /→ allow \(policy:always_fs_write_file\)/);
});
