/**
 * A token counter for gpt-tokenizer's encodings (o200k_base, cl100k_base)
 * that gives exactly gpt-tokenizer's `countTokens(text)` for plain text
 * (special-token text such as `<|endoftext|>` counted as ordinary text, as
 * its chat counter does), several times faster.
 *
 * gpt-tokenizer counts a text as the sum over the pieces its encoding's
 * split regex cuts: one token when the piece is in the vocabulary, else the
 * number of parts its byte-pair merge leaves. This counter does the same
 * with the same vocabulary and regex, and avoids where gpt-tokenizer spends
 * its time on a 100 KB it has not seen:
 *
 * - its merge decodes every candidate pair with a `TextDecoder` to look it
 *   up (~10 µs a piece): here the vocabulary is keyed by each token's UTF-8
 *   bytes, and whether two tokens join is cached by their two ranks;
 * - its vocabulary is a `Map` of 200 000 strings, whose chains of string
 *   objects cost several cache misses a lookup: here it is an
 *   open-addressing table of (hash, token) pairs over one byte array,
 *   looked up by a range of the text with no substring;
 * - a piece seen before (100 KB of code or prose has ~24 000 pieces but
 *   ~3 000 distinct ones) is answered by a bounded memo of piece → count,
 *   also looked up by range, kept across calls in the plugin process;
 * - `matchAll` allocates a match array per piece: for o200k, ASCII pieces
 *   are cut by {@linkcode o200kAsciiPiece}, a hand-written equivalent of
 *   the regex; elsewhere a sticky copy of the regex runs with `test`.
 *
 * The merge picks the leftmost pair of lowest rank, as gpt-tokenizer's
 * does; `_bpe_count_test.ts` checks the counts against gpt-tokenizer.
 *
 * @module
 */

/** A vocabulary as gpt-tokenizer ships it: a token's text, or its bytes. */
export type BpeRanks = readonly (string | readonly number[])[];

/** Options for {@linkcode BpeCounter}. */
export interface BpeCounterOptions {
  /**
   * Pieces the memo keeps; when it is full it starts over.
   *
   * @default {32768}
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

const DEFAULT_MEMO_SIZE = 32768;
// V8 keeps a substring of 13 characters or more as a slice of its parent:
// a memo key that long would keep a whole counted text alive.
const SLICE_MIN_LENGTH = 13;

/** Counts tokens of one encoding (see the module doc). */
export class BpeCounter {
  #ranks: BpeRanks | undefined;
  #vocabulary: Vocabulary | undefined;
  #merger: Merger | undefined;
  #split: RegExp;
  #pattern: RegExp;
  #asciiPiece: ((text: string, start: number) => number) | undefined;
  #memo: PieceMemo;

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
    this.#memo = new PieceMemo(options.memoSize ?? DEFAULT_MEMO_SIZE);
    this.#asciiPiece = options.asciiPiece;
  }

  /** Builds the byte-keyed vocabulary (once, on the first count). */
  #vocab(): Vocabulary {
    if (this.#vocabulary) return this.#vocabulary;
    const vocab = new Vocabulary(this.#ranks!);
    this.#vocabulary = vocab;
    this.#merger = new Merger(vocab);
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
      total += this.#countPiece(text, start, stop, vocab);
      start = stop;
    }
    return total;
  }

  /**
   * Drops the memo, so that the next count sees its text as new (the
   * vocabulary stays).
   */
  clearMemo(): void {
    this.#memo.clear();
  }

