/**
 * Hook dispatch (kernel.md §6.5): one pass over a point's subscribers in
 * declaration order, all modes interleaved, each seeing the payload as
 * transformed so far; every invocation under its own deadline.
 *
 * - observe: any failure (error, timeout, invalid response) is logged and
 *   reported as a `hook_error`; the payload and the chain are untouched.
 * - transform: the response must be the same payload variant with only
 *   documented-mutable fields changed (`pre-model-call.messages`); any
 *   failure reports a `hook_error` and aborts the chain with
 *   {@linkcode HookChainAbortedError} — never a silent fallback.
 * - veto: ALLOW continues; DENY short-circuits; any failure (error,
 *   timeout, invalid response, UNSPECIFIED) reports a `hook_error` and
 *   fails closed to DENY.
 *
 * The parent signal is checked before a failure is classified: a turn
 * being cancelled abandons the chain with {@linkcode TurnCancelledError},
 * persists nothing and yields no verdict. Subscribers run strictly one at
 * a time (concurrent observe runs, a MAY, are not offered).
 *
 * @module
 */
import { create, equals } from "@bufbuild/protobuf";
import { getLogger } from "@logtape/logtape";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import { HookPoint } from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import {
  type HookError,
  HookErrorCategory,
  HookErrorSchema,
} from "../../proto/gen/pluggableharness/hook/v1/errors_pb.ts";
import {
  type HookPayload,
  HookPayloadSchema,
} from "../../proto/gen/pluggableharness/hook/v1/events_pb.ts";
import { DispatchHookRequestSchema } from "../../proto/gen/pluggableharness/hook/v1/rpc_request_pb.ts";
import type { DispatchHookResponse } from "../../proto/gen/pluggableharness/hook/v1/rpc_response_pb.ts";
import {
  HookDecision,
  HookMode,
} from "../../proto/gen/pluggableharness/hook/v1/types_pb.ts";
import { ModelRefSchema } from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import { PluginCrashedError } from "../plugin/errors.ts";
import type { PluginIdentity } from "../../contract/plugin_identity.ts";
import { producerRefOfIdentity } from "./_proto.ts";
import {
  type HookEndpoint,
  PROVIDER_HEADER,
  SESSION_HEADER,
} from "./endpoints.ts";
import { HookChainAbortedError, TurnCancelledError } from "./errors.ts";
import type {
  HookModeName,
  HookPointName,
  HookSubscription,
} from "./session_spec.ts";
import {
  endSpanWithError,
  hookSpanName,
  type KernelSpan,
  type KernelTracer,
} from "./tracing.ts";

const log = getLogger(["ph-agent", "kernel", "agent", "hooks"]);

/** The payload oneof case of each point. */
export const HOOK_PAYLOAD_CASE: Readonly<
  Record<HookPointName, NonNullable<HookPayload["payload"]["case"]>>
> = {
  "session-start": "sessionStart",
  "pre-model-call": "preModelCall",
  "post-model-response": "postModelResponse",
  "pre-tool-call": "preToolCall",
  "plan-ready": "planReady",
  "post-tool-call": "postToolCall",
  "post-apply": "postApply",
  "session-end": "sessionEnd",
};

/** The wire enum of each point (used in `HookError`). */
export const HOOK_POINT_ENUM: Readonly<Record<HookPointName, HookPoint>> = {
  "session-start": HookPoint.SESSION_START,
  "pre-model-call": HookPoint.PRE_MODEL_CALL,
  "post-model-response": HookPoint.POST_MODEL_RESPONSE,
  "pre-tool-call": HookPoint.PRE_TOOL_CALL,
  "plan-ready": HookPoint.PLAN_READY,
  "post-tool-call": HookPoint.POST_TOOL_CALL,
  "post-apply": HookPoint.POST_APPLY,
  "session-end": HookPoint.SESSION_END,
};

const MODE_ENUM: Readonly<Record<HookModeName, HookMode>> = {
  observe: HookMode.OBSERVE,
  transform: HookMode.TRANSFORM,
  veto: HookMode.VETO,
};

/** A failed subscriber, as reported to {@linkcode HookDispatcherOptions.onHookError}. */
export interface HookFailure {
  /** The `hook.v1.HookError` to persist as a `hook_error` event. */
  readonly error: HookError;
  /** The subscription that failed. */
  readonly subscription: HookSubscription;
  /** The failing subscriber's build (the event's producer). */
  readonly identity: PluginIdentity;
}

