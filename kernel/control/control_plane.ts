/**
 * One session's control plane ({@linkcode ControlPlane}): system→agent
 * messages are checked against their channel, the profile's `disable` list
 * and the rate limits, queued, and drained into the model's input at the
 * next round boundary; a wake channel on an idle session asks the session
 * for a wake turn; agent→system blocks are parsed out of each assistant
 * message. Every delivered or parsed message is persisted as one `control`
 * event and reported as a live {@linkcode ControlView}.
 *
 * @module
 */
import { create, toBinary } from "@bufbuild/protobuf";
import { ControlEventSchema } from "../../proto/gen/pluggableharness/event/v1/events_pb.ts";
import { EventKind } from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import { KERNEL_PRODUCER, type SessionLog } from "../state/session_store.ts";
import {
  type ChannelDirection,
  type ChannelName,
  CHANNELS,
  isChannelName,
  type MessageOrigin,
} from "./channels.ts";
import { ControlRateLimiter } from "./rate_limit.ts";
import {
  type AnyControlMessage,
  controlAttributes,
  escapeControlText,
  renderBlock,
} from "./render.ts";
import { type AgentOutput, type AgentTag, parseAgentOutput } from "./tags.ts";
import { ShellWatch } from "./shell_watch.ts";
import type { FsChanges } from "./fs_change.ts";

/** A control message as frontends and `--json` output see it. */
export interface ControlView {
  /** The channel. */
  readonly channel: ChannelName;
  /** Which way it went. */
  readonly direction: ChannelDirection;
  /** Its attributes in the channel's order. */
  readonly attributes: Readonly<Record<string, string>>;
  /** Its body. */
  readonly body: string;
  /** The exact text the model read or wrote. */
  readonly rendered: string;
  /** Who produced it. */
  readonly source: string;
  /** The turn it belongs to, when known. */
  readonly turnId?: string;
  /** True when it started a turn of its own. */
  readonly wake?: boolean;
}

/** Why {@linkcode ControlPlane.post} did not queue a message. */
export type PostOutcome = "queued" | "disabled" | "rate_limited" | "empty";

/** Options of a {@linkcode ControlPlane}. */
export interface ControlPlaneOptions {
  /** Where `control` events go; none in a dry run. */
  readonly log?: SessionLog;
  /** Channels the profile turned off (`control_plane { disable }`). */
  readonly disabled?: Iterable<string>;
  /** The clock (epoch ms). @default {Date.now} */
  readonly now?: () => number;
  /**
   * Minutes east of UTC of the local zone `time` reports.
   * @default {the process's zone}
   */
  readonly utcOffsetMinutes?: number;
  /** Reports each delivered or parsed message. */
  readonly onMessage?: (view: ControlView) => void;
  /** Reports a message refused by its rate limit. */
  readonly onDropped?: (channel: ChannelName, source: string) => void;
}

interface Queued {
  readonly message: AnyControlMessage;
  readonly rendered: string;
  readonly attributes: [string, string][];
}

/** The control plane of one session. */
export class ControlPlane {
  readonly #log: SessionLog | undefined;
  readonly #disabled: ReadonlySet<string>;
  readonly #now: () => number;
  readonly #offset: number | undefined;
  readonly #limits: ControlRateLimiter;
  readonly #onMessage: ((view: ControlView) => void) | undefined;
  readonly #onDropped:
    | ((channel: ChannelName, source: string) => void)
    | undefined;
  #queue: Queued[] = [];
  readonly #once = new Set<string>();
  #wake: (() => void) | undefined;
  /** The background commands the session watches. */
  readonly shells: ShellWatch = new ShellWatch();
  /**
   * The third-party file changes of the watched roots, when the profile
   * watches them (`control_plane { watch_fs = true }`); flushed into an
   * `fs-change` block at each round boundary.
   */
  fs: FsChanges | undefined;

