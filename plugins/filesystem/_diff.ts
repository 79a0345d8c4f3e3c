/**
 * A line diff for the filesystem plugin's previews: Myers' O(ND) algorithm
 * in its linear-space form (the "middle snake" bisection), producing a
 * minimal edit script, and unified-diff hunks built from it.
 *
 * Lines are compared with their terminators, so a change that only adds or
 * removes the final newline still shows as a changed last line; the hunk
 * lines carry the text without the terminator.
 *
 * @module
 */

/** One step of an edit script. */
export type EditOp = "equal" | "remove" | "add";

/** One line of a unified-diff hunk. */
export interface HunkLine {
  /** `context` (unchanged), `add` or `remove`. */
  op: "context" | "add" | "remove";
  /** The line without its terminator. */
  text: string;
}

/**
 * A unified-diff hunk. Starts are 1-based; as in GNU diff, an empty range
 * names the line after which the change applies (0 = before the first).
 */
export interface Hunk {
  /** First old line of the hunk (or the line before an empty range). */
  oldStart: number;
  /** Number of old lines (context and removed). */
  oldLines: number;
  /** First new line of the hunk (or the line before an empty range). */
  newStart: number;
  /** Number of new lines (context and added). */
  newLines: number;
  /** The hunk's lines in order. */
  lines: HunkLine[];
}

/**
 * Splits text into lines, each keeping its `\n` terminator (the last line
 * has none when the text does not end with a newline).
 *
 * @example Usage
 * ```ts
 * import { splitLines } from "./_diff.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(splitLines("a\nb"), ["a\n", "b"]);
 * assert.deepEqual(splitLines(""), []);
 * ```
 *
 * @param text The text.
 * @returns Its lines, terminators included.
 */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf("\n", start);
    if (nl === -1) break;
    lines.push(text.slice(start, nl + 1));
    start = nl + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/**
 * Computes a minimal edit script turning `a` into `b` (Myers, linear space).
 * Past 2000 differences within one bisection it settles for a valid script
 * that is not minimal.
 * Within a run of changes, removals come before additions.
 *
 * @example Usage
 * ```ts
 * import { diffSequences } from "./_diff.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(diffSequences(["a", "b", "c"], ["a", "c", "d"]), [
 *   "equal", "remove", "equal", "add",
 * ]);
 * ```
 *
 * @param a The old sequence.
 * @param b The new sequence.
 * @returns One op per old line (`equal`/`remove`) and per new line (`add`).
 */
export function diffSequences(
  a: readonly string[],
  b: readonly string[],
): EditOp[] {
  // Compare small integers instead of strings.
  const ids = new Map<string, number>();
  const id = (s: string) => {
    let v = ids.get(s);
    if (v === undefined) ids.set(s, v = ids.size);
    return v;
  };
  const x = Int32Array.from(a, id);
  const y = Int32Array.from(b, id);
  const removed = new Uint8Array(x.length);
  const added = new Uint8Array(y.length);
  compare(x, 0, x.length, y, 0, y.length, removed, added);
  const ops: EditOp[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && removed[i]) {
      ops.push("remove");
      i++;
    } else if (j < y.length && added[j]) {
      ops.push("add");
      j++;
    } else {
      ops.push("equal");
      i++;
      j++;
    }
  }
  return ops;
}

/** Marks the lines of a[aLo,aHi) removed and b[bLo,bHi) added, minimally. */
function compare(
  a: Int32Array,
  aLo: number,
  aHi: number,
  b: Int32Array,
  bLo: number,
  bHi: number,
  removed: Uint8Array,
  added: Uint8Array,
): void {
  // Common prefix and suffix are never part of a minimal change.
  while (aLo < aHi && bLo < bHi && a[aLo] === b[bLo]) {
    aLo++;
    bLo++;
  }
  while (aLo < aHi && bLo < bHi && a[aHi - 1] === b[bHi - 1]) {
    aHi--;
    bHi--;
  }
  if (aLo === aHi) {
    added.fill(1, bLo, bHi);
    return;
  }
  if (bLo === bHi) {
    removed.fill(1, aLo, aHi);
    return;
  }
  const split = sharesAnything(a, aLo, aHi, b, bLo, bHi)
    ? middleSnake(a, aLo, aHi, b, bLo, bHi)
    : undefined;
  if (!split) {
    removed.fill(1, aLo, aHi);
    added.fill(1, bLo, bHi);
    return;
  }
  compare(a, aLo, split[0], b, bLo, split[1], removed, added);
  compare(a, split[0], aHi, b, split[1], bHi, removed, added);
}

