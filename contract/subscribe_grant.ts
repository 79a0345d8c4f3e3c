/**
 * The `allow_subscribe` grant: which `kernel.*` bus topics a plugin may
 * subscribe to, and for which sessions (kernel.md §4.4).
 *
 * An entry is a `kernel.*` topic filter — an exact topic
 * (`kernel.event.tool_call`) or a prefix ending in `.*` (`kernel.event.*`,
 * `kernel.*`) — optionally followed by {@linkcode ALL_SESSIONS_SUFFIX}.
 * Without the suffix the kernel delivers only the events of sessions the
 * plugin takes part in (it serves the session's profile, or the kernel
 * invoked it in that session); with it, the events of every session.
 *
 * Plugin topics (`plugin.*`) need no grant. The config compiler and the
 * callback service share this grammar.
 *
 * @example Usage
 * ```ts
 * import { parseSubscribeGrant } from "@ph/agent/contract";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(parseSubscribeGrant("kernel.event.*@all"), {
 *   filter: "kernel.event.*",
 *   allSessions: true,
 * });
 * assert.match(parseSubscribeGrant("plugin.tool.x.*").problem ?? "", /kernel/);
 * ```
 *
 * @module
 */

/** The suffix of an entry that covers every session, e.g. `kernel.event.*@all`. */
export const ALL_SESSIONS_SUFFIX = "@all";

/** One parsed `allow_subscribe` entry, or why it is not one. */
export interface SubscribeGrant {
  /** The `kernel.*` filter (without the suffix); `""` when invalid. */
  filter: string;
  /** Whether it covers every session (the `@all` suffix). */
  allSessions: boolean;
  /** Why the entry is invalid; absent when it is valid. */
  problem?: string;
}

const SEGMENT_REGEXP = /^[a-z0-9_-]+$/;

/**
 * Parses one `allow_subscribe` entry.
 *
 * @param entry The entry as written.
 * @returns The filter and its session scope, or a `problem`.
 */
export function parseSubscribeGrant(entry: string): SubscribeGrant {
  const allSessions = entry.endsWith(ALL_SESSIONS_SUFFIX);
  const filter = allSessions
    ? entry.slice(0, -ALL_SESSIONS_SUFFIX.length)
    : entry;
  const bad = (problem: string): SubscribeGrant => ({
    filter: "",
    allSessions: false,
    problem,
  });
  if (!filter.startsWith("kernel.")) {
    return bad(
      `it must be a kernel.* topic filter such as "kernel.event.*" (optionally followed by "${ALL_SESSIONS_SUFFIX}"); plugin topics need no grant`,
    );
  }
  const prefix = filter.endsWith(".*") ? filter.slice(0, -2) : filter;
  for (const seg of prefix.split(".")) {
    if (!SEGMENT_REGEXP.test(seg)) {
      return bad(
        `segment "${seg}" must match [a-z0-9_-]+ ("*" only as the whole last segment)`,
      );
    }
  }
  return { filter, allSessions };
}

/**
 * Whether a subscription filter can match some `kernel.*` topic (so that it
 * needs an `allow_subscribe` grant).
 *
 * @param filter A valid bus filter.
 * @returns `true` for `*`, `kernel.*` and filters under `kernel.`.
 */
export function filterReachesKernel(filter: string): boolean {
  return filter === "*" || filter.startsWith("kernel.");
}

/**
 * Whether every topic a (valid) subscription filter matches is matched by a
 * grant's filter.
 *
 * @example Usage
 * ```ts
 * import { grantCovers } from "@ph/agent/contract";
 * import assert from "node:assert/strict";
 *
 * assert.ok(grantCovers("kernel.event.*", "kernel.event.message"));
 * assert.ok(grantCovers("kernel.*", "kernel.event.*"));
 * assert.ok(!grantCovers("kernel.event.*", "kernel.*"));
 * assert.ok(!grantCovers("kernel.event.*", "*"));
 * ```
 *
 * @param grant A grant's filter (from {@linkcode parseSubscribeGrant}).
 * @param filter The requested filter.
 * @returns `true` when the grant covers the filter.
 */
export function grantCovers(grant: string, filter: string): boolean {
  if (filter === "*") return false; // also matches plugin.* and kernel itself
  if (!grant.endsWith(".*")) return grant === filter;
  const prefix = grant.slice(0, -1); // keeps the trailing "."
  const wanted = filter.endsWith(".*") ? filter.slice(0, -1) : filter;
  return wanted.length > prefix.length && wanted.startsWith(prefix) ||
    wanted === prefix && filter.endsWith(".*");
}

/**
 * Whether a grant's filter matches a topic.
 *
 * @param grant A grant's filter.
 * @param topic A `kernel.*` topic.
 * @returns `true` on a match.
 */
export function grantMatches(grant: string, topic: string): boolean {
  if (!grant.endsWith(".*")) return grant === topic;
  const prefix = grant.slice(0, -1);
  return topic.length > prefix.length && topic.startsWith(prefix);
}
