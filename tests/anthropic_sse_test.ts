/**
 * The `anthropic` provider's server-sent-events decoder: line endings,
 * comments, multi-line data, UTF-8 split across chunks, an event cut off
 * at end of input.
 *
 * @module
 */
import assert from "node:assert/strict";
import { SseDecoder, type SseMessage } from "../plugins/anthropic/sse.ts";

function decode(chunks: (string | Uint8Array)[]): SseMessage[] {
  const d = new SseDecoder();
  const enc = new TextEncoder();
  const out: SseMessage[] = [];
  for (const c of chunks) {
    out.push(...d.push(typeof c === "string" ? enc.encode(c) : c));
  }
  out.push(...d.end());
  return out;
}

Deno.test("SSE: LF, CRLF and CR line endings, comments and multi-line data", () => {
  assert.deepEqual(
    decode([
      ": keep-alive comment\n",
      "event: ping\ndata: {}\n\n",
      'event: message_start\r\ndata: {"a":1}\r\n\r\n',
      "event: x\rdata: line1\rdata: line2\r\r",
      "data:no-space\n\n",
    ]),
    [
      { event: "ping", data: "{}" },
      { event: "message_start", data: '{"a":1}' },
      { event: "x", data: "line1\nline2" },
      { event: "message", data: "no-space" },
    ],
  );
});

Deno.test("SSE: a CR LF and a multi-byte character split across chunks", () => {
  const bytes = new TextEncoder().encode(
    'event: t\r\ndata: {"t":"日本🚀"}\r\n\r\n',
  );
  // Every split point, including inside CR LF and inside each character.
  for (let i = 1; i < bytes.length; i++) {
    assert.deepEqual(
      decode([bytes.slice(0, i), bytes.slice(i)]),
      [{ event: "t", data: '{"t":"日本🚀"}' }],
      `split at ${i}`,
    );
  }
});

Deno.test("SSE: an event cut off before its blank line is not dispatched (as the standard says)", () => {
  assert.deepEqual(
    decode(["event: a\ndata: 1\n\nevent: message_stop\ndata: {}"]),
    [
      { event: "a", data: "1" },
    ],
  );
  assert.deepEqual(decode(["\n\n\n"]), []);
});
