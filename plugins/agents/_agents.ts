/**
 * The state and argument checks of `builtin/agents`, apart from the gRPC
 * plumbing (main.ts): the children each session spawned (foreground or
 * background), and the mailbox counters `wait_message` waits on.
 *
 * @module
 */
import type { JsonObject } from "@bufbuild/protobuf";

/** A bad argument: becomes an `INVALID_ARGUMENTS` tool error. */
export class ArgumentError extends Error {
  /**
   * Creates the error.
   *
   * @param message What is wrong, naming the argument.
   */
  constructor(message: string) {
    super(message);
    this.name = "ArgumentError";
  }
}

/** A sub-agent name: lower case, digits, `_` and `-`, starting with a letter. */
export const NAME_REGEXP: RegExp = /^[a-z][a-z0-9_-]{0,62}$/;

/** A checked `spawn_subagent` call. */
export interface SpawnArgs {
  /** A named agent of agent.hcl. */
  readonly agent?: string;
  /** An agent_profile. */
  readonly profile?: string;
  /** The child's first (and only) prompt. */
  readonly prompt: string;
  /** The child's name among its siblings. */
  readonly name?: string;
  /** Run in its own git worktree. */
  readonly worktree: boolean;
  /** Return at once; `wait_subagent` collects the result. */
  readonly background: boolean;
  /** A cost ceiling for the child's subtree (narrows only). */
  readonly maxCostUsd?: number;
}

function only(args: JsonObject, allowed: readonly string[]): void {
  const extra = Object.keys(args).filter((k) => !allowed.includes(k));
  if (extra.length > 0) {
    throw new ArgumentError(
      `unknown argument "${extra[0]}" (allowed: ${allowed.join(", ")})`,
    );
  }
}

function optString(args: JsonObject, key: string): string | undefined {
  const v = args[key];
  if (v === undefined || v === null || v === "") return undefined;
  if (typeof v !== "string") {
    throw new ArgumentError(
      `"${key}" must be a string, not ${JSON.stringify(v)}`,
    );
  }
  return v;
}

function optBool(args: JsonObject, key: string): boolean {
  const v = args[key];
  if (v === undefined || v === null) return false;
  if (typeof v !== "boolean") {
    throw new ArgumentError(
      `"${key}" must be true or false, not ${JSON.stringify(v)}`,
    );
  }
  return v;
}

function optName(args: JsonObject, key: string): string | undefined {
  const v = optString(args, key);
  if (v !== undefined && !NAME_REGEXP.test(v)) {
    throw new ArgumentError(
      `"${key}" must be lower-case letters, digits, _ and -, starting with a letter: ${
        JSON.stringify(v)
      }`,
    );
  }
  return v;
}

/**
 * Checks `spawn_subagent`'s arguments.
 *
 * @example Usage
 * ```ts
 * import { parseSpawn } from "./_agents.ts";
 * import assert from "node:assert/strict";
 *
 * const s = parseSpawn({ agent: "reviewer", prompt: "Review the diff", background: true });
 * assert.equal(s.agent, "reviewer");
 * assert.equal(s.background, true);
 * assert.throws(() => parseSpawn({ prompt: "x" }), /exactly one of "agent" \(a named agent\) or "profile"/);
 * ```
 *
 * @param args The call's arguments.
 * @returns The checked call.
 * @throws {ArgumentError} On an unknown, missing or ill-typed argument.
 */
export function parseSpawn(args: JsonObject): SpawnArgs {
  only(args, [
    "agent",
    "profile",
    "prompt",
    "name",
    "worktree",
    "background",
    "max_cost_usd",
  ]);
  const agent = optName(args, "agent");
  const profile = optString(args, "profile");
  if ((agent === undefined) === (profile === undefined)) {
    throw new ArgumentError(
      'give exactly one of "agent" (a named agent) or "profile" (an agent_profile)',
    );
  }
  const prompt = optString(args, "prompt");
  if (prompt === undefined || !prompt.trim()) {
    throw new ArgumentError('"prompt" is required: the sub-agent\'s task');
  }
  const cost = args.max_cost_usd;
  if (
    cost !== undefined && cost !== null &&
    (typeof cost !== "number" || !Number.isFinite(cost) || cost <= 0)
  ) {
    throw new ArgumentError(
      `"max_cost_usd" must be a positive number, not ${JSON.stringify(cost)}`,
    );
  }
  const name = optName(args, "name");
  return {
    ...(agent !== undefined ? { agent } : {}),
    ...(profile !== undefined ? { profile } : {}),
    prompt,
    ...(name !== undefined ? { name } : {}),
    worktree: optBool(args, "worktree"),
    background: optBool(args, "background"),
    ...(typeof cost === "number" ? { maxCostUsd: cost } : {}),
  };
}

/**
 * Checks the arguments of a tool that takes only the given optional keys
 * (strings, booleans or numbers, as named).
 *
 * @param args The call's arguments.
 * @param spec Each allowed key and its type.
 * @returns The arguments.
 * @throws {ArgumentError} On an unknown or ill-typed argument.
 */
