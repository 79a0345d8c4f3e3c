/**
 * A token counter for gpt-tokenizer's encodings (o200k_base, cl100k_base)
 * that gives exactly gpt-tokenizer's `countTokens(text)` for plain text
 * (special-token text such as `<|endoftext|>` counted as ordinary text, as
 * its chat counter does), several times faster on text it has not seen.
 *
 * gpt-tokenizer counts a text as the sum over the pieces its encoding's
 * pre-tokenizer regex splits off: one token when the piece is in the
 * vocabulary, else the parts the byte-pair merge leaves. Most of its time
 * for a fresh 100 KB goes to three things this counter avoids:
 *
 * - its byte-pair merge decodes every candidate pair with a `TextDecoder`
 *   to look it up (about 10 µs a piece): here the vocabulary is one `Map`
 *   keyed by each token's UTF-8 bytes as a Latin-1 string, so a pair is a
 *   `slice` of the piece's byte string;
 * - each piece is looked up in the 200 000-entry vocabulary, a cache miss
 *   or three each: here a bounded memo of piece → count, small enough to
 *   stay in cache, answers the pieces seen before (a 100 KB of code or prose
 *   has ~24 000 pieces but ~3 000 distinct ones), and persists across calls
 *   in the plugin process;
 * - `matchAll` allocates a match array per piece: here a sticky copy of the
 *   same regex is run with `test`, and the piece is sliced from the text.
 *
 * The split regex is gpt-tokenizer's own, so the pieces are its pieces; the
 * merge picks the leftmost pair of lowest rank, as gpt-tokenizer's does.
 *
 * @module
 */

/** A vocabulary as gpt-tokenizer ships it: a token's text, or its bytes. */
export type BpeRanks = readonly (string | readonly number[])[];

/** Options for {@linkcode BpeCounter}. */
export interface BpeCounterOptions {
  /**
   * Pieces the memo keeps per generation; when one fills, the older one is
   * dropped (so the memo holds up to twice this many pieces).
   *
   * @default {16384}
   */
  memoSize?: number;
  /**
   * A hand-written equivalent of the split regex for pieces made of ASCII
   * only: the end of the piece that starts at `start`, or -1 when a
   * character it would have to look at is not ASCII (the regex decides).
   * Without it, the regex splits every piece.
   */
  asciiPiece?: (text: string, start: number) => number;
}

const DEFAULT_MEMO_SIZE = 16384;
// V8 keeps a substring of 13 characters or more as a slice of its parent:
// a memo key that long would keep a whole counted text alive.
const SLICE_MIN_LENGTH = 13;

/** Counts tokens of one encoding (see the module doc). */
export class BpeCounter {
  #ranks: BpeRanks | undefined;
  #vocabulary: Map<string, number> | undefined;
  #split: RegExp;
  #pattern: RegExp;
  #memoSize: number;
  #asciiPiece: ((text: string, start: number) => number) | undefined;
  #young = new Map<string, number>();
  #old = new Map<string, number>();

  /**
   * @param ranks The encoding's vocabulary, index = rank.
   * @param split The encoding's pre-tokenizer regex (its flags are kept;
   *   the counter runs its own copies).
   * @param options Memo size.
   */
  constructor(ranks: BpeRanks, split: RegExp, options: BpeCounterOptions = {}) {
    this.#ranks = ranks;
    const flags = split.flags.replace(/[gy]/g, "");
    this.#split = new RegExp(split.source, flags + "y");
    this.#pattern = new RegExp(split.source, flags + "g");
    this.#memoSize = options.memoSize ?? DEFAULT_MEMO_SIZE;
    this.#asciiPiece = options.asciiPiece;
  }

  /** Builds the byte-keyed vocabulary (once, on the first count). */
  #vocab(): Map<string, number> {
    if (this.#vocabulary) return this.#vocabulary;
    const ranks = this.#ranks!;
    const vocab = new Map<string, number>();
    for (let rank = 0; rank < ranks.length; rank++) {
      const token = ranks[rank];
      if (token === undefined) continue;
      if (typeof token === "string") {
        // A token's text is valid UTF-16 (it was decoded from UTF-8).
        vocab.set(byteString(token) ?? token, rank);
      } else if (!isValidUtf8(token)) {
        // gpt-tokenizer looks bytes that are valid UTF-8 up by their text
        // only, so a token stored as valid-UTF-8 bytes is never found: leave
        // it out too.
        vocab.set(String.fromCharCode(...token), rank);
      }
    }
    this.#vocabulary = vocab;
    this.#ranks = undefined;
    return vocab;
  }

  /**
   * Counts the tokens of a text as gpt-tokenizer's `countTokens` does with
   * every special token disallowed as special (counted as plain text).
   *
   * @param text The text.
   * @returns The token count.
   */
  count(text: string): number {
    const vocab = this.#vocab();
    const re = this.#split;
    const ascii = this.#asciiPiece;
    const end = text.length;
    let total = 0;
    let start = 0;
    while (start < end) {
      let stop = ascii === undefined ? -1 : ascii(text, start);
      if (stop < 0) {
        re.lastIndex = start;
        if (!re.test(text) || re.lastIndex <= start) {
          // No piece starts here (the regexes here have none such): count
          // the rest as `matchAll` would, skipping what no piece covers.
          return total + this.#countRest(text, start, vocab);
        }
        stop = re.lastIndex;
      }
      total += this.#countPiece(text.slice(start, stop), vocab);
      start = stop;
    }
    return total;
  }

