// fs-change from its real source: a watcher on the session's roots sees a
// file the session's own tool wrote (left out) and one written from
// outside (delivered at the next round boundary, persisted); the 30/min
// global limit keeps changes for a later boundary instead of losing them.
import assert from "node:assert/strict";
import { fromBinary, type JsonObject } from "@bufbuild/protobuf";
import { join } from "node:path";
import { ControlEventSchema } from "../../proto/gen/pluggableharness/event/v1/events_pb.ts";
import { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import type { StreamCompletionRequest } from "../../proto/gen/pluggableharness/model/v1/rpc_request_pb.ts";
import {
  FakeModel,
  FakeTool,
  memoryStore,
  op,
  ToolKind,
} from "../agent/_testing.ts";
import { AgentSession } from "../agent/session.ts";
import { ControlPlane } from "./control_plane.ts";
import {
  FsChanges,
  SELF_COMMAND_GRACE_MS,
  SELF_WRITE_GRACE_MS,
} from "./fs_change.ts";

function cpBlocks(req: StreamCompletionRequest, channel: string): string[] {
  return req.messages.flatMap((m) =>
    m.content.flatMap((b) =>
      b.block.case === "text" &&
        b.block.value.text.startsWith(`<cp:${channel}>`)
        ? [b.block.value.text]
        : []
    )
  );
}

/** Resolves when `cond` holds (checked on each macrotask), or fails. */
async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2_000 && !cond(); i++) {
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.ok(cond(), `timed out waiting for ${what}`);
}

Deno.test("fs-change: a watcher on the granted roots reports a change made outside the session's tools at the next round, leaves out the session's own write, and is persisted", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    const store = memoryStore();
    const tool = new FakeTool("fs", [{
      schema: op("write_file", ToolKind.RESOURCE),
      run: async (call): Promise<JsonObject> => {
        await Deno.writeTextFile(
          join(root, String(call.arguments?.path)),
          "mine",
        );
        return { written: true };
      },
    }]);
    const model = new FakeModel("llm", [
      {
        toolCalls: [{
          id: "w",
          name: "write_file",
          input: { path: "own.txt" },
        }],
      },
      { text: "wrote it" },
      { text: "saw it" },
    ]);
    const session = await AgentSession.open({
      profile: "test",
      models: [{ provider: "llm", id: "m1" }],
      tools: new Map([["fs", tool.toolSchemas]]),
      workingDirectory: root,
      policies: [{ name: "ok", match: { kind: "resource" }, action: "allow" }],
      controlPlane: { disable: ["time", "permission-context"], watch: [root] },
    }, {
      store,
      models: new Map([["llm", model]]),
      tools: new Map([["fs", tool]]),
      sleep: () => Promise.resolve(),
      random: () => 0,
      // A still clock: however late the watcher reports own.txt, it is
      // within its call's grace.
      now: () => Date.UTC(2026, 11, 2),
    });
    try {
      await session.send("write own.txt").result;
      await Deno.writeTextFile(join(root, "ext.txt"), "theirs");
      const fs = session.control!.fs!;
      await until(
        () =>
          fs.ignored.has(join(root, "own.txt")) &&
          fs.pending.has(join(root, "ext.txt")),
        "both changes",
      );
      // Informational: it neither woke the idle session nor queued a turn.
      assert.equal(model.requests.length, 2);
      assert.equal(
        (await session.send("anything new?").result).outcome,
        "done",
      );
    } finally {
      await session.close();
    }
    const block =
      "<cp:fs-change>Changed outside your tool calls:\ncreated: ext.txt</cp:fs-change>";
    assert.deepEqual(cpBlocks(model.requests[1]!, "fs-change"), []);
    assert.deepEqual(cpBlocks(model.requests[2]!, "fs-change"), [block]);
    const log = await store.open(session.sessionId);
    const stored = [];
    try {
      for await (const e of log.readEvents({ kinds: [EventKind.CONTROL] })) {
        const c = fromBinary(ControlEventSchema, e.payload);
        if (c.channel === "fs-change") stored.push(c.rendered);
      }
    } finally {
      await log.close();
    }
    assert.deepEqual(stored, [block]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("fs-change: a named path is the session's own until the grace after its call, a path-less call's window covers every path; over 30/min the changes wait for a later boundary", async () => {
  const clock = { now: 1_000_000 };
  const now = () => clock.now;
  const fs = new FsChanges(["/r"], now);
  fs.callStarted("a", ["/r/a.txt"], false);
  fs.observe("modified", "/r/a.txt");
  fs.callEnded("a");
  clock.now += SELF_WRITE_GRACE_MS;
  fs.observe("modified", "/r/a.txt");
  assert.equal(fs.pending.size, 0);
  clock.now += 1;
  fs.observe("modified", "/r/a.txt");
  assert.deepEqual([...fs.pending], [["/r/a.txt", "modified"]]);
  fs.callStarted("sh", [], true);
  fs.observe("created", "/r/b.txt");
  fs.callEnded("sh");
  clock.now += SELF_COMMAND_GRACE_MS + 1;
  fs.observe("created", "/r/c.txt");
  fs.observe("modified", "/r/c.txt"); // still new
  assert.deepEqual([...fs.ignored].sort(), ["/r/a.txt", "/r/b.txt"]);
  assert.deepEqual([...fs.pending.keys()], ["/r/a.txt", "/r/c.txt"]);

  const plane = new ControlPlane({ now });
  plane.fs = fs;
  const first = await plane.drain();
  assert.deepEqual(first, [
    "<cp:fs-change>Changed outside your tool calls:\nmodified: a.txt\ncreated: c.txt</cp:fs-change>",
  ]);
  for (let i = 0; i < 29; i++) {
    fs.observe("modified", `/r/${i}`);
    assert.equal((await plane.drain()).length, 1);
  }
  fs.observe("removed", "/r/late.txt");
  assert.deepEqual(await plane.drain(), []); // the 31st in a minute
  assert.equal(plane.dropped.get("fs-change"), 1);
  assert.equal(fs.pending.size, 1); // kept, not lost
  clock.now += 60_001;
  assert.deepEqual(await plane.drain(), [
    "<cp:fs-change>Changed outside your tool calls:\nremoved: late.txt</cp:fs-change>",
  ]);
});
