/**
 * The `openai` provider's roster (`plugins/openai/models.json`) and pure
 * helpers: the roster validates, every id is a current model in
 * gpt-tokenizer's metadata with the same limits and endpoints, invalid
 * rosters are refused naming the field; retry-after parsing, key
 * redaction and canonical usage.
 *
 * @module
 */
import assert from "node:assert/strict";
import * as tokenizerModels from "gpt-tokenizer/models";
import { chatEnabledModels } from "gpt-tokenizer/modelsChatEnabled.gen";
import { parseRoster, ROSTER, RosterError } from "../plugins/openai/roster.ts";
import rosterJson from "../plugins/openai/models.json" with { type: "json" };
import { redact, retryAfterMs } from "../plugins/openai/errors.ts";
import { resetDurationMs, usageOf } from "../plugins/openai/stream.ts";

interface TokenizerSpec {
  name: string;
  deprecated?: boolean;
  context_window?: number;
  max_output_tokens?: number;
  supported_endpoints?: string[];
  supported_features?: string[];
  modalities?: { input?: string[] };
  reasoning_tokens?: boolean;
}

Deno.test("roster: every model is current in gpt-tokenizer's metadata, with the same limits and endpoints", () => {
  const specs = tokenizerModels as unknown as Record<string, TokenizerSpec>;
  assert.ok(ROSTER.length >= 5);
  for (const m of ROSTER) {
    const t = specs[m.id];
    assert.ok(t, `${m.id} is not a gpt-tokenizer model`);
    assert.ok(
      chatEnabledModels.includes(m.id as never),
      `${m.id} is chat-enabled`,
    );
    assert.notEqual(t.deprecated, true, `${m.id} is deprecated: remove it`);
    assert.equal(m.contextWindow, t.context_window, `${m.id} context window`);
    assert.equal(m.maxOutputTokens, t.max_output_tokens, `${m.id} max output`);
    const endpoints = t.supported_endpoints ?? [];
    for (const api of m.apis) {
      const name = api === "chat" ? "chat_completions" : "responses";
      assert.ok(endpoints.includes(name), `${m.id} is served by ${name}`);
    }
    assert.equal(
      m.toolUse,
      t.supported_features?.includes("function_calling"),
      `${m.id} tools`,
    );
    assert.equal(
      m.vision,
      t.modalities?.input?.includes("image") ?? false,
      `${m.id} vision`,
    );
    assert.equal(
      m.reasoning !== undefined,
      t.reasoning_tokens === true,
      `${m.id} reasoning`,
    );
    for (const tier of m.pricing) {
      assert.ok(
        tier.cachedInput !== undefined && tier.cachedInput < tier.input,
        `${m.id} has a cheaper cached-input tier`,
      );
    }
  }
});

Deno.test("roster: invalid files are refused, naming each field", () => {
  const base = structuredClone(rosterJson.models[0]) as Record<string, unknown>;
  const bad = (patch: Record<string, unknown>, pattern: RegExp) =>
    assert.throws(
      () => parseRoster({ models: [{ ...base, ...patch }] }),
      (e: unknown) => e instanceof RosterError && pattern.test(e.message),
      String(pattern),
    );
  bad(
    { context_window: 0 },
    /models\[0\]\.context_window must be a positive integer/,
  );
  bad({ apis: ["completions"] }, /models\[0\]\.apis must list/);
  bad({ temperature: "sometimes" }, /models\[0\]\.temperature must be/);
  bad(
    { reasoning: { efforts: ["low"], default: "high", summary: true } },
    /models\[0\]\.reasoning must be/,
  );
  bad(
    { pricing: [{ input: 1, output: 2, input_tokens_until: 1000 }] },
    /the last tier must have no input_tokens_until/,
  );
  bad({
    pricing: [
      { input: 1, output: 2, input_tokens_until: 1000 },
      { input: 1, output: 2, input_tokens_from: 2000 },
    ],
  }, /gap or overlap at 1000 tokens/);
  bad({ colour: "blue" }, /models\[0\]\.colour is not a known key/);
  assert.throws(
    () => parseRoster({ models: [base, base] }),
    /"gpt-5\.5" is listed twice/,
  );
});

Deno.test("retry-after: retry-after-ms wins, then seconds, then an HTTP date", () => {
  assert.equal(
    retryAfterMs(
      new Headers({ "retry-after-ms": "250.4", "retry-after": "9" }),
    ),
    250,
  );
  assert.equal(retryAfterMs(new Headers({ "retry-after": "1.5" })), 1500);
  const now = Date.parse("2026-11-30T12:00:00Z");
  assert.equal(
    retryAfterMs(
      new Headers({ "retry-after": "Mon, 30 Nov 2026 12:00:07 GMT" }),
      now,
    ),
    7000,
  );
  assert.equal(retryAfterMs(new Headers({})), undefined);
  assert.equal(retryAfterMs(new Headers({ "retry-after": "soon" })), undefined);
});

Deno.test("redact: the key and anything shaped like one never survive", () => {
  const key = "sk-proj-ABCDEFGH12345678";
  assert.equal(
    redact(`Incorrect API key provided: ${key}. Also sk-abcdef123456.`, [key]),
    "Incorrect API key provided: [redacted]. Also sk-[redacted].",
  );
  assert.equal(redact("custom-token-XYZ", ["custom-token-XYZ"]), "[redacted]");
});

Deno.test("usage: cached input and reasoning are taken out of the totals", () => {
  const u = usageOf({
    prompt_tokens: 100,
    completion_tokens: 50,
    total_tokens: 150,
    prompt_tokens_details: { cached_tokens: 64 },
    completion_tokens_details: { reasoning_tokens: 20 },
  });
  assert.deepEqual(
    [
      u.inputTokens,
      u.cacheReadTokens,
      u.outputTokens,
      u.reasoningTokens,
      u.vendorTotalTokens,
    ],
    [36n, 64n, 30n, 20n, 150n],
  );
  const plain = usageOf({ input_tokens: 7, output_tokens: 3 });
  assert.deepEqual([
    plain.inputTokens,
    plain.outputTokens,
    plain.cacheReadTokens,
  ], [7n, 3n, undefined]);
});

Deno.test("MUST 25: no realtime, audio, image or embedding models in the roster", () => {
  for (const m of ROSTER) {
    assert.doesNotMatch(
      m.id,
      /realtime|audio|tts|transcribe|embedding|image|search|moderation/,
    );
  }
});

Deno.test("rate-limit reset durations parse as OpenAI writes them", () => {
  assert.equal(resetDurationMs("1s"), 1000);
  assert.equal(resetDurationMs("6m0s"), 360000);
  assert.equal(resetDurationMs("20ms"), 20);
  assert.equal(resetDurationMs("1h2m3.5s"), 3723500);
  assert.equal(resetDurationMs("soon"), undefined);
});