/** Options of {@linkcode HookDispatcher}. */
export interface HookDispatcherOptions {
  /** Every subscription of the session, in declaration order. */
  readonly subscriptions: readonly HookSubscription[];
  /** Hook endpoints by provider local name. */
  readonly endpoints: ReadonlyMap<string, HookEndpoint>;
  /** Timeout of a subscriber without its own. */
  readonly defaultTimeoutMs: number;
  /**
   * Reports a failure (persist a `hook_error`, tell the frontend). Awaited
   * in declaration order; its own errors are logged and dropped.
   */
  readonly onHookError?: (failure: HookFailure) => Promise<void> | void;
  /** The session (sent as `ph-session-id`: hook payloads carry none). */
  readonly sessionId?: string;
  /** Takes a session grant for the subscriber during one invocation. */
  readonly grant?: (identity: PluginIdentity) => () => void;
  /**
   * Traces each dispatch (`hook.<point>`, a `hook.subscriber` child per
   * invocation). @default {no spans}
   */
  readonly tracer?: KernelTracer;
  /** The parent of a dispatch's span (the current turn or session). */
  readonly parentSpan?: () => KernelSpan | undefined;
}

/** What one dispatch decided. */
export interface DispatchOutcome {
  /** The payload after every transform. */
  readonly payload: HookPayload;
  /** `deny` when a veto denied or failed closed. */
  readonly decision: "allow" | "deny";
  /** `hook-veto:<provider>` when denied. */
  readonly decidedBy?: string;
}

type Attempt =
  | { ok: true; response: DispatchHookResponse }
  | { ok: false; category: HookErrorCategory; message: string };

/** Ends a `hook.subscriber` span with the invocation's outcome. */
function endSubscriberSpan(
  span: KernelSpan,
  mode: HookModeName,
  checked:
    | { ok: true; decision: "allow" | "deny" }
    | { ok: false; category: HookErrorCategory; message: string },
): void {
  if (checked.ok) {
    span.setAttributes({
      "hook.outcome": "ok",
      "hook.decision": mode === "veto" ? checked.decision : undefined,
    });
    span.end({ code: "ok" });
    return;
  }
  span.setAttributes({
    "hook.outcome": "error",
    "hook.error_category": HookErrorCategory[checked.category]?.toLowerCase(),
    // A failing veto fails closed.
    "hook.decision": mode === "veto" ? "deny" : undefined,
  });
  span.end({ code: "error", message: checked.message });
}

/** Dispatches the hook chains of one session. */
export class HookDispatcher {
  readonly #options: HookDispatcherOptions;

  /**
   * Creates a dispatcher.
   *
   * @param options Subscriptions, endpoints, timeouts and the error sink.
   * @throws {TypeError} When a subscription names a provider without an endpoint.
   */
  constructor(options: HookDispatcherOptions) {
    for (const s of options.subscriptions) {
      if (!options.endpoints.has(s.provider)) {
        throw new TypeError(
          `Cannot subscribe "${s.provider}" to "${s.point}": no hook endpoint is loaded for it`,
        );
      }
    }
    this.#options = options;
  }

  /**
   * Whether any subscriber listens at a point.
   *
   * @param point The hook point.
   * @returns True when at least one does.
   */
  has(point: HookPointName): boolean {
    return this.#options.subscriptions.some((s) => s.point === point);
  }