  /**
   * Drops the memo, so that the next count sees its text as new (the
   * vocabulary stays).
   */
  clearMemo(): void {
    this.#young = new Map();
    this.#old = new Map();
  }

  #countRest(text: string, from: number, vocab: Map<string, number>): number {
    const re = this.#pattern;
    re.lastIndex = from;
    let total = 0;
    let m: RegExpExecArray | null;
    while ((m = re.exec(text)) !== null) {
      if (m[0] === "") {
        re.lastIndex++;
        continue;
      }
      total += this.#countPiece(m[0], vocab);
    }
    return total;
  }

  #countPiece(piece: string, vocab: Map<string, number>): number {
    let n = this.#young.get(piece);
    if (n !== undefined) return n;
    n = this.#old.get(piece);
    if (n === undefined) {
      const bytes = byteString(piece);
      if (bytes === undefined) {
        n = vocab.has(piece) ? 1 : mergeCount(piece, vocab);
      } else if (bytes === null) {
        // Never a whole token; gpt-tokenizer merges its UTF-8 encoding, in
        // which each lone surrogate became U+FFFD.
        n = mergeCount(byteString(piece, true)!, vocab);
      } else n = vocab.has(bytes) ? 1 : mergeCount(bytes, vocab);
    }
    if (this.#young.size >= this.#memoSize) {
      this.#old = this.#young;
      this.#young = new Map();
    }
    this.#young.set(
      piece.length < SLICE_MIN_LENGTH ? piece : [...piece].join(""),
      n,
    );
    return n;
  }
}

/**
 * A string's UTF-8 bytes as a Latin-1 string (one character per byte), or
 * `undefined` when the string is ASCII (it is its own byte string). With a
 * lone surrogate, `null` unless `replace` asks for the bytes of U+FFFD in
 * its place, as `TextEncoder` writes.
 */
function byteString(s: string, replace = false): string | undefined | null {
  let i = 0;
  const n = s.length;
  while (i < n && s.charCodeAt(i) < 0x80) i++;
  if (i === n) return undefined;
  let out = s.slice(0, i);
  for (; i < n; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) out += s[i];
    else if (c < 0x800) {
      out += String.fromCharCode(0xc0 | (c >> 6), 0x80 | (c & 0x3f));
    } else {
      if (c >= 0xd800 && c <= 0xdfff) {
        const d = i + 1 < n ? s.charCodeAt(i + 1) : 0;
        if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          i++;
          out += String.fromCharCode(
            0xf0 | (c >> 18),
            0x80 | ((c >> 12) & 0x3f),
            0x80 | ((c >> 6) & 0x3f),
            0x80 | (c & 0x3f),
          );
          continue;
        }
        if (!replace) return null;
        c = 0xfffd;
      }
      out += String.fromCharCode(
        0xe0 | (c >> 12),
        0x80 | ((c >> 6) & 0x3f),
        0x80 | (c & 0x3f),
      );
    }
  }
  return out;
}

/** gpt-tokenizer's UTF-8 validity test (no overlongs, no surrogates). */
function isValidUtf8(bytes: readonly number[]): boolean {
  try {
    FATAL_DECODER.decode(new Uint8Array(bytes));
    return true;
  } catch {
    return false;
  }
}

const FATAL_DECODER = new TextDecoder("utf-8", {
  fatal: true,
  ignoreBOM: true,
});

/**
 * The number of parts the byte-pair merge leaves of a piece (its bytes as a
 * Latin-1 string): repeatedly merge the adjacent pair of lowest rank, the
 * leftmost of equals, until no adjacent pair is a token.
 */
function mergeCount(bytes: string, vocab: Map<string, number>): number {
  const n = bytes.length;
  if (n < 2) return n;
  // starts[i] is where part i begins; ranks[i] the rank of parts i and i+1
  // joined (Infinity when that is no token or there is no part i+1).
  const starts: number[] = new Array(n + 1);
  const ranks: number[] = new Array(n + 1);
  for (let i = 0; i <= n; i++) {
    starts[i] = i;
    ranks[i] = i < n - 1
      ? vocab.get(bytes.slice(i, i + 2)) ?? Infinity
      : Infinity;
  }
  const rankAt = (i: number): number => {
    const to = starts[i + 2];
    return to === undefined
      ? Infinity
      : vocab.get(bytes.slice(starts[i]!, to)) ?? Infinity;
  };
  while (starts.length > 1) {
    let lowest = Infinity;
    let at = -1;
    for (let i = 0; i < ranks.length - 1; i++) {
      const r = ranks[i]!;
      if (r < lowest) {
        lowest = r;
        at = i;
      }
    }
    if (at === -1) break;
    starts.splice(at + 1, 1);
    ranks.splice(at, 1);
    ranks[at] = rankAt(at);
    if (at > 0) ranks[at - 1] = rankAt(at - 1);
  }
  return starts.length - 1;
}

