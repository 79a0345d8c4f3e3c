import assert from "node:assert/strict";
import { ToolFailure } from "../sdk/tool_failure.ts";
import { globFiles, grepFiles, type SearchInput } from "./_search.ts";
import { makeTree } from "./_testing.ts";

async function withTree(fn: (root: string) => Promise<void>): Promise<void> {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-search-unit-" }),
  );
  try {
    await makeTree(dir);
    await fn(`${dir}/root`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function input(root: string, args: Record<string, unknown>): SearchInput {
  return { roots: [root], args, workingDirectory: root };
}

const fails = (kind: ToolFailure["kind"], pattern: RegExp) => (e: unknown) =>
  e instanceof ToolFailure && e.kind === kind && pattern.test(e.message);

Deno.test("grep: matching files in walk order, respecting nested .gitignore files, skipping .git, binaries and links", async () => {
  await withTree(async (root) => {
    const r = await grepFiles(input(root, { pattern: "needle" }));
    assert.equal(
      r.content,
      ["a.ts", "keep.log", "sub/c.ts", "sub/debug.log", "sub/deep/d.py"].join(
        "\n",
      ),
    );
    assert.deepEqual([r.files, r.shown, r.truncated], [5, 5, false]);
  });
});

Deno.test("grep: content mode with line numbers, context and group separators", async () => {
  await withTree(async (root) => {
    const r = await grepFiles(input(root, {
      pattern: "needle",
      path: "sub/c.ts",
      output_mode: "content",
      context: 1,
    }));
    assert.equal(
      r.content,
      [
        "sub/c.ts-1-start",
        "sub/c.ts:2:alpha needle",
        "sub/c.ts-3-beta",
        "--",
        "sub/c.ts-5-delta",
        "sub/c.ts:6:epsilon needle",
        "sub/c.ts-7-end",
      ].join("\n"),
    );
    assert.equal(r.matches, 2);
    const plain = await grepFiles(input(root, {
      pattern: "needle",
      path: "a.ts",
      output_mode: "content",
      case_insensitive: true,
      after: 1,
    }));
    assert.equal(
      plain.content,
      "a.ts:2:needle here\na.ts-3-three\n--\na.ts:7:NEEDLE loud",
    );
  });
});

Deno.test("grep: count mode, glob and type filters", async () => {
  await withTree(async (root) => {
    const count = await grepFiles(input(root, {
      pattern: "needle",
      output_mode: "count",
      glob: "*.ts",
    }));
    assert.equal(count.content, "a.ts:1\nsub/c.ts:2");
    assert.deepEqual([count.files, count.matches], [2, 3]);
    const py = await grepFiles(input(root, { pattern: "needle", type: "py" }));
    assert.equal(py.content, "sub/deep/d.py");
    const sub = await grepFiles(input(root, {
      pattern: "needle",
      glob: "sub/**/*.{ts,log}",
    }));
    assert.equal(sub.content, "sub/c.ts\nsub/debug.log");
  });
});

Deno.test("grep: multiline lets a match span lines; otherwise it never does", async () => {
  await withTree(async (root) => {
    const across = { pattern: "alpha needle\\nbeta", path: "sub" };
    assert.equal((await grepFiles(input(root, across))).files, 0);
    const r = await grepFiles(input(root, {
      ...across,
      multiline: true,
      output_mode: "content",
    }));
    assert.equal(r.content, "sub/c.ts:2:alpha needle\nsub/c.ts:3:beta");
    const dot = await grepFiles(input(root, {
      pattern: "start.*end",
      multiline: true,
      output_mode: "count",
    }));
    assert.equal(dot.content, "sub/c.ts:7");
  });
});

Deno.test("grep: bounded output with a marker naming what was left out", async () => {
  await withTree(async (root) => {
    const files = await grepFiles(input(root, { pattern: "needle", limit: 2 }));
    assert.equal(
      files.content,
      'a.ts\nkeep.log\n[truncated: 3 more files not shown (5 files matched); narrow the pattern, "path", "glob" or "type", or raise "limit"]',
    );
    assert.deepEqual([files.shown, files.truncated], [2, true]);
    const lines = await grepFiles(input(root, {
      pattern: "needle",
      output_mode: "content",
      limit: 3,
    }));
    assert.equal(
      lines.content,
      [
        "a.ts:2:needle here",
        "keep.log:1:needle in a kept log",
        "sub/c.ts:2:alpha needle",
        '[truncated: 3 more matching lines (2 more files) not shown (5 files matched, 6 lines); narrow the pattern, "path", "glob" or "type", or raise "limit"]',
      ].join("\n"),
    );
  });
});

Deno.test("grep and glob refuse paths outside the roots, symbolic link escapes and bad arguments", async () => {
  await withTree(async (root) => {
    await assert.rejects(
      grepFiles(input(root, { pattern: "needle", path: "../outside" })),
      fails("permission_denied", /outside the allowed roots/),
    );
    await assert.rejects(
      grepFiles(input(root, { pattern: "needle", path: "link" })),
      fails("permission_denied", /through a symbolic link it resolves to/),
    );
    await assert.rejects(
      globFiles(input(root, { pattern: "*", path: "secret-link.txt" })),
      fails("permission_denied", /through a symbolic link/),
    );
    await assert.rejects(
      grepFiles(input(root, { pattern: "(" })),
      fails("invalid_arguments", /not a valid JavaScript regular expression/),
    );
    await assert.rejects(
      grepFiles(input(root, { pattern: "x", type: "cobol" })),
      fails(
        "invalid_arguments",
        /"type" "cobol" is unknown; known types: c, cpp/,
      ),
    );
    await assert.rejects(
      grepFiles(input(root, { pattern: "x", context: 2 })),
      fails("invalid_arguments", /need "output_mode": "content"/),
    );
    await assert.rejects(
      grepFiles(input(root, { pattern: "x", limit: 0, colour: true })),
      fails("invalid_arguments", /unknown argument "colour"/),
    );
    await assert.rejects(
      globFiles(input(root, { pattern: "*", path: "nope" })),
      fails("not_found", /does not exist/),
    );
    await assert.rejects(
      globFiles(input(root, { pattern: "*", path: "a.ts" })),
      fails("invalid_arguments", /"path" must be a directory/),
    );
    await assert.rejects(
      globFiles(input(root, { pattern: "src/[x" })),
      fails("invalid_arguments", /"pattern": Invalid glob/),
    );
  });
});

Deno.test("glob: sorted by path, respecting .gitignore, bounded with a marker", async () => {
  await withTree(async (root) => {
    const ts = await globFiles(input(root, { pattern: "**/*.ts" }));
    assert.equal(ts.content, "a.ts\nsub/c.ts");
    const all = await globFiles(input(root, { pattern: "**" }));
    assert.equal(
      all.content,
      [
        ".gitignore",
        "a.ts",
        "b.md",
        "bin.dat",
        "keep.log",
        "sub/.gitignore",
        "sub/c.ts",
        "sub/debug.log",
        "sub/deep/d.py",
      ].join("\n"),
    );
    const top = await globFiles(input(root, { pattern: "*", limit: 2 }));
    assert.equal(
      top.content,
      '.gitignore\na.ts\n[truncated: 3 more files not shown (5 matched); narrow the pattern or the path, or raise "limit"]',
    );
    assert.deepEqual([top.shown, top.total, top.truncated], [2, 5, true]);
    const under = await globFiles(
      input(root, { pattern: "deep/*", path: "sub" }),
    );
    assert.equal(under.content, "sub/deep/d.py");
    // An ignored directory named explicitly is searched.
    const build = await globFiles(input(root, { pattern: "*", path: "build" }));
    assert.equal(build.content, "build/out.ts");
  });
});

Deno.test("glob: sort=modified puts the newest first", async () => {
  await withTree(async (root) => {
    const old = new Date(Date.now() - 3600_000);
    for (const f of ["a.ts", "sub/c.ts"]) {
      await Deno.utime(`${root}/${f}`, old, old);
    }
    await Deno.utime(`${root}/sub/c.ts`, new Date(), new Date());
    const r = await globFiles(
      input(root, { pattern: "**/*.ts", sort: "modified" }),
    );
    assert.equal(r.content, "sub/c.ts\na.ts");
  });
});

Deno.test("grep and glob stop with a cancelled failure when their call is cancelled", async () => {
  await withTree(async (root) => {
    await assert.rejects(
      grepFiles({
        ...input(root, { pattern: "needle" }),
        signal: AbortSignal.abort(),
      }),
      fails("cancelled", /Cancelled/),
    );
    await assert.rejects(
      globFiles({
        ...input(root, { pattern: "**" }),
        signal: AbortSignal.abort(),
      }),
      fails("cancelled", /Cancelled/),
    );
  });
});
