/**
 * `provider-hello`: the template of a tool plugin published on a forge.
 * `release.ts` bundles this module into `main.js` (the entrypoint
 * plugin.json names) and packs the release assets.
 *
 * In your own repository, import the SDK from the `@ph/agent` package's
 * `./plugin` export instead of this checkout's relative paths.
 *
 * @module
 */
import { serve, service } from "../../plugins/sdk/mod.ts";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import { Category } from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import { SchemaType } from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import {
  RiskClass,
  ToolKind,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { ToolService } from "../../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import manifest from "./plugin.json" with { type: "json" };

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
          tools: [{
            name: "hello",
            kind: ToolKind.DATA_SOURCE,
            risk: RiskClass.READ_ONLY,
            description: "Greets someone.",
            inputSchema: {
              type: SchemaType.OBJECT,
              properties: { name: { type: SchemaType.STRING } },
            },
            outputSchema: { type: SchemaType.OBJECT },
          }],
        }),
        configure: () => ({}),
        async *invoke(req) {
          const name = String(req.call?.arguments?.name ?? "world");
          yield {
            event: {
              event: {
                case: "result" as const,
                value: { payload: { greeting: `Hello, ${name}!` } },
              },
            },
          };
        },
        render: () => {
          throw new GrpcStatusError(Code.UNIMPLEMENTED, "no Render");
        },
        preview: () => {
          throw new GrpcStatusError(Code.UNIMPLEMENTED, "no Preview");
        },
        describe: () => ({
          producer: {
            name: manifest.name,
            version: manifest.version,
            source: "github.com/example-org/provider-hello",
            category: Category.TOOL,
            protocolVersion: manifest.protocol_version,
          },
        }),
      }),
    ],
  });
}
