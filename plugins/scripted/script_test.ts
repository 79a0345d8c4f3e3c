import assert from "node:assert/strict";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import {
  type ContentBlockSchema,
  type Message,
  MessageSchema,
  Role,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { ModelErrorCategory } from "../../proto/gen/pluggableharness/model/v1/errors_pb.ts";
import {
  StopReason,
  ToolChoiceMode,
  ToolDeclarationSchema,
} from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import { SchemaType } from "../../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import {
  countRequestTokens,
  countValueTokens,
  countWords,
  DEFAULT_MODEL,
  parseScript,
  parseScriptText,
  pieces,
  planTurn,
  ScriptError,
  type StreamEventInit,
} from "./script.ts";

type Block = NonNullable<MessageInitShape<typeof ContentBlockSchema>["block"]>;

function msg(role: Role, ...content: Block[]): Message {
  return create(MessageSchema, {
    role,
    content: content.map((block) => ({ block })),
  });
}

const user = (text: string) =>
  msg(Role.USER, { case: "text", value: { text } });
const assistant = (text: string) =>
  msg(Role.ASSISTANT, { case: "text", value: { text } });

function problemsOf(raw: unknown): readonly string[] {
  try {
    parseScript(raw);
  } catch (err) {
    assert.ok(err instanceof ScriptError);
    return err.problems;
  }
  assert.fail("the script validated");
}

function cases(events: StreamEventInit[]): (string | undefined)[] {
  return events.map((e) => e.event?.case);
}

Deno.test("parseScript() fills in the default model and stops", () => {
  const s = parseScript([
    { text: "hi" },
    { tool_calls: [{ name: "read_file", arguments: { path: "a" } }] },
  ]);
  assert.deepEqual(s.model, DEFAULT_MODEL);
  assert.equal(s.turns[0]!.stop, "end_turn");
  assert.equal(s.turns[1]!.stop, "tool_use");
  assert.deepEqual(s.turns[1]!.toolCalls, [
    { id: "call_1_0", name: "read_file", arguments: { path: "a" } },
  ]);
});

Deno.test("parseScript() reports every problem, naming the turn index and field", () => {
  assert.deepEqual(
    problemsOf({
      model: { id: "m", supports_parallel_tool_calls: false, colour: "red" },
      turns: [
        { text: "ok" },
        { txt: "typo" },
        {
          tool_calls: [{ name: "" }, {
            id: "call_x",
            name: "b",
            arguments: [],
          }],
          stop: "end_turn",
        },
        { thinking: "hmm", usage: { input_tokens: -1 } },
        { error: { category: "teapot" }, stop: "end_turn" },
        { text: "x", stop: "stop_sequence", delay_ms: 70000 },
        { tool_calls: [{ id: "call_x", name: "c" }] },
        { stop: "tool_use", text: "no calls" },
      ],
    }),
    [
      `model: unknown field "colour" (expected one of id, context_window, max_output_tokens, supports_tool_use, supports_vision, supports_documents, supports_parallel_tool_calls, tool_choice_modes, pricing, thinking, caching)`,
      `turns[1]: unknown field "txt" (expected one of note, expect, thinking, text, tool_calls, usage, stop, matched_stop_sequence, error, delay_ms)`,
      `turns[1]: a turn needs text, thinking, tool_calls or error`,
      `turns[2].tool_calls: the model does not support parallel tool calls: at most one per turn`,
      `turns[2].tool_calls[0].name: must be a non-empty string`,
      `turns[2].tool_calls[1].arguments: must be a JSON object`,
      `turns[3].thinking: the model does not support thinking (set model.thinking.supported)`,
      `turns[3].usage.input_tokens: must be an integer ≥ 0`,
      `turns[3].usage.output_tokens: is required`,
      `turns[4].error.category: must be one of "context_length_exceeded", "rate_limited", "overloaded", "auth_error", "invalid_request", "content_filtered", "unknown", got "teapot"`,
      `turns[4].error.message: is required`,
      `turns[4].stop: a turn ends with either stop or error, not both`,
      `turns[5].matched_stop_sequence: is required when stop is "stop_sequence"`,
      `turns[5].delay_ms: must be at most 60000`,
      `turns[6].tool_calls[0].id: repeats the tool call id "call_x"`,
      `turns[7].stop: "tool_use" needs tool_calls`,
    ],
  );
  assert.deepEqual(problemsOf({ turns: [] }), [
    "turns: must be a non-empty list of turns",
  ]);
  assert.throws(
    () => parseScriptText("{ nope", "x.json"),
    (e: unknown) =>
      e instanceof ScriptError &&
      /^Invalid script x\.json: 1 problem:\n {2}- not valid JSON/.test(
        e.message,
      ),
  );
});

