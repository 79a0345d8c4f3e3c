/**
 * The `openai` provider end to end through the agent loop, against the
 * local fake of OpenAI's API: a tool-using session (the model asks for
 * `fs.read_file`, reads the result, answers) from the CLI over Chat
 * Completions and from the library (`openKernel`) over the Responses API.
 * The kernel prices each usage event from the provider's declared pricing;
 * the persisted usage and cost are asserted.
 *
 * @module
 */
import assert from "node:assert/strict";
import { openKernel } from "../kernel/kernel.ts";
import type { SessionEvent } from "../kernel/mod.ts";
import { agent, jsonLines, makeProject, README } from "./_agent_project.ts";
import { PATH } from "./_helpers.ts";
import {
  chatChunk,
  chatSse,
  responsesSse,
  startFakeOpenAI,
} from "./_fake_openai.ts";
import { BUILTINS } from "../plugins/builtin.ts";

const KEY = "sk-e2e-0123456789abcdefSECRET";

/** gpt-5.4-mini: USD per million tokens (models.json). */
const PRICE = { input: 0.75, cached: 0.075, output: 4.5 };

function providerBlock(baseUrl: string, api: "chat" | "responses"): string {
  return `
provider "openai" {
  api_key   = env("FAKE_OPENAI_KEY")
  base_url  = "${baseUrl}"
  api       = "${api}"
  models    = ["gpt-5.4-mini"]
  allow_net = ["127.0.0.1"]
}
`;
}

const close = (a: number, b: number) => Math.abs(a - b) < 1e-12;