  /**
   * Runs the chain of one point.
   *
   * @param point The hook point.
   * @param payload The payload (its variant must match the point).
   * @param signal The turn's signal; aborting abandons the chain.
   * @returns The transformed payload and the veto verdict.
   * @throws {HookChainAbortedError} When a transform subscriber failed.
   * @throws {TurnCancelledError} When the signal aborted.
   */
  async dispatch(
    point: HookPointName,
    payload: HookPayload,
    signal: AbortSignal,
  ): Promise<DispatchOutcome> {
    const expected = HOOK_PAYLOAD_CASE[point];
    if (payload.payload.case !== expected) {
      throw new TypeError(
        `Cannot dispatch "${point}": the payload variant is "${payload.payload.case}", not "${expected}"`,
      );
    }
    const tracer = this.#options.tracer;
    if (!tracer?.enabled) return this.#run(point, payload, signal);
    const span = tracer.startSpan(hookSpanName(point), {
      "hook.point": point,
      "hook.subscribers": this.#options.subscriptions
        .filter((s) => s.point === point).length,
    }, this.#options.parentSpan?.());
    try {
      const out = await this.#run(point, payload, signal, span);
      span.setAttributes({
        "hook.outcome": "ok",
        "hook.decision": out.decision,
        "hook.decided_by": out.decidedBy,
      });
      span.end({ code: "ok" });
      return out;
    } catch (err) {
      if (err instanceof HookChainAbortedError) {
        span.setAttributes({
          "hook.outcome": "aborted",
          "hook.aborted_by": err.subscriber,
        });
      }
      endSpanWithError(span, err, err instanceof TurnCancelledError);
      throw err;
    }
  }

  async #run(
    point: HookPointName,
    payload: HookPayload,
    signal: AbortSignal,
    span?: KernelSpan,
  ): Promise<DispatchOutcome> {
    let current = payload;
    for (const sub of this.#options.subscriptions) {
      if (sub.point !== point) continue;
      if (signal.aborted) {
        throw new TurnCancelledError({ cause: signal.reason });
      }
      const endpoint = this.#options.endpoints.get(sub.provider)!;
      const child = span && this.#options.tracer!.startSpan("hook.subscriber", {
        "hook.point": point,
        "hook.provider": sub.provider,
        "hook.mode": sub.mode,
        "hook.subscription_id": sub.subscriptionId,
        "hook.timeout_ms": sub.timeoutMs ?? this.#options.defaultTimeoutMs,
      }, span);
      const attempt = await this.#invoke(
        sub,
        endpoint,
        current,
        signal,
        child?.traceparent,
      );
      // The parent's cancellation is checked first: it is never a verdict.
      if (signal.aborted) {
        if (child) endSpanWithError(child, signal.reason, true);
        throw new TurnCancelledError({ cause: signal.reason });
      }
      const checked = attempt.ok
        ? this.#check(sub, point, current, attempt.response)
        : attempt;
      if (child) endSubscriberSpan(child, sub.mode, checked);
      if (sub.mode === "observe") {
        if (!checked.ok) await this.#fail(point, sub, endpoint, checked);
        continue;
      }
      if (sub.mode === "transform") {
        if (!checked.ok) {
          await this.#fail(point, sub, endpoint, checked);
          throw new HookChainAbortedError(point, sub.provider, checked.message);
        }
        current = checked.payload;
        continue;
      }
      // veto
      if (!checked.ok) {
        await this.#fail(point, sub, endpoint, checked);
        return {
          payload: current,
          decision: "deny",
          decidedBy: `hook-veto:${sub.provider}`,
        };
      }
      if (checked.decision === "deny") {
        return {
          payload: current,
          decision: "deny",
          decidedBy: `hook-veto:${sub.provider}`,
        };
      }
    }
    return { payload: current, decision: "allow" };
  }

  async #invoke(
    sub: HookSubscription,
    endpoint: HookEndpoint,
    payload: HookPayload,
    signal: AbortSignal,
    traceparent?: string,
  ): Promise<Attempt> {
    const timeoutMs = sub.timeoutMs ?? this.#options.defaultTimeoutMs;
    const ac = new AbortController();
    const onParent = () => ac.abort(signal.reason);
    signal.addEventListener("abort", onParent, { once: true });
    const release = this.#options.grant?.(endpoint.identity);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let timedOut = false;
    const stop = new Promise<"timeout" | "cancel">((resolve) => {
      timer = setTimeout(() => {
        timedOut = true;
        ac.abort(new Error("hook deadline exceeded"));
        resolve("timeout");
      }, timeoutMs);
      ac.signal.addEventListener("abort", () => resolve("cancel"), {
        once: true,
      });
    });
    try {
      const request = create(DispatchHookRequestSchema, {
        payload,
        mode: MODE_ENUM[sub.mode],
        ...(sub.subscriptionId !== undefined
          ? { subscriptionId: sub.subscriptionId }
          : {}),
      });
      const call = endpoint.dispatchHook(request, {
        signal: ac.signal,
        timeoutMs,
        headers: {
          [PROVIDER_HEADER]: sub.provider,
          ...(this.#options.sessionId
            ? { [SESSION_HEADER]: this.#options.sessionId }
            : {}),
          ...(traceparent ? { traceparent } : {}),
        },
      });
      call.catch(() => {});
      const r = await Promise.race([call, stop]);
      if (r === "timeout" || r === "cancel") {
        return {
          ok: false,
          category: HookErrorCategory.TIMEOUT,
          message: `no answer within ${timeoutMs} ms`,
        };
      }
      return { ok: true, response: r };
    } catch (err) {
      if (
        timedOut || (err instanceof GrpcStatusError &&
          err.code === Code.DEADLINE_EXCEEDED)
      ) {
        return {
          ok: false,
          category: HookErrorCategory.TIMEOUT,
          message: `no answer within ${timeoutMs} ms`,
        };
      }
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof PluginCrashedError) {
        return {
          ok: false,
          category: HookErrorCategory.PROCESS_CRASHED,
          message,
        };
      }
      return {
        ok: false,
        category: sub.mode === "transform"
          ? HookErrorCategory.TRANSFORM_FAILED
          : sub.mode === "veto"
          ? HookErrorCategory.VETO_FAILED
          : HookErrorCategory.UNKNOWN,
        message,
      };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onParent);
      release?.();
    }
  }

  #check(
    sub: HookSubscription,
    point: HookPointName,
    payload: HookPayload,
    response: DispatchHookResponse,
  ):
    | { ok: true; payload: HookPayload; decision: "allow" | "deny" }
    | { ok: false; category: HookErrorCategory; message: string } {
    const invalid = (message: string) => ({
      ok: false as const,
      category: HookErrorCategory.INVALID_RESPONSE,
      message,
    });
    const outcome = response.outcome;
    switch (sub.mode) {
      case "observe":
        if (outcome.case !== "observe") {
          return invalid(`expected an observe ack, got "${outcome.case}"`);
        }
        return { ok: true, payload, decision: "allow" };
      case "veto": {
        if (outcome.case !== "veto") {
          return invalid(`expected a veto result, got "${outcome.case}"`);
        }
        const d = outcome.value.decision;
        if (d === HookDecision.ALLOW) {
          return { ok: true, payload, decision: "allow" };
        }
        if (d === HookDecision.DENY) {
          return { ok: true, payload, decision: "deny" };
        }
        return invalid("the veto decision is UNSPECIFIED");
      }
      case "transform": {
        if (outcome.case !== "transform") {
          return invalid(`expected a transform result, got "${outcome.case}"`);
        }
        const next = outcome.value.payload;
        if (!next || next.payload.case !== payload.payload.case) {
          return invalid(
            `the transformed payload is "${next?.payload.case}", not "${payload.payload.case}"`,
          );
        }
        if (
          point === "pre-model-call" && next.payload.case === "preModelCall" &&
          payload.payload.case === "preModelCall"
        ) {
          const a = payload.payload.value.model;
          const b = next.payload.value.model;
          const same = a === undefined || b === undefined
            ? a === b
            : equals(ModelRefSchema, a, b);
          if (!same) {
            return invalid("the transform changed the immutable field model");
          }
          return {
            ok: true,
            payload: create(HookPayloadSchema, {
              payload: {
                case: "preModelCall",
                value: { model: a, messages: next.payload.value.messages },
              },
            }),
            decision: "allow",
          };
        }
        if (!equals(HookPayloadSchema, payload, next)) {
          return invalid(
            `the transform changed the payload of "${point}", which is immutable`,
          );
        }
        return { ok: true, payload, decision: "allow" };
      }
    }
  }

  async #fail(
    point: HookPointName,
    sub: HookSubscription,
    endpoint: HookEndpoint,
    failure: { category: HookErrorCategory; message: string },
  ): Promise<void> {
    const error = create(HookErrorSchema, {
      point: HOOK_POINT_ENUM[point],
      subscriber: producerRefOfIdentity(endpoint.identity),
      mode: MODE_ENUM[sub.mode],
      category: failure.category,
      message: failure.message,
    });
    const level = sub.mode === "observe" ? "warn" : "error";
    log[level](
      "Hook subscriber {subscriber} ({mode}) failed at {point}: {category}: {message}",
      {
        subscriber: sub.provider,
        mode: sub.mode,
        point,
        category: HookErrorCategory[failure.category],
        message: failure.message,
      },
    );
    try {
      await this.#options.onHookError?.({
        error,
        subscription: sub,
        identity: endpoint.identity,
      });
    } catch (err) {
      log.error("Cannot record the hook error of {subscriber}: {error}", {
        subscriber: sub.provider,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
}
