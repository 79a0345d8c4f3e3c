/**
 * The memory tools' calls: argument checks and what `remember`, `forget`
 * and `search` do.
 *
 * @module
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import {
  MemoryFailure,
  type Origin,
  type Ranked,
  scopeArg,
  typeArg,
} from "./_memory.ts";
import type { MemoryHost } from "./_host.ts";

/** Rejects arguments the tool does not take. */
export function toolArgs(
  args: JsonObject,
  allowed: string[],
  tool: string,
): void {
  const extra = Object.keys(args).filter((k) => !allowed.includes(k));
  if (extra.length) {
    throw new MemoryFailure(
      "invalid_request",
      `${tool}: unknown argument "${extra[0]}" (allowed: ${
        allowed.join(", ")
      })`,
    );
  }
}

/** A string argument, checked (`required`: present and not blank). */
export function strArg(
  args: JsonObject,
  key: string,
  tool: string,
  required: boolean,
): string | undefined {
  const v = args[key];
  if (v === undefined || v === null) {
    if (required) {
      throw new MemoryFailure(
        "invalid_request",
        `${tool}: "${key}" is required`,
      );
    }
    return undefined;
  }
  if (typeof v !== "string" || (required && v.trim() === "")) {
    throw new MemoryFailure(
      "invalid_request",
      `${tool}: "${key}" must be a non-empty string, not ${JSON.stringify(v)}`,
    );
  }
  return v;
}

/** A `search` hit as the tool returns it. */
export function searchResult(r: Ranked): JsonObject {
  return {
    id: r.record.id,
    title: r.record.title,
    type: r.record.type,
    scope: r.record.scope,
    status: r.record.status,
    score: Math.round(r.score * 1000) / 1000,
    content: r.record.content.join("\n"),
    links: r.record.links,
  };
}

/** Runs a memory tool call and returns its result. */
export async function invokeTool(
  host: MemoryHost,
  tool: string,
  args: JsonObject,
  origin: Origin,
  signal: AbortSignal,
): Promise<JsonObject> {
  const { memory, emit } = host;
  switch (tool) {
    case "remember": {
      toolArgs(args, [
        "title",
        "content",
        "type",
        "scope",
        "id",
        "update_id",
        "force",
      ], tool);
      const force = args.force ?? false;
      if (typeof force !== "boolean") {
        throw new MemoryFailure(
          "invalid_request",
          `remember: "force" must be true or false, not ${
            JSON.stringify(force)
          }`,
        );
      }
      const id = strArg(args, "id", tool, false);
      const updateId = strArg(args, "update_id", tool, false);
      const out = await memory.remember({
        title: strArg(args, "title", tool, true)!,
        content: strArg(args, "content", tool, true)!,
        type: typeArg(args.type),
        scope: scopeArg(args.scope, "project"),
        ...(id !== undefined ? { id } : {}),
        ...(updateId !== undefined ? { updateId } : {}),
        force,
      }, origin);
      if (out.status === "near_duplicate") {
        return {
          status: out.status,
          message: `Not saved: ${
            out.candidates.length === 1
              ? "a similar memory exists"
              : `${out.candidates.length} similar memories exist`
          } (${
            out.candidates.map((c) => c.record.id).join(", ")
          }). If it says the same, do nothing; if yours corrects or extends it, call remember again with update_id set to its id; if yours is really different, call again with force true.`,
          candidates: out.candidates.map((c) => ({
            id: c.record.id,
            title: c.record.title,
            content: c.record.content.join("\n"),
            similarity: Math.round(c.score * 1000) / 1000,
          })),
        };
      }
      await emit(
        origin.sourceSessionId,
        out.status === "created"
          ? EventKind.MEMORY_WRITE
          : EventKind.MEMORY_UPDATE,
        out.record,
        signal,
      );
      return {
        status: out.status,
        message: `${
          out.status === "created" ? "Saved" : "Updated"
        } memory "${out.record.id}"${
          out.record.status === "pending" ? " (pending review)" : ""
        }.`,
        id: out.record.id,
        record_status: out.record.status,
        scope: out.record.scope,
      };
    }
    case "forget": {
      toolArgs(args, ["id"], tool);
      const r = memory.delete(strArg(args, "id", tool, true)!);
      await emit(origin.sourceSessionId, EventKind.MEMORY_DELETE, r, signal);
      return { id: r.id, title: r.title, scope: r.scope, deleted: true };
    }
    case "search": {
      toolArgs(args, ["query", "type", "scope", "limit"], tool);
      const limit = args.limit ?? 5;
      if (
        typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 ||
        limit > 20
      ) {
        throw new MemoryFailure(
          "invalid_request",
          `search: "limit" must be an integer from 1 to 20, not ${
            JSON.stringify(limit)
          }`,
        );
      }
      const found = memory.search({
        query: strArg(args, "query", tool, true)!,
        types: args.type === undefined ? [] : [typeArg(args.type)],
        scopes: args.scope === undefined ? [] : [scopeArg(args.scope)],
        limit,
        sessionId: origin.sourceSessionId,
      });
      return { results: found.map(searchResult), count: found.length };
    }
    default:
      throw new MemoryFailure(
        "invalid_request",
        `Unknown tool ${
          JSON.stringify(tool)
        }: this provider has remember, forget and search`,
      );
  }
}
