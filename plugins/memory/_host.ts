/**
 * The provider behind the three services: the {@linkcode Memory}, its
 * Configure, its Describe identity and the session-log events of tool
 * writes.
 *
 * @module
 */
import { create, type JsonObject, toBinary } from "@bufbuild/protobuf";
import type { Category } from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import { MemoryMutationEventSchema } from "../../proto/gen/pluggableharness/event/v1/events_pb.ts";
import { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import type { PluginContext, PluginManifest } from "../sdk/mod.ts";
import { Memory } from "./_memory.ts";
import type { StoredRecord } from "./_store.ts";

/** What the three services share. */
export interface MemoryHost {
  /** The provider. */
  memory: Memory;
  /** The plugin's manifest. */
  manifest: PluginManifest;
  /** The plugin's context (kernel callbacks, log). */
  ctx: PluginContext;
  /** Configure, shared by MemoryService and ToolService. */
  configure: (config: JsonObject | undefined) => void;
  /** The Describe response for a category. */
  producer: (category: Category) => ReturnType<typeof producerOf>;
  /** Best effort: the session log records the mutation (tool path). */
  emit: (
    sessionId: string,
    kind: EventKind,
    r: StoredRecord,
    signal: AbortSignal,
  ) => Promise<void>;
}

function producerOf(manifest: PluginManifest, category: Category) {
  return {
    producer: {
      name: manifest.name,
      version: manifest.version,
      source: manifest.source ?? "",
      category,
      protocolVersion: manifest.protocolVersion,
    },
  };
}

/** Builds the provider and what its services share. */
export function createHost(
  ctx: PluginContext,
  manifest: PluginManifest,
): MemoryHost {
  const memory = new Memory(async (texts) => {
    const kernel = await ctx.kernel();
    const res = await kernel.countTokens({
      content: texts.map((t) => ({
        block: { case: "text" as const, value: { text: t } },
      })),
    });
    return Number(res.count);
  });

  const producer = (category: Category) => producerOf(manifest, category);

  /** Best effort: the session log records the mutation (tool path). */
  const emit = async (
    sessionId: string,
    kind: EventKind,
    r: StoredRecord,
    signal: AbortSignal,
  ) => {
    if (!sessionId) return;
    try {
      const kernel = await ctx.kernel();
      await kernel.emit({
        sessionId,
        kind,
        schemaVersion: "1",
        payload: toBinary(
          MemoryMutationEventSchema,
          create(MemoryMutationEventSchema, {
            recordId: r.id,
            content: kind === EventKind.MEMORY_DELETE
              ? []
              : r.content.map((t) => ({
                block: { case: "text" as const, value: { text: t } },
              })),
            attributes: {
              type: r.type,
              scope: r.scope,
              title: r.title,
              status: r.status,
            },
          }),
        ),
      }, { signal });
    } catch (err) {
      ctx.log.warn("could not record the memory change in the session", {
        record: r.id,
        message: (err as Error).message,
      });
    }
  };

  const configure = (config: JsonObject | undefined) => {
    let cwd = ".";
    try {
      cwd = Deno.cwd();
    } catch {
      // no read access to the working directory: relative paths stay relative
    }
    memory.configure(config ?? {}, cwd);
  };
  return { memory, manifest, ctx, configure, producer, emit };
}
