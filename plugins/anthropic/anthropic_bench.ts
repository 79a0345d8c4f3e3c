/**
 * The `anthropic` provider's overhead, against the local fake Messages API
 * (tests/_fake_anthropic.ts) and a real plugin subprocess. Run with
 * `deno bench -A plugins/anthropic/anthropic_bench.ts`.
 *
 * What is measured, exactly:
 *
 * 1. **Overhead per streamed event.** One iteration streams a response of
 *    {@linkcode EVENTS} text deltas. *Through the provider*: the kernel's
 *    model endpoint (`modelEndpointOf`) calls `StreamCompletion` on the
 *    plugin, which requests the fake through the vendor SDK, parses the
 *    SSE, translates each event and streams it back over gRPC; the
 *    iteration ends when the kernel side has read the last canonical
 *    event. *Baseline*: the same request and response read directly with
 *    `fetch`, split into SSE frames and each `data:` line `JSON.parse`d
 *    (the fake's own cost plus the least any client must do). Overhead per
 *    event = (median provider iteration − median baseline iteration) ÷
 *    events. Target ≤ 50 µs. Measured twice: with the fake writing one
 *    frame per write (each event its own read, the worst case), and in
 *    4 KiB blocks as a TLS server batches frames (the provider then merges
 *    the fragments of one read into one event).
 * 2. **Time to first token added.** From the request to the first text
 *    delta: through the provider (to the first canonical `text_delta` at
 *    the kernel, then the call is cancelled) versus the baseline (to the
 *    first `text_delta` frame read with `fetch`). Added = difference of the
 *    medians. Target ≤ 2 ms.
 *
 * For scale, the same figures are taken for the `scripted` model over the
 * same gRPC path (no HTTP, no parsing): the transport's own floor, which
 * the provider cannot go below. The plugin's own work per event (SSE
 * decoding and translation, in process) is printed too.
 *
 * Everything is measured when the module loads (interleaved samples) and
 * printed; the `Deno.bench` rows time the same iterations.
 *
 * @module
 */
