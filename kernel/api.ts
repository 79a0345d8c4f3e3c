/**
 * The public types of the kernel's library API ({@linkcode Kernel},
 * {@linkcode KernelSession}, {@linkcode KernelSessions}, their options and
 * results) and {@linkcode ProviderError}. `kernel/kernel.ts` implements
 * them ({@linkcode openKernel}); the root module `@ph/agent` re-exports
 * them.
 *
 * @module
 */
import type { CompactionOutcome } from "./agent/compaction.ts";
import type { DueTimer } from "./control/due_timers.ts";
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { Diagnostic, Plan } from "../config/mod.ts";
import type { BuiltinCatalog } from "../contract/builtins.ts";
import type { ErrorInfo } from "./agent/errors.ts";
import {
  EXIT_BOUND,
  EXIT_OK,
  EXIT_TASK_ERROR,
  exitCodeOf,
} from "./agent/exit_codes.ts";
import type { SessionRun } from "./agent/session_types.ts";
import type {
  BoundName,
  SessionEvent,
  SessionStatusText,
} from "./agent/session_events.ts";
import type { Approver } from "./agent/approval_gate.ts";
import type { InteractiveAnswerer } from "./agent/interactive_gate.ts";
import type { OnAsk } from "./agent/session_spec.ts";
import type {
  ListSessionsOptions,
  ListSessionsResult,
  Producer,
  VerifyResult,
} from "./state/session_store.ts";

/** How one prompt ended ({@linkcode KernelSession.send}). */
export interface PromptResult {
  /**
   * `done`: the model finished; `cancelled`: the signal aborted the turn
   * (the session stays open); `bound`: a bound or the doom loop fired (the
   * session has ended); `failed`: an error ended the session.
   */
  readonly outcome: "done" | "cancelled" | "bound" | "failed";
  /** The text of the prompt's last assistant message. */
  readonly finalText: string;
  /** Turns (model calls) the prompt took. */
  readonly turns: number;
  /** The bound that fired. */
  readonly boundFired?: BoundName;
  /** The error, when one ended the turn. */
  readonly error?: ErrorInfo;
  /** How the judge loop ended, in a session opened with a judge. */
  readonly judge?: JudgeOutcome;
}

/** How a session ended. */
export interface SessionOutcome {
  /** The session's ULID. */
  readonly sessionId: string;
  /** Its profile. */
  readonly profile: string;
  /** The terminal status. */
  readonly status: SessionStatusText;
  /** The text of the last assistant message. */
  readonly finalText: string;
  /** What the session cost in USD (resumed spend included). */
  readonly totalCostUsd: number;
  /** Turns run by this process. */
  readonly turns: number;
  /** The bound that fired (a doom loop ends `completed` with this set). */
  readonly boundFired?: BoundName;
  /** The error that ended the session. */
  readonly error?: ErrorInfo;
  /** Tool providers whose plugin crashed during a call (exit code 6). */
  readonly crashedProviders?: readonly string[];
  /** How the judge loop ended, when the run had a judge. */
  readonly judge?: JudgeOutcome;
}

/** How a judged run ended ({@linkcode KernelSessionOptions.judge}). */
export interface JudgeOutcome {
  /** The judge profile. */
  readonly profile: string;
  /** Reviews run (0 when the worker never finished a turn to review). */
  readonly rounds: number;
  /**
   * The last verdict: `accept`, `continue` (the round bound stopped the
   * loop) or `none` (no review ran, or the judge wrote no verdict).
   */
  readonly verdict: "accept" | "continue" | "none";
  /** The last verdict's body (the directive, or why it was accepted). */
  readonly directive: string;
  /** True when `max_judge_rounds` reviews ran without an accept. */
  readonly boundFired?: boolean;
  /**
   * The judge's session, once a review ran: a child of the worker's, one
   * prompt per review.
   */
  readonly sessionId?: string;
  /** Why the last review gave no verdict. */
  readonly problem?: string;
}

