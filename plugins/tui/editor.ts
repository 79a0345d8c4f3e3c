/**
 * The input box's editing model: a multi-line buffer with a cursor,
 * history (newest last) browsed with ↑/↓ at the first/last line, and the
 * completion of `/command` and `@path` words. Pure: the app maps keys to
 * these functions, and tests drive them directly.
 *
 * @module
 */

/** The buffer and its cursor. */
export interface EditorState {
  /** The lines (at least one). */
  lines: string[];
  /** The cursor's line. */
  row: number;
  /** The cursor's column (in code points). */
  col: number;
  /** Which history entry is shown (`history.length` = the draft). */
  historyIndex: number;
  /** The draft kept while history is browsed. */
  draft: string;
}

/** An empty buffer. */
export function emptyEditor(historyLength = 0): EditorState {
  return {
    lines: [""],
    row: 0,
    col: 0,
    historyIndex: historyLength,
    draft: "",
  };
}

/** The buffer's text. */
export function editorText(s: EditorState): string {
  return s.lines.join("\n");
}

function cps(s: string): string[] {
  return [...s];
}

/** A buffer holding `text`, the cursor at its end. */
export function withText(s: EditorState, text: string): EditorState {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  return {
    ...s,
    lines,
    row: lines.length - 1,
    col: cps(lines.at(-1)!).length,
  };
}

/**
 * Inserts text at the cursor (typed or pasted; newlines split lines).
 *
 * @param s The state.
 * @param text What to insert.
 * @returns The new state.
 */
export function insert(s: EditorState, text: string): EditorState {
  const parts = text.replace(/\r\n?/g, "\n").split("\n");
  const line = cps(s.lines[s.row]!);
  const before = line.slice(0, s.col).join("");
  const after = line.slice(s.col).join("");
  const lines = [...s.lines];
  if (parts.length === 1) {
    lines[s.row] = before + parts[0] + after;
    return { ...s, lines, col: s.col + cps(parts[0]!).length };
  }
  const inserted = [
    before + parts[0],
    ...parts.slice(1, -1),
    parts.at(-1)! + after,
  ];
  lines.splice(s.row, 1, ...inserted);
  return {
    ...s,
    lines,
    row: s.row + parts.length - 1,
    col: cps(parts.at(-1)!).length,
  };
}

/** Deletes the character before the cursor (joining lines at column 0). */
export function backspace(s: EditorState): EditorState {
  const lines = [...s.lines];
  if (s.col > 0) {
    const line = cps(lines[s.row]!);
    line.splice(s.col - 1, 1);
    lines[s.row] = line.join("");
    return { ...s, lines, col: s.col - 1 };
  }
  if (s.row === 0) return s;
  const prev = lines[s.row - 1]!;
  lines.splice(s.row - 1, 2, prev + lines[s.row]);
  return { ...s, lines, row: s.row - 1, col: cps(prev).length };
}

/** Deletes the character under the cursor. */
export function deleteForward(s: EditorState): EditorState {
  const line = cps(s.lines[s.row]!);
  if (s.col < line.length) {
    line.splice(s.col, 1);
    const lines = [...s.lines];
    lines[s.row] = line.join("");
    return { ...s, lines };
  }
  if (s.row === s.lines.length - 1) return s;
  const lines = [...s.lines];
  lines.splice(s.row, 2, lines[s.row]! + lines[s.row + 1]);
  return { ...s, lines };
}

/** Moves the cursor. */
export function move(
  s: EditorState,
  dir: "left" | "right" | "home" | "end",
): EditorState {
  const len = cps(s.lines[s.row]!).length;
  switch (dir) {
    case "left":
      if (s.col > 0) return { ...s, col: s.col - 1 };
      if (s.row > 0) {
        return { ...s, row: s.row - 1, col: cps(s.lines[s.row - 1]!).length };
      }
      return s;
    case "right":
      if (s.col < len) return { ...s, col: s.col + 1 };
      if (s.row < s.lines.length - 1) return { ...s, row: s.row + 1, col: 0 };
      return s;
    case "home":
      return { ...s, col: 0 };
    case "end":
      return { ...s, col: len };
  }
}

