/**
 * The agent loop end to end through real plugin subprocesses: the
 * `scripted` model and the `filesystem` tool. A session reads a file,
 * plans a write (with its diff preview), is approved through the
 * callback, writes, and ends; the stored session then replays and
 * resumes.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  AgentSession,
  type ApprovalRequest,
  modelEndpointOf,
  PluginHost,
  replaySession,
  runSession,
  type SessionEvent,
  SessionRegistry,
  type SessionSpec,
  SqliteSessionStore,
  toolEndpointOf,
} from "../kernel/mod.ts";
import { readManifest } from "../plugins/sdk/mod.ts";
import { ModelService } from "../proto/gen/pluggableharness/model/v1/service_pb.ts";
import { ToolService } from "../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import { PATH, REPO } from "./_helpers.ts";

const SCRIPT = {
  description: "Reads the README, writes a summary, answers.",
  turns: [
    {
      text: "Let me read the README.",
      tool_calls: [{
        id: "toolu_read",
        name: "read_file",
        arguments: { path: "README.md" },
      }],
      usage: { input_tokens: 1_200, output_tokens: 40 },
    },
    {
      expect: "Hello from the project",
      tool_calls: [{
        id: "toolu_write",
        name: "write_file",
        arguments: { path: "SUMMARY.md", content: "# Summary\nA greeting.\n" },
      }],
      usage: { input_tokens: 1_500, output_tokens: 60 },
    },
    {
      expect: "SUMMARY.md",
      text: "Done: SUMMARY.md has the summary.",
      usage: { input_tokens: 1_700, output_tokens: 12 },
    },
    { expect: "anything else", text: "Nothing else." },
  ],
};

Deno.test({
  name: "agent loop end to end: read, plan a write, approve, write, end",
  fn: async () => {
    const dir = await Deno.realPath(
      await Deno.makeTempDir({ prefix: "ph-agent-e2e-" }),
    );
    try {
      await Deno.writeTextFile(
        `${dir}/README.md`,
        "# Project\nHello from the project.\n",
      );
      await Deno.writeTextFile(`${dir}/script.json`, JSON.stringify(SCRIPT));
      await using host = new PluginHost({ env: { PATH }, cwd: dir });
      const scripted = await host.launch({
        manifest: await readManifest(`${REPO}/plugins/scripted/plugin.json`),
        entrypoint: `${REPO}/plugins/scripted/main.ts`,
        grant: { read: [dir] },
      });
      await scripted.client(ModelService).configure({
        config: { script: `${dir}/script.json` },
      });
      const fs = await host.launch({
        manifest: await readManifest(`${REPO}/plugins/filesystem/plugin.json`),
        entrypoint: `${REPO}/plugins/filesystem/main.ts`,
        grant: { read: [dir], write: [dir] },
      });
      await fs.client(ToolService).configure({ config: { roots: [dir] } });
      const fsTool = toolEndpointOf(fs);
      await using store = new SqliteSessionStore({ dir: `${dir}/.sessions` });
      const registry = new SessionRegistry();
      const spec: SessionSpec = {
        profile: "default",
        models: [{ provider: "scripted", id: "scripted" }],
        tools: new Map([["fs", await fsTool.schemas()]]),
        // No rule for writes: a resource call asks.
        policies: [],
        workingDirectory: dir,
        onAsk: "callback",
        askTimeoutMs: 10_000,
      };
      const deps = {
        store,
        registry,
        models: new Map([["scripted", modelEndpointOf(scripted, "scripted")]]),
        tools: new Map([["fs", fsTool]]),
      };
      const asked: ApprovalRequest[] = [];
      const run = runSession(spec, deps, {
        prompt: "Summarize the README into SUMMARY.md",
        approve: (request) => {
          asked.push(request);
          return Promise.resolve({ decision: "allow", scope: "once" });
        },
      });
      const events: SessionEvent[] = [];
      for await (const e of run) events.push(e);
      const result = await run.result;

      assert.equal(result.status, "completed", JSON.stringify(result.error));
      assert.equal(result.finalText, "Done: SUMMARY.md has the summary.");
      assert.equal(
        await Deno.readTextFile(`${dir}/SUMMARY.md`),
        "# Summary\nA greeting.\n",
      );
      // The read ran without asking; the write was planned with its diff,
      // asked for, approved and applied.
      assert.equal(asked.length, 1);
      assert.equal(asked[0]!.tool, "write_file");
      assert.match(JSON.stringify(asked[0]!.preview), /Create/);
      assert.match(JSON.stringify(asked[0]!.preview), /A greeting/);
      const types = events.map((e) => e.type).filter((t) =>
        t !== "text_delta" && t !== "turn_started"
      );
      assert.deepEqual(types, [
        "session_started",
        "message",
        "message",
        "tool_call",
        "tool_result",
        "message",
        "tool_call",
        "plan",
        "approval_requested",
        "approval_resolved",
        "tool_result",
        "apply",
        "message",
        "session_ended",
      ]);
      const read = events.find((e) =>
        e.type === "tool_result" && e.tool === "read_file"
      );
      assert.ok(read?.type === "tool_result" && !read.isError);
      assert.match(JSON.stringify(read.result), /Hello from the project/);
      // Cost from the scripted model's declared pricing ($3 / $15 per Mtok).
      const expected = (1_200 * 3 + 40 * 15 + 1_500 * 3 + 60 * 15 +
        1_700 * 3 + 12 * 15) / 1e6;
      assert.ok(Math.abs(result.totalCostUsd - expected) < 1e-9);

      // Replay without calling the model.
      const replayed: SessionEvent[] = [];
      for await (const e of replaySession(store, result.sessionId)) {
        replayed.push(e);
      }
      assert.deepEqual(
        replayed.filter((e) => e.type === "plan").length,
        1,
      );
      const end = replayed.at(-1)!;
      assert.ok(end.type === "session_ended" && end.status === "completed");

      // Resume by id: the scripted model picks its turn from the history,
      // so the rebuilt history must hold all three assistant messages.
      const session = await AgentSession.open(spec, deps, {
        resumeSessionId: result.sessionId,
      });
      const again = await session.send("anything else?").result;
      const closed = await session.close();
      assert.equal(again.outcome, "done", JSON.stringify(again.error));
      assert.equal(again.finalText, "Nothing else.");
      assert.equal(closed.status, "completed");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
