/**
 * {@linkcode runSession}: one prompt's session — open (or resume), send,
 * close — as a stream of session events with a final result.
 *
 * @module
 */
import { EventQueue } from "./_async.ts";
import type { AgentDeps } from "./agent_deps.ts";
import { AgentSession } from "./session.ts";
import type { SessionEvent } from "./session_events.ts";
import type { SessionSpec } from "./session_spec.ts";
import type {
  OpenSessionOptions,
  SendResult,
  SessionResult,
  SessionRun,
} from "./session_types.ts";

/** Options of {@linkcode runSession}. */
export interface RunSessionOptions extends Omit<OpenSessionOptions, "onEvent"> {
  /** The user's prompt (optional when resuming a session that ends with a user message). */
  readonly prompt?: string;
  /** Cancels the turn; the session then ends `cancelled`. */
  readonly signal?: AbortSignal;
  /**
   * A session goal (`agent run --goal`): the session goes on until the
   * agent declares it done or blocked (`<cp:goal-status>`), within the
   * bounds. Needs a control plane.
   */
  readonly goal?: string;
}

/**
 * Runs a session for one prompt: opens (or resumes) it, sends the prompt,
 * and closes it. Iterate the result for the events — `session_started`
 * first, `session_ended` last — and await `result` for the outcome. The
 * session runs whether or not anyone iterates.
 *
 * @example Usage
 * ```ts ignore
 * import { runSession } from "@ph/agent/kernel";
 * const run = runSession(spec, deps, { prompt: "Fix the typo in README.md", approve });
 * for await (const event of run) if (event.type === "text_delta") console.log(event.text);
 * const { status, finalText } = await run.result;
 * ```
 *
 * @param spec The session's inputs.
 * @param deps Store, plugins and effects.
 * @param options Prompt, signal, approver, resume.
 * @returns The events and the result. `result` rejects only when the
 * session cannot be opened (then iteration throws the same error).
 */
export function runSession(
  spec: SessionSpec,
  deps: AgentDeps,
  options: RunSessionOptions = {},
): SessionRun<SessionResult> {
  const { prompt, signal, goal, ...open } = options;
  return driveSession(spec, deps, open, async (session) => {
    if (goal !== undefined) session.setGoal(goal);
    const sent: SendResult = await session.send(prompt, {
      ...(signal ? { signal } : {}),
      events: false,
    }).result;
    return sent.outcome === "cancelled" ? "cancelled" : undefined;
  });
}

/**
 * Opens (or resumes) a session, runs `body` on it and closes it, as a
 * stream of its events with the close's result: the one sequence behind
 * {@linkcode runSession} and a trigger of a stored session. A failure of
 * `body` still closes the session, then ends the stream with that error.
 *
 * @param spec The session's inputs.
 * @param deps Store, plugins and effects.
 * @param open How to open it (its events also go to `open.onEvent`).
 * @param body What to do with the open session; returns the status to
 * close it with (`undefined`: by its outcome). `push` adds an event of
 * its own to the stream.
 * @returns The events and the result.
 */
export function driveSession(
  spec: SessionSpec,
  deps: AgentDeps,
  open: OpenSessionOptions,
  body: (
    session: AgentSession,
    push: (event: SessionEvent) => void,
  ) => Promise<"completed" | "cancelled" | undefined>,
): SessionRun<SessionResult> {
  const queue = new EventQueue<SessionEvent>();
  const push = (e: SessionEvent) => queue.push(e);
  const result = (async () => {
    let session: AgentSession;
    try {
      session = await AgentSession.open(spec, deps, {
        ...open,
        onEvent: (e) => {
          open.onEvent?.(e);
          push(e);
        },
      });
    } catch (err) {
      queue.close(err);
      throw err;
    }
    let status: "completed" | "cancelled" | undefined;
    try {
      status = await body(session, push);
    } catch (err) {
      await session.close();
      queue.close(err);
      throw err;
    }
    try {
      return await session.close(status);
    } finally {
      queue.close();
    }
  })();
  result.catch(() => {});
  return {
    result,
    [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator](),
  };
}
