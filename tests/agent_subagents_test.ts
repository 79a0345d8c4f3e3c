/**
 * Sub-agents end to end (kernel.md §6.7; the MUST rows 22–29 of §6.9):
 * `openKernel` on a temporary project whose sessions spawn children through
 * the `spawner` fixture (tests/fixtures/spawner), a tool plugin that calls
 * the kernel's `RunSession`. Each profile runs its own `builtin/scripted`
 * model (the scripted model picks its turn by the number of assistant
 * messages, so a parent and a child need separate scripts).
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { openKernel } from "../kernel/kernel.ts";
import { openSessions } from "../kernel/open_sessions.ts";
import type { SessionEvent } from "../kernel/agent/session_events.ts";
import { SessionStatus } from "../proto/gen/pluggableharness/session/v1/types_pb.ts";
import { PATH } from "./_helpers.ts";
import type { Turn } from "./_agent_project.ts";
import { BUILTINS } from "../plugins/builtin.ts";

const SPAWNER = fileURLToPath(new URL("./fixtures/spawner", import.meta.url));

/** A profile: its model provider (one scripted instance each), tools, extras. */
interface ProfileDef {
  model: string;
  tools?: string[];
  extra?: string;
}

interface Fixture extends AsyncDisposable {
  dir: string;
  sessionsDir: string;
  kernel: Awaited<ReturnType<typeof openKernel>>;
}

/**
 * A project with one scripted model provider per script and the spawner,
 * and the given profiles; the kernel opened on it.
 */
async function fixture(
  scripts: Record<string, Turn[]>,
  profiles: Record<string, ProfileDef>,
): Promise<Fixture> {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-agent-sub-" }),
  );
  const dir = `${root}/project`;
  await Deno.mkdir(dir);
  const models = Object.keys(scripts);
  const hcl = `required_providers {
${
    models.map((m) =>
      `  ${m} = { source = "builtin/scripted", version = "~> 0.1" }`
    ).join("\n")
  }
  agents = { source = ${JSON.stringify(SPAWNER)}, version = "~> 0.1" }
}
${
    models.map((m) =>
      `provider "${m}" {
  script     = "./${m}.json"
  allow_read = ["."]
}`
    ).join("\n")
  }

policy "reads_ok" {
  match  = { kind = "data_source" }
  action = "allow"
}
${
    Object.entries(profiles).map(([name, p]) =>
      `agent_profile "${name}" {
  model {
    primary {
      provider = "${p.model}"
      id       = "scripted"
    }
  }
  tools = ${JSON.stringify(p.tools ?? ["agents.*"])}
  ${p.extra ?? ""}
}`
    ).join("\n")
  }
`;
  await Deno.writeTextFile(`${dir}/agent.hcl`, hcl);
  for (const [m, turns] of Object.entries(scripts)) {
    await Deno.writeTextFile(`${dir}/${m}.json`, JSON.stringify({ turns }));
  }
  const sessionsDir = `${root}/sessions`;
  const kernel = await openKernel(dir, {
    builtins: BUILTINS,
    env: { PATH, HOME: root, XDG_STATE_HOME: `${root}/state` },
    sessionsDir,
  });
  return {
    dir,
    sessionsDir,
    kernel,
    [Symbol.asyncDispose]: async () => {
      await kernel.close();
      await Deno.remove(root, { recursive: true });
    },
  };
}

function spawn(
  id: string,
  profile: string,
  prompt: string,
  extra: Record<string, unknown> = {},
) {
  return {
    id,
    name: "spawn_subagent",
    arguments: { profile, prompt, ...extra },
  };
}

async function runAll(
  f: Fixture,
  prompt: string,
  options: { signal?: AbortSignal } = {},
) {
  const run = f.kernel.run(prompt, options);
  const events: SessionEvent[] = [];
  for await (const e of run) events.push(e);
  return { events, outcome: await run.result };
}

// deno-lint-ignore no-explicit-any
type Json = any;

/** The tool results of a run, parsed, in order. */
function toolResults(events: SessionEvent[]): Json[] {
  return events.flatMap((e) =>
    e.type === "tool_result" ? [{ ...e, json: parse(e.text) }] : []
  );
}

function parse(text: string | undefined): Json {
  try {
    return JSON.parse(text ?? "");
  } catch {
    return undefined;
  }
}