/**
 * The `agent` exit code of a session outcome: 0 success, 1 task error, 4
 * policy denied a required action (`on_ask = "fail"` hit an ask), 5 a
 * bound fired (or the doom loop), 6 provider error (also a tool plugin
 * that crashed during a call), 130 cancelled. A judged run that completed
 * without the judge's accept is 5 when `max_judge_rounds` stopped it and
 * 1 when the judge gave no verdict.
 *
 * @example Usage
 * ```ts
 * import { sessionExitCode } from "@ph/agent";
 * import assert from "node:assert/strict";
 * const base = { sessionId: "s", profile: "default", finalText: "", totalCostUsd: 0, turns: 1 };
 * assert.equal(sessionExitCode({ ...base, status: "completed" }), 0);
 * assert.equal(sessionExitCode({ ...base, status: "error_max_turns", boundFired: "max_turns" }), 5);
 * ```
 *
 * @param outcome How the session ended.
 * @returns The exit code.
 */
export function sessionExitCode(outcome: SessionOutcome): number {
  const code = exitCodeOf(outcome);
  const judge = outcome.judge;
  if (code !== EXIT_OK || !judge || judge.rounds === 0) return code;
  if (judge.verdict === "accept") return EXIT_OK;
  return judge.boundFired ? EXIT_BOUND : EXIT_TASK_ERROR;
}

/** Options of {@linkcode openKernel}. */
export interface OpenKernelOptions {
  /**
   * Require a complete lock file that matches every provider
   * (`.agent/agent.lock.hcl`); otherwise {@linkcode openKernel} throws a
   * {@linkcode ConfigError}. Forge plugins then come from the plugin
   * cache only: the network is never used. @default {false}
   */
  readonly locked?: boolean;
  /**
   * Told when a forge plugin's cache entry is refused (it no longer
   * matches the lock file's checksum) and fetched again. @default {none}
   */
  readonly onWarning?: (message: string) => void;
  /**
   * The environment: what `env()` in `agent.hcl` reads, where the sessions
   * directory is found (`XDG_STATE_HOME`, `HOME`), and what granted
   * variables plugins receive. @default {Deno.env.toObject()}
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Where session files are kept.
   * @default {$XDG_STATE_HOME/agent/sessions}
   */
  readonly sessionsDir?: string;
  /**
   * Write ALWAYS approvals as `policy` blocks appended to `agent.hcl` (so
   * they hold for later sessions). Without it an ALWAYS answer is refused.
   * @default {false}
   */
  readonly persistAlways?: boolean;
  /**
   * The `agent.hcl` text to compile when `dir` has none (the CLI's
   * zero-config run, from `config/default_config.ts`). The lock file is
   * then not read, and ALWAYS approvals are not persisted (there is no
   * `agent.hcl` to append them to: nothing is written into `dir`).
   * Ignored when `dir/agent.hcl` exists. @default {undefined}
   */
  readonly defaultConfig?: string;
  /** Aborting stops plugin launches in progress. */
  readonly signal?: AbortSignal;
  /**
   * Names the frontend the caller will start, once the plan is compiled:
   * its process is then started beside the other providers (up to its
   * handshake; {@linkcode Kernel.startFrontend} of that name and terminal
   * configures it), so its own start-up overlaps theirs. A pre-started
   * frontend that is never asked for stops with the kernel.
   * @default {none: frontends start at startFrontend}
   */
  readonly prestartFrontend?: (
    plan: Plan,
  ) => PrestartFrontend | undefined;
  /**
   * The first-party plugins that `builtin/<name>` sources name. The kernel
   * never imports plugins: the root module (`@ph/agent`) and the CLI pass
   * `BUILTINS` from `plugins/builtin.ts`. Without it a builtin source is a
   * configuration error.
   * @default {none}
   */
  readonly builtins?: BuiltinCatalog;
  /**
   * Listen for triggers from other processes of this project on a unix
   * socket under `<dir>/.agent/run/` (mode 0600 in a 0700 directory), so
   * that `agent trigger` reaches the sessions this kernel holds
   * (`kernel/control/control_endpoint.ts`). A socket that cannot be
   * created is reported through `onWarning`. @default {false}
   */
  readonly controlEndpoint?: boolean;
}

export { PLAN_APPROVED_PROMPT } from "../contract/plan_mode.ts";

