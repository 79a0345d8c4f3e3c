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
 * Run with `./denow bench -A kernel/agent/token_count_bench.ts`.
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import {
  ContentBlockSchema,
  MessageSchema,
  Role,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
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
