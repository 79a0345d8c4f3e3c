/**
 * `deno run -A jsr:@ph/agent [args]` runs `mod.ts`, the package's `.`
 * export: it must be the `agent` command line then, with the same exit
 * codes as `main.ts`, while a library import of `mod.ts` runs nothing.
 *
 * The package is served over HTTP on 127.0.0.1 the way a registry serves
 * it (tests/_package_server.ts), and the quickstart project, with the lock
 * file written in the checkout, runs from that URL.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { PATH, REPO, runDeno } from "./_helpers.ts";
import { servePackage } from "./_package_server.ts";

const PROMPT = "Summarize notes.md into SUMMARY.md, with the action items.";

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    if (e.isDirectory) await copyTree(join(from, e.name), join(to, e.name));
    else if (e.isFile) {
      await Deno.copyFile(join(from, e.name), join(to, e.name));
    }
  }
}

async function denoIn(
  cwd: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return {
    code: out.code,
    stdout: dec.decode(out.stdout),
    stderr: dec.decode(out.stderr),
  };
}

Deno.test("deno run <package URL>/mod.ts run … completes the quickstart with the builtins served from the package", async () => {
  await using server = servePackage();
  const { base, served } = server;
  const tmp = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-agent-mod-main-" }),
  );
  try {
    const project = join(tmp, "quickstart");
    await copyTree(`${REPO}/examples/quickstart`, project);
    // Deno's own cache (and network settings) stay the parent's: the npm
    // packages are already there.
    const env = {
      PATH,
      NO_COLOR: "1",
      DENO_NO_UPDATE_CHECK: "1",
      XDG_STATE_HOME: join(tmp, "state"),
      XDG_CONFIG_HOME: join(tmp, "config"),
    };
    const r = await denoIn(project, [
      "run",
      "-A",
      "--no-lock",
      `${base}/mod.ts`,
      "run",
      PROMPT,
      "--json",
      "--approve-all",
      "--locked",
    ], env);
    assert.equal(r.code, 0, r.stderr);
    const events = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const ended = events.find((e) => e.type === "session_ended");
    assert.equal(ended?.status, "completed", r.stdout);
    assert.match(
      await Deno.readTextFile(join(project, "SUMMARY.md")),
      /^# Summary of the 12 March sync\n/,
    );
    // The CLI and both builtin plugins came from the package URL.
    for (
      const path of [
        "/mod.ts",
        "/main.ts",
        "/plugins/scripted/plugin.json",
        "/plugins/scripted/main.ts",
        "/plugins/filesystem/plugin.json",
        "/plugins/filesystem/main.ts",
        "/plugins/builtin_checksums.json",
      ]
    ) {
      assert.ok(served.includes(path), `${path} was not served`);
    }

    // Exit codes and output are main.ts's: a usage error is 3.
    const usage = await denoIn(project, [
      "run",
      "-A",
      "--no-lock",
      `${base}/mod.ts`,
      "no-such-command",
    ], env);
    const local = await runDeno(["run", "-A", "main.ts", "no-such-command"]);
    assert.equal(local.code, 3);
    assert.equal(usage.code, 3, usage.stderr);
    assert.ok(usage.stderr.endsWith(local.stderr), usage.stderr);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("importing mod.ts as a library does not run the command line", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "ph-agent-mod-import-" });
  try {
    const script = join(tmp, "use_library.ts");
    await Deno.writeTextFile(
      script,
      `const mod = await import(${JSON.stringify(`${REPO}/mod.ts`)});
console.log(typeof mod.openKernel);
`,
    );
    // --version would print "agent <version>" if the CLI ran.
    const r = await runDeno([
      "run",
      "-A",
      "--config",
      `${REPO}/deno.json`,
      script,
      "--version",
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "function\n");
    assert.equal(r.stderr, "");
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
