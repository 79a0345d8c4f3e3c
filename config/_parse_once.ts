/**
 * One parse of `agent.hcl` per load: `loadConfigInputs` parses it
 * to find the `env()` names and plugin sources, and `compile`
 * needs the same syntax tree. Keyed on the `SourceFile` object,
 * so a caller that builds its own inputs parses as before. The tree is
 * never modified after parsing.
 *
 * @module
 */

import { parseHcl, type ParseResult } from "./hcl/mod.ts";

/** The file a parse came from: a path and its text. */
interface Source {
  readonly path: string;
  readonly text: string;
}

const parses = new WeakMap<Source, Source & { result: ParseResult }>();

/**
 * Parses a source file, or returns the parse of the same object made
 * earlier (when its path and text are unchanged).
 *
 * @param file The file.
 * @returns What {@linkcode parseHcl} returns for it.
 */
export function parseOnce(file: Source): ParseResult {
  const hit = parses.get(file);
  if (hit && hit.text === file.text && hit.path === file.path) {
    return hit.result;
  }
  const result = parseHcl(file.text, file.path);
  parses.set(file, { path: file.path, text: file.text, result });
  return result;
}
