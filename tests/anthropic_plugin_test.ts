/**
 * The `anthropic` model provider through a real plugin subprocess (the
 * kernel's PluginHost) against a local fake of the Messages API
 * (`_fake_anthropic.ts`, the vendor's SSE wire format): the capability
 * envelope, Configure, the exact vendor request, streamed text, tool calls,
 * thinking, usage and stop reasons, the error taxonomy, cancellation,
 * CountTokens, and each item of the §6.1 MUST list that applies to a
 * provider (MUST 23, cost, is in anthropic_e2e_test.ts).
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  create,
  type JsonObject,
  type MessageInitShape,
} from "@bufbuild/protobuf";
import { configure, type LogRecord, reset } from "@logtape/logtape";
import { PluginHost } from "../kernel/mod.ts";
import { StreamAccumulator } from "../kernel/agent/stream_accumulator.ts";
import { Code, GrpcStatusError } from "../proto/grpc_status.ts";
import { Category } from "../proto/gen/pluggableharness/common/v1/types_pb.ts";
import {
  type ContentBlock,
  type ContentBlockSchema,
  type Message,
  MessageSchema,
  Role,
} from "../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { ModelErrorCategory } from "../proto/gen/pluggableharness/model/v1/errors_pb.ts";
import type { StreamEvent } from "../proto/gen/pluggableharness/model/v1/events_pb.ts";
import type { StreamCompletionRequestSchema } from "../proto/gen/pluggableharness/model/v1/rpc_request_pb.ts";
import { ModelService } from "../proto/gen/pluggableharness/model/v1/service_pb.ts";
import {
  AuthMethod,
  StopReason,
  ThinkingDisableSupport,
  ToolChoiceMode,
} from "../proto/gen/pluggableharness/model/v1/types_pb.ts";
import { SchemaType } from "../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import { readManifest } from "../plugins/sdk/mod.ts";
import models from "../plugins/anthropic/models.json" with { type: "json" };
import {
  ev,
  type FakeAnthropic,
  type SseFrame,
  startFakeAnthropic,
  textReply,
  toolReply,
} from "./_fake_anthropic.ts";
import { PATH, REPO } from "./_helpers.ts";

const KEY = "sk-ant-api03-TESTKEY-0123456789abcdefXYZ";
const MODEL = "claude-sonnet-5-5";
const NET = ["api.anthropic.com:443", "127.0.0.1"];

type Block = NonNullable<MessageInitShape<typeof ContentBlockSchema>["block"]>;
type Request = Omit<
  MessageInitShape<typeof StreamCompletionRequestSchema>,
  "$typeName" | "callContext"
>;

function msg(role: Role, ...content: Block[]): Message {
  return create(MessageSchema, {
    role,
    content: content.map((block) => ({ block })),
  });
}
const user = (text: string) =>
  msg(Role.USER, { case: "text", value: { text } });

/** The canonical blocks of a stream, assembled as the kernel does. */
function assemble(events: StreamEvent[]): ContentBlock[] {
  const acc = new StreamAccumulator();
  for (const e of events) acc.push(e);
  const { content, invalidArguments } = acc.finish();
  assert.equal(invalidArguments.size, 0, [...invalidArguments].join("; "));
  return content;
}

function blocksJson(blocks: ContentBlock[]): unknown[] {
  const dec = new TextDecoder();
  return blocks.map((b) => {
    const v = b.block;
    switch (v.case) {
      case "text":
        return { text: v.value.text };
      case "toolUse":
        return {
          tool_use: {
            id: v.value.id,
            name: v.value.name,
            arguments: v.value.arguments,
          },
        };
      case "thinking":
        return {
          thinking: v.value.text,
          signature: dec.decode(v.value.signature),
        };
      case "redactedThinking":
        return { redacted_thinking: dec.decode(v.value.data) };
      default:
        return { other: v.case };
    }
  });
}

const kinds = (events: StreamEvent[]) => events.map((e) => e.event.case);
/** Kinds with runs of the same kind collapsed (fragments may be merged). */
const shape = (events: StreamEvent[]) =>
  kinds(events).filter((k, i, all) => i === 0 || all[i - 1] !== k);

function usageOf(events: StreamEvent[]) {
  const u = events.filter((e) => e.event.case === "usage");
  assert.equal(u.length, 1, "one usage event");
  const v = u[0]!.event.value as {
    inputTokens: bigint;
    outputTokens: bigint;
    cacheReadTokens?: bigint;
    cacheWriteTokens?: bigint;
    reasoningTokens?: bigint;
    reasoningAlreadyCounted?: boolean;
  };
  return {
    input: Number(v.inputTokens),
    output: Number(v.outputTokens),
    cacheRead: Number(v.cacheReadTokens ?? -1n),
    cacheWrite: Number(v.cacheWriteTokens ?? -1n),
    ...(v.reasoningTokens !== undefined
      ? {
        reasoning: Number(v.reasoningTokens),
        counted: v.reasoningAlreadyCounted,
      }
      : {}),
  };
}

function stopOf(events: StreamEvent[]) {
  const last = events.at(-1)?.event;
  assert.equal(
    last?.case,
    "stop",
    `the stream ends with stop: ${kinds(events)}`,
  );
  assert.equal(
    events.filter((e) => e.event.case === "stop" || e.event.case === "error")
      .length,
    1,
    "exactly one terminal event",
  );
  return last.value;
}

function errorOf(events: StreamEvent[]) {
  const last = events.at(-1)?.event;
  assert.equal(
    last?.case,
    "error",
    `the stream ends with error: ${kinds(events)}`,
  );
  assert.ok(last.value.error);
  return last.value.error;
}

async function rejects(p: Promise<unknown>, code: number, re: RegExp) {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof GrpcStatusError, String(err));
    assert.equal(err.code, code, err.message);
    assert.match(err.message, re);
    return true;
  });
}

