/**
 * The web UI's HTTP surface (Hono): the pages and their JSON and
 * server-sent-event API, each request checked against the random token of
 * the printed URL (then an HttpOnly cookie) and the loopback `Host`, every
 * answer taken from the kernel through the frontend's callback connection
 * (ListSessions, AttachSession, RenderEvents, VerifySession,
 * GetSessionState, ListMetadata, StreamDeltas, SubmitInput,
 * ResolvePlanDecision, Interrupt, CreateSession).
 *
 * @module
 */
import { type JsonObject, type JsonValue, toJson } from "@bufbuild/protobuf";
import { Hono } from "hono";
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { streamSSE } from "hono/streaming";
import type { KernelClient } from "../sdk/mod.ts";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import { SessionStateSchema } from "../../proto/gen/pluggableharness/session/v1/types_pb.ts";
import { MetadataBlockSchema } from "../../proto/gen/pluggableharness/metadata/v1/types_pb.ts";
import { DeltaKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import {
  ClientDecision,
  PlanDecisionScope,
} from "../../proto/gen/pluggableharness/plan/v1/types_pb.ts";
import {
  type EventView,
  eventView,
  type SessionView,
  sessionView,
  transcriptMarkdown,
} from "./_events.ts";
import { APP_JS, INDEX_HTML, STYLE_CSS } from "./_assets.ts";

/** Wakes the live streams when the kernel says something changed. */
export class Wakeup {
  #waiters: (() => void)[] = [];

  /**
   * A promise for the next wake-up (take it before reading, so that a
   * change during the read is not missed).
   *
   * @returns The promise.
   */
  next(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Wakes every waiter. */
  wake(): void {
    const w = this.#waiters;
    this.#waiters = [];
    for (const f of w) f();
  }

  /** How many are waiting. */
  get waiting(): number {
    return this.#waiters.length;
  }
}

/** Options of {@linkcode webUiApp}. */
export interface WebUiOptions {
  /** The secret of the printed URL (and of the cookie). */
  readonly token: string;
  /** The port served, once known (for the `Host` check and the cookie). */
  readonly port: () => number;
  /** Fires when something in the kernel changed. */
  readonly wakeup: Wakeup;
}

function sameSecret(a: string | undefined, b: string): boolean {
  if (a === undefined || a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

const HTTP_OF: Partial<Record<Code, 400 | 403 | 404 | 409 | 503>> = {
  [Code.INVALID_ARGUMENT]: 400,
  [Code.PERMISSION_DENIED]: 403,
  [Code.NOT_FOUND]: 404,
  [Code.FAILED_PRECONDITION]: 409,
  [Code.ALREADY_EXISTS]: 409,
  [Code.UNAVAILABLE]: 503,
};

function failure(c: Context, err: unknown): Response {
  const message = err instanceof Error ? err.message : String(err);
  const status = err instanceof GrpcStatusError
    ? HTTP_OF[err.code] ?? 500
    : 500;
  return c.json({ error: message }, status);
}

async function body(c: Context): Promise<Record<string, unknown>> {
  try {
    const v = await c.req.json();
    return v !== null && typeof v === "object" ? v : {};
  } catch {
    throw new GrpcStatusError(
      Code.INVALID_ARGUMENT,
      "the request body is not a JSON object",
    );
  }
}

function str(b: Record<string, unknown>, name: string): string {
  const v = b[name];
  if (typeof v !== "string" || v === "") {
    throw new GrpcStatusError(
      Code.INVALID_ARGUMENT,
      `field "${name}" must be a non-empty string`,
    );
  }
  return v;
}

const DECISIONS: Record<string, ClientDecision> = {
  allow: ClientDecision.ALLOW,
  deny: ClientDecision.DENY,
};
const SCOPES: Record<string, PlanDecisionScope> = {
  once: PlanDecisionScope.ONCE,
  session: PlanDecisionScope.SESSION,
  always: PlanDecisionScope.ALWAYS,
};

/** The web UI's routes, as a Hono app. */
export interface WebUi {
  /** The app (`app.fetch` serves it). */
  readonly app: Hono;
  /** Detaches every session this UI attached. */
  close(): Promise<void>;
}

/**
 * Builds the web UI over a frontend's kernel client.
 *
 * @param kernel The callback client of the frontend plugin.
 * @param options The token, port and wake-up source.
 * @returns The app.
 */
export function webUiApp(kernel: KernelClient, options: WebUiOptions): WebUi {
  const { token, wakeup } = options;
  const app = new Hono();
  const cookieName = () => `ph_webui_${options.port()}`;
  // Sessions this UI attached, with the number of live streams on each: the
  // last stream to close detaches (the session goes on headless).
  const attached = new Map<string, { streams: number; ready: Promise<void> }>();
  const attach = (id: string): Promise<void> => {
    let a = attached.get(id);
    if (!a) {
      const ready = kernel.attachSession({ sessionId: id }).then(() => {});
      a = { streams: 0, ready };
      attached.set(id, a);
      ready.catch(() => attached.delete(id));
    }
    return a.ready;
  };
  const release = async (id: string) => {
    const a = attached.get(id);
    if (!a || --a.streams > 0) return;
    attached.delete(id);
    await kernel.detachSession({ sessionId: id }).catch(() => {});
  };

  app.use("*", async (c, next) => {
    const port = options.port();
    const host = c.req.header("host");
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
      return c.text(
        `Forbidden: the web UI answers only to 127.0.0.1:${port}`,
        403,
      );
    }
    const given = c.req.query("token");
    if (given !== undefined) {
      if (!sameSecret(given, token)) {
        return c.text("Forbidden: the token in the URL is wrong", 403);
      }
      setCookie(c, cookieName(), token, {
        httpOnly: true,
        sameSite: "Strict",
        path: "/",
      });
      if (c.req.method === "GET" && !c.req.path.startsWith("/api/")) {
        // Drop the token from the address bar and the history.
        return c.redirect(c.req.path, 303);
      }
    } else if (!sameSecret(getCookie(c, cookieName()), token)) {
      return c.text(
        "Forbidden: open the web UI with the URL it printed (it carries the token)",
        403,
      );
    }
    if (c.req.method !== "GET") {
      const origin = c.req.header("origin");
      if (origin !== undefined && origin !== `http://${host}`) {
        return c.text(`Forbidden: cross-origin request from ${origin}`, 403);
      }
    }
    await next();
    c.header("Cache-Control", "no-store");
    c.header("X-Content-Type-Options", "nosniff");
  });

  const page = (c: Context) =>
    c.html(INDEX_HTML, 200, {
      "Content-Security-Policy":
        "default-src 'self'; style-src 'self'; script-src 'self'; img-src 'self' data:",
    });
  app.get("/", page);
  app.get("/s/:id", page);
  app.get(
    "/assets/app.js",
    (c) =>
      c.body(APP_JS, 200, { "Content-Type": "text/javascript; charset=utf-8" }),
  );
  app.get(
    "/assets/style.css",
    (c) =>
      c.body(STYLE_CSS, 200, { "Content-Type": "text/css; charset=utf-8" }),
  );

  const sessions = async (): Promise<SessionView[]> =>
    (await kernel.listSessions({})).sessions.map(sessionView);
  const sessionOf = async (id: string): Promise<SessionView> => {
    const s = (await sessions()).find((x) => x.id === id);
    if (!s) {
      throw new GrpcStatusError(Code.NOT_FOUND, `No session "${id}"`);
    }
    return s;
  };
  const events = async (
    id: string,
    from: number,
    limit?: number,
  ): Promise<EventView[]> => {
    const out: EventView[] = [];
    for await (
      const r of kernel.renderEvents({
        sessionId: id,
        fromSequence: BigInt(from),
        ...(limit !== undefined ? { limit } : {}),
      })
    ) out.push(eventView(r));
    return out;
  };
  const verify = async (id: string) => {
    const v = await kernel.verifySession({ sessionId: id });
    return {
      ok: v.ok,
      chain: v.chain,
      events: Number(v.events),
      firstBadSequence: Number(v.firstBadSequence),
      summary: v.summary,
    };
  };
  const stateOf = async (id: string): Promise<JsonValue> => {
    const { state } = await kernel.getSessionState({ sessionId: id });
    return state ? toJson(SessionStateSchema, state) : null;
  };
  const metadataOf = async (id: string): Promise<JsonValue[]> =>
    (await kernel.listMetadata({ sessionId: id })).blocks.map((b) =>
      toJson(MetadataBlockSchema, b)
    );
  const int = (v: string | undefined, name: string, min: number) => {
    if (v === undefined || v === "") return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) {
      throw new GrpcStatusError(
        Code.INVALID_ARGUMENT,
        `query parameter "${name}" must be an integer >= ${min}: "${v}"`,
      );
    }
    return n;
  };

  app.get("/api/sessions", async (c) => {
    try {
      return c.json({ sessions: await sessions() });
    } catch (err) {
      return failure(c, err);
    }
  });

  app.post("/api/sessions", async (c) => {
    try {
      const b = await body(c);
      const profile = typeof b["profile"] === "string" ? b["profile"] : "";
      const prompt = typeof b["prompt"] === "string" ? b["prompt"] : "";
      const { info } = await kernel.createSession({
        ...(profile ? { profile } : {}),
        ...(prompt ? { initialPrompt: prompt } : {}),
      });
      return c.json({ id: info!.sessionId });
    } catch (err) {
      return failure(c, err);
    }
  });

  app.get("/api/sessions/:id", async (c) => {
    const id = c.req.param("id");
    try {
      await attach(id);
      const [session, state, metadata] = await Promise.all([
        sessionOf(id),
        stateOf(id),
        metadataOf(id),
      ]);
      return c.json({ session, state, metadata });
    } catch (err) {
      return failure(c, err);
    }
  });

  app.get("/api/sessions/:id/events", async (c) => {
    const id = c.req.param("id");
    try {
      const from = int(c.req.query("from"), "from", 0) ?? 0;
      const limit = int(c.req.query("limit"), "limit", 0);
      await attach(id);
      return c.json({ events: await events(id, from, limit) });
    } catch (err) {
      return failure(c, err);
    }
  });

  app.get("/api/sessions/:id/verify", async (c) => {
    const id = c.req.param("id");
    try {
      await attach(id);
      return c.json(await verify(id));
    } catch (err) {
      return failure(c, err);
    }
  });

  app.get("/api/sessions/:id/export", async (c) => {
    const id = c.req.param("id");
    try {
      const format = c.req.query("format") ?? "md";
      if (format !== "md" && format !== "json") {
        throw new GrpcStatusError(
          Code.INVALID_ARGUMENT,
          `query parameter "format" must be md or json: "${format}"`,
        );
      }
      await attach(id);
      const [session, list, v] = await Promise.all([
        sessionOf(id),
        events(id, 0),
        verify(id),
      ]);
      const name = `session-${id}.${format}`;
      const disposition = `attachment; filename="${name}"`;
      if (format === "json") {
        return c.body(
          JSON.stringify(
            {
              format_version: "1",
              session,
              verification: v,
              events: list,
            },
            null,
            2,
          ),
          200,
          {
            "Content-Type": "application/json; charset=utf-8",
            "Content-Disposition": disposition,
          },
        );
      }
      return c.body(transcriptMarkdown(session, list, v.summary), 200, {
        "Content-Type": "text/markdown; charset=utf-8",
        "Content-Disposition": disposition,
      });
    } catch (err) {
      return failure(c, err);
    }
  });

  app.post("/api/sessions/:id/input", async (c) => {
    const id = c.req.param("id");
    try {
      const text = str(await body(c), "text");
      await attach(id);
      const { turnId } = await kernel.submitInput({
        sessionId: id,
        content: [{ block: { case: "text", value: { text } } }],
      });
      return c.json({ turnId });
    } catch (err) {
      return failure(c, err);
    }
  });

  app.post("/api/sessions/:id/decide", async (c) => {
    const id = c.req.param("id");
    try {
      const b = await body(c);
      const planItemId = str(b, "planItemId");
      const decision = DECISIONS[str(b, "decision")];
      const scope =
        SCOPES[typeof b["scope"] === "string" ? b["scope"] : "once"];
      if (decision === undefined) {
        throw new GrpcStatusError(
          Code.INVALID_ARGUMENT,
          'field "decision" must be "allow" or "deny"',
        );
      }
      if (scope === undefined) {
        throw new GrpcStatusError(
          Code.INVALID_ARGUMENT,
          'field "scope" must be "once", "session" or "always"',
        );
      }
      await attach(id);
      await kernel.resolvePlanDecision({
        sessionId: id,
        planItemId,
        decision,
        scope,
      });
      return c.json({ ok: true });
    } catch (err) {
      return failure(c, err);
    }
  });

  app.post("/api/sessions/:id/action", async (c) => {
    const id = c.req.param("id");
    try {
      const b = await body(c);
      const args = b["args"];
      await attach(id);
      await kernel.triggerAction({
        sessionId: id,
        nodeId: str(b, "nodeId"),
        toolName: str(b, "toolName"),
        provider: str(b, "provider"),
        args: args !== null && typeof args === "object" && !Array.isArray(args)
          ? args as JsonObject
          : {},
      });
      return c.json({ ok: true });
    } catch (err) {
      return failure(c, err);
    }
  });

  app.post("/api/sessions/:id/interrupt", async (c) => {
    const id = c.req.param("id");
    try {
      await attach(id);
      await kernel.interrupt({ sessionId: id });
      return c.json({ ok: true });
    } catch (err) {
      return failure(c, err);
    }
  });

  // The live session: events after `from` (rendered), deltas, state and
  // metadata whenever the kernel publishes a change.
  app.get("/api/sessions/:id/stream", (c) => {
    const id = c.req.param("id");
    let from: number;
    try {
      from = int(c.req.query("from"), "from", 0) ?? 0;
    } catch (err) {
      return failure(c, err);
    }
    return streamSSE(c, async (stream) => {
      const stop = new AbortController();
      stream.onAbort(() => stop.abort());
      const stopped = new Promise<void>((resolve) =>
        stop.signal.addEventListener("abort", () => resolve(), { once: true })
      );
      try {
        await attach(id);
      } catch (err) {
        await stream.writeSSE({
          event: "failure",
          data: JSON.stringify({ error: (err as Error).message }),
        });
        return;
      }
      attached.get(id)!.streams++;
      const send = (event: string, data: unknown) =>
        stream.writeSSE({ event, data: JSON.stringify(data) });
      const deltas = (async () => {
        for await (
          const d of kernel.streamDeltas({ sessionId: id }, {
            signal: stop.signal,
          })
        ) {
          await send("delta", {
            target: d.targetId,
            text: d.text,
            kind: d.kind === DeltaKind.THINKING ? "thinking" : "text",
          });
        }
      })().catch(() => {});
      let next = from;
      let lastState = "";
      let lastMeta = "";
      try {
        while (!stop.signal.aborted) {
          const woken = wakeup.next();
          for (const e of await events(id, next)) {
            next = e.seq + 1;
            await send("event", e);
          }
          const [state, meta] = await Promise.all([
            stateOf(id),
            metadataOf(id),
          ]);
          const s = JSON.stringify(state);
          if (s !== lastState) {
            lastState = s;
            await stream.writeSSE({ event: "state", data: s });
          }
          const m = JSON.stringify(meta);
          if (m !== lastMeta) {
            lastMeta = m;
            await stream.writeSSE({ event: "metadata", data: m });
          }
          await Promise.race([woken, stopped]);
        }
      } catch (err) {
        if (!stop.signal.aborted) {
          await send("failure", { error: (err as Error).message })
            .catch(() => {});
        }
      } finally {
        stop.abort();
        await deltas;
        await release(id);
      }
    });
  });

  return {
    app,
    close: async () => {
      const ids = [...attached.keys()];
      attached.clear();
      await Promise.all(
        ids.map((id) =>
          kernel.detachSession({ sessionId: id }).catch(() => {})
        ),
      );
    },
  };
}
