import assert from "node:assert/strict";
import * as posix from "node:path/posix";
import {
  basename,
  dirname,
  isAbsolute,
  join,
  normalize,
  relative,
  resolve,
} from "./_posix_path.ts";

const PATHS = [
  "",
  ".",
  "..",
  "/",
  "//",
  "/a",
  "/a/",
  "/a//b/",
  "a",
  "a/",
  "a/b/../c",
  "../a/./b",
  "../../x",
  "/../a",
  "/a/b/../../..",
  "a/..",
  "./a/.",
  "/x/y/z",
  "/x/y/z/",
  "x//y",
];

Deno.test("_posix_path agrees with node:path/posix on every case", async (t) => {
  await t.step("normalize, isAbsolute, dirname, basename", () => {
    for (const p of PATHS) {
      assert.equal(normalize(p), posix.normalize(p), `normalize(${p})`);
      assert.equal(isAbsolute(p), posix.isAbsolute(p), `isAbsolute(${p})`);
      assert.equal(dirname(p), posix.dirname(p), `dirname(${p})`);
      assert.equal(basename(p), posix.basename(p), `basename(${p})`);
    }
  });
  await t.step("join, resolve, relative over pairs", () => {
    for (const a of PATHS) {
      for (const b of PATHS) {
        assert.equal(join(a, b), posix.join(a, b), `join(${a}, ${b})`);
        assert.equal(resolve(a, b), posix.resolve(a, b), `resolve(${a}, ${b})`);
        assert.equal(
          relative(a, b),
          posix.relative(a, b),
          `relative(${a}, ${b})`,
        );
      }
    }
    assert.equal(
      join("/a", "b", "../c", "d"),
      posix.join("/a", "b", "../c", "d"),
    );
    assert.equal(join(), posix.join());
    assert.equal(resolve(), posix.resolve());
    assert.equal(
      resolve("/a", "b", "/c", "d"),
      posix.resolve("/a", "b", "/c", "d"),
    );
  });
});
