/**
 * Sub-agents (kernel.md §6.7, config.md §7.5–7.7): the kernel side of
 * `RunSession`. A plugin invoked for session P asks for a child session
 * under a named `agent_profile`; the {@linkcode SubagentSupervisor} runs it
 * to its end and answers with the child's final message, its terminal
 * status and its whole-subtree usage.
 *
 * The rules, all computed from the kernel's in-memory session tree (the
 * {@linkcode SessionRegistry}'s live sessions), never from storage:
 *
 * - **Fresh context.** The child's history starts with the prompt alone;
 *   nothing of the parent's history crosses over, and only the child's
 *   final message crosses back.
 * - **Depth.** `remaining(child) = min(remaining(P) − 1, child max_depth)`,
 *   further narrowed by the request's `remaining_depth`. Recursion is
 *   denied by default: a profile without `max_depth` gets 0. A parent with
 *   no remaining depth is refused (`FAILED_PRECONDITION`), and a session
 *   whose remaining depth is 0 has its spawn-capable tools removed from its
 *   registry ({@linkcode capSpawnTools}).
 *   A context provider (a compactor writing a summary) is the exception:
 *   its child runs whatever the parent's depth, with a remaining depth of 0.
 * - **Spawn-capable tools.** A tool operation is spawn-capable when its
 *   plugin's manifest declares it (`"subagents": true` on the tool; see
 *   {@linkcode spawnCapableTools}); any other tool that calls `RunSession`
 *   is still refused at run time by the depth check.
 * - **Cost.** The child's budget node hangs below P's, so every dollar it
 *   (or its descendants) spends is debited at every ancestor:
 *   `remaining(child) = min(remaining(P), request value, child max_cost_usd)`.
 *   A request value of 0 (proto3's unset) does not narrow.
 * - **Scope.** `scoped_providers` may narrow the profile's providers (tool
 *   providers, and the model chain when model providers are named); naming
 *   a provider outside the profile is `INVALID_ARGUMENT`.
 * - **Concurrency.** At most `max_concurrent_subagents` children of one
 *   parent run at once ({@linkcode DEFAULT_MAX_CONCURRENT_SUBAGENTS} when
 *   unset); further spawns queue in arrival order. The parent's turn joins
 *   on all of them because each tool call awaits its `RunSession`.
 * - **Cancellation.** A child runs under the parent's current turn signal,
 *   the caller's call signal and the supervisor's own: cancelling the parent
 *   cancels every in-flight child (and, through their turn signals, their
 *   children). A cancelled child still records `cancelled` durably.
 * - **Names and the mailbox.** Every child has a name among its siblings
 *   (the request's, its named agent's, or `<profile>-<n>`). `SendMailbox`
 *   is the one channel between sessions of a tree: a session reaches its
 *   parent (`"parent"`), its children and its siblings by name, as a
 *   `<cp:mailbox from to>` block at the recipient's next round boundary;
 *   nothing else of another session is reachable.
 * - **Worktrees.** A request with `worktree` runs the child in its own git
 *   worktree (worktrees.ts) on branch `agent/<name>`, which becomes its
 *   working directory; `MergeWorktree` merges it back into the parent's
 *   tree once the child has ended and posts `<cp:worktree-merged>` to the
 *   parent.
 *
 * @module
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import { Category } from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import type { RunSessionRequest } from "../../proto/gen/pluggableharness/kernel/v1/rpc_request_pb.ts";
import type { RunSessionResultSchema } from "../../proto/gen/pluggableharness/kernel/v1/rpc_response_pb.ts";
import { SessionStatus } from "../../proto/gen/pluggableharness/session/v1/types_pb.ts";
import type { ToolSchema } from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import type { AgentDeps } from "./agent_deps.ts";
import { runSession } from "./run_session.ts";
import { CostBudget } from "../../contract/cost.ts";
import type { SessionSpec } from "./session_spec.ts";
import type { PluginIdentity } from "../../contract/plugin_identity.ts";
import type { SessionRegistry } from "../state/session_registry.ts";
import { SESSION_STATUS_TEXT } from "../state/session_store.ts";
import { childRemainingDepth } from "../../config/delegation.ts";

import { capSpawnTools } from "./spawn_tools.ts";
import {
  addWorktree,
  mergeWorktree,
  type Worktree,
  type WorktreeMerge,
} from "./worktrees.ts";
import type {
  MergeWorktreeRequest,
  SendMailboxRequest,
} from "../../proto/gen/pluggableharness/kernel/v1/rpc_request_pb.ts";
import type {
  MergeWorktreeResultSchema,
  SendMailboxResultSchema,
} from "../../proto/gen/pluggableharness/kernel/v1/rpc_response_pb.ts";

export { capSpawnTools, isSpawnCapable } from "./spawn_tools.ts";

// Pure delegation ceilings live in config/ (check-config --explain and
// agent test compute the same numbers); re-exported here for the kernel.
export {
  childRemainingDepth,
  KERNEL_DEFAULT_MAX_DEPTH,
  rootRemainingDepth,
  spawnCapableTools,
} from "../../config/delegation.ts";

/** The cap on a parent's in-flight children when its profile sets none. */
export const DEFAULT_MAX_CONCURRENT_SUBAGENTS = 4;

