/**
 * `exec`: the reference shell tool provider (plugins.md §7.2).
 *
 * - `bash` (resource, high): runs a command line with `bash -c` in the
 *   call's working directory, streaming stdout and stderr as
 *   `output_chunk` events, then one `exit_status`, then a `result` with the
 *   exit code and the (bounded, truncation-marked) output. A timeout (per
 *   call, a configured default and maximum) or a cancellation kills the
 *   whole process tree. With `run_in_background` it returns at once with a
 *   `background_id`.
 * - `bash_output` (data source, read only): the new output and the status
 *   of a background command.
 * - `bash_kill` (resource, low): kills a background command's tree.
 *
 * When a background command ends, the plugin publishes
 * `plugin.tool.exec.background_exited` on the kernel's event bus (JSON
 * payload, with the last 4 KiB of its output as `output_tail`), so that
 * frontends, other plugins and the session's control plane (`shell-exit`)
 * learn of it without polling.
 *
 * The command's environment is exactly `PATH` (the plugin's own) plus the
 * provider block's `env` map: nothing else of the kernel's or the plugin's
 * environment. Deno's sandbox does not reach into the command: an allowed
 * `bash` can do whatever the operating-system user can, which is why every
 * call passes the plan/apply gate and policy judges each segment of the
 * command line (`command` rules, see README.md).
 *
 * Run it only through the kernel; started by hand it explains itself and
 * exits 1.
 *
 * @module
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import type { InvokeResponseSchema } from "../../proto/gen/pluggableharness/tool/v1/rpc_response_pb.ts";
import { ToolService } from "../../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import {
  describeResponse,
  parseManifest,
  serve,
  service,
  toolResult as result,
} from "../sdk/mod.ts";
import { killJob, readJob, startBackground } from "./_background.ts";
import { bashArgs, workingDirectory } from "./_call.ts";
import { type Config, parseConfig } from "./_config.ts";
import { classify, failure, ToolFailure } from "./_failure.ts";
import { runForeground } from "./_foreground.ts";
import { previewTree } from "./_preview.ts";
import { toolSchema } from "./_schema.ts";
import { killAll } from "./_spawn.ts";
import manifestJson from "./plugin.json" with { type: "json" };

export { BACKGROUND_EXITED_EVENT } from "./_background.ts";
export type { BashArgs } from "./_call.ts";
export type { Config } from "./_config.ts";
export { runForeground } from "./_foreground.ts";

type Event = MessageInitShape<typeof InvokeResponseSchema>;

const manifest = parseManifest(manifestJson, "exec/plugin.json");
const SCHEMA = toolSchema(manifest);

let config: Config | undefined;

function configured(): Config {
  if (!config) {
    throw new ToolFailure(
      "execution_failed",
      "The exec provider is not configured: Configure must set roots first",
    );
  }
  return config;
}

if (import.meta.main) {
  await serve({
    identity: {
      name: manifest.name,
      version: manifest.version,
      category: "tool",
    },
    onShutdown: killAll,
    services: (ctx) => [
      service(ToolService, {
        getSchema: () => SCHEMA,
        configure: async (req) => {
          config = await parseConfig(req.config);
          return {};
        },
        async *invoke(req, { signal }): AsyncGenerator<Event> {
          const call = req.call;
          const tool = call?.toolName ?? "";
          try {
            if (!call) {
              throw new ToolFailure("invalid_arguments", "The call is missing");
            }
            const cfg = configured();
            switch (tool) {
              case "bash": {
                const args = bashArgs(call, cfg);
                const cwd = await workingDirectory(call, cfg);
                if (args.background) {
                  yield result(
                    startBackground(
                      args,
                      cwd,
                      cfg,
                      call.callContext?.sessionId ?? "",
                      ctx,
                    ),
                  );
                  return;
                }
                yield* runForeground(args, cwd, cfg, signal);
                return;
              }
              case "bash_output":
                yield result(readJob(call));
                return;
              case "bash_kill":
                yield result(await killJob(call));
                return;
              default:
                throw new ToolFailure(
                  "invalid_arguments",
                  `Unknown tool ${
                    JSON.stringify(tool)
                  }: this provider has bash, bash_output and bash_kill`,
                );
            }
          } catch (err) {
            const f = classify(err);
            if (f.kind === "execution_failed") {
              ctx.log.warn(`${tool} failed`, { message: f.message });
            }
            yield failure(f);
          }
        },
        preview: async (req) => {
          const call = req.call;
          try {
            if (!call) {
              throw new ToolFailure("invalid_arguments", "The call is missing");
            }
            if (call.toolName === "bash_output") {
              throw new GrpcStatusError(
                Code.UNIMPLEMENTED,
                "bash_output has no preview (it changes nothing)",
              );
            }
            return { preview: await previewTree(call, configured()) };
          } catch (err) {
            if (err instanceof GrpcStatusError) throw err;
            const f = classify(err);
            const code = {
              invalid_arguments: Code.INVALID_ARGUMENT,
              not_found: Code.NOT_FOUND,
              permission_denied: Code.PERMISSION_DENIED,
              execution_failed: Code.INTERNAL,
              timeout: Code.DEADLINE_EXCEEDED,
              cancelled: Code.CANCELLED,
            }[f.kind];
            throw new GrpcStatusError(code, f.message);
          }
        },
        render: () => {
          throw new GrpcStatusError(Code.UNIMPLEMENTED, "exec has no Render");
        },
        describe: () => describeResponse(manifest),
      }),
    ],
  });
}
