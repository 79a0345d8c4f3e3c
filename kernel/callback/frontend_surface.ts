/**
 * The frontend half of `KernelCallbackService` as the callback endpoint
 * sees it: a {@linkcode FrontendSurface} gives each connection its
 * handlers (bound to the caller's server-derived identity) and learns when
 * a plugin's process exits. `kernel/frontend/` implements it; this folder
 * only routes to it, so that the plugin layer does not depend on sessions.
 *
 * Failures carry a `frontend.v1.FrontendError` in the status details
 * ({@linkcode frontendError}), as kernel.md §2.6 requires.
 *
 * @module
 */
import { create, toBinary } from "@bufbuild/protobuf";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import {
  FrontendErrorCategory,
  FrontendErrorSchema,
} from "../../proto/gen/pluggableharness/frontend/v1/errors_pb.ts";
import type { PluginIdentity } from "../../contract/plugin_identity.ts";
import type { CallbackImpl } from "./host.ts";

/** The RPCs a {@linkcode FrontendSurface} serves. */
export type FrontendRpc =
  | "getSessionState"
  | "submitInput"
  | "resolvePlanDecision"
  | "interrupt"
  | "createSession"
  | "attachSession"
  | "resumeSession"
  | "detachSession"
  | "listSessions"
  | "publishMetadata"
  | "retractMetadata"
  | "listMetadata"
  | "streamDeltas"
  | "invokeSlashCommand"
  | "triggerAction"
  | "renderEvents"
  | "verifySession";

/** The handlers of the frontend RPCs for one connection. */
export type FrontendHandlers = Pick<CallbackImpl, FrontendRpc>;

/** What the callback endpoint needs from the kernel's frontend surfaces. */
export interface FrontendSurface {
  /**
   * The handlers for one plugin's connection.
   *
   * @param caller The plugin's server-derived identity.
   * @returns Its handlers.
   */
  handlers(caller: PluginIdentity): FrontendHandlers;
  /**
   * The plugin's process has exited: its attachments end and its metadata
   * blocks turn `DISCONNECTED`.
   *
   * @param caller The plugin.
   */
  released(caller: PluginIdentity): void;
}

/** The `type_url` of a `FrontendError` status detail. */
export const FRONTEND_ERROR_TYPE_URL: string =
  `type.googleapis.com/${FrontendErrorSchema.typeName}`;

/**
 * A gRPC status error carrying a `FrontendError` detail.
 *
 * @example
 * ```ts
 * import { frontendError } from "./frontend_surface.ts";
 * import { FrontendErrorCategory } from "../../proto/gen/pluggableharness/frontend/v1/errors_pb.ts";
 * import assert from "node:assert/strict";
 * const err = frontendError(5, FrontendErrorCategory.SESSION_NOT_FOUND, "No session");
 * assert.equal(err.details.length, 1);
 * ```
 *
 * @param code The gRPC status code.
 * @param category The frontend error category.
 * @param message The message (also the status message).
 * @returns The error to throw.
 */
export function frontendError(
  code: Code,
  category: FrontendErrorCategory,
  message: string,
): GrpcStatusError {
  return new GrpcStatusError(code, message, {
    details: [{
      typeUrl: FRONTEND_ERROR_TYPE_URL,
      value: toBinary(
        FrontendErrorSchema,
        create(FrontendErrorSchema, { category, message }),
      ),
    }],
  });
}

/** `INVALID_ARGUMENT` with category `INVALID_REQUEST`. */
export function invalidRequest(message: string): GrpcStatusError {
  return frontendError(
    Code.INVALID_ARGUMENT,
    FrontendErrorCategory.INVALID_REQUEST,
    message,
  );
}

export { Code, FrontendErrorCategory };
