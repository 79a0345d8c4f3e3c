// The history count of a turn overlaps the model call when nothing in the
// assembly reads it (no context chain, no forced compaction): it starts
// once the answer streams, so neither a provider whose CountTokens is a
// network round trip (anthropic's count_tokens) nor one that counts in its
// own process (openai's tokenizer) delays the request. The fill is still reported, exactly, and
// a band crossing still reaches the model within the same turn.
import assert from "node:assert/strict";
import type {
  CountTokensRequest,
  StreamCompletionRequest,
} from "../../proto/gen/pluggableharness/model/v1/rpc_request_pb.ts";
import type { StreamEvent } from "../../proto/gen/pluggableharness/model/v1/events_pb.ts";
import type { EndpointCallOptions } from "./endpoints.ts";
import {
  collect,
  FakeModel,
  FakeTool,
  memoryStore,
  modelSpec,
  op,
  type ScriptedTurn,
  ToolKind,
} from "./_testing.ts";
import { runSession } from "./run_session.ts";
import type { SessionSpec } from "./session_spec.ts";

/**
 * A model whose CountTokens answers only once a completion has been
 * requested: a turn that awaited its count before the request would wait
 * for ever, so after a guard of 10 s (never reached when the count
 * overlaps) it answers with a marker count the test rejects.
 */
class LateCountModel extends FakeModel {
  readonly order: string[] = [];
  #requests = 0;
  #counts = 0;
  #requested = Promise.withResolvers<void>();

  constructor(script: ScriptedTurn[], contextWindow: bigint) {
    super("llm", script, { specs: [modelSpec("m1", { contextWindow })] });
  }

  countTokens(request: CountTokensRequest): Promise<number> {
    this.order.push("count");
    const words = request.messages.length * 1000;
    // The n-th count answers once the n-th request has been made.
    const nth = ++this.#counts;
    const ready = async (): Promise<void> => {
      while (this.#requests < nth) await this.#requested.promise;
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const guard = new Promise<number>((resolve) => {
      timer = setTimeout(() => resolve(-1), 10_000);
    });
    return Promise.race([ready().then(() => words), guard]).finally(() => {
      clearTimeout(timer);
    });
  }

  override async *streamCompletion(
    request: StreamCompletionRequest,
    options?: EndpointCallOptions,
  ): AsyncGenerator<StreamEvent> {
    this.order.push("request");
    this.#requests++;
    this.#requested.resolve();
    this.#requested = Promise.withResolvers<void>();
    yield* super.streamCompletion(request, options);
  }
}

Deno.test("a turn's history count overlaps the model request when no context chain needs it, and the fill is still reported", async () => {
  // 1000 tokens per message counted, a 3000-token window: the history
  // crosses into filling, then near_full.
  const model = new LateCountModel([
    { toolCalls: [{ name: "read_file", input: { path: "a" } }] },
    { text: "done" },
  ], 3000n);
  const tool = new FakeTool("fs", [{
    schema: op("read_file", ToolKind.DATA_SOURCE, {
      concurrency: { safe: true },
    }),
  }]);
  const spec: SessionSpec = {
    profile: "test",
    models: [{ provider: "llm", id: "m1" }],
    tools: new Map([["fs", tool.toolSchemas]]),
    hooks: [],
    workingDirectory: "/work",
    controlPlane: { disable: ["time", "permission-context"] },
  };
  const { result, events } = await collect(runSession(spec, {
    store: memoryStore(),
    models: new Map([["llm", model]]),
    tools: new Map([["fs", tool]]),
    hooks: new Map(),
    random: () => 0,
  }, { prompt: "go" }));
  assert.equal(result.status, "completed");
  assert.equal(result.finalText, "done");
  // Each count starts once the answer streams: the request goes first, so
  // a provider that counts in its own process never holds it back.
  assert.deepEqual(model.order, [
    "request",
    "count",
    "request",
    "count",
  ]);
  const usage = events.flatMap((e) => e.type === "context_usage" ? [e] : []);
  assert.ok(usage.length > 0, "the fill was reported");
  for (const u of usage) {
    assert.ok(u.used > 0, `a real count, not the guard's: ${u.used}`);
    assert.equal(u.exact, true);
  }
  assert.equal(usage.at(-1)!.band, "near_full");
  // A band crossing reaches the model in the next round the turn runs
  // anyway (context-usage does not continue a turn by itself), as when the
  // count was awaited first.
  const seen = model.requests.map((r) =>
    JSON.stringify(r.messages).includes("cp:context-usage")
  );
  assert.deepEqual(seen, [false, true]);
});

/**
 * A model that answers its second and later requests only once that
 * request's history count has been asked for: a count that started only
 * at the answer's first event would never come, so after a guard of 10 s
 * (never reached when the count starts on send) it answers anyway and
 * notes the guard.
 */
class CountFirstModel extends FakeModel {
  readonly order: string[] = [];
  #counts = 0;
  #counted = Promise.withResolvers<void>();

  constructor(script: ScriptedTurn[]) {
    super("llm", script, {
      specs: [modelSpec("m1", { contextWindow: 1_000_000n })],
    });
  }

  countTokens(request: CountTokensRequest): Promise<number> {
    this.order.push("count");
    this.#counts++;
    this.#counted.resolve();
    this.#counted = Promise.withResolvers<void>();
    return Promise.resolve(request.messages.length * 10);
  }

  override async *streamCompletion(
    request: StreamCompletionRequest,
    options?: EndpointCallOptions,
  ): AsyncGenerator<StreamEvent> {
    this.order.push("request");
    const nth = this.requests.length + 1;
    if (nth >= 2) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const guard = new Promise<"guard">((resolve) => {
        timer = setTimeout(() => resolve("guard"), 10_000);
      });
      const counted = (async () => {
        while (this.#counts < nth) await this.#counted.promise;
        return "counted" as const;
      })();
      const how = await Promise.race([counted, guard]).finally(() =>
        clearTimeout(timer)
      );
      if (how === "guard") this.order.push("guard");
    }
    yield* super.streamCompletion(request, options);
  }
}

Deno.test("once a model's first history count has landed, a later count starts when the request is handed over, before the answer's first event", async () => {
  const model = new CountFirstModel([
    { toolCalls: [{ name: "read_file", input: { path: "a" } }] },
    { toolCalls: [{ name: "read_file", input: { path: "b" } }] },
    { text: "done" },
  ]);
  const tool = new FakeTool("fs", [{
    schema: op("read_file", ToolKind.DATA_SOURCE, {
      concurrency: { safe: true },
    }),
  }]);
  const spec: SessionSpec = {
    profile: "test",
    models: [{ provider: "llm", id: "m1" }],
    tools: new Map([["fs", tool.toolSchemas]]),
    hooks: [],
    workingDirectory: "/work",
    controlPlane: { disable: ["time", "permission-context"] },
  };
  const { result } = await collect(runSession(spec, {
    store: memoryStore(),
    models: new Map([["llm", model]]),
    tools: new Map([["fs", tool]]),
    hooks: new Map(),
    random: () => 0,
  }, { prompt: "go" }));
  assert.equal(result.status, "completed");
  assert.equal(result.finalText, "done");
  // The request still goes first (a provider that counts in its own
  // process never holds it back), and no answer waited for the guard.
  assert.deepEqual(model.order, [
    "request",
    "count",
    "request",
    "count",
    "request",
    "count",
  ]);
});
