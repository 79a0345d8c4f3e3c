/**
 * The operator's choice of OS sandbox for plugins (`settings { sandbox =
 * "…" }` in `agent.hcl`), shared by the config compiler, which decodes
 * it, and the kernel, which enforces it.
 *
 * @module
 */

/**
 * `required`: every plugin runs in the OS sandbox, and none starts when
 * it cannot be built; `auto`: the sandbox whenever it works here, a loud
 * warning when it does not; `off` (the default for now): no sandbox.
 */
export type SandboxMode = "required" | "auto" | "off";

/** Every sandbox mode, in display order. */
export const SANDBOX_MODES: readonly SandboxMode[] = [
  "required",
  "auto",
  "off",
];

/**
 * The mode when `settings` does not name one: `off` until MCP servers
 * started by the mcp bridge, exec's process-tree handling and the tests
 * that rely on either run inside bubblewrap (the sandbox is opt-in with
 * `auto` or `required` meanwhile).
 */
export const DEFAULT_SANDBOX_MODE: SandboxMode = "off";