async function replay(f: Fixture, sessionId: string): Promise<SessionEvent[]> {
  const out: SessionEvent[] = [];
  for await (const e of f.kernel.sessions.replay(sessionId)) out.push(e);
  return out;
}

Deno.test("§6.9-22 a child session starts with fresh context: only its prompt", async () => {
  await using f = await fixture({
    scripted: [
      {
        text: "Delegating.",
        tool_calls: [spawn("toolu_1", "worker", "Count the words in PROMPT-B")],
      },
      { expect: "worker says 42", text: "The worker says 42." },
    ],
    // Turn 0 only: a child that saw the parent's history (one assistant
    // message already) would be asked for turn 1, which does not exist.
    worker: [{ expect: "Count the words in PROMPT-B", text: "worker says 42" }],
  }, {
    default: { model: "scripted" },
    worker: { model: "worker", tools: [] },
  });
  const { events, outcome } = await runAll(f, "ROOT-SECRET task");
  assert.equal(outcome.status, "completed");
  const [r] = toolResults(events);
  assert.equal(r.json.status, "completed");
  assert.equal(r.json.final_text, "worker says 42");
  const child = await replay(f, r.json.session_id);
  const messages = child.filter((e) => e.type === "message");
  assert.equal(messages[0]?.type === "message" && messages[0].role, "user");
  assert.equal(
    messages[0]?.type === "message" && messages[0].text,
    "Count the words in PROMPT-B",
  );
  assert.equal(messages.length, 2); // the prompt and the answer
  // Nothing of the parent's history is in the child's file.
  assert.ok(!JSON.stringify(child).includes("ROOT-SECRET"));
  assert.ok(!JSON.stringify(child).includes("Delegating"));
});

Deno.test("§6.9-23 max_concurrent_subagents caps a parent's in-flight children; the rest queue", async () => {
  await using f = await fixture({
    scripted: [
      {
        tool_calls: [1, 2, 3, 4].map((i) =>
          spawn(`toolu_${i}`, "worker", `job ${i}`)
        ),
      },
      { text: "All four are done." },
    ],
    worker: [{ text: "one two three four five six", delay_ms: 60 }],
  }, {
    default: { model: "scripted", extra: "max_concurrent_subagents = 2" },
    worker: { model: "worker", tools: [] },
  });
  const { events, outcome } = await runAll(f, "Run four jobs");
  assert.equal(outcome.status, "completed");
  assert.deepEqual(
    toolResults(events).map((r) => r.json.status),
    ["completed", "completed", "completed", "completed"],
  );
  const { sessions } = await f.kernel.sessions.list({
    parentSessionId: outcome.sessionId,
  });
  assert.equal(sessions.length, 4);
  // The most children alive at once, from their start and end times.
  const points = sessions.flatMap((s) => [
    [Date.parse(s.startedAt), 1],
    [Date.parse(s.endedAt!), -1],
  ]).sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  let alive = 0;
  let most = 0;
  for (const [, d] of points) most = Math.max(most, alive += d!);
  assert.equal(most, 2);
});

Deno.test("§6.9-24 the parent's turn joins on every child spawned in it", async () => {
  await using f = await fixture({
    scripted: [
      {
        tool_calls: [
          spawn("toolu_fast", "fast", "quick job"),
          spawn("toolu_slow", "slow", "slow job"),
        ],
      },
      {
        expect: ["fast answer", "slow answer"],
        text: "Both answers are in.",
      },
    ],
    fast: [{ text: "fast answer" }],
    slow: [{ text: "slow answer after a while", delay_ms: 150 }],
  }, {
    default: { model: "scripted" },
    fast: { model: "fast", tools: [] },
    slow: { model: "slow", tools: [] },
  });
  const { events, outcome } = await runAll(f, "Run two jobs");
  assert.equal(outcome.status, "completed");
  // Both results come before the parent's next model call.
  const order = events.flatMap((e) =>
    e.type === "tool_result"
      ? [`result:${e.callId}`]
      : e.type === "message" && e.role === "assistant"
      ? ["assistant"]
      : []
  );
  assert.deepEqual(order, [
    "assistant",
    "result:toolu_fast",
    "result:toolu_slow",
    "assistant",
  ]);
  const { sessions } = await f.kernel.sessions.list({
    parentSessionId: outcome.sessionId,
  });
  assert.ok(sessions.every((s) => s.status === SessionStatus.COMPLETED));
});