/** What the supervisor needs to know about a profile. */
export interface SubagentProfile {
  /** The spec a session of the profile runs with (tools not yet depth-capped). */
  readonly spec: SessionSpec;
  /** `max_depth`. */
  readonly maxDepth?: number;
  /** `max_concurrent_subagents`. */
  readonly maxConcurrentSubagents?: number;
}

/** Options of {@linkcode SubagentSupervisor}. */
export interface SubagentSupervisorOptions {
  /** The live sessions (the in-memory session tree). */
  readonly registry: SessionRegistry;
  /** Store, plugins and effects (read when a child starts). */
  readonly deps: () => AgentDeps;
  /**
   * A profile by name; `undefined` when no such profile is declared.
   *
   * @throws When the profile cannot run (its tools or model are not loaded).
   */
  readonly profile: (name: string) => SubagentProfile | undefined;
  /**
   * A named agent (`agent "NAME" {}`) by name: its profile; `undefined`
   * when none is declared. @default {() => undefined}
   */
  readonly agent?: (name: string) => { readonly profile: string } | undefined;
  /** The working directory of a session that has none recorded. */
  readonly defaultWorkingDirectory?: string;
}

/** What the supervisor remembers of a child. */
interface ChildRecord {
  readonly name: string;
  readonly kind: string;
  sessionId?: string;
  state: "queued" | "running" | "finished" | "failed";
  finalText: string;
  worktree?: Worktree;
  merged?: boolean;
}

type RunSessionResultInit = MessageInitShape<typeof RunSessionResultSchema>;

interface Slots {
  active: number;
  readonly waiters: (() => void)[];
}

interface Totals {
  input: number;
  output: number;
}

const STATUS_OF_TEXT = new Map<string, SessionStatus>(
  Object.entries(SESSION_STATUS_TEXT).map(([k, v]) => [v, Number(k)]),
);

function status(
  code: ConstructorParameters<typeof GrpcStatusError>[0],
  message: string,
): GrpcStatusError {
  return new GrpcStatusError(code, message);
}

/** Runs child sessions for `RunSession`. */
export class SubagentSupervisor {
  readonly #options: SubagentSupervisorOptions;
  readonly #slots = new Map<string, Slots>();
  readonly #totals = new Map<string, Totals>();
  readonly #inflight = new Set<Promise<unknown>>();
  readonly #closing = new AbortController();
  /** The children of each parent session, by name. */
  readonly #children = new Map<string, Map<string, ChildRecord>>();
  /** Each child session's parent and name. */
  readonly #parentOf = new Map<string, { parent: string; name: string }>();
  /** Generated names: the next counter per parent and kind. */
  readonly #counters = new Map<string, number>();

  /**
   * Creates the supervisor.
   *
   * @param options The registry, the deps and the profiles.
   */
  constructor(options: SubagentSupervisorOptions) {
    this.#options = options;
  }

