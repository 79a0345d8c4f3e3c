/**
 * Node's `process.env` as a plugin sandboxed by Deno should see it: a
 * variable the plugin may not read is absent, as in an empty environment,
 * instead of an exception.
 *
 * Under Deno, `process.env.NAME` for a name outside `--allow-env` throws
 * `NotCapable`. npm packages probe optional variables (node-html-markdown
 * reads `LOG_PERF` on every conversion), so without this a conversion
 * fails unless the operator grants variables the plugin has no use for.
 *
 * @module
 */
import process from "node:process";

function readable(name: string): boolean {
  return Deno.permissions.querySync({ name: "env", variable: name }).state ===
    "granted";
}

let installed = false;

/**
 * Replaces `process.env` by a view that reads granted variables through
 * and reports every other one as unset. Idempotent.
 */
export function installSandboxedProcessEnv(): void {
  if (installed) return;
  installed = true;
  const original = process.env;
  const view = new Proxy({} as Record<string, string | undefined>, {
    get(_target, key) {
      if (typeof key !== "string") return undefined;
      return readable(key) ? original[key] : undefined;
    },
    has(_target, key) {
      return typeof key === "string" && readable(key) && key in original;
    },
    set(_target, key, value) {
      if (typeof key !== "string") return false;
      original[key] = String(value);
      return true;
    },
    deleteProperty(_target, key) {
      if (typeof key === "string" && readable(key)) delete original[key];
      return true;
    },
    ownKeys() {
      return [];
    },
    getOwnPropertyDescriptor(_target, key) {
      if (typeof key !== "string" || !readable(key)) return undefined;
      const value = original[key];
      return value === undefined
        ? undefined
        : { value, writable: true, enumerable: true, configurable: true };
    },
  });
  Object.defineProperty(process, "env", {
    value: view,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}
