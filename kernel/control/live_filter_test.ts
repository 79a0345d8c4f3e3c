// The live strip rule: text deltas lose exactly the blocks the stored
// message loses, wherever the stream splits them.
import assert from "node:assert/strict";
import { LiveTagFilter } from "./live_filter.ts";
import { parseAgentOutput } from "./tags.ts";

/** Streams `text` split at `cuts` and returns what is shown. */
function stream(text: string, cuts: number[]): string {
  const f = new LiveTagFilter();
  let out = "";
  let from = 0;
  for (const c of [...cuts, text.length]) {
    out += f.push(text.slice(from, c));
    from = c;
  }
  return out + f.flush();
}

const CASES: [text: string, live: string][] = [
  [
    '<cp:agent-thinking>check a < b first</cp:agent-thinking>Done.\n<cp:agent-status state="done"></cp:agent-status>',
    "Done.\n",
  ],
  [
    'Goal met.<cp:goal-status state="done">all green</cp:goal-status> <cp:agent-status state="continue"/>',
    "Goal met. ",
  ],
  // Kept channels, system→agent names and a lone "<" pass through.
  [
    'x <cp:compact type="fact">a</cp:compact> <cp:time utc="u"></cp:time> 1 < 2 <cpx',
    'x <cp:compact type="fact">a</cp:compact> <cp:time utc="u"></cp:time> 1 < 2 <cpx',
  ],
  // Malformed (bad state, never closed): kept, as the stored text keeps it.
  [
    'A <cp:agent-status state="maybe"></cp:agent-status> B',
    'A <cp:agent-status state="maybe"></cp:agent-status> B',
  ],
  [
    "tail <cp:agent-thinking>never closed",
    "tail <cp:agent-thinking>never closed",
  ],
];

Deno.test("live deltas: stripped agent→system blocks are removed at every split point; kept and malformed ones pass through", () => {
  for (const [text, live] of CASES) {
    for (let i = 0; i <= text.length; i++) {
      assert.equal(stream(text, [i]), live, `split at ${i} of ${text}`);
    }
    // One character per delta.
    assert.equal(
      stream(text, Array.from({ length: text.length }, (_, i) => i)),
      live,
    );
  }
});

Deno.test("live deltas agree with the stored text up to the whitespace the stored strip trims", () => {
  for (const [text, live] of CASES) {
    assert.equal(
      live.replace(/\n{3,}/g, "\n\n").trim(),
      parseAgentOutput(text).text.trim(),
    );
  }
});

Deno.test("live deltas: text without a tag is passed on unchanged and nothing is held", () => {
  const f = new LiveTagFilter();
  assert.equal(f.push("plain "), "plain ");
  assert.equal(f.push("text"), "text");
  assert.equal(f.flush(), "");
});

Deno.test("live deltas: reset forgets a held block (a retried model call)", () => {
  const f = new LiveTagFilter();
  assert.equal(f.push("a<cp:agent-thinking>half"), "a");
  f.reset();
  assert.equal(f.push("b"), "b");
  assert.equal(f.flush(), "");
});
