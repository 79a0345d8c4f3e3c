/**
 * Agent→system tags in the model's output (seed 004):
 * {@linkcode parseAgentOutput} finds the `<cp:agent-status>`,
 * `<cp:goal-status>`, `<cp:compact>`, `<cp:plan-revision>`,
 * `<cp:agent-thinking>` and `<cp:judge-directive>` blocks of an assistant
 * text, checks each against its channel (attributes and values), and
 * returns the text with the stripped channels (agent-status, goal-status,
 * agent-thinking) removed. A system→agent tag in the output is plain text,
 * never a command.
 *
 * @module
 */
import {
  AGENT_CHANNELS,
  type AgentChannel,
  type ChannelInfo,
  CHANNELS,
} from "./channels.ts";
import { unescapeControlText } from "./render.ts";

/** A well-formed agent→system block. */
export interface AgentTag {
  /** The channel. */
  readonly channel: AgentChannel;
  /** Its attributes (unescaped), in source order. */
  readonly attrs: Readonly<Record<string, string>>;
  /** Its body (unescaped, trimmed). */
  readonly body: string;
  /** The block as the model wrote it. */
  readonly raw: string;
}

/** An agent→system block that does not fit its channel. */
export interface MalformedTag {
  /** The channel it names. */
  readonly channel: AgentChannel;
  /** The offending text (up to 200 characters). */
  readonly raw: string;
  /** What is wrong with it. */
  readonly reason: string;
}

/** What {@linkcode parseAgentOutput} found. */
export interface AgentOutput {
  /** The well-formed blocks in order. */
  readonly tags: readonly AgentTag[];
  /** The malformed blocks in order. */
  readonly malformed: readonly MalformedTag[];
  /** The text without the stripped channels' blocks. */
  readonly text: string;
  /**
   * The first `agent-status` block: its state, or `malformed` when the
   * first occurrence is malformed (a hard stop); later ones are ignored.
   */
  readonly status?: "done" | "continue" | MalformedTag;
  /** The first well-formed `goal-status`: its state and summary. */
  readonly goal?: {
    readonly state: "done" | "blocked";
    readonly summary: string;
  };
}

const AGENT = new Set<string>(AGENT_CHANNELS);
const OPEN_REGEXP = /<cp:([A-Za-z0-9_-]*)/g;
const BLOCK_REGEXP =
  /<cp:([a-z-]+)((?:\s+[A-Za-z_][\w-]*\s*=\s*"[^"]*")*)\s*(?:\/>|>([\s\S]*?)<\/cp:\1\s*>)/y;
const ATTR_REGEXP = /([A-Za-z_][\w-]*)\s*=\s*"([^"]*)"/g;

/**
 * Parses the agent→system blocks of an assistant text.
 *
 * @example Usage
 * ```ts
 * import { parseAgentOutput } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * const out = parseAgentOutput('Done.\n<cp:agent-status state="done"></cp:agent-status>');
 * assert.equal(out.status, "done");
 * assert.equal(out.text, "Done.");
 * ```
 *
 * @param text The assistant's text.
 * @returns The blocks, the problems and the stripped text.
 */
export function parseAgentOutput(text: string): AgentOutput {
  if (!text.includes("<cp:")) return { tags: [], malformed: [], text };
  const tags: AgentTag[] = [];
  const malformed: MalformedTag[] = [];
  const cuts: [number, number][] = [];
  let status: AgentOutput["status"];
  let goal: AgentOutput["goal"];
  OPEN_REGEXP.lastIndex = 0;
  for (let m = OPEN_REGEXP.exec(text); m; m = OPEN_REGEXP.exec(text)) {
    const name = m[1]!;
    if (!AGENT.has(name)) continue; // system→agent names are plain text
    const channel = name as AgentChannel;
    const at = m.index;
    BLOCK_REGEXP.lastIndex = at;
    const b = BLOCK_REGEXP.exec(text);
    let problem: string | undefined;
    let tag: AgentTag | undefined;
    if (!b || b[1] !== name) {
      problem = `<cp:${name}> is not a well-formed block: it needs ` +
        `<cp:${name} attr="…">…</cp:${name}> with double-quoted attributes`;
    } else {
      const attrs: Record<string, string> = {};
      for (const a of b[2]!.matchAll(ATTR_REGEXP)) {
        attrs[a[1]!] = unescapeControlText(a[2]!);
      }
      problem = attributeProblem(CHANNELS.get(channel)!, attrs);
      if (!problem) {
        tag = {
          channel,
          attrs,
          body: unescapeControlText(b[3] ?? "").trim(),
          raw: b[0],
        };
      }
    }
    if (tag) {
      tags.push(tag);
      if (CHANNELS.get(channel)!.stripped) {
        cuts.push([at, at + tag.raw.length]);
      }
      OPEN_REGEXP.lastIndex = at + tag.raw.length;
      if (channel === "agent-status" && status === undefined) {
        status = tag.attrs.state as "done" | "continue";
      }
      if (channel === "goal-status" && goal === undefined) {
        goal = {
          state: tag.attrs.state as "done" | "blocked",
          summary: tag.body,
        };
      }
    } else {
      const end = b && b[1] === name ? at + b[0].length : lineEnd(text, at);
      const bad: MalformedTag = {
        channel,
        raw: text.slice(at, Math.min(end, at + 200)),
        reason: problem!,
      };
      malformed.push(bad);
      if (channel === "agent-status" && status === undefined) status = bad;
    }
  }
  let out = text;
  for (let i = cuts.length - 1; i >= 0; i--) {
    const [from, to] = cuts[i]!;
    out = out.slice(0, from) + out.slice(to);
  }
  if (cuts.length) out = out.replace(/\n{3,}/g, "\n\n").trim();
  return {
    tags,
    malformed,
    text: out,
    ...(status !== undefined ? { status } : {}),
    ...(goal !== undefined ? { goal } : {}),
  };
}

function lineEnd(text: string, from: number): number {
  const nl = text.indexOf("\n", from);
  return nl < 0 ? text.length : nl;
}

function attributeProblem(
  info: ChannelInfo,
  attrs: Readonly<Record<string, string>>,
): string | undefined {
  for (const name of Object.keys(attrs)) {
    if (!info.attributes.includes(name)) {
      return `<cp:${info.name}> has no attribute "${name}" (it takes ${
        info.attributes.map((a) => `"${a}"`).join(", ") || "none"
      })`;
    }
  }
  for (const name of info.attributes) {
    const v = attrs[name];
    if (v === undefined) {
      if (info.optional.includes(name)) continue;
      return `<cp:${info.name}> needs the attribute "${name}"`;
    }
    const allowed = info.values[name];
    if (allowed && !allowed.includes(v)) {
      return `<cp:${info.name}> ${name}="${v}" is not one of ${
        allowed.map((a) => `"${a}"`).join(", ")
      }`;
    }
  }
  return undefined;
}
