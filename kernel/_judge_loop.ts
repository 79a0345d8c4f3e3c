/**
 * The worker–judge loop of a judged run (`Kernel.run` with `judge`,
 * `agent run --judge`): each time the worker finishes, a judge reviews its
 * final answer; `accept` ends the loop, `continue` sends the directive to
 * the worker as its next prompt. Bounded by the worker's own bounds (its
 * `max_turns`, `max_cost_usd` — the judge's spend is charged there too —
 * and `max_wall_clock_s`) and by the judge's `max_judge_rounds`.
 *
 * @module
 */
import {
  ConfigError,
  DEFAULT_MAX_JUDGE_ROUNDS,
  type Plan,
} from "../config/mod.ts";
import type { JudgeOutcome } from "./api.ts";
import type { AgentDeps } from "./agent/agent_deps.ts";
import { directivePrompt, JudgeSession } from "./agent/judge.ts";
import type { AgentSession } from "./agent/session.ts";
import type { SessionEvent } from "./agent/session_events.ts";
import type { SessionSpec } from "./agent/session_spec.ts";
import type { SendResult, SessionRun } from "./agent/session_types.ts";
import { EventQueue } from "./agent/_async.ts";

/** A judge profile ready to run. */
export interface JudgeProfile {
  /** Its name. */
  readonly name: string;
  /** Its session spec. */
  readonly spec: SessionSpec;
  /** Its `max_judge_rounds`. */
  readonly maxRounds: number;
}

/**
 * Checks that `name` is a `kind = "judge"` profile of the plan.
 *
 * @param plan The compiled plan.
 * @param name The profile's name.
 * @returns Its `max_judge_rounds`.
 * @throws {ConfigError} When no such profile is declared or it is not a judge.
 */
export function judgeRoundsOf(plan: Plan, name: string): number {
  const profile = plan.profiles.find((p) => p.name === name);
  if (profile?.kind === "judge") {
    return profile.maxJudgeRounds ?? DEFAULT_MAX_JUDGE_ROUNDS;
  }
  const judges = plan.profiles.filter((p) => p.kind === "judge").map((p) =>
    `"${p.name}"`
  );
  throw new ConfigError([{
    severity: "error",
    code: "E_NOT_A_JUDGE",
    summary: profile
      ? `Profile "${name}" is not a judge`
      : `No agent_profile named "${name}" is declared`,
    detail: `${
      profile
        ? `A judge profile sets kind = "judge" in its agent_profile block.`
        : ""
    } Judge profiles of this configuration: ${
      judges.length ? judges.join(", ") : "none"
    }.`.trim(),
  }]);
}

/** What {@linkcode judgeLoop} works on. */
export interface JudgeLoopContext {
  /** The worker's session. */
  readonly worker: AgentSession;
  /** The worker's last prompt result. */
  readonly sent: SendResult;
  /** Sends the worker its next prompt. */
  readonly submit: (text: string) => Promise<SendResult>;
  /** The judge. */
  readonly judge: JudgeProfile;
  /** What the loop runs on. */
  readonly deps: AgentDeps;
  /** The goal (`goal`, else the prompt). */
  readonly goal: string;
  /** Whether the worker runs with a session goal (re-armed per directive). */
  readonly hasGoal: boolean;
  /** The worker's latest `<cp:goal-status>` summary. */
  readonly goalSummary: () => string | undefined;
  /** Adds an event to the run's stream. */
  readonly push: (event: SessionEvent) => void;
  /** Cancels the run. */
  readonly signal?: AbortSignal;
}

/**
 * Runs the loop until the judge accepts, the worker stops (a bound, a
 * failure, cancellation, a goal declared blocked), the judge gives no
 * verdict, or `max_judge_rounds` reviews ran without an accept.
 *
 * @param ctx The worker, the judge and the run.
 * @returns The worker's last prompt result and how the loop ended.
 */