Deno.test("§6.9-25 children are found by scanning parent_session_id", async () => {
  await using f = await fixture({
    scripted: [
      { tool_calls: [spawn("toolu_a", "worker", "job a")] },
      { tool_calls: [spawn("toolu_b", "worker", "job b")] },
      { text: "Done." },
    ],
    worker: [{
      text: "worker done",
      usage: { input_tokens: 10, output_tokens: 2 },
    }],
  }, {
    default: { model: "scripted" },
    worker: { model: "worker", tools: [] },
  });
  const { events, outcome } = await runAll(f, "Run two jobs");
  assert.equal(outcome.status, "completed");
  const ids = toolResults(events).map((r) => r.json.session_id).sort();
  await f.kernel.close();
  // A fresh reader of the files alone (no live kernel) finds the children.
  await using store = openSessions({ sessionsDir: f.sessionsDir });
  const children = (await store.list({ parentSessionId: outcome.sessionId }))
    .sessions;
  assert.deepEqual(children.map((s) => s.sessionId).sort(), ids);
  for (const c of children) {
    assert.equal(c.parentSessionId, outcome.sessionId);
    assert.equal(c.profile, "worker");
    assert.equal(c.depth, 1);
  }
  const roots = (await store.list({ rootsOnly: true })).sessions;
  assert.deepEqual(roots.map((s) => s.sessionId), [outcome.sessionId]);
});

Deno.test("§6.9-26 the depth cap is structural: spawn tools are removed at depth 0", async (t) => {
  await t.step(
    "max_depth = 0 on the root: no spawn tool, RunSession refused",
    async () => {
      await using f = await fixture({
        scripted: [
          {
            tool_calls: [
              spawn("toolu_spawn", "worker", "never runs"),
              {
                id: "toolu_raw",
                name: "spawn_raw",
                arguments: { request: { profile: "worker", prompt: "x" } },
              },
            ],
          },
          { text: "Could not delegate." },
        ],
        worker: [{ text: "never" }],
      }, {
        default: { model: "scripted", extra: "max_depth = 0" },
        worker: { model: "worker", tools: [] },
      });
      const { events, outcome } = await runAll(f, "Delegate");
      assert.equal(outcome.status, "completed");
      const [spawned, raw] = toolResults(events);
      assert.equal(spawned.callId, "toolu_spawn");
      assert.equal(spawned.isError, true);
      assert.match(spawned.text, /is not available in this session/);
      assert.equal(raw.json.error.code, "FAILED_PRECONDITION");
      assert.match(raw.json.error.message, /remaining depth is 0/);
      const { sessions } = await f.kernel.sessions.list({});
      assert.equal(sessions.length, 1);
    },
  );

  await t.step(
    "root max_depth = 2 → lead min(1, 5) = 1 → worker 0",
    async () => {
      await using f = await fixture({
        scripted: [
          { tool_calls: [spawn("toolu_lead", "lead", "lead the work")] },
          { expect: "lead done", text: "Done." },
        ],
        lead: [
          {
            tool_calls: [
              { id: "toolu_peek", name: "peek_session", arguments: {} },
              spawn("toolu_worker", "worker", "work"),
            ],
          },
          { expect: ['"remaining_depth":1', "worker done"], text: "lead done" },
        ],
        worker: [
          {
            tool_calls: [
              { id: "toolu_wpeek", name: "peek_session", arguments: {} },
              spawn("toolu_deeper", "worker", "deeper"),
            ],
          },
          {
            expect: ['"remaining_depth":0', "is not available in this session"],
            text: "worker done",
          },
        ],
      }, {
        default: { model: "scripted", extra: "max_depth = 2" },
        lead: { model: "lead", extra: "max_depth = 5" },
        worker: { model: "worker", extra: "max_depth = 5" },
      });
      const { events, outcome } = await runAll(f, "Delegate");
      assert.equal(outcome.status, "completed");
      assert.equal(toolResults(events)[0].json.final_text, "lead done");
      const { sessions } = await f.kernel.sessions.list({});
      assert.deepEqual(
        sessions.map((s) => [s.profile, s.depth]).sort(),
        [["default", 0], ["lead", 1], ["worker", 2]],
      );
    },
  );
});