Deno.test("MUST 23: openai end to end from the CLI (Chat Completions): a 429 retried, a tool call, its result, the answer; usage and cost persisted", async () => {
  await using fake = startFakeOpenAI();
  await using p = await makeProject({
    turns: [{ text: "(the scripted model is not used here)" }],
    files: { "README.md": README },
    extraRequired: `openai = { source = "builtin/openai", version = "~> 0.1" }`,
    extraProviders: providerBlock(fake.baseUrl, "chat") + `
agent_profile "oa" {
  model {
    primary {
      provider = "openai"
      id       = "gpt-5.4-mini"
    }
  }
  tools = ["fs.*"]
}
`,
  });
  p.env.FAKE_OPENAI_KEY = KEY;
  fake.reply(
    {
      status: 429,
      headers: { "retry-after-ms": "20" },
      json: {
        error: {
          message: "Rate limit reached for requests",
          type: "requests",
          code: "rate_limit_exceeded",
        },
      },
    },
    {
      chunks: chatSse([
        chatChunk({ role: "assistant", content: "Reading." }),
        chatChunk({
          tool_calls: [{
            index: 0,
            id: "call_1",
            type: "function",
            function: { name: "read_file", arguments: '{"pa' },
          }],
        }),
        chatChunk({
          tool_calls: [{
            index: 0,
            function: { arguments: 'th":"README.md"}' },
          }],
        }),
        chatChunk({}, { finish_reason: "tool_calls" }),
        chatChunk(null, {
          usage: {
            prompt_tokens: 1200,
            completion_tokens: 90,
            total_tokens: 1290,
            prompt_tokens_details: { cached_tokens: 1000 },
            completion_tokens_details: { reasoning_tokens: 30 },
          },
        }),
      ]),
    },
    {
      chunks: chatSse([
        chatChunk({ content: "It says hello." }),
        chatChunk({}, { finish_reason: "stop" }),
        chatChunk(null, {
          usage: {
            prompt_tokens: 1500,
            completion_tokens: 10,
            total_tokens: 1510,
          },
        }),
      ]),
    },
  );
  const r = await agent(p, [
    "run",
    "What does the README say?",
    "--profile",
    "oa",
    "--json",
  ]);
  assert.equal(r.code, 0, r.err + r.out);
  const events = jsonLines(r.out);
  // The 429 was retried by the kernel (settings.retry), honouring retry_after.
  const retry = events.find((e) => e.type === "model_retry");
  assert.equal(retry?.category, "rate_limited");
  assert.ok(Number(retry?.delayMs) >= 20);
  const ended = events.at(-1)!;
  assert.equal(ended.type, "session_ended");
  assert.equal(ended.finalText, "It says hello.");
  // The second request carried the tool call and its result.
  const second = fake.requests.filter((q) =>
    q.path === "/v1/chat/completions"
  )[2]!;
  const msgs = second.body!.messages as Record<string, unknown>[];
  const call = msgs.find((m) => m.role === "assistant") as {
    tool_calls: { id: string; function: { name: string; arguments: string } }[];
  };
  assert.equal(call.tool_calls[0]!.id, "call_1");
  assert.deepEqual(JSON.parse(call.tool_calls[0]!.function.arguments), {
    path: "README.md",
  });
  const result = msgs.find((m) => m.role === "tool")!;
  assert.equal(result.tool_call_id, "call_1");
  assert.match(String(result.content), /Hello from the project/);
  assert.equal(second.headers.authorization, `Bearer ${KEY}`);

  // Usage and cost of both assistant messages, as persisted: replay them.
  const id = String(events[0]!.sessionId);
  const shown = await agent(p, ["sessions", "replay", id, "--json"]);
  assert.equal(shown.code, 0, shown.err);
  const assistant = jsonLines(shown.out).filter((e) =>
    e.type === "message" && e.role === "assistant"
  ) as {
    usage: Record<string, number>;
    costUsd: number;
    model: { provider: string; id: string };
  }[];
  assert.equal(assistant.length, 2);
  assert.deepEqual(assistant[0]!.model, {
    provider: "openai",
    id: "gpt-5.4-mini",
  });
  assert.deepEqual(
    [
      assistant[0]!.usage.inputTokens,
      assistant[0]!.usage.cacheReadTokens,
      assistant[0]!.usage.outputTokens,
      assistant[0]!.usage.reasoningTokens,
    ],
    [200, 1000, 60, 30],
  );
  assert.ok(
    close(
      assistant[0]!.costUsd,
      (200 * PRICE.input + 1000 * PRICE.cached + 60 * PRICE.output +
        30 * PRICE.output) / 1e6,
    ),
    String(assistant[0]!.costUsd),
  );
  assert.ok(
    close(
      assistant[1]!.costUsd,
      (1500 * PRICE.input + 10 * PRICE.output) / 1e6,
    ),
  );
  assert.ok(!r.out.includes(KEY) && !r.err.includes(KEY));
  assert.ok(!shown.out.includes(KEY));
});

