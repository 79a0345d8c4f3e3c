/**
 * The zero-config first run: `agent run` in a directory without
 * `agent.hcl` compiles the built-in default configuration, with the model
 * provider the environment's key selects (`ANTHROPIC_API_KEY` +
 * `ANTHROPIC_BASE_URL`, else `OPENAI_API_KEY` + `OPENAI_BASE_URL`),
 * against the local fakes of the vendors' APIs. Nothing is written into
 * the directory but what the agent wrote.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { AgentIo } from "../main.ts";
import { run } from "../main.ts";
import { openKernel } from "../kernel/kernel.ts";
import {
  defaultConfigText,
  modelChoiceFromEnv,
} from "../config/default_config.ts";
import { startFakeAnthropic, textReply, toolReply } from "./_fake_anthropic.ts";
import { chatChunk, chatSse, startFakeOpenAI } from "./_fake_openai.ts";
import { PATH } from "./_helpers.ts";
import { BUILTINS } from "../plugins/builtin.ts";

const KEY = "sk-ant-zero-config-0011223344";
const AGENTS_MD = "Always answer in one sentence.\n";
const README = "# Project\nHello from the project.\n";

interface Dir extends AsyncDisposable {
  dir: string;
  env: Record<string, string>;
}

/** An empty project directory (with README.md, AGENTS.md) and a private home. */
async function emptyDir(env: Record<string, string>): Promise<Dir> {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-zero-config-" }),
  );
  const dir = `${root}/project`;
  await Deno.mkdir(dir);
  await Deno.writeTextFile(`${dir}/README.md`, README);
  await Deno.writeTextFile(`${dir}/AGENTS.md`, AGENTS_MD);
  const denoDir = Deno.env.get("DENO_DIR");
  return {
    dir,
    env: {
      PATH,
      HOME: root,
      XDG_STATE_HOME: `${root}/state`,
      XDG_CONFIG_HOME: `${root}/config`,
      XDG_CACHE_HOME: `${root}/cache`,
      NO_COLOR: "1",
      ...(denoDir ? { DENO_DIR: denoDir } : {}),
      ...env,
    },
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

async function cli(d: Dir, args: string[]) {
  let out = "";
  let err = "";
  const io: AgentIo = {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    isTerminal: false,
    env: d.env,
    cwd: d.dir,
  };
  const code = await run(args, io);
  return { code, out, err };
}

async function entries(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(dir)) names.push(e.name);
  return names.sort();
}

function events(out: string): Record<string, unknown>[] {
  return out.trimEnd().split("\n").map((l) => JSON.parse(l));
}

