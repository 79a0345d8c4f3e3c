/**
 * Plan decisions across kernels (issue 19): a kernel following a session
 * another kernel drives (`agent attach` on another machine, same
 * PostgreSQL) answers its pending asks over the cross-kernel bus.
 *
 * - The follower publishes a {@linkcode RemoteDecision} on
 *   {@linkcode DECIDE_TOPIC}; the bus bridge carries it to every kernel on
 *   the database.
 * - The kernel whose hub drives the session ({@linkcode serveRemoteDecisions})
 *   answers with the same operation a frontend's `ResolvePlanDecision`
 *   runs, {@linkcode FrontendHub.decide}: the first answer wins, wherever
 *   it came from, and a later one gets the distinct `FAILED_PRECONDITION`
 *   ("already resolved: the first answer won"). Kernels that do not drive
 *   the session stay silent (one kernel drives a session at a time: the
 *   store's lease).
 * - The verdict goes back on {@linkcode REPLY_TOPIC};
 *   {@linkcode decideRemotely} turns an error verdict into the same
 *   `GrpcStatusError` the hub threw.
 *
 * A decision can arrive before the driving kernel asks (the follower saw
 * the stored plan first): it waits for the item to be asked, up to
 * `waitMs`, then answers `NOT_FOUND`.
 *
 * @module
 */
import type { EventBus } from "../bus/event_bus.ts";
import type { ApprovalAnswer } from "../agent/session_events.ts";
import { GrpcStatusError } from "../../proto/grpc_status.ts";
import {
  Code,
  frontendError,
  FrontendErrorCategory,
} from "../callback/frontend_surface.ts";
import { structuredErrorOf } from "../plugin/structured_error.ts";
import type { FrontendHub, HubSession } from "./hub.ts";

/** Where followers publish their decisions. */
export const DECIDE_TOPIC = "kernel.approval.decide";
/** Where the driving kernel publishes each decision's verdict. */
export const REPLY_TOPIC = "kernel.approval.reply";

const JSON_TYPE = "application/json";

/** A decision for a plan item of a session another kernel drives. */
export interface RemoteDecision {
  /** The session. */
  readonly sessionId: string;
  /** The plan item. */
  readonly planItemId: string;
  /** The answer (`always` is refused unless the driver can persist it). */
  readonly answer: ApprovalAnswer;
}

interface DecideWire {
  readonly requestId: string;
  readonly sessionId: string;
  readonly planItemId: string;
  readonly decision: "allow" | "deny";
  readonly scope: "once" | "session" | "always";
}

