/**
 * The search tool provider through a real plugin subprocess: schema, the
 * §6.2 MUST list as it applies to a data-source provider, glob and grep
 * results, refusals (outside a root, symbolic-link escapes, Deno's
 * sandbox) and the stream grammar.
 */
import assert from "node:assert/strict";
import { conforms, walkSchema } from "../../tests/_schema_assert.ts";
import { fileURLToPath } from "node:url";
import type { JsonObject } from "@bufbuild/protobuf";
import { PluginHost } from "../../kernel/mod.ts";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import { Category } from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import { AttrType } from "../../proto/gen/pluggableharness/config/v1/types_pb.ts";
import { ToolErrorCategory } from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import type { ToolEvent } from "../../proto/gen/pluggableharness/tool/v1/events_pb.ts";
import { ToolService } from "../../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import {
  RiskClass,
  ToolKind,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { readManifest } from "../sdk/mod.ts";
import { makeTree } from "./_testing.ts";

const PATH = Deno.env.get("PATH") ?? "/usr/bin:/bin";
const ENTRY = fileURLToPath(new URL("./main.ts", import.meta.url));

function isError(e: unknown, code: number, pattern?: RegExp): boolean {
  return e instanceof GrpcStatusError && e.code === code &&
    (!pattern || pattern.test(e.message));
}

