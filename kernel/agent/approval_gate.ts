/**
 * Policy decisions and approvals of one session (kernel.md §6.6.2–§6.6.4):
 * per-call policy evaluation with the session's remembered verdicts as
 * inputs, and blocking asks answered by the first of several answerers.
 *
 * - Policy: `evaluatePolicy` over the operator's rules (and ALWAYS rules
 *   added this session). For a resource call that policy did not deny, a
 *   SESSION verdict for the same `(provider, tool)` replaces the outcome
 *   (`session:<provider>.<tool>`), so a SESSION deny also suppresses later
 *   allows, and a SESSION allow never overrides a policy deny.
 * - Asks run one at a time in plan-item order. The first answer wins among
 *   the `approve` callback, {@linkcode ApprovalGate.resolve} (other
 *   frontends) and the timeout; later answers are ignored.
 * - Unanswered asks become what `on_ask` says: `deny` (at once when nobody
 *   can answer, else after `askTimeoutMs`), `fail`
 *   ({@linkcode ApprovalRequiredError}), or `callback` (wait for the
 *   callback up to `askTimeoutMs`, then deny).
 * - Scope ONCE records nothing; SESSION remembers the verdict in memory
 *   (it lapses at session end and on resume); ALWAYS writes a policy rule
 *   through `persistAlwaysRule` and applies it from the next evaluation. A
 *   gate without a persister refuses ALWAYS with
 *   {@linkcode AlwaysScopeUnsupportedError} — never downgrading it — and
 *   the ask is then treated as unanswered.
 *
 * @module
 */
import { getLogger } from "@logtape/logtape";
import type { JsonObject } from "@bufbuild/protobuf";
import {
  commandArgument,
  evaluatePolicy,
  type PolicyCall,
  type PolicyRule,
} from "../../contract/policy.ts";
import { parseShellCommand } from "../../contract/shell_command.ts";
import { firstAnswer } from "./_first_answer.ts";
import {
  AgentError,
  AlwaysScopeUnsupportedError,
  ApprovalRequiredError,
  TurnCancelledError,
} from "./errors.ts";
import type {
  ApprovalAnswer,
  ApprovalRequest,
  ApprovalSource,
  SessionEvent,
} from "./session_events.ts";
import type { OnAsk } from "./session_spec.ts";

const log = getLogger(["ph-agent", "kernel", "agent", "approvals"]);

/**
 * Answers approval requests (an interactive prompt, a UI, automation). It
 * may return late or never; the gate's timeout and `on_ask` still apply.
 * `signal` aborts once the ask is resolved by someone else or cancelled.
 */
export type Approver = (
  request: ApprovalRequest,
  options: { readonly signal: AbortSignal },
) => Promise<ApprovalAnswer>;

/**
 * Writes an ALWAYS decision as a policy rule for future sessions under the
 * same profile (e.g. into a project policy file).
 */
export type PersistAlwaysRule = (
  rule: PolicyRule,
  context: { readonly profile: string; readonly sessionId: string },
) => Promise<void>;

/** A policy outcome with the kernel's `decided_by` text. */
export interface PolicyVerdict {
  /** What happens to the call. */
  readonly action: "allow" | "ask" | "deny";
  /** `policy:<rule>`, `policy:default` or `session:<provider>.<tool>`. */
  readonly decidedBy: string;
  /** True when a winning `ask` was downgraded to `deny` (non-resource call). */
  readonly downgraded: boolean;
  /** For a call with a command: the normalized text of the deciding segment. */
  readonly segment?: string;
}

/** Options of {@linkcode ApprovalGate}. */
export interface ApprovalGateOptions {
  /** The session. */
  readonly sessionId: string;
  /** The profile (for persisted ALWAYS rules). */
  readonly profile: string;
  /** The operator's policy rules, in declaration order. */
  readonly rules: readonly PolicyRule[];
  /** What an unanswered ask becomes. */
  readonly onAsk: OnAsk;
  /** How long an ask waits when someone can answer. */
  readonly askTimeoutMs: number;
  /** The interactive answerer, if any. */
  readonly approve?: Approver;
  /** The ALWAYS persister; without one ALWAYS is refused. */
  readonly persistAlwaysRule?: PersistAlwaysRule;
  /** Where `approval_requested` / `approval_resolved` events go. */
  readonly emit: (event: SessionEvent) => void;
}

/** The item an ask is about (the request minus what the gate adds). */
export type AskInput = Omit<ApprovalRequest, "sessionId" | "scopes">;

/** The outcome of an ask. */
export interface AskOutcome {
  /** The verdict. */
  readonly decision: "allow" | "deny";
  /** `approval:<source>` or `on_ask:<deny|timeout>`. */
  readonly decidedBy: string;
  /** Corrected arguments the operator allowed the call with. */
  readonly input?: JsonObject;
}

