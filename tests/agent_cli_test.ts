/** The `agent` command line (main.ts): subcommands, help, version, usage errors. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { AGENT_HELP, run } from "../main.ts";
import { LOCK_HELP } from "../cli/commands/lock.ts";
import { WEB_HELP } from "../cli/commands/web.ts";
import denoJson from "../deno.json" with { type: "json" };
import { DENO_ENV, REPO } from "./_helpers.ts";

function io(cwd = REPO) {
  let out = "";
  let err = "";
  return {
    stdout: (t: string) => (out += t),
    stderr: (t: string) => (err += t),
    isTerminal: false,
    // A forge source is resolved on the forge: nothing listens here, so no
    // test reaches a real one.
    env: { HOME: "/nonexistent-home", GITHUB_API_URL: "http://127.0.0.1:1" },
    cwd,
    out: () => out,
    err: () => err,
  };
}

Deno.test("agent --help and --version", async () => {
  const h = io();
  assert.equal(await run(["--help"], h), 0);
  assert.equal(h.out(), AGENT_HELP);
  const v = io();
  assert.equal(await run(["--version"], v), 0);
  assert.equal(
    v.out(),
    `agent ${denoJson.version} (deno ${Deno.version.deno})\n`,
  );
  const l = io();
  assert.equal(await run(["lock", "-h"], l), 0);
  assert.equal(l.out(), LOCK_HELP);
});

Deno.test("agent exits 3 with error: on stderr for a usage error", async () => {
  for (
    const args of [[], ["frobnicate"], ["--frobnicate"], ["lock", "a", "b"], [
      "lock",
      "--x",
    ], ["check-config", "--x"]]
  ) {
    const t = io();
    assert.equal(await run(args, t), 3, args.join(" "));
    assert.match(t.err(), /\nerror: /);
    assert.equal(t.out(), "");
  }
});

Deno.test("agent check-config runs the checker; agent lock reports a configuration it cannot lock", async () => {
  const t = io();
  assert.equal(
    await run(["check-config", "examples", "--locked", "--no-cache"], t),
    0,
  );
  assert.match(t.out(), /The configuration is valid/);
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/agent.hcl`,
      'required_providers {\n  x = { source = "github.com/acme/x", version = "1.0.0" }\n}\n',
    );
    const l = io(dir);
    assert.equal(await run(["lock"], l), 1);
    assert.match(l.err(), /E_PROVIDER_NOT_LOCKED/);
    assert.match(l.err(), /Cannot write the lock file/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("agent web: --help prints its help; a bad --port or an extra argument is a usage error (3)", async () => {
  const h = io();
  assert.equal(await run(["web", "--help"], h), 0);
  assert.equal(h.out(), WEB_HELP);
  for (
    const [args, message] of [
      [
        ["web", "--port", "http"],
        /--port must be an integer from 0 to 65535: "http"/,
      ],
      [
        ["web", "--port", "70000"],
        /--port must be an integer from 0 to 65535: "70000"/,
      ],
      [["web", "extra"], /unexpected argument "extra"/],
    ] as const
  ) {
    const u = io();
    assert.equal(await run(args, u), 3, args.join(" "));
    assert.match(u.err(), message);
  }
});

Deno.test("agent writing into a pipe its reader closed exits 141 quietly, with no stack trace", async () => {
  // A 2 MB tool_name makes a 2 MB --json document: far more than a pipe
  // holds, so the writer is still writing when the reader goes away.
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      join(dir, "agent.hcl"),
      `policy "big" {\n  match  = { tool_name = "${
        "x".repeat(2_000_000)
      }" }\n  action = "deny"\n}\n`,
    );
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        join(REPO, "main.ts"),
        "check-config",
        "--json",
        "--no-cache",
        dir,
      ],
      env: { ...DENO_ENV, HOME: "/nonexistent-home", NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const stderr = new Response(child.stderr).text();
    const reader = child.stdout.getReader();
    const first = await reader.read(); // like `head -c 300`: some bytes…
    await reader.cancel(); // …then the pipe is closed
    assert.match(new TextDecoder().decode(first.value), /^\{/);
    const status = await child.status;
    const err = await stderr;
    // Deno itself may report a first download on stderr; nothing else.
    assert.doesNotMatch(err, /BrokenPipe|Uncaught|error|^\s+at /im, err);
    assert.equal(status.code, 141, err);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
