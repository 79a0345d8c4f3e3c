/**
 * `agent run` when a bound fires (exit code 5): max_turns, max_cost_usd
 * (priced from the scripted model's declared pricing) and
 * max_wall_clock_s (a slow scripted turn), and the doom loop. Each runs
 * one final turn without tools, then ends with its status.
 *
 * @module
 */
import assert from "node:assert/strict";
import { agent, jsonLines, makeProject, README } from "./_agent_project.ts";

function read(path: string, extra: Record<string, unknown> = {}) {
  return {
    tool_calls: [{ name: "read_file", arguments: { path } }],
    ...extra,
  };
}

const FINAL = {
  expect: "Give your final answer now",
  text: "Final answer: partial.",
};

async function expectBound(
  turns: Record<string, unknown>[],
  profile: string,
  bound: string,
  status: string,
) {
  await using p = await makeProject({
    turns,
    profile,
    files: { "README.md": README, "a.md": "a\n", "b.md": "b\n", "c.md": "c\n" },
  });
  const r = await agent(p, ["run", "Read everything", "--json"]);
  assert.equal(r.code, 5, r.err + r.out.slice(-2000));
  const events = jsonLines(r.out);
  assert.ok(
    events.some((e) => e.type === "bound_fired" && e.bound === bound),
    bound,
  );
  const final = events.filter((e) => e.type === "turn_started").at(-1);
  assert.equal(final?.final, true);
  const end = events.at(-1)!;
  assert.equal(end.type, "session_ended");
  assert.equal(end.status, status);
  assert.equal(end.boundFired, bound);
  assert.equal(end.finalText, "Final answer: partial.");
  return events;
}

Deno.test("agent run: max_turns fires, one final turn, exit 5", async () => {
  const events = await expectBound(
    [read("a.md"), read("b.md"), FINAL],
    "max_turns = 2",
    "max_turns",
    "error_max_turns",
  );
  assert.equal(events.filter((e) => e.type === "turn_started").length, 3);
});

Deno.test("agent run: max_cost_usd fires from the model's pricing, exit 5", async () => {
  // 1M input tokens at $3 / Mtok: the first turn spends $3 > $1.
  await expectBound(
    [
      read("a.md", { usage: { input_tokens: 1_000_000, output_tokens: 10 } }),
      { ...FINAL, usage: { input_tokens: 10, output_tokens: 5 } },
    ],
    "max_cost_usd = 1",
    "max_cost_usd",
    "error_max_budget_usd",
  );
});

Deno.test("agent run: max_wall_clock_s fires after a slow turn, exit 5", async () => {
  await expectBound(
    [
      read("a.md", {
        text: "Reading slowly, one word at a time.",
        delay_ms: 150,
      }),
      FINAL,
    ],
    "max_wall_clock_s = 1",
    "max_wall_clock_s",
    "error_max_wall_clock",
  );
});

Deno.test("agent run: a doom loop (the same call 4 times) ends the session, exit 5", async () => {
  await expectBound(
    [read("a.md"), read("a.md"), read("a.md"), read("a.md"), FINAL],
    "",
    "doom_loop",
    "completed",
  );
});

Deno.test("agent run: doom_loop_threshold from agent.hcl (2) ends the loop on the second identical call", async () => {
  await expectBound(
    [read("a.md"), read("a.md"), FINAL],
    "doom_loop_threshold = 2",
    "doom_loop",
    "completed",
  );
});
