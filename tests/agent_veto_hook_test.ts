/**
 * A veto hook from a plugin, end to end through `agent run` and real
 * plugin subprocesses: the scripted model, the filesystem tool and the
 * `vetoer` fixture (tests/fixtures/vetoer), subscribed by
 * `hook "plan-ready" { provider = "vetoer", mode = "veto" }`. Policy allows
 * every write, so only the vetoer stands between a plan and its apply.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { agent, jsonLines, makeProject, type Turn } from "./_agent_project.ts";

const VETOER = fileURLToPath(new URL("./fixtures/vetoer", import.meta.url));

function agentHcl(vetoer: string): string {
  return `required_providers {
  scripted = { source = "builtin/scripted", version = "~> 0.1" }
  fs       = { source = "builtin/filesystem", version = "~> 0.1" }
  vetoer   = { source = ${JSON.stringify(VETOER)}, version = "~> 0.1" }
}

provider "scripted" {
  script     = "./script.json"
  allow_read = ["."]
}

provider "fs" {
  roots       = ["."]
  allow_read  = ["."]
  allow_write = ["."]
}

provider "vetoer" {
  ${vetoer}
}

policy "reads_ok" {
  match  = { kind = "data_source" }
  action = "allow"
}

policy "writes_ok" {
  match  = { provider = "fs", kind = "resource" }
  action = "allow"
}

hook "plan-ready" {
  provider = "vetoer"
  mode     = "veto"
}

agent_profile "default" {
  model {
    primary {
      provider = "scripted"
      id       = "scripted"
    }
  }
  tools = ["fs.*", "vetoer.*"]
}
`;
}

function write(id: string, path: string, expect?: string): Turn {
  return {
    ...(expect !== undefined ? { expect } : {}),
    tool_calls: [{
      id,
      name: "write_file",
      arguments: { path, content: `written by ${id}\n` },
    }],
  };
}

const COUNT: Turn = {
  tool_calls: [{ id: "toolu_count", name: "vetoer_calls", arguments: {} }],
};

async function vetoProject(turns: Turn[], vetoer: string) {
  const p = await makeProject({ turns, files: { "README.md": "# R\n" } });
  await Deno.mkdir(`${p.dir}/secrets`);
  await Deno.writeTextFile(`${p.dir}/agent.hcl`, agentHcl(vetoer));
  return p;
}

// deno-lint-ignore no-explicit-any
type Ev = Record<string, any>;

function resultOf(events: Ev[], tool: string): Ev[] {
  return events.filter((e) => e.type === "tool_result" && e.tool === tool);
}

Deno.test("veto hook: a plugin denies a write to a denied path, allows one elsewhere, and counts its calls", async () => {
  await using p = await vetoProject([
    write("toolu_secret", "secrets/key.txt"),
    // The model sees the denial, naming the vetoing provider.
    write("toolu_notes", "notes.txt", "denied by hook-veto:vetoer"),
    { ...COUNT, expect: "bytes_written" },
    { expect: '"calls":2', text: "One write was vetoed, one went through." },
  ], `deny_paths = ["^secrets/"]`);
  const r = await agent(p, ["run", "Write two files", "--json"]);
  assert.equal(r.code, 0, r.err);
  const events: Ev[] = jsonLines(r.out);
  assert.equal(events.at(-1)?.status, "completed");

  // (a) The denied path: decided by the vetoer at plan-ready, not applied.
  const [denied] = resultOf(events, "write_file");
  assert.equal(denied?.callId, "toolu_secret");
  assert.equal(denied?.isError, true);
  assert.equal(denied?.deniedBy, "hook-veto:vetoer");
  assert.equal(
    denied?.text,
    "Error (permission_denied): The call was denied by hook-veto:vetoer and was not executed.",
  );
  const plans = events.filter((e) => e.type === "plan");
  assert.deepEqual(
    plans.map((e) =>
      e.items.map((i: Ev) => [i.callId, i.decision, i.decidedBy])
    ),
    [
      [["toolu_secret", "deny", "hook-veto:vetoer"]],
      [["toolu_notes", "allow", "policy:writes_ok"]],
    ],
  );
  await assert.rejects(
    Deno.stat(`${p.dir}/secrets/key.txt`),
    Deno.errors.NotFound,
  );

  // (b) Elsewhere: the vetoer allows, policy's allow stands, the file is written.
  const written = resultOf(events, "write_file")[1];
  assert.equal(written?.callId, "toolu_notes");
  assert.equal(written?.isError, false);
  assert.equal(
    await Deno.readTextFile(`${p.dir}/notes.txt`),
    "written by toolu_notes\n",
  );

  // The vetoer received exactly the two plan-ready calls, in veto mode.
  const [count] = resultOf(events, "vetoer_calls");
  assert.deepEqual(count?.result, {
    calls: 2,
    points: ["planReady", "planReady"],
    decisions: ["deny", "allow"],
  });
});

Deno.test("veto hook: a vetoer that does not answer within the hook timeout fails closed (deny)", async () => {
  // The kernel's default hook timeout is 5000 ms (default_hook_timeout_ms;
  // openKernel and the CLI do not expose it), so the vetoer sleeps far
  // longer: a run that waited for it would take 30 s, however slow the
  // machine's start-up is.
  await using p = await vetoProject([
    write("toolu_notes", "notes.txt"),
    {
      expect: "denied by hook-veto:vetoer",
      text: "The write was vetoed.",
    },
  ], `sleep_ms = 30000`);
  const started = Date.now();
  const r = await agent(p, ["run", "Write a file", "--json"]);
  assert.equal(r.code, 0, r.err);
  assert.ok(
    Date.now() - started < 30_000,
    "the kernel did not wait out the vetoer",
  );
  const events: Ev[] = jsonLines(r.out);
  assert.equal(events.at(-1)?.status, "completed");
  const [denied] = resultOf(events, "write_file");
  assert.equal(denied?.isError, true);
  assert.equal(denied?.deniedBy, "hook-veto:vetoer");
  await assert.rejects(Deno.stat(`${p.dir}/notes.txt`), Deno.errors.NotFound);
  // The timeout is reported as a hook_error of the veto subscriber.
  const hookError = events.find((e) => e.type === "hook_error");
  assert.equal(hookError?.point, "plan-ready");
  assert.equal(hookError?.subscriber, "vetoer");
  assert.equal(hookError?.mode, "veto");
  assert.equal(hookError?.category, "timeout");
});