import { modelEndpointOf } from "../../kernel/agent/endpoints.ts";
import { PluginHost } from "../../kernel/mod.ts";
import { create } from "@bufbuild/protobuf";
import {
  MessageSchema,
  Role,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { StreamCompletionRequestSchema } from "../../proto/gen/pluggableharness/model/v1/rpc_request_pb.ts";
import { ModelService } from "../../proto/gen/pluggableharness/model/v1/service_pb.ts";
import { readManifest } from "../sdk/mod.ts";
import {
  sseText,
  startFakeAnthropic,
  textReply,
} from "../../tests/_fake_anthropic.ts";
import { SseDecoder } from "./sse.ts";
import { type StreamEventInit, StreamTranslator } from "./stream.ts";

/** Text deltas per streamed response. */
const EVENTS = 500;
const SAMPLES = 30;
const TTFT_SAMPLES = 60;
/** Write size of the fake in the block-written variant. */
const BLOCK = 4096;
const PATH = Deno.env.get("PATH") ?? "/usr/bin:/bin";
const MODEL = "claude-sonnet-5-5";

const fake = startFakeAnthropic();
const dir = await Deno.makeTempDir({ prefix: "ph-anthropic-bench-" });
const host = new PluginHost({ env: { PATH }, cwd: dir });
const plugin = await host.launch({
  manifest: await readManifest(new URL("./plugin.json", import.meta.url)),
  entrypoint: new URL("./main.ts", import.meta.url).pathname,
  grant: { net: ["api.anthropic.com:443", "127.0.0.1"] },
});
await plugin.client(ModelService).configure({
  config: { api_key: "sk-ant-bench-000000000000", base_url: fake.url },
});
const endpoint = modelEndpointOf(plugin, "claude");

// The transport floor: the scripted model streams the same number of text
// deltas over the same gRPC path, with no HTTP and no parsing.
const scripted = await host.launch({
  manifest: await readManifest(
    new URL("../scripted/plugin.json", import.meta.url),
  ),
  entrypoint: new URL("../scripted/main.ts", import.meta.url).pathname,
  grant: { read: [dir] },
});
await scripted.client(ModelService).configure({
  config: {
    turns_json: JSON.stringify({
      turns: [{
        text: Array.from({ length: EVENTS }, (_, i) => `tok${i}`).join(" "),
      }],
    }),
  },
});
const floor = modelEndpointOf(scripted, "scripted");
// A second one with a two-word turn, read to its end, for the first-token floor.
const scriptedShort = await host.launch({
  manifest: await readManifest(
    new URL("../scripted/plugin.json", import.meta.url),
  ),
  entrypoint: new URL("../scripted/main.ts", import.meta.url).pathname,
  grant: { read: [dir] },
});
await scriptedShort.client(ModelService).configure({
  config: { turns_json: JSON.stringify({ turns: [{ text: "a b" }] }) },
});
const floorShort = modelEndpointOf(scriptedShort, "scripted");

const pieces = Array.from({ length: EVENTS }, (_, i) => `tok${i} `);
const request = create(StreamCompletionRequestSchema, {
  modelId: MODEL,
  messages: [create(MessageSchema, {
    role: Role.USER,
    content: [{ block: { case: "text", value: { text: "bench" } } }],
  })],
  callContext: { sessionId: "bench", turnId: "bench", workingDirectory: dir },
});
const rawBody = JSON.stringify({
  model: MODEL,
  max_tokens: 16384,
  messages: [{ role: "user", content: [{ type: "text", text: "bench" }] }],
  stream: true,
});

/**
 * Streams through the provider; resolves at the last canonical event.
 * `chunkBytes` makes the fake write in blocks of that size (as a TLS
 * server batches frames) instead of one write per frame.
 */
async function viaProvider(
  firstTokenOnly: boolean,
  chunkBytes?: number,
): Promise<number> {
  fake.enqueue({
    kind: "sse",
    frames: textReply(firstTokenOnly ? ["a", "b"] : pieces),
    ...(chunkBytes !== undefined ? { chunkBytes } : {}),
  });
  const ac = new AbortController();
  const t0 = performance.now();
  let n = 0;
  try {
    for await (
      const e of endpoint.streamCompletion(request, { signal: ac.signal })
    ) {
      n++;
      if (firstTokenOnly && e.event.case === "textDelta") {
        const t = performance.now() - t0;
        ac.abort();
        return t;
      }
    }
  } catch (err) {
    if (!ac.signal.aborted) throw err;
  }
  if (n < 3) throw new Error(`only ${n} events arrived`);
  return performance.now() - t0;
}

/** The transport floor: the scripted model over the same gRPC path. */
async function viaScripted(firstTokenOnly: boolean): Promise<number> {
  const t0 = performance.now();
  let first: number | undefined;
  let n = 0;
  // Read to the end (no cancellation): the first-token figure is taken at
  // the first text delta of a two-word turn.
  const ep = firstTokenOnly ? floorShort : floor;
  for await (
    const e of ep.streamCompletion({ ...request, modelId: "scripted" })
  ) {
    n++;
    if (e.event.case === "textDelta") first ??= performance.now() - t0;
  }
  if (firstTokenOnly) return first!;
  if (n < EVENTS) throw new Error(`only ${n} scripted events arrived`);
  return performance.now() - t0;
}

/** The plugin's own work per event, in process: SSE decoding and translation. */
function inProcessPerEventUs(): number {
  const bytes = new TextEncoder().encode(sseText(textReply(pieces)));
  const runs: number[] = [];
  for (let r = 0; r < 200; r++) {
    const t0 = performance.now();
    const decoder = new SseDecoder();
    const translator = new StreamTranslator();
    const out: StreamEventInit[] = [];
    // Network-sized reads, as a socket delivers them.
    for (let i = 0; i < bytes.length; i += 256) {
      for (const m of decoder.push(bytes.subarray(i, i + 256))) {
        if (m.event !== "ping") translator.push(JSON.parse(m.data), out);
      }
    }
    if (!translator.done) throw new Error("incomplete");
    runs.push((performance.now() - t0) / EVENTS * 1000);
  }
  return median(runs.slice(20));
}

/** The same response read with fetch: SSE frames split, data parsed. */
async function viaFetch(
  firstTokenOnly: boolean,
  chunkBytes?: number,
): Promise<number> {
  fake.enqueue({
    kind: "sse",
    frames: textReply(firstTokenOnly ? ["a", "b"] : pieces),
    ...(chunkBytes !== undefined ? { chunkBytes } : {}),
  });
  const t0 = performance.now();
  const res = await fetch(`${fake.url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer x" },
    body: rawBody,
  });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  let n = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value;
    let cut: number;
    while ((cut = buf.indexOf("\n\n")) >= 0) {
      const frame = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      const data = frame.slice(frame.indexOf("data: ") + 6);
      const ev = JSON.parse(data);
      if (ev.type === "content_block_delta") {
        n++;
        if (firstTokenOnly) {
          const t = performance.now() - t0;
          await reader.cancel();
          return t;
        }
      }
    }
  }
  if (n < EVENTS) throw new Error(`only ${n} deltas arrived`);
  return performance.now() - t0;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

// Warm up every path (JIT, connection pools).
for (let i = 0; i < 5; i++) {
  for (const first of [false, true]) {
    await viaProvider(first);
    await viaFetch(first);
    await viaScripted(first);
  }
}
const provider: number[] = [];
const baseline: number[] = [];
const transport: number[] = [];
const providerBlocks: number[] = [];
const baselineBlocks: number[] = [];
for (let i = 0; i < SAMPLES; i++) {
  provider.push(await viaProvider(false));
  baseline.push(await viaFetch(false));
  transport.push(await viaScripted(false));
  providerBlocks.push(await viaProvider(false, BLOCK));
  baselineBlocks.push(await viaFetch(false, BLOCK));
}
const ttftProvider: number[] = [];
const ttftBaseline: number[] = [];
const ttftTransport: number[] = [];
for (let i = 0; i < TTFT_SAMPLES; i++) {
  ttftProvider.push(await viaProvider(true));
  ttftBaseline.push(await viaFetch(true));
  ttftTransport.push(await viaScripted(true));
}
const us = (ms: number) => `${(ms / EVENTS * 1000).toFixed(1)} µs`;
const perEventUs = (median(provider) - median(baseline)) / EVENTS * 1000;
const ownUs = inProcessPerEventUs();
const ttftAdded = median(ttftProvider) - median(ttftBaseline);
console.log(
  [
    `anthropic provider, ${EVENTS}-event streams, ${SAMPLES} samples each (medians):`,
    `  fake → kernel event through the provider: ${
      median(provider).toFixed(2)
    } ms per stream, ${us(median(provider))} per event`,
    `  fake → fetch baseline (frames parsed):     ${
      median(baseline).toFixed(2)
    } ms per stream, ${us(median(baseline))} per event`,
    `  scripted model, same gRPC path (floor):   ${
      median(transport).toFixed(2)
    } ms per stream, ${us(median(transport))} per event`,
    `  provider overhead per streamed event: ${
      perEventUs.toFixed(1)
    } µs (target ≤ 50 µs)`,
    `    of which the plugin's own decoding and translation, in process: ${
      ownUs.toFixed(2)
    } µs`,
    `  the fake writing ${BLOCK}-byte blocks (fragments of one read merged): provider ${
      us(median(providerBlocks))
    }, fetch ${us(median(baselineBlocks))} per event; overhead ${
      ((median(providerBlocks) - median(baselineBlocks)) / EVENTS * 1000)
        .toFixed(1)
    } µs per event`,
    `time to first token, ${TTFT_SAMPLES} samples each (medians):`,
    `  through the provider: ${median(ttftProvider).toFixed(2)} ms`,
    `  fetch baseline:       ${median(ttftBaseline).toFixed(2)} ms`,
    `  scripted model (gRPC call floor): ${
      median(ttftTransport).toFixed(2)
    } ms`,
    `  added by the provider: ${ttftAdded.toFixed(2)} ms (target ≤ 2 ms)`,
  ].join("\n"),
);

Deno.bench(`anthropic: ${EVENTS}-event stream through the provider`, {
  group: "stream",
}, async () => {
  await viaProvider(false);
});
Deno.bench(`baseline: the same ${EVENTS}-event SSE read with fetch`, {
  group: "stream",
  baseline: true,
}, async () => {
  await viaFetch(false);
});
Deno.bench(
  `floor: the scripted model's ${EVENTS}-event stream, same gRPC path`,
  {
    group: "stream",
  },
  async () => {
    await viaScripted(false);
  },
);
Deno.bench("anthropic: time to first token through the provider", {
  group: "ttft",
}, async () => {
  await viaProvider(true);
});
Deno.bench("floor: time to first token of the scripted model", {
  group: "ttft",
}, async () => {
  await viaScripted(true);
});
Deno.bench("baseline: time to first token with fetch", {
  group: "ttft",
  baseline: true,
}, async () => {
  await viaFetch(true);
});

globalThis.addEventListener("unload", () => {
  // Best effort: the host kills its plugin processes on close.
  void host.close();
  void fake.close();
  try {
    Deno.removeSync(dir, { recursive: true });
  } catch {
    // already gone
  }
});