  /** Children running now, across all parents. */
  get running(): number {
    let n = 0;
    for (const s of this.#slots.values()) n += s.active;
    return n;
  }

  /**
   * Runs a child session to its end (the `RunSession` handler).
   *
   * @param caller The calling plugin (authorized on the parent).
   * @param request The validated request.
   * @param signal Aborts when the caller cancels its call.
   * @returns The child's id, final message, status and subtree usage.
   * @throws {GrpcStatusError} `PERMISSION_DENIED` (parent not live or not
   * granted), `NOT_FOUND` (unknown profile), `INVALID_ARGUMENT` (widened
   * scope), `FAILED_PRECONDITION` (no depth left, or the profile cannot
   * run), `RESOURCE_EXHAUSTED` (no cost budget left), `CANCELLED`
   * (cancelled while queued).
   */
  run(
    caller: PluginIdentity,
    request: RunSessionRequest,
    signal: AbortSignal,
  ): Promise<RunSessionResultInit> {
    const p = this.#run(caller, request, signal);
    this.#inflight.add(p);
    const done = () => this.#inflight.delete(p);
    p.then(done, done);
    return p;
  }

  /**
   * Cancels every running child and waits until each has ended (its status
   * durably recorded).
   */
  async close(): Promise<void> {
    this.#closing.abort(new Error("the kernel is closing"));
    while (this.#inflight.size > 0) {
      await Promise.allSettled([...this.#inflight]);
    }
  }

  async #run(
    caller: PluginIdentity,
    request: RunSessionRequest,
    callSignal: AbortSignal,
  ): Promise<RunSessionResultInit> {
    const { registry } = this.#options;
    const parentId = request.parentSessionId;
    const parent = registry.authorize(caller, parentId);
    // A context provider's child (a compactor's summary) is a helper of
    // the context chain, not delegation: it needs no depth and gets none.
    const helper = caller.category === "context";
    if (!helper && !(parent.remainingDepth > 0)) {
      throw status(
        Code.FAILED_PRECONDITION,
        `session ${parentId} cannot spawn a sub-agent: its remaining depth is ${parent.remainingDepth}`,
      );
    }
    let profileName = request.profile;
    if (request.agent) {
      const named = this.#options.agent?.(request.agent);
      if (!named) {
        throw status(
          Code.NOT_FOUND,
          `no agent named "${request.agent}" is declared (an agent "${request.agent}" {} block in agent.hcl)`,
        );
      }
      profileName = named.profile;
    }
    let profile: SubagentProfile | undefined;
    try {
      profile = this.#options.profile(profileName);
    } catch (err) {
      throw status(
        Code.FAILED_PRECONDITION,
        `profile "${profileName}" cannot run: ${
          err instanceof Error ? err.message : String(err)
        }`,
      );
    }
    if (!profile) {
      throw status(
        Code.NOT_FOUND,
        `no agent_profile named "${profileName}" is declared`,
      );
    }
    const kind = request.agent || profileName;
    const record = this.#claimName(parentId, request.name || undefined, kind);
    const remainingDepth = helper ? 0 : childRemainingDepth(
      parent.remainingDepth,
      profile.maxDepth,
      request.remainingDepth,
    );
    let spec: SessionSpec;
    try {
      spec = capSpawnTools(
        narrowScope(profile.spec, request.scopedProviders),
        remainingDepth,
      );
    } catch (err) {
      this.#releaseName(parentId, record);
      throw err;
    }
    const budget = new CostBudget(
      request.remainingCostBudgetUsd > 0
        ? request.remainingCostBudgetUsd
        : undefined,
      parent.budget,
    );
    if (budget.exhausted) {
      this.#releaseName(parentId, record);
      throw status(
        Code.RESOURCE_EXHAUSTED,
        `session ${parentId} has no cost budget left for a sub-agent`,
      );
    }
    const signal = AbortSignal.any(
      [callSignal, parent.turnSignal, this.#closing.signal].filter((
        s,
      ): s is AbortSignal => s !== undefined),
    );
    const cap = parent.profile === undefined
      ? undefined
      : this.#options.profile(parent.profile)?.maxConcurrentSubagents;
    let release: () => void;
    try {
      release = await this.#acquire(
        parentId,
        cap ?? DEFAULT_MAX_CONCURRENT_SUBAGENTS,
        signal,
      );
    } catch (err) {
      this.#releaseName(parentId, record);
      throw err;
    }
    let childId: string | undefined;
    try {
      if (request.worktree) {
        try {
          record.worktree = await addWorktree(
            parent.workingDirectory ?? this.#options.defaultWorkingDirectory ??
              spec.workingDirectory,
            record.name,
          );
        } catch (err) {
          this.#releaseName(parentId, record);
          throw err;
        }
        spec = { ...spec, workingDirectory: record.worktree.path };
      }
      record.state = "running";
      const run = runSession(spec, this.#options.deps(), {
        prompt: request.prompt,
        signal,
        parentSessionId: parentId,
        depth: (parent.depth ?? 0) + 1,
        parentBudget: budget,
        remainingDepth,
      });
      let totals: Totals = { input: 0, output: 0 };
      try {
        for await (const e of run) {
          if (e.type === "session_started") {
            childId = e.sessionId;
            record.sessionId = childId;
            this.#parentOf.set(childId, {
              parent: parentId,
              name: record.name,
            });
            this.#totals.set(childId, totals);
            parent.onSubagent?.({
              state: "started",
              id: childId,
              kind,
            });
          } else if (e.type === "message" && e.usage) {
            totals.input += e.usage.inputTokens;
            totals.output += e.usage.outputTokens;
          }
        }
      } catch (err) {
        record.state = "failed";
        throw status(
          Code.FAILED_PRECONDITION,
          `the sub-agent of profile "${profileName}" cannot start: ${
            err instanceof Error ? err.message : String(err)
          }`,
        );
      }
      const result = await run.result;
      record.state = result.status === "completed" ? "finished" : "failed";
      record.finalText = result.finalText ?? "";
      parent.onSubagent?.(
        result.status === "completed"
          ? {
            state: "finished",
            id: result.sessionId,
            kind,
            rounds: result.turns,
            finalText: result.finalText,
          }
          : {
            state: "failed",
            id: result.sessionId,
            kind,
            rounds: result.turns,
            error: result.error?.message ??
              `the sub-agent ended ${result.status}`,
          },
      );
      totals = this.#totals.get(result.sessionId) ?? totals;
      // A grandchild's usage rolls into its parent's subtree totals.
      const up = this.#totals.get(parentId);
      if (up) {
        up.input += totals.input;
        up.output += totals.output;
      }
      return {
        sessionId: result.sessionId,
        ...(result.finalMessage ? { finalMessage: result.finalMessage } : {}),
        status: STATUS_OF_TEXT.get(result.status) ?? SessionStatus.FAILED,
        totalCostUsd: budget.spentUsd,
        totalInputTokens: BigInt(totals.input),
        totalOutputTokens: BigInt(totals.output),
        name: record.name,
        ...(record.worktree
          ? {
            worktreePath: record.worktree.path,
            worktreeBranch: record.worktree.branch,
          }
          : {}),
      };
    } finally {
      if (record.state === "running") record.state = "failed";
      if (childId !== undefined) this.#totals.delete(childId);
      release();
    }
  }

  /**
   * Takes a child name under a parent: the requested one, or
   * `<kind>-<n>`. A name is free when no child of the parent has it, or
   * when the one that had it ended without an unmerged worktree.
   */
  #claimName(
    parentId: string,
    requested: string | undefined,
    kind: string,
  ): ChildRecord {
    this.#prune();
    let children = this.#children.get(parentId);
    if (!children) {
      children = new Map();
      this.#children.set(parentId, children);
    }
    let name = requested ?? kind;
    if (requested === undefined) {
      // A generated name never reuses an earlier one.
      const key = `${parentId}\u0000${kind}`;
      const n = (this.#counters.get(key) ?? 0) + 1;
      this.#counters.set(key, n);
      name = `${kind}-${n}`;
    }
    const held = children.get(name);
    if (
      held &&
      (held.state === "queued" || held.state === "running" ||
        (held.worktree !== undefined && !held.merged))
    ) {
      throw status(
        Code.ALREADY_EXISTS,
        `session ${parentId} already has a sub-agent named "${name}" (${
          held.state === "finished" || held.state === "failed"
            ? "its worktree is not merged yet"
            : "still running"
        }): choose another name`,
      );
    }
    const record: ChildRecord = {
      name,
      kind,
      state: "queued",
      finalText: "",
    };
    children.set(name, record);
    return record;
  }

  /** Forgets the children of parents that are no longer live. */
  #prune(): void {
    const { registry } = this.#options;
    for (const parentId of this.#children.keys()) {
      if (registry.get(parentId)) continue;
      for (const r of this.#children.get(parentId)!.values()) {
        if (r.sessionId) this.#parentOf.delete(r.sessionId);
      }
      this.#children.delete(parentId);
      for (const key of this.#counters.keys()) {
        if (key.startsWith(`${parentId}\u0000`)) this.#counters.delete(key);
      }
    }
  }

  #releaseName(parentId: string, record: ChildRecord): void {
    const children = this.#children.get(parentId);
    if (children?.get(record.name) === record) children.delete(record.name);
  }

  /**
   * The children a parent spawned, in spawn order (`list_subagents`).
   *
   * @param parentId The parent session.
   * @returns Name, kind, state, session id and worktree of each.
   */
  childrenOf(parentId: string): {
    name: string;
    kind: string;
    state: string;
    sessionId?: string;
    worktreeBranch?: string;
  }[] {
    return [...this.#children.get(parentId)?.values() ?? []].map((r) => ({
      name: r.name,
      kind: r.kind,
      state: r.state,
      ...(r.sessionId ? { sessionId: r.sessionId } : {}),
      ...(r.worktree ? { worktreeBranch: r.worktree.branch } : {}),
    }));
  }

  /**
   * Merges a worktree child's branch into its parent's tree (the
   * `MergeWorktree` handler) and posts `<cp:worktree-merged>` to the parent.
   *
   * @param caller The calling plugin (authorized on the parent).
   * @param request The request.
   * @returns What the merge did.
   * @throws {GrpcStatusError} `NOT_FOUND` (no such child),
   * `FAILED_PRECONDITION` (no worktree, still running, already merged,
   * nothing to merge, or git refuses).
   */
  async mergeWorktree(
    caller: PluginIdentity,
    request: MergeWorktreeRequest,
  ): Promise<MessageInitShape<typeof MergeWorktreeResultSchema>> {
    const parent = this.#options.registry.authorize(caller, request.sessionId);
    const record = this.#children.get(request.sessionId)?.get(request.name);
    if (!record) {
      throw status(
        Code.NOT_FOUND,
        `session ${request.sessionId} has no sub-agent named "${request.name}"`,
      );
    }
    if (!record.worktree) {
      throw status(
        Code.FAILED_PRECONDITION,
        `sub-agent "${request.name}" did not run in a worktree`,
      );
    }
    if (record.state === "queued" || record.state === "running") {
      throw status(
        Code.FAILED_PRECONDITION,
        `sub-agent "${request.name}" is still running: wait for it before merging`,
      );
    }
    if (record.merged) {
      throw status(
        Code.FAILED_PRECONDITION,
        `the worktree of sub-agent "${request.name}" is already merged`,
      );
    }
    const kind = request.mergeCommit ? "merge" : "squash";
    const merge: WorktreeMerge = await mergeWorktree(
      record.worktree,
      record.name,
      record.finalText,
      kind,
    );
    if (merge.merged) {
      record.merged = true;
      parent.deliver?.({
        channel: "worktree-merged",
        attrs: {
          slug: record.name,
          branch: record.worktree.branch,
          commit: merge.commit,
          kind,
        },
        body: `${merge.diffstat}\n\n${record.finalText}`.trim(),
      });
    }
    return {
      merged: merge.merged,
      commit: merge.commit,
      branch: record.worktree.branch,
      diffstat: merge.diffstat,
      conflicts: [...merge.conflicts],
      report: record.finalText,
      kind,
    };
  }

  /**
   * Delivers a mailbox message from a session to its parent, a child or a
   * sibling, by name (the `SendMailbox` handler).
   *
   * @param caller The calling plugin (authorized on the sender).
   * @param request The request.
   * @returns The outcome and the recipient's session.
   * @throws {GrpcStatusError} `NOT_FOUND` (no such agent in the tree),
   * `FAILED_PRECONDITION` (the recipient has not started, or has ended).
   */
  sendMailbox(
    caller: PluginIdentity,
    request: SendMailboxRequest,
  ): MessageInitShape<typeof SendMailboxResultSchema> {
    const { registry } = this.#options;
    registry.authorize(caller, request.sessionId);
    const me = this.#parentOf.get(request.sessionId);
    const from = me?.name ?? "main";
    let recipient: string | undefined;
    if (request.to === "parent") {
      if (!me) {
        throw status(
          Code.NOT_FOUND,
          `session ${request.sessionId} is not a sub-agent: it has no parent to write to`,
        );
      }
      recipient = me.parent;
    } else {
      const record = this.#children.get(request.sessionId)?.get(request.to) ??
        (me ? this.#children.get(me.parent)?.get(request.to) : undefined);
      if (!record || record.sessionId === request.sessionId) {
        const known = [
          ...(me ? ["parent"] : []),
          ...this.#children.get(request.sessionId)?.keys() ?? [],
          ...(me ? this.#children.get(me.parent)?.keys() ?? [] : []),
        ].filter((n) => n !== from);
        throw status(
          Code.NOT_FOUND,
          `no agent named "${request.to}" is reachable from "${from}"${
            known.length ? ` (reachable: ${known.join(", ")})` : ""
          }`,
        );
      }
      if (record.state !== "running" || !record.sessionId) {
        throw status(
          Code.FAILED_PRECONDITION,
          `agent "${request.to}" is not running (${record.state}): a message reaches only a running agent`,
        );
      }
      recipient = record.sessionId;
    }
    const live = registry.get(recipient);
    if (!live?.deliver) {
      throw status(
        Code.FAILED_PRECONDITION,
        `agent "${request.to}" is not running: a message reaches only a running agent`,
      );
    }
    const outcome = live.deliver({
      channel: "mailbox",
      attrs: {
        from,
        to: request.to === "parent" ? this.#nameOf(recipient) : request.to,
      },
      body: request.text,
    });
    return { outcome, recipientSessionId: recipient };
  }

  #nameOf(sessionId: string): string {
    return this.#parentOf.get(sessionId)?.name ?? "main";
  }

  /** Waits for one of the parent's `cap` slots (FIFO). */
  async #acquire(
    parentId: string,
    cap: number,
    signal: AbortSignal,
  ): Promise<() => void> {
    let slots = this.#slots.get(parentId);
    if (!slots) {
      slots = { active: 0, waiters: [] };
      this.#slots.set(parentId, slots);
    }
    const s = slots;
    if (s.active >= cap) {
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          const i = s.waiters.indexOf(wake);
          if (i >= 0) s.waiters.splice(i, 1);
          reject(status(
            Code.CANCELLED,
            "the sub-agent was cancelled while it waited for a slot",
          ));
        };
        const wake = () => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        };
        if (signal.aborted) return onAbort();
        signal.addEventListener("abort", onAbort, { once: true });
        s.waiters.push(wake);
      });
    } else {
      s.active++;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = s.waiters.shift();
      if (next) return next(); // the slot passes to the next waiter
      s.active--;
      if (s.active === 0) this.#slots.delete(parentId);
    };
  }
}

