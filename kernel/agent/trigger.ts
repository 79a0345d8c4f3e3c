/**
 * External triggers (seed 004 `external-trigger`): {@linkcode triggerSession}
 * injects a turn into a live session — drained at its next round boundary
 * when it is running, a wake turn when it is idle — and
 * {@linkcode triggerStoredSession} resumes a stored session, injects the
 * turn, runs it and closes the session again (what `agent trigger` runs,
 * so CI or cron can drive a session).
 *
 * @module
 */
import type { DueTimer } from "../control/due_timers.ts";
import type { AgentDeps } from "./agent_deps.ts";
import { driveSession } from "./run_session.ts";
import type { AgentSession } from "./session.ts";
import type { SessionSpec } from "./session_spec.ts";
import type {
  OpenSessionOptions,
  SessionResult,
  SessionRun,
} from "./session_types.ts";

/** Options of {@linkcode triggerSession}. */
export interface TriggerOptions {
  /** The trigger's name (its provenance: `ci`, `nightly`, …). @default {"trigger"} */
  readonly name?: string;
  /** The target as the caller named it. @default {the session id} */
  readonly target?: string;
}

/**
 * Injects a turn into a live session.
 *
 * @example Usage
 * ```ts ignore
 * import { triggerSession } from "@ph/agent/kernel";
 * triggerSession(session, "The nightly build failed; look at it.", { name: "ci" });
 * await session.idle();
 * ```
 *
 * @param session The session.
 * @param text What the turn is about.
 * @param options The trigger's name and target.
 * @returns `queued`, or why the message was not delivered (`disabled`,
 * `rate_limited`).
 * @throws {TypeError} When the text is empty, the session has ended or
 * has no control plane.
 */
export function triggerSession(
  session: AgentSession,
  text: string,
  options: TriggerOptions = {},
): "queued" | "disabled" | "rate_limited" {
  if (text.trim() === "") {
    throw new TypeError("Cannot trigger a session with an empty text");
  }
  if (session.ended) {
    throw new TypeError(
      `Cannot trigger session "${session.sessionId}": it has ended`,
    );
  }
  const control = session.control;
  if (!control) {
    throw new TypeError(
      `Cannot trigger session "${session.sessionId}": it has no control plane (its spec has no controlPlane)`,
    );
  }
  const name = options.name ?? "trigger";
  const out = control.post({
    channel: "external-trigger",
    attrs: {
      name,
      target: options.target ?? session.sessionId,
      session: session.sessionId,
    },
    body: text,
    source: `trigger:${name}`,
  });
  return out === "empty" ? "disabled" : out;
}

/** Options of {@linkcode triggerStoredSession}. */
export interface TriggerStoredOptions
  extends TriggerOptions, Omit<OpenSessionOptions, "resumeSessionId"> {
  /**
   * Fire these timers (`<cp:event-trigger source="timer:NAME">`) instead
   * of the external trigger; the text is then not used.
   */
  readonly timers?: readonly DueTimer[];
  /**
   * After the wake turn, keep the session open while it watches background
   * commands: each exit wakes it ({@linkcode holdWhileWatching}).
   * @default {false}
   */
  readonly keepAlive?: boolean;
  /** Stops keeping the session open. */
  readonly signal?: AbortSignal;
}

/**
 * Keeps an idle session open while it watches background commands, so
 * that each one's exit (`shell-exit`) wakes it — what `agent run
 * --keep-alive` and `agent trigger --keep-alive` do for a headless
 * session. Returns once the session is idle with no watched command left,
 * has ended, or the signal aborts; at once when the session has no control
 * plane or `shell-exit` is disabled (no exit could wake it).
 *
 * @param session The session.
 * @param signal Stops waiting.
 * @returns When nothing can wake the session any more.
 */
export async function holdWhileWatching(
  session: AgentSession,
  signal?: AbortSignal,
): Promise<void> {
  const control = session.control;
  if (!control || !control.isEnabled("shell-exit")) return;
  while (!session.ended && !signal?.aborted) {
    await session.idle();
    if (session.ended || control.shells.pending === 0) return;
    await control.shells.changed(signal);
  }
}

/**
 * Resumes a stored session, injects a turn with `external-trigger`, runs
 * it (and whatever it cascades into) and closes the session.
 *
 * @param spec The session's spec (its profile's).
 * @param deps Store, plugins and effects.
 * @param sessionId The stored session.
 * @param text What the turn is about.
 * @param options Trigger name and target, approver, listener.
 * @returns The events and the session's result. `result` rejects when the
 * session cannot be resumed or has no control plane.
 */
export function triggerStoredSession(
  spec: SessionSpec,
  deps: AgentDeps,
  sessionId: string,
  text: string,
  options: TriggerStoredOptions = {},
): SessionRun<SessionResult> {
  const { name, target, timers, keepAlive, signal, ...open } = options;
  return driveSession(spec, deps, {
    ...open,
    resumeSessionId: sessionId,
  }, async (session, push) => {
    const out = timers
      ? fireTimers(session, timers)
      : triggerSession(session, text, {
        ...(name !== undefined ? { name } : {}),
        target: target ?? sessionId,
      });
    if (out !== "queued") {
      push({
        type: "warning",
        code: "trigger_not_delivered",
        message: `The trigger was not delivered to session ${sessionId}: ${
          timers ? "event-trigger" : "external-trigger"
        } is ${
          out === "disabled"
            ? "disabled for its profile"
            : "over its rate limit"
        }`,
      });
    }
    await session.idle();
    if (keepAlive) await holdWhileWatching(session, signal);
    return undefined;
  });
}

function fireTimers(
  session: AgentSession,
  timers: readonly DueTimer[],
): "queued" | "disabled" | "rate_limited" {
  const control = session.control;
  if (!control) {
    throw new TypeError(
      `Cannot fire the timers of session "${session.sessionId}": it has no control plane (its spec has no controlPlane)`,
    );
  }
  let out: "queued" | "disabled" | "rate_limited" = "disabled";
  for (const t of timers) {
    const r = control.post({
      channel: "event-trigger",
      attrs: { source: `timer:${t.name}` },
      body: t.text,
    });
    if (r === "queued") out = "queued";
    else if (r === "rate_limited" && out !== "queued") out = r;
  }
  return out;
}
