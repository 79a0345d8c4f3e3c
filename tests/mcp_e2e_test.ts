/**
 * `agent run` end to end with the `mcp` bridge in front of the real
 * server-memory (run under Deno over stdio), configured in `agent.hcl`
 * like an operator would (`builtin/mcp`, `allow_run`, `allow_env`): the
 * scripted model creates an entity — a resource tool, so the plan/approval
 * gate applies — then reads the graph, a data source that runs freely. A
 * second run denies the write: nothing reaches the server.
 *
 * @module
 */
import assert from "node:assert/strict";
import { agent, jsonLines, makeProject } from "./_agent_project.ts";

const CREATE = {
  text: "I will remember Ada.",
  tool_calls: [{
    id: "toolu_create",
    name: "mem_create_entities",
    arguments: {
      entities: [{
        name: "Ada",
        entityType: "person",
        observations: ["wrote the first program"],
      }],
    },
  }],
};

const READ = {
  tool_calls: [{ id: "toolu_read", name: "mem_read_graph", arguments: {} }],
};

async function memoryProject(turns: Record<string, unknown>[]) {
  const p = await makeProject({
    turns,
    extraRequired: 'mem = { source = "builtin/mcp", version = "~> 0.1" }',
    extraProviders: `
provider "mem" {
  command     = "deno"
  args        = ["run", "--no-prompt", "--allow-read=@DIR@", "--allow-write=@DIR@", "--allow-env=MEMORY_FILE_PATH", "npm:@modelcontextprotocol/server-memory@2026.8.31"]
  env         = { MEMORY_FILE_PATH = "@DIR@/memory.jsonl" }
  tool_prefix = "mem_"
  allow_run   = ["deno"]
  # What the OS sandbox shows the bridge, and so the server it starts.
  allow_read  = ["@DIR@"]
  allow_write = ["@DIR@"]
}

policy "memory_writes_ask" {
  match  = { provider = "mem", kind = "resource" }
  action = "ask"
}
`,
    tools: ["fs.*", "mem.*"],
  });
  const hcl = `${p.dir}/agent.hcl`;
  await Deno.writeTextFile(
    hcl,
    (await Deno.readTextFile(hcl)).replaceAll("@DIR@", p.dir),
  );
  return p;
}

Deno.test("agent run with an MCP server: a gated write, then a free read", async () => {
  await using p = await memoryProject([
    CREATE,
    // The model sees the result payload as JSON.
    { ...READ, expect: "entityType" },
    { expect: "wrote the first program", text: "Ada wrote the first program." },
  ]);
  const r = await agent(p, ["run", "Remember Ada", "--approve-all"]);
  assert.equal(r.code, 0, r.err + r.out);
  assert.match(
    r.out,
    /plan mem\.mem_create_entities .*\[low\] → ask \(policy:memory_writes_ask\)/,
  );
  assert.match(r.out, /approved \(once, approval:callback\)/);
  assert.match(r.out, /→ mem\.mem_read_graph/);
  assert.doesNotMatch(r.out, /plan mem\.mem_read_graph/);
  assert.match(r.out, /Ada wrote the first program\.\n$/);
  assert.match(
    await Deno.readTextFile(`${p.dir}/memory.jsonl`),
    /"name":"Ada","entityType":"person"/,
  );
});

Deno.test("agent run with an MCP server: a denied write never reaches the server", async () => {
  await using p = await memoryProject([
    CREATE,
    { ...READ, expect: "denied by on_ask:deny" },
    {
      expect: '"structured_content":{"entities":[],"relations":[]}',
      text: "I could not remember Ada.",
    },
  ]);
  const r = await agent(p, ["run", "Remember Ada", "--json"]);
  assert.equal(r.code, 0, r.err);
  const events = jsonLines(r.out);
  const denied = events.find((e) =>
    e.type === "tool_result" && e.tool === "mem_create_entities"
  );
  assert.equal(denied?.isError, true);
  assert.equal(denied?.deniedBy, "on_ask:deny");
  const read = events.find((e) =>
    e.type === "tool_result" && e.tool === "mem_read_graph"
  );
  assert.equal(read?.isError, false);
  assert.equal(events.at(-1)?.finalText, "I could not remember Ada.");
  await assert.rejects(
    Deno.stat(`${p.dir}/memory.jsonl`),
    Deno.errors.NotFound,
  );
});
