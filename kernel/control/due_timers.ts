/**
 * The `control_plane` timers of a stored session that are due
 * ({@linkcode dueTimersOf}), for `agent trigger --due`: a stored session
 * that no process holds has no running timer, so cron runs
 * `agent trigger --due` and each timer whose period has passed since it
 * last fired fires once. When a timer last fired is read from the
 * session's own log (its newest `event-trigger` control event with
 * `source="timer:NAME"`, {@linkcode lastTimerFirings}); a timer that never
 * fired counts from the session's start. Missed periods are not made up:
 * a timer due several times over fires once.
 *
 * @module
 */
import { fromBinary } from "@bufbuild/protobuf";
import { ControlEventSchema } from "../../proto/gen/pluggableharness/event/v1/events_pb.ts";
import { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import type { SessionLog, SessionStore } from "../state/session_store.ts";
import type { ControlTimerSpec } from "./session_sources.ts";

/** A `control_plane` timer of a stored session that is due. */
export interface DueTimer {
  /** The timer's name (the event's source is `timer:<name>`). */
  readonly name: string;
  /** The text the event carries. */
  readonly text: string;
}

/**
 * When each timer of a session last fired, from its log.
 *
 * @param log The open session.
 * @returns Epoch milliseconds by timer name.
 */
export async function lastTimerFirings(
  log: SessionLog,
): Promise<Map<string, number>> {
  const last = new Map<string, number>();
  for await (const e of log.readEvents({ kinds: [EventKind.CONTROL] })) {
    const c = fromBinary(ControlEventSchema, e.payload);
    if (c.channel !== "event-trigger") continue;
    const source = c.attributes.find((a) => a.name === "source")?.value ?? "";
    if (!source.startsWith("timer:")) continue;
    const at = Date.parse(e.timestamp);
    if (Number.isFinite(at)) last.set(source.slice("timer:".length), at);
  }
  return last;
}

/**
 * The timers due at `nowMs`: those whose period has passed since they last
 * fired (or since the session started, for one that never fired).
 *
 * @example Usage
 * ```ts
 * import { dueTimersOf } from "./due_timers.ts";
 * import assert from "node:assert/strict";
 * const timers = [{ name: "nightly", everyS: 3600, text: "check CI" }];
 * assert.deepEqual(dueTimersOf(timers, new Map(), 0, 3_600_000), [
 *   { name: "nightly", text: "check CI" },
 * ]);
 * assert.deepEqual(dueTimersOf(timers, new Map([["nightly", 1]]), 0, 3_600_000), []);
 * ```
 *
 * @param timers The profile's timers.
 * @param last When each last fired (epoch ms).
 * @param startedAtMs When the session started (epoch ms).
 * @param nowMs Now (epoch ms).
 * @returns The due timers, in the profile's order.
 */
export function dueTimersOf(
  timers: readonly ControlTimerSpec[],
  last: ReadonlyMap<string, number>,
  startedAtMs: number,
  nowMs: number,
): DueTimer[] {
  return timers
    .filter((t) => nowMs >= (last.get(t.name) ?? startedAtMs) + t.everyS * 1000)
    .map((t) => ({ name: t.name, text: t.text }));
}

/** A profile as {@linkcode storedDueTimers} reads it: its name and timers. */
export interface TimedProfile {
  /** The profile's name. */
  readonly name: string;
  /** Its control plane, if any. */
  readonly controlPlane?: {
    /** The profile's timers. */
    readonly timers: readonly ControlTimerSpec[];
  };
}

/**
 * The due timers of a stored session: its profile's (or `profile`'s)
 * timers, against when each last fired in its log.
 *
 * @param store The session store.
 * @param profiles The plan's profiles.
 * @param sessionId The stored session.
 * @param options `now` (epoch ms, default the clock) and the profile
 * (default: the session's own).
 * @returns The due timers; none for a profile without timers.
 * @throws {Error} What opening or reading the session threw (e.g.
 * `SessionNotFoundError`).
 */
export async function storedDueTimers(
  store: SessionStore,
  profiles: readonly TimedProfile[],
  sessionId: string,
  options: { readonly now?: number; readonly profile?: string } = {},
): Promise<DueTimer[]> {
  const log = await store.open(sessionId);
  try {
    const info = await log.info();
    const name = options.profile ?? info.profile;
    const timers = profiles.find((p) => p.name === name)?.controlPlane
      ?.timers ?? [];
    if (timers.length === 0) return [];
    return dueTimersOf(
      timers,
      await lastTimerFirings(log),
      Date.parse(info.startedAt),
      options.now ?? Date.now(),
    );
  } finally {
    await log.close();
  }
}
