/**
 * Counting 100 KB of text (issue 17: ≤ 5 ms): the kernel's fallback formula
 * (the baseline), the openai plugin's exact o200k count (gpt-tokenizer, in
 * process, as its CountTokens runs it) and the scripted tokenizer. The text
 * is this repository's README repeated to 100 KB (prose, code and tables).
 * `deno bench` prints each as a ratio to the baseline; divide the time by
 * 5 ms for the ratio to the budget.
 *
 * The anthropic plugin has no local tokenizer: its CountTokens is the
 * vendor's `count_tokens` endpoint (a network round trip), not measured here.
 *
 * The second group is a session's per-turn count: a 40-turn history of
 * 100 KB counted before turn 41, through an in-process provider that
 * serializes the request as the gRPC hop does and counts it with the openai
 * plugin's o200k counter. The baseline counts the whole history (what every
 * turn did before the kernel kept per-run counts); the other counts through
 * a {@linkcode HistoryTokenCounter} that counted the first 40 turns already,
 * so only turn 41's messages cross the wire and the tokenizer.
 *
 * Run with `./denow bench -A kernel/agent/token_count_bench.ts`.
 *
 * @module
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  ContentBlockSchema,
  type Message,
  MessageSchema,
  Role,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { CountTokensRequestSchema } from "../../proto/gen/pluggableharness/model/v1/rpc_request_pb.ts";
import type { ModelEndpoint } from "./endpoints.ts";
import { countRequestTokens, HistoryTokenCounter } from "./token_count.ts";
import { fallbackTokenCount } from "../../contract/tokens.ts";
import { countRequestTokens as countOpenAI } from "../../plugins/openai/tokens.ts";
import { countRequestTokens as countScripted } from "../../plugins/scripted/_tokenizer.ts";

const SIZE = 100 * 1024;
const readme = await Deno.readTextFile(
  new URL("../../README.md", import.meta.url),
);
const text = readme.repeat(Math.ceil(SIZE / readme.length)).slice(0, SIZE);
const block = create(ContentBlockSchema, {
  block: { case: "text", value: { text } },
});
const messages = [create(MessageSchema, { role: Role.USER, content: [block] })];
// Load the BPE ranks once, outside the measurement.
await countOpenAI({ messages, assembledContext: [], tools: [] });

Deno.bench("fallback ceil(bytes/4), 100 KB", {
  group: "count 100 KB",
  baseline: true,
}, () => {
  fallbackTokenCount([block]);
});

Deno.bench("openai o200k (gpt-tokenizer), 100 KB", {
  group: "count 100 KB",
}, async () => {
  await countOpenAI({ messages, assembledContext: [], tools: [] });
});

Deno.bench("scripted words, 100 KB", { group: "count 100 KB" }, () => {
  countScripted({ messages, assembledContext: [], tools: [] });
});

// A 40-turn history of ~100 KB: each turn a user message and an answer.
const TURNS = 40;
const slice = Math.floor(SIZE / (2 * (TURNS + 1)));
const textMessage = (role: Role, i: number): Message =>
  create(MessageSchema, {
    role,
    content: [create(ContentBlockSchema, {
      block: {
        case: "text",
        value: { text: text.slice(i * slice, (i + 1) * slice) },
      },
    })],
  });
const history: Message[] = [];
for (let t = 0; t <= TURNS; t++) {
  history.push(
    textMessage(Role.USER, 2 * t),
    textMessage(Role.ASSISTANT, 2 * t + 1),
  );
}
const earlier = history.slice(0, -2);
const openai: ModelEndpoint = {
  identity: {
    category: "model",
    name: "openai",
    version: "0.1.0",
    source: "builtin:openai",
  },
  capabilities: () => Promise.reject(new Error("not used")),
  streamCompletion: () => {
    throw new Error("not used");
  },
  countTokens: (request) => {
    // The gRPC hop: the request is serialized and parsed again.
    const wire = fromBinary(
      CountTokensRequestSchema,
      toBinary(CountTokensRequestSchema, request),
    );
    return countOpenAI({
      messages: wire.messages,
      assembledContext: wire.assembledContext,
      tools: wire.tools,
    });
  },
};
const models = new Map([["openai", openai]]);
const target = { provider: "openai", modelId: "gpt-5.4-mini" };

Deno.bench("whole history each turn (41 turns, 100 KB)", {
  group: "count before turn 41",
  baseline: true,
}, async () => {
  await countRequestTokens(models, { ...target, messages: history });
});

Deno.bench("HistoryTokenCounter: only turn 41's messages", {
  group: "count before turn 41",
}, async (b) => {
  const counter = new HistoryTokenCounter();
  await counter.count(models, { ...target, messages: earlier });
  b.start();
  await counter.count(models, { ...target, messages: history });
  b.end();
});
