/**
 * A local fake of Anthropic's Messages API for the `anthropic` provider's
 * tests, e2e runs and bench: `Deno.serve` on 127.0.0.1 (port 0), speaking
 * the vendor's real SSE wire format (`event: <type>` + `data: <json>`
 * frames: message_start, content_block_start, content_block_delta with
 * text_delta / input_json_delta / thinking_delta / signature_delta,
 * content_block_stop, message_delta, message_stop, ping, error).
 *
 * Each `POST /v1/messages` takes the next queued {@linkcode FakeReply}
 * (a test queues them in order); `POST /v1/messages/count_tokens` answers
 * from {@linkcode FakeAnthropic.countTokens}. Every request is recorded
 * with its headers and parsed body, and {@linkcode FakeAnthropic.closed}
 * resolves for each stream the client hung up on before it ended.
 *
 * @module
 */

/** One recorded request. */
export interface RecordedRequest {
  /** Path, e.g. `/v1/messages`. */
  readonly path: string;
  /** Request headers (lower-case names). */
  readonly headers: Record<string, string>;
  /** The parsed JSON body. */
  readonly body: Record<string, unknown>;
}

/** One SSE frame: its `event:` name and `data:` JSON. */
export interface SseFrame {
  /** The event name. */
  readonly event: string;
  /** The data object. */
  readonly data: unknown;
}

/** What the fake answers to one `POST /v1/messages`. */
export type FakeReply =
  | {
    /** A streamed 200 response. */
    readonly kind: "sse";
    /** The frames, in order. */
    readonly frames: readonly SseFrame[];
    /**
     * Split the encoded body into writes of this many bytes (each its own
     * TCP write, spaced by `gapMs`), so multi-byte characters and frames
     * straddle chunk boundaries. Default: one write per frame.
     */
    readonly chunkBytes?: number;
    /** Milliseconds between writes. @default {0} */
    readonly gapMs?: number;
    /** After this many frames, stop writing and hold the connection open until the client hangs up. */
    readonly holdAfter?: number;
    /** Extra response headers. */
    readonly headers?: Record<string, string>;
  }
  | {
    /** A JSON (error) response. */
    readonly kind: "json";
    /** The HTTP status. */
    readonly status: number;
    /** The body. */
    readonly body: unknown;
    /** Extra response headers (e.g. `retry-after`). */
    readonly headers?: Record<string, string>;
  };

/** A running fake. */
export interface FakeAnthropic extends AsyncDisposable {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** The port. */
  readonly port: number;
  /** Requests received, in order. */
  readonly requests: RecordedRequest[];
  /** Queues replies for the next `POST /v1/messages` calls. */
  enqueue(...replies: FakeReply[]): void;
  /** Answers `count_tokens`: the request body → `input_tokens`, or an error reply. */
  countTokens: (
    body: Record<string, unknown>,
  ) => number | Extract<FakeReply, { kind: "json" }>;
  /** Resolves with the number of streams the client closed early, once it is ≥ `n`. */
  closed(n?: number): Promise<number>;
  /** Stops the server. */
  close(): Promise<void>;
}

const enc = new TextEncoder();

/**
 * Encodes frames the way the vendor writes them.
 *
 * @param frames The frames.
 * @returns The SSE text, one `event:`/`data:` pair and a blank line each.
 */
export function sseText(frames: readonly SseFrame[]): string {
  return frames.map((f) =>
    `event: ${f.event}\ndata: ${JSON.stringify(f.data)}\n\n`
  ).join("");
}

