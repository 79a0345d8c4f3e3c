/**
 * The terminal UI's first screen, painted by the plugin's entry module
 * before anything else loads: the plugin SDK (gRPC), Ink, React and Yoga
 * take most of a second of CPU on a busy machine, and the kernel only
 * configures the plugin once its other providers run. The frame is the one
 * the full UI draws for a new session (an empty transcript, the input box
 * with its placeholder, the status line before the first snapshot), so the
 * full UI's first frame replaces it without a visible change.
 *
 * From the paint on, the terminal is in raw mode and its keys are read
 * here, by the one reader of the terminal for the life of the process:
 * they are kept, in order, for Ink (which then edits, sends or interrupts
 * exactly as if it had read them itself), and plain typed text is echoed
 * into the input box meanwhile. {@linkcode TerminalKeys.handOver} gives
 * the keys to Ink, those kept first, then each one as it is read; a
 * process that ends before (the kernel failed to start, or shut the
 * plugin down) leaves the terminal as it found it.
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

/**
 * The terminal as the entry module opened it: the first screen (when the
 * window was large enough to paint it) and the one reader of its keys for
 * the life of the process. Before the hand-over it keeps every chunk read;
 * after, it passes each one on as it is read.
 */
export interface TerminalKeys {
  /**
   * Gives the terminal's keys to the full UI: every chunk read so far, in
   * order, then each one as it is read; the echo into the first screen
   * stops. Call once.
   *
   * @param onData Called with each chunk of bytes read from the terminal
   * (a chunk of its own: the receiver may keep it).
   * @param onEnd Called once when the terminal's input ends.
   */
  handOver(onData: (chunk: Uint8Array) => void, onEnd: () => void): void;
  /** Stops reading and puts the terminal back in cooked mode (the full UI has exited). */
  close(): void;
}

/** The terminal device the keys are read from and the first screen drawn on. */
export interface TerminalDevice {
  /** Reads bytes into `buf`: how many, or `null` at the end of input. */
  read(buf: Uint8Array): Promise<number | null>;
  /** Writes text to the screen, whole (errors are swallowed). */
  write(text: string): void;
  /** Switches raw mode (throws when the device is not a terminal). */
  setRaw(on: boolean): void;
  /** The window's size, or `undefined` when it is unknown. */
  size(): { columns: number; rows: number } | undefined;
}

const encoder = new TextEncoder();

/**
 * Writes text to this process's terminal (stderr), whole; a terminal gone
 * is ignored.
 *
 * @param text The text (escape sequences and all).
 */
export function writeStderr(text: string): void {
  try {
    const bytes = encoder.encode(text);
    let off = 0;
    while (off < bytes.length) {
      off += Deno.stderr.writeSync(bytes.subarray(off));
    }
  } catch {
    // the terminal is gone
  }
}

/** This process's terminal: stdin for keys, stderr for the screen. */
function denoTerminal(): TerminalDevice {
  return {
    read: (buf) => Deno.stdin.read(buf),
    write: writeStderr,
    setRaw: (on) => Deno.stdin.setRaw(on, { cbreak: false }),
    size() {
      try {
        return Deno.consoleSize();
      } catch {
        return undefined;
      }
    },
  };
}

/** How {@linkcode openTerminal} finds its terminal (tests give their own). */
export interface OpenTerminalOptions {
  /**
   * The device; when given, stdin and stderr are not checked and no
   * signal or unload listener is added.
   *
   * @default stdin and stderr of this process
   */
  device?: TerminalDevice;
}

/**
 * Opens the terminal for the UI: puts it in raw mode, paints the first
 * screen on stderr (the alternate screen, cursor hidden) when the window
 * is large enough, and starts the one reader of its keys, which keeps them
 * until {@linkcode TerminalKeys.handOver}. Plain text typed meanwhile is
 * echoed into the first screen's input box.
 *
 * @param color Whether colours are drawn.
 * @param options The device (tests).
 * @returns The terminal's keys, or `undefined` when stdin and stderr are
 * not both a terminal.
 */
export function openTerminal(
  color: boolean,
  options: OpenTerminalOptions = {},
): TerminalKeys | undefined {
  const own = options.device === undefined;
  if (own && (!Deno.stdin.isTerminal() || !Deno.stderr.isTerminal())) {
    return undefined;
  }
  const device = options.device ?? denoTerminal();
  let raw = true;
  try {
    device.setRaw(true);
  } catch {
    raw = false; // the full UI reads what the terminal gives
  }
  const size = device.size();
  // Painted only in raw mode (cooked mode echoes by itself) and in a
  // window the full UI would draw the same frame in.
  let echoing = raw && size !== undefined &&
    firstFrameLines(size.columns, size.rows, color) !== undefined;
  let typed = "";
  const paint = () => {
    const s = device.size() ?? size!;
    const lines = firstFrameLines(s.columns, s.rows, color, typed);
    if (lines) device.write("\x1b[?25l\x1b[H\x1b[2J" + paintLines(lines));
  };
  // Until the hand-over: a process that ends (the kernel shut the plugin
  // down before configuring it) restores the terminal.
  let restoring = true;
  const painted = echoing;
  const restore = () => {
    if (!restoring) return;
    restoring = false;
    if (painted) device.write("\x1b[?1049l\x1b[?25h");
    try {
      if (raw) device.setRaw(false);
    } catch {
      // not a terminal any more
    }
  };
  const onResize = () => {
    if (echoing) paint();
  };
  if (echoing) {
    device.write("\x1b[?1049h");
    paint();
  }
  if (own) {
    globalThis.addEventListener("unload", restore);
    if (echoing) {
      try {
        Deno.addSignalListener("SIGWINCH", onResize);
      } catch {
        // no resize signal: the full UI follows the size once it runs
      }
    }
  }
  const kept: Uint8Array[] = [];
  let sink: ((chunk: Uint8Array) => void) | undefined;
  let ended: (() => void) | undefined;
  let isEnded = false;
  let closed = false;
  (async () => {
    while (!closed) {
      // A buffer per read: the chunk is handed on without a copy.
      const buf = new Uint8Array(4096);
      let n: number | null;
      try {
        n = await device.read(buf);
      } catch {
        n = null;
      }
      if (closed) return;
      if (n === null) {
        isEnded = true;
        ended?.();
        return;
      }
      const chunk = buf.subarray(0, n);
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
  let handedOver = false;
  return {
    handOver(onData, onEnd) {
      if (handedOver) {
        throw new Error("the terminal's keys were handed over already");
      }
      handedOver = true;
      echoing = false;
      if (own) {
        try {
          Deno.removeSignalListener("SIGWINCH", onResize);
        } catch {
          // never added
        }
        globalThis.removeEventListener("unload", restore);
      }
      restoring = false;
      // The full UI draws its frame, the same one, from the top-left
      // corner (a clear screen first would show blank for a moment).
      if (painted) device.write("\x1b[H");
      for (const c of kept.splice(0)) onData(c);
      sink = onData;
      ended = onEnd;
      if (isEnded) onEnd();
    },
    close() {
      if (closed) return;
      closed = true;
      try {
        if (raw) device.setRaw(false);
      } catch {
        // not a terminal any more
      }
    },
  };
}
