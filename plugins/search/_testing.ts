/**
 * Test fixtures of the search plugin (not part of the published API).
 *
 * @module
 */

/**
 * Writes the fixture tree below `dir`: `root/` with `.gitignore` rules at
 * two levels, a `.git` directory, a binary file and symbolic links to
 * `outside/`.
 *
 * @param dir An empty directory.
 */
export async function makeTree(dir: string): Promise<void> {
  const files: Record<string, string> = {
    "root/.gitignore": "*.log\nbuild/\n!keep.log\n",
    "root/.git/config": "needle in git metadata\n",
    "root/a.ts": "one\nneedle here\nthree\nfour\nfive\nsix\nNEEDLE loud\n",
    "root/b.md": "# Title\nno match\n",
    "root/app.log": "needle in an ignored log\n",
    "root/keep.log": "needle in a kept log\n",
    "root/build/out.ts": "needle in build output\n",
    "root/sub/.gitignore": "generated/\n!debug.log\n",
    "root/sub/c.ts":
      "start\nalpha needle\nbeta\ngamma\ndelta\nepsilon needle\nend\n",
    "root/sub/debug.log": "needle in a debug log\n",
    "root/sub/generated/g.ts": "needle generated\n",
    "root/sub/deep/d.py": "x = 'needle'\n",
    "outside/secret.txt": "needle outside the root\n",
  };
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(`${dir}/${path.slice(0, path.lastIndexOf("/"))}`, {
      recursive: true,
    });
    await Deno.writeTextFile(`${dir}/${path}`, text);
  }
  await Deno.writeFile(
    `${dir}/root/bin.dat`,
    new Uint8Array([110, 101, 101, 100, 108, 101, 0, 1, 2]),
  );
  await Deno.symlink(`${dir}/outside`, `${dir}/root/link`);
  await Deno.symlink(
    `${dir}/outside/secret.txt`,
    `${dir}/root/secret-link.txt`,
  );
}