Deno.test("parseScript() checks pricing tiers cover every input size exactly once", () => {
  const tiers = (t: unknown[]) => ({
    model: { pricing: { tiers: t } },
    turns: [{ text: "x" }],
  });
  assert.deepEqual(
    parseScript(tiers([
      { input_per_mtok: 3, output_per_mtok: 15, input_tokens_until: 200000 },
      { input_per_mtok: 6, output_per_mtok: 22.5, input_tokens_from: 200000 },
    ])).model.pricing.tiers.length,
    2,
  );
  assert.deepEqual(
    problemsOf(tiers([
      { input_per_mtok: 3, output_per_mtok: 15, input_tokens_until: 100 },
      { input_per_mtok: 6, output_per_mtok: 22.5, input_tokens_from: 200 },
    ])),
    ["model.pricing.tiers[1]: leaves input sizes 100..199 without a tier"],
  );
  assert.deepEqual(
    problemsOf(tiers([
      { input_per_mtok: 3, output_per_mtok: 15 },
      { input_per_mtok: 6, output_per_mtok: 22.5, input_tokens_from: 200 },
    ])),
    ["model.pricing.tiers[1]: overlaps another tier from 200 input tokens"],
  );
  assert.deepEqual(
    problemsOf(tiers([
      { input_per_mtok: 3, output_per_mtok: 15, input_tokens_until: 100 },
    ])),
    [
      "model.pricing.tiers: leave input sizes from 100 without a tier (the last tier needs no input_tokens_until)",
    ],
  );
  assert.deepEqual(problemsOf(tiers([])), [
    "model.pricing.tiers: needs at least one tier unless free is true",
  ]);
  assert.equal(
    parseScript({ model: { pricing: { free: true } }, turns: [{ text: "x" }] })
      .model.pricing.free,
    true,
  );
});

Deno.test("parseScript() checks the thinking and caching axes (MUST 12, 13, 15)", () => {
  assert.deepEqual(
    problemsOf({
      model: {
        thinking: {
          supported: true,
          effort: { levels: ["low", "high"], default: "max" },
          budget: { min: 10, max: 5 },
        },
        caching: { supported: true },
        pricing: { tiers: [{ input_per_mtok: 1, output_per_mtok: 2 }] },
      },
      turns: [{
        text: "x",
        usage: { input_tokens: 1, output_tokens: 1, cache_read_tokens: 1 },
      }],
    }),
    [
      "model.caching: a model that supports caching needs explicit_markers or implicit_automatic (or both)",
      `model.thinking.effort.default: must be one of levels, got "max"`,
      "model.thinking.budget: min must be ≤ max",
      `model.thinking.disable: is required when thinking is supported ("never", "always" or "conditional")`,
      "model.pricing.tiers[0].cache_read_per_mtok: is required when caching is supported",
      "model.pricing.tiers[0].cache_write_per_mtok: is required when caching is supported",
    ],
  );
  assert.deepEqual(
    problemsOf({
      model: { thinking: { supported: false, disable: "always" } },
      turns: [{
        text: "x",
        usage: { input_tokens: 1, output_tokens: 1, cache_write_tokens: 2 },
      }],
    }),
    [
      "model.thinking: effort, budget, adaptive_by_default and disable are only allowed when thinking is supported",
      "turns[0].usage.cache_write_tokens: the model does not support caching",
    ],
  );
  const ok = parseScript({
    model: {
      thinking: {
        supported: true,
        effort: { levels: ["low", "high"], default: "low" },
        disable: "conditional",
      },
      caching: { supported: true, implicit_automatic: true },
    },
    turns: [{ thinking: "hmm", text: "x" }],
  });
  assert.deepEqual(ok.model.pricing.tiers, [{
    inputPerMtok: 3,
    outputPerMtok: 15,
    cacheReadPerMtok: 0.3,
    cacheWritePerMtok: 3.75,
  }]);
});

