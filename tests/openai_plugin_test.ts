/**
 * The `openai` model provider through a real plugin subprocess (the
 * kernel's PluginHost) against a local fake of OpenAI's HTTP API: the
 * capability envelope, Configure, the exact requests sent over both wire
 * APIs, the canonical events that come back (text, parallel tool calls
 * assembled from many deltas, unicode split across TCP writes, reasoning
 * summaries and encrypted reasoning, usage with cached and reasoning
 * tokens), the error taxonomy, cancellation, CountTokens, and the §6.1
 * MUST list as it applies to a plugin.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { configure, type LogRecord } from "@logtape/logtape";
import { countChatCompletionTokens } from "gpt-tokenizer/model/gpt-5.4";
import { type Plugin, PluginHost } from "../kernel/mod.ts";
import { StreamAccumulator } from "../kernel/agent/stream_accumulator.ts";
import { computeCostUsd } from "../contract/cost.ts";
import { Code, GrpcStatusError } from "../proto/grpc_status.ts";
import { Category } from "../proto/gen/pluggableharness/common/v1/types_pb.ts";
import { AttrType } from "../proto/gen/pluggableharness/config/v1/types_pb.ts";
import {
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
  StopReason,
  ThinkingDisableSupport,
  ToolChoiceMode,
} from "../proto/gen/pluggableharness/model/v1/types_pb.ts";
import { SchemaType } from "../proto/gen/pluggableharness/schema/v1/types_pb.ts";
import { readManifest } from "../plugins/sdk/mod.ts";
import { ROSTER } from "../plugins/openai/roster.ts";
import {
  chatChunk,
  chatSse,
  type FakeOpenAI,
  responsesSse,
  splitBytes,
  startFakeOpenAI,
} from "./_fake_openai.ts";

const PATH = Deno.env.get("PATH") ?? "/usr/bin:/bin";
const ENTRY = fileURLToPath(
  new URL("../plugins/openai/main.ts", import.meta.url),
);
const KEY = "sk-test-SECRETKEY0123456789abcdef";

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

const READ_TOOL = {
  name: "read_file",
  description: "Read a file",
  inputSchema: {
    type: SchemaType.OBJECT,
    properties: {
      path: { type: SchemaType.STRING, description: "The path" },
      mode: { type: SchemaType.STRING, enumValues: ["text", "bytes"] },
    },
    required: ["path"],
  },
};
const READ_TOOL_JSON = {
  type: "object",
  properties: {
    path: { type: "string", description: "The path" },
    mode: { type: "string", enum: ["text", "bytes"] },
  },
  required: ["path"],
};

const SYSTEM = [{
  provider: "kernel",
  label: "system",
  content: [{ block: { case: "text" as const, value: { text: "Be brief." } } }],
}];

/** Concatenated deltas of a kind. */
function joined(evs: StreamEvent[], kind: "textDelta" | "thinkingDelta") {
  return evs.flatMap((e) =>
    e.event.case === kind ? [(e.event.value as { text: string }).text] : []
  ).join("");
}

/** The kernel's own view: the accumulated assistant content and usage. */
function accumulate(evs: StreamEvent[]) {
  const acc = new StreamAccumulator();
  for (const e of evs) acc.push(e);
  const { content, invalidArguments } = acc.finish();
  return {
    content: content.map((b) => b.block),
    invalidArguments,
    stopReason: acc.stopReason,
    usages: acc.usages,
    error: acc.error,
  };
}

async function withPlugin(
  fn: (ctx: {
    fake: FakeOpenAI;
    model: ReturnType<typeof clientOf>;
    stream: (req: Request, signal?: AbortSignal) => Promise<StreamEvent[]>;
    configureFake: (extra?: Record<string, unknown>) => Promise<void>;
    records: LogRecord[];
  }) => Promise<void>,
): Promise<void> {
  const records: LogRecord[] = [];
  await configure({
    reset: true,
    sinks: { capture: (r) => records.push(r) },
    loggers: [
      { category: ["ph-agent"], lowestLevel: "debug", sinks: ["capture"] },
      { category: ["logtape", "meta"], lowestLevel: "warning", sinks: [] },
    ],
  });
  await using fake = startFakeOpenAI();
  const dir = await Deno.makeTempDir({ prefix: "ph-openai-test-" });
  try {
    await using host = new PluginHost({ env: { PATH }, cwd: dir });
    const manifest = await readManifest(
      new URL("../plugins/openai/plugin.json", import.meta.url),
    );
    const plugin = await host.launch({
      manifest,
      entrypoint: ENTRY,
      grant: { net: ["127.0.0.1"] },
    });
    const model = clientOf(plugin);
    const stream = async (req: Request, signal?: AbortSignal) => {
      const out: StreamEvent[] = [];
      for await (
        const ev of model.streamCompletion(
          {
            callContext: {
              sessionId: "01S",
              turnId: "01T",
              workingDirectory: dir,
            },
            ...req,
          },
          signal ? { signal } : {},
        )
      ) out.push(ev);
      return out;
    };
    const configureFake = async (extra: Record<string, unknown> = {}) => {
      await model.configure({
        config: {
          api_key: KEY,
          base_url: fake.baseUrl,
          models: ["gpt-5.4-mini", "gpt-4.1", "o4-mini", "llama3.2"],
          ...extra,
        },
      });
    };
    await fn({ fake, model, stream, configureFake, records });
  } finally {
    await Deno.remove(dir, { recursive: true });
    await configure({ reset: true, sinks: {}, loggers: [] });
  }
}

function clientOf(plugin: Plugin) {
  return plugin.client(ModelService);
}

