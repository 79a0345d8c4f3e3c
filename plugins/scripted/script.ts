/**
 * The script format of the `scripted` model provider: parsing and full
 * validation, the scripted model's tokenizer, and the choice and playing
 * of a turn. Pure functions, no I/O, so that tests (and other tools, e.g.
 * a script linter) can use them in-process.
 *
 * A script is JSON:
 *
 * ```json
 * {
 *   "model": { "id": "scripted", "pricing": { "tiers": [{ "input_per_mtok": 3, "output_per_mtok": 15 }] } },
 *   "turns": [
 *     { "text": "Let me look.", "tool_calls": [{ "name": "read_file", "arguments": { "path": "README.md" } }] },
 *     { "expect": "README", "text": "Done.", "usage": { "input_tokens": 120, "output_tokens": 3 } }
 *   ]
 * }
 * ```
 *
 * The turn played for a request is the number of assistant messages in its
 * history, so a resumed session continues where it left off and nothing
 * depends on the plugin's state. README.md documents every field.
 *
 * @example Parse a script and play its first turn
 * ```ts
 * import { parseScript, planTurn } from "./script.ts";
 * import assert from "node:assert/strict";
 *
 * const script = parseScript({ turns: [{ text: "Hello there" }] });
 * const plan = planTurn(script, { modelId: "scripted", messages: [] });
 * assert.deepEqual(plan.events.map((e) => e.event?.case), [
 *   "textDelta", "textDelta", "usage", "stop",
 * ]);
 * ```
 *
 * @module
 */
import { type Script, ScriptError, type ScriptTurn } from "./_format.ts";
import { isRecord, type Raw, Reader } from "./_reader.ts";
import { readModel } from "./_read_model.ts";
import { readTurn } from "./_read_turn.ts";

export {
  DEFAULT_MODEL,
  type ErrorCategoryName,
  type PricingTierSpec,
  type Script,
  ScriptError,
  type ScriptFailure,
  type ScriptModel,
  type ScriptToolCall,
  type ScriptTurn,
  type ScriptUsage,
  type StopName,
  type ToolChoiceName,
} from "./_format.ts";
export { modelSpec } from "./_model_spec.ts";
export {
  lastUserText,
  pieces,
  planTurn,
  type StreamEventInit,
  type TurnPlan,
  type TurnRequest,
} from "./_play_turn.ts";
export {
  countRequestTokens,
  countValueTokens,
  countWords,
  type TokenCountInput,
} from "./_tokenizer.ts";

/**
 * Validates a decoded script. A bare list is read as `{ "turns": [...] }`.
 *
 * @param raw The decoded JSON.
 * @param source Where it came from, for the error message.
 * @returns The script, with every default filled in.
 * @throws {ScriptError} Listing every problem, each naming the turn and field.
 */
export function parseScript(raw: unknown, source = "(inline)"): Script {
  const r = new Reader();
  const top: Raw = Array.isArray(raw)
    ? { turns: raw }
    : isRecord(raw)
    ? raw
    : {};
  if (!Array.isArray(raw) && !isRecord(raw)) {
    throw new ScriptError(source, [
      'the script must be a JSON object with "turns" (or a list of turns)',
    ]);
  }
  r.keys(top, "script", ["model", "turns", "description"]);
  r.string(top.description, "description", false);
  const model = readModel(r, top.model);
  const turns: ScriptTurn[] = [];
  if (!Array.isArray(top.turns) || top.turns.length === 0) {
    r.add("turns", "must be a non-empty list of turns");
  } else {
    const ids = new Set<string>();
    top.turns.forEach((t, i) => {
      const turn = readTurn(r, t, i, model, ids);
      if (turn) turns.push(turn);
    });
  }
  if (r.problems.length > 0) throw new ScriptError(source, r.problems);
  return { model, turns };
}

/**
 * Reads a script from JSON text.
 *
 * @param text The JSON text.
 * @param source Where it came from, for the error message.
 * @returns The script.
 * @throws {ScriptError} If the text is not JSON or the script is invalid.
 */
export function parseScriptText(text: string, source = "(inline)"): Script {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ScriptError(source, [
      `not valid JSON: ${err instanceof Error ? err.message : err}`,
    ]);
  }
  return parseScript(raw, source);
}
