/**
 * The control-plane channels of seed 004 (docs/control-plane.md): one row
 * per `<cp:NAME>` channel in {@linkcode CHANNELS} — its direction, its
 * attributes in the seed's order, its rate limit, whether it wakes an idle
 * session and whether it stays in history — and the typed attributes of
 * each channel ({@linkcode ChannelAttributes}).
 *
 * @module
 */

/** Which way a channel carries messages. */
export type ChannelDirection = "system_to_agent" | "agent_to_system";

import {
  AGENT_CHANNELS,
  SYSTEM_CHANNELS,
} from "../../contract/control_channels.ts";

export { AGENT_CHANNELS, SYSTEM_CHANNELS };

/** A system→agent channel name. */
export type SystemChannel = typeof SYSTEM_CHANNELS[number];
/** An agent→system channel name. */
export type AgentChannel = typeof AGENT_CHANNELS[number];
/** Any channel name. */
export type ChannelName = SystemChannel | AgentChannel;

/**
 * Why the permission layer blocked a call (`permission-denied`'s
 * `reason-code`): `policy` (a policy rule denied it), `user` (an approver
 * rejected it), `ask-timeout` / `ask-unanswered` (nobody answered the ask:
 * `on_ask` timeout, deny or fail), `hook-veto` (a veto subscriber),
 * `plan-mode` (plan mode forbids the call), `out-of-scope` (the tool is
 * not in the profile's scope), `tool-refused` (the tool itself refused:
 * outside its roots, a sandbox denial).
 */
export type DenialReasonCode =
  | "policy"
  | "user"
  | "ask-timeout"
  | "ask-unanswered"
  | "hook-veto"
  | "plan-mode"
  | "out-of-scope"
  | "tool-refused";

/** Every {@linkcode DenialReasonCode}. */
export const DENIAL_REASON_CODES: readonly DenialReasonCode[] = [
  "policy",
  "user",
  "ask-timeout",
  "ask-unanswered",
  "hook-veto",
  "plan-mode",
  "out-of-scope",
  "tool-refused",
];

/** Where a user-role message came from (`time`'s `origin`). */
export type MessageOrigin = "typed" | "queued" | "channel" | "nudge";

