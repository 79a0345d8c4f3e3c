/**
 * Writes JSON data as the UTF-8 bytes of `JSON.stringify(value, null, 2)`,
 * a chunk at a time. For `check-config --json`: V8 has no fast path for an
 * indented `JSON.stringify`, and the indented text of a large plan (tens of
 * MB) then never exists as a string, nor is it encoded again on the way to
 * standard output; nor is a compact text made first and re-indented (the
 * previous way: the walk here takes about 0.6 of that time on the
 * providers' 43 MB document). Not part of the API.
 *
 * @module
 */

import { defineKey } from "./hcl/value.ts";

/** Bytes gathered before each call of the sink (more for a longer text). */
const CHUNK = 1 << 16;

/** How many distinct keys keep their bytes (a plan has a few hundred). */
const KEY_CACHE = 4096;

/** Objects with more keys than this do not use the cache. */
const SMALL_OBJECT = 64;

/** Keys longer than this (in UTF-16 units) are not kept. */
const LONG_KEY = 64;

/** Strings longer than this (in UTF-16 units) are encoded by TextEncoder. */
const LONG_STRING = 256;

const ENCODER = new TextEncoder();

/** `0`–`9`, `a`–`f`: the digits of a `\u00XX` escape. */
const HEX = "0123456789abcdef";

/**
 * Writes `value` as the UTF-8 bytes of `JSON.stringify(value, null, 2)`, a
 * chunk at a time, without making any of its text: neither the compact nor
 * the indented document exists as a string. For `check-config --json`'s
 * plan, plain JSON data (objects, arrays, strings, finite numbers, booleans,
 * `null`): what `JSON.stringify` leaves out (an `undefined` or function
 * value of a key) is left out, an array's becomes `null`, and a `toJSON`
 * method is called, as `JSON.stringify` does.
 *
 * @param value Plain JSON data.
 * @param sink Called with each chunk of bytes, in order; a chunk never ends
 * inside a character. The array is reused for the next chunk: consume or
 * copy it before returning.
 */
export function writeJsonValue(
  value: unknown,
  sink: (bytes: Uint8Array) => void,
): void {
  new JsonWriter(sink).write(value);
}

/**
 * Where a {@linkcode LazyJsonList}'s elements are written, a part at a
 * time, as `JSON.stringify` would write the data they stand for: one value
 * per element, an object being `open()`, then `key()` and its value for
 * each member, then `close()`.
 */
export interface JsonOut {
  /** Opens an object (`{`). */
  open(): void;
  /** Opens an array (`[`). */
  openList(): void;
  /** Closes the innermost open object or array. */
  close(): void;
  /** The next member of the open object: its key; its value follows. */
  key(name: string): void;
  /**
   * A whole value (plain JSON data, as `JSON.stringify` takes it; its
   * `toJSON` called): the open array's next element or the last key's
   * value. An `undefined` is written as `null`.
   */
  value(value: unknown): void;
  /** `key(name)` and `value(value)`. */
  field(name: string, value: unknown): void;
}

/**
 * A JSON array whose elements are written one at a time by
 * {@linkcode writeJsonValue}, straight from their source items: a large
 * plan's document (tens of MB of small objects) then never exists as
 * objects, neither made nor collected. Anything else sees an ordinary
 * array through `toJSON` (`JSON.stringify` gives the same text).
 */
export class LazyJsonList<T> {
  readonly #items: readonly T[];
  readonly #write: (item: T, out: JsonOut) => void;

  /**
   * @param items The source items.
   * @param write Writes an item's JSON value: exactly one value.
   */
  constructor(items: readonly T[], write: (item: T, out: JsonOut) => void) {
    this.#items = items;
    this.#write = write;
  }

  /** How many elements there are. */
  get length(): number {
    return this.#items.length;
  }

  /** Writes the element at `i` (`0 <= i < length`) to `out`. */
  writeAt(i: number, out: JsonOut): void {
    this.#write(this.#items[i]!, out);
  }

  /** The elements, as an array of plain data (for `JSON.stringify`). */
  toJSON(): unknown[] {
    return this.#items.map((item) => buildJson(this.#write, item));
  }
}

/**
 * The plain data that `write` writes for `item`: objects, arrays and
 * copies of the values given (`JSON.parse` of their `JSON.stringify`).
 *
 * @param write Writes exactly one value.
 * @param item Its source.
 * @returns The value as data.
 */
