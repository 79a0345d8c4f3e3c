// deno-lint-ignore-file no-control-regex
import assert from "node:assert/strict";
import type { Line } from "./lines.ts";
import { type Frame, frameRows, Screen } from "./screen.ts";

/**
 * A row's cells as a terminal shows them: each character with the styles
 * in effect (SGR 0-7, 22-27, 30-37, 39, 90-97), trailing blanks without a
 * visible style dropped (Ink trims them; the painter erases the rest).
 */
function cells(row: string): string[] {
  const out: string[] = [];
  const on = new Set<number>();
  let fg = 39;
  for (const part of row.split(/(\x1b\[[0-9;]*m)/)) {
    const sgr = /^\x1b\[([0-9;]*)m$/.exec(part);
    if (sgr) {
      for (const p of (sgr[1] || "0").split(";").map(Number)) {
        if (p === 0) {
          on.clear();
          fg = 39;
        } else if (p >= 1 && p <= 7) on.add(p);
        else if (p === 22) {
          on.delete(1);
          on.delete(2);
        } else if (p >= 23 && p <= 27) on.delete(p - 20);
        else if ((p >= 30 && p <= 39) || (p >= 90 && p <= 97)) fg = p;
      }
      continue;
    }
    for (const ch of part) {
      out.push(`${ch}${[...on].sort().join("")}${fg === 39 ? "" : `/${fg}`}`);
    }
  }
  // A blank shows the same in any colour but reverse video or underline.
  while (out.length && /^ [^47]*$/.test(out.at(-1)!.replace(/\/\d+$/, ""))) {
    out.pop();
  }
  return out;
}

/** The frame as Ink's `renderToString` draws the tree the app used to give it. */
async function inkRows(frame: Frame): Promise<string[]> {
  const React = (await import("react")).default;
  const { Box, Text, renderToString } = await import("ink");
  const h = React.createElement;
  const lines = (ls: readonly Line[]) =>
    h(
      Box,
      { flexDirection: "column" },
      ...ls.map((l, i) =>
        h(
          Text,
          { key: i, wrap: "truncate-end" },
          l.length === 0 ? " " : l.map((s, j) =>
            h(Text, {
              key: j,
              ...(frame.color
                ? {
                  bold: s.bold,
                  dimColor: s.dim,
                  italic: s.italic,
                  underline: s.underline,
                  inverse: s.inverse,
                  color: s.color,
                }
                : {}),
            }, s.text)
          ),
        )
      ),
    );
  const { width, height } = frame;
  const tree = h(
    Box,
    { flexDirection: "column", width, height },
    lines(frame.transcript),
    h(
      Box,
      {
        flexDirection: "column",
        borderStyle: "round",
        ...(frame.color && frame.box.border
          ? { borderColor: frame.box.border }
          : {}),
        paddingLeft: 1,
        width,
      },
      ...(frame.box.title ? [lines([frame.box.title])] : []),
      lines(frame.box.lines),
    ),
    lines(frame.bottom),
    lines(frame.panel),
    lines(frame.status),
  );
  return renderToString(tree, { columns: width }).split("\n");
}

function statusOf(width: number): Line[] {
  return [[{
    text: " default · scripted · ctx 1.5k/200.0k (1%) · $0.0100 · 01ABC"
      .padEnd(width),
    inverse: true,
  }]];
}

const FRAMES: Record<string, Frame> = {
  "a dialog, with styles, empty lines, a line of empty spans (Ink gives it no row), truncated lines (wide characters too) and the panel":
    {
      width: 40,
      height: 20,
      color: true,
      transcript: [
        [],
        [{ text: "› ", bold: true, color: "cyan" }, {
          text: "Summarize notes.md",
          bold: true,
        }],
        [],
        [{ text: "" }],
        [{ text: "● " }, { text: "read_file", color: "green" }, {
          text: "(a call far too long for the forty columns of this window)",
        }],
        [{ text: "  日本語のテキストが長すぎてこの窓に入らない", dim: true }],
        [{ text: "  thinking", dim: true, italic: true }],
        [{ text: "  under", underline: true }, {
          text: " and red",
          color: "red",
        }],
      ],
      box: {
        title: [{
          text: "Approve fs.write_file?",
          bold: true,
          color: "yellow",
        }],
        lines: [
          [{ text: "@@ -0,0 +1,8 @@", color: "cyan" }],
          [{ text: "+# Summary", color: "green" }],
          [],
          [{ text: "-gone, and a line too wide for the box", color: "red" }],
          [{ text: "y", bold: true, color: "green" }, { text: " once  " }, {
            text: "n",
            bold: true,
            color: "red",
          }, { text: " reject" }],
        ],
        border: "yellow",
      },
      bottom: [],
      panel: [[{ text: "▪ widget ", dim: true }, { text: "build 3/10" }]],
      status: statusOf(40),
    },
  "the input box with its cursor, a hint, and a short transcript": {
    width: 30,
    height: 12,
    color: true,
    transcript: [[], [], [{ text: "● hello", color: "magenta" }]],
    box: {
      lines: [[{ text: "> ", bold: true, color: "cyan" }, { text: "abc" }, {
        text: " ",
        inverse: true,
      }]],
      border: "gray",
    },
    bottom: [[{ text: "  input cleared", dim: true }]],
    panel: [],
    status: statusOf(30),
  },
  "no colours": {
    width: 24,
    height: 9,
    color: false,
    transcript: [[{ text: "● an answer longer than the window", bold: true }]],
    box: {
      lines: [[{ text: "> " }, { text: "▏" }, { text: " type", dim: true }]],
      border: "gray",
    },
    bottom: [],
    panel: [],
    status: statusOf(24),
  },
};

for (const [name, frame] of Object.entries(FRAMES)) {
  Deno.test(`the painter lays a frame out as Ink did: ${name}`, async () => {
    // Colours as the TUI draws them (chalk reads this when first loaded).
    if (!Deno.env.get("FORCE_COLOR")) Deno.env.set("FORCE_COLOR", "2");
    const ink = await inkRows(frame);
    const ours = frameRows(frame);
    assert.equal(ours.length, frame.height);
    // Without colours (chalk may have loaded without them in this process),
    // the text alone.
    const styled = ink.some((r) => r.includes("\x1b["));
    const view = (rows: string[]) =>
      rows.map((r) =>
        styled || !frame.color
          ? cells(r).join(" ")
          : r.replace(/\x1b\[[0-9;]*m/g, "").trimEnd()
      );
    assert.deepEqual(view(ours), view(ink));
  });
}

Deno.test("the screen writes only the rows that changed, erases only after a shorter row, repaints every row on a resize, paints the last of the frames given in one turn, and nothing once closed", async () => {
  let written: string[] = [];
  const screen = new Screen((t) => written.push(t));
  const frame = (typed: string, width = 30): Frame => ({
    width,
    height: 8,
    color: true,
    transcript: [[{ text: "● hello" }]],
    box: {
      lines: [[{ text: "> " }, { text: typed }, { text: " ", inverse: true }]],
      border: "gray",
    },
    bottom: [],
    panel: [],
    status: statusOf(width),
  });
  assert.equal(screen.paint(frame("a")), 8);
  assert.equal(written.length, 1);
  assert.ok(written[0]!.startsWith("\x1b[?2026h\x1b[1;1H"));
  assert.ok(written[0]!.endsWith("\x1b[?2026l"));
  assert.ok(
    !written[0]!.includes("\x1b[2J"),
    "no clear before the first frame",
  );
  // The status line fills the row: no erase after it (it would clear its
  // last column).
  assert.ok(/\x1b\[5;1H\x1b\[0;7m[^\x1b]+\x1b\[0m\x1b\[6;1H/.test(
    written[0]!,
  ));
  written = [];
  assert.equal(screen.paint(frame("ab")), 1);
  assert.equal(written.length, 1);
  assert.match(
    written[0]!,
    /^\x1b\[\?2026h\x1b\[3;1H\x1b\[0;90m│\x1b\[0m > ab/,
  );
  assert.equal(written[0]!.match(/\x1b\[\d+;1H/g)?.length, 1);
  written = [];
  assert.equal(screen.paint(frame("ab")), 0);
  assert.equal(written.length, 0);
  assert.equal(screen.paint(frame("ab", 40)), 8);
  assert.ok(written[0]!.startsWith("\x1b[?2026h\x1b[H\x1b[2J"));
  // Frames given in one turn paint once, the last; none once closed.
  written = [];
  screen.paintSoon(frame("abc", 40));
  screen.paintSoon(frame("abcd", 40));
  await Promise.resolve();
  assert.equal(written.length, 1);
  assert.match(written[0]!, / > abcd\x1b/);
  screen.paintSoon(frame("abcde", 40));
  screen.close();
  await Promise.resolve();
  assert.equal(screen.paint(frame("x", 40)), 0);
  assert.equal(written.length, 1);
});

Deno.test("a frame taller than the window keeps its bottom rows; controls in a span's text do not reach the terminal", () => {
  const rows = frameRows({
    width: 20,
    height: 4,
    color: false,
    transcript: [[{ text: "t1" }], [{ text: "t2" }]],
    box: { lines: [[{ text: "in\x1b[2J\x07put\ttab" }]] },
    bottom: [],
    panel: [],
    status: [[{ text: "status" }]],
  });
  assert.deepEqual(rows, [
    "╭──────────────────╮",
    "│ input  tab       │",
    "╰──────────────────╯",
    "status",
  ]);
});
