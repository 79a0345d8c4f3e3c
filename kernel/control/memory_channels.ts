/**
 * The memory channels (seed 004): `memory` from the calls of a memory
 * provider's tools ({@linkcode postMemoryOutcome}: `remember` → save,
 * `forget` → delete, `search` → recall with its hit count) and
 * `memory-recall` from the records a turn's context assembly recalled
 * automatically ({@linkcode postMemoryRecall}: their names, scopes,
 * titles and age, with a staleness warning on old ones).
 *
 * @module
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { ControlPlane, PostOutcome } from "./control_plane.ts";

/** A record a memory provider recalled into a model request's context. */
export interface RecalledMemory {
  /** The memory provider's local name. */
  readonly provider: string;
  /** The record's id (its name). */
  readonly id: string;
  /** `user`, `feedback`, `project` or `reference`. */
  readonly type: string;
  /** `session`, `project` or `global`. */
  readonly scope: string;
  /** Its title (the one-line description). */
  readonly title: string;
  /** When it was last written (epoch ms), when the provider says. */
  readonly updatedAtMs?: number;
}

/** Days after which a recalled memory carries a staleness warning. */
export const MEMORY_STALE_DAYS = 30;

const DAY_MS = 86_400_000;

/**
 * Posts `memory` for a successful call of a memory provider's tool:
 * `remember` (created or updated) is a save, `forget` a delete, `search`
 * a recall with its hit count. A near-duplicate `remember` wrote nothing
 * and posts nothing; other tools post nothing.
 *
 * @param plane The session's control plane.
 * @param tool The tool's name.
 * @param args The call's arguments.
 * @param result The call's result.
 * @returns What happened to the message, or `undefined` when none was posted.
 */
export function postMemoryOutcome(
  plane: ControlPlane,
  tool: string,
  args: JsonObject,
  result: JsonObject,
): PostOutcome | undefined {
  const str = (v: unknown): string | undefined =>
    typeof v === "string" && v !== "" ? v : undefined;
  switch (tool) {
    case "remember": {
      if (result.status !== "created" && result.status !== "updated") {
        return undefined;
      }
      return plane.post({
        channel: "memory",
        attrs: {
          op: "save",
          scope: str(result.scope) ?? str(args.scope) ?? "project",
        },
        body: str(result.message) ??
          `Saved memory "${str(result.id) ?? "?"}".`,
      });
    }
    case "forget": {
      if (result.deleted !== true) return undefined;
      return plane.post({
        channel: "memory",
        attrs: { op: "delete", scope: str(result.scope) ?? "unknown" },
        body: `Deleted memory "${str(result.id) ?? "?"}"${
          str(result.title) ? `: ${result.title}` : ""
        }.`,
      });
    }
    case "search": {
      const hits = Array.isArray(result.results) ? result.results : [];
      const count = typeof result.count === "number"
        ? result.count
        : hits.length;
      const names = hits.flatMap((h) =>
        h && typeof h === "object" && !Array.isArray(h) &&
          typeof h.id === "string"
          ? [h.id]
          : []
      );
      return plane.post({
        channel: "memory",
        attrs: {
          op: "recall",
          scope: str(args.scope) ?? "all",
          "hit-count": count,
        },
        body: count
          ? `Recalled ${count} ${count === 1 ? "memory" : "memories"}: ${
            names.join(", ")
          }.`
          : `No memory matched ${JSON.stringify(str(args.query) ?? "")}.`,
      });
    }
  }
  return undefined;
}

/**
 * Posts the turn's `memory-recall`: how many records the assembly
 * recalled, their names, and one line each — name, scope, type, title,
 * the day it was last written and, past {@linkcode MEMORY_STALE_DAYS}, a
 * staleness warning. The records' contents are the request's
 * `memory:<type>:<id>` context sections, so the block does not repeat
 * them.
 *
 * @param plane The session's control plane.
 * @param recalled The records, in the chain's order.
 * @param now The clock (epoch ms).
 * @returns What happened to the message, or `undefined` without records.
 */
export function postMemoryRecall(
  plane: ControlPlane,
  recalled: readonly RecalledMemory[],
  now: number,
): PostOutcome | undefined {
  if (recalled.length === 0) return undefined;
  const lines = recalled.map((r) => {
    let line = `- ${r.id} (${r.scope}, ${r.type}): ${r.title}`;
    if (r.updatedAtMs !== undefined) {
      const days = Math.floor((now - r.updatedAtMs) / DAY_MS);
      line += ` — last written ${
        new Date(r.updatedAtMs).toISOString().slice(0, 10)
      }`;
      if (days > MEMORY_STALE_DAYS) {
        line +=
          ` (${days} days ago: it may be stale; check it before relying on it)`;
      }
    }
    return line;
  });
  return plane.post({
    channel: "memory-recall",
    attrs: {
      count: recalled.length,
      names: recalled.map((r) => r.id).join(","),
    },
    body: [
      ...lines,
      "Their contents are in this request's memory:<type>:<name> context sections.",
    ].join("\n"),
  });
}
