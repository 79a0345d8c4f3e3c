/**
 * examples/search: its lock file passes `check-config --locked`
 * (`UPDATE_GOLDEN=1` re-locks it first: the lock pins the exact bytes of
 * every plugin module), and the project runs end to end on a temporary
 * copy: glob, grep, then one approved multi_edit changing two files.
 */
import assert from "node:assert/strict";
import { agent, type Project } from "./_agent_project.ts";
import { PATH, REPO, runDeno } from "./_helpers.ts";

const deno = (args: string[]) => runDeno(args);

Deno.test("check-config examples/search --locked exits 0", async () => {
  if (Deno.env.get("UPDATE_GOLDEN") === "1") {
    const lock = await deno([
      "run",
      "-A",
      "main.ts",
      "lock",
      "examples/search",
    ]);
    assert.equal(lock.code, 0, lock.stderr);
  }
  const r = await deno([
    "run",
    "-A",
    "cli/commands/check_config.ts",
    "examples/search",
    "--locked",
    "--no-cache",
  ]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(
    r.stdout,
    /^The configuration is valid: 3 providers, 2 policies, 1 profile, 0 hooks\. Every provider matches the lock file\.$/m,
  );
});

Deno.test("examples/search runs: glob, grep, then an approved multi_edit of two files", async () => {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-search-example-" }),
  );
  const dir = `${root}/search`;
  const copy = await new Deno.Command("cp", {
    args: ["-r", `${REPO}/examples/search`, dir],
  }).output();
  assert.equal(copy.code, 0);
  const project: Project = {
    dir,
    env: {
      PATH,
      HOME: root,
      XDG_STATE_HOME: `${root}/state`,
      NO_COLOR: "1",
    },
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
  await using p = project;
  const r = await agent(p, [
    "run",
    "Resolve the TODOs",
    "--locked",
    "--approve-all",
  ]);
  assert.equal(r.code, 0, r.err);
  assert.match(
    r.out,
    /plan fs\.multi_edit .* → ask \(policy:changes_need_approval\)/,
  );
  assert.match(r.out, /Change 2 files atomically \(\+2 −4\)/);
  assert.match(
    r.out,
    /Done: the name is trimmed and read from the command line\.\n$/,
  );
  assert.equal(
    await Deno.readTextFile(`${dir}/src/greet.ts`),
    "/** Greets someone. */\nexport function greet(name: string): string {\n  return `Hello, ${name.trim()}!`;\n}\n",
  );
  assert.equal(
    await Deno.readTextFile(`${dir}/src/main.ts`),
    'import { greet } from "./greet.ts";\n\nconsole.log(greet(Deno.args[0] ?? "world"));\n',
  );
  assert.equal(
    await Deno.readTextFile(`${dir}/generated/schema.ts`),
    await Deno.readTextFile(`${REPO}/examples/search/generated/schema.ts`),
  );
});
