/**
 * A tool call's inputs: its working directory confined to the roots and
 * the checked arguments of `bash`.
 *
 * @module
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { isAbsolute, relative } from "node:path";
import type { Config } from "./_config.ts";
import { ToolFailure } from "./_failure.ts";

/** The parts of a tool call exec reads. */
export interface Call {
  /** The tool's name. */
  toolName?: string;
  /** The call's arguments. */
  arguments?: JsonObject;
  /** The session and working directory of the call. */
  callContext?: { sessionId: string; workingDirectory: string };
}
function within(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** The call's working directory, resolved and confined to the roots. */
export async function workingDirectory(
  call: Call,
  cfg: Config,
): Promise<string> {
  const wd = call.callContext?.workingDirectory ?? "";
  if (wd === "" || !isAbsolute(wd)) {
    throw new ToolFailure(
      "invalid_arguments",
      `The call's working directory must be an absolute path, got ${
        JSON.stringify(wd)
      }`,
    );
  }
  let real: string;
  try {
    real = await Deno.realPath(wd);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw new ToolFailure(
        "not_found",
        `The working directory ${wd} does not exist`,
      );
    }
    throw new ToolFailure(
      "permission_denied",
      `The working directory ${wd} is outside what exec may read (the roots are ${
        cfg.roots.join(", ")
      })`,
    );
  }
  if (!cfg.roots.some((r) => within(real, r))) {
    throw new ToolFailure(
      "permission_denied",
      `The working directory ${wd} is outside the roots of this exec provider (${
        cfg.roots.join(", ")
      })`,
      { working_directory: wd, roots: cfg.roots },
    );
  }
  return real;
}

/** The arguments of a `bash` call, checked. */
export interface BashArgs {
  /** The command line. */
  command: string;
  /** The call's timeout_s, else the default (foreground) or the maximum (background). */
  timeoutS: number;
  /** `run_in_background`. */
  background: boolean;
}

/** The arguments of a `bash` call, checked against the config. */
export function bashArgs(call: Call, cfg: Config): BashArgs {
  const a = call.arguments ?? {};
  for (const key of Object.keys(a)) {
    if (
      !["command", "timeout_s", "run_in_background", "description"].includes(
        key,
      )
    ) {
      throw new ToolFailure(
        "invalid_arguments",
        `Unknown argument ${
          JSON.stringify(key)
        }: bash takes command, timeout_s, run_in_background and description`,
      );
    }
  }
  if (typeof a.command !== "string" || a.command.trim() === "") {
    throw new ToolFailure(
      "invalid_arguments",
      "command must be a non-empty string",
    );
  }
  let timeoutS = cfg.defaultTimeoutS;
  if (a.timeout_s !== undefined && a.timeout_s !== null) {
    if (
      typeof a.timeout_s !== "number" || !(a.timeout_s > 0) ||
      a.timeout_s > cfg.maxTimeoutS
    ) {
      throw new ToolFailure(
        "invalid_arguments",
        `timeout_s must be a number above 0 and at most ${cfg.maxTimeoutS}, got ${
          JSON.stringify(a.timeout_s)
        }`,
      );
    }
    timeoutS = a.timeout_s;
  }
  const bg = a.run_in_background ?? false;
  if (typeof bg !== "boolean") {
    throw new ToolFailure(
      "invalid_arguments",
      "run_in_background must be a boolean",
    );
  }
  if (a.description !== undefined && typeof a.description !== "string") {
    throw new ToolFailure("invalid_arguments", "description must be a string");
  }
  if (bg && (a.timeout_s === undefined || a.timeout_s === null)) {
    timeoutS = cfg.maxTimeoutS;
  }
  return { command: a.command, timeoutS, background: bg };
}