export function buildJson<T>(
  write: (item: T, out: JsonOut) => void,
  item: T,
): unknown {
  const builder = new JsonBuilder();
  write(item, builder);
  return builder.result;
}

/** A {@linkcode JsonOut} that makes the data instead of its text. */
class JsonBuilder implements JsonOut {
  result: unknown = undefined;
  readonly #open: (Record<string, unknown> | unknown[])[] = [];
  #key = "";

  #put(v: unknown): void {
    const top = this.#open.at(-1);
    if (top === undefined) this.result = v;
    else if (Array.isArray(top)) top.push(v);
    // As JSON.parse makes it: an own property (`__proto__` too).
    else defineKey(top, this.#key, v);
  }

  open(): void {
    const o = {};
    this.#put(o);
    this.#open.push(o);
  }

  openList(): void {
    const a: unknown[] = [];
    this.#put(a);
    this.#open.push(a);
  }

  close(): void {
    this.#open.pop();
  }

  key(name: string): void {
    this.#key = name;
  }

  value(value: unknown): void {
    let v = value ?? null;
    if (v !== null && typeof v === "object") {
      const text = JSON.stringify(v);
      v = text === undefined ? null : JSON.parse(text);
    }
    this.#put(v);
  }

  field(name: string, value: unknown): void {
    this.key(name);
    this.value(value);
  }
}

/** `value.toJSON(key)` when `value` is an object with that method. */
function toJson(value: unknown, key: string | number): unknown {
  if (
    value !== null && typeof value === "object" &&
    !(value instanceof LazyJsonList) &&
    typeof (value as { toJSON?: unknown }).toJSON === "function"
  ) {
    return (value as { toJSON: (key: string) => unknown }).toJSON(String(key));
  }
  return value;
}

/** The state of one {@linkcode writeJsonValue}. */
class JsonWriter implements JsonOut {
  readonly #sink: (bytes: Uint8Array) => void;
  #buf = new Uint8Array(CHUNK);
  #p = 0;
  /**
   * The bytes of `"key": ` for the keys written so far (up to
   * {@linkcode KEY_CACHE} of them): a plan repeats the same few keys in
   * every entry.
   */
  readonly #keys = new Map<string, Uint8Array>();

  constructor(sink: (bytes: Uint8Array) => void) {
    this.#sink = sink;
  }

  write(value: unknown): void {
    // JSON.stringify writes nothing for a top-level undefined.
    if (this.#value(toJson(value, ""), 0)) {
      if (this.#p > 0) this.#sink(this.#buf.subarray(0, this.#p));
    }
  }

  /**
   * Makes room for `n` more bytes: flushes the chunk when they do not fit,
   * and grows the buffer for more than a chunk.
   */
  #room(n: number): void {
    if (this.#p + n > this.#buf.length) {
      if (this.#p > 0) this.#sink(this.#buf.subarray(0, this.#p));
      this.#p = 0;
      if (n > this.#buf.length) this.#buf = new Uint8Array(n);
    }
  }

  /** `sep` (a byte, or 0 for none), a new line and the indentation of `depth`. */
  #newline(sep: number, depth: number): void {
    const n = 2 * depth;
    this.#room(n + 2);
    const buf = this.#buf;
    let p = this.#p;
    if (sep !== 0) buf[p++] = sep;
    buf[p++] = 10;
    for (let k = 0; k < n; k++) buf[p++] = 32;
    this.#p = p;
  }

  /** One byte. */
  #byte(b: number): void {
    this.#room(1);
    this.#buf[this.#p++] = b;
  }

