/**
 * The terminal UI itself (React state, keys read by Ink, frames painted by
 * `screen.ts` on the terminal the kernel handed over: keys from stdin, the
 * screen on stderr). It drives one
 * session through the plugin's callback connection: CreateSession (or
 * ResumeSession / AttachSession), StreamDeltas for the live text,
 * RenderEvents for the stored transcript (tool calls and results drawn
 * from their producers' Render trees), GetSessionState and ListMetadata
 * for the status line and the widget panel, SubmitInput,
 * ResolvePlanDecision (with corrected input), InvokeSlashCommand and
 * Interrupt.
 *
 * Imported only once the kernel has configured the plugin: Ink and React
 * are its whole start-up cost, and stay off every headless path.
 *
 * @module
 */
import process from "node:process";
import { readdirSync } from "node:fs";
import { Writable } from "node:stream";
import { EventEmitter } from "node:events";
import { setImmediate } from "node:timers";
import type { JsonObject } from "@bufbuild/protobuf";
// @ts-types="@types/react"
import React from "react";
import {
  type Instance,
  type Key,
  render,
  useInput,
  usePaste,
  useWindowSize,
} from "ink";
import type { KernelClient } from "../sdk/mod.ts";
import {
  ClientDecision,
  PlanDecisionScope,
} from "../../proto/gen/pluggableharness/plan/v1/types_pb.ts";
import type { MetadataBlock } from "../../proto/gen/pluggableharness/metadata/v1/types_pb.ts";
import { type Entry, type PendingAsk, Transcript } from "./transcript.ts";
import { type Line, textLines, widthOf, wrapLine } from "./lines.ts";
import { type Frame, Screen } from "./screen.ts";
import { renderTreeLines } from "./render_tree.ts";
import { toolLines } from "./tool_lines.ts";
import {
  applyCompletion,
  backspace,
  type Completion,
  completionAt,
  deleteForward,
  type EditorState,
  editorText,
  emptyEditor,
  insert,
  move,
  vertical,
  withText,
} from "./editor.ts";
import { appendHistory, historyPath, loadHistory } from "./history.ts";
import { PLACEHOLDER, type TerminalKeys, writeStderr } from "./first_frame.ts";
import { PLAN_APPROVED_PROMPT } from "../../contract/plan_mode.ts";

const h = React.createElement;

/** What the plugin was configured with. */
export interface TuiSettings {
  /** The profile of a new session ("" = the kernel's default). */
  profile: string;
  /** A stored session to resume ("" = a new one). */
  resume: string;
  /**
   * A running session to re-attach to ("" = none): the CLI restarts a
   * crashed terminal UI on the session it left.
   */
  attach: string;
  /** Why this UI was restarted ("" = it was not), shown as a notice. */
  restarted: string;
  /** Tests only: exit abruptly once the session's events are drawn. */
  crashAfterBackfill: boolean;
  /** Create the session in plan mode (`agent --plan`). */
  plan: boolean;
  /** Bounds and commands per profile (from the CLI). */
  profiles: Record<
    string,
    { max_turns?: number; max_cost_usd?: number; commands?: string[] }
  >;
  /** The project directory (the plugin's working directory). */
  dir: string;
  /** Whether to draw colours. */
  color: boolean;
}

/** The status line's figures. */
interface Status {
  profile: string;
  model: string;
  usedTokens: number;
  windowTokens: number;
  cost: number;
  turns: number;
  sessionId: string;
  /** Plan mode is on (read-only tools). */
  planMode: boolean;
}

const DOUBLE_CTRL_C_MS = 2000;

/** Everything the UI shares with the session loops. */
class Session {
  readonly transcript: Transcript = new Transcript();
  status: Status = {
    profile: "",
    model: "",
    usedTokens: 0,
    windowTokens: 0,
    cost: 0,
    turns: 0,
    sessionId: "",
    planMode: false,
  };
  metadata: MetadataBlock[] = [];
  /** A turn or command this frontend started and that has not ended. */
  busy = false;
  /** A prompt this frontend sent in plan mode runs (its answer is a plan). */
  planning = false;
  /** A plan-mode turn ended: "carry out this plan?" is offered. */
  planOffer = false;
  /** The stored events are all drawn (a read found nothing newer). */
  caughtUp = false;
  #listeners = new Set<() => void>();
  #closed = false;
  #wake: (() => void) | undefined;
  /** The session's id ("" until it is created, resumed or attached). */
  sessionId = "";
  readonly #opened = Promise.withResolvers<void>();
  /**
   * Resolves once the session exists: the UI is drawn (and takes input)
   * while the kernel opens it, and what is sent waits for this.
   */
  readonly opened: Promise<void> = this.#opened.promise;

  constructor(readonly kernel: KernelClient) {}

  /** Binds the opened session. */
  bind(sessionId: string): void {
    this.sessionId = this.status.sessionId = sessionId;
    this.#opened.resolve();
  }

  /** Subscribes to changes. */
  onChange(f: () => void): () => void {
    this.#listeners.add(f);
    return () => this.#listeners.delete(f);
  }

