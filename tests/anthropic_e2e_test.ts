/**
 * A full tool-using session through the agent loop with the `anthropic`
 * provider against the fake Messages API: the model reads README.md with
 * the filesystem tool, then answers. Once from the CLI (`agent run`), once
 * from the library (`openKernel` in mod.ts). The kernel prices each usage
 * event from the roster's declared pricing and persists it (MUST 23).
 *
 * @module
 */
import assert from "node:assert/strict";
import { openKernel, openSessions } from "../mod.ts";
import type { AgentIo } from "../main.ts";
import { run } from "../main.ts";
import models from "../plugins/anthropic/models.json" with { type: "json" };
import {
  ev,
  type FakeAnthropic,
  type SseFrame,
  startFakeAnthropic,
  toolReply,
} from "./_fake_anthropic.ts";
import { PATH } from "./_helpers.ts";

const KEY = "sk-ant-api03-E2E-KEY-00112233445566";
const MODEL = "claude-sonnet-5-5";
const README = "# Project\nHello from the project.\n";
const ANSWER = "The README greets you: “Hello from the project.”";

const price = models.models.find((m) => m.id === MODEL)!.pricing[0]!;

/** Turn 1 reads README.md (cache write); turn 2 answers (cache read). */
function script(fake: FakeAnthropic): void {
  fake.enqueue(
    {
      kind: "sse",
      frames: [
        ...toolReply(
          [{
            id: "toolu_e2e_read",
            name: "read_file",
            input: { path: "README.md" },
          }],
          { text: "Let me read the README.", pieces: 6, model: MODEL },
        ).map((f): SseFrame =>
          f.event === "message_start"
            ? ev.messageStart({
              input_tokens: 1200,
              cache_creation_input_tokens: 1000,
            }, MODEL)
            : f.event === "message_delta"
            ? ev.messageDelta("tool_use", { output_tokens: 40 })
            : f
        ),
      ],
    },
    {
      kind: "sse",
      frames: [
        ev.messageStart(
          { input_tokens: 1400, cache_read_input_tokens: 1000 },
          MODEL,
        ),
        ev.blockStart(0, { type: "text", text: "" }),
        ev.delta(0, { type: "text_delta", text: ANSWER.slice(0, 20) }),
        ev.ping(),
        ev.delta(0, { type: "text_delta", text: ANSWER.slice(20) }),
        ev.blockStop(0),
        ev.messageDelta("end_turn", { output_tokens: 12 }),
        ev.messageStop(),
      ],
    },
  );
}

const COST_1 =
  (1200 * price.input + 40 * price.output + 1000 * price.cache_write) / 1e6;
const COST_2 =
  (1400 * price.input + 12 * price.output + 1000 * price.cache_read) / 1e6;

function close(a: number, b: number, what: string) {
  assert.ok(Math.abs(a - b) < 1e-12, `${what}: ${a} ≠ ${b}`);
}

