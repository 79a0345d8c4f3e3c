/**
 * The sources that feed a session's control plane from outside its turns
 * ({@linkcode startControlSources}): the `control_plane {}` timers and
 * event-bus topics (`event-trigger`), and exec's
 * `plugin.tool.<name>.background_exited` (`shell-exit`, once per command,
 * with an ANSI-stripped, bounded output tail). Also the texts the session
 * writes for the control plane: the system-prompt section
 * ({@linkcode controlSection}), the `permission-context` body and the goal
 * nudge.
 *
 * @module
 */
import type { PolicyRule } from "../../contract/policy.ts";
import type { EventBus } from "../bus/event_bus.ts";
import { type ChannelName, CHANNELS, isChannelName } from "./channels.ts";
import { type ControlPlane, controlPromptSection } from "./control_plane.ts";
import { FsChanges, startFsWatch } from "./fs_change.ts";

/** A profile's `control_plane {}` settings. */
export interface ControlPlaneSpec {
  /** Channels turned off (e.g. `time`). @default {[]} */
  readonly disable?: readonly string[];
  /** Timers that fire `event-trigger` into the session. @default {[]} */
  readonly timers?: readonly ControlTimerSpec[];
  /**
   * Event-bus topic filters whose events fire `event-trigger` into the
   * session. @default {[]}
   */
  readonly topics?: readonly string[];
  /**
   * Ask for turn summaries: when a round ends and the turn has no
   * `<cp:compact>` block yet, `turn-summary-missing` reminds the agent
   * (once per turn). @default {false}
   */
  readonly turnSummaries?: boolean;
  /**
   * Absolute directories watched for `fs-change` (the write-granted roots
   * of the profile's tools, with `control_plane { watch_fs = true }`).
   * @default {[]}
   */
  readonly watch?: readonly string[];
  /**
   * Trigger hooks: an event on a hook's topic filter fires `hook-fired`
   * into the session (30/min per hook; it wakes an idle session).
   * @default {[]}
   */
  readonly hooks?: readonly ControlHookSpec[];
}

/** A `hook "<name>" { on, text }` of `control_plane {}`. */
export interface ControlHookSpec {
  /** The hook's name (its rate-limit key). */
  readonly name: string;
  /** The event-bus topic filter that fires it. */
  readonly on: string;
  /** The line it puts before the agent. */
  readonly text: string;
}

/** A `timer "<name>" { every_s, text }` of `control_plane {}`. */
export interface ControlTimerSpec {
  /** The timer's name (the event's source is `timer:<name>`). */
  readonly name: string;
  /** Seconds between firings. */
  readonly everyS: number;
  /** The text the event carries. */
  readonly text: string;
}

/** Runs `fn` every `ms` until the returned function is called. */
export type Every = (ms: number, fn: () => void) => () => void;

/** What {@linkcode startControlSources} listens on. */
export interface ControlSourceOptions {
  /** The session (exec events of other sessions are ignored). */
  readonly sessionId: string;
  /** The kernel's bus; without it only timers run. */
  readonly bus?: EventBus;
  /** The timer primitive. @default {an unref'd setInterval} */
  readonly every?: Every;
  /** The clock (epoch ms). @default {Date.now} */
  readonly now?: () => number;
  /** The session's profile (a trigger hook's declared target). */
  readonly profile?: string;
}

/** Characters of a background command's output tail in `shell-exit`. */
export const SHELL_EXIT_TAIL_CHARS = 2_000;
/** Characters of a bus event's payload in `event-trigger`. */
export const EVENT_TRIGGER_BODY_CHARS = 2_000;

const ANSI_REGEXP =
  // deno-lint-ignore no-control-regex
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

/**
 * Removes ANSI escape sequences (colours, cursor moves, titles).
 *
 * @param text Terminal output.
 * @returns The text without escapes.
 */
export function stripAnsi(text: string): string {
  return text.replace(ANSI_REGEXP, "");
}

/**
 * The last `max` characters of a text, marked when cut.
 *
 * @param text The text.
 * @param max Characters kept.
 * @returns The tail.
 */
export function tailOf(text: string, max: number): string {
  if (text.length <= max) return text;
  return `[… ${text.length - max} earlier characters cut]\n${
    text.slice(text.length - max)
  }`;
}

const defaultEvery: Every = (ms, fn) => {
  const id = setInterval(fn, ms);
  Deno.unrefTimer(id);
  return () => clearInterval(id);
};

/**
 * Starts the outside sources of a session's control plane.
 *
 * @param plane The session's control plane.
 * @param spec The profile's `control_plane {}`.
 * @param options Session, bus and timer primitive.
 * @returns Stops every source.
 */
