/**
 * `agent sessions export` and `agent sessions push`: a session's stored
 * events as JSON lines, and the copy of local sessions into the shared
 * PostgreSQL store with their chains verified on both sides.
 *
 * @module
 */
import type { SessionStore } from "../../kernel/state/session_store.ts";
import { SESSION_STATUS_TEXT } from "../../kernel/state/session_store.ts";
import type { StoredHashedEvent } from "../../kernel/state/hash_chain.ts";
import { eventKindInfo } from "../../kernel/state/event_kinds.ts";
import type { PostgresSessionStore } from "../../kernel/state/postgres_session_store.ts";
import { SessionExistsError } from "../../kernel/state/errors.ts";

function base64(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i += 0x8000) {
    s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  }
  return btoa(s);
}

/**
 * Writes a session as JSON lines: first the session record, then one line
 * per event in sequence order (payload in base64, with its cost and plan
 * rows).
 *
 * @param store The store (either backend).
 * @param sessionId The session.
 * @param out Receives each line.
 * @returns The number of events written.
 */
export async function exportSessionJsonl(
  store: SessionStore,
  sessionId: string,
  out: (line: string) => void,
): Promise<number> {
  const events = await sessionEvents(store, sessionId);
  await using log = await store.open(sessionId);
  const info = await log.info();
  out(`${
    JSON.stringify({
      type: "session",
      ...info,
      status: SESSION_STATUS_TEXT[info.status],
    })
  }\n`);
  for (const e of events) {
    out(`${
      JSON.stringify({
        type: "event",
        sequence: e.sequence,
        id: e.id,
        timestamp: e.timestamp,
        kind: e.kind,
        producer: {
          category: e.producerCategory,
          name: e.producerName,
          version: e.producerVersion,
        },
        schemaVersion: e.schemaVersion,
        payload: base64(e.payload),
        ...(e.cost && e.cost.length > 0 ? { cost: e.cost } : {}),
        ...(e.planItems && e.planItems.length > 0
          ? { planItems: e.planItems }
          : {}),
      })
    }\n`);
  }
  return events.length;
}

/** A session's events as the chain hashes them (kind as text, rows attached). */
export async function sessionEvents(
  store: SessionStore,
  sessionId: string,
): Promise<Omit<StoredHashedEvent, "hash">[]> {
  await using log = await store.open(sessionId);
  const costs = await log.costLedger();
  const plans = await log.planItems();
  const out: Omit<StoredHashedEvent, "hash">[] = [];
  for await (const e of log.readEvents()) {
    out.push({
      sequence: e.sequence,
      id: e.id,
      timestamp: e.timestamp,
      kind: eventKindInfo(e.kind).text,
      producerCategory: e.producer.category,
      producerName: e.producer.name,
      producerVersion: e.producer.version,
      schemaVersion: e.schemaVersion,
      payload: e.payload,
      cost: costs.filter((c) => c.eventSequence === e.sequence).map((c) => ({
        providerName: c.providerName,
        modelId: c.modelId,
        inputTokens: c.inputTokens,
        outputTokens: c.outputTokens,
        cacheWriteTokens: c.cacheWriteTokens,
        cacheReadTokens: c.cacheReadTokens,
        costUsd: c.costUsd,
      })),
      planItems: plans.filter((p) => p.eventSequence === e.sequence).map((
        p,
      ) => ({
        turnId: p.turnId,
        toolCallId: p.toolCallId,
        providerName: p.providerName,
        toolName: p.toolName,
        decision: p.decision,
        decidedBy: p.decidedBy,
      })),
    });
  }
  return out;
}

/** What happened to one session of a push. */
export type PushOutcome =
  | { readonly sessionId: string; readonly result: "copied"; events: number }
  | { readonly sessionId: string; readonly result: "present" }
  | { readonly sessionId: string; readonly result: "refused"; why: string };

/**
 * Copies local sessions into the shared store: each must verify locally
 * (keyed chain, head matching), is copied in one transaction, and must
 * verify again there. A session already there is left alone; a running
 * one is refused (its kernel still writes it).
 *
 * @param local The local store.
 * @param shared The shared store.
 * @param ids The sessions to copy.
 * @returns One outcome per session.
 */
export async function pushSessions(
  local: SessionStore,
  shared: PostgresSessionStore,
  ids: readonly string[],
): Promise<PushOutcome[]> {
  const out: PushOutcome[] = [];
  const records = new Map(
    (await local.list()).sessions.map((s) => [s.sessionId, s]),
  );
  for (const sessionId of ids) {
    const record = records.get(sessionId);
    if (!record) {
      out.push({ sessionId, result: "refused", why: "no such local session" });
      continue;
    }
    if (
      SESSION_STATUS_TEXT[record.status] === "running" && !record.interrupted
    ) {
      out.push({
        sessionId,
        result: "refused",
        why: "it is running (push it once it has ended)",
      });
      continue;
    }
    const v = await local.verify(sessionId);
    if (!v.ok || v.chain !== "keyed") {
      out.push({
        sessionId,
        result: "refused",
        why: v.ok
          ? "its chain is unkeyed (legacy): it cannot be proven intact"
          : `its chain is broken locally: ${v.message}`,
      });
      continue;
    }
    try {
      const events = await shared.importSession(
        record,
        await sessionEvents(local, sessionId),
        v.head,
      );
      const there = await shared.verify(sessionId);
      if (!there.ok || there.head !== v.head) {
        out.push({
          sessionId,
          result: "refused",
          why: `it does not verify in the shared store after the copy${
            there.ok ? "" : `: ${there.message}`
          }`,
        });
        continue;
      }
      out.push({ sessionId, result: "copied", events });
    } catch (error) {
      if (error instanceof SessionExistsError) {
        out.push({ sessionId, result: "present" });
      } else {
        out.push({
          sessionId,
          result: "refused",
          why: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }
  return out;
}
