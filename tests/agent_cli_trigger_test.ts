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