export function startControlSources(
  plane: ControlPlane,
  spec: ControlPlaneSpec,
  options: ControlSourceOptions,
): () => void {
  const stops: (() => void)[] = [];
  const every = options.every ?? defaultEvery;
  for (const t of spec.timers ?? []) {
    stops.push(every(t.everyS * 1000, () => {
      plane.post({
        channel: "event-trigger",
        attrs: { source: `timer:${t.name}` },
        body: t.text,
      });
    }));
  }
  if (spec.watch?.length && plane.isEnabled("fs-change")) {
    plane.fs = new FsChanges(spec.watch, options.now);
    stops.push(startFsWatch(plane.fs, spec.watch));
  }
  const bus = options.bus;
  if (bus) {
    for (const h of spec.hooks ?? []) {
      stops.push(bus.listen([h.on], (e) => {
        plane.post({
          channel: "hook-fired",
          attrs: {
            name: h.name,
            target: `profile:${options.profile ?? ""}`,
            session: options.sessionId,
          },
          body: `${h.text}\nFired by ${e.topic}: ${
            payloadText(e.payload, e.payloadType)
          }`,
          source: `hook:${h.name}`,
        });
      }));
    }
  }
  if (bus && spec.topics?.length) {
    stops.push(bus.listen(spec.topics, (e) => {
      plane.post({
        channel: "event-trigger",
        attrs: { source: `bus:${e.topic}` },
        body: payloadText(e.payload, e.payloadType),
      });
    }));
  }
  if (bus && plane.isEnabled("shell-exit")) {
    const seen = new Set<string>();
    stops.push(bus.listen(["plugin.tool.*"], (e) => {
      if (!e.topic.endsWith(".background_exited")) return;
      const exit = parseExit(e.payload);
      if (!exit || exit.sessionId !== options.sessionId) return;
      if (seen.has(exit.id)) return; // never re-issued
      seen.add(exit.id);
      plane.shells.exited(exit.id);
      plane.post({
        channel: "shell-exit",
        attrs: {
          "exec-id": exit.id,
          ...(exit.code !== undefined ? { "exit-code": exit.code } : {}),
          ...(exit.signal !== undefined ? { signal: exit.signal } : {}),
        },
        body: shellExitBody(exit),
        source: e.topic,
      });
    }));
  }
  return () => {
    for (const stop of stops.splice(0)) stop();
  };
}

interface Exit {
  readonly id: string;
  readonly sessionId: string;
  readonly command: string;
  readonly code?: number;
  readonly signal?: string;
  readonly killed: boolean;
  readonly tail: string;
}

function parseExit(payload: Uint8Array): Exit | undefined {
  let v: unknown;
  try {
    v = JSON.parse(new TextDecoder().decode(payload));
  } catch {
    return undefined;
  }
  if (!v || typeof v !== "object") return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.background_id !== "string") return undefined;
  if (typeof o.session_id !== "string") return undefined;
  return {
    id: o.background_id,
    sessionId: o.session_id,
    command: typeof o.command === "string" ? o.command : "",
    ...(typeof o.exit_code === "number" ? { code: o.exit_code } : {}),
    ...(typeof o.signal === "string" ? { signal: o.signal } : {}),
    killed: o.killed === true,
    tail: typeof o.output_tail === "string" ? o.output_tail : "",
  };
}

function shellExitBody(exit: Exit): string {
  const outcome = exit.killed
    ? "killed (bash_kill)"
    : exit.signal !== undefined
    ? `ended by ${exit.signal}`
    : `exited with code ${exit.code ?? "unknown"}`;
  const tail = tailOf(stripAnsi(exit.tail).trimEnd(), SHELL_EXIT_TAIL_CHARS);
  return `The background command ${JSON.stringify(exit.command)} ${outcome}.${
    tail ? `\nOutput tail:\n${tail}` : ""
  }`;
}

function payloadText(payload: Uint8Array, type: string): string {
  if (
    type.startsWith("text/") || type === "application/json" ||
    type.endsWith("+json")
  ) {
    return tailOf(
      new TextDecoder().decode(payload),
      EVENT_TRIGGER_BODY_CHARS,
    );
  }
  return `(${payload.length} bytes of ${type || "unknown type"})`;
}

/**
 * A spec with the control-plane section added to its preamble (the
 * system-prompt section generated from the enabled channels).
 *
 * @param spec A resolved session spec with a control plane.
 * @returns The spec with the section.
 */
export function controlSection<
  T extends {
    readonly controlPlane: ControlPlaneSpec | undefined;
    readonly preamble: readonly { label: string; text: string }[];
  },
>(spec: T): T {
  const disabled = new Set(spec.controlPlane?.disable ?? []);
  const enabled: ChannelName[] = [];
  for (const name of CHANNEL_ORDER) if (!disabled.has(name)) enabled.push(name);
  return {
    ...spec,
    preamble: [...spec.preamble, {
      label: "control-plane",
      text: controlPromptSection(enabled),
    }],
  };
}

const CHANNEL_ORDER: readonly ChannelName[] = [...CHANNELS.keys()];

/**
 * The `permission-context` body: the rules in force, one a line.
 *
 * @param rules The profile's policy rules in order.
 * @param onAsk What an unanswered ask becomes.
 * @returns The body.
 */
export function permissionContextBody(
  rules: readonly PolicyRule[],
  onAsk: string,
): string {
  const lines = rules.map((r) => {
    const m = Object.entries(r.match)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(" ");
    return `${r.name}: ${r.action}${m ? ` when ${m}` : " always"}`;
  });
  return [
    ...(lines.length ? lines : ["(no policy rules)"]),
    `Unanswered asks: ${onAsk}.`,
  ].join("\n");
}

/** The body of `turn-summary-missing`. */
export const TURN_SUMMARY_REMINDER: string =
  'This turn has no summary yet. Before you end it, summarise it in <cp:compact type="…"> blocks (type: fact, learning, decision, request, response or tool), one line each.';

/**
 * The nudge that continues a session goal the agent has not declared.
 *
 * @param goal The goal.
 * @returns The text.
 */
export function goalNudge(goal: string): string {
  return `Keep working toward the session goal: ${goal}\nWhen it is verifiably done, or cannot go on without the user, say so with <cp:goal-status state="done"> or <cp:goal-status state="blocked"> and a summary.`;
}

/**
 * The first name that is not a channel of the seed.
 *
 * @param names Channel names.
 * @returns The first unknown name, or `undefined`.
 */
export function unknownChannel(names: Iterable<string>): string | undefined {
  for (const n of names) if (!isChannelName(n)) return n;
  return undefined;
}
