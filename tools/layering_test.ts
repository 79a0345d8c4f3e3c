import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import {
  checkLayering,
  formatProblem,
  LAYER_RULES,
  main,
  type Problem,
  readLocalImports,
} from "./layering.ts";

/** Writes `files` (path → text) under a new temporary directory. */
async function fixture(files: Record<string, string>): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "layering_test_" });
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(dirname(join(root, path)), { recursive: true });
    await Deno.writeTextFile(join(root, path), text);
  }
  return root;
}

const CONFIG_CYCLE = "folder cycle: config/ → kernel/ → config/";
const KERNEL_CYCLE = "folder cycle: kernel/ → config/ → kernel/";
const CONFIG_RULE = "config/ may import only config/, contract/, proto/";
const KERNEL_RULE =
  "kernel/ may import only kernel/, config/, contract/, proto/";
const PLUGIN_RULE =
  "plugins/*/ may import only its own folder, plugins/sdk/, contract/, proto/";

const VIOLATING_TREE: Record<string, string> = {
  "deno.json": JSON.stringify({
    imports: { "semver": "npm:semver@7.8.6" },
    publish: { exclude: ["config/_worker.ts"] },
  }),
  // Line 3: a static import; line 4: a type-only import; line 6: a dynamic
  // import with a literal specifier; line 7: one the graph cannot see.
  "config/a.ts": [
    'import { join } from "node:path";',
    'import semver from "semver";',
    'import { b } from "../kernel/b.ts";',
    'import type { Tool } from "../plugins/sdk/types.ts";',
    "export const a: number = b + join().length + (semver ? 1 : 0);",
    'export const lazy = () => import("../cli/run.ts");',
    'export const hidden = (p: string) => import(p + ".ts");',
    "export type T = Tool;",
    "",
  ].join("\n"),
  // A second import of the same folder edge: a direction problem of its
  // own, but the cycle shows only the first import of an edge.
  "config/a2.ts": 'export { b } from "../kernel/b.ts";\n',
  "config/c.ts": "export const c = 1;\n",
  "kernel/b.ts": [
    'import { c } from "../config/c.ts";',
    'import type { Tool } from "../plugins/sdk/types.ts";',
    "export const b: number = c;",
    "export type K = Tool;",
    "",
  ].join("\n"),
  "plugins/sdk/types.ts": "export type Tool = { name: string };\n",
  "plugins/x/main.ts": 'import { z } from "../y/z.ts";\nconsole.log(z);\n',
  "plugins/y/z.ts": "export const z = 1;\n",
  "cli/run.ts": "export const run = 1;\n",
  // Not checked: tests, helpers, testdata, unlisted folders, and what
  // deno.json excludes from publishing.
  "config/a_test.ts": 'import "../cli/run.ts";\n',
  "config/x_bench.ts": 'import "../cli/run.ts";\n',
  "config/_testing.ts": 'import "../cli/run.ts";\n',
  "config/testdata/t.ts": 'import "../../cli/run.ts";\n',
  "config/_worker.ts": 'import "../cli/run.ts";\n',
  "tools/t.ts": 'import "../cli/run.ts";\n',
};

