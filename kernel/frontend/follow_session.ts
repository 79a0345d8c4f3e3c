/**
 * Following a session from the store, live: the transcript so far, then
 * each event as it is committed, wherever the kernel that drives the
 * session runs (`agent attach`, issue 19). The store is the source of
 * truth and the bus only says when to read again: a `kernel.event.*` or
 * `kernel.state` publication for the session (from this kernel, or from
 * another through the PostgreSQL bus bridge) makes the follower read the
 * events after the last one it showed, in sequence order, so what it shows
 * is exactly the stored transcript, with no gap and no duplicate, however
 * notifications are batched, dropped or reordered.
 *
 * @module
 */
import type { EventBus } from "../bus/event_bus.ts";
import { storedEventViews } from "../agent/history.ts";
import type {
  SessionEvent,
  SessionStatusText,
} from "../agent/session_events.ts";
import {
  SESSION_STATUS_TEXT,
  type SessionRecord,
  type SessionStore,
} from "../state/session_store.ts";
import { SessionStatus } from "../../proto/gen/pluggableharness/session/v1/types_pb.ts";

/** One step of {@linkcode followSession}. */
export type FollowItem =
  /** A stored event as a session event, with its sequence. */
  | {
    readonly type: "event";
    readonly sequence: number;
    readonly event: SessionEvent;
  }
  /**
   * Every stored event has been shown (after the backfill, then after each
   * read): what is still pending is pending now.
   */
  | { readonly type: "caught_up"; readonly record: SessionRecord }
  /** The session ended, or its kernel is gone (`interrupted`). */
  | {
    readonly type: "ended";
    readonly status: SessionStatusText | "interrupted";
    readonly record: SessionRecord;
  };

/** Options of {@linkcode followSession}. */
export interface FollowOptions {
  /** Stops following. */
  readonly signal?: AbortSignal;
  /**
   * How often the record is read again without a notification, to notice a
   * driving kernel that died (its lease expired).
   * @default {5000}
   */
  readonly recheckMs?: number;
}

/**
 * Follows a session: its stored events, then live ones, until it ends.
 *
 * @example Usage
 * ```ts ignore
 * for await (const item of followSession(store, bus, sessionId)) {
 *   if (item.type === "event") console.log(item.sequence, item.event.type);
 * }
 * ```
 *
 * @param store The session store the driving kernel writes to.
 * @param bus A bus that receives the session's `kernel.event.*` and
 * `kernel.state` publications (bridged to the driving kernel's).
 * @param sessionId The session.
 * @param options A signal and the re-check interval.
 * @returns The items, ending with `ended` (or when the signal aborts).
 * @throws {SessionNotFoundError} From the store, for an unknown session.
 */
export async function* followSession(
  store: SessionStore,
  bus: EventBus,
  sessionId: string,
  options: FollowOptions = {},
): AsyncGenerator<FollowItem> {
  const signal = options.signal;
  // Subscribed before the first read: nothing committed after it is missed.
  const sub = bus.subscribe(["kernel.event.*", "kernel.state"], {
    bound: Infinity,
    label: `follow ${sessionId}`,
    accept: (_e, id) => id === sessionId,
    ...(signal ? { signal } : {}),
  });
  const log = await store.open(sessionId).catch((err) => {
    sub.close();
    throw err;
  });
  try {
    const first = await log.info();
    yield {
      type: "event",
      sequence: 0,
      event: {
        type: "session_started",
        sessionId,
        profile: first.profile,
        resumed: false,
      },
    };
    const tools = new Map<string, string>();
    let last = 0;
    // The one read of the subscription in flight (kept across re-checks).
    let next: Promise<IteratorResult<unknown>> | undefined;
    const readNew = async function* (): AsyncGenerator<FollowItem> {
      for await (const e of log.readEvents({ fromSequence: last + 1 })) {
        last = e.sequence;
        for (const event of storedEventViews(e, tools)) {
          yield { type: "event", sequence: e.sequence, event };
        }
      }
    };
    while (!signal?.aborted) {
      yield* readNew();
      const record = await log.info();
      if (record.status !== SessionStatus.RUNNING || record.interrupted) {
        // Events committed between the read and the status.
        yield* readNew();
        yield {
          type: "ended",
          status: record.interrupted
            ? "interrupted"
            : SESSION_STATUS_TEXT[record.status] as SessionStatusText,
          record,
        };
        return;
      }
      yield { type: "caught_up", record };
      // Wait for a notification (or the re-check), then take every one
      // already queued: one read covers them all.
      next ??= sub.next();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const recheck = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, options.recheckMs ?? 5000);
      });
      try {
        const r = await Promise.race([next, recheck]);
        if (r) {
          next = undefined;
          if (r.done) return;
        }
      } finally {
        clearTimeout(timer);
      }
      if (next === undefined) { while (sub.pending > 0) await sub.next(); }
    }
  } finally {
    sub.close();
    await log.close();
  }
}
