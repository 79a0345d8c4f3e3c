/**
 * `agent plan` end to end, on a temporary git repository: a commit with
 * no agent.hcl, a first configuration on `main`, and a change on a branch
 * that adds an `allow_run`, turns a policy from ask into allow and
 * upgrades a path plugin (re-locked with `agent lock`).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { run } from "../main.ts";

const SECRET = "plan-secret-value-Qx81zP";

function io(cwd: string, env: Record<string, string> = {}) {
  let out = "";
  let err = "";
  return {
    stdout: (t: string) => (out += t),
    stderr: (t: string) => (err += t),
    isTerminal: false,
    env: { HOME: "/nonexistent-home", ...env },
    cwd,
    out: () => out,
    err: () => err,
  };
}

async function git(dir: string, ...args: string[]): Promise<string> {
  const r = await new Deno.Command("git", {
    args,
    cwd: dir,
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).output();
  const text = new TextDecoder().decode(r.stdout);
  if (!r.success) {
    throw new Error(
      `git ${args.join(" ")} failed: ${new TextDecoder().decode(r.stderr)}`,
    );
  }
  return text.trim();
}

function manifest(version: string): string {
  return JSON.stringify(
    {
      name: "tool",
      version,
      category: "tool",
      protocol_version: 1,
      runtime: "deno",
      entrypoint: "main.ts",
      capabilities: { env: [], run: ["*"], read: [], write: [], net: [] },
      config_schema: [{ name: "token", type: "string", sensitive: true }],
      tools: [
        { name: "read_file", kind: "data_source", risk: "read_only" },
        { name: "write_file", kind: "resource", risk: "moderate" },
      ],
    },
    null,
    2,
  );
}

function agentHcl(opts: { run: boolean; writes: "ask" | "allow" }): string {
  return `required_providers {
  tool = { source = "./plugins/tool", version = ">= 1.0.0" }
}

provider "tool" {
  token = env("PLAN_TEST_TOKEN")
${opts.run ? '  allow_run = ["git"]\n' : ""}}

policy "writes" {
  match  = { provider = "tool", kind = "resource" }
  action = "${opts.writes}"
}

agent_profile "default" {
  tools     = ["tool.*"]
  max_turns = 10
}
`;
}

async function write(dir: string, rel: string, text: string): Promise<void> {
  const path = join(dir, rel);
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await Deno.writeTextFile(path, text);
}

async function lock(dir: string): Promise<void> {
  const t = io(dir);
  assert.equal(await run(["lock"], t), 0, t.err());
}

/** The repository: README only; then v1 on main; then v2 on "feature". */
async function makeRepo(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "agent-plan-test-" });
  await git(dir, "init", "-q", "-b", "main");
  await git(dir, "config", "user.name", "Plan Test");
  await git(dir, "config", "user.email", "plan@test.invalid");
  await git(dir, "config", "commit.gpgsign", "false");
  await write(dir, "README.md", "# project\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-q", "-m", "readme");

  await write(dir, "plugins/tool/plugin.json", manifest("1.0.0"));
  await write(dir, "plugins/tool/main.ts", "export const version = 1;\n");
  await write(dir, "agent.hcl", agentHcl({ run: false, writes: "ask" }));
  await lock(dir);
  await git(dir, "add", "-A");
  await git(dir, "commit", "-q", "-m", "agent v1");

  await git(dir, "checkout", "-q", "-b", "feature");
  await write(dir, "plugins/tool/plugin.json", manifest("1.1.0"));
  await write(dir, "plugins/tool/main.ts", "export const version = 2;\n");
  await write(dir, "agent.hcl", agentHcl({ run: true, writes: "allow" }));
  await lock(dir);
  await git(dir, "add", "-A");
  await git(dir, "commit", "-q", "-m", "agent v2");
  return dir;
}

