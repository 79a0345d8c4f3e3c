/**
 * `user`/`ask_user` end to end: the real `user` plugin streams its prompt,
 * the kernel surfaces it (CLI prompt, library callback, an external
 * `resolveInteractive`), and the first answer becomes the call's result the
 * model reads. Headless runs never hang: `on_ask` decides.
 *
 * @module
 */
import assert from "node:assert/strict";
import { openKernel } from "../kernel/kernel.ts";
import type { SessionEvent } from "../kernel/agent/session_events.ts";
import { agent, jsonLines, makeProject, type Turn } from "./_agent_project.ts";
import { interpretAnswer } from "../cli/commands/interactive.ts";
import { BUILTINS } from "../plugins/builtin.ts";

const ASK: Turn = {
  text: "One question first.",
  tool_calls: [{
    id: "toolu_ask",
    name: "ask_user",
    arguments: {
      question: "Which colour should the button be?",
      options: [
        { label: "red", description: "Warm" },
        { label: "blue" },
      ],
    },
  }],
};

const USER = {
  extraRequired: `ask = { source = "builtin/user", version = "~> 0.1" }`,
  extraProviders: `provider "ask" {}`,
  tools: ["fs.*", "ask.*"],
};

Deno.test("ask_user in the interactive CLI: the question is shown and the option number becomes the answer", async () => {
  await using p = await makeProject({
    ...USER,
    turns: [ASK, { expect: "blue", text: "Blue it is." }],
  });
  const r = await agent(p, [], "Style the button\n2\n/exit\n", true);
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /\? Which colour should the button be\?/);
  assert.match(r.err, /1\. red — Warm/);
  assert.match(r.err, /2\. blue/);
  assert.match(r.out, /Blue it is\./);
});

Deno.test("ask_user headless: on_ask deny tells the model nobody can answer, and the run goes on", async () => {
  await using p = await makeProject({
    ...USER,
    turns: [ASK, {
      expect: "Nobody can answer",
      text: "I will assume blue.",
    }],
  });
  const r = await agent(p, ["run", "Style the button", "--json"]);
  assert.equal(r.code, 0, r.err);
  const events = jsonLines(r.out);
  const asked = events.find((e) => e.type === "interactive_requested");
  assert.deepEqual(asked?.prompt, {
    multi_select: false,
    options: [{ description: "Warm", label: "red" }, { label: "blue" }],
    question: "Which colour should the button be?",
  });
  const resolved = events.find((e) => e.type === "interactive_resolved");
  assert.equal(resolved?.answered, false);
  assert.equal(resolved?.decidedBy, "on_ask:deny");
  assert.match(r.out, /I will assume blue\./);
});

Deno.test("ask_user headless with --on-ask fail ends the run with exit code 4", async () => {
  await using p = await makeProject({ ...USER, turns: [ASK] });
  const r = await agent(p, ["run", "Style the button", "--on-ask", "fail"]);
  assert.equal(r.code, 4, r.out + r.err);
  assert.match(r.err, /approval_required/);
});

Deno.test("ask_user from mod.ts: the answer callback and an external resolveInteractive (first answer wins)", async () => {
  await using p = await makeProject({
    ...USER,
    turns: [
      ASK,
      { expect: "green", text: "Green, then." },
      {
        ...ASK,
        tool_calls: [{
          ...(ASK.tool_calls as Record<string, unknown>[])[0],
          id: "toolu_ask2",
        }],
      },
      { expect: "red", text: "Red, then." },
    ],
  });
  await using kernel = await openKernel(p.dir, {
    builtins: BUILTINS,
    env: p.env,
    sessionsDir: `${p.env.XDG_STATE_HOME}/agent/sessions`,
  });
  const prompts: string[] = [];
  const run = kernel.run("Style the button", {
    answer: (request) => {
      prompts.push(String(request.prompt.question));
      return Promise.resolve({ answer: "green" });
    },
  });
  const events: SessionEvent[] = [];
  for await (const e of run) events.push(e);
  const outcome = await run.result;
  assert.equal(outcome.status, "completed");
  assert.equal(outcome.finalText, "Green, then.");
  assert.deepEqual(prompts, ["Which colour should the button be?"]);
  const result = events.find((e) => e.type === "tool_result");
  assert.ok(result?.type === "tool_result");
  assert.deepEqual(result.result, { answer: "green" });

  // An external answer (a UI, ResolveInteractive) beats a slow callback.
  await using session = await kernel.session({
    resumeId: outcome.sessionId,
    onAsk: "callback",
    answer: (_r, { signal }) =>
      new Promise((_resolve, reject) =>
        signal.addEventListener("abort", () => reject(signal.reason))
      ),
    onEvent: (e) => {
      if (e.type === "interactive_requested") {
        queueMicrotask(() => {
          assert.equal(
            session.resolveInteractive(e.callId, { answer: "red" }),
            true,
          );
          assert.equal(
            session.resolveInteractive(e.callId, { answer: "late" }),
            false,
            "a second answer is refused",
          );
        });
      }
    },
  });
  const turn = session.send("Again");
  for await (const _ of turn) { /* drain */ }
  assert.equal((await turn.result).finalText, "Red, then.");
});

Deno.test("an ask_user call with bad arguments is refused before anyone is asked", async () => {
  await using p = await makeProject({
    ...USER,
    turns: [
      {
        tool_calls: [{
          id: "toolu_bad",
          name: "ask_user",
          arguments: {
            question: "  ",
            options: [{ label: "a" }, { label: "a" }],
          },
        }],
      },
      { expect: "non-empty string", text: "Sorry." },
    ],
  });
  const r = await agent(p, ["run", "go", "--json"]);
  assert.equal(r.code, 0, r.err);
  const events = jsonLines(r.out);
  assert.equal(
    events.filter((e) => e.type === "interactive_requested").length,
    0,
  );
});

Deno.test("interpretAnswer maps option numbers to labels and keeps free text", () => {
  assert.equal(interpretAnswer("2", ["red", "blue"]), "blue");
  assert.equal(interpretAnswer("1, 2", ["red", "blue"]), "red, blue");
  assert.equal(interpretAnswer("3", ["red", "blue"]), "3");
  assert.equal(
    interpretAnswer("purple please", ["red", "blue"]),
    "purple please",
  );
  assert.equal(interpretAnswer("1", []), "1");
});
