/**
 * The fallback count is microseconds even for 10 KB of text, while one
 * CountTokens round trip is about 0.6 ms: caching fallback counts cannot
 * pay, so the kernel does not cache them (kernel-callbacks.md leaves this
 * open). Exact counts belong to model providers, which may cache.
 */
import { create } from "@bufbuild/protobuf";
import { ContentBlockSchema } from "../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { fallbackTokenCount } from "./tokens.ts";
const blocks = [
  create(ContentBlockSchema, {
    block: {
      case: "text",
      value: { text: "lorem ipsum dolor sit amet ".repeat(400) },
    },
  }),
];
Deno.bench("fallbackTokenCount of 10.8 KB of text", () => {
  fallbackTokenCount(blocks);
});
