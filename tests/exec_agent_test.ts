/**
 * The exec provider in real sessions (scripted model, `agent run`,
 * headless): `command` policy rules judge each segment of a command line.
 * An allowed `git status` runs without approval; `git status && rm -rf x`
 * is denied because of its worst segment, naming it; a segment no rule
 * allows makes the call ask (headless: denied); an unparseable command is
 * never auto-allowed, even under a rule that allows every command.
 *
 * @module
 */
import assert from "node:assert/strict";
import { agent, jsonLines, makeProject, type Turn } from "./_agent_project.ts";

const EXEC_REQUIRED = `sh = { source = "builtin/exec", version = "~> 0.1" }`;

const EXEC_PROVIDER = `
provider "sh" {
  roots      = ["."]
  allow_run  = ["bash"]
  allow_read = ["."]
}
`;

const POLICIES = `
policy "git_status_ok" {
  match  = { provider = "sh", tool_name = "bash", command = "git status*" }
  action = "allow"
}

policy "echo_ok" {
  match  = { provider = "sh", command = "echo *" }
  action = "allow"
}

policy "all_commands_ok" {
  match  = { provider = "sh", command = "*" }
  action = "ask"
}

policy "never_rm" {
  match  = { command = "rm *" }
  action = "deny"
}
`;

function bash(id: string, command: string, expect?: string): Turn {
  return {
    ...(expect !== undefined ? { expect } : {}),
    tool_calls: [{ id, name: "bash", arguments: { command } }],
  };
}