Deno.test("countWords() and countRequestTokens() define the scripted tokenizer", () => {
  assert.equal(countWords(""), 0);
  assert.equal(countWords(" a  b\tc\n"), 3);
  assert.equal(countValueTokens({ path: "a b", n: 1, list: [true, null] }), 8);
  const tool = create(ToolDeclarationSchema, {
    name: "read_file",
    description: "Reads a file",
    inputSchema: {
      type: SchemaType.OBJECT,
      properties: {
        path: { type: SchemaType.STRING, description: "The path" },
      },
    },
  });
  assert.equal(
    countRequestTokens({
      messages: [
        user("hello world"),
        msg(Role.ASSISTANT, {
          case: "toolUse",
          value: { id: "1", name: "read_file", arguments: { path: "x" } },
        }),
        msg(Role.USER, {
          case: "toolResult",
          value: {
            toolUseId: "1",
            content: [{
              block: { case: "text", value: { text: "one two three" } },
            }],
            isError: false,
          },
        }, {
          case: "image",
          value: { data: new Uint8Array(9), mediaType: "image/png" },
        }),
      ],
      tools: [tool],
    }),
    // 2 (hello world) + 1 + 2 (read_file, path: x) + 3 (result) + 0 (image)
    // + 1 + 3 + 1 + 2 (tool: name, description, "path", its description)
    2 + 3 + 3 + 7,
  );
});

Deno.test("planTurn() picks the turn by the number of assistant messages", () => {
  const s = parseScript([{ text: "zero" }, { text: "one" }, { text: "two" }]);
  const text = (messages: Message[]) =>
    planTurn(s, { modelId: "scripted", messages }).events
      .flatMap((e) => e.event?.case === "textDelta" ? [e.event.value.text] : [])
      .join("");
  assert.equal(text([user("q")]), "zero");
  assert.equal(text([user("q"), assistant("zero"), user("q2")]), "one");
  assert.equal(
    text([user("q"), assistant("a"), user("b"), assistant("c"), user("d")]),
    "two",
  );
  const past = planTurn(s, {
    modelId: "scripted",
    messages: [assistant("1"), assistant("2"), assistant("3"), user("x")],
  });
  assert.equal(past.turn, 3);
  assert.deepEqual(cases(past.events), ["error"]);
  const e = past.events[0]!.event;
  assert.equal(e?.case, "error");
  assert.equal(e.value.error?.category, ModelErrorCategory.INVALID_REQUEST);
  assert.match(
    String(e.value.error?.message),
    /^the script has no turn 3: it has 3 turns/,
  );
});

