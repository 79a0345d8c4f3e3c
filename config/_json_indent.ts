/**
 * Writes compact JSON text, re-indented as `JSON.stringify(value, null, 2)`
 * would write it, as UTF-8 bytes a chunk at a time. For `check-config
 * --json`: V8 writes compact JSON several times faster than indented JSON
 * (its fast path takes no gap), and the indented text of a large plan (tens
 * of MB) then never exists as a string, nor is it encoded again on the way
 * to standard output. Not part of the API.
 *
 * @module
 */

/** Bytes gathered before each call of the sink. */
const CHUNK = 1 << 16;

/** Strings longer than this (in UTF-16 units) are encoded by TextEncoder. */
const LONG_STRING = 256;

const ENCODER = new TextEncoder();

/**
 * Writes `compact`, the output of `JSON.stringify(value)` (no gap), as the
 * UTF-8 bytes of `JSON.stringify(value, null, 2)`.
 *
 * The text must be what `JSON.stringify` makes: no white space outside
 * strings, and well-formed UTF-16 (it escapes lone surrogates).
 *
 * @param compact Compact JSON text.
 * @param sink Called with each chunk of bytes, in order; a chunk never ends
 * inside a character. The array is reused for the next chunk: consume or
 * copy it before returning.
 */
export function writeIndentedJson(
  compact: string,
  sink: (bytes: Uint8Array) => void,
): void {
  const buf = new Uint8Array(CHUNK + 64);
  let p = 0;
  let depth = 0;
  let inString = false;
  const n = compact.length;
  for (let i = 0; i < n; i++) {
    if (p >= CHUNK) {
      sink(buf.subarray(0, p));
      p = 0;
    }
    const c = compact.charCodeAt(i);
    if (inString) {
      if (c < 0x80) {
        buf[p++] = c;
        if (c === 34 /* " */) inString = false;
        else if (c === 92 /* \ */) buf[p++] = compact.charCodeAt(++i);
      } else if (c < 0x800) {
        buf[p++] = 0xc0 | (c >> 6);
        buf[p++] = 0x80 | (c & 63);
      } else if (c >= 0xd800 && c <= 0xdbff) {
        // JSON.stringify escapes a lone surrogate: this one has its pair.
        const cp = 0x10000 + ((c - 0xd800) << 10) +
          (compact.charCodeAt(++i) - 0xdc00);
        buf[p++] = 0xf0 | (cp >> 18);
        buf[p++] = 0x80 | ((cp >> 12) & 63);
        buf[p++] = 0x80 | ((cp >> 6) & 63);
        buf[p++] = 0x80 | (cp & 63);
      } else {
        buf[p++] = 0xe0 | (c >> 12);
        buf[p++] = 0x80 | ((c >> 6) & 63);
        buf[p++] = 0x80 | (c & 63);
      }
      continue;
    }
    let indent = -1;
    if (c === 34) {
      buf[p++] = 34;
      // A long string (a heredoc's text in the plan) is encoded natively,
      // up to and including its closing quote, instead of a unit at a time.
      let close = compact.indexOf('"', i + 1);
      for (;;) {
        let slashes = 0;
        while (compact.charCodeAt(close - 1 - slashes) === 92) slashes++;
        if (slashes % 2 === 0) break;
        close = compact.indexOf('"', close + 1);
      }
      if (close - i <= LONG_STRING) {
        inString = true;
        continue;
      }
      for (let from = i + 1; from <= close;) {
        if (p >= CHUNK) {
          sink(buf.subarray(0, p));
          p = 0;
        }
        // At most 3 bytes per UTF-16 unit; never split a surrogate pair.
        let to = Math.min(close + 1, from + Math.floor((CHUNK - p) / 3) + 1);
        const last = compact.charCodeAt(to - 1);
        if (to <= close && last >= 0xd800 && last <= 0xdbff) to--;
        if (to <= from) {
          sink(buf.subarray(0, p));
          p = 0;
          continue;
        }
        p += ENCODER.encodeInto(
          compact.slice(from, to),
          buf.subarray(p, CHUNK + 64),
        ).written;
        from = to;
      }
      i = close;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      buf[p++] = c;
      // `{}` and `[]` stay on one line; `}` is `{` + 2, `]` is `[` + 2.
      if (compact.charCodeAt(i + 1) === c + 2) {
        buf[p++] = c + 2;
        i++;
      } else indent = ++depth;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      indent = --depth;
    } else if (c === 44 /* , */) {
      buf[p++] = 44;
      indent = depth;
    } else if (c === 58 /* : */) {
      buf[p++] = 58;
      buf[p++] = 32;
    } else buf[p++] = c;
    if (indent >= 0) {
      buf[p++] = 10;
      for (let k = 2 * indent; k > 0;) {
        if (p >= CHUNK) {
          sink(buf.subarray(0, p));
          p = 0;
        }
        const m = Math.min(k, CHUNK - p);
        buf.fill(32, p, p + m);
        p += m;
        k -= m;
      }
      if (c === 125 || c === 93) {
        if (p >= CHUNK) {
          sink(buf.subarray(0, p));
          p = 0;
        }
        buf[p++] = c;
      }
    }
  }
  if (p > 0) sink(buf.subarray(0, p));
}
