/**
 * Which sessions are live in this kernel, and which plugin may name which
 * session on its callback channel right now.
 *
 * A grant `(plugin, session)` is taken when the kernel invokes a plugin on a
 * session's behalf and released when that invocation returns; grants are
 * counted, and releasing is idempotent. Every authorization failure — never
 * granted, grant released, session not live, empty id — gives the same
 * `PERMISSION_DENIED` with the same message, so that a plugin cannot probe
 * which sessions exist.
 *
 * @example
 * ```ts
 * import { SessionRegistry } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * const registry = new SessionRegistry();
 * const plugin = { category: "tool", name: "fs" } as const;
 * assert.equal(registry.isGranted(plugin, "01J0000000000000000000000A"), false);
 * const release = registry.grant(plugin, "01J0000000000000000000000A");
 * assert.equal(registry.isGranted(plugin, "01J0000000000000000000000A"), true);
 * release();
 * release(); // idempotent
 * assert.equal(registry.isGranted(plugin, "01J0000000000000000000000A"), false);
 * ```
 *
 * @module
 */
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import type { JsonObject } from "@bufbuild/protobuf";
import type { CategoryName } from "../../contract/manifest.ts";
import type { SessionLog } from "./session_store.ts";
import type { CostBudget } from "../../contract/cost.ts";

/** A session the kernel is running, with its live (never persisted) budgets. */
export interface LiveSession {
  /** The open session log (the kernel is its only writer). */
  readonly log: SessionLog;
  /** Sub-agent spawns still allowed below this session. */
  remainingDepth: number;
  /** Dollars this session (and its subtree) may still spend. */
  remainingCostBudgetUsd: number;
  /** The session's profile (sub-agents: its `max_concurrent_subagents`). */
  profile?: string;
  /** The depth in the session tree (0 for a root). */
  depth?: number;
  /**
   * The session's live cost budget node: a child's budget is attached
   * below it, so that every spend is debited up the whole tree.
   */
  budget?: CostBudget;
  /**
   * The signal of the turn in progress: children spawned during the turn
   * are cancelled with it (cascade cancellation).
   */
  turnSignal?: AbortSignal;
  /**
   * Answers a pending interactive call (`ResolveInteractive`); true when
   * this answer was the first.
   */
  resolveInteractive?: (callId: string, response: JsonObject) => boolean;
  /**
   * The plugins that serve the session's profile (its models, tools and
   * hooks): they take part in it from the start, so their session-scoped
   * `kernel.*` subscriptions receive its events.
   */
  participants?: readonly GrantHolder[];
  /**
   * Told of each sub-agent this session spawned: started, then finished
   * (rounds, final text) or failed (error). The control plane's
   * `subagent` channel.
   */
  onSubagent?: (event: SubagentLifecycle) => void;
  /**
   * Puts a plugin's text before the agent (`<cp:plugin-inject>`, or the
   * given channel with its attributes), waking the session when it is idle
   * and the channel wakes; returns what became of it (`queued`,
   * `disabled`, `rate_limited`, `empty`).
   *
   * @throws {TypeError} When the attributes do not fit the channel.
   */
  /**
   * True once the session has begun closing: it takes no new work, and a
   * trigger from another process should wait for the stored session.
   */
  isClosing?: () => boolean;
  inject?: (
    plugin: string,
    text: string,
    channel?: {
      readonly channel: string;
      readonly attributes: Readonly<Record<string, string>>;
    },
  ) => string;
  /**
   * Where relative paths of the session's tool calls resolve (a worktree
   * child's worktree).
   */
  workingDirectory?: string;
  /**
   * Puts a delegation message before the agent (`<cp:mailbox>`,
   * `<cp:worktree-merged>`) at its next round boundary; returns what became
   * of it (`queued`, `disabled`, `rate_limited`).
   */
  deliver?: (message: DelegationMessage) => string;
}

/** A control-plane message of delegation, delivered to a live session. */
export type DelegationMessage =
  | {
    readonly channel: "mailbox";
    readonly attrs: { readonly from: string; readonly to: string };
    readonly body: string;
  }
  | {
    readonly channel: "worktree-merged";
    readonly attrs: {
      readonly slug: string;
      readonly branch: string;
      readonly commit: string;
      readonly kind: "squash" | "merge";
    };
    readonly body: string;
  };

