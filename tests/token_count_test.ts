/**
 * Exact token counts (issue 17 part 1): `openKernel` passes the launched
 * model providers' tokenizers to the CountTokens callback. A tool plugin
 * (`builtin/echo`'s `tokens`) asks the kernel to count for the openai
 * plugin's roster model (gpt-tokenizer, o200k), for the scripted model
 * (one token per word), for a model the openai roster does not know, and
 * for no model at all; only the first two are exact.
 *
 * @module
 */
import assert from "node:assert/strict";
import { countChatCompletionTokens } from "gpt-tokenizer/model/gpt-5.4";
import { openKernel } from "../kernel/kernel.ts";
import type { SessionEvent } from "../kernel/mod.ts";
import { makeProject } from "./_agent_project.ts";
import { startFakeOpenAI } from "./_fake_openai.ts";
import { BUILTINS } from "../plugins/builtin.ts";

const TEXT =
  "Tokenizers split text into pieces: unbelievably, tokenization differs by model family.";

Deno.test("openKernel: CountTokens is exact through the model provider's tokenizer, else the fallback", async () => {
  await using fake = startFakeOpenAI();
  const call = (id: string, model?: string) => ({
    id,
    name: "tokens",
    arguments: { text: TEXT, ...(model ? { model } : {}) },
  });
  await using p = await makeProject({
    turns: [
      {
        tool_calls: [
          call("c_openai", "openai/gpt-5.4-mini"),
          call("c_scripted", "scripted/scripted"),
          call("c_unknown", "openai/not-in-the-roster"),
          call("c_none"),
        ],
      },
      { text: "Counted." },
    ],
    extraRequired: `openai = { source = "builtin/openai", version = "~> 0.1" }
  echo = { source = "builtin/echo", version = "~> 0.1" }`,
    extraProviders: `
provider "openai" {
  api_key   = env("FAKE_OPENAI_KEY")
  base_url  = "${fake.baseUrl}"
  models    = ["gpt-5.4-mini", "not-in-the-roster"]
  allow_net = ["127.0.0.1"]
}
provider "echo" {}
`,
    tools: ["echo.*"],
  });
  await using kernel = await openKernel(p.dir, {
    builtins: BUILTINS,
    env: { ...p.env, FAKE_OPENAI_KEY: "sk-test-0123456789abcdef" },
  });
  const results = new Map<string, unknown>();
  const run = kernel.run("Count the tokens.");
  for await (const e of run as AsyncIterable<SessionEvent>) {
    if (e.type === "tool_result") results.set(e.callId, e.result);
  }
  assert.equal((await run.result).status, "completed");
  const expected = countChatCompletionTokens!({
    messages: [{ role: "user", content: TEXT }],
  });
  assert.deepEqual(results.get("c_openai"), { count: expected, exact: true });
  assert.deepEqual(results.get("c_scripted"), {
    count: TEXT.split(/\s+/).length,
    exact: true,
  });
  // The one fallback formula: ceil(utf8 bytes / 4).
  const fallback = Math.ceil(new TextEncoder().encode(TEXT).length / 4);
  assert.notEqual(fallback, expected);
  assert.deepEqual(results.get("c_unknown"), {
    count: fallback,
    exact: false,
  });
  assert.deepEqual(results.get("c_none"), { count: fallback, exact: false });
});