  changed(): void {
    for (const f of this.#listeners) f();
  }

  /**
   * Reads stored events with their Render trees until closed; polls
   * faster while busy.
   */
  async follow(): Promise<void> {
    let sinceStatus = 0;
    while (!this.#closed) {
      let got = 0;
      try {
        for await (
          const r of this.kernel.renderEvents({
            sessionId: this.sessionId,
            fromSequence: this.transcript.next,
          })
        ) {
          if (!r.event) continue;
          got++;
          this.transcript.applyEvent(r.event, r);
        }
      } catch (err) {
        if (this.#closed) return;
        this.transcript.notice(
          `reading events failed: ${message(err)}`,
          "error",
        );
        this.changed();
      }
      const finalsBefore = this.#finals;
      this.#finals = this.transcript.finals;
      if (this.#finals > finalsBefore && this.transcript.asks.length === 0) {
        this.busy = false;
        if (this.planning) {
          this.planning = false;
          this.planOffer = true;
        }
      }
      const now = Date.now();
      if (got > 0 || now - sinceStatus > 1000) {
        sinceStatus = now;
        await this.refreshStatus();
      }
      if (got > 0) this.changed();
      else if (!this.caughtUp) {
        this.caughtUp = true;
        this.changed();
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        setTimeout(resolve, this.busy ? 25 : 200);
      });
    }
  }
  #finals = 0;

  /** Polls sooner (after input). */
  wake(): void {
    this.#wake?.();
  }

  /**
   * Reads the state snapshot and the metadata board; redraws only when
   * something shown changed (an idle poll must not cost a frame that a
   * keystroke then waits behind).
   */
  async refreshStatus(): Promise<void> {
    try {
      const { state } = await this.kernel.getSessionState({
        sessionId: this.sessionId,
      });
      const before = JSON.stringify(this.status);
      if (state) {
        this.status = {
          ...this.status,
          profile: state.info?.profile ?? this.status.profile,
          model: state.model?.id ?? this.status.model,
          usedTokens: Number(state.context?.usedTokens ?? 0),
          windowTokens: Number(state.context?.windowTokens ?? 0),
          cost: state.info?.costUsd ?? this.transcript.cost,
          turns: state.turnCount,
          planMode: state.planMode,
        };
      }
      const { blocks } = await this.kernel.listMetadata({
        sessionId: this.sessionId,
      });
      // A timer block's text moves with the clock: it redraws each poll.
      const shown = (b: readonly MetadataBlock[]) =>
        JSON.stringify(
          b.map((x) => [x.id, x.priority, x.producer?.name, x.body]),
          (_k, v) => typeof v === "bigint" ? String(v) : v,
        );
      const sameBlocks = shown(blocks) === shown(this.metadata) &&
        !blocks.some((b) => b.body.case === "timer");
      this.metadata = blocks;
      if (!sameBlocks || JSON.stringify(this.status) !== before) {
        this.changed();
      }
    } catch {
      // the next poll tries again
    }
  }

  /** Streams live deltas until closed. */
  async deltas(signal: AbortSignal): Promise<void> {
    try {
      for await (
        const d of this.kernel.streamDeltas({ sessionId: this.sessionId }, {
          signal,
        })
      ) {
        this.transcript.applyDelta(d);
        this.changed();
      }
    } catch {
      // closed
    }
  }

  close(): void {
    this.#closed = true;
    this.wake();
  }
}

function message(err: unknown): string {
  return err instanceof Error
    ? err.message.replace(/^\d+ [A-Z_]+: /, "")
    : String(err);
}

// ---------------------------------------------------------------- layout

const lineCache = new WeakMap<Entry, { key: string; lines: Line[] }>();

/**
 * The markdown renderer (`marked` and the highlighter), imported after the
 * first frame so that it stays off the path to the prompt; answers drawn
 * before it arrives show as plain text and are redrawn.
 */
let markdown: typeof import("./markdown.ts") | undefined;

function entryLines(e: Entry, width: number, showThinking: boolean): Line[] {
  const key = `${width}|${showThinking}|${!!markdown}|${
    e.kind === "tool"
      ? `${e.status}|${e.output}|${e.args}|${!!e.callTree}|${!!e.resultTree}`
      : ""
  }|${"text" in e ? e.text : ""}`;
  const cached = lineCache.get(e);
  if (cached?.key === key) return cached.lines;
  let lines: Line[];
  switch (e.kind) {
    case "user":
      lines = e.text.split("\n").flatMap((t, i) =>
        wrapLine(
          [
            { text: i === 0 ? "› " : "  ", bold: true, color: "cyan" },
            { text: t, bold: true },
          ],
          width,
          [{ text: "  " }],
        )
      );
      break;
    case "assistant":
      lines = (markdown ? markdown.markdownLines(e.text) : textLines(e.text))
        .flatMap((l, i) =>
          wrapLine([{ text: i === 0 ? "● " : "  " }, ...l], width, [{
            text: "  ",
          }])
        );
      break;
    case "thinking": {
      const all = e.text.trim().split("\n");
      const shown = showThinking ? all : all.slice(-2);
      lines = [
        [{
          text: `✻ thinking${
            showThinking || all.length <= 2
              ? ""
              : ` (${all.length} lines, Ctrl-T shows)`
          }`,
          dim: true,
          italic: true,
        }],
        ...shown.flatMap((t) =>
          wrapLine([{ text: `  ${t}`, dim: true, italic: true }], width, [{
            text: "  ",
          }])
        ),
      ];
      break;
    }
    case "tool":
      lines = toolLines(e, width);
      break;
    case "notice":
      lines = wrapLine([{
        text: e.text,
        color: e.tone === "error"
          ? "red"
          : e.tone === "warning"
          ? "yellow"
          : "gray",
      }], width);
      break;
  }
  lineCache.set(e, { key, lines });
  return lines;
}

function transcriptLines(
  entries: readonly Entry[],
  width: number,
  showThinking: boolean,
): Line[] {
  const out: Line[] = [];
  for (const e of entries) {
    if (out.length) out.push([]);
    out.push(...entryLines(e, width, showThinking));
  }
  return out;
}

function fmtTokens(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

function statusLine(
  s: Status,
  bounds: TuiSettings["profiles"][string] | undefined,
  busy: boolean,
  width: number,
): Line {
  const parts: string[] = [
    s.profile || "default",
    s.model || "…",
    s.windowTokens
      ? `ctx ${fmtTokens(s.usedTokens)}/${fmtTokens(s.windowTokens)} (${
        Math.round((100 * s.usedTokens) / s.windowTokens)
      }%)`
      : `ctx ${fmtTokens(s.usedTokens)}`,
    `$${s.cost.toFixed(4)}${
      bounds?.max_cost_usd !== undefined
        ? `/$${bounds.max_cost_usd.toFixed(2)}`
        : ""
    }`,
    `turns ${s.turns}${
      bounds?.max_turns !== undefined ? `/${bounds.max_turns}` : ""
    }`,
    s.sessionId,
  ];
  let text = ` ${busy ? "◐ " : ""}${s.planMode ? "PLAN MODE · " : ""}${
    parts.join(" · ")
  }`;
  if (widthOf(text) > width) {
    text = [...text].slice(0, width - 1).join("") + "…";
  }
  return [{ text: text.padEnd(width), inverse: true }];
}

function metadataLines(
  blocks: readonly MetadataBlock[],
  width: number,
): Line[] {
  return [...blocks].sort((a, b) => b.priority - a.priority).slice(0, 3).map(
    (b) => {
      const v = b.body;
      let text = "";
      switch (v.case) {
        case "keyValue":
          text = `${v.value.key}: ${v.value.value}`;
          break;
        case "progress": {
          const total = v.value.total === undefined
            ? undefined
            : Number(v.value.total);
          const done = Number(v.value.completed);
          const bar = total
            ? `[${
              "█".repeat(Math.round((10 * done) / total)).padEnd(10, "░")
            }] ${done}/${total}`
            : `${done}`;
          text = `${v.value.label} ${bar}`;
          break;
        }
        case "status":
          text = `${v.value.text}${
            v.value.detail ? ` — ${v.value.detail}` : ""
          }`;
          break;
        case "itemList":
          text = `${v.value.title ?? ""} ${v.value.items.join(", ")}`.trim();
          break;
        case "timer": {
          const start = v.value.startedAt
            ? Number(v.value.startedAt.seconds) * 1000
            : Date.now();
          text = `${v.value.label ?? "timer"} ${
            Math.max(0, Math.round((Date.now() - start) / 1000))
          }s`;
          break;
        }
      }
      const line: Line = [{ text: `▪ ${b.producer?.name ?? ""} `, dim: true }, {
        text,
      }];
      return wrapLine(line, width)[0]!;
    },
  );
}

// ------------------------------------------------------------ components

/** No lines (one array, so that a part that stays empty keeps its rows). */
const NO_LINES: Line[] = [];

/** The input box: the buffer with its cursor. */
function inputLines(
  ed: EditorState,
  width: number,
  color: boolean,
  placeholder: string,
): Line[] {
  const inner = Math.max(4, width - 4);
  const out: Line[] = [];
  const empty = ed.lines.length === 1 && ed.lines[0] === "";
  ed.lines.forEach((text, row) => {
    const prefix = row === 0 ? "> " : "  ";
    const cps = [...text];
    const spans: Line = [{ text: prefix, color: "cyan", bold: true }];
    if (row === ed.row) {
      const before = cps.slice(0, ed.col).join("");
      const at = cps[ed.col] ?? " ";
      const after = cps.slice(ed.col + 1).join("");
      spans.push({ text: before });
      spans.push(
        color ? { text: at, inverse: true } : { text: at === " " ? "▏" : at },
      );
      if (empty && placeholder) spans.push({ text: placeholder, dim: true });
      spans.push({ text: after });
    } else spans.push({ text });
    out.push(...wrapLine(spans, inner, [{ text: "  " }]));
  });
  return out;
}

interface AppProps {
  session: Session;
  settings: TuiSettings;
  exit: () => void;
  /** The painter the frame is drawn with (Ink draws nothing). */
  screen: Screen;
}

type Mode =
  | { name: "input" }
  | { name: "carry" }
  | { name: "ask"; scroll: number; error: string }
  | { name: "edit"; ask: PendingAsk; error: string };

function App(
  { session, settings, exit, screen }: AppProps,
): React.ReactElement | null {
  const { columns, rows } = useWindowSize();
  const width = Math.max(20, columns);
  const height = Math.max(8, rows);
  const [, setTick] = React.useState(0);
  const [ed, setEd] = React.useState<EditorState>(() =>
    emptyEditor(history.length)
  );
  const [mode, setMode] = React.useState<Mode>({ name: "input" });
  const [scroll, setScroll] = React.useState(0);
  const [showThinking, setShowThinking] = React.useState(false);
  const [hint, setHint] = React.useState("");
  const lastCtrlC = React.useRef(0);
  const edRef = React.useRef(ed);
  edRef.current = ed;

  React.useEffect(() => session.onChange(() => setTick((t) => t + 1)), [
    session,
  ]);

  const profile = session.status.profile || settings.profile;
  const bounds = settings.profiles[profile];
  const commands = React.useMemo(
    () => [...(bounds?.commands ?? []), "exit"].sort(),
    [bounds],
  );
  const ask = session.transcript.asks[0];
  const activeMode: Mode = mode.name === "input" && ask
    ? { name: "ask", scroll: 0, error: "" }
    : mode.name === "ask" && !ask
    ? { name: "input" }
    : mode.name === "input" && session.planOffer
    ? { name: "carry" }
    : mode;

  const listDir = (dir: string) =>
    readdirSync(dir.startsWith("/") ? dir : `${settings.dir}/${dir}`, {
      withFileTypes: true,
    }).map((d) => d.isDirectory() ? `${d.name}/` : d.name);
  const completion: Completion | undefined = activeMode.name === "input"
    ? completionAt(ed, commands, listDir)
    : undefined;

  const submit = (text: string) => {
    const trimmed = text.trim();
    if (trimmed === "") return;
    try {
      appendHistory(historyPath(settings.dir), history, text);
    } catch (err) {
      if (!historyWarned) {
        historyWarned = true;
        session.transcript.notice(
          `history not saved: ${message(err)}`,
          "warning",
        );
      }
    }
    setEd(emptyEditor(history.length));
    setScroll(0);
    setHint("");
    if (trimmed === "/exit" || trimmed === "/quit") {
      exit();
      return;
    }
    if (trimmed.startsWith("/")) {
      const body = trimmed.slice(1);
      const space = body.indexOf(" ");
      const name = space < 0 ? body : body.slice(0, space);
      const args = space < 0 ? "" : body.slice(space + 1);
      session.transcript.addPrompt(trimmed);
      session.busy = true;
      session.changed();
      session.opened.then(() =>
        session.kernel.invokeSlashCommand({
          sessionId: session.sessionId,
          name,
          args,
        })
      ).then(
        () => {},
        (err) =>
          session.transcript.notice(`/${name}: ${message(err)}`, "error"),
      ).finally(() => {
        session.busy = false;
        session.wake();
        session.changed();
      });
      session.wake();
      return;
    }
    send(text);
  };

  /**
   * Sends a prompt; `planMode` switches plan mode when its turn starts
   * (false: the approved plan is carried out with every tool).
   */
  const send = (text: string, planMode?: boolean) => {
    session.transcript.addPrompt(text);
    session.busy = true;
    session.planOffer = false;
    if (planMode !== undefined) session.status.planMode = planMode;
    session.planning = session.status.planMode;
    session.changed();
    session.opened.then(() =>
      session.kernel.submitInput({
        sessionId: session.sessionId,
        content: [{ block: { case: "text", value: { text } } }],
        ...(planMode !== undefined ? { planMode } : {}),
      })
    ).then(
      () => session.wake(),
      (err) => {
        session.busy = false;
        session.planning = false;
        session.transcript.notice(message(err), "error");
        session.changed();
      },
    );
  };

  /** The answer to "carry out this plan?". */
  const carry = (yes: boolean) => {
    session.planOffer = false;
    setMode({ name: "input" });
    if (yes) return send(PLAN_APPROVED_PROMPT, false);
    session.transcript.notice(
      `Plan mode stays on: refine the plan with another prompt${
        commands.includes("plan") ? ", or /plan turns it off" : ""
      }.`,
    );
    session.changed();
  };

  const decide = (
    a: PendingAsk,
    decision: ClientDecision,
    scope: PlanDecisionScope,
    corrected?: JsonObject,
  ) => {
    session.kernel.resolvePlanDecision({
      sessionId: session.sessionId,
      planItemId: a.item.id,
      decision,
      scope,
      ...(corrected ? { correctedInput: corrected } : {}),
    }).then(
      () => {
        session.transcript.settle(a.item.id);
        setMode({ name: "input" });
        session.wake();
      },
      (err) => {
        const text = message(err);
        if (
          /already resolved|first answer won|NOT_FOUND|no pending/i.test(text)
        ) {
          session.transcript.settle(a.item.id);
          setMode({ name: "input" });
        } else if (corrected) {
          setMode({ name: "edit", ask: a, error: text });
        } else setMode({ name: "ask", scroll: 0, error: text });
        session.changed();
      },
    );
  };

  const ctrlC = () => {
    const now = Date.now();
    if (now - lastCtrlC.current < DOUBLE_CTRL_C_MS) {
      exit();
      return;
    }
    lastCtrlC.current = now;
    if (session.busy || session.transcript.asks.length) {
      session.opened.then(() =>
        session.kernel.interrupt({ sessionId: session.sessionId })
      ).then(
        () => {
          session.busy = false;
          session.planning = false;
          session.transcript.notice(
            "interrupted (Ctrl-C again within 2 s exits)",
            "warning",
          );
          session.wake();
        },
        (err) => session.transcript.notice(message(err), "error"),
      );
    } else if (editorText(edRef.current) !== "") {
      setEd(emptyEditor(history.length));
      setHint("input cleared (Ctrl-C again within 2 s exits)");
    } else setHint("press Ctrl-C again within 2 s to exit, or type /exit");
  };

  usePaste((text) => {
    if (activeMode.name === "ask") return;
    setEd((s) => insert(s, text));
  });

  useInput((input: string, key: Key) => {
    if (key.ctrl && input === "c") return ctrlC();
    lastCtrlC.current = 0; // another key ends a Ctrl-C streak
    if (key.ctrl && input === "t") {
      setShowThinking((v) => !v);
      return;
    }
    if (key.pageUp) return setScroll((s) => s + Math.max(1, height - 8));
    if (key.pageDown) {
      return setScroll((s) => Math.max(0, s - Math.max(1, height - 8)));
    }
    if (activeMode.name === "carry") {
      const k = input.toLowerCase();
      if (k === "y" || key.return) return carry(true);
      if (k === "n" || key.escape) return carry(false);
      return;
    }
    if (activeMode.name === "ask" && ask) {
      const k = input.toLowerCase();
      if (k === "y") {
        return decide(ask, ClientDecision.ALLOW, PlanDecisionScope.ONCE);
      }
      if (k === "s") {
        return decide(ask, ClientDecision.ALLOW, PlanDecisionScope.SESSION);
      }
      if (k === "a") {
        return decide(ask, ClientDecision.ALLOW, PlanDecisionScope.ALWAYS);
      }
      if (k === "n" || key.escape) {
        return decide(ask, ClientDecision.DENY, PlanDecisionScope.ONCE);
      }
      if (k === "e") {
        setEd(withText(
          emptyEditor(history.length),
          JSON.stringify(ask.item.input ?? {}, null, 2),
        ));
        return setMode({ name: "edit", ask, error: "" });
      }
      if (key.upArrow) {
        return setMode({
          ...activeMode,
          scroll: Math.max(0, activeMode.scroll - 1),
        });
      }
      if (key.downArrow) {
        return setMode({ ...activeMode, scroll: activeMode.scroll + 1 });
      }
      return;
    }
    // The input box (also the edit-input box of a plan item).
    if (
      !key.return && input.length > 1 && /[\r\n]/.test(input) &&
      activeMode.name === "input"
    ) {
      // Keys typed ahead arrive as one chunk (a paste comes through
      // usePaste), with a newline where the terminal was still cooked:
      // each line end submits the text before it.
      const parts = input.split(/\r\n?|\n/);
      let s = ed;
      for (const part of parts.slice(0, -1)) {
        submit(editorText(insert(s, part)));
        s = emptyEditor(history.length);
      }
      setEd(insert(s, parts.at(-1)!));
      return;
    }
    if (key.escape && activeMode.name === "edit") {
      setEd(emptyEditor(history.length));
      return setMode({ name: "ask", scroll: 0, error: "" });
    }
    if (key.return) {
      const text = editorText(ed);
      if (key.meta || text.endsWith("\\")) {
        // Alt-Enter, or a line ending in a backslash: a new line.
        setEd((s) => insert(text.endsWith("\\") ? backspace(s) : s, "\n"));
        return;
      }
      if (activeMode.name === "edit") {
        let corrected: unknown;
        try {
          corrected = JSON.parse(text);
        } catch (err) {
          return setMode({ ...activeMode, error: `not JSON: ${message(err)}` });
        }
        if (
          !corrected || typeof corrected !== "object" ||
          Array.isArray(corrected)
        ) {
          return setMode({
            ...activeMode,
            error: "the input must be a JSON object",
          });
        }
        setEd(emptyEditor(history.length));
        return decide(
          activeMode.ask,
          ClientDecision.ALLOW,
          PlanDecisionScope.ONCE,
          corrected as JsonObject,
        );
      }
      return submit(text);
    }
    if (input === "\n" || (key.ctrl && input === "j")) {
      return setEd((s) => insert(s, "\n"));
    }
    if (key.ctrl && input === "d") {
      if (editorText(ed) === "") return exit();
      return setEd((s) => deleteForward(s));
    }
    if (key.tab) {
      if (completion) setEd((s) => applyCompletion(s, completion));
      return;
    }
    if (key.backspace || key.delete) {
      // Terminals send DEL (0x7f) for Backspace, which Ink calls delete.
      return setEd((s) => backspace(s));
    }
    if (key.leftArrow) return setEd((s) => move(s, "left"));
    if (key.rightArrow) return setEd((s) => move(s, "right"));
    if (key.home || (key.ctrl && input === "a")) {
      return setEd((s) => move(s, "home"));
    }
    if (key.end || (key.ctrl && input === "e")) {
      return setEd((s) => move(s, "end"));
    }
    if (key.upArrow) return setEd((s) => vertical(s, "up", history));
    if (key.downArrow) return setEd((s) => vertical(s, "down", history));
    if (key.ctrl && input === "u") return setEd(emptyEditor(history.length));
    if (key.ctrl || key.meta || input === "") return;
    setHint("");
    setEd((s) => insert(s, input));
  });

  // ----- layout, bottom up: status, panel, input or dialog, transcript
  const color = settings.color;
  // A key redraws the input box: the status line, the panel and the hint
  // keep their lines (the painter then reuses their rows) until what they
  // show changes.
  const status = React.useMemo(
    () => [statusLine(session.status, bounds, session.busy, width)],
    [session.status, bounds, session.busy, width],
  );
  const panel = React.useMemo(
    () => metadataLines(session.metadata, width),
    [session.metadata, width],
  );
  const hintLines = React.useMemo(
    (): Line[] => hint ? [[{ text: `  ${hint}`, dim: true }]] : NO_LINES,
    [hint],
  );
  let bottom: Line[] = NO_LINES;
  let boxTitle = "";
  let boxLines: Line[] = [];
  if (activeMode.name === "carry") {
    boxTitle = "Carry out this plan?";
    boxLines = [
      ...wrapLine([{
        text:
          "Plan mode offered the model read-only tools; carried out, the same session goes on with every tool of the profile.",
        dim: true,
      }], width - 4),
      [
        { text: "y", bold: true, color: "green" },
        { text: " carry it out (plan mode off)  " },
        { text: "n", bold: true, color: "red" },
        { text: " keep planning" },
      ],
    ];
  } else if (activeMode.name === "ask" && ask) {
    const item = ask.item;
    const preview = renderTreeLines(item.preview);
    const body = (preview.length
      ? preview
      : textLines(JSON.stringify(item.input ?? {}, null, 2))).flatMap((l) =>
        wrapLine(l, width - 4)
      );
    const room = Math.max(3, Math.floor(height / 2) - 4);
    const scrollAt = Math.min(
      activeMode.scroll,
      Math.max(0, body.length - room),
    );
    boxTitle = `Approve ${item.provider}.${item.operationName}?`;
    boxLines = [
      ...(item.description
        ? wrapLine([{ text: item.description, dim: true }], width - 4)
        : []),
      ...body.slice(scrollAt, scrollAt + room),
      ...(body.length > room
        ? [[{
          text: `(${scrollAt + 1}–${
            Math.min(body.length, scrollAt + room)
          } of ${body.length} lines, ↑/↓ scroll)`,
          dim: true,
        }]]
        : []),
      ...(activeMode.error
        ? wrapLine([{ text: activeMode.error, color: "red" }], width - 4)
        : []),
      [
        { text: "y", bold: true, color: "green" },
        { text: " once  " },
        { text: "s", bold: true, color: "green" },
        { text: " session  " },
        { text: "a", bold: true, color: "green" },
        { text: " always  " },
        { text: "n", bold: true, color: "red" },
        { text: " reject  " },
        { text: "e", bold: true, color: "yellow" },
        { text: " edit input" },
      ],
    ];
  } else {
    if (activeMode.name === "edit") {
      boxTitle =
        `Edit the input of ${activeMode.ask.item.provider}.${activeMode.ask.item.operationName} (Enter approves once, Esc goes back)`;
    }
    boxLines = inputLines(
      ed,
      width,
      color,
      activeMode.name === "input" && !session.busy ? PLACEHOLDER : "",
    );
    if (activeMode.name === "edit" && activeMode.error) {
      boxLines.push(
        ...wrapLine([{ text: activeMode.error, color: "red" }], width - 4),
      );
    }
    const maxInput = Math.max(3, Math.floor(height / 2) - 2);
    if (boxLines.length > maxInput) {
      const cursorLine = Math.min(boxLines.length, ed.row + 1);
      const from = Math.max(
        0,
        Math.min(cursorLine - maxInput, boxLines.length - maxInput),
      );
      boxLines = boxLines.slice(from, from + maxInput);
    }
    if (completion && completion.candidates.length) {
      const shown = completion.candidates.slice(0, 8).join("  ");
      bottom = wrapLine([{
        text: `  ${shown}${
          completion.candidates.length > 8 ? "  …" : ""
        }  (Tab)`,
        dim: true,
      }], width).slice(0, 1);
    } else bottom = hintLines;
  }
  const boxHeight = boxLines.length + 2 + (boxTitle ? 1 : 0);
  const transcriptHeight = Math.max(
    1,
    height - boxHeight - bottom.length - panel.length - 1,
  );
  // Typing redraws only the input box: the transcript's lines are
  // recomputed when the transcript, the size or the scroll changes.
  const version = session.transcript.version;
  const visible = React.useMemo(() => {
    const all = transcriptLines(
      session.transcript.entries,
      width - 1,
      showThinking,
    );
    const maxScroll = Math.max(0, all.length - transcriptHeight);
    const off = Math.min(scroll, maxScroll);
    const lines = all.slice(
      Math.max(0, all.length - transcriptHeight - off),
      all.length - off,
    );
    while (lines.length < transcriptHeight) lines.unshift([]);
    if (off > 0) {
      lines[0] = [{
        text: `↑ ${
          all.length - transcriptHeight - off + 1
        } more lines above (PgUp/PgDn)`,
        dim: true,
      }];
    }
    return lines;
  }, [version, width, showThinking, transcriptHeight, scroll, session]);

  const frame: Frame = {
    width,
    height,
    color,
    transcript: visible,
    box: {
      ...(boxTitle
        ? {
          title: wrapLine(
            [{ text: boxTitle, bold: true, color: "yellow" }],
            width - 4,
          )[0]!,
        }
        : {}),
      lines: boxLines,
      border: activeMode.name === "input" ? "gray" : "yellow",
    },
    bottom,
    panel,
    status,
  };
  // Painted once React has committed (several commits in one turn of the
  // event loop paint once); Ink is given nothing to draw.
  React.useLayoutEffect(() => screen.paintSoon(frame));
  return null;
}

/**
 * The terminal's keys as the stream Ink reads, fed by the terminal's one
 * reader, which the entry module started (`first_frame.ts`): the keys
 * typed before Ink ran first, in order, then each chunk as it is read.
 * Ink on Deno's `process.stdin` stopped every other socket of the process
 * from delivering data once raw mode was on (the plugin's gRPC calls to
 * the kernel hung); reading the terminal through Deno's own API does not.
 * Raw mode is the reader's: on from the first screen until close (a Ctrl-C
 * typed while the UI winds down must not become a SIGINT to the kernel's
 * process group), so Ink's switches are no-ops.
 *
 * It is the part of a readable stream Ink uses ('readable', then `read()`
 * until `null`). Keys typed while the UI was busy arrive together, and a
 * Node `Readable` joins whatever is buffered into one read, which Ink's
 * parser splits only at Backspace, Ctrl-C and escape sequences: Ctrl-U
 * then "/cos" was the text "\x15/cos". Here each other control key
 * (0x00–0x1a but Tab, Enter and Ctrl-J) is a read of its own, the text
 * between them one read, and one read per turn of the event loop, so that
 * React has committed the previous key's state before the next key runs.
 */
export class InkKeys extends EventEmitter {
  /** Ink checks that its stdin is a terminal. */
  readonly isTTY = true;
  #text = "";
  #decoder = new TextDecoder();
  #signalled = false;
  #waiting = false;

  /**
   * Takes a chunk read from the terminal.
   *
   * @param chunk The bytes read.
   */
  add(chunk: Uint8Array): void {
    this.#text += this.#decoder.decode(chunk, { stream: true });
    this.#signal();
  }

  /** @returns The next key or run of text, or `null` (none, or not yet). */
  read(): string | null {
    if (this.#waiting || this.#text === "") return null;
    const piece = keyPiece(this.#text);
    this.#text = this.#text.slice(piece.length);
    if (this.#text !== "") {
      this.#waiting = true;
      setImmediate(() => {
        this.#waiting = false;
        this.#signal();
      });
    }
    return piece;
  }

  /** Raw mode is the terminal reader's: a no-op. */
  setRawMode(_on: boolean): this {
    return this;
  }

  /** Pieces are text already: a no-op. */
  setEncoding(_encoding: string): this {
    return this;
  }

  /** A no-op (the terminal reader keeps the process alive). */
  ref(): this {
    return this;
  }

  /** A no-op. */
  unref(): this {
    return this;
  }

  override addListener(
    event: string | symbol,
    listener: (...args: unknown[]) => void,
  ): this {
    super.addListener(event, listener);
    if (event === "readable") this.#signal();
    return this;
  }

  override on(
    event: string | symbol,
    listener: (...args: unknown[]) => void,
  ): this {
    return this.addListener(event, listener);
  }

  /** 'readable', once per turn, when text waits and someone listens. */
  #signal(): void {
    if (
      this.#signalled || this.#waiting || this.#text === "" ||
      this.listenerCount("readable") === 0
    ) return;
    this.#signalled = true;
    process.nextTick(() => {
      this.#signalled = false;
      if (this.#text !== "" && !this.#waiting) this.emit("readable");
    });
  }
}

/** A control key Ink's parser does not split out of text. */
function isControlKey(code: number): boolean {
  return code <= 0x1a && code !== 0x09 && code !== 0x0a && code !== 0x0d;
}

/** The first piece of `text`: one control key, or the text before the next. */
function keyPiece(text: string): string {
  if (isControlKey(text.charCodeAt(0))) return text[0]!;
  for (let i = 1; i < text.length; i++) {
    if (isControlKey(text.charCodeAt(i))) return text.slice(0, i);
  }
  return text;
}

function inkStdin(keys: TerminalKeys): InkKeys {
  const stream = new InkKeys();
  keys.handOver((chunk) => stream.add(chunk), () => {});
  return stream;
}

/**
 * The stream Ink takes as its output: the window's size and resizes of the
 * terminal (stderr), and nothing of what Ink writes reaches the terminal
 * but the bracketed paste switches (`usePaste`): the screen is the
 * painter's (`screen.ts`), and Ink's tree is empty.
 */
function inkStdout(): { stream: Writable; close(): void } {
  const stream = new Writable({
    decodeStrings: false,
    write(chunk, _encoding, done) {
      const text = String(chunk);
      if (text === "\x1b[?2004h" || text === "\x1b[?2004l") {
        writeStderr(text);
      }
      done();
    },
  }) as Writable & { isTTY: boolean; columns: number; rows: number };
  stream.isTTY = true;
  Object.defineProperties(stream, {
    columns: { get: () => process.stderr.columns },
    rows: { get: () => process.stderr.rows },
  });
  const onResize = () => stream.emit("resize");
  process.stderr.on("resize", onResize);
  return { stream, close: () => process.stderr.off("resize", onResize) };
}

let history: string[] = [];
let historyWarned = false;

/**
 * Opens the session (created, resumed, or the running one re-attached)
 * and draws the UI until the operator exits.
 *
 * @param kernel The callback connection.
 * @param settings The plugin's settings.
 * @param keys The terminal's keys, from the reader the entry module
 * started (those typed so far first).
 * @returns Resolves when the UI has exited and the session is detached.
 */
export async function runTui(
  kernel: KernelClient,
  settings: TuiSettings,
  keys: TerminalKeys,
): Promise<void> {
  history = loadHistory(historyPath(settings.dir));
  const session = new Session(kernel);
  session.status.planMode = settings.plan && !settings.attach;
  // Once the stored events are drawn (the backfill of an attached or
  // resumed session): the restart notice goes below them.
  const offBackfilled = session.onChange(() => {
    if (!session.caughtUp || session.transcript.next === 1n) return;
    offBackfilled();
    if (settings.restarted) {
      session.transcript.notice(
        `The terminal UI was restarted (${settings.restarted}); the session went on headless and is re-attached.`,
        "warning",
      );
      session.changed();
    }
    if (settings.crashAfterBackfill) {
      // Tests only: the process ends without restoring the terminal or
      // detaching, as a crash would.
      setTimeout(() => Deno.exit(70), 200);
    }
  });
  const done = Promise.withResolvers<void>();
  const stdin = inkStdin(keys);
  const stdout = inkStdout();
  // The alternate screen (the entry module's first screen is there
  // already), the cursor hidden: what Ink's render did.
  writeStderr("\x1b[?1049h\x1b[?25l");
  const screen = new Screen(writeStderr);
  let unmount = () => {};
  const exit = () => {
    unmount();
    done.resolve();
  };
  const instance: Instance = render(
    h(App, { session, settings, exit, screen }),
    {
      stdout: stdout.stream as unknown as NodeJS.WriteStream,
      stdin: stdin as unknown as NodeJS.ReadStream,
      exitOnCtrlC: false,
      patchConsole: false,
      interactive: true,
      alternateScreen: false,
    },
  );
  let unmounted = false;
  unmount = () => {
    if (unmounted) return;
    unmounted = true;
    screen.close();
    instance.unmount();
    stdout.close();
    writeStderr("\x1b[?1049l\x1b[?25h");
  };
  // Drawn first, then the session opens: the prompt is on screen while
  // the kernel creates (or resumes, or re-attaches) it.
  let sessionId: string;
  try {
    if (settings.attach) {
      sessionId = (await kernel.attachSession({ sessionId: settings.attach }))
        .info!.sessionId;
    } else if (settings.resume) {
      sessionId = (await kernel.resumeSession({
        sessionId: settings.resume,
        ...(settings.plan ? { planMode: true } : {}),
      })).info!.sessionId;
    } else {
      sessionId = (await kernel.createSession({
        ...(settings.profile ? { profile: settings.profile } : {}),
        ...(settings.plan ? { planMode: true } : {}),
      })).info!.sessionId;
    }
  } catch (err) {
    unmount();
    keys.close();
    throw err;
  }
  session.bind(sessionId);
  const deltas = new AbortController();
  const following = session.follow();
  const streaming = session.deltas(deltas.signal);
  // The status line fills in with the first snapshot.
  session.refreshStatus();
  import("./markdown.ts").then((m) => {
    markdown = m;
    session.transcript.version++;
    session.changed();
  }, (err) => {
    session.transcript.notice(`markdown unavailable: ${message(err)}`, "error");
    session.changed();
  });
  await done.promise;
  session.close();
  deltas.abort();
  await Promise.allSettled([following, streaming]);
  await kernel.detachSession({ sessionId }).catch(() => {});
  keys.close();
}