/** One step of a sub-agent's life, as its parent hears of it. */
export interface SubagentLifecycle {
  /** `started`, `finished` or `failed`. */
  readonly state: "started" | "finished" | "failed";
  /** The child's session id. */
  readonly id: string;
  /** The child's named agent, or its profile. */
  readonly kind: string;
  /** The child's model rounds, once it ended. */
  readonly rounds?: number;
  /** Why it failed. */
  readonly error?: string;
  /** Its final text, once it finished. */
  readonly finalText?: string;
}

/** The part of a plugin's identity a grant is keyed on (not its version). */
export interface GrantHolder {
  /** The plugin's category. */
  readonly category: CategoryName;
  /** The plugin's name. */
  readonly name: string;
}

/** The one message of every session-authorization failure. */
export const SESSION_ACCESS_DENIED_MESSAGE =
  "permission denied: this plugin is not invoked for the session it named";

/** The uniform refusal of a session-scoped call. */
export function sessionAccessDenied(): GrpcStatusError {
  return new GrpcStatusError(
    Code.PERMISSION_DENIED,
    SESSION_ACCESS_DENIED_MESSAGE,
  );
}

function key(holder: GrantHolder, sessionId: string): string {
  return `${holder.category}/${holder.name}\u0000${sessionId}`;
}

function holderKey(holder: GrantHolder): string {
  return `${holder.category}/${holder.name}`;
}

/** Live sessions and the grants plugins hold on them. */
export class SessionRegistry {
  #live = new Map<string, LiveSession>();
  #grants = new Map<string, number>();
  // Per live session: the plugins taking part (profile providers, and
  // every plugin invoked in it so far).
  #participants = new Map<string, Set<string>>();

  /**
   * Registers a live session.
   *
   * @param session The session and its budgets.
   * @returns A function that unregisters it (idempotent).
   */
  register(session: LiveSession): () => void {
    const id = session.log.sessionId;
    this.#live.set(id, session);
    const taking = new Set((session.participants ?? []).map(holderKey));
    this.#participants.set(id, taking);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (this.#live.get(id) === session) {
        this.#live.delete(id);
        this.#participants.delete(id);
      }
    };
  }

  /**
   * The live session with this id, if any.
   *
   * @param sessionId The session's ULID.
   * @returns The live session, or `undefined`.
   */
  get(sessionId: string): LiveSession | undefined {
    return this.#live.get(sessionId);
  }

  /**
   * Grants a plugin access to a session for the duration of one invocation.
   *
   * @param holder The plugin.
   * @param sessionId The session.
   * @returns The release function (idempotent).
   */
  grant(holder: GrantHolder, sessionId: string): () => void {
    this.#participants.get(sessionId)?.add(holderKey(holder));
    const k = key(holder, sessionId);
    this.#grants.set(k, (this.#grants.get(k) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = (this.#grants.get(k) ?? 1) - 1;
      if (n <= 0) this.#grants.delete(k);
      else this.#grants.set(k, n);
    };
  }

  /**
   * Whether the plugin currently holds a grant on the session.
   *
   * @param holder The plugin.
   * @param sessionId The session.
   * @returns True while at least one grant is held.
   */
  isGranted(holder: GrantHolder, sessionId: string): boolean {
    return (this.#grants.get(key(holder, sessionId)) ?? 0) > 0;
  }

  /**
   * Whether the plugin takes part in a live session: it serves the
   * session's profile, or the kernel has invoked it in the session (a
   * grant, held or released). Decides which sessions' `kernel.*` events a
   * session-scoped subscription receives.
   *
   * @param holder The plugin.
   * @param sessionId The session.
   * @returns False for a session that is not live.
   */
  takesPart(holder: GrantHolder, sessionId: string): boolean {
    return this.#participants.get(sessionId)?.has(holderKey(holder)) ?? false;
  }

  /**
   * Authorizes a session-scoped call.
   *
   * @param holder The calling plugin (from its connection).
   * @param sessionId The session the request names.
   * @returns The live session.
   * @throws {GrpcStatusError} `PERMISSION_DENIED`, always with
   * {@linkcode SESSION_ACCESS_DENIED_MESSAGE}, whatever the reason.
   */
  authorize(holder: GrantHolder, sessionId: string): LiveSession {
    const live = sessionId ? this.#live.get(sessionId) : undefined;
    if (!live || !this.isGranted(holder, sessionId)) {
      throw sessionAccessDenied();
    }
    return live;
  }
}
