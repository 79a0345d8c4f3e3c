/**
 * A slash command's raw argument string as its `arguments`.
 *
 * @module
 */
import type { JsonObject } from "@bufbuild/protobuf";
import {
  type Schema,
  SchemaType,
} from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import { schemaViolation } from "../agent/schema_check.ts";
import { invalidRequest } from "../callback/frontend_surface.ts";

/**
 * Parses a slash command's raw argument string into its `arguments`
 * (inferred, plugins.md §6.7): a JSON object as is; otherwise, for a
 * schema with exactly one string property, that property; empty text is
 * `{}`. The result is checked against `input_schema`.
 *
 * @param name The command (for messages).
 * @param raw The raw argument string.
 * @param schema The command's `input_schema`.
 * @returns The arguments.
 * @throws {GrpcStatusError} `INVALID_ARGUMENT` when they do not fit.
 */
export function parseSlashArgs(
  name: string,
  raw: string,
  schema: Schema | undefined,
): JsonObject {
  const text = raw.trim();
  let args: JsonObject;
  if (text === "") args = {};
  else if (text.startsWith("{")) {
    try {
      args = JSON.parse(text) as JsonObject;
    } catch (err) {
      throw invalidRequest(
        `Arguments of "/${name}" start with "{" but are not JSON: ${
          (err as Error).message
        }`,
      );
    }
  } else {
    const strings = Object.entries(schema?.properties ?? {}).filter(([, s]) =>
      s.type === SchemaType.STRING
    );
    if (strings.length !== 1) {
      throw invalidRequest(
        `Cannot read the arguments of "/${name}": give a JSON object (the command takes no single text argument)`,
      );
    }
    args = { [strings[0]![0]]: text };
  }
  const bad = schema ? schemaViolation(args, schema) : undefined;
  if (bad) {
    throw invalidRequest(
      `Arguments of "/${name}" do not match its input_schema: ${bad}`,
    );
  }
  return args;
}