Deno.test("§6.9-27 recursion is denied by default: a child without max_depth cannot spawn", async () => {
  await using f = await fixture({
    scripted: [
      { tool_calls: [spawn("toolu_1", "worker", "try to recurse")] },
      { expect: "worker done", text: "Done." },
    ],
    worker: [
      {
        tool_calls: [
          spawn("toolu_again", "worker", "recurse"),
          {
            id: "toolu_raw",
            name: "spawn_raw",
            arguments: { request: { profile: "worker", prompt: "recurse" } },
          },
        ],
      },
      {
        expect: ["is not available in this session", "FAILED_PRECONDITION"],
        text: "worker done",
      },
    ],
  }, {
    // The root has no max_depth either: the kernel default lets it spawn.
    default: { model: "scripted" },
    worker: { model: "worker" },
  });
  const { events, outcome } = await runAll(f, "Delegate");
  assert.equal(outcome.status, "completed");
  const child = toolResults(events)[0].json;
  assert.equal(child.status, "completed");
  const grandchildren = await f.kernel.sessions.list({
    parentSessionId: child.session_id,
  });
  assert.equal(grandchildren.sessions.length, 0);
});

Deno.test("§6.9-28 cancelling the parent cascades to every in-flight descendant", async () => {
  await using f = await fixture({
    scripted: [
      { tool_calls: [spawn("toolu_lead", "lead", "lead the work")] },
      { text: "never reached" },
    ],
    lead: [
      { tool_calls: [spawn("toolu_worker", "worker", "long work")] },
      { text: "never reached" },
    ],
    worker: [{
      text: Array.from({ length: 200 }, (_, i) => `word${i}`).join(" "),
      delay_ms: 50,
    }],
  }, {
    default: { model: "scripted" },
    lead: { model: "lead", extra: "max_depth = 1" },
    worker: { model: "worker", tools: [] },
  });
  const ac = new AbortController();
  const run = f.kernel.run("Delegate", { signal: ac.signal });
  const drained = (async () => {
    for await (const _ of run);
  })();
  // Wait until the grandchild is streaming, then cancel the root.
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { sessions } = await f.kernel.sessions.list({});
    const worker = sessions.find((s) => s.depth === 2);
    if (worker) {
      const events = await replay(f, worker.sessionId).catch(() => []);
      if (events.length > 0) break;
    }
    assert.ok(Date.now() < deadline, "the grandchild never started");
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 300)); // a few words streamed
  ac.abort();
  const outcome = await run.result;
  await drained;
  assert.equal(outcome.status, "cancelled");
  await f.kernel.close(); // waits for every child to record its end
  await using store = openSessions({ sessionsDir: f.sessionsDir });
  const all = (await store.list({})).sessions;
  assert.equal(all.length, 3);
  for (const s of all) {
    assert.equal(s.status, SessionStatus.CANCELLED, `${s.profile} ${s.status}`);
    assert.ok(s.endedAt, `${s.profile} has no end time`);
  }
  // The worker's partial answer is kept for audit.
  const worker = all.find((s) => s.depth === 2)!;
  const events: SessionEvent[] = [];
  for await (const e of store.replay(worker.sessionId)) events.push(e);
  const partial = events.find((e) =>
    e.type === "message" && e.role === "assistant"
  );
  assert.ok(partial?.type === "message" && partial.text.startsWith("word0"));
});

Deno.test("§6.9-29 no sibling channel: a child cannot reach a sibling, even by id", async () => {
  // There is no RPC that addresses another session: RunSession only names
  // its caller's own session as parent and returns only its own child's
  // final message; every session-scoped RPC needs a grant on the named
  // session, which only a plugin invoked for that very session holds.
  await using f = await fixture({
    scripted: [
      { tool_calls: [spawn("toolu_a", "first", "job a")] },
      { tool_calls: [spawn("toolu_b", "second", "job b")] },
      { expect: "b cannot reach a", text: "Done." },
    ],
    first: [{ text: "a's private answer" }],
    second: [
      {
        tool_calls: [
          {
            id: "toolu_peek",
            name: "peek_session",
            arguments: { session_id: "$last_spawned" },
          },
          {
            id: "toolu_into",
            name: "spawn_raw",
            arguments: {
              request: {
                profile: "first",
                prompt: "hello sibling",
                parentSessionId: "$last_spawned",
              },
            },
          },
          {
            id: "toolu_unknown",
            name: "peek_session",
            arguments: { session_id: "01J0000000000000000000000A" },
          },
        ],
      },
      { expect: "PERMISSION_DENIED", text: "b cannot reach a" },
    ],
  }, {
    default: { model: "scripted" },
    first: { model: "first", tools: [] },
    second: { model: "second" },
  });
  const { events, outcome } = await runAll(f, "Run two jobs");
  assert.equal(outcome.status, "completed");
  const [a, b] = toolResults(events).map((r) => r.json);
  assert.equal(a.final_text, "a's private answer");
  assert.equal(b.final_text, "b cannot reach a");
  const inB = toolResults(await replay(f, b.session_id)).map((r) => r.json);
  assert.equal(inB.length, 3);
  // The sibling's id gets the same refusal as an id that does not exist.
  for (const r of inB) assert.equal(r.error.code, "PERMISSION_DENIED");
  assert.equal(inB[0].error.message, inB[2].error.message);
  assert.ok(!JSON.stringify(inB).includes("private answer"));
  // Nothing was spawned under the sibling.
  const underA = await f.kernel.sessions.list({
    parentSessionId: a.session_id,
  });
  assert.equal(underA.sessions.length, 0);
});

