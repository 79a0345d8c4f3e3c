import assert from "node:assert/strict";
import {
  commitAll,
  type MultiFilePlan,
  PathLocks,
  planMultiEdit,
} from "./_multi.ts";
import { ToolFailure } from "./_tools.ts";

async function withRoot(fn: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-fs-multi-" }),
  );
  try {
    await fn(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

async function tree(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    const rel = `${prefix}${e.name}`;
    if (e.isDirectory) {
      out.push(`${rel}/`, ...await tree(`${dir}/${e.name}`, `${rel}/`));
    } else out.push(rel);
  }
  return out.sort();
}

async function contents(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const p of await tree(root)) {
    if (!p.endsWith("/")) out[p] = await Deno.readTextFile(`${root}/${p}`);
  }
  return out;
}

function plan(root: string, files: unknown[]): Promise<MultiFilePlan[]> {
  return planMultiEdit({
    roots: [root],
    args: { files } as Record<string, unknown>,
    workingDirectory: root,
  });
}

const isFailure =
  (kind: ToolFailure["kind"], pattern: RegExp) => (e: unknown) =>
    e instanceof ToolFailure && e.kind === kind && pattern.test(e.message);

Deno.test("planMultiEdit() applies each file's edits in order and touches nothing", async () => {
  await withRoot(async (root) => {
    await Deno.writeTextFile(`${root}/a.ts`, "let x = 1;\nlet y = 2;\n");
    await Deno.writeTextFile(`${root}/b.ts`, "old\nold\n");
    const before = await contents(root);
    const plans = await plan(root, [
      {
        path: "a.ts",
        edits: [
          { old_str: "x = 1", new_str: "x = 10" },
          { old_str: "x = 10;\nlet y", new_str: "x = 10;\nconst y" },
        ],
      },
      {
        path: "b.ts",
        edits: [{ old_str: "old", new_str: "new", replace_all: true }],
      },
      { path: "dir/c.ts", content: "created\n" },
    ]);
    assert.deepEqual(plans.map((p) => [p.mode, p.newText, p.replacements]), [
      ["edit", "let x = 10;\nconst y = 2;\n", 2],
      ["edit", "new\nnew\n", 2],
      ["write", "created\n", 1],
    ]);
    assert.equal(plans[2]!.oldBytes, undefined);
    assert.deepEqual(await contents(root), before, "planning changed nothing");
  });
});

