/**
 * Runtime errors that kernel callers catch. Each has a stable `code` for
 * `--json` output, keeps its data in readonly fields and passes `cause`.
 *
 * @module
 */

/** Stable codes of {@linkcode PluginStartError}. */
export type PluginStartErrorCode =
  | "plugin_permission_denied"
  | "plugin_not_executable"
  | "plugin_not_found"
  | "plugin_manifest_invalid"
  | "plugin_version_mismatch"
  | "plugin_exited_before_handshake"
  | "plugin_start_timeout"
  | "plugin_handshake_invalid"
  | "plugin_health_failed"
  | "plugin_sandbox_unavailable";

/**
 * A plugin could not be started. The message names the plugin, its path,
 * what was expected, and ends with the tail of the plugin's stderr.
 */
export class PluginStartError extends Error {
  /** The stable reason. */
  readonly code: PluginStartErrorCode;
  /** The plugin's name. */
  readonly plugin: string;
  /** The executable or module that was started. */
  readonly path: string;
  /** The last lines the plugin wrote to stderr (may be empty). */
  readonly stderrTail: string;
  /**
   * Creates the error.
   *
   * @param code The stable reason.
   * @param plugin The plugin's name.
   * @param path The executable or module.
   * @param detail What was expected and what happened.
   * @param stderrTail The tail of the plugin's stderr.
   * @param options Standard error options.
   */
  constructor(
    code: PluginStartErrorCode,
    plugin: string,
    path: string,
    detail: string,
    stderrTail = "",
    options?: ErrorOptions,
  ) {
    const tail = stderrTail.trim()
      ? `\n--- last stderr of plugin "${plugin}" ---\n${stderrTail.trimEnd()}`
      : "";
    super(
      `Cannot start plugin "${plugin}" (${path}): ${detail}${tail}`,
      options,
    );
    this.name = "PluginStartError";
    this.code = code;
    this.plugin = plugin;
    this.path = path;
    this.stderrTail = stderrTail;
  }
}

/** How a plugin process ended. */
export interface ExitInfo {
  /** Exit code, when the process exited by itself. */
  code: number;
  /** Signal name, when it was killed by one. */
  signal: string | null;
}

/** Formats an exit for messages: `exit code 3` or `signal SIGKILL`. */
export function describeExit(exit: ExitInfo): string {
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
}

/**
 * A plugin exited or was killed while calls were pending or made. Pending
 * calls fail with this error at once.
 */
export class PluginCrashedError extends Error {
  /** Stable code. */
  readonly code = "process_crashed";
  /** The plugin's name. */
  readonly plugin: string;
  /** How it ended. */
  readonly exit: ExitInfo;
  /** The last lines the plugin wrote to stderr. */
  readonly stderrTail: string;
  /**
   * Creates the error.
   *
   * @param plugin The plugin's name.
   * @param exit How it ended.
   * @param stderrTail The tail of its stderr.
   * @param options Standard error options.
   */
  constructor(
    plugin: string,
    exit: ExitInfo,
    stderrTail = "",
    options?: ErrorOptions,
  ) {
    const tail = stderrTail.trim()
      ? `\n--- last stderr of plugin "${plugin}" ---\n${stderrTail.trimEnd()}`
      : "";
    super(`plugin "${plugin}" crashed (${describeExit(exit)})${tail}`, options);
    this.name = "PluginCrashedError";
    this.plugin = plugin;
    this.exit = exit;
    this.stderrTail = stderrTail;
  }
}
