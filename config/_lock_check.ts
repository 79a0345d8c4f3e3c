/**
 * The lock checks of stage B: one provider's entry in
 * `.agent/agent.lock.hcl` against `agent.hcl` and its plugin as it is now
 * (source, version constraint, version, checksum of the host's platform,
 * capability envelope). Private to `config/`; {@linkcode compile} calls it
 * through `resolveProvider`.
 *
 * @module
 */

import type { Diagnostic, SourceRange } from "../contract/diagnostic.ts";
import { PERMISSION_KINDS } from "../contract/permissions.ts";
import type {
  CapabilityEnvelope,
  PluginManifest,
} from "../contract/manifest.ts";
import {
  E_CHECKSUM_MISMATCH,
  E_CHECKSUM_MISSING,
  E_ENVELOPE_GROWN,
  E_LOCK_OUTDATED,
  E_PROVIDER_NOT_LOCKED,
  W_LOCK_OUTDATED,
  W_PROVIDER_NOT_LOCKED,
} from "./codes.ts";
import { checksumsEqual } from "./checksum.ts";
import type { RequiredProvider } from "./decode.ts";
import type { LockedProvider } from "./lock_file.ts";
import type { PlanProvider } from "./plan.ts";
import { satisfies } from "./version_constraint.ts";
import { diag } from "./_schema.ts";

/** The envelope of a plugin that declares no permission. */
export const EMPTY_ENVELOPE: CapabilityEnvelope = {
  env: [],
  run: [],
  read: [],
  write: [],
  net: [],
};

/** What {@linkcode checkLockEntry} compares a lock entry with. */
export interface LockCheckContext {
  /** Where the diagnostics go. */
  diagnostics: Diagnostic[];
  /** Whether a stale or missing entry is an error (`--locked`). */
  locked: boolean;
  /** The lock file's shown path. */
  lockPath: string;
  /** The platform whose checksum is checked. */
  platform: string;
  /** The plugin's version as it is now (manifest, else lock entry). */
  version: string | undefined;
  /** The plugin's manifest, when its files are here. */
  manifest: PluginManifest | undefined;
  /** The artifact's checksum as it is now, when its files are here. */
  checksum: string | undefined;
}

/**
 * Checks a provider's lock entry: missing (`*_PROVIDER_NOT_LOCKED`), stale
 * (`*_LOCK_OUTDATED`: another source, a version outside the constraint,
 * another plugin version), its checksum (`E_CHECKSUM_MISSING`,
 * `E_CHECKSUM_MISMATCH`) and its approved envelope (`E_ENVELOPE_GROWN`).
 * A stale entry stops the checks after its first finding.
 *
 * @param rp The provider as `agent.hcl` requires it.
 * @param entry Its lock entry, if any.
 * @param ctx The plugin as it is now, and where diagnostics go.
 * @returns The entry as the plan records it, or `undefined` when there is none.
 */
export function checkLockEntry(
  rp: RequiredProvider,
  entry: LockedProvider | undefined,
  ctx: LockCheckContext,
): PlanProvider["lock"] {
  if (entry === undefined) {
    ctx.diagnostics.push(diag(
      ctx.locked ? "error" : "warning",
      ctx.locked ? E_PROVIDER_NOT_LOCKED : W_PROVIDER_NOT_LOCKED,
      `Provider "${rp.name}" is not locked`,
      `${ctx.lockPath} has no entry for "${rp.name}". Run "agent lock" and commit the file.`,
      rp.range,
    ));
    return undefined;
  }
  const out = {
    version: entry.version,
    resolvedAt: entry.resolvedAt,
    checksums: { ...entry.checksums },
  };
  if (reportOutdated(rp, entry, ctx)) return out;
  checkChecksum(rp.name, entry, ctx);
  if (ctx.manifest !== undefined) {
    checkEnvelope(rp, entry, ctx.manifest, ctx);
  }
  return out;
}

