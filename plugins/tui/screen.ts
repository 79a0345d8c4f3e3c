/**
 * The terminal UI's painter: the frame laid out into rows as Ink laid out
 * the same parts (a column of truncated text lines, the input box or
 * dialog with its round border, the hint, the widget panel and the status
 * line), and a screen that keeps the rows it last wrote and writes only
 * the rows that changed.
 *
 * Ink (its `render()`, even with `incrementalRendering`) rebuilds and
 * re-tokenizes every cell of the window for each frame, about 0.85 MB of
 * short-lived objects per key at 80×24; the app already knows every
 * part's lines (`lines.ts`), so laying them out here costs a few strings
 * per changed line. Ink still reads the keys (`useInput`, `usePaste`) and
 * runs the app's React state; it is given an empty tree to draw.
 *
 * @module
 */
import stringWidth from "string-width";
import type { Line, Span } from "./lines.ts";

/** The parts of a frame, top to bottom, as the app lays them out. */
export interface Frame {
  /** The window's columns (the frame's width). */
  readonly width: number;
  /** The window's rows (the frame's height). */
  readonly height: number;
  /** Whether colours and other styles are drawn. */
  readonly color: boolean;
  /** The transcript's visible lines. */
  readonly transcript: readonly Line[];
  /** The bordered box: the input box or a dialog. */
  readonly box: {
    /** The title line ("" = none). */
    readonly title?: Line;
    /** The lines inside. */
    readonly lines: readonly Line[];
    /** The border's colour name (drawn with colours only). */
    readonly border?: string;
  };
  /** Completion candidates or a hint, below the box. */
  readonly bottom: readonly Line[];
  /** The widget panel. */
  readonly panel: readonly Line[];
  /** The status line. */
  readonly status: readonly Line[];
}

/** Ink's (chalk's) foreground colours by name. */
const COLORS: Record<string, number> = {
  black: 30,
  red: 31,
  green: 32,
  yellow: 33,
  blue: 34,
  magenta: 35,
  cyan: 36,
  white: 37,
  gray: 90,
  grey: 90,
  blackBright: 90,
  redBright: 91,
  greenBright: 92,
  yellowBright: 93,
  blueBright: 94,
  magentaBright: 95,
  cyanBright: 96,
  whiteBright: 97,
};

/**
 * Terminal controls a span's text must not carry to the screen (escape
 * sequences, C0 and C1 controls): they would move the cursor or change
 * modes under the painter.
 */
const CONTROLS =
  // deno-lint-ignore no-control-regex
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?|[\x00-\x08\x0a-\x1f\x7f-\x9f]/g;
const PLAIN = /^[\x20-\x7e]*$/;

function clean(text: string): string {
  const t = text.includes("\t") ? text.replace(/\t/g, "  ") : text;
  return PLAIN.test(t) ? t : t.replace(CONTROLS, "");
}

function widthOfText(text: string): number {
  return PLAIN.test(text) ? text.length : stringWidth(text);
}

function sgrOf(s: Span, color: boolean): string {
  if (!color) return "";
  let codes = "";
  if (s.bold) codes += ";1";
  if (s.dim) codes += ";2";
  if (s.italic) codes += ";3";
  if (s.underline) codes += ";4";
  if (s.inverse) codes += ";7";
  const fg = s.color === undefined ? undefined : COLORS[s.color];
  if (fg !== undefined) codes += `;${fg}`;
  return codes;
}

const segmenter = new Intl.Segmenter();

/**
 * Truncates spans to `max` columns as Ink's `truncate-end` does (its
 * `cli-truncate`): when wider, the graphemes that fit in `max - 1`
 * columns, then `…` in the style of the last one kept.
 */
function truncated(spans: readonly Span[], max: number): Span[] {
  if (max < 1) return [];
  const out: Span[] = [];
  let used = 0;
  let full = false;
  for (const s of spans) {
    let kept = "";
    for (const { segment } of segmenter.segment(s.text)) {
      const w = widthOfText(segment);
      if (used + w > max - 1) {
        full = true;
        break;
      }
      used += w;
      kept += segment;
    }
    if (kept) out.push({ ...s, text: kept });
    if (full) break;
  }
  const tail = out.at(-1);
  if (tail) tail.text += "…";
  else out.push({ ...spans[0], text: "…" });
  return out;
}

/** One laid-out row: its text with SGR sequences, and its width. */
interface Row {
  readonly text: string;
  readonly width: number;
}

const BLANK: Row = { text: "", width: 0 };

/**
 * A line as Ink drew it in a box `max` columns wide (`wrap:
 * "truncate-end"`): `undefined` when it takes no row (a line whose spans
 * are all empty has no text, and Ink gives empty text no height; an empty
 * line is drawn as one blank).
 */
function lineRow(line: Line, max: number, color: boolean): Row | undefined {
  let spans: Span[];
  if (line.length === 0) spans = [{ text: " " }];
  else {
    spans = [];
    for (const s of line) {
      const text = clean(s.text);
      if (text !== "") spans.push(text === s.text ? s : { ...s, text });
    }
    if (spans.length === 0) return undefined;
  }
  let width = 0;
  for (const s of spans) width += widthOfText(s.text);
  if (width > max) {
    spans = truncated(spans, max);
    width = 0;
    for (const s of spans) width += widthOfText(s.text);
  }
  return { text: styled(spans, color), width };
}

