/**
 * The scripted model provider through a real plugin subprocess: the
 * capability envelope, Configure and script validation, turn selection,
 * streaming shapes, scripted failures, cancellation, CountTokens, and the
 * §6.1 MUST list as it applies to a plugin.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import {
  create,
  type JsonObject,
  type MessageInitShape,
} from "@bufbuild/protobuf";
import { configure, type LogRecord, reset } from "@logtape/logtape";
import { PluginHost } from "../../kernel/mod.ts";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";
import { Category } from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import { AttrType } from "../../proto/gen/pluggableharness/config/v1/types_pb.ts";
import {
  type ContentBlockSchema,
  type Message,
  MessageSchema,
  Role,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import { ModelErrorCategory } from "../../proto/gen/pluggableharness/model/v1/errors_pb.ts";
import type { StreamEvent } from "../../proto/gen/pluggableharness/model/v1/events_pb.ts";
import type { StreamCompletionRequestSchema } from "../../proto/gen/pluggableharness/model/v1/rpc_request_pb.ts";
import { ModelService } from "../../proto/gen/pluggableharness/model/v1/service_pb.ts";
import {
  StopReason,
  ThinkingDisableSupport,
  ToolChoiceMode,
} from "../../proto/gen/pluggableharness/model/v1/types_pb.ts";
import { readManifest } from "../sdk/mod.ts";

const PATH = Deno.env.get("PATH") ?? "/usr/bin:/bin";
const ENTRY = fileURLToPath(new URL("./main.ts", import.meta.url));

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
const assistant = (text: string) =>
  msg(Role.ASSISTANT, { case: "text", value: { text } });
const toolResult = (id: string, text: string) =>
  msg(Role.USER, {
    case: "toolResult",
    value: {
      toolUseId: id,
      content: [{ block: { case: "text", value: { text } } }],
      isError: false,
    },
  });

/** The demo-like script: read, then write, then answer. */
const SCRIPT = {
  description: "A session that reads a file, writes another and answers.",
  model: {
    id: "scripted-sonnet",
    context_window: 100000,
    max_output_tokens: 4096,
    supports_tool_use: true,
    supports_vision: false,
    supports_parallel_tool_calls: false,
    pricing: {
      tiers: [
        {
          input_per_mtok: 3,
          output_per_mtok: 15,
          cache_read_per_mtok: 0.3,
          cache_write_per_mtok: 3.75,
          input_tokens_until: 50000,
        },
        {
          input_per_mtok: 6,
          output_per_mtok: 22.5,
          cache_read_per_mtok: 0.6,
          cache_write_per_mtok: 7.5,
          input_tokens_from: 50000,
        },
      ],
    },
    thinking: {
      supported: true,
      effort: { levels: ["low", "medium", "high"], default: "medium" },
      budget: { min: 1024, max: 32000 },
      adaptive_by_default: false,
      disable: "always",
    },
    caching: {
      supported: true,
      explicit_markers: true,
      implicit_automatic: false,
      keepalive_supported: false,
    },
  },
  turns: [
    {
      expect: "summarize",
      thinking: "I should read the README first.",
      text: "Let me read the README.",
      tool_calls: [{
        id: "toolu_1",
        name: "read_file",
        arguments: { path: "README.md", offset: 1, limit: 40 },
      }],
      usage: {
        input_tokens: 1200,
        output_tokens: 40,
        cache_write_tokens: 1000,
        reasoning_tokens: 8,
      },
    },
    {
      expect: "# Project",
      text: "Now I will write the summary.",
      tool_calls: [{
        name: "write_file",
        arguments: {
          path: "SUMMARY.md",
          content: "# Summary\n\nIt works — ✓\n",
        },
      }],
      usage: { input_tokens: 1400, output_tokens: 60, cache_read_tokens: 1000 },
    },
    {
      text: "Done: SUMMARY.md has the summary.",
      usage: { input_tokens: 1500, output_tokens: 9 },
      delay_ms: 1,
    },
  ],
};