/**
 * Reports the first way the entry is out of date (source, constraint,
 * version), if any.
 */
function reportOutdated(
  rp: RequiredProvider,
  entry: LockedProvider,
  ctx: LockCheckContext,
): boolean {
  const name = rp.name;
  const soft = (
    summary: string,
    detail: string,
    range: SourceRange | undefined,
  ) =>
    ctx.diagnostics.push(diag(
      ctx.locked ? "error" : "warning",
      ctx.locked ? E_LOCK_OUTDATED : W_LOCK_OUTDATED,
      summary,
      `${detail} Run "agent lock" to update ${ctx.lockPath}.`,
      range,
    ));
  if (entry.source !== rp.source) {
    soft(
      `Lock entry of provider "${name}" has another source`,
      `It was locked from ${
        JSON.stringify(entry.source)
      }, but agent.hcl now says ${JSON.stringify(rp.source)}.`,
      rp.sourceRange,
    );
    return true;
  }
  if (!satisfies(entry.version, rp.constraint)) {
    soft(
      `Locked version ${entry.version} of provider "${name}" does not satisfy ${
        JSON.stringify(rp.constraintText)
      }`,
      "The version constraint changed since the provider was locked.",
      rp.versionRange,
    );
    return true;
  }
  if (ctx.manifest !== undefined && ctx.version !== entry.version) {
    soft(
      `Lock entry of provider "${name}" is for version ${entry.version}, not ${ctx.version}`,
      `The plugin at ${
        JSON.stringify(rp.source)
      } is now version ${ctx.version}.`,
      rp.range,
    );
    return true;
  }
  return false;
}

/** The recorded checksum for the platform: present, and equal to the artifact's. */
function checkChecksum(
  name: string,
  entry: LockedProvider,
  ctx: LockCheckContext,
): void {
  const recorded = entry.checksums[ctx.platform];
  if (recorded === undefined) {
    const have = Object.keys(entry.checksums);
    ctx.diagnostics.push(diag(
      "error",
      E_CHECKSUM_MISSING,
      `No checksum of provider "${name}" for platform ${ctx.platform}`,
      `${ctx.lockPath} records checksums for ${
        have.length === 0 ? "no platform" : have.join(", ")
      } only, so the plugin cannot be verified on this machine. Lock it again on a machine that can compute it, or from a release that publishes it.`,
      entry.range,
    ));
  } else if (
    ctx.checksum !== undefined && !checksumsEqual(recorded, ctx.checksum)
  ) {
    ctx.diagnostics.push(diag(
      "error",
      E_CHECKSUM_MISMATCH,
      `Checksum mismatch for provider "${name}"`,
      `The plugin's files changed since it was locked: ${ctx.lockPath} records ${recorded} for ${ctx.platform}, but its artifact is now ${ctx.checksum}. Review the change, then run "agent lock".`,
      entry.range,
    ));
  }
}

/** The manifest asks for nothing beyond the envelope approved at lock time. */
function checkEnvelope(
  rp: RequiredProvider,
  entry: LockedProvider,
  manifest: PluginManifest,
  ctx: LockCheckContext,
): void {
  const approved = entry.envelope ?? EMPTY_ENVELOPE;
  const grown: string[] = [];
  for (const kind of PERMISSION_KINDS) {
    for (const v of manifest.capabilities[kind]) {
      if (!approved[kind].includes(v)) grown.push(`${kind} "${v}"`);
    }
  }
  if (grown.length === 0) return;
  ctx.diagnostics.push(diag(
    "error",
    E_ENVELOPE_GROWN,
    `Provider "${rp.name}" declares new permissions: ${grown.join(", ")}`,
    `Its manifest asks for more than was approved when it was locked (${
      entry.envelope ? "the envelope in" : "no envelope is recorded in"
    } ${ctx.lockPath}). It fails the check until it is reviewed and locked again with "agent lock".`,
    rp.range,
  ));
}
