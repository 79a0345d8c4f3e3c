/**
 * Replay items of the Render pipeline as the library API shows them
 * (`KernelSessions.render`): kinds as text, trees as protobuf
 * JSON.
 *
 * @module
 */
import { toJson } from "@bufbuild/protobuf";
import { RenderTreeSchema } from "../proto/gen/pluggableharness/render/v1/types_pb.ts";
import type { ReplayRenderItem } from "./api.ts";
import type { ReplayItem } from "./frontend/render.ts";
import { eventKindInfo } from "./state/event_kinds.ts";

/**
 * A replay item as the library API shows it: kinds as text, trees as
 * protobuf JSON.
 *
 * @param item The item.
 * @returns The API shape.
 */
export function replayRenderItemOf(item: ReplayItem): ReplayRenderItem {
  if (item.type === "missing_producers") {
    return {
      type: "missing_producers",
      missing: item.missing.map((p) => ({
        category: p.category,
        name: p.name,
        version: p.version,
      })),
    };
  }
  const e = item.event;
  return {
    type: "event",
    sequence: e.sequence,
    id: e.id,
    kind: eventKindInfo(e.kind).text,
    producer: e.producer,
    tree: toJson(RenderTreeSchema, item.tree),
    ...(item.fallback !== undefined ? { fallback: item.fallback } : {}),
  };
}
