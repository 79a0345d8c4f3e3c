/**
 * The structural MUSTs of plugins.md §6.5–§6.7 (frontend, widget and
 * slash-command conformance) that no behaviour test covers: the service
 * contracts as generated from proto/, the closed metadata vocabulary, the
 * transcript-only RenderTree and its painter, and builtin/commands'
 * declarations read through the real transport from the launched plugin.
 * docs/frontend_conformance.md maps every MUST to its test.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { create, type DescService, toJson } from "@bufbuild/protobuf";
import { FrontendService } from "../proto/gen/pluggableharness/frontend/v1/service_pb.ts";
import { WidgetService } from "../proto/gen/pluggableharness/widget/v1/service_pb.ts";
import { SlashCommandService } from "../proto/gen/pluggableharness/slashcommand/v1/service_pb.ts";
import * as frontendTypes from "../proto/gen/pluggableharness/frontend/v1/types_pb.ts";
import * as renderTypes from "../proto/gen/pluggableharness/render/v1/types_pb.ts";
import {
  MetadataBlockSchema,
  Tone,
} from "../proto/gen/pluggableharness/metadata/v1/types_pb.ts";
import {
  DiffLineOp,
  type RenderNode,
  RenderNodeSchema,
  RenderTreeSchema,
} from "../proto/gen/pluggableharness/render/v1/types_pb.ts";
import {
  RiskClass,
  ToolKind,
} from "../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { SchemaType } from "../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import type { Schema } from "../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import { ToolErrorCategory } from "../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import { renderTreeLines, styleFor } from "../cli/render/events.ts";
import { PluginHost } from "../kernel/mod.ts";
import { readManifest } from "../plugins/sdk/mod.ts";
import { PATH } from "./_helpers.ts";

function methods(service: DescService): [string, string][] {
  return service.methods.map((m) => [m.name, m.methodKind]);
}

Deno.test("§6.5 MUST 1–2, §6.6 MUST 1–2: FrontendService and WidgetService are exactly GetCapabilities, Configure and Describe, with no Attach stream", () => {
  const triple = [
    ["GetCapabilities", "unary"],
    ["Configure", "unary"],
    ["Describe", "unary"],
  ];
  assert.deepEqual(methods(FrontendService), triple);
  assert.deepEqual(methods(WidgetService), triple);
});

Deno.test("§6.7 MUST 1–2: SlashCommandService has GetCapabilities, Configure, Describe, a server-streaming Invoke, and the optional Render and Preview", () => {
  assert.deepEqual(
    Object.fromEntries(methods(SlashCommandService)),
    {
      GetCapabilities: "unary",
      Configure: "unary",
      Invoke: "server_streaming",
      Render: "unary",
      Preview: "unary",
      Describe: "unary",
    },
  );
});

Deno.test("§6.5 MUST 6: a MetadataBlock body is one of the closed set of five, its tone a token scale (never a colour)", () => {
  const body = MetadataBlockSchema.oneofs.find((o) => o.name === "body")!;
  assert.deepEqual(body.fields.map((f) => f.name), [
    "key_value",
    "progress",
    "status",
    "item_list",
    "timer",
  ]);
  assert.deepEqual(
    Object.keys(Tone).filter((k) => isNaN(Number(k))),
    ["UNSPECIFIED", "NEUTRAL", "INFO", "SUCCESS", "WARNING", "DANGER"],
  );
});

Deno.test("§6.5 MUST 8: RenderTree is transcript-only: no Region or PlacedContent in the render and frontend packages", () => {
  const names = [
    ...Object.keys(renderTypes),
    ...Object.keys(frontendTypes),
  ];
  assert.ok(names.includes("RenderTreeSchema"));
  assert.deepEqual(
    names.filter((n) => /Region|PlacedContent/.test(n)),
    [],
  );
});

/** One node of each variant, with text a painter must show. */
const SAMPLES: Record<string, RenderNode["node"]["value"]> = {
  text: create(renderTypes.TextNodeSchema, { content: "t-text" }),
  codeBlock: create(renderTypes.CodeBlockNodeSchema, {
    content: "t-codeBlock",
  }),
  diff: create(renderTypes.DiffNodeSchema, {
    hunks: [{
      oldStart: 1,
      oldLines: 1,
      newStart: 1,
      newLines: 1,
      lines: [{ op: DiffLineOp.ADD, text: "t-diff" }],
    }],
  }),
  table: create(renderTypes.TableNodeSchema, {
    headers: ["h"],
    rows: [{ cells: ["t-table"] }],
  }),
  link: create(renderTypes.LinkNodeSchema, {
    text: "t-link",
    url: "https://t-link",
  }),
  list: create(renderTypes.ListNodeSchema, {
    items: [{ node: { case: "text", value: { content: "t-list" } } }],
  }),
  group: create(renderTypes.GroupNodeSchema, {
    children: [{ node: { case: "text", value: { content: "t-group" } } }],
  }),
  collapsible: create(renderTypes.CollapsibleNodeSchema, {
    summary: "t-collapsible",
  }),
  subSession: create(renderTypes.SubSessionNodeSchema, {
    sessionId: "01J00000000000000000000000",
    summary: "t-subSession",
  }),
  action: create(renderTypes.ActionNodeSchema, {
    id: "n1",
    label: "t-action",
    toolName: "x",
    provider: "p",
  }),
};

