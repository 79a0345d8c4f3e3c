/**
 * `filesystem.multi_edit` through a real plugin subprocess: several files
 * changed at once, a Preview with one diff section per file, and the
 * all-or-nothing apply under failure (a file changed since the preview, a
 * target Deno's sandbox keeps read only, an edit that cannot apply, paths
 * outside the roots or escaping through a symbolic link).
 */
import assert from "node:assert/strict";
import type { JsonObject } from "@bufbuild/protobuf";
import { type Plugin, PluginHost } from "../kernel/mod.ts";
import { Code, GrpcStatusError } from "../proto/grpc_status.ts";
import type {
  RenderNode,
  RenderTree,
} from "../proto/gen/pluggableharness/render/v1/types_pb.ts";
import { ToolErrorCategory } from "../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import { ToolService } from "../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import { parseManifest, readManifest } from "../plugins/sdk/mod.ts";
import { PATH, REPO } from "./_helpers.ts";

const ENTRY = `${REPO}/plugins/filesystem/main.ts`;

const clientOf = (p: Plugin) => p.client(ToolService);
type Client = ReturnType<typeof clientOf>;

async function invoke(
  tool: Client,
  cwd: string,
  id: string,
  args: JsonObject,
): Promise<
  { ok: true; payload: JsonObject } | {
    ok: false;
    category: ToolErrorCategory;
    message: string;
  }
> {
  const events = [];
  for await (
    const r of tool.invoke({
      call: {
        id,
        toolName: "multi_edit",
        arguments: args,
        callContext: {
          sessionId: "01S",
          turnId: "01T",
          workingDirectory: cwd,
        },
      },
    })
  ) events.push(r.event!);
  assert.equal(events.length, 1, "one terminal event");
  const e = events[0]!.event;
  if (e.case === "result") return { ok: true, payload: e.value.payload ?? {} };
  assert.equal(e.case, "error");
  return { ok: false, category: e.value.category, message: e.value.message };
}

async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const visit = async (d: string, prefix: string) => {
    for await (const e of Deno.readDir(d)) {
      if (e.isDirectory) await visit(`${d}/${e.name}`, `${prefix}${e.name}/`);
      else if (e.isFile) {
        out[`${prefix}${e.name}`] = await Deno.readTextFile(`${d}/${e.name}`);
      } else out[`${prefix}${e.name}`] = "<link>";
    }
  };
  await visit(dir, "");
  return out;
}

function sections(tree: RenderTree | undefined): {
  summary: string;
  files: { summary: string; added: string[]; removed: string[] }[];
} {
  const root = tree?.root?.node;
  assert.equal(root?.case, "group");
  const [head, ...rest] = root.value.children;
  assert.equal(head?.node.case, "text");
  return {
    summary: head.node.value.content,
    files: rest.map((n: RenderNode) => {
      assert.equal(n.node.case, "collapsible");
      const diff = n.node.value.children[0]?.node;
      assert.equal(diff?.case, "diff");
      const lines = diff.value.hunks.flatMap((h) => h.lines);
      return {
        summary: n.node.value.summary,
        added: lines.filter((l) => l.op === 2).map((l) => l.text),
        removed: lines.filter((l) => l.op === 3).map((l) => l.text),
      };
    }),
  };
}

const FILES = {
  "src/a.ts": "export const a = 1;\nexport const b = 2;\n",
  "src/b.ts": "import { a } from './a.ts';\nconsole.log(a);\n",
  "notes.md": "# Notes\n",
};

async function project(): Promise<{ dir: string; root: string }> {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-fs-multi-e2e-" }),
  );
  const root = `${dir}/root`;
  await Deno.mkdir(`${root}/ro`, { recursive: true });
  await Deno.mkdir(`${root}/src`);
  await Deno.mkdir(`${root}/docs`);
  await Deno.mkdir(`${dir}/outside`);
  await Deno.writeTextFile(`${dir}/outside/secret.txt`, "secret\n");
  await Deno.symlink(`${dir}/outside`, `${root}/escape`);
  for (const [p, text] of Object.entries(FILES)) {
    await Deno.writeTextFile(`${root}/${p}`, text);
  }
  await Deno.writeTextFile(`${root}/ro/locked.txt`, "locked\n");
  return { dir, root };
}

