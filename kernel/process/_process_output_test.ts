import assert from "node:assert/strict";
import {
  LineSplitter,
  MAX_HANDSHAKE_BYTES,
  MAX_LOG_LINE_BYTES,
  MAX_LOG_LINES_PER_SECOND,
  readHandshake,
  TailBuffer,
} from "./_process_output.ts";

const enc = new TextEncoder();

function streamOf(...chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(c) {
      for (const x of chunks) c.enqueue(x);
      c.close();
    },
  });
}

Deno.test("TailBuffer keeps only the last bytes, cut at a line start", () => {
  const t = new TailBuffer(16);
  t.push(enc.encode("first line\nsecond line\nthird\n"));
  assert.equal(t.text(), "third\n");
  const big = new TailBuffer(8);
  big.push(new Uint8Array(1_000_000).fill(120));
  assert.equal(big.text().length, 8);
});

Deno.test("LineSplitter caps line length and rate, and reports the drop count", () => {
  const lines: string[] = [];
  let dropped = 0;
  const s = new LineSplitter((l) => lines.push(l), (n) => (dropped += n));
  s.push(new Uint8Array(MAX_LOG_LINE_BYTES * 3).fill(97));
  s.push(enc.encode("\nshort\r\n"));
  assert.equal(lines.length, 2);
  assert.ok(lines[0]!.endsWith("…(line truncated)"));
  assert.ok(lines[0]!.length < MAX_LOG_LINE_BYTES + 40);
  assert.equal(lines[1], "short");
  s.push(enc.encode("x\n".repeat(MAX_LOG_LINES_PER_SECOND * 2)));
  s.end();
  assert.equal(lines.length, MAX_LOG_LINES_PER_SECOND);
  assert.equal(dropped, MAX_LOG_LINES_PER_SECOND + 2);
});

Deno.test("readHandshake() returns the first line and drains the rest", async () => {
  const rest: string[] = [];
  const r = await readHandshake(
    streamOf(
      enc.encode("1|1|unix|/tmp/p|gr"),
      enc.encode("pc|\nafter\n"),
      enc.encode("more"),
    ),
    (c) => rest.push(new TextDecoder().decode(c)),
  );
  assert.deepEqual(r, { kind: "line", line: "1|1|unix|/tmp/p|grpc|" });
  await new Promise((res) => setTimeout(res, 10));
  assert.equal(rest.join(""), "after\nmore");
});

Deno.test("readHandshake() refuses a first line over the cap without buffering it all", async () => {
  const r = await readHandshake(
    streamOf(new Uint8Array(MAX_HANDSHAKE_BYTES * 100).fill(65)),
    () => {},
  );
  assert.equal(r.kind, "too_long");
});

Deno.test("readHandshake() reports end of stream with what was printed", async () => {
  assert.deepEqual(
    await readHandshake(streamOf(enc.encode("oops")), () => {}),
    {
      kind: "eof",
      preview: "oops",
    },
  );
});
