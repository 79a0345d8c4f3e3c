/**
 * A tool call and its result in the transcript: the tool plugin's own
 * Render trees (`RenderEvents`) where it painted them, else today's text.
 *
 * @module
 */
import type { Entry } from "./transcript.ts";
import { type Line, wrapLine } from "./lines.ts";
import { renderTreeLines } from "./render_tree.ts";

/** The most lines of a tool's output (text or tree) shown in the transcript. */
const TOOL_OUTPUT_LINES = 12;

/**
 * Lines under a tool's head, the first marked `⎿`, at most
 * {@linkcode TOOL_OUTPUT_LINES}, each wrapped.
 */
function underTool(lines: Line[], width: number): Line[] {
  const out: Line[] = [];
  lines.slice(0, TOOL_OUTPUT_LINES).forEach((l, i) =>
    out.push(
      ...wrapLine(
        [{ text: i === 0 ? "  ⎿ " : "    ", dim: true }, ...l],
        width,
        [
          { text: "    " },
        ],
      ),
    )
  );
  if (lines.length > TOOL_OUTPUT_LINES) {
    out.push([{
      text: `    … ${lines.length - TOOL_OUTPUT_LINES} more lines`,
      dim: true,
    }]);
  }
  return out;
}

/**
 * A tool call and its result: the tool's own Render trees where its
 * plugin painted them, else the arguments and the result as text (the
 * kernel's rendering of the payload).
 *
 * @param e The tool entry.
 * @param width The columns to wrap at.
 * @returns Its lines.
 */
export function toolLines(
  e: Extract<Entry, { kind: "tool" }>,
  width: number,
): Line[] {
  const mark = e.status === "running"
    ? { text: "◌ ", color: "yellow" }
    : e.status === "ok"
    ? { text: "● ", color: "green" }
    : { text: "● ", color: "red" };
  const head: Line = [mark, { text: e.name || "tool", bold: true }, {
    text: e.args && !e.callTree ? `(${e.args})` : "",
    dim: true,
  }];
  const out = wrapLine(head, width, [{ text: "  " }]);
  if (e.callTree) {
    for (const l of renderTreeLines(e.callTree)) {
      out.push(...wrapLine([{ text: "  " }, ...l], width, [{ text: "  " }]));
    }
  }
  if (e.status === "denied") {
    out.push([{ text: "  ⎿ ", dim: true }, { text: "denied", color: "red" }]);
  } else if (e.resultTree) {
    out.push(...underTool(renderTreeLines(e.resultTree), width));
  } else if (e.output) {
    out.push(...underTool(
      e.output.replace(/\n$/, "").split("\n").map((l) => [{
        text: l,
        ...(e.status === "error" ? { color: "red" } : { dim: true }),
      }]),
      width,
    ));
  }
  return out;
}
