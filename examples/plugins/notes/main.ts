/**
 * `notes`: an example tool plugin kept in the project (a path source in
 * `examples/agent.hcl`). It reads, writes and deletes Markdown notes under
 * the folder its provider block names; its manifest declares exactly that
 * folder, and the operator grants it.
 *
 * @module
 */
import { Code, GrpcStatusError } from "../../../proto/grpc_status.ts";
import { Category } from "../../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import { SchemaType } from "../../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import {
  RiskClass,
  ToolKind,
} from "../../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { ToolService } from "../../../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import { serve, service } from "../../../plugins/sdk/mod.ts";
import manifest from "./plugin.json" with { type: "json" };

const NAME_REGEXP = /^[\w-]+$/;
let root = "./notes";

function payload(value: Record<string, string>) {
  return {
    event: { event: { case: "result" as const, value: { payload: value } } },
  };
}

function noteInput(withText: boolean) {
  return {
    type: SchemaType.OBJECT,
    properties: {
      name: { type: SchemaType.STRING, description: "Note name" },
      ...(withText ? { text: { type: SchemaType.STRING } } : {}),
    },
    required: withText ? ["name", "text"] : ["name"],
  };
}

function pathOf(name: unknown): string {
  if (typeof name !== "string" || !NAME_REGEXP.test(name)) {
    throw new GrpcStatusError(Code.INVALID_ARGUMENT, "invalid note name");
  }
  return `${root}/${name}.md`;
}

if (import.meta.main) {
  await serve({
    identity: {
      name: manifest.name,
      version: manifest.version,
      category: "tool",
    },
    services: () => [
      service(ToolService, {
        getSchema: () => ({
          tools: manifest.tools.map((t) => ({
            name: t.name,
            kind: t.kind === "resource"
              ? ToolKind.RESOURCE
              : ToolKind.DATA_SOURCE,
            risk: t.risk === "read_only"
              ? RiskClass.READ_ONLY
              : t.risk === "low"
              ? RiskClass.LOW
              : RiskClass.HIGH,
            description: `${t.name.replace("_", " ")}.`,
            inputSchema: noteInput(t.name === "write_note"),
            outputSchema: { type: SchemaType.OBJECT },
          })),
        }),
        configure: (req) => {
          root = String(req.config?.root ?? root);
          return {};
        },
        async *invoke(req) {
          const args = req.call?.arguments ?? {};
          const path = pathOf(args.name);
          switch (req.call?.toolName) {
            case "read_note":
              yield payload({ text: await Deno.readTextFile(path) });
              return;
            case "write_note":
              await Deno.writeTextFile(path, String(args.text ?? ""));
              yield payload({ written: path });
              return;
            case "delete_note":
              await Deno.remove(path);
              yield payload({ deleted: path });
              return;
          }
        },
        render: () => {
          throw new GrpcStatusError(Code.UNIMPLEMENTED, "notes has no Render");
        },
        preview: () => {
          throw new GrpcStatusError(Code.UNIMPLEMENTED, "notes has no Preview");
        },
        describe: () => ({
          producer: {
            name: manifest.name,
            version: manifest.version,
            source: "./plugins/notes",
            category: Category.TOOL,
            protocolVersion: manifest.protocol_version,
          },
        }),
      }),
    ],
  });
}
