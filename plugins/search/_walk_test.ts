/**
 * The walk at the time of use (issue 21, defect 5 follow-up): a directory
 * swapped for a symbolic link after its parent was listed is not listed,
 * and a `.gitignore` swapped for a symbolic link is not read.
 */
import assert from "node:assert/strict";
import { dirname } from "node:path";
import { walk } from "./_walk.ts";

Deno.test("defect 5: a directory swapped for a symbolic link to outside after the walk listed its parent is skipped, not listed", async () => {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-walk-swap-" }),
  );
  try {
    const root = `${dir}/root`;
    await Deno.mkdir(`${root}/d`, { recursive: true });
    await Deno.mkdir(`${dir}/outside`, { recursive: true });
    await Deno.writeTextFile(`${root}/a.txt`, "a\n");
    await Deno.writeTextFile(`${root}/d/inside.txt`, "inside\n");
    await Deno.writeTextFile(`${dir}/outside/secret.txt`, "OUTSIDE\n");
    const roots = [{ absolute: root, real: root }];
    const it = walk(root, { ignoreFrom: root, roots });
    // root is listed (a.txt comes first, d waits on the stack) ...
    assert.equal(it.next().value?.rel, "a.txt");
    // ... then d becomes a symbolic link to outside.
    await Deno.rename(`${root}/d`, `${dir}/d.real`);
    await Deno.symlink(`${dir}/outside`, `${root}/d`);
    const rest = [...it].map((e) => e.rel);
    assert.deepEqual(rest, []);
    // Unswapped, the same walk lists d.
    await Deno.remove(`${root}/d`);
    await Deno.rename(`${dir}/d.real`, `${root}/d`);
    assert.deepEqual(
      [...walk(root, { ignoreFrom: root, roots })].map((e) => e.rel),
      ["a.txt", "d/inside.txt"],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("defect 5: a .gitignore between the root and the start that is a symbolic link to a file outside the roots is not read", async () => {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-walk-ignore-" }),
  );
  try {
    const root = `${dir}/root`;
    const start = `${root}/sub`;
    await Deno.mkdir(start, { recursive: true });
    await Deno.writeTextFile(`${start}/a.txt`, "a\n");
    await Deno.writeTextFile(`${start}/b.txt`, "b\n");
    // Outside: a file whose content, were it read as ignore patterns,
    // would hide b.txt (and so disclose that it says "b.txt").
    await Deno.writeTextFile(`${dir}/outside-ignore`, "b.txt\n");
    await Deno.symlink(`${dir}/outside-ignore`, `${root}/.gitignore`);
    const roots = [{ absolute: root, real: root }];
    assert.deepEqual(
      [...walk(start, { ignoreFrom: root, roots })].map((e) => e.rel),
      ["a.txt", "b.txt"],
    );
    // A real .gitignore in its place applies.
    await Deno.remove(`${root}/.gitignore`);
    await Deno.writeTextFile(`${root}/.gitignore`, "b.txt\n");
    assert.deepEqual(
      [...walk(start, { ignoreFrom: root, roots })].map((e) => e.rel),
      ["a.txt"],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("walk: a directory holding .git (a nested repository or a worktree's .git file) is not subject to the .gitignore files above it", async () => {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-walk-nested-" }),
  );
  try {
    const files: Record<string, string> = {
      ".gitignore": "*.log\n",
      "top.log": "",
      "plain/p.log": "",
      "repo/.git/HEAD": "",
      "repo/.gitignore": "*.md\n",
      "repo/r.log": "",
      "repo/r.md": "",
      "repo/deep/d.log": "",
      "wt/.git": "gitdir: elsewhere\n",
      "wt/w.log": "",
    };
    for (const [path, text] of Object.entries(files)) {
      await Deno.mkdir(dirname(`${dir}/${path}`), { recursive: true });
      await Deno.writeTextFile(`${dir}/${path}`, text);
    }
    const roots = [{ absolute: dir, real: dir }];
    assert.deepEqual(
      [...walk(dir, { ignoreFrom: dir, roots })].map((e) => e.rel),
      [
        ".gitignore",
        "repo/.gitignore",
        "repo/r.log",
        "repo/deep/d.log",
        "wt/.git",
        "wt/w.log",
      ],
    );
    // Started inside the nested repository: the outer rules stop too.
    assert.deepEqual(
      [...walk(`${dir}/repo/deep`, { ignoreFrom: dir, roots })].map((e) =>
        e.rel
      ),
      ["d.log"],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