Deno.test("anthropic model provider, through a real plugin subprocess and a fake Messages API", async (t) => {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-anthropic-test-" }),
  );
  const records: LogRecord[] = [];
  await configure({
    reset: true,
    sinks: { capture: (r) => records.push(r) },
    loggers: [
      { category: ["ph-agent"], lowestLevel: "debug", sinks: ["capture"] },
      { category: ["logtape", "meta"], lowestLevel: "warning", sinks: [] },
    ],
  });
  const streams: StreamEvent[][] = [];
  const errors: string[] = [];
  await using fake: FakeAnthropic = startFakeAnthropic();
  try {
    await using host = new PluginHost({ env: { PATH }, cwd: dir });
    const manifest = await readManifest(
      `${REPO}/plugins/anthropic/plugin.json`,
    );
    const plugin = await host.launch({
      manifest,
      entrypoint: `${REPO}/plugins/anthropic/main.ts`,
      grant: { net: NET },
    });
    const model = plugin.client(ModelService);
    const callContext = {
      sessionId: "01SESSION",
      turnId: "01TURN",
      workingDirectory: dir,
    };
    const stream = async (
      req: Request,
      signal?: AbortSignal,
      onEvent?: (e: StreamEvent) => void,
    ): Promise<StreamEvent[]> => {
      const out: StreamEvent[] = [];
      try {
        for await (
          const e of model.streamCompletion(
            { callContext, modelId: MODEL, ...req },
            signal ? { signal } : {},
          )
        ) {
          out.push(e);
          onEvent?.(e);
        }
      } catch (err) {
        errors.push(String(err));
        throw err;
      }
      streams.push(out);
      return out;
    };
    const lastBody = () => fake.requests.at(-1)!.body;

    await t.step(
      "MUST 6, 24: GetCapabilities is cheap (no network) and complete before Configure",
      async () => {
        const { capabilities } = await model.getCapabilities({});
        assert.ok(capabilities);
        assert.equal(fake.requests.length, 0, "no vendor request");
        assert.deepEqual(
          capabilities.models.map((m) => m.id),
          models.models.map((m) => m.id),
        );
        assert.deepEqual(capabilities.supportedHookPoints, []);
        assert.deepEqual(
          capabilities.configSchema?.attributes.map((
            a,
          ) => [a.name, a.required, a.sensitive]),
          [
            ["api_key", true, true],
            ["base_url", false, false],
            ["default_max_tokens", false, false],
            ["timeout_ms", false, false],
          ],
        );
        assert.equal(
          capabilities.configSchema?.attributes[1]?.defaultJson,
          '"https://api.anthropic.com"',
        );
        assert.equal(capabilities.auth?.method, AuthMethod.API_KEY);
        assert.match(
          capabilities.catalogEtag ?? "",
          /^models\.json@\d{4}-\d{2}-\d{2}$/,
        );
      },
    );

    await t.step(
      "MUST 7: Configure rejects missing or bad config up front and never echoes the secret",
      async () => {
        await rejects(
          model.configure({ config: {} }),
          Code.INVALID_ARGUMENT,
          /"api_key" is required.*env\("ANTHROPIC_API_KEY"\)/,
        );
        await rejects(
          model.configure({ config: { api_key: KEY, base_url: "ftp://x" } }),
          Code.INVALID_ARGUMENT,
          /"base_url" must be an http or https URL/,
        );
        await rejects(
          model.configure({ config: { api_key: KEY, max_retries: 3 } }),
          Code.INVALID_ARGUMENT,
          /"max_retries" is not supported/,
        );
        const spaced = `${KEY} `;
        await assert.rejects(
          model.configure({ config: { api_key: spaced } }),
          (err: Error) => {
            assert.match(err.message, /"api_key" contains whitespace/);
            assert.ok(!err.message.includes(KEY), "the key is not echoed");
            return true;
          },
        );
        // Unconfigured: a stream is refused before any request.
        await rejects(
          stream({ messages: [user("hi")] }),
          Code.FAILED_PRECONDITION,
          /not configured/,
        );
        await model.configure({
          config: {
            api_key: KEY,
            base_url: fake.url,
            default_max_tokens: 4096,
            timeout_ms: 0,
          },
        });
        assert.equal(fake.requests.length, 0);
      },
    );

    await t.step(
      "MUST 5: implements GetCapabilities, Configure, StreamCompletion and Describe",
      async () => {
        const { producer } = await model.describe({});
        assert.deepEqual(
          {
            name: producer?.name,
            version: producer?.version,
            source: producer?.source,
            category: producer?.category,
            protocolVersion: producer?.protocolVersion,
          },
          {
            name: "anthropic",
            version: manifest.version,
            source: "builtin:anthropic",
            category: Category.MODEL,
            protocolVersion: 1,
          },
        );
      },
    );

    await t.step(
      "MUST 12, 13, 15, 21, 22: every ModelSpec declares thinking axes, caching axes and pricing with cache rates",
      async () => {
        const { capabilities } = await model.getCapabilities({});
        for (const [i, spec] of capabilities!.models.entries()) {
          const row = models.models[i]!;
          assert.equal(Number(spec.contextWindow), row.context_window, spec.id);
          assert.equal(
            Number(spec.maxOutputTokens),
            row.max_output_tokens,
            spec.id,
          );
          assert.equal(spec.supportsToolUse, true);
          assert.equal(spec.supportsVision, row.vision);
          assert.equal(spec.supportsParallelToolCalls, row.parallel_tool_calls);
          assert.equal(spec.supportsStreaming, true);
          // MUST 13: adaptive_by_default and disable declared.
          assert.equal(spec.thinking?.supported, true);
          assert.notEqual(
            spec.thinking?.disable,
            ThinkingDisableSupport.UNSPECIFIED,
          );
          assert.equal(
            spec.thinking?.adaptiveByDefault,
            row.thinking.mode === "adaptive_always",
          );
          // MUST 12: an effort control names its default; a budget may omit it.
          if (spec.thinking?.effort) {
            assert.ok(
              spec.thinking.effort.levels.includes(
                spec.thinking.effort.default,
              ),
            );
          }
          if (spec.thinking?.budget) {
            assert.equal(spec.thinking.budget.default, undefined);
          }
          // MUST 15, 21: caching axes; keepalive declared.
          assert.deepEqual(
            [
              spec.caching?.supported,
              spec.caching?.explicitMarkers,
              spec.caching?.implicitAutomatic,
              spec.caching?.keepaliveSupported,
            ],
            [true, true, false, false],
          );
          // MUST 22: pricing with cache write/read on every tier, one match per input size.
          assert.equal(spec.pricing?.currency, "USD");
          assert.equal(spec.pricing?.tiers.length, row.pricing.length);
          for (const [k, tier] of spec.pricing!.tiers.entries()) {
            const p = row.pricing[k]!;
            assert.deepEqual(
              [
                tier.inputPerMtok,
                tier.outputPerMtok,
                tier.cacheWritePerMtok,
                tier.cacheReadPerMtok,
              ],
              [p.input, p.output, p.cache_write, p.cache_read],
            );
          }
          for (const size of [0, 99_999, 100_000, 5_000_000]) {
            const n: number = spec.pricing!.tiers.filter((tier) =>
              (tier.inputTokensFrom === undefined ||
                BigInt(size) >= tier.inputTokensFrom) &&
              (tier.inputTokensUntil === undefined ||
                BigInt(size) < tier.inputTokensUntil)
            ).length;
            assert.equal(n, 1, `${spec.id}: one tier for ${size} input tokens`);
          }
          assert.equal(spec.catalog?.displayName, row.display_name);
        }
      },
    );

    await t.step(
      "MUST 3, 4: text works both ways; the request is exactly the documented Messages API body",
      async () => {
        fake.enqueue({
          kind: "sse",
          frames: textReply(["Hel", "lo, ", "world."], {
            input: 21,
            output: 4,
          }),
        });
        const events = await stream({
          messages: [user("Say hello")],
          assembledContext: [
            {
              provider: "system",
              label: "system prompt",
              content: [{
                block: { case: "text", value: { text: "You are terse." } },
              }],
            },
            {
              provider: "agents-md",
              label: "AGENTS.md",
              content: [{
                block: { case: "text", value: { text: "Use tabs." } },
              }],
            },
          ],
        });
        const req = fake.requests.at(-1)!;
        assert.equal(req.path, "/v1/messages");
        // The SDK authenticates an API key with a bearer token, and pins
        // the API version it was generated for.
        assert.equal(req.headers["authorization"], `Bearer ${KEY}`);
        assert.match(
          req.headers["anthropic-version"] ?? "",
          /^\d{4}-\d{2}-\d{2}$/,
        );
        assert.equal(req.headers["x-stainless-retry-count"], "0");
        assert.equal(req.headers["content-type"], "application/json");
        assert.deepEqual(req.body, {
          model: MODEL,
          max_tokens: 4096,
          messages: [{
            role: "user",
            content: [{ type: "text", text: "Say hello" }],
          }],
          stream: true,
          system: [
            { type: "text", text: "You are terse." },
            { type: "text", text: "Use tabs." },
          ],
        });
        assert.deepEqual(shape(events), [
          "streamStart",
          "metadata",
          "textDelta",
          "usage",
          "stop",
        ]);
        const start = events[0]!.event;
        assert.equal(
          start.case === "streamStart" && start.value.providerRequestId,
          `req_fake_${fake.requests.length}`,
        );
        assert.deepEqual(blocksJson(assemble(events)), [{
          text: "Hello, world.",
        }]);
        assert.deepEqual(usageOf(events), {
          input: 21,
          output: 4,
          cacheRead: 0,
          cacheWrite: 0,
        });
        assert.equal(stopOf(events).reason, StopReason.END_TURN);
      },
    );

    await t.step(
      "fragments that arrive in one network read go out merged; spaced ones one by one",
      async () => {
        fake.enqueue({
          kind: "sse",
          frames: textReply(["one ", "two ", "three"]),
          chunkBytes: 1 << 20,
        });
        const burst = await stream({ messages: [user("burst")] });
        assert.deepEqual(
          burst.filter((e) => e.event.case === "textDelta").map((e) =>
            (e.event.value as { text: string }).text
          ),
          ["one two three"],
        );
        fake.enqueue({
          kind: "sse",
          frames: textReply(["one ", "two ", "three"]),
          gapMs: 30,
        });
        const spaced = await stream({ messages: [user("spaced")] });
        assert.deepEqual(
          spaced.filter((e) => e.event.case === "textDelta").map((e) =>
            (e.event.value as { text: string }).text
          ),
          ["one ", "two ", "three"],
        );
      },
    );

    await t.step(
      "unicode split across TCP chunk boundaries arrives intact",
      async () => {
        const text = "Grüße — 日本語 ✓ 🚀🧪 done";
        fake.enqueue({
          kind: "sse",
          frames: textReply([text.slice(0, 9), text.slice(9)]),
          chunkBytes: 5,
          gapMs: 1,
        });
        const events = await stream({ messages: [user("unicode please")] });
        assert.deepEqual(blocksJson(assemble(events)), [{ text }]);
        assert.equal(stopOf(events).reason, StopReason.END_TURN);
      },
    );

    await t.step(
      "MUST 9: tool_use arguments over many input_json_deltas assemble into the canonical tool call; tools and results are sent as documented",
      async () => {
        const input = {
          path: "src/ünïcode/main.ts",
          offset: 1,
          limit: 40,
          flags: ["a", "b"],
          nested: { deep: true, note: 'quote " and \\ backslash' },
        };
        const frames = toolReply([{
          id: "toolu_01A",
          name: "read_file",
          input,
        }], {
          text: "Reading.",
          pieces: 17,
          usage: { input: 300, output: 55 },
        });
        const fragments = frames.filter((f) =>
          (f.data as { delta?: { partial_json?: string } }).delta?.partial_json
        ).length;
        assert.ok(fragments >= 15);
        fake.enqueue({ kind: "sse", frames });
        const events = await stream({
          messages: [user("read it")],
          tools: [{
            name: "read_file",
            description: "Reads a file.",
            inputSchema: {
              type: SchemaType.OBJECT,
              properties: {
                path: { type: SchemaType.STRING, description: "The path." },
                limit: { type: SchemaType.NUMBER },
                mode: {
                  type: SchemaType.STRING,
                  enumValues: ["text", "bytes"],
                },
                flags: {
                  type: SchemaType.ARRAY,
                  items: { type: SchemaType.STRING },
                },
              },
              required: ["path"],
            },
          }],
        });
        const deltas = events.filter((e) =>
          e.event.case === "toolCallDelta"
        );
        assert.ok(deltas.length >= 1 && deltas.length <= fragments);
        assert.equal(
          deltas.map((e) =>
            (e.event.value as { argumentsFragment: string }).argumentsFragment
          ).join(""),
          JSON.stringify(input),
          "the fragments, in order, are the vendor's JSON",
        );
        assert.deepEqual(blocksJson(assemble(events)), [
          { text: "Reading." },
          {
            tool_use: { id: "toolu_01A", name: "read_file", arguments: input },
          },
        ]);
        assert.equal(stopOf(events).reason, StopReason.TOOL_USE);
        assert.deepEqual(lastBody().tools, [{
          name: "read_file",
          description: "Reads a file.",
          input_schema: {
            type: "object",
            properties: {
              path: { type: "string", description: "The path." },
              limit: { type: "number" },
              mode: { type: "string", enum: ["text", "bytes"] },
              flags: { type: "array", items: { type: "string" } },
            },
            required: ["path"],
          },
        }]);
        // The next request sends the call and its result back.
        fake.enqueue({ kind: "sse", frames: textReply(["ok"]) });
        await stream({
          messages: [
            user("read it"),
            msg(Role.ASSISTANT, { case: "text", value: { text: "Reading." } }, {
              case: "toolUse",
              value: {
                id: "toolu_01A",
                name: "read_file",
                arguments: input as JsonObject,
              },
            }),
            msg(Role.USER, {
              case: "toolResult",
              value: {
                toolUseId: "toolu_01A",
                content: [{
                  block: { case: "text", value: { text: "1\tcontents" } },
                }],
                isError: false,
              },
            }, {
              case: "toolResult",
              value: {
                toolUseId: "toolu_01B",
                content: [{
                  block: { case: "text", value: { text: "denied by policy" } },
                }],
                isError: true,
              },
            }),
          ],
        });
        assert.deepEqual(lastBody().messages, [
          { role: "user", content: [{ type: "text", text: "read it" }] },
          {
            role: "assistant",
            content: [
              { type: "text", text: "Reading." },
              { type: "tool_use", id: "toolu_01A", name: "read_file", input },
            ],
          },
          {
            role: "user",
            content: [
              {
                type: "tool_result",
                tool_use_id: "toolu_01A",
                content: [{ type: "text", text: "1\tcontents" }],
              },
              {
                type: "tool_result",
                tool_use_id: "toolu_01B",
                content: [{ type: "text", text: "denied by policy" }],
                is_error: true,
              },
            ],
          },
        ]);
      },
    );

    await t.step(
      "parallel tool_use blocks in one response become separate calls",
      async () => {
        const calls = [
          { id: "toolu_p1", name: "read_file", input: { path: "a.md" } },
          { id: "toolu_p2", name: "read_file", input: { path: "b.md" } },
          {
            id: "toolu_p3",
            name: "grep",
            input: { pattern: "x", paths: ["."] },
          },
        ];
        fake.enqueue({ kind: "sse", frames: toolReply(calls, { pieces: 4 }) });
        const events = await stream({ messages: [user("read both")] });
        assert.deepEqual(
          blocksJson(assemble(events)),
          calls.map((c) => ({
            tool_use: { id: c.id, name: c.name, arguments: c.input },
          })),
        );
        assert.deepEqual(
          events.filter((e) => e.event.case === "toolCallDone").map((e) =>
            (e.event.value as { id: string }).id
          ),
          ["toolu_p1", "toolu_p2", "toolu_p3"],
        );
      },
    );

    await t.step(
      "MUST 14: interleaved thinking with its signature and a redacted_thinking block stay byte-exact for the next request",
      async () => {
        const sig1 = "EqQBCkgIARABGAIiQL+/7x==sig/ONE+é";
        const sig2 = "ErUBCkYIARgCIkD2/sig+TWO==";
        const redacted = "EmwKAhgBEgy3va3pzix/LAvQh4g=REDACTED+data/Ω";
        const frames: SseFrame[] = [
          ev.messageStart({ input_tokens: 500 }, "claude-fable-5-2"),
          ev.blockStart(0, { type: "thinking", thinking: "", signature: "" }),
          ev.delta(0, { type: "thinking_delta", thinking: "Let me think " }),
          ev.delta(0, { type: "thinking_delta", thinking: "about ünïcode." }),
          ev.delta(0, { type: "signature_delta", signature: sig1 }),
          ev.blockStop(0),
          ev.blockStart(1, { type: "redacted_thinking", data: redacted }),
          ev.blockStop(1),
          ev.blockStart(2, {
            type: "tool_use",
            id: "toolu_t1",
            name: "read_file",
            input: {},
          }),
          ev.delta(2, { type: "input_json_delta", partial_json: '{"path":' }),
          ev.delta(2, { type: "input_json_delta", partial_json: '"x.md"}' }),
          ev.blockStop(2),
          ev.blockStart(3, { type: "thinking", thinking: "", signature: "" }),
          ev.delta(3, { type: "thinking_delta", thinking: "Now answer." }),
          ev.delta(3, { type: "signature_delta", signature: sig2 }),
          ev.blockStop(3),
          ev.blockStart(4, { type: "text", text: "" }),
          ev.delta(4, { type: "text_delta", text: "Done." }),
          ev.blockStop(4),
          ev.messageDelta("end_turn", {
            output_tokens: 90,
            output_tokens_details: { thinking_tokens: 60 },
          }),
          ev.messageStop(),
        ];
        fake.enqueue({ kind: "sse", frames });
        const events = await stream({
          modelId: "claude-fable-5-2",
          messages: [user("think")],
        });
        const content = assemble(events);
        assert.deepEqual(blocksJson(content), [
          { thinking: "Let me think about ünïcode.", signature: sig1 },
          { redacted_thinking: redacted },
          {
            tool_use: {
              id: "toolu_t1",
              name: "read_file",
              arguments: { path: "x.md" },
            },
          },
          { thinking: "Now answer.", signature: sig2 },
          { text: "Done." },
        ]);
        assert.equal(
          events.filter((e) => e.event.case === "redactedThinking").length,
          1,
          "redacted thinking arrives whole",
        );
        assert.deepEqual(usageOf(events), {
          input: 500,
          output: 90,
          cacheRead: 0,
          cacheWrite: 0,
          reasoning: 60,
          counted: true,
        });
        // Sent back unchanged.
        fake.enqueue({
          kind: "sse",
          frames: textReply(["fine"], undefined, "claude-fable-5-2"),
        });
        await stream({
          modelId: "claude-fable-5-2",
          messages: [
            user("think"),
            create(MessageSchema, { role: Role.ASSISTANT, content }),
            msg(Role.USER, {
              case: "toolResult",
              value: {
                toolUseId: "toolu_t1",
                content: [{ block: { case: "text", value: { text: "x" } } }],
                isError: false,
              },
            }),
          ],
        });
        assert.deepEqual((lastBody().messages as unknown[])[1], {
          role: "assistant",
          content: [
            {
              type: "thinking",
              thinking: "Let me think about ünïcode.",
              signature: sig1,
            },
            { type: "redacted_thinking", data: redacted },
            {
              type: "tool_use",
              id: "toolu_t1",
              name: "read_file",
              input: { path: "x.md" },
            },
            { type: "thinking", thinking: "Now answer.", signature: sig2 },
            { type: "text", text: "Done." },
          ],
        });
      },
    );

    await t.step(
      "usage: input, output, cache-read and cache-write tokens from message_start and message_delta",
      async () => {
        fake.enqueue({
          kind: "sse",
          frames: [
            ev.messageStart({
              input_tokens: 12,
              cache_read_input_tokens: 3000,
              cache_creation_input_tokens: 800,
            }),
            ev.blockStart(0, { type: "text", text: "" }),
            ev.delta(0, { type: "text_delta", text: "x" }),
            ev.blockStop(0),
            // Newer API versions repeat cumulative input counts here.
            ev.messageDelta("end_turn", {
              output_tokens: 77,
              input_tokens: 12,
              cache_read_input_tokens: 3000,
            }),
            ev.messageStop(),
          ],
        });
        const events = await stream({ messages: [user("cache")] });
        assert.deepEqual(usageOf(events), {
          input: 12,
          output: 77,
          cacheRead: 3000,
          cacheWrite: 800,
        });
      },
    );

    await t.step(
      "stop reasons are mapped, the matched stop sequence included",
      async () => {
        const cases: [string, StopReason, string | null][] = [
          ["max_tokens", StopReason.MAX_TOKENS, null],
          ["stop_sequence", StopReason.STOP_SEQUENCE, "END"],
          ["refusal", StopReason.REFUSAL, null],
          ["model_context_window_exceeded", StopReason.MAX_TOKENS, null],
          ["pause_turn", StopReason.END_TURN, null],
        ];
        for (const [vendor, reason, seq] of cases) {
          fake.enqueue({
            kind: "sse",
            frames: [
              ev.messageStart({ input_tokens: 1 }),
              ev.blockStart(0, { type: "text", text: "" }),
              ev.delta(0, { type: "text_delta", text: "t" }),
              ev.blockStop(0),
              ev.messageDelta(vendor, { output_tokens: 1 }, seq),
              ev.messageStop(),
            ],
          });
          const stop = stopOf(await stream({ messages: [user(vendor)] }));
          assert.equal(stop.reason, reason, vendor);
          assert.equal(stop.matchedStopSequence, seq ?? undefined, vendor);
        }
      },
    );

    await t.step(
      "MUST 1, 2: every vendor failure is one classified ModelError with category, message, retryable, retry_after and raw detail",
      async () => {
        const err = (status: number, type: string, message: string) => ({
          type: "error",
          error: { type, message },
          request_id: `req_err_${status}`,
        });
        const cases: {
          name: string;
          frames?: SseFrame[];
          status?: number;
          body?: unknown;
          headers?: Record<string, string>;
          category: ModelErrorCategory;
          retryable: boolean;
          retryAfter?: number;
          message: RegExp;
        }[] = [
          {
            name: "401",
            status: 401,
            body: err(401, "authentication_error", "invalid x-api-key"),
            category: ModelErrorCategory.AUTH_ERROR,
            retryable: false,
            message: /HTTP 401 \(authentication_error\): invalid x-api-key/,
          },
          {
            name: "403",
            status: 403,
            body: err(403, "permission_error", "no access to this model"),
            category: ModelErrorCategory.AUTH_ERROR,
            retryable: false,
            message: /permission_error/,
          },
          {
            name: "429",
            status: 429,
            body: err(429, "rate_limit_error", "slow down"),
            headers: { "retry-after": "17" },
            category: ModelErrorCategory.RATE_LIMITED,
            retryable: true,
            retryAfter: 17,
            message: /rate_limit_error/,
          },
          {
            name: "529",
            status: 529,
            body: err(529, "overloaded_error", "Overloaded"),
            category: ModelErrorCategory.OVERLOADED,
            retryable: true,
            message: /HTTP 529 \(overloaded_error\)/,
          },
          {
            name: "400 context",
            status: 400,
            body: err(
              400,
              "invalid_request_error",
              "prompt is too long: 1200000 tokens > 1000000 maximum",
            ),
            category: ModelErrorCategory.CONTEXT_LENGTH_EXCEEDED,
            retryable: false,
            message: /prompt is too long/,
          },
          {
            name: "400 invalid",
            status: 400,
            body: err(
              400,
              "invalid_request_error",
              "messages.0.content: field required",
            ),
            category: ModelErrorCategory.INVALID_REQUEST,
            retryable: false,
            message: /field required/,
          },
          {
            name: "500",
            status: 500,
            body: err(500, "api_error", "Internal server error"),
            category: ModelErrorCategory.UNKNOWN,
            retryable: true,
            message: /api_error/,
          },
          {
            name: "mid-stream error event",
            frames: [
              ev.messageStart({ input_tokens: 5 }),
              ev.blockStart(0, { type: "text", text: "" }),
              ev.delta(0, { type: "text_delta", text: "partial" }),
              ev.error("overloaded_error", "Overloaded"),
            ],
            category: ModelErrorCategory.OVERLOADED,
            retryable: true,
            message:
              /a mid-stream error event \(overloaded_error\): Overloaded/,
          },
        ];
        for (const c of cases) {
          fake.enqueue(
            c.frames ? { kind: "sse", frames: c.frames } : {
              kind: "json",
              status: c.status!,
              body: c.body,
              ...(c.headers ? { headers: c.headers } : {}),
            },
          );
          const before = fake.requests.length;
          const events = await stream({ messages: [user(c.name)] });
          assert.equal(
            fake.requests.length,
            before + 1,
            `${c.name}: one request, no SDK retry (the kernel retries)`,
          );
          const e = errorOf(events);
          assert.equal(e.category, c.category, c.name);
          assert.equal(e.retryable, c.retryable, c.name);
          assert.match(e.message, c.message, c.name);
          assert.ok(e.rawDetail, `${c.name}: raw detail`);
          if (c.retryAfter !== undefined) {
            assert.equal(Number(e.retryAfter?.seconds), c.retryAfter, c.name);
          } else {
            assert.equal(e.retryAfter, undefined, c.name);
          }
          if (c.status !== undefined) {
            assert.match(
              e.message,
              new RegExp(`request-id req_fake_${fake.requests.length}`),
            );
          }
        }
        // A stream cut before message_stop is a (retryable) failure, not a stop.
        fake.enqueue({ kind: "sse", frames: textReply(["cut"]).slice(0, 4) });
        const cut = errorOf(await stream({ messages: [user("cut")] }));
        assert.equal(cut.category, ModelErrorCategory.UNKNOWN);
        assert.equal(cut.retryable, true);
        assert.match(cut.message, /ended before message_stop/);
        // Network: nothing listens on the port.
        const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
        const port = (closed.addr as Deno.NetAddr).port;
        closed.close();
        await model.configure({
          config: { api_key: KEY, base_url: `http://127.0.0.1:${port}` },
        });
        try {
          const net = errorOf(await stream({ messages: [user("net")] }));
          assert.equal(net.category, ModelErrorCategory.UNKNOWN);
          assert.equal(net.retryable, true);
          assert.match(
            net.message,
            /cannot reach Anthropic at http:\/\/127\.0\.0\.1:\d+ \(network\)/,
          );
        } finally {
          await model.configure({
            config: {
              api_key: KEY,
              base_url: fake.url,
              default_max_tokens: 4096,
            },
          });
        }
      },
    );

    await t.step(
      "the API key never appears in an event, an error or a log, even when the vendor echoes it",
      async () => {
        fake.enqueue({
          kind: "json",
          status: 401,
          body: {
            type: "error",
            error: {
              type: "authentication_error",
              message: `invalid x-api-key ${KEY}`,
            },
          },
        });
        const e = errorOf(await stream({ messages: [user("echo")] }));
        assert.match(e.message, /invalid x-api-key \[REDACTED\]/);
        assert.match(e.rawDetail ?? "", /\[REDACTED\]/);
        // Everything so far: events, errors, logs.
        // The failure log travels over the plugin's callback channel, which
        // opens at its first callback (the gateway starts then): wait for it.
        const failed = () =>
          records.some((r) =>
            JSON.stringify(r.message).includes("model call failed")
          );
        for (let i = 0; i < 200 && !failed(); i++) {
          await new Promise((r) => setTimeout(r, 50));
        }
        const seen = JSON.stringify(
          streams.map((s) => s.map((x) => x.event)),
          (_k, v) =>
            typeof v === "bigint"
              ? String(v)
              : v instanceof Uint8Array
              ? new TextDecoder().decode(v)
              : v,
        ) + errors.join("\n") +
          records.map((r) => JSON.stringify({ m: r.message, p: r.properties }))
            .join("\n");
        assert.ok(seen.length > 1000, "something was captured");
        assert.ok(
          records.some((r) =>
            JSON.stringify(r.message).includes("model call failed")
          ),
          "the plugin's failure logs reached the kernel (and were checked)",
        );
        assert.ok(!seen.includes(KEY), "the key leaked");
        assert.ok(!seen.includes(KEY.slice(8, 30)), "part of the key leaked");
      },
    );

    await t.step(
      "MUST 8: cancelling the gRPC stream aborts the vendor HTTP request at once",
      async () => {
        fake.enqueue({
          kind: "sse",
          frames: textReply(["first ", "never"]),
          holdAfter: 4, // message_start, block start, ping, first delta
        });
        const ac = new AbortController();
        const before = await fake.closed(0);
        const got: StreamEvent[] = [];
        const run = stream({ messages: [user("hold")] }, ac.signal, (e) => {
          got.push(e);
          if (e.event.case === "textDelta") ac.abort();
        }).catch((err) => err);
        const timeout = new Promise<"timeout">((r) => {
          const id = setTimeout(() => r("timeout"), 3000);
          fake.closed(before + 1).finally(() => clearTimeout(id));
        });
        const closed = await Promise.race([fake.closed(before + 1), timeout]);
        assert.notEqual(closed, "timeout", "the fake saw the connection close");
        const outcome = await run;
        assert.ok(
          outcome instanceof Error,
          "the client call ends as cancelled",
        );
        assert.ok(got.some((e) => e.event.case === "textDelta"));
        // The plugin still serves.
        fake.enqueue({ kind: "sse", frames: textReply(["after"]) });
        assert.deepEqual(
          blocksJson(assemble(await stream({ messages: [user("again")] }))),
          [{ text: "after" }],
        );
      },
    );

    await t.step(
      "MUST 10, 11: images and documents are sent as base64 sources",
      async () => {
        fake.enqueue({ kind: "sse", frames: textReply(["seen"]) });
        const png = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 0, 255]);
        const pdf = new TextEncoder().encode("%PDF-1.7 fake");
        await stream({
          messages: [msg(
            Role.USER,
            { case: "image", value: { data: png, mediaType: "image/png" } },
            {
              case: "document",
              value: {
                data: pdf,
                mediaType: "application/pdf",
                filename: "spec.pdf",
              },
            },
            {
              case: "document",
              value: {
                data: new TextEncoder().encode("plain ✓"),
                mediaType: "text/plain",
              },
            },
            { case: "text", value: { text: "describe" } },
          )],
        });
        assert.deepEqual(
          (lastBody().messages as { content: unknown }[])[0]!.content,
          [
            {
              type: "image",
              source: {
                type: "base64",
                media_type: "image/png",
                data: "iVBORw0KGgoA/w==",
              },
            },
            {
              type: "document",
              source: {
                type: "base64",
                media_type: "application/pdf",
                data: btoa("%PDF-1.7 fake"),
              },
              title: "spec.pdf",
            },
            {
              type: "document",
              source: {
                type: "text",
                media_type: "text/plain",
                data: "plain ✓",
              },
            },
            { type: "text", text: "describe" },
          ],
        );
        const n = fake.requests.length;
        await rejects(
          stream({
            messages: [
              msg(Role.USER, {
                case: "image",
                value: { data: png, mediaType: "image/tiff" },
              }),
            ],
          }),
          Code.INVALID_ARGUMENT,
          /messages\[0\]\.content\[0\]\.media_type: "image\/tiff" is not one of/,
        );
        assert.equal(fake.requests.length, n, "refused before the wire");
      },
    );

    await t.step(
      "MUST 16: cache breakpoints become cache_control markers where the kernel placed them",
      async () => {
        fake.enqueue({ kind: "sse", frames: textReply(["cached"]) });
        await stream({
          messages: [
            user("one"),
            msg(Role.ASSISTANT, { case: "text", value: { text: "two" } }),
            user("three"),
          ],
          assembledContext: [{
            provider: "system",
            label: "system prompt",
            content: [{ block: { case: "text", value: { text: "sys" } } }],
          }],
          tools: [{
            name: "t1",
            description: "d",
            inputSchema: { type: SchemaType.OBJECT },
          }],
          cacheBreakpoints: [
            { position: { case: "afterAssembledContext", value: {} } },
            { position: { case: "afterTools", value: {} } },
            { position: { case: "afterMessageIndex", value: 1n } },
          ],
        });
        const body = lastBody();
        const eph = { type: "ephemeral" };
        assert.deepEqual(body.system, [{
          type: "text",
          text: "sys",
          cache_control: eph,
        }]);
        assert.deepEqual(body.tools, [{
          name: "t1",
          description: "d",
          input_schema: { type: "object", properties: {} },
          cache_control: eph,
        }]);
        assert.deepEqual(body.messages, [
          { role: "user", content: [{ type: "text", text: "one" }] },
          {
            role: "assistant",
            content: [{ type: "text", text: "two", cache_control: eph }],
          },
          { role: "user", content: [{ type: "text", text: "three" }] },
        ]);
        await rejects(
          stream({
            messages: [user("x")],
            cacheBreakpoints: [{
              position: { case: "afterMessageIndex", value: 5n },
            }],
          }),
          Code.INVALID_ARGUMENT,
          /cache_breakpoints\[0\]\.after_message_index: 5 is not the index of a message/,
        );
      },
    );

    await t.step(
      "MUST 17: provider_options pass through the vendor knobs untouched, and nothing else",
      async () => {
        fake.enqueue({ kind: "sse", frames: textReply(["k"]) });
        await stream({
          messages: [user("x")],
          providerOptions: { top_k: 5, metadata: { user_id: "u-1" } },
        });
        assert.equal(lastBody().top_k, 5);
        assert.deepEqual(lastBody().metadata, { user_id: "u-1" });
        await rejects(
          stream({
            messages: [user("x")],
            providerOptions: { model: "claude-opus-5" },
          }),
          Code.INVALID_ARGUMENT,
          /provider_options\.model: is not a pass-through option/,
        );
      },
    );

    await t.step(
      "MUST 18 and generation parameters: each is checked against the model, INVALID_ARGUMENT names the parameter",
      async () => {
        const n = fake.requests.length;
        const bad: [string, Request, RegExp][] = [
          [
            "forced tool on an always-thinking model",
            {
              modelId: "claude-fable-5-2",
              messages: [user("x")],
              tools: [{ name: "t", inputSchema: { type: SchemaType.OBJECT } }],
              params: { toolChoice: { mode: ToolChoiceMode.ANY } },
            },
            /params\.tool_choice\.mode: "any" is not a tool-choice mode of model "claude-fable-5-2"/,
          ],
          ["unknown effort", {
            messages: [user("x")],
            params: { thinkingEffort: "extreme" },
          }, /params\.thinking_effort: "extreme" is not an effort level/],
          [
            "budget on an adaptive model",
            { messages: [user("x")], params: { thinkingBudgetTokens: 2048n } },
            /params\.thinking_budget_tokens: model "claude-sonnet-5-5" has no thinking budget/,
          ],
          ["budget out of range", {
            modelId: "claude-haiku-4-5",
            messages: [user("x")],
            params: { thinkingBudgetTokens: 100n },
          }, /params\.thinking_budget_tokens: 100 is outside 1024–63999/],
          [
            "budget not below max_tokens",
            {
              modelId: "claude-haiku-4-5",
              messages: [user("x")],
              params: { thinkingBudgetTokens: 8000n, maxOutputTokens: 4000n },
            },
            /params\.thinking_budget_tokens: 8000 must be below max_tokens \(4000\)/,
          ],
          ["max tokens above the cap", {
            messages: [user("x")],
            params: { maxOutputTokens: 200000n },
          }, /params\.max_output_tokens: 200000 is outside 1–128000/],
          ["temperature with thinking", {
            messages: [user("x")],
            params: { thinkingEffort: "low", temperature: 0.5 },
          }, /params\.temperature: cannot be set while thinking is on/],
          ["temperature out of range", {
            messages: [user("x")],
            params: { temperature: 1.5 },
          }, /params\.temperature: 1\.5 is outside 0–1/],
          [
            "specific tool not offered",
            {
              messages: [user("x")],
              params: {
                toolChoice: { mode: ToolChoiceMode.SPECIFIC, toolName: "nope" },
              },
            },
            /params\.tool_choice\.tool_name: "nope" is not one of the request's tools/,
          ],
          ["unknown model", {
            modelId: "claude-sonnet-4-5",
            messages: [user("x")],
          }, /model_id: unknown model "claude-sonnet-4-5"/],
        ];
        for (const [name, req, re] of bad) {
          await rejects(stream(req), Code.INVALID_ARGUMENT, re).catch((e) => {
            throw new Error(`${name}: ${e.message}`);
          });
        }
        assert.equal(
          fake.requests.length,
          n,
          "nothing invalid reached the wire",
        );
        // Valid combinations reach the wire in the vendor's shape.
        fake.enqueue(
          { kind: "sse", frames: textReply(["a"]) },
          {
            kind: "sse",
            frames: textReply(["b"], undefined, "claude-haiku-4-5"),
          },
          { kind: "sse", frames: textReply(["c"]) },
        );
        await stream({
          messages: [user("x")],
          params: { thinkingEffort: "max", maxOutputTokens: 64000n },
        });
        assert.deepEqual(
          [
            lastBody().thinking,
            lastBody().output_config,
            lastBody().max_tokens,
          ],
          [{ type: "adaptive" }, { effort: "max" }, 64000],
        );
        await stream({
          modelId: "claude-haiku-4-5",
          messages: [user("x")],
          params: { thinkingBudgetTokens: 2048n },
        });
        assert.deepEqual([
          lastBody().model,
          lastBody().thinking,
          lastBody().max_tokens,
        ], [
          "claude-haiku-4-5",
          { type: "enabled", budget_tokens: 2048 },
          4096,
        ]);
        await stream({
          messages: [user("x")],
          tools: [{ name: "t", inputSchema: { type: SchemaType.OBJECT } }],
          params: {
            temperature: 0.2,
            stopSequences: ["END"],
            toolChoice: { mode: ToolChoiceMode.SPECIFIC, toolName: "t" },
          },
        });
        assert.deepEqual(
          [
            lastBody().temperature,
            lastBody().stop_sequences,
            lastBody().tool_choice,
          ],
          [0.2, ["END"], { type: "tool", name: "t" }],
        );
      },
    );

    await t.step(
      "MUST 19: Render and GetAccount answer UNIMPLEMENTED (this provider emits no payloads)",
      async () => {
        await rejects(
          model.render({ payload: new Uint8Array(), schemaVersion: "1" }),
          Code.UNIMPLEMENTED,
          /no Render/,
        );
        await rejects(model.getAccount({}), Code.UNIMPLEMENTED, /no account/);
      },
    );

    await t.step(
      "MUST 20: CountTokens is exact through POST /v1/messages/count_tokens and needs model_id",
      async () => {
        fake.countTokens = (body) => 1000 + JSON.stringify(body).length;
        const req = {
          modelId: MODEL,
          messages: [user("count me")],
          assembledContext: [{
            provider: "system",
            label: "s",
            content: [{
              block: { case: "text" as const, value: { text: "sys" } },
            }],
          }],
          tools: [{
            name: "t",
            description: "d",
            inputSchema: { type: SchemaType.OBJECT },
          }],
        };
        const { count } = await model.countTokens(req);
        const sent = fake.requests.at(-1)!;
        assert.equal(sent.path, "/v1/messages/count_tokens");
        assert.deepEqual(sent.body, {
          model: MODEL,
          messages: [{
            role: "user",
            content: [{ type: "text", text: "count me" }],
          }],
          system: [{ type: "text", text: "sys" }],
          tools: [{
            name: "t",
            description: "d",
            input_schema: { type: "object", properties: {} },
          }],
        });
        assert.equal(Number(count), 1000 + JSON.stringify(sent.body).length);
        await rejects(
          model.countTokens({ messages: [user("x")] }),
          Code.INVALID_ARGUMENT,
          /needs model_id/,
        );
        // Vendor errors are gRPC statuses here (a unary RPC), key redacted.
        fake.countTokens = () => ({
          kind: "json",
          status: 429,
          body: {
            type: "error",
            error: { type: "rate_limit_error", message: `slow down ${KEY}` },
          },
          headers: { "retry-after": "5" },
        });
        await rejects(
          model.countTokens(req),
          Code.RESOURCE_EXHAUSTED,
          /HTTP 429 \(rate_limit_error\): slow down \[REDACTED\]/,
        );
        fake.countTokens = () => ({
          kind: "json",
          status: 401,
          body: {
            type: "error",
            error: { type: "authentication_error", message: "bad key" },
          },
        });
        await rejects(model.countTokens(req), Code.UNAUTHENTICATED, /HTTP 401/);
        fake.countTokens = () => 0;
      },
    );

    await t.step(
      "MUST 25: only the Messages API is used: no realtime transport, no embeddings",
      () => {
        const paths = new Set(fake.requests.map((r) => r.path));
        assert.deepEqual([...paths].sort(), [
          "/v1/messages",
          "/v1/messages/count_tokens",
        ]);
        assert.ok(
          fake.requests.every((r) =>
            r.path === "/v1/messages/count_tokens" || r.body.stream === true
          ),
        );
        assert.ok(models.models.every((m) => m.id.startsWith("claude-")));
      },
    );
  } finally {
    await reset();
    await Deno.remove(dir, { recursive: true });
  }
});
