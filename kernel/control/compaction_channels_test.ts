// context-usage, compaction-start and compaction produced by the kernel's
// compaction path (a compactor in the context chain) through a session
// driven by the scripted fake model: exact rendering and persistence.
import assert from "node:assert/strict";
import { create, fromBinary } from "@bufbuild/protobuf";
import { ControlEventSchema } from "../../proto/gen/pluggableharness/event/v1/events_pb.ts";
import {
  ContextSectionSchema,
  MessageSchema,
  Role,
  Stability,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import type { StreamCompletionRequest } from "../../proto/gen/pluggableharness/model/v1/rpc_request_pb.ts";
import { textBlock } from "../agent/_proto.ts";
import {
  FakeModel,
  FakeTool,
  memoryStore,
  modelSpec,
  op,
  ToolKind,
} from "../agent/_testing.ts";
import { usageNudge } from "../agent/compaction.ts";
import type { ContextAssembler } from "../agent/context_assembly.ts";
import { AgentSession } from "../agent/session.ts";
import type { SessionEvent } from "../agent/session_events.ts";

function cpBlocks(req: StreamCompletionRequest, channel: string): string[] {
  return req.messages.flatMap((m) =>
    m.content.flatMap((b) =>
      b.block.case === "text" &&
          b.block.value.text.startsWith(`<cp:${channel} `) ||
        b.block.case === "text" &&
          b.block.value.text.startsWith(`<cp:${channel}>`)
        ? [b.block.value.text]
        : []
    )
  );
}

Deno.test("context-usage, compaction-start, compaction: a band crossing and an automatic compaction pass reach the model at the next round without costing a round of their own, and are persisted", async () => {
  const store = memoryStore();
  const model = new FakeModel(
    "llm",
    Array.from({ length: 8 }, () => ({
      text: "ok",
    })),
    { specs: [modelSpec("m1", { contextWindow: 10_000n })] },
  );
  // The chain's compactor: a fixed 6000-token section fills the window to
  // 60 % ("filling"); from the second prompt on it summarizes the history.
  let compacted = false;
  const assembler: ContextAssembler = {
    compactors: ["squash"],
    assemble: (input) => {
      const sections = [
        ...input.sections,
        create(ContextSectionSchema, {
          provider: "squash",
          label: "notes",
          content: [textBlock("notes")],
          tokens: 6_000n,
          stability: Stability.STATIC,
        }),
      ];
      const prompts = input.history.filter((m) => m.role === Role.USER);
      if (prompts.length < 2 || compacted) {
        return Promise.resolve({ messages: [...input.history], sections });
      }
      compacted = true;
      const summary = create(MessageSchema, {
        role: Role.USER,
        content: [textBlock("Summary: the user asked things.")],
        id: "summary",
      });
      return Promise.resolve({
        messages: [summary, input.history.at(-1)!],
        sections,
        rewrittenBy: "squash",
      });
    },
  };
  const tool = new FakeTool("fs", [{
    schema: op("read_file", ToolKind.DATA_SOURCE),
  }]);
  const events: SessionEvent[] = [];
  const session = await AgentSession.open({
    profile: "test",
    models: [{ provider: "llm", id: "m1" }],
    tools: new Map([["fs", tool.toolSchemas]]),
    workingDirectory: "/work",
    controlPlane: { disable: ["time", "permission-context"] },
    bounds: { maxTurns: 12 },
  }, {
    store,
    models: new Map([["llm", model]]),
    tools: new Map([["fs", tool]]),
    contextAssembler: assembler,
    sleep: () => Promise.resolve(),
    random: () => 0,
  }, { onEvent: (e) => events.push(e) });
  assert.equal((await session.send("one").result).outcome, "done");
  assert.equal((await session.send("two").result).outcome, "done");
  assert.equal((await session.send("three").result).outcome, "done");
  await session.close();

  const usage = events.find((e) => e.type === "context_usage");
  assert.ok(usage && usage.type === "context_usage");
  assert.equal(usage.window, 10_000);
  assert.equal(usage.band, "filling");
  const usageBlock =
    `<cp:context-usage used="${usage.used}" window="10000" pct="${usage.pct}">${
      usageNudge("filling")
    }</cp:context-usage>`;
  const start = "<cp:compaction-start></cp:compaction-start>";
  const compaction = (before: number, after: number) =>
    `<cp:compaction strategy="summary" tokens-before="${before}" tokens-after="${after}">Older history was summarized by squash; the summary leads the kept turns.</cp:compaction>`;
  const done = events.find((e) => e.type === "compaction");
  assert.ok(done && done.type === "compaction");
  const r = model.requests;
  // Reported after the round's drain: the next request carries them.
  const seen = r.map((q) => [
    cpBlocks(q, "context-usage").length,
    cpBlocks(q, "compaction-start").length,
    cpBlocks(q, "compaction").length,
  ]);
  // Each lands after its round's drain; informational, it waits for the
  // next prompt's first round instead of continuing its own turn: three
  // prompts, three requests (a compactor that rewrites every round cannot
  // loop the turn).
  assert.deepEqual(seen, [[0, 0, 0], [1, 0, 0], [1, 1, 1]]);
  assert.deepEqual(cpBlocks(r[1]!, "context-usage"), [usageBlock]);
  assert.deepEqual(cpBlocks(r[2]!, "compaction-start"), [start]);
  assert.deepEqual(cpBlocks(r[2]!, "compaction"), [
    compaction(done.tokensBefore, done.tokensAfter),
  ]);
  const log = await store.open(session.sessionId);
  const stored = [];
  try {
    for await (const e of log.readEvents({ kinds: [EventKind.CONTROL] })) {
      stored.push(fromBinary(ControlEventSchema, e.payload));
    }
  } finally {
    await log.close();
  }
  // The history record of the pass (no rendered text), then the blocks.
  assert.deepEqual(stored.map((c) => [c.channel, c.rendered]), [
    ["context-usage", usageBlock],
    ["compaction", ""],
    ["compaction-start", start],
    ["compaction", compaction(done.tokensBefore, done.tokensAfter)],
  ]);
  assert.equal(usage.pct, Math.floor((usage.used / 10_000) * 100));
});

Deno.test("compaction: a compactor that rewrites the history at every assembly costs no extra model round; its blocks reach the next prompt", async () => {
  const store = memoryStore();
  const model = new FakeModel("llm", [{ text: "a" }, { text: "b" }], {
    specs: [modelSpec("m1", { contextWindow: 10_000n })],
  });
  let passes = 0;
  const assembler: ContextAssembler = {
    compactors: ["squash"],
    assemble: (input) => {
      passes++;
      const summary = create(MessageSchema, {
        role: Role.USER,
        content: [textBlock(`Summary ${passes}.`)],
        id: `summary-${passes}`,
      });
      return Promise.resolve({
        messages: [summary, input.history.at(-1)!],
        sections: [...input.sections],
        rewrittenBy: "squash",
      });
    },
  };
  const session = await AgentSession.open({
    profile: "test",
    models: [{ provider: "llm", id: "m1" }],
    workingDirectory: "/work",
    controlPlane: { disable: ["time", "permission-context"] },
    bounds: { maxTurns: 12 },
  }, {
    store,
    models: new Map([["llm", model]]),
    contextAssembler: assembler,
    sleep: () => Promise.resolve(),
    random: () => 0,
  });
  try {
    const one = await session.send("one").result;
    assert.equal(one.outcome, "done");
    assert.equal(one.turns, 1);
    assert.equal(model.requests.length, 1);
    const two = await session.send("two").result;
    assert.equal(two.turns, 1);
    assert.equal(model.requests.length, 2);
    // The first prompt's pass is read at the second prompt's round.
    assert.equal(cpBlocks(model.requests[1]!, "compaction").length, 1);
    assert.equal(cpBlocks(model.requests[0]!, "compaction").length, 0);
  } finally {
    await session.close();
  }
});
