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
