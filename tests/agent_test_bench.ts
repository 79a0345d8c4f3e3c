/**
 * `agent test` on 1,000 test blocks (examples/exec's policy, every block a
 * shell command judged per segment), end to end in a subprocess, against an
 * empty `deno run` in the same group: the ratio is the figure. Budget: 1 s.
 */
import { join } from "node:path";

const ROOT = new URL("..", import.meta.url).pathname;
const EXEC = join(ROOT, "examples", "exec");
const DENO = Deno.execPath();

const dir = await Deno.makeTempDir({ prefix: "agent-test-bench-" });
for (const f of ["agent.hcl", "script.json"]) {
  await Deno.copyFile(join(EXEC, f), join(dir, f));
}
await Deno.mkdir(join(dir, ".agent"));
await Deno.copyFile(
  join(EXEC, ".agent", "agent.lock.hcl"),
  join(dir, ".agent", "agent.lock.hcl"),
);
const commands = [
  ["git status && rm -rf build", "deny"],
  ["ls -la | grep x | wc -l", "allow"],
  ["bash -c 'ls; sudo rm -rf /'", "deny"],
  ["make build", "ask"],
] as const;
let text = "";
for (let i = 0; i < 1000; i++) {
  const [command, expect] = commands[i % commands.length]!;
  text +=
    `test "t${i}" {\n  call   = { provider = "sh", tool = "bash", input = { command = ${
      JSON.stringify(`${command} ${i}`)
    } } }\n  expect = "${expect}"\n}\n\n`;
}
await Deno.writeTextFile(join(dir, "agent.test.hcl"), text);
const empty = join(dir, "empty.ts");
await Deno.writeTextFile(empty, "");

async function runOk(args: string[]): Promise<void> {
  const out = await new Deno.Command(DENO, {
    args,
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  if (!out.success) {
    throw new Error(
      `${args.join(" ")} failed: ${new TextDecoder().decode(out.stdout)}${
        new TextDecoder().decode(out.stderr)
      }`,
    );
  }
}

Deno.bench("deno run (empty module)", {
  group: "agent test, 1000 blocks",
  baseline: true,
}, async () => {
  await runOk(["run", empty]);
});

Deno.bench("agent test (1000 blocks)", {
  group: "agent test, 1000 blocks",
}, async () => {
  await runOk(["run", "-A", join(ROOT, "main.ts"), "test", dir]);
});

globalThis.addEventListener("unload", () => {
  Deno.removeSync(dir, { recursive: true });
});
