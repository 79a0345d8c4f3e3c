/**
 * The plan/apply gate (kernel.md §6, steps 9–12): policy prechecks the
 * data-source and interactive calls; the resource calls of a turn become a
 * plan with previews, policy decides each item and the `plan-ready` chain
 * may veto it, and the plan is applied — an ask blocks only its own item.
 * {@linkcode PlanGate} decides; a {@linkcode CallExecutor} (tool dispatch)
 * runs and denies the calls.
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import { getLogger } from "@logtape/logtape";
import { HookPayloadSchema } from "../../proto/gen/pluggableharness/hook/v1/events_pb.ts";
import {
  type ApplyResult_ApplyItem,
  ApplyResult_ApplyItemSchema,
  ApplyResult_ApplyOutcome,
  ApplyResultSchema,
  type Plan,
  PlanDecision,
  PlanSchema,
} from "../../proto/gen/pluggableharness/plan/v1/types_pb.ts";
import { allSettledOrThrow } from "./_async.ts";
import {
  type CallRecord,
  policyCallOf,
  type ToolTurn,
} from "./_call_record.ts";
import type { SessionCore } from "./_session_core.ts";
import type { ApprovalGate } from "./approval_gate.ts";
import { concurrencyKey, type KeyedQueue } from "./concurrency.ts";
import {
  HookChainAbortedError,
  isCancellation,
  TurnCancelledError,
} from "./errors.ts";
import {
  applyEventOf,
  planItemView,
  previewJson,
  riskText,
  toolKindText,
} from "./session_events.ts";
import { endVetoSpan } from "./session_spans.ts";
import { endSpanWithError } from "./tracing.ts";

const log = getLogger(["ph-agent", "kernel", "agent"]);

/** Runs and denies calls for the gate (tool dispatch implements it). */
export interface CallExecutor {
  /** Invokes one call under its deadline and records the outcome. */
  execute(t: ToolTurn, r: CallRecord): Promise<void>;
  /** Records a call as denied by `decidedBy`. */
  deny(t: ToolTurn, r: CallRecord, decidedBy: string): Promise<void>;
}

/**
 * The decided_by text of a hook chain aborted by a failing transform.
 *
 * @param err The aborted chain.
 * @returns `hook-error:<subscriber>`.
 */
export function abortedBy(err: HookChainAbortedError): string {
  return `hook-error:${err.subscriber}`;
}

function decisionEnum(action: "allow" | "ask" | "deny"): PlanDecision {
  return action === "allow"
    ? PlanDecision.ALLOW
    : action === "ask"
    ? PlanDecision.ASK
    : PlanDecision.DENY;
}

/** The plan/apply gate of one session. */
export class PlanGate {
  readonly #core: SessionCore;
  readonly #gate: ApprovalGate;
  readonly #executor: CallExecutor;

  /**
   * Creates the gate.
   *
   * @param core The session.
   * @param gate Policy and approvals.
   * @param executor Runs and denies calls.
   */
  constructor(core: SessionCore, gate: ApprovalGate, executor: CallExecutor) {
    this.#core = core;
    this.#gate = gate;
    this.#executor = executor;
  }

  /**
   * The data-source / interactive precheck: allow or deny (ask → deny,
   * with an `ask_downgraded` warning).
   *
   * @param t The turn.
   * @param r The call.
   * @returns True when the call may run.
   */
  async precheck(t: ToolTurn, r: CallRecord): Promise<boolean> {
    const v = this.#gate.evaluate(policyCallOf(r));
    if (v.downgraded) {
      const message = `Policy ${v.decidedBy} asks for ${r.entry!.provider}.${
        r.entry!.schema.name
      }, a ${
        toolKindText(r.entry!.schema.kind)
      } call that cannot be approved: the ask is downgraded to deny`;
      log.warn("{message}", { message, rule: v.decidedBy });
      this.#core.emit({ type: "warning", code: "ask_downgraded", message });
    }
    if (v.action === "allow") return true;
    await this.#executor.deny(t, r, v.decidedBy);
    return false;
  }