Deno.test("agent run without agent.hcl uses the default configuration with builtin/anthropic at ANTHROPIC_BASE_URL: the session completes, one notice names agent init, only the agent's file is written", async () => {
  await using fake = startFakeAnthropic();
  await using d = await emptyDir({
    ANTHROPIC_API_KEY: KEY,
    ANTHROPIC_BASE_URL: fake.url,
  });
  fake.enqueue(
    {
      kind: "sse",
      frames: toolReply([{
        id: "toolu_read",
        name: "read_file",
        input: { path: "README.md" },
      }]),
    },
    {
      kind: "sse",
      frames: toolReply([{
        id: "toolu_write",
        name: "write_file",
        input: { path: "SUMMARY.md", content: "A greeting.\n" },
      }]),
    },
    { kind: "sse", frames: textReply(["Wrote SUMMARY.md."]) },
  );
  const r = await cli(d, [
    "run",
    "Summarize README.md into SUMMARY.md",
    "--approve-all",
    "--json",
  ]);
  assert.equal(r.code, 0, r.err + r.out);
  const notices = r.err.split("\n").filter((l) =>
    l.includes("built-in default")
  );
  assert.equal(notices.length, 1, r.err);
  assert.match(
    notices[0]!,
    /^note: no agent\.hcl here: using the built-in default configuration \(builtin\/anthropic claude-sonnet-5-5 .*run "agent init"/,
  );
  const ended = events(r.out).at(-1)!;
  assert.equal(ended.type, "session_ended");
  assert.equal(ended.status, "completed");
  assert.equal(ended.finalText, "Wrote SUMMARY.md.");
  assert.equal(
    await Deno.readTextFile(`${d.dir}/SUMMARY.md`),
    "A greeting.\n",
  );
  // Nothing but what the agent wrote: no agent.hcl, no .agent/.
  assert.deepEqual(await entries(d.dir), [
    "AGENTS.md",
    "README.md",
    "SUMMARY.md",
  ]);
  // The vendor saw the default model, the key, the default tools and
  // AGENTS.md in the system prompt.
  const first = fake.requests.find((q) => q.path === "/v1/messages")!;
  assert.equal(first.body.model, "claude-sonnet-5-5");
  assert.equal(first.headers.authorization, `Bearer ${KEY}`);
  const tools = (first.body.tools as { name: string }[]).map((t) => t.name);
  for (
    const t of [
      "read_file",
      "write_file",
      "glob",
      "grep",
      "bash",
      "task_create",
      "ask_user",
    ]
  ) assert.ok(tools.includes(t), `${t} in ${tools.join(", ")}`);
  assert.match(JSON.stringify(first.body.system), /Always answer in one/);
  assert.ok(!r.out.includes(KEY) && !r.err.includes(KEY));
});

Deno.test("agent run without agent.hcl and without --approve-all: a file change and a shell command are asked for, hence denied", async () => {
  await using fake = startFakeAnthropic();
  await using d = await emptyDir({
    ANTHROPIC_API_KEY: KEY,
    ANTHROPIC_BASE_URL: fake.url,
  });
  fake.enqueue(
    {
      kind: "sse",
      frames: toolReply([
        {
          id: "toolu_write",
          name: "write_file",
          input: { path: "x.txt", content: "x\n" },
        },
        {
          id: "toolu_bash",
          name: "bash",
          input: { command: "echo hi > y.txt" },
        },
      ]),
    },
    { kind: "sse", frames: textReply(["Both were denied."]) },
  );
  const r = await cli(d, ["run", "Make two files", "--json"]);
  assert.equal(r.code, 0, r.err + r.out);
  const results = events(r.out).filter((e) => e.type === "tool_result");
  assert.deepEqual(
    results.map((e) => [e.tool, e.isError, e.deniedBy]),
    [["write_file", true, "on_ask:deny"], ["bash", true, "on_ask:deny"]],
  );
  assert.deepEqual(await entries(d.dir), ["AGENTS.md", "README.md"]);
});

Deno.test("agent run without agent.hcl selects builtin/openai from OPENAI_API_KEY and OPENAI_BASE_URL and completes against the fake", async () => {
  await using fake = startFakeOpenAI();
  await using d = await emptyDir({
    OPENAI_API_KEY: "sk-openai-zero-config",
    OPENAI_BASE_URL: fake.baseUrl,
  });
  // The configuration level: the host of OPENAI_BASE_URL is granted.
  const { choice } = modelChoiceFromEnv(d.env);
  assert.deepEqual(choice, { provider: "openai", baseUrl: fake.baseUrl });
  {
    await using kernel = await openKernel(d.dir, {
      builtins: BUILTINS,
      env: d.env,
      defaultConfig: defaultConfigText(choice!),
    });
    const model = kernel.plan.providers.find((p) => p.name === "model")!;
    assert.equal(model.source, "builtin/openai");
    assert.deepEqual(model.permissions.granted.net, [
      `127.0.0.1:${fake.port}`,
    ]);
    assert.equal(kernel.plan.sourceFile, "<built-in agent.hcl>");
  }
  fake.reply({
    chunks: chatSse([
      chatChunk({ role: "assistant", content: "Hello from OpenAI." }),
      chatChunk({}, { finish_reason: "stop" }),
      chatChunk(null, {
        usage: { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105 },
      }),
    ]),
  });
  const r = await cli(d, ["run", "Say hello", "--json"]);
  assert.equal(r.code, 0, r.err + r.out);
  assert.match(
    r.err,
    /^note: no agent\.hcl here: .*builtin\/openai gpt-5\.4-mini \(key from OPENAI_API_KEY, at http:\/\/127\.0\.0\.1:\d+\/v1\).*agent init/m,
  );
  assert.equal(events(r.out).at(-1)!.finalText, "Hello from OpenAI.");
  const req = fake.requests.find((q) => q.path === "/v1/chat/completions")!;
  assert.equal(req.body!.model, "gpt-5.4-mini");
  assert.deepEqual(await entries(d.dir), ["AGENTS.md", "README.md"]);
});

Deno.test("agent run without agent.hcl and without an API key exits 2 naming ANTHROPIC_API_KEY, OPENAI_API_KEY and agent init", async () => {
  await using d = await emptyDir({});
  const r = await cli(d, ["run", "hi"]);
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, /ANTHROPIC_API_KEY/);
  assert.match(r.err, /OPENAI_API_KEY/);
  assert.match(r.err, /agent init/);
  assert.equal(r.out, "");
  // The interactive command says the same.
  let err = "";
  const code = await run([], {
    stdout: () => {},
    stderr: (t) => (err += t),
    isTerminal: false,
    env: d.env,
    cwd: d.dir,
    stdin: ReadableStream.from([new TextEncoder().encode("hi\n")]),
    stdinIsTerminal: false,
  });
  assert.equal(code, 2, err);
  assert.match(err, /ANTHROPIC_API_KEY.*OPENAI_API_KEY.*agent init/);
  assert.deepEqual(await entries(d.dir), ["AGENTS.md", "README.md"]);
});

Deno.test("agent run --locked without agent.hcl exits 2 saying why; a bad ANTHROPIC_BASE_URL exits 2 naming it", async () => {
  await using d = await emptyDir({ ANTHROPIC_API_KEY: KEY });
  let r = await cli(d, ["run", "hi", "--locked"]);
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, /--locked needs agent\.hcl.*agent init/);
  d.env.ANTHROPIC_BASE_URL = "ftp://example.test";
  r = await cli(d, ["run", "hi"]);
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, /ANTHROPIC_BASE_URL must be an http or https URL/);
  assert.deepEqual(await entries(d.dir), ["AGENTS.md", "README.md"]);
});
