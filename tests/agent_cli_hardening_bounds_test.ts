/**
 * Issue 21, defects 6, 7, 13 and 14, each reproduced through `agent run`
 * with real plugin subprocesses (the scripted model, and the `rogue` tool
 * fixture in tests/fixtures/rogue that misbehaves on purpose):
 *
 * - 6: a tool that never answers under `max_wall_clock_s = 2`;
 * - 7: a 20 MB tool result and 8 MB of live output;
 * - 13: SIGTERM to `agent run` in the middle of a turn;
 * - 14: a tool plugin that exits in the middle of a call.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import {
  agent,
  jsonLines,
  makeProject,
  type ProjectOptions,
  README,
  REPO,
  type Turn,
} from "./_agent_project.ts";

const ROGUE = fileURLToPath(new URL("./fixtures/rogue", import.meta.url));

function rogueProject(turns: Turn[], options: Partial<ProjectOptions> = {}) {
  return makeProject({
    turns,
    files: { "README.md": README },
    extraRequired: `rogue = { source = ${
      JSON.stringify(ROGUE)
    }, version = "~> 0.1" }`,
    extraProviders: `provider "rogue" {}`,
    tools: ["fs.*", "rogue.*"],
    ...options,
  });
}

function call(name: string, args: Record<string, unknown> = {}): Turn {
  return { tool_calls: [{ id: `toolu_${name}`, name, arguments: args }] };
}

function sessionsDir(env: Record<string, string>): string {
  return `${env.XDG_STATE_HOME}/agent/sessions`;
}

async function filesIn(dir: string): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) out.push(e.name);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return out.sort();
}

Deno.test("defect 6: a tool that never answers is stopped at max_wall_clock_s, the final turn runs, exit 5", async () => {
  await using p = await rogueProject([
    call("hang"),
    {
      expect: "Give your final answer now",
      text: "Final answer: the tool hung.",
    },
  ], { profile: "max_wall_clock_s = 2" });
  const r = await agent(p, ["run", "Use the hanging tool", "--json"]);
  assert.equal(r.code, 5, r.err + r.out.slice(-2000));
  const events = jsonLines(r.out);
  const result = events.find((e) => e.type === "tool_result")!;
  assert.equal(result.isError, true);
  assert.match(String(result.text), /wall-clock limit/);
  assert.ok(
    events.some((e) =>
      e.type === "bound_fired" && e.bound === "max_wall_clock_s"
    ),
  );
  assert.equal(
    events.filter((e) => e.type === "turn_started").at(-1)?.final,
    true,
  );
  const end = events.at(-1)!;
  assert.equal(end.type, "session_ended");
  assert.equal(end.status, "error_max_wall_clock");
  assert.equal(end.finalText, "Final answer: the tool hung.");
});

Deno.test("defect 7: a 20 MB tool result reaches the model, stdout and the session file as 256 KiB, the rest in an overflow file", async () => {
  const bytes = 20_000_000;
  await using p = await rogueProject([
    call("big", { bytes }),
    { expect: "overflow_file", text: "The result was cut." },
  ]);
  const r = await agent(p, ["run", "Fetch the big thing", "--json"]);
  assert.equal(r.code, 0, r.err + r.out.slice(-2000));
  assert.ok(r.out.length < 2_000_000, `stdout is ${r.out.length} bytes`);
  const events = jsonLines(r.out);
  const result = events.find((e) => e.type === "tool_result")!;
  const bounded = result.result as Record<string, unknown>;
  assert.equal(bounded.truncated, true);
  assert.equal(bounded.total_bytes, bytes + '{"content":""}'.length);
  assert.equal(String(bounded.head).length, 256 * 1024);
  const dir = sessionsDir(p.env);
  const sessionId = String(events[0]!.sessionId);
  const file = String(bounded.overflow_file);
  assert.equal(file.startsWith(`${dir}/${sessionId}.files/`), true, file);
  assert.equal((await Deno.stat(file)).size, bytes + '{"content":""}'.length);
  const db = await Deno.stat(`${dir}/${sessionId}.sqlite`);
  assert.ok(db.size < 2_000_000, `the session file is ${db.size} bytes`);
});

Deno.test("defect 7: live output over max_result_bytes goes to the overflow file, not to stdout or memory", async () => {
  const bytes = 8 * 1024 * 1024;
  await using p = await rogueProject([
    call("flood", { bytes }),
    { text: "Flooded." },
  ], { profile: "max_result_bytes = 65536" });
  const r = await agent(p, ["run", "Flood", "--json"]);
  assert.equal(r.code, 0, r.err + r.out.slice(-2000));
  assert.ok(r.out.length < 1_000_000, `stdout is ${r.out.length} bytes`);
  const output = jsonLines(r.out).filter((e) => e.type === "tool_output")
    .map((e) => String(e.text)).join("");
  const m = /the rest is in "([^"]+)"/.exec(output);
  assert.ok(m, output.slice(-300));
  assert.equal(output.replace(/\n\[output over .*\]\n/, "").length, 65536);
  assert.equal((await Deno.stat(m[1]!)).size, bytes - 65536);
});

Deno.test("defect 14: a tool plugin that crashes in the middle of a call ends the run with exit 6", async () => {
  await using p = await rogueProject([
    call("crash"),
    { expect: "process_crashed", text: "The tool crashed; I stopped." },
  ]);
  const r = await agent(p, ["run", "Use the crashing tool", "--json"]);
  assert.equal(r.code, 6, r.err + r.out.slice(-2000));
  const end = jsonLines(r.out).at(-1)!;
  assert.equal(end.type, "session_ended");
  assert.deepEqual(end.crashedProviders, ["rogue"]);
});

Deno.test("defect 13: SIGTERM to agent run mid-turn ends the session as cancelled (session_ended, exit 143, no temp dir left)", async () => {
  await using p = await makeProject({
    turns: [{
      text: "one two three four five six seven eight nine ten",
      delay_ms: 300,
    }],
  });
  const tmp = `${p.dir}/../tmp`;
  await Deno.mkdir(tmp);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${REPO}/main.ts`, "run", "Count slowly", "--json"],
    cwd: p.dir,
    env: { ...p.env, TMPDIR: tmp },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let out = "";
  const decoder = new TextDecoder();
  const reader = child.stdout.getReader();
  let sent = false;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    out += decoder.decode(value, { stream: true });
    if (!sent && out.includes('"type":"text_delta"')) {
      child.kill("SIGTERM");
      sent = true;
    }
  }
  const status = await child.status;
  const err = new TextDecoder().decode(
    await new Response(child.stderr).arrayBuffer(),
  );
  assert.equal(sent, true, out + err);
  assert.equal(status.code, 143, err);
  const end = jsonLines(out).at(-1)!;
  assert.equal(end.type, "session_ended", out);
  assert.equal(end.status, "cancelled");
  assert.doesNotMatch(out, /"text":"ten/);
  assert.deepEqual(await filesIn(tmp), [], "no temporary directory is left");
  const list = await agent(p, ["sessions", "list", "--json"]);
  assert.equal(list.code, 0, list.err);
  assert.match(list.out, /"status":\s*"cancelled"/);
});
