/**
 * Child sessions written in parallel by separate processes (kernel.md §3.13:
 * each child has its own file and writer): no lost or duplicated sequence in
 * any of them, and every chain verifies. A last case has two processes
 * write the same file, which the kernel never does, to show that
 * `BEGIN IMMEDIATE` with the head read inside the transaction still keeps
 * one sequence and one chain.
 */
import assert from "node:assert/strict";
import { SqliteSessionStore } from "../kernel/state/sqlite_session_store.ts";
import { REPO } from "./_helpers.ts";

const WRITER = `${REPO}/tests/fixtures/state/writer_main.ts`;

async function write(
  dir: string,
  sessionId: string,
  count: number,
  inflight: number,
): Promise<number[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--cached-only",
      "--allow-read",
      `--allow-write=${dir}`,
      WRITER,
      dir,
      sessionId,
      String(count),
      String(inflight),
    ],
    cwd: REPO,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.equal(
    out.code,
    0,
    `writer failed: ${new TextDecoder().decode(out.stderr)}`,
  );
  const lines = stdout.trimEnd().split("\n");
  assert.equal(lines.pop(), "done");
  return lines.map((l) => Number(l.split(" ")[1]));
}

Deno.test("child sessions written in parallel by separate processes lose and duplicate nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ph-state-parallel-" });
  try {
    const store = new SqliteSessionStore({
      dir,
      keyPath: `${dir}/key/installation.key`,
    });
    const root = await store.create({ profile: "root" });
    const children = [];
    for (let i = 0; i < 4; i++) {
      children.push(
        await store.create({
          profile: "sub",
          parentSessionId: root.sessionId,
          depth: 1,
        }),
      );
    }
    const shared = await store.create({ profile: "shared" });
    await store.close();

    const COUNT = 1500;
    const [childAcks, sharedA, sharedB] = await Promise.all([
      Promise.all(children.map((c) => write(dir, c.sessionId, COUNT, 32))),
      write(dir, shared.sessionId, 400, 16),
      write(dir, shared.sessionId, 400, 16),
    ]);

    await using check = new SqliteSessionStore({
      dir,
      keyPath: `${dir}/key/installation.key`,
    });
    for (const [i, c] of children.entries()) {
      const acks = childAcks[i];
      assert.deepEqual(
        [...acks].sort((a, b) => a - b),
        Array.from({ length: COUNT }, (_, k) => k + 1),
        `acks of child ${i}`,
      );
      const s = await check.open(c.sessionId);
      const seqs: number[] = [];
      for await (const e of s.readEvents()) seqs.push(e.sequence);
      assert.deepEqual(seqs, Array.from({ length: COUNT }, (_, k) => k + 1));
      assert.equal((await s.verify()).ok, true);
      await s.close();
    }
    const both = [...sharedA, ...sharedB].sort((a, b) => a - b);
    assert.deepEqual(both, Array.from({ length: 800 }, (_, k) => k + 1));
    assert.deepEqual(await check.verify(shared.sessionId), {
      ...(await check.verify(shared.sessionId)),
      ok: true,
      events: 800,
    });
    const listed = await check.list({ parentSessionId: root.sessionId });
    assert.deepEqual(
      listed.sessions.map((s) => s.sessionId).sort(),
      children.map((c) => c.sessionId).sort(),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