Deno.test("search tool provider, through a real plugin subprocess", async (t) => {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-search-test-" }),
  );
  await makeTree(dir);
  const root = `${dir}/root`;
  const streams: ToolEvent[][] = [];
  try {
    await using host = new PluginHost({ env: { PATH }, cwd: root });
    const manifest = await readManifest(
      new URL("./plugin.json", import.meta.url),
    );
    // Deno's sandbox grants the root only: the outside directory stays
    // unreadable even to the plugin's own code.
    const plugin = await host.launch({
      manifest,
      entrypoint: ENTRY,
      grant: { read: [root] },
    });
    const tool = plugin.client(ToolService);
    const schema = await tool.getSchema({});
    const byName = (n: string) => {
      const s = schema.tools.find((x) => x.name === n);
      assert.ok(s, `tool ${n}`);
      return s;
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
            callContext: {
              sessionId: "01SESSION",
              turnId: "01TURN",
              workingDirectory: cwd,
            },
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
      const last = (await events(toolName, args, cwd)).at(-1)?.event;
      assert.equal(
        last?.case,
        "result",
        `${toolName} succeeds: ${
          last?.case === "error" ? last.value.message : last?.case
        }`,
      );
      const payload = last.value.payload ?? {};
      conforms(payload, byName(toolName).outputSchema);
      return payload;
    };
    const fails = async (
      toolName: string,
      args: JsonObject,
      category: ToolErrorCategory,
      pattern: RegExp,
      cwd?: string,
    ): Promise<string> => {
      const last = (await events(toolName, args, cwd)).at(-1)?.event;
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

    await t.step("an unconfigured provider refuses calls", async () => {
      await fails(
        "glob",
        { pattern: "*" },
        ToolErrorCategory.EXECUTION_FAILED,
        /not configured: Configure must set roots first/,
      );
    });

    await t.step(
      "MUST 3: implements GetSchema, Configure, Invoke and Describe",
      async () => {
        const d = await tool.describe({});
        assert.deepEqual(
          [d.producer?.name, d.producer?.source, d.producer?.category],
          ["search", "builtin:search", Category.TOOL],
        );
        await tool.configure({ config: { roots: [root] } });
        assert.equal((await ok("glob", { pattern: "*.ts" })).content, "a.ts");
      },
    );

    await t.step(
      "GetSchema: glob and grep, data source / read only, never conflicting",
      () => {
        assert.deepEqual(
          schema.tools.map((x) => [
            x.name,
            ToolKind[x.kind],
            RiskClass[x.risk],
            x.idempotent,
            x.streaming,
            x.concurrency?.safe,
            x.concurrency?.keyFields,
            x.defaultTimeout?.seconds,
          ]),
          [
            ["glob", "DATA_SOURCE", "READ_ONLY", true, false, true, [], 60n],
            ["grep", "DATA_SOURCE", "READ_ONLY", true, false, true, [], 60n],
          ],
        );
        assert.deepEqual(
          schema.configSchema?.attributes.map((
            a,
          ) => [a.name, a.type, a.required]),
          [["roots", AttrType.LIST_STRING, true]],
        );
        assert.deepEqual(
          byName("grep").inputSchema?.properties.output_mode?.enumValues,
          ["files_with_matches", "content", "count"],
        );
      },
    );

    await t.step(
      "MUST 4: GetSchema is cheap and static (the same before and after Configure)",
      async () => {
        assert.deepEqual(await tool.getSchema({}), schema);
      },
    );

    await t.step(
      "MUST 7: input and output schemas use only the common subset",
      () => {
        for (const x of schema.tools) {
          walkSchema(x.inputSchema, `${x.name}.input`);
          walkSchema(x.outputSchema, `${x.name}.output`);
        }
      },
    );

    await t.step(
      "MUST 8, 9, 10, 11: kind, risk (read only), concurrency and idempotence are declared",
      () => {
        for (const x of schema.tools) {
          assert.equal(x.kind, ToolKind.DATA_SOURCE);
          assert.equal(x.risk, RiskClass.READ_ONLY);
          assert.equal(x.concurrency?.safe, true);
          assert.equal(x.idempotent, true);
        }
      },
    );

    await t.step(
      "MUST 6: relative paths resolve against CallContext.working_directory",
      async () => {
        const fromSub = await ok("grep", { pattern: "needle" }, `${root}/sub`);
        assert.equal(fromSub.content, "c.ts\ndebug.log\ndeep/d.py");
        const fromRoot = await ok("grep", {
          pattern: "needle",
          path: "sub/deep",
        });
        assert.equal(fromRoot.content, "sub/deep/d.py");
      },
    );

    await t.step("glob and grep through the transport", async () => {
      assert.deepEqual(await ok("glob", { pattern: "**/*.ts" }), {
        content: "a.ts\nsub/c.ts",
        shown: 2,
        total: 2,
        truncated: false,
      });
      assert.deepEqual(
        await ok("grep", {
          pattern: "needle",
          output_mode: "content",
          type: "ts",
          path: "sub",
        }),
        {
          content: "sub/c.ts:2:alpha needle\nsub/c.ts:6:epsilon needle",
          files: 1,
          matches: 2,
          shown: 2,
          truncated: false,
        },
      );
      const cut = await ok("grep", { pattern: "needle", limit: 1 });
      assert.match(
        String(cut.content),
        /^a\.ts\n\[truncated: 4 more files not shown \(5 files matched\)/,
      );
    });

    await t.step(
      "refusals: outside a root, symbolic-link escapes, Deno's sandbox",
      async () => {
        await fails(
          "grep",
          { pattern: "needle", path: "../outside" },
          ToolErrorCategory.PERMISSION_DENIED,
          /resolves to ".*\/outside", outside the allowed roots/,
        );
        await fails(
          "glob",
          { pattern: "*", path: "link" },
          ToolErrorCategory.PERMISSION_DENIED,
          /through a symbolic link it resolves to ".*\/outside"/,
        );
        await fails(
          "grep",
          { pattern: "needle", path: "secret-link.txt" },
          ToolErrorCategory.PERMISSION_DENIED,
          /symbolic link/,
        );
        await fails(
          "grep",
          { pattern: "needle", path: `${dir}/outside/secret.txt` },
          ToolErrorCategory.PERMISSION_DENIED,
          /outside the allowed roots/,
        );
        // A working directory outside the roots cannot anchor a relative path.
        await fails(
          "glob",
          { pattern: "*", path: "x" },
          ToolErrorCategory.PERMISSION_DENIED,
          /working directory ".*" is outside the allowed roots/,
          dir,
        );
        // Links met during the walk are not followed: nothing from outside.
        const all = await ok("grep", { pattern: "outside the root" });
        assert.equal(all.files, 0);
        // A root beyond Deno's grant is refused by the sandbox at Configure.
        await assert.rejects(
          tool.configure({ config: { roots: [`${dir}/outside`] } }),
          (e: unknown) =>
            isError(e, Code.INVALID_ARGUMENT, /cannot be read by the plugin/),
        );
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
        await rejects({ roots: [`${root}/nope`] }, /does not exist/);
        await rejects({ roots: [`${root}/a.ts`] }, /is not a directory/);
        await tool.configure({ config: { roots: [root] } });
      },
    );

    await t.step(
      "MUST 19: Preview is not implemented (read only), so the kernel uses the raw arguments",
      async () => {
        await assert.rejects(
          tool.preview({
            call: { id: "p", toolName: "grep", arguments: { pattern: "x" } },
          }),
          (e: unknown) => isError(e, Code.UNIMPLEMENTED, /read only/),
        );
      },
    );

    await t.step(
      "bad arguments are INVALID_ARGUMENTS naming the problem",
      async () => {
        await fails(
          "grep",
          { pattern: "a(" },
          ToolErrorCategory.INVALID_ARGUMENTS,
          /not a valid JavaScript regular expression/,
        );
        await fails(
          "grep",
          { pattern: "x", output_mode: "lines" },
          ToolErrorCategory.INVALID_ARGUMENTS,
          /"output_mode" must be one of "files_with_matches", "content", "count", got "lines"/,
        );
        await fails(
          "glob",
          {},
          ToolErrorCategory.INVALID_ARGUMENTS,
          /"pattern" is required/,
        );
        await fails(
          "glob",
          { pattern: "*", limit: 1e9 },
          ToolErrorCategory.INVALID_ARGUMENTS,
          /"limit" must be an integer from 1 to 10000/,
        );
        await fails(
          "grep",
          { pattern: "x", path: "missing" },
          ToolErrorCategory.NOT_FOUND,
          /does not exist/,
        );
        await fails(
          "find",
          { pattern: "x" },
          ToolErrorCategory.INVALID_ARGUMENTS,
          /Unknown tool "find": this provider has glob and grep/,
        );
      },
    );

    await t.step(
      "MUST 1, 2: every failure is classified, with a message and retryable set",
      () => {
        const errors = streams.flatMap((s) => s)
          .flatMap((e) => e.event.case === "error" ? [e.event.value] : []);
        assert.ok(errors.length >= 10);
        const seen = new Set(errors.map((e) => e.category));
        for (
          const c of [
            ToolErrorCategory.INVALID_ARGUMENTS,
            ToolErrorCategory.NOT_FOUND,
            ToolErrorCategory.PERMISSION_DENIED,
            ToolErrorCategory.EXECUTION_FAILED,
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
        assert.ok(streams.length > 15);
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
