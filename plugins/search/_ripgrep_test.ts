import assert from "node:assert/strict";
import { compareWalkOrder, requiredLiterals, ripgrepWalk } from "./_ripgrep.ts";
import {
  grepFiles,
  type GrepResult,
  MAX_FILE_BYTES,
  type SearchInput,
} from "./_search.ts";
import { makeTree } from "./_testing.ts";

Deno.test("requiredLiterals: the longest literal run every match contains, per top-level alternative", () => {
  const cases: [string, boolean, string[] | undefined][] = [
    ["needle", false, ["needle"]],
    ["\\bneedle\\w*", false, ["needle"]],
    ["foo.*barbaz", false, ["barbaz"]],
    ["colou?r", false, ["colo"]],
    ["ab+c", false, ["a"]],
    ["x{2}yz", false, ["yz"]],
    ["ab{12,34}", false, ["a"]], // a quantifier's digits are not literals
    ["\\u{41}bc", false, ["bc"]],
    ["a{b", false, ["b"]],
    ["\\1abc\\k<n>def", false, ["abc"]],
    ["a\\.b\\(c", false, ["a.b(c"]],
    ["\\x41BC", false, ["BC"]], // the escape's operand is never a literal
    ["\\u0041xyz", false, ["xyz"]],
    ["(?:needle)+ end", false, [" end"]], // groups contribute nothing
    ["(?<=pre)post", false, ["post"]],
    ["[abc]def", false, ["def"]],
    ["^start|end$", false, ["start", "end"]],
    ["foo|(a|b)", false, undefined], // an alternative with no literal
    ["\\d+", false, undefined],
    ["a?", false, undefined],
    ["Needle", true, ["Needle"]],
    ["caf\u00e9s", true, ["caf"]], // case-insensitive: ASCII runs only
    ["caf\u00e9s", false, ["caf\u00e9s"]],
    ["bad\uFFFDbyte", false, ["byte"]],
    ["\uFFFD", false, undefined],
    ["[|]x|y", false, ["x", "y"]], // | inside a class does not split
    ["(a|b)cd|ef", false, ["cd", "ef"]],
  ];
  for (const [source, ci, want] of cases) {
    assert.deepEqual(
      requiredLiterals(source, ci),
      want,
      `${source}${ci ? " (i)" : ""}`,
    );
  }
});

Deno.test("compareWalkOrder: depth first, a directory's files before its subdirectories, names by UTF-16 code units", () => {
  const paths = [
    "z/a.txt",
    "b.txt",
    "a/z.txt",
    "a/b/c.txt",
    "\uFF21.txt", // U+FF21 sorts after a surrogate pair in UTF-16, before it in UTF-8
    "\u{1F600}.txt",
    "B.txt",
    "a-b.txt",
    "a/a/x.txt",
  ];
  assert.deepEqual(paths.sort(compareWalkOrder), [
    "B.txt",
    "a-b.txt",
    "b.txt",
    "\u{1F600}.txt",
    "\uFF21.txt",
    "a/z.txt",
    "a/a/x.txt",
    "a/b/c.txt",
    "z/a.txt",
  ]);
  assert.equal(compareWalkOrder("a/b", "a/b"), 0);
});

const hasRg = await new Deno.Command("rg", { args: ["--version"] }).output()
  .then((o) => o.success, () => false);

/**
 * The fixture tree plus what `rg` must not get wrong, as a walker and as
 * a prefilter: invalid UTF-8 (U+FFFD after decoding), byte-order marks,
 * case variants, a NUL after a match, non-ASCII text, names in UTF-16 and
 * UTF-8 orders that differ, names that are not UTF-8, hidden files and
 * directories, `.ignore`/`.rgignore` files (never read), nested
 * repositories (a `.git` directory or file below the root), anchored,
 * directory and negated `.gitignore` patterns at several depths, links
 * to files and directories inside and outside the root, and enough files
 * for several prefilter batches.
 */