  #countRest(text: string, from: number, vocab: Vocabulary): number {
    const re = this.#pattern;
    re.lastIndex = from;
    let total = 0;
    let m: RegExpExecArray | null;
    while ((m = re.exec(text)) !== null) {
      if (m[0] === "") {
        re.lastIndex++;
        continue;
      }
      total += this.#countPiece(text, m.index, m.index + m[0].length, vocab);
    }
    return total;
  }

  #countPiece(
    text: string,
    start: number,
    end: number,
    vocab: Vocabulary,
  ): number {
    const hash = hashOf(text, start, end);
    let n = this.#memo.get(text, start, end, hash);
    if (n >= 0) return n;
    const piece = text.slice(start, end);
    const merger = this.#merger!;
    const bytes = byteString(piece);
    if (bytes === undefined) {
      n = vocab.find(piece, 0, piece.length, hash) >= 0
        ? 1
        : merger.count(piece);
    } else if (bytes === null) {
      // Never a whole token; gpt-tokenizer merges its UTF-8 encoding, in
      // which each lone surrogate became U+FFFD.
      n = merger.count(byteString(piece, true)!);
    } else {
      n = vocab.find(bytes, 0, bytes.length, hashOf(bytes, 0, bytes.length)) >=
          0
        ? 1
        : merger.count(bytes);
    }
    this.#memo.set(
      piece.length < SLICE_MIN_LENGTH ? piece : [...piece].join(""),
      hash,
      n,
    );
    return n;
  }
}

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/** FNV-1a over the UTF-16 code units of `text[start..end)`. */
function hashOf(text: string, start: number, end: number): number {
  let h = FNV_OFFSET;
  for (let i = start; i < end; i++) {
    h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  }
  return h;
}

/** The length of a well-formed string in UTF-8. */
function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/**
 * Piece → count, looked up by a range of a text so that a piece seen before
 * costs no substring: open addressing over typed arrays, at most half full.
 * When it holds `limit` pieces it starts over.
 */
