/**
 * Consent on widening: `agent lock` refuses a plugin version whose tools,
 * risk classes or envelope are wider than the locked ones unless
 * `--accept-widening` is given; the lock then records what was accepted,
 * and `agent plan` shows it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { run } from "../cli/main.ts";

const NOTES = new URL("../examples/plugins/notes/", import.meta.url).pathname;

function capture(cwd: string) {
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

Deno.test("agent lock refuses a widening upgrade without --accept-widening and records it with", async () => {
  // One level below the repository, so that the notes plugin's relative
  // import of the SDK (../../../plugins/sdk) resolves as in examples/.
  const dir = await Deno.makeTempDir({
    dir: new URL("..", import.meta.url).pathname,
    prefix: ".lock-widening-",
  });
  try {
    await Deno.mkdir(join(dir, "plugins", "notes"), { recursive: true });
    for (const f of ["main.ts", "plugin.json"]) {
      await Deno.copyFile(join(NOTES, f), join(dir, "plugins", "notes", f));
    }
    await Deno.mkdir(join(dir, "notes"));
    await Deno.writeTextFile(
      join(dir, "agent.hcl"),
      `required_providers {
  notes = { source = "./plugins/notes", version = ">= 0.2.0" }
}

provider "notes" {
  root       = "./notes"
  allow_read = ["./notes"]
  allow_write = ["./notes"]
  allow_net = ["sync.notes.example:443"]
}
`,
    );
    const first = capture(dir);
    assert.equal(await run(["lock"], first.io), 0, first.out.stderr);
    const lockPath = join(dir, ".agent", "agent.lock.hcl");
    assert.match(await Deno.readTextFile(lockPath), /name = "delete_note"/);

    // 0.3.0 raises write_note's risk and adds a critical tool.
    const manifestPath = join(dir, "plugins", "notes", "plugin.json");
    const manifest = JSON.parse(await Deno.readTextFile(manifestPath));
    manifest.version = "0.3.0";
    for (const t of manifest.tools) {
      if (t.name === "write_note") t.risk = "high";
    }
    manifest.tools.push({
      ...manifest.tools[0],
      name: "purge_notes",
      kind: "resource",
      risk: "critical",
    });
    await Deno.writeTextFile(manifestPath, JSON.stringify(manifest, null, 2));
    const before = await Deno.readTextFile(lockPath);

    const refused = capture(dir);
    assert.equal(await run(["lock"], refused.io), 1);
    assert.match(refused.out.stderr, /E_LOCK_WIDENS/);
    assert.match(refused.out.stderr, /tool "write_note": risk low -> high/);
    assert.match(
      refused.out.stderr,
      /tool "purge_notes" is new \(resource, critical\)/,
    );
    assert.equal(await Deno.readTextFile(lockPath), before, "nothing written");

    const accepted = capture(dir);
    assert.equal(
      await run(["lock", "--accept-widening"], accepted.io),
      0,
      accepted.out.stderr,
    );
    assert.match(accepted.out.stderr, /accepted widening: tool "purge_notes"/);
    const lock = await Deno.readTextFile(lockPath);
    assert.match(
      lock,
      /accepted_widening = \[.*"0\.2\.0 -> 0\.3\.0: tool \\"write_note\\": risk low -> high".*\]/,
    );
    // Re-locking the unchanged project keeps the record, byte for byte.
    assert.equal(await run(["lock"], capture(dir).io), 0);
    assert.equal(await Deno.readTextFile(lockPath), lock);

    // agent plan shows what was accepted (no git repository: empty base).
    const plan = capture(dir);
    await run(["plan"], plan.io);
    assert.match(
      plan.out.stdout,
      /Accepted widening \(recorded by agent lock --accept-widening\):\n {2}notes: 0\.2\.0 -> 0\.3\.0: tool "write_note": risk low -> high/,
      plan.out.stdout + plan.out.stderr,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
