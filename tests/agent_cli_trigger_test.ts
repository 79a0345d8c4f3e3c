/**
 * The control plane end to end through the CLI and real plugin
 * subprocesses (the scripted model, the filesystem tool): `agent trigger`
 * resumes a stored session and the model reads the
 * `<cp:external-trigger>` block; `agent run --json` shows `control`
 * events; `agent run --goal` keeps going until `<cp:goal-status>`; a
 * typo in `control_plane { disable }` is a config error with a hint.
 *
 * @module
 */
import assert from "node:assert/strict";
import { agent, jsonLines, makeProject } from "./_agent_project.ts";
import { run } from "../main.ts";

Deno.test("agent trigger: a stored session is resumed and the model reads the external-trigger block (exit 0)", async () => {
  await using p = await makeProject({
    turns: [
      { expect: "hello", text: "Hi." },
      {
        expect: '<cp:external-trigger name="ci" target="',
        text: "Looking at the failed build.",
      },
    ],
  });
  const first = await agent(p, ["run", "hello", "--json"]);
  assert.equal(first.code, 0, first.err);
  const events = jsonLines(first.out);
  const sessionId = events[0]!.sessionId as string;
  const controls = events.filter((e) => e.type === "control");
  assert.deepEqual(
    controls.map((e) => e.channel),
    ["time", "permission-context"],
  );
  const r = await agent(p, [
    "trigger",
    sessionId,
    "The nightly build failed",
    "--name",
    "ci",
    "--json",
  ]);
  assert.equal(r.code, 0, r.err);
  const out = jsonLines(r.out);
  const trigger = out.find((e) =>
    e.type === "control" && e.channel === "external-trigger"
  );
  assert.deepEqual(trigger?.attributes, {
    name: "ci",
    target: sessionId,
    session: sessionId,
  });
  assert.equal(trigger?.wake, true);
  assert.equal(out.at(-1)?.status, "completed");
  assert.equal(out.at(-1)?.finalText, "Looking at the failed build.");
  // The replay shows the control events of both turns.
  const replay = await agent(p, ["sessions", "replay", sessionId]);
  assert.equal(replay.code, 0, replay.err);
  assert.match(replay.err + replay.out, /cp:external-trigger name=ci/);
});

Deno.test("agent trigger: usage errors and an unknown session", async () => {
  await using p = await makeProject({ turns: [{ text: "x" }] });
  const noText = await agent(p, ["trigger", "01ABC"]);
  assert.equal(noText.code, 3);
  assert.match(noText.err, /expected a session id and one text/);
  const badName = await agent(p, ["trigger", "01ABC", "x", "--name", "a b"]);
  assert.equal(badName.code, 3);
  assert.match(badName.err, /--name must be/);
  const unknown = await agent(p, [
    "trigger",
    "01JAAAAAAAAAAAAAAAAAAAAAAA",
    "x",
  ]);
  assert.notEqual(unknown.code, 0);
  assert.doesNotMatch(unknown.err, /^\s+at /m);
});

Deno.test("agent run --goal: the session goes on until the agent declares the goal done", async () => {
  await using p = await makeProject({
    turns: [
      { expect: "start", text: "Step one." },
      {
        expect: "Keep working toward the session goal: ship it",
        text:
          'Shipped.\n<cp:goal-status state="done">released 1.0</cp:goal-status>',
      },
    ],
  });
  const r = await agent(p, ["run", "start", "--goal", "ship it", "--json"]);
  assert.equal(r.code, 0, r.err);
  const events = jsonLines(r.out);
  const goal = events.find((e) =>
    e.type === "control" && e.channel === "goal-status"
  );
  assert.equal(goal?.body, "released 1.0");
  // Stripped from the stored message (and so from history and replay).
  const last = events.findLast((e) =>
    e.type === "message" && e.role === "assistant"
  );
  assert.equal(last?.text, "Shipped.");
});

Deno.test("control_plane { disable }: an unknown channel is a config error with a did-you-mean", async () => {
  await using p = await makeProject({
    turns: [{ text: "x" }],
    profile: 'control_plane {\n    disable = ["tim"]\n  }',
  });
  const r = await agent(p, ["run", "hello"]);
  assert.equal(r.code, 2);
  assert.match(r.err, /Unknown control-plane channel "tim"/);
  assert.match(r.err, /Did you mean "time"\?/);
});

Deno.test("allow_inject on a plugin whose manifest does not ask for it is a config error", async () => {
  await using p = await makeProject({
    turns: [{ text: "x" }],
    extraRequired: 'sh = { source = "builtin/exec", version = "~> 0.1" }',
    extraProviders:
      'provider "sh" {\n  allow_run    = ["bash"]\n  allow_read   = ["."]\n  allow_inject = true\n}\n',
  });
  const r = await agent(p, ["run", "hello"]);
  assert.equal(r.code, 2);
  assert.match(
    r.err,
    /Provider "sh" is granted allow_inject, but its plugin does not ask for it/,
  );
});

Deno.test("interactive agent: a background command's exit wakes the idle session (shell-exit through the real exec plugin)", async () => {
  await using p = await makeProject({
    turns: [
      {
        expect: "build it",
        tool_calls: [{
          id: "b1",
          name: "bash",
          arguments: {
            command:
              "while [ ! -f release ]; do sleep 0.05; done; printf '\\033[31mFAIL\\033[0m: 2 tests\\n'; exit 3",
            run_in_background: true,
          },
        }],
      },
      { text: "Started the build." },
      {
        expect: '<cp:shell-exit exec-id="bg_',
        text: "The build failed with exit code 3.",
      },
    ],
    extraRequired: 'sh = { source = "builtin/exec", version = "~> 0.1" }',
    extraProviders:
      'provider "sh" {\n  roots      = ["."]\n  allow_run  = ["bash"]\n  allow_read = ["."]\n}\n',
    policies:
      'policy "sh_ok" {\n  match  = { provider = "sh" }\n  action = "allow"\n}\n',
    tools: ["sh.*"],
  });
  let out = "";
  let err = "";
  let released = false;
  let done: () => void = () => {};
  const finished = new Promise<void>((r) => (done = r));
  const onOut = async () => {
    if (!released && out.includes("Started the build.")) {
      released = true;
      await Deno.writeTextFile(`${p.dir}/release`, "");
    }
    if (out.includes("The build failed with exit code 3.")) done();
  };
  // Never hang: give up (and fail below) after a minute.
  const guard = setTimeout(done, 60_000);
  const encoder = new TextEncoder();
  let step = 0;
  const stdin = new ReadableStream<Uint8Array>({
    async pull(c) {
      if (step++ === 0) return c.enqueue(encoder.encode("build it\n"));
      await finished;
      c.enqueue(encoder.encode("/exit\n"));
      c.close();
    },
  });
  const code = await run(["--dir", p.dir], {
    stdout: (t) => {
      out += t;
      void onOut();
    },
    stderr: (t) => (err += t),
    isTerminal: false,
    env: p.env,
    cwd: p.dir,
    stdin,
    stdinIsTerminal: false,
  });
  clearTimeout(guard);
  assert.equal(code, 0, err);
  assert.match(
    out,
    /Started the build\.[\s\S]*The build failed with exit code 3\./,
  );
  assert.match(
    err,
    /cp:shell-exit exec-id=bg_[0-9a-f]+ exit-code=3 .*\(woke the session\)/,
  );
});