Deno.test("scripted model provider, through a real plugin subprocess", async (t) => {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-scripted-test-" }),
  );
  const records: LogRecord[] = [];
  await configure({
    reset: true,
    sinks: { capture: (r) => records.push(r) },
    loggers: [
      { category: ["ph-agent"], lowestLevel: "info", sinks: ["capture"] },
      { category: ["logtape", "meta"], lowestLevel: "warning", sinks: [] },
    ],
  });
  const streams: StreamEvent[][] = [];
  try {
    await using host = new PluginHost({ env: { PATH }, cwd: dir });
    const manifest = await readManifest(
      new URL("./plugin.json", import.meta.url),
    );
    const plugin = await host.launch({
      manifest,
      entrypoint: ENTRY,
      grant: { read: [dir] },
    });
    const model = plugin.client(ModelService);
    const scriptPath = `${dir}/script.json`;
    await Deno.writeTextFile(scriptPath, JSON.stringify(SCRIPT, null, 2));
    const callContext = {
      sessionId: "01SESSION",
      turnId: "01TURN",
      workingDirectory: dir,
    };

    const stream = async (
      req: Request,
      signal?: AbortSignal,
    ): Promise<StreamEvent[]> => {
      const out: StreamEvent[] = [];
      for await (
        const ev of model.streamCompletion(
          { callContext, ...req },
          signal ? { signal } : {},
        )
      ) out.push(ev);
      streams.push(out);
      return out;
    };
    const text = (evs: StreamEvent[], kind = "textDelta") =>
      evs.flatMap((e) =>
        e.event.case === kind ? [(e.event.value as { text: string }).text] : []
      ).join("");
    const modelError = (evs: StreamEvent[]) => {
      const last = evs.at(-1)?.event;
      assert.equal(last?.case, "error", `an error ends the stream`);
      assert.ok(last.value.error);
      return last.value.error;
    };
    const configureScript = (turns: unknown, modelOverride: JsonObject = {}) =>
      model.configure({
        config: {
          turns_json: JSON.stringify({ model: modelOverride, turns }),
        },
      });

    await t.step(
      "MUST 6, 24: GetCapabilities is cheap and complete before Configure (the default model)",
      async () => {
        const { capabilities } = await model.getCapabilities({});
        assert.deepEqual(capabilities?.models.map((m) => m.id), ["scripted"]);
        assert.deepEqual(capabilities?.supportedHookPoints, []);
        assert.deepEqual(
          capabilities?.configSchema?.attributes.map((a) => [
            a.name,
            a.type,
            a.required,
            a.sensitive,
          ]),
          [
            ["script", AttrType.STRING, false, false],
            ["turns_json", AttrType.STRING, false, false],
          ],
        );
        const spec = capabilities!.models[0]!;
        assert.equal(spec.pricing?.currency, "USD");
        assert.deepEqual(
          spec.pricing?.tiers.map((x) => [x.inputPerMtok, x.outputPerMtok]),
          [[3, 15]],
        );
        // Not configured: streaming is refused with a status, not a guess.
        await assert.rejects(
          stream({ modelId: "scripted", messages: [user("hi")] }),
          (e: unknown) =>
            e instanceof GrpcStatusError &&
            e.code === Code.FAILED_PRECONDITION &&
            /not configured/.test(e.message),
        );
      },
    );

    await t.step(
      "MUST 7: Configure rejects missing config and invalid scripts up front, naming turn and field",
      async () => {
        const rejects = (config: JsonObject, pattern: RegExp) =>
          assert.rejects(
            model.configure({ config }),
            (e: unknown) =>
              e instanceof GrpcStatusError &&
              e.code === Code.INVALID_ARGUMENT &&
              pattern.test(e.message),
            `rejects ${JSON.stringify(config)} with ${pattern}`,
          );
        await rejects(
          {},
          /"script" \(a path\) or "turns_json" \(inline JSON\) is required/,
        );
        await rejects(
          { script: scriptPath, turns_json: "[]" },
          /"script" and "turns_json" are exclusive/,
        );
        await rejects({ scirpt: "x" }, /"scirpt" is not supported/);
        await rejects(
          { script: "no-such-script.json" },
          /cannot read script "no-such-script.json": the file does not exist/,
        );
        await rejects(
          { script: `${dir}/missing.json` },
          /cannot read script ".*missing.json": the file does not exist/,
        );
        await rejects(
          { script: "/etc/hostname" },
          /cannot read script "\/etc\/hostname": missing read permission .*allow_read/,
        );
        await rejects(
          { turns_json: "{" },
          /Invalid script turns_json: 1 problem:\n {2}- not valid JSON/,
        );
        await rejects(
          {
            turns_json: JSON.stringify([
              { text: "fine" },
              { tool_calls: [{ name: "" }] },
              { stop: "sideways", text: "x" },
            ]),
          },
          /2 problems:\n {2}- turns\[1\]\.tool_calls\[0\]\.name: must be a non-empty string\n {2}- turns\[2\]\.stop: must be one of "end_turn", "tool_use", "max_tokens", "content_filtered", "refusal", "stop_sequence", got "sideways"/,
        );
      },
    );

    await t.step(
      "MUST 5: implements GetCapabilities, Configure, StreamCompletion and Describe",
      async () => {
        await model.configure({ config: { script: scriptPath } });
        const d = await model.describe({});
        assert.deepEqual(
          [
            d.producer?.name,
            d.producer?.source,
            d.producer?.category,
            d.producer?.protocolVersion,
          ],
          ["scripted", "builtin:scripted", Category.MODEL, 1],
        );
        const evs = await stream({
          modelId: "scripted-sonnet",
          messages: [user("Please summarize the README")],
        });
        assert.equal(text(evs), "Let me read the README.");
      },
    );

    await t.step(
      "MUST 12, 13, 15, 21, 22: the script's ModelSpec with pricing tiers, thinking and caching axes",
      async () => {
        const { capabilities } = await model.getCapabilities({});
        assert.equal(capabilities?.models.length, 1);
        const spec = capabilities!.models[0]!;
        assert.equal(spec.id, "scripted-sonnet");
        assert.equal(spec.contextWindow, 100000n);
        assert.equal(spec.maxOutputTokens, 4096n);
        assert.equal(spec.supportsToolUse, true);
        assert.equal(spec.supportsVision, false);
        assert.equal(spec.supportsDocuments, false);
        assert.equal(spec.supportsStreaming, true);
        assert.equal(spec.supportsParallelToolCalls, false);
        assert.deepEqual(spec.supportedToolChoiceModes, [
          ToolChoiceMode.AUTO,
          ToolChoiceMode.ANY,
          ToolChoiceMode.NONE,
          ToolChoiceMode.SPECIFIC,
        ]);
        assert.deepEqual(
          {
            supported: spec.thinking?.supported,
            levels: spec.thinking?.effort?.levels,
            default: spec.thinking?.effort?.default,
            range: [
              spec.thinking?.budget?.range?.min,
              spec.thinking?.budget?.range?.max,
            ],
            budgetDefault: spec.thinking?.budget?.default,
            adaptive: spec.thinking?.adaptiveByDefault,
            disable: spec.thinking?.disable,
          },
          {
            supported: true,
            levels: ["low", "medium", "high"],
            default: "medium",
            range: [1024n, 32000n],
            budgetDefault: undefined,
            adaptive: false,
            disable: ThinkingDisableSupport.ALWAYS,
          },
        );
        assert.deepEqual(
          [
            spec.caching?.supported,
            spec.caching?.explicitMarkers,
            spec.caching?.implicitAutomatic,
            spec.caching?.keepaliveSupported,
          ],
          [true, true, false, false],
        );
        assert.equal(spec.pricing?.currency, "USD");
        assert.equal(spec.pricing?.free, false);
        assert.deepEqual(
          spec.pricing?.tiers.map((x) => [
            x.inputPerMtok,
            x.outputPerMtok,
            x.cacheReadPerMtok,
            x.cacheWritePerMtok,
            x.inputTokensFrom,
            x.inputTokensUntil,
          ]),
          [
            [3, 15, 0.3, 3.75, undefined, 50000n],
            [6, 22.5, 0.6, 7.5, 50000n, undefined],
          ],
        );
      },
    );

    await t.step(
      "turn selection: the turn index is the number of assistant messages (a resumed history continues)",
      async () => {
        // Out of order, and each from a fresh history: nothing depends on state.
        const third = await stream({
          modelId: "scripted-sonnet",
          messages: [
            user("Please summarize the README"),
            assistant("Let me read the README."),
            toolResult("toolu_1", "# Project\nA thing."),
            assistant("Now I will write the summary."),
            toolResult("call_1_0", "written"),
          ],
        });
        assert.equal(text(third), "Done: SUMMARY.md has the summary.");
        const first = await stream({
          modelId: "scripted-sonnet",
          messages: [user("Please summarize the README")],
        });
        assert.equal(text(first), "Let me read the README.");
        assert.equal(
          text(first, "thinkingDelta"),
          "I should read the README first.",
        );
        const second = await stream({
          modelId: "scripted-sonnet",
          messages: [
            user("Please summarize the README"),
            assistant("Let me read the README."),
            toolResult("toolu_1", "# Project\nA thing."),
          ],
        });
        assert.equal(text(second), "Now I will write the summary.");
      },
    );

    await t.step(
      "MUST 3, 4: text streams as several deltas, then usage, then exactly one stop",
      async () => {
        const evs = await stream({
          modelId: "scripted-sonnet",
          messages: [user("Please summarize the README")],
        });
        const kinds = evs.map((e) => e.event.case);
        assert.ok(kinds.filter((k) => k === "textDelta").length >= 5);
        assert.deepEqual(kinds.slice(-2), ["usage", "stop"]);
        const usage = evs.at(-2)!.event;
        assert.equal(usage.case, "usage");
        assert.deepEqual(
          [
            usage.value.inputTokens,
            usage.value.outputTokens,
            usage.value.cacheWriteTokens,
            usage.value.cacheReadTokens,
            usage.value.reasoningTokens,
          ],
          [1200n, 40n, 1000n, undefined, 8n],
        );
        const stop = evs.at(-1)!.event;
        assert.equal(stop.case, "stop");
        assert.equal(stop.value.reason, StopReason.TOOL_USE);
      },
    );

    await t.step(
      "MUST 9: tool-call argument fragments reassemble to the scripted JSON",
      async () => {
        const cases: [
          Message[],
          { id: string; name: string; arguments: unknown },
        ][] = [
          [
            [user("Please summarize the README")],
            { id: "toolu_1", ...SCRIPT.turns[0]!.tool_calls![0]! },
          ],
          [
            [
              user("Please summarize the README"),
              assistant("x"),
              toolResult("toolu_1", "# Project"),
            ],
            { id: "call_1_0", ...SCRIPT.turns[1]!.tool_calls![0]! },
          ],
        ];
        for (const [messages, expected] of cases) {
          const evs = await stream({
            modelId: "scripted-sonnet",
            messages: [...messages],
          });
          const calls = evs.filter((e) =>
            String(e.event.case).startsWith("toolCall")
          );
          assert.equal(calls[0]?.event.case, "toolCallStart");
          assert.equal(calls.at(-1)?.event.case, "toolCallDone");
          const start = calls[0]!.event;
          assert.equal(start.case, "toolCallStart");
          assert.deepEqual([start.value.id, start.value.name], [
            expected.id,
            expected.name,
          ]);
          const fragments = calls.flatMap((e) =>
            e.event.case === "toolCallDelta" ? [e.event.value] : []
          );
          assert.ok(fragments.length >= 2, "several fragments");
          assert.ok(fragments.every((f) => f.id === expected.id));
          assert.deepEqual(
            JSON.parse(fragments.map((f) => f.argumentsFragment).join("")),
            expected.arguments,
          );
        }
      },
    );

    await t.step(
      "expect: a kernel that sent the wrong history gets INVALID_REQUEST naming the mismatch",
      async () => {
        const evs = await stream({
          modelId: "scripted-sonnet",
          messages: [
            user("Please summarize the README"),
            assistant("Let me read the README."),
            toolResult("toolu_1", "permission denied"),
          ],
        });
        assert.equal(evs.length, 1, "nothing but the error");
        const err = modelError(evs);
        assert.equal(err.category, ModelErrorCategory.INVALID_REQUEST);
        assert.equal(err.retryable, false);
        assert.equal(
          err.message,
          `turn 1 expects the last user message to contain "# Project", but it reads "permission denied"`,
        );
      },
    );

    await t.step(
      "past the end of the script: INVALID_REQUEST naming the turn",
      async () => {
        const err = modelError(
          await stream({
            modelId: "scripted-sonnet",
            messages: [
              user("a"),
              assistant("1"),
              user("b"),
              assistant("2"),
              user("c"),
              assistant("3"),
              user("d"),
            ],
          }),
        );
        assert.equal(err.category, ModelErrorCategory.INVALID_REQUEST);
        assert.match(err.message, /^the script has no turn 3: it has 3 turns/);
      },
    );

    await t.step(
      "MUST 1, 2: scripted failures are classified ModelErrors with category, message, retryable",
      async () => {
        await configureScript([
          {
            error: {
              category: "overloaded",
              message: "busy",
              retry_after_ms: 2000,
            },
          },
        ]);
        let err = modelError(
          await stream({ modelId: "scripted", messages: [user("x")] }),
        );
        assert.deepEqual(
          [err.category, err.message, err.retryable, err.retryAfter?.seconds],
          [ModelErrorCategory.OVERLOADED, "busy", true, 2n],
        );
        await configureScript([
          {
            text: "Partial answer",
            error: {
              category: "unknown",
              message: "stream reset",
              raw_detail: "RST_STREAM 2",
            },
          },
        ]);
        const evs = await stream({
          modelId: "scripted",
          messages: [user("x")],
        });
        assert.deepEqual(evs.map((e) => e.event.case), [
          "textDelta",
          "textDelta",
          "error",
        ]);
        err = modelError(evs);
        assert.deepEqual(
          [err.category, err.retryable, err.rawDetail],
          [ModelErrorCategory.UNKNOWN, false, "RST_STREAM 2"],
        );
        err = modelError(
          await stream({ modelId: "other", messages: [user("x")] }),
        );
        assert.equal(err.category, ModelErrorCategory.INVALID_REQUEST);
        assert.equal(
          err.message,
          `unknown model "other": this script serves "scripted"`,
        );
      },
    );

    await t.step(
      "MUST 10, 11: images and documents are rejected cleanly when not declared",
      async () => {
        await configureScript([{ text: "I see" }]);
        const image = modelError(
          await stream({
            modelId: "scripted",
            messages: [msg(Role.USER, {
              case: "image",
              value: {
                data: new Uint8Array([137, 80]),
                mediaType: "image/png",
              },
            })],
          }),
        );
        assert.equal(image.category, ModelErrorCategory.INVALID_REQUEST);
        assert.match(
          image.message,
          /has an image, but model "scripted" does not support vision/,
        );
        const doc = modelError(
          await stream({
            modelId: "scripted",
            messages: [msg(Role.USER, {
              case: "document",
              value: {
                data: new Uint8Array([37]),
                mediaType: "application/pdf",
              },
            })],
          }),
        );
        assert.match(
          doc.message,
          /has a document, but model "scripted" does not support documents/,
        );
        await configureScript([{ text: "I see" }], { supports_vision: true });
        const ok = await stream({
          modelId: "scripted",
          messages: [msg(Role.USER, {
            case: "image",
            value: { data: new Uint8Array([137, 80]), mediaType: "image/png" },
          })],
        });
        assert.equal(text(ok), "I see");
      },
    );

    await t.step(
      "MUST 16, 17: cache breakpoints and provider_options are accepted and ignored",
      async () => {
        const evs = await stream({
          modelId: "scripted",
          messages: [user("x")],
          cacheBreakpoints: [{
            position: { case: "afterMessageIndex", value: 0n },
          }],
          providerOptions: { vendor_knob: 1 },
        });
        assert.equal(evs.at(-1)?.event.case, "stop");
      },
    );

    await t.step(
      "MUST 8: cancellation mid-stream stops the plugin at once, as normal control flow",
      async () => {
        const words = Array.from({ length: 200 }, (_, i) => `w${i}`).join(" ");
        await configureScript([{ text: words, delay_ms: 20 }]);
        const ac = new AbortController();
        const got: StreamEvent[] = [];
        const started = performance.now();
        await assert.rejects(
          (async () => {
            for await (
              const ev of model.streamCompletion(
                { callContext, modelId: "scripted", messages: [user("go")] },
                { signal: ac.signal },
              )
            ) {
              got.push(ev);
              if (got.length === 3) ac.abort();
            }
          })(),
          (e: unknown) =>
            (e instanceof GrpcStatusError && e.code === Code.CANCELLED) ||
            (e instanceof Error && e.name === "AbortError"),
        );
        assert.ok(got.length <= 4, `stopped after ${got.length} events`);
        // The plugin noticed at once (not after the 200 × 20 ms = 4 s turn).
        const deadline = Date.now() + 2000;
        let cancelled: LogRecord | undefined;
        while (!cancelled && Date.now() < deadline) {
          cancelled = records.find((r) =>
            /^turn 0 cancelled after \d+ of 202 events$/.test(
              String(r.properties.message ?? r.message.join("")),
            )
          );
          if (!cancelled) await new Promise((r) => setTimeout(r, 20));
        }
        assert.ok(cancelled, "the plugin logged the cancellation");
        assert.ok(Number(cancelled.properties.delivered) <= 4);
        assert.ok(performance.now() - started < 1500);
        // The plugin is healthy and serves the next request.
        await configureScript([{ text: "after" }]);
        assert.equal(
          text(await stream({ modelId: "scripted", messages: [user("x")] })),
          "after",
        );
      },
    );

    await t.step(
      "CountTokens is exact by the scripted tokenizer, and needs model_id (MUST 20)",
      async () => {
        const res = await model.countTokens({
          modelId: "scripted",
          messages: [user("one two three"), assistant("four five")],
          assembledContext: [{
            provider: "p",
            label: "l",
            content: [{
              block: { case: "text", value: { text: "six seven" } },
            }],
          }],
          tools: [{ name: "read_file", description: "Reads a file" }],
        });
        assert.equal(res.count, 5n + 2n + 1n + 3n);
        await assert.rejects(
          model.countTokens({ messages: [user("x")] }),
          (e: unknown) =>
            e instanceof GrpcStatusError && e.code === Code.INVALID_ARGUMENT &&
            /needs model_id/.test(e.message),
        );
      },
    );

    await t.step("Render and GetAccount answer UNIMPLEMENTED", async () => {
      for (const call of [() => model.render({}), () => model.getAccount({})]) {
        await assert.rejects(
          call(),
          (e: unknown) =>
            e instanceof GrpcStatusError && e.code === Code.UNIMPLEMENTED,
        );
      }
    });

    await t.step(
      "every stream has at most one terminal event, and it is last",
      () => {
        assert.ok(streams.length >= 15);
        for (const s of streams) {
          const terminal = s.filter((e) =>
            e.event.case === "stop" || e.event.case === "error"
          );
          assert.equal(terminal.length, 1);
          assert.equal(s.at(-1), terminal[0]);
          const usage = s.findIndex((e) => e.event.case === "usage");
          if (s.at(-1)?.event.case === "stop") {
            assert.equal(usage, s.length - 2, "usage comes right before stop");
          }
        }
      },
    );

    await plugin.close();
  } finally {
    await reset();
    await Deno.remove(dir, { recursive: true });
  }
});