  /**
   * Creates the control plane of a session.
   *
   * @param options Log, disabled channels, clock and listeners.
   * @throws {TypeError} When `disabled` names an unknown channel.
   */
  constructor(options: ControlPlaneOptions = {}) {
    this.#log = options.log;
    const disabled = new Set(options.disabled ?? []);
    for (const name of disabled) {
      if (!isChannelName(name)) {
        throw new TypeError(`Unknown control channel "${name}" in disable`);
      }
    }
    this.#disabled = disabled;
    this.#now = options.now ?? Date.now;
    this.#offset = options.utcOffsetMinutes;
    this.#limits = new ControlRateLimiter(this.#now);
    this.#onMessage = options.onMessage;
    this.#onDropped = options.onDropped;
  }

  /**
   * True when the profile has not turned the channel off.
   *
   * @param channel The channel.
   * @returns Whether it is on.
   */
  isEnabled(channel: ChannelName): boolean {
    return !this.#disabled.has(channel);
  }

  /** The enabled channels in the seed's order. */
  get enabledChannels(): ChannelName[] {
    return [...CHANNELS.keys()].filter((c) => !this.#disabled.has(c));
  }

  /** Messages waiting for the next round boundary. */
  get pending(): number {
    return this.#queue.length;
  }

  /** True when a waiting message wakes an idle session. */
  get hasWakePending(): boolean {
    return this.#queue.some((q) => CHANNELS.get(q.message.channel)!.wakes);
  }

  /**
   * True when a waiting message continues a turn that would end (a wake
   * channel or `turn-summary-missing`); informational channels
   * (`context-usage`, `compaction`, …) wait for the next round instead.
   */
  get hasContinuationPending(): boolean {
    return this.#queue.some((q) => CHANNELS.get(q.message.channel)!.continues);
  }

  /** Messages refused by their rate limit so far, by channel. */
  get dropped(): ReadonlyMap<ChannelName, number> {
    return this.#limits.dropped();
  }

  /**
   * Sets what a wake channel calls when it is queued (the session starts a
   * wake turn when it is idle).
   *
   * @param wake The callback, or `undefined` to stop waking.
   */
  setWakeHandler(wake: (() => void) | undefined): void {
    this.#wake = wake;
  }

  /**
   * Queues a system→agent message for the next round boundary.
   *
   * @param message The message.
   * @returns `queued`, or why not: the channel is disabled, over its rate
   * limit, or the message is empty where that means nothing (a
   * `plugin-inject` without text).
   * @throws {TypeError} When the message does not fit its channel, or
   * names an agent→system channel.
   */
  post(message: AnyControlMessage): PostOutcome {
    const info = CHANNELS.get(message.channel);
    if (!info || info.direction !== "system_to_agent") {
      throw new TypeError(
        `Cannot post to "${message.channel}": only system→agent channels are posted`,
      );
    }
    if (this.#disabled.has(message.channel)) {
      controlAttributes(message); // a misfit is refused all the same
      return "disabled";
    }
    const attributes = controlAttributes(message);
    if (
      message.channel === "plugin-inject" && !(message.body ?? "").trim()
    ) return "empty";
    const source = sourceOf(message);
    if (!this.#limits.take(message.channel, source)) {
      this.#onDropped?.(message.channel, source);
      return "rate_limited";
    }
    this.#queue.push({
      message,
      rendered: renderBlock(message.channel, attributes, message.body),
      attributes,
    });
    if (info.wakes) this.#wake?.();
    return "queued";
  }

  /**
   * Takes every waiting message for the round about to start: each is
   * persisted and reported, and their rendered blocks are returned in
   * order for the model's input.
   *
   * @param context The turn, whether the round is a wake turn, and
   * optionally the one channel to take (the rest stay queued).
   * @returns The rendered blocks.
   */
  async drain(
    context: { turnId?: string; wake?: boolean; only?: ChannelName } = {},
  ): Promise<string[]> {
    if (context.only === undefined) this.fs?.flushTo(this);
    if (this.#queue.length === 0) return [];
    let batch = this.#queue;
    if (context.only !== undefined) {
      // One channel delivered now (memory-recall beside this round's
      // prompt); the others keep their place for the next boundary.
      batch = batch.filter((q) => q.message.channel === context.only);
      if (batch.length === 0) return [];
      this.#queue = this.#queue.filter((q) =>
        q.message.channel !== context.only
      );
    } else this.#queue = [];
    const out: string[] = [];
    const writes: Promise<void>[] = [];
    for (const q of batch) {
      // Enqueued in order; the store writes them in one go.
      writes.push(this.#record(
        q.message.channel,
        "system_to_agent",
        q.attributes,
        q.message.body ?? "",
        q.rendered,
        sourceOf(q.message),
        context.turnId,
        context.wake === true && CHANNELS.get(q.message.channel)!.wakes,
      ));
      out.push(q.rendered);
    }
    await Promise.all(writes);
    return out;
  }

  /**
   * The `time` block trailing a message the harness writes now, persisted
   * and reported; `undefined` when the profile turned `time` off.
   *
   * @param extra `duration_ms` on a tool result, `origin` on a user message.
   * @returns The rendered block.
   */
  async stamp(
    extra: { duration_ms?: number; origin?: MessageOrigin } = {},
  ): Promise<string | undefined> {
    const s = this.stampNow(extra);
    if (!s) return undefined;
    await s.written;
    return s.rendered;
  }

  /**
   * {@linkcode stamp} without waiting for the write: the rendered block at
   * once and the write's promise, so that several stamps of a round reach
   * the store together.
   *
   * @param extra `duration_ms` on a tool result, `origin` on a user message.
   * @returns The block and its write, or `undefined` when `time` is off.
   */
  stampNow(
    extra: { duration_ms?: number; origin?: MessageOrigin } = {},
  ): { rendered: string; written: Promise<void> } | undefined {
    if (this.#disabled.has("time")) return undefined;
    const now = this.#now();
    const attributes: [string, string][] = [
      ["utc", new Date(now).toISOString()],
      ["local", localTime(now, this.#offset)],
    ];
    if (extra.duration_ms !== undefined) {
      attributes.push([
        "duration_ms",
        String(Math.max(0, Math.round(extra.duration_ms))),
      ]);
    }
    if (extra.origin !== undefined) attributes.push(["origin", extra.origin]);
    const rendered = renderBlock("time", attributes, "");
    const written = this.#record(
      "time",
      "system_to_agent",
      attributes,
      "",
      rendered,
      "kernel",
      undefined,
      false,
    );
    return { rendered, written };
  }

  /** Starts a new turn (a prompt): once-per-turn channels may go again. */
  newTurn(): void {
    this.#limits.newTurn();
    this.#once.clear();
  }

  /**
   * True the first time it is asked for a key in a turn (e.g. the turn's
   * `memory-recall`), false after that until {@linkcode newTurn}.
   *
   * @param key What happens once per turn.
   * @returns Whether this is the first time this turn.
   */
  firstThisTurn(key: string): boolean {
    if (this.#once.has(key)) return false;
    this.#once.add(key);
    return true;
  }

  /**
   * Parses an assistant message's text for agent→system blocks; persists
   * and reports each well-formed one of an enabled channel.
   *
   * @param text The assistant's text.
   * @param turnId Its turn.
   * @returns What was found, and the text without the stripped blocks.
   */
  async consume(text: string, turnId?: string): Promise<AgentOutput> {
    const out = parseAgentOutput(text);
    const writes: Promise<void>[] = [];
    for (const tag of out.tags) {
      if (this.#disabled.has(tag.channel)) continue;
      writes.push(this.#recordTag(tag, turnId));
    }
    await Promise.all(writes);
    return out;
  }

  /**
   * Records an agent→system block that another session wrote about this
   * one (a judge's `<cp:judge-directive>` on the session it reviews):
   * persisted and reported like a block of this session's own model, with
   * `source` naming the writer. A block of a disabled channel is dropped.
   *
   * @param tag The well-formed block (from {@linkcode parseAgentOutput}).
   * @param source Who wrote it, e.g. `judge:<session id>`.
   * @returns When it is persisted.
   */
  recordFrom(tag: AgentTag, source: string): Promise<void> {
    if (this.#disabled.has(tag.channel)) return Promise.resolve();
    return this.#recordTag(tag, undefined, source);
  }

  #recordTag(
    tag: AgentTag,
    turnId: string | undefined,
    source = "model",
  ): Promise<void> {
    const info = CHANNELS.get(tag.channel)!;
    const attrs = info.attributes.flatMap((n): [string, string][] =>
      tag.attrs[n] !== undefined ? [[n, tag.attrs[n]!]] : []
    );
    return this.#record(
      tag.channel,
      "agent_to_system",
      attrs,
      tag.body,
      tag.raw,
      source,
      turnId,
      false,
    );
  }

  #record(
    channel: ChannelName,
    direction: ChannelDirection,
    attributes: [string, string][],
    body: string,
    rendered: string,
    source: string,
    turnId: string | undefined,
    wake: boolean,
  ): Promise<void> {
    const write = this.#log?.emit({
      kind: EventKind.CONTROL,
      producer: KERNEL_PRODUCER,
      schemaVersion: "1",
      payload: toBinary(
        ControlEventSchema,
        create(ControlEventSchema, {
          channel,
          direction,
          attributes: attributes.map(([name, value]) => ({ name, value })),
          body,
          rendered,
          source,
          turnId: turnId ?? "",
          wake,
        }),
      ),
    });
    this.#onMessage?.({
      channel,
      direction,
      attributes: Object.fromEntries(attributes),
      body,
      rendered,
      source,
      ...(turnId !== undefined ? { turnId } : {}),
      ...(wake ? { wake } : {}),
    });
    return write ? write.then(() => {}) : Promise.resolve();
  }
}

