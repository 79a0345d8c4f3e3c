/**
 * The filesystem tool provider through a real plugin subprocess: schema,
 * the §6.2 MUST list as it applies to a plugin, read ranges and numbering,
 * writes and edits, previews, confinement and atomic writes.
 */
import assert from "node:assert/strict";
import { conforms, walkSchema } from "../../tests/_schema_assert.ts";
import { fileURLToPath } from "node:url";
import type { JsonObject } from "@bufbuild/protobuf";
import { PluginHost } from "../../kernel/mod.ts";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import { Category } from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import { AttrType } from "../../proto/gen/pluggableharness/config/v1/types_pb.ts";
import {
  DiffLineOp,
  type RenderTree,
} from "../../proto/gen/pluggableharness/render/v1/types_pb.ts";
import { SchemaType } from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import { ToolErrorCategory } from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import type { ToolEvent } from "../../proto/gen/pluggableharness/tool/v1/events_pb.ts";
import { ToolService } from "../../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import {
  RiskClass,
  ToolKind,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { readManifest } from "../sdk/mod.ts";
import { formatHunks, type Hunk } from "./_diff.ts";

const PATH = Deno.env.get("PATH") ?? "/usr/bin:/bin";
const ENTRY = fileURLToPath(new URL("./main.ts", import.meta.url));

/** Every event of every Invoke in this file, per call, for the MUST checks. */
const streams: ToolEvent[][] = [];

function isError(
  e: unknown,
  code: number,
  pattern?: RegExp,
): boolean {
  return e instanceof GrpcStatusError && e.code === code &&
    (!pattern || pattern.test(e.message));
}

function hunksOf(tree: RenderTree | undefined): Hunk[] {
  const group = tree?.root?.node;
  assert.equal(group?.case, "group");
  const diff = group.value.children.find((c) => c.node.case === "diff")?.node;
  assert.equal(diff?.case, "diff");
  const op = { 1: "context", 2: "add", 3: "remove" } as const;
  return diff.value.hunks.map((h) => ({
    oldStart: h.oldStart,
    oldLines: h.oldLines,
    newStart: h.newStart,
    newLines: h.newLines,
    lines: h.lines.map((l) => ({
      op: op[l.op as 1 | 2 | 3],
      text: l.text,
    })),
  }));
}

