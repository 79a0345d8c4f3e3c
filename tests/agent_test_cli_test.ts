/**
 * `agent test` and the policy tests in `check-config`: every example's
 * `agent.test.hcl` passes, a deliberately wrong expectation fails with the
 * test's file:line and the deciding rule, and a bad test file gets
 * diagnostics like the configuration's.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { run } from "../cli/main.ts";
import { run as checkConfig } from "../cli/commands/check_config.ts";

const EXAMPLES = new URL("../examples/", import.meta.url).pathname;

function capture(cwd = Deno.cwd()) {
  const out = { stdout: "", stderr: "" };
  return {
    out,
    io: {
      stdout: (t: string) => void (out.stdout += t),
      stderr: (t: string) => void (out.stderr += t),
      isTerminal: false,
      env: { HOME: "/nonexistent", NO_COLOR: "1" },
      cwd,
    },
  };
}

async function exampleDirsWithTests(): Promise<string[]> {
  const dirs = [EXAMPLES];
  for await (const e of Deno.readDir(EXAMPLES)) {
    if (e.isDirectory) dirs.push(join(EXAMPLES, e.name));
  }
  const out: string[] = [];
  for (const d of dirs.sort()) {
    try {
      await Deno.stat(join(d, "agent.test.hcl"));
      out.push(d);
    } catch {
      // no tests here
    }
  }
  return out;
}

async function copyExec(extra: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "agent-test-" });
  for (const f of ["agent.hcl", "agent.test.hcl", "script.json"]) {
    await Deno.copyFile(join(EXAMPLES, "exec", f), join(dir, f));
  }
  await Deno.mkdir(join(dir, ".agent"));
  await Deno.copyFile(
    join(EXAMPLES, "exec", ".agent", "agent.lock.hcl"),
    join(dir, ".agent", "agent.lock.hcl"),
  );
  await Deno.writeTextFile(join(dir, "agent.test.hcl"), extra, {
    append: true,
  });
  return dir;
}

Deno.test("agent test passes every example's agent.test.hcl (with --locked)", async (t) => {
  const dirs = await exampleDirsWithTests();
  assert.ok(dirs.length >= 9, `expected the examples' test files, got ${dirs}`);
  for (const dir of dirs) {
    await t.step(dir.slice(EXAMPLES.length) || "examples", async () => {
      const { out, io } = capture();
      const code = await run(["test", dir, "--locked"], io);
      assert.equal(code, 0, out.stdout + out.stderr);
      assert.match(out.stdout, / passed, 0 failed \(\d+ tests?\)\n$/);
      assert.doesNotMatch(out.stdout, /^FAIL/m);
    });
  }
});

Deno.test("agent test examples/exec covers the bypass family with one line per test", async () => {
  const { out, io } = capture();
  assert.equal(await run(["test", join(EXAMPLES, "exec")], io), 0);
  for (
    const name of [
      "rm_behind_and",
      "rm_behind_semicolon",
      "rm_behind_pipe",
      "rm_behind_or",
      "rm_in_command_substitution",
      "rm_in_backticks",
      "rm_behind_env",
      "rm_behind_sudo",
      "rm_behind_xargs",
      "rm_behind_bash_c",
      "discarding_output_does_not_allow_rm",
      "split_quotes_in_command_name",
      "rm_on_a_second_line",
    ]
  ) {
    assert.match(out.stdout, new RegExp(`^PASS  ${name}: deny by `, "m"));
  }
  assert.match(
    out.stdout,
    /^PASS {2}rm_behind_and: deny by "no_rm" on "rm -rf build" {2}\(.*agent\.test\.hcl:\d+:1\)$/m,
  );
});

Deno.test("agent test fails a wrong expectation with the test's file:line and the deciding rule", async () => {
  const dir = await copyExec(`
test "wrong_on_purpose" {
  call   = { provider = "sh", tool = "bash", input = { command = "git status && rm -rf build" } }
  expect = "allow"
}
`);
  try {
    const text = await Deno.readTextFile(join(dir, "agent.test.hcl"));
    const line = text.split("\n").indexOf('test "wrong_on_purpose" {') + 1;
    const { out, io } = capture(dir);
    assert.equal(await run(["test"], io), 1);
    assert.match(
      out.stdout,
      new RegExp(
        `^FAIL {2}wrong_on_purpose: expected allow, got deny by "no_rm" on "rm -rf build" {2}\\(agent\\.test\\.hcl:${line}:1\\)$`,
        "m",
      ),
    );
    assert.match(out.stdout, / passed, 1 failed /);

    const json = capture(dir);
    assert.equal(await run(["test", "--json"], json.io), 1);
    const doc = JSON.parse(json.out.stdout);
    const failed = doc.tests.filter((x: { passed: boolean }) => !x.passed);
    assert.deepEqual(
      failed.map((x: Record<string, unknown>) => [
        x.name,
        x.where,
        x.decision,
        x.rule,
        x.segment,
      ]),
      [[
        "wrong_on_purpose",
        `agent.test.hcl:${line}:1`,
        "deny",
        "no_rm",
        "rm -rf build",
      ]],
    );

    const cc = capture(dir);
    assert.equal(await checkConfig(["--no-cache", "--json"], cc.io), 1);
    const diags = JSON.parse(cc.out.stdout).diagnostics as {
      code: string;
      summary: string;
      range?: { filename: string; start: { line: number } };
    }[];
    const d = diags.find((x) => x.code === "E_POLICY_TEST_FAILED");
    assert.ok(d, cc.out.stdout);
    assert.equal(d.range?.filename, "agent.test.hcl");
    assert.equal(d.range?.start.line, line);
    assert.match(d.summary, /got deny by "no_rm" on "rm -rf build"/);
    assert.ok(!diags.some((x) => x.code === "W_EXTRA_HCL"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("agent test reports a bad test file like the configuration, with did-you-mean", async () => {
  const dir = await copyExec(`
test "typos" {
  call    = { provider = "sh", tool = "bash" }
  expct   = "deny"
}

test "bad_names" {
  profile = "defualt"
  call    = { provider = "shh", tool = "bash" }
  expect  = "deny"
}

test "bad_provider" {
  call   = { provider = "shh", tool = "bash" }
  expect = "deny"
}

test "bad_tool" {
  call   = { provider = "sh", tool = "bsh", input = { command = "ls" } }
  expect = "deny"
}

test "bad_value" {
  call   = { provider = "sh", tool = "bash", inpt = {} }
  expect = "maybe"
}
`);
  try {
    const { out, io } = capture(dir);
    assert.equal(await run(["test"], io), 1);
    const err = out.stderr;
    assert.match(err, /error\[E_UNKNOWN_ATTR\]: Unsupported argument "expct"/);
    assert.match(err, /Did you mean "expect"\?/);
    assert.match(
      err,
      /error\[E_MISSING_ATTR\]: Missing required argument "expect"/,
    );
    assert.match(
      err,
      /error\[E_UNKNOWN_TOOL\]|error\[E_TOOL_UNKNOWN\]: Unknown tool "sh\.bsh"/,
    );
    assert.match(err, /Did you mean "bash"\?/);
    assert.match(err, /Unsupported key "inpt"[^]*?Did you mean "input"\?/);
    assert.match(err, /"maybe" is not one of "allow", "ask", "deny"/);
    assert.match(err, /--> agent\.test\.hcl:\d+:\d+/);
    assert.match(
      err,
      /Unknown agent profile "defualt"[^]*?Did you mean "default"\?/,
    );
    assert.match(
      err,
      /Unknown provider "shh" in test "bad_provider"[^]*?Did you mean "sh"\?/,
    );
    // The valid tests still ran.
    assert.match(out.stdout, /^PASS {2}rm_behind_and/m);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("agent test without agent.test.hcl exits 1 and says so; a usage error exits 3", async () => {
  const dir = await Deno.makeTempDir({ prefix: "agent-test-" });
  try {
    for (const f of ["agent.hcl", "script.json"]) {
      await Deno.copyFile(join(EXAMPLES, "exec", f), join(dir, f));
    }
    const { out, io } = capture(dir);
    assert.equal(await run(["test"], io), 1);
    assert.match(out.stderr, /No agent\.test\.hcl in \.: nothing to test/);
    const u = capture(dir);
    assert.equal(await run(["test", "--nope"], u.io), 3);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
