/**
 * A hint for a stdio server that failed to start because of the OS
 * sandbox the bridge runs in (the server runs there too): Deno's module
 * cache is read-only inside, and the network is there only when the
 * bridge is granted `allow_net`. Recognised from the server's stderr.
 *
 * @module
 */

const READ_ONLY_REGEXP = /Read-only file system|os error 30\b/;
const NO_NETWORK_REGEXP =
  /dns error|failed to lookup address|Temporary failure in name resolution|Network is unreachable|os error 101\b/;

/**
 * What to do about a start failure that the OS sandbox explains, or `""`.
 *
 * @example Usage
 * ```ts
 * import { sandboxHint } from "./_sandbox_hint.ts";
 * import assert from "node:assert/strict";
 * assert.match(sandboxHint("error: Read-only file system (os error 30)"), /deno cache/);
 * assert.equal(sandboxHint("error: something else"), "");
 * ```
 *
 * @param stderr The tail of the server's stderr.
 * @returns A sentence to append (starting with a space), or `""`.
 */
export function sandboxHint(stderr: string): string {
  if (READ_ONLY_REGEXP.test(stderr)) {
    return " (In the OS sandbox Deno's module cache is read-only: cache the server's package on the host first, e.g. `deno cache npm:<package>@<version>`, or give the server a DENO_DIR of its own in env, granted with allow_write, and allow_net for the registry.)";
  }
  if (NO_NETWORK_REGEXP.test(stderr)) {
    return " (In the OS sandbox the server has the network only when the mcp provider block grants allow_net, e.g. the registry or proxy host it downloads from; or cache its package on the host first.)";
  }
  return "";
}