async function readAll(file: Deno.FsFile): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  const buf = new Uint8Array(64 * 1024);
  for (let n = await file.read(buf); n !== null; n = await file.read(buf)) {
    chunks.push(buf.slice(0, n));
  }
  const out = new Uint8Array(chunks.reduce((a, c) => a + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function summaryOf(tree: RenderTree | undefined): string {
  const group = tree?.root?.node;
  assert.equal(group?.case, "group");
  const text = group.value.children.find((c) => c.node.case === "text")?.node;
  assert.equal(text?.case, "text");
  return text.value.content;
}

Deno.test("filesystem tool provider, through a real plugin subprocess", async (t) => {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-fs-test-" }),
  );
  const root = `${dir}/root`;
  const outside = `${dir}/outside`;
  await Deno.mkdir(`${root}/sub`, { recursive: true });
  await Deno.mkdir(outside);
  await Deno.writeTextFile(`${outside}/secret.txt`, "secret\n");
  try {
    await using host = new PluginHost({ env: { PATH }, cwd: dir });
    const manifest = await readManifest(
      new URL("./plugin.json", import.meta.url),
    );
    const plugin = await host.launch({
      manifest,
      entrypoint: ENTRY,
      grant: { read: [dir], write: [dir] },
    });
    const tool = plugin.client(ToolService);
    const callContext = {
      sessionId: "01SESSION",
      turnId: "01TURN",
      workingDirectory: root,
    };

    const events = async (
      toolName: string,
      args: JsonObject,
      cwd = root,
    ): Promise<ToolEvent[]> => {
      const out: ToolEvent[] = [];
      for await (
        const r of tool.invoke({
          call: {
            id: `c${streams.length}`,
            toolName,
            arguments: args,
            callContext: { ...callContext, workingDirectory: cwd },
          },
        })
      ) {
        assert.ok(r.event, "every response carries an event");
        out.push(r.event);
      }
      streams.push(out);
      return out;
    };
    const ok = async (
      toolName: string,
      args: JsonObject,
      cwd?: string,
    ): Promise<JsonObject> => {
      const evs = await events(toolName, args, cwd);
      const last = evs.at(-1)?.event;
      assert.equal(
        last?.case,
        "result",
        `${toolName} succeeds: ${
          last?.case === "error" ? last.value.message : last?.case
        }`,
      );
      return last.value.payload ?? {};
    };
    const fails = async (
      toolName: string,
      args: JsonObject,
      category: ToolErrorCategory,
      pattern: RegExp,
      cwd?: string,
    ): Promise<string> => {
      const evs = await events(toolName, args, cwd);
      const last = evs.at(-1)?.event;
      assert.equal(last?.case, "error", `${toolName} fails`);
      assert.equal(
        last.value.category,
        category,
        `category ${
          ToolErrorCategory[last.value.category]
        }: ${last.value.message}`,
      );
      assert.match(last.value.message, pattern);
      return last.value.message;
    };

    const schema = await tool.getSchema({});
    const byName = (n: string) => {
      const s = schema.tools.find((x) => x.name === n);
      assert.ok(s, `tool ${n}`);
      return s;
    };

    await t.step(
      "MUST 3: implements GetSchema, Configure, Invoke and Describe",
      async () => {
        const d = await tool.describe({});
        assert.deepEqual(
          {
            name: d.producer?.name,
            version: d.producer?.version,
            source: d.producer?.source,
            category: d.producer?.category,
            protocolVersion: d.producer?.protocolVersion,
          },
          {
            name: "filesystem",
            version: manifest.version,
            source: "builtin:filesystem",
            category: Category.TOOL,
            protocolVersion: 1,
          },
        );
        await tool.configure({ config: { roots: [root] } });
        assert.equal(
          (await ok("write_file", { path: "hello.txt", content: "hi\n" })).path,
          `${root}/hello.txt`,
        );
      },
    );

    await t.step(
      "GetSchema: the reference catalogue's three tools, multi_edit and the config schema",
      () => {
        assert.deepEqual(schema.tools.map((x) => x.name), [
          "read_file",
          "write_file",
          "edit_file",
          "multi_edit",
        ]);
        assert.deepEqual(
          schema.tools.map((x) => [
            x.name,
            ToolKind[x.kind],
            RiskClass[x.risk],
            x.idempotent,
            x.streaming,
            x.concurrency?.safe,
            x.concurrency?.keyFields,
            x.terminatesTurn,
          ]),
          [
            ["read_file", "DATA_SOURCE", "READ_ONLY", true, false, true, [
              "path",
            ], false],
            [
              "write_file",
              "RESOURCE",
              "MODERATE",
              true,
              false,
              true,
              ["path"],
              false,
            ],
            [
              "edit_file",
              "RESOURCE",
              "MODERATE",
              false,
              false,
              true,
              ["path"],
              false,
            ],
            [
              "multi_edit",
              "RESOURCE",
              "MODERATE",
              false,
              false,
              false,
              [],
              false,
            ],
          ],
        );
        assert.deepEqual(byName("read_file").inputSchema?.required, ["path"]);
        assert.deepEqual(
          Object.keys(byName("edit_file").inputSchema?.properties ?? {}),
          ["path", "old_str", "new_str", "replace_all"],
        );
        for (const x of schema.tools) {
          assert.ok(x.description.length > 40, `${x.name} is described`);
          assert.equal(x.defaultTimeout?.seconds, 30n);
        }
        assert.deepEqual(
          schema.configSchema?.attributes.map((
            a,
          ) => [a.name, a.type, a.required]),
          [["roots", AttrType.LIST_STRING, true]],
        );
        assert.deepEqual(schema.supportedHookPoints, []);
      },
    );

    await t.step(
      "MUST 4: GetSchema is cheap and static (the same before and after Configure)",
      async () => {
        await tool.configure({ config: { roots: [outside] } });
        const again = await tool.getSchema({});
        assert.deepEqual(again, schema);
        await tool.configure({ config: { roots: [root] } });
      },
    );

    await t.step(
      "MUST 7: input and output schemas use only the common subset",
      () => {
        for (const x of schema.tools) {
          walkSchema(x.inputSchema, `${x.name}.input`);
          walkSchema(x.outputSchema, `${x.name}.output`);
          assert.equal(x.inputSchema?.type, SchemaType.OBJECT);
          assert.equal(x.outputSchema?.type, SchemaType.OBJECT);
        }
      },
    );

    await t.step(
      "MUST 8, 9, 10, 11: kind, risk, concurrency and idempotence are declared",
      () => {
        for (const x of schema.tools) {
          assert.notEqual(x.kind, ToolKind.UNSPECIFIED);
          assert.notEqual(x.risk, RiskClass.UNSPECIFIED);
          if (x.kind === ToolKind.RESOURCE) {
            assert.notEqual(x.risk, RiskClass.READ_ONLY);
          } else assert.equal(x.risk, RiskClass.READ_ONLY);
          assert.ok(x.concurrency, "non-interactive ops declare concurrency");
        }
      },
    );

    await t.step(
      "MUST 17: Configure rejects missing, malformed and unusable roots up front",
      async () => {
        const rejects = (config: JsonObject, pattern: RegExp) =>
          assert.rejects(
            tool.configure({ config }),
            (e: unknown) => isError(e, Code.INVALID_ARGUMENT, pattern),
          );
        await rejects({}, /"roots" is required/);
        await rejects({ roots: "/x" }, /must be a list of non-empty strings/);
        await rejects({ roots: [] }, /at least one directory/);
        await rejects({ roots: [root], extra: 1 }, /"extra" is not supported/);
        await rejects({ roots: [`${dir}/nope`] }, /does not exist/);
        await rejects({ roots: [`${root}/hello.txt`] }, /is not a directory/);
        // Outside Deno's grant: the sandbox answers before the plugin's checks.
        await rejects(
          { roots: ["/etc"] },
          /cannot be read by the plugin.*allow_read/,
        );
        await tool.configure({ config: { roots: [root] } });
      },
    );

    await t.step(
      "read_file: numbered lines like cat -n, with offset and limit",
      async () => {
        const text = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join(
          "\n",
        ); // no final newline
        await Deno.writeTextFile(`${root}/twelve.txt`, text);
        const all = await ok("read_file", { path: "twelve.txt" });
        assert.equal(all.total_lines, 12);
        assert.equal(all.start_line, 1);
        assert.equal(all.end_line, 12);
        assert.equal(all.truncated, false);
        assert.equal(
          String(all.content).split("\n")[0],
          "     1\tline 1",
        );
        assert.equal(
          all.content,
          text.split("\n").map((l, i) => `${String(i + 1).padStart(6)}\t${l}`)
            .join("\n"),
        );
        const range = await ok("read_file", {
          path: `${root}/twelve.txt`,
          offset: 10,
          limit: 2,
        });
        assert.deepEqual(range, {
          path: `${root}/twelve.txt`,
          content: "    10\tline 10\n    11\tline 11\n" +
            "[truncated: lines 12-12 of 12 not shown; read on with offset=12]",
          start_line: 10,
          end_line: 11,
          total_lines: 12,
          truncated: true,
        });
        conforms(range, byName("read_file").outputSchema);
        const tail = await ok("read_file", { path: "twelve.txt", offset: 12 });
        assert.equal(tail.content, "    12\tline 12");
        assert.equal(tail.truncated, false);
        await fails(
          "read_file",
          { path: "twelve.txt", offset: 13 },
          ToolErrorCategory.INVALID_ARGUMENTS,
          /"offset" 13 is past the end of ".*twelve.txt" \(12 lines\)/,
        );
        await fails(
          "read_file",
          { path: "twelve.txt", offset: 0 },
          ToolErrorCategory.INVALID_ARGUMENTS,
          /"offset" must be a positive integer, got 0/,
        );
        await fails(
          "read_file",
          { path: "twelve.txt", limit: 1.5 },
          ToolErrorCategory.INVALID_ARGUMENTS,
          /"limit" must be a positive integer/,
        );
        await Deno.writeTextFile(`${root}/empty.txt`, "");
        assert.deepEqual(await ok("read_file", { path: "empty.txt" }), {
          path: `${root}/empty.txt`,
          content: "",
          start_line: 1,
          end_line: 0,
          total_lines: 0,
          truncated: false,
        });
        await Deno.writeTextFile(`${root}/blank.txt`, "\n\n");
        assert.equal(
          (await ok("read_file", { path: "blank.txt" })).content,
          "     1\t\n     2\t",
        );
      },
    );

    await t.step(
      "read_file: bounded to 2000 lines and 256 KiB, with a truncation marker",
      async () => {
        await Deno.writeTextFile(
          `${root}/long.txt`,
          Array.from({ length: 2500 }, (_, i) => `${i + 1}`).join("\n") + "\n",
        );
        const long = await ok("read_file", { path: "long.txt" });
        assert.equal(long.end_line, 2000);
        assert.equal(long.total_lines, 2500);
        assert.equal(long.truncated, true);
        assert.ok(
          String(long.content).endsWith(
            "  2000\t2000\n[truncated: lines 2001-2500 of 2500 not shown; read on with offset=2001]",
          ),
        );
        const capped = await ok("read_file", { path: "long.txt", limit: 5000 });
        assert.equal(capped.end_line, 2000, "limit is capped at 2000");

        // 1000 lines of 1000 characters: the byte cap cuts first.
        const wide = "x".repeat(1000);
        await Deno.writeTextFile(
          `${root}/wide.txt`,
          Array.from({ length: 1000 }, () => wide).join("\n"),
        );
        const bytes = await ok("read_file", { path: "wide.txt" });
        assert.equal(bytes.truncated, true);
        assert.ok(
          Number(bytes.end_line) < 1000 && Number(bytes.end_line) > 200,
        );
        assert.ok(
          new TextEncoder().encode(String(bytes.content)).length <=
            256 * 1024 + 200,
        );
        assert.match(
          String(bytes.content),
          new RegExp(
            `\\n\\[truncated: lines ${Number(bytes.end_line) + 1}-1000 of 1000`,
          ),
        );

        await Deno.writeTextFile(`${root}/oneline.txt`, "é".repeat(3000));
        const cut = await ok("read_file", { path: "oneline.txt" });
        assert.equal(cut.truncated, true);
        assert.equal(
          cut.content,
          `     1\t${"é".repeat(2000)} … [line truncated: 3000 characters]`,
        );
      },
    );

    await t.step(
      "read_file: missing files, directories and binary files",
      async () => {
        await fails(
          "read_file",
          { path: "missing.txt" },
          ToolErrorCategory.NOT_FOUND,
          /Cannot read ".*\/root\/missing.txt": it does not exist/,
        );
        await fails(
          "read_file",
          { path: "sub" },
          ToolErrorCategory.INVALID_ARGUMENTS,
          /it is a directory/,
        );
        await Deno.writeFile(`${root}/bin.dat`, new Uint8Array([1, 0, 2, 3]));
        await fails(
          "read_file",
          { path: "bin.dat" },
          ToolErrorCategory.INVALID_ARGUMENTS,
          /binary file/,
        );
        await Deno.writeFile(
          `${root}/latin1.txt`,
          new Uint8Array([0x63, 0xe9]),
        );
        await fails(
          "read_file",
          { path: "latin1.txt" },
          ToolErrorCategory.INVALID_ARGUMENTS,
          /not UTF-8 text/,
        );
        await fails(
          "read_file",
          { file: "x" },
          ToolErrorCategory.INVALID_ARGUMENTS,
          /"path" is required; unknown argument "file"/,
        );
        await fails(
          "delete_file",
          { path: "x" },
          ToolErrorCategory.INVALID_ARGUMENTS,
          /Unknown tool "delete_file"/,
        );
      },
    );

    await t.step(
      "write_file: creates (with parents) and overwrites, keeping the mode",
      async () => {
        const created = await ok("write_file", {
          path: "new/deep/file.txt",
          content: "a\nb\n",
        });
        assert.deepEqual(created, {
          path: `${root}/new/deep/file.txt`,
          created: true,
          bytes_written: 4,
          lines: 2,
        });
        conforms(created, byName("write_file").outputSchema);
        assert.equal(
          await Deno.readTextFile(`${root}/new/deep/file.txt`),
          "a\nb\n",
        );
        await Deno.chmod(`${root}/new/deep/file.txt`, 0o640);
        const over = await ok("write_file", {
          path: `${root}/new/deep/file.txt`,
          content: "ü",
        });
        assert.deepEqual(over, {
          path: `${root}/new/deep/file.txt`,
          created: false,
          bytes_written: 2,
          lines: 1,
        });
        assert.equal(await Deno.readTextFile(`${root}/new/deep/file.txt`), "ü");
        assert.equal(
          (await Deno.stat(`${root}/new/deep/file.txt`)).mode! & 0o777,
          0o640,
        );
        await fails(
          "write_file",
          { path: "sub", content: "x" },
          ToolErrorCategory.INVALID_ARGUMENTS,
          /it is a directory/,
        );
        await fails(
          "write_file",
          { path: "x.txt" },
          ToolErrorCategory.INVALID_ARGUMENTS,
          /"content" is required/,
        );
        await fails(
          "write_file",
          { path: "x.txt", content: 42 },
          ToolErrorCategory.INVALID_ARGUMENTS,
          /"content" must be a string, got number/,
        );
      },
    );

    await t.step(
      "write_file is atomic: readers see the old or the new file, never a mix, and no temporary file stays",
      async () => {
        const big = (c: string) => c.repeat(1024 * 1024);
        const file = `${root}/atomic.txt`;
        await Deno.writeTextFile(file, big("a"));
        const ino = (await Deno.stat(file)).ino;
        // Held open, the original inode cannot be freed and its number
        // reused by a later temporary file.
        using original = await Deno.open(file, { read: true });
        let reads = 0;
        let writing = true;
        const reader = (async () => {
          while (writing) {
            const text = await Deno.readTextFile(file);
            assert.equal(text.length, 1024 * 1024, "never a partial file");
            assert.ok(
              text === big("a") || text === big("b") || text === big("c"),
              "never a mix",
            );
            reads++;
          }
        })();
        try {
          for (const c of ["b", "c", "b", "c", "b"]) {
            await ok("write_file", { path: file, content: big(c) });
          }
        } finally {
          writing = false;
          await reader;
        }
        assert.ok(reads > 0);
        if (ino !== null) {
          assert.notEqual(
            (await Deno.stat(file)).ino,
            ino,
            "the file was replaced by a rename, not rewritten in place",
          );
        }
        assert.equal(
          new TextDecoder().decode(await readAll(original)),
          big("a"),
          "the replaced file still holds the old content",
        );
        const names = [];
        for await (const e of Deno.readDir(root)) names.push(e.name);
        assert.deepEqual(names.filter((n) => n.endsWith(".tmp")), []);
      },
    );

    await t.step(
      "edit_file: exact replacement, replace_all, and ambiguity errors that count",
      async () => {
        const file = `${root}/edit.txt`;
        await Deno.writeTextFile(file, "alpha\nbeta\ngamma\nbeta\n");
        await fails(
          "edit_file",
          { path: "edit.txt", old_str: "beta", new_str: "BETA" },
          ToolErrorCategory.INVALID_ARGUMENTS,
          /"old_str" occurs 2 times; include more surrounding text to make it unique, or set "replace_all"/,
        );
        assert.equal(
          await Deno.readTextFile(file),
          "alpha\nbeta\ngamma\nbeta\n",
          "a refused edit changes nothing",
        );
        const one = await ok("edit_file", {
          path: "edit.txt",
          old_str: "gamma\nbeta",
          new_str: "gamma\nbeta $& $1",
        });
        assert.deepEqual(one, {
          path: file,
          replacements: 1,
          bytes_written: 28,
        });
        conforms(one, byName("edit_file").outputSchema);
        assert.equal(
          await Deno.readTextFile(file),
          "alpha\nbeta\ngamma\nbeta $& $1\n",
          "replacement text is literal",
        );
        const all = await ok("edit_file", {
          path: "edit.txt",
          old_str: "beta",
          new_str: "b",
          replace_all: true,
        });
        assert.equal(all.replacements, 2);
        assert.equal(
          await Deno.readTextFile(file),
          "alpha\nb\ngamma\nb $& $1\n",
        );
        await fails(
          "edit_file",
          { path: "edit.txt", old_str: "delta", new_str: "x" },
          ToolErrorCategory.INVALID_ARGUMENTS,
          /"old_str" does not occur in the file/,
        );
        await fails(
          "edit_file",
          { path: "nope.txt", old_str: "a", new_str: "b" },
          ToolErrorCategory.NOT_FOUND,
          /Cannot edit ".*nope.txt": it does not exist/,
        );
        await fails(
          "edit_file",
          { path: "edit.txt", old_str: "", new_str: "b" },
          ToolErrorCategory.INVALID_ARGUMENTS,
          /must not be empty/,
        );
        await fails(
          "edit_file",
          { path: "edit.txt", old_str: "b", new_str: "b" },
          ToolErrorCategory.INVALID_ARGUMENTS,
          /would change nothing/,
        );
        await fails(
          "edit_file",
          { path: "bin.dat", old_str: "a", new_str: "b" },
          ToolErrorCategory.INVALID_ARGUMENTS,
          /not a UTF-8 text file/,
        );
      },
    );

    await t.step(
      "Preview: exact unified-diff hunks, computed without mutating (MUST 19)",
      async () => {
        const file = `${root}/preview.txt`;
        const text = Array.from({ length: 10 }, (_, i) =>
          `p${i + 1}`).join("\n") +
          "\n";
        await Deno.writeTextFile(file, text);
        const before = await Deno.stat(file);
        const call = (toolName: string, args: JsonObject) => ({
          call: { id: "p", toolName, arguments: args, callContext },
        });

        const edit = await tool.preview(
          call("edit_file", {
            path: "preview.txt",
            old_str: "p5\n",
            new_str: "five\n5\n",
          }),
        );
        assert.equal(
          summaryOf(edit.preview),
          `Edit ${file}: 1 replacement (+2 −1)`,
        );
        assert.deepEqual(hunksOf(edit.preview), [{
          oldStart: 2,
          oldLines: 7,
          newStart: 2,
          newLines: 8,
          lines: [
            { op: "context", text: "p2" },
            { op: "context", text: "p3" },
            { op: "context", text: "p4" },
            { op: "remove", text: "p5" },
            { op: "add", text: "five" },
            { op: "add", text: "5" },
            { op: "context", text: "p6" },
            { op: "context", text: "p7" },
            { op: "context", text: "p8" },
          ],
        }]);
        const diffNode = edit.preview?.root?.node.case === "group"
          ? edit.preview.root.node.value.children[1]?.node
          : undefined;
        assert.equal(diffNode?.case, "diff");
        assert.deepEqual(
          diffNode.value.hunks[0]!.lines.map((l) => l.op).slice(3, 6),
          [DiffLineOp.REMOVE, DiffLineOp.ADD, DiffLineOp.ADD],
        );

        const overwrite = await tool.preview(
          call("write_file", {
            path: file,
            content: text.replace("p1\n", "") + "p11\n",
          }),
        );
        assert.equal(summaryOf(overwrite.preview), `Overwrite ${file} (+1 −1)`);
        assert.equal(
          formatHunks(hunksOf(overwrite.preview)),
          "@@ -1,4 +1,3 @@\n-p1\n p2\n p3\n p4\n@@ -8,3 +7,4 @@\n p8\n p9\n p10\n+p11",
        );

        const create = await tool.preview(
          call("write_file", { path: "brand/new.txt", content: "x\ny" }),
        );
        assert.equal(
          summaryOf(create.preview),
          `Create ${root}/brand/new.txt (2 lines)`,
        );
        assert.deepEqual(hunksOf(create.preview), [{
          oldStart: 0,
          oldLines: 0,
          newStart: 1,
          newLines: 2,
          lines: [{ op: "add", text: "x" }, { op: "add", text: "y" }],
        }]);

        const same = await tool.preview(
          call("write_file", { path: file, content: text }),
        );
        assert.equal(summaryOf(same.preview), `Overwrite ${file}: no changes`);
        assert.deepEqual(hunksOf(same.preview), []);

        // Nothing was touched.
        const after = await Deno.stat(file);
        assert.equal(await Deno.readTextFile(file), text);
        assert.equal(after.mtime?.getTime(), before.mtime?.getTime());
        assert.equal(after.ino, before.ino);
        await assert.rejects(Deno.stat(`${root}/brand`), Deno.errors.NotFound);

        // Failures are statuses with the ToolError's code.
        await assert.rejects(
          tool.preview(
            call("edit_file", { path: "edit.txt", old_str: "b", new_str: "c" }),
          ),
          (e: unknown) => isError(e, Code.INVALID_ARGUMENT, /occurs 2 times/),
        );
        await assert.rejects(
          tool.preview(
            call("edit_file", { path: "nope.txt", old_str: "b", new_str: "c" }),
          ),
          (e: unknown) => isError(e, Code.NOT_FOUND),
        );
        await assert.rejects(
          tool.preview(
            call("write_file", { path: "../outside/x", content: "" }),
          ),
          (e: unknown) =>
            isError(e, Code.PERMISSION_DENIED, /outside the allowed roots/),
        );
        await assert.rejects(
          tool.preview(call("read_file", { path: "preview.txt" })),
          (e: unknown) => isError(e, Code.UNIMPLEMENTED),
        );
      },
    );

    await t.step(
      "confinement: .., absolute paths and symbolic links cannot leave the roots",
      async () => {
        const roots = new RegExp(`allowed roots "${root}"`);
        await fails(
          "read_file",
          { path: "../outside/secret.txt" },
          ToolErrorCategory.PERMISSION_DENIED,
          new RegExp(
            `Refusing "../outside/secret.txt": it resolves to "${outside}/secret.txt", outside the ${roots.source}`,
          ),
        );
        await fails(
          "read_file",
          { path: "sub/../../outside/secret.txt" },
          ToolErrorCategory.PERMISSION_DENIED,
          roots,
        );
        await fails(
          "write_file",
          { path: `${outside}/new.txt`, content: "x" },
          ToolErrorCategory.PERMISSION_DENIED,
          roots,
        );
        // Outside Deno's grant too: refused by the plugin before any syscall.
        await fails(
          "read_file",
          { path: "/etc/passwd" },
          ToolErrorCategory.PERMISSION_DENIED,
          /Refusing "\/etc\/passwd"/,
        );
        // A symlinked directory and a symlinked file pointing outside.
        await Deno.symlink(outside, `${root}/link-dir`);
        await Deno.symlink(`${outside}/secret.txt`, `${root}/link-file.txt`);
        await fails(
          "read_file",
          { path: "link-dir/secret.txt" },
          ToolErrorCategory.PERMISSION_DENIED,
          new RegExp(
            `through a symbolic link it resolves to "${outside}/secret.txt"`,
          ),
        );
        await fails(
          "read_file",
          { path: "link-file.txt" },
          ToolErrorCategory.PERMISSION_DENIED,
          /through a symbolic link/,
        );
        await fails(
          "write_file",
          { path: "link-dir/planted.txt", content: "x" },
          ToolErrorCategory.PERMISSION_DENIED,
          /through a symbolic link/,
        );
        await fails(
          "write_file",
          { path: "link-file.txt", content: "overwritten" },
          ToolErrorCategory.PERMISSION_DENIED,
          /through a symbolic link/,
        );
        await fails(
          "edit_file",
          { path: "link-file.txt", old_str: "secret", new_str: "x" },
          ToolErrorCategory.PERMISSION_DENIED,
          /through a symbolic link/,
        );
        assert.equal(
          await Deno.readTextFile(`${outside}/secret.txt`),
          "secret\n",
        );
        await assert.rejects(Deno.stat(`${outside}/planted.txt`));
        // A dangling symlink would create its target wherever it points:
        // one pointing outside is named as leaving the roots, by its host
        // path (in the OS sandbox a target outside the grants is not in
        // the plugin's view at all, existing or not) ...
        await Deno.symlink(`${outside}/ghost.txt`, `${root}/dangling.txt`);
        await fails(
          "write_file",
          { path: "dangling.txt", content: "x" },
          ToolErrorCategory.PERMISSION_DENIED,
          new RegExp(
            `through a symbolic link it resolves to "${outside}/ghost.txt", outside the allowed roots`,
          ),
        );
        await assert.rejects(Deno.stat(`${outside}/ghost.txt`));
        // ... and one pointing inside the roots is refused as dangling.
        await Deno.symlink(`${root}/not-yet.txt`, `${root}/dangling-in.txt`);
        await fails(
          "write_file",
          { path: "dangling-in.txt", content: "x" },
          ToolErrorCategory.PERMISSION_DENIED,
          /"[^"]*dangling-in\.txt" is a symbolic link whose target does not exist/,
        );
        await assert.rejects(Deno.stat(`${root}/not-yet.txt`));
        // A working directory outside the roots.
        await fails(
          "read_file",
          { path: "secret.txt" },
          ToolErrorCategory.PERMISSION_DENIED,
          new RegExp(
            `the working directory "${outside}" is outside the allowed roots`,
          ),
          outside,
        );
        // Symlinks that stay inside are followed; writes go to the target.
        await Deno.symlink(`${root}/sub`, `${root}/inner`);
        await ok("write_file", { path: "inner/x.txt", content: "in\n" });
        assert.equal(await Deno.readTextFile(`${root}/sub/x.txt`), "in\n");
        await Deno.symlink(`${root}/sub/x.txt`, `${root}/x-link.txt`);
        await ok("write_file", { path: "x-link.txt", content: "via link\n" });
        assert.ok((await Deno.lstat(`${root}/x-link.txt`)).isSymlink);
        assert.equal(
          await Deno.readTextFile(`${root}/sub/x.txt`),
          "via link\n",
        );
        // Relative roots resolve against the working directory.
        await tool.configure({ config: { roots: ["."] } });
        assert.equal(
          (await ok("read_file", { path: "x.txt" }, `${root}/sub`)).content,
          "     1\tvia link",
        );
        await fails(
          "read_file",
          { path: "../twelve.txt" },
          ToolErrorCategory.PERMISSION_DENIED,
          new RegExp(`outside the allowed roots "${root}/sub"`),
          `${root}/sub`,
        );
        await tool.configure({ config: { roots: [root] } });
        await fails(
          "read_file",
          { path: "twelve.txt" },
          ToolErrorCategory.INVALID_ARGUMENTS,
          /no absolute working directory/,
          "",
        );
      },
    );

    await t.step(
      "MUST 1, 2: every failure is classified, with a message and retryable set",
      () => {
        const errors = streams.flatMap((s) => s)
          .flatMap((e) => e.event.case === "error" ? [e.event.value] : []);
        assert.ok(errors.length > 20);
        const seen = new Set(errors.map((e) => e.category));
        for (
          const c of [
            ToolErrorCategory.INVALID_ARGUMENTS,
            ToolErrorCategory.NOT_FOUND,
            ToolErrorCategory.PERMISSION_DENIED,
          ]
        ) assert.ok(seen.has(c), `${ToolErrorCategory[c]} is used`);
        for (const e of errors) {
          assert.notEqual(e.category, ToolErrorCategory.UNSPECIFIED);
          assert.notEqual(e.category, ToolErrorCategory.PROCESS_CRASHED);
          assert.ok(e.message.length > 0);
          assert.equal(e.retryable, false);
        }
      },
    );

    await t.step(
      "MUST 5, 12, 13: one-shot streams end with exactly one terminal event and no exit_status",
      () => {
        assert.ok(streams.length > 40);
        for (const s of streams) {
          const terminal = s.filter((e) =>
            e.event.case === "result" || e.event.case === "error"
          );
          assert.equal(terminal.length, 1);
          assert.equal(s.at(-1), terminal[0], "the terminal event is last");
          assert.ok(!s.some((e) => e.event.case === "exitStatus"));
        }
      },
    );

    await plugin.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
