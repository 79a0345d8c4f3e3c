/**
 * Styled lines, the terminal UI's unit of layout: every part of the
 * screen (transcript, dialog, panels) is built as {@linkcode Line}s, wrapped
 * to the width here, so that the app knows each part's height before Ink
 * paints it.
 *
 * @module
 */

/** A run of text with one style. */
export interface Span {
  /** The text (no newlines). */
  text: string;
  /** Bold. */
  bold?: boolean;
  /** Dimmed. */
  dim?: boolean;
  /** Italic. */
  italic?: boolean;
  /** Underlined. */
  underline?: boolean;
  /** Reverse video. */
  inverse?: boolean;
  /** A foreground colour name Ink knows (`green`, `cyan`, `gray`, …). */
  color?: string;
}

/** One screen line. */
export type Line = Span[];

/**
 * Splits text into lines of plain spans with one style.
 *
 * @param text Text, possibly with newlines.
 * @param style The style of every span.
 * @returns One line per text line.
 */
export function textLines(
  text: string,
  style: Omit<Span, "text"> = {},
): Line[] {
  return text.replace(/\r\n?/g, "\n").split("\n").map((t) => [{
    ...style,
    text: t,
  }]);
}

/** The display width of a string (code points; tabs count as 2). */
export function widthOf(text: string): number {
  let n = 0;
  for (const ch of text) n += ch === "\t" ? 2 : 1;
  return n;
}

/**
 * Wraps a line to a width, at spaces where it can, else mid-word.
 *
 * @param line The line.
 * @param width The width (at least 1).
 * @param indent Spans that start every continuation line.
 * @returns One or more lines, none wider than `width`.
 */
export function wrapLine(line: Line, width: number, indent: Line = []): Line[] {
  const w = Math.max(1, width);
  const indentWidth = indent.reduce((n, s) => n + widthOf(s.text), 0);
  const lineStart = indentWidth >= w ? 0 : indentWidth;
  const out: Line[] = [];
  let cur: Line = [];
  let used = 0;
  let start = 0;
  const push = (span: Span, text: string) => {
    if (text === "") return;
    const last = cur.at(-1);
    if (last && sameStyle(last, span)) last.text += text;
    else cur.push({ ...span, text });
    used += widthOf(text);
  };
  const breakLine = () => {
    const last = cur.at(-1);
    if (last && !last.inverse) last.text = last.text.trimEnd();
    out.push(cur.filter((s, i) => s.text !== "" || i === 0));
    cur = lineStart ? indent.map((s) => ({ ...s })) : [];
    used = lineStart;
    start = lineStart;
  };
  for (const span of line) {
    const text = span.text.replace(/\t/g, "  ");
    // An inverse blank (the input box's cursor) is visible: it takes its
    // column and is never trimmed away at a break.
    const keep = span.inverse === true;
    for (const chunk of text.match(/\S+\s*|\s+/g) ?? []) {
      let rest = chunk;
      while (rest !== "") {
        const word = widthOf(keep ? rest : rest.trimEnd());
        if (used + word <= w) {
          push(span, rest);
          rest = "";
        } else if (used > start && word <= w - lineStart) {
          breakLine();
          if (!keep) rest = rest.trimStart();
        } else {
          const cps = [...rest];
          const room = Math.max(1, w - used);
          push(span, cps.slice(0, room).join(""));
          rest = cps.slice(room).join("");
          breakLine();
        }
      }
    }
  }
  const last = cur.at(-1);
  if (last && !last.inverse) last.text = last.text.trimEnd();
  out.push(cur);
  return out;
}

function sameStyle(a: Span, b: Span): boolean {
  return a.bold === b.bold && a.dim === b.dim && a.italic === b.italic &&
    a.underline === b.underline && a.inverse === b.inverse &&
    a.color === b.color;
}

/**
 * Wraps every line.
 *
 * @param lines The lines.
 * @param width The width.
 * @returns The wrapped lines.
 */
export function wrapLines(lines: readonly Line[], width: number): Line[] {
  return lines.flatMap((l) => wrapLine(l, width));
}

/**
 * A line's plain text (what a colourless terminal shows).
 *
 * @param line The line.
 * @returns Its text.
 */
export function plain(line: Line): string {
  return line.map((s) => s.text).join("");
}
