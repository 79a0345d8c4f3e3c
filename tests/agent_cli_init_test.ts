/**
 * `agent init [dir]` through the CLI (main.ts): the default agent.hcl and
 * its lock file, the deno.json tasks, the GitHub workflow, never
 * overwriting a file, the provider question on a terminal; and the whole
 * path a new user takes: init, `check-config --locked`, then a run
 * against the fake Anthropic API.
 *
 * @module
 */
import assert from "node:assert/strict";
import { dirname } from "node:path";
import type { AgentIo } from "../main.ts";
import { run } from "../main.ts";
import { defaultConfigText } from "../config/default_config.ts";
import {
  INIT_HELP,
  INIT_TASKS,
  PACKAGE_SPECIFIER,
  WORKFLOW_PATH,
} from "../cli/commands/init.ts";
import { startFakeAnthropic, textReply } from "./_fake_anthropic.ts";
import { PATH } from "./_helpers.ts";

interface Dir extends AsyncDisposable {
  dir: string;
  env: Record<string, string>;
}

async function tempDir(env: Record<string, string> = {}): Promise<Dir> {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-init-" }),
  );
  const dir = `${root}/project`;
  await Deno.mkdir(dir);
  const denoDir = Deno.env.get("DENO_DIR");
  return {
    dir,
    env: {
      PATH,
      HOME: root,
      XDG_STATE_HOME: `${root}/state`,
      XDG_CONFIG_HOME: `${root}/config`,
      XDG_CACHE_HOME: `${root}/cache`,
      NO_COLOR: "1",
      ...(denoDir ? { DENO_DIR: denoDir } : {}),
      ...env,
    },
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

async function cli(
  d: Dir,
  args: string[],
  stdin?: { text: string; terminal: boolean },
) {
  let out = "";
  let err = "";
  const io: AgentIo = {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    isTerminal: false,
    env: d.env,
    cwd: d.dir,
    ...(stdin
      ? {
        stdin: ReadableStream.from([new TextEncoder().encode(stdin.text)]),
        stdinIsTerminal: stdin.terminal,
      }
      : {}),
  };
  const code = await run(args, io);
  return { code, out, err };
}

/** Every file under dir, relative, sorted. */
async function tree(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(`${dir}/${prefix}`)) {
    const rel = `${prefix}${e.name}`;
    if (e.isDirectory) out.push(...await tree(dir, `${rel}/`));
    else out.push(rel);
  }
  return out.sort();
}