async function gitInit(dir: string): Promise<void> {
  const r = await new Deno.Command("git", {
    args: ["init", "-q", dir],
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.equal(r.code, 0, new TextDecoder().decode(r.stderr));
}

type Event = Record<string, unknown>;

function resultOf(events: Event[], callId: string): Event {
  const r = events.find((e) => e.type === "tool_result" && e.callId === callId);
  assert.ok(r, `a tool_result for ${callId}`);
  return r;
}

function planItemOf(events: Event[], callId: string): Event {
  for (const e of events) {
    if (e.type !== "plan") continue;
    const item = (e.items as Event[]).find((i) => i.callId === callId);
    if (item) return item;
  }
  assert.fail(`no plan item for ${callId}`);
}

Deno.test("exec session: command rules judge each segment; the worst decides", async () => {
  await using p = await makeProject({
    turns: [
      bash("t_status", "git status --short"),
      bash("t_chain", "git status && rm -rf victim", "?? "),
      bash("t_unknown", "git status; touch made", "denied by policy:never_rm"),
      bash("t_echo", "echo hello && echo world", "denied by on_ask:deny"),
      { expect: "hello", text: "Done." },
    ],
    files: { "untracked.txt": "x\n" },
    extraRequired: EXEC_REQUIRED,
    extraProviders: EXEC_PROVIDER,
    policies: POLICIES,
    tools: ["sh.*"],
  });
  await gitInit(p.dir);
  await Deno.mkdir(`${p.dir}/victim`);
  const r = await agent(p, ["run", "Check the repository", "--json"]);
  assert.equal(r.code, 0, r.err + r.out);
  const events = jsonLines(r.out);

  // git status: allowed by its command rule, run without any ask
  const status = planItemOf(events, "t_status");
  assert.equal(status.decision, "allow");
  assert.equal(
    status.decidedBy,
    'policy:git_status_ok (segment "git status --short")',
  );
  const ran = resultOf(events, "t_status");
  assert.equal(ran.isError, false, JSON.stringify(ran));
  assert.match(JSON.stringify(ran), /untracked\.txt/);

  // git status && rm -rf victim: the rm segment denies the whole call
  const chain = planItemOf(events, "t_chain");
  assert.equal(chain.decision, "deny");
  assert.equal(chain.decidedBy, 'policy:never_rm (segment "rm -rf victim")');
  assert.equal(resultOf(events, "t_chain").isError, true);
  assert.ok((await Deno.stat(`${p.dir}/victim`)).isDirectory, "victim kept");

  // git status; touch made: touch is only covered by an ask rule → asked,
  // and headless the ask is denied
  const unknown = planItemOf(events, "t_unknown");
  assert.equal(unknown.decision, "ask");
  assert.equal(
    unknown.decidedBy,
    'policy:all_commands_ok (segment "touch made")',
  );
  assert.equal(resultOf(events, "t_unknown").deniedBy, "on_ask:deny");
  await assert.rejects(Deno.stat(`${p.dir}/made`), Deno.errors.NotFound);

  // two allowed segments: allowed
  const echo = planItemOf(events, "t_echo");
  assert.equal(echo.decision, "allow");
  assert.match(JSON.stringify(resultOf(events, "t_echo")), /hello\\nworld/);
  assert.equal(events.at(-1)?.status, "completed");
});

Deno.test("exec session: an unparseable command is never auto-allowed", async () => {
  await using p = await makeProject({
    turns: [
      bash("t_eval", "eval 'touch made'"),
      bash("t_var", "$CMD made", "denied by on_ask:deny"),
      { expect: "denied by on_ask:deny", text: "Both were refused." },
    ],
    extraRequired: EXEC_REQUIRED,
    extraProviders: EXEC_PROVIDER,
    // allows every command, and every sh call
    policies: `
policy "every_command" {
  match  = { command = "*" }
  action = "allow"
}

policy "sh_ok" {
  match  = { provider = "sh" }
  action = "allow"
}
`,
    tools: ["sh.*"],
  });
  const r = await agent(p, ["run", "Make a file", "--json"]);
  assert.equal(r.code, 0, r.err);
  const events = jsonLines(r.out);
  for (
    const [id, reason] of [["t_eval", /eval/], ["t_var", /\$CMD/]] as const
  ) {
    const item = planItemOf(events, id);
    assert.equal(item.decision, "ask", `${id}: ${JSON.stringify(item)}`);
    assert.match(String(item.decidedBy), /^policy:unparseable command \(/);
    assert.match(String(item.decidedBy), reason);
    assert.equal(resultOf(events, id).deniedBy, "on_ask:deny");
  }
  await assert.rejects(Deno.stat(`${p.dir}/made`), Deno.errors.NotFound);
});

/** A `sleep` duration no other process in this run uses. */
const SLEEP_S = `30.${Deno.pid}`;

/** Host pids of live `sleep <seconds>` processes (zombies excluded). */
function hostSleeps(seconds: string): number[] {
  const pids: number[] = [];
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const cmdline = Deno.readTextFileSync(`/proc/${e.name}/cmdline`);
      const stat = Deno.readTextFileSync(`/proc/${e.name}/stat`);
      if (
        cmdline === `sleep\0${seconds}\0` && !/^\d+ \(.*\) [ZX]/.test(stat)
      ) pids.push(Number(e.name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

Deno.test("exec session: a timeout kills the tree; a working directory outside the roots is refused", async () => {
  const allowAll = `
policy "any_command" {
  match  = { provider = "sh", command = "*" }
  action = "allow"
}
`;
  {
    await using p = await makeProject({
      turns: [
        {
          tool_calls: [{
            id: "t_slow",
            name: "bash",
            arguments: {
              command: `sleep ${SLEEP_S} & echo $! > sleep.pid; wait`,
              timeout_s: 0.5,
            },
          }],
        },
        { expect: "longer than 0.5 s", text: "It timed out." },
      ],
      extraRequired: EXEC_REQUIRED,
      // The command writes sleep.pid into the project: in the OS sandbox
      // a command may write only where the provider is granted to.
      extraProviders: EXEC_PROVIDER.replace(
        'allow_read = ["."]',
        'allow_read = ["."]\n  allow_write = ["."]',
      ),
      policies: allowAll,
      tools: ["sh.*"],
    });
    const r = await agent(p, ["run", "Wait", "--json"]);
    assert.equal(r.code, 0, r.err + r.out);
    const result = resultOf(jsonLines(r.out), "t_slow");
    assert.equal(result.isError, true);
    assert.equal((result.error as Event).category, "timeout");
    // The pid the command wrote is the OS sandbox's (its own PID
    // namespace): the grandchild is found on the host by its command line.
    const pid = Number(await Deno.readTextFile(`${p.dir}/sleep.pid`));
    assert.ok(pid > 0, "the grandchild sleep was started");
    let alive = true;
    for (let i = 0; i < 100 && alive; i++) {
      alive = hostSleeps(SLEEP_S).length > 0;
      if (alive) await new Promise((res) => setTimeout(res, 50));
    }
    assert.equal(alive, false, `the grandchild sleep ${SLEEP_S} is gone`);
  }
  {
    await using p = await makeProject({
      turns: [
        bash("t_pwd", "pwd"),
        { expect: "outside the roots", text: "I may not run commands here." },
      ],
      extraRequired: EXEC_REQUIRED,
      extraProviders: EXEC_PROVIDER.replace(
        `roots      = ["."]`,
        `roots      = ["sub"]`,
      ),
      policies: allowAll,
      tools: ["sh.*"],
    });
    await Deno.mkdir(`${p.dir}/sub`);
    const r = await agent(p, ["run", "Where am I?", "--json"]);
    assert.equal(r.code, 0, r.err + r.out);
    const result = resultOf(jsonLines(r.out), "t_pwd");
    assert.equal(result.isError, true);
    assert.equal((result.error as Event).category, "permission_denied");
  }
});

Deno.test("exec session: a command's output streams live as tool_output events, in order, before its result", async () => {
  await using p = await makeProject({
    turns: [
      bash("toolu_out", "echo one && echo two >&2 && echo three"),
      { expect: "three", text: "Done." },
    ],
    extraRequired: EXEC_REQUIRED,
    extraProviders: EXEC_PROVIDER,
    tools: ["fs.*", "sh.*"],
    policies: POLICIES,
  });
  const r = await agent(p, ["run", "Print", "--json", "--approve-all"]);
  assert.equal(r.code, 0, r.err + r.out);
  const events = jsonLines(r.out);
  const outputs = events.filter((e) =>
    e.type === "tool_output" && e.callId === "toolu_out"
  );
  // Chunk boundaries are the OS's; per stream, the text is in order.
  const text = (stream: string) =>
    outputs.filter((e) => e.stream === stream).map((e) => e.text).join("");
  assert.equal(text("stdout"), "one\nthree\n");
  assert.equal(text("stderr"), "two\n");
  const at = (pred: (e: Event) => boolean) => events.findIndex(pred);
  assert.ok(
    at((e) => e.type === "tool_output") <
      at((e) => e.type === "tool_result" && e.callId === "toolu_out"),
  );
});
