/**
 * `openai` provider benchmarks against the local fake of OpenAI's API
 * (`tests/_fake_openai.ts`), through the real transport (PluginHost):
 *
 * 1. **Overhead per streamed event**: a Chat Completions stream of 1000
 *    text deltas sent by the fake in one write (a burst: the provider
 *    coalesces what one read delivers), read by the kernel as canonical
 *    `StreamEvent`s. Divide the time per iteration by 1000. The in-process
 *    translator alone is measured too.
 * 2. **Time to first token added**: the first text delta through the
 *    plugin vs. the first byte of the same reply fetched directly from the
 *    fake. The difference is what the provider adds; the scripted model's
 *    first delta (no network at all) shows the gRPC transport's share.
 *
 * Run with `deno bench -A plugins/openai/openai_bench.ts`.
 *
 * @module
 */
import { PluginHost } from "../../kernel/mod.ts";
import { ModelService } from "../../proto/gen/pluggableharness/model/v1/service_pb.ts";
import { Role } from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { readManifest } from "../sdk/mod.ts";
import {
  chatChunk,
  chatSse,
  startFakeOpenAI,
} from "../../tests/_fake_openai.ts";
import { type ChatChunk, ChatStream, type StreamEventInit } from "./stream.ts";

const EVENTS = 1000;
const env = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" };
const fake = startFakeOpenAI();
const manifest = await readManifest(new URL("./plugin.json", import.meta.url));
const host = new PluginHost({ env });
const plugin = await host.launch({
  manifest,
  entrypoint: new URL("./main.ts", import.meta.url).pathname,
  grant: { net: ["127.0.0.1"] },
});
const model = plugin.client(ModelService);
// The transport floor: the scripted model answers without any network.
const scripted = await host.launch({
  manifest: await readManifest(
    new URL("../scripted/plugin.json", import.meta.url),
  ),
  entrypoint: new URL("../scripted/main.ts", import.meta.url).pathname,
  grant: { read: ["."] },
});
const floor = scripted.client(ModelService);
await floor.configure({ config: { turns_json: '[{"text": "Hi"}]' } });
await model.configure({
  config: {
    api_key: "sk-bench",
    base_url: fake.baseUrl,
    api: "chat",
    models: ["gpt-4.1"],
  },
});

const chunks = [
  ...Array.from({ length: EVENTS }, (_, i) => chatChunk({ content: `w${i} ` })),
  chatChunk({}, { finish_reason: "stop" }),
  chatChunk(null, {
    usage: { prompt_tokens: 10, completion_tokens: EVENTS, total_tokens: 1010 },
  }),
];
const burst = [chatSse(chunks).join("")];
const expected = chunks.slice(0, EVENTS).map((_, i) => `w${i} `).join("");
const shortStream = chatSse([
  chatChunk({ content: "Hi" }),
  chatChunk({}, { finish_reason: "stop" }),
]);
const request = {
  callContext: { sessionId: "s", turnId: "t", workingDirectory: "." },
  modelId: "gpt-4.1",
  messages: [{
    role: Role.USER,
    content: [{ block: { case: "text" as const, value: { text: "hi" } } }],
  }],
};

async function streamAll(pieces: string[]): Promise<void> {
  fake.reply({ chunks: pieces, gapMs: 0 });
  let text = "";
  for await (const e of model.streamCompletion(request)) {
    if (e.event.case === "textDelta") text += e.event.value.text;
  }
  if (text !== expected) throw new Error("the text arrived damaged");
}

Deno.bench(
  `${EVENTS} text deltas in one burst: fake server → kernel StreamEvents (divide by ${EVENTS})`,
  { group: "per-event", n: 30, warmup: 3 },
  async () => await streamAll(burst),
);

const parsed = chunks.map((c) => c as unknown as ChatChunk);
Deno.bench(`translate ${EVENTS} chat chunks in process (divide by ${EVENTS})`, {
  group: "per-event",
  n: 200,
  warmup: 20,
}, () => {
  const tr = new ChatStream({ thinking: false });
  const out: StreamEventInit[] = [];
  for (const c of parsed) tr.push(c, out);
  tr.end(out);
});

Deno.bench("time to first token: fetch the fake directly (first byte)", {
  group: "ttft",
  baseline: true,
  n: 200,
  warmup: 20,
}, async (b) => {
  fake.reply({ chunks: shortStream, gapMs: 0 });
  b.start();
  const res = await fetch(`${fake.baseUrl}/chat/completions`, {
    method: "POST",
    body: JSON.stringify({ model: "gpt-4.1", messages: [], stream: true }),
  });
  const reader = res.body!.getReader();
  await reader.read();
  b.end();
  while (!(await reader.read()).done) { /* drain */ }
});

Deno.bench(
  "time to first token: through the openai plugin (first text delta)",
  {
    group: "ttft",
    n: 200,
    warmup: 20,
  },
  async (b) => {
    fake.reply({ chunks: shortStream, gapMs: 0 });
    // Timed to the first text delta; the rest of the (short) stream is
    // drained untimed, so that no iteration pays for a cancelled request's
    // closed connection (the baseline does not either).
    b.start();
    let timing = true;
    for await (const e of model.streamCompletion(request)) {
      if (timing && e.event.case === "textDelta") {
        b.end();
        timing = false;
      }
    }
    if (timing) b.end();
  },
);

Deno.bench(
  "time to first token: the scripted model (transport floor, no network)",
  {
    group: "ttft",
    n: 200,
    warmup: 20,
  },
  async () => {
    for await (
      const e of floor.streamCompletion({ ...request, modelId: "scripted" })
    ) {
      if (e.event.case === "textDelta") break;
    }
  },
);

globalThis.addEventListener("unload", () => {
  void scripted.close();
  void fake.close();
  void plugin.close();
});