async function makeWideTree(dir: string): Promise<void> {
  await makeTree(dir);
  const root = `${dir}/root`;
  const bytes = (path: string, data: number[]) =>
    Deno.writeFile(`${root}/${path}`, new Uint8Array(data));
  const enc = (s: string) => [...new TextEncoder().encode(s)];
  const files: Record<string, string> = {
    "case.txt": "NeEdLe mixed\nKELVIN \u212a\n",
    "unicode.md": "caf\u00e9 CAF\u00c9 na\u00efve\n",
    "lines.txt": "foo\nbar baz\nfoobar\n",
    ".hidden.ts": "needle in a hidden file\n",
    ".config/settings.ts": "needle in a hidden directory\n",
    ".ignore": "a.ts\nhidden-by-dot-ignore.txt\n",
    ".rgignore": "b.md\n",
    "hidden-by-dot-ignore.txt": "needle: .ignore files are not read\n",
    "order/B.txt": "needle B\n",
    "order/a-b.txt": "needle a-b\n",
    "order/a.txt": "needle a\n",
    "order/\u00e9.txt": "needle e acute\n",
    "order/\uFF21.txt": "needle fullwidth A\n",
    "order/\u{1F600}.txt": "needle emoji\n",
    "order/a/inner.txt": "needle in a/\n",
    "order/new\nline.txt": "needle in a name with a newline\n",
    "ign/.gitignore":
      "/anchored.txt\n**/deepdir/\n*.tmp\n!important.tmp\nspace\\ name.txt\ndir-only/\n",
    "ign/anchored.txt": "needle anchored, ignored\n",
    "ign/x/anchored.txt": "needle anchored elsewhere, kept\n",
    "ign/x/y/deepdir/z.txt": "needle in deepdir, ignored\n",
    "ign/scratch.tmp": "needle tmp, ignored\n",
    "ign/important.tmp": "needle negated, kept\n",
    "ign/space name.txt": "needle escaped space, ignored\n",
    "ign/dir-only": "needle a file named like a directory pattern, kept\n",
    "ign/x/.gitignore": "!scratch.tmp\n",
    "ign/x/scratch.tmp": "needle re-included below, kept\n",
    "nested/.git/HEAD": "needle in nested git metadata\n",
    "nested/x.log": "needle in a nested repository: the outer *.log stops\n",
    "nested/.gitignore": "*.md\n",
    "nested/y.md": "needle ignored by the nested repository\n",
    "nested/deeper/z.log": "needle deeper in the nested repository\n",
    "worktree/.git": "gitdir: needle elsewhere\n",
    "worktree/w.log": "needle in a worktree: the outer *.log stops\n",
  };
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(`${root}/${path.slice(0, path.lastIndexOf("/"))}`, {
      recursive: true,
    });
    await Deno.writeTextFile(`${root}/${path}`, text);
  }
  await bytes("invalid.txt", [...enc("bad"), 0xff, ...enc("byte needle\n")]);
  await bytes("bom8.txt", [0xef, 0xbb, 0xbf, ...enc("needle after a BOM\n")]);
  // A UTF-16 BOM but UTF-8 bytes after it: searched as UTF-8.
  await bytes("bom16.txt", [0xff, 0xfe, ...enc("needle after FF FE\n")]);
  await bytes("late-nul.txt", [...enc("needle first\n"), 0, 1]);
  // Names that are not UTF-8 (a file, and a directory with a file).
  const sh = await new Deno.Command("sh", {
    args: [
      "-c",
      `printf 'needle\\n' > "$(printf 'bad\\377name.txt')" && ` +
      `mkdir "$(printf 'dir\\377')" && printf 'needle\\n' > "$(printf 'dir\\377')/f.txt"`,
    ],
    cwd: root,
  }).output();
  assert.ok(sh.success, new TextDecoder().decode(sh.stderr));
  // Outside any git repository (beside root/): .gitignore still applies.
  await Deno.mkdir(`${dir}/plain/sub`, { recursive: true });
  await Deno.writeTextFile(`${dir}/plain/sub/.gitignore`, "*.skip\n");
  await Deno.writeTextFile(`${dir}/plain/sub/x.skip`, "needle ignored\n");
  await Deno.writeTextFile(`${dir}/plain/sub/x.kept`, "needle kept\n");
  // Links: to a directory and a file inside the root (not followed), and
  // (makeTree) to outside.
  await Deno.symlink(`${root}/sub`, `${root}/sub-link`);
  await Deno.symlink(`${root}/a.ts`, `${root}/a-link.ts`);
  // Long paths (about 2.4 KB): about 55 files fill a batch.
  const many = `${root}/many/${Array(11).fill("d".repeat(200)).join("/")}`;
  await Deno.mkdir(`${many}/deeper`, { recursive: true });
  for (let i = 0; i < 120; i++) {
    await Deno.writeTextFile(
      `${many}/${i % 2 ? "deeper/" : ""}file-${i}.ts`,
      i % 17 === 0 ? `export const needle${i} = ${i};\n` : `const x${i} = 1;\n`,
    );
  }
}

