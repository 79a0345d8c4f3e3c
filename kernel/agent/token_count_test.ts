import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import {
  ContentBlockSchema,
  type Message,
  MessageSchema,
  Role,
} from "../../proto/gen/pluggableharness/content/v1/types_pb.ts";
import type { CountTokensRequest } from "../../proto/gen/pluggableharness/model/v1/rpc_request_pb.ts";
import type { ModelEndpoint } from "./endpoints.ts";
import { HistoryTokenCounter } from "./token_count.ts";

function message(role: Role, text: string): Message {
  return create(MessageSchema, {
    role,
    content: [create(ContentBlockSchema, {
      block: { case: "text", value: { text } },
    })],
  });
}

/** A provider counting one token per word plus 3 per request, recording each request. */
function wordCounter(): {
  endpoint: ModelEndpoint;
  seen: CountTokensRequest[];
  fail: { next: boolean };
} {
  const seen: CountTokensRequest[] = [];
  const fail = { next: false };
  const endpoint: ModelEndpoint = {
    identity: {
      category: "model",
      name: "words",
      version: "0.1.0",
      source: "builtin:words",
    },
    capabilities: () => Promise.reject(new Error("not used")),
    streamCompletion: () => {
      throw new Error("not used");
    },
    countTokens: (request) => {
      seen.push(request);
      if (fail.next) {
        fail.next = false;
        return Promise.reject(new Error("vendor down"));
      }
      let n = 3;
      for (const m of request.messages) {
        for (const b of m.content) {
          if (b.block.case === "text") {
            n += b.block.value.text.split(" ").length;
          }
        }
      }
      return Promise.resolve(n);
    },
  };
  return { endpoint, seen, fail };
}

const MODEL = { provider: "words", modelId: "w1" };

Deno.test("HistoryTokenCounter asks the provider only about the messages new since the last count", async () => {
  const { endpoint, seen } = wordCounter();
  const models = new Map([["words", endpoint]]);
  const counter = new HistoryTokenCounter();
  const history = [message(Role.USER, "read the readme please")];
  assert.deepEqual(
    await counter.count(models, { ...MODEL, messages: history }),
    {
      count: 3 + 4,
      exact: true,
    },
  );
  history.push(
    message(Role.ASSISTANT, "here it is"),
    message(Role.USER, "thanks"),
  );
  assert.deepEqual(
    await counter.count(models, { ...MODEL, messages: history }),
    {
      count: 7 + 3 + 3 + 1,
      exact: true,
    },
  );
  assert.equal(seen.length, 2);
  assert.deepEqual(seen[1]!.messages, history.slice(1));
  assert.equal(seen[1]!.modelId, "w1");
  // Nothing new: no request at all.
  assert.deepEqual(
    await counter.count(models, { ...MODEL, messages: history }),
    {
      count: 14,
      exact: true,
    },
  );
  assert.equal(seen.length, 2);
  assert.equal(counter.requests, 2);
});

Deno.test("HistoryTokenCounter recounts from the first replaced message, and from the start for another model", async () => {
  const { endpoint, seen } = wordCounter();
  const models = new Map([["words", endpoint]]);
  const counter = new HistoryTokenCounter();
  const a = message(Role.USER, "one two");
  const b = message(Role.ASSISTANT, "three");
  const c = message(Role.USER, "four five six");
  await counter.count(models, { ...MODEL, messages: [a] });
  await counter.count(models, { ...MODEL, messages: [a, b, c] });
  // A compaction (or a control block appended to the last user message)
  // replaces messages: the runs from there on are counted again.
  const summary = message(Role.USER, "summary");
  assert.deepEqual(
    await counter.count(models, { ...MODEL, messages: [summary, c] }),
    { count: 3 + 1 + 3, exact: true },
  );
  assert.deepEqual(seen.at(-1)!.messages, [summary, c]);
  const c2 = message(Role.USER, "four five six seven");
  assert.deepEqual(
    await counter.count(models, { ...MODEL, messages: [summary, c2] }),
    { count: 3 + 1 + 4, exact: true },
  );
  assert.deepEqual(seen.at(-1)!.messages, [summary, c2]);
  // Another model: nothing counted for it yet.
  await counter.count(models, {
    ...MODEL,
    modelId: "w2",
    messages: [summary, c2],
  });
  assert.deepEqual(seen.at(-1)!.messages, [summary, c2]);
  assert.equal(seen.at(-1)!.modelId, "w2");
  assert.equal(seen.length, 5);
});

Deno.test("HistoryTokenCounter is exact only when every part is, and asks again after a provider failure", async () => {
  const { endpoint, seen, fail } = wordCounter();
  const models = new Map([["words", endpoint]]);
  const counter = new HistoryTokenCounter();
  const a = message(Role.USER, "one two");
  const b = message(Role.ASSISTANT, "three four five six seven eight");
  await counter.count(models, { ...MODEL, messages: [a] });
  fail.next = true;
  // The failed part falls back to ceil(utf8 bytes / 4), not exact.
  assert.deepEqual(
    await counter.count(models, { ...MODEL, messages: [a, b] }),
    {
      count: 5 +
        Math.ceil(
          new TextEncoder().encode("three four five six seven eight").length /
            4,
        ),
      exact: false,
    },
  );
  // The fallback is not kept: the next turn asks about b again.
  const c = message(Role.USER, "nine");
  assert.deepEqual(
    await counter.count(models, { ...MODEL, messages: [a, b, c] }),
    {
      count: 5 + 3 + 6 + 1,
      exact: true,
    },
  );
  assert.deepEqual(seen.at(-1)!.messages, [b, c]);
  // A provider with no tokenizer: the fallback formula, never exact.
  const none = new HistoryTokenCounter();
  assert.deepEqual(
    await none.count(new Map(), { ...MODEL, messages: [a, b, c] }),
    {
      count: Math.ceil(
        new TextEncoder().encode("one twothree four five six seven eightnine")
          .length / 4,
      ),
      exact: false,
    },
  );
  assert.equal(none.requests, 0);
});

Deno.test("HistoryTokenCounter cancels with its signal", async () => {
  const models = new Map<string, ModelEndpoint>([["words", {
    ...wordCounter().endpoint,
    countTokens: (_req, options) =>
      new Promise((_resolve, reject) => {
        options?.signal?.addEventListener("abort", () =>
          reject(new Error("aborted")));
      }),
  }]]);
  const counter = new HistoryTokenCounter();
  const ac = new AbortController();
  const counting = counter.count(models, {
    ...MODEL,
    messages: [message(Role.USER, "x")],
  }, ac.signal);
  ac.abort();
  await assert.rejects(counting, /aborted/);
});
