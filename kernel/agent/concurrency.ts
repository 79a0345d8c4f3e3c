/**
 * Tool-call scheduling within a turn (kernel.md §6.3): each call gets a
 * concurrency key from its tool's `ConcurrencySpec`; calls with distinct
 * keys run concurrently, calls with the same key run one after another in
 * declaration order.
 *
 * - `safe: true`: key `(provider, tool, values of key_fields)`; with no key
 *   fields the call never conflicts (no key).
 * - `safe: false` declared: a provider-wide lock.
 * - undeclared (`concurrency` absent): by kind — a data-source call never
 *   conflicts (conformance row 8, "concurrently by default, no declaration
 *   needed"), a resource call takes the provider-wide lock (row 9).
 * - interactive: always the one session-wide interactive lock (row 21); a
 *   declared spec is ignored.
 *
 * @module
 */
import type { JsonObject } from "@bufbuild/protobuf";
import {
  ToolKind,
  type ToolSchema,
} from "../../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import { canonicalJson } from "./doom_loop.ts";

/** The lock every interactive call takes. */
export const INTERACTIVE_LOCK = "\u0000interactive";

/**
 * The concurrency key of one call.
 *
 * @example Usage
 * ```ts
 * import { concurrencyKey } from "@ph/agent/kernel";
 * import { create } from "@bufbuild/protobuf";
 * import { ToolKind, ToolSchemaSchema } from "@ph/agent/proto/tool";
 * import assert from "node:assert/strict";
 *
 * const write = create(ToolSchemaSchema, {
 *   name: "write_file", kind: ToolKind.RESOURCE,
 *   concurrency: { safe: true, keyFields: ["path"] },
 * });
 * assert.notEqual(
 *   concurrencyKey(write, { provider: "fs", input: { path: "a" } }),
 *   concurrencyKey(write, { provider: "fs", input: { path: "b" } }),
 * );
 * ```
 *
 * @param schema The tool's schema.
 * @param call The tool provider's local name and the call's arguments.
 * @returns The key, or `undefined` when the call never conflicts.
 */
export function concurrencyKey(
  schema: ToolSchema,
  call: { readonly provider: string; readonly input: JsonObject },
): string | undefined {
  const { provider, input } = call;
  if (schema.kind === ToolKind.INTERACTIVE) return INTERACTIVE_LOCK;
  const spec = schema.concurrency;
  if (spec === undefined) {
    return schema.kind === ToolKind.DATA_SOURCE
      ? undefined
      : `${provider}\u0000*`;
  }
  if (!spec.safe) return `${provider}\u0000*`;
  if (spec.keyFields.length === 0) return undefined;
  const values = spec.keyFields.map((f) => input[f] ?? null);
  return `${provider}\u0000${schema.name}\u0000${canonicalJson(values)}`;
}

/**
 * Runs tasks so that tasks with the same key run one at a time, in the
 * order they were submitted, and tasks with different keys (or none) run
 * concurrently.
 *
 * @example Usage
 * ```ts
 * import { KeyedQueue } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * const q = new KeyedQueue();
 * const order: string[] = [];
 * await Promise.all([
 *   q.run("k", async () => { await new Promise((r) => setTimeout(r, 5)); order.push("a"); }),
 *   q.run("k", () => { order.push("b"); }),
 * ]);
 * assert.deepEqual(order, ["a", "b"]);
 * ```
 */
export class KeyedQueue {
  #tails = new Map<string, Promise<unknown>>();

  /**
   * Submits a task.
   *
   * @param key The key; `undefined` runs at once.
   * @param task The task.
   * @returns The task's result.
   */
  run<T>(key: string | undefined, task: () => Promise<T> | T): Promise<T> {
    if (key === undefined) return Promise.resolve().then(task);
    const prev = this.#tails.get(key) ?? Promise.resolve();
    const next = prev.then(task, task);
    const tail = next.catch(() => {});
    this.#tails.set(key, tail);
    tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return next;
  }
}
