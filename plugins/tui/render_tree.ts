/**
 * Paints a `render.v1.RenderTree` (a plugin's own rendering: a plan
 * item's preview diff, a tool's output) as styled lines.
 *
 * @module
 */
import {
  DiffLineOp,
  type RenderNode,
  type RenderTree,
  TextStyle,
} from "../../proto/gen/pluggableharness/render/v1/types_pb.ts";
import { codeBlockLines } from "./highlight.ts";
import type { Line, Span } from "./lines.ts";

function textStyle(style: TextStyle | undefined): Omit<Span, "text"> {
  switch (style) {
    case TextStyle.BOLD:
      return { bold: true };
    case TextStyle.ITALIC:
      return { italic: true };
    case TextStyle.CODE:
      return { color: "cyan" };
    case TextStyle.DIM:
      return { dim: true };
    default:
      return {};
  }
}

function node(n: RenderNode | undefined, indent: string): Line[] {
  const v = n?.node;
  if (!v) return [];
  const pad = indent ? [{ text: indent }] : [];
  switch (v.case) {
    case "text":
      return v.value.content.split("\n").map((t) => [
        ...pad,
        { ...textStyle(v.value.style), text: t },
      ]);
    case "codeBlock":
      return codeBlockLines(v.value.content, v.value.language ?? "").map((
        l,
      ) => [...pad, ...l]);
    case "diff": {
      const out: Line[] = [];
      for (const h of v.value.hunks) {
        out.push([...pad, {
          text:
            `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`,
          color: "cyan",
        }]);
        for (const l of h.lines) {
          out.push([
            ...pad,
            l.op === DiffLineOp.ADD
              ? { text: `+${l.text}`, color: "green" }
              : l.op === DiffLineOp.REMOVE
              ? { text: `-${l.text}`, color: "red" }
              : { text: ` ${l.text}`, dim: true },
          ]);
        }
      }
      return out;
    }
    case "table": {
      const rows = [v.value.headers, ...v.value.rows.map((r) => r.cells)];
      const widths = (rows[0] ?? []).map((_, i) =>
        Math.max(...rows.map((r) => (r[i] ?? "").length))
      );
      return rows.map((r, i) => [...pad, {
        text: r.map((c, j) => c.padEnd(widths[j] ?? 0)).join("  "),
        ...(i === 0 ? { bold: true } : {}),
      }]);
    }
    case "link":
      return [[
        ...pad,
        {
          text: v.value.text || v.value.url,
          underline: true,
          color: "blue",
        },
        ...(v.value.text && v.value.text !== v.value.url
          ? [{ text: ` (${v.value.url})`, dim: true }]
          : []),
      ]];
    case "list":
      return v.value.items.flatMap((item, i) =>
        node(item, "").map((l, j) => [
          ...pad,
          {
            text: j > 0 ? "   " : v.value.ordered ? `${i + 1}. ` : "• ",
            color: "yellow",
          },
          ...l,
        ])
      );
    case "group":
      return v.value.children.flatMap((c) => node(c, indent));
    case "collapsible":
      return [
        [...pad, {
          text: `${v.value.collapsedByDefault ? "▸" : "▾"} ${v.value.summary}`,
          bold: true,
        }],
        ...(v.value.collapsedByDefault
          ? []
          : v.value.children.flatMap((c) => node(c, indent + "  "))),
      ];
    case "subSession":
      return [[...pad, {
        text: `↳ sub-session ${v.value.sessionId}: ${v.value.summary}`,
        dim: true,
      }]];
    case "action":
      return [[...pad, { text: `[${v.value.label}]`, color: "cyan" }]];
  }
  return [];
}

/**
 * A render tree as lines.
 *
 * @param tree The tree.
 * @returns Its lines (none for an empty tree).
 */
export function renderTreeLines(tree: RenderTree | undefined): Line[] {
  return node(tree?.root, "");
}
