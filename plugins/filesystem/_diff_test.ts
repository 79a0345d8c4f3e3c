import assert from "node:assert/strict";
import { cpuUsage } from "node:process";
import {
  diffSequences,
  type EditOp,
  formatHunks,
  splitLines,
  unifiedHunks,
} from "./_diff.ts";

function apply(a: string[], b: string[], ops: EditOp[]): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  for (const op of ops) {
    if (op === "equal") {
      assert.equal(a[i], b[j], "an equal op pairs equal lines");
      out.push(a[i]!);
      i++;
      j++;
    } else if (op === "remove") i++;
    else out.push(b[j++]!);
  }
  assert.equal(i, a.length, "every old line is consumed");
  assert.equal(j, b.length, "every new line is consumed");
  return out;
}

function lcsLength(a: string[], b: string[]): number {
  const dp = Array.from(
    { length: a.length + 1 },
    () => new Array<number>(b.length + 1).fill(0),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      dp[i]![j] = a[i - 1] === b[j - 1]
        ? dp[i - 1]![j - 1]! + 1
        : Math.max(dp[i - 1]![j]!, dp[i]![j - 1]!);
    }
  }
  return dp[a.length]![b.length]!;
}

/** A small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

Deno.test("splitLines() keeps terminators and has no phantom last line", () => {
  assert.deepEqual(splitLines(""), []);
  assert.deepEqual(splitLines("\n"), ["\n"]);
  assert.deepEqual(splitLines("a\nb\n"), ["a\n", "b\n"]);
  assert.deepEqual(splitLines("a\r\nb"), ["a\r\n", "b"]);
});

Deno.test("diffSequences() handles empty and identical inputs", () => {
  assert.deepEqual(diffSequences([], []), []);
  assert.deepEqual(diffSequences([], ["a"]), ["add"]);
  assert.deepEqual(diffSequences(["a"], []), ["remove"]);
  assert.deepEqual(diffSequences(["a", "b"], ["a", "b"]), ["equal", "equal"]);
  assert.deepEqual(diffSequences(["a"], ["b"]), ["remove", "add"]);
});

Deno.test("diffSequences() is a valid and minimal edit script (random cases against an LCS table)", () => {
  const random = rng(42);
  for (let n = 0; n < 600; n++) {
    const alphabet = 1 + Math.floor(random() * 5);
    const gen = () =>
      Array.from(
        { length: Math.floor(random() * 14) },
        () => String.fromCharCode(97 + Math.floor(random() * alphabet)),
      );
    const a = gen();
    const b = gen();
    const ops = diffSequences(a, b);
    assert.deepEqual(apply(a, b, ops), b, `${a} -> ${b}`);
    const equal = ops.filter((o) => o === "equal").length;
    assert.equal(equal, lcsLength(a, b), `minimal for ${a} -> ${b}`);
  }
  // Longer sequences: edits of a common base, as files are edited.
  for (let n = 0; n < 100; n++) {
    const base = Array.from(
      { length: 20 + Math.floor(random() * 80) },
      () => `l${Math.floor(random() * 12)}`,
    );
    const edit = (xs: string[]) =>
      xs.flatMap((x) => {
        const r = random();
        return r < 0.1 ? [] : r < 0.2 ? [x, `new${n}`] : r < 0.25 ? ["z"] : [x];
      });
    const a = edit(base);
    const b = edit(base);
    const ops = diffSequences(a, b);
    assert.deepEqual(apply(a, b, ops), b);
    assert.equal(
      ops.filter((o) => o === "equal").length,
      lcsLength(a, b),
      "minimal",
    );
  }
});

Deno.test("diffSequences() stays fast and valid on large rewrites", () => {
  const a = Array.from({ length: 20000 }, (_, i) => `old ${i}\n`);
  const b = Array.from({ length: 20000 }, (_, i) => `new ${i}\n`);
  // CPU time of the process, not wall time: a busy machine that deschedules
  // the test must not fail it.
  const cpuMs = (since: ReturnType<typeof cpuUsage>) => {
    const used = cpuUsage(since);
    return (used.user + used.system) / 1000;
  };
  let started = cpuUsage();
  assert.equal(diffSequences(a, b).length, 40000);
  assert.ok(cpuMs(started) < 500, "nothing in common: at once");
  // Every other line changed: far past the bisection budget.
  const c = a.map((l, i) => i % 2 ? `changed ${i}\n` : l);
  started = cpuUsage();
  const ops = diffSequences(a, c);
  assert.deepEqual(apply(a, c, ops), c);
  assert.ok(cpuMs(started) < 3000);
});

Deno.test("unifiedHunks() uses three lines of context and merges close changes", () => {
  const old = Array.from({ length: 20 }, (_, i) => `l${i + 1}`).join("\n") +
    "\n";
  const lines = old.split("\n");
  lines[4] = "L5"; // line 5
  lines[10] = "L11"; // line 11: gap of 5 equal lines (6..10) ≤ 6: merged
  lines[18] = "L19"; // line 19: gap of 7 (12..18): a second hunk
  const hunks = unifiedHunks(old, lines.join("\n"));
  assert.equal(
    formatHunks(hunks),
    [
      "@@ -2,13 +2,13 @@",
      " l2",
      " l3",
      " l4",
      "-l5",
      "+L5",
      " l6",
      " l7",
      " l8",
      " l9",
      " l10",
      "-l11",
      "+L11",
      " l12",
      " l13",
      " l14",
      "@@ -16,5 +16,5 @@",
      " l16",
      " l17",
      " l18",
      "-l19",
      "+L19",
      " l20",
    ].join("\n"),
  );
});

Deno.test("unifiedHunks() follows GNU diff for empty ranges", () => {
  assert.deepEqual(unifiedHunks("", "a\nb\n"), [{
    oldStart: 0,
    oldLines: 0,
    newStart: 1,
    newLines: 2,
    lines: [{ op: "add", text: "a" }, { op: "add", text: "b" }],
  }]);
  assert.deepEqual(unifiedHunks("a\nb\n", ""), [{
    oldStart: 1,
    oldLines: 2,
    newStart: 0,
    newLines: 0,
    lines: [{ op: "remove", text: "a" }, { op: "remove", text: "b" }],
  }]);
  // Insertion after line 4 with no context (context 0): "-4,0 +5,1".
  assert.equal(
    formatHunks(unifiedHunks("1\n2\n3\n4\n5\n", "1\n2\n3\n4\nx\n5\n", 0)),
    "@@ -4,0 +5,1 @@\n+x",
  );
  assert.deepEqual(unifiedHunks("same\n", "same\n"), []);
});

Deno.test("unifiedHunks() shows a change of the final newline as a changed last line", () => {
  assert.equal(
    formatHunks(unifiedHunks("a\nb", "a\nb\n")),
    "@@ -1,2 +1,2 @@\n a\n-b\n+b",
  );
  assert.equal(
    formatHunks(unifiedHunks("a\r\nb\r\n", "a\r\nc\r\n")),
    "@@ -1,2 +1,2 @@\n a\n-b\n+c",
  );
});
