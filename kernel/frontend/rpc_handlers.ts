/**
 * The frontend RPC handlers of one callback connection, bound to the
 * caller's server-derived identity: request validation, who may call what
 * (docs/kernel.md §2.6a), and the mapping onto the {@linkcode FrontendHub}
 * operations that the in-process library calls too.
 *
 * @module
 */
import type { PluginIdentity } from "../../contract/plugin_identity.ts";
import {
  ClientDecision,
  PlanDecisionScope,
} from "../../proto/gen/pluggableharness/plan/v1/types_pb.ts";
import { SessionNotResumableError } from "../agent/errors.ts";
import { sessionInfoOf, storedEventOf } from "../state/_convert.ts";
import { fallbackTree } from "./render.ts";
import type { EventRecord } from "../state/session_store.ts";
import { SchemaTooNewError, SessionNotFoundError } from "../state/errors.ts";
import {
  type GrantHolder,
  sessionAccessDenied,
} from "../state/session_registry.ts";
import {
  Code,
  frontendError,
  FrontendErrorCategory,
  type FrontendHandlers,
  invalidRequest,
} from "../callback/frontend_surface.ts";
import {
  BOUND_STATUSES,
  type FrontendHub,
  type HubSession,
  notFound,
  replayOnlyError,
} from "./hub.ts";

/** Render calls in flight for one `RenderEvents` stream. */
const RENDER_WINDOW = 32;

function holderKey(h: GrantHolder): string {
  return `${h.category}/${h.name}`;
}

/**
 * The frontend RPC handlers for one connection.
 *
 * @param hub The kernel's hub.
 * @param caller The connection's identity.
 * @returns The handlers.
 */
