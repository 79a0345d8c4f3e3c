import assert from "node:assert/strict";
import { join } from "node:path";
import {
  applyCompletion,
  backspace,
  completionAt,
  editorText,
  emptyEditor,
  insert,
  move,
  vertical,
  withText,
} from "./editor.ts";
import { plain, wrapLine } from "./lines.ts";
import {
  firstFrameLines,
  openTerminal,
  paintLines,
  PLACEHOLDER,
  type TerminalDevice,
} from "./first_frame.ts";
import { markdownLines } from "./markdown.ts";
import { appendHistory, loadHistory } from "./history.ts";
import { settingsOf } from "./plugin.ts";
import { Transcript } from "./transcript.ts";
import { create, toBinary } from "@bufbuild/protobuf";
import {
  MessageEventSchema,
  ToolCallEventSchema,
  ToolResultEventSchema,
} from "../../proto/gen/pluggableharness/event/v1/events_pb.ts";
import {
  type RenderTree,
  RenderTreeSchema,
} from "../../proto/gen/pluggableharness/render/v1/types_pb.ts";
import { toolLines } from "./tool_lines.ts";
import {
  DeltaKind,
  EventKind,
} from "../../proto/gen/pluggableharness/kernel/v1/types_pb.ts";
import { Role } from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";

Deno.test("the editor inserts pasted lines at the cursor and joins them on backspace", () => {
  let s = insert(emptyEditor(), "hello world");
  for (let i = 0; i < 5; i++) s = move(s, "left");
  s = insert(s, "big\nnew ");
  assert.equal(editorText(s), "hello big\nnew world");
  assert.deepEqual([s.row, s.col], [1, 4]);
  s = move(s, "home");
  s = backspace(s);
  assert.equal(editorText(s), "hello bignew world");
});

Deno.test("up and down move between lines, then browse the history and bring the draft back", () => {
  const history = ["first", "second"];
  let s = withText(emptyEditor(history.length), "draft");
  s = vertical(s, "up", history);
  assert.equal(editorText(s), "second");
  s = vertical(s, "up", history);
  assert.equal(editorText(s), "first");
  s = vertical(s, "up", history);
  assert.equal(editorText(s), "first");
  s = vertical(vertical(s, "down", history), "down", history);
  assert.equal(editorText(s), "draft");
  const two = withText(emptyEditor(), "a\nbc");
  assert.equal(vertical(two, "up", history).row, 0);
});

Deno.test("Tab completes a slash command at the start and an @path anywhere", () => {
  const commands = ["compact", "context", "cost", "help"];
  const list = (dir: string) =>
    dir === "." ? ["notes.md", "src/", ".hidden"] : ["main.ts", "mod.ts"];
  let s = withText(emptyEditor(), "/cos");
  const c = completionAt(s, commands, list)!;
  assert.deepEqual(c.candidates, ["/cost"]);
  assert.equal(editorText(applyCompletion(s, c)), "/cost ");
  s = withText(emptyEditor(), "/co");
  assert.equal(
    editorText(applyCompletion(s, completionAt(s, commands, list)!)),
    "/co",
  );
  assert.equal(
    completionAt(withText(emptyEditor(), "say /co"), commands, list),
    undefined,
  );
  s = withText(emptyEditor(), "read @s");
  assert.equal(
    editorText(applyCompletion(s, completionAt(s, commands, list)!)),
    "read @src/",
  );
  s = withText(emptyEditor(), "read @src/m");
  assert.deepEqual(completionAt(s, commands, list)!.candidates, [
    "@src/main.ts",
    "@src/mod.ts",
  ]);
  assert.equal(
    editorText(applyCompletion(s, completionAt(s, commands, list)!)),
    "read @src/m",
  );
});

