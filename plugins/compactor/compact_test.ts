import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import {
  type Message,
  MessageSchema,
  Role,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import {
  isOverThreshold,
  keptSummaries,
  rewrittenHistory,
  splitIndex,
  SUMMARY_HEADER,
  transcriptOf,
} from "./_compact.ts";
import { parseConfig } from "./main.ts";

function text(role: Role, t: string): Message {
  return create(MessageSchema, {
    role,
    content: [{ block: { case: "text", value: { text: t } } }],
  });
}

function results(id: string, body: string): Message {
  return create(MessageSchema, {
    role: Role.USER,
    content: [{
      block: {
        case: "toolResult",
        value: {
          toolUseId: id,
          content: [{ block: { case: "text", value: { text: body } } }],
        },
      },
    }],
  });
}

const HISTORY: Message[] = [
  text(Role.USER, "Q0"),
  text(
    Role.ASSISTANT,
    'A0 <cp:compact type="decision">use sqlite</cp:compact>',
  ),
  text(Role.USER, "Q1"),
  create(MessageSchema, {
    role: Role.ASSISTANT,
    content: [{
      block: {
        case: "toolUse",
        value: { id: "t1", name: "read_file", arguments: { path: "a" } },
      },
    }],
  }),
  results("t1", "x".repeat(50)),
  text(Role.ASSISTANT, "A1"),
  text(Role.USER, "Q2"),
  text(Role.ASSISTANT, "A2"),
];

Deno.test("splitIndex() keeps from the n-th last user prompt, never splitting at tool results", () => {
  assert.equal(splitIndex(HISTORY, 1), 6);
  assert.equal(splitIndex(HISTORY, 2), 2);
  assert.equal(splitIndex(HISTORY, 3), 0);
  assert.equal(splitIndex(HISTORY, 9), 0);
});

Deno.test("isOverThreshold() compares the fill with the fraction of the window", () => {
  assert.equal(isOverThreshold(79, 100, 0.8), false);
  assert.equal(isOverThreshold(80, 100, 0.8), true);
  assert.equal(isOverThreshold(80, 0, 0.8), false);
});

Deno.test("keptSummaries() keeps <cp:compact> blocks of the summarized part and of an earlier summary", () => {
  const older = HISTORY.slice(0, 2);
  assert.deepEqual(keptSummaries(older), [
    '<cp:compact type="decision">use sqlite</cp:compact>',
  ]);
  const again = rewrittenHistory(HISTORY.slice(2), "sum", keptSummaries(older));
  assert.deepEqual(keptSummaries(again.slice(0, 1)), [
    '<cp:compact type="decision">use sqlite</cp:compact>',
  ]);
});

Deno.test("transcriptOf() renders calls and cuts long tool results", () => {
  const t = transcriptOf(HISTORY.slice(2, 5), 10);
  assert.match(t, /assistant called read_file\(\{"path":"a"\}\)/);
  assert.match(t, /tool result: x{10} \[…cut\]/);
});

Deno.test("rewrittenHistory() leads the kept tail's first prompt with the summary and keeps the rest unchanged", () => {
  const tail = HISTORY.slice(6);
  const out = rewrittenHistory(tail, "The user asked things.", []);
  assert.equal(out.length, tail.length);
  assert.equal(out[0]!.role, Role.USER);
  const first = out[0]!.content[0]!.block;
  assert.ok(
    first.case === "text" && first.value.text.startsWith(SUMMARY_HEADER),
  );
  assert.equal(out[0]!.content.length, 2);
  assert.equal(out[1], tail[1]);
});

Deno.test("parseConfig() names the attribute and value it refuses", async (t) => {
  for (
    const [raw, message] of [
      [{}, /"summary_profile" must name the agent_profile/],
      [
        { summary_profile: "s", threshold: 1.5 },
        /"threshold" must be a fraction/,
      ],
      [
        { summary_profile: "s", keep_recent_turns: 1.5 },
        /"keep_recent_turns" must be a positive integer, not 1\.5/,
      ],
      [
        { summary_profile: "s", colour: "red" },
        /"colour" is not supported by compactor/,
      ],
    ] as const
  ) {
    await t.step(JSON.stringify(raw), () => {
      assert.throws(() => parseConfig(raw), message);
    });
  }
  assert.deepEqual(parseConfig({ summary_profile: "s" }), {
    threshold: 0.8,
    keepRecentTurns: 2,
    maxResultChars: 2000,
    summaryProfile: "s",
  });
});
