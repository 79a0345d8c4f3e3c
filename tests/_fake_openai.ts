/**
 * A local fake of OpenAI's HTTP API for the `openai` provider's tests: a
 * `Deno.serve` on 127.0.0.1 (port 0) that speaks the real wire formats —
 * Chat Completions `data: {chunk}` SSE lines ending in `data: [DONE]`, and
 * Responses API typed SSE events (`event: <type>` + `data: {…}`) — records
 * every request it receives, and replays queued replies: streams written
 * piece by piece (each piece its own TCP write, so multi-byte characters
 * can be split across writes), error statuses with headers, JSON bodies,
 * and streams that hang so that cancellation can be observed (the reply
 * records when the client closes the connection).
 *
 * @module
 */

/** One request the fake received. */
export interface RecordedRequest {
  /** HTTP method. */
  method: string;
  /** Path, e.g. `/v1/chat/completions`. */
  path: string;
  /** Lower-cased headers. */
  headers: Record<string, string>;
  /** Parsed JSON body (`undefined` for none). */
  body: Record<string, unknown> | undefined;
}

/** A reply the fake plays for the next request. */
export interface FakeReply {
  /** HTTP status (default 200). */
  status?: number;
  /** Extra headers. */
  headers?: Record<string, string>;
  /** A JSON body (errors, model lists). */
  json?: unknown;
  /** An SSE body: each piece is a separate write. */
  chunks?: (string | Uint8Array)[];
  /** Milliseconds between pieces (default 1, so writes stay separate). */
  gapMs?: number;
  /** Keep the stream open after the pieces (until the client closes it). */
  hang?: boolean;
  /** Resolved when the client closes the connection before the end. */
  closed?: PromiseWithResolvers<void>;
}

/** A running fake server. */
export interface FakeOpenAI extends AsyncDisposable {
  /** The `base_url` to configure (`http://127.0.0.1:<port>/v1`). */
  readonly baseUrl: string;
  /** The port. */
  readonly port: number;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Queues replies (played in order; the last one repeats when empty). */
  reply(...replies: FakeReply[]): void;
  /** The ids `GET /v1/models` lists. */
  models: string[];
  /** Stops the server. */
  close(): Promise<void>;
}

const encoder = new TextEncoder();

/**
 * The SSE pieces of a Chat Completions stream: one `data:` line per chunk,
 * then `data: [DONE]`.
 *
 * @param chunks The chunk objects.
 * @param done End with `[DONE]`.
 * @returns The pieces.
 */
export function chatSse(chunks: unknown[], done = true): string[] {
  const out = chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`);
  if (done) out.push("data: [DONE]\n\n");
  return out;
}

/**
 * The SSE pieces of a Responses stream: `event: <type>` and `data:` per
 * event, with `sequence_number` filled in.
 *
 * @param events The event objects (each with `type`).
 * @returns The pieces.
 */
export function responsesSse(
  events: ({ type: string } & Record<string, unknown>)[],
): string[] {
  return events.map((e, i) =>
    `event: ${e.type}\ndata: ${
      JSON.stringify({ ...e, sequence_number: i })
    }\n\n`
  );
}

/**
 * A Chat Completions chunk.
 *
 * @param delta The choice's delta.
 * @param extra `finish_reason`, `usage` (then `choices` is empty when
 * `delta` is null), model.
 * @returns The chunk.
 */
export function chatChunk(
  delta: Record<string, unknown> | null,
  extra: { finish_reason?: string; usage?: unknown; model?: string } = {},
): Record<string, unknown> {
  return {
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: 1_764_500_000,
    model: extra.model ?? "gpt-5.4-mini-2026-03-17",
    system_fingerprint: "fp_fake",
    choices: delta === null && extra.finish_reason === undefined ? [] : [{
      index: 0,
      delta: delta ?? {},
      logprobs: null,
      finish_reason: extra.finish_reason ?? null,
    }],
    ...(extra.usage !== undefined ? { usage: extra.usage } : {}),
  };
}

/**
 * Splits a string's UTF-8 bytes at a byte offset (which may fall inside a
 * multi-byte character).
 *
 * @param text The text.
 * @param at The byte offset.
 * @returns The two halves.
 */
export function splitBytes(text: string, at: number): [Uint8Array, Uint8Array] {
  const bytes = encoder.encode(text);
  return [bytes.slice(0, at), bytes.slice(at)];
}

/**
 * Starts the fake on 127.0.0.1, port 0.
 *
 * @returns The running fake (dispose it, or call `close`).
 */
export function startFakeOpenAI(): FakeOpenAI {
  const requests: RecordedRequest[] = [];
  const queue: FakeReply[] = [];
  let last: FakeReply = {
    status: 500,
    json: { error: { message: "no reply queued", type: "server_error" } },
  };
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const open = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });
  const fake = {
    models: [] as string[],
  };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req) => {
      const url = new URL(req.url);
      const text = await req.text();
      let body: Record<string, unknown> | undefined;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = { _raw: text };
      }
      requests.push({
        method: req.method,
        path: url.pathname,
        headers: Object.fromEntries(req.headers),
        body,
      });
      if (req.method === "GET" && url.pathname === "/v1/models") {
        return Response.json({
          object: "list",
          data: fake.models.map((id) => ({
            id,
            object: "model",
            created: 0,
            owned_by: "fake",
          })),
        });
      }
      const r = queue.shift() ?? last;
      last = r;
      const headers = new Headers({
        "x-request-id": `req_fake_${requests.length}`,
        ...(r.headers ?? {}),
      });
      if (r.chunks === undefined) {
        return Response.json(r.json ?? {}, {
          status: r.status ?? 200,
          headers,
        });
      }
      headers.set("content-type", "text/event-stream");
      const pieces = r.chunks;
      let finished = false;
      const stream = new ReadableStream<Uint8Array>({
        async start(controller) {
          open.add(controller);
          try {
            for (const p of pieces) {
              controller.enqueue(typeof p === "string" ? encoder.encode(p) : p);
              await sleep(r.gapMs ?? 1);
            }
            if (!r.hang) {
              finished = true;
              open.delete(controller);
              controller.close();
            }
          } catch {
            // the client went away mid-write
          }
        },
        cancel() {
          if (!finished) r.closed?.resolve();
        },
      });
      return new Response(stream, { status: r.status ?? 200, headers });
    },
  );
  const port = server.addr.port;
  let stopped = false;
  const close = async () => {
    if (stopped) return;
    stopped = true;
    for (const t of timers) clearTimeout(t);
    for (const c of open) {
      try {
        c.close();
      } catch {
        // already closed
      }
    }
    open.clear();
    await server.shutdown();
  };
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    reply: (...replies) => queue.push(...replies),
    get models() {
      return fake.models;
    },
    set models(v: string[]) {
      fake.models = v;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