class PieceMemo {
  #limit: number;
  #keys: string[] = [];
  #hashes: Int32Array;
  #counts: Int32Array;
  #slots: Int32Array; // entry index + 1; 0 is empty
  #mask: number;

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(
        `Cannot create a token memo of ${limit} pieces: the size must be a positive integer`,
      );
    }
    let capacity = 16;
    while (capacity < 2 * limit) capacity *= 2;
    this.#limit = limit;
    this.#hashes = new Int32Array(limit);
    this.#counts = new Int32Array(limit);
    this.#slots = new Int32Array(capacity);
    this.#mask = capacity - 1;
  }

  /** The count of `text[start..end)`, or -1. */
  get(text: string, start: number, end: number, hash: number): number {
    const slots = this.#slots;
    const length = end - start;
    for (let slot = hash & this.#mask;; slot = (slot + 1) & this.#mask) {
      const at = slots[slot]! - 1;
      if (at < 0) return -1;
      if (this.#hashes[at] !== hash) continue;
      const key = this.#keys[at]!;
      if (key.length !== length) continue;
      let i = 0;
      while (i < length && key.charCodeAt(i) === text.charCodeAt(start + i)) {
        i++;
      }
      if (i === length) return this.#counts[at]!;
    }
  }

  /** Remembers a piece that `get` did not find. */
  set(key: string, hash: number, count: number): void {
    if (this.#keys.length >= this.#limit) this.clear();
    const at = this.#keys.length;
    this.#keys.push(key);
    this.#hashes[at] = hash;
    this.#counts[at] = count;
    let slot = hash & this.#mask;
    while (this.#slots[slot] !== 0) slot = (slot + 1) & this.#mask;
    this.#slots[slot] = at + 1;
  }

  clear(): void {
    this.#keys = [];
    this.#slots.fill(0);
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

/**
 * gpt-tokenizer's UTF-8 validity test: no overlong forms, no surrogates,
 * nothing above U+10FFFF. (A fatal `TextDecoder` says the same but throws,
 * which costs ~0.5 ms a call.)
 */
function isValidUtf8(bytes: readonly number[]): boolean {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    let length: number;
    let code: number;
    if (b <= 0x7f) {
      i++;
      continue;
    } else if ((b & 0xe0) === 0xc0) {
      if (b <= 0xc1) return false;
      length = 2;
      code = b & 0x1f;
    } else if ((b & 0xf0) === 0xe0) {
      length = 3;
      code = b & 0x0f;
    } else if ((b & 0xf8) === 0xf0) {
      if (b > 0xf4) return false;
      length = 4;
      code = b & 0x07;
    } else return false;
    if (i + length > bytes.length) return false;
    for (let j = 1; j < length; j++) {
      const c = bytes[i + j]!;
      if ((c & 0xc0) !== 0x80) return false;
      code = (code << 6) | (c & 0x3f);
    }
    if (
      (length === 3 && code < 0x800) || (length === 4 && code < 0x10000) ||
      (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff
    ) return false;
    i += length;
  }
  return true;
}

/**
 * The vocabulary keyed by each token's bytes: an open-addressing table of
 * (hash, token) pairs over one array of all tokens' bytes, so that a lookup
 * touches two or three places in memory rather than a `Map`'s chain of
 * string objects, and needs no substring.
 */
class Vocabulary {
  #table: Int32Array; // per slot: hash, token index + 1 (0: empty)
  #mask: number;
  #offsets: Int32Array; // token i's bytes are blob[offsets[i], offsets[i + 1])
  #ranks: Int32Array;
  #blob: Uint8Array;

  constructor(ranks: BpeRanks) {
    // The tokens stored as text, UTF-8 encoded in one call, then the tokens
    // stored as bytes.
    const texts: string[] = [];
    const order: number[] = [];
    const byteTokens: (readonly number[])[] = [];
    const byteOrder: number[] = [];
    let byteSize = 0;
    for (let rank = 0; rank < ranks.length; rank++) {
      const token = ranks[rank];
      if (token === undefined) continue;
      if (typeof token === "string") {
        texts.push(token);
        order.push(rank);
      } else if (!isValidUtf8(token)) {
        byteTokens.push(token);
        byteOrder.push(rank);
        byteSize += token.length;
      }
      // else: gpt-tokenizer looks bytes that are valid UTF-8 up by their
      // text only, so a token stored as valid-UTF-8 bytes is never found:
      // leave it out too.
    }
    const encoded = new TextEncoder().encode(texts.join(""));
    const count = texts.length + byteTokens.length;
    const blob = new Uint8Array(encoded.length + byteSize);
    blob.set(encoded);
    const offsets = new Int32Array(count + 1);
    let at = 0;
    for (let i = 0; i < texts.length; i++) {
      offsets[i] = at;
      at += utf8Length(texts[i]!);
    }
    for (let j = 0; j < byteTokens.length; j++) {
      offsets[texts.length + j] = at;
      blob.set(byteTokens[j]!, at);
      at += byteTokens[j]!.length;
    }
    offsets[count] = at;
    if (at !== blob.length) {
      throw new Error(
        "Cannot build the token vocabulary: its text is not valid UTF-16",
      );
    }
    let slots = 16;
    while (slots < 2 * count) slots *= 2;
    const table = new Int32Array(2 * slots);
    const mask = slots - 1;
    for (let i = 0; i < count; i++) {
      let hash = FNV_OFFSET;
      for (let k = offsets[i]!; k < offsets[i + 1]!; k++) {
        hash = Math.imul(hash ^ blob[k]!, FNV_PRIME);
      }
      let slot = hash & mask;
      while (table[2 * slot + 1] !== 0) slot = (slot + 1) & mask;
      table[2 * slot] = hash;
      table[2 * slot + 1] = i + 1;
    }
    this.#table = table;
    this.#mask = mask;
    this.#offsets = offsets;
    this.#ranks = Int32Array.from([...order, ...byteOrder]);
    this.#blob = blob;
  }

  /**
   * The rank of the token whose bytes are `bytes[from, to)` (one character
   * a byte), or -1.
   */
  find(bytes: string, from: number, to: number, hash: number): number {
    const table = this.#table;
    const length = to - from;
    for (let slot = hash & this.#mask;; slot = (slot + 1) & this.#mask) {
      const at = table[2 * slot + 1]! - 1;
      if (at < 0) return -1;
      if (table[2 * slot] !== hash) continue;
      const o = this.#offsets[at]!;
      if (this.#offsets[at + 1]! - o !== length) continue;
      let k = 0;
      while (k < length && this.#blob[o + k] === bytes.charCodeAt(from + k)) {
        k++;
      }
      if (k === length) return this.#ranks[at]!;
    }
  }
}

const NONE = 0x7fffffff;
const PAIR_CACHE_SIZE = 1 << 17;

/**
 * The byte-pair merge, counting the parts it leaves of a piece (its bytes
 * as a Latin-1 string): repeatedly merge the adjacent pair of lowest rank,
 * the leftmost of equals, until no adjacent pair is a token. Each part is a
 * token, so whether two parts join into one is a question about two ranks:
 * the answer is remembered in a pair cache keyed by both, and the
 * vocabulary is asked (a substring and a lookup in 200 000 entries) only
 * the first time a pair occurs.
 */
class Merger {
  #vocab: Vocabulary;
  #pairs = new Map<number, number>();
  /** A part's id: the rank of its token (a byte without one: 2^18 + byte). */
  #byteIds = new Int32Array(256);
  #start = new Int32Array(64);
  #id = new Int32Array(64);
  #rank = new Int32Array(64);

  constructor(vocab: Vocabulary) {
    this.#vocab = vocab;
    for (let b = 0; b < 256; b++) {
      const byte = String.fromCharCode(b);
      const rank = vocab.find(byte, 0, 1, hashOf(byte, 0, 1));
      this.#byteIds[b] = rank >= 0 ? rank : (1 << 18) + b;
    }
  }

  /** The rank of parts `a` and `b` joined (bytes `[from, to)`), or NONE. */
  #join(bytes: string, a: number, b: number, from: number, to: number) {
    const key = a * (1 << 19) + b;
    let rank = this.#pairs.get(key);
    if (rank === undefined) {
      rank = this.#vocab.find(bytes, from, to, hashOf(bytes, from, to));
      if (rank < 0) rank = NONE;
      if (this.#pairs.size >= PAIR_CACHE_SIZE) this.#pairs.clear();
      this.#pairs.set(key, rank);
    }
    return rank;
  }

  count(bytes: string): number {
    const n = bytes.length;
    if (n < 2) return n;
    if (this.#start.length <= n) {
      const size = 2 * (n + 1);
      this.#start = new Int32Array(size);
      this.#id = new Int32Array(size);
      this.#rank = new Int32Array(size);
    }
    // Part i is bytes [start[i], start[i + 1]), a token with rank id[i];
    // rank[i] is the rank of parts i and i + 1 joined (NONE: no token, or
    // no part i + 1).
    const start = this.#start;
    const id = this.#id;
    const rank = this.#rank;
    for (let i = 0; i < n; i++) {
      start[i] = i;
      id[i] = this.#byteIds[bytes.charCodeAt(i)]!;
    }
    start[n] = n;
    for (let i = 0; i < n - 1; i++) {
      rank[i] = this.#join(bytes, id[i]!, id[i + 1]!, i, i + 2);
    }
    rank[n - 1] = NONE;
    let parts = n;
    while (parts > 1) {
      let lowest = NONE;
      let at = -1;
      for (let i = 0; i < parts - 1; i++) {
        if (rank[i]! < lowest) {
          lowest = rank[i]!;
          at = i;
        }
      }
      if (at < 0) break;
      // Parts at and at + 1 become one.
      id[at] = lowest;
      parts--;
      for (let i = at + 1; i < parts; i++) {
        start[i] = start[i + 1]!;
        id[i] = id[i + 1]!;
      }
      start[parts] = n;
      for (let i = at; i < parts - 1; i++) rank[i] = rank[i + 1]!;
      rank[parts - 1] = NONE;
      if (at + 1 < parts) {
        rank[at] = this.#join(
          bytes,
          id[at]!,
          id[at + 1]!,
          start[at]!,
          start[at + 2]!,
        );
      }
      if (at > 0) {
        rank[at - 1] = this.#join(
          bytes,
          id[at - 1]!,
          id[at]!,
          start[at - 1]!,
          start[at + 1]!,
        );
      }
    }
    return parts;
  }
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
