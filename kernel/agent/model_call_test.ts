import assert from "node:assert/strict";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { StreamEventSchema } from "../../proto/gen/pluggableharness/model/v1/events_pb.ts";
import { StreamAccumulator } from "./stream_accumulator.ts";

const ev = (e: MessageInitShape<typeof StreamEventSchema>) =>
  create(StreamEventSchema, e);

Deno.test("two back-to-back signed thinking blocks keep their own text and signatures", () => {
  const acc = new StreamAccumulator();
  const sig = (s: string) => new TextEncoder().encode(s);
  acc.push(ev({ event: { case: "thinkingDelta", value: { text: "first " } } }));
  acc.push(ev({ event: { case: "thinkingDelta", value: { text: "block" } } }));
  acc.push(
    ev({
      event: { case: "thinkingSignature", value: { signature: sig("S1") } },
    }),
  );
  acc.push(ev({ event: { case: "thinkingDelta", value: { text: "second" } } }));
  acc.push(
    ev({
      event: { case: "thinkingSignature", value: { signature: sig("S2") } },
    }),
  );
  const { content } = acc.finish();
  assert.deepEqual(
    content.map((b) =>
      b.block.case === "thinking"
        ? [
          b.block.value.text,
          new TextDecoder().decode(b.block.value.signature),
        ]
        : b.block.case
    ),
    [["first block", "S1"], ["second", "S2"]],
  );
});
