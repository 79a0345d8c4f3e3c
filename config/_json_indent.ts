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
 * A JSON array whose elements are made one at a time as
 * {@linkcode writeJsonValue} writes them, each dead once written: a large
 * plan's document (tens of MB of small objects) then never lives whole, so
 * the garbage collector neither copies nor marks it. Anything else sees an
 * ordinary array through `toJSON` (`JSON.stringify` gives the same text).
 */
export class LazyJsonList<T> {
  readonly #items: readonly T[];
  readonly #make: (item: T) => unknown;

  /**
   * @param items The source items.
   * @param make Makes an item's JSON value (called again on each write).
   */
  constructor(items: readonly T[], make: (item: T) => unknown) {
    this.#items = items;
    this.#make = make;
  }

  /** How many elements there are. */
  get length(): number {
    return this.#items.length;
  }

  /** The element at `i` (`0 <= i < length`), made now. */
  at(i: number): unknown {
    return this.#make(this.#items[i]!);
  }

  /** The elements, as an array (for `JSON.stringify`). */
  toJSON(): unknown[] {
    return this.#items.map((item) => this.#make(item));
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
class JsonWriter {
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

  #array(list: readonly unknown[], depth: number): void {
    const n = list.length;
    if (n === 0) {
      this.#room(2);
      this.#buf[this.#p++] = 91;
      this.#buf[this.#p++] = 93;
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
      this.#room(2);
      this.#buf[this.#p++] = 91;
      this.#buf[this.#p++] = 93;
      return;
    }
    this.#byte(91);
    for (let i = 0; i < n; i++) {
      this.#newline(i > 0 ? 44 : 0, depth + 1);
      if (!this.#value(toJson(list.at(i), i), depth + 1)) this.#ascii("null");
    }
    this.#newline(0, depth);
    this.#byte(93);
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