/** Builders for the vendor's stream events. */
export const ev = {
  /** `message_start` with the initial usage. */
  messageStart(
    usage: Record<string, unknown>,
    model = "claude-sonnet-5-5",
    id = "msg_01FAKE",
  ): SseFrame {
    return {
      event: "message_start",
      data: {
        type: "message_start",
        message: {
          id,
          type: "message",
          role: "assistant",
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { output_tokens: 1, ...usage },
        },
      },
    };
  },
  /** `content_block_start`. */
  blockStart(index: number, block: Record<string, unknown>): SseFrame {
    return {
      event: "content_block_start",
      data: { type: "content_block_start", index, content_block: block },
    };
  },
  /** `content_block_delta`. */
  delta(index: number, delta: Record<string, unknown>): SseFrame {
    return {
      event: "content_block_delta",
      data: { type: "content_block_delta", index, delta },
    };
  },
  /** `content_block_stop`. */
  blockStop(index: number): SseFrame {
    return {
      event: "content_block_stop",
      data: { type: "content_block_stop", index },
    };
  },
  /** `message_delta` with the stop reason and final usage. */
  messageDelta(
    stopReason: string,
    usage: Record<string, unknown>,
    stopSequence: string | null = null,
  ): SseFrame {
    return {
      event: "message_delta",
      data: {
        type: "message_delta",
        delta: { stop_reason: stopReason, stop_sequence: stopSequence },
        usage,
      },
    };
  },
  /** `message_stop`. */
  messageStop(): SseFrame {
    return { event: "message_stop", data: { type: "message_stop" } };
  },
  /** `ping`. */
  ping(): SseFrame {
    return { event: "ping", data: { type: "ping" } };
  },
  /** A mid-stream `error` event. */
  error(type: string, message: string): SseFrame {
    return {
      event: "error",
      data: { type: "error", error: { type, message } },
    };
  },
};

/**
 * A whole text reply: text in the given pieces, then usage and `end_turn`.
 *
 * @param pieces The text deltas.
 * @param usage Input-side usage for message_start, output for message_delta.
 * @returns The frames.
 */
export function textReply(
  pieces: readonly string[],
  usage: {
    input: number;
    output: number;
    cacheRead?: number;
    cacheWrite?: number;
  } = {
    input: 10,
    output: 5,
  },
  model?: string,
): SseFrame[] {
  return [
    ev.messageStart({
      input_tokens: usage.input,
      cache_read_input_tokens: usage.cacheRead ?? 0,
      cache_creation_input_tokens: usage.cacheWrite ?? 0,
    }, model),
    ev.blockStart(0, { type: "text", text: "" }),
    ev.ping(),
    ...pieces.map((text) => ev.delta(0, { type: "text_delta", text })),
    ev.blockStop(0),
    ev.messageDelta("end_turn", { output_tokens: usage.output }),
    ev.messageStop(),
  ];
}

/**
 * A reply that calls tools: optional text, then each tool with its JSON
 * arguments split into `pieces` fragments, then `tool_use`.
 *
 * @param calls The calls.
 * @param options Leading text, fragment count, usage.
 * @returns The frames.
 */
