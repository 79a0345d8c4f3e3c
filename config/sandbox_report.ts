/**
 * Which plugins of a plan run in the OS sandbox (bubblewrap), for
 * `check-config`: from the plan's `settings.sandbox` and the outcome of a
 * probe of this host (the kernel's `probeSandbox`, run by the caller: the
 * config layer starts no process). A plugin that cannot be sandboxed is a
 * warning: `W_SANDBOX_OFF` (`sandbox = "off"`) or `W_SANDBOX_UNAVAILABLE`
 * (bubblewrap missing or not working here).
 *
 * @module
 */
import type { Diagnostic } from "../contract/diagnostic.ts";
import type { SandboxMode } from "../contract/sandbox.ts";
import type { Plan } from "./plan.ts";

/** Plugins run without the OS sandbox because `sandbox = "off"`. */
export const W_SANDBOX_OFF = "W_SANDBOX_OFF";
/** Plugins cannot be sandboxed on this host (bubblewrap missing or broken). */
export const W_SANDBOX_UNAVAILABLE = "W_SANDBOX_UNAVAILABLE";

/** The outcome of a probe of this host (what `probeSandbox` returns). */
export interface SandboxProbeOutcome {
  /** Bubblewrap built a sandbox here. */
  available: boolean;
  /** Why not, when it did not. */
  reason?: string;
}

/** Whether the plan's plugins run sandboxed here, and why not. */
export interface SandboxReport {
  /** The plan's `settings.sandbox`. */
  mode: SandboxMode;
  /** Bubblewrap works on this host. */
  available: boolean;
  /** Why it does not, when it does not. */
  reason?: string;
  /** Each provider, in declaration order, and whether it runs sandboxed. */
  plugins: { name: string; sandboxed: boolean }[];
  /** The warnings (none when every plugin runs sandboxed). */
  diagnostics: Diagnostic[];
}

/**
 * Reports which plugins of a plan run in the OS sandbox on this host.
 *
 * @example Usage
 * ```ts
 * import { sandboxReport } from "./sandbox_report.ts";
 * import assert from "node:assert/strict";
 * const plan = {
 *   settings: { sandbox: "auto" },
 *   providers: [{ name: "echo" }],
 * } as unknown as Parameters<typeof sandboxReport>[0];
 * const r = sandboxReport(plan, { available: false, reason: "no bwrap" });
 * assert.deepEqual(r.plugins, [{ name: "echo", sandboxed: false }]);
 * assert.equal(r.diagnostics[0]!.code, "W_SANDBOX_UNAVAILABLE");
 * ```
 *
 * @param plan A valid plan.
 * @param probe Whether bubblewrap works here.
 * @returns The report.
 */
export function sandboxReport(
  plan: Pick<Plan, "providers"> & { settings: { sandbox: SandboxMode } },
  probe: SandboxProbeOutcome,
): SandboxReport {
  const mode = plan.settings.sandbox;
  const sandboxed = mode !== "off" && probe.available;
  const plugins = plan.providers.map((p) => ({ name: p.name, sandboxed }));
  const names = plugins.map((p) => `"${p.name}"`).join(", ");
  const diagnostics: Diagnostic[] = [];
  if (plugins.length > 0 && mode === "off") {
    diagnostics.push({
      severity: "warning",
      code: W_SANDBOX_OFF,
      summary: "Plugins run without the OS sandbox",
      detail:
        `settings { sandbox = "off" }: ${names} can read every file and environment variable this user can. Set "auto" or "required" to run them in bubblewrap.`,
    });
  } else if (plugins.length > 0 && mode !== "off" && !probe.available) {
    diagnostics.push({
      severity: "warning",
      code: W_SANDBOX_UNAVAILABLE,
      summary: "The OS sandbox cannot be built on this host",
      detail: `${probe.reason ?? "bubblewrap does not work"}. ${
        mode === "required"
          ? `With settings { sandbox = "required" } the agent refuses to start ${names} here`
          : `${names} would run unsandboxed here and could read every file and environment variable this user can`
      }; install bubblewrap (the "bwrap" program) where the agent runs.`,
    });
  }
  return {
    mode,
    available: probe.available,
    ...(probe.reason !== undefined ? { reason: probe.reason } : {}),
    plugins,
    diagnostics,
  };
}

/**
 * One line per plugin for `check-config`'s human output.
 *
 * @param report The report.
 * @returns Lines ending in a newline.
 */
export function formatSandboxReport(report: SandboxReport): string {
  const why = report.mode === "off"
    ? 'sandbox = "off"'
    : report.available
    ? `sandbox = "${report.mode}", bubblewrap works here`
    : `sandbox = "${report.mode}", ${
      report.reason ?? "bubblewrap does not work"
    }`;
  let out = `OS sandbox (${why}):\n`;
  for (const p of report.plugins) {
    out += `  ${p.name}: ${p.sandboxed ? "sandboxed" : "NOT sandboxed"}\n`;
  }
  return out;
}

/**
 * How one plugin runs with respect to the OS sandbox, as a phrase for
 * `check-config --explain`.
 *
 * @example Usage
 * ```ts
 * import { sandboxPhrase } from "./sandbox_report.ts";
 * import assert from "node:assert/strict";
 * const phrase = sandboxPhrase({
 *   mode: "auto", available: false, reason: "no bwrap",
 *   plugins: [{ name: "echo", sandboxed: false }], diagnostics: [],
 * }, "echo");
 * assert.match(phrase, /^NOT sandboxed: no bwrap/);
 * ```
 *
 * @param report The plan's report.
 * @param name The plugin's local name.
 * @returns The phrase.
 */
export function sandboxPhrase(report: SandboxReport, name: string): string {
  const sandboxed = report.plugins.find((p) => p.name === name)?.sandboxed ??
    false;
  if (sandboxed) {
    return "bubblewrap: own PID, IPC and network namespaces (the host's network only with a net grant); sees its own files, its grants, the system's programs and Deno's cache read-only";
  }
  if (report.mode === "off") {
    return 'NOT sandboxed (settings { sandbox = "off" }): it can read every file and environment variable this user can';
  }
  const why = report.reason ?? "bubblewrap does not work here";
  return report.mode === "required"
    ? `REFUSED: ${why}; with sandbox = "required" it does not start here`
    : `NOT sandboxed: ${why}; it runs without the sandbox, with a warning`;
}