Deno.test("planMultiEdit() names the file and the edit that cannot apply", async () => {
  await withRoot(async (root) => {
    await Deno.writeTextFile(`${root}/a.txt`, "one\ntwo\ntwo\n");
    await assert.rejects(
      plan(root, [{
        path: "a.txt",
        edits: [{ old_str: "two", new_str: "2" }],
      }]),
      isFailure(
        "invalid_arguments",
        /a\.txt" \(files\[0\]\), edit 0: "old_str" occurs 2 times/,
      ),
    );
    await assert.rejects(
      plan(root, [
        { path: "a.txt", edits: [{ old_str: "one", new_str: "1" }] },
        { path: "./a.txt", content: "x" },
      ]),
      isFailure(
        "invalid_arguments",
        /"files\[1\]" \("\.\/a\.txt"\) and "files\[0\]" \("a\.txt"\) are the same file/,
      ),
    );
    await assert.rejects(
      plan(root, [{
        path: "missing.txt",
        edits: [{ old_str: "a", new_str: "b" }],
      }]),
      isFailure(
        "not_found",
        /missing\.txt.*does not exist \(to create it, give "content"/,
      ),
    );
    await assert.rejects(
      plan(root, []),
      isFailure("invalid_arguments", /"files" must list at least one file/),
    );
    await assert.rejects(
      plan(root, [
        { path: "a.txt" },
        { path: "a.txt", edits: [{ old_str: "a", new_str: "a" }], mode: 1 },
      ]),
      isFailure(
        "invalid_arguments",
        /"files\[0\]" must have exactly one of "edits".*unknown argument "files\[1\]\.mode".*"files\[1\]\.edits\[0\]": "old_str" and "new_str" are the same/,
      ),
    );
    await assert.rejects(
      plan(root, [{ path: "../x", content: "x" }]),
      isFailure("permission_denied", /outside the allowed roots/),
    );
  });
});

Deno.test("commitAll() writes every file, keeps modes and leaves no temporary files", async () => {
  await withRoot(async (root) => {
    await Deno.writeTextFile(`${root}/a.sh`, "echo a\n");
    await Deno.chmod(`${root}/a.sh`, 0o750);
    await Deno.writeTextFile(`${root}/b.txt`, "b\n");
    const plans = await plan(root, [
      { path: "a.sh", edits: [{ old_str: "echo a", new_str: "echo A" }] },
      { path: "b.txt", content: "B\n" },
      { path: "new/dir/c.txt", content: "c\n" },
    ]);
    const written = await commitAll(plans);
    assert.deepEqual(written.map((w) => [w.path, w.created, w.bytes]), [
      [`${root}/a.sh`, false, 7],
      [`${root}/b.txt`, false, 2],
      [`${root}/new/dir/c.txt`, true, 2],
    ]);
    assert.deepEqual(await contents(root), {
      "a.sh": "echo A\n",
      "b.txt": "B\n",
      "new/dir/c.txt": "c\n",
    });
    assert.equal((await Deno.stat(`${root}/a.sh`)).mode! & 0o777, 0o750);
    assert.deepEqual(await tree(root), [
      "a.sh",
      "b.txt",
      "new/",
      "new/dir/",
      "new/dir/c.txt",
    ]);
  });
});

Deno.test("commitAll() is all or nothing: a file changed during the apply rolls back the files already renamed", async () => {
  await withRoot(async (root) => {
    await Deno.writeTextFile(`${root}/a.txt`, "a\n");
    await Deno.writeTextFile(`${root}/b.txt`, "b\n");
    await Deno.writeTextFile(`${root}/c.txt`, "c\n");
    const plans = await plan(root, [
      { path: "a.txt", edits: [{ old_str: "a", new_str: "A" }] },
      { path: "fresh/d.txt", content: "d\n" },
      { path: "b.txt", edits: [{ old_str: "b", new_str: "B" }] },
      { path: "c.txt", edits: [{ old_str: "c", new_str: "C" }] },
    ]);
    const seen: string[] = [];
    await assert.rejects(
      commitAll(plans, undefined, {
        beforeRename: async (i) => {
          // a.txt and fresh/d.txt are already in place when b.txt is next.
          if (i === 2) {
            seen.push(await Deno.readTextFile(`${root}/a.txt`));
            seen.push(await Deno.readTextFile(`${root}/fresh/d.txt`));
            await Deno.writeTextFile(`${root}/b.txt`, "someone else\n");
          }
        },
      }),
      isFailure(
        "concurrency_conflict",
        /b\.txt" changed since it was read; nothing was changed/,
      ),
    );
    assert.deepEqual(seen, ["A\n", "d\n"], "the first two had been renamed");
    assert.deepEqual(await contents(root), {
      "a.txt": "a\n",
      "b.txt": "someone else\n",
      "c.txt": "c\n",
    });
    assert.deepEqual(await tree(root), ["a.txt", "b.txt", "c.txt"]);
  });
});

Deno.test("commitAll() rolls back when a rename fails (the target became a directory)", async () => {
  await withRoot(async (root) => {
    await Deno.writeTextFile(`${root}/a.txt`, "a\n");
    const plans = await plan(root, [
      { path: "a.txt", content: "A\n" },
      { path: "b.txt", content: "B\n" },
    ]);
    await assert.rejects(
      commitAll(plans, undefined, {
        beforeRename: async (i) => {
          if (i === 1) {
            await Deno.mkdir(`${root}/b.txt/inner`, { recursive: true });
          }
        },
      }),
      (e: unknown) =>
        e instanceof ToolFailure && e.kind !== "execution_failed" &&
        /b\.txt.*nothing was changed/.test(e.message),
    );
    assert.equal(await Deno.readTextFile(`${root}/a.txt`), "a\n");
    assert.deepEqual(await tree(root), ["a.txt", "b.txt/", "b.txt/inner/"]);
  });
});

Deno.test("MUST 16: a multi_edit cancelled during the apply undoes what it did and never claims success", async () => {
  await withRoot(async (root) => {
    await Deno.writeTextFile(`${root}/a.txt`, "a\n");
    await Deno.writeTextFile(`${root}/b.txt`, "b\n");
    const plans = await plan(root, [
      { path: "a.txt", content: "A\n" },
      { path: "b.txt", content: "B\n" },
    ]);
    const ac = new AbortController();
    await assert.rejects(
      commitAll(plans, ac.signal, {
        beforeRename: (i) => {
          if (i === 1) ac.abort();
        },
      }),
      isFailure("cancelled", /nothing was changed/),
    );
    assert.deepEqual(await contents(root), { "a.txt": "a\n", "b.txt": "b\n" });
    await assert.rejects(
      commitAll(plans, AbortSignal.abort()),
      isFailure("cancelled", /Cancelled before any file changed/),
    );
    assert.deepEqual(await tree(root), ["a.txt", "b.txt"]);
  });
});

Deno.test("PathLocks: the same path serializes, different paths overlap", async () => {
  const locks = new PathLocks();
  const log: string[] = [];
  const task = (name: string, ms: number) => async () => {
    log.push(`${name}+`);
    await new Promise((r) => setTimeout(r, ms));
    log.push(`${name}-`);
  };
  await Promise.all([
    locks.run(["/a"], task("a1", 20)),
    locks.run(["/a"], task("a2", 1)),
    locks.run(["/b"], task("b", 1)),
  ]);
  assert.deepEqual(log, ["a1+", "b+", "b-", "a1-", "a2+", "a2-"]);
  log.length = 0;
  // Overlapping sets, in opposite orders, do not deadlock.
  await Promise.all([
    locks.run(["/x", "/y"], task("xy", 5)),
    locks.run(["/y", "/x"], task("yx", 1)),
  ]);
  assert.deepEqual(log, ["xy+", "xy-", "yx+", "yx-"]);
  assert.equal(locks.size, 0, "no lock is left behind");
});
