/**
 * A launch's target (the plugin's name and resolved path plus the host's
 * defaults), the `PluginStartError` naming it, and the preflight that
 * refuses a launch before anything starts.
 *
 * @module
 */
import { APP_PROTOCOL_VERSION } from "../../proto/handshake.ts";
import type { PluginManifest } from "../../contract/manifest.ts";
import {
  type EffectivePermissions,
  formatDenials,
  type PermissionGrant,
  resolvePermissions,
} from "../../contract/permissions.ts";
import { PluginStartError, type PluginStartErrorCode } from "./errors.ts";

/** One launch's plugin, resolved against the host's defaults. */
export interface LaunchTarget {
  /** The plugin's name. */
  name: string;
  /** The executable, or the Deno module's absolute path or URL. */
  path: string;
  /** True for a remote Deno module. */
  remote: boolean;
  /** The host's working directory (also the plugin's). */
  cwd: string;
  /** The environment granted variables are copied from. */
  kernelEnv: Record<string, string>;
  /** Milliseconds from spawn until the plugin is healthy. */
  startTimeoutMs: number;
}

/**
 * A launch error naming the plugin and its path.
 *
 * @param target The plugin.
 * @param code The stable reason.
 * @param detail What was expected and what happened.
 * @param tail The tail of its stderr.
 * @param cause The underlying error.
 * @returns The error to throw.
 */
export function startError(
  target: LaunchTarget,
  code: PluginStartErrorCode,
  detail: string,
  tail = "",
  cause?: unknown,
): PluginStartError {
  return new PluginStartError(
    code,
    target.name,
    target.path,
    detail,
    tail,
    cause ? { cause } : undefined,
  );
}

/**
 * Refuses a launch before anything starts: another protocol version,
 * permissions the operator did not grant, a missing or non-executable
 * entrypoint.
 *
 * @param manifest The plugin's manifest.
 * @param grant The operator's grant.
 * @param target The plugin's path and the host's cwd and environment.
 * @returns The plugin's effective permissions.
 * @throws {PluginStartError} When the launch is refused.
 */
export async function preflight(
  manifest: PluginManifest,
  grant: PermissionGrant,
  target: LaunchTarget,
): Promise<EffectivePermissions> {
  if (manifest.protocolVersion !== APP_PROTOCOL_VERSION) {
    throw startError(
      target,
      "plugin_version_mismatch",
      `it declares protocol version ${manifest.protocolVersion}, this kernel speaks ${APP_PROTOCOL_VERSION}`,
    );
  }
  const { effective, denied } = resolvePermissions(
    manifest.capabilities,
    grant,
    { cwd: target.cwd, env: target.kernelEnv },
  );
  if (denied.length > 0) {
    throw startError(
      target,
      "plugin_permission_denied",
      `its manifest asks for permissions the operator did not grant: ${
        formatDenials(denied)
      }`,
    );
  }
  if (!target.remote) {
    let stat: Deno.FileInfo;
    try {
      stat = await Deno.stat(target.path);
    } catch (err) {
      throw startError(
        target,
        "plugin_not_found",
        "the file does not exist",
        "",
        err,
      );
    }
    if (!stat.isFile) {
      throw startError(target, "plugin_not_found", "it is not a regular file");
    }
    if (
      manifest.runtime === "executable" &&
      ((stat.mode ?? 0o755) & 0o111) === 0
    ) {
      throw startError(
        target,
        "plugin_not_executable",
        "the file is not executable (expected an executable bit, e.g. chmod +x)",
      );
    }
  }
  return effective;
}