/** Options of {@linkcode Kernel.session} and {@linkcode Kernel.run}. */
export interface KernelSessionOptions {
  /** The `agent_profile` to run. @default {"default"} */
  readonly profile?: string;
  /** Resume this stored session instead of starting a new one. */
  readonly resumeId?: string;
  /**
   * What an ask nobody answers becomes: `deny`, `fail` (the session ends
   * `failed` with `approval_required`) or `callback` (wait for
   * {@linkcode KernelSessionOptions.approve} up to the ask timeout, then
   * deny). @default {"deny"}
   */
  readonly onAsk?: OnAsk;
  /** Answers approval requests (plan items whose policy says `ask`). */
  readonly approve?: Approver;
  /**
   * Answers interactive calls (`ask_user`): the answer, e.g.
   * `{ answer: "yes" }`, becomes the call's result. Without it, `on_ask`
   * decides (the model is told nobody answered, or the session fails).
   */
  readonly answer?: InteractiveAnswerer;
  /** How long an ask waits for `approve`, in milliseconds. @default {300000} */
  readonly askTimeoutMs?: number;
  /**
   * Start in plan mode: only read-only tools (no resource kinds), and the
   * model told so each round; switch it off with
   * {@linkcode KernelSession.setPlanMode} to carry the plan out.
   * @default {false}
   */
  readonly planMode?: boolean;
  /**
   * With `planMode`, {@linkcode Kernel.run} offers the plan (the final
   * answer of the planning prompt) here: `true` turns plan mode off and the
   * same session carries the plan out; `false` (or no callback) ends it.
   */
  readonly approvePlan?: (plan: string) => Promise<boolean>;
  /** Cancels the running turn (every prompt of the session). */
  readonly signal?: AbortSignal;
  /**
   * A session goal ({@linkcode Kernel.run}, and {@linkcode Kernel.session}
   * for every prompt): the session goes on until the agent declares it done
   * or blocked with `<cp:goal-status>`, within the profile's bounds.
   */
  readonly goal?: string;
  /**
   * {@linkcode Kernel.run} and {@linkcode Kernel.trigger}: after the turn,
   * keep the session open while it watches background commands, each
   * exit waking it (`shell-exit`), and close it once it is idle with none
   * left (or the signal aborts). @default {false}
   */
  readonly keepAlive?: boolean;
  /**
   * A judge: the name of a `kind = "judge"` profile. Each time the worker
   * finishes (with a goal: declares it done), the judge reviews its final
   * answer against the goal (or the prompt) in a child session and answers
   * with `<cp:judge-directive>`: `accept` ends the run, `continue` sends
   * the directive to the worker as its next prompt — within the worker's
   * bounds and the judge's `max_judge_rounds`. With
   * {@linkcode Kernel.run} the outcome's `judge` says how it ended; with
   * {@linkcode Kernel.session} each `send` is judged so, its result's
   * `judge` saying how.
   */
  readonly judge?: string;
  /**
   * Receives every event of the session, `session_started` to
   * `session_ended` ({@linkcode Kernel.session} only: iterate
   * {@linkcode Kernel.run} instead).
   */
  readonly onEvent?: (event: SessionEvent) => void;
}

/** Options of {@linkcode KernelSession.send}. */
export interface KernelSendOptions {
  /** Cancels this prompt's turn; the session stays open. */
  readonly signal?: AbortSignal;
}

/** Stored sessions: list, replay and verify them. */
export interface KernelSessions {
  /**
   * The stored sessions, most recently started first.
   *
   * @param options Filters.
   * @returns The sessions and the files that could not be read.
   */
  list(options?: ListSessionsOptions): Promise<ListSessionsResult>;
  /**
   * Replays a stored session's events without calling any model.
   *
   * @param sessionId The session.
   * @returns The events, `session_started` first.
   */
  replay(sessionId: string): AsyncIterable<SessionEvent>;
  /**
   * Verifies a session's hash chain.
   *
   * @param sessionId The session.
   * @returns `ok`, or the first bad event and why.
   */
  verify(sessionId: string): Promise<VerifyResult>;
  /**
   * Replays a stored session through the Render pipeline: first the
   * producers it names that this kernel does not run (empty when none),
   * then every event rendered by the plugin build that produced it, or by
   * the kernel with the reason in `fallback`.
   *
   * @param sessionId The session.
   * @param options Cancels the replay.
   * @returns The missing-producers report, then the rendered events.
   */
  render(
    sessionId: string,
    options?: { readonly signal?: AbortSignal },
  ): AsyncIterable<ReplayRenderItem>;
}

