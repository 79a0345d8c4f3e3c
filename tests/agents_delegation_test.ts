/**
 * The delegation tool `builtin/agents` end to end: `openKernel` on a
 * temporary project whose profiles each run their own `builtin/scripted`
 * model (the scripted model picks its turn by the number of assistant
 * messages, so every session of a tree needs its own script). Sub-agents
 * run through the kernel's `RunSession`; worktree children get a real git
 * worktree and their branches are merged by the kernel's `MergeWorktree`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { openKernel } from "../kernel/kernel.ts";
import type { SessionEvent } from "../kernel/agent/session_events.ts";
import { PATH } from "./_helpers.ts";
import type { Turn } from "./_agent_project.ts";
import { BUILTINS } from "../plugins/builtin.ts";

interface ProfileDef {
  /** Its tools; default `agents.*`. */
  tools?: string[];
  /** Extra attributes. */
  extra?: string;
  /** Its script (the profile's own scripted provider). */
  turns: Turn[];
}

interface Fixture extends AsyncDisposable {
  dir: string;
  kernel: Awaited<ReturnType<typeof openKernel>>;
}

async function git(dir: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args: [
      "-C",
      dir,
      "-c",
      "user.name=test",
      "-c",
      "user.email=test@localhost",
      ...args,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (out.code !== 0) {
    throw new Error(
      `git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`,
    );
  }
  return text.trim();
}

/**
 * A project with one scripted provider per profile (named after it), the
 * agents and filesystem tools, `extra` HCL, and `files` committed to a
 * fresh git repository when `repo` is set.
 */
async function fixture(
  profiles: Record<string, ProfileDef>,
  options: {
    extra?: string;
    extraRequired?: string;
    files?: Record<string, string>;
  } = {},
): Promise<Fixture> {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-agent-deleg-" }),
  );
  try {
    const dir = `${root}/project`;
    await Deno.mkdir(dir);
    const names = Object.keys(profiles);
    const hcl = `required_providers {
${
      names.map((m) =>
        `  m_${m} = { source = "builtin/scripted", version = "~> 0.1" }`
      ).join("\n")
    }
  agents = { source = "builtin/agents", version = "~> 0.1" }
  fs     = { source = "builtin/filesystem", version = "~> 0.1" }
  ${options.extraRequired ?? ""}
}
${
      names.map((m) =>
        `provider "m_${m}" {
  script     = "./${m}.json"
  allow_read = ["."]
}`
      ).join("\n")
    }
provider "fs" {
  roots       = ["."]
  allow_read  = ["."]
  allow_write = ["."]
}

policy "all_ok" {
  match  = { kind = "data_source" }
  action = "allow"
}
policy "writes_ok" {
  match  = { kind = "resource" }
  action = "allow"
}
${
      Object.entries(profiles).map(([name, p]) =>
        `agent_profile "${name}" {
  model {
    primary {
      provider = "m_${name}"
      id       = "scripted"
    }
  }
  tools = ${JSON.stringify(p.tools ?? ["agents.*"])}
  ${p.extra ?? ""}
}`
      ).join("\n")
    }
${options.extra ?? ""}
`;
    await Deno.writeTextFile(`${dir}/agent.hcl`, hcl);
    for (const [m, p] of Object.entries(profiles)) {
      await Deno.writeTextFile(
        `${dir}/${m}.json`,
        JSON.stringify({ turns: p.turns }),
      );
    }
    if (options.files) {
      for (const [path, text] of Object.entries(options.files)) {
        await Deno.writeTextFile(`${dir}/${path}`, text);
      }
      await git(dir, "init", "--quiet", "-b", "main");
      await git(dir, "add", "-A");
      await git(dir, "commit", "--quiet", "-m", "initial");
    }
    const kernel = await openKernel(dir, {
      builtins: BUILTINS,
      env: { PATH, HOME: root, XDG_STATE_HOME: `${root}/state` },
      sessionsDir: `${root}/sessions`,
    });
    return {
      dir,
      kernel,
      [Symbol.asyncDispose]: async () => {
        await kernel.close();
        await Deno.remove(root, { recursive: true });
      },
    };
  } catch (err) {
    await Deno.remove(root, { recursive: true });
    throw err;
  }
}

function call(id: string, name: string, args: Record<string, unknown>) {
  return { id, name, arguments: args };
}