Deno.test("lines wrap at spaces, split long words and keep their styles", () => {
  const lines = wrapLine([{ text: "alpha beta " }, {
    text: "gamma",
    bold: true,
  }], 11);
  assert.deepEqual(lines.map(plain), ["alpha beta", "gamma"]);
  assert.equal(lines[1]![0]!.bold, true);
  assert.deepEqual(wrapLine([{ text: "abcdefghij" }], 4).map(plain), [
    "abcd",
    "efgh",
    "ij",
  ]);
  assert.deepEqual(
    wrapLine([{ text: "one two three" }], 8, [{ text: "  " }]).map(plain),
    ["one two", "  three"],
  );
});

Deno.test("the input box's cursor (an inverse blank) after the last character stays on screen, and wraps when the line is full", () => {
  const cursor = { text: " ", inverse: true };
  const typed = wrapLine([{ text: "> " }, { text: "hello" }, cursor], 10);
  assert.deepEqual(typed.map(plain), ["> hello "]);
  assert.equal(typed[0]!.at(-1)!.inverse, true);
  const full = wrapLine([{ text: "> " }, { text: "abcdefgh" }, cursor], 10, [
    { text: "  " },
  ]);
  assert.deepEqual(full.map(plain), ["> abcdefgh", "   "]);
  assert.equal(full[1]!.at(-1)!.inverse, true);
  // A plain trailing blank is still trimmed.
  assert.deepEqual(wrapLine([{ text: "hello " }], 10).map(plain), ["hello"]);
});

Deno.test("markdown becomes styled lines: headings, emphasis, inline code, lists and highlighted code", () => {
  const lines = markdownLines(
    "# Title\n\nSome **bold** and `code`.\n\n- one\n- two\n\n```ts\nconst x = 1; // note\n```",
  );
  assert.deepEqual(lines.map(plain), [
    "Title",
    "",
    "Some bold and code.",
    "",
    "• one",
    "• two",
    "",
    "  ts",
    "  │ const x = 1; // note",
  ]);
  assert.equal(lines[0]![0]!.bold, true);
  assert.ok(lines[2]!.some((s) => s.text === "bold" && s.bold));
  assert.ok(lines[2]!.some((s) => s.text === "code" && s.color === "cyan"));
  const code = lines[8]!;
  assert.ok(code.some((s) => s.text === "const" && s.color === "magenta"));
  assert.ok(code.some((s) => s.text === "// note" && s.color === "gray"));
});

Deno.test("the history file keeps the last prompts without repeats and survives a bad file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, ".agent", "tui_history.json");
    assert.deepEqual(loadHistory(file), []);
    const h: string[] = [];
    appendHistory(file, h, "one");
    appendHistory(file, h, "one");
    appendHistory(file, h, "two");
    assert.deepEqual(loadHistory(file), ["one", "two"]);
    await Deno.writeTextFile(file, "{not json");
    assert.deepEqual(loadHistory(file), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the settings name a bad profiles_json attribute", () => {
  assert.throws(
    () => settingsOf({ profiles_json: "[1]" }, false),
    /config attribute "profiles_json" must be a JSON object/,
  );
  assert.throws(
    () => settingsOf({ profile: 3 }, false),
    /"profile" must be a string/,
  );
  assert.deepEqual(
    settingsOf({ profiles_json: '{"default":{"max_turns":3}}' }, true).profiles,
    { default: { max_turns: 3 } },
  );
});

Deno.test("deltas that arrive after their stored message are not shown twice", () => {
  const t = new Transcript();
  t.addPrompt("hi");
  t.applyDelta({ text: "Hello ", kind: DeltaKind.UNSPECIFIED });
  t.applyEvent({
    sequence: 1n,
    kind: EventKind.MESSAGE,
    payload: toBinary(
      MessageEventSchema,
      create(MessageEventSchema, {
        message: {
          role: Role.ASSISTANT,
          content: [{
            block: { case: "text", value: { text: "Hello there." } },
          }],
        },
      }),
    ),
  });
  t.applyDelta({ text: "there.", kind: DeltaKind.UNSPECIFIED });
  assert.deepEqual(
    t.entries.map((e) =>
      e.kind === "notice" || e.kind === "tool" ? e.kind : e.text
    ),
    ["hi", "Hello there."],
  );
  t.applyDelta({ text: "Next", kind: DeltaKind.UNSPECIFIED });
  assert.equal(t.entries.length, 3);
});

