/**
 * The OS sandbox is the default (`settings.sandbox` unset means `auto`),
 * through the real `agent run` command line as a subprocess: where
 * bubblewrap works every plugin runs in it without a word; where it does
 * not (here: no `bwrap` on the `PATH` the agent gives its plugins, the
 * same lookup production makes), `auto` prints one loud warning per kernel
 * and runs the plugins unsandboxed, and `required` refuses with a clear
 * error and no stack trace.
 */
import assert from "node:assert/strict";
import { probeSandbox } from "../kernel/process/sandbox.ts";
import { makeProject, type Project, REPO } from "./_agent_project.ts";

const TURNS = [
  {
    tool_calls: [{
      id: "t_read",
      name: "read_file",
      arguments: { path: "notes.md" },
    }],
  },
  { expect: "hello from the notes", text: "Read them." },
];

/** Runs `agent run` as its own process, with `PATH` set to `path`. */
async function agentRun(
  p: Project,
  path: string,
): Promise<{ code: number; out: string; err: string }> {
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${REPO}/main.ts`, "run", "Read the notes"],
    cwd: p.dir,
    env: { ...p.env, PATH: path },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: r.code, out: dec.decode(r.stdout), err: dec.decode(r.stderr) };
}

const WARNING_REGEXP =
  /^WARNING: plugins run without the OS sandbox: "bwrap" is not installed/gm;

Deno.test("sandbox unset (auto) without bubblewrap: agent run warns once on stderr and runs both plugins unsandboxed", async () => {
  await using p = await makeProject({
    turns: TURNS,
    files: { "notes.md": "hello from the notes\n" },
  });
  const empty = await Deno.makeTempDir({ prefix: "ph-agent-no-bwrap-" });
  try {
    const r = await agentRun(p, empty);
    assert.equal(r.code, 0, r.err + r.out);
    assert.match(r.out, /✓ read_file: 1 line/);
    assert.match(r.out, /Read them\./);
    // Two plugins (scripted, fs), one warning for the kernel.
    assert.equal(r.err.match(WARNING_REGEXP)?.length, 1, r.err);
    assert.match(r.err, /a plugin can read every file and environment/);
  } finally {
    await Deno.remove(empty, { recursive: true });
  }
});

Deno.test('sandbox = "required" without bubblewrap: agent run refuses to start a plugin, naming the reason, without a stack trace', async () => {
  await using p = await makeProject({
    turns: TURNS,
    files: { "notes.md": "hello from the notes\n" },
    extraProviders: 'settings {\n  sandbox = "required"\n}\n',
  });
  const empty = await Deno.makeTempDir({ prefix: "ph-agent-no-bwrap-" });
  try {
    const r = await agentRun(p, empty);
    assert.equal(r.code, 6, r.err + r.out); // a plugin failed
    assert.match(
      r.err + r.out,
      /the OS sandbox is required \(settings \{ sandbox = "required" \}\) but cannot be built: "bwrap" is not installed/,
    );
    assert.doesNotMatch(r.err + r.out, /^\s+at .*\.ts:\d+/m);
    assert.doesNotMatch(r.out, /Read them\./);
  } finally {
    await Deno.remove(empty, { recursive: true });
  }
});

Deno.test({
  name:
    "sandbox unset (auto) where bubblewrap works: agent run runs every plugin sandboxed, without a warning",
  ignore: !(await probeSandbox()).available,
  fn: async () => {
    await using p = await makeProject({
      turns: TURNS,
      files: { "notes.md": "hello from the notes\n" },
    });
    const r = await agentRun(p, p.env.PATH!);
    assert.equal(r.code, 0, r.err + r.out);
    assert.match(r.out, /Read them\./);
    assert.doesNotMatch(r.err, /WARNING: plugins run without the OS sandbox/);
  },
});