async function runAll(f: Fixture, prompt: string) {
  const run = f.kernel.run(prompt);
  const events: SessionEvent[] = [];
  for await (const e of run) events.push(e);
  return { events, outcome: await run.result };
}

// deno-lint-ignore no-explicit-any
type Json = any;

/** The tool results of a run's events, in order, with parsed JSON. */
function results(events: SessionEvent[]): Json[] {
  return events.flatMap((e) => {
    if (e.type !== "tool_result") return [];
    let json: Json;
    try {
      json = JSON.parse(e.text ?? "");
    } catch {
      json = undefined;
    }
    return [{ ...e, json }];
  });
}

const cost = (i: number, o: number) => (i * 3 + o * 15) / 1e6;

Deno.test("three sub-agents run in parallel, and their spend is charged up the tree until the parent's max_cost_usd stops it", async () => {
  // Each worker spends 0.30 USD; the parent may spend 0.80 in all.
  const workerUsage = { input_tokens: 50_000, output_tokens: 10_000 };
  await using f = await fixture({
    default: {
      extra: "max_cost_usd = 0.8\n  max_concurrent_subagents = 3",
      turns: [
        {
          tool_calls: [1, 2, 3].map((i) =>
            call(`toolu_${i}`, "spawn_subagent", {
              profile: "worker",
              prompt: `job ${i}`,
            })
          ),
          usage: { input_tokens: 10, output_tokens: 1 },
        },
        { text: "unreachable: the children spent the parent's budget" },
      ],
    },
    worker: {
      tools: [],
      turns: [{ text: "job done", usage: workerUsage, delay_ms: 150 }],
    },
  });
  const { events, outcome } = await runAll(f, "Run three jobs");
  const spawned = results(events);
  assert.deepEqual(
    spawned.map((r) => [r.json.name, r.json.status]),
    [
      ["worker-1", "completed"],
      ["worker-2", "completed"],
      ["worker-3", "completed"],
    ],
  );
  for (const r of spawned) {
    assert.ok(Math.abs(r.json.total_cost_usd - cost(50_000, 10_000)) < 1e-9);
  }
  // The parent itself spent almost nothing: its children's 0.90 did it in.
  assert.equal(outcome.status, "error_max_budget_usd");
  // Its own ledger holds a few tokens' worth: the 0.80 went to children.
  assert.ok(outcome.totalCostUsd < 0.01, String(outcome.totalCostUsd));
  const { sessions } = await f.kernel.sessions.list({
    parentSessionId: outcome.sessionId,
  });
  assert.equal(sessions.length, 3);
  const spent = sessions.reduce((sum, s) => sum + (s.costUsd ?? 0), 0);
  assert.ok(Math.abs(spent - 3 * cost(50_000, 10_000)) < 1e-9);
  // All three were alive at once (max_concurrent_subagents = 3).
  const points = sessions.flatMap((s) => [
    [Date.parse(s.startedAt), 1],
    [Date.parse(s.endedAt!), -1],
  ]).sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  let alive = 0;
  let most = 0;
  for (const [, d] of points) most = Math.max(most, alive += d!);
  assert.equal(most, 3);
});

Deno.test("a named agent of agent.hcl runs its profile, and the parent hears its lifecycle as <cp:subagent>", async () => {
  await using f = await fixture({
    default: {
      turns: [
        {
          tool_calls: [
            call("toolu_r", "spawn_subagent", {
              agent: "reviewer",
              prompt: "Review the change to parse.ts",
            }),
          ],
        },
        {
          expect: [
            '<cp:subagent state="started"',
            'kind="reviewer"',
            '<cp:subagent state="finished"',
            "LGTM but rename x",
          ],
          text: "The reviewer approved.",
        },
      ],
    },
    review: {
      tools: [],
      turns: [{
        expect: "Review the change to parse.ts",
        text: "LGTM but rename x",
      }],
    },
  }, {
    extra: `agent "reviewer" {
  profile     = "review"
  description = "Reviews a change and lists what is wrong with it."
}`,
  });
  const { events, outcome } = await runAll(f, "Get a review");
  assert.equal(outcome.status, "completed", JSON.stringify(outcome.error));
  const [r] = results(events);
  assert.equal(r.json.name, "reviewer");
  assert.equal(r.json.final_text, "LGTM but rename x");
  const { sessions } = await f.kernel.sessions.list({
    parentSessionId: outcome.sessionId,
  });
  assert.deepEqual(sessions.map((s) => s.profile), ["review"]);
});

