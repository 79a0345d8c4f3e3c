import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { ContentBlockSchema } from "../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { fallbackTokenCount } from "./tokens.ts";

const text = (t: string) =>
  create(ContentBlockSchema, { block: { case: "text", value: { text: t } } });

Deno.test("fallbackTokenCount() is ceil(utf8 bytes / 4) over text blocks only", () => {
  assert.equal(fallbackTokenCount([]), 0);
  assert.equal(fallbackTokenCount([text("abcd")]), 1);
  assert.equal(fallbackTokenCount([text("abcde")]), 2);
  // "é" is 2 bytes, "€" is 3: UTF-8 bytes, not UTF-16 code units.
  assert.equal(fallbackTokenCount([text("é€")]), 2);
  // ceil is applied once, to the total.
  assert.equal(fallbackTokenCount([text("a"), text("b"), text("c")]), 1);
  const image = create(ContentBlockSchema, {
    block: {
      case: "image",
      value: { data: new Uint8Array(4000), mediaType: "image/png" },
    },
  });
  assert.equal(fallbackTokenCount([image, text("abcdefgh")]), 2);
});