/** One event of {@linkcode KernelSessions.render}, rendered. */
export interface RenderedReplayEvent {
  /** The event's sequence. */
  readonly sequence: number;
  /** Its id. */
  readonly id: string;
  /** Its kind, e.g. `tool_result`. */
  readonly kind: string;
  /** The plugin build that produced it. */
  readonly producer: Producer;
  /** The `render.v1.RenderTree` to paint, as protobuf JSON. */
  readonly tree: JsonValue;
  /** Why the kernel rendered the raw payload instead of the producer. */
  readonly fallback?: string;
}

/**
 * What {@linkcode KernelSessions.render} yields: the producers the session
 * names that this kernel does not run, first, then each rendered event.
 */
export type ReplayRenderItem =
  | {
    readonly type: "missing_producers";
    readonly missing: readonly Producer[];
  }
  | ({ readonly type: "event" } & RenderedReplayEvent);

/** One open session of a {@linkcode Kernel}. */
export interface KernelSession extends AsyncDisposable {
  /** The session's ULID (give it to `resumeId` to resume). */
  readonly sessionId: string;
  /** Its profile. */
  readonly profile: string;
  /** True when a stored session was resumed. */
  readonly resumed: boolean;
  /** True once the session has ended (closed, or a bound fired). */
  readonly ended: boolean;
  /**
   * Sends a prompt and runs turns until the model is done, a bound fires
   * or the signal cancels the turn. Iterate the result for this prompt's
   * events; await `result` for how it ended.
   *
   * @param prompt The user's text.
   * @param options A signal for this prompt.
   * @returns The events and the result.
   */
  send(prompt: string, options?: KernelSendOptions): SessionRun<PromptResult>;
  /**
   * Answers a pending approval from outside the `approve` callback; the
   * first answer wins.
   *
   * @param planItemId The plan item.
   * @param answer The decision and its scope.
   * @returns True when this answer was the first.
   */
  resolveApproval(
    planItemId: string,
    answer: {
      decision: "allow" | "deny";
      scope: "once" | "session" | "always";
    },
  ): boolean;
  /**
   * Answers a pending interactive call (`ask_user`) from outside the
   * `answer` callback; the first answer wins.
   *
   * @param callId The call (`interactive_requested.callId`).
   * @param response The answer, e.g. `{ answer: "yes" }`.
   * @returns True when this answer was the first.
   */
  resolveInteractive(callId: string, response: JsonObject): boolean;
  /**
   * Runs a direct-invoke slash command (`/name args`) of the profile's
   * `slash_commands`, without a model turn, through the same policy and
   * plan/apply gate as a tool call (and the same hub operation as a
   * frontend's `InvokeSlashCommand`). Queued behind running input. A
   * command whose result names a kernel action (builtin/commands' `/clear`,
   * `/resume ID`) may move this handle to another session: `sessionId`
   * then names it, and the previous session is closed.
   *
   * @param name The command name, without the slash.
   * @param args The raw argument string (JSON, or the one text argument).
   * @returns The command's result payload, or its error.
   * @throws {Error} For an unknown command or bad arguments (the message
   * names them).
   */
  command(name: string, args?: string): Promise<CommandOutcome>;
  /**
   * Resolves when no prompt or wake turn runs: a control-plane wake channel
   * (a background command's exit, a `control_plane` timer, a trigger)
   * starts a turn of its own on an idle session.
   *
   * @returns When the session is idle.
   */
  idle(): Promise<void>;
  /**
   * Cancels the running turn, whether a prompt's (its `result` ends
   * `cancelled`), a slash command's or a wake turn's, like a frontend's
   * `Interrupt`: sub-agents spawned in it are cancelled with it, input
   * queued behind it still runs, and the session stays open for the next
   * prompt. What the turn had streamed is stored, as when a prompt's
   * signal cancels it.
   *
   * @returns Whether a turn was running (nothing running: nothing happens).
   */
  interrupt(): boolean;
  /** Whether plan mode is on. */
  readonly planMode: boolean;
  /**
   * Turns plan mode on or off between prompts; off, the next prompt has
   * every tool of the profile (a plan approved for execution).
   *
   * @param on Plan mode.
   * @throws {TypeError} When the session has ended or a prompt runs.
   */
  setPlanMode(on: boolean): void;
  /**
   * Compacts the history now through the compactor context providers
   * (`builtin/compactor`), whatever the fill; while a prompt runs, at its
   * next model call. A failed pass leaves the history unchanged.
   *
   * @param options Cancels an immediate pass.
   * @returns Whether it compacted, and the history's tokens before and after.
   * @throws {TypeError} When the session has ended.
   */
  compactNow(options?: { signal?: AbortSignal }): Promise<CompactionOutcome>;
  /**
   * Ends the session (idempotent).
   *
   * @param status `cancelled` to end it as cancelled (SIGTERM); by default
   * `cancelled` when the last prompt was cancelled, else `completed`.
   * @returns How it ended.
   */
  close(status?: "completed" | "cancelled"): Promise<SessionOutcome>;
}

