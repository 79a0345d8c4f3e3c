/**
 * Unit tests of the open-then-verify helpers (issue 21, defect 5): what
 * `openVerified` refuses when a symbolic link stands where a file or a
 * directory was, including a swap that happens after the path was
 * resolved and before it is opened.
 */
import assert from "node:assert/strict";
import {
  closeFile,
  openVerified,
  readAll,
  readAllSync,
  VerifiedTree,
  verifyDirectory,
} from "./confined_fs.ts";
import { confine, PathError, resolveRoots } from "./roots.ts";

/** A temporary directory with `root/` (granted) and `outside/` (not). */
async function fixture(): Promise<
  { dir: string; root: string; outside: string }
> {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-confined-fs-" }),
  );
  const root = `${dir}/root`;
  const outside = `${dir}/outside`;
  await Deno.mkdir(`${root}/d`, { recursive: true });
  await Deno.mkdir(`${outside}/d`, { recursive: true });
  await Deno.writeTextFile(`${root}/d/f.txt`, "inside\n");
  await Deno.writeTextFile(`${outside}/d/f.txt`, "OUTSIDE\n");
  await Deno.writeTextFile(`${outside}/secret.txt`, "OUTSIDE\n");
  return { dir, root, outside };
}

function refused(code: string, text: RegExp): (err: unknown) => boolean {
  return (err) => {
    assert.ok(err instanceof PathError, `not a PathError: ${err}`);
    assert.equal(err.kind, code);
    assert.match(err.message, text);
    return true;
  };
}

