/**
 * A minimal server-sent-events decoder (the WHATWG event-stream format the
 * Messages API streams): lines end with LF, CR LF or CR; `event:` and
 * `data:` fields; a blank line dispatches; `:` lines are comments.
 *
 * It works a network chunk at a time, so every event that arrived in one
 * read is translated and sent on together (see `main.ts`).
 *
 * @module
 */

/** One dispatched event. */
export interface SseMessage {
  /** The `event:` field (`message` when absent). */
  readonly event: string;
  /** The joined `data:` lines. */
  readonly data: string;
}

/** Decodes UTF-8 chunks into events; see the module documentation. */
export class SseDecoder {
  #text = new TextDecoder("utf-8");
  #buf = "";
  #event = "";
  #data: string[] = [];

  /**
   * Feeds one chunk.
   *
   * @param chunk Bytes as read (multi-byte characters may straddle chunks).
   * @returns The events completed by this chunk.
   */
  push(chunk: Uint8Array): SseMessage[] {
    this.#buf += this.#text.decode(chunk, { stream: true });
    return this.#lines(false);
  }

  /**
   * Ends the stream.
   *
   * @returns The events completed by the end of input.
   */
  end(): SseMessage[] {
    this.#buf += this.#text.decode();
    const out = this.#lines(true);
    return out;
  }

  #lines(final: boolean): SseMessage[] {
    const out: SseMessage[] = [];
    let start = 0;
    const buf = this.#buf;
    for (;;) {
      let i = start;
      while (i < buf.length && buf[i] !== "\n" && buf[i] !== "\r") i++;
      if (i >= buf.length) break;
      // A CR at the very end may be the first half of CR LF: wait for more.
      if (buf[i] === "\r" && i + 1 >= buf.length && !final) break;
      this.#line(buf.slice(start, i), out);
      start = buf[i] === "\r" && buf[i + 1] === "\n" ? i + 2 : i + 1;
    }
    this.#buf = buf.slice(start);
    if (final) {
      // An event not ended by a blank line is dropped, as the standard says.
      this.#buf = "";
      this.#event = "";
      this.#data = [];
    }
    return out;
  }

  #line(line: string, out: SseMessage[]): void {
    if (line === "") {
      if (this.#data.length > 0 || this.#event !== "") {
        out.push({
          event: this.#event || "message",
          data: this.#data.join("\n"),
        });
      }
      this.#event = "";
      this.#data = [];
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.#event = value;
    else if (field === "data") this.#data.push(value);
  }
}
