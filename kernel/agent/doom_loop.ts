/**
 * The kernel-owned doom-loop detector (kernel.md §6.4): the hash of a call
 * is `sha256(provider.tool NUL canonical_json(input))`, where canonical JSON
 * sorts object keys recursively and has no insignificant whitespace, so the
 * key order the model chose cannot hide a repeat. `threshold` identical
 * consecutive hashes fire the detector.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { JsonValue } from "@bufbuild/protobuf";

/**
 * A JSON value with every object's keys sorted, recursively (a new value).
 *
 * @param value Any JSON value.
 * @returns The same value with sorted keys.
 */
export function sortJsonKeys<T extends JsonValue>(value: T): T {
  if (Array.isArray(value)) {
    return value.map((v) => sortJsonKeys(v)) as T;
  }
  if (value !== null && typeof value === "object") {
    const out: Record<string, JsonValue> = {};
    for (const k of Object.keys(value).sort()) {
      out[k] = sortJsonKeys((value as Record<string, JsonValue>)[k]!);
    }
    return out as T;
  }
  return value;
}

/**
 * Canonical JSON: recursively sorted keys, no insignificant whitespace.
 *
 * @example Usage
 * ```ts
 * import { canonicalJson } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * assert.equal(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: "x" } }),
 *   '{"a":{"c":"x","d":[2,{"e":0,"f":1}]},"b":1}');
 * ```
 *
 * @param value Any JSON value.
 * @returns The canonical text.
 */
export function canonicalJson(value: JsonValue | undefined): string {
  return JSON.stringify(sortJsonKeys(value ?? null));
}

/** A call as the doom-loop detector sees it. */
export interface HashedCall {
  /** The tool provider's local name. */
  readonly provider: string;
  /** The tool's name. */
  readonly tool: string;
  /** The parsed arguments. */
  readonly input: JsonValue | undefined;
}

/**
 * The doom-loop hash of one call.
 *
 * @param call Provider, tool and arguments.
 * @returns A hex SHA-256.
 */
export function callHash(call: HashedCall): string {
  return createHash("sha256")
    .update(`${call.provider}.${call.tool}\u0000${canonicalJson(call.input)}`)
    .digest("hex");
}

/**
 * Remembers the most recent call hashes of a session (resource and data
 * source calls, across turns) and reports when the last `threshold` are
 * identical.
 *
 * @example Usage
 * ```ts
 * import { DoomLoopDetector } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * const d = new DoomLoopDetector({ threshold: 3, windowSize: 5 });
 * d.record("h1"); d.record("h1");
 * assert.equal(d.fired, false);
 * d.record("h1");
 * assert.equal(d.fired, true);
 * ```
 */
export class DoomLoopDetector {
  readonly #threshold: number;
  readonly #windowSize: number;
  #window: string[] = [];

  /**
   * Creates a detector.
   *
   * @param settings Threshold and window size.
   */
  constructor(settings: { threshold: number; windowSize: number }) {
    this.#threshold = settings.threshold;
    this.#windowSize = Math.max(settings.windowSize, settings.threshold);
  }

  /**
   * Records one call's hash.
   *
   * @param hash The call's hash.
   */
  record(hash: string): void {
    this.#window.push(hash);
    if (this.#window.length > this.#windowSize) this.#window.shift();
  }

  /** The hashes kept, oldest first. */
  get window(): readonly string[] {
    return this.#window;
  }

  /** True when the last `threshold` recorded hashes are identical. */
  get fired(): boolean {
    const n = this.#threshold;
    if (this.#window.length < n) return false;
    const tail = this.#window.slice(-n);
    return tail.every((h) => h === tail[0]);
  }
}
