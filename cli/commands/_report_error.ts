/**
 * How the session commands (`agent`, `agent run`, `agent sessions`) report
 * an error of opening a kernel, a session or the session store: printed,
 * and mapped to an exit code.
 *
 * @module
 */
import { ConfigError, formatDiagnostic } from "../../config/mod.ts";
import { ProviderError } from "../../kernel/api.ts";
import {
  PluginCrashedError,
  PluginStartError,
} from "../../kernel/plugin/errors.ts";
import { SessionNotFoundError, StateError } from "../../kernel/state/errors.ts";
import { SessionNotResumableError } from "../../kernel/agent/errors.ts";
import type { CliIo } from "./io.ts";
import { EXIT_CONFIG, EXIT_PROVIDER, EXIT_TASK_ERROR } from "./exit_codes.ts";

/**
 * Maps an error of opening a kernel or a session to an exit code, and
 * prints it.
 *
 * @param io Where to print.
 * @param err The error.
 * @returns The exit code.
 */
export function reportError(io: CliIo, err: unknown): number {
  if (err instanceof ConfigError) {
    for (const d of err.diagnostics) {
      io.stderr(`${formatDiagnostic(d)}\n`);
    }
    io.stderr(`error: ${err.message}\n`);
    return EXIT_CONFIG;
  }
  const message = err instanceof Error ? err.message : String(err);
  if (
    err instanceof ProviderError || err instanceof PluginStartError ||
    err instanceof PluginCrashedError
  ) {
    io.stderr(`error: ${message}\n`);
    return EXIT_PROVIDER;
  }
  if (
    err instanceof SessionNotFoundError ||
    err instanceof SessionNotResumableError || err instanceof StateError
  ) {
    io.stderr(`error: ${message}\n`);
    return EXIT_TASK_ERROR;
  }
  io.stderr(`error: ${message}\n`);
  return EXIT_TASK_ERROR;
}
