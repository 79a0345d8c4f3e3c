/**
 * The kernel's own work in a turn gap (issue 20), in process: a session of
 * {@linkcode READS} `read_file` turns and a final answer, against the fake
 * model and tool of the unit tests (no plugin process, no transport), on
 * the real SQLite store (keyed chain, head file) and with the control
 * plane on (its time stamps are written each round), as `agent run` has
 * it. Run with `deno bench -A kernel/agent/turn_bench.ts`.
 *
 * What is measured, exactly: the fake model stamps (`performance.now()`)
 * each request as it arrives and the moment its stream has yielded its
 * last event; a gap is the next request's stamp minus the previous
 * stream's end: the kernel accumulating the message, storing it, the
 * tool call (stored, invoked in process, its result stored), the round's
 * stamp and the next request built. Every event the session emits is
 * also `JSON.stringify`d, as `agent run --json` does. Printed when the
 * module loads: the median gap over {@linkcode SESSIONS} sessions (after
 * one warmup session), and the CPU time of the process per session
 * (`process.cpuUsage`, user + sys). The `Deno.bench` row times one whole
 * session.
 *
 * @module
 */
import process from "node:process";
import type { StreamCompletionRequest } from "../../proto/gen/pluggableharness/model/v1/rpc_request_pb.ts";
import type { StreamEvent } from "../../proto/gen/pluggableharness/model/v1/events_pb.ts";
import { SqliteSessionStore } from "../state/sqlite_session_store.ts";
import {
  FakeModel,
  FakeTool,
  op,
  type ScriptedTurn,
  ToolKind,
} from "./_testing.ts";
import type { EndpointCallOptions } from "./endpoints.ts";
import { runSession } from "./run_session.ts";
import type { SessionSpec } from "./session_spec.ts";
import type { AgentDeps } from "./agent_deps.ts";

const READS = 20;
const SESSIONS = 15;

const dir = await Deno.makeTempDir({ prefix: "ph-turn-bench-" });
const store = new SqliteSessionStore({
  dir: `${dir}/sessions`,
  keyPath: `${dir}/installation.key`,
});

/** The fake model, stamping requests and stream ends. */
class StampedModel extends FakeModel {
  readonly marks: { request: number; end: number }[] = [];
  override async *streamCompletion(
    request: StreamCompletionRequest,
    options?: EndpointCallOptions,
  ): AsyncGenerator<StreamEvent> {
    const mark = { request: performance.now(), end: 0 };
    this.marks.push(mark);
    for await (const e of super.streamCompletion(request, options)) yield e;
    mark.end = performance.now();
  }
}

function script(): ScriptedTurn[] {
  const turns: ScriptedTurn[] = [];
  for (let i = 0; i < READS; i++) {
    turns.push({
      text: `Read ${i + 1}.`,
      toolCalls: [{ name: "read_file", input: { path: `notes/${i}.md` } }],
    });
  }
  turns.push({ text: "Done." });
  return turns;
}

async function session(): Promise<number[]> {
  const model = new StampedModel("llm", script());
  const tool = new FakeTool("fs", [{
    schema: op("read_file", ToolKind.DATA_SOURCE),
    run: (call) => ({ content: `Hello from ${String(call.arguments?.path)}` }),
  }]);
  const spec: SessionSpec = {
    profile: "bench",
    models: [{ provider: "llm", id: "m1" }],
    tools: new Map([["fs", tool.toolSchemas]]),
    hooks: [],
    workingDirectory: dir,
    controlPlane: {},
  };
  const deps: AgentDeps = {
    store,
    models: new Map([["llm", model]]),
    tools: new Map([["fs", tool]]),
    hooks: new Map(),
  };
  const run = runSession(spec, deps, { prompt: "Read the notes." });
  let chars = 0;
  for await (const e of run) chars += JSON.stringify(e).length;
  const result = await run.result;
  if (result.status !== "completed" || model.marks.length !== READS + 1) {
    throw new Error(`The bench session ended ${result.status} (${chars})`);
  }
  const m = model.marks;
  return m.slice(1).map((x, i) => x.request - m[i]!.end);
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const k = s.length >> 1;
  return s.length % 2 ? s[k]! : (s[k - 1]! + s[k]!) / 2;
}

await session(); // warmup
const gaps: number[] = [];
const cpu: number[] = [];
for (let i = 0; i < SESSIONS; i++) {
  const before = process.cpuUsage();
  gaps.push(...await session());
  const used = process.cpuUsage(before);
  cpu.push((used.user + used.system) / 1000);
}
console.log(
  `turn gap in process: median ${
    median(gaps).toFixed(3)
  } ms over ${gaps.length} gaps; ` +
    `CPU per ${READS}-read session: median ${median(cpu).toFixed(1)} ms (${
      Math.min(...cpu).toFixed(1)
    }–${Math.max(...cpu).toFixed(1)})`,
);

Deno.bench(
  `one ${READS}-read session in process (sqlite, control plane)`,
  async () => {
    await session();
  },
);

globalThis.addEventListener("unload", () => {
  store.close();
  Deno.removeSync(dir, { recursive: true });
});