async function project(fake: FakeAnthropic) {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-anthropic-e2e-" }),
  );
  const dir = `${root}/project`;
  await Deno.mkdir(dir);
  await Deno.writeTextFile(`${dir}/README.md`, README);
  await Deno.writeTextFile(
    `${dir}/agent.hcl`,
    `required_providers {
  claude = { source = "builtin/anthropic", version = "~> 0.1" }
  fs     = { source = "builtin/filesystem", version = "~> 0.1" }
}

provider "claude" {
  api_key   = env("ANTHROPIC_API_KEY")
  base_url  = "${fake.url}"
  allow_net = ["api.anthropic.com:443", "127.0.0.1"]
}

provider "fs" {
  roots       = ["."]
  allow_read  = ["."]
  allow_write = ["."]
}

policy "reads_ok" {
  match  = { kind = "data_source" }
  action = "allow"
}

agent_profile "default" {
  model {
    primary {
      provider = "claude"
      id       = "${MODEL}"
    }
  }
  tools = ["fs.read_file"]
}
`,
  );
  const env = {
    PATH,
    HOME: root,
    XDG_STATE_HOME: `${root}/state`,
    NO_COLOR: "1",
    ANTHROPIC_API_KEY: KEY,
  };
  return {
    dir,
    env,
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

/** The vendor saw the tool result with the file's text, and the key as bearer. */
function assertWire(fake: FakeAnthropic) {
  // Before each model call the kernel counts the history with the model's
  // own tokenizer, the vendor's count_tokens endpoint, asking only about the
  // messages that are new since the last count: the prompt, then the
  // assistant's tool use and its result.
  const counts = fake.requests.filter((r) =>
    r.path === "/v1/messages/count_tokens"
  );
  assert.equal(counts.length, 2);
  for (const r of counts) assert.equal(r.body.model, MODEL);
  assert.deepEqual(
    counts.map((r) =>
      (r.body.messages as { role: string }[]).map((m) => m.role)
    ),
    [["user"], ["assistant", "user"]],
  );
  assert.equal(
    (counts[1]!.body.messages as { content: { type: string }[] }[])[1]!
      .content[0]!.type,
    "tool_result",
  );
  const requests = fake.requests.filter((r) => r.path === "/v1/messages");
  assert.equal(requests.length, 2);
  for (const r of requests) {
    assert.equal(r.path, "/v1/messages");
    assert.equal(r.headers.authorization, `Bearer ${KEY}`);
    assert.equal(r.body.model, MODEL);
    assert.equal(r.body.stream, true);
  }
  assert.deepEqual(
    (requests[0]!.body.tools as { name: string }[]).map((t) => t.name),
    ["read_file"],
  );
  const second = requests[1]!.body.messages as {
    role: string;
    content: Record<string, unknown>[];
  }[];
  assert.deepEqual(second.map((m) => m.role), ["user", "assistant", "user"]);
  assert.deepEqual(second[1]!.content, [
    { type: "text", text: "Let me read the README." },
    {
      type: "tool_use",
      id: "toolu_e2e_read",
      name: "read_file",
      input: { path: "README.md" },
    },
  ]);
  const result = second[2]!.content[0]!;
  assert.equal(result.type, "tool_result");
  assert.equal(result.tool_use_id, "toolu_e2e_read");
  assert.match(JSON.stringify(result.content), /Hello from the project\./);
}

Deno.test("MUST 23: agent run with the anthropic provider: read a file, answer; cost persisted from the declared pricing", async () => {
  await using fake = startFakeAnthropic();
  await using p = await project(fake);
  script(fake);
  let out = "";
  let err = "";
  const io: AgentIo = {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    isTerminal: false,
    env: p.env,
    cwd: p.dir,
  };
  const code = await run(["run", "What does the README say?", "--json"], io);
  assert.equal(code, 0, err + out);
  assertWire(fake);
  const lines = out.trimEnd().split("\n").map((l) => JSON.parse(l));
  const id = lines[0].sessionId as string;
  assert.match(id, /^[0-9A-Z]{26}$/);
  assert.ok(
    !out.includes(KEY) && !err.includes(KEY),
    "the key never reaches the output",
  );

  // The persisted transcript: two priced assistant messages.
  let replay = "";
  const code2 = await run(["sessions", "replay", id, "--json"], {
    ...io,
    stdout: (t) => (replay += t),
  });
  assert.equal(code2, 0, err);
  const events = replay.trimEnd().split("\n").map((l) => JSON.parse(l));
  const assistant = events.filter((e) =>
    e.type === "message" && e.role === "assistant"
  );
  assert.equal(assistant.length, 2);
  assert.deepEqual(assistant[0].model, { provider: "claude", id: MODEL });
  assert.deepEqual(assistant[0].content, [
    { type: "text", text: "Let me read the README." },
    {
      type: "tool_use",
      id: "toolu_e2e_read",
      name: "read_file",
      input: { path: "README.md" },
    },
  ]);
  assert.equal(assistant[1].text, ANSWER);
  assert.equal(assistant[0].usage.inputTokens, 1200);
  assert.equal(assistant[0].usage.outputTokens, 40);
  assert.equal(assistant[0].usage.cacheWriteTokens, 1000);
  assert.equal(assistant[1].usage.cacheReadTokens, 1000);
  close(assistant[0].costUsd, COST_1, "turn 1 cost");
  close(assistant[1].costUsd, COST_2, "turn 2 cost");
  const toolResults = events.filter((e) => e.type === "tool_result");
  assert.equal(toolResults.length, 1);
  assert.ok(!replay.includes(KEY));

  await using sessions = openSessions({ env: p.env });
  const [listed] = (await sessions.list()).sessions;
  assert.equal(listed?.sessionId, id);
  close(listed!.costUsd ?? 0, COST_1 + COST_2, "the cost ledger's total");
});

Deno.test("openKernel (mod.ts) with the anthropic provider: a tool-using session, priced from the declared pricing", async () => {
  await using fake = startFakeAnthropic();
  await using p = await project(fake);
  script(fake);
  await using kernel = await openKernel(p.dir, {
    env: p.env,
    sessionsDir: `${p.dir}/../sessions`,
  });
  const session = kernel.run("What does the README say?");
  const seen: string[] = [];
  let streamed = "";
  for await (const e of session) {
    seen.push(e.type);
    if (e.type === "text_delta") streamed += e.text;
  }
  const outcome = await session.result;
  assert.equal(outcome.status, "completed", JSON.stringify(outcome.error));
  assert.equal(outcome.finalText, ANSWER);
  assert.equal(outcome.turns, 2);
  close(outcome.totalCostUsd, COST_1 + COST_2, "total cost");
  assert.ok(streamed.endsWith(ANSWER), "text streamed as deltas");
  assert.ok(seen.includes("tool_call") && seen.includes("tool_result"));
  assertWire(fake);
});
