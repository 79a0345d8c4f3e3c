/**
 * The operator's choice of OS sandbox for plugins (`settings { sandbox =
 * "…" }` in `agent.hcl`), shared by the config compiler, which decodes
 * it, and the kernel, which enforces it.
 *
 * @module
 */

/**
 * `required`: every plugin runs in the OS sandbox, and none starts when
 * it cannot be built; `auto` (the default): the sandbox whenever it works
 * here, a loud warning when it does not; `off`: no sandbox (a warning).
 */
export type SandboxMode = "required" | "auto" | "off";

/** Every sandbox mode, in display order. */
export const SANDBOX_MODES: readonly SandboxMode[] = [
  "required",
  "auto",
  "off",
];

/** The mode when `settings` does not name one. */
export const DEFAULT_SANDBOX_MODE: SandboxMode = "auto";
