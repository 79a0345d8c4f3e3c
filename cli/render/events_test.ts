import assert from "node:assert/strict";
import { create, toJson } from "@bufbuild/protobuf";
import {
  RenderTreeSchema,
  TextStyle,
} from "../../proto/gen/pluggableharness/render/v1/types_pb.ts";
import { EventRenderer, renderTreeLines, styleFor } from "./events.ts";

function textTree(style?: TextStyle) {
  return toJson(
    RenderTreeSchema,
    create(RenderTreeSchema, {
      root: {
        node: {
          case: "text",
          value: { content: "hi", ...(style ? { style } : {}) },
        },
      },
    }),
  );
}

Deno.test("renderTreeLines() paints every TextStyle as protobuf JSON writes it (TEXT_STYLE_BOLD, …)", async (t) => {
  const style = styleFor(true);
  for (
    const [s, expected] of [
      [TextStyle.BOLD, "\x1b[1mhi\x1b[22m"],
      [TextStyle.ITALIC, "\x1b[3mhi\x1b[23m"],
      [TextStyle.CODE, "\x1b[36mhi\x1b[39m"],
      [TextStyle.DIM, "\x1b[2mhi\x1b[22m"],
      [TextStyle.ERROR, "\x1b[31mhi\x1b[39m"],
      [TextStyle.WARNING, "\x1b[33mhi\x1b[39m"],
      [TextStyle.SUCCESS, "\x1b[32mhi\x1b[39m"],
      [TextStyle.NORMAL, "hi"],
      [undefined, "hi"],
    ] as const
  ) {
    await t.step(s === undefined ? "unset" : TextStyle[s], () => {
      assert.deepEqual(renderTreeLines(textTree(s), style), [expected]);
    });
  }
  await t.step("a numeric style paints the same", () => {
    assert.deepEqual(
      renderTreeLines({ root: { text: { content: "hi", style: 2 } } }, style),
      ["\x1b[1mhi\x1b[22m"],
    );
  });
  await t.step("without colour every style is plain", () => {
    assert.deepEqual(
      renderTreeLines(textTree(TextStyle.BOLD), styleFor(false)),
      ["hi"],
    );
  });
});

Deno.test("renderTreeLines() shows a node it does not know instead of dropping it", () => {
  assert.deepEqual(
    renderTreeLines({ root: { hologram: { x: 1 } } }, styleFor(false)),
    ['[unsupported node: {"hologram":{"x":1}}]'],
  );
});

Deno.test("a memory-recall control event is one line naming the recalled memories", () => {
  const err: string[] = [];
  const r = new EventRenderer(
    { out: () => {}, err: (t) => err.push(t) },
    styleFor(false),
  );
  r.render({
    type: "control",
    channel: "memory-recall",
    direction: "system_to_agent",
    attributes: { count: "2", names: "deploys-on-friday,old-ci" },
    body: "- deploys-on-friday (global, project): …",
    rendered: "<cp:memory-recall …>",
    source: "kernel",
  });
  assert.deepEqual(err, [
    "Recalled 2 memories into context: deploys-on-friday, old-ci\n",
  ]);
});
