/**
 * The kernel's spans of one session ({@linkcode SessionSpans}): `session`,
 * then per turn `turn`, `model.call`, `policy.veto_chain` and one
 * `tool.execute` per call, with the attributes the trace is read by; and
 * the `traceparent` header a plugin call carries ({@linkcode traceHeaders}).
 * The tracer itself lives in `tracing.ts`.
 *
 * @module
 */
import {
  PlanDecision,
  type PlanItem,
} from "../../proto/gen/pluggableharness/plan/v1/types_pb.ts";
import { SessionStatus } from "../../proto/gen/pluggableharness/session/v1/types_pb.ts";
import { ToolErrorCategory } from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import { SESSION_STATUS_TEXT } from "../state/session_store.ts";
import type { CallRecord } from "./_call_record.ts";
import type { ErrorInfo } from "./errors.ts";
import type { StoredOutcome } from "./history.ts";
import { type ModelResponse, stopReasonText } from "./model_call.ts";
import { type BoundName, toolKindText } from "./session_events.ts";
import type { KernelSpan, KernelTracer, SpanAttributes } from "./tracing.ts";

/** How a session ended, as its `session` span records it. */
export interface SessionSpanEnd {
  /** Turns run by this process. */
  readonly turns: number;
  /** Dollars spent. */
  readonly costUsd: number;
  /** The bound that fired. */
  readonly bound: BoundName | undefined;
  /** The error that ended the session. */
  readonly error: ErrorInfo | undefined;
}

/** The open spans of one session: the session, its turn and veto chain. */
export class SessionSpans {
  /** The kernel's tracer. */
  readonly tracer: KernelTracer;
  /** The `session` span. */
  readonly session: KernelSpan;
  /** The running turn's span (tracing enabled only). */
  turn: KernelSpan | undefined;
  /** The running `policy.veto_chain` span (recording only). */
  veto: KernelSpan | undefined;

  /**
   * Starts the `session` span.
   *
   * @param tracer The kernel's tracer.
   * @param attributes The session's attributes.
   * @param parent The span it nests under (a sub-agent's spawning call).
   */
  constructor(
    tracer: KernelTracer,
    attributes: SpanAttributes,
    parent: KernelSpan | undefined,
  ) {
    this.tracer = tracer;
    this.session = tracer.startSpan("session", attributes, parent);
  }

  /** The span a hook call nests under: the veto chain, turn or session. */
  hookParent(): KernelSpan {
    return this.veto ?? this.turn ?? this.session;
  }

  /**
   * Ends the `session` span with the terminal status.
   *
   * @param status The terminal status.
   * @param end Turns, spend, bound and error.
   */
  endSession(status: SessionStatus, end: SessionSpanEnd): void {
    const span = this.session;
    if (!span.recording) return;
    span.setAttributes({
      "session.status": SESSION_STATUS_TEXT[status],
      "session.turns": end.turns,
      "session.cost_usd": end.costUsd,
      "session.bound": end.bound,
      "error.type": end.error?.code,
    });
    if (status === SessionStatus.FAILED) {
      span.end({ code: "error", message: end.error?.message ?? "failed" });
    } else if (status === SessionStatus.CANCELLED) {
      span.setAttribute("cancelled", true);
      span.end();
    } else span.end({ code: "ok" });
  }

  /**
   * Starts the `tool.execute` span of a call (under the turn).
   *
   * @param r The call.
   * @returns The span.
   */
  startTool(r: CallRecord): KernelSpan {
    const s = r.entry!.schema;
    return this.tracer.startSpan("tool.execute", {
      "tool.provider": r.entry!.provider,
      "tool.name": s.name,
      "tool.kind": toolKindText(s.kind),
      "tool.call_id": r.toolUse.id,
      "tool.plan_item_id": r.planItem?.id,
    }, this.turn);
  }

  /**
   * Ends a call's `tool.execute` span with its outcome; a call that never
   * ran (denied, invalid arguments) gets an instantaneous one, so the turn
   * stays reconstructible from its trace.
   *
   * @param r The call.
   * @param outcome Its outcome.
   * @param deniedBy Who denied it.
   */
  endTool(
    r: CallRecord,
    outcome: StoredOutcome,
    deniedBy: string | undefined,
  ): void {
    if (!this.tracer.enabled) return;
    const span = r.span ?? this.startTool(r);
    r.span = span;
    if ("result" in outcome) {
      span.setAttribute("tool.outcome", "ok");
      span.end({ code: "ok" });
      return;
    }
    const category = ToolErrorCategory[outcome.error.category]?.toLowerCase();
    span.setAttributes({
      "tool.outcome": deniedBy !== undefined ? "denied" : "error",
      "tool.error_category": category,
      "tool.denied_by": deniedBy,
    });
    // A denial is a decision, not a failure of the call.
    if (deniedBy !== undefined) span.end();
    else span.end({ code: "error", message: outcome.error.message });
  }
}

/**
 * Ends a `model.call` span with the response's model, usage and stop
 * reason.
 *
 * @param span The span.
 * @param r The response.
 */
export function endModelSpan(span: KernelSpan, r: ModelResponse): void {
  if (!span.recording) return;
  span.setAttributes({
    "model.response.provider": r.model.provider,
    "model.response.id": r.model.id,
    "model.stop_reason": stopReasonText(r.stopReason),
    "usage.input_tokens": Number(r.usage.inputTokens),
    "usage.output_tokens": Number(r.usage.outputTokens),
    "usage.cache_read_tokens": Number(r.usage.cacheReadTokens ?? 0n),
    "usage.cache_write_tokens": Number(r.usage.cacheWriteTokens ?? 0n),
    "cost_usd": r.costUsd,
  });
  span.end({ code: "ok" });
}

/**
 * Ends the step-11 span with the per-item decisions after policy and
 * hooks.
 *
 * @param span The span.
 * @param items The decided plan items.
 */
export function endVetoSpan(
  span: KernelSpan,
  items: readonly PlanItem[],
): void {
  if (!span.recording) return;
  const count = (d: PlanDecision) =>
    items.filter((i) => i.decision === d).length;
  span.setAttributes({
    "plan.allow": count(PlanDecision.ALLOW),
    "plan.ask": count(PlanDecision.ASK),
    "plan.deny": count(PlanDecision.DENY),
  });
  span.end({ code: "ok" });
}

/**
 * The W3C Trace Context header of a span, for the plugin a call goes to
 * (kernel.md: trace context crosses the plugin boundary as `traceparent`).
 *
 * @param span The span, if any.
 * @returns The headers option, empty without a recording span.
 */
export function traceHeaders(
  span: KernelSpan | undefined,
): { headers?: Readonly<Record<string, string>> } {
  const tp = span?.traceparent;
  return tp ? { headers: { traceparent: tp } } : {};
}