/** How a slash command ended: its result payload, or its error. */
export type CommandOutcome =
  | { readonly ok: true; readonly result: JsonObject }
  | { readonly ok: false; readonly error: string };

/** A running kernel: its plan, its plugins, its sessions. */
export interface Kernel extends AsyncDisposable {
  /** The absolute project directory (the sessions' working directory). */
  readonly dir: string;
  /** The compiled configuration. */
  readonly plan: Plan;
  /** The warnings the configuration compiled with. */
  readonly diagnostics: readonly Diagnostic[];
  /** The stored sessions. */
  readonly sessions: KernelSessions;
  /**
   * Opens (or resumes) a session.
   *
   * @param options Profile, resume, approvals, signal.
   * @returns The open session.
   * @throws {ConfigError} When the profile is unknown or its tools or model
   * are not loaded.
   */
  session(options?: KernelSessionOptions): Promise<KernelSession>;
  /**
   * Runs a session for one prompt: `session_started` first (with the
   * session id), `session_ended` last.
   *
   * @param prompt The user's text (optional when resuming a session that
   * ends with a user message).
   * @param options Profile, resume, approvals, signal.
   * @returns The events and the session's result.
   */
  run(
    prompt: string | undefined,
    options?: KernelSessionOptions,
  ): SessionRun<SessionOutcome>;
  /**
   * Injects a turn into a stored session (`external-trigger`, seed 004):
   * resumes it, runs the turn the trigger starts (and what it cascades
   * into), and closes it again — what `agent trigger` runs for CI or cron.
   *
   * @param sessionId The stored session.
   * @param text What the turn is about.
   * @param options The trigger's name; profile (default: the session's),
   * approvals, signal.
   * @returns The events and the session's result.
   */
  trigger(
    sessionId: string,
    text: string,
    options?: KernelTriggerOptions,
  ): SessionRun<SessionOutcome>;
  /**
   * The `control_plane` timers of a stored session that are due at `now`:
   * those whose period has passed since they last fired (read from the
   * session's log) or, never fired, since the session started. Fire them
   * with {@linkcode Kernel.trigger}'s `timers`.
   *
   * @param sessionId The stored session.
   * @param options `now` (epoch ms, default the clock) and the profile
   * (default: the session's own).
   * @returns The due timers; none for a profile without timers.
   */
  dueTimers(
    sessionId: string,
    options?: { readonly now?: number; readonly profile?: string },
  ): Promise<DueTimer[]>;
  /**
   * The direct-invoke slash commands a profile lists (`slash_commands`),
   * by name without the slash: what a frontend completes after `/`.
   *
   * @param profile The profile's name.
   * @returns The names, sorted; none for an unknown profile.
   */
  slashCommandNames(profile: string): string[];
  /**
   * Starts a frontend plugin (`FrontendService`): `name`, else
   * `settings.default_frontend`. It runs with its grant under the OS
   * sandbox and drives sessions through its callback channel (CreateSession,
   * SubmitInput, ResolvePlanDecision, …). When it exits or crashes, the
   * sessions it was attached to go on headless (pending asks settled by
   * `on_ask`); a frontend started again re-attaches with AttachSession.
   *
   * The name `web` selects the first-party web UI (`builtin/webui`) unless a
   * frontend provider of that local name is declared.
   *
   * @param name The frontend provider's local name.
   * @param options Aborting stops the launch; the terminal, config
   * overrides and an implicit first-party frontend
   * ({@linkcode StartFrontendOptions}).
   * @returns The running frontend.
   * @throws {ProviderError} When no frontend is named, the name is not a
   * frontend provider, or it cannot be started or configured.
   */
  startFrontend(
    name?: string,
    options?: StartFrontendOptions,
  ): Promise<RunningFrontend>;
  /** Stops every plugin and closes the session store (idempotent). */
  close(): Promise<void>;
}