/**
 * What a SESSION verdict is remembered for: the operation, and for a call
 * with a shell command its exact command line (approving `git status`
 * for the session must not approve `curl … | bash`).
 */
function ruleKey(provider: string, tool: string, command?: string): string {
  return command === undefined
    ? `${provider}\u0000${tool}`
    : `${provider}\u0000${tool}\u0000${command}`;
}

/** A command pattern matching exactly `text` (glob characters escaped). */
function exactPattern(text: string): string {
  return text.replace(/[\\*?]/g, (c) => `\\${c}`);
}

/** Policy and approvals of one session. */
export class ApprovalGate {
  readonly #o: ApprovalGateOptions;
  readonly #sessionRules = new Map<string, "allow" | "deny">();
  readonly #alwaysRules: PolicyRule[] = [];
  readonly #pending = new Map<string, (answer: ApprovalAnswer) => boolean>();
  #queue: Promise<unknown> = Promise.resolve();
  #headless = new AbortController();

  /**
   * Creates the gate.
   *
   * @param options Rules, on_ask, answerers and the event sink.
   */
  constructor(options: ApprovalGateOptions) {
    this.#o = options;
  }

  /**
   * Headless (kernel.md §2.6: every frontend detached or crashed): pending
   * asks settle at once as `on_ask` says for an ask nobody can answer
   * (`deny`, or `fail`), and so do new ones, until a frontend attaches
   * again. A session's own `approve` callback still answers.
   *
   * @param on True when no frontend is attached.
   */
  setHeadless(on: boolean): void {
    if (on && !this.#headless.signal.aborted) this.#headless.abort();
    if (!on && this.#headless.signal.aborted) {
      this.#headless = new AbortController();
    }
  }

  /** The ALWAYS rules added during this session. */
  get alwaysRules(): readonly PolicyRule[] {
    return this.#alwaysRules;
  }

  /** The scopes this gate accepts. */
  get scopes(): readonly ApprovalAnswer["scope"][] {
    return this.#o.persistAlwaysRule
      ? ["once", "session", "always"]
      : ["once", "session"];
  }

  /**
   * Evaluates policy for one call or plan item.
   *
   * @param call Kind, provider, tool and risk.
   * @returns The verdict.
   */
  evaluate(call: PolicyCall): PolicyVerdict {
    const d = evaluatePolicy([...this.#alwaysRules, ...this.#o.rules], call);
    if (call.kind === "resource" && d.action !== "deny") {
      const remembered = this.#sessionRules.get(
        ruleKey(call.provider, call.toolName, call.command),
      );
      if (remembered) {
        return {
          action: remembered,
          decidedBy: `session:${call.provider}.${call.toolName}`,
          downgraded: false,
        };
      }
    }
    return {
      action: d.action,
      decidedBy: `policy:${d.decidedBy || "default"}`,
      downgraded: d.downgraded,
      ...(d.segment !== undefined ? { segment: d.segment } : {}),
    };
  }

  /**
   * Answers a pending ask from outside (another frontend). The first answer
   * wins.
   *
   * @param planItemId The plan item.
   * @param answer The answer.
   * @returns True when this answer was the first for a pending ask.
   */
  resolve(planItemId: string, answer: ApprovalAnswer): boolean {
    return this.#pending.get(planItemId)?.(answer) ?? false;
  }

  /**
   * Asks for one item and waits for the verdict. Asks are serialized.
   *
   * @param input The item.
   * @param signal The turn's signal.
   * @returns The verdict.
   * @throws {ApprovalRequiredError} When unanswered and `on_ask` is `fail`.
   * @throws {TurnCancelledError} When the signal aborted.
   */
  ask(input: AskInput, signal: AbortSignal): Promise<AskOutcome> {
    const run = this.#queue.then(() => this.#ask(input, signal));
    this.#queue = run.catch(() => {});
    return run;
  }

  async #ask(input: AskInput, signal: AbortSignal): Promise<AskOutcome> {
    if (signal.aborted) throw new TurnCancelledError({ cause: signal.reason });
    const request: ApprovalRequest = {
      ...input,
      sessionId: this.#o.sessionId,
      scopes: this.scopes,
    };
    const outcome = await firstAnswer<ApprovalRequest, ApprovalAnswer>({
      request,
      answerer: this.#o.approve,
      onAsk: this.#o.onAsk,
      timeoutMs: this.#o.askTimeoutMs,
      signal,
      ...(this.#o.approve ? {} : { abandon: this.#headless.signal }),
      register: (answer) => {
        this.#pending.set(input.planItemId, answer);
        return () => this.#pending.delete(input.planItemId);
      },
      // Emitted once the ask can be answered (an answer from inside the
      // listener counts).
      onReady: () => this.#o.emit({ type: "approval_requested", ...request }),
      onAnswererError: (err) =>
        log.warn("The approver failed for {planItemId}: {error}", {
          planItemId: input.planItemId,
          error: err instanceof Error ? err.message : String(err),
        }),
    });
    let answer = outcome.answered ? outcome.answer : undefined;
    let refused: AgentError | undefined;
    if (answer !== undefined) {
      refused = await this.#accept(input, answer);
      if (refused) answer = undefined;
    }
    if (answer === undefined) {
      // Unanswered although someone could have answered: it timed out.
      const timedOut = !outcome.answered && outcome.couldWait;
      const decidedBy = this.#o.onAsk === "fail"
        ? "on_ask:fail"
        : timedOut && !refused
        ? "on_ask:timeout"
        : "on_ask:deny";
      this.#o.emit({
        type: "approval_resolved",
        planItemId: input.planItemId,
        decision: "deny",
        scope: "once",
        source: "on_ask",
        decidedBy,
        ...(refused
          ? { refused: { code: refused.code, message: refused.message } }
          : {}),
      });
      if (this.#o.onAsk === "fail") {
        throw new ApprovalRequiredError(
          input.planItemId,
          `${input.provider}.${input.tool}`,
        );
      }
      return { decision: "deny", decidedBy };
    }
    const source: ApprovalSource = outcome.answered ? outcome.source : "on_ask";
    const decidedBy = `approval:${source}`;
    this.#o.emit({
      type: "approval_resolved",
      planItemId: input.planItemId,
      decision: answer.decision,
      scope: answer.scope,
      source,
      decidedBy,
    });
    return {
      decision: answer.decision,
      decidedBy,
      ...(answer.decision === "allow" && answer.input
        ? { input: answer.input }
        : {}),
    };
  }

  /** Validates an answer and records its scope; returns why it was refused. */
  async #accept(
    input: AskInput,
    answer: ApprovalAnswer,
  ): Promise<AgentError | undefined> {
    if (answer.decision !== "allow" && answer.decision !== "deny") {
      return new AgentError(
        "approval_required",
        `Cannot accept the answer for plan item "${input.planItemId}": decision must be "allow" or "deny"`,
      );
    }
    switch (answer.scope) {
      case "once":
        return undefined;
      case "session":
        this.#sessionRules.set(
          ruleKey(input.provider, input.tool, commandArgument(input.input)),
          answer.decision,
        );
        return undefined;
      case "always": {
        const persist = this.#o.persistAlwaysRule;
        if (!persist) return new AlwaysScopeUnsupportedError(input.planItemId);
        const rules = alwaysRulesOf(input, answer.decision);
        if (!rules) return new AlwaysScopeUnsupportedError(input.planItemId);
        for (const rule of rules) {
          try {
            await persist(rule, {
              profile: this.#o.profile,
              sessionId: this.#o.sessionId,
            });
          } catch (err) {
            const e = new AlwaysScopeUnsupportedError(input.planItemId);
            log.error("Cannot persist the ALWAYS rule {rule}: {error}", {
              rule: rule.name,
              error: err instanceof Error ? err.message : String(err),
            });
            return e;
          }
          const i = this.#alwaysRules.findIndex((r) => r.name === rule.name);
          if (i >= 0) this.#alwaysRules.splice(i, 1);
          this.#alwaysRules.unshift(rule);
        }
        return undefined;
      }
      default:
        return new AgentError(
          "approval_required",
          `Cannot accept the answer for plan item "${input.planItemId}": scope must be "once", "session" or "always"`,
        );
    }
  }
}