/** The typed attributes of each channel (seed 004's attribute column). */
export interface ChannelAttributes {
  /** No attributes. */
  "permission-context": Record<never, never>;
  /** The event's source (`timer:<name>`, `bus:<topic>`, …). */
  "event-trigger": { readonly source: string };
  /** The hook; for a project hook also its target and resolved session. */
  "hook-fired": {
    readonly name: string;
    readonly target?: string;
    readonly session?: string;
  };
  /** No attributes. */
  "fs-change": Record<never, never>;
  /** The server and the counts of added and removed tools. */
  "mcp-tools-changed": {
    readonly server: string;
    readonly added: number;
    readonly removed: number;
  };
  /** What happened to the shell. */
  "shell-notice": {
    readonly kind: "command-terminated" | "host-restarted" | "prompt";
  };
  /** The command, its exit code and signal, or why its exit was lost. */
  "shell-exit": {
    readonly "exec-id": string;
    readonly "exit-code"?: number;
    readonly signal?: string;
    readonly terminated?: string;
  };
  /** The injecting plugin. */
  "plugin-inject": { readonly plugin: string };
  /** Tokens used, the model's window and the percentage. */
  "context-usage": {
    readonly used: number;
    readonly window: number;
    readonly pct: number;
  };
  /** The tool, the reason code and the offending path. */
  "permission-denied": {
    readonly tool: string;
    readonly "reason-code": DenialReasonCode;
    readonly path?: string;
  };
  /** Always read-only, and the round. */
  "plan-mode": { readonly constraint: "read-only"; readonly round: number };
  /** The tool whose output was empty. */
  "tool-empty-output": { readonly tool: string };
  /** No attributes. */
  "turn-summary-missing": Record<never, never>;
  /** The operation, the scope and, on a recall, the hit count. */
  memory: {
    readonly op: "save" | "delete" | "recall";
    readonly scope: string;
    readonly "hit-count"?: number;
  };
  /** How many memories and their names (comma-separated). */
  "memory-recall": { readonly count: number; readonly names: string };
  /** No attributes. */
  "compaction-start": Record<never, never>;
  /** The strategy and the token counts before and after. */
  compaction: {
    readonly strategy: string;
    readonly "tokens-before": number;
    readonly "tokens-after": number;
  };
  /** The child's lifecycle state, id and kind; rounds and error when known. */
  subagent: {
    readonly state: "started" | "finished" | "failed";
    readonly id: string;
    readonly kind: string;
    readonly rounds?: number;
    readonly error?: string;
  };
  /** When the message it trails was written. */
  time: {
    readonly utc: string;
    readonly local: string;
    readonly duration_ms?: number;
    readonly origin?: MessageOrigin;
  };
  /** Sender and recipient. */
  mailbox: { readonly from: string; readonly to: string };
  /** The merged worktree. */
  "worktree-merged": {
    readonly slug: string;
    readonly branch: string;
    readonly commit: string;
    readonly kind: "squash" | "merge";
  };
  /** The file and the number of diagnostics. */
  "lsp-diagnostics": { readonly path: string; readonly count: number };
  /** The trigger's name, its target and the session it ran in. */
  "external-trigger": {
    readonly name: string;
    readonly target: string;
    readonly session: string;
  };
  /** The round-end signal. */
  "agent-status": { readonly state: "done" | "continue" };
  /** The goal exit declaration. */
  "goal-status": { readonly state: "done" | "blocked" };
  /** The kind of summary line. */
  compact: {
    readonly type:
      | "fact"
      | "learning"
      | "decision"
      | "request"
      | "response"
      | "tool";
  };
  /** The plan change. */
  "plan-revision": {
    readonly from: string;
    readonly to: string;
    readonly reason: string;
  };
  /** No attributes. */
  "agent-thinking": Record<never, never>;
  /**
   * The verdict: `accept` ends the judged loop, `continue` sends the body
   * (the directive) to the judged session as its next prompt.
   */
  "judge-directive": { readonly verdict: "accept" | "continue" };
}

/** How often a channel may deliver (seed 004's limit column). */
export type RateLimit =
  | { readonly kind: "none" }
  | {
    /** `per` = whose counter: the source, the hook, or one for all. */
    readonly kind: "window";
    readonly max: number;
    readonly windowMs: number;
    readonly per: "source" | "hook" | "global";
  }
  | { readonly kind: "once-per-turn" };

/** One row of the channel table. */
export interface ChannelInfo {
  /** The name without `cp:`. */
  readonly name: ChannelName;
  /** Which way it carries messages. */
  readonly direction: ChannelDirection;
  /** Its attribute names in rendering order. */
  readonly attributes: readonly string[];
  /** Which attributes may be absent. */
  readonly optional: readonly string[];
  /** Allowed values of enumerated attributes. */
  readonly values: Readonly<Record<string, readonly string[]>>;
  /** Its rate limit. */
  readonly limit: RateLimit;
  /** Whether a message on an idle session starts a turn (a wake turn). */
  readonly wakes: boolean;
  /**
   * Whether a message that lands after a round's drain continues a turn
   * that would otherwise end (the cascade rule): the wake channels and
   * `turn-summary-missing`. Every other channel is informational: it waits
   * for the next round the turn runs anyway, or the next turn's first.
   */
  readonly continues: boolean;
  /** Whether the block is removed from the history the model sees again. */
  readonly stripped: boolean;
  /** One line for the system prompt and the README. */
  readonly summary: string;
  /**
   * Where its messages come from today, or the issue that brings the
   * source (`waiting: …`).
   */
  readonly source: string;
}

const MIN = 60_000;
const NONE: RateLimit = { kind: "none" };

function ch(
  name: ChannelName,
  direction: ChannelDirection,
  attributes: string[],
  rest:
    & Partial<
      Omit<ChannelInfo, "name" | "direction" | "attributes">
    >
    & { summary: string; source: string },
): ChannelInfo {
  return Object.freeze({
    name,
    direction,
    attributes: Object.freeze(attributes),
    optional: Object.freeze(rest.optional ?? []),
    values: Object.freeze(rest.values ?? {}),
    limit: rest.limit ?? NONE,
    wakes: rest.wakes ?? false,
    continues: rest.continues ?? rest.wakes ?? false,
    stripped: rest.stripped ?? false,
    summary: rest.summary,
    source: rest.source,
  });
}

