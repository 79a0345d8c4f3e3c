import assert from "node:assert/strict";
import { join } from "node:path";
import {
  COMPILE_FIXTURES,
  tempProject,
} from "../../config/_compile_testing.ts";
import { CHECK_CONFIG_HELP, run } from "./check_config.ts";
import type { CliIo } from "./io.ts";
import { lockConfig } from "../../config/lock.ts";
import { BUILTINS } from "../../plugins/builtin.ts";
import { denoCacheDir } from "../../kernel/process/_module_cache.ts";

const ESC = "\x1b[";

function io(
  cwd: string,
  env: Record<string, string> = {},
  isTerminal = false,
): CliIo & { out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    isTerminal,
    env: { HOME: "/nonexistent-home", ...env },
    cwd,
    platform: "linux_amd64",
    out: () => out,
    err: () => err,
  };
}

const PLUGIN_MANIFEST = JSON.stringify({
  name: "p",
  version: "1.0.0",
  category: "tool",
  protocol_version: 1,
  runtime: "deno",
  entrypoint: "main.ts",
  config_schema: [{ name: "key", type: "string", sensitive: true }],
});

async function project(): Promise<string> {
  return await tempProject({
    "agent.hcl":
      'required_providers {\n  p = { source = "./plugin", version = "1.0.0" }\n}\nprovider "p" {\n  key = env("P_KEY")\n}\n',
    "plugin/plugin.json": PLUGIN_MANIFEST,
    "plugin/main.ts": 'import "./lib.ts";\n',
    "plugin/lib.ts": "export const v = 1;\n",
  });
}

Deno.test("check-config --help prints the usage, flags and exit codes", async () => {
  const t = io(Deno.cwd());
  assert.equal(await run(["--help"], t), 0);
  assert.equal(t.out(), CHECK_CONFIG_HELP);
  assert.match(t.out(), /--locked/);
  assert.match(t.out(), /3 usage error/);
});

Deno.test("check-config exits 3 on a usage error, with the usage and error: on stderr", async () => {
  for (
    const args of [["--frobnicate"], ["a", "b"], ["--json=yes"], [
      "does-not-exist",
    ]]
  ) {
    const t = io(Deno.cwd());
    assert.equal(await run(args, t), 3, args.join(" "));
    assert.equal(t.out(), "");
    assert.match(t.err(), /^Usage: check-config/);
    assert.match(t.err(), /\nerror: /);
  }
});

Deno.test("check-config colours only on a terminal, and never with NO_COLOR or --no-color or --json", async () => {
  const dir = join(COMPILE_FIXTURES, "invalid", "conflicting_policies");
  const tty = io(dir, {}, true);
  await run([".", "--no-cache"], tty);
  assert.ok(tty.out().includes(ESC));
  for (
    const [env, args] of [[{ NO_COLOR: "1" }, []], [{}, [
      "--no-color",
    ]]] as const
  ) {
    const t = io(dir, env, true);
    await run([".", "--no-cache", ...args], t);
    assert.ok(!t.out().includes(ESC));
  }
  const plain = io(dir, {}, false);
  await run([".", "--no-cache"], plain);
  assert.ok(!plain.out().includes(ESC));
});

Deno.test("check-config names files relative to the current directory", async () => {
  const dir = join(COMPILE_FIXTURES, "invalid", "conflicting_policies");
  const t = io(join(dir, ".."));
  assert.equal(await run(["conflicting_policies", "--no-cache"], t), 1);
  assert.match(t.out(), /--> conflicting_policies\/agent\.hcl:6:1/);
  assert.match(t.out(), /^conflicting_policies\/agent\.hcl: 2 errors/);
});

