import assert from "node:assert/strict";
import {
  decodeCall,
  decodeStatus,
  encodeCall,
  encodeFrame,
  encodeStatus,
  Frame,
  FrameWriter,
  readFrames,
} from "./_frames.ts";

function reader(bytes: Uint8Array, chunk: number) {
  let off = 0;
  return {
    read(p: Uint8Array): Promise<number | null> {
      if (off >= bytes.length) return Promise.resolve(null);
      const n = Math.min(chunk, p.length, bytes.length - off);
      p.set(bytes.subarray(off, off + n));
      off += n;
      return Promise.resolve(n);
    },
  };
}

Deno.test("readFrames() decodes frames split across any read boundary", async () => {
  const big = new Uint8Array(200_000).map((_, i) => i % 251);
  const frames = [
    encodeFrame(Frame.CALL, 7, encodeCall(3, 11, new Uint8Array([1, 2, 3]))),
    encodeFrame(Frame.DATA, 7, big),
    encodeFrame(Frame.END, 7, encodeStatus(5, "not found: é")),
  ];
  const all = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
  let off = 0;
  for (const f of frames) {
    all.set(f, off);
    off += f.length;
  }
  for (const chunk of [1, 7, 4096, 1 << 20]) {
    const got = [];
    for await (const f of readFrames(reader(all, chunk))) {
      got.push({ ...f, payload: f.payload.slice() });
    }
    assert.equal(got.length, 3, `chunk ${chunk}`);
    assert.deepEqual(decodeCall(got[0]!.payload), {
      endpoint: 3,
      method: 11,
      request: new Uint8Array([1, 2, 3]),
    });
    assert.deepEqual(got[1]!.payload, big);
    assert.deepEqual(decodeStatus(got[2]!.payload), {
      code: 5,
      details: "not found: é",
    });
  }
});

Deno.test("readFrames() rejects an impossible frame length", async () => {
  const bad = new Uint8Array([1, 0, 0, 0, 9]);
  await assert.rejects(async () => {
    for await (const _ of readFrames(reader(bad, 16))) { /* drain */ }
  }, /bad frame length 1/);
});

Deno.test("FrameWriter keeps frame order while coalescing writes", async () => {
  const writes: Uint8Array[] = [];
  const w = new FrameWriter({
    write: async (p) => {
      await new Promise((r) => setTimeout(r, 1));
      writes.push(p.slice());
      return p.length;
    },
  });
  for (let i = 0; i < 100; i++) w.send(Frame.DATA, i, new Uint8Array([i]));
  await new Promise((r) => setTimeout(r, 50));
  const all = new Uint8Array(writes.reduce((n, x) => n + x.length, 0));
  let off = 0;
  for (const x of writes) {
    all.set(x, off);
    off += x.length;
  }
  const ids = [];
  for await (const f of readFrames(reader(all, 1000))) ids.push(f.id);
  assert.deepEqual(ids, [...Array(100).keys()]);
  assert.ok(writes.length < 100, `coalesced into ${writes.length} writes`);
});
