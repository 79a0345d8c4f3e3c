/**
 * A judge (issue 17 part 6): a profile with `kind = "judge"` reviews the
 * result of another session (the worker) against its goal and answers with
 * `<cp:judge-directive verdict="accept|continue">`. A
 * {@linkcode JudgeSession} runs the reviews of one judged run as a child
 * session of the worker — its cost is charged to the worker's budget, it
 * gets no depth (it cannot spawn) — and reads each verdict; the loop that
 * alternates worker and judge is the kernel's (`Kernel.run` with `judge`,
 * `agent run --judge`).
 *
 * @module
 */
import type { CostBudget } from "../../contract/cost.ts";
import { type AgentTag, parseAgentOutput } from "../control/tags.ts";
import type { AgentDeps } from "./agent_deps.ts";
import { AgentSession } from "./session.ts";
import type { SessionSpec } from "./session_spec.ts";
import { capSpawnTools } from "./spawn_tools.ts";

/** What one review decided. */
export interface JudgeVerdict {
  /**
   * `accept` (the goal is met), `continue` (the worker goes on with the
   * directive), or `none` (the judge wrote no well-formed verdict, or its
   * session failed).
   */
  readonly verdict: "accept" | "continue" | "none";
  /** The verdict's body: the directive, or why the result is accepted. */
  readonly directive: string;
  /** The verdict block as the judge wrote it (absent with `none`). */
  readonly tag?: AgentTag;
  /** The judge's session (a child of the worker's). */
  readonly sessionId: string;
  /** Why there is no verdict, with `none`. */
  readonly problem?: string;
}

/** Options of {@linkcode JudgeSession.open}. */
export interface OpenJudgeOptions {
  /** The worker's session: the judge runs as its child. */
  readonly parentSessionId: string;
  /** The worker's budget: the judge's spend is debited there too. */
  readonly parentBudget?: CostBudget;
}

/** One review's inputs ({@linkcode JudgeSession.review}). */
export interface JudgeReview {
  /** What the worker was asked to achieve. */
  readonly goal: string;
  /** The worker's result: its final answer. */
  readonly result: string;
  /** The worker's own `<cp:goal-status>` summary, when it wrote one. */
  readonly goalSummary?: string;
  /** This review's number (1 for the first). */
  readonly round: number;
  /** The most reviews of the run (`max_judge_rounds`). */
  readonly maxRounds: number;
  /** Cancels the review. */
  readonly signal?: AbortSignal;
}

/**
 * The prompt a judge gets: the goal, the worker's result, and how to
 * answer.
 *
 * @example Usage
 * ```ts
 * import { judgePrompt } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 * const text = judgePrompt({ goal: "Fix the bug", result: "Fixed.", round: 1, maxRounds: 3 });
 * assert.match(text, /verdict="accept"/);
 * ```
 *
 * @param o The goal, the result, the worker's summary, the round.
 * @returns The prompt.
 */
export function judgePrompt(
  o: Pick<
    JudgeReview,
    "goal" | "result" | "goalSummary" | "round" | "maxRounds"
  >,
): string {
  return [
    `You are the judge of another agent's work (review ${o.round} of at most ${o.maxRounds}).`,
    `Its goal:\n${o.goal}`,
    `Its final answer:\n${o.result || "(empty)"}`,
    ...(o.goalSummary ? [`Its own summary:\n${o.goalSummary}`] : []),
    "Check the result against the goal (read what you need with your tools). " +
    "Then answer with exactly one verdict block:\n" +
    '<cp:judge-directive verdict="accept">why the goal is met</cp:judge-directive>\n' +
    "or\n" +
    '<cp:judge-directive verdict="continue">what the agent must do next, as an instruction to it</cp:judge-directive>',
  ].join("\n\n");
}

/**
 * The prompt that carries a judge's `continue` directive to the worker.
 *
 * @param directive The judge's directive.
 * @returns The worker's next prompt.
 */
export function directivePrompt(directive: string): string {
  return `A reviewer checked your result and did not accept it yet. Its directive:\n${directive}`;
}

/**
 * The verdict in a judge's answer: the last well-formed
 * `<cp:judge-directive>` block of the text.
 *
 * @example Usage
 * ```ts
 * import { verdictOf } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 * const tag = verdictOf('Looks good.\n<cp:judge-directive verdict="accept">Tests pass.</cp:judge-directive>');
 * assert.equal(tag?.attrs.verdict, "accept");
 * ```
 *
 * @param text The judge's text.
 * @returns The block, or `undefined` when there is none.
 */
export function verdictOf(text: string): AgentTag | undefined {
  return parseAgentOutput(text).tags.findLast((t) =>
    t.channel === "judge-directive"
  );
}

/**
 * The judge of one judged run: a session of the judge profile, a child of
 * the worker (no depth left, its spend charged to the worker's budget),
 * that stays open across the run's reviews — each review is a prompt of
 * the same session, so the judge sees its earlier directives — and is
 * closed at the end. A review's verdict is the last `<cp:judge-directive>`
 * of the judge's final answer.
 */
export class JudgeSession implements AsyncDisposable {
  readonly #session: AgentSession;

  private constructor(session: AgentSession) {
    this.#session = session;
  }

  /**
   * Opens the judge's session.
   *
   * @param spec The judge profile's session spec.
   * @param deps What the loop runs on.
   * @param options The worker's session and budget.
   * @returns The judge.
   * @throws {Error} When the session cannot be opened.
   */
  static async open(
    spec: SessionSpec,
    deps: AgentDeps,
    options: OpenJudgeOptions,
  ): Promise<JudgeSession> {
    const session = await AgentSession.open(capSpawnTools(spec, 0), deps, {
      parentSessionId: options.parentSessionId,
      depth: 1,
      remainingDepth: 0,
      ...(options.parentBudget ? { parentBudget: options.parentBudget } : {}),
    });
    return new JudgeSession(session);
  }

  /** The judge's session id. */
  get sessionId(): string {
    return this.#session.sessionId;
  }

  /**
   * Runs one review: prompts the judge with {@linkcode judgePrompt} and
   * reads its verdict.
   *
   * @param review The goal, the worker's result, the round.
   * @returns The verdict (`none` when the judge wrote none, or its turn
   * did not finish).
   */
  async review(review: JudgeReview): Promise<JudgeVerdict> {
    const base = { sessionId: this.sessionId };
    if (this.#session.ended) {
      return {
        ...base,
        verdict: "none",
        directive: "",
        problem: "the judge's session has ended (a bound of its profile)",
      };
    }
    const sent = await this.#session.send(judgePrompt(review), {
      ...(review.signal ? { signal: review.signal } : {}),
      events: false,
    }).result;
    const tag = sent.outcome === "done" ? verdictOf(sent.finalText) : undefined;
    if (!tag) {
      return {
        ...base,
        verdict: "none",
        directive: "",
        problem: sent.outcome === "done"
          ? `the judge's answer holds no well-formed <cp:judge-directive verdict="accept|continue"> block`
          : `the judge's turn ended ${sent.outcome}${
            sent.error ? `: ${sent.error.message}` : ""
          }`,
      };
    }
    return {
      ...base,
      verdict: tag.attrs.verdict as "accept" | "continue",
      directive: tag.body,
      tag,
    };
  }

  /**
   * Closes the judge's session.
   *
   * @returns When it is closed.
   */
  async close(): Promise<void> {
    await this.#session.close();
  }

  /** Closes the judge's session. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
