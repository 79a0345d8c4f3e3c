/**
 * Helpers every `agent` command shares: the usage error, the colour
 * decision and option parsing that turns a bad option into a usage error.
 * Light on purpose (no kernel, no compiler): `check-config` loads it before
 * its cache lookup.
 *
 * @module
 */
import { parseArgs } from "node:util";
import type { CliIo } from "./io.ts";
import { EXIT_USAGE } from "./exit_codes.ts";

/**
 * Prints a usage error: the usage line, then `error: <message>`.
 *
 * @param io Where to print.
 * @param usage The command's usage line.
 * @param message What is wrong.
 * @returns {@linkcode EXIT_USAGE}.
 */
export function usageError(io: CliIo, usage: string, message: string): number {
  io.stderr(`${usage}\nerror: ${message}\n`);
  return EXIT_USAGE;
}

/**
 * Whether to colour the output: only on a terminal, without `NO_COLOR`,
 * `--no-color` or `--json`.
 *
 * @param io The streams and environment.
 * @param options What the command line asked for.
 * @returns Whether to colour.
 */
export function useColor(
  io: CliIo,
  options: { noColor?: boolean; json?: boolean } = {},
): boolean {
  return io.isTerminal && !options.noColor && !io.env.NO_COLOR &&
    !options.json;
}

/**
 * The text of an error, for a message.
 *
 * @param err What was thrown.
 * @returns Its message, or the value as a string.
 */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The options a command accepts, as `parseArgs` takes them. */
export type OptionSpec = Record<
  string,
  { type: "string" | "boolean"; short?: string }
>;

/** The values of parsed options, typed from their spec: each may be absent. */
export type OptionValues<O extends OptionSpec> = {
  [K in keyof O]?: O[K]["type"] extends "string" ? string : boolean;
};

/** Parsed options and positionals. */
export interface Parsed<O extends OptionSpec = OptionSpec> {
  /** The options' values, by long name. */
  values: OptionValues<O>;
  /** The positional arguments. */
  positionals: string[];
}

/**
 * Parses a command's arguments strictly; a bad option is printed as a
 * usage error. The values are typed from `options`: a `"string"` option is
 * a `string`, a `"boolean"` one a `boolean`.
 *
 * @example Usage
 * ```ts
 * import { parseOptions } from "./_common.ts";
 * import assert from "node:assert/strict";
 * const io = {
 *   stdout: () => {}, stderr: () => {}, isTerminal: false, env: {}, cwd: ".",
 * };
 * const parsed = parseOptions(io, "Usage: x", ["d", "--json"], {
 *   json: { type: "boolean" },
 *   base: { type: "string" },
 * });
 * assert.deepEqual(parsed?.positionals, ["d"]);
 * assert.equal(parsed?.values.json, true);
 * assert.equal(parsed?.values.base, undefined);
 * ```
 *
 * @param io Where to print a usage error.
 * @param usage The command's usage line.
 * @param args The arguments after the command.
 * @param options The options the command accepts.
 * @returns The parsed arguments, or `undefined` after a usage error (exit
 * with {@linkcode EXIT_USAGE}).
 */
export function parseOptions<const O extends OptionSpec>(
  io: CliIo,
  usage: string,
  args: readonly string[],
  options: O,
): Parsed<O> | undefined {
  try {
    const r = parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options,
    });
    return {
      values: r.values as OptionValues<O>,
      positionals: r.positionals,
    };
  } catch (err) {
    usageError(io, usage, errorText(err));
    return undefined;
  }
}
