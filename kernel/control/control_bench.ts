// The control plane's overhead per round with every channel enabled
// (issue 16 asks for ≤ 0.5 ms): the work one busy round adds — posting
// what tool dispatch and the sources feed, draining into the history with
// persistence, the `time` stamps, parsing the agent's tags — and a whole
// one-round session with the control plane on and off.
import { MemorySessionStore } from "../state/memory_session_store.ts";
import { ControlPlane } from "./control_plane.ts";
import { appendControlBlocks } from "./history.ts";
import { postToolOutcome } from "./tool_channels.ts";
import type { Message } from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { FakeModel, FakeTool, op, ToolKind } from "../agent/_testing.ts";
import { AgentSession } from "../agent/session.ts";
import type { SessionSpec } from "../agent/session_spec.ts";
import type { AgentDeps } from "../agent/agent_deps.ts";

const store = new MemorySessionStore();
const log = await store.create({ profile: "bench" });
const persisted = new ControlPlane({ log, now: () => 1_000 });
const inMemory = new ControlPlane({ now: () => 1_000 });
const ASSISTANT =
  "Checked the build.\n<cp:agent-thinking>the test log says x</cp:agent-thinking>\n" +
  '<cp:plan-revision from="2" to="3" reason="flaky test">retry once</cp:plan-revision>\n' +
  '<cp:compact type="decision">retry the flaky test</cp:compact>\n' +
  '<cp:agent-status state="continue"></cp:agent-status>';

async function busyRound(plane: ControlPlane): Promise<void> {
  const history: Message[] = [];
  plane.newTurn();
  plane.post({
    channel: "permission-context",
    attrs: {},
    body: 'reads_ok: allow when kind="data_source"\nUnanswered asks: deny.',
    source: "policy",
  });
  plane.post({
    channel: "plan-mode",
    attrs: { constraint: "read-only", round: 3 },
  });
  postToolOutcome(plane, {
    tool: "write_file",
    path: "a.txt",
    deniedBy: "policy:no_writes",
    error: { permissionDenied: true, message: "denied" },
  });
  postToolOutcome(plane, { tool: "grep", result: { matches: [] } });
  plane.post({
    channel: "shell-exit",
    attrs: { "exec-id": "bg_1", "exit-code": 1 },
    body: 'The background command "make" exited with code 1.',
  });
  plane.post({
    channel: "mcp-tools-changed",
    attrs: { server: "mcp", added: 1, removed: 0 },
    body: "Added: mcp.b\nRemoved: (none)",
  });
  appendControlBlocks(history, await plane.drain({ turnId: "T" }));
  // As the session does: the prompt's stamp, then a round's tool results
  // stamped together.
  appendControlBlocks(history, [(await plane.stamp({ origin: "typed" }))!]);
  const stamps = [
    plane.stampNow({ duration_ms: 12 })!,
    plane.stampNow({ duration_ms: 40 })!,
  ];
  await Promise.all(stamps.map((s) => s.written));
  appendControlBlocks(history, stamps.map((s) => s.rendered));
  await plane.consume(ASSISTANT, "T");
}

Deno.bench(
  "control plane: one busy round, every channel enabled (its own work)",
  { group: "control-round", baseline: true },
  () => busyRound(inMemory),
);
Deno.bench(
  "control plane: one busy round, every channel enabled, 12 control events persisted (memory store)",
  { group: "control-round" },
  () => busyRound(persisted),
);

function sessionSetup(control: boolean) {
  const model = new FakeModel(
    "llm",
    Array.from({ length: 1 }, () => ({ text: "ok" })),
  );
  const tool = new FakeTool("fs", [{
    schema: op("read_file", ToolKind.DATA_SOURCE),
  }]);
  const spec: SessionSpec = {
    profile: "bench",
    models: [{ provider: "llm", id: "m1" }],
    tools: new Map([["fs", tool.toolSchemas]]),
    workingDirectory: "/work",
    policies: [{
      name: "reads",
      match: { kind: "data_source" },
      action: "allow",
    }],
    ...(control ? { controlPlane: {} } : {}),
  };
  const deps: AgentDeps = {
    store: new MemorySessionStore(),
    models: new Map([["llm", model]]),
    tools: new Map([["fs", tool]]),
  };
  return { spec, deps };
}

for (const control of [false, true]) {
  Deno.bench(
    `session: one prompt, one round, control plane ${control ? "on" : "off"}`,
    { group: "session-round", baseline: !control },
    async () => {
      const { spec, deps } = sessionSetup(control);
      const s = await AgentSession.open(spec, deps);
      await s.send("go").result;
      await s.close();
    },
  );
}