/**
 * The rules an ALWAYS answer becomes: for a plain call, one rule on the
 * operation; for a call with a shell command, one rule per segment that
 * matches exactly that segment (so the answer never covers other
 * commands); `undefined` for a command that cannot be parsed (ALWAYS is
 * then refused).
 */
function alwaysRulesOf(
  input: AskInput,
  action: "allow" | "deny",
): PolicyRule[] | undefined {
  const base = `always:${input.provider}.${input.tool}`;
  const command = commandArgument(input.input);
  if (command === undefined) {
    return [{
      name: base,
      match: { provider: input.provider, toolName: input.tool },
      action,
    }];
  }
  const parsed = parseShellCommand(command);
  if (!parsed.ok || parsed.segments.length === 0) return undefined;
  return [...new Set(parsed.segments.map((s) => s.text))].map((text) => ({
    name: `${base}:${slug(text)}`,
    match: {
      provider: input.provider,
      toolName: input.tool,
      command: exactPattern(text),
    },
    action,
  }));
}

function slug(text: string): string {
  const s = text.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(
    /^_+|_+$/g,
    "",
  ).slice(0, 40);
  let h = 0;
  for (const c of text) h = (h * 31 + c.codePointAt(0)!) >>> 0;
  return `${s || "cmd"}_${h.toString(36)}`;
}
