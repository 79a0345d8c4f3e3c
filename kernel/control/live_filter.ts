/**
 * The live side of the agent→system strip rule (seed 004):
 * {@linkcode LiveTagFilter} removes the stripped channels' blocks
 * (`agent-status`, `goal-status`, `agent-thinking`) from a model's streamed
 * text deltas, so what frontends paint live agrees with the stored message
 * ({@linkcode parseAgentOutput} strips the same blocks before it is
 * stored). A block split across deltas is held until it closes; kept blocks
 * (`compact`, `plan-revision`, `judge-directive`), system→agent names and a
 * block that never closes (malformed, so kept in history too) pass through.
 *
 * @module
 */
import { AGENT_CHANNELS, CHANNELS } from "./channels.ts";
import { parseAgentOutput } from "./tags.ts";

const STRIPPED: ReadonlySet<string> = new Set(
  AGENT_CHANNELS.filter((c) => CHANNELS.get(c)!.stripped),
);
const OPEN = "<cp:";
const NAME_REGEXP = /[A-Za-z0-9_-]*/y;

/**
 * A streaming filter of one model call's text deltas.
 *
 * @example Usage
 * ```ts
 * import { LiveTagFilter } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * const f = new LiveTagFilter();
 * const live = f.push("Done.<cp:agent-st") +
 *   f.push('atus state="done"></cp:agent-status>') + f.flush();
 * assert.equal(live, "Done.");
 * ```
 */
export class LiveTagFilter {
  #held = "";

  /**
   * Takes a delta.
   *
   * @param text The delta's text.
   * @returns The text that may be shown now (possibly empty).
   */
  push(text: string): string {
    if (this.#held === "" && !text.includes("<")) return text;
    this.#held += text;
    return this.#drain(false);
  }

  /**
   * Ends the stream: a held block that never closed is shown as written.
   *
   * @returns The rest of the text.
   */
  flush(): string {
    const out = this.#drain(true);
    this.#held = "";
    return out;
  }

  /** Forgets held text (the model call is retried from scratch). */
  reset(): void {
    this.#held = "";
  }

  #drain(final: boolean): string {
    let s = this.#held;
    let out = "";
    for (;;) {
      const at = s.indexOf("<");
      if (at < 0) {
        out += s;
        s = "";
        break;
      }
      out += s.slice(0, at);
      s = s.slice(at);
      if (!s.startsWith(OPEN)) {
        if (!final && s.length < OPEN.length && OPEN.startsWith(s)) break;
        out += "<";
        s = s.slice(1);
        continue;
      }
      NAME_REGEXP.lastIndex = OPEN.length;
      const name = NAME_REGEXP.exec(s)![0];
      const nameEnd = OPEN.length + name.length;
      if (nameEnd === s.length && !final) break; // the name may go on
      if (!STRIPPED.has(name)) {
        out += s.slice(0, nameEnd);
        s = s.slice(nameEnd);
        continue;
      }
      const end = blockEnd(s, name, nameEnd);
      if (end === undefined) {
        if (!final) break; // held until it closes
        out += s; // never closed: malformed, kept like the stored text
        s = "";
        break;
      }
      // Well-formed: removed; malformed: kept as written (the stored rule).
      out += parseAgentOutput(s.slice(0, end)).text;
      s = s.slice(end);
    }
    this.#held = s;
    return out;
  }
}

/** Where the block starting at 0 ends, once it has. */
function blockEnd(s: string, name: string, from: number): number | undefined {
  const gt = s.indexOf(">", from);
  if (gt < 0) return undefined;
  if (s[gt - 1] === "/") return gt + 1; // <cp:NAME …/>
  const close = new RegExp(`</cp:${name}\\s*>`, "g");
  close.lastIndex = gt + 1;
  const m = close.exec(s);
  return m ? m.index + m[0].length : undefined;
}