Deno.test("MUST 23: openai end to end from mod.ts openKernel (Responses API): tool call, result, answer; usage and cost persisted", async () => {
  await using fake = startFakeOpenAI();
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-openai-e2e-" }),
  );
  try {
    const dir = `${root}/project`;
    await Deno.mkdir(dir);
    await Deno.writeTextFile(`${dir}/README.md`, README);
    await Deno.writeTextFile(
      `${dir}/agent.hcl`,
      `required_providers {
  openai = { source = "builtin/openai", version = "~> 0.1" }
  fs     = { source = "builtin/filesystem", version = "~> 0.1" }
}
${providerBlock(fake.baseUrl, "responses")}
provider "fs" {
  roots      = ["."]
  allow_read = ["."]
  allow_write = ["."]
}

policy "reads_ok" {
  match  = { kind = "data_source" }
  action = "allow"
}

agent_profile "default" {
  model {
    primary {
      provider = "openai"
      id       = "gpt-5.4-mini"
    }
  }
  tools = ["fs.*"]
}
`,
    );
    fake.reply(
      {
        chunks: responsesSse([
          {
            type: "response.created",
            response: {
              id: "resp_1",
              model: "gpt-5.4-mini-2026-03-17",
              status: "in_progress",
            },
          },
          {
            type: "response.output_item.added",
            output_index: 0,
            item: {
              type: "function_call",
              id: "fc_1",
              call_id: "call_R",
              name: "read_file",
              arguments: "",
            },
          },
          {
            type: "response.function_call_arguments.delta",
            item_id: "fc_1",
            output_index: 0,
            delta: '{"path":',
          },
          {
            type: "response.function_call_arguments.delta",
            item_id: "fc_1",
            output_index: 0,
            delta: '"README.md"}',
          },
          {
            type: "response.output_item.done",
            output_index: 0,
            item: {
              type: "function_call",
              id: "fc_1",
              call_id: "call_R",
              name: "read_file",
              arguments: '{"path":"README.md"}',
            },
          },
          {
            type: "response.completed",
            response: {
              id: "resp_1",
              status: "completed",
              usage: {
                input_tokens: 2000,
                input_tokens_details: { cached_tokens: 1024 },
                output_tokens: 40,
                output_tokens_details: { reasoning_tokens: 0 },
                total_tokens: 2040,
              },
            },
          },
        ]),
      },
      {
        chunks: responsesSse([
          {
            type: "response.output_text.delta",
            item_id: "m",
            output_index: 0,
            delta: "It says ",
          },
          {
            type: "response.output_text.delta",
            item_id: "m",
            output_index: 0,
            delta: "hello.",
          },
          {
            type: "response.completed",
            response: {
              id: "resp_2",
              status: "completed",
              usage: {
                input_tokens: 2100,
                output_tokens: 5,
                total_tokens: 2105,
              },
            },
          },
        ]),
      },
    );
    await using kernel = await openKernel(dir, {
      builtins: BUILTINS,
      env: {
        PATH,
        HOME: root,
        XDG_STATE_HOME: `${root}/state`,
        FAKE_OPENAI_KEY: KEY,
      },
      sessionsDir: `${root}/sessions`,
    });
    const run = kernel.run("What does the README say?");
    const events: SessionEvent[] = [];
    for await (const e of run) events.push(e);
    const outcome = await run.result;
    assert.equal(outcome.status, "completed", JSON.stringify(outcome));
    const second = fake.requests.filter((q) => q.path === "/v1/responses")[1]!;
    const input = second.body!.input as Record<string, unknown>[];
    assert.deepEqual(input[1], {
      type: "function_call",
      call_id: "call_R",
      name: "read_file",
      arguments: '{"path":"README.md"}',
    });
    assert.equal(input[2]!.type, "function_call_output");
    assert.equal(input[2]!.call_id, "call_R");
    assert.match(String(input[2]!.output), /Hello from the project/);

    const started = events.find((e) => e.type === "session_started");
    assert.ok(started && "sessionId" in started);
    const replayed: SessionEvent[] = [];
    for await (const e of kernel.sessions.replay(started.sessionId)) {
      replayed.push(e);
    }
    const assistant = replayed.flatMap((e) =>
      e.type === "message" && e.role === "assistant" ? [e] : []
    );
    assert.equal(assistant.length, 2);
    assert.equal(assistant[1]!.text, "It says hello.");
    assert.deepEqual(
      [
        assistant[0]!.usage?.inputTokens,
        assistant[0]!.usage?.cacheReadTokens,
        assistant[0]!.usage?.outputTokens,
      ],
      [976, 1024, 40],
    );
    assert.ok(
      close(
        assistant[0]!.costUsd!,
        (976 * PRICE.input + 1024 * PRICE.cached + 40 * PRICE.output) / 1e6,
      ),
    );
    assert.ok(
      close(
        assistant[1]!.costUsd!,
        (2100 * PRICE.input + 5 * PRICE.output) / 1e6,
      ),
    );
    assert.ok(!JSON.stringify(replayed).includes(KEY));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
