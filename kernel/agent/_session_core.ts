/**
 * What the parts of a running session share ({@linkcode SessionCore}):
 * the turn driver, tool dispatch and the plan/apply gate read the spec,
 * the history and the hooks through it, and report through its `emit`,
 * its log writer and its spans. {@linkcode AgentSession} implements it.
 *
 * @module
 */
import type { Message } from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import type { HookPayload } from "../../proto/gen/pluggableharness/hook/v1/events_pb.ts";
import type { ControlPlane } from "../control/control_plane.ts";
import type { AgentDeps } from "./agent_deps.ts";
import type { HookDispatcher } from "./hook_dispatch.ts";
import type { SessionEvent } from "./session_events.ts";
import type { ModelSpend, SessionLogWriter } from "./session_log_writer.ts";
import type { SessionSpans } from "./session_spans.ts";
import type { HookPointName, ResolvedSessionSpec } from "./session_spec.ts";

/** The state and effects of one session that its parts share. */
export interface SessionCore {
  /** The session's ULID. */
  readonly sessionId: string;
  /** The resolved spec. */
  readonly spec: ResolvedSessionSpec;
  /** Store, plugins and effects. */
  readonly deps: AgentDeps;
  /** The durable history (what the next turn assembles from). */
  readonly history: Message[];
  /** Paths the session's tool calls named, oldest first (`files_touched`). */
  readonly filesTouched: Set<string>;
  /** Writes the session's durable events. */
  readonly writer: SessionLogWriter;
  /** The session's hook chains. */
  readonly hooks: HookDispatcher;
  /** The session's open spans. */
  readonly spans: SessionSpans;
  /**
   * When `max_wall_clock_s` runs out (epoch ms, the clock of
   * `deps.now`); a running tool call is stopped then.
   */
  readonly deadlineAt: number | undefined;
  /** The session's control plane, when its spec has one. */
  readonly control: ControlPlane | undefined;
  /** Wall time of each finished call of the turn, by `tool_use` id. */
  readonly toolDurations: Map<string, number>;
  /** Delivers a session event to the listener and the prompt's buffer. */
  emit(event: SessionEvent): void;
  /** Dispatches a point whose chain cannot deny; an aborted chain is logged. */
  dispatchQuiet(
    point: HookPointName,
    payload: HookPayload,
    signal: AbortSignal,
  ): Promise<void>;
  /**
   * Persists an assistant message with its cost, debits the budget once,
   * and emits the `message` event. With `defer`, the write is committed
   * with the next one (the turn's first `tool_call`) and the call returns
   * before: `stored` then resolves once it is stored and the `message`
   * event is out.
   */
  recordAssistant(
    message: Message,
    spend: ModelSpend,
    turnId?: string,
    stopReason?: string,
    defer?: boolean,
  ): Promise<{ stored?: Promise<void> }>;
}