Deno.test("send_message carries a message between named sub-agents as <cp:mailbox>, to a sibling and to the parent", async () => {
  await using f = await fixture({
    default: {
      turns: [
        {
          tool_calls: [
            call("toolu_b", "spawn_subagent", {
              agent: "beta",
              prompt: "Wait for alpha",
              background: true,
            }),
          ],
        },
        { tool_calls: [call("toolu_wm", "wait_message", {})] },
        {
          expect: '<cp:mailbox from="beta" to="main">beta is ready',
          tool_calls: [
            call("toolu_a", "spawn_subagent", {
              agent: "alpha",
              prompt: "Tell beta the port",
              background: true,
            }),
          ],
        },
        { tool_calls: [call("toolu_w", "wait_subagent", {})] },
        { expect: "beta heard: port 8080", text: "Both are done." },
      ],
    },
    alpha: {
      turns: [
        {
          tool_calls: [
            call("toolu_s", "send_message", {
              to: "beta",
              text: "the port is 8080",
            }),
          ],
        },
        { text: "alpha told beta" },
      ],
    },
    beta: {
      turns: [
        {
          tool_calls: [
            call("toolu_p", "send_message", {
              to: "parent",
              text: "beta is ready",
            }),
          ],
        },
        { tool_calls: [call("toolu_wb", "wait_message", {})] },
        {
          expect: '<cp:mailbox from="alpha" to="beta">the port is 8080',
          text: "beta heard: port 8080",
        },
      ],
    },
  }, {
    extra: `agent "alpha" {
  profile     = "alpha"
  description = "Knows the port."
}
agent "beta" {
  profile     = "beta"
  description = "Needs the port."
}`,
  });
  const { events, outcome } = await runAll(f, "Coordinate alpha and beta");
  assert.equal(outcome.status, "completed", JSON.stringify(outcome.error));
  const byId = new Map(results(events).map((r) => [r.callId, r.json]));
  assert.deepEqual(byId.get("toolu_b"), {
    name: "beta",
    status: "running",
    note:
      "Running in the background: call wait_subagent before your turn ends.",
  });
  assert.deepEqual(byId.get("toolu_wm"), { messages: 1 });
  const waited = byId.get("toolu_w").agents.map((
    a: Json,
  ) => [a.name, a.status, a.final_text]);
  assert.deepEqual(waited, [
    ["beta", "completed", "beta heard: port 8080"],
    ["alpha", "completed", "alpha told beta"],
  ]);
});

