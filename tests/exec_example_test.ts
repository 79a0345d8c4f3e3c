/**
 * examples/exec: its agent.hcl and lock file pass `check-config --locked`,
 * and its scripted run behaves as its README says (the allowed `ls && wc`
 * runs, the chained `rm` is denied by its segment, notes.md stays).
 * `deno task test:update` (UPDATE_GOLDEN=1) re-locks the example first.
 */
import assert from "node:assert/strict";
import { REPO, runDeno } from "./_helpers.ts";

const EXAMPLE = "examples/exec";

const deno = (args: string[], env: Record<string, string> = {}) =>
  runDeno(args, { env });

Deno.test("check-config examples/exec --locked exits 0", async () => {
  if (Deno.env.get("UPDATE_GOLDEN") === "1") {
    const lock = await deno(["run", "-A", "main.ts", "lock", EXAMPLE]);
    assert.equal(lock.code, 0, lock.stderr);
  }
  const r = await deno([
    "run",
    "-A",
    "cli/commands/check_config.ts",
    EXAMPLE,
    "--locked",
    "--no-cache",
  ]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(
    r.stdout,
    /^The configuration is valid: 2 providers, 14 policies, 1 profile, 0 hooks\. Every provider matches the lock file\.$/m,
  );
  // --explain lists the command rules that judge each segment, and --json
  // keeps the command key of each rule.
  const explain = await deno([
    "run",
    "-A",
    "cli/commands/check_config.ts",
    EXAMPLE,
    "--explain",
    "--no-cache",
  ]);
  assert.match(
    explain.stdout,
    /calls with a command, per segment \(the worst segment decides\):\n(.*\n)*\s+"rm \*": deny {2}\[policy "no_rm"\]/,
  );
  const json = await deno([
    "run",
    "-A",
    "cli/commands/check_config.ts",
    EXAMPLE,
    "--json",
    "--no-cache",
  ]);
  const doc = JSON.parse(json.stdout);
  const noRm = doc.plan.policies.find((p: { name: string }) =>
    p.name === "no_rm"
  );
  assert.equal(noRm.match.command, "rm *");
});

Deno.test("examples/exec runs: allowed segments run, the rm segment is denied", async () => {
  const state = await Deno.makeTempDir({ prefix: "ph-exec-example-" });
  try {
    const r = await deno(
      [
        "run",
        "-A",
        "main.ts",
        "run",
        "Look around",
        "--dir",
        EXAMPLE,
        "--locked",
      ],
      { XDG_STATE_HOME: state },
    );
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /→ allow \(policy:ls \(segment "ls"\)\)/);
    assert.match(
      r.stdout,
      /→ deny \(policy:no_rm \(segment "rm -f notes\.md"\)\)/,
    );
    assert.match(r.stdout, /Removing notes\.md is not allowed here/);
    assert.ok((await Deno.stat(`${REPO}/${EXAMPLE}/notes.md`)).isFile);
  } finally {
    await Deno.remove(state, { recursive: true });
  }
});

Deno.test("defect 3 (exec example bypass): rm -rf victim > /dev/null is denied under the example's policy with --on-ask deny", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ph-exec-bypass-" });
  try {
    // a copy of the example (its agent.hcl and lock file as shipped), with
    // a script that tries the original bypass
    const example = `${REPO}/${EXAMPLE}`;
    const project = `${dir}/project`;
    await Deno.mkdir(`${project}/.agent`, { recursive: true });
    await Deno.copyFile(`${example}/agent.hcl`, `${project}/agent.hcl`);
    await Deno.copyFile(
      `${example}/.agent/agent.lock.hcl`,
      `${project}/.agent/agent.lock.hcl`,
    );
    await Deno.mkdir(`${project}/victim`);
    await Deno.writeTextFile(`${project}/victim/data.txt`, "keep me\n");
    await Deno.writeTextFile(
      `${project}/script.json`,
      JSON.stringify({
        description: "Tries to hide an rm behind a discarded output.",
        turns: [
          {
            text: "Cleaning up quietly.",
            tool_calls: [{
              id: "toolu_rm",
              name: "bash",
              arguments: { command: "rm -rf victim > /dev/null" },
            }],
            usage: { input_tokens: 10, output_tokens: 10 },
          },
          {
            expect: "denied by policy:no_rm",
            text: "Not allowed.",
            usage: { input_tokens: 10, output_tokens: 10 },
          },
        ],
      }),
    );
    const r = await deno(
      [
        "run",
        "-A",
        "main.ts",
        "run",
        "Clean up",
        "--dir",
        project,
        "--locked",
        "--on-ask",
        "deny",
      ],
      { XDG_STATE_HOME: `${dir}/state` },
    );
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /→ deny \(policy:no_rm \(segment "rm -rf victim"\)\)/,
    );
    assert.ok((await Deno.stat(`${project}/victim`)).isDirectory);
    assert.equal(
      await Deno.readTextFile(`${project}/victim/data.txt`),
      "keep me\n",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
