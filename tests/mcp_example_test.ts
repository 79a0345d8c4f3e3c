/**
 * examples/mcp: its agent.hcl and lock file pass `check-config --locked`
 * (`deno task test:update`, UPDATE_GOLDEN=1, re-locks it first), and the
 * example runs: in a temporary copy, `agent run --approve-all` lists the
 * directory and reads notes.md through the filesystem MCP server, plans
 * the write of SUMMARY.md (asked for), and writes it.
 */
import assert from "node:assert/strict";
import { agent } from "./_agent_project.ts";
import { DENO_ENV, PATH, REPO, runDeno } from "./_helpers.ts";

const deno = async (args: string[]) => {
  const r = await runDeno(args);
  return { code: r.code, out: r.stdout + r.stderr };
};

Deno.test("check-config examples/mcp --locked exits 0", async () => {
  if (Deno.env.get("UPDATE_GOLDEN") === "1") {
    const lock = await deno(["run", "-A", "main.ts", "lock", "examples/mcp"]);
    assert.equal(lock.code, 0, lock.out);
  }
  const r = await deno([
    "run",
    "-A",
    "cli/commands/check_config.ts",
    "examples/mcp",
    "--locked",
    "--no-cache",
  ]);
  assert.equal(r.code, 0, r.out);
  assert.match(
    r.out,
    /^The configuration is valid: 2 providers, 2 policies, 1 profile, 0 hooks\. Every provider matches the lock file\.$/m,
  );
});

Deno.test("examples/mcp runs: MCP reads run freely, the MCP write is asked for", async () => {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-mcp-example-" }),
  );
  const dir = `${root}/mcp`;
  try {
    await Deno.mkdir(`${dir}/.agent`, { recursive: true });
    for (
      const f of [
        "agent.hcl",
        "script.json",
        "notes.md",
        ".agent/agent.lock.hcl",
      ]
    ) {
      await Deno.copyFile(`${REPO}/examples/mcp/${f}`, `${dir}/${f}`);
    }
    const r = await agent({
      dir,
      env: {
        PATH,
        HOME: root,
        XDG_STATE_HOME: `${root}/state`,
        NO_COLOR: "1",
        // Deno's network settings reach the MCP server (the cache is the
        // kernel's own either way).
        ...DENO_ENV,
      },
      [Symbol.asyncDispose]: () => Promise.resolve(),
    }, ["run", "Summarize the notes", "--approve-all"]);
    assert.equal(r.code, 0, r.err + r.out);
    assert.match(r.out, /✓ files_list_directory: .*\[FILE\] notes\.md/);
    assert.doesNotMatch(r.out, /plan files\.files_read_text_file/);
    assert.match(
      r.out,
      /plan files\.files_write_file SUMMARY\.md \[high\] → ask \(policy:mcp_writes_ask\)/,
    );
    assert.match(r.out, /Done: SUMMARY\.md has the summary\.\n$/);
    assert.equal(
      await Deno.readTextFile(`${dir}/SUMMARY.md`),
      "# Summary\nMCP tools become tools; writes are asked for.\n",
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
