/**
 * Markdown to styled lines: `marked`'s lexer parses (a small, dependency-free
 * import), and the tokens become {@linkcode Line}s — headings bold,
 * emphasis, inline code, links, lists, quotes, tables, and fenced code
 * blocks highlighted by {@linkcode codeBlockLines}.
 *
 * @module
 */
import { Lexer, type Token, type Tokens } from "marked";
import { codeBlockLines } from "./highlight.ts";
import type { Line, Span } from "./lines.ts";

type Style = Omit<Span, "text">;

function decode(text: string): string {
  return text.replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(
    /&gt;/g,
    ">",
  ).replace(/&quot;/g, '"').replace(/&#39;/g, "'");
}

function inline(tokens: readonly Token[] | undefined, style: Style): Span[] {
  const out: Span[] = [];
  for (const t of tokens ?? []) {
    switch (t.type) {
      case "strong":
        out.push(
          ...inline((t as Tokens.Strong).tokens, { ...style, bold: true }),
        );
        break;
      case "em":
        out.push(
          ...inline((t as Tokens.Em).tokens, { ...style, italic: true }),
        );
        break;
      case "del":
        out.push(...inline((t as Tokens.Del).tokens, { ...style, dim: true }));
        break;
      case "codespan":
        out.push({ ...style, color: "cyan", text: decode(t.text) });
        break;
      case "link": {
        const l = t as Tokens.Link;
        out.push(
          ...inline(l.tokens, { ...style, underline: true, color: "blue" }),
        );
        if (l.href && l.href !== l.text) {
          out.push({ ...style, dim: true, text: ` (${l.href})` });
        }
        break;
      }
      case "br":
        out.push({ ...style, text: "\n" });
        break;
      case "text":
      case "escape":
      case "html": {
        const x = t as Tokens.Text;
        if (x.tokens && x.tokens.length) out.push(...inline(x.tokens, style));
        else out.push({ ...style, text: decode(x.text ?? x.raw) });
        break;
      }
      default:
        out.push({ ...style, text: decode(t.raw) });
    }
  }
  return out;
}

/** Spans with newlines become several lines. */
function split(spans: readonly Span[], prefix: Span[] = []): Line[] {
  const lines: Line[] = [[...prefix]];
  for (const s of spans) {
    const parts = s.text.split("\n");
    parts.forEach((p, i) => {
      if (i > 0) {
        lines.push([
          ...prefix.map((x) => ({ ...x, text: " ".repeat(x.text.length) })),
        ]);
      }
      if (p !== "") lines.at(-1)!.push({ ...s, text: p });
    });
  }
  return lines;
}

function blocks(tokens: readonly Token[], prefix: Span[]): Line[] {
  const out: Line[] = [];
  for (const t of tokens) {
    switch (t.type) {
      case "space":
        break;
      case "heading": {
        const h = t as Tokens.Heading;
        if (out.length) out.push([...prefix]);
        out.push(
          ...split(inline(h.tokens, { bold: true, color: "cyan" }), prefix),
        );
        break;
      }
      case "paragraph":
        if (out.length) out.push([...prefix]);
        out.push(...split(inline((t as Tokens.Paragraph).tokens, {}), prefix));
        break;
      case "text": {
        const x = t as Tokens.Text;
        out.push(
          ...split(
            x.tokens ? inline(x.tokens, {}) : [{ text: decode(x.text) }],
            prefix,
          ),
        );
        break;
      }
      case "code": {
        const c = t as Tokens.Code;
        if (out.length) out.push([...prefix]);
        for (const l of codeBlockLines(c.text, c.lang ?? "")) {
          out.push([...prefix, ...l]);
        }
        break;
      }
      case "blockquote":
        if (out.length) out.push([...prefix]);
        out.push(
          ...blocks((t as Tokens.Blockquote).tokens, [
            ...prefix,
            { text: "│ ", dim: true },
          ]).map((l) => l.map((s) => ({ ...s, dim: true }))),
        );
        break;
      case "list": {
        const list = t as Tokens.List;
        if (out.length && prefix.length === 0) out.push([]);
        let n = typeof list.start === "number" ? list.start : 1;
        for (const item of list.items) {
          const bullet = list.ordered ? `${n++}. ` : "• ";
          const mark = item.task ? (item.checked ? "[x] " : "[ ] ") : "";
          const inner = blocks(item.tokens, []);
          inner.forEach((l, i) => {
            out.push([
              ...prefix,
              i === 0
                ? { text: bullet + mark, color: "yellow" }
                : { text: " ".repeat(bullet.length + mark.length) },
              ...l,
            ]);
          });
        }
        break;
      }
      case "hr":
        out.push([...prefix, { text: "─".repeat(20), dim: true }]);
        break;
      case "table": {
        const table = t as Tokens.Table;
        const rows = [
          table.header.map((c) => decode(c.text)),
          ...table.rows.map((r) => r.map((c) => decode(c.text))),
        ];
        const widths = rows[0]!.map((_, i) =>
          Math.max(...rows.map((r) => (r[i] ?? "").length))
        );
        if (out.length) out.push([...prefix]);
        rows.forEach((r, i) => {
          out.push([
            ...prefix,
            {
              text: r.map((c, j) => c.padEnd(widths[j]!)).join("  "),
              ...(i === 0 ? { bold: true } : {}),
            },
          ]);
          if (i === 0) {
            out.push([...prefix, {
              text: widths.map((w) => "─".repeat(w)).join("  "),
              dim: true,
            }]);
          }
        });
        break;
      }
      default:
        out.push(
          ...split([{ text: decode(t.raw.replace(/\n$/, "")) }], prefix),
        );
    }
  }
  return out;
}

/**
 * Renders markdown as styled lines (not yet wrapped).
 *
 * @param text Markdown.
 * @returns The lines.
 */
export function markdownLines(text: string): Line[] {
  let tokens: Token[];
  try {
    tokens = new Lexer({ gfm: true }).lex(text);
  } catch {
    return text.split("\n").map((t) => [{ text: t }]);
  }
  const lines = blocks(tokens, []);
  return lines.length ? lines : [[{ text: "" }]];
}
