/**
 * The terminal UI's first screen, painted by the plugin's entry module
 * before anything else loads: the plugin SDK (gRPC), Ink, React and Yoga
 * take most of a second of CPU on a busy machine, and the kernel only
 * configures the plugin once its other providers run. The frame is the one
 * Ink draws for a new session (an empty transcript, the input box with its
 * placeholder, the status line before the first snapshot), so Ink's first
 * frame replaces it without a visible change.
 *
 * From the paint on, the terminal is in raw mode and its keys are read
 * here: they are kept, in order, for Ink (which then edits, sends or
 * interrupts exactly as if it had read them itself), and plain typed text
 * is echoed into the input box meanwhile. {@linkcode EarlyScreen.handOver}
 * gives the keys to Ink; a process that ends before (the kernel failed to
 * start, or shut the plugin down) leaves the terminal as it found it.
 *
 * No npm package and no other module than `lines.ts` is imported here:
 * this module is the whole of what runs before the first paint.
 *
 * @module
 */
import { type Line, type Span, widthOf, wrapLine } from "./lines.ts";

/** The input box's placeholder (app.ts draws the same one). */
export const PLACEHOLDER = " type a prompt, / for commands, @ for files";

/** The smallest window the first frame is painted in. */
const MIN_ROWS = 5;
const MIN_COLUMNS = 20;

/**
 * The first screen as lines (top to bottom), `height` of them: what the
 * full UI draws for a new session with `typed` in its input box.
 *
 * @param width The terminal's columns.
 * @param height The terminal's rows.
 * @param color Whether colours (and other styles) are drawn.
 * @param typed Text typed so far (printable, one line).
 * @returns The lines, or `undefined` when the window is too small to
 * paint a frame the full UI would keep.
 */
export function firstFrameLines(
  width: number,
  height: number,
  color: boolean,
  typed = "",
): Line[] | undefined {
  if (width < MIN_COLUMNS || height < MIN_ROWS) return undefined;
  const cursor: Span = color ? { text: " ", inverse: true } : { text: "▏" };
  const input: Line = [
    { text: "> ", color: "cyan", bold: true },
    { text: typed },
    cursor,
    ...(typed === "" ? [{ text: PLACEHOLDER, dim: true }] : []),
  ];
  const body = wrapLine(input, Math.max(4, width - 4), [{ text: "  " }]);
  const border = color ? "gray" : undefined;
  const edge = (l: string, r: string): Line => [
    {
      text: l + "─".repeat(width - 2) + r,
      ...(border ? { color: border } : {}),
    },
  ];
  const bar = (s: string): Span => ({
    text: s,
    ...(border ? { color: border } : {}),
  });
  const box: Line[] = [
    edge("╭", "╮"),
    ...body.map((l): Line => [
      bar("│"),
      { text: " " },
      ...l,
      { text: " ".repeat(Math.max(0, width - 3 - widthOf(plainOf(l)))) },
      bar("│"),
    ]),
    edge("╰", "╯"),
  ];
  // The status line before the session's first snapshot (app.ts statusLine).
  let status = " default · … · ctx 0 · $0.0000 · turns 0 · ";
  if (widthOf(status) > width) {
    status = [...status].slice(0, width - 1).join("") + "…";
  }
  const transcript = height - box.length - 1;
  if (transcript < 1) return undefined;
  return [
    ...Array.from({ length: transcript }, (): Line => []),
    ...box,
    [{ text: status.padEnd(width), ...(color ? { inverse: true } : {}) }],
  ];
}

function plainOf(line: Line): string {
  return line.map((s) => s.text).join("");
}

const SGR: Record<string, string> = {
  cyan: "36",
  gray: "90",
  green: "32",
  red: "31",
  yellow: "33",
};

/**
 * The escape sequences that paint `lines` from the top-left corner, each
 * line on its own row (absolute positions: raw mode has no newline
 * translation), the rest of each row cleared.
 *
 * @param lines The lines.
 * @returns The text to write to the terminal.
 */
export function paintLines(lines: readonly Line[]): string {
  let out = "";
  lines.forEach((line, row) => {
    out += `\x1b[${row + 1};1H`;
    for (const s of line) {
      const codes = [
        ...(s.bold ? ["1"] : []),
        ...(s.dim ? ["2"] : []),
        ...(s.inverse ? ["7"] : []),
        ...(s.color && SGR[s.color] ? [SGR[s.color]!] : []),
      ];
      out += codes.length ? `\x1b[${codes.join(";")}m${s.text}\x1b[0m` : s.text;
    }
    out += "\x1b[K";
  });
  return out;
}

