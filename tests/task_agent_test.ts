/**
 * The `task` provider through the agent loop: a scripted model creates and
 * updates tasks in one run, then the session is resumed and lists them —
 * the list is rebuilt from the session's stored events by a freshly
 * started plugin.
 */
import assert from "node:assert/strict";
import { agent, jsonLines, makeProject } from "./_agent_project.ts";

Deno.test("task: a scripted session creates and updates tasks; the resumed session lists them", async () => {
  await using p = await makeProject({
    extraRequired: `tasks = { source = "builtin/task", version = "~> 0.1" }`,
    extraProviders: `provider "tasks" {}\n`,
    tools: ["tasks.*"],
    turns: [
      {
        text: "Planning.",
        tool_calls: [
          {
            id: "toolu_c1",
            name: "task_create",
            arguments: { subject: "Read the README" },
          },
          {
            id: "toolu_c2",
            name: "task_create",
            arguments: { subject: "Write a summary", description: "short" },
          },
        ],
      },
      {
        expect: "Write a summary",
        tool_calls: [{
          id: "toolu_u1",
          name: "task_update",
          arguments: { id: "1", status: "completed" },
        }],
      },
      { expect: "[x] 1. Read the README", text: "Planned." },
      {
        expect: "What is left",
        tool_calls: [{
          id: "toolu_l1",
          name: "task_list",
          arguments: { status: "pending" },
        }],
      },
      { expect: "Write a summary", text: "One task is left." },
    ],
  });
  const first = await agent(p, ["run", "Plan it", "--approve-all", "--json"]);
  assert.equal(first.code, 0, first.err + first.out);
  const events = jsonLines(first.out);
  const id = events[0]!.sessionId as string;
  assert.equal(events.at(-1)!.status, "completed");
  const results = events.filter((e) => e.type === "tool_result");
  assert.deepEqual(
    results.map((e) => [e.tool, e.isError]),
    [["task_create", false], ["task_create", false], ["task_update", false]],
  );

  const resumed = await agent(p, [
    "run",
    "What is left?",
    "--resume",
    id,
    "--approve-all",
    "--json",
  ]);
  assert.equal(resumed.code, 0, resumed.err + resumed.out);
  const again = jsonLines(resumed.out);
  assert.equal(again[0]!.resumed, true);
  const list = again.find((e) => e.type === "tool_result")!;
  assert.equal(list.tool, "task_list");
  const tasks = (list.result as { tasks: { id: string; status: string }[] })
    .tasks;
  assert.deepEqual(tasks.map((t) => [t.id, t.status]), [["2", "pending"]]);
  assert.equal(
    (list.result as { list: string }).list,
    "[x] 1. Read the README\n[ ] 2. Write a summary",
  );
  assert.equal(again.at(-1)!.finalText, "One task is left.");
});
