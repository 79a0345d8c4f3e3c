/**
 * A server-sent-events reader for the provider's hot path, and the
 * coalescing of canonical events.
 *
 * The request goes out through `http.ts` (auth, headers, HTTP errors); the
 * streamed body is read here, one network read at a time: every complete
 * SSE event in a read is translated, and adjacent deltas of the same kind
 * (text, thinking, one tool call's argument fragments) are merged before
 * they are sent over gRPC. Nothing waits for more data to merge, so no
 * latency is added; a burst of deltas that arrived together costs one
 * gRPC message instead of hundreds. UTF-8 characters split across reads
 * are decoded whole (streaming `TextDecoder`).
 *
 * @module
 */
import type { StreamEventInit } from "./stream.ts";

/** One SSE event. */
export interface SseEvent {
  /** The `event:` field ("" when absent). */
  event: string;
  /** The `data:` lines, joined with "\n". */
  data: string;
}

/**
 * Reads a body as batches of SSE events: each batch holds the events that
 * were complete after one network read.
 *
 * @param body The response body.
 * @returns The batches.
 */
export async function* sseBatches(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<SseEvent[]> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = "";
  let event = "";
  let data: string[] = [];
  const lines = (text: string, out: SseEvent[]) => {
    buffer += text;
    let start = 0;
    for (;;) {
      const nl = buffer.indexOf("\n", start);
      if (nl < 0) break;
      let line = buffer.slice(start, nl);
      start = nl + 1;
      if (line.endsWith("\r")) line = line.slice(0, -1);
      if (line === "") {
        if (data.length > 0) out.push({ event, data: data.join("\n") });
        event = "";
        data = [];
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "data") data.push(value);
      else if (field === "event") event = value;
    }
    buffer = buffer.slice(start);
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const out: SseEvent[] = [];
      if (done) {
        lines(decoder.decode() + "\n\n", out);
        if (out.length > 0) yield out;
        return;
      }
      lines(decoder.decode(value, { stream: true }), out);
      if (out.length > 0) yield out;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/**
 * Merges adjacent deltas of the same kind, in place: text with text,
 * thinking with thinking, and one tool call's argument fragments.
 *
 * @param events The events of one batch.
 * @returns The same array, shortened.
 */
export function coalesce(events: StreamEventInit[]): StreamEventInit[] {
  let w = 0;
  for (let r = 0; r < events.length; r++) {
    const e = events[r]!;
    const prev = w > 0 ? events[w - 1]!.event : undefined;
    const cur = e.event;
    if (prev && cur && prev.case === cur.case) {
      if (
        (cur.case === "textDelta" || cur.case === "thinkingDelta") &&
        (prev.case === "textDelta" || prev.case === "thinkingDelta")
      ) {
        prev.value = { text: (prev.value.text ?? "") + (cur.value.text ?? "") };
        continue;
      }
      if (
        cur.case === "toolCallDelta" && prev.case === "toolCallDelta" &&
        prev.value.id === cur.value.id
      ) {
        prev.value = {
          id: prev.value.id ?? "",
          argumentsFragment: (prev.value.argumentsFragment ?? "") +
            (cur.value.argumentsFragment ?? ""),
        };
        continue;
      }
    }
    events[w++] = e;
  }
  events.length = w;
  return events;
}
