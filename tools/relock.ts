/**
 * Re-locks everything that pins the first-party plugins' checksums, after an
 * edit to a plugin, the plugin SDK, `contract/` or `proto/` (a builtin's
 * checksum covers its whole module graph):
 *
 * 1. `plugins/builtin_checksums.json` (the digests a registry run reports),
 * 2. the lock file of every example project,
 * 3. the config compiler's golden fixtures that hold a lock file.
 *
 * Usage: `deno task relock`. Prints what it rewrote; exits 1 on the first
 * step that fails, with that step's output.
 *
 * @module
 */
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

async function step(
  what: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: root,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  if (!out.success) {
    console.error(
      `relock: ${what} failed\n${dec.decode(out.stdout)}${
        dec.decode(out.stderr)
      }`,
    );
    Deno.exit(1);
  }
  console.error(`relock: ${what}`);
}

await step("plugins/builtin_checksums.json", [
  "test",
  "-A",
  "plugins/builtin_test.ts",
], { UPDATE_GOLDEN: "1" });
const dirs = ["examples"];
for await (const e of Deno.readDir(`${root}/examples`)) {
  if (!e.isDirectory) continue;
  try {
    await Deno.stat(`${root}/examples/${e.name}/.agent/agent.lock.hcl`);
    dirs.push(`examples/${e.name}`);
  } catch {
    // not a locked project
  }
}
for (const dir of dirs.sort()) {
  await step(`${dir}/.agent/agent.lock.hcl`, [
    "run",
    "-A",
    "main.ts",
    "lock",
    dir,
  ]);
}
await step("config/testdata golden fixtures", [
  "test",
  "-A",
  "config/compile_fixtures_test.ts",
], { UPDATE_GOLDEN: "1" });