Deno.test("worktree sub-agents: a clean branch is squash-merged with <cp:worktree-merged>, a conflicting one is reported and nothing changes", async () => {
  const edit = (content: string): Turn => ({
    tool_calls: [
      call("toolu_w", "write_file", { path: "shared.txt", content }),
    ],
  });
  await using f = await fixture({
    default: {
      turns: [
        {
          tool_calls: [
            call("toolu_1", "spawn_subagent", {
              profile: "first",
              name: "first",
              prompt: "Change shared.txt",
              worktree: true,
            }),
            call("toolu_2", "spawn_subagent", {
              profile: "second",
              name: "second",
              prompt: "Change shared.txt differently",
              worktree: true,
            }),
          ],
        },
        { tool_calls: [call("toolu_m1", "merge_worktree", { name: "first" })] },
        {
          expect: [
            '<cp:worktree-merged slug="first" branch="agent/first"',
            'kind="squash"',
            "shared.txt | 2 +-",
            "first changed shared.txt",
          ],
          tool_calls: [call("toolu_m2", "merge_worktree", { name: "second" })],
        },
        { text: "first merged, second conflicts." },
      ],
    },
    first: {
      tools: ["fs.*"],
      turns: [edit("line from first\n"), { text: "first changed shared.txt" }],
    },
    second: {
      tools: ["fs.*"],
      turns: [edit("line from second\n"), {
        text: "second changed shared.txt",
      }],
    },
  }, { files: { "shared.txt": "original line\n" } });
  const head0 = await git(f.dir, "rev-parse", "HEAD");
  const { events, outcome } = await runAll(f, "Two workers, one file");
  assert.equal(outcome.status, "completed", JSON.stringify(outcome.error));
  const byId = new Map(results(events).map((r) => [r.callId, r.json]));
  assert.equal(byId.get("toolu_1").worktree_branch, "agent/first");
  assert.equal(
    byId.get("toolu_1").worktree_path,
    `${f.dir}/.agent/worktrees/first`,
  );
  const m1 = byId.get("toolu_m1");
  assert.equal(m1.merged, true);
  assert.equal(m1.kind, "squash");
  assert.match(m1.diffstat, /shared\.txt \| 2 \+-/);
  const m2 = byId.get("toolu_m2");
  assert.equal(m2.merged, false);
  assert.deepEqual(m2.conflicts, ["shared.txt"]);

  // One squash commit on top of the original HEAD, with the worker's report.
  assert.equal(await git(f.dir, "rev-parse", "HEAD~1"), head0);
  assert.equal(await git(f.dir, "rev-parse", "HEAD"), m1.commit);
  assert.equal(
    await git(f.dir, "log", "-1", "--format=%s"),
    "first: first changed shared.txt",
  );
  assert.equal(
    await Deno.readTextFile(`${f.dir}/shared.txt`),
    "line from first\n",
  );
  // The conflict changed nothing: a clean tree, the second worktree kept.
  assert.equal(await git(f.dir, "status", "--porcelain"), "");
  await assert.rejects(Deno.stat(`${f.dir}/.agent/worktrees/first`));
  assert.equal(
    await Deno.readTextFile(`${f.dir}/.agent/worktrees/second/shared.txt`),
    "line from second\n",
  );
  assert.match(
    await git(f.dir, "branch", "--list", "agent/*"),
    /agent\/first\n[+ ]*agent\/second/,
  );
});

Deno.test("/worktree merge NAME merges a worktree sub-agent's branch between prompts, and the next prompt hears <cp:worktree-merged>", async () => {
  await using f = await fixture({
    default: {
      extra: 'slash_commands = ["cmds.worktree"]',
      turns: [
        {
          tool_calls: [
            call("toolu_1", "spawn_subagent", {
              profile: "docs",
              name: "docs",
              prompt: "Write NOTES.md",
              worktree: true,
            }),
          ],
        },
        { text: "The docs worker is done; merge it when you like." },
        {
          expect: [
            '<cp:worktree-merged slug="docs" branch="agent/docs"',
            "NOTES.md | 1 +",
            "wrote NOTES.md",
          ],
          text: "Merged.",
        },
      ],
    },
    docs: {
      tools: ["fs.*"],
      turns: [
        {
          tool_calls: [
            call("toolu_w", "write_file", {
              path: "NOTES.md",
              content: "notes\n",
            }),
          ],
        },
        { text: "wrote NOTES.md" },
      ],
    },
  }, {
    extraRequired: 'cmds = { source = "builtin/commands", version = "~> 0.1" }',
    files: { "README.md": "# project\n" },
    extra: 'provider "cmds" {\n  allow_write = ["."]\n}',
  });
  const session = await f.kernel.session();
  try {
    const first = session.send("Have docs written");
    for await (const _ of first);
    const r1 = await first.result;
    assert.equal(r1.outcome, "done", JSON.stringify(r1.error));
    const usage = await session.command("worktree", "merge");
    assert.equal(usage.ok, false);
    assert.match(!usage.ok ? usage.error : "", /Usage: \/worktree merge NAME/);
    const merged = await session.command("worktree", "merge docs");
    assert.ok(merged.ok, JSON.stringify(merged));
    assert.equal(merged.result.merged, true);
    assert.match(String(merged.result.text), /Merged agent\/docs \(squash\)/);
    assert.equal(await Deno.readTextFile(`${f.dir}/NOTES.md`), "notes\n");
    assert.equal(
      await git(f.dir, "log", "-1", "--format=%s"),
      "docs: wrote NOTES.md",
    );
    const again = await session.command("worktree", "merge docs");
    assert.equal(again.ok, false);
    assert.match(!again.ok ? again.error : "", /already merged/);
    const next = session.send("Is it merged?");
    for await (const _ of next);
    const r2 = await next.result;
    assert.equal(r2.outcome, "done", JSON.stringify(r2.error));
    assert.equal(r2.finalText, "Merged.");
  } finally {
    await session.close();
  }
});
