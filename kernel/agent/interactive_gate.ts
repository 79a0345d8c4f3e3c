/**
 * Interactive tool calls (`ask_user`): kernel.md §6.6.3 and plugins.md
 * §6.2. An interactive call passed the policy precheck and runs alone;
 * its tool streams one `partial_result` holding the prompt (the question
 * and its options), and the kernel surfaces that prompt to whoever can
 * answer: the session's `answer` callback (the CLI prompt, a library
 * caller) or `ResolveInteractive` from a plugin holding a grant on the
 * session. The first answer wins and becomes the call's
 * `ToolResult.payload`; the tool's stream is then closed.
 *
 * Headless never hangs: with nobody to answer, `on_ask` decides — `deny`
 * (the default) tells the model nobody answered, `fail` ends the session
 * with `approval_required`, `callback` waits up to the ask timeout for an
 * external answer, then tells the model.
 *
 * @module
 */
import { getLogger } from "@logtape/logtape";
import type { JsonObject } from "@bufbuild/protobuf";
import { firstAnswer } from "./_first_answer.ts";
import type { SessionEvent } from "./session_events.ts";
import type { OnAsk } from "./session_spec.ts";

const log = getLogger(["ph-agent", "kernel", "agent", "interactive"]);

/** What an answerer is asked. */
export interface InteractiveRequest {
  /** The session. */
  readonly sessionId: string;
  /** The interactive call (answer with this id). */
  readonly callId: string;
  /** The provider's local name. */
  readonly provider: string;
  /** The operation (`ask_user`). */
  readonly tool: string;
  /** The tool's prompt payload, e.g. `{ question, options }`. */
  readonly prompt: JsonObject;
}

/**
 * Answers an interactive call. It may return late or never; the gate's
 * timeout and `on_ask` still apply. `signal` aborts once someone else
 * answered or the turn was cancelled.
 */
export type InteractiveAnswerer = (
  request: InteractiveRequest,
  options: { readonly signal: AbortSignal },
) => Promise<JsonObject>;

/** How an ask ended. */
export type InteractiveOutcome =
  | {
    readonly answered: true;
    readonly response: JsonObject;
    readonly source: "callback" | "external";
  }
  | {
    readonly answered: false;
    /** `on_ask:deny`, `on_ask:timeout` or `on_ask:fail`. */
    readonly decidedBy: string;
  };

/** Options of {@linkcode InteractiveGate}. */
export interface InteractiveGateOptions {
  /** The session's answerer, when it has one. */
  readonly answer?: InteractiveAnswerer;
  /** What an unanswered ask becomes. */
  readonly onAsk: OnAsk;
  /** How long an ask waits. */
  readonly askTimeoutMs: number;
  /** Session events. */
  readonly emit: (event: SessionEvent) => void;
}

/** Waits for the first answer to each interactive call. */
export class InteractiveGate {
  readonly #o: InteractiveGateOptions;
  readonly #pending = new Map<string, (r: JsonObject) => boolean>();
  #headless = new AbortController();

  /**
   * Creates a gate.
   *
   * @param options Answerer, `on_ask`, timeout, events.
   */
  constructor(options: InteractiveGateOptions) {
    this.#o = options;
  }

  /**
   * Headless (kernel.md §2.6: every frontend detached or crashed): pending
   * interactive calls settle at once as `on_ask` says for an ask nobody can
   * answer (`deny` tells the model nobody answered, `fail` ends the
   * session), and so do new ones, until a frontend attaches again. A
   * session's own `answer` callback still answers.
   *
   * @param on True when no frontend is attached.
   */
  setHeadless(on: boolean): void {
    if (on && !this.#headless.signal.aborted) this.#headless.abort();
    if (!on && this.#headless.signal.aborted) {
      this.#headless = new AbortController();
    }
  }

  /**
   * Answers a pending call from outside the answerer (`ResolveInteractive`,
   * a UI); the first answer wins.
   *
   * @param callId The interactive call.
   * @param response The answer.
   * @returns True when this answer was the first.
   */
  resolve(callId: string, response: JsonObject): boolean {
    return this.#pending.get(callId)?.(response) ?? false;
  }

  /**
   * Surfaces the prompt and waits for the first answer, the timeout or
   * cancellation.
   *
   * @param request The call and its prompt.
   * @param signal The turn's signal (cancellation throws).
   * @returns The answer, or why there is none.
   */
  async ask(
    request: InteractiveRequest,
    signal: AbortSignal,
  ): Promise<InteractiveOutcome> {
    const r = await firstAnswer<InteractiveRequest, JsonObject>({
      request,
      answerer: this.#o.answer,
      onAsk: this.#o.onAsk,
      timeoutMs: this.#o.askTimeoutMs,
      signal,
      ...(this.#o.answer ? {} : { abandon: this.#headless.signal }),
      register: (answer) => {
        this.#pending.set(request.callId, answer);
        return () => this.#pending.delete(request.callId);
      },
      onReady: () =>
        this.#o.emit({
          type: "interactive_requested",
          callId: request.callId,
          provider: request.provider,
          tool: request.tool,
          prompt: request.prompt,
        }),
      onAnswererError: (err) =>
        log.warn("The answerer failed for {callId}: {error}", {
          callId: request.callId,
          error: err instanceof Error ? err.message : String(err),
        }),
    });
    const outcome: InteractiveOutcome = r.answered
      ? { answered: true, response: r.answer, source: r.source }
      : {
        answered: false,
        decidedBy: this.#o.onAsk === "fail"
          ? "on_ask:fail"
          : r.timedOut
          ? "on_ask:timeout"
          : "on_ask:deny",
      };
    this.#o.emit({
      type: "interactive_resolved",
      callId: request.callId,
      answered: outcome.answered,
      ...(outcome.answered
        ? { source: outcome.source }
        : { decidedBy: outcome.decidedBy }),
    });
    return outcome;
  }
}
