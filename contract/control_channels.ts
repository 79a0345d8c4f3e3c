/**
 * The names of the control-plane channels of seed 004, shared by the
 * config compiler (`control_plane { disable = [...] }` is checked against
 * them) and the kernel's control plane (`kernel/control/`).
 *
 * @module
 */

/** The system→agent channels, in the seed's order. */
export const SYSTEM_CHANNELS = [
  "permission-context",
  "event-trigger",
  "hook-fired",
  "fs-change",
  "mcp-tools-changed",
  "shell-notice",
  "shell-exit",
  "plugin-inject",
  "context-usage",
  "permission-denied",
  "plan-mode",
  "tool-empty-output",
  "turn-summary-missing",
  "memory",
  "memory-recall",
  "compaction-start",
  "compaction",
  "subagent",
  "time",
  "mailbox",
  "worktree-merged",
  "lsp-diagnostics",
  "external-trigger",
] as const;

/** The agent→system channels, in the seed's order. */
export const AGENT_CHANNELS = [
  "agent-status",
  "goal-status",
  "compact",
  "plan-revision",
  "agent-thinking",
  "judge-directive",
] as const;

/** Every channel name, system→agent first. */
export const CHANNEL_NAMES: readonly string[] = [
  ...SYSTEM_CHANNELS,
  ...AGENT_CHANNELS,
];