Deno.test("check-config caches its result and notices every input change", async () => {
  const dir = await project();
  const cache = await Deno.makeTempDir({ prefix: "ph-agent-cache-" });
  const env = { XDG_CACHE_HOME: cache, P_KEY: "first-secret-value" };
  const check = async (extra: Record<string, string> = {}) => {
    const t = io(dir, { ...env, ...extra });
    const code = await run([".", "--locked"], t);
    return { code, out: t.out() };
  };
  try {
    assert.equal((await check()).code, 2); // no lock file
    assert.ok(
      (await lockConfig(dir, { builtins: BUILTINS, globalConfig: null, env }))
        .ok,
    );
    const fresh = await check();
    assert.equal(fresh.code, 0);
    const entries = [
      ...Deno.readDirSync(join(cache, "ph-agent", "check-config")),
    ]
      .filter((e) => e.name.endsWith(".json"));
    assert.equal(entries.length, 2);
    // The cache holds no environment value in clear.
    for (const e of entries) {
      const text = await Deno.readTextFile(
        join(cache, "ph-agent", "check-config", e.name),
      );
      assert.ok(!text.includes("first-secret-value"));
    }
    assert.deepEqual(await check(), fresh); // replayed
    // A plugin module changes: the cached result is not reused.
    await Deno.writeTextFile(
      join(dir, "plugin", "lib.ts"),
      "export const v = 2;\n",
    );
    assert.equal((await check()).code, 2);
    assert.ok(
      (await lockConfig(dir, { builtins: BUILTINS, globalConfig: null, env }))
        .ok,
    );
    assert.equal((await check()).code, 0);
    // An env() variable becomes unset: not reused either (a warning now).
    const unset = io(dir, { XDG_CACHE_HOME: cache });
    assert.equal(await run([".", "--locked"], unset), 0);
    assert.match(unset.out(), /warning\[W_ENV_UNSET\]/);
    // --require-env is part of the key: its error is not the warning's replay.
    const required = io(dir, { XDG_CACHE_HOME: cache });
    assert.equal(await run([".", "--locked", "--require-env"], required), 1);
    assert.match(required.out(), /error\[E_ENV_UNSET\]/);
    // Set again: neither the warning nor the error is replayed.
    assert.deepEqual(await check(), fresh);
    const set = io(dir, env);
    assert.equal(await run([".", "--locked", "--require-env"], set), 0);
    assert.doesNotMatch(set.out(), /ENV_UNSET/);
    // agent.hcl changes.
    await Deno.writeTextFile(
      join(dir, "agent.hcl"),
      (await Deno.readTextFile(join(dir, "agent.hcl"))) + "bogus {\n}\n",
    );
    assert.equal((await check()).code, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(cache, { recursive: true });
  }
});

Deno.test("check-config's cache misses when HOME changes: the global config is shown under the new home", async () => {
  const root = await Deno.makeTempDir({ prefix: "ph-agent-home-" });
  try {
    // Far from the project, so that the global config is shown from HOME.
    const dir = join(root, "a", "b", "c", "d", "project");
    const home = join(root, "home");
    await Deno.mkdir(dir, { recursive: true });
    await Deno.mkdir(join(home, ".config", "agent"), { recursive: true });
    await Deno.writeTextFile(join(dir, "agent.hcl"), "");
    await Deno.writeTextFile(
      join(home, ".config", "agent", "config.hcl"),
      "bogus {\n}\n",
    );
    const env = {
      XDG_CACHE_HOME: join(root, "cache"),
      XDG_CONFIG_HOME: join(home, ".config"),
    };
    const first = io(dir, { ...env, HOME: home });
    assert.equal(await run(["."], first), 1);
    assert.match(first.out(), /--> ~\/\.config\/agent\/config\.hcl:1:1/);
    const moved = io(dir, { ...env, HOME: join(root, "elsewhere") });
    assert.equal(await run(["."], moved), 1);
    assert.doesNotMatch(moved.out(), /~\//);
    assert.ok(
      moved.out().includes(join(home, ".config", "agent", "config.hcl")),
      moved.out(),
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("check-config --json writes one versioned document; --explain adds the report", async () => {
  const dir = join(COMPILE_FIXTURES, "valid", "full");
  const env = {
    XDG_CONFIG_HOME: join(dir, "xdg"),
    CLAUDE_API_KEY: "k1",
    KV_TOKEN: "k2",
    KV_CLIENT_KEY: "k3",
  };
  const t = io(dir, env);
  assert.equal(
    await run([".", "--json", "--explain", "--no-cache", "--locked"], t),
    0,
  );
  const doc = JSON.parse(t.out());
  assert.deepEqual(Object.keys(doc), [
    "format_version",
    "valid",
    "exit_code",
    "error_count",
    "warning_count",
    "diagnostics",
    "plan",
    "sandbox",
    "explain",
  ]);
  assert.equal(doc.explain.profiles[0].name, "default");
  assert.ok(doc.explain.sdkEnv.length > 0);
  const human = io(dir, env);
  assert.equal(await run([".", "--explain", "--no-cache"], human), 0);
  assert.match(human.out(), /Profile "auditor"/);
  assert.match(
    human.out(),
    /deno flags: --allow-env=<sdk env>,KV_REGION --allow-read=<socket dir>,\.\/data/,
  );
  assert.match(
    human.out(),
    /drop, resource, critical: deny {2}\[policy "never_drop"\]/,
  );
});

/**
 * A copy of examples/agent.hcl with `settings { sandbox = mode }`, in a
 * temporary project.
 */
async function exampleWithSandbox(mode: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "ph-agent-sandbox-check-" });
  const text = (await Deno.readTextFile("examples/agent.hcl"))
    .replace(
      '"./plugins/notes"',
      JSON.stringify(join(Deno.cwd(), "examples/plugins/notes")),
    )
    .replace("settings {", `settings {\n  sandbox = "${mode}"`);
  await Deno.writeTextFile(join(dir, "agent.hcl"), text);
  return dir;
}

Deno.test("check-config reports which plugins run in the OS sandbox, which is on by default (auto), from a probe of this host", async () => {
  const { probeSandbox } = await import("../../kernel/process/sandbox.ts");
  const probe = await probeSandbox();
  const o = io(Deno.cwd());
  assert.equal(await run(["examples", "--json", "--no-cache"], o), 0);
  const doc = JSON.parse(o.out());
  assert.equal(doc.sandbox.mode, "auto");
  assert.equal(doc.sandbox.available, probe.available);
  assert.deepEqual(doc.sandbox.plugins, [
    { name: "echo", sandboxed: probe.available },
    { name: "notes", sandboxed: probe.available },
  ]);
  const warned = doc.diagnostics.some((d: { code: string }) =>
    d.code === "W_SANDBOX_UNAVAILABLE"
  );
  assert.equal(warned, !probe.available);
  const human = io(Deno.cwd());
  await run(["examples", "--no-cache"], human);
  assert.match(human.out(), /OS sandbox \(sandbox = "auto", /);
  // --explain says it per plugin, in text and JSON.
  const explained = io(Deno.cwd());
  await run(["examples", "--explain"], explained);
  assert.match(
    explained.out(),
    probe.available
      ? /OS sandbox: bubblewrap: own PID, IPC and network namespaces/
      : /OS sandbox: NOT sandboxed: /,
  );
  const explainedJson = io(Deno.cwd());
  await run(["examples", "--explain", "--json"], explainedJson);
  const echo = JSON.parse(explainedJson.out()).explain.profiles[0].providers
    .find((p: { name: string }) => p.name === "echo");
  assert.match(echo.osSandbox, probe.available ? /^bubblewrap/ : /^NOT/);
});

Deno.test('check-config with sandbox = "off" warns W_SANDBOX_OFF and lists every plugin as not sandboxed', async () => {
  const cwd = await exampleWithSandbox("off");
  try {
    const o = io(cwd);
    assert.equal(await run([".", "--json", "--no-cache"], o), 0);
    const doc = JSON.parse(o.out());
    assert.equal(doc.sandbox.mode, "off");
    assert.deepEqual(doc.sandbox.plugins, [
      { name: "echo", sandboxed: false },
      { name: "notes", sandboxed: false },
    ]);
    const off = doc.diagnostics.find((d: { code: string }) =>
      d.code === "W_SANDBOX_OFF"
    );
    assert.match(off.detail, /"echo", "notes" can read every file/);
    const explained = io(cwd);
    await run([".", "--explain"], explained);
    assert.match(
      explained.out(),
      /OS sandbox: NOT sandboxed \(settings \{ sandbox = "off" \}\)/,
    );
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("check-config without a working bubblewrap warns W_SANDBOX_UNAVAILABLE, and its cached result is not replayed where bubblewrap works", async () => {
  const cache = await Deno.makeTempDir();
  const noBwrap = await Deno.makeTempDir();
  const required = await exampleWithSandbox("required");
  try {
    // No bubblewrap on PATH: the lookup production makes finds none.
    const cmd = (path: string, ...args: string[]) =>
      new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "cli/commands/check_config.ts", ...args],
        env: {
          PATH: path,
          XDG_CACHE_HOME: cache,
          DENO_DIR: denoCacheDir(),
          DENO_NO_UPDATE_CHECK: "1",
          NO_COLOR: "1",
        },
        stdout: "piped",
        stderr: "piped",
      }).output();
    const decode = (b: Uint8Array) => new TextDecoder().decode(b);
    const without = await cmd(noBwrap, "examples");
    const out = decode(without.stdout);
    assert.equal(without.code, 0, out);
    assert.match(out, /W_SANDBOX_UNAVAILABLE/);
    assert.match(out, /"bwrap" is not installed/);
    assert.match(out, /would run unsandboxed here/);
    assert.match(out, /echo: NOT sandboxed/);
    const explained = decode(
      (await cmd(noBwrap, "examples", "--explain")).stdout,
    );
    assert.match(
      explained,
      /OS sandbox: NOT sandboxed: "bwrap" is not installed .*with a warning/,
    );
    // sandbox = "required": the warning says the agent refuses to start them.
    const refused = decode((await cmd(noBwrap, required, "--explain")).stdout);
    assert.match(refused, /W_SANDBOX_UNAVAILABLE/);
    assert.match(refused, /the agent refuses to start "echo", "notes" here/);
    assert.match(refused, /OS sandbox: REFUSED: "bwrap" is not installed/);
    const { probeSandbox } = await import("../../kernel/process/sandbox.ts");
    if ((await probeSandbox()).available) {
      const withBwrap = await cmd("/usr/local/bin:/usr/bin:/bin", "examples");
      const again = new TextDecoder().decode(withBwrap.stdout);
      assert.doesNotMatch(again, /W_SANDBOX_UNAVAILABLE/);
      assert.match(again, /echo: sandboxed/);
    }
  } finally {
    await Deno.remove(cache, { recursive: true });
    await Deno.remove(noBwrap, { recursive: true });
    await Deno.remove(required, { recursive: true });
  }
});
