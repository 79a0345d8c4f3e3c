/**
 * The failure class tool plugins share: a classified {@linkcode ToolFailure}
 * that becomes a terminal `ToolError`, the mapping of Deno's filesystem
 * errors onto it, and a small argument checker.
 *
 * @module
 */
import { ToolErrorCategory } from "../../proto/gen/pluggableharness/tool/v1/errors_pb.ts";
import { type InvokeEvent, toolError } from "./tool_kit.ts";
import { PathError } from "./roots.ts";

/** ToolError categories these operations fail with (lower snake case). */
export type FailureKind =
  | "invalid_arguments"
  | "not_found"
  | "permission_denied"
  | "execution_failed"
  | "concurrency_conflict"
  | "cancelled";

const CATEGORY: Record<FailureKind, ToolErrorCategory> = {
  invalid_arguments: ToolErrorCategory.INVALID_ARGUMENTS,
  not_found: ToolErrorCategory.NOT_FOUND,
  permission_denied: ToolErrorCategory.PERMISSION_DENIED,
  execution_failed: ToolErrorCategory.EXECUTION_FAILED,
  concurrency_conflict: ToolErrorCategory.CONCURRENCY_CONFLICT,
  cancelled: ToolErrorCategory.CANCELLED,
};

/**
 * The terminal `error` event of a classified failure.
 *
 * @param f The failure.
 * @returns The event.
 */
export function failureEvent(f: ToolFailure): InvokeEvent {
  return toolError(CATEGORY[f.kind], f.message, { details: f.details });
}

/** A classified failure of an operation; becomes a terminal ToolError. */
export class ToolFailure extends Error {
  /** The ToolError category. */
  readonly kind: FailureKind;
  /** Extra structured detail for the kernel (never secrets). */
  readonly details: Record<string, string>;
  /**
   * Creates the failure.
   *
   * @param kind The ToolError category.
   * @param message What went wrong, naming the path.
   * @param details Extra structured detail.
   */
  constructor(
    kind: FailureKind,
    message: string,
    details: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ToolFailure";
    this.kind = kind;
    this.details = details;
  }
}

/** The JSON type an argument must have. */
export type ArgumentType = "string" | "number" | "bool";

/**
 * Checks arguments against a small spec: the required keys present, no
 * unknown key, each value of its type (`null` counts as absent).
 *
 * @param tool The tool name (for the message).
 * @param args The arguments.
 * @param spec Each allowed key and its type.
 * @param required The keys that must be present.
 * @throws {ToolFailure} `invalid_arguments`, naming every problem.
 */
export function checkArgumentTypes(
  tool: string,
  args: Readonly<Record<string, unknown>>,
  spec: Readonly<Record<string, ArgumentType>>,
  required: readonly string[],
): void {
  const problems: string[] = [];
  for (const key of required) {
    if (args[key] === undefined || args[key] === null) {
      problems.push(`"${key}" is required`);
    }
  }
  for (const [key, value] of Object.entries(args)) {
    const type = spec[key];
    if (!type) {
      problems.push(
        `unknown argument "${key}" (expected ${
          Object.keys(spec).map((k) => `"${k}"`).join(", ")
        })`,
      );
      continue;
    }
    if (value === undefined || value === null) continue;
    const actual = typeof value === "boolean" ? "bool" : typeof value;
    if (actual !== type) {
      problems.push(
        `"${key}" must be a ${type === "bool" ? "boolean" : type}, got ${
          Array.isArray(value) ? "array" : typeof value
        }`,
      );
    }
  }
  if (problems.length > 0) {
    throw new ToolFailure(
      "invalid_arguments",
      `Invalid arguments for ${tool}: ${problems.join("; ")}`,
    );
  }
}

/** Maps a Deno filesystem error to a classified failure. */
export function classify(err: unknown, action: string): ToolFailure {
  if (err instanceof ToolFailure) return err;
  if (err instanceof PathError) return new ToolFailure(err.kind, err.message);
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof Deno.errors.NotFound) {
    return new ToolFailure("not_found", `${action}: it does not exist`);
  }
  if (
    err instanceof Deno.errors.NotCapable ||
    err instanceof Deno.errors.PermissionDenied
  ) {
    return new ToolFailure(
      "permission_denied",
      `${action}: permission denied (${message})`,
    );
  }
  if (err instanceof Deno.errors.IsADirectory) {
    return new ToolFailure("invalid_arguments", `${action}: it is a directory`);
  }
  if (err instanceof Deno.errors.NotADirectory) {
    return new ToolFailure(
      "not_found",
      `${action}: a component of the path is not a directory`,
    );
  }
  return new ToolFailure("execution_failed", `${action}: ${message}`, {
    error: err instanceof Error ? err.name : "Error",
  });
}