Deno.test("defect 5: openVerified refuses a symbolic link at the final component, even to a file inside the roots", async () => {
  const { dir, root, outside } = await fixture();
  try {
    const roots = await resolveRoots([root], root);
    await Deno.symlink(`${outside}/secret.txt`, `${root}/link.txt`);
    await Deno.symlink(`${root}/d/f.txt`, `${root}/inner.txt`);
    assert.throws(
      () => openVerified(`${root}/link.txt`, roots, "link.txt"),
      refused("permission_denied", /"link\.txt".*symbolic link/),
    );
    assert.throws(
      () => openVerified(`${root}/inner.txt`, roots, "inner.txt"),
      refused("permission_denied", /symbolic link at the time of use/),
    );
    // The real file itself opens, and reads whole both ways.
    const file = openVerified(`${root}/d/f.txt`, roots, "d/f.txt");
    try {
      assert.equal(file.real, `${root}/d/f.txt`);
      assert.equal(new TextDecoder().decode(readAllSync(file)), "inside\n");
    } finally {
      closeFile(file);
    }
    const again = openVerified(`${root}/d/f.txt`, roots, "d/f.txt");
    try {
      assert.equal(new TextDecoder().decode(await readAll(again)), "inside\n");
    } finally {
      closeFile(again);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("defect 5: openVerified refuses a file reached through a symbolic-linked parent directory outside the roots", async () => {
  const { dir, root, outside } = await fixture();
  try {
    const roots = await resolveRoots([root], root);
    await Deno.symlink(`${outside}/d`, `${root}/ln`);
    assert.throws(
      () => openVerified(`${root}/ln/f.txt`, roots, "ln/f.txt"),
      refused("permission_denied", /outside the roots/),
    );
    assert.throws(
      () => verifyDirectory(`${root}/ln`, roots, "ln"),
      refused("permission_denied", /outside the roots/),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("defect 5: a directory swapped for a symbolic link between resolving the path and opening it is refused, not read", async () => {
  const { dir, root, outside } = await fixture();
  try {
    const roots = await resolveRoots([root], root);
    // The resolve step: the path is confined while d is a real directory.
    const resolved = await confine("d/f.txt", root, roots);
    assert.equal(resolved.real, `${root}/d/f.txt`);
    // The swap, after the check and before the use.
    await Deno.rename(`${root}/d`, `${root}/d.real`);
    await Deno.symlink(`${outside}/d`, `${root}/d`);
    // The open step: it would open outside/d/f.txt; the verification
    // sees where the handle really is and refuses it.
    assert.throws(
      () => openVerified(resolved.real, roots, "d/f.txt"),
      refused("permission_denied", /"d\/f\.txt".*outside the roots/),
    );
    assert.throws(
      () => verifyDirectory(`${root}/d`, roots, "d"),
      refused("permission_denied", /outside the roots/),
    );
    // And the file swapped for a symbolic link, the directory restored.
    await Deno.remove(`${root}/d`);
    await Deno.rename(`${root}/d.real`, `${root}/d`);
    await Deno.rename(`${root}/d/f.txt`, `${root}/d/f.real`);
    await Deno.symlink(`${outside}/d/f.txt`, `${root}/d/f.txt`);
    assert.throws(
      () => openVerified(resolved.real, roots, "d/f.txt"),
      refused("permission_denied", /symbolic link/),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readAllSync and readAll read a file that grew after it was opened to its new end, and stop past maxBytes", async () => {
  const { dir, root } = await fixture();
  try {
    const roots = await resolveRoots([root], root);
    const path = `${root}/d/f.txt`;
    for (const read of ["sync", "async"] as const) {
      await Deno.writeTextFile(path, "inside\n");
      const file = openVerified(path, roots, "d/f.txt");
      try {
        assert.equal(file.size, 7);
        await Deno.writeTextFile(path, "x".repeat(100_000), { append: true });
        const bytes = read === "sync" ? readAllSync(file) : await readAll(file);
        assert.equal(bytes?.length, 100_007, read);
      } finally {
        closeFile(file);
      }
      const small = openVerified(path, roots, "d/f.txt");
      try {
        const bytes = read === "sync"
          ? readAllSync(small, 1000)
          : await readAll(small, 1000);
        assert.equal(bytes, undefined, read);
      } finally {
        closeFile(small);
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Reads a file through a tree, closing it. */
function readThrough(tree: VerifiedTree, path: string): string {
  const file = tree.open(path);
  try {
    return new TextDecoder().decode(readAllSync(file));
  } finally {
    closeFile(file);
  }
}

Deno.test("VerifiedTree opens files below its start and refuses links, swapped directories and paths not below it", async () => {
  const { dir, root, outside } = await fixture();
  try {
    const roots = await resolveRoots([root], root);
    await Deno.mkdir(`${root}/a/b`, { recursive: true });
    await Deno.mkdir(`${outside}/a/b`, { recursive: true });
    await Deno.writeTextFile(`${root}/a/b/g.txt`, "inside g\n");
    await Deno.writeTextFile(`${outside}/a/b/g.txt`, "OUTSIDE g\n");
    await Deno.symlink(`${outside}/secret.txt`, `${root}/link.txt`);
    await Deno.symlink(`${outside}/d`, `${root}/ld`);
    const tree = new VerifiedTree(root, roots, "root");
    assert.equal(readThrough(tree, `${root}/d/f.txt`), "inside\n");
    assert.equal(readThrough(tree, `${root}/a/b/g.txt`), "inside g\n");
    // A link at the final component, and a directory that is a link.
    assert.throws(
      () => tree.open(`${root}/link.txt`),
      refused("permission_denied", /symbolic link/),
    );
    assert.throws(
      () => tree.open(`${root}/ld/f.txt`),
      refused("permission_denied", /not a directory/),
    );
    // Not a regular file.
    assert.throws(
      () => tree.open(`${root}/a`),
      refused("invalid_arguments", /it is a directory/),
    );
    // Not below the start, or not normalized.
    for (
      const bad of [
        `${outside}/secret.txt`,
        `${root}/../outside/secret.txt`,
        `${root}/a/./b/g.txt`,
        `${root}//d/f.txt`,
        `${root}/`,
        root,
        "d/f.txt",
      ]
    ) {
      assert.throws(
        () => tree.open(bad),
        refused("invalid_arguments", /not a file path below/),
        bad,
      );
    }
    // d, verified by the first open, swapped for a link to outside/d.
    await Deno.rename(`${root}/d`, `${root}/d.real`);
    await Deno.symlink(`${outside}/d`, `${root}/d`);
    assert.throws(
      () => tree.open(`${root}/d/f.txt`),
      refused("permission_denied", /not the one verified/),
    );
    // A directory above, a (verified), swapped for a link: a/b resolves to
    // outside/a/b, another directory.
    await Deno.rename(`${root}/a`, `${root}/a.real`);
    await Deno.symlink(`${outside}/a`, `${root}/a`);
    assert.throws(
      () => tree.open(`${root}/a/b/g.txt`),
      refused("permission_denied", /not the one verified/),
    );
    // A fresh tree meets the links before verifying anything below them.
    const fresh = new VerifiedTree(root, roots, "root");
    assert.throws(
      () => fresh.open(`${root}/a/b/g.txt`),
      refused("permission_denied", /not a directory/),
    );
    // The start itself must be its own real path inside a root.
    assert.throws(
      () => new VerifiedTree(`${root}/d`, roots, "d"),
      refused("permission_denied", /outside the roots/),
    );
    // Restored, the same tree reads again.
    await Deno.remove(`${root}/d`);
    await Deno.rename(`${root}/d.real`, `${root}/d`);
    assert.equal(readThrough(tree, `${root}/d/f.txt`), "inside\n");
    // A FIFO is refused without hanging (O_NONBLOCK).
    const mk = await new Deno.Command("mkfifo", { args: [`${root}/fifo`] })
      .output();
    assert.ok(mk.success);
    assert.throws(
      () => tree.open(`${root}/fifo`),
      refused("invalid_arguments", /not a regular file/),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * Swaps `root/d` with a link to `outside/d` in a loop until `stop` exists
 * (or 60 s pass), writing `ready` after its first swap.
 */
const SWAPPER = `
const [root, outside, ready, stop] = Deno.args;
const here = root + "/d";
const step = (f) => { try { f(); } catch { /* healed next round */ } };
const exists = (p) => { try { Deno.lstatSync(p); return true; } catch { return false; } };
const end = Date.now() + 60_000;
for (let n = 0; Date.now() < end; n++) {
  step(() => Deno.renameSync(here, here + ".real"));
  step(() => {
    Deno.symlinkSync(outside + "/d", here + ".link");
    Deno.renameSync(here + ".link", here);
  });
  step(() => Deno.removeSync(here));
  step(() => Deno.renameSync(here + ".real", here));
  if (n === 0) Deno.writeTextFileSync(ready, "");
  if (n % 64 === 0 && exists(stop)) break;
}
if (!exists(here) && exists(here + ".real")) Deno.renameSync(here + ".real", here);
`;

Deno.test("VerifiedTree never returns a file from outside while another process swaps its directory for a link to outside, as fast as it can", async () => {
  const { dir, root, outside } = await fixture();
  const ready = `${dir}/ready`;
  const stop = `${dir}/stop`;
  const swapper = new Deno.Command(Deno.execPath(), {
    args: ["eval", SWAPPER, root, outside, ready, stop],
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    const roots = await resolveRoots([root], root);
    while (!(await Deno.lstat(ready).then(() => true, () => false))) {
      await new Promise((r) => setTimeout(r, 5));
    }
    let read = 0;
    let refusals = 0;
    let tree: VerifiedTree | undefined;
    // Bounded by count: enough refusals to show the race was run.
    for (let i = 0; i < 200_000 && (refusals < 2000 || read < 200); i++) {
      try {
        // A new tree now and then, so directories are verified mid-race too.
        if (!tree || i % 50 === 0) tree = new VerifiedTree(root, roots, "r");
        const text = readThrough(tree, `${root}/d/f.txt`);
        assert.equal(text, "inside\n", "a read returned outside content");
        read++;
      } catch (err) {
        if (err instanceof assert.AssertionError) throw err;
        assert.ok(err instanceof PathError, `not a PathError: ${err}`);
        refusals++;
      }
      if (i % 500 === 0) await new Promise((r) => setTimeout(r, 0));
    }
    assert.ok(refusals > 0 && read > 0, `${read} reads, ${refusals} refusals`);
  } finally {
    await Deno.writeTextFile(stop, "");
    await swapper.status;
    await Deno.remove(dir, { recursive: true });
  }
});
