/**
 * The schema of exec's three tools (`bash`, `bash_output`, `bash_kill`).
 *
 * @module
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  type SchemaSchema,
  SchemaType,
} from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import type { GetSchemaResponseSchema } from "../../proto/gen/pluggableharness/tool/v1/rpc_response_pb.ts";
import {
  RiskClass,
  ToolKind,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { configSchemaOf, type PluginManifest } from "../sdk/mod.ts";
import { objectSchema as object } from "../sdk/tool_kit.ts";
import { TIMEOUT_CEILING_S } from "./_config.ts";

type Schema = MessageInitShape<typeof SchemaSchema>;

function str(description: string): Schema {
  return { type: SchemaType.STRING, description };
}

function num(description: string): Schema {
  return { type: SchemaType.NUMBER, description };
}

function bool(description: string): Schema {
  return { type: SchemaType.BOOLEAN, description };
}

const BACKGROUND_ID = str(
  "The id bash returned for a command started with run_in_background.",
);

/**
 * The GetSchema response of exec.
 *
 * @param manifest The plugin's manifest (its config schema).
 * @returns The three tools and the config schema.
 */
export function toolSchema(
  manifest: PluginManifest,
): MessageInitShape<typeof GetSchemaResponseSchema> {
  return {
    tools: [
      {
        name: "bash",
        kind: ToolKind.RESOURCE,
        risk: RiskClass.HIGH,
        description:
          "Runs a bash command line (`bash -c`) in the session's working " +
          "directory and returns its exit code, stdout and stderr (long " +
          "output keeps its start and end, with a truncation marker). The " +
          "command gets no terminal, no stdin and only PATH plus the " +
          "configured variables. It is killed with its whole process tree " +
          "after timeout_s seconds. Set run_in_background for servers and " +
          "long jobs, then read them with bash_output and stop them with " +
          "bash_kill. Each simple command of the line is checked by policy, " +
          "so prefer plain commands over eval or variables as command names.",
        inputSchema: object({
          command: str("The command line, run with bash -c."),
          timeout_s: num(
            "Seconds before the command is killed (default and maximum set by the operator).",
          ),
          run_in_background: bool(
            "Start the command and return at once with a background_id.",
          ),
          description: str(
            "A few words saying what the command does, shown to the user.",
          ),
        }, ["command"]),
        outputSchema: object({
          status: str(
            '"exited" for a finished command, "background" for one started with run_in_background.',
          ),
          exit_code: num("The exit code (128 + n after signal n)."),
          signal: str("The signal that ended the command, if any."),
          stdout: str("Standard output, cut in the middle when too long."),
          stderr: str("Standard error, cut in the middle when too long."),
          truncated: bool("Whether output was cut."),
          duration_ms: num("How long the command ran."),
          working_directory: str("Where the command ran."),
          background_id: str("The background command's id."),
        }, ["status", "stdout", "stderr", "truncated", "working_directory"]),
        streaming: true,
        concurrency: { safe: false, keyFields: [] },
        defaultTimeout: { seconds: BigInt(TIMEOUT_CEILING_S + 30) },
        idempotent: false,
      },
      {
        name: "bash_output",
        kind: ToolKind.DATA_SOURCE,
        risk: RiskClass.READ_ONLY,
        description:
          "Returns the output a background command wrote since the last " +
          "bash_output call, and whether it is still running (with its exit " +
          "code once it ended).",
        inputSchema: object({ background_id: BACKGROUND_ID }, [
          "background_id",
        ]),
        outputSchema: object({
          background_id: str("The background command's id."),
          command: str("Its command line."),
          status: str('"running" or "exited".'),
          exit_code: num("The exit code, once exited."),
          signal: str("The signal that ended it, if any."),
          stdout: str("New standard output."),
          stderr: str("New standard error."),
          dropped_bytes: num(
            "Unread bytes dropped because too much output piled up.",
          ),
        }, [
          "background_id",
          "command",
          "status",
          "stdout",
          "stderr",
          "dropped_bytes",
        ]),
        streaming: false,
        concurrency: { safe: true, keyFields: ["background_id"] },
        defaultTimeout: { seconds: 10n },
        idempotent: true,
      },
      {
        name: "bash_kill",
        kind: ToolKind.RESOURCE,
        risk: RiskClass.LOW,
        description: "Kills a background command and every process it started.",
        inputSchema: object({ background_id: BACKGROUND_ID }, [
          "background_id",
        ]),
        outputSchema: object({
          background_id: str("The background command's id."),
          status: str('"killed", or "exited" when it had already ended.'),
          exit_code: num("Its exit code."),
          signal: str("The signal that ended it, if any."),
        }, ["background_id", "status"]),
        streaming: false,
        concurrency: { safe: true, keyFields: ["background_id"] },
        defaultTimeout: { seconds: 10n },
        idempotent: true,
      },
    ],
    configSchema: configSchemaOf(manifest),
    supportedHookPoints: [],
  };
}
