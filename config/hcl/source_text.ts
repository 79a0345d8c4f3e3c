/**
 * {@linkcode sourceText}: the text a {@linkcode SourceRange} covers.
 *
 * @module
 */

import type { SourceRange } from "../../contract/diagnostic.ts";

/**
 * Returns the source text covered by a range (by its byte offsets).
 *
 * Do not put the result in a diagnostic when the range may hold a secret.
 *
 * @example Usage
 * ```ts
 * import { parseHcl, sourceText } from "./mod.ts";
 * import assert from "node:assert/strict";
 * const text = 'max_turns = 60 * 2\n';
 * const { body } = parseHcl(text, "agent.hcl");
 * assert.equal(sourceText(text, body.attributes[0]!.expr.range), "60 * 2");
 * ```
 *
 * @param text The whole file, as given to {@linkcode parseHcl}.
 * @param range A range in that file.
 * @returns The covered text.
 */
export function sourceText(text: string, range: SourceRange): string {
  const bytes = new TextEncoder().encode(text);
  return new TextDecoder().decode(
    bytes.subarray(
      range.start.byte,
      Math.max(range.start.byte, range.end.byte),
    ),
  );
}
