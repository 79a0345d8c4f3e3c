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
 *   bytes, and a merge keeps its parts in typed arrays;
 * - its vocabulary is a `Map` of 200 000 strings, whose chains of string
 *   objects cost several cache misses a lookup: here it is one
 *   open-addressing table of 16-byte slots (hash, rank and length, then a
 *   token of up to 8 bytes itself, packed in two words), so that a lookup
 *   reads one cache line, by a range of the text with no substring; a
 *   piece or merge candidate of up to 8 bytes is hashed and compared as its
 *   two packed words, and a two-byte one is read from a 65 536-entry table;
 * - a piece that is not one token is merged once: its count is kept in a
 *   bounded memo (typed arrays and a character arena, looked up by range)
 *   across calls in the plugin process; a piece that is one token needs no
 *   memo (its vocabulary lookup is the answer);
 * - `matchAll` allocates a match array per piece: for o200k, ASCII pieces
 *   are cut by {@linkcode o200kAsciiPiece}, a hand-written equivalent of
 *   the regex; elsewhere a sticky copy of the regex runs with `test`.
 *
 * The counter learns nothing from its input but the memo: with the memo
 * cleared ({@linkcode BpeCounter.clearMemo}) a count starts from the
 * vocabulary alone. The merge picks the leftmost pair of lowest rank, as
 * gpt-tokenizer's does; `_bpe_count_test.ts` checks the counts against
 * gpt-tokenizer.
 *
 * @module
 */

/** A vocabulary as gpt-tokenizer ships it: a token's text, or its bytes. */
export type BpeRanks = readonly (string | readonly number[])[];

/** Options for {@linkcode BpeCounter}. */
export interface BpeCounterOptions {
  /**
   * Pieces that are not one token the memo keeps; when it is full it
   * starts over.
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
   * A counter whose vocabulary table is built on its first count.
   *
   * @param ranks The encoding's vocabulary, index = rank.
   * @param split The encoding's pre-tokenizer regex (its flags are kept;
   *   the counter runs its own copies).
   * @param options Memo size and ASCII splitter.
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
   * Drops the memo, so that the next count sees its text as new: nothing
   * learned from earlier input is left (the vocabulary stays).
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
    // The hash of the UTF-16 code units as the vocabulary hashes bytes
    // (the same for ASCII, where a code unit is a byte): up to 8 packed
    // little-endian into two words and mixed, longer ones by FNV-1a.
    const length = end - start;
    let hash: number;
    let high = 0;
    if (length <= INLINE_BYTES) {
      let lo = 0;
      let hi = 0;
      for (let k = 0; k < length; k++) {
        const c = text.charCodeAt(start + k);
        high |= c;
        if (k < 4) lo |= c << (8 * k);
        else hi |= c << (8 * (k - 4));
      }
      if (high < 0x80) {
        // ASCII: the text is its own byte string. One byte is one part;
        // two are one token or two parts.
        if (length === 1) return 1;
        if (length === 2) return vocab.pairs[lo]! === NONE ? 2 : 1;
        hash = packedHash(lo, hi, length);
        if (vocab.findPacked(hash, length, lo, hi) >= 0) return 1;
        return this.#merge(text, start, end, hash);
      }
      hash = packedHash(lo, hi, length);
    } else {
      hash = FNV_OFFSET;
      for (let i = start; i < end; i++) {
        const c = text.charCodeAt(i);
        high |= c;
        hash = Math.imul(hash ^ c, FNV_PRIME);
      }
      if (high < 0x80) {
        if (vocab.findLong(text, start, end, hash) >= 0) return 1;
        return this.#merge(text, start, end, hash);
      }
    }
    let n = this.#memo.get(text, start, end, hash);
    if (n >= 0) return n;
    const piece = text.slice(start, end);
    // Not ASCII, so never `undefined`.
    const bytes = byteString(piece) as string | null;
    if (bytes === null) {
      // Never a whole token; gpt-tokenizer merges its UTF-8 encoding, in
      // which each lone surrogate became U+FFFD.
      const replaced = byteString(piece, true)!;
      n = this.#merger!.count(replaced, 0, replaced.length);
    } else {
      n = vocab.find(bytes, 0, bytes.length) >= 0
        ? 1
        : this.#merger!.count(bytes, 0, bytes.length);
    }
    this.#memo.set(text, start, end, hash, n);
    return n;
  }

  /** The count of an ASCII piece that is not one token, through the memo. */
  #merge(text: string, start: number, end: number, hash: number): number {
    let n = this.#memo.get(text, start, end, hash);
    if (n < 0) {
      n = this.#merger!.count(text, start, end);
      this.#memo.set(text, start, end, hash, n);
    }
    return n;
  }
}

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/**
 * The hash of up to 8 bytes packed little-endian in `lo` and `hi` (the
 * unused bytes zero): murmur3's finalizer over both words and the length.
 */