export async function judgeLoop(
  ctx: JudgeLoopContext,
): Promise<{ sent: SendResult; judge: JudgeOutcome }> {
  const { worker, judge } = ctx;
  let sent = ctx.sent;
  let outcome: JudgeOutcome = {
    profile: judge.name,
    rounds: 0,
    verdict: "none",
    directive: "",
  };
  let reviewer: JudgeSession | undefined;
  try {
    for (let round = 1;; round++) {
      if (
        sent.outcome !== "done" || worker.ended ||
        worker.goalState === "blocked"
      ) break;
      const budget = ctx.deps.registry?.get(worker.sessionId)?.budget;
      reviewer ??= await JudgeSession.open(judge.spec, ctx.deps, {
        parentSessionId: worker.sessionId,
        ...(budget ? { parentBudget: budget } : {}),
      });
      const summary = ctx.goalSummary();
      const v = await reviewer.review({
        goal: ctx.goal,
        result: sent.finalText,
        ...(summary ? { goalSummary: summary } : {}),
        round,
        maxRounds: judge.maxRounds,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
      if (ctx.signal?.aborted) {
        // Cancelled during the review: the run ends cancelled, unjudged.
        sent = { ...sent, outcome: "cancelled" };
        break;
      }
      outcome = {
        profile: judge.name,
        rounds: round,
        verdict: v.verdict,
        directive: v.directive,
        sessionId: v.sessionId,
        ...(v.problem ? { problem: v.problem } : {}),
      };
      if (v.tag) {
        // The verdict is part of the worker's record: a `control` event of
        // its log, live in its stream.
        await worker.control?.recordFrom(v.tag, `judge:${v.sessionId}`);
      } else {
        ctx.push({
          type: "warning",
          code: "judge_no_verdict",
          message:
            `The judge "${judge.name}" gave no verdict (session ${v.sessionId}): ${v.problem}`,
        });
      }
      if (v.verdict !== "continue") break;
      if (round >= judge.maxRounds) {
        outcome = { ...outcome, boundFired: true };
        ctx.push({
          type: "warning",
          code: "judge_rounds_exhausted",
          message:
            `The judge "${judge.name}" did not accept after ${round} review${
              round === 1 ? "" : "s"
            } (max_judge_rounds)`,
        });
        break;
      }
      if (ctx.hasGoal) worker.setGoal(ctx.goal);
      sent = await ctx.submit(directivePrompt(v.directive));
    }
  } finally {
    await reviewer?.close();
  }
  return { sent, judge: outcome };
}

/**
 * The judged prompts of one `Kernel.session({ judge })`: each `send` runs
 * the worker, then the judge loop, as one stream of events (the verdicts'
 * `control` events included) with one result.
 */
export class JudgedSends {
  readonly #onEvent: ((event: SessionEvent) => void) | undefined;
  #current: EventQueue<SessionEvent> | undefined;
  /** The worker's latest `<cp:goal-status>` summary. */
  goalSummary: string | undefined;

  /**
   * Creates the sends' state.
   *
   * @param onEvent The session's own event callback.
   */
  constructor(onEvent: ((event: SessionEvent) => void) | undefined) {
    this.#onEvent = onEvent;
  }

  /**
   * The session's event callback: remembers the goal summary and copies a
   * verdict (recorded between prompts) into the running send's stream.
   *
   * @param e An event of the worker's session.
   */
  onEvent(e: SessionEvent): void {
    if (e.type === "control" && e.channel === "goal-status") {
      this.goalSummary = e.body;
    }
    if (e.type === "control" && e.source.startsWith("judge:")) {
      this.#current?.push(e);
    }
    this.#onEvent?.(e);
  }

  /**
   * Sends a prompt, then runs the judge loop on its result.
   *
   * @param o The prompt, how to submit a prompt, the loop, and how a
   * result is shaped.
   * @returns The events of every prompt and the verdicts, and the result.
   */
  send<R>(o: {
    readonly prompt: string;
    readonly submit: (text: string) => SessionRun<SendResult>;
    readonly loop: (
      sent: SendResult,
      submit: (text: string) => Promise<SendResult>,
      push: (event: SessionEvent) => void,
    ) => Promise<{ sent: SendResult; judge: JudgeOutcome }>;
    readonly result: (sent: SendResult) => R;
  }): SessionRun<R & { judge: JudgeOutcome }> {
    const queue = new EventQueue<SessionEvent>();
    const pump = async (run: SessionRun<SendResult>) => {
      for await (const e of run) queue.push(e);
      return await run.result;
    };
    const result = (async () => {
      this.#current = queue;
      try {
        const first = await pump(o.submit(o.prompt));
        const r = await o.loop(
          first,
          (text) => pump(o.submit(text)),
          (e) => queue.push(e),
        );
        queue.close();
        return { ...o.result(r.sent), judge: r.judge };
      } catch (err) {
        queue.close(err);
        throw err;
      } finally {
        if (this.#current === queue) this.#current = undefined;
      }
    })();
    result.catch(() => {});
    return {
      result,
      [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator](),
    };
  }
}