/** Whether the two ranges have any element in common. */
function sharesAnything(
  a: Int32Array,
  aLo: number,
  aHi: number,
  b: Int32Array,
  bLo: number,
  bHi: number,
): boolean {
  if ((aHi - aLo) * (bHi - bLo) < 4096) return true; // cheaper to search
  const seen = new Set<number>();
  for (let i = aLo; i < aHi; i++) seen.add(a[i]!);
  for (let j = bLo; j < bHi; j++) if (seen.has(b[j]!)) return true;
  return false;
}

/**
 * The most differences one bisection explores before it gives up and
 * replaces its whole range: a valid but no longer minimal script, which
 * bounds the time spent on huge, thoroughly rewritten files.
 */
const MAX_BISECT_COST = 2000;

/**
 * Finds a point on an optimal path through the edit graph of two non-empty
 * ranges that start and end with a difference, by running the greedy Myers
 * search from both corners until the paths overlap. Returns absolute
 * indices, or undefined when the ranges share nothing (or the search
 * exceeds {@linkcode MAX_BISECT_COST}).
 */
function middleSnake(
  a: Int32Array,
  aLo: number,
  aHi: number,
  b: Int32Array,
  bLo: number,
  bHi: number,
): [number, number] | undefined {
  const n = aHi - aLo;
  const m = bHi - bLo;
  const maxD = Math.min(Math.ceil((n + m) / 2), MAX_BISECT_COST);
  const offset = maxD;
  const size = 2 * maxD + 2;
  // vf[k]: furthest x on diagonal k (x - y) from the top-left corner;
  // vb[k]: furthest distance travelled on diagonal k from the bottom-right.
  const vf = new Int32Array(size).fill(-1);
  const vb = new Int32Array(size).fill(-1);
  vf[offset + 1] = 0;
  vb[offset + 1] = 0;
  const delta = n - m;
  const front = (delta & 1) !== 0;
  let kfStart = 0;
  let kfEnd = 0;
  let kbStart = 0;
  let kbEnd = 0;
  for (let d = 0; d < maxD; d++) {
    for (let k = -d + kfStart; k <= d - kfEnd; k += 2) {
      const ko = offset + k;
      let px: number;
      if (k === -d || (k !== d && vf[ko - 1]! < vf[ko + 1]!)) px = vf[ko + 1]!;
      else px = vf[ko - 1]! + 1;
      let py = px - k;
      while (px < n && py < m && a[aLo + px] === b[bLo + py]) {
        px++;
        py++;
      }
      vf[ko] = px;
      if (px > n) kfEnd += 2; // off the right edge
      else if (py > m) kfStart += 2; // off the bottom edge
      else if (front) {
        const kbo = offset + delta - k;
        if (kbo >= 0 && kbo < size && vb[kbo] !== -1) {
          if (px >= n - vb[kbo]!) return [aLo + px, bLo + py];
        }
      }
    }
    for (let k = -d + kbStart; k <= d - kbEnd; k += 2) {
      const ko = offset + k;
      let qx: number;
      if (k === -d || (k !== d && vb[ko - 1]! < vb[ko + 1]!)) qx = vb[ko + 1]!;
      else qx = vb[ko - 1]! + 1;
      let qy = qx - k;
      while (
        qx < n && qy < m && a[aHi - qx - 1] === b[bHi - qy - 1]
      ) {
        qx++;
        qy++;
      }
      vb[ko] = qx;
      if (qx > n) kbEnd += 2;
      else if (qy > m) kbStart += 2;
      else if (!front) {
        const kfo = offset + delta - k;
        if (kfo >= 0 && kfo < size && vf[kfo] !== -1) {
          const px = vf[kfo]!;
          const py = offset + px - kfo;
          if (px >= n - qx) return [aLo + px, bLo + py];
        }
      }
    }
  }
  return undefined;
}

