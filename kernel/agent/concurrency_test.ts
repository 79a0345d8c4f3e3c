import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import {
  ToolKind,
  ToolSchemaSchema,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { concurrencyKey, INTERACTIVE_LOCK, KeyedQueue } from "./concurrency.ts";

const schema = (
  kind: ToolKind,
  concurrency?: { safe: boolean; keyFields?: string[] },
) =>
  create(ToolSchemaSchema, {
    name: "op",
    kind,
    ...(concurrency ? { concurrency } : {}),
  });

Deno.test("concurrencyKey() follows ConcurrencySpec, then the kind's default", () => {
  // Undeclared: data sources never conflict; resources take the provider lock.
  assert.equal(
    concurrencyKey(schema(ToolKind.DATA_SOURCE), { provider: "p", input: {} }),
    undefined,
  );
  assert.equal(
    concurrencyKey(schema(ToolKind.RESOURCE), { provider: "p", input: {} }),
    "p\u0000*",
  );
  // Declared: the spec governs, whatever the kind.
  assert.equal(
    concurrencyKey(schema(ToolKind.DATA_SOURCE, { safe: false }), {
      provider: "p",
      input: {},
    }),
    "p\u0000*",
  );
  assert.equal(
    concurrencyKey(schema(ToolKind.RESOURCE, { safe: true }), {
      provider: "p",
      input: {},
    }),
    undefined,
  );
  const keyed = schema(ToolKind.RESOURCE, { safe: true, keyFields: ["path"] });
  assert.equal(
    concurrencyKey(keyed, { provider: "p", input: { path: "a", x: 1 } }),
    concurrencyKey(keyed, { provider: "p", input: { x: 2, path: "a" } }),
  );
  assert.notEqual(
    concurrencyKey(keyed, { provider: "p", input: { path: "a" } }),
    concurrencyKey(keyed, { provider: "p", input: { path: "b" } }),
  );
  // Interactive: always the one lock, a declared spec is ignored.
  assert.equal(
    concurrencyKey(schema(ToolKind.INTERACTIVE, { safe: true }), {
      provider: "p",
      input: {},
    }),
    INTERACTIVE_LOCK,
  );
});

Deno.test("KeyedQueue runs the same key in order and different keys at once", async () => {
  const q = new KeyedQueue();
  const events: string[] = [];
  const task = (name: string, ms: number) => async () => {
    events.push(`start ${name}`);
    await new Promise((r) => setTimeout(r, ms));
    events.push(`end ${name}`);
  };
  await Promise.all([
    q.run("k", task("a", 15)),
    q.run("k", task("b", 1)),
    q.run("other", task("c", 1)),
    q.run(undefined, task("d", 1)),
  ]);
  assert.ok(events.indexOf("end a") < events.indexOf("start b"));
  assert.ok(events.indexOf("start c") < events.indexOf("end a"));
  assert.ok(events.indexOf("start d") < events.indexOf("end a"));
  // A failed task does not block its key.
  await assert.rejects(q.run("k", () => Promise.reject(new Error("x"))));
  assert.equal(await q.run("k", () => 1), 1);
});