Deno.test("planTurn() streams text in pieces, tool arguments in fragments, then usage and stop", () => {
  const args = { path: "dir/ünïcode 😀.txt", nested: { list: [1, 2, 3] } };
  const s = parseScript({
    model: { thinking: { supported: true, disable: "always" } },
    turns: [{
      thinking: "Let me think",
      text: "  Reading the file now. ",
      tool_calls: [{ id: "t1", name: "read_file", arguments: args }],
    }],
  });
  const plan = planTurn(s, { modelId: "scripted", messages: [user("go")] });
  assert.deepEqual(cases(plan.events), [
    "thinkingDelta",
    "thinkingDelta",
    "thinkingDelta",
    "textDelta",
    "textDelta",
    "textDelta",
    "textDelta",
    "toolCallStart",
    "toolCallDelta",
    "toolCallDelta",
    "toolCallDelta",
    "toolCallDone",
    "usage",
    "stop",
  ]);
  assert.deepEqual(pieces("  Reading the file now. "), [
    "  Reading ",
    "the ",
    "file ",
    "now. ",
  ]);
  const json = plan.events.flatMap((e) =>
    e.event?.case === "toolCallDelta" ? [e.event.value.argumentsFragment] : []
  ).join("");
  assert.deepEqual(JSON.parse(String(json)), args);
  const usage = plan.events.at(-2)!.event;
  assert.equal(usage?.case, "usage");
  assert.deepEqual(
    [
      usage.value.inputTokens,
      usage.value.outputTokens,
      usage.value.reasoningTokens,
    ],
    // input: "go"; output: 4 words + read_file + 2 keys, 2 words, 1 key, 3 numbers
    [1n, 4n + 1n + 2n + 2n + 1n + 3n, 3n],
  );
  const stop = plan.events.at(-1)!.event;
  assert.equal(stop?.case, "stop");
  assert.equal(stop.value.reason, StopReason.TOOL_USE);
});

Deno.test("planTurn() replays scripted errors, checks expect and rejects undeclared input", () => {
  const s = parseScript({
    model: { id: "m1", supports_tool_use: false },
    turns: [
      { expect: ["alpha", "beta"], text: "ok" },
      {
        text: "partial",
        error: {
          category: "rate_limited",
          message: "slow down",
          retry_after_ms: 1500,
        },
      },
    ],
  });
  const first = planTurn(s, {
    modelId: "m1",
    messages: [user("alpha then gamma")],
  });
  const e = first.events[0]!.event;
  assert.equal(e?.case, "error");
  assert.equal(
    e.value.error?.message,
    `turn 0 expects the last user message to contain "beta", but it reads "alpha then gamma"`,
  );
  assert.deepEqual(
    cases(
      planTurn(s, { modelId: "m1", messages: [user("alpha beta")] }).events,
    ),
    ["textDelta", "usage", "stop"],
  );
  const second = planTurn(s, {
    modelId: "m1",
    messages: [user("a"), assistant("ok"), user("b")],
  });
  assert.deepEqual(cases(second.events), ["textDelta", "error"]);
  const err = second.events[1]!.event;
  assert.equal(err?.case, "error");
  assert.equal(err.value.error?.category, ModelErrorCategory.RATE_LIMITED);
  assert.equal(err.value.error?.retryable, true);
  assert.deepEqual(
    [err.value.error?.retryAfter?.seconds, err.value.error?.retryAfter?.nanos],
    [1n, 500_000_000],
  );
  const reject = (req: Parameters<typeof planTurn>[1]) => {
    const ev = planTurn(s, req).events;
    assert.equal(ev.length, 1);
    const x = ev[0]!.event;
    assert.equal(x?.case, "error");
    assert.equal(x.value.error?.category, ModelErrorCategory.INVALID_REQUEST);
    return String(x.value.error?.message);
  };
  assert.equal(
    reject({ modelId: "m2", messages: [] }),
    `unknown model "m2": this script serves "m1"`,
  );
  assert.match(
    reject({
      modelId: "m1",
      messages: [msg(Role.USER, {
        case: "image",
        value: { data: new Uint8Array(1), mediaType: "image/png" },
      })],
    }),
    /messages\[0\] has an image, but model "m1" does not support vision/,
  );
  assert.match(
    reject({
      modelId: "m1",
      messages: [user("x")],
      params: { toolChoice: { mode: ToolChoiceMode.ANY } } as never,
    }),
    /tool_choice mode ANY is not declared/,
  );
});