const CHAT_TOOL_TURN = [
  chatChunk({ role: "assistant", content: "" }),
  chatChunk({ content: "Reading both" }),
  chatChunk({ content: " files." }),
  chatChunk({
    tool_calls: [{
      index: 0,
      id: "call_A",
      type: "function",
      function: { name: "read_file", arguments: "" },
    }],
  }),
  chatChunk({
    tool_calls: [{
      index: 1,
      id: "call_B",
      type: "function",
      function: { name: "read_file", arguments: "" },
    }],
  }),
  chatChunk({ tool_calls: [{ index: 0, function: { arguments: '{"pa' } }] }),
  chatChunk({ tool_calls: [{ index: 1, function: { arguments: '{"path"' } }] }),
  chatChunk({ tool_calls: [{ index: 0, function: { arguments: 'th": "a' } }] }),
  chatChunk({
    tool_calls: [{ index: 1, function: { arguments: ': "b.md"}' } }],
  }),
  chatChunk({ tool_calls: [{ index: 0, function: { arguments: '.md"}' } }] }),
  chatChunk({}, { finish_reason: "tool_calls" }),
  chatChunk(null, {
    usage: {
      prompt_tokens: 1200,
      completion_tokens: 90,
      total_tokens: 1290,
      prompt_tokens_details: { cached_tokens: 1000 },
      completion_tokens_details: { reasoning_tokens: 30 },
    },
  }),
];

Deno.test("openai provider: capabilities, Configure and the MUST list", async (t) => {
  await withPlugin(async ({ model, configureFake, fake }) => {
    await t.step(
      "MUST 6, 24: GetCapabilities is cheap (no network), lists the roster and config_schema",
      async () => {
        const { capabilities } = await model.getCapabilities({});
        assert.deepEqual(
          capabilities?.models.map((m) => m.id),
          ROSTER.map((m) => m.id),
        );
        assert.deepEqual(capabilities?.supportedHookPoints, []);
        const attrs = capabilities!.configSchema!.attributes;
        assert.deepEqual(
          attrs.map((a) => [a.name, a.type, a.sensitive]),
          [
            ["api_key", AttrType.STRING, true],
            ["base_url", AttrType.STRING, false],
            ["api", AttrType.STRING, false],
            ["models", AttrType.LIST_STRING, false],
            ["discover", AttrType.BOOL, false],
            ["model_defaults", AttrType.OBJECT, false],
            ["organization", AttrType.STRING, false],
            ["project", AttrType.STRING, false],
          ],
        );
        assert.equal(fake.requests.length, 0, "no network call");
      },
    );

    await t.step(
      "MUST 12, 13, 15, 21, 22: ModelSpecs carry thinking, caching and pricing with the cached-input tier",
      async () => {
        const { capabilities } = await model.getCapabilities({});
        const spec = (id: string) =>
          capabilities!.models.find((m) => m.id === id)!;
        const g55 = spec("gpt-5.5");
        assert.equal(g55.contextWindow, 1050000n);
        assert.equal(g55.maxOutputTokens, 128000n);
        assert.equal(g55.supportsToolUse, true);
        assert.equal(g55.supportsVision, true);
        assert.equal(g55.supportsParallelToolCalls, true);
        assert.deepEqual(g55.thinking?.effort?.levels, [
          "none",
          "low",
          "medium",
          "high",
          "xhigh",
        ]);
        assert.equal(g55.thinking?.effort?.default, "medium");
        assert.equal(g55.thinking?.adaptiveByDefault, false);
        assert.equal(g55.thinking?.disable, ThinkingDisableSupport.ALWAYS);
        assert.equal(
          spec("o4-mini").thinking?.disable,
          ThinkingDisableSupport.NEVER,
        );
        assert.equal(spec("gpt-4.1").thinking?.supported, false);
        assert.deepEqual(
          [
            g55.caching?.supported,
            g55.caching?.implicitAutomatic,
            g55.caching?.explicitMarkers,
            g55.caching?.keepaliveSupported,
          ],
          [true, true, false, false],
        );
        assert.deepEqual(
          g55.pricing?.tiers.map((t) => [
            t.inputPerMtok,
            t.cacheReadPerMtok,
            t.outputPerMtok,
            t.inputTokensFrom,
            t.inputTokensUntil,
          ]),
          [[5, 0.5, 30, undefined, 272000n], [10, 1, 45, 272000n, undefined]],
        );
        for (const m of capabilities!.models) {
          assert.equal(m.pricing?.currency, "USD", m.id);
          assert.ok(m.pricing!.tiers.length >= 1, m.id);
          assert.ok(m.caching !== undefined && m.thinking !== undefined);
          assert.deepEqual(m.supportedToolChoiceModes, [
            ToolChoiceMode.AUTO,
            ToolChoiceMode.ANY,
            ToolChoiceMode.NONE,
            ToolChoiceMode.SPECIFIC,
          ]);
        }
      },
    );

    await t.step(
      "MUST 7: Configure rejects missing or invalid config up front and never echoes the key",
      async () => {
        const rejects = (config: Record<string, unknown>, pattern: RegExp) =>
          assert.rejects(
            // deno-lint-ignore no-explicit-any
            model.configure({ config: config as any }),
            (e: unknown) =>
              e instanceof GrpcStatusError &&
              e.code === Code.INVALID_ARGUMENT && pattern.test(e.message) &&
              !e.message.includes(KEY),
            `rejects ${Object.keys(config)} with ${pattern}`,
          );
        await rejects({}, /"api_key" is required .*env\("OPENAI_API_KEY"\)/);
        await rejects(
          { api_key: KEY, apikey: "x" },
          /"apikey" is not supported/,
        );
        await rejects(
          { api_key: KEY, api: "completions" },
          /"api" must be "responses" or "chat", got "completions"/,
        );
        await rejects(
          { base_url: "http://127.0.0.1:1/v1" },
          /"models" .* or discover = true is required/,
        );
        await rejects(
          { api_key: KEY, base_url: "https://example.com/v1", models: ["m"] },
          /"base_url" names example\.com:443, which this provider may not reach: add "example\.com:443" to allow_net/,
        );
        await rejects(
          {
            base_url: fake.baseUrl,
            models: ["m"],
            model_defaults: { context_window: -1 },
          },
          /"model_defaults\.context_window" must be a positive integer/,
        );
      },
    );

    await t.step(
      "MUST 5: Describe; unknown ids get model_defaults (free unless priced)",
      async () => {
        const d = await model.describe({});
        assert.deepEqual(
          [d.producer?.name, d.producer?.source, d.producer?.category],
          ["openai", "builtin:openai", Category.MODEL],
        );
        await configureFake({
          model_defaults: { context_window: 131072, input_per_mtok: 0.1 },
        });
        const { capabilities } = await model.getCapabilities({});
        assert.deepEqual(capabilities?.models.map((m) => m.id), [
          "gpt-5.4-mini",
          "gpt-4.1",
          "o4-mini",
          "llama3.2",
        ]);
        const llama = capabilities!.models[3]!;
        assert.equal(llama.contextWindow, 131072n);
        assert.equal(llama.maxOutputTokens, 4096n);
        assert.equal(llama.thinking?.supported, false);
        assert.equal(llama.supportsParallelToolCalls, false);
        assert.equal(llama.pricing?.free, false);
        assert.deepEqual(
          llama.pricing?.tiers.map((t) => [t.inputPerMtok, t.outputPerMtok]),
          [[0.1, 0]],
        );
        await configureFake({ models: ["qwen3"] });
        const free = (await model.getCapabilities({})).capabilities!.models[0]!;
        assert.deepEqual([
          free.id,
          free.pricing?.free,
          free.pricing?.tiers.length,
        ], [
          "qwen3",
          true,
          0,
        ]);
      },
    );

    await t.step(
      "discover = true lists the server's models at Configure",
      async () => {
        fake.models = ["llama3.2:3b", "qwen2.5-coder"];
        await model.configure({
          config: { base_url: fake.baseUrl, discover: true },
        });
        const { capabilities } = await model.getCapabilities({});
        assert.deepEqual(capabilities?.models.map((m) => m.id), [
          "llama3.2:3b",
          "qwen2.5-coder",
        ]);
        const req = fake.requests.at(-1)!;
        assert.equal(req.path, "/v1/models");
        assert.equal(
          req.headers.authorization,
          undefined,
          "keyless: no auth header",
        );
      },
    );
  });
});

