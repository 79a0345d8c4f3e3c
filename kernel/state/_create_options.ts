/**
 * The checks every session store makes of {@linkcode CreateSessionOptions}
 * before it creates anything: one implementation, so the memory, sqlite and
 * PostgreSQL stores refuse the same input with the same message.
 *
 * @module
 */
import type { CreateSessionOptions } from "./session_store.ts";
import { isUlid, ulid } from "./ulid.ts";

/** Create options after the checks. */
export interface CheckedCreate {
  /** The session's id: the caller's, or a new ULID of `now`. */
  readonly sessionId: string;
  /** Its parent's id, for a child session. */
  readonly parent: string | undefined;
  /** Its depth (0 for a root session). */
  readonly depth: number;
}

/**
 * Throws unless `id` is a canonical ULID.
 *
 * @param id The id.
 * @param what What it is, for the message.
 * @throws {RangeError} When it is not.
 */
export function checkSessionId(id: string, what = "session id"): void {
  if (typeof id !== "string" || !isUlid(id)) {
    throw new RangeError(
      `Cannot use ${what} ${JSON.stringify(id)}: it is not a canonical ULID`,
    );
  }
}

/**
 * Checks a store's create options: a profile, a canonical parent id with a
 * depth, a non-negative integer depth, a canonical session id.
 *
 * @param options The caller's options.
 * @param now The time a new id is made of.
 * @returns The id, parent and depth to create.
 * @throws {TypeError | RangeError} Naming the field at fault.
 */
export function checkCreateOptions(
  options: CreateSessionOptions,
  now: Date,
): CheckedCreate {
  if (typeof options.profile !== "string" || options.profile === "") {
    throw new TypeError("Cannot create a session: profile is required");
  }
  const parent = options.parentSessionId;
  if (parent !== undefined) checkSessionId(parent, "parent session id");
  if (parent !== undefined && options.depth === undefined) {
    throw new TypeError(
      "Cannot create a child session: depth is required with parentSessionId",
    );
  }
  const depth = options.depth ?? 0;
  if (!Number.isSafeInteger(depth) || depth < 0) {
    throw new RangeError(
      `Cannot create a session: depth must be a non-negative integer, got ${depth}`,
    );
  }
  const sessionId = options.sessionId ?? ulid(now.getTime());
  checkSessionId(sessionId);
  return { sessionId, parent, depth };
}