Deno.test("a tool call and result painted by their tool are drawn from its Render trees; the kernel's fallback is drawn as the payload's text", () => {
  const tree = (content: string): RenderTree =>
    create(RenderTreeSchema, {
      root: { node: { case: "text", value: { content } } },
    });
  const call = (id: string) =>
    toBinary(
      ToolCallEventSchema,
      create(ToolCallEventSchema, {
        call: { id, toolName: "fetch", arguments: { url: "u" } },
      }),
    );
  const result = (id: string) =>
    toBinary(
      ToolResultEventSchema,
      create(ToolResultEventSchema, {
        toolCallId: id,
        outcome: { case: "result", value: { payload: { text: "raw body" } } },
      }),
    );
  const t = new Transcript();
  let seq = 0n;
  const apply = (kind: EventKind, payload: Uint8Array, fallback: string) =>
    t.applyEvent({ sequence: ++seq, kind, payload }, {
      tree: tree(fallback ? "Rendered by the kernel" : `painted ${seq}`),
      fallback,
    });
  apply(EventKind.TOOL_CALL, call("a"), "");
  apply(EventKind.TOOL_RESULT, result("a"), "");
  apply(EventKind.TOOL_CALL, call("b"), "producer has no Render");
  apply(EventKind.TOOL_RESULT, result("b"), "producer has no Render");
  const screens = t.entries.map((e) =>
    e.kind === "tool" ? toolLines(e, 80).map(plain) : []
  );
  assert.deepEqual(screens, [
    ["● fetch", "  painted 1", "  ⎿ painted 2"],
    ['● fetch({"url":"u"})', "  ⎿ raw body"],
  ]);
  assert.equal(t.next, 5n);
});

Deno.test("the first screen, painted before Ink loads, is the new session's frame: empty transcript, input box, status line, and typed text echoed", () => {
  const frame = firstFrameLines(80, 24, false)!.map(plain);
  assert.equal(frame.length, 24);
  assert.deepEqual(frame.slice(0, 20), Array(20).fill(""));
  assert.equal(frame[20], `╭${"─".repeat(78)}╮`);
  assert.equal(
    frame[21],
    `│ > ▏${PLACEHOLDER}`.padEnd(79) + "│",
  );
  assert.equal(frame[22], `╰${"─".repeat(78)}╯`);
  assert.equal(
    frame[23],
    " default · … · ctx 0 · $0.0000 · turns 0 · ".padEnd(80),
  );
  const typed = firstFrameLines(80, 24, true, "hello")!;
  assert.equal(plain(typed[21]!), "│ > hello " + " ".repeat(69) + "│");
  assert.ok(
    firstFrameLines(80, 24, true)![21]!.some((s) =>
      s.inverse && s.text === " "
    ),
  );
  // Text longer than the box wraps under the prompt, as in the editor.
  const long = firstFrameLines(40, 12, false, "x".repeat(50))!.map(plain);
  assert.equal(long.length, 12);
  assert.equal(long[8], "│ > " + "x".repeat(34) + " │");
  assert.equal(long[9], "│   " + "x".repeat(16) + "▏".padEnd(19) + "│");
  // Too small to draw what the full UI keeps: nothing is painted.
  assert.equal(firstFrameLines(80, 4, false), undefined);
  assert.equal(firstFrameLines(10, 24, false), undefined);
  // Each line is painted on its own row from the left, the rest cleared.
  assert.equal(
    paintLines([[{ text: "a", bold: true, color: "cyan" }], []]),
    "\x1b[1;1H\x1b[1;36ma\x1b[0m\x1b[K\x1b[2;1H\x1b[K",
  );
});