Deno.test("openai provider: Chat Completions wire format and stream translation", async (t) => {
  await withPlugin(async ({ model, fake, stream, configureFake, records }) => {
    await configureFake({ api: "chat" });

    await t.step(
      "MUST 3, 9: a tool-using turn: the request is exactly the documented shape; parallel calls assembled from many deltas",
      async () => {
        fake.reply({
          chunks: chatSse(CHAT_TOOL_TURN),
          headers: {
            "x-ratelimit-limit-requests": "5000",
            "x-ratelimit-remaining-requests": "4999",
            "x-ratelimit-reset-requests": "12ms",
            "x-ratelimit-limit-tokens": "2000000",
            "x-ratelimit-remaining-tokens": "1998800",
            "x-ratelimit-reset-tokens": "36ms",
          },
        });
        const history = [
          user("Read a.md"),
          msg(
            Role.ASSISTANT,
            { case: "text", value: { text: "Reading." } },
            {
              case: "toolUse",
              value: {
                id: "call_0",
                name: "read_file",
                arguments: { path: "a.md" },
              },
            },
          ),
          msg(
            Role.USER,
            {
              case: "toolResult",
              value: {
                toolUseId: "call_0",
                content: [{ block: { case: "text", value: { text: "# A" } } }],
                isError: false,
              },
            },
            { case: "text", value: { text: "and b.md" } },
          ),
        ];
        const evs = await stream({
          modelId: "gpt-5.4-mini",
          messages: history,
          tools: [READ_TOOL],
          assembledContext: SYSTEM,
          params: {
            maxOutputTokens: 1000n,
            thinkingEffort: "low",
            stopSequences: [],
            toolChoice: { mode: ToolChoiceMode.AUTO },
          },
        });
        const req = fake.requests.at(-1)!;
        assert.equal(req.path, "/v1/chat/completions");
        assert.equal(req.headers.authorization, `Bearer ${KEY}`);
        assert.deepEqual(req.body, {
          model: "gpt-5.4-mini",
          messages: [
            { role: "developer", content: "Be brief." },
            { role: "user", content: "Read a.md" },
            {
              role: "assistant",
              content: "Reading.",
              tool_calls: [{
                id: "call_0",
                type: "function",
                function: { name: "read_file", arguments: '{"path":"a.md"}' },
              }],
            },
            { role: "tool", tool_call_id: "call_0", content: "# A" },
            { role: "user", content: "and b.md" },
          ],
          stream: true,
          stream_options: { include_usage: true },
          tools: [{
            type: "function",
            function: {
              name: "read_file",
              description: "Read a file",
              parameters: READ_TOOL_JSON,
            },
          }],
          parallel_tool_calls: true,
          tool_choice: "auto",
          max_completion_tokens: 1000,
          reasoning_effort: "low",
        });
        assert.equal(evs[0]?.event.case, "streamStart");
        const limits = evs[1]?.event.case === "metadata"
          ? evs[1].event.value.rateLimits
          : [];
        assert.deepEqual(
          limits.map((l) => [l.limitName, l.limit, l.remaining, !!l.resetAt]),
          [["requests", 5000n, 4999n, true], [
            "tokens",
            2000000n,
            1998800n,
            true,
          ]],
        );
        assert.equal(
          evs[0]?.event.case === "streamStart" &&
            evs[0].event.value.providerRequestId,
          `req_fake_${fake.requests.length}`,
        );
        const acc = accumulate(evs);
        assert.deepEqual(acc.content.map((b) => [b.case, b.value]), [
          [
            "text",
            create(MessageSchema, {
              content: [{
                block: { case: "text", value: { text: "Reading both files." } },
              }],
            }).content[0]!.block.value,
          ],
          ["toolUse", acc.content[1]!.value],
          ["toolUse", acc.content[2]!.value],
        ]);
        assert.deepEqual(
          acc.content.slice(1).map((b) =>
            b.case === "toolUse"
              ? [b.value.id, b.value.name, b.value.arguments]
              : []
          ),
          [
            ["call_A", "read_file", { path: "a.md" }],
            ["call_B", "read_file", { path: "b.md" }],
          ],
        );
        assert.equal(acc.invalidArguments.size, 0);
        assert.equal(acc.stopReason, StopReason.TOOL_USE);
        assert.equal(acc.usages.length, 1);
        const u = acc.usages[0]!;
        assert.deepEqual(
          [
            u.inputTokens,
            u.cacheReadTokens,
            u.outputTokens,
            u.reasoningTokens,
            u.vendorTotalTokens,
          ],
          [200n, 1000n, 60n, 30n, 1290n],
        );
        // Two done events, in index order, before usage and stop.
        const tail = evs.slice(-4).map((e) => e.event.case);
        assert.deepEqual(tail, [
          "toolCallDone",
          "toolCallDone",
          "usage",
          "stop",
        ]);
        // Cost as the kernel computes it from the declared pricing
        // (gpt-5.4-mini: 0.75 in, 0.075 cached, 4.5 out per Mtok).
        const { capabilities } = await model.getCapabilities({});
        const spec = capabilities!.models.find((m) => m.id === "gpt-5.4-mini")!;
        const cost = computeCostUsd(spec.pricing, u);
        assert.ok(
          Math.abs(
            cost - (200 * 0.75 + 1000 * 0.075 + 60 * 4.5 + 30 * 4.5) / 1e6,
          ) <
            1e-12,
        );
        // Nothing the plugin logged holds the key.
        assert.ok(
          !JSON.stringify(records.map((r) => [r.message, r.properties]))
            .includes(KEY),
        );
      },
    );

    await t.step(
      "unicode split across TCP writes arrives intact",
      async () => {
        const text = "héllo — ✓ 日本語 🎉";
        const sse = chatSse([
          chatChunk({ content: text }),
          chatChunk({}, { finish_reason: "stop" }),
          chatChunk(null, {
            usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
          }),
        ]).join("");
        const bytes = new TextEncoder().encode(sse);
        // Cut inside "é", inside "✓", inside "日" and inside "🎉".
        const cuts = [
          sse.indexOf("é"),
          sse.indexOf("✓"),
          sse.indexOf("日"),
          sse.indexOf("🎉"),
        ].map((i) => new TextEncoder().encode(sse.slice(0, i)).length + 1);
        const pieces: Uint8Array[] = [];
        let from = 0;
        for (const c of cuts) {
          pieces.push(bytes.slice(from, c));
          from = c;
        }
        pieces.push(bytes.slice(from));
        assert.deepEqual(splitBytes("é", 1)[0].length, 1);
        fake.reply({ chunks: pieces, gapMs: 5 });
        const evs = await stream({
          modelId: "gpt-4.1",
          messages: [user("hi")],
        });
        assert.equal(joined(evs, "textDelta"), text);
        assert.equal(accumulate(evs).stopReason, StopReason.END_TURN);
      },
    );

    await t.step(
      "finish reasons map: length → MAX_TOKENS, content_filter → CONTENT_FILTERED",
      async () => {
        for (
          const [finish, reason] of [
            ["length", StopReason.MAX_TOKENS],
            ["content_filter", StopReason.CONTENT_FILTERED],
          ] as const
        ) {
          fake.reply({
            chunks: chatSse([
              chatChunk({ content: "x" }),
              chatChunk({}, { finish_reason: finish }),
            ]),
          });
          const evs = await stream({
            modelId: "gpt-4.1",
            messages: [user("hi")],
          });
          assert.equal(accumulate(evs).stopReason, reason, finish);
        }
      },
    );

    await t.step(
      "MUST 1, 2: a mid-stream error is classified in band (after the text so far)",
      async () => {
        fake.reply({
          chunks: [
            ...chatSse([chatChunk({ content: "Par" })], false),
            `data: ${
              JSON.stringify({
                error: {
                  message:
                    "The server had an error while processing your request.",
                  type: "server_error",
                  code: "server_error",
                },
              })
            }\n\n`,
          ],
        });
        const evs = await stream({
          modelId: "gpt-4.1",
          messages: [user("hi")],
        });
        assert.equal(joined(evs, "textDelta"), "Par");
        const last = evs.at(-1)!.event;
        assert.equal(last.case, "error");
        const err = last.case === "error" ? last.value.error! : undefined;
        assert.equal(err?.category, ModelErrorCategory.OVERLOADED);
        assert.equal(err?.retryable, true);
        assert.match(err!.message, /server had an error/);
        assert.equal(err?.rawDetail, "stream server_error server_error");
        assert.equal(evs.filter((e) => e.event.case === "stop").length, 0);
      },
    );

    await t.step(
      "MUST 1, 2: HTTP failures map to the taxonomy with retryable and retry_after",
      async () => {
        const cases: {
          status: number;
          headers?: Record<string, string>;
          error: Record<string, unknown>;
          category: ModelErrorCategory;
          retryable: boolean;
          retryAfterMs?: number;
        }[] = [
          {
            status: 401,
            error: {
              message: `Incorrect API key provided: ${KEY}.`,
              type: "invalid_request_error",
              code: "invalid_api_key",
            },
            category: ModelErrorCategory.AUTH_ERROR,
            retryable: false,
          },
          {
            status: 403,
            error: {
              message: "Project does not have access",
              type: "invalid_request_error",
            },
            category: ModelErrorCategory.AUTH_ERROR,
            retryable: false,
          },
          {
            status: 429,
            headers: { "retry-after-ms": "1500", "retry-after": "2" },
            error: {
              message: "Rate limit reached",
              type: "requests",
              code: "rate_limit_exceeded",
            },
            category: ModelErrorCategory.RATE_LIMITED,
            retryable: true,
            retryAfterMs: 1500,
          },
          {
            status: 429,
            headers: { "retry-after": "3" },
            error: {
              message: "Rate limit reached",
              type: "tokens",
              code: "rate_limit_exceeded",
            },
            category: ModelErrorCategory.RATE_LIMITED,
            retryable: true,
            retryAfterMs: 3000,
          },
          {
            status: 429,
            error: {
              message: "You exceeded your current quota",
              type: "insufficient_quota",
              code: "insufficient_quota",
            },
            category: ModelErrorCategory.RATE_LIMITED,
            retryable: false,
          },
          {
            status: 503,
            error: {
              message: "The engine is currently overloaded",
              type: "server_error",
            },
            category: ModelErrorCategory.OVERLOADED,
            retryable: true,
          },
          {
            status: 500,
            error: { message: "Internal error", type: "server_error" },
            category: ModelErrorCategory.OVERLOADED,
            retryable: true,
          },
          {
            status: 400,
            error: {
              message: "This model's maximum context length is 400000 tokens.",
              type: "invalid_request_error",
              param: "messages",
              code: "context_length_exceeded",
            },
            category: ModelErrorCategory.CONTEXT_LENGTH_EXCEEDED,
            retryable: false,
          },
          {
            status: 400,
            error: {
              message: "Invalid value for 'tools'",
              type: "invalid_request_error",
              param: "tools",
              code: null,
            },
            category: ModelErrorCategory.INVALID_REQUEST,
            retryable: false,
          },
          {
            status: 404,
            error: {
              message: "The model does not exist",
              type: "invalid_request_error",
              code: "model_not_found",
            },
            category: ModelErrorCategory.INVALID_REQUEST,
            retryable: false,
          },
        ];
        for (const c of cases) {
          fake.reply({
            status: c.status,
            ...(c.headers ? { headers: c.headers } : {}),
            json: { error: c.error },
          });
          const evs = await stream({
            modelId: "gpt-4.1",
            messages: [user("hi")],
          });
          assert.equal(evs.length, 1, `${c.status}: only the error`);
          const e = evs[0]!.event;
          assert.equal(e.case, "error");
          const err = e.case === "error" ? e.value.error! : undefined;
          const what = `${c.status} ${c.error.code}`;
          assert.equal(err?.category, c.category, what);
          assert.equal(err?.retryable, c.retryable, what);
          if (c.retryAfterMs !== undefined) {
            const ms = Number(err!.retryAfter!.seconds) * 1000 +
              err!.retryAfter!.nanos / 1e6;
            assert.equal(ms, c.retryAfterMs, what);
          } else {
            assert.equal(err?.retryAfter, undefined, what);
          }
          assert.ok(err!.rawDetail!.startsWith(`http ${c.status}`), what);
          assert.ok(
            !JSON.stringify(
              evs,
              (_, v) => typeof v === "bigint" ? String(v) : v,
            )
              .includes("SECRETKEY"),
            `${what}: key redacted`,
          );
          assert.ok(!err!.message.includes("SECRETKEY"), what);
        }
        assert.ok(
          !JSON.stringify(records.map((r) => [r.message, r.properties]))
            .includes("SECRETKEY"),
          "no log holds the key",
        );
      },
    );

    await t.step(
      "a network failure is classified (OVERLOADED, retryable)",
      async () => {
        const closed = startFakeOpenAI();
        const url = closed.baseUrl;
        await closed.close();
        await model.configure({
          config: {
            api_key: KEY,
            base_url: url,
            models: ["gpt-4.1"],
            api: "chat",
          },
        });
        const evs = await stream({
          modelId: "gpt-4.1",
          messages: [user("hi")],
        });
        const e = evs.at(-1)!.event;
        assert.equal(e.case, "error");
        const err = e.case === "error" ? e.value.error! : undefined;
        assert.equal(err?.category, ModelErrorCategory.OVERLOADED);
        assert.equal(err?.retryable, true);
        assert.match(err!.rawDetail!, /^network/);
        await configureFake({ api: "chat" });
      },
    );

    await t.step(
      "MUST 8: cancellation aborts the HTTP request at once (the server sees the connection closed)",
      async () => {
        const closed = Promise.withResolvers<void>();
        fake.reply({
          chunks: chatSse([chatChunk({ content: "Thinking about" })], false),
          hang: true,
          closed,
        });
        const ac = new AbortController();
        const seen: StreamEvent[] = [];
        const done = (async () => {
          try {
            for await (
              const ev of model.streamCompletion(
                {
                  callContext: {
                    sessionId: "s",
                    turnId: "t",
                    workingDirectory: ".",
                  },
                  modelId: "gpt-4.1",
                  messages: [user("hi")],
                },
                { signal: ac.signal },
              )
            ) {
              seen.push(ev);
              if (ev.event.case === "textDelta") ac.abort();
            }
          } catch (e) {
            return e;
          }
        })();
        const err = await done;
        assert.ok(
          err instanceof GrpcStatusError && err.code === Code.CANCELLED,
        );
        const timeout = new Promise((_, reject) => {
          const t = setTimeout(
            () =>
              reject(
                new Error("the fake server never saw the connection close"),
              ),
            3000,
          );
          closed.promise.finally(() => clearTimeout(t));
        });
        await Promise.race([closed.promise, timeout]);
        assert.equal(joined(seen, "textDelta"), "Thinking about");
      },
    );

    await t.step(
      "generation parameters are validated against the model before the wire (INVALID_ARGUMENT naming the parameter)",
      async () => {
        const before = fake.requests.length;
        const rejects = (req: Request, pattern: RegExp) =>
          assert.rejects(
            stream(req),
            (e: unknown) =>
              e instanceof GrpcStatusError &&
              e.code === Code.INVALID_ARGUMENT && pattern.test(e.message),
            String(pattern),
          );
        const m = [user("hi")];
        await rejects(
          {
            modelId: "o4-mini",
            messages: m,
            params: { temperature: 0.2, stopSequences: [] },
          },
          /invalid temperature: model "o4-mini" does not accept temperature/,
        );
        await rejects(
          {
            modelId: "gpt-5.4-mini",
            messages: m,
            params: {
              temperature: 0.2,
              thinkingEffort: "high",
              stopSequences: [],
            },
          },
          /invalid temperature: .*only with thinking_effort "none"/,
        );
        await rejects(
          {
            modelId: "gpt-5.4-mini",
            messages: m,
            params: { thinkingEffort: "extreme", stopSequences: [] },
          },
          /invalid thinking_effort: "extreme" is not a level/,
        );
        await rejects(
          {
            modelId: "gpt-4.1",
            messages: m,
            params: { thinkingEffort: "low", stopSequences: [] },
          },
          /invalid thinking_effort: model "gpt-4.1" has no reasoning effort control/,
        );
        await rejects(
          {
            modelId: "gpt-4.1",
            messages: m,
            params: { maxOutputTokens: 40000n, stopSequences: [] },
          },
          /invalid max_output_tokens: must be between 1 and 32768/,
        );
        await rejects(
          {
            modelId: "gpt-4.1",
            messages: m,
            params: { thinkingBudgetTokens: 1000n, stopSequences: [] },
          },
          /invalid thinking_budget_tokens/,
        );
        await rejects(
          { modelId: "nope", messages: m },
          /unknown model "nope"/,
        );
        await rejects(
          {
            modelId: "llama3.2",
            messages: [
              msg(Role.USER, {
                case: "image",
                value: { data: new Uint8Array([1]), mediaType: "image/png" },
              }),
            ],
          },
          /MUST 10|invalid messages\[0\]\.content\[0\]: model "llama3\.2" does not accept images/,
        );
        await rejects(
          {
            modelId: "llama3.2",
            messages: [
              msg(Role.USER, {
                case: "document",
                value: {
                  data: new Uint8Array([1]),
                  mediaType: "application/pdf",
                },
              }),
            ],
          },
          /invalid messages\[0\]\.content\[0\]: model "llama3\.2" does not accept documents/,
        );
        assert.equal(fake.requests.length, before, "nothing reached the wire");
        // A valid temperature on a non-reasoning model passes through.
        fake.reply({
          chunks: chatSse([
            chatChunk({ content: "ok" }),
            chatChunk({}, { finish_reason: "stop" }),
          ]),
        });
        await stream({
          modelId: "gpt-4.1",
          messages: m,
          params: { temperature: 0.3, stopSequences: ["END"] },
        });
        assert.equal(fake.requests.at(-1)!.body!.temperature, 0.3);
        assert.deepEqual(fake.requests.at(-1)!.body!.stop, ["END"]);
      },
    );

    await t.step(
      "MUST 10, 11: images and PDFs travel as data URLs where declared",
      async () => {
        fake.reply({
          chunks: chatSse([
            chatChunk({ content: "A cat." }),
            chatChunk({}, { finish_reason: "stop" }),
          ]),
        });
        await stream({
          modelId: "gpt-4.1",
          messages: [msg(
            Role.USER,
            { case: "text", value: { text: "What is this?" } },
            {
              case: "image",
              value: {
                data: new Uint8Array([1, 2, 3]),
                mediaType: "image/png",
              },
            },
            {
              case: "document",
              value: {
                data: new Uint8Array([4]),
                mediaType: "application/pdf",
                filename: "a.pdf",
              },
            },
          )],
        });
        assert.deepEqual(fake.requests.at(-1)!.body!.messages, [{
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            {
              type: "image_url",
              image_url: { url: "data:image/png;base64,AQID" },
            },
            {
              type: "file",
              file: {
                filename: "a.pdf",
                file_data: "data:application/pdf;base64,BA==",
              },
            },
          ],
        }]);
      },
    );

    await t.step(
      "MUST 4, 16, 17, 18: one stream, one terminal; cache breakpoints ignored; provider_options pass-through is allow-listed; tool_choice modes as declared",
      async () => {
        fake.reply({
          chunks: chatSse([
            chatChunk({ content: "ok" }),
            chatChunk({}, { finish_reason: "stop" }),
          ]),
        });
        const evs = await stream({
          modelId: "gpt-4.1",
          messages: [user("hi")],
          tools: [READ_TOOL],
          assembledContext: SYSTEM,
          cacheBreakpoints: [
            { position: { case: "afterAssembledContext", value: {} } },
            { position: { case: "afterMessageIndex", value: 0n } },
          ],
          providerOptions: { user: "u-42", seed: 7 },
          params: {
            stopSequences: [],
            toolChoice: { mode: ToolChoiceMode.ANY },
          },
        });
        const terminals = evs.filter((e) =>
          e.event.case === "stop" || e.event.case === "error"
        );
        assert.equal(terminals.length, 1);
        assert.equal(evs.at(-1)!.event.case, "stop");
        const body = fake.requests.at(-1)!.body!;
        assert.equal(body.user, "u-42");
        assert.equal(body.seed, 7);
        assert.equal(body.tool_choice, "required");
        assert.deepEqual(Object.keys(body).sort(), [
          "messages",
          "model",
          "parallel_tool_calls",
          "seed",
          "stream",
          "stream_options",
          "tool_choice",
          "tools",
          "user",
        ]);
        await assert.rejects(
          stream({
            modelId: "gpt-4.1",
            messages: [user("hi")],
            providerOptions: { model: "gpt-5.5" },
          }),
          (e: unknown) =>
            e instanceof GrpcStatusError && e.code === Code.INVALID_ARGUMENT &&
            /invalid provider_options\.model: not a pass-through option/.test(
              e.message,
            ),
        );
        await assert.rejects(
          stream({
            modelId: "gpt-4.1",
            messages: [user("hi")],
            tools: [READ_TOOL],
            params: {
              stopSequences: [],
              toolChoice: {
                mode: ToolChoiceMode.SPECIFIC,
                toolName: "write_file",
              },
            },
          }),
          (e: unknown) =>
            e instanceof GrpcStatusError && e.code === Code.INVALID_ARGUMENT &&
            /invalid tool_choice: tool_name "write_file"/.test(e.message),
        );
      },
    );

    await t.step(
      "MUST 19: no Render (UNIMPLEMENTED, the kernel falls back)",
      async () => {
        await assert.rejects(
          model.render({ payload: new Uint8Array(), schemaVersion: "1" }),
          (e: unknown) =>
            e instanceof GrpcStatusError && e.code === Code.UNIMPLEMENTED,
        );
      },
    );

    await t.step(
      "an unknown model on a compatible server: system role, max_tokens, no parallel flag",
      async () => {
        fake.reply({
          chunks: chatSse([
            chatChunk({ content: "hi", reasoning_content: "hmm" }, {
              model: "llama3.2",
            }),
            chatChunk({}, { finish_reason: "stop" }),
          ]),
        });
        const evs = await stream({
          modelId: "llama3.2",
          messages: [user("hi")],
          assembledContext: SYSTEM,
          tools: [READ_TOOL],
          params: { maxOutputTokens: 100n, stopSequences: [] },
        });
        const body = fake.requests.at(-1)!.body!;
        assert.deepEqual((body.messages as unknown[])[0], {
          role: "system",
          content: "Be brief.",
        });
        assert.equal(body.max_tokens, 100);
        assert.equal(body.max_completion_tokens, undefined);
        assert.equal(body.parallel_tool_calls, undefined);
        assert.equal(
          joined(evs, "thinkingDelta"),
          "",
          "no thinking from a model that declares none",
        );
        // No usage from the server: no usage event, still a stop.
        assert.equal(accumulate(evs).usages.length, 0);
        assert.equal(accumulate(evs).stopReason, StopReason.END_TURN);
      },
    );

    await t.step(
      "MUST 20: CountTokens is exact for roster models, UNIMPLEMENTED for unknown ones",
      async () => {
        const req = {
          modelId: "gpt-5.4-mini",
          messages: [user("Hello there, how are you?")],
          assembledContext: SYSTEM,
          tools: [READ_TOOL],
        };
        const { count } = await model.countTokens(req);
        const expected = countChatCompletionTokens!({
          messages: [
            { role: "system", content: "Be brief." },
            { role: "user", content: "Hello there, how are you?" },
          ],
          functions: [{
            name: "read_file",
            description: "Read a file",
            parameters: READ_TOOL_JSON as never,
          }],
        });
        assert.equal(Number(count), expected);
        assert.ok(expected > 10);
        await assert.rejects(
          model.countTokens({ ...req, modelId: "llama3.2" }),
          (e: unknown) =>
            e instanceof GrpcStatusError && e.code === Code.UNIMPLEMENTED,
        );
      },
    );
  });
});