Deno.test("§6.7 RunSession: budgets only narrow, scope cannot widen, usage rolls up the subtree", async () => {
  await using f = await fixture({
    scripted: [
      {
        tool_calls: [
          spawn("toolu_lead", "lead", "lead the work", { max_cost_usd: 0.25 }),
          spawn("toolu_wide", "lead", "widened", {
            providers: [{ category: "tool", name: "nope" }],
          }),
        ],
        usage: { input_tokens: 1_000, output_tokens: 100 },
      },
      { text: "Done.", usage: { input_tokens: 10, output_tokens: 1 } },
    ],
    lead: [
      {
        tool_calls: [spawn("toolu_worker", "worker", "work")],
        usage: { input_tokens: 2_000, output_tokens: 200 },
      },
      {
        expect: "worker done",
        tool_calls: [{ id: "toolu_peek", name: "peek_session", arguments: {} }],
        usage: { input_tokens: 3_000, output_tokens: 300 },
      },
      { text: "lead done", usage: { input_tokens: 500, output_tokens: 50 } },
    ],
    worker: [{
      text: "worker done",
      usage: { input_tokens: 4_000, output_tokens: 400 },
    }],
  }, {
    default: { model: "scripted", extra: "max_cost_usd = 1.0" },
    lead: { model: "lead", extra: "max_cost_usd = 0.5\n  max_depth = 1" },
    worker: { model: "worker", tools: [] },
  });
  const { events, outcome } = await runAll(f, "Delegate");
  assert.equal(outcome.status, "completed");
  const results = toolResults(events);
  const lead = results.find((r) => r.callId === "toolu_lead").json;
  const wide = results.find((r) => r.callId === "toolu_wide").json;
  assert.equal(wide.error.code, "INVALID_ARGUMENT");
  assert.match(wide.error.message, /may only narrow/);
  // Default pricing: $3 / $15 per million input / output tokens.
  const cost = (i: number, o: number) => (i * 3 + o * 15) / 1e6;
  assert.equal(lead.status, "completed");
  assert.equal(lead.final_text, "lead done");
  assert.equal(lead.total_input_tokens, 2_000 + 3_000 + 500 + 4_000);
  assert.equal(lead.total_output_tokens, 200 + 300 + 50 + 400);
  const leadSpend = cost(2_000, 200) + cost(3_000, 300) + cost(500, 50) +
    cost(4_000, 400);
  assert.ok(Math.abs(lead.total_cost_usd - leadSpend) < 1e-12);
  // The lead's budget: min(root 1.0 − root spend, request 0.25, lead 0.5)
  // = 0.25, then debited by its own spend and its child's.
  const peek = toolResults(await replay(f, lead.session_id))
    .find((r) => r.callId === "toolu_peek").json;
  assert.ok(
    Math.abs(
      peek.remaining_cost_budget_usd -
        (0.25 - cost(2_000, 200) - cost(4_000, 400) - cost(3_000, 300)),
    ) < 1e-12,
  );
  assert.equal(peek.remaining_depth, 1); // min(3 − 1, lead max_depth 1)
  const { sessions } = await f.kernel.sessions.list({});
  const stored = sessions.reduce((sum, s) => sum + (s.costUsd ?? 0), 0);
  assert.ok(
    Math.abs(stored - (lead.total_cost_usd + cost(1_000, 100) + cost(10, 1))) <
      1e-12,
  );
});