Deno.test("checkLayering() reports forbidden directions and each edge of a folder cycle with file:line:col", async () => {
  const root = await fixture(VIOLATING_TREE);
  try {
    const problems = await checkLayering(root, LAYER_RULES);
    assert.deepEqual(problems.map(formatProblem), [
      `config/a.ts:3:19: config/ must not import kernel/ (${CONFIG_CYCLE})`,
      `config/a.ts:3:19: config/ must not import kernel/ (${CONFIG_RULE})`,
      `config/a.ts:4:27: config/ must not import plugins/sdk/ (${CONFIG_RULE})`,
      `config/a.ts:6:34: config/ must not import cli/ (${CONFIG_RULE})`,
      `config/a2.ts:1:19: config/ must not import kernel/ (${CONFIG_RULE})`,
      `kernel/b.ts:1:19: kernel/ must not import config/ (${KERNEL_CYCLE})`,
      `kernel/b.ts:2:27: kernel/ must not import plugins/sdk/ (${KERNEL_RULE})`,
      `plugins/x/main.ts:1:19: plugins/x/ must not import plugins/y/ (${PLUGIN_RULE})`,
    ]);
    const first: Problem = problems[0];
    assert.deepEqual(first, {
      kind: "cycle",
      file: "config/a.ts",
      line: 3,
      col: 19,
      specifier: "../kernel/b.ts",
      imported: "kernel/b.ts",
      importerFolder: "config/",
      importedFolder: "kernel/",
      rule: CONFIG_CYCLE,
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("readLocalImports() lists every local import of the checked modules, type-only and dynamic ones included", async () => {
  const root = await fixture(VIOLATING_TREE);
  try {
    const imports = await readLocalImports(root);
    assert.deepEqual(
      imports.map((i) => `${i.file}:${i.line}:${i.col} ${i.imported}`),
      [
        "config/a.ts:3:19 kernel/b.ts",
        "config/a.ts:4:27 plugins/sdk/types.ts",
        "config/a.ts:6:34 cli/run.ts",
        "config/a2.ts:1:19 kernel/b.ts",
        "kernel/b.ts:1:19 config/c.ts",
        "kernel/b.ts:2:27 plugins/sdk/types.ts",
        "plugins/x/main.ts:1:19 plugins/y/z.ts",
      ],
    );
    assert.equal(imports[1].specifier, "../plugins/sdk/types.ts");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("checkLayering() finds nothing in a tree that keeps the layering", async () => {
  const root = await fixture({
    "deno.json": "{}",
    "mod.ts": [
      'export * from "./cli/c.ts";',
      'export * from "./plugins/x/main.ts";',
      'export * from "./tools/t.ts";',
      "",
    ].join("\n"),
    "main.ts": 'import "./cli/c.ts";\n',
    "proto/p.ts": "export const p = 1;\n",
    "proto/gen/g.ts": 'export { p } from "../p.ts";\n',
    "contract/m.ts": 'export { p as m } from "../proto/gen/g.ts";\n',
    "config/a.ts": [
      'export { m } from "../contract/m.ts";',
      'export { h } from "./hcl/h.ts";',
      "",
    ].join("\n"),
    "config/hcl/h.ts": 'export { p as h } from "../../proto/p.ts";\n',
    "plugins/sdk/s.ts": 'export { m as s } from "../../contract/m.ts";\n',
    "plugins/builtin.ts": 'export { s as builtin } from "./sdk/s.ts";\n',
    "plugins/x/main.ts": [
      'export { s } from "../sdk/s.ts";',
      'export { y } from "./sub/y.ts";',
      "",
    ].join("\n"),
    "plugins/x/sub/y.ts": "export const y = 1;\n",
    "kernel/k.ts": [
      'export { a } from "../config/a.ts";',
      'export type { m } from "../contract/m.ts";',
      'export const agent = () => import("./agent/s.ts");',
      "",
    ].join("\n"),
    "kernel/agent/s.ts": 'export { p } from "../../proto/p.ts";\n',
    "cli/c.ts": [
      'export { k } from "../kernel/k.ts";',
      'export { builtin } from "../plugins/builtin.ts";',
      "",
    ].join("\n"),
    "tools/t.ts": 'export { k as t } from "../kernel/k.ts";\n',
  });
  try {
    assert.deepEqual(await checkLayering(root), []);
    // The same tree with one forbidden import fails on exactly that import.
    await Deno.writeTextFile(
      join(root, "plugins/x/sub/y.ts"),
      'export const y = 1;\nexport { k } from "../../../kernel/k.ts";\n',
    );
    assert.deepEqual((await checkLayering(root)).map(formatProblem), [
      `plugins/x/sub/y.ts:2:19: plugins/x/sub/ must not import kernel/ (${PLUGIN_RULE})`,
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("LAYER_RULES allows exactly the directions of the target layout", async () => {
  // Each layer's file imports one file in every other layer; the direction
  // problems must be exactly the pairs the layout forbids.
  const layers: Record<string, string> = {
    "proto/": "proto/p.ts",
    "contract/": "contract/c.ts",
    "config/": "config/f.ts",
    "config/hcl/": "config/hcl/h.ts",
    "plugins/sdk/": "plugins/sdk/s.ts",
    "plugins/builtin.ts": "plugins/builtin.ts",
    "plugins/x/": "plugins/x/x.ts",
    "plugins/y/": "plugins/y/y.ts",
    "kernel/": "kernel/k.ts",
    "kernel/agent/": "kernel/agent/a.ts",
    "cli/": "cli/l.ts",
    "tools/": "tools/t.ts",
    "mod.ts": "mod.ts",
  };
  const allowed: Record<string, string[]> = {
    "proto/": [],
    "contract/": ["proto/"],
    "config/": ["contract/", "proto/", "config/hcl/"],
    "config/hcl/": ["contract/", "proto/", "config/"],
    "plugins/sdk/": ["contract/", "proto/"],
    "plugins/builtin.ts": ["plugins/sdk/", "contract/", "proto/"],
    "plugins/x/": ["plugins/sdk/", "contract/", "proto/"],
    "plugins/y/": ["plugins/sdk/", "contract/", "proto/"],
    "kernel/": [
      "config/",
      "config/hcl/",
      "contract/",
      "proto/",
      "kernel/agent/",
    ],
    "kernel/agent/": [
      "config/",
      "config/hcl/",
      "contract/",
      "proto/",
      "kernel/",
    ],
    "cli/": [
      "kernel/",
      "kernel/agent/",
      "config/",
      "config/hcl/",
      "contract/",
      "proto/",
      "plugins/builtin.ts",
    ],
  };
  const files: Record<string, string> = { "deno.json": "{}" };
  for (const [layer, file] of Object.entries(layers)) {
    const up = "../".repeat(file.split("/").length - 1) || "./";
    files[file] = Object.entries(layers)
      .filter(([other]) => other !== layer)
      .map(([, target]) => `import "${up}${target}";\n`).join("");
  }
  const expected: string[] = [];
  for (const [layer, file] of Object.entries(layers)) {
    if (!(layer in allowed)) continue; // tools/ is not checked, mod.ts may import anything
    for (const [other, target] of Object.entries(layers)) {
      if (other !== layer && !allowed[layer].includes(other)) {
        expected.push(`${file} → ${target}`);
      }
    }
  }
  const root = await fixture(files);
  try {
    const problems = await checkLayering(root);
    const got = problems.filter((p) => p.kind === "direction")
      .map((p) => `${p.file} → ${p.imported}`);
    assert.deepEqual(got.sort(), expected.sort());
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("checkLayering() reports a cycle among subfolders of one layer once per edge", async () => {
  const root = await fixture({
    "deno.json": "{}",
    "config/mod.ts": 'export { h } from "./hcl/h.ts";\n',
    "config/diagnostic.ts": "export const d = 1;\n",
    "config/hcl/h.ts": 'export { d as h } from "../diagnostic.ts";\n',
    "config/hcl/more.ts": 'export { d } from "../diagnostic.ts";\n',
  });
  try {
    assert.deepEqual((await checkLayering(root)).map(formatProblem), [
      "config/hcl/h.ts:1:24: config/hcl/ must not import config/ (folder cycle: config/hcl/ → config/ → config/hcl/)",
      "config/mod.ts:1:19: config/ must not import config/hcl/ (folder cycle: config/ → config/hcl/ → config/)",
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("checkLayering() names the import it cannot follow", async (t) => {
  const cases: [string, string, RegExp][] = [
    [
      "a missing file",
      'import "./missing.ts";\n',
      /^Cannot load module "config\/missing\.ts" imported at config\/a\.ts:1:8: /,
    ],
    [
      "a bare specifier outside the import map",
      'import "nope";\n',
      /^Cannot resolve "nope" at config\/a\.ts:1:8: /,
    ],
    [
      "a module that does not parse",
      "export const = ;\n",
      /^Cannot load module "config\/a\.ts": SyntaxError/,
    ],
  ];
  for (const [name, text, message] of cases) {
    await t.step(name, async () => {
      const root = await fixture({ "deno.json": "{}", "config/a.ts": text });
      try {
        await assert.rejects(() => checkLayering(root), { message });
      } finally {
        await Deno.remove(root, { recursive: true });
      }
    });
  }
});

Deno.test("main() prints one line per problem and exits 1, or 2 on a usage error", async () => {
  const root = await fixture(VIOLATING_TREE);
  try {
    let out = "";
    let err = "";
    const io = {
      stdout: (t: string) => (out += t),
      stderr: (t: string) => (err += t),
    };
    assert.equal(await main([root], io), 1);
    assert.equal(out.split("\n").filter((l) => l !== "").length, 8);
    assert.match(out, /^config\/a\.ts:3:19: config\/ must not import kernel\//);
    assert.match(err, /8 layering problems/);

    err = "";
    assert.equal(await main([join(root, "nope")], io), 1);
    assert.match(err, /^error: Cannot check ".*nope": no such directory\n$/);

    err = "";
    assert.equal(await main(["--bogus"], io), 2);
    assert.match(err, /^Usage: /);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
