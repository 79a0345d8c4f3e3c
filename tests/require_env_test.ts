/**
 * An unset `env()` variable is only a warning for `check-config` (a CI job
 * that lints `agent.hcl` has no secrets), but when the agent runs it is
 * the error E_ENV_UNSET (config MUST 6): `agent run` exits 2 and
 * `openKernel` throws a `ConfigError`, whatever `check-config` said.
 *
 * @module
 */
import assert from "node:assert/strict";
import { ConfigError, openKernel } from "../mod.ts";
import { agent, makeProject } from "./_agent_project.ts";
import { BUILTINS } from "../plugins/builtin.ts";

const UNSET = "PH_AGENT_TEST_VARIABLE_NEVER_SET";

async function projectReadingUnsetVariable() {
  return await makeProject({
    turns: [{ text: "Hi." }],
    extraRequired:
      `other = { source = "builtin/scripted", version = "~> 0.1" }`,
    extraProviders: `
provider "other" {
  turns_json = env("${UNSET}")
  allow_read = ["."]
}
`,
  });
}

Deno.test("agent run exits 2 on an unset env() variable that check-config only warns about", async () => {
  await using p = await projectReadingUnsetVariable();
  assert.equal(p.env[UNSET], undefined);

  const check = await agent(p, ["check-config", "--no-cache"]);
  assert.equal(check.code, 0, check.out + check.err);
  assert.match(
    check.out,
    new RegExp(`warning\\[W_ENV_UNSET\\]: Environment variable "${UNSET}"`),
  );
  const strict = await agent(p, [
    "check-config",
    "--no-cache",
    "--require-env",
  ]);
  assert.equal(strict.code, 1, strict.out + strict.err);

  const r = await agent(p, ["run", "hi", "--json"]);
  assert.equal(r.code, 2, r.err);
  assert.match(
    r.err,
    new RegExp(
      `error\\[E_ENV_UNSET\\]: Environment variable "${UNSET}" is not set`,
    ),
  );
  assert.match(r.err, /in attribute "turns_json" of provider "other"/);
  assert.equal(r.out, "");
});

Deno.test("openKernel() refuses an unset env() variable with a ConfigError naming E_ENV_UNSET", async () => {
  await using p = await projectReadingUnsetVariable();
  let caught: unknown;
  try {
    await openKernel(p.dir, { builtins: BUILTINS, env: p.env });
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof ConfigError, String(caught));
  assert.deepEqual(
    caught.diagnostics.filter((d) => d.severity === "error").map((d) => d.code),
    ["E_ENV_UNSET"],
  );
});