interface ReplyWire {
  readonly requestId: string;
  readonly ok: boolean;
  readonly code?: number;
  readonly category?: number;
  readonly message?: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function publish(
  bus: EventBus,
  topic: string,
  body: DecideWire | ReplyWire,
  sessionId: string,
): void {
  bus.publishKernel(topic, {
    payload: encoder.encode(JSON.stringify(body)),
    payloadType: JSON_TYPE,
    schemaVersion: "1",
    sessionId,
  });
}

function parse<T>(payload: Uint8Array): T | undefined {
  try {
    return JSON.parse(decoder.decode(payload)) as T;
  } catch {
    return undefined;
  }
}

/** Options of {@linkcode serveRemoteDecisions}. */
export interface ServeRemoteDecisionsOptions {
  /**
   * How long a decision for an item not yet asked waits for the ask.
   * @default {30000}
   */
  readonly waitMs?: number;
}

/**
 * Answers decisions other kernels send for the sessions this hub drives.
 *
 * @example Usage
 * ```ts ignore
 * const stop = serveRemoteDecisions(kernel.hub, bus);
 * // … a follower's decideRemotely() now reaches kernel.hub.decide()
 * stop();
 * ```
 *
 * @param hub This kernel's hub.
 * @param bus This kernel's bus (bridged to the other kernels').
 * @param options How long an early decision waits for its ask.
 * @returns A function that stops answering.
 */
export function serveRemoteDecisions(
  hub: FrontendHub,
  bus: EventBus,
  options: ServeRemoteDecisionsOptions = {},
): () => void {
  const waitMs = options.waitMs ?? 30_000;
  return bus.listen([DECIDE_TOPIC], (event) => {
    const d = parse<DecideWire>(event.payload);
    if (
      !d || typeof d.requestId !== "string" ||
      typeof d.sessionId !== "string" || typeof d.planItemId !== "string"
    ) return;
    const h = hub.get(d.sessionId);
    // Only the kernel that runs the session answers.
    if (!h?.agent) return;
    void answer(hub, h, d, waitMs).then((error) =>
      publish(
        bus,
        REPLY_TOPIC,
        error === undefined ? { requestId: d.requestId, ok: true } : {
          requestId: d.requestId,
          ok: false,
          ...errorFields(error),
        },
        d.sessionId,
      )
    );
  });
}

function errorFields(
  error: unknown,
): { code: number; category?: number; message: string } {
  if (error instanceof GrpcStatusError) {
    const s = structuredErrorOf(error);
    const category = s?.kind === "frontend" ? s.category : undefined;
    return {
      code: error.code,
      ...(category !== undefined ? { category } : {}),
      message: error.message,
    };
  }
  return {
    code: Code.INTERNAL,
    message: error instanceof Error ? error.message : String(error),
  };
}

/** Waits for the item to be asked (or answered), then decides. */
async function answer(
  hub: FrontendHub,
  h: HubSession,
  d: DecideWire,
  waitMs: number,
): Promise<unknown> {
  const known = () =>
    h.pendingPlans.has(d.planItemId) || h.resolvedPlans.has(d.planItemId) ||
    h.agent === undefined || h.agent.ended;
  if (!known()) {
    const ready = Promise.withResolvers<void>();
    const watch = () => {
      if (known()) ready.resolve();
    };
    h.planWatchers.add(watch);
    const timer = setTimeout(() => ready.resolve(), waitMs);
    try {
      await ready.promise;
    } finally {
      clearTimeout(timer);
      h.planWatchers.delete(watch);
    }
  }
  try {
    hub.decide(h, d.planItemId, { decision: d.decision, scope: d.scope });
    return undefined;
  } catch (error) {
    return error;
  }
}

/** Options of {@linkcode decideRemotely}. */
export interface DecideRemotelyOptions {
  /**
   * How long to wait for the driving kernel's verdict.
   * @default {60000}
   */
  readonly timeoutMs?: number;
  /** Cancels the wait. */
  readonly signal?: AbortSignal;
}

/**
 * Sends a decision to the kernel that drives a session and waits for its
 * verdict.
 *
 * @param bus This kernel's bus, bridged to the driving kernel's.
 * @param decision The session, the plan item and the answer.
 * @param options The wait's bound and a signal.
 * @throws {GrpcStatusError} The driving kernel's refusal: `FAILED_PRECONDITION`
 * when the item was already answered (the first answer won), `NOT_FOUND`
 * for an item that never waited, `INVALID_ARGUMENT` for a bad answer;
 * `DEADLINE_EXCEEDED` when no kernel answered in time.
 */
export async function decideRemotely(
  bus: EventBus,
  decision: RemoteDecision,
  options: DecideRemotelyOptions = {},
): Promise<void> {
  const requestId = crypto.randomUUID();
  const timeoutMs = options.timeoutMs ?? 60_000;
  const verdict = Promise.withResolvers<ReplyWire | undefined>();
  const stop = bus.listen([REPLY_TOPIC], (event) => {
    const r = parse<ReplyWire>(event.payload);
    if (r?.requestId === requestId) verdict.resolve(r);
  });
  const timer = setTimeout(() => verdict.resolve(undefined), timeoutMs);
  const onAbort = () => verdict.reject(options.signal?.reason);
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    publish(bus, DECIDE_TOPIC, {
      requestId,
      sessionId: decision.sessionId,
      planItemId: decision.planItemId,
      decision: decision.answer.decision,
      scope: decision.answer.scope,
    }, decision.sessionId);
    const r = await verdict.promise;
    if (r === undefined) {
      throw new GrpcStatusError(
        Code.DEADLINE_EXCEEDED,
        `No kernel driving session "${decision.sessionId}" answered the decision for plan item "${decision.planItemId}" within ${timeoutMs} ms (has the session ended, or does that kernel use another database or schema?)`,
      );
    }
    if (r.ok) return;
    throw frontendError(
      (r.code ?? Code.INTERNAL) as Code,
      (r.category ??
        FrontendErrorCategory.UNSPECIFIED) as FrontendErrorCategory,
      r.message ?? "The driving kernel refused the decision",
    );
  } finally {
    clearTimeout(timer);
    stop();
    options.signal?.removeEventListener("abort", onAbort);
  }
}