/**
 * ↑ or ↓: moves between lines, and past the first or last line browses the
 * history (the draft comes back after the newest entry).
 *
 * @param s The state.
 * @param dir Up or down.
 * @param history The history, oldest first.
 * @returns The new state.
 */
export function vertical(
  s: EditorState,
  dir: "up" | "down",
  history: readonly string[],
): EditorState {
  if (dir === "up" && s.row > 0) {
    return {
      ...s,
      row: s.row - 1,
      col: Math.min(s.col, cps(s.lines[s.row - 1]!).length),
    };
  }
  if (dir === "down" && s.row < s.lines.length - 1) {
    return {
      ...s,
      row: s.row + 1,
      col: Math.min(s.col, cps(s.lines[s.row + 1]!).length),
    };
  }
  const index = Math.min(
    history.length,
    Math.max(0, s.historyIndex + (dir === "up" ? -1 : 1)),
  );
  if (index === s.historyIndex) return s;
  const draft = s.historyIndex === history.length ? editorText(s) : s.draft;
  const text = index === history.length ? draft : history[index]!;
  return { ...withText(s, text), historyIndex: index, draft };
}

/** What can complete the word at the cursor. */
export interface Completion {
  /** The word being completed (with its `/` or `@`). */
  word: string;
  /** Where it starts in the current line (code points). */
  start: number;
  /** Candidates, each a full replacement of the word. */
  candidates: string[];
}

/**
 * The `/command` (at the start of the input) or `@path` word at the
 * cursor, and its candidates.
 *
 * @param s The state.
 * @param commands Slash command names (without the slash).
 * @param listDir Lists a directory's entries (directories end in `/`).
 * @returns The completion, or `undefined` when the word takes none.
 */
export function completionAt(
  s: EditorState,
  commands: readonly string[],
  listDir: (dir: string) => string[],
): Completion | undefined {
  const line = cps(s.lines[s.row]!);
  const head = line.slice(0, s.col).join("");
  const m = /(^|\s)([@/][^\s]*)$/.exec(head);
  if (!m) return undefined;
  const word = m[2]!;
  const start = cps(head).length - cps(word).length;
  if (word.startsWith("/")) {
    if (s.row !== 0 || start !== 0) return undefined;
    const prefix = word.slice(1);
    const candidates = commands.filter((c) => c.startsWith(prefix)).map((c) =>
      `/${c}`
    );
    return candidates.length ? { word, start, candidates } : undefined;
  }
  const path = word.slice(1);
  const slash = path.lastIndexOf("/");
  const dir = slash >= 0 ? path.slice(0, slash + 1) : "";
  const base = slash >= 0 ? path.slice(slash + 1) : path;
  let entries: string[];
  try {
    entries = listDir(dir || ".");
  } catch {
    return undefined;
  }
  const candidates = entries
    .filter((e) =>
      e.startsWith(base) && (base.startsWith(".") || !e.startsWith("."))
    )
    .sort()
    .map((e) => `@${dir}${e}`);
  return candidates.length ? { word, start, candidates } : undefined;
}

/** The longest common prefix of strings. */
function commonPrefix(words: readonly string[]): string {
  if (words.length === 0) return "";
  let p = words[0]!;
  for (const w of words) while (!w.startsWith(p)) p = p.slice(0, -1);
  return p;
}

/**
 * Tab: replaces the word with the only candidate (plus a space after a
 * command or file), or with the candidates' common prefix.
 *
 * @param s The state.
 * @param c The completion at the cursor.
 * @returns The new state.
 */
export function applyCompletion(s: EditorState, c: Completion): EditorState {
  const only = c.candidates.length === 1 ? c.candidates[0]! : undefined;
  const replacement = only !== undefined
    ? only + (only.endsWith("/") ? "" : " ")
    : commonPrefix(c.candidates);
  if (cps(replacement).length <= cps(c.word).length && only === undefined) {
    return s;
  }
  const line = cps(s.lines[s.row]!);
  const before = line.slice(0, c.start).join("");
  const after = line.slice(s.col).join("");
  const lines = [...s.lines];
  lines[s.row] = before + replacement + after;
  return { ...s, lines, col: c.start + cps(replacement).length };
}
