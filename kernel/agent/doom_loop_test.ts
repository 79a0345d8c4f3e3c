import assert from "node:assert/strict";
import { callHash, canonicalJson, DoomLoopDetector } from "./doom_loop.ts";

Deno.test("callHash() ignores key order and whitespace, and scopes by provider", () => {
  assert.equal(
    callHash({
      provider: "fs",
      tool: "read_file",
      input: { path: "a", range: { to: 2, from: 1 } },
    }),
    callHash({
      provider: "fs",
      tool: "read_file",
      input: { range: { from: 1, to: 2 }, path: "a" },
    }),
  );
  assert.notEqual(
    callHash({ provider: "fs", tool: "read_file", input: {} }),
    callHash({ provider: "web", tool: "read_file", input: {} }),
  );
  assert.notEqual(
    callHash({ provider: "fs", tool: "read_file", input: { path: "a" } }),
    callHash({ provider: "fs", tool: "read_file", input: { path: "b" } }),
  );
  assert.equal(
    canonicalJson([{ b: 1, a: [true, null] }]),
    '[{"a":[true,null],"b":1}]',
  );
});

Deno.test("§6.9-7 DoomLoopDetector fires on threshold identical consecutive hashes", () => {
  const d = new DoomLoopDetector({ threshold: 3, windowSize: 4 });
  for (const h of ["a", "a", "b", "a", "a"]) d.record(h);
  assert.equal(d.fired, false, "the run was broken by b");
  d.record("a");
  assert.equal(d.fired, true);
  assert.deepEqual(d.window, ["b", "a", "a", "a"]);
});