const S = "system_to_agent" as const;
const A = "agent_to_system" as const;

/**
 * Every channel of seed 004 in the seed's order.
 *
 * @example Usage
 * ```ts
 * import { CHANNELS } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * const denied = CHANNELS.get("permission-denied")!;
 * assert.deepEqual(denied.attributes, ["tool", "reason-code", "path"]);
 * ```
 */
export const CHANNELS: ReadonlyMap<ChannelName, ChannelInfo> = new Map(
  [
    ch("permission-context", S, [], {
      limit: { kind: "window", max: 60, windowMs: MIN, per: "source" },
      summary: "the permission rules in force, once per turn",
      source: "the profile's policy rules, at each turn's first round",
    }),
    ch("event-trigger", S, ["source"], {
      limit: { kind: "window", max: 60, windowMs: MIN, per: "source" },
      wakes: true,
      summary: "an external event (a timer, an event-bus topic) fired",
      source: "control_plane timers and event topics in agent.hcl",
    }),
    ch("hook-fired", S, ["name", "target", "session"], {
      optional: ["target", "session"],
      limit: { kind: "window", max: 30, windowMs: MIN, per: "hook" },
      wakes: true,
      summary: "a trigger hook fired: its line, and the event that fired it",
      source:
        'control_plane { hook "<name>" { on = "<topic filter>", text = "…" } } in agent.hcl, on an event-bus event',
    }),
    ch("fs-change", S, [], {
      limit: { kind: "window", max: 30, windowMs: MIN, per: "global" },
      summary:
        "files changed outside your own tool calls (the body lists them)",
      source:
        "a watcher on the write-granted roots of the profile's tools (control_plane { watch_fs = true })",
    }),
    ch("mcp-tools-changed", S, ["server", "added", "removed"], {
      summary:
        "an MCP server's tool list changed; the body names the added and removed tools",
      source: "the MCP bridge's re-list (dynamic tools)",
    }),
    ch("shell-notice", S, ["kind"], {
      values: { kind: ["command-terminated", "host-restarted", "prompt"] },
      summary:
        "a background command was lost (never re-run), the shell host restarted, or a command waits on a prompt",
      source: "a crashed tool provider that ran watched background commands",
    }),
    ch("shell-exit", S, ["exec-id", "exit-code", "signal", "terminated"], {
      optional: ["exit-code", "signal", "terminated"],
      wakes: true,
      summary:
        "a background command exited; the body holds its output tail (ANSI-stripped, bounded)",
      source: "exec's plugin.tool.exec.background_exited",
    }),
    ch("plugin-inject", S, ["plugin"], {
      wakes: true,
      summary: "text a plugin with the inject capability put before you",
      source:
        "a plugin's InjectControl callback (manifest inject, operator allow_inject)",
    }),
    ch("context-usage", S, ["used", "window", "pct"], {
      summary:
        "how full the context window is, on a band crossing; near full, wrap up or compact",
      source:
        "the window's fill after each context assembly, on a band crossing (50 %, 80 %)",
    }),
    ch("permission-denied", S, ["tool", "reason-code", "path"], {
      optional: ["path"],
      values: { "reason-code": DENIAL_REASON_CODES },
      summary:
        "a tool call was blocked: the tool, why (reason-code) and the offending path",
      source: "the plan/apply gate, hooks, approvals and the tools' refusals",
    }),
    ch("plan-mode", S, ["constraint", "round"], {
      values: { constraint: ["read-only"] },
      summary: "plan mode is on: only read-only tools are available this round",
      source: "each round while the profile runs in plan mode",
    }),
    ch("tool-empty-output", S, ["tool"], {
      summary:
        "a tool succeeded with an empty result; verify your input or change approach",
      source: "tool dispatch",
    }),
    ch("turn-summary-missing", S, [], {
      limit: { kind: "once-per-turn" },
      continues: true,
      summary: "a round ended without the turn summary the profile asks for",
      source:
        "a round ending a turn's rounds so far without <cp:compact>, when the profile sets control_plane { turn_summaries = true }",
    }),
    ch("memory", S, ["op", "scope", "hit-count"], {
      optional: ["hit-count"],
      values: { op: ["save", "delete", "recall"] },
      summary: "a memory was saved, deleted or recalled",
      source:
        "a memory provider's tools: remember (save), forget (delete), search (recall, hit-count)",
    }),
    ch("memory-recall", S, ["count", "names"], {
      summary:
        "memories recalled automatically for this turn (their contents are the memory:<type>:<name> context sections)",
      source:
        "a memory provider's Recall at context assembly, the first round of a turn that recalls",
    }),
    ch("compaction-start", S, [], {
      summary: "a compaction pass started",
      source: "a compactor's pass in the context chain",
    }),
    ch("compaction", S, ["strategy", "tokens-before", "tokens-after"], {
      summary: "a compaction pass finished",
      source: "a compactor's pass in the context chain",
    }),
    ch("subagent", S, ["state", "id", "kind", "rounds", "error"], {
      optional: ["rounds", "error"],
      values: { state: ["started", "finished", "failed"] },
      summary: "a sub-agent you spawned started, finished or failed",
      source: "sub-agents spawned by the session",
    }),
    ch("time", S, ["utc", "local", "duration_ms", "origin"], {
      optional: ["duration_ms", "origin"],
      values: { origin: ["typed", "queued", "channel", "nudge"] },
      summary:
        "when the message it trails was written (UTC and local); duration_ms on tool results, origin on user messages",
      source: "every message the harness writes",
    }),
    ch("mailbox", S, ["from", "to"], {
      summary: "a message from another named agent of this session",
      source: "send_message of builtin/agents (kernel SendMailbox)",
    }),
    ch("worktree-merged", S, ["slug", "branch", "commit", "kind"], {
      values: { kind: ["squash", "merge"] },
      summary: "a worker's branch was merged into this session's tree",
      source: "merge_worktree of builtin/agents (kernel MergeWorktree)",
    }),
    ch("lsp-diagnostics", S, ["path", "count"], {
      summary: "new language-server errors on a file you just wrote",
      source:
        "builtin/lsp after a write (InjectControl with channel lsp-diagnostics)",
    }),
    ch("external-trigger", S, ["name", "target", "session"], {
      wakes: true,
      summary: "a turn was started from outside (CI, cron, a sidecar)",
      source: "`agent trigger` and triggerSession()",
    }),
    ch("agent-status", A, ["state"], {
      values: { state: ["done", "continue"] },
      stripped: true,
      summary:
        'end of round: state="done" ends the turn, state="continue" asks for another round; the first one counts, a malformed one stops the session',
      source: "the model's output",
    }),
    ch("goal-status", A, ["state"], {
      values: { state: ["done", "blocked"] },
      stripped: true,
      summary:
        "the session goal is done or blocked (needs the user); the body is your summary; it does not end the turn",
      source: "the model's output (with a session goal)",
    }),
    ch("compact", A, ["type"], {
      values: {
        type: ["fact", "learning", "decision", "request", "response", "tool"],
      },
      summary: "a structured summary line of the turn, kept in history",
      source: "the model's output",
    }),
    ch("plan-revision", A, ["from", "to", "reason"], {
      summary: "a change to your plan, kept in history as an audit trail",
      source: "the model's output",
    }),
    ch("agent-thinking", A, [], {
      stripped: true,
      summary: "internal reasoning, shown only to the operator",
      source: "the model's output",
    }),
    ch("judge-directive", A, ["verdict"], {
      values: { verdict: ["accept", "continue"] },
      summary:
        'a judge\'s verdict on the work it reviews: verdict="accept" ends the loop, verdict="continue" sends the body to the worker as its directive',
      source:
        "the model's output in a judge profile's session (agent run --judge)",
    }),
  ].map((c) => [c.name, c]),
);

/**
 * True when `name` is a channel of the seed.
 *
 * @param name A name without `cp:`.
 * @returns Whether it names a channel.
 */
export function isChannelName(name: string): name is ChannelName {
  return CHANNELS.has(name as ChannelName);
}
