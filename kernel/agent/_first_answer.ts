/**
 * The waiting both gates share (approvals and interactive calls): the
 * first answer wins — from the session's answerer callback or from outside
 * (`resolve`, a frontend RPC) — and `on_ask` with its timeout decides what
 * an unanswered ask becomes, so a headless run never hangs.
 *
 * @module
 */
import { TurnCancelledError } from "./errors.ts";
import type { OnAsk } from "./session_spec.ts";

/** Options of {@linkcode firstAnswer}. */
export interface FirstAnswerOptions<Q, A> {
  /** What the answerer is asked. */
  readonly request: Q;
  /** The session's answerer, when it has one. */
  readonly answerer?:
    | ((request: Q, options: { readonly signal: AbortSignal }) => Promise<A>)
    | undefined;
  /** What an unanswered ask becomes. */
  readonly onAsk: OnAsk;
  /** How long the ask waits when it can. */
  readonly timeoutMs: number;
  /** The turn's signal (cancellation throws). */
  readonly signal: AbortSignal;
  /**
   * Makes the ask answerable from outside until it settles; returns how to
   * withdraw that. The function it receives is true for the first answer.
   */
  readonly register: (answer: (a: A) => boolean) => () => void;
  /** Called once the ask is answerable (emit the "requested" event). */
  readonly onReady: () => void;
  /** The answerer threw or rejected (the ask then counts as unanswered). */
  readonly onAnswererError: (err: unknown) => void;
  /**
   * Aborted when nobody is left to answer (the last frontend went away):
   * the ask then settles unanswered at once, as if it could not wait.
   */
  readonly abandon?: AbortSignal | undefined;
}

/** How an ask ended (cancellation throws instead). */
export type FirstAnswer<A> =
  | {
    readonly answered: true;
    readonly answer: A;
    readonly source: "callback" | "external";
  }
  | {
    readonly answered: false;
    /** Someone could have answered (an answerer, or `on_ask = callback`). */
    readonly couldWait: boolean;
    /** The timeout ended the wait. */
    readonly timedOut: boolean;
  };

/**
 * Waits for the first answer to one ask.
 *
 * @param o The request, the answerer, `on_ask` and its timeout, the signal.
 * @returns The answer, or that there is none.
 * @throws {TurnCancelledError} When the signal aborts first.
 */
export async function firstAnswer<Q, A>(
  o: FirstAnswerOptions<Q, A>,
): Promise<FirstAnswer<A>> {
  if (o.signal.aborted) {
    throw new TurnCancelledError({ cause: o.signal.reason });
  }
  const settled = Promise.withResolvers<FirstAnswer<A> | "cancel">();
  let done = false;
  const settle = (outcome: FirstAnswer<A> | "cancel"): boolean => {
    if (done) return false;
    done = true;
    settled.resolve(outcome);
    return true;
  };
  const couldWait = !o.abandon?.aborted &&
    (o.answerer !== undefined || o.onAsk === "callback");
  const unanswered = (timedOut: boolean) =>
    settle({ answered: false, couldWait, timedOut });
  const unregister = o.register((answer) =>
    settle({ answered: true, answer, source: "external" })
  );
  o.onReady();
  const answerers = new AbortController();
  const onAbort = () => settle("cancel");
  o.signal.addEventListener("abort", onAbort, { once: true });
  const onAbandon = () =>
    settle({ answered: false, couldWait: false, timedOut: false });
  o.abandon?.addEventListener("abort", onAbandon, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  if (!couldWait) {
    unanswered(false);
  } else {
    const answerer = o.answerer;
    if (answerer) {
      Promise.resolve().then(() =>
        answerer(o.request, { signal: answerers.signal })
      ).then(
        (answer) => settle({ answered: true, answer, source: "callback" }),
        (err) => {
          o.onAnswererError(err);
          unanswered(false);
        },
      );
    }
    if (Number.isFinite(o.timeoutMs)) {
      timer = setTimeout(() => unanswered(true), o.timeoutMs);
    }
  }
  let outcome: FirstAnswer<A> | "cancel";
  try {
    outcome = await settled.promise;
  } finally {
    clearTimeout(timer);
    o.signal.removeEventListener("abort", onAbort);
    o.abandon?.removeEventListener("abort", onAbandon);
    unregister();
    answerers.abort();
  }
  if (outcome === "cancel") {
    throw new TurnCancelledError({ cause: o.signal.reason });
  }
  return outcome;
}