function styled(spans: readonly Span[], color: boolean): string {
  let out = "";
  let current = "";
  for (const s of spans) {
    const sgr = sgrOf(s, color);
    if (sgr !== current) {
      out += `\x1b[0${sgr}m`;
      current = sgr;
    }
    out += s.text;
  }
  return current ? `${out}\x1b[0m` : out;
}

const rowCache = new WeakMap<
  Line,
  { max: number; color: boolean; row: Row | undefined }
>();

/** {@linkcode lineRow}, kept per line object (the app keeps unchanged lines). */
function cachedRow(line: Line, max: number, color: boolean): Row | undefined {
  const hit = rowCache.get(line);
  if (hit && hit.max === max && hit.color === color) return hit.row;
  const row = lineRow(line, max, color);
  rowCache.set(line, { max, color, row });
  return row;
}

/**
 * The frame's rows, top to bottom, exactly `height` of them (each a
 * string with its SGR sequences; blank rows are ""). The layout is Ink's
 * for the same parts, including its quirk that a line of empty spans takes
 * no row (the rows left over are blank at the bottom). A frame taller than
 * the window (a tiny window) keeps its bottom rows: the status line, the
 * panel and the box, where Ink shrank and overlapped the parts.
 *
 * @param frame The frame's parts.
 * @returns The rows.
 */
export function frameRows(frame: Frame): string[] {
  return layout(frame).map((r) => r.text);
}

function layout(frame: Frame): Row[] {
  const { width, height, color } = frame;
  const rows: Row[] = [];
  const add = (lines: readonly Line[], max: number) => {
    for (const l of lines) {
      const r = cachedRow(l, max, color);
      if (r) rows.push(r);
    }
  };
  add(frame.transcript, width);
  // The box: a round border, one column of padding on the left.
  const inner = width - 3;
  const paint = (text: string): string =>
    color && frame.box.border !== undefined &&
      COLORS[frame.box.border] !== undefined
      ? `\x1b[0;${COLORS[frame.box.border]}m${text}\x1b[0m`
      : text;
  const edge = (l: string, r: string): Row => ({
    text: paint(l + "─".repeat(Math.max(0, width - 2)) + r),
    width,
  });
  const bar = paint("│");
  rows.push(edge("╭", "╮"));
  const boxed = (lines: readonly Line[]) => {
    for (const l of lines) {
      const r = cachedRow(l, inner, color);
      if (!r) continue;
      rows.push({
        text: `${bar} ${r.text}${
          " ".repeat(Math.max(0, inner - r.width))
        }${bar}`,
        width,
      });
    }
  };
  if (frame.box.title) boxed([frame.box.title]);
  boxed(frame.box.lines);
  rows.push(edge("╰", "╯"));
  add(frame.bottom, width);
  add(frame.panel, width);
  add(frame.status, width);
  const out = rows.length > height ? rows.slice(rows.length - height) : rows;
  while (out.length < height) out.push(BLANK);
  return out;
}

/** Where the screen's escape sequences go. */
export type ScreenWriter = (text: string) => void;

/**
 * The terminal's screen as this painter last wrote it: each paint writes
 * only the rows that differ from the previous frame (absolute cursor
 * addressing, the rest of a shorter row erased), inside one synchronized
 * update (`CSI ? 2026 h/l`, which a terminal without it ignores, as Ink
 * writes it too); a change of the window's size repaints every row.
 */
export class Screen {
  #rows: string[] = [];
  #size = "";
  #write: ScreenWriter;

  /** @param write Writes escape sequences to the terminal, whole. */
  constructor(write: ScreenWriter) {
    this.#write = write;
  }

  /**
   * Paints a frame.
   *
   * @param frame The frame's parts.
   * @returns How many rows were written.
   */
  paint(frame: Frame): number {
    if (this.#closed) return 0;
    const rows = layout(frame);
    const size = `${frame.width}x${frame.height}`;
    let out = "";
    if (size !== this.#size) {
      // A new size: the terminal's rows are not ours any more.
      if (this.#size !== "") out += "\x1b[H\x1b[2J";
      this.#size = size;
      this.#rows = [];
    }
    let written = 0;
    const texts: string[] = [];
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      texts.push(row.text);
      if (this.#rows[i] === row.text) continue;
      written++;
      out += `\x1b[${i + 1};1H${row.text}`;
      // A full row leaves the cursor on its last column, which an erase
      // would clear: only a shorter row erases the rest.
      if (row.width < frame.width) out += "\x1b[K";
    }
    this.#rows = texts;
    if (out !== "") this.#write(`\x1b[?2026h${out}\x1b[?2026l`);
    return written;
  }

  #pending: Frame | undefined;

  /**
   * Paints a frame once the current task's microtasks run: of several
   * frames given meanwhile, only the last is painted.
   *
   * @param frame The frame's parts.
   */
  paintSoon(frame: Frame): void {
    if (this.#pending === undefined) {
      queueMicrotask(() => {
        const f = this.#pending;
        this.#pending = undefined;
        if (f) this.paint(f);
      });
    }
    this.#pending = frame;
  }

  #closed = false;

  /**
   * Stops painting (the UI leaves the alternate screen): a frame still
   * pending, or given later, is not painted.
   */
  close(): void {
    this.#closed = true;
    this.#pending = undefined;
  }
}