/** Options of {@linkcode Kernel.startFrontend}. */
export interface StartFrontendOptions {
  /** Aborting stops the launch. */
  signal?: AbortSignal;
  /**
   * This process runs on a terminal that the frontend may take over: a
   * frontend whose manifest declares `"terminal": true` is started with
   * it as its stdin and stderr. @default {false}
   */
  terminal?: boolean;
  /**
   * Attributes laid over the provider's config (e.g. `profile`,
   * `resume`, the web UI's `port`). @default {none}
   */
  config?: Record<string, string | number | boolean>;
  /**
   * A first-party frontend (`builtin/<name>`) to start under `name` when
   * the plan declares no such provider, granted exactly its manifest's
   * capabilities. @default {none}
   */
  implicitBuiltin?: string;
}

/** What {@linkcode OpenKernelOptions.prestartFrontend} asks to start early. */
export interface PrestartFrontend {
  /** The frontend provider's local name. */
  readonly name: string;
  /** As {@linkcode StartFrontendOptions.terminal}. @default {false} */
  readonly terminal?: boolean;
  /**
   * As {@linkcode StartFrontendOptions.implicitBuiltin}. @default {none}
   */
  readonly implicitBuiltin?: string;
}

/** A frontend plugin {@linkcode Kernel.startFrontend} started. */
export interface RunningFrontend {
  /** Its local name. */
  readonly name: string;
  /**
   * The line its Configure asked to show the operator (the web UI's URL),
   * if any.
   */
  readonly notice: string | undefined;
  /**
   * Resolves when its process ends: its exit code (`null` when a signal
   * ended it) and whether it crashed (a non-zero exit or a signal that
   * `stop` did not cause), and the running sessions it was attached to
   * (they go on headless; a restarted frontend can re-attach).
   */
  readonly exited: Promise<
    {
      code: number | null;
      signal: string | null;
      crashed: boolean;
      sessions: string[];
    }
  >;
  /** Asks it to stop (drain, then kill) and waits for it. */
  stop(): Promise<void>;
  /** Kills it at once (as a crash would). */
  kill(): void;
}

/** Options of {@linkcode Kernel.trigger}. */
export interface KernelTriggerOptions extends KernelSessionOptions {
  /** The trigger's name (its provenance: `ci`, `nightly`). @default {"trigger"} */
  readonly name?: string;
  /**
   * Fire these due `control_plane` timers (`<cp:event-trigger
   * source="timer:NAME">`, see {@linkcode Kernel.dueTimers}) instead of
   * the external trigger; the text is then not used.
   */
  readonly timers?: readonly DueTimer[];
}

/**
 * A provider that could not be started or configured. The CLI maps it to
 * exit code 6.
 */
export class ProviderError extends Error {
  /** The provider's local name. */
  readonly provider: string;

  /**
   * Creates the error.
   *
   * @param provider The provider's local name.
   * @param message What went wrong.
   * @param options The cause.
   */
  constructor(provider: string, message: string, options?: ErrorOptions) {
    super(`Provider "${provider}": ${message}`, options);
    this.name = "ProviderError";
    this.provider = provider;
  }
}