export function parseFlat(
  args: JsonObject,
  spec: Readonly<Record<string, "string" | "boolean" | "number" | "name">>,
): Record<string, string | boolean | number | undefined> {
  only(args, Object.keys(spec));
  const out: Record<string, string | boolean | number | undefined> = {};
  for (const [key, type] of Object.entries(spec)) {
    if (type === "name") out[key] = optName(args, key);
    else if (type === "string") out[key] = optString(args, key);
    else if (type === "boolean") out[key] = optBool(args, key);
    else {
      const v = args[key];
      if (v === undefined || v === null) continue;
      if (typeof v !== "number" || !Number.isFinite(v) || v < 0) {
        throw new ArgumentError(
          `"${key}" must be a non-negative number, not ${JSON.stringify(v)}`,
        );
      }
      out[key] = v;
    }
  }
  return out;
}

/** The outcome of a child, as `wait_subagent` reports it. */
export type ChildOutcome = JsonObject;

/** One child a session spawned through this plugin. */
export interface Child {
  /** Its name among its siblings. */
  readonly name: string;
  /** The named agent or profile it runs. */
  readonly kind: string;
  /** Whether it was spawned in the background. */
  readonly background: boolean;
  /** Whether it runs in a worktree. */
  readonly worktree: boolean;
  /** Resolves with its outcome (never rejects). */
  readonly done: Promise<ChildOutcome>;
  /** Its outcome once it ended. */
  outcome?: ChildOutcome;
  /** Whether `wait_subagent` has returned its outcome. */
  collected?: boolean;
}

/**
 * The children of each session, and the names this plugin gives them
 * (`<agent or profile>-<n>` when the call names none).
 */
export class ChildTable {
  readonly #bySession = new Map<string, Map<string, Child>>();
  readonly #counters = new Map<string, number>();

  /**
   * A fresh name for a child of `sessionId` running `kind`.
   *
   * @param sessionId The parent session.
   * @param kind The named agent (its name is tried first) or profile.
   * @param named Whether `kind` is a named agent.
   * @returns A name no running child of the session has.
   */
  nameFor(sessionId: string, kind: string, named: boolean): string {
    const children = this.#bySession.get(sessionId);
    if (named && !children?.has(kind)) return kind;
    const key = `${sessionId}\u0000${kind}`;
    for (;;) {
      const n = (this.#counters.get(key) ?? 0) + 1;
      this.#counters.set(key, n);
      const name = `${kind.replace(/[^a-z0-9_-]/g, "-")}-${n}`;
      if (!children?.has(name)) return name;
    }
  }

  /**
   * Records a child (replacing an ended one of the same name).
   *
   * @param sessionId The parent session.
   * @param child The child.
   */
  add(sessionId: string, child: Child): void {
    let children = this.#bySession.get(sessionId);
    if (!children) {
      children = new Map();
      this.#bySession.set(sessionId, children);
    }
    children.set(child.name, child);
    child.done.then((o) => {
      child.outcome = o;
    });
  }

  /**
   * A session's children, in spawn order.
   *
   * @param sessionId The parent session.
   * @returns The children.
   */
  of(sessionId: string): Child[] {
    return [...this.#bySession.get(sessionId)?.values() ?? []];
  }

  /**
   * One child by name.
   *
   * @param sessionId The parent session.
   * @param name The child's name.
   * @returns The child, if any.
   */
  get(sessionId: string, name: string): Child | undefined {
    return this.#bySession.get(sessionId)?.get(name);
  }
}

/**
 * Counts the mailbox messages delivered to each session through this
 * plugin, and wakes `wait_message` calls.
 */
export class MailboxCounter {
  readonly #delivered = new Map<string, number>();
  readonly #seen = new Map<string, number>();
  readonly #waiters = new Map<string, Set<() => void>>();

  /**
   * Notes a message delivered to a session.
   *
   * @param sessionId The recipient's session.
   */
  delivered(sessionId: string): void {
    this.#delivered.set(sessionId, (this.#delivered.get(sessionId) ?? 0) + 1);
    for (const wake of this.#waiters.get(sessionId) ?? []) wake();
  }

  /**
   * Waits until a message the session has not yet waited for arrives (at
   * once when one already has), or the signal aborts.
   *
   * @param sessionId The waiting session.
   * @param signal Ends the wait.
   * @returns How many new messages arrived (0 when the wait was cut short).
   */
  async wait(sessionId: string, signal: AbortSignal): Promise<number> {
    const fresh = () =>
      (this.#delivered.get(sessionId) ?? 0) - (this.#seen.get(sessionId) ?? 0);
    if (fresh() === 0 && !signal.aborted) {
      let waiters = this.#waiters.get(sessionId);
      if (!waiters) {
        waiters = new Set();
        this.#waiters.set(sessionId, waiters);
      }
      const set = waiters;
      await new Promise<void>((resolve) => {
        const wake = () => {
          set.delete(wake);
          signal.removeEventListener("abort", wake);
          resolve();
        };
        set.add(wake);
        signal.addEventListener("abort", wake, { once: true });
      });
      if (set.size === 0) this.#waiters.delete(sessionId);
    }
    const n = fresh();
    this.#seen.set(sessionId, this.#delivered.get(sessionId) ?? 0);
    return n;
  }
}
