/**
 * Runtime errors of the agent loop. Each has a stable `code` (for `--json`
 * output and exit codes), keeps its data in readonly fields and passes
 * `cause` through.
 *
 * @module
 */
import { PluginCrashedError } from "../plugin/errors.ts";
import { AbortedIteration } from "./_async.ts";

/** The stable codes of {@linkcode AgentError} subclasses. */
export type AgentErrorCode =
  | ModelErrorCode
  | "no_eligible_model"
  | "hook_transform_failed"
  | "approval_required"
  | "approval_always_unsupported"
  | "session_not_resumable"
  | "pricing_no_tier"
  | "cancelled";

/**
 * The model error categories as stable text codes (`model.v1.ModelErrorCategory`
 * without its prefix, lowercased).
 */
export type ModelErrorCode =
  | "context_length_exceeded"
  | "rate_limited"
  | "overloaded"
  | "auth_error"
  | "invalid_request"
  | "content_filtered"
  | "unknown";

/** The base of every agent-loop error: a stable {@linkcode AgentErrorCode}. */
export class AgentError extends Error {
  /** The stable code. */
  readonly code: AgentErrorCode;
  /**
   * Creates the error.
   *
   * @param code The stable code.
   * @param message The sentence shown to people.
   * @param options Standard error options.
   */
  constructor(code: AgentErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "AgentError";
    this.code = code;
  }
}

/**
 * A model call failed with a classified error (`model.v1.ModelError`), in
 * band (`StreamEvent.error`) or as a gRPC status before the stream opened.
 */
export class ModelCallError extends AgentError {
  /** The error category. */
  declare readonly code: ModelErrorCode;
  /** The model provider's local name. */
  readonly provider: string;
  /** The model id. */
  readonly modelId: string;
  /** Whether the provider marked the error retryable. */
  readonly retryable: boolean;
  /** The provider's `retry_after`, in milliseconds, when it sent one. */
  readonly retryAfterMs: number | undefined;
  /** Raw vendor detail, when the provider sent it. */
  readonly rawDetail: string | undefined;
  /**
   * Creates the error.
   *
   * @param code The category.
   * @param provider The model provider's local name.
   * @param modelId The model id.
   * @param detail The provider's message.
   * @param init Retry hints and raw detail.
   * @param options Standard error options.
   */
  constructor(
    code: ModelErrorCode,
    provider: string,
    modelId: string,
    detail: string,
    init: { retryable?: boolean; retryAfterMs?: number; rawDetail?: string } =
      {},
    options?: ErrorOptions,
  ) {
    super(
      code,
      `Model call to "${provider}" / "${modelId}" failed: ${code}: ${detail}`,
      options,
    );
    this.name = "ModelCallError";
    this.provider = provider;
    this.modelId = modelId;
    this.retryable = init.retryable ?? false;
    this.retryAfterMs = init.retryAfterMs;
    this.rawDetail = init.rawDetail;
  }
}

/** No model in the routing chain can serve the turn. */
export class NoEligibleModelError extends AgentError {
  /**
   * Creates the error.
   *
   * @param detail Why each candidate was skipped.
   */
  constructor(detail: string) {
    super("no_eligible_model", `Cannot call a model: ${detail}`);
    this.name = "NoEligibleModelError";
  }
}

/**
 * A transform subscriber failed (error, timeout or invalid response): the
 * rest of the chain was abandoned and a `hook_error` event persisted.
 */
export class HookChainAbortedError extends AgentError {
  /** The hook point (`pre-model-call`, …). */
  readonly point: string;
  /** The failing subscriber's provider name. */
  readonly subscriber: string;
  /**
   * Creates the error.
   *
   * @param point The hook point.
   * @param subscriber The failing subscriber.
   * @param detail What went wrong.
   */
  constructor(point: string, subscriber: string, detail: string) {
    super(
      "hook_transform_failed",
      `Cannot continue the "${point}" hook chain: transform subscriber "${subscriber}" failed: ${detail}`,
    );
    this.name = "HookChainAbortedError";
    this.point = point;
    this.subscriber = subscriber;
  }
}

/**
 * An approval was needed and not given while `on_ask = "fail"`: the
 * session ends `failed` (the CLI's exit code 4).
 */
export class ApprovalRequiredError extends AgentError {
  /** The plan item that needed approval. */
  readonly planItemId: string;
  /**
   * Creates the error.
   *
   * @param planItemId The plan item.
   * @param what `provider.tool` of the call.
   */
  constructor(planItemId: string, what: string) {
    super(
      "approval_required",
      `Cannot apply "${what}": it needs approval and on_ask is "fail"`,
    );
    this.name = "ApprovalRequiredError";
    this.planItemId = planItemId;
  }
}

/**
 * An approval answered with scope ALWAYS, but the kernel cannot persist
 * policy (no `persistAlwaysRule`). The answer is refused, never downgraded.
 */
export class AlwaysScopeUnsupportedError extends AgentError {
  /**
   * Creates the error.
   *
   * @param planItemId The plan item that was answered.
   */
  constructor(readonly planItemId: string) {
    super(
      "approval_always_unsupported",
      `Cannot accept an ALWAYS decision for plan item "${planItemId}": this kernel cannot persist policy rules`,
    );
    this.name = "AlwaysScopeUnsupportedError";
  }
}

/** A session asked to resume is in a status that never re-opens. */
export class SessionNotResumableError extends AgentError {
  /**
   * Creates the error.
   *
   * @param sessionId The session.
   * @param status Its status text.
   */
  constructor(readonly sessionId: string, readonly status: string) {
    super(
      "session_not_resumable",
      `Cannot resume session "${sessionId}": its status is "${status}", which is replay-only`,
    );
    this.name = "SessionNotResumableError";
  }
}

/** The turn was cancelled (an aborted signal); not a failed turn. */
export class TurnCancelledError extends AgentError {
  /** Creates the error. */
  constructor(options?: ErrorOptions) {
    super("cancelled", "The turn was cancelled", options);
    this.name = "TurnCancelledError";
  }
}

export { PricingError } from "../../contract/cost.ts";

/** An error as plain data. */
export interface ErrorInfo {
  /** The stable code (`rate_limited`, `approval_required`, …). */
  readonly code: string;
  /** The message. */
  readonly message: string;
}

/**
 * An error as plain data: its stable `code` when it has one, else
 * `internal`.
 *
 * @param err Anything thrown.
 * @returns The code and message.
 */
export function errorInfo(err: unknown): ErrorInfo {
  if (err instanceof AgentError) {
    return { code: err.code, message: err.message };
  }
  if (err instanceof PluginCrashedError) {
    return { code: err.code, message: err.message };
  }
  if (
    err && typeof err === "object" && "code" in err &&
    typeof err.code === "string"
  ) {
    return {
      code: err.code,
      message: err instanceof Error ? err.message : String(err),
    };
  }
  return {
    code: "internal",
    message: err instanceof Error ? err.message : String(err),
  };
}

/**
 * Whether an error ended a turn because it was cancelled (the signal
 * aborted), rather than because something failed.
 *
 * @param err Anything thrown.
 * @param signal The turn's signal.
 * @returns True for a cancellation.
 */
export function isCancellation(err: unknown, signal: AbortSignal): boolean {
  return signal.aborted || err instanceof TurnCancelledError ||
    err instanceof AbortedIteration;
}