/** A terminal whose keys the test types; what is written is kept. */
function fakeTerminal(columns: number, rows: number) {
  const typed: (Uint8Array | null)[] = [];
  let waiting: (() => void) | undefined;
  const log: string[] = [];
  const device: TerminalDevice = {
    async read(buf) {
      while (typed.length === 0) {
        await new Promise<void>((r) => waiting = r);
      }
      const chunk = typed.shift()!;
      if (chunk === null) return null;
      buf.set(chunk);
      return chunk.length;
    },
    write: (text) => void log.push(text),
    setRaw: (on) => void log.push(on ? "<raw>" : "<cooked>"),
    size: () => ({ columns, rows }),
  };
  return {
    device,
    log,
    type(chunk: string | null) {
      typed.push(chunk === null ? null : new TextEncoder().encode(chunk));
      waiting?.();
    },
  };
}

/** Lets the reader's pending reads run. */
const settle = () => new Promise((r) => setTimeout(r, 0));

Deno.test("the terminal's one reader keeps the keys typed before Ink, then hands each key to Ink once and in order, and restores cooked mode on close", async () => {
  const t = fakeTerminal(80, 24);
  const keys = openTerminal(false, { device: t.device })!;
  assert.deepEqual(t.log.slice(0, 2), ["<raw>", "\x1b[?1049h"]);
  t.type("Summ");
  await settle();
  t.type("arize");
  await settle();
  // Echoed into the first screen while Ink loads.
  assert.match(t.log.at(-1)!, /│ .*> .*Summarize▏ +│/);
  t.type("\r");
  await settle();
  const got: string[] = [];
  let ends = 0;
  const decoder = new TextDecoder();
  keys.handOver((c) => got.push(decoder.decode(c)), () => ends++);
  // The kept chunks, each once, in the order typed.
  assert.deepEqual(got, ["Summ", "arize", "\r"]);
  t.type(" notes");
  await settle();
  t.type("\x03");
  await settle();
  assert.deepEqual(got, ["Summ", "arize", "\r", " notes", "\x03"]);
  // No echo after the hand-over: Ink draws.
  assert.ok(!t.log.some((l) => l.includes("notes")));
  assert.throws(() => keys.handOver(() => {}, () => {}), /handed over/);
  t.type(null);
  await settle();
  assert.equal(ends, 1);
  keys.close();
  assert.equal(t.log.at(-1), "<cooked>");
});

Deno.test("a window too small for the first screen paints nothing, but its keys are still read once and kept for Ink", async () => {
  const t = fakeTerminal(10, 3);
  const keys = openTerminal(false, { device: t.device })!;
  t.type("ab");
  await settle();
  assert.deepEqual(t.log, ["<raw>"]);
  const got: string[] = [];
  keys.handOver((c) => got.push(new TextDecoder().decode(c)), () => {});
  t.type("c");
  await settle();
  assert.deepEqual(got, ["ab", "c"]);
  t.type(null);
  await settle();
  keys.close();
});

Deno.test("keys typed ahead in one chunk reach Ink's useInput one by one: Ctrl-U, then the text after it, also when typed before Ink reads", async () => {
  const bytes = (t: string) => new TextEncoder().encode(t);
  const React = (await import("react")).default;
  const { render, useInput } = await import("ink");
  const { Writable } = await import("node:stream");
  const { InkKeys } = await import("./app.ts");
  // Typed before Ink reads (replayed at once), then after.
  const stdin = new InkKeys();
  stdin.add(bytes("x\x15/co"));
  const stdout = Object.assign(
    new Writable({ write: (_c, _e, done) => done() }),
    { isTTY: true, columns: 80, rows: 24 },
  );
  const seen: string[] = [];
  const done = Promise.withResolvers<void>();
  function Keys(): null {
    useInput((input, key) => {
      seen.push(key.ctrl ? `C-${input}` : input);
      if (input.endsWith("s")) done.resolve();
    });
    return null;
  }
  const app = render(React.createElement(Keys), {
    stdin: stdin as unknown as NodeJS.ReadStream,
    stdout: stdout as unknown as NodeJS.WriteStream,
    patchConsole: false,
    exitOnCtrlC: false,
  });
  try {
    await new Promise((r) => setTimeout(r, 0));
    stdin.add(bytes("\x01s"));
    await done.promise;
    assert.deepEqual(seen, ["x", "C-u", "/co", "C-a", "s"]);
  } finally {
    app.unmount();
  }
});