export function frontendHandlers(
  hub: FrontendHub,
  caller: PluginIdentity,
): FrontendHandlers {
  const lifecycle = (rpc: string) => {
    if (caller.category !== "frontend") {
      throw frontendError(
        Code.PERMISSION_DENIED,
        FrontendErrorCategory.INVALID_REQUEST,
        `${rpc} is refused: only a frontend plugin manages sessions (this is a ${caller.category} plugin)`,
      );
    }
  };
  // Read surfaces: an attached frontend, or a plugin invoked in the session.
  const readable = (sessionId: string): HubSession => {
    const h = sessionId ? hub.get(sessionId) : undefined;
    if (
      !h ||
      !(h.attached.has(holderKey(caller)) ||
        hub._options.registry.isGranted(caller, sessionId))
    ) throw sessionAccessDenied();
    return h;
  };
  // Input surfaces: an attached frontend only.
  const attached = (sessionId: string): HubSession => {
    const h = sessionId ? hub.get(sessionId) : undefined;
    if (!h || !h.attached.has(holderKey(caller))) {
      throw sessionAccessDenied();
    }
    return h;
  };
  const infoOf = async (h: HubSession) => {
    const r = await hub._record(h.sessionId);
    if (!r) throw notFound(h.sessionId);
    return sessionInfoOf(r);
  };

  return {
    getSessionState: async (req) => ({
      state: await hub.state(readable(req.sessionId)),
    }),

    submitInput: async (req) => {
      const h = attached(req.sessionId);
      if (h.replayOnly) throw replayOnlyError(h.sessionId);
      const { text, extra } = await hub._checkContent(h, req.content);
      const { turnId } = hub.submit(h, text, {
        events: false,
        ...(extra.length ? { extraContent: extra } : {}),
        ...(req.planMode !== undefined ? { planMode: req.planMode } : {}),
      });
      return { turnId };
    },

    resolvePlanDecision: (req) => {
      const h = attached(req.sessionId);
      const decision = req.decision === ClientDecision.ALLOW
        ? "allow"
        : req.decision === ClientDecision.DENY
        ? "deny"
        : undefined;
      if (!decision) throw invalidRequest("decision must be ALLOW or DENY");
      const scope = req.scope === PlanDecisionScope.ONCE
        ? "once"
        : req.scope === PlanDecisionScope.SESSION
        ? "session"
        : req.scope === PlanDecisionScope.ALWAYS
        ? "always"
        : undefined;
      if (!scope) {
        throw invalidRequest("scope must be ONCE, SESSION or ALWAYS");
      }
      hub.decide(h, req.planItemId, {
        decision,
        scope,
        ...(req.correctedInput !== undefined
          ? { input: req.correctedInput }
          : {}),
      });
      return {};
    },

    interrupt: (req) => {
      hub.interrupt(attached(req.sessionId));
      return {};
    },

    createSession: async (req) => {
      lifecycle("CreateSession");
      if (
        req.workingDirectory !== undefined &&
        !req.workingDirectory.startsWith("/")
      ) {
        throw invalidRequest(
          `working_directory must be absolute: "${req.workingDirectory}"`,
        );
      }
      let h: HubSession;
      try {
        h = await hub.open({
          ...(req.profile ? { profile: req.profile } : {}),
          ...(req.workingDirectory
            ? { workingDirectory: req.workingDirectory }
            : {}),
          ...(req.planMode ? { planMode: true } : {}),
          onAsk: "callback",
        });
      } catch (err) {
        throw frontendError(
          Code.FAILED_PRECONDITION,
          FrontendErrorCategory.SESSION_CREATE_FAILED,
          `Cannot create a session${
            req.profile ? ` of profile "${req.profile}"` : ""
          }: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
      hub._attach(h, caller);
      if (req.initialPrompt) {
        hub.submit(h, req.initialPrompt, { events: false });
      }
      return { info: await infoOf(h) };
    },

    attachSession: async (req) => {
      lifecycle("AttachSession");
      if (!req.sessionId) throw invalidRequest("session_id is required");
      let h = hub.get(req.sessionId);
      if (!h) {
        const record = await hub._record(req.sessionId);
        if (!record) throw notFound(req.sessionId);
        h = await hub._openReplayOnly(record);
      }
      hub._attach(h, caller);
      return { info: await infoOf(h) };
    },

    resumeSession: async (req) => {
      lifecycle("ResumeSession");
      if (!req.sessionId) throw invalidRequest("session_id is required");
      let h = hub.get(req.sessionId);
      if (!h || (h.agent === undefined && !h.attached.size)) {
        const record = await hub._record(req.sessionId);
        if (!record) throw notFound(req.sessionId);
        if (BOUND_STATUSES.has(record.status)) {
          h = await hub._openReplayOnly(record);
        } else {
          if (h) hub._forget(h);
          try {
            h = await hub.open({
              resumeId: req.sessionId,
              ...(req.planMode ? { planMode: true } : {}),
              onAsk: "callback",
            });
          } catch (err) {
            if (err instanceof SessionNotResumableError) {
              h = await hub._openReplayOnly(record);
            } else if (err instanceof SchemaTooNewError) {
              throw frontendError(
                Code.FAILED_PRECONDITION,
                FrontendErrorCategory.SCHEMA_TOO_NEW,
                err.message,
              );
            } else if (err instanceof SessionNotFoundError) {
              throw notFound(req.sessionId);
            } else {
              throw frontendError(
                Code.FAILED_PRECONDITION,
                FrontendErrorCategory.SESSION_CREATE_FAILED,
                `Cannot resume session "${req.sessionId}": ${
                  err instanceof Error ? err.message : String(err)
                }`,
              );
            }
          }
        }
      }
      hub._attach(h, caller);
      return { info: await infoOf(h) };
    },

    detachSession: (req) => {
      if (!req.sessionId) throw invalidRequest("session_id is required");
      const h = hub.get(req.sessionId);
      const k = holderKey(caller);
      const release = h?.attached.get(k);
      if (!h || !release) {
        throw frontendError(
          Code.FAILED_PRECONDITION,
          FrontendErrorCategory.INVALID_REQUEST,
          `This plugin is not attached to session "${req.sessionId}"`,
        );
      }
      release();
      h.attached.delete(k);
      if (h.attached.size === 0) h.agent?.setHeadless(true);
      return {};
    },

    listSessions: async (req) => {
      lifecycle("ListSessions");
      return { sessions: await hub.list(req) };
    },

    publishMetadata: (req) => {
      const h = readable(req.sessionId);
      return { block: hub.metadata.publish(h.sessionId, caller, req.block) };
    },

    retractMetadata: (req) => {
      const h = readable(req.sessionId);
      return {
        block: hub.metadata.retract(h.sessionId, caller, req.blockId),
      };
    },

    listMetadata: (req) => ({
      blocks: hub.metadata.list(readable(req.sessionId).sessionId),
    }),

    streamDeltas: async function* (this: void, req, ctx) {
      const sub = readable(req.sessionId).deltas.subscribe(ctx.signal);
      try {
        for await (const d of sub) yield d;
      } finally {
        sub.close();
      }
    },

    renderEvents: async function* (this: void, req, ctx) {
      const h = readable(req.sessionId);
      if (req.limit !== undefined && req.limit < 0) {
        throw invalidRequest("limit must not be negative");
      }
      if (req.fromSequence !== undefined && req.fromSequence < 0n) {
        throw invalidRequest("from_sequence must not be negative");
      }
      const log = hub._log(h);
      if (!log) throw notFound(h.sessionId);
      const render = hub._options.render;
      const rendered = (e: EventRecord) =>
        render
          ? render.render(e, { sessionId: h.sessionId, signal: ctx.signal })
          : Promise.resolve({
            tree: fallbackTree(e, "this kernel has no render pipeline"),
            fallback: "this kernel has no render pipeline",
          });
      // Up to RENDER_WINDOW Render calls in flight, answered in sequence
      // order: a replay of thousands of events is not a chain of round trips.
      const window: { e: EventRecord; r: ReturnType<typeof rendered> }[] = [];
      const out = async function* () {
        const { e, r } = window.shift()!;
        const done = await r;
        yield {
          event: storedEventOf(e),
          tree: done.tree,
          fallback: done.fallback ?? "",
        };
      };
      for await (
        const e of log.readEvents({
          ...(req.fromSequence !== undefined
            ? { fromSequence: Number(req.fromSequence) }
            : {}),
          ...(req.limit !== undefined ? { limit: req.limit } : {}),
        })
      ) {
        if (ctx.signal.aborted) return;
        const r = rendered(e);
        r.catch(() => {});
        window.push({ e, r });
        if (window.length >= RENDER_WINDOW) yield* out();
      }
      while (window.length) {
        if (ctx.signal.aborted) return;
        yield* out();
      }
    },

    verifySession: async (req) => {
      const h = readable(req.sessionId);
      const log = hub._log(h);
      if (!log) throw notFound(h.sessionId);
      const r = await log.verify();
      return r.ok
        ? {
          ok: true,
          chain: r.chain,
          events: BigInt(r.events),
          firstBadSequence: 0n,
          summary: `ok: ${r.events} events, ${
            r.chain === "keyed" ? "keyed" : "unkeyed (legacy)"
          } chain valid, head ${
            r.headCheck === "match"
              ? "matches"
              : r.headCheck === "behind"
              ? "behind (the kernel stopped between a commit and the head write)"
              : r.headCheck
          }`,
        }
        : {
          ok: false,
          chain: r.chain,
          events: BigInt(r.events),
          firstBadSequence: BigInt(r.firstBadSequence),
          summary: `broken: ${r.message}`,
        };
    },

    invokeSlashCommand: async (req) => {
      const h = attached(req.sessionId);
      await hub.invokeSlashCommand(h, req.name, req.args, { caller })
        .outcome;
      return {};
    },

    triggerAction: async (req) => {
      const h = attached(req.sessionId);
      if (!req.nodeId) throw invalidRequest("node_id is required");
      if (!req.toolName) throw invalidRequest("tool_name is required");
      if (!req.provider) throw invalidRequest("provider is required");
      const action = h.actions.get(req.nodeId);
      if (!action) {
        throw frontendError(
          Code.NOT_FOUND,
          FrontendErrorCategory.INVALID_REQUEST,
          `No action node "${req.nodeId}" was rendered in session "${h.sessionId}"`,
        );
      }
      if (
        action.toolName !== req.toolName || action.provider !== req.provider
      ) {
        throw invalidRequest(
          `Action node "${req.nodeId}" invokes "${action.provider}.${action.toolName}", not "${req.provider}.${req.toolName}": send the node's fields unchanged`,
        );
      }
      if (h.replayOnly) throw replayOnlyError(h.sessionId);
      const entry = h.agent?.toolEntry(action.provider, action.toolName);
      if (!entry) {
        throw frontendError(
          Code.FAILED_PRECONDITION,
          FrontendErrorCategory.INVALID_REQUEST,
          `Cannot trigger action "${req.nodeId}": "${action.provider}.${action.toolName}" is not a tool of session "${h.sessionId}" (out of the profile's scope, or a resource tool in plan mode)`,
        );
      }
      await hub.invoke(h, {
        provider: entry.provider,
        schema: entry.schema,
        endpoint: entry.endpoint,
        arguments: action.args,
      }).outcome;
      return {};
    },
  };
}