/** The rate-limit key of a message: its hook for `hook-fired`, else its source. */
function sourceOf(message: AnyControlMessage): string {
  if (message.channel === "hook-fired") return message.attrs.name;
  if (message.channel === "event-trigger") {
    return message.source ?? message.attrs.source;
  }
  return message.source ?? "kernel";
}

/**
 * A local timestamp with its offset, e.g. `2026-12-02T04:05:06+01:00`.
 *
 * @param ms Epoch ms.
 * @param offsetMinutes Minutes east of UTC; the process's zone by default.
 * @returns The timestamp.
 */
export function localTime(ms: number, offsetMinutes?: number): string {
  const offset = offsetMinutes ?? -new Date(ms).getTimezoneOffset();
  const shifted = new Date(ms + offset * 60_000).toISOString().slice(0, 19);
  const sign = offset < 0 ? "-" : "+";
  const abs = Math.abs(offset);
  const hh = String(Math.floor(abs / 60)).padStart(2, "0");
  const mm = String(abs % 60).padStart(2, "0");
  return `${shifted}${sign}${hh}:${mm}`;
}

/**
 * The system-prompt section that teaches the model the enabled channels:
 * what each system→agent block means and which agent→system blocks it may
 * write.
 *
 * @param enabled The enabled channels (e.g. {@linkcode ControlPlane.enabledChannels}).
 * @returns The section's text.
 */
export function controlPromptSection(
  enabled: Iterable<ChannelName>,
): string {
  const on = new Set(enabled);
  const sys: string[] = [];
  const agent: string[] = [];
  for (const info of CHANNELS.values()) {
    if (!on.has(info.name)) continue;
    const attrs = info.attributes.map((a) =>
      info.optional.includes(a) ? `${a}?` : a
    ).join(" ");
    const line = `- <cp:${info.name}${attrs ? ` ${attrs}` : ""}>: ${
      escapeControlText(info.summary)
    }`;
    (info.direction === "system_to_agent" ? sys : agent).push(line);
  }
  const parts = [
    "# Control plane",
    'The harness talks to you through <cp:NAME attr="…">body</cp:NAME> blocks.',
  ];
  if (sys.length) {
    parts.push(
      "Blocks the harness adds to your input (read-only; never write them yourself):",
      ...sys,
    );
  }
  if (agent.length) {
    parts.push(
      "Blocks you may write in your answer (attributes double-quoted, each block closed):",
      ...agent,
    );
  }
  return parts.join("\n");
}