function packedHash(lo: number, hi: number, length: number): number {
  let h = lo ^ Math.imul(hi ^ length, 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
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
 * Piece → count for pieces that are not one token, looked up by a range of
 * a text so that a piece seen before costs no substring: open addressing
 * over one typed array (per slot: hash, where the piece's characters start
 * in a character arena, its length, its count), at most half full. When it
 * holds `limit` pieces it starts over.
 */
class PieceMemo {
  #limit: number;
  #size = 0;
  #slots: Int32Array;
  #mask: number;
  #chars = new Uint16Array(4096);
  #used = 0;

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(
        `Cannot create a token memo of ${limit} pieces: the size must be a positive integer`,
      );
    }
    let capacity = 16;
    while (capacity < 2 * limit) capacity *= 2;
    this.#limit = limit;
    this.#slots = new Int32Array(4 * capacity);
    this.#mask = capacity - 1;
  }

  /** The count of `text[start..end)`, or -1. */
  get(text: string, start: number, end: number, hash: number): number {
    const slots = this.#slots;
    const chars = this.#chars;
    const length = end - start;
    for (let slot = hash & this.#mask;; slot = (slot + 1) & this.#mask) {
      const p = slot << 2;
      const n = slots[p + 2]!;
      if (n === 0) return -1;
      if (slots[p] !== hash || n !== length) continue;
      const o = slots[p + 1]! - start;
      let i = start;
      while (i < end && chars[o + i] === text.charCodeAt(i)) i++;
      if (i === end) return slots[p + 3]!;
    }
  }

  /** Remembers a piece that `get` did not find. */
  set(text: string, start: number, end: number, hash: number, count: number) {
    if (this.#size >= this.#limit) this.clear();
    const length = end - start;
    if (this.#used + length > this.#chars.length) {
      let size = 2 * this.#chars.length;
      while (size < this.#used + length) size *= 2;
      const chars = new Uint16Array(size);
      chars.set(this.#chars.subarray(0, this.#used));
      this.#chars = chars;
    }
    const chars = this.#chars;
    const o = this.#used;
    for (let i = 0; i < length; i++) chars[o + i] = text.charCodeAt(start + i);
    this.#used += length;
    this.#size++;
    const slots = this.#slots;
    let slot = hash & this.#mask;
    while (slots[(slot << 2) + 2] !== 0) slot = (slot + 1) & this.#mask;
    const p = slot << 2;
    slots[p] = hash;
    slots[p + 1] = o;
    slots[p + 2] = length;
    slots[p + 3] = count;
  }

  clear(): void {
    if (this.#size > 0) this.#slots.fill(0);
    this.#size = 0;
    this.#used = 0;
    if (this.#chars.length > 1 << 20) this.#chars = new Uint16Array(4096);
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

// A vocabulary slot is four 32-bit words: the hash of the token's bytes;
// rank + 1 (0: empty) in the low RANK_BITS bits and the byte length above;
// then the bytes themselves, little-endian, when there are at most 8 of
// them, else where they start in the long tokens' byte array.
const RANK_BITS = 20;
const RANK_MASK = (1 << RANK_BITS) - 1;
const MAX_TOKEN_LENGTH = (1 << (31 - RANK_BITS)) - 1;
const INLINE_BYTES = 8;
const NONE = 0x7fffffff;

/**
 * The vocabulary keyed by each token's bytes: an open-addressing table
 * whose 16-byte slots hold a token's hash, rank, length and (up to 8 bytes)
 * the bytes themselves, so that a lookup by a range of a byte string reads
 * one cache line, with no substring; longer tokens' bytes are in one
 * separate array.
 */
class Vocabulary {
  /** The rank of each two-byte token at first byte | (second << 8), else NONE. */
  readonly pairs: Int32Array = new Int32Array(1 << 16).fill(NONE);
  #table: Int32Array;
  #mask: number;
  #long: Uint8Array;

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
    if (ranks.length >= RANK_MASK) {
      throw new RangeError(
        `Cannot build a token vocabulary of ${ranks.length} ranks: at most ${
          RANK_MASK - 1
        } are supported`,
      );
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
    const table = new Int32Array(4 * slots);
    const mask = slots - 1;
    let longSize = 0;
    for (let i = 0; i < count; i++) {
      const length = offsets[i + 1]! - offsets[i]!;
      if (length > INLINE_BYTES) longSize += length;
    }
    const long = new Uint8Array(longSize);
    let longAt = 0;
    for (let i = 0; i < count; i++) {
      const from = offsets[i]!;
      const length = offsets[i + 1]! - from;
      if (length > MAX_TOKEN_LENGTH) {
        throw new RangeError(
          `Cannot build the token vocabulary: token ${
            i < order.length ? order[i] : byteOrder[i - order.length]
          } is ${length} bytes long, more than ${MAX_TOKEN_LENGTH}`,
        );
      }
      let lo = 0;
      let hi = 0;
      let hash = FNV_OFFSET;
      if (length <= INLINE_BYTES) {
        for (let k = 0; k < length; k++) {
          if (k < 4) lo |= blob[from + k]! << (8 * k);
          else hi |= blob[from + k]! << (8 * (k - 4));
        }
        hash = packedHash(lo, hi, length);
      } else {
        for (let k = from; k < from + length; k++) {
          hash = Math.imul(hash ^ blob[k]!, FNV_PRIME);
        }
      }
      let slot = hash & mask;
      while (table[4 * slot + 1] !== 0) slot = (slot + 1) & mask;
      const p = 4 * slot;
      const rank = i < order.length ? order[i]! : byteOrder[i - order.length]!;
      table[p] = hash;
      table[p + 1] = (rank + 1) | (length << RANK_BITS);
      if (length === 2) this.pairs[blob[from]! | (blob[from + 1]! << 8)] = rank;
      if (length <= INLINE_BYTES) {
        table[p + 2] = lo;
        table[p + 3] = hi;
      } else {
        long.set(blob.subarray(from, from + length), longAt);
        table[p + 2] = longAt;
        longAt += length;
      }
    }
    this.#table = table;
    this.#mask = mask;
    this.#long = long;
  }

  /**
   * The rank of the token of `length` ≤ 8 bytes packed little-endian in
   * `lo` and `hi`, whose {@linkcode packedHash} is `hash`, or -1.
   */
  findPacked(hash: number, length: number, lo: number, hi: number): number {
    const table = this.#table;
    for (let slot = hash & this.#mask;; slot = (slot + 1) & this.#mask) {
      const p = slot << 2;
      const meta = table[p + 1]!;
      if (meta === 0) return -1;
      if (
        table[p] === hash && meta >>> RANK_BITS === length &&
        table[p + 2] === lo && table[p + 3] === hi
      ) return (meta & RANK_MASK) - 1;
    }
  }

  /**
   * The rank of the token of more than 8 bytes `bytes[from, to)` (one
   * character a byte), whose FNV-1a hash is `hash`, or -1.
   */
  findLong(bytes: string, from: number, to: number, hash: number): number {
    const table = this.#table;
    const long = this.#long;
    const length = to - from;
    for (let slot = hash & this.#mask;; slot = (slot + 1) & this.#mask) {
      const p = slot << 2;
      const meta = table[p + 1]!;
      if (meta === 0) return -1;
      if (table[p] !== hash || meta >>> RANK_BITS !== length) continue;
      const o = table[p + 2]! - from;
      let k = from;
      while (k < to && long[o + k] === bytes.charCodeAt(k)) k++;
      if (k === to) return (meta & RANK_MASK) - 1;
    }
  }

  /** The rank of the token `bytes[from, to)` (one character a byte), or -1. */
  find(bytes: string, from: number, to: number): number {
    const length = to - from;
    if (length > INLINE_BYTES) {
      let hash = FNV_OFFSET;
      for (let k = from; k < to; k++) {
        hash = Math.imul(hash ^ bytes.charCodeAt(k), FNV_PRIME);
      }
      return this.findLong(bytes, from, to, hash);
    }
    let lo = 0;
    let hi = 0;
    for (let k = 0; k < length; k++) {
      if (k < 4) lo |= bytes.charCodeAt(from + k) << (8 * k);
      else hi |= bytes.charCodeAt(from + k) << (8 * (k - 4));
    }
    return this.findPacked(packedHash(lo, hi, length), length, lo, hi);
  }
}

/**
 * The byte-pair merge, counting the parts it leaves of a piece (a range of
 * a byte string, one character a byte): repeatedly merge the adjacent pair
 * of lowest rank, the leftmost of equals, until no adjacent pair is a
 * token. Two parts join when their bytes together are a token, so each
 * candidate is one vocabulary lookup; a part of up to 8 bytes is kept
 * packed as the vocabulary's slots hold it, so that a candidate of up to 8
 * bytes is looked up without reading the bytes again.
 */
class Merger {
  #vocab: Vocabulary;
  #start = new Int32Array(64);
  #rank = new Int32Array(64);
  #lo = new Int32Array(64);
  #hi = new Int32Array(64);

  constructor(vocab: Vocabulary) {
    this.#vocab = vocab;
  }

  /** The rank of parts i and i + 1 joined, or NONE. */
  #join(bytes: string, i: number): number {
    const start = this.#start;
    const from = start[i]!;
    const middle = start[i + 1]!;
    const to = start[i + 2]!;
    const a = middle - from;
    const length = to - from;
    let rank: number;
    if (length <= INLINE_BYTES) {
      const loB = this.#lo[i + 1]!;
      let lo: number;
      let hi: number;
      if (a >= 4) {
        lo = this.#lo[i]!;
        hi = this.#hi[i]! | (loB << (8 * (a - 4)));
      } else {
        const shift = 8 * a;
        lo = this.#lo[i]! | (loB << shift);
        hi = (loB >>> (32 - shift)) | (this.#hi[i + 1]! << shift);
      }
      rank = this.#vocab.findPacked(packedHash(lo, hi, length), length, lo, hi);
    } else {
      rank = this.#vocab.find(bytes, from, to);
    }
    return rank < 0 ? NONE : rank;
  }

  count(bytes: string, from: number, to: number): number {
    const n = to - from;
    if (n < 2) return n;
    if (this.#start.length <= n) {
      const size = 2 * (n + 1);
      this.#start = new Int32Array(size);
      this.#rank = new Int32Array(size);
      this.#lo = new Int32Array(size);
      this.#hi = new Int32Array(size);
    }
    // Part i is bytes [start[i], start[i + 1]), packed in lo[i] and hi[i]
    // while it has at most 8; rank[i] is the rank of parts i and i + 1
    // joined (NONE: no token, or no part i + 1).
    const start = this.#start;
    const rank = this.#rank;
    const lo = this.#lo;
    const hi = this.#hi;
    const pairs = this.#vocab.pairs;
    let next = bytes.charCodeAt(from);
    for (let i = 0; i < n - 1; i++) {
      const c = next;
      next = bytes.charCodeAt(from + i + 1);
      start[i] = from + i;
      lo[i] = c;
      hi[i] = 0;
      rank[i] = pairs[c | (next << 8)]!;
    }
    start[n - 1] = to - 1;
    lo[n - 1] = next;
    hi[n - 1] = 0;
    start[n] = to;
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
      const a = start[at + 1]! - start[at]!;
      if (start[at + 2]! - start[at]! <= INLINE_BYTES) {
        const loB = lo[at + 1]!;
        if (a >= 4) hi[at] = hi[at]! | (loB << (8 * (a - 4)));
        else {
          const shift = 8 * a;
          hi[at] = (loB >>> (32 - shift)) | (hi[at + 1]! << shift);
          lo[at] = lo[at]! | (loB << shift);
        }
      }
      parts--;
      for (let i = at + 1; i < parts; i++) {
        start[i] = start[i + 1]!;
        lo[i] = lo[i + 1]!;
        hi[i] = hi[i + 1]!;
      }
      start[parts] = to;
      for (let i = at; i < parts - 1; i++) rank[i] = rank[i + 1]!;
      rank[parts - 1] = NONE;
      if (at + 1 < parts) rank[at] = this.#join(bytes, at);
      if (at > 0) rank[at - 1] = this.#join(bytes, at - 1);
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
