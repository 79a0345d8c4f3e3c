/**
 * `agent attach` before it connects: its usage errors and the store it
 * finds (agent.hcl's state block, else the global config's), each refusal
 * naming the file, field or variable, never the URL. The live follow is
 * tested on PostgreSQL in tests/attach_postgres_test.ts.
 *
 * @module
 */
import assert from "node:assert/strict";
import { run } from "../main.ts";
import {
  EXIT_CONFIG,
  EXIT_OK,
  EXIT_USAGE,
} from "../cli/commands/exit_codes.ts";

async function attach(
  cwd: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await run(["attach", ...args], {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    isTerminal: false,
    env: { HOME: cwd, XDG_CONFIG_HOME: `${cwd}/config`, ...env },
    cwd,
  });
  return { code, out, err };
}

const ID = "01JZ0000000000000000000000";

Deno.test("agent attach: usage errors exit 3 and say what is wrong; -h shows the help", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const none = await attach(dir, []);
    assert.equal(none.code, EXIT_USAGE);
    assert.match(none.err, /a session id is required/);
    const two = await attach(dir, [ID, "extra"]);
    assert.equal(two.code, EXIT_USAGE);
    assert.match(two.err, /expected one session id, got also "extra"/);
    const both = await attach(dir, [ID, "--approve-all", "--deny-all"]);
    assert.equal(both.code, EXIT_USAGE);
    assert.match(both.err, /contradict/);
    const help = await attach(dir, ["-h"]);
    assert.equal(help.code, EXIT_OK);
    assert.match(help.out, /^Usage: agent attach SESSION_ID/);
    assert.match(help.out, /first answer\nwins|first answer wins/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("agent attach: without a postgres state block (agent.hcl or the global config) it exits 2 naming the block to add", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // No agent.hcl, no global config.
    const bare = await attach(dir, [ID]);
    assert.equal(bare.code, EXIT_CONFIG);
    assert.match(bare.err, /state \{ backend = "postgres"/);
    // agent.hcl says sqlite: it wins over the global config's postgres.
    await Deno.mkdir(`${dir}/config/agent`, { recursive: true });
    await Deno.writeTextFile(
      `${dir}/config/agent/config.hcl`,
      'state {\n  backend = "postgres"\n  url     = env("TEAM_DB")\n}\n',
    );
    await Deno.writeTextFile(
      `${dir}/agent.hcl`,
      'state {\n  backend = "sqlite"\n}\n',
    );
    const local = await attach(dir, [ID], { TEAM_DB: "postgres://x@h/db" });
    assert.equal(local.code, EXIT_CONFIG, local.err);
    assert.match(local.err, /keeps sessions in this machine's files/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("agent attach: the global config's state block is used without agent.hcl; an unset variable or a literal URL exits 2 naming the variable or file:line:col, never the URL", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/config/agent`, { recursive: true });
    const global = `${dir}/config/agent/config.hcl`;
    await Deno.writeTextFile(
      global,
      'state {\n  backend = "postgres"\n  url     = env("TEAM_DB")\n}\n',
    );
    const unset = await attach(dir, [ID]);
    assert.equal(unset.code, EXIT_CONFIG);
    assert.match(
      unset.err,
      /TEAM_DB \(state\.url, the database URL\) is not set/,
    );
    await Deno.writeTextFile(
      global,
      'state {\n  backend = "postgres"\n  url     = "postgres://u:hunter2@db/agent"\n}\n',
    );
    const literal = await attach(dir, [ID]);
    assert.equal(literal.code, EXIT_CONFIG);
    assert.match(literal.err, /E_SECRET_SHAPE/);
    assert.ok(literal.err.includes(`${global}:3:13`), literal.err);
    assert.doesNotMatch(literal.err, /hunter2/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