export function toolReply(
  calls: readonly { id: string; name: string; input: unknown }[],
  options: {
    text?: string;
    pieces?: number;
    usage?: { input: number; output: number };
    model?: string;
  } = {},
): SseFrame[] {
  const frames: SseFrame[] = [
    ev.messageStart(
      { input_tokens: options.usage?.input ?? 10 },
      options.model,
    ),
  ];
  let index = 0;
  if (options.text) {
    frames.push(
      ev.blockStart(index, { type: "text", text: "" }),
      ev.delta(index, { type: "text_delta", text: options.text }),
      ev.blockStop(index),
    );
    index++;
  }
  for (const c of calls) {
    frames.push(
      ev.blockStart(index, {
        type: "tool_use",
        id: c.id,
        name: c.name,
        input: {},
      }),
    );
    const json = JSON.stringify(c.input);
    const n = Math.max(1, options.pieces ?? 1);
    const size = Math.ceil(json.length / n);
    frames.push(
      ev.delta(index, { type: "input_json_delta", partial_json: "" }),
    );
    for (let i = 0; i < json.length; i += size) {
      frames.push(
        ev.delta(index, {
          type: "input_json_delta",
          partial_json: json.slice(i, i + size),
        }),
      );
    }
    frames.push(ev.blockStop(index));
    index++;
  }
  frames.push(
    ev.messageDelta("tool_use", { output_tokens: options.usage?.output ?? 20 }),
    ev.messageStop(),
  );
  return frames;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Starts a fake on 127.0.0.1, port 0.
 *
 * @returns The running fake; dispose of it to stop it.
 */
export function startFakeAnthropic(): FakeAnthropic {
  const requests: RecordedRequest[] = [];
  const queue: FakeReply[] = [];
  const held = new Set<ReadableStreamDefaultController<Uint8Array>>();
  let closedCount = 0;
  const closedWaiters: { n: number; resolve: (n: number) => void }[] = [];
  const markClosed = () => {
    closedCount++;
    for (const w of [...closedWaiters]) {
      if (closedCount >= w.n) {
        closedWaiters.splice(closedWaiters.indexOf(w), 1);
        w.resolve(closedCount);
      }
    }
  };
  const fake: FakeAnthropic = {
    url: "",
    port: 0,
    requests,
    enqueue: (...replies) => queue.push(...replies),
    countTokens: () => 0,
    closed: (n = 1) =>
      closedCount >= n
        ? Promise.resolve(closedCount)
        : new Promise((resolve) => closedWaiters.push({ n, resolve })),
    close: () => stop(),
    [Symbol.asyncDispose]: () => stop(),
  };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req) => {
      const path = new URL(req.url).pathname;
      const headers: Record<string, string> = {};
      req.headers.forEach((v, k) => (headers[k] = v));
      let body: Record<string, unknown> = {};
      try {
        body = await req.json();
      } catch {
        body = {};
      }
      requests.push({ path, headers, body });
      const json = (status: number, data: unknown, extra = {}) =>
        new Response(JSON.stringify(data), {
          status,
          headers: {
            "content-type": "application/json",
            "request-id": `req_fake_${requests.length}`,
            ...extra,
          },
        });
      if (req.method === "POST" && path === "/v1/messages/count_tokens") {
        const counted = fake.countTokens(body);
        return typeof counted === "number"
          ? json(200, { input_tokens: counted })
          : json(counted.status, counted.body, counted.headers ?? {});
      }
      if (req.method !== "POST" || path !== "/v1/messages") {
        return json(404, {
          type: "error",
          error: { type: "not_found_error", message: `no route ${path}` },
        });
      }
      const reply = queue.shift();
      if (!reply) {
        return json(500, {
          type: "error",
          error: {
            type: "api_error",
            message: "the fake has no reply queued for this request",
          },
        });
      }
      if (reply.kind === "json") {
        return json(reply.status, reply.body, reply.headers ?? {});
      }
      const frames = reply.frames;
      const gap = reply.gapMs ?? 0;
      let finished = false;
      let cancelled = false;
      let ctl: ReadableStreamDefaultController<Uint8Array> | undefined;
      const stream = new ReadableStream<Uint8Array>({
        async start(controller) {
          ctl = controller;
          try {
            const shown = reply.holdAfter !== undefined
              ? frames.slice(0, reply.holdAfter)
              : frames;
            if (reply.chunkBytes !== undefined) {
              const bytes = enc.encode(sseText(shown));
              for (let i = 0; i < bytes.length; i += reply.chunkBytes) {
                if (cancelled) return;
                controller.enqueue(bytes.slice(i, i + reply.chunkBytes));
                await sleep(gap);
              }
            } else {
              for (const f of shown) {
                if (cancelled) return;
                controller.enqueue(enc.encode(sseText([f])));
                if (gap > 0) await sleep(gap);
              }
            }
            if (reply.holdAfter !== undefined) {
              held.add(controller); // open until the client hangs up
              return;
            }
            finished = true;
            controller.close();
          } catch {
            // The client went away while writing.
          }
        },
        cancel() {
          cancelled = true;
          if (ctl) held.delete(ctl);
          if (!finished) markClosed();
        },
      });
      return new Response(stream, {
        status: 200,
        headers: {
          "content-type": "text/event-stream; charset=utf-8",
          "cache-control": "no-cache",
          "request-id": `req_fake_${requests.length}`,
          ...(reply.headers ?? {}),
        },
      });
    },
  );
  const stop = async () => {
    for (const c of held) {
      try {
        c.close();
      } catch {
        // already closed
      }
    }
    held.clear();
    await server.shutdown();
  };
  const addr = server.addr as Deno.NetAddr;
  Object.assign(fake, {
    url: `http://127.0.0.1:${addr.port}`,
    port: addr.port,
  });
  return fake;
}