/**
 * Narrows a profile's spec to the requested providers: tool providers not
 * named are dropped, and the model chain keeps only the named model
 * providers when any is named. Naming a provider the profile does not have
 * is `INVALID_ARGUMENT` (scope may narrow, never widen).
 */
function narrowScope(
  spec: SessionSpec,
  refs: RunSessionRequest["scopedProviders"],
): SessionSpec {
  if (refs.length === 0) return spec;
  const tools = spec.tools ?? new Map<string, readonly ToolSchema[]>();
  const models = new Set(spec.models.map((m) => m.provider));
  const keepTools = new Set<string>();
  const keepModels = new Set<string>();
  for (const ref of refs) {
    const inProfile = ref.category === Category.TOOL
      ? tools.has(ref.name)
      : ref.category === Category.MODEL
      ? models.has(ref.name)
      : false;
    if (!inProfile) {
      throw status(
        Code.INVALID_ARGUMENT,
        `scoped_providers may only narrow the profile's providers: "${ref.name}" (${
          Category[ref.category]
        }) is not in profile "${spec.profile}"`,
      );
    }
    (ref.category === Category.TOOL ? keepTools : keepModels).add(ref.name);
  }
  return {
    ...spec,
    tools: new Map([...tools].filter(([p]) => keepTools.has(p))),
    models: keepModels.size === 0
      ? spec.models
      : spec.models.filter((m) => keepModels.has(m.provider)),
  };
}
