/**
 * The channels tool dispatch feeds ({@linkcode postToolOutcome}):
 * `permission-denied` when the permission layer or the tool itself refused
 * a call, with the reason code of the denial ({@linkcode denialReasonOf}),
 * and `tool-empty-output` when a call succeeded with an empty result.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { DenialReasonCode } from "./channels.ts";
import type { ControlPlane, PostOutcome } from "./control_plane.ts";

/**
 * The reason code of a denial from who decided it: `policy:<rule>`,
 * `approval:<source>`, `on_ask:<value>`, `hook-veto:<plugin>`,
 * `hook-error:<plugin>`, `plan-mode`, `out-of-scope`; anything else was the
 * tool's own refusal.
 *
 * @param decidedBy Who denied the call, when the kernel did.
 * @returns The code.
 */
export function denialReasonOf(
  decidedBy: string | undefined,
): DenialReasonCode {
  if (decidedBy === undefined) return "tool-refused";
  if (decidedBy.startsWith("policy:")) return "policy";
  if (decidedBy.startsWith("approval:")) return "user";
  if (decidedBy === "on_ask:timeout") return "ask-timeout";
  if (decidedBy.startsWith("on_ask:")) return "ask-unanswered";
  if (decidedBy.startsWith("hook-")) return "hook-veto";
  if (decidedBy === "plan-mode") return "plan-mode";
  if (decidedBy === "out-of-scope") return "out-of-scope";
  return "policy";
}

/**
 * True when a result carries nothing: `{}`, or only null, empty strings,
 * empty lists and empty objects.
 *
 * @param result The result payload.
 * @returns Whether it is empty.
 */
export function isEmptyResult(result: JsonObject | undefined): boolean {
  if (!result) return true;
  return Object.values(result).every(isEmptyValue);
}

function isEmptyValue(v: JsonValue): boolean {
  if (v === null || v === "") return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === "object") return Object.keys(v).length === 0;
  return false;
}

/** A finished call as {@linkcode postToolOutcome} reads it. */
export interface ToolOutcomeInfo {
  /** The tool's name. */
  readonly tool: string;
  /** The first path its arguments name. */
  readonly path?: string;
  /** Who denied it, when the kernel did. */
  readonly deniedBy?: string;
  /** Its error, when it failed. */
  readonly error?: {
    readonly permissionDenied: boolean;
    readonly message: string;
  };
  /** Its result, when it succeeded. */
  readonly result?: JsonObject;
}

/**
 * Posts the channels a finished call feeds.
 *
 * @param plane The session's control plane.
 * @param call The finished call.
 * @returns What happened to the posted message, or `undefined` when the
 * call feeds no channel.
 */
export function postToolOutcome(
  plane: ControlPlane,
  call: ToolOutcomeInfo,
): PostOutcome | undefined {
  if (call.deniedBy !== undefined || call.error?.permissionDenied) {
    return plane.post({
      channel: "permission-denied",
      attrs: {
        tool: call.tool,
        "reason-code": denialReasonOf(call.deniedBy),
        ...(call.path !== undefined ? { path: call.path } : {}),
      },
      body: call.error?.message ?? "",
      source: call.deniedBy ?? call.tool,
    });
  }
  if (!call.error && isEmptyResult(call.result)) {
    return plane.post({
      channel: "tool-empty-output",
      attrs: { tool: call.tool },
      body:
        "The call succeeded but returned nothing. Check its input or try another way before assuming it worked.",
    });
  }
  return undefined;
}

/**
 * Posts `mcp-tools-changed` for a provider whose re-listed tools differ:
 * the body names the added and removed qualified tool names. A re-list
 * that adds and removes nothing (only a description changed) posts
 * nothing.
 *
 * @param plane The session's control plane.
 * @param provider The provider (MCP server) local name.
 * @param before The tool names before the re-list.
 * @param after The tool names after it.
 * @returns What happened to the message, or `undefined` when no name changed.
 */
export function postToolsChanged(
  plane: ControlPlane,
  provider: string,
  before: readonly string[],
  after: readonly string[],
): PostOutcome | undefined {
  const had = new Set(before);
  const has = new Set(after);
  const added = after.filter((n) => !had.has(n));
  const removed = before.filter((n) => !has.has(n));
  if (added.length === 0 && removed.length === 0) return undefined;
  const q = (names: string[]) =>
    names.map((n) => `${provider}.${n}`).join(", ") || "(none)";
  return plane.post({
    channel: "mcp-tools-changed",
    attrs: { server: provider, added: added.length, removed: removed.length },
    body: `Added: ${q(added)}\nRemoved: ${q(removed)}`,
    source: provider,
  });
}
