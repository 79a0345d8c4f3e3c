/**
 * DenoCommandLauncher through real /bin/sh children: the exact environment
 * and working directory, a process group of its own, group-wide kill.
 */
import assert from "node:assert/strict";
import { DenoCommandLauncher } from "./launcher.ts";

const decoder = new TextDecoder();

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = "";
  for await (const chunk of stream) text += decoder.decode(chunk);
  return text;
}

Deno.test("DenoCommandLauncher starts a child in its own process group with exactly the given env and cwd", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    const child = new DenoCommandLauncher().start({
      command: "/bin/sh",
      args: [
        "-c",
        'echo "$FOO|${HOME-unset}|$(pwd)"; cut -d" " -f5 /proc/$$/stat; echo oops >&2; exit 4',
      ],
      env: { FOO: "bar", PATH: "/usr/bin:/bin" },
      cwd: dir,
    });
    const [out, err, status] = await Promise.all([
      readAll(child.stdout),
      readAll(child.stderr),
      child.status,
    ]);
    assert.equal(out, `bar|unset|${dir}\n${child.pid}\n`);
    assert.equal(err, "oops\n");
    assert.deepEqual(status, { code: 4, signal: null });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("DenoCommandLauncher's kill signals the process group, and a gone group is ignored", async () => {
  const child = new DenoCommandLauncher().start({
    command: "/bin/sh",
    args: ["-c", "echo ready; sleep 30 & wait"],
    env: { PATH: "/usr/bin:/bin" },
    cwd: "/",
    stdout: "piped",
  });
  const reader = child.stdout.getReader();
  assert.equal(decoder.decode((await reader.read()).value), "ready\n");
  child.kill("SIGKILL");
  assert.equal((await child.status).signal, "SIGKILL");
  reader.releaseLock();
  await child.stdout.cancel();
  await child.stderr.cancel();
  child.kill("SIGKILL");
});

Deno.test("DenoCommandLauncher gives an empty stdout when it is not piped", async () => {
  const child = new DenoCommandLauncher().start({
    command: "/bin/sh",
    args: ["-c", "echo hidden"],
    env: {},
    cwd: "/",
    stdout: "null",
  });
  assert.equal(await readAll(child.stdout), "");
  assert.equal(await readAll(child.stderr), "");
  assert.deepEqual(await child.status, { code: 0, signal: null });
});
