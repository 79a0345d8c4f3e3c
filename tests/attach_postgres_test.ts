/**
 * Two kernels on one PostgreSQL store (issue 19), each a separate process
 * in its own working directory, the store selected once by the global
 * config's `state {}` block: kernel A runs `agent run` on a scripted
 * session whose plan asks twice; `agent attach` in B shows the transcript
 * and approves the first ask; a third follower (this test, on its own bus
 * bridge) answers too late for the first item and first for the second; A
 * completes, and what B showed is the stored transcript.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  freshSchema,
  PG_IGNORE,
  sharedCluster,
  stopSharedCluster,
} from "./_postgres.ts";
import { makeProject, REPO } from "./_agent_project.ts";
import { EventBus } from "../kernel/bus/event_bus.ts";
import { PostgresSessionStore } from "../kernel/state/postgres_session_store.ts";
import { followSession } from "../kernel/frontend/follow_session.ts";
import { decideRemotely } from "../kernel/frontend/remote_decisions.ts";
import { replaySession } from "../kernel/agent/history.ts";
import { GrpcStatusError } from "../proto/grpc_status.ts";
import { Code } from "../proto/grpc_status.ts";
import { stateLocationsOf } from "../kernel/open_sessions.ts";

const WRITE = (id: string, path: string) => ({
  tool_calls: [{
    id,
    name: "write_file",
    arguments: { path, content: `# ${path}\n` },
  }],
  usage: { input_tokens: 100, output_tokens: 10 },
});

function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

Deno.test({
  name:
    "agent attach: a second kernel (process, directory) follows A's live session from the shared store, approves its ask over the bus, a late answer is refused, and the transcript matches",
  ignore: PG_IGNORE,
  async fn() {
    const { url } = await sharedCluster();
    const schema = freshSchema();
    await using a = await makeProject({
      turns: [
        WRITE("toolu_1", "SUMMARY.md"),
        WRITE("toolu_2", "NOTES.md"),
        { text: "Both files are written." },
      ],
    });
    const home = await Deno.makeTempDir({ prefix: "ph-agent-attach-" });
    try {
      // The team's store, set once per machine in the global config.
      await Deno.mkdir(`${home}/config/agent`, { recursive: true });
      await Deno.writeTextFile(
        `${home}/config/agent/config.hcl`,
        `state {\n  backend = "postgres"\n  url     = env("TEAM_DB")\n  schema  = "${schema}"\n}\n`,
      );
      await Deno.mkdir(`${home}/b`);
      const env = {
        ...a.env,
        XDG_CONFIG_HOME: `${home}/config`,
        TEAM_DB: url,
      };
      const agent = (cwd: string, args: string[], stdin: "piped" | "null") =>
        new Deno.Command(Deno.execPath(), {
          args: ["run", "-A", `${REPO}/main.ts`, ...args],
          cwd,
          env,
          clearEnv: true,
          stdin,
          stdout: "piped",
          stderr: "piped",
        }).spawn();

      // The third follower: this process, its own bus bridged to the others.
      const bus = new EventBus();
      await using store = new PostgresSessionStore({
        url,
        schema,
        // A's machine (same HOME): its installation key verifies A's chain.
        keyPath: stateLocationsOf(env, undefined).keyPath,
        bus,
      });
      await store.startBusBridge();

      const kernelA = agent(a.dir, [
        "run",
        "Write the summary and the notes",
        "--on-ask",
        "wait",
        "--json",
      ], "null");
      // A's first line names the session; the rest is read at the end.
      const [first, rest] = kernelA.stdout.tee();
      const aOut = text(rest);
      const aErr = text(kernelA.stderr);
      const sessionId = await (async () => {
        let buffered = "";
        const decoder = new TextDecoder();
        const reader = first.getReader();
        while (!buffered.includes("\n")) {
          const { value, done } = await reader.read();
          if (done) break;
          buffered += decoder.decode(value, { stream: true });
        }
        // Not awaited: a tee branch's cancel settles only with the other's.
        reader.cancel().catch(() => {});
        return JSON.parse(buffered.slice(0, buffered.indexOf("\n")))
          .sessionId as string;
      })();

      const kernelB = agent(`${home}/b`, [
        "attach",
        sessionId,
        "--json",
      ], "piped");
      const writer = kernelB.stdin.getWriter();
      await writer.write(new TextEncoder().encode("y\n"));
      await writer.close();
      const bOut = text(kernelB.stdout);
      const bErr = text(kernelB.stderr);

      const asks: string[] = [];
      const applied = new Set<string>();
      const late: unknown[] = [];
      let second: "accepted" | undefined;
      for await (const item of followSession(store, bus, sessionId)) {
        if (item.type === "event") {
          const e = item.event;
          if (e.type === "plan") {
            for (const i of e.items) {
              if (i.decision === "ask") asks.push(i.planItemId);
            }
          }
          if (e.type === "apply") {
            for (const i of e.items) applied.add(i.planItemId);
          }
          if (
            e.type === "apply" && applied.has(asks[0]!) && late.length === 0
          ) {
            // B answered item 1 first: this answer is too late.
            await decideRemotely(bus, {
              sessionId,
              planItemId: asks[0]!,
              answer: { decision: "deny", scope: "once" },
            }).catch((err) => late.push(err));
          }
          continue;
        }
        if (
          item.type === "caught_up" && asks.length === 2 &&
          second === undefined
        ) {
          // Two answers to item 2 at once, while A still waits on it: the
          // first to reach A wins, the other is refused. (Sent after the
          // winner's verdict, the loser could reach A after the session
          // ended, when no kernel answers for it.)
          const answers = await Promise.allSettled(
            [1, 2].map(() =>
              decideRemotely(bus, {
                sessionId,
                planItemId: asks[1]!,
                answer: { decision: "allow", scope: "once" },
              })
            ),
          );
          for (const r of answers) {
            if (r.status === "fulfilled") second = "accepted";
            else late.push(r.reason);
          }
        }
        if (item.type === "ended") {
          assert.equal(item.status, "completed");
        }
      }

      const [aStatus, bStatus] = await Promise.all([
        kernelA.status,
        kernelB.status,
      ]);
      const [aText, aErrText, bText, bErrText] = await Promise.all([
        aOut,
        aErr,
        bOut,
        bErr,
      ]);
      assert.equal(aStatus.code, 0, aErrText);
      assert.equal(bStatus.code, 0, bErrText);
      assert.equal(second, "accepted");
      assert.equal(late.length, 2, "both late answers refused");
      for (const err of late) {
        assert.ok(err instanceof GrpcStatusError);
        assert.equal(err.code, Code.FAILED_PRECONDITION);
        assert.match(err.message, /already resolved: the first answer won/);
      }
      assert.equal(
        await Deno.readTextFile(`${a.dir}/SUMMARY.md`),
        "# SUMMARY.md\n",
      );
      assert.equal(
        await Deno.readTextFile(`${a.dir}/NOTES.md`),
        "# NOTES.md\n",
      );
      const aEvents = aText.trimEnd().split("\n").map((l) => JSON.parse(l));
      assert.equal(aEvents[0].sessionId, sessionId);
      assert.equal(aEvents.at(-1).status, "completed");

      // B: the transcript, B's one accepted decision, the end.
      const bLines = bText.trimEnd().split("\n").map((l) => JSON.parse(l));
      const decisions = bLines.filter((l) => l.type === "decision");
      assert.deepEqual(decisions, [{
        type: "decision",
        planItemId: asks[0],
        decision: "allow",
        scope: "once",
        accepted: true,
      }]);
      assert.match(
        bErrText,
        new RegExp(`plan item ${asks[1]} \\(fs\\.write_file\\) is left`),
        "stdin ended before the second ask",
      );
      const shown = bLines.filter((l) => l.type !== "decision");
      const stored = [];
      for await (const e of replaySession(store, sessionId)) {
        stored.push(JSON.parse(JSON.stringify(e)));
      }
      assert.deepEqual(
        shown.slice(0, -1),
        stored.slice(0, -1),
        "every stored event, in order, once",
      );
      assert.equal(shown.at(-1).status, "completed");
      assert.doesNotMatch(aText + aErrText + bText + bErrText, /postgres:\/\//);
      // The session lives in the shared store only.
      assert.equal((await store.verify(sessionId)).ok, true);
      await assert.rejects(
        Deno.stat(`${a.env.XDG_STATE_HOME}/agent/sessions/${sessionId}.db`),
        Deno.errors.NotFound,
      );
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
});

Deno.test({
  name: "postgres: (stops the test cluster)",
  ignore: PG_IGNORE,
  fn: stopSharedCluster,
});