Deno.test("agent init in an empty directory writes the default agent.hcl (no key: the commented choice) and its lock file, nothing else", async () => {
  await using d = await tempDir();
  const r = await cli(d, ["init", "--yes"]);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(await tree(d.dir), [".agent/agent.lock.hcl", "agent.hcl"]);
  const text = await Deno.readTextFile(`${d.dir}/agent.hcl`);
  assert.equal(
    text,
    defaultConfigText({ provider: "anthropic" }, { noKey: true }),
  );
  assert.match(text, /# OpenAI \(set OPENAI_API_KEY\):/);
  assert.match(text, /# An OpenAI-compatible server on this machine/);
  const lock = await Deno.readTextFile(`${d.dir}/.agent/agent.lock.hcl`);
  for (
    const source of [
      "anthropic",
      "filesystem",
      "search",
      "exec",
      "task",
      "user",
      "agents-md",
    ]
  ) assert.match(lock, new RegExp(`source += "builtin/${source}"`));
  assert.match(r.err, /Wrote .*agent\.lock\.hcl/);
  assert.match(r.err, /set ANTHROPIC_API_KEY/);
});

Deno.test("agent init in a deno.json project adds the agent and check-config tasks and keeps the rest of deno.json", async () => {
  await using d = await tempDir({ OPENAI_API_KEY: "sk-o" });
  const original = {
    name: "@acme/app",
    version: "1.2.3",
    imports: { "std/": "jsr:@std/" },
    tasks: { test: "deno test -A" },
    fmt: { lineWidth: 100 },
  };
  await Deno.writeTextFile(
    `${d.dir}/deno.json`,
    JSON.stringify(original, null, 2) + "\n",
  );
  const r = await cli(d, ["init"]);
  assert.equal(r.code, 0, r.err);
  const after = JSON.parse(await Deno.readTextFile(`${d.dir}/deno.json`));
  assert.deepEqual(after, {
    ...original,
    tasks: {
      test: "deno test -A",
      agent:
        `deno run -A --v8-flags=--max-semi-space-size=1 ${PACKAGE_SPECIFIER}`,
      "check-config": `deno run -A ${PACKAGE_SPECIFIER} check-config`,
    },
  });
  assert.deepEqual(Object.keys(after), Object.keys(original));
  assert.match(r.err, /Added "agent" and "check-config" to the tasks of/);
  // The key selected the provider.
  assert.match(
    await Deno.readTextFile(`${d.dir}/agent.hcl`),
    /model += \{ source = "builtin\/openai"/,
  );

  // A deno.json without tasks gets them; an existing task is left alone.
  await using e = await tempDir();
  await Deno.writeTextFile(
    `${e.dir}/deno.json`,
    '{\n  "tasks": { "agent": "my own agent" }\n}\n',
  );
  const r2 = await cli(e, ["init", "--yes"]);
  assert.equal(r2.code, 0, r2.err);
  assert.deepEqual(
    JSON.parse(await Deno.readTextFile(`${e.dir}/deno.json`)).tasks,
    { agent: "my own agent", "check-config": INIT_TASKS["check-config"] },
  );
  assert.match(r2.err, /already has a task "agent": left as it is/);
});

Deno.test("agent init refuses to overwrite an existing file: exit 1, names it, writes nothing", async (t) => {
  for (
    const [existing, args] of [
      ["agent.hcl", ["init", "--yes"]],
      [".agent/agent.lock.hcl", ["init", "--yes"]],
      [WORKFLOW_PATH, ["init", "--yes", "--ci", "github"]],
    ] as const
  ) {
    await t.step(existing, async () => {
      await using d = await tempDir({ ANTHROPIC_API_KEY: "sk-a" });
      await Deno.mkdir(dirname(`${d.dir}/${existing}`), { recursive: true });
      await Deno.writeTextFile(`${d.dir}/${existing}`, "mine\n");
      await Deno.writeTextFile(`${d.dir}/deno.json`, '{ "name": "x" }\n');
      const before = await tree(d.dir);
      const r = await cli(d, [...args]);
      assert.equal(r.code, 1, r.err);
      assert.match(
        r.err,
        new RegExp(
          `"${
            existing.replaceAll(".", "\\.")
          }" already exists.*nothing was written`,
        ),
      );
      assert.deepEqual(await tree(d.dir), before);
      assert.equal(await Deno.readTextFile(`${d.dir}/${existing}`), "mine\n");
      assert.equal(
        await Deno.readTextFile(`${d.dir}/deno.json`),
        '{ "name": "x" }\n',
      );
    });
  }
  await t.step(
    "a lock that fails undoes agent.hcl and the new directory",
    async () => {
      await using d = await tempDir();
      await Deno.mkdir(`${d.env.XDG_CONFIG_HOME}/agent`, { recursive: true });
      await Deno.writeTextFile(
        `${d.env.XDG_CONFIG_HOME}/agent/config.hcl`,
        "frob {\n",
      );
      const r = await cli(d, ["init", "--yes", "new/project"]);
      assert.equal(r.code, 1, r.err);
      assert.match(r.err, /Cannot write the lock file; nothing was written/);
      assert.deepEqual(await tree(d.dir), []);
    },
  );
  await t.step("an invalid deno.json", async () => {
    await using d = await tempDir();
    await Deno.writeTextFile(`${d.dir}/deno.json`, "{ nope");
    const r = await cli(d, ["init", "--yes"]);
    assert.equal(r.code, 1, r.err);
    assert.match(r.err, /Cannot add tasks to ".*deno\.json": it is not valid/);
    assert.deepEqual(await tree(d.dir), ["deno.json"]);
  });
});

Deno.test("agent init --ci github writes a workflow that runs check-config --locked --json on pull requests", async () => {
  await using d = await tempDir({ ANTHROPIC_API_KEY: "sk-a" });
  await Deno.writeTextFile(`${d.dir}/deno.jsonc`, "// mine\n{}\n");
  const r = await cli(d, ["init", "--ci", "github"]);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(await tree(d.dir), [
    ".agent/agent.lock.hcl",
    WORKFLOW_PATH,
    "agent.hcl",
    "deno.jsonc",
  ]);
  const yml = await Deno.readTextFile(`${d.dir}/${WORKFLOW_PATH}`);
  assert.match(yml, /^on:\n {2}pull_request:\n/m);
  assert.match(yml, /uses: denoland\/setup-deno@v2/);
  assert.match(yml, new RegExp(`deno-version: v${Deno.version.deno}`));
  assert.ok(
    yml.includes(
      `run: deno run -A ${PACKAGE_SPECIFIER} check-config --locked --json`,
    ),
  );
  // deno.jsonc is not edited: the tasks to add are printed.
  assert.equal(
    await Deno.readTextFile(`${d.dir}/deno.jsonc`),
    "// mine\n{}\n",
  );
  assert.match(r.err, /deno\.jsonc is not edited[^\n]*\n {4}"agent": /);
});

Deno.test("agent init asks for the provider on a terminal, never without one, and takes --provider", async () => {
  await using d = await tempDir();
  const r = await cli(d, ["init"], { text: "7\n3\n", terminal: true });
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /Which model provider/);
  assert.equal(r.err.match(/answer 1, 2 or 3/g)?.length, 2);
  assert.equal(
    await Deno.readTextFile(`${d.dir}/agent.hcl`),
    defaultConfigText({ provider: "local" }),
  );

  await using e = await tempDir();
  const r2 = await cli(e, ["init"], { text: "3\n", terminal: false });
  assert.equal(r2.code, 0, r2.err);
  assert.doesNotMatch(r2.err, /Which model provider/);
  assert.match(await Deno.readTextFile(`${e.dir}/agent.hcl`), /NOTE:/);

  await using f = await tempDir({ ANTHROPIC_API_KEY: "sk-a" });
  const r3 = await cli(f, ["init", "sub/dir", "--provider", "openai"]);
  assert.equal(r3.code, 0, r3.err);
  assert.equal(
    await Deno.readTextFile(`${f.dir}/sub/dir/agent.hcl`),
    defaultConfigText({ provider: "openai" }),
  );
});

Deno.test("agent init -h shows its help; a bad option is a usage error (exit 3)", async () => {
  await using d = await tempDir();
  const h = await cli(d, ["init", "-h"]);
  assert.equal(h.code, 0);
  assert.equal(h.out, INIT_HELP);
  for (
    const args of [
      ["init", "--ci", "gitlab"],
      ["init", "--provider", "acme"],
      ["init", "a", "b"],
      ["init", "--frob"],
    ]
  ) {
    const r = await cli(d, args);
    assert.equal(r.code, 3, args.join(" "));
    assert.match(r.err, /\nerror: /);
  }
  assert.deepEqual(await tree(d.dir), []);
  const help = await cli(d, ["--help"]);
  assert.match(help.out, /\n {2}init \[dir\] {11}Write agent\.hcl/);
});

Deno.test("agent init, then check-config --locked passes, then agent run against the fake Anthropic API succeeds", async () => {
  await using fake = startFakeAnthropic();
  await using d = await tempDir({
    ANTHROPIC_API_KEY: "sk-ant-init-e2e-00",
    ANTHROPIC_BASE_URL: fake.url,
  });
  const init = await cli(d, ["init", "--yes"]);
  assert.equal(init.code, 0, init.err);
  const hcl = await Deno.readTextFile(`${d.dir}/agent.hcl`);
  assert.ok(hcl.includes(`base_url  = "${fake.url}"`), hcl);
  assert.ok(hcl.includes(`allow_net = ["127.0.0.1:${fake.port}"]`), hcl);

  const check = await cli(d, ["check-config", "--locked", "--no-cache"]);
  assert.equal(check.code, 0, check.out + check.err);
  assert.match(check.out, /Every provider matches the lock file/);

  fake.enqueue({ kind: "sse", frames: textReply(["Hello from init."]) });
  const r = await cli(d, ["run", "Say hello", "--locked", "--json"]);
  assert.equal(r.code, 0, r.err + r.out);
  assert.doesNotMatch(r.err, /built-in default/);
  const last = JSON.parse(r.out.trimEnd().split("\n").at(-1)!);
  assert.equal(last.finalText, "Hello from init.");
  assert.deepEqual(await tree(d.dir), [".agent/agent.lock.hcl", "agent.hcl"]);
});
