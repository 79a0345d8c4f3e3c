/**
 * The values {@linkcode evaluate} produces: plain JSON-like data plus an
 * opaque {@linkcode Secret} for anything derived from `env()`.
 *
 * | HCL       | Value                                   | type name |
 * |-----------|-----------------------------------------|-----------|
 * | string    | `string`                                | `string`  |
 * | number    | `number` (a finite double)              | `number`  |
 * | bool      | `boolean`                               | `bool`    |
 * | null      | `null`                                  | `null`    |
 * | tuple     | `Value[]`                               | `list`    |
 * | object    | `{ [key: string]: Value }` (own keys)   | `object`  |
 * | sensitive | {@linkcode Secret} wrapping any of them | inner's   |
 *
 * @module
 */

const REDACTED = "(sensitive)";

/**
 * A sensitive value. Its `toString`, `toJSON` and inspection all print
 * `(sensitive)`; only {@linkcode Secret.prototype.reveal} returns the value,
 * so that logging or serialising a plan cannot leak it by accident.
 *
 * @example Usage
 * ```ts
 * import { Secret } from "./mod.ts";
 * import assert from "node:assert/strict";
 * const s = new Secret("sk-live-123");
 * assert.equal(String(s), "(sensitive)");
 * assert.equal(JSON.stringify({ key: s }), '{"key":"(sensitive)"}');
 * assert.equal(s.reveal(), "sk-live-123");
 * ```
 */
export class Secret {
  #value: Value;

  /**
   * Wraps a value. A secret inside a secret is unwrapped first.
   *
   * @param value The sensitive value.
   */
  constructor(value: Value) {
    this.#value = value instanceof Secret ? value.reveal() : value;
  }

  /**
   * Returns the sensitive value. Call this only where the value is handed
   * to its consumer (e.g. a plugin's `Configure`), never for display.
   *
   * @returns The wrapped value (never itself a {@linkcode Secret}).
   */
  reveal(): Value {
    return this.#value;
  }

  /**
   * The type of the wrapped value (types are not secret).
   *
   * @returns The type name, e.g. `"string"`.
   */
  typeName(): TypeName {
    return typeName(this.#value);
  }

  /**
   * Redacted text.
   *
   * @returns `"(sensitive)"`.
   */
  toString(): string {
    return REDACTED;
  }

  /**
   * Redacted JSON.
   *
   * @returns `"(sensitive)"`.
   */
  toJSON(): string {
    return REDACTED;
  }

  /**
   * Redacted inspection for `Deno.inspect` and `console.log`.
   *
   * @returns `"Secret((sensitive))"`.
   */
  [Symbol.for("Deno.customInspect")](): string {
    return `Secret(${REDACTED})`;
  }

  /**
   * Redacted inspection for `node:util.inspect`.
   *
   * @returns `"Secret((sensitive))"`.
   */
  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return `Secret(${REDACTED})`;
  }
}

/** An object value: string keys (own properties) to values. */
export interface ObjectValue {
  /** Each attribute's value. */
  [key: string]: Value;
}

/** Any evaluated value. */
export type Value =
  | string
  | number
  | boolean
  | null
  | Value[]
  | ObjectValue
  | Secret;

/** The type names used in diagnostics. */
export type TypeName =
  | "string"
  | "number"
  | "bool"
  | "null"
  | "list"
  | "object";

/**
 * The type name of a value, as diagnostics print it. A {@linkcode Secret}
 * reports the type of what it wraps.
 *
 * @param value Any value.
 * @returns `"string"`, `"number"`, `"bool"`, `"null"`, `"list"` or `"object"`.
 */
export function typeName(value: Value): TypeName {
  if (value === null) return "null";
  if (value instanceof Secret) return value.typeName();
  if (Array.isArray(value)) return "list";
  switch (typeof value) {
    case "string":
      return "string";
    case "number":
      return "number";
    case "boolean":
      return "bool";
    default:
      return "object";
  }
}

/**
 * True when the value is, or contains, a {@linkcode Secret}.
 *
 * @param value Any value.
 * @returns Whether any part of it is sensitive.
 */
export function isSensitive(value: Value): boolean {
  if (value instanceof Secret) return true;
  if (Array.isArray(value)) return value.some(isSensitive);
  if (value !== null && typeof value === "object") {
    return Object.values(value).some(isSensitive);
  }
  return false;
}

/** Options for {@linkcode toJsonValue}. */
export interface ToJsonOptions {
  /**
   * Replace each secret by its value instead of `"(sensitive)"`. Only for
   * the hand-off to the secret's consumer.
   * @default {false}
   */
  revealSecrets?: boolean;
}

/** A JSON value. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };

/**
 * Converts a value to plain JSON data, secrets redacted unless asked.
 *
 * @param value Any value.
 * @param options Whether to reveal secrets.
 * @returns JSON data.
 */
export function toJsonValue(
  value: Value,
  options: ToJsonOptions = {},
): JsonValue {
  if (value instanceof Secret) {
    return options.revealSecrets
      ? toJsonValue(value.reveal(), options)
      : REDACTED;
  }
  if (Array.isArray(value)) return value.map((v) => toJsonValue(v, options));
  if (value !== null && typeof value === "object") {
    const out: { [key: string]: JsonValue } = {};
    for (const [k, v] of Object.entries(value)) {
      defineKey(out, k, toJsonValue(v, options));
    }
    return out;
  }
  return value;
}

/**
 * Sets an own enumerable property, even for keys such as `__proto__`.
 *
 * @param obj The object.
 * @param key The key.
 * @param value The value.
 */
export function defineKey<V>(
  obj: Record<string, V>,
  key: string,
  value: V,
): void {
  // An assignment to a plain object makes the same property as the
  // definition below without a descriptor object per key (a 124,000-key
  // map), except for the `__proto__` setter Object.prototype has.
  if (key !== "__proto__" && Object.getPrototypeOf(obj) === Object.prototype) {
    obj[key] = value;
    return;
  }
  Object.defineProperty(obj, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
