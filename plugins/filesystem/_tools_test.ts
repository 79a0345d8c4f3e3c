import assert from "node:assert/strict";
import {
  commit,
  planEdit,
  planWrite,
  readFile,
  ToolFailure,
} from "./_tools.ts";

async function withRoot(fn: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-fs-unit-" }),
  );
  try {
    await fn(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

async function entries(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(dir)) names.push(e.name);
  return names.sort();
}

Deno.test("MUST 16: a write cancelled before it lands writes nothing and never claims success", async () => {
  await withRoot(async (root) => {
    await Deno.writeTextFile(`${root}/a.txt`, "old\n");
    const ac = new AbortController();
    const plan = await planWrite({
      roots: [root],
      args: { path: "a.txt", content: "new\n" },
      workingDirectory: root,
    });
    ac.abort();
    await assert.rejects(
      commit(plan, ac.signal),
      (e: unknown) =>
        e instanceof ToolFailure && e.kind === "cancelled" &&
        /nothing was written to ".*a.txt"/.test(e.message),
    );
    assert.equal(await Deno.readTextFile(`${root}/a.txt`), "old\n");
    assert.deepEqual(await entries(root), ["a.txt"], "no temporary file stays");
  });
});

Deno.test("readFile() stops with a cancelled failure when its call is cancelled", async () => {
  await withRoot(async (root) => {
    await Deno.writeTextFile(`${root}/a.txt`, "x\n");
    await assert.rejects(
      readFile({
        roots: [root],
        args: { path: "a.txt" },
        workingDirectory: root,
        signal: AbortSignal.abort(),
      }),
      (e: unknown) => e instanceof ToolFailure && e.kind === "cancelled",
    );
  });
});

Deno.test("planEdit() and planWrite() touch nothing", async () => {
  await withRoot(async (root) => {
    await Deno.writeTextFile(`${root}/a.txt`, "one two\n");
    const edit = await planEdit({
      roots: [root],
      args: { path: "a.txt", old_str: "two", new_str: "2" },
      workingDirectory: root,
    });
    assert.equal(edit.newText, "one 2\n");
    assert.equal(edit.oldText, "one two\n");
    const write = await planWrite({
      roots: [root],
      args: { path: "d/b.txt", content: "b" },
      workingDirectory: root,
    });
    assert.equal(write.oldText, undefined);
    assert.equal(write.target.exists, false);
    assert.deepEqual(await entries(root), ["a.txt"]);
    assert.equal(await Deno.readTextFile(`${root}/a.txt`), "one two\n");
  });
});

Deno.test("readFile() counts its 256 KiB bound in UTF-8 bytes, multibyte characters included", async () => {
  await withRoot(async (root) => {
    // Each numbered line: 6 + 1 + 2000 bytes + a newline = 2008 bytes, so
    // 130 lines fit in 262,144 bytes and the 131st does not.
    for (
      const [name, unit] of [["e.txt", "é".repeat(1000)], [
        "emoji.txt",
        "😀".repeat(500),
      ]]
    ) {
      await Deno.writeTextFile(`${root}/${name}`, `${unit}\n`.repeat(200));
      const r = await readFile({
        roots: [root],
        args: { path: name },
        workingDirectory: root,
      });
      assert.deepEqual([r.end_line, r.total_lines, r.truncated], [
        130,
        200,
        true,
      ], name);
      assert.ok(new TextEncoder().encode(r.content).length < 262_144 + 200);
    }
  });
});