Deno.test("openai provider: Responses API wire format and stream translation", async (t) => {
  await withPlugin(async ({ fake, stream, configureFake }) => {
    await configureFake({ api: "responses" });

    const completed = (
      usage: Record<string, unknown>,
      status = "completed",
    ) => ({
      type: `response.${status}`,
      response: {
        id: "resp_1",
        object: "response",
        model: "o4-mini-2025-04-16",
        status,
        usage,
        output: [],
      },
    });

    await t.step(
      "MUST 3, 9, 14: reasoning summary, encrypted reasoning, text and a tool call; the request is the documented shape",
      async () => {
        fake.reply({
          chunks: responsesSse([
            {
              type: "response.created",
              response: {
                id: "resp_1",
                model: "o4-mini-2025-04-16",
                status: "in_progress",
              },
            },
            {
              type: "response.output_item.added",
              output_index: 0,
              item: { type: "reasoning", id: "rs_1", summary: [] },
            },
            {
              type: "response.reasoning_summary_part.added",
              item_id: "rs_1",
              output_index: 0,
              summary_index: 0,
              part: { type: "summary_text", text: "" },
            },
            {
              type: "response.reasoning_summary_text.delta",
              item_id: "rs_1",
              output_index: 0,
              summary_index: 0,
              delta: "Need the ",
            },
            {
              type: "response.reasoning_summary_text.delta",
              item_id: "rs_1",
              output_index: 0,
              summary_index: 0,
              delta: "file.",
            },
            {
              type: "response.reasoning_summary_part.added",
              item_id: "rs_1",
              output_index: 0,
              summary_index: 1,
              part: { type: "summary_text", text: "" },
            },
            {
              type: "response.reasoning_summary_text.delta",
              item_id: "rs_1",
              output_index: 0,
              summary_index: 1,
              delta: "Then answer.",
            },
            {
              type: "response.output_item.done",
              output_index: 0,
              item: {
                type: "reasoning",
                id: "rs_1",
                encrypted_content: "gAAAA-enc",
                summary: [],
              },
            },
            {
              type: "response.output_item.added",
              output_index: 1,
              item: {
                type: "message",
                id: "msg_1",
                role: "assistant",
                content: [],
              },
            },
            {
              type: "response.output_text.delta",
              item_id: "msg_1",
              output_index: 1,
              content_index: 0,
              delta: "Let me ",
            },
            {
              type: "response.output_text.delta",
              item_id: "msg_1",
              output_index: 1,
              content_index: 0,
              delta: "look.",
            },
            {
              type: "response.output_item.done",
              output_index: 1,
              item: { type: "message", id: "msg_1" },
            },
            {
              type: "response.output_item.added",
              output_index: 2,
              item: {
                type: "function_call",
                id: "fc_1",
                call_id: "call_R",
                name: "read_file",
                arguments: "",
              },
            },
            {
              type: "response.function_call_arguments.delta",
              item_id: "fc_1",
              output_index: 2,
              delta: '{"path":',
            },
            {
              type: "response.function_call_arguments.delta",
              item_id: "fc_1",
              output_index: 2,
              delta: ' "ü.md"}',
            },
            {
              type: "response.function_call_arguments.done",
              item_id: "fc_1",
              output_index: 2,
              arguments: '{"path": "ü.md"}',
            },
            {
              type: "response.output_item.done",
              output_index: 2,
              item: {
                type: "function_call",
                id: "fc_1",
                call_id: "call_R",
                name: "read_file",
                arguments: '{"path": "ü.md"}',
              },
            },
            completed({
              input_tokens: 3000,
              input_tokens_details: { cached_tokens: 2048 },
              output_tokens: 500,
              output_tokens_details: { reasoning_tokens: 320 },
              total_tokens: 3500,
            }),
          ]),
        });
        const evs = await stream({
          modelId: "o4-mini",
          messages: [user("Read ü.md")],
          tools: [READ_TOOL],
          assembledContext: SYSTEM,
          params: {
            thinkingEffort: "high",
            maxOutputTokens: 5000n,
            stopSequences: [],
            toolChoice: {
              mode: ToolChoiceMode.SPECIFIC,
              toolName: "read_file",
            },
          },
        });
        const req = fake.requests.at(-1)!;
        assert.equal(req.path, "/v1/responses");
        assert.deepEqual(req.body, {
          model: "o4-mini",
          instructions: "Be brief.",
          input: [{
            role: "user",
            content: [{ type: "input_text", text: "Read ü.md" }],
          }],
          stream: true,
          store: false,
          tools: [{
            type: "function",
            name: "read_file",
            description: "Read a file",
            parameters: READ_TOOL_JSON,
            strict: false,
          }],
          parallel_tool_calls: true,
          tool_choice: { type: "function", name: "read_file" },
          max_output_tokens: 5000,
          reasoning: { effort: "high", summary: "auto" },
          include: ["reasoning.encrypted_content"],
        });
        const acc = accumulate(evs);
        assert.equal(acc.content.length, 3);
        const [th, tx, tu] = acc.content;
        assert.equal(th?.case, "thinking");
        assert.equal(
          th?.case === "thinking" && th.value.text,
          "Need the file.\n\nThen answer.",
        );
        const sig = th?.case === "thinking"
          ? JSON.parse(new TextDecoder().decode(th.value.signature))
          : undefined;
        assert.deepEqual(sig, {
          v: "openai.reasoning.v1",
          id: "rs_1",
          encrypted_content: "gAAAA-enc",
        });
        assert.equal(tx?.case === "text" && tx.value.text, "Let me look.");
        assert.deepEqual(
          tu?.case === "toolUse"
            ? [tu.value.id, tu.value.name, tu.value.arguments]
            : [],
          ["call_R", "read_file", { path: "ü.md" }],
        );
        assert.equal(acc.stopReason, StopReason.TOOL_USE);
        const u = acc.usages[0]!;
        assert.deepEqual(
          [u.inputTokens, u.cacheReadTokens, u.outputTokens, u.reasoningTokens],
          [952n, 2048n, 180n, 320n],
        );
        const meta = evs.find((e) => e.event.case === "metadata");
        assert.equal(
          meta?.event.case === "metadata" && meta.event.value.actualModel,
          "o4-mini-2025-04-16",
        );

        // The next turn replays the reasoning item, the call and its output.
        fake.reply({
          chunks: responsesSse([
            {
              type: "response.output_text.delta",
              item_id: "m",
              output_index: 0,
              delta: "Done.",
            },
            completed({ input_tokens: 10, output_tokens: 2, total_tokens: 12 }),
          ]),
        });
        const assistant = create(MessageSchema, {
          role: Role.ASSISTANT,
          content: acc.content.map((block) => ({ block })),
        });
        const evs2 = await stream({
          modelId: "o4-mini",
          messages: [
            user("Read ü.md"),
            assistant,
            msg(Role.USER, {
              case: "toolResult",
              value: {
                toolUseId: "call_R",
                content: [{
                  block: { case: "text", value: { text: "no such file" } },
                }],
                isError: true,
              },
            }),
          ],
          tools: [READ_TOOL],
        });
        assert.deepEqual(fake.requests.at(-1)!.body!.input, [
          {
            role: "user",
            content: [{ type: "input_text", text: "Read ü.md" }],
          },
          {
            type: "reasoning",
            id: "rs_1",
            summary: [{
              type: "summary_text",
              text: "Need the file.\n\nThen answer.",
            }],
            encrypted_content: "gAAAA-enc",
          },
          { role: "assistant", content: "Let me look." },
          {
            type: "function_call",
            call_id: "call_R",
            name: "read_file",
            arguments: '{"path":"ü.md"}',
          },
          {
            type: "function_call_output",
            call_id: "call_R",
            output: "Error: no such file",
          },
        ]);
        assert.equal(accumulate(evs2).stopReason, StopReason.END_TURN);
      },
    );

    await t.step(
      "response.incomplete maps to MAX_TOKENS with usage",
      async () => {
        fake.reply({
          chunks: responsesSse([
            {
              type: "response.output_text.delta",
              item_id: "m",
              output_index: 0,
              delta: "Long",
            },
            {
              type: "response.incomplete",
              response: {
                id: "r",
                model: "gpt-4.1",
                status: "incomplete",
                incomplete_details: { reason: "max_output_tokens" },
                usage: { input_tokens: 5, output_tokens: 16, total_tokens: 21 },
              },
            },
          ]),
        });
        const acc = accumulate(
          await stream({ modelId: "gpt-4.1", messages: [user("hi")] }),
        );
        assert.equal(acc.stopReason, StopReason.MAX_TOKENS);
        assert.equal(acc.usages[0]?.outputTokens, 16n);
      },
    );

    await t.step(
      "MUST 1: response.failed and error events are classified in band",
      async () => {
        fake.reply({
          chunks: responsesSse([
            {
              type: "response.output_text.delta",
              item_id: "m",
              output_index: 0,
              delta: "Hal",
            },
            {
              type: "response.failed",
              response: {
                id: "r",
                status: "failed",
                error: { code: "rate_limit_exceeded", message: "Slow down" },
              },
            },
          ]),
        });
        let evs = await stream({ modelId: "gpt-4.1", messages: [user("hi")] });
        assert.equal(joined(evs, "textDelta"), "Hal");
        let e = evs.at(-1)!.event;
        assert.equal(
          e.case === "error" && e.value.error?.category,
          ModelErrorCategory.RATE_LIMITED,
        );
        fake.reply({
          chunks: responsesSse([
            {
              type: "error",
              code: "context_length_exceeded",
              message: "Your input exceeds the context window of this model.",
              param: "input",
            },
          ]),
        });
        evs = await stream({ modelId: "gpt-4.1", messages: [user("hi")] });
        e = evs.at(-1)!.event;
        assert.equal(
          e.case === "error" && e.value.error?.category,
          ModelErrorCategory.CONTEXT_LENGTH_EXCEEDED,
        );
        assert.equal(e.case === "error" && e.value.error?.retryable, false);
        // A stream cut before response.completed is an error, never a silent stop.
        fake.reply({
          chunks: responsesSse([
            {
              type: "response.output_text.delta",
              item_id: "m",
              output_index: 0,
              delta: "Cut",
            },
          ]),
        });
        evs = await stream({ modelId: "gpt-4.1", messages: [user("hi")] });
        e = evs.at(-1)!.event;
        assert.equal(e.case, "error");
        assert.match(
          e.case === "error" ? e.value.error!.message : "",
          /without response\.completed/,
        );
      },
    );

    await t.step(
      "stop_sequences are refused on the Responses API",
      async () => {
        await assert.rejects(
          stream({
            modelId: "gpt-4.1",
            messages: [user("hi")],
            params: { stopSequences: ["X"] },
          }),
          (e: unknown) =>
            e instanceof GrpcStatusError && e.code === Code.INVALID_ARGUMENT &&
            /invalid stop_sequences: the Responses API has no stop sequences/
              .test(e.message),
        );
      },
    );
  });
});
