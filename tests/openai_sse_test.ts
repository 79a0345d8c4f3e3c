/**
 * The `openai` provider's SSE reader and event coalescing: events split
 * across reads (even inside a UTF-8 character) are parsed whole, each batch
 * holds what one read completed, and adjacent deltas merge without
 * crossing a different event.
 *
 * @module
 */
import assert from "node:assert/strict";
import { coalesce, sseBatches, type SseEvent } from "../plugins/openai/sse.ts";
import type { StreamEventInit } from "../plugins/openai/stream.ts";

function bodyOf(pieces: Uint8Array[]): ReadableStream<Uint8Array> {
  return ReadableStream.from(pieces);
}

Deno.test("sseBatches: events split across reads and inside a character are parsed whole", async () => {
  const text =
    'event: response.output_text.delta\ndata: {"delta":"é✓"}\n\n: comment\ndata: line1\r\ndata: line2\r\n\r\ndata: [DONE]\n\n';
  const bytes = new TextEncoder().encode(text);
  const cut =
    new TextEncoder().encode(text.slice(0, text.indexOf("✓"))).length + 1;
  const batches: SseEvent[][] = [];
  for await (
    const b of sseBatches(bodyOf([bytes.slice(0, cut), bytes.slice(cut)]))
  ) {
    batches.push(b);
  }
  assert.deepEqual(batches, [[
    { event: "response.output_text.delta", data: '{"delta":"é✓"}' },
    { event: "", data: "line1\nline2" },
    { event: "", data: "[DONE]" },
  ]]);
  const perRead: SseEvent[][] = [];
  for await (
    const b of sseBatches(bodyOf([
      new TextEncoder().encode("data: a\n\n"),
      new TextEncoder().encode("data: b\n\ndata: c"),
      new TextEncoder().encode("\n\n"),
    ]))
  ) perRead.push(b);
  assert.deepEqual(perRead.map((b) => b.map((e) => e.data)), [["a"], ["b"], [
    "c",
  ]]);
});

Deno.test("coalesce: adjacent deltas merge, other events keep their place", () => {
  const text = (t: string): StreamEventInit => ({
    event: { case: "textDelta", value: { text: t } },
  });
  const args = (id: string, f: string): StreamEventInit => ({
    event: { case: "toolCallDelta", value: { id, argumentsFragment: f } },
  });
  const events: StreamEventInit[] = [
    text("Hel"),
    text("lo"),
    { event: { case: "toolCallStart", value: { id: "a", name: "read_file" } } },
    args("a", '{"pa'),
    args("a", 'th":1}'),
    args("b", "{}"),
    { event: { case: "thinkingDelta", value: { text: "x" } } },
    { event: { case: "thinkingDelta", value: { text: "y" } } },
    text("!"),
  ];
  assert.deepEqual(
    coalesce(events).map((e) => [e.event?.case, e.event?.value]),
    [
      ["textDelta", { text: "Hello" }],
      ["toolCallStart", { id: "a", name: "read_file" }],
      ["toolCallDelta", { id: "a", argumentsFragment: '{"path":1}' }],
      ["toolCallDelta", { id: "b", argumentsFragment: "{}" }],
      ["thinkingDelta", { text: "xy" }],
      ["textDelta", { text: "!" }],
    ],
  );
});
