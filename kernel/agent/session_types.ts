/**
 * The public types of a session's API: the options of
 * `AgentSession.open` and `send`, and how a prompt ({@linkcode SendResult})
 * and a session ({@linkcode SessionResult}) end.
 *
 * @module
 */
import type {
  ContentBlock,
  Message,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import type { CostBudget } from "../../contract/cost.ts";
import type { Approver } from "./approval_gate.ts";
import type { ErrorInfo } from "./errors.ts";
import type { InteractiveAnswerer } from "./interactive_gate.ts";
import type {
  BoundName,
  SessionEvent,
  SessionStatusText,
} from "./session_events.ts";
import type { KernelSpan } from "./tracing.ts";

/** Options of `AgentSession.open`. */
export interface OpenSessionOptions {
  /** Resume this session (completed, cancelled, or left running by a dead process). */
  readonly resumeSessionId?: string;
  /** Answers approvals interactively. */
  readonly approve?: Approver;
  /** Answers interactive calls (`ask_user`). */
  readonly answer?: InteractiveAnswerer;
  /** Receives every event of the session (all prompts). */
  readonly onEvent?: (event: SessionEvent) => void;
  /** The parent session (sub-agents; recorded in `session_meta`). */
  readonly parentSessionId?: string;
  /** The depth in the session tree. @default {0} */
  readonly depth?: number;
  /** The parent session's live cost budget (debited by this session's spend). */
  readonly parentBudget?: CostBudget;
  /** The span the `session` span nests under (a sub-agent's spawning call). */
  readonly parentSpan?: KernelSpan;
  /**
   * Sub-agent spawns still allowed below this session (what `GetSession`
   * and `RunSession` read). @default {Infinity}
   */
  readonly remainingDepth?: number;
}

/** Options of `AgentSession.send`. */
export interface SendOptions {
  /** Cancels this prompt's turn (the session stays open). */
  readonly signal?: AbortSignal;
  /**
   * Buffer this prompt's events for iteration; set `false` when they are
   * consumed through {@linkcode OpenSessionOptions.onEvent}.
   * @default {true}
   */
  readonly events?: boolean;
  /**
   * The id of the prompt's first turn (a frontend's `SubmitInput` returns
   * it before the turn starts). @default {a new ULID}
   */
  readonly turnId?: string;
  /**
   * Content blocks appended to the prompt's text block (pasted images);
   * the caller checked that the model accepts them.
   */
  readonly extraContent?: readonly ContentBlock[];
}

/** How one prompt ended. */
export interface SendResult {
  /**
   * `done`: DoneCheck succeeded; `cancelled`: the signal aborted the turn;
   * `bound`: a bound or the doom loop fired (the session has ended);
   * `failed`: an error ended the session.
   */
  readonly outcome: "done" | "cancelled" | "bound" | "failed";
  /** The last assistant message of the prompt. */
  readonly finalMessage?: Message;
  /** Its text. */
  readonly finalText: string;
  /** Turns (model calls) this prompt took. */
  readonly turns: number;
  /** The bound that fired. */
  readonly boundFired?: BoundName;
  /** The error, when one ended the turn. */
  readonly error?: ErrorInfo;
}

/** How a session ended. */
export interface SessionResult {
  /** The session. */
  readonly sessionId: string;
  /** Its profile. */
  readonly profile: string;
  /** The terminal status. */
  readonly status: SessionStatusText;
  /** The last assistant message. */
  readonly finalMessage?: Message;
  /** Its text. */
  readonly finalText: string;
  /** The session's cost rollup (`SUM(cost_ledger.cost_usd)`), resumed spend included. */
  readonly totalCostUsd: number;
  /** Turns run by this process. */
  readonly turns: number;
  /** The bound that fired (`doom_loop` ends as `completed`). */
  readonly boundFired?: BoundName;
  /** The error that ended the session, if any. */
  readonly error?: ErrorInfo;
  /**
   * Tool providers whose plugin crashed during a call (the model saw a
   * `process_crashed` error and went on); the exit code is then 6.
   */
  readonly crashedProviders?: readonly string[];
}

/** A running prompt or session: its events, and its result. */
export interface SessionRun<R> extends AsyncIterable<SessionEvent> {
  /** Resolves when it is over (also when nobody iterates the events). */
  readonly result: Promise<R>;
}
