/**
 * The kernel's single fallback token count: `ceil(utf8 bytes / 4)` over the
 * text blocks, with non-text blocks contributing nothing. There is exactly
 * one such formula in the codebase; every caller routes through it.
 *
 * @module
 */
import type { ContentBlock } from "../proto/gen/pluggableharness/content/v1/types_pb.ts";

const encoder = new TextEncoder();

/**
 * Counts tokens the way the kernel does when no exact tokenizer is
 * available: the UTF-8 byte length of all text blocks, summed, divided by
 * four and rounded up once.
 *
 * @example
 * ```ts
 * import { fallbackTokenCount } from "@ph/agent/kernel";
 * import { ContentBlockSchema } from "@ph/agent/proto/content";
 * import { create } from "@bufbuild/protobuf";
 * import assert from "node:assert/strict";
 *
 * const hello = create(ContentBlockSchema, { block: { case: "text", value: { text: "héllo" } } });
 * assert.equal(fallbackTokenCount([hello]), 2); // 6 UTF-8 bytes / 4, rounded up
 * ```
 *
 * @param blocks Content blocks; only text blocks count.
 * @returns The estimated token count.
 */
export function fallbackTokenCount(
  blocks: readonly Pick<ContentBlock, "block">[],
): number {
  let bytes = 0;
  for (const b of blocks) {
    if (b.block.case === "text") {
      bytes += encoder.encode(b.block.value.text).length;
    }
  }
  return Math.ceil(bytes / 4);
}
