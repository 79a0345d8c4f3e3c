import assert from "node:assert/strict";
import { requiredLiterals } from "./_ripgrep.ts";
import { grepFiles, type GrepResult, type SearchInput } from "./_search.ts";
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

const hasRg = await new Deno.Command("rg", { args: ["--version"] }).output()
  .then((o) => o.success, () => false);

/**
 * The fixture tree plus what the prefilter must not get wrong: invalid
 * UTF-8 (U+FFFD after decoding), byte-order marks, case variants, a NUL
 * after a match, non-ASCII text, and enough files for several `rg`
 * batches.
 */
async function makeWideTree(dir: string): Promise<void> {
  await makeTree(dir);
  const root = `${dir}/root`;
  const bytes = (path: string, data: number[]) =>
    Deno.writeFile(`${root}/${path}`, new Uint8Array(data));
  const enc = (s: string) => [...new TextEncoder().encode(s)];
  await bytes("invalid.txt", [...enc("bad"), 0xff, ...enc("byte needle\n")]);
  await bytes("bom8.txt", [0xef, 0xbb, 0xbf, ...enc("needle after a BOM\n")]);
  // A UTF-16 BOM but UTF-8 bytes after it: searched as UTF-8.
  await bytes("bom16.txt", [0xff, 0xfe, ...enc("needle after FF FE\n")]);
  await bytes("late-nul.txt", [...enc("needle first\n"), 0, 1]);
  await Deno.writeTextFile(`${root}/case.txt`, "NeEdLe mixed\nKELVIN \u212a\n");
  await Deno.writeTextFile(
    `${root}/unicode.md`,
    "caf\u00e9 CAF\u00c9 na\u00efve\n",
  );
  await Deno.writeTextFile(`${root}/lines.txt`, "foo\nbar baz\nfoobar\n");
  // Long paths (about 250 bytes): about 500 files fill a batch.
  const many = `${root}/many/${"d".repeat(180)}`;
  await Deno.mkdir(`${many}/deeper`, { recursive: true });
  for (let i = 0; i < 700; i++) {
    await Deno.writeTextFile(
      `${many}/${i % 2 ? "deeper/" : ""}file-${i}.ts`,
      i % 97 === 0 ? `export const needle${i} = ${i};\n` : `const x${i} = 1;\n`,
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
  { pattern: "\\d+" }, // no literal: the JavaScript path alone
];

const MODES = ["files_with_matches", "content", "count"];
// Every mode for the first patterns, files and content for the rest.
const modesOf = (i: number) => i < 4 ? MODES : MODES.slice(0, 2);

Deno.test({
  name:
    "grep with the ripgrep prefilter returns exactly what the JavaScript walk returns (order, ignore rules, binaries, decoding, limits)",
  ignore: !hasRg,
}, async () => {
  const dir = await Deno.makeTempDir();
  try {
    await makeWideTree(dir);
    const root = `${dir}/root`;
    // A wrapper that records each rg run, to show the prefilter ran.
    const log = `${dir}/rg.log`;
    const wrapper = `${dir}/rg-wrapper`;
    await Deno.writeTextFile(
      wrapper,
      `#!/bin/sh\necho run >> '${log}'\nexec rg "$@"\n`,
    );
    await Deno.chmod(wrapper, 0o755);
    const input = (
      args: Record<string, unknown>,
      ripgrep?: string,
    ): SearchInput => ({
      roots: [root],
      args,
      workingDirectory: root,
      ...(ripgrep ? { ripgrep } : {}),
    });
    const runs = async () =>
      (await Deno.readTextFile(log).catch(() => "")).split("\n").length - 1;
    for (const [i, p] of PATTERNS.entries()) {
      for (const mode of modesOf(i)) {
        const args = {
          ...p,
          output_mode: mode,
          ...(mode === "content" ? { context: 1 } : {}),
        };
        const before = await runs();
        const js: GrepResult = await grepFiles(input(args));
        const rg = await grepFiles(input(args, wrapper));
        const label = JSON.stringify(args);
        assert.deepEqual(rg, js, label);
        const ran = (await runs()) - before;
        if (p.pattern === "\\d+") assert.equal(ran, 0, label);
        // Without a file filter, 700 long paths and more: two batches at least.
        else if (p.glob || p.type) assert.ok(ran >= 1, label);
        else assert.ok(ran >= 2, `${label}: rg ran ${ran} times`);
      }
    }
    // The walk's own choices stand: nothing ignored, in .git or behind a
    // link is ever reported, and the searched files are the walk's.
    const all = await grepFiles(input({ pattern: "needle" }, wrapper));
    assert.doesNotMatch(all.content, /app\.log|\.git\/|build\/|generated|link/);
    assert.match(all.content, /invalid\.txt/);
    assert.match(all.content, /bom16\.txt/);
    assert.doesNotMatch(all.content, /late-nul\.txt|bin\.dat/);
    // rg missing or failing: the JavaScript path, same answer.
    const missing = await grepFiles(
      input({ pattern: "needle" }, `${dir}/no-such-rg`),
    );
    assert.deepEqual(missing, await grepFiles(input({ pattern: "needle" })));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
