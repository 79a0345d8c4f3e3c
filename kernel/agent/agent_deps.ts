/**
 * What the agent loop runs on ({@linkcode AgentDeps}): the session store,
 * the plugins' endpoints, and the effects a test replaces (clock, sleep,
 * jitter, tracer).
 *
 * @module
 */
import type { PersistAlwaysRule } from "./approval_gate.ts";
import type { ContextAssembler } from "./context_assembly.ts";
import type { HookEndpoint, ModelEndpoint, ToolEndpoint } from "./endpoints.ts";
import type { KernelTracer } from "./tracing.ts";
import type { SessionRegistry } from "../state/session_registry.ts";
import type { SessionStore } from "../state/session_store.ts";
import type { EventBus } from "../bus/event_bus.ts";
import type { Every } from "../control/session_sources.ts";

/** What the loop runs on: the store, the plugins, and injectable effects. */
export interface AgentDeps {
  /** Where the session is persisted. */
  readonly store: SessionStore;
  /** Model endpoints by provider local name. */
  readonly models: ReadonlyMap<string, ModelEndpoint>;
  /** Tool endpoints by provider local name. @default {none} */
  readonly tools?: ReadonlyMap<string, ToolEndpoint>;
  /** Hook endpoints by provider local name. @default {none} */
  readonly hooks?: ReadonlyMap<string, HookEndpoint>;
  /**
   * Live sessions and callback grants: the session is registered while it
   * runs, and every plugin holds a grant while it is invoked on its behalf.
   * @default {none (plugins cannot name the session on their callback channel)}
   */
  readonly registry?: SessionRegistry;
  /** Persists ALWAYS decisions; without it ALWAYS is refused. */
  readonly persistAlwaysRule?: PersistAlwaysRule;
  /** Step 1. @default {passThroughAssembler} */
  readonly contextAssembler?: ContextAssembler;
  /** The clock in epoch milliseconds. @default {Date.now} */
  readonly now?: () => number;
  /** Sleeps for retries. @default {an abortable setTimeout} */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Jitter source in [0, 1). @default {Math.random} */
  readonly random?: () => number;
  /** The kernel's own spans (session, turn, model call, tools, hooks). @default {NOOP_TRACER} */
  readonly tracer?: KernelTracer;
  /**
   * The kernel's event bus: the control plane listens on it (exec's
   * background exits, `control_plane { topics }`). @default {none}
   */
  readonly bus?: EventBus;
  /** The control plane's timer primitive. @default {setInterval} */
  readonly every?: Every;
}