const PATTERNS: Record<string, unknown>[] = [
  { pattern: "needle" },
  { pattern: "needle", case_insensitive: true },
  { pattern: "\\bneedle\\d*\\b" },
  { pattern: "NEEDLE|needle" },
  { pattern: "bad\uFFFDbyte" },
  { pattern: "caf\u00e9", case_insensitive: true },
  { pattern: "CAF\u00c9" },
  { pattern: "kelvin", case_insensitive: true },
  { pattern: "foo\\nbar", multiline: true },
  { pattern: "foo.bar", multiline: true },
  { pattern: "^export const needle\\d+" },
  { pattern: "x\\d+ = 1", limit: 7 },
  { pattern: "needle", glob: "*.ts" },
  { pattern: "needle", type: "py" },
  // What rg's regular expressions cannot take (a lookbehind, a
  // backreference): rg is only ever given the literal, or lists files.
  { pattern: "(?<=in a )hidden" },
  { pattern: "(e)\\1dle" },
  { pattern: "\\d+" }, // no literal: rg lists the files, JavaScript searches
];

const MODES = ["files_with_matches", "content", "count"];
// Every mode for the first patterns, files and content for the rest.
const modesOf = (i: number) => i < 4 ? MODES : MODES.slice(0, 2);

Deno.test({
  name:
    "grep with rg walking (or prefiltering the walk) returns exactly what the JavaScript walk returns (order, ignore rules, links, binaries, names, decoding, limits)",
  ignore: !hasRg,
}, async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    await makeWideTree(dir);
    const root = `${dir}/root`;
    // A wrapper that records each rg run: a walk or a prefilter batch.
    const log = `${dir}/rg.log`;
    const wrapper = `${dir}/rg-wrapper`;
    await Deno.writeTextFile(
      wrapper,
      `#!/bin/sh\nkind=filter\nfor a; do [ "$a" = --no-ignore-parent ] && kind=walk; done\n` +
        `echo $kind >> '${log}'\nexec rg "$@"\n`,
    );
    await Deno.chmod(wrapper, 0o755);
    const runs = async () => {
      const kinds = (await Deno.readTextFile(log).catch(() => "")).split("\n");
      return {
        walk: kinds.filter((k) => k === "walk").length,
        filter: kinds.filter((k) => k === "filter").length,
      };
    };
    const many = `${root}/many`;
    const scenarios = [
      // rg walks the root.
      { roots: [root], cwd: root, path: undefined, via: "walk" },
      // rg walks below the root (no .gitignore between them).
      // rg walks a tree outside any git repository.
      {
        roots: [`${dir}/plain`],
        cwd: `${dir}/plain`,
        path: "sub",
        via: "walk",
      },
      { roots: [many], cwd: many, path: "d".repeat(200), via: "walk" },
      // root/.gitignore lies above the start: the walk, rg prefiltering.
      { roots: [root], cwd: root, path: "many", via: "filter" },
    ];
    for (const [s, scenario] of scenarios.entries()) {
      const input = (
        args: Record<string, unknown>,
        ripgrep?: string,
      ): SearchInput => ({
        roots: scenario.roots,
        args: { ...args, ...(scenario.path ? { path: scenario.path } : {}) },
        workingDirectory: scenario.cwd,
        ...(ripgrep ? { ripgrep } : {}),
      });
      for (const [i, p] of PATTERNS.entries()) {
        if (s > 0 && i % 3 !== 0 && p.pattern !== "\\d+") continue;
        for (const mode of modesOf(i)) {
          const args = {
            ...p,
            output_mode: mode,
            ...(mode === "content" ? { context: 1 } : {}),
          };
          const before = await runs();
          const js: GrepResult = await grepFiles(input(args));
          const rg = await grepFiles(input(args, wrapper));
          const label = `${scenario.via} ${scenario.path ?? ""} ${
            JSON.stringify(args)
          }`;
          assert.deepEqual(rg, js, label);
          const after = await runs();
          const walks = after.walk - before.walk;
          const filters = after.filter - before.filter;
          if (scenario.via === "walk") {
            assert.deepEqual([walks, filters], [1, 0], label);
          } else if (p.pattern === "\\d+") {
            assert.deepEqual([walks, filters], [0, 0], label);
          } else {
            // 120 long paths and more: two batches at least.
            assert.equal(walks, 0, label);
            assert.ok(filters >= 2, `${label}: rg ran ${filters} times`);
          }
        }
      }
    }
    const input = (args: Record<string, unknown>, ripgrep?: string) => ({
      roots: [root],
      args,
      workingDirectory: root,
      ...(ripgrep ? { ripgrep } : {}),
    });
    // The walk's own choices stand, and are those documented.
    const all = await grepFiles(input({ pattern: "needle" }, wrapper));
    const shown = all.content.split("\n");
    for (
      const gone of [
        "app.log", // *.log
        "build/out.ts", // build/
        "sub/generated/g.ts", // nested .gitignore
        ".git/config",
        "nested/.git/HEAD",
        "nested/y.md", // the nested repository's own .gitignore
        "ign/anchored.txt",
        "ign/x/y/deepdir/z.txt",
        "ign/scratch.tmp",
        "ign/space name.txt",
        "link/secret.txt", // a link to a directory outside
        "secret-link.txt", // a link to a file outside
        "sub-link/c.ts", // a link to a directory inside
        "a-link.ts", // a link to a file inside
        "late-nul.txt", // binary
        "bin.dat",
      ]
    ) assert.ok(!shown.includes(gone), `${gone} is not searched`);
    for (
      const kept of [
        "a.ts", // named in .ignore, which is not read
        "b.md".replace("b.md", "keep.log"),
        "hidden-by-dot-ignore.txt",
        ".hidden.ts",
        ".config/settings.ts",
        "invalid.txt",
        "bom16.txt",
        "ign/x/anchored.txt",
        "ign/important.tmp",
        "ign/dir-only",
        "ign/x/scratch.tmp",
        "nested/x.log",
        "nested/deeper/z.log",
        "worktree/.git",
        "worktree/w.log",
      ]
    ) assert.ok(shown.includes(kept), `${kept} is searched`);
    assert.match(all.content, /^order\/new\nline\.txt$/m);
    assert.doesNotMatch(all.content, /bad\uFFFDname|dir\uFFFD/);
    assert.deepEqual(
      shown.filter((l) => l.startsWith("order/") || l === "line.txt"),
      [
        "order/B.txt",
        "order/a-b.txt",
        "order/a.txt",
        "order/new", // "order/new\nline.txt", one line of the content each
        "line.txt",
        "order/\u00e9.txt",
        "order/\u{1F600}.txt",
        "order/\uFF21.txt",
        "order/a/inner.txt",
      ],
    );
    // rg missing or failing: the JavaScript path, same answer.
    const missing = await grepFiles(
      input({ pattern: "needle" }, `${dir}/no-such-rg`),
    );
    assert.deepEqual(missing, await grepFiles(input({ pattern: "needle" })));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name:
    "ripgrepWalk: files in walk order relative to the start, only those holding a literal, none over maxFileBytes; undefined when rg fails",
  ignore: !hasRg,
}, async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.mkdir(`${dir}/b`);
    await Deno.writeTextFile(`${dir}/b/x.txt`, "0123456789"); // 10 bytes
    await Deno.writeTextFile(`${dir}/c.txt`, "0123456789a"); // 11 bytes
    await Deno.writeTextFile(`${dir}/z.txt`, "01");
    assert.deepEqual(
      await ripgrepWalk({ program: "rg", start: dir }),
      ["c.txt", "z.txt", "b/x.txt"],
    );
    assert.deepEqual(
      await ripgrepWalk({ program: "rg", start: dir, maxFileBytes: 10 }),
      ["z.txt", "b/x.txt"],
    );
    assert.deepEqual(
      await ripgrepWalk({ program: "rg", start: dir, literals: ["89"] }),
      ["c.txt", "b/x.txt"],
    );
    assert.deepEqual(
      await ripgrepWalk({ program: "rg", start: dir, literals: ["nowhere"] }),
      [],
    );
    assert.equal(
      await ripgrepWalk({ program: `${dir}/no-such-rg`, start: dir }),
      undefined,
    );
    assert.equal(
      await ripgrepWalk({ program: "rg", start: `${dir}/missing` }),
      undefined,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name:
    "grep skips a file over MAX_FILE_BYTES with rg walking as without it (rg names it, the size of the open handle rules it out), in every mode",
  ignore: !hasRg,
}, async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    const line = new TextEncoder().encode("needle in a large file\n");
    const fill = (size: number) => {
      const data = new Uint8Array(size).fill(0x61); // "a", no line break
      data.set(line, 0);
      data[size - 1] = 0x0a;
      return data;
    };
    await Deno.writeFile(`${dir}/at-limit.txt`, fill(MAX_FILE_BYTES));
    await Deno.writeFile(`${dir}/over-limit.txt`, fill(MAX_FILE_BYTES + 1));
    await Deno.writeTextFile(`${dir}/small.txt`, "a needle\n");
    for (
      const mode of ["files_with_matches", "content", "count"] as const
    ) {
      const input = (ripgrep?: string): SearchInput => ({
        roots: [dir],
        args: { pattern: "needle", output_mode: mode },
        workingDirectory: dir,
        ...(ripgrep ? { ripgrep } : {}),
      });
      const js = await grepFiles(input());
      assert.equal(js.files, 2, mode);
      assert.doesNotMatch(js.content, /over-limit/, mode);
      assert.match(js.content, /at-limit\.txt/, mode);
      assert.deepEqual(await grepFiles(input("rg")), js, mode);
    }
    // rg itself names the large file: only the plugin's bound leaves it out.
    assert.deepEqual(
      await ripgrepWalk({ program: "rg", start: dir, literals: ["needle"] }),
      ["at-limit.txt", "over-limit.txt", "small.txt"],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
