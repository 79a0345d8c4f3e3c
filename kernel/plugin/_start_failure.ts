/**
 * `StartFailure`: a launch step's refusal (a `PluginStartError` code plus
 * what happened), thrown by the steps after the spawn; the host turns it
 * into a `PluginStartError` once the process is gone and its stderr read.
 *
 * @module
 */
import type { PluginStartErrorCode } from "./errors.ts";

/** Why a launch step refused the plugin. */
export class StartFailure extends Error {
  /** The `PluginStartError` code to report. */
  readonly code: PluginStartErrorCode;
  /**
   * @param code The `PluginStartError` code to report.
   * @param detail What was expected and what happened.
   * @param options The cause, if any.
   */
  constructor(
    code: PluginStartErrorCode,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(detail, options);
    this.name = "StartFailure";
    this.code = code;
  }
}