const FILE_EDITS: JsonObject[] = [
  {
    path: "src/a.ts",
    edits: [
      { old_str: "const a = 1", new_str: "const a = 10" },
      { old_str: "const b = 2", new_str: "const b = 20" },
    ],
  },
  {
    path: "src/b.ts",
    edits: [{ old_str: "console.log(a)", new_str: "console.info(a)" }],
  },
  { path: "docs/new.md", content: "# New\nA page.\n" },
];
const EDIT: JsonObject = { files: FILE_EDITS };

Deno.test("multi_edit through the transport: a preview per file that mutates nothing (MUST 19), then every file written", async () => {
  const { dir, root } = await project();
  try {
    await using host = new PluginHost({ env: { PATH }, cwd: dir });
    const plugin = await host.launch({
      manifest: await readManifest(`${REPO}/plugins/filesystem/plugin.json`),
      entrypoint: ENTRY,
      grant: { read: [dir], write: [dir] },
    });
    const tool = plugin.client(ToolService);
    await tool.configure({ config: { roots: [root] } });
    const before = await snapshot(root);
    const call = {
      id: "toolu_multi",
      toolName: "multi_edit",
      arguments: EDIT,
      callContext: { sessionId: "01S", turnId: "01T", workingDirectory: root },
    };
    const preview = sections((await tool.preview({ call })).preview);
    assert.equal(preview.summary, "Change 3 files atomically (1 new) (+5 −3)");
    assert.deepEqual(preview.files, [
      {
        summary: `Edit ${root}/src/a.ts: 2 replacements (+2 −2)`,
        added: ["export const a = 10;", "export const b = 20;"],
        removed: ["export const a = 1;", "export const b = 2;"],
      },
      {
        summary: `Edit ${root}/src/b.ts: 1 replacement (+1 −1)`,
        added: ["console.info(a);"],
        removed: ["console.log(a);"],
      },
      {
        summary: `Create ${root}/docs/new.md (2 lines)`,
        added: ["# New", "A page."],
        removed: [],
      },
    ]);
    assert.deepEqual(await snapshot(root), before, "Preview changed nothing");

    const r = await invoke(tool, root, "toolu_multi", EDIT);
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual(r.payload, {
      paths: [`${root}/src/a.ts`, `${root}/src/b.ts`, `${root}/docs/new.md`],
      files: 3,
      created: 1,
      replacements: 3,
      bytes_written: [
        "export const a = 10;\nexport const b = 20;\n",
        "import { a } from './a.ts';\nconsole.info(a);\n",
        "# New\nA page.\n",
      ].reduce((n, t) => n + new TextEncoder().encode(t).length, 0),
    });
    assert.deepEqual(await snapshot(root), {
      ...before,
      "src/a.ts": "export const a = 10;\nexport const b = 20;\n",
      "src/b.ts": "import { a } from './a.ts';\nconsole.info(a);\n",
      "docs/new.md": "# New\nA page.\n",
    });

    // A preview of a call that cannot apply answers a status, not a tree.
    await assert.rejects(
      tool.preview({
        call: {
          ...call,
          arguments: {
            files: [{
              path: "src/a.ts",
              edits: [{ old_str: "zzz", new_str: "y" }],
            }],
          },
        },
      }),
      (e: unknown) =>
        e instanceof GrpcStatusError && e.code === Code.INVALID_ARGUMENT &&
        /files\[0\]\), edit 0: "old_str" does not occur/.test(e.message),
    );
    await plugin.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("multi_edit is all or nothing through the transport", async (t) => {
  const { dir, root } = await project();
  try {
    await using host = new PluginHost({ env: { PATH }, cwd: root });
    // The envelope lets the plugin read the whole root but write only
    // outside ro/: Deno's sandbox keeps ro/ read only.
    const base = await readManifest(`${REPO}/plugins/filesystem/plugin.json`);
    const manifest = parseManifest(
      {
        name: base.name,
        version: base.version,
        category: base.category,
        protocol_version: 1,
        runtime: "deno",
        entrypoint: "main.ts",
        capabilities: { read: ["."], write: ["./src", "./docs"] },
      },
      "filesystem/plugin.json (test envelope)",
    );
    const plugin = await host.launch({
      manifest,
      entrypoint: ENTRY,
      grant: { read: [root], write: [root] },
    });
    const tool = plugin.client(ToolService);
    await tool.configure({ config: { roots: [root] } });
    const before = await snapshot(root);
    const untouched = async () =>
      assert.deepEqual(await snapshot(root), before, "every file is as it was");

    await t.step(
      "a read-only target: PERMISSION_DENIED, nothing changed",
      async () => {
        const r = await invoke(tool, root, "c1", {
          files: [
            ...FILE_EDITS,
            {
              path: "ro/locked.txt",
              edits: [{ old_str: "locked", new_str: "open" }],
            },
          ],
        });
        assert.ok(!r.ok);
        assert.equal(
          r.category,
          ToolErrorCategory.PERMISSION_DENIED,
          r.message,
        );
        assert.match(r.message, /ro\/locked\.txt.*nothing was changed/);
        await untouched();
      },
    );

    await t.step(
      "a file changed since the preview: CONCURRENCY_CONFLICT, nothing changed",
      async () => {
        const call = {
          id: "c2",
          toolName: "multi_edit",
          arguments: EDIT,
          callContext: {
            sessionId: "01S",
            turnId: "01T",
            workingDirectory: root,
          },
        };
        await tool.preview({ call });
        await Deno.writeTextFile(
          `${root}/src/b.ts`,
          `${FILES["src/b.ts"]}// later\n`,
        );
        const r = await invoke(tool, root, "c2", EDIT);
        assert.ok(!r.ok);
        assert.equal(
          r.category,
          ToolErrorCategory.CONCURRENCY_CONFLICT,
          r.message,
        );
        assert.match(
          r.message,
          /src\/b\.ts" changed after the preview was shown; nothing was changed/,
        );
        assert.deepEqual(await snapshot(root), {
          ...before,
          "src/b.ts": `${FILES["src/b.ts"]}// later\n`,
        });
        await Deno.writeTextFile(`${root}/src/b.ts`, FILES["src/b.ts"]);
      },
    );

    await t.step(
      "an edit that cannot apply in the last file: nothing changed",
      async () => {
        const r = await invoke(tool, root, "c3", {
          files: [
            ...FILE_EDITS.slice(0, 2),
            { path: "notes.md", edits: [{ old_str: "# Nope", new_str: "x" }] },
          ],
        });
        assert.ok(!r.ok);
        assert.equal(r.category, ToolErrorCategory.INVALID_ARGUMENTS);
        assert.match(
          r.message,
          /notes\.md" \(files\[2\]\), edit 0: "old_str" does not occur/,
        );
        await untouched();
      },
    );

    await t.step(
      "a path outside the roots or through a symbolic link: refused, nothing changed",
      async () => {
        for (
          const [path, pattern] of [
            ["../outside/secret.txt", /outside the allowed roots/],
            ["escape/secret.txt", /through a symbolic link it resolves to/],
          ] as const
        ) {
          const r = await invoke(tool, root, `c-${path}`, {
            files: [FILE_EDITS[0]!, { path, content: "pwned\n" }],
          });
          assert.ok(!r.ok);
          assert.equal(r.category, ToolErrorCategory.PERMISSION_DENIED);
          assert.match(r.message, pattern);
        }
        await untouched();
        assert.equal(
          await Deno.readTextFile(`${dir}/outside/secret.txt`),
          "secret\n",
        );
      },
    );

    await t.step("arguments are checked, naming each problem", async () => {
      const r = await invoke(tool, root, "c5", {
        files: [{ path: "a.ts", edits: [] }, { content: 3 }],
        extra: true,
      });
      assert.ok(!r.ok);
      assert.equal(r.category, ToolErrorCategory.INVALID_ARGUMENTS);
      assert.match(r.message, /unknown argument "extra"/);
      assert.match(r.message, /"files\[0\]\.edits" must be a non-empty array/);
      assert.match(r.message, /"files\[1\]\.path" must be a non-empty string/);
      await untouched();
    });

    await t.step(
      "the same call without the read-only file succeeds",
      async () => {
        const r = await invoke(tool, root, "c6", EDIT);
        assert.ok(r.ok, JSON.stringify(r));
        assert.equal((await snapshot(root))["docs/new.md"], "# New\nA page.\n");
      },
    );
    await plugin.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