  /** Writes one ASCII text (a number, `null`, `true`, `false`). */
  #ascii(s: string): void {
    this.#room(s.length);
    const buf = this.#buf;
    let p = this.#p;
    for (let i = 0; i < s.length; i++) buf[p++] = s.charCodeAt(i);
    this.#p = p;
  }

  /**
   * Writes `value` (its `toJSON` already called) at `depth`.
   *
   * @returns Whether it wrote anything (not for an `undefined`, a function
   * or a symbol, which an object leaves out).
   */
  #value(value: unknown, depth: number): boolean {
    switch (typeof value) {
      case "string":
        this.#string(value);
        return true;
      case "number":
        this.#ascii(Number.isFinite(value) ? String(value) : "null");
        return true;
      case "boolean":
        this.#ascii(value ? "true" : "false");
        return true;
      case "bigint":
        // As JSON.stringify: a TypeError.
        JSON.stringify(value);
        return false;
      case "object":
        if (value === null) this.#ascii("null");
        else if (Array.isArray(value)) this.#array(value, depth);
        else if (value instanceof LazyJsonList) this.#lazy(value, depth);
        else this.#object(value as Record<string, unknown>, depth);
        return true;
      default:
        return false;
    }
  }

  /** `[]`. */
  #emptyArray(): void {
    this.#room(2);
    this.#buf[this.#p++] = 91;
    this.#buf[this.#p++] = 93;
  }

  #array(list: readonly unknown[], depth: number): void {
    const n = list.length;
    if (n === 0) {
      this.#emptyArray();
      return;
    }
    this.#byte(91);
    for (let i = 0; i < n; i++) {
      this.#newline(i > 0 ? 44 : 0, depth + 1);
      if (!this.#value(toJson(list[i], i), depth + 1)) this.#ascii("null");
    }
    this.#newline(0, depth);
    this.#byte(93);
  }

  #lazy(list: LazyJsonList<unknown>, depth: number): void {
    const n = list.length;
    if (n === 0) {
      this.#emptyArray();
      return;
    }
    this.#byte(91);
    // The JsonOut state of an enclosing list's element being written.
    const outer = { depth: this.#depth, seps: this.#seps, here: this.#here };
    this.#seps = [];
    for (let i = 0; i < n; i++) {
      this.#newline(i > 0 ? 44 : 0, depth + 1);
      this.#depth = depth + 1;
      this.#here = true;
      list.writeAt(i, this);
      if (this.#here || this.#seps.length > 0) {
        throw new Error(`element ${i} of a LazyJsonList is not one value`);
      }
    }
    this.#depth = outer.depth;
    this.#seps = outer.seps;
    this.#here = outer.here;
    this.#newline(0, depth);
    this.#byte(93);
  }

  // JsonOut, for a LazyJsonList's element: `#depth` is the depth of the
  // next value, `#seps` holds for each open object (-1 - the separator) or
  // array (the separator) the byte before its next member (0 for none),
  // `#here` says the next value goes where the writing is (after a key,
  // or as the element itself) rather than as an array's next element.
  #depth = 0;
  #seps: number[] = [];
  #here = false;

  /** Where the next value goes: an open array's next element needs its line. */
  #place(): void {
    if (this.#here) {
      this.#here = false;
      return;
    }
    const top = this.#seps.length - 1;
    const sep = this.#seps[top]!;
    if (top < 0 || sep < 0) {
      throw new Error("a JsonOut value needs a key in an object");
    }
    this.#newline(sep, this.#depth);
    this.#seps[top] = 44;
  }

  open(): void {
    this.#place();
    this.#byte(123);
    this.#seps.push(-1);
    this.#depth++;
  }

  openList(): void {
    this.#place();
    this.#byte(91);
    this.#seps.push(0);
    this.#depth++;
  }

  close(): void {
    const sep = this.#seps.pop();
    if (sep === undefined) throw new Error("JsonOut: nothing to close");
    this.#depth--;
    const list = sep >= 0;
    if (sep !== 0 && sep !== -1) this.#newline(0, this.#depth);
    this.#byte(list ? 93 : 125);
  }

  key(name: string): void {
    const top = this.#seps.length - 1;
    const sep = this.#seps[top]!;
    if (top < 0 || sep >= 0 || this.#here) {
      throw new Error("a JsonOut key needs an open object");
    }
    this.#newline(-1 - sep, this.#depth);
    this.#seps[top] = -1 - 44;
    this.#key(name);
    this.#here = true;
  }

  value(value: unknown): void {
    this.#place();
    if (!this.#value(toJson(value, ""), this.#depth)) this.#ascii("null");
  }

  field(name: string, value: unknown): void {
    this.key(name);
    this.value(value);
  }

  #object(obj: Record<string, unknown>, depth: number): void {
    this.#byte(123);
    const keys = Object.keys(obj);
    // A map of many keys (an `env` of thousands) would only fill the cache.
    const cached = keys.length <= SMALL_OBJECT;
    let sep = 0;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const v = toJson(obj[key], key);
      const t = typeof v;
      if (t === "undefined" || t === "function" || t === "symbol") continue;
      this.#newline(sep, depth + 1);
      sep = 44;
      if (cached) this.#key(key);
      else {
        this.#string(key);
        this.#colon();
      }
      this.#value(v, depth + 1);
    }
    if (sep !== 0) this.#newline(0, depth);
    this.#byte(125);
  }

  /** `: ` after a key. */
  #colon(): void {
    this.#room(2);
    this.#buf[this.#p++] = 58;
    this.#buf[this.#p++] = 32;
  }

  /** A key of a small object, its colon and a space. */
  #key(key: string): void {
    let bytes = this.#keys.get(key);
    if (bytes === undefined) {
      if (this.#keys.size >= KEY_CACHE || key.length > LONG_KEY) {
        this.#string(key);
        this.#colon();
        return;
      }
      bytes = ENCODER.encode(JSON.stringify(key) + ": ");
      this.#keys.set(key, bytes);
    }
    const n = bytes.length;
    this.#room(n);
    const buf = this.#buf;
    let p = this.#p;
    for (let i = 0; i < n; i++) buf[p++] = bytes[i]!;
    this.#p = p;
  }

  /** A quoted, escaped string, as JSON.stringify writes it. */
  #string(s: string): void {
    const n = s.length;
    if (n > LONG_STRING) {
      this.#long(JSON.stringify(s));
      return;
    }
    // At most 6 bytes per unit (`\u001f`), and the two quotes.
    this.#room(6 * n + 2);
    const buf = this.#buf;
    let p = this.#p;
    buf[p++] = 34;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x20 && c < 0x80) {
        if (c === 34 || c === 92) buf[p++] = 92;
        buf[p++] = c;
      } else if (c < 0x20) {
        buf[p++] = 92;
        if (c === 8) buf[p++] = 98; // b
        else if (c === 9) buf[p++] = 116; // t
        else if (c === 10) buf[p++] = 110; // n
        else if (c === 12) buf[p++] = 102; // f
        else if (c === 13) buf[p++] = 114; // r
        else {
          buf[p++] = 117; // u
          buf[p++] = 48;
          buf[p++] = 48;
          buf[p++] = HEX.charCodeAt(c >> 4);
          buf[p++] = HEX.charCodeAt(c & 15);
        }
      } else if (c < 0x800) {
        buf[p++] = 0xc0 | (c >> 6);
        buf[p++] = 0x80 | (c & 63);
      } else if (c >= 0xd800 && c <= 0xdfff) {
        const d = c <= 0xdbff ? s.charCodeAt(i + 1) : 0;
        if (d >= 0xdc00 && d <= 0xdfff) {
          const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          buf[p++] = 0xf0 | (cp >> 18);
          buf[p++] = 0x80 | ((cp >> 12) & 63);
          buf[p++] = 0x80 | ((cp >> 6) & 63);
          buf[p++] = 0x80 | (cp & 63);
          i++;
        } else {
          // A lone surrogate: escaped, in lower case.
          buf[p++] = 92;
          buf[p++] = 117;
          for (let shift = 12; shift >= 0; shift -= 4) {
            buf[p++] = HEX.charCodeAt((c >> shift) & 15);
          }
        }
      } else {
        buf[p++] = 0xe0 | (c >> 12);
        buf[p++] = 0x80 | ((c >> 6) & 63);
        buf[p++] = 0x80 | (c & 63);
      }
    }
    buf[p++] = 34;
    this.#p = p;
  }

  /**
   * Writes a long text (a quoted string as JSON.stringify made it: no lone
   * surrogates) through TextEncoder, across chunks.
   */
  #long(text: string): void {
    const close = text.length;
    for (let from = 0; from < close;) {
      this.#room(64);
      // At most 3 bytes per UTF-16 unit; never split a surrogate pair.
      let to = Math.min(
        close,
        from + Math.floor((this.#buf.length - this.#p) / 3),
      );
      const last = text.charCodeAt(to - 1);
      if (to < close && last >= 0xd800 && last <= 0xdbff) to--;
      this.#p += ENCODER.encodeInto(
        text.slice(from, to),
        this.#buf.subarray(this.#p),
      ).written;
      from = to;
    }
  }
}
