/**
 * Kernel actions of slash commands: how a slash-command plugin reaches
 * session operations only the kernel holds (`/model`, `/plan`, `/compact`,
 * `/clear`, `/resume`, `/sessions`, `/verify`).
 *
 * The command runs like any other — a `CATEGORY_SLASHCOMMAND` plan item
 * through policy and the plan/apply gate, then the provider's `Invoke` —
 * and its `ToolResult.payload` names the action instead of doing it:
 * `{ "kernel_action": { "action": "plan", "on": true } }`. The kernel
 * carries the action out for the session (and the frontend) that invoked
 * the command, inside the same invocation, and the action's own result
 * (always with a `text`) replaces the payload: that is what the
 * `tool_result` event records and every attached frontend sees. A failed
 * action is the call's `ToolError`.
 *
 * Only a slash command's result is read this way (never a tool call's or
 * an action node's), and an action that changes the session (`model ID`,
 * `plan`, `compact`, `clear`, `resume`) only from a command declared
 * `kind = resource`, so policy always sees such a command as a mutation.
 *
 * @module
 */
import { create, type JsonObject } from "@bufbuild/protobuf";
import {
  type ToolEvent,
  ToolEventSchema,
} from "../../proto/gen/pluggableharness/tool/v1/events_pb.ts";
import { ToolErrorCategory } from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import {
  ToolKind,
  type ToolSchema,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { SessionStatus } from "../../proto/gen/pluggableharness/session/v1/types_pb.ts";
import type { PluginIdentity } from "../../contract/plugin_identity.ts";
import type { ToolEndpoint } from "../agent/endpoints.ts";
import { NO_COMPACTOR_REASON } from "../agent/turn.ts";
import type { VerifyResult } from "../state/session_store.ts";
import { SessionNotFoundError } from "../state/errors.ts";
import type { AgentSession } from "../agent/session.ts";
import { BOUND_STATUSES, type FrontendHub, type HubSession } from "./hub.ts";

/** The result field that names a kernel action. */
export const KERNEL_ACTION_FIELD = "kernel_action";

/** The kernel actions a slash command may name. */
export const KERNEL_ACTIONS: readonly string[] = [
  "model",
  "plan",
  "compact",
  "clear",
  "resume",
  "sessions",
  "verify",
];

/** How many sessions `/sessions` lists by default. */
export const DEFAULT_SESSIONS_LIMIT = 20;

/** A kernel action that failed, with the `ToolError` category to report. */
export class KernelActionError extends Error {
  /** The category of the call's `ToolError`. */
  readonly category: ToolErrorCategory;

  /**
   * Creates the error.
   *
   * @param category The `ToolError` category.
   * @param message What went wrong, for the operator.
   */
  constructor(category: ToolErrorCategory, message: string) {
    super(message);
    this.name = "KernelActionError";
    this.category = category;
  }
}

/** Who invoked the command, and how. */
export interface KernelActionContext {
  /** The command as the gate saw it (its kind decides what it may do). */
  readonly schema: ToolSchema;
  /** The command's provider (named in errors). */
  readonly provider: string;
  /**
   * The frontend plugin that sent `InvokeSlashCommand`: `/clear` and
   * `/resume` attach it to the session they open. Absent for the
   * in-process library (the CLI), whose session handle moves instead.
   */
  readonly caller?: PluginIdentity;
  /** Cancels the invocation. */
  readonly signal?: AbortSignal;
}

/**
 * Wraps a slash-command provider's endpoint so that a result naming a
 * kernel action is carried out and replaced by the action's result.
 *
 * @param endpoint The provider's `Invoke`, as a tool endpoint.
 * @param perform Carries an action out.
 * @returns The wrapped endpoint.
 */
export function withKernelActions(
  endpoint: ToolEndpoint,
  perform: (action: unknown, signal?: AbortSignal) => Promise<JsonObject>,
): ToolEndpoint {
  const wrapped: ToolEndpoint = {
    identity: endpoint.identity,
    schemas: (options) => endpoint.schemas(options),
    async *invoke(call, options): AsyncGenerator<ToolEvent> {
      for await (const ev of endpoint.invoke(call, options)) {
        const e = ev.event;
        if (
          e.case !== "result" ||
          e.value.payload?.[KERNEL_ACTION_FIELD] === undefined
        ) {
          yield ev;
          continue;
        }
        let payload: JsonObject;
        try {
          payload = await perform(
            e.value.payload[KERNEL_ACTION_FIELD],
            options?.signal,
          );
        } catch (err) {
          yield create(ToolEventSchema, {
            event: {
              case: "error",
              value: {
                category: err instanceof KernelActionError
                  ? err.category
                  : ToolErrorCategory.EXECUTION_FAILED,
                message: err instanceof Error ? err.message : String(err),
              },
            },
          });
          return;
        }
        yield create(ToolEventSchema, {
          event: { case: "result", value: { payload } },
        });
        return;
      }
    },
  };
  if (endpoint.preview) {
    const preview = endpoint.preview.bind(endpoint);
    return { ...wrapped, preview: (call, options) => preview(call, options) };
  }
  return wrapped;
}

const CHANGES_SESSION = new Set(["plan", "compact", "clear", "resume"]);

function invalid(message: string): KernelActionError {
  return new KernelActionError(ToolErrorCategory.INVALID_ARGUMENTS, message);
}

function liveAgent(h: HubSession): AgentSession {
  const agent = h.agent;
  if (!agent || agent.ended) {
    throw new KernelActionError(
      ToolErrorCategory.EXECUTION_FAILED,
      `Session "${h.sessionId}" takes no input (it ended, or is attached replay-only)`,
    );
  }
  return agent;
}

function statusName(status: SessionStatus): string {
  return (SessionStatus[status] ?? "UNSPECIFIED").toLowerCase();
}

/**
 * Carries one kernel action out for a session.
 *
 * @param hub The kernel's hub.
 * @param h The session the command was invoked in.
 * @param action The `kernel_action` value of the command's result.
 * @param context The command's schema, its provider, the caller, a signal.
 * @returns The action's result (with a `text`).
 * @throws {KernelActionError} For a malformed or refused action, or one
 * that failed.
 */
export async function performKernelAction(
  hub: FrontendHub,
  h: HubSession,
  action: unknown,
  context: KernelActionContext,
): Promise<JsonObject> {
  if (
    typeof action !== "object" || action === null || Array.isArray(action) ||
    typeof (action as JsonObject).action !== "string"
  ) {
    throw invalid(
      `The result of "${context.provider}.${context.schema.name}" has a malformed ${KERNEL_ACTION_FIELD}: expected an object with a string "action" (${
        KERNEL_ACTIONS.join(", ")
      })`,
    );
  }
  const a = action as JsonObject;
  const name = a.action as string;
  if (!KERNEL_ACTIONS.includes(name)) {
    throw invalid(
      `"${context.provider}.${context.schema.name}" names the unknown kernel action "${name}" (known: ${
        KERNEL_ACTIONS.join(", ")
      })`,
    );
  }
  const str = (field: string): string | undefined => {
    const v = a[field];
    if (v === undefined || v === null || v === "") return undefined;
    if (typeof v !== "string") {
      throw invalid(
        `Kernel action "${name}": "${field}" must be a string, not ${
          JSON.stringify(v)
        }`,
      );
    }
    return v;
  };
  const changes = CHANGES_SESSION.has(name) ||
    (name === "model" && str("id") !== undefined);
  if (changes && context.schema.kind !== ToolKind.RESOURCE) {
    throw new KernelActionError(
      ToolErrorCategory.PERMISSION_DENIED,
      `"/${context.schema.name}" of provider "${context.provider}" is not declared kind resource, so it may not change the session (kernel action "${name}")`,
    );
  }
  switch (name) {
    case "model":
      return model(hub, h, str("id"));
    case "plan": {
      const agent = liveAgent(h);
      const on = typeof a.on === "boolean" ? a.on : !agent.planMode;
      hub.setPlanMode(h, on);
      return {
        text: on
          ? "Plan mode on: the model gets read-only tools until /plan turns it off."
          : "Plan mode off: every tool of the profile is offered again.",
        plan_mode: on,
      };
    }
    case "compact":
      return await compact(liveAgent(h), context.signal);
    case "clear": {
      liveAgent(h);
      const next = await hub.reopen(h, {});
      hub.handOver(h, next, context.caller);
      return {
        text:
          `New session ${next.sessionId} (profile "${next.profile}"); the previous one is ${h.sessionId} (/resume ${h.sessionId} to go back).`,
        session_id: next.sessionId,
        previous_session_id: h.sessionId,
      };
    }
    case "resume":
      return await resume(hub, h, str("session_id"), context.caller);
    case "sessions":
      return await sessions(hub, h, a.limit);
    case "verify":
      return await verify(hub, str("session_id") ?? h.sessionId);
  }
  throw invalid(`Kernel action "${name}" is not carried out by this kernel`);
}

function model(
  hub: FrontendHub,
  h: HubSession,
  id: string | undefined,
): JsonObject {
  const agent = liveAgent(h);
  const names = () => agent.models.map((m) => `${m.provider}/${m.id}`);
  if (id === undefined) {
    const all = names();
    return {
      text: `Model: ${all[0]}${
        all.length > 1 ? ` (fallbacks: ${all.slice(1).join(", ")})` : ""
      }. Switch with /model ID, one of: ${all.join(", ")}.`,
      model: all[0]!,
      candidates: all,
    };
  }
  const matches = agent.models.filter((m) =>
    `${m.provider}/${m.id}` === id || m.id === id
  );
  if (matches.length !== 1) {
    throw invalid(
      matches.length === 0
        ? `"${id}" is not a model candidate of profile "${h.profile}": its candidates are ${
          names().join(", ")
        }`
        : `"${id}" names ${
          matches.map((m) => `${m.provider}/${m.id}`).join(" and ")
        }: write PROVIDER/ID`,
    );
  }
  const chosen = matches[0]!;
  agent.selectModel(chosen);
  hub.modelSelected(h, chosen);
  const all = names();
  return {
    text: `Model: ${all[0]} from the next model call${
      all.length > 1 ? ` (fallbacks: ${all.slice(1).join(", ")})` : ""
    }.`,
    model: all[0]!,
    candidates: all,
  };
}

async function compact(
  agent: AgentSession,
  signal: AbortSignal | undefined,
): Promise<JsonObject> {
  const o = await agent.compactNow(signal ? { signal } : {});
  if (!o.compacted && o.reason === NO_COMPACTOR_REASON) {
    throw new KernelActionError(
      ToolErrorCategory.EXECUTION_FAILED,
      "No compactor configured: the profile has no compaction provider (a compactor context provider such as builtin/compactor) to compact the context with.",
    );
  }
  const figures = {
    compacted: o.compacted,
    tokens_before: o.tokensBefore,
    tokens_after: o.tokensAfter,
    exact: o.exact,
  };
  if (!o.compacted) {
    return {
      text: `Nothing compacted: ${o.reason ?? "no change"}.`,
      ...figures,
    };
  }
  return {
    text:
      `Compacted by ${o.provider}: ${o.tokensBefore} → ${o.tokensAfter} tokens${
        o.exact ? "" : " (estimated)"
      }.`,
    ...figures,
    ...(o.provider ? { provider: o.provider } : {}),
  };
}

async function resume(
  hub: FrontendHub,
  h: HubSession,
  id: string | undefined,
  caller: PluginIdentity | undefined,
): Promise<JsonObject> {
  if (!id) throw invalid("Usage: /resume SESSION_ID (see /sessions)");
  if (id === h.sessionId) throw invalid(`Already in session ${id}`);
  liveAgent(h);
  let target = hub.get(id);
  if (!target?.agent || target.agent.ended) {
    const record = await hub._record(id);
    if (!record) {
      throw new KernelActionError(
        ToolErrorCategory.NOT_FOUND,
        `No session "${id}" in this kernel's session store (see /sessions)`,
      );
    }
    if (BOUND_STATUSES.has(record.status)) {
      throw new KernelActionError(
        ToolErrorCategory.EXECUTION_FAILED,
        `Session ${id} ended ${
          statusName(record.status)
        }: it takes no more input (replay it with agent sessions replay ${id})`,
      );
    }
    if (target) hub._forget(target); // a replay-only handle
    target = await hub.reopen(h, { resumeId: id, profile: record.profile });
  }
  hub.handOver(h, target, caller);
  return {
    text:
      `Resumed session ${id} (profile "${target.profile}", ${target.turnCount} turn${
        target.turnCount === 1 ? "" : "s"
      }).`,
    session_id: id,
    previous_session_id: h.sessionId,
  };
}

async function sessions(
  hub: FrontendHub,
  h: HubSession,
  limitValue: unknown,
): Promise<JsonObject> {
  const limit = limitValue === undefined
    ? DEFAULT_SESSIONS_LIMIT
    : typeof limitValue === "number" && Number.isInteger(limitValue) &&
        limitValue > 0
    ? limitValue
    : (() => {
      throw invalid(
        `Kernel action "sessions": "limit" must be a whole number above 0, not ${
          JSON.stringify(limitValue)
        }`,
      );
    })();
  const { sessions: all } = await hub._options.store.list({ rootsOnly: true });
  const shown = all.slice(0, limit);
  const lines = shown.map((s) =>
    `${s.sessionId}  ${
      statusName(s.status).padEnd(9)
    }  ${s.profile}  ${s.startedAt}${
      s.sessionId === h.sessionId ? "  (this session)" : ""
    }`
  );
  if (all.length > shown.length) {
    lines.push(
      `(${all.length - shown.length} older: agent sessions list)`,
    );
  }
  return {
    text: lines.length ? lines.join("\n") : "No sessions.",
    sessions: shown.map((s) => ({
      session_id: s.sessionId,
      status: statusName(s.status),
      profile: s.profile,
      started_at: s.startedAt,
      ...(s.endedAt ? { ended_at: s.endedAt } : {}),
      ...(s.costUsd !== undefined ? { cost_usd: s.costUsd } : {}),
    })),
    total: all.length,
  };
}

async function verify(hub: FrontendHub, id: string): Promise<JsonObject> {
  const live = hub._options.registry.get(id)?.log;
  let r: VerifyResult;
  try {
    r = live ? await live.verify() : await hub._options.store.verify(id);
  } catch (err) {
    if (err instanceof SessionNotFoundError) {
      throw new KernelActionError(
        ToolErrorCategory.NOT_FOUND,
        `No session "${id}" in this kernel's session store (see /sessions)`,
      );
    }
    throw err;
  }
  if (!r.ok) {
    return {
      text:
        `Session ${id}: broken: ${r.message} (${r.events} events verified before the break).`,
      session_id: id,
      ok: false,
      chain: r.chain,
      events: r.events,
      first_bad_sequence: r.firstBadSequence,
      reason: r.reason,
    };
  }
  const head = r.headCheck === "match"
    ? "the head kept outside the file matches"
    : r.headCheck === "behind"
    ? "the head kept outside the file names an earlier event (the kernel stopped between a commit and the head write)"
    : r.headCheck === "absent"
    ? "no head kept outside the file (a legacy session)"
    : "the head outside the file was not checked";
  return {
    text: `Session ${id}: ok, ${r.events} events chain to ${r.head} (${
      r.chain === "keyed"
        ? "keyed with the installation key"
        : "unkeyed legacy chain"
    }; ${head}).`,
    session_id: id,
    ok: true,
    chain: r.chain,
    events: r.events,
    head: r.head,
    head_check: r.headCheck,
  };
}
