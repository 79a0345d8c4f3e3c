/**
 * Human rendering of session events for the `agent` command line: the
 * assistant's text streamed as it arrives, tool calls and results on one
 * line each, plans with their diff previews, approvals, bounds and the
 * end of the session. Colour only when asked for.
 *
 * @module
 */
import type { JsonValue } from "@bufbuild/protobuf";
import type {
  PlanItemView,
  SessionEvent,
} from "../../kernel/agent/session_events.ts";

/** ANSI styles, or none. */
export interface Style {
  /** Dimmed text. */
  dim(s: string): string;
  /** Bold text. */
  bold(s: string): string;
  /** Green (added lines, success). */
  green(s: string): string;
  /** Red (removed lines, errors). */
  red(s: string): string;
  /** Yellow (asks, warnings). */
  yellow(s: string): string;
  /** Cyan (tool calls). */
  cyan(s: string): string;
  /** Italic text. */
  italic(s: string): string;
}

const wrap = (open: number, close: number) => (s: string) =>
  `\x1b[${open}m${s}\x1b[${close}m`;

/**
 * The styles for a stream.
 *
 * @param color Whether to colour.
 * @returns The styles.
 */
export function styleFor(color: boolean): Style {
  if (!color) {
    const id = (s: string) => s;
    return {
      dim: id,
      bold: id,
      green: id,
      red: id,
      yellow: id,
      cyan: id,
      italic: id,
    };
  }
  return {
    dim: wrap(2, 22),
    bold: wrap(1, 22),
    green: wrap(32, 39),
    red: wrap(31, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
    italic: wrap(3, 23),
  };
}

/**
 * Paints a `render.v1.TextStyle` as protobuf JSON writes it: the enum's
 * name (`TEXT_STYLE_BOLD`), or its number when a writer chose numbers.
 * Unset and `NORMAL` paint plain text.
 *
 * @param style The styles.
 * @param textStyle The node's `style` field.
 * @returns The painter for the node's lines.
 */
export function textStylePainter(
  style: Style,
  textStyle: JsonValue | undefined,
): (s: string) => string {
  const name = typeof textStyle === "number"
    ? TEXT_STYLE_NAMES[textStyle]
    : typeof textStyle === "string"
    ? textStyle.replace(/^TEXT_STYLE_/, "")
    : undefined;
  switch (name) {
    case "BOLD":
      return style.bold;
    case "ITALIC":
      return style.italic;
    case "CODE":
      return style.cyan;
    case "DIM":
      return style.dim;
    case "ERROR":
      return style.red;
    case "WARNING":
      return style.yellow;
    case "SUCCESS":
      return style.green;
    default:
      return (s) => s;
  }
}

const TEXT_STYLE_NAMES: Readonly<Record<number, string>> = {
  1: "NORMAL",
  2: "BOLD",
  3: "ITALIC",
  4: "CODE",
  5: "DIM",
  6: "ERROR",
  7: "WARNING",
  8: "SUCCESS",
};

type Json = { [key: string]: JsonValue };

function obj(v: JsonValue | undefined): Json | undefined {
  return v !== null && typeof v === "object" && !Array.isArray(v)
    ? v as Json
    : undefined;
}

function list(v: JsonValue | undefined): JsonValue[] {
  return Array.isArray(v) ? v : [];
}

function str(v: JsonValue | undefined): string {
  return typeof v === "string"
    ? v
    : v === undefined || v === null
    ? ""
    : String(v);
}

/**
 * Renders a `render.v1.RenderTree` (protobuf JSON, as plan previews carry
 * it) as text lines: text, code, unified diffs, lists, tables, groups.
 *
 * @param tree The tree (or one node).
 * @param style The styles.
 * @returns The lines.
 */
export function renderTreeLines(tree: JsonValue, style: Style): string[] {
  const out: string[] = [];
  const node = (n: JsonValue | undefined, indent: string) => {
    const o = obj(n);
    if (!o) return;
    if (o.root !== undefined) return node(o.root, indent);
    const text = obj(o.text);
    if (text) {
      const paint = textStylePainter(style, text.style);
      for (const line of str(text.content).split("\n")) {
        out.push(indent + paint(line));
      }
      return;
    }
    const code = obj(o.codeBlock);
    if (code) {
      for (const line of str(code.content).replace(/\n$/, "").split("\n")) {
        out.push(`${indent}  ${line}`);
      }
      return;
    }
    const diff = obj(o.diff);
    if (diff) {
      for (const h of list(diff.hunks)) {
        const hunk = obj(h)!;
        const range = (
          start: JsonValue | undefined,
          n: JsonValue | undefined,
        ) => `${Number(start ?? 0)},${Number(n ?? 0)}`;
        out.push(
          indent +
            style.cyan(
              `@@ -${range(hunk.oldStart, hunk.oldLines)} +${
                range(hunk.newStart, hunk.newLines)
              } @@`,
            ),
        );
        for (const l of list(hunk.lines)) {
          const line = obj(l)!;
          const t = str(line.text).replace(/\r?\n$/, "");
          const op = str(line.op);
          out.push(
            indent +
              (op.endsWith("ADD")
                ? style.green(`+${t}`)
                : op.endsWith("REMOVE")
                ? style.red(`-${t}`)
                : ` ${t}`),
          );
        }
      }
      return;
    }
    const table = obj(o.table);
    if (table) {
      out.push(indent + list(table.headers).map(str).join(" | "));
      for (const r of list(table.rows)) {
        out.push(indent + list(obj(r)?.cells).map(str).join(" | "));
      }
      return;
    }
    const link = obj(o.link);
    if (link) {
      out.push(`${indent}${str(link.text)} <${str(link.url)}>`);
      return;
    }
    const l = obj(o.list);
    if (l) {
      list(l.items).forEach((item, i) => {
        const before = out.length;
        node(item, indent + "   ");
        if (out.length > before) {
          const bullet = l.ordered ? `${i + 1}. ` : "-  ";
          out[before] = indent + bullet + out[before]!.slice(indent.length + 3);
        }
      });
      return;
    }
    const group = obj(o.group);
    if (group) {
      for (const c of list(group.children)) node(c, indent);
      return;
    }
    const coll = obj(o.collapsible);
    if (coll) {
      out.push(indent + str(coll.summary));
      for (const c of list(coll.children)) node(c, indent + "  ");
      return;
    }
    const sub = obj(o.subSession);
    if (sub) {
      out.push(`${indent}[session ${str(sub.sessionId)}] ${str(sub.summary)}`);
      return;
    }
    const action = obj(o.action);
    if (action) {
      out.push(`${indent}[${str(action.label)}]`);
      return;
    }
    // A node this frontend does not know (a newer revision): shown, never
    // dropped (frontend MUST 9).
    out.push(
      `${indent}${style.dim(`[unsupported node: ${JSON.stringify(o)}]`)}`,
    );
  };
  node(tree, "");
  return out;
}

function short(s: string, max = 100): string {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

function argsText(input: Json): string {
  const path = input.path;
  return typeof path === "string" ? path : short(JSON.stringify(input), 80);
}

/**
 * The lines describing one plan item: what it does, the decision, and its
 * preview (or its arguments when it has none).
 *
 * @param item The plan item.
 * @param style The styles.
 * @returns The lines.
 */
export function planItemLines(item: PlanItemView, style: Style): string[] {
  const decision = item.decision === "allow"
    ? style.green("allow")
    : item.decision === "deny"
    ? style.red("deny")
    : style.yellow("ask");
  const lines = [
    `${style.bold("plan")} ${item.provider}.${item.tool} ${
      argsText(item.input)
    } ${style.dim(`[${item.risk}]`)} → ${decision}${
      item.decidedBy ? style.dim(` (${item.decidedBy})`) : ""
    }`,
  ];
  const preview = item.preview !== undefined
    ? renderTreeLines(item.preview, style)
    : [];
  const body = preview.length > 0
    ? preview
    : JSON.stringify(item.input, null, 2).split("\n");
  for (const l of body) lines.push(`  ${style.dim("│")} ${l}`);
  return lines;
}

/** Where rendered output goes. */
export interface RenderSink {
  /** The transcript (assistant text, tools, plans). */
  out(text: string): void;
  /** Messages about the run (session id, warnings, the end). */
  err(text: string): void;
}

/**
 * A stateful renderer of a session's events (live or replayed).
 */
export class EventRenderer {
  readonly #sink: RenderSink;
  readonly #style: Style;
  #streamed = false;
  #atLineStart = true;

  /**
   * Creates the renderer.
   *
   * @param sink Where the text goes.
   * @param style The styles.
   */
  constructor(sink: RenderSink, style: Style) {
    this.#sink = sink;
    this.#style = style;
  }

  #line(text: string): void {
    if (!this.#atLineStart) this.#sink.out("\n");
    this.#sink.out(`${text}\n`);
    this.#atLineStart = true;
  }

  /**
   * A control-plane message: what reached the model (dim, one line; the
   * `time` stamps are left out), the agent's thinking, and the goal's
   * outcome as a notification.
   */
  #control(e: Extract<SessionEvent, { type: "control" }>): void {
    const s = this.#style;
    if (e.channel === "time" || e.channel === "agent-status") return;
    if (e.channel === "goal-status") {
      const state = e.attributes.state;
      this.#errLine(
        (state === "done" ? s.green : s.yellow)(
          `goal ${state === "done" ? "completed" : "blocked (needs input)"}: ${
            short(e.body, 300)
          }`,
        ),
      );
      return;
    }
    if (e.channel === "judge-directive" && e.source.startsWith("judge:")) {
      const accepted = e.attributes.verdict === "accept";
      this.#errLine(
        (accepted ? s.green : s.yellow)(
          `judge ${accepted ? "accepted" : "asks for more"}: ${
            short(e.body, 300)
          }`,
        ),
      );
      return;
    }
    if (e.channel === "memory-recall") {
      // A recall changes what the model reads: one line naming it.
      const names = (e.attributes.names ?? "").split(",").join(", ");
      const n = Number(e.attributes.count);
      this.#errLine(
        s.dim(
          `Recalled ${n} ${
            n === 1 ? "memory" : "memories"
          } into context: ${names}`,
        ),
      );
      return;
    }
    if (e.channel === "agent-thinking") {
      this.#errLine(s.dim(`thinking: ${short(e.body, 300)}`));
      return;
    }
    const attrs = Object.entries(e.attributes).map(([k, v]) => `${k}=${v}`)
      .join(" ");
    this.#errLine(
      s.dim(
        `${e.direction === "system_to_agent" ? "⇢" : "⇠"} cp:${e.channel}${
          attrs ? ` ${attrs}` : ""
        }${e.body ? ` — ${short(e.body.replace(/\s+/g, " "), 120)}` : ""}${
          e.wake ? " (woke the session)" : ""
        }`,
      ),
    );
  }

  #errLine(text: string): void {
    if (!this.#atLineStart) {
      this.#sink.out("\n");
      this.#atLineStart = true;
    }
    this.#sink.err(`${text}\n`);
  }

  /**
   * Renders one event.
   *
   * @param e The event.
   */
  render(e: SessionEvent): void {
    const s = this.#style;
    switch (e.type) {
      case "session_started":
        this.#errLine(
          s.dim(
            `session ${e.sessionId} (profile ${e.profile})${
              e.resumed ? ", resumed" : ""
            }`,
          ),
        );
        return;
      case "turn_started":
        if (e.final) this.#errLine(s.yellow("final-answer turn (no tools)"));
        return;
      case "text_delta":
        this.#sink.out(e.text);
        this.#streamed = true;
        this.#atLineStart = e.text.endsWith("\n");
        return;
      case "thinking_delta":
        return;
      case "model_retry":
        this.#errLine(
          s.yellow(
            `retrying ${e.provider}/${e.modelId} (${e.category}, attempt ${e.attempt}, in ${e.delayMs} ms)${
              e.fallback
                ? `, falling back to ${e.fallback.provider}/${e.fallback.id}`
                : ""
            }`,
          ),
        );
        return;
      case "message":
        if (e.role === "user") {
          if (e.text) this.#line(s.bold(`> ${e.text}`));
        } else if (!this.#streamed && e.text) {
          this.#line(e.text);
        } else if (!this.#atLineStart) {
          this.#sink.out("\n");
          this.#atLineStart = true;
        }
        this.#streamed = false;
        return;
      case "tool_call":
        this.#line(s.cyan(`→ ${e.provider}.${e.tool} ${argsText(e.input)}`));
        return;
      case "tool_result": {
        if (e.isError) {
          this.#line(
            s.red(
              `✗ ${e.tool}: ${
                e.deniedBy ? `denied by ${e.deniedBy}` : e.error?.category
              } — ${short(e.error?.message ?? e.text, 160)}`,
            ),
          );
        } else {
          const r = e.result ?? {};
          const lines = typeof r.total_lines === "number"
            ? `${r.total_lines} lines`
            : typeof r.bytes_written === "number"
            ? `${r.bytes_written} bytes written`
            : short(e.text, 80);
          this.#line(s.green(`✓ ${e.tool}: ${lines}`));
        }
        return;
      }
      case "plan":
        for (const item of e.items) {
          for (const l of planItemLines(item, s)) this.#line(l);
        }
        return;
      case "approval_requested":
        return;
      case "approval_resolved":
        this.#line(
          (e.decision === "allow" ? s.green : s.red)(
            `${
              e.decision === "allow" ? "approved" : "rejected"
            } (${e.scope}, ${e.decidedBy})`,
          ) + (e.refused ? s.yellow(` — ${e.refused.message}`) : ""),
        );
        return;
      case "apply": {
        const counts = new Map<string, number>();
        for (const i of e.items) {
          counts.set(i.outcome, (counts.get(i.outcome) ?? 0) + 1);
        }
        this.#line(
          s.dim(
            `apply: ${
              [...counts].map(([k, n]) => `${n} ${k}`).join(", ") || "nothing"
            }`,
          ),
        );
        return;
      }
      case "hook_error":
        this.#errLine(
          s.yellow(
            `hook error: ${e.subscriber} at ${e.point} (${e.mode}, ${e.category}): ${e.message}`,
          ),
        );
        return;
      case "warning":
        this.#errLine(s.yellow(`warning: ${e.message}`));
        return;
      case "interactive_requested":
      case "context_assembled":
      case "context_usage":
        return;
      case "compaction":
        this.#errLine(
          s.dim(
            `context compacted (${e.provider}): ${e.tokensBefore} → ${e.tokensAfter} tokens`,
          ),
        );
        return;
      case "tool_output":
        // A command's live output, dimmed, as it arrives.
        this.#sink.out(s.dim(e.text));
        this.#atLineStart = e.text.endsWith("\n");
        return;
      case "tool_progress":
        this.#errLine(s.dim(`  … ${e.message}`));
        return;
      case "interactive_resolved":
        if (!e.answered) {
          this.#errLine(
            s.yellow(`question unanswered (${e.decidedBy ?? "on_ask"})`),
          );
        }
        return;
      case "control":
        this.#control(e);
        return;
      case "bound_fired":
        this.#errLine(
          s.yellow(`bound fired: ${e.bound} — asking for a final answer`),
        );
        return;
      case "session_ended":
        this.#errLine(
          `${e.status === "completed" ? s.green(e.status) : s.red(e.status)}${
            e.boundFired ? ` (${e.boundFired})` : ""
          }${
            e.error ? s.red(` — ${e.error.code}: ${e.error.message}`) : ""
          } · $${e.totalCostUsd.toFixed(4)} · session ${e.sessionId}`,
        );
        return;
    }
  }
}