  /**
   * Steps 10–12 for a turn's resource calls: previews, the decided plan
   * (persisted, and the `plan` event), then apply and the `apply` event.
   *
   * @param t The turn.
   * @param resources The resource calls still pending.
   * @param queue The turn's per-key queue.
   * @returns The apply items, in completion order.
   * @throws {TurnCancelledError} When the turn is cancelled.
   */
  async planAndApply(
    t: ToolTurn,
    resources: CallRecord[],
    queue: KeyedQueue,
  ): Promise<ApplyResult_ApplyItem[]> {
    await this.#previews(t, resources);
    if (t.signal.aborted) {
      throw new TurnCancelledError({ cause: t.signal.reason });
    }
    const plan = await this.#decide(t, resources);
    await this.#core.writer.plan(plan);
    this.#core.emit({
      type: "plan",
      turnId: t.turnId,
      items: plan.items.map(planItemView),
    });
    const applied = await this.#apply(t, resources, queue);
    // The apply event, once every item is terminal.
    const result = create(ApplyResultSchema, {
      turnId: t.turnId,
      items: applied,
    });
    await this.#core.writer.apply(result);
    this.#core.emit(applyEventOf(result));
    return applied;
  }

  /** Step 10: the plan, with previews under a deadline (failure = none). */
  async #previews(t: ToolTurn, resources: CallRecord[]): Promise<void> {
    const { spec, deps, sessionId } = this.#core;
    const signal = t.signal;
    await Promise.all(resources.map(async (r) => {
      const endpoint = r.entry!.endpoint;
      if (!endpoint.preview) return;
      const ac = new AbortController();
      const onAbort = () => ac.abort();
      signal.addEventListener("abort", onAbort, { once: true });
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => {
          ac.abort();
          resolve(undefined);
        }, spec.previewTimeoutMs);
      });
      const release = deps.registry?.grant(endpoint.identity, sessionId);
      try {
        const call = endpoint.preview(r.call!, {
          signal: ac.signal,
          timeoutMs: spec.previewTimeoutMs,
        });
        call.catch(() => {});
        const tree = await Promise.race([call, deadline]);
        if (tree) r.planItem!.preview = tree;
      } catch (err) {
        log.debug("No preview for {call}: {error}", {
          call: r.call!.id,
          error: err instanceof Error ? err.message : String(err),
        });
      } finally {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        release?.();
      }
    }));
  }

  /** Step 11: policy per item first, then the plugin veto chain. */
  async #decide(t: ToolTurn, resources: CallRecord[]): Promise<Plan> {
    const { hooks, spans } = this.#core;
    const signal = t.signal;
    const vetoSpan = spans.tracer.startSpan("policy.veto_chain", {
      "plan.items": resources.length,
    }, spans.turn);
    for (const r of resources) {
      const v = this.#gate.evaluate(policyCallOf(r));
      r.planItem!.decision = decisionEnum(v.action);
      r.planItem!.decidedBy = v.decidedBy;
    }
    if (vetoSpan.recording) spans.veto = vetoSpan;
    const plan = create(PlanSchema, {
      turnId: t.turnId,
      items: resources.map((r) => r.planItem!),
    });
    if (hooks.has("plan-ready")) {
      let verdict: { decision: "allow" | "deny"; decidedBy?: string };
      try {
        verdict = await hooks.dispatch(
          "plan-ready",
          create(HookPayloadSchema, {
            payload: { case: "planReady", value: { plan } },
          }),
          signal,
        );
      } catch (err) {
        spans.veto = undefined;
        if (!(err instanceof HookChainAbortedError)) {
          endSpanWithError(vetoSpan, err, isCancellation(err, signal));
          throw err;
        }
        verdict = { decision: "deny", decidedBy: abortedBy(err) };
      }
      if (verdict.decision === "deny") {
        for (const item of plan.items) {
          if (item.decision !== PlanDecision.DENY) {
            item.decision = PlanDecision.DENY;
            item.decidedBy = verdict.decidedBy ?? "hook-veto";
          }
        }
      }
    }
    spans.veto = undefined;
    endVetoSpan(vetoSpan, plan.items);
    return plan;
  }

  /** Step 12: apply; an ask blocks only its own item (and its key). */
  async #apply(
    t: ToolTurn,
    resources: CallRecord[],
    queue: KeyedQueue,
  ): Promise<ApplyResult_ApplyItem[]> {
    const applied: ApplyResult_ApplyItem[] = [];
    const record = (r: CallRecord, outcome: ApplyResult_ApplyOutcome) => {
      const o = r.outcome;
      applied.push(create(ApplyResult_ApplyItemSchema, {
        planItemId: r.planItem!.id,
        callId: r.call!.id,
        outcome,
        ...(outcome === ApplyResult_ApplyOutcome.DENIED || !o
          ? {}
          : "result" in o
          ? { result: { case: "toolResult", value: { payload: o.result } } }
          : { result: { case: "toolError", value: o.error } }),
      }));
    };
    await allSettledOrThrow(resources.map(async (r) => {
      const item = r.planItem!;
      if (item.decision === PlanDecision.DENY) {
        await this.#executor.deny(t, r, item.decidedBy);
        record(r, ApplyResult_ApplyOutcome.DENIED);
        return;
      }
      await queue.run(
        concurrencyKey(r.entry!.schema, {
          provider: r.entry!.provider,
          input: r.call!.arguments ?? {},
        }),
        async () => {
          if (item.decision === PlanDecision.ASK) {
            const preview = previewJson(item.preview);
            const answer = await this.#gate.ask({
              planItemId: item.id,
              callId: item.callId,
              provider: item.provider,
              tool: item.operationName,
              input: item.input ?? {},
              risk: riskText(item.risk, item.kind),
              description: item.description,
              ...(preview !== undefined ? { preview } : {}),
            }, t.signal);
            if (answer.decision === "deny") {
              await this.#executor.deny(t, r, answer.decidedBy);
              record(r, ApplyResult_ApplyOutcome.DENIED);
              return;
            }
            // The operator's corrected arguments replace the model's.
            if (answer.input && r.call) r.call.arguments = answer.input;
          }
          await this.#executor.execute(t, r);
          record(
            r,
            r.outcome && "result" in r.outcome
              ? ApplyResult_ApplyOutcome.APPLIED
              : ApplyResult_ApplyOutcome.FAILED,
          );
        },
      );
    }));
    return applied;
  }
}