/** The first screen and the keys read while it shows. */
export interface EarlyScreen {
  /**
   * Gives the terminal's keys to the full UI: every chunk read so far, in
   * order, then each one as it comes; the echo stops. Call once.
   *
   * @param onData Called with each chunk of bytes read from the terminal.
   * @param onEnd Called when the terminal's input ends.
   */
  handOver(onData: (chunk: Uint8Array) => void, onEnd: () => void): void;
  /** Stops reading the terminal (the full UI has exited). */
  close(): void;
}

function consoleSize(): { columns: number; rows: number } | undefined {
  try {
    return Deno.consoleSize();
  } catch {
    return undefined;
  }
}

/**
 * Paints the first screen on stderr (the alternate screen, cursor hidden),
 * puts the terminal in raw mode and starts reading its keys.
 *
 * @param color Whether colours are drawn.
 * @returns The screen, or `undefined` when stdin and stderr are not both
 * a terminal, or the window is too small (the full UI paints then).
 */
export function paintFirstFrame(color: boolean): EarlyScreen | undefined {
  if (!Deno.stdin.isTerminal() || !Deno.stderr.isTerminal()) return undefined;
  const size = consoleSize();
  if (!size || !firstFrameLines(size.columns, size.rows, color)) {
    return undefined;
  }
  const encoder = new TextEncoder();
  const write = (text: string) => {
    try {
      const bytes = encoder.encode(text);
      let off = 0;
      while (off < bytes.length) {
        off += Deno.stderr.writeSync(bytes.subarray(off));
      }
    } catch {
      // the terminal is gone
    }
  };
  try {
    Deno.stdin.setRaw(true, { cbreak: false });
  } catch {
    return undefined;
  }
  let typed = "";
  let echoing = true;
  const paint = () => {
    const s = consoleSize() ?? size;
    const lines = firstFrameLines(s.columns, s.rows, color, typed);
    if (lines) write("\x1b[?25l\x1b[H\x1b[2J" + paintLines(lines));
  };
  write("\x1b[?1049h");
  paint();
  // Until the hand-over: a process that ends (the kernel shut the plugin
  // down before configuring it) restores the terminal.
  let restoring = true;
  const restore = () => {
    if (!restoring) return;
    restoring = false;
    write("\x1b[?1049l\x1b[?25h");
    try {
      Deno.stdin.setRaw(false);
    } catch {
      // not a terminal any more
    }
  };
  globalThis.addEventListener("unload", restore);
  const onResize = () => {
    if (echoing) paint();
  };
  try {
    Deno.addSignalListener("SIGWINCH", onResize);
  } catch {
    // no resize signal: the full UI follows the size once it runs
  }
  const kept: Uint8Array[] = [];
  let sink: ((chunk: Uint8Array) => void) | undefined;
  let ended: (() => void) | undefined;
  let isEnded = false;
  let closed = false;
  (async () => {
    const buf = new Uint8Array(4096);
    while (!closed) {
      let n: number | null;
      try {
        n = await Deno.stdin.read(buf);
      } catch {
        n = null;
      }
      if (n === null) {
        isEnded = true;
        ended?.();
        return;
      }
      const chunk = buf.slice(0, n);
      if (sink) {
        sink(chunk);
        continue;
      }
      kept.push(chunk);
      if (!echoing) continue;
      // Plain text is echoed; anything else (Enter, an arrow, Ctrl-C) is
      // left to the full UI, which replays every key.
      if (chunk.every((b) => b >= 0x20 && b < 0x7f)) {
        typed += String.fromCharCode(...chunk);
        paint();
      } else echoing = false;
    }
  })();
  return {
    handOver(onData, onEnd) {
      echoing = false;
      try {
        Deno.removeSignalListener("SIGWINCH", onResize);
      } catch {
        // never added
      }
      globalThis.removeEventListener("unload", restore);
      restoring = false;
      // The full UI draws its frame, the same one, from the top-left
      // corner (a clear screen first would show blank for a moment).
      write("\x1b[H");
      for (const c of kept.splice(0)) onData(c);
      sink = onData;
      ended = onEnd;
      if (isEnded) onEnd();
    },
    close() {
      closed = true;
    },
  };
}
