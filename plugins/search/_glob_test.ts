import assert from "node:assert/strict";
import { compileGlob, GlobError, globMatches } from "./_glob.ts";

function matching(pattern: string, paths: string[], byName = false): string[] {
  const g = compileGlob(pattern);
  return paths.filter((p) => globMatches(g, p, byName));
}

const PATHS = [
  "a.ts",
  "a.tsx",
  "b.js",
  ".hidden.ts",
  "src/x.ts",
  "src/deep/y.ts",
  "src/deep/z.md",
  "lib/src/w.ts",
  "test_1.js",
  "tests/test_2.ts",
];

Deno.test("compileGlob(): * and ? stay within a directory; ** spans any depth", () => {
  assert.deepEqual(matching("*.ts", PATHS), ["a.ts", ".hidden.ts"]);
  assert.deepEqual(matching("**/*.ts", PATHS), [
    "a.ts",
    ".hidden.ts",
    "src/x.ts",
    "src/deep/y.ts",
    "lib/src/w.ts",
    "tests/test_2.ts",
  ]);
  assert.deepEqual(matching("src/**/*.ts", PATHS), [
    "src/x.ts",
    "src/deep/y.ts",
  ]);
  assert.deepEqual(matching("src/**", PATHS), [
    "src/x.ts",
    "src/deep/y.ts",
    "src/deep/z.md",
  ]);
  assert.deepEqual(matching("?.js", PATHS), ["b.js"]);
  assert.deepEqual(matching("**", PATHS), PATHS);
  assert.deepEqual(matching("./src/*.ts", PATHS), ["src/x.ts"]);
});

Deno.test("compileGlob(): classes, braces and escapes", () => {
  assert.deepEqual(matching("*.{ts,tsx}", PATHS), [
    "a.ts",
    "a.tsx",
    ".hidden.ts",
  ]);
  assert.deepEqual(matching("**/test_[0-9].{js,ts}", PATHS), [
    "test_1.js",
    "tests/test_2.ts",
  ]);
  assert.deepEqual(matching("[!a]*.ts", PATHS), [".hidden.ts"]);
  assert.deepEqual(matching("[^.]*.ts", PATHS), ["a.ts"]);
  assert.ok(globMatches(compileGlob("a\\*b"), "a*b"));
  assert.ok(!globMatches(compileGlob("a\\*b"), "axb"));
  assert.ok(
    globMatches(compileGlob("a+(b).txt"), "a+(b).txt"),
    "regex characters are literal",
  );
});

Deno.test("compileGlob(): a pattern without a slash filters by name when asked", () => {
  assert.deepEqual(matching("*.ts", PATHS, true), [
    "a.ts",
    ".hidden.ts",
    "src/x.ts",
    "src/deep/y.ts",
    "lib/src/w.ts",
    "tests/test_2.ts",
  ]);
  assert.deepEqual(matching("src/*.ts", PATHS, true), ["src/x.ts"]);
});

Deno.test("compileGlob(): the literal base and the depth bound the walk", () => {
  assert.deepEqual(
    [compileGlob("src/deep/*.ts").base, compileGlob("src/deep/*.ts").depth],
    ["src/deep", 1],
  );
  assert.deepEqual(
    [compileGlob("src/**/*.ts").base, compileGlob("src/**/*.ts").depth],
    ["src", Infinity],
  );
  assert.deepEqual([compileGlob("*/*.ts").base, compileGlob("*/*.ts").depth], [
    "",
    2,
  ]);
  assert.deepEqual([compileGlob("a.ts").base, compileGlob("a.ts").depth], [
    "",
    1,
  ]);
});

Deno.test("compileGlob(): malformed patterns are refused with the pattern named", () => {
  for (
    const [pattern, message] of [
      ["", /"": it is empty/],
      ["/etc/*", /"\/etc\/\*": it must be relative/],
      ["../*.ts", /"\.\.\/\*\.ts": "\.\." is not allowed/],
      [
        "src/[ab",
        /"src\/\[ab": the class starting at "\[ab" has no closing "\]"/,
      ],
      ["*.{ts,js", /"\*\.\{ts,js": "\{" has no closing "\}"/],
      ["{a,{b,c}}", /braces cannot be nested/],
      ["a\\", /ends with a lone backslash/],
    ] as const
  ) {
    assert.throws(
      () => compileGlob(pattern),
      (e: unknown) => e instanceof GlobError && message.test(e.message),
      pattern,
    );
  }
});
