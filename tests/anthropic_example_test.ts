/**
 * examples/anthropic: a real configuration for the `anthropic` provider
 * (`api_key = env("ANTHROPIC_API_KEY")`) passes `check-config --locked`.
 * `deno task test:update` (UPDATE_GOLDEN=1) re-locks it first: the lock
 * pins the exact bytes of every plugin module.
 *
 * @module
 */
import assert from "node:assert/strict";
import { REPO, runDeno } from "./_helpers.ts";

const deno = (args: string[], env: Record<string, string>) =>
  runDeno(args, { env, clearEnv: true });

const HOME = Deno.env.get("HOME") ?? "/root";
const PATH = Deno.env.get("PATH") ?? "/usr/bin:/bin";
// runDeno adds DENO_ENV (the cache and Deno's network settings).
const BASE = { HOME, PATH };
const KEY = "sk-ant-example-not-a-real-key-0000";

Deno.test("check-config examples/anthropic --locked exits 0 with ANTHROPIC_API_KEY set", async () => {
  if (Deno.env.get("UPDATE_GOLDEN") === "1") {
    const lock = await deno(
      ["run", "-A", "main.ts", "lock", "examples/anthropic"],
      { ...BASE, ANTHROPIC_API_KEY: KEY },
    );
    assert.equal(lock.code, 0, lock.stderr);
  }
  const r = await deno(
    [
      "run",
      "-A",
      "cli/commands/check_config.ts",
      "examples/anthropic",
      "--locked",
      "--no-cache",
    ],
    { ...BASE, ANTHROPIC_API_KEY: KEY },
  );
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(
    r.stdout,
    /^The configuration is valid: 2 providers, 2 policies, 1 profile, 0 hooks\. Every provider matches the lock file\.$/m,
  );
  assert.ok(!(r.stdout + r.stderr).includes(KEY), "the key is never printed");
  const lock = await Deno.readTextFile(
    `${REPO}/examples/anthropic/.agent/agent.lock.hcl`,
  );
  assert.ok(!lock.includes(KEY), "the key is not in the lock file");
  assert.match(lock, /source += "builtin\/anthropic"/);
  assert.match(lock, /net += \["\*"\]/);

  const explain = await deno(
    [
      "run",
      "-A",
      "main.ts",
      "check-config",
      "examples/anthropic",
      "--locked",
      "--explain",
      "--no-cache",
    ],
    { ...BASE, ANTHROPIC_API_KEY: KEY },
  );
  assert.equal(explain.code, 0, explain.stderr);
  assert.match(
    explain.stdout,
    /models: claude\/claude-sonnet-5-5 -> claude\/claude-haiku-5-5/,
  );
  assert.match(
    explain.stdout,
    /--allow-net=[^\n]*api\.anthropic\.com:443(\s|$)/m,
  );
});

Deno.test("check-config examples/anthropic --locked passes without ANTHROPIC_API_KEY, warning W_ENV_UNSET; --require-env fails", async () => {
  const args = [
    "run",
    "-A",
    "cli/commands/check_config.ts",
    "examples/anthropic",
    "--locked",
    "--no-cache",
  ];
  const r = await deno(args, BASE);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(
    r.stdout,
    /warning\[W_ENV_UNSET\]: Environment variable "ANTHROPIC_API_KEY" is not set\n {2}--> examples\/anthropic\/agent\.hcl:\d+:\d+\n/,
  );
  assert.match(r.stdout, /in attribute "api_key" of provider "claude"/);
  assert.match(r.stdout, /^The configuration is valid, with 1 warning: /m);

  const json = await deno([...args, "--json"], BASE);
  assert.equal(json.code, 0, json.stderr);
  const doc = JSON.parse(json.stdout);
  assert.equal(doc.valid, true);
  assert.deepEqual(
    doc.diagnostics.map((d: { severity: string; code: string }) => [
      d.severity,
      d.code,
    ]),
    [["warning", "W_ENV_UNSET"]],
  );

  const strict = await deno([...args, "--require-env"], BASE);
  assert.equal(strict.code, 1, strict.stdout + strict.stderr);
  assert.match(
    strict.stdout,
    /error\[E_ENV_UNSET\]: Environment variable "ANTHROPIC_API_KEY" is not set/,
  );
  const strictJson = await deno([...args, "--require-env", "--json"], BASE);
  assert.equal(strictJson.code, 1);
  assert.deepEqual(
    JSON.parse(strictJson.stdout).diagnostics.map((
      d: { severity: string; code: string },
    ) => [d.severity, d.code]),
    [["error", "E_ENV_UNSET"]],
  );
});
