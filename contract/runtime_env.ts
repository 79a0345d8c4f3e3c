/**
 * Deno's own runtime settings: the environment variables the Deno runtime
 * reads to find its module cache and to reach the network (TLS roots,
 * proxies, the npm registry). They are settings, not secrets, and a Deno
 * process started with an emptied environment needs them to download what
 * its cache lacks: without them a `deno run npm:…` child fails with
 * "invalid peer certificate: UnknownIssuer" behind a TLS-intercepting proxy.
 *
 * The kernel passes the ones that are set to every Deno plugin it launches
 * (and lets the plugin read them); the `mcp` bridge passes them on to a
 * stdio server by default.
 *
 * @module
 */

/**
 * The variables that make up Deno's runtime settings, in a stable order:
 * the module cache (`DENO_DIR`), TLS roots (`DENO_CERT`,
 * `DENO_TLS_CA_STORE`, `NODE_EXTRA_CA_CERTS`), proxies (`HTTPS_PROXY`,
 * `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`) and the npm registry
 * (`NPM_CONFIG_REGISTRY`). `DENO_AUTH_TOKENS` is deliberately absent: it
 * holds credentials.
 *
 * @example Usage
 * ```ts
 * import { DENO_RUNTIME_ENV_NAMES } from "./runtime_env.ts";
 * import assert from "node:assert/strict";
 * assert.ok(DENO_RUNTIME_ENV_NAMES.includes("HTTPS_PROXY"));
 * assert.ok(!DENO_RUNTIME_ENV_NAMES.includes("DENO_AUTH_TOKENS"));
 * ```
 */
export const DENO_RUNTIME_ENV_NAMES: readonly string[] = [
  "DENO_DIR",
  "DENO_CERT",
  "DENO_TLS_CA_STORE",
  "NODE_EXTRA_CA_CERTS",
  "HTTPS_PROXY",
  "HTTP_PROXY",
  "ALL_PROXY",
  "NO_PROXY",
  "NPM_CONFIG_REGISTRY",
];

/** The proxy settings, which Deno reads in either spelling. */
const PROXY_NAMES: ReadonlySet<string> = new Set([
  "HTTPS_PROXY",
  "HTTP_PROXY",
  "ALL_PROXY",
  "NO_PROXY",
]);

/**
 * The Deno runtime settings that are set in `env`. A proxy set only in
 * lower case (`https_proxy`) is given under its upper-case name, which Deno
 * reads as well: `@grpc/grpc-js`, which every plugin loads, reads only the
 * lower-case names, and would send a plugin's loopback gRPC traffic over
 * TCP to the proxy.
 *
 * @example Usage
 * ```ts
 * import { denoRuntimeEnv } from "./runtime_env.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(
 *   denoRuntimeEnv({ HOME: "/home/a", https_proxy: "http://proxy:3128" }),
 *   { HTTPS_PROXY: "http://proxy:3128" },
 * );
 * ```
 *
 * @param env An environment.
 * @returns The settings, keyed by {@linkcode DENO_RUNTIME_ENV_NAMES}.
 */
export function denoRuntimeEnv(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of DENO_RUNTIME_ENV_NAMES) {
    const value = env[name] ??
      (PROXY_NAMES.has(name) ? env[name.toLowerCase()] : undefined);
    if (value !== undefined) out[name] = value;
  }
  return out;
}