function stripTerminator(line: string): string {
  if (line.endsWith("\r\n")) return line.slice(0, -2);
  if (line.endsWith("\n")) return line.slice(0, -1);
  return line;
}

/**
 * Builds unified-diff hunks (GNU `diff -u` layout) between two texts.
 *
 * @example Usage
 * ```ts
 * import { unifiedHunks } from "./_diff.ts";
 * import assert from "node:assert/strict";
 * const [hunk] = unifiedHunks("a\nb\nc\n", "a\nB\nc\n");
 * assert.deepEqual(hunk, {
 *   oldStart: 1, oldLines: 3, newStart: 1, newLines: 3,
 *   lines: [
 *     { op: "context", text: "a" },
 *     { op: "remove", text: "b" },
 *     { op: "add", text: "B" },
 *     { op: "context", text: "c" },
 *   ],
 * });
 * ```
 *
 * @param oldText The text before.
 * @param newText The text after.
 * @param context Unchanged lines shown around each change.
 * @returns The hunks, empty when the texts are equal.
 */
export function unifiedHunks(
  oldText: string,
  newText: string,
  context = 3,
): Hunk[] {
  const a = splitLines(oldText);
  const b = splitLines(newText);
  const ops = diffSequences(a, b);
  // Positions (in ops) of each op, with the old/new line index it starts at.
  const ai: number[] = [];
  const bi: number[] = [];
  let i = 0;
  let j = 0;
  for (const op of ops) {
    ai.push(i);
    bi.push(j);
    if (op !== "add") i++;
    if (op !== "remove") j++;
  }
  const changes: number[] = [];
  ops.forEach((op, k) => {
    if (op !== "equal") changes.push(k);
  });
  const hunks: Hunk[] = [];
  let c = 0;
  while (c < changes.length) {
    // Extend the group while the gap of equal lines is at most 2·context.
    let last = c;
    while (
      last + 1 < changes.length &&
      changes[last + 1]! - changes[last]! - 1 <= 2 * context
    ) last++;
    const from = Math.max(0, changes[c]! - context);
    const to = Math.min(ops.length, changes[last]! + context + 1);
    const lines: HunkLine[] = [];
    let oldLines = 0;
    let newLines = 0;
    for (let k = from; k < to; k++) {
      const op = ops[k]!;
      if (op === "equal") {
        lines.push({ op: "context", text: stripTerminator(a[ai[k]!]!) });
        oldLines++;
        newLines++;
      } else if (op === "remove") {
        lines.push({ op: "remove", text: stripTerminator(a[ai[k]!]!) });
        oldLines++;
      } else {
        lines.push({ op: "add", text: stripTerminator(b[bi[k]!]!) });
        newLines++;
      }
    }
    hunks.push({
      oldStart: oldLines > 0 ? ai[from]! + 1 : ai[from]!,
      oldLines,
      newStart: newLines > 0 ? bi[from]! + 1 : bi[from]!,
      newLines,
      lines,
    });
    c = last + 1;
  }
  return hunks;
}

/**
 * Formats hunks as unified-diff text (without file headers), for logs and
 * tests.
 *
 * @param hunks The hunks.
 * @returns `@@ -a,b +c,d @@` headers and ` `/`-`/`+` prefixed lines.
 */
export function formatHunks(hunks: readonly Hunk[]): string {
  const out: string[] = [];
  for (const h of hunks) {
    out.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`);
    for (const l of h.lines) {
      out.push(
        (l.op === "context" ? " " : l.op === "add" ? "+" : "-") + l.text,
      );
    }
  }
  return out.join("\n");
}
