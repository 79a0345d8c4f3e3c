/**
 * The prompt history, persisted per project in `.agent/tui_history.json`
 * (a JSON list of strings, oldest first, the last 500 kept). A file that
 * cannot be read or parsed starts an empty history; a write that fails is
 * reported once and the history stays in memory.
 *
 * @module
 */
import { dirname, join } from "node:path";

/** How many prompts are kept. */
export const HISTORY_LIMIT = 500;

/** The history file of a project. */
export function historyPath(projectDir: string): string {
  return join(projectDir, ".agent", "tui_history.json");
}

/**
 * Reads the history.
 *
 * @param file The history file.
 * @returns The prompts, oldest first (empty when absent or unreadable).
 */
export function loadHistory(file: string): string[] {
  try {
    const v = JSON.parse(Deno.readTextFileSync(file));
    return Array.isArray(v)
      ? v.filter((x): x is string => typeof x === "string").slice(
        -HISTORY_LIMIT,
      )
      : [];
  } catch {
    return [];
  }
}

/**
 * Appends a prompt (not a repeat of the last one) and writes the file
 * (to a temporary file, then renamed: never a partial write).
 *
 * @param file The history file.
 * @param history The history, changed in place.
 * @param prompt The prompt.
 * @throws {Error} When the file cannot be written.
 */
export function appendHistory(
  file: string,
  history: string[],
  prompt: string,
): void {
  if (prompt.trim() === "" || history.at(-1) === prompt) return;
  history.push(prompt);
  if (history.length > HISTORY_LIMIT) {
    history.splice(0, history.length - HISTORY_LIMIT);
  }
  Deno.mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${Deno.pid}.tmp`;
  Deno.writeTextFileSync(tmp, JSON.stringify(history, null, 1) + "\n");
  Deno.renameSync(tmp, file);
}
