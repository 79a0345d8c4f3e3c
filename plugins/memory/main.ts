/**
 * `memory`: the first-party memory provider (plugins.md §6.4), backed by
 * one SQLite file (`node:sqlite`).
 *
 * One process serves three services on its connection:
 *
 * - `MemoryService`: GetCapabilities, Configure, Recall, Record,
 *   UpdateRecord, DeleteRecord, ApproveRecord/RejectRecord (with
 *   `review_writes`), ListRecords, GetRecord, Describe;
 * - `ToolService`: `remember` (resource, low; with a near-duplicate check),
 *   `forget` (resource, moderate) and `search` (data source, read only),
 *   which the kernel offers the model as `<provider>.remember` etc.;
 * - `HookSubscriberService`: `post-model-response` and `session-end`, in
 *   observe mode.
 *
 * Slugs are made from the suggested id or the title and made unique with
 * `-2`, `-3`, …; `[[name]]` links are parsed on every write; `tokens` come
 * from the kernel's CountTokens callback; provenance is written once.
 * Errors are gRPC statuses whose code follows the MemoryErrorCategory
 * table and whose message starts with the category (`not_found: …`).
 * See README.md for the contract with the kernel.
 *
 * Run it only through the kernel; started by hand it explains itself and
 * exits 1.
 *
 * @module
 */
import {
  parseManifest,
  type PluginContext,
  serve,
  type service,
} from "../sdk/mod.ts";
import { createHost } from "./_host.ts";
import { hookService } from "./_hook_service.ts";
import { memoryService } from "./_memory_service.ts";
import { toolService } from "./_tool_service.ts";
import { toolSchema } from "./_tool_schema.ts";
import manifestJson from "./plugin.json" with { type: "json" };

export { METADATA } from "./_wire.ts";

const manifest = parseManifest(manifestJson, "memory/plugin.json");
const TOOLS = toolSchema(manifest);

/** Builds the three services over one memory provider. */
function services(
  ctx: PluginContext,
): { bindings: ReturnType<typeof service>[]; close: () => void } {
  const host = createHost(ctx, manifest);
  const bindings = [
    memoryService(host),
    toolService(host, TOOLS),
    hookService(host),
  ];
  return { bindings, close: () => host.memory.close() };
}

if (import.meta.main) {
  let close: (() => void) | undefined;
  await serve({
    identity: {
      name: manifest.name,
      version: manifest.version,
      category: "memory",
    },
    services: (ctx) => {
      const built = services(ctx);
      close = built.close;
      return built.bindings;
    },
    onShutdown: () => close?.(),
  });
}