Deno.test("§6.5 MUST 9: every RenderNode variant renders with a graceful fallback in the CLI's painter, and an unknown node is shown, not dropped", () => {
  const variants = RenderNodeSchema.oneofs.find((o) => o.name === "node")!
    .fields.map((f) => f.localName);
  for (const variant of variants) {
    const sample = SAMPLES[variant];
    assert.ok(sample, `no sample for the new RenderNode variant "${variant}"`);
    const tree = create(RenderTreeSchema, {
      root: { node: { case: variant, value: sample } as RenderNode["node"] },
    });
    const lines = renderTreeLines(
      toJson(RenderTreeSchema, tree) as never,
      styleFor(false),
    );
    assert.match(lines.join("\n"), new RegExp(`t-${variant}`), variant);
  }
  const unknown = renderTreeLines(
    { root: { hologram: { label: "t-unknown" } } },
    styleFor(false),
  );
  assert.match(unknown.join("\n"), /t-unknown/);
});

/** The common subset of `Schema` (plugins.md §5): no refs, no combinators. */
function commonSubsetViolation(s: Schema, at: string): string | undefined {
  if (s.type === SchemaType.UNSPECIFIED) return `${at} has no type`;
  for (const [k, v] of Object.entries(s.properties)) {
    const bad = commonSubsetViolation(v, `${at}.${k}`);
    if (bad) return bad;
  }
  if (s.items) return commonSubsetViolation(s.items, `${at}[]`);
  return undefined;
}

Deno.test("§6.7 MUST 3–10 on builtin/commands, launched: every command declares kind, risk (read-only for data sources), concurrency.safe and idempotent with a common-subset input schema; Invoke streams one result or a ToolError, sets no exit_status, and refuses a call without call_context", async () => {
  const dir = fileURLToPath(
    new URL("../plugins/commands/", import.meta.url),
  );
  const manifest = await readManifest(`${dir}plugin.json`);
  const host = new PluginHost({ env: { PATH } });
  try {
    const plugin = await host.launch({
      manifest,
      entrypoint: `${dir}main.ts`,
      grant: { write: ["."] },
    });
    const client = plugin.client(SlashCommandService);
    await client.configure({ config: {} });
    const { commands } = await client.getCapabilities({});
    assert.ok(commands.length >= 11);
    assert.deepEqual(
      commands.map((c) => c.name).sort(),
      manifest.tools!.map((t) => t.name).sort(),
      "the manifest declares every command",
    );
    for (const c of commands) {
      assert.notEqual(c.kind, ToolKind.UNSPECIFIED, c.name);
      assert.notEqual(c.risk, RiskClass.UNSPECIFIED, c.name);
      if (c.kind === ToolKind.DATA_SOURCE) {
        assert.equal(c.risk, RiskClass.READ_ONLY, c.name);
      }
      assert.ok(c.concurrency !== undefined, `${c.name} declares concurrency`);
      assert.equal(
        c.concurrency!.safe,
        c.kind === ToolKind.DATA_SOURCE,
        `${c.name}: data sources are concurrency-safe, resources not`,
      );
      assert.equal(typeof c.idempotent, "boolean");
      assert.equal(
        commonSubsetViolation(c.inputSchema!, c.name),
        undefined,
      );
    }
    const { producer } = await client.describe({});
    assert.equal(producer?.name, "commands");
    const events = [];
    for await (
      const e of client.invoke({
        call: {
          id: "c1",
          name: "nope",
          arguments: {},
          callContext: { sessionId: "01J00000000000000000000000" },
        },
      })
    ) events.push(e.event?.event);
    assert.equal(events.length, 1);
    assert.equal(events[0]!.case, "error");
    assert.equal(
      (events[0]!.value as { category: ToolErrorCategory }).category,
      ToolErrorCategory.NOT_FOUND,
    );
    await assert.rejects(
      (async () => {
        for await (
          const _ of client.invoke({ call: { id: "c2", name: "help" } })
        ) {
          // nothing
        }
      })(),
      /call_context.session_id is required/,
    );
  } finally {
    await host.close();
  }
});