Deno.test("agent plan shows a new allow_run, an ask turned into allow and a provider upgrade, and exits 10", async () => {
  const dir = await makeRepo();
  try {
    const base = await git(dir, "rev-parse", "HEAD~1");

    const t = io(dir);
    assert.equal(await run(["plan", "--base", "HEAD~1"], t), 10, t.err());
    const text = t.out();
    assert.match(
      text,
      new RegExp(`against HEAD~1 \\(${base.slice(0, 12)}, --base HEAD~1\\)`),
    );
    assert.match(
      text,
      /~ tool {2}\.\/plugins\/tool, 1\.0\.0 -> 1\.1\.0 \(upgraded\), sha256:[0-9a-f]{12} -> sha256:[0-9a-f]{12}/,
    );
    assert.match(text, /\+ tool {2}run {4}git {2}\(widens\)/);
    assert.match(
      text,
      /~ writes {2}ask -> allow \{ provider = "tool", kind = "resource" \} {2}\(widens\)/,
    );
    assert.match(
      text,
      /tool\.write_file, resource, moderate: ask -> allow {2}\[policy "writes"\]/,
    );
    assert.match(text, /Not set, compared as empty .*: PLAN_TEST_TOKEN\./);
    assert.match(
      text,
      /\nWidens what the agent may do \(exit 10\): provider "tool" gains run permission "git"; policy "writes" turns ask into allow\.\n$/,
    );

    const j = io(dir, { PLAN_TEST_TOKEN: SECRET });
    assert.equal(await run(["plan", "--base", "HEAD~1", "--json"], j), 10);
    assert.ok(!j.out().includes(SECRET), "the secret is never printed");
    const doc = JSON.parse(j.out());
    assert.equal(doc.format_version, "1");
    assert.deepEqual(doc.base, {
      ref: "HEAD~1",
      commit: base,
      chosen_by: "--base HEAD~1",
      has_config: true,
    });
    assert.equal(doc.widens, true);
    assert.deepEqual(doc.unset_env, []);
    assert.equal(doc.providers.length, 1);
    const [p] = doc.providers;
    assert.equal(p.update, "upgraded");
    assert.equal(p.before.version, "1.0.0");
    assert.equal(p.after.version, "1.1.0");
    assert.match(p.before.checksum, /^sha256:[0-9a-f]{64}$/);
    assert.notEqual(p.before.checksum, p.after.checksum);
    assert.deepEqual(doc.grants, [
      {
        change: "added",
        provider: "tool",
        kind: "run",
        value: "git",
        widens: true,
      },
    ]);
    assert.deepEqual(doc.policies, [{
      change: "changed",
      name: "writes",
      widens: true,
      before: { action: "ask", match: { provider: "tool", kind: "resource" } },
      after: { action: "allow", match: { provider: "tool", kind: "resource" } },
    }]);
    assert.deepEqual(
      doc.runs_with_less_asking.map((l: { tool: string }) => l.tool),
      [
        "write_file",
      ],
    );
    assert.deepEqual(doc.profiles, []);

    // Without --base: the merge base of HEAD and main.
    const d = io(dir);
    assert.equal(await run(["plan"], d), 10, d.err());
    assert.match(
      d.out(),
      /against main \([0-9a-f]{12}, merge base of HEAD and main\)/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("agent plan compares the working tree, uncommitted changes included; a change that only narrows exits 0", async () => {
  const dir = await makeRepo();
  try {
    // Uncommitted: back to no allow_run and ask, and a lower bound.
    await write(
      dir,
      "agent.hcl",
      agentHcl({ run: false, writes: "ask" }).replace(
        "max_turns = 10",
        "max_turns = 5",
      ),
    );
    const t = io(dir);
    assert.equal(await run(["plan", "--base", "HEAD"], t), 0, t.err());
    const text = t.out();
    assert.match(text, /- tool {2}run {4}git\n/);
    assert.match(text, /~ writes {2}allow -> ask /);
    assert.match(text, /~ max_turns 10 -> 5 \(lowered\)/);
    assert.match(text, /\nDoes not widen: 3 changes, none grants/);
    assert.doesNotMatch(text, /widens/);
    assert.ok(!text.includes("\x1b["), "no colour without a terminal");

    // Colour only on a terminal, and never with NO_COLOR.
    const tty = { ...io(dir), isTerminal: true };
    assert.equal(await run(["plan", "--base", "HEAD"], tty), 0);
    assert.ok(tty.out().includes("\x1b[31m  - tool"), "removed lines in red");
    const noColor = { ...io(dir, { NO_COLOR: "1" }), isTerminal: true };
    assert.equal(await run(["plan", "--base", "HEAD"], noColor), 0);
    assert.ok(!noColor.out().includes("\x1b["), "no colour with NO_COLOR");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("agent plan against a base without agent.hcl counts everything as added", async () => {
  const dir = await makeRepo();
  try {
    const t = io(dir);
    assert.equal(await run(["plan", "--base", "HEAD~2", "--json"], t), 10);
    const doc = JSON.parse(t.out());
    assert.equal(doc.base.has_config, false);
    assert.deepEqual(
      doc.providers.map((
        p: { change: string; name: string },
      ) => [p.change, p.name]),
      [["added", "tool"]],
    );
    assert.deepEqual(
      doc.profiles.map((p: { change: string; tools_widening: string[] }) => [
        p.change,
        p.tools_widening,
      ]),
      [["added", ["tool.*"]]],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("agent plan exits 3 naming a --base that is not a commit or a directory outside git, and 1 on an invalid configuration", async () => {
  const dir = await makeRepo();
  const outside = await Deno.makeTempDir({ prefix: "agent-plan-nogit-" });
  try {
    const t = io(dir);
    assert.equal(await run(["plan", "--base", "no-such-ref"], t), 3);
    assert.equal(t.out(), "");
    assert.match(
      t.err(),
      /^Usage: agent plan .*\nerror: Cannot resolve --base "no-such-ref": it is not a commit of this repository\n$/,
    );
    await Deno.writeTextFile(join(outside, "agent.hcl"), "");
    // Only when the temporary directory is itself outside any repository.
    const inRepo = (await new Deno.Command("git", {
      args: ["rev-parse", "--git-dir"],
      cwd: outside,
      stdout: "null",
      stderr: "null",
    }).output()).success;
    if (!inRepo) {
      const o = io(outside);
      assert.equal(await run(["plan", "--base", "HEAD"], o), 3);
      assert.match(o.err(), /is not inside a git repository/);
    }
    // An invalid working tree: exit 1, the diagnostics on stderr.
    await write(dir, "agent.hcl", "required_providers {\n  tool = 3\n}\n");
    const bad = io(dir);
    assert.equal(await run(["plan", "--base", "HEAD"], bad), 1);
    assert.equal(bad.out(), "");
    assert.match(bad.err(), /The configuration in the working tree:\n/);
    assert.match(
      bad.err(),
      /\nerror: cannot compare: the configuration in the working tree is invalid\n$/,
    );
    const badJson = io(dir);
    assert.equal(await run(["plan", "--base", "HEAD", "--json"], badJson), 1);
    const doc = JSON.parse(badJson.out());
    assert.equal(doc.valid, false);
    assert.equal(doc.sides[0].side, "working tree");
    assert.ok(doc.sides[0].diagnostics.length > 0);

    const h = io(dir);
    assert.equal(await run(["plan", "-h"], h), 0);
    assert.match(
      h.out(),
      /^Usage: agent plan \[dir\] \[--base GIT_REF\] \[--json\]/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});