// Character classes of ASCII for the o200k split regex.
const LOWER = 1;
const UPPER = 2;
const DIGIT = 4;
const SPACE = 8; // \s
const NEWLINE = 16; // \r \n
const OTHER = 32; // [^\s\p{L}\p{N}]
const ASCII_CLASS = new Uint8Array(128).map((_, c) => {
  if (c >= 0x61 && c <= 0x7a) return LOWER;
  if (c >= 0x41 && c <= 0x5a) return UPPER;
  if (c >= 0x30 && c <= 0x39) return DIGIT;
  if (c === 0x0a || c === 0x0d) return SPACE | NEWLINE;
  if (c === 0x20 || (c >= 0x09 && c <= 0x0c)) return SPACE;
  return OTHER;
});
const APOSTROPHE = 0x27;
const SLASH = 0x2f;

/**
 * The o200k_base split regex for ASCII text (see
 * {@linkcode BpeCounterOptions.asciiPiece}). The regex, alternative by
 * alternative:
 *
 * 1. `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+('s|…)?`
 * 2. `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*('s|…)?`
 * 3. `\p{N}{1,3}`
 * 4. ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
 * 5. `\s*[\r\n]+`
 * 6. `\s+(?!\S)`
 * 7. `\s+`
 *
 * In ASCII, 1 and 2 together are: one optional character that is no
 * letter, digit or newline, then the run of capitals, then the run of
 * small letters, then a contraction; 5 ends after the last newline of the
 * whitespace run; 6 leaves the run's last character to the next piece
 * unless the run ends the text.
 *
 * @param text The text.
 * @param start Where the piece starts.
 * @returns Where it ends, or -1 when a character that decides is not ASCII.
 */
export function o200kAsciiPiece(text: string, start: number): number {
  const n = text.length;
  const c = text.charCodeAt(start);
  if (c >= 0x80) return -1;
  const kind = ASCII_CLASS[c]!;
  if (kind & (LOWER | UPPER)) return letters(text, start);
  if (kind & DIGIT) {
    let e = start + 1;
    for (; e < n && e < start + 3; e++) {
      const d = text.charCodeAt(e);
      if (d >= 0x80) return -1;
      if (!(ASCII_CLASS[d]! & DIGIT)) break;
    }
    return e;
  }
  // c may prefix a word (alternatives 1 and 2) unless it is a newline.
  const next = start + 1 < n ? text.charCodeAt(start + 1) : -1;
  if (next >= 0x80) return -1;
  const nextKind = next < 0 ? 0 : ASCII_CLASS[next]!;
  if (!(kind & NEWLINE) && nextKind & (LOWER | UPPER)) {
    return letters(text, start + 1);
  }
  if (kind & OTHER || (c === 0x20 && nextKind & OTHER)) {
    let e = kind & OTHER ? start + 1 : start + 2;
    for (; e < n; e++) {
      const d = text.charCodeAt(e);
      if (d >= 0x80) return -1;
      if (!(ASCII_CLASS[d]! & OTHER)) break;
    }
    // [\r\n/]*: a slash after a newline is taken too.
    for (; e < n; e++) {
      const d = text.charCodeAt(e);
      if (d !== 0x0a && d !== 0x0d && d !== SLASH) break;
    }
    return e;
  }
  // Whitespace: alternatives 5 to 7.
  let e = start;
  let lastNewline = -1;
  for (; e < n; e++) {
    const d = text.charCodeAt(e);
    if (d >= 0x80) return -1;
    const k = ASCII_CLASS[d]!;
    if (!(k & SPACE)) break;
    if (k & NEWLINE) lastNewline = e;
  }
  if (lastNewline >= 0) return lastNewline + 1;
  if (e === n || e - start === 1) return e;
  return e - 1;
}

/** A run of capitals, a run of small letters, a contraction (o200k). */
function letters(text: string, from: number): number {
  const n = text.length;
  let e = from;
  let d = 0;
  for (; e < n; e++) {
    d = text.charCodeAt(e);
    if (d >= 0x80) return -1;
    if (!(ASCII_CLASS[d]! & UPPER)) break;
  }
  for (; e < n; e++) {
    d = text.charCodeAt(e);
    if (d >= 0x80) return -1;
    if (!(ASCII_CLASS[d]! & LOWER)) break;
  }
  if (e < n && d === APOSTROPHE) {
    // 's 'd 'm 't 'll 've 're, either case.
    const a = text.charCodeAt(e + 1) | 0x20;
    const b = text.charCodeAt(e + 2) | 0x20;
    if (a === 0x73 || a === 0x64 || a === 0x6d || a === 0x74) return e + 2;
    if (
      (a === 0x6c && b === 0x6c) || (a === 0x76 && b === 0x65) ||
      (a === 0x72 && b === 0x65)
    ) return e + 3;
  }
  return e;
}
