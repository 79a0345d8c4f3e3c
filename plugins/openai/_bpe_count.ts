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
 *   up (~10 µs a piece), and it encodes each piece to UTF-8 on its own:
 *   here the whole text is encoded once (`encodeInto` a kept buffer) and a
 *   piece, a part and a candidate are ranges of those bytes; the
 *   vocabulary is keyed by each token's UTF-8 bytes;
 * - its vocabulary is a `Map` of 200 000 strings, whose chains of string
 *   objects cost several cache misses a lookup: here it is one
 *   open-addressing table of 16-byte slots (hash, rank and length, then a
 *   token of up to 8 bytes itself, packed in two words), so that a lookup
 *   reads one cache line with no substring; a piece of 3 to 8 bytes is
 *   read as two words of the buffer, hashed and compared as such, a
 *   two-byte one is read from a 65 536-entry table, and a longer one is
 *   hashed by a polynomial hash that the merge joins from its parts'
 *   hashes without reading their bytes again;
 * - its merge scans the ranks of all adjacent pairs for the lowest after
 *   each merge, O(n²) on a long piece (a rule of dashes, a run of spaces):
 *   here a piece of up to 24 bytes is scanned the same way (in typed
 *   arrays), a longer one keeps its pairs in a heap, O(n log n);
 * - a piece that is not one token is merged once: its count is kept in a
 *   bounded memo (typed arrays and a byte arena, looked up by range)
 *   across calls in the plugin process; a piece that is one token needs no
 *   memo (its vocabulary lookup is the answer);
 * - `matchAll` allocates a match array per piece: for o200k, ASCII pieces
 *   are cut from the bytes by {@linkcode o200kAsciiPiece}, a hand-written
 *   equivalent of the regex; elsewhere a sticky copy of the regex runs
 *   with `test` on the text.
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
   * only, over the text's UTF-8 bytes: the end of the piece that starts at
   * byte `start` (`end` is where the bytes end), or -1 when a byte it
   * would have to look at is not ASCII (the regex decides). Without it,
   * the regex splits every piece.
   */
  asciiPiece?: (bytes: Uint8Array, start: number, end: number) => number;
}

const DEFAULT_MEMO_SIZE = 32768;
/** The UTF-8 buffer a counter keeps between counts, at most (bytes). */
const KEPT_BUFFER_BYTES = 1 << 20;
/** The longest piece whose merge arrays a counter keeps between merges. */
const KEPT_MERGE_PARTS = 8192;
/** Pieces longer than this are merged with a heap rather than by scans. */
const SCAN_MERGE_MAX = 24;

/** Counts tokens of one encoding (see the module doc). */
export class BpeCounter {
  #ranks: BpeRanks | undefined;
  #vocabulary: Vocabulary | undefined;
  #merger: Merger | undefined;
  #split: RegExp;
  #pattern: RegExp;
  #asciiPiece:
    | ((bytes: Uint8Array, start: number, end: number) => number)
    | undefined;
  #memo: PieceMemo;
  #encoder = new TextEncoder();
  /** The UTF-8 bytes of the text being counted (8 bytes of slack). */
  #bytes = new Uint8Array(0);
  #view = new DataView(this.#bytes.buffer);
  /** Set by {@linkcode BpeCounter.#utf8End}: the range has a lone surrogate. */
  #lone = false;

  /**
   * A counter whose vocabulary table is built on its first count.
   *
   * @param ranks The encoding's vocabulary, index = rank.
   * @param split The encoding's pre-tokenizer regex, with the `u` or `v`
   *   flag (its flags are kept; the counter runs its own copies).
   * @param options Memo size and ASCII splitter.
   */
  constructor(ranks: BpeRanks, split: RegExp, options: BpeCounterOptions = {}) {
    if (!split.unicode && !split.unicodeSets) {
      throw new TypeError(
        `Cannot count tokens with the split regex /${split.source}/${split.flags}: it needs the u or v flag, so that no piece ends inside a surrogate pair`,
      );
    }
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
    const n = text.length;
    if (n === 0) return 0;
    // The whole text in UTF-8 at once (each lone surrogate as U+FFFD, as
    // gpt-tokenizer's TextEncoder writes it); pieces are ranges of it.
    if (this.#bytes.length < 3 * n + 8) {
      this.#bytes = new Uint8Array(3 * n + 8);
      this.#view = new DataView(this.#bytes.buffer);
    }
    const bytes = this.#bytes;
    try {
      const size = this.#encoder.encodeInto(text, bytes).written;
      const re = this.#split;
      const ascii = this.#asciiPiece;
      let total = 0;
      let at = 0; // in the text
      let b = 0; // in its bytes
      while (b < size) {
        const e = ascii === undefined ? -1 : ascii(bytes, b, size);
        if (e >= 0) {
          total += this.#countPiece(vocab, b, e, true);
          at += e - b;
          b = e;
          continue;
        }
        re.lastIndex = at;
        if (!re.test(text) || re.lastIndex <= at) {
          // No piece starts here (the regexes here have none such): count
          // the rest as `matchAll` would, skipping what no piece covers.
          return total + this.#countRest(vocab, text, at, b);
        }
        const stop = re.lastIndex;
        const e2 = this.#utf8End(text, at, stop, b);
        total += this.#countPiece(vocab, b, e2, !this.#lone);
        at = stop;
        b = e2;
      }
      return total;
    } finally {
      if (bytes.length > KEPT_BUFFER_BYTES) {
        this.#bytes = new Uint8Array(0);
        this.#view = new DataView(this.#bytes.buffer);
      }
    }
  }

  /**
   * Drops the memo, so that the next count sees its text as new: nothing
   * learned from earlier input is left (the vocabulary stays; the UTF-8
   * buffer is overwritten by each count and never read beyond it).
   */
  clearMemo(): void {
    this.#memo.clear();
  }

  /**
   * Where the UTF-8 bytes of `text[from, to)` end when they start at byte
   * `b`; sets `#lone` when the range has a lone surrogate.
   */
  #utf8End(text: string, from: number, to: number, b: number): number {
    let lone = false;
    for (let k = from; k < to; k++) {
      const c = text.charCodeAt(k);
      if (c < 0x80) b += 1;
      else if (c < 0x800) b += 2;
      else if ((c & 0xfc00) === 0xd800) {
        const d = k + 1 < to ? text.charCodeAt(k + 1) : 0;
        if ((d & 0xfc00) === 0xdc00) {
          b += 4;
          k++;
        } else {
          b += 3;
          lone = true;
        }
      } else {
        if ((c & 0xfc00) === 0xdc00) lone = true;
        b += 3;
      }
    }
    this.#lone = lone;
    return b;
  }

  #countRest(vocab: Vocabulary, text: string, from: number, b: number): number {
    const re = this.#pattern;
    re.lastIndex = from;
    let total = 0;
    let at = from;
    let m: RegExpExecArray | null;
    while ((m = re.exec(text)) !== null) {
      if (m[0] === "") {
        re.lastIndex++;
        continue;
      }
      b = this.#utf8End(text, at, m.index, b);
      at = m.index + m[0].length;
      const e = this.#utf8End(text, m.index, at, b);
      total += this.#countPiece(vocab, b, e, !this.#lone);
      b = e;
    }
    return total;
  }

  /**
   * The count of the piece `#bytes[start, end)`. `whole`: the piece may be
   * one token (false when it has a lone surrogate: gpt-tokenizer looks the
   * piece up by its text, which no token has, and merges its bytes).
   */
  #countPiece(
    vocab: Vocabulary,
    start: number,
    end: number,
    whole: boolean,
  ): number {
    const length = end - start;
    const bytes = this.#bytes;
    let hash: number;
    if (length <= INLINE_BYTES) {
      // One byte is one token; two are one token or two.
      if (length === 1) return 1;
      if (length === 2) {
        return vocab.pairs[bytes[start]! | (bytes[end - 1]! << 8)]! === NONE
          ? 2
          : 1;
      }
      // Up to 8 bytes packed little-endian in two words, the rest zero.
      const view = this.#view;
      let lo = view.getInt32(start, true);
      let hi = 0;
      if (length < 4) lo &= 0xffffff;
      else if (length < 8) {
        hi = view.getInt32(start + 4, true) & LOW_BYTES[length - 4]!;
      } else hi = view.getInt32(start + 4, true);
      hash = packedHash(lo, hi, length);
      if (whole && vocab.findPacked(hash, length, lo, hi) >= 0) return 1;
    } else {
      let raw = 0;
      for (let i = start; i < end; i++) {
        raw = (Math.imul(raw, POLY) + bytes[i]!) | 0;
      }
      hash = longHash(raw, length);
      if (whole && vocab.findLong(bytes, start, end, hash) >= 0) return 1;
    }
    // Not one token: its merge, the same for any piece of these bytes.
    let n = this.#memo.get(bytes, start, end, hash);
    if (n < 0) {
      n = this.#merger!.count(bytes, start, end);
      this.#memo.set(bytes, start, end, hash, n);
    }
    return n;
  }
}

/** The low 0 to 3 bytes of a word, for a packed tail of 4 + i bytes. */
const LOW_BYTES = new Int32Array([0, 0xff, 0xffff, 0xffffff]);
/**
 * The multiplier of the polynomial hash of more than 8 bytes: raw(s) =
 * Σ s[i]·POLY^(n-1-i) mod 2^32, so that raw(a + b) = raw(a)·POLY^|b| +
 * raw(b) joins two parts' hashes without reading their bytes.
 */
const POLY = 0x01000193;

/** The hash of more than 8 bytes whose polynomial hash is `raw`. */
function longHash(raw: number, length: number): number {
  let h = raw ^ Math.imul(length, 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

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
 * Bytes → merge count for pieces that are not one token, looked up by a
 * range of the text's bytes so that a piece seen before costs no copy:
 * open addressing over one typed array (per slot: hash, where the piece's
 * bytes start in a byte arena, its length, its count), at most half full.
 * When it holds `limit` pieces it starts over.
 */
class PieceMemo {
  #limit: number;
  #size = 0;
  #slots: Int32Array;
  #mask: number;
  #arena = new Uint8Array(8192);
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

  /** The count of `bytes[start..end)`, or -1. */
  get(bytes: Uint8Array, start: number, end: number, hash: number): number {
    const slots = this.#slots;
    const arena = this.#arena;
    const length = end - start;
    for (let slot = hash & this.#mask;; slot = (slot + 1) & this.#mask) {
      const p = slot << 2;
      const n = slots[p + 2]!;
      if (n === 0) return -1;
      if (slots[p] !== hash || n !== length) continue;
      const o = slots[p + 1]! - start;
      let i = start;
      while (i < end && arena[o + i] === bytes[i]) i++;
      if (i === end) return slots[p + 3]!;
    }
  }

  /** Remembers a piece that `get` did not find. */
  set(
    bytes: Uint8Array,
    start: number,
    end: number,
    hash: number,
    count: number,
  ): void {
    if (this.#size >= this.#limit) this.clear();
    const length = end - start;
    if (this.#used + length > this.#arena.length) {
      let size = 2 * this.#arena.length;
      while (size < this.#used + length) size *= 2;
      const arena = new Uint8Array(size);
      arena.set(this.#arena.subarray(0, this.#used));
      this.#arena = arena;
    }
    const o = this.#used;
    const arena = this.#arena;
    for (let i = 0; i < length; i++) arena[o + i] = bytes[start + i]!;
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
    if (this.#arena.length > 1 << 21) this.#arena = new Uint8Array(8192);
  }
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
  /** The length of the longest token, in bytes. */
  readonly maxLength: number;
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
    let maxLength = 0;
    for (let i = 0; i < count; i++) {
      const length = offsets[i + 1]! - offsets[i]!;
      if (length > INLINE_BYTES) longSize += length;
      if (length > maxLength) maxLength = length;
    }
    this.maxLength = maxLength;
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
      let hash: number;
      if (length <= INLINE_BYTES) {
        for (let k = 0; k < length; k++) {
          if (k < 4) lo |= blob[from + k]! << (8 * k);
          else hi |= blob[from + k]! << (8 * (k - 4));
        }
        hash = packedHash(lo, hi, length);
      } else {
        let raw = 0;
        for (let k = from; k < from + length; k++) {
          raw = (Math.imul(raw, POLY) + blob[k]!) | 0;
        }
        hash = longHash(raw, length);
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
   * The rank of the token of more than 8 bytes `bytes[from, to)`, whose
   * {@linkcode longHash} is `hash`, or -1.
   */
  findLong(bytes: Uint8Array, from: number, to: number, hash: number): number {
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
      while (k < to && long[o + k] === bytes[k]) k++;
      if (k === to) return (meta & RANK_MASK) - 1;
    }
  }

  /** The rank of the token `bytes[from, to)`, or -1. */
  find(bytes: Uint8Array, from: number, to: number): number {
    const length = to - from;
    if (length > INLINE_BYTES) {
      let raw = 0;
      for (let k = from; k < to; k++) {
        raw = (Math.imul(raw, POLY) + bytes[k]!) | 0;
      }
      return this.findLong(bytes, from, to, longHash(raw, length));
    }
    let lo = 0;
    let hi = 0;
    for (let k = 0; k < length; k++) {
      if (k < 4) lo |= bytes[from + k]! << (8 * k);
      else hi |= bytes[from + k]! << (8 * (k - 4));
    }
    return this.findPacked(packedHash(lo, hi, length), length, lo, hi);
  }
}

/**
 * The byte-pair merge, counting the parts it leaves of a piece (a range of
 * the text's UTF-8 bytes): repeatedly merge the adjacent pair of lowest
 * rank, the leftmost of equals, until no adjacent pair is a token. Two
 * parts join when their bytes together are a token, so each candidate is
 * one vocabulary lookup; a part of up to 8 bytes is kept packed as the
 * vocabulary's slots hold it, so that a candidate of up to 8 bytes is
 * looked up without reading the bytes again. The rank of each adjacent
 * pair is kept, and a merge looks up only the two pairs it changes.
 *
 * A piece of up to {@linkcode SCAN_MERGE_MAX} bytes finds its lowest pair
 * by a scan of the ranks; a longer one (a rule of dashes, a run of
 * spaces) keeps its pairs in a heap ordered by rank, then position, which
 * pops the same pair the scan would find in O(log n) rather than O(n).
 */
class Merger {
  #vocab: Vocabulary;
  // Per part (scan: index; heap: the part's first byte): where it starts
  // (scan) or the next part (heap), the rank of it and the next part
  // joined, its bytes packed while it has at most 8.
  #start = new Int32Array(64);
  #rank = new Int32Array(64);
  #lo = new Int32Array(64);
  #hi = new Int32Array(64);
  #raw = new Int32Array(64);
  #prev = new Int32Array(64);
  #heap = new Float64Array(192);
  /** POLY^k mod 2^32 at k. */
  #pow = powers(64);

  constructor(vocab: Vocabulary) {
    this.#vocab = vocab;
  }

  #grow(n: number): void {
    const size = 2 * (n + 1);
    this.#start = new Int32Array(size);
    this.#rank = new Int32Array(size);
    this.#lo = new Int32Array(size);
    this.#hi = new Int32Array(size);
    this.#raw = new Int32Array(size);
    this.#prev = new Int32Array(size);
    this.#pow = powers(size);
    this.#heap = new Float64Array(3 * size);
  }

  /**
   * The rank of the token made of part i, bytes [from, middle), and part
   * j, bytes [middle, to), or NONE: from their packed words when the two
   * have up to 8 bytes, else from their polynomial hashes.
   */
  #join(
    bytes: Uint8Array,
    from: number,
    middle: number,
    to: number,
    i: number,
    j: number,
  ): number {
    const length = to - from;
    let rank: number;
    if (length <= INLINE_BYTES) {
      const a = middle - from;
      const loB = this.#lo[j]!;
      let lo: number;
      let hi: number;
      if (a >= 4) {
        lo = this.#lo[i]!;
        hi = this.#hi[i]! | (loB << (8 * (a - 4)));
      } else {
        const shift = 8 * a;
        lo = this.#lo[i]! | (loB << shift);
        hi = (loB >>> (32 - shift)) | (this.#hi[j]! << shift);
      }
      rank = this.#vocab.findPacked(packedHash(lo, hi, length), length, lo, hi);
    } else {
      if (length > this.#vocab.maxLength) return NONE;
      const raw = (Math.imul(this.#raw[i]!, this.#pow[to - middle]!) +
        this.#raw[j]!) | 0;
      rank = this.#vocab.findLong(bytes, from, to, longHash(raw, length));
    }
    return rank < 0 ? NONE : rank;
  }

  /** Joins part j (bytes [middle, to)) onto part i (bytes [from, middle)). */
  #pack(from: number, middle: number, to: number, i: number, j: number) {
    this.#raw[i] = (Math.imul(this.#raw[i]!, this.#pow[to - middle]!) +
      this.#raw[j]!) | 0;
    if (to - from > INLINE_BYTES) return;
    const lo = this.#lo;
    const hi = this.#hi;
    const a = middle - from;
    const loB = lo[j]!;
    if (a >= 4) hi[i] = hi[i]! | (loB << (8 * (a - 4)));
    else {
      const shift = 8 * a;
      hi[i] = (loB >>> (32 - shift)) | (hi[j]! << shift);
      lo[i] = lo[i]! | (loB << shift);
    }
  }

  count(bytes: Uint8Array, from: number, to: number): number {
    const n = to - from;
    if (n < 2) return n;
    if (n <= SCAN_MERGE_MAX) {
      if (this.#start.length <= n) this.#grow(n);
      return this.#countByScan(bytes, from, to);
    }
    if (this.#start.length <= n) this.#grow(n);
    try {
      return this.#countByHeap(bytes, from, to);
    } finally {
      // ~100 bytes a byte of the piece: let go of what a huge one took.
      if (this.#start.length > KEPT_MERGE_PARTS) this.#grow(31);
    }
  }

  #countByScan(bytes: Uint8Array, from: number, to: number): number {
    const n = to - from;
    // Part i is bytes [start[i], start[i + 1]), packed in lo[i] and hi[i]
    // while it has at most 8; rank[i] is the rank of parts i and i + 1
    // joined (NONE: no token, or no part i + 1).
    const start = this.#start;
    const rank = this.#rank;
    const lo = this.#lo;
    const hi = this.#hi;
    const raw = this.#raw;
    const pairs = this.#vocab.pairs;
    let next = bytes[from]!;
    for (let i = 0; i < n - 1; i++) {
      const c = next;
      next = bytes[from + i + 1]!;
      start[i] = from + i;
      lo[i] = c;
      hi[i] = 0;
      raw[i] = c;
      rank[i] = pairs[c | (next << 8)]!;
    }
    start[n - 1] = to - 1;
    lo[n - 1] = next;
    hi[n - 1] = 0;
    raw[n - 1] = next;
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
      this.#pack(start[at]!, start[at + 1]!, start[at + 2]!, at, at + 1);
      parts--;
      for (let i = at + 1; i < parts; i++) {
        start[i] = start[i + 1]!;
        lo[i] = lo[i + 1]!;
        hi[i] = hi[i + 1]!;
        raw[i] = raw[i + 1]!;
      }
      start[parts] = to;
      for (let i = at; i < parts - 1; i++) rank[i] = rank[i + 1]!;
      rank[parts - 1] = NONE;
      if (at + 1 < parts) {
        rank[at] = this.#join(
          bytes,
          start[at]!,
          start[at + 1]!,
          start[at + 2]!,
          at,
          at + 1,
        );
      }
      if (at > 0) {
        rank[at - 1] = this.#join(
          bytes,
          start[at - 1]!,
          start[at]!,
          start[at + 1]!,
          at - 1,
          at,
        );
      }
    }
    return parts;
  }

  #countByHeap(bytes: Uint8Array, from: number, to: number): number {
    const n = to - from;
    // A part is named by its first byte's index i (from 0): it is bytes
    // [i, next[i]) of the piece, next[i] = -1 once merged into the part
    // before it; prev[i] the part before; rank[i] the rank of i and the
    // next part joined (NONE: no token, or no next part). The heap holds
    // rank * 2^32 + i for each rank computed; an entry whose rank is no
    // longer the part's is stale and skipped when popped.
    const next = this.#start;
    const prev = this.#prev;
    const rank = this.#rank;
    const lo = this.#lo;
    const hi = this.#hi;
    const raw = this.#raw;
    const heap = this.#heap;
    const pairs = this.#vocab.pairs;
    let size = 0;
    for (let i = 0; i < n; i++) {
      next[i] = i + 1;
      prev[i] = i - 1;
      lo[i] = bytes[from + i]!;
      hi[i] = 0;
      raw[i] = bytes[from + i]!;
      const r = i + 1 < n
        ? pairs[bytes[from + i]! | (bytes[from + i + 1]! << 8)]!
        : NONE;
      rank[i] = r;
      if (r !== NONE) size = heapPush(heap, size, r * 4294967296 + i);
    }
    let parts = n;
    while (size > 0) {
      const key = heap[0]!;
      size = heapPop(heap, size);
      const r = Math.floor(key / 4294967296);
      const i = key - r * 4294967296;
      if (next[i] === -1 || rank[i] !== r) continue;
      // Parts i and j become one, ending at k.
      const j = next[i]!;
      const k = next[j]!;
      this.#pack(i, j, k, i, j);
      next[i] = k;
      next[j] = -1;
      if (k < n) prev[k] = i;
      parts--;
      if (k < n) {
        const r2 = this.#join(bytes, from + i, from + k, from + next[k]!, i, k);
        rank[i] = r2;
        if (r2 !== NONE) size = heapPush(heap, size, r2 * 4294967296 + i);
      } else rank[i] = NONE;
      const h = prev[i]!;
      if (h >= 0) {
        const r2 = this.#join(bytes, from + h, from + i, from + k, h, i);
        rank[h] = r2;
        if (r2 !== NONE) size = heapPush(heap, size, r2 * 4294967296 + h);
      }
    }
    return parts;
  }
}

/** POLY^k mod 2^32 for k < size. */
function powers(size: number): Int32Array {
  const pow = new Int32Array(size);
  pow[0] = 1;
  for (let k = 1; k < size; k++) pow[k] = Math.imul(pow[k - 1]!, POLY);
  return pow;
}

/** Adds `key` to the binary min-heap of `size` keys; the new size. */
function heapPush(heap: Float64Array, size: number, key: number): number {
  let i = size;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    const p = heap[parent]!;
    if (p <= key) break;
    heap[i] = p;
    i = parent;
  }
  heap[i] = key;
  return size + 1;
}

/** Removes the least key of the binary min-heap of `size`; the new size. */
function heapPop(heap: Float64Array, size: number): number {
  const last = heap[--size]!;
  let i = 0;
  for (;;) {
    let child = 2 * i + 1;
    if (child >= size) break;
    if (child + 1 < size && heap[child + 1]! < heap[child]!) child++;
    if (heap[child]! >= last) break;
    heap[i] = heap[child]!;
    i = child;
  }
  heap[i] = last;
  return size;
}

// Character classes of ASCII for the o200k and cl100k split regexes.
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
 * @param bytes The text in UTF-8.
 * @param start Where the piece starts.
 * @param n Where the text ends (`bytes` may go on).
 * @returns Where it ends, or -1 when a byte that decides is not ASCII.
 */
export function o200kAsciiPiece(
  bytes: Uint8Array,
  start: number,
  n: number,
): number {
  const c = bytes[start]!;
  if (c >= 0x80) return -1;
  const kind = ASCII_CLASS[c]!;
  if (kind & (LOWER | UPPER)) return letters(bytes, start, n);
  if (kind & DIGIT) {
    let e = start + 1;
    for (; e < n && e < start + 3; e++) {
      const d = bytes[e]!;
      if (d >= 0x80) return -1;
      if (!(ASCII_CLASS[d]! & DIGIT)) break;
    }
    return e;
  }
  // c may prefix a word (alternatives 1 and 2) unless it is a newline.
  const next = start + 1 < n ? bytes[start + 1]! : -1;
  if (next >= 0x80) return -1;
  const nextKind = next < 0 ? 0 : ASCII_CLASS[next]!;
  if (!(kind & NEWLINE) && nextKind & (LOWER | UPPER)) {
    return letters(bytes, start + 1, n);
  }
  if (kind & OTHER || (c === 0x20 && nextKind & OTHER)) {
    let e = kind & OTHER ? start + 1 : start + 2;
    for (; e < n; e++) {
      const d = bytes[e]!;
      if (d >= 0x80) return -1;
      if (!(ASCII_CLASS[d]! & OTHER)) break;
    }
    // [\r\n/]*: a slash after a newline is taken too.
    for (; e < n; e++) {
      const d = bytes[e]!;
      if (d !== 0x0a && d !== 0x0d && d !== SLASH) break;
    }
    return e;
  }
  // Whitespace: alternatives 5 to 7.
  let e = start;
  let lastNewline = -1;
  for (; e < n; e++) {
    const d = bytes[e]!;
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
function letters(bytes: Uint8Array, from: number, n: number): number {
  let e = from;
  let d = 0;
  for (; e < n; e++) {
    d = bytes[e]!;
    if (d >= 0x80) return -1;
    if (!(ASCII_CLASS[d]! & UPPER)) break;
  }
  for (; e < n; e++) {
    d = bytes[e]!;
    if (d >= 0x80) return -1;
    if (!(ASCII_CLASS[d]! & LOWER)) break;
  }
  if (e < n && d === APOSTROPHE) {
    // 's 'd 'm 't 'll 've 're, either case.
    // (A byte past n reads as 0, or as a byte of no ASCII letter.)
    const a = (e + 1 < n ? bytes[e + 1]! : 0) | 0x20;
    const b = (e + 2 < n ? bytes[e + 2]! : 0) | 0x20;
    if (a === 0x73 || a === 0x64 || a === 0x6d || a === 0x74) return e + 2;
    if (
      (a === 0x6c && b === 0x6c) || (a === 0x76 && b === 0x65) ||
      (a === 0x72 && b === 0x65)
    ) return e + 3;
  }
  return e;
}

/**
 * The cl100k_base split regex for ASCII text (see
 * {@linkcode BpeCounterOptions.asciiPiece}). The regex, alternative by
 * alternative (the first that matches wins):
 *
 * 1. `'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])`
 * 2. `[^\r\n\p{L}\p{N}]?\p{L}+`
 * 3. `\p{N}{1,3}`
 * 4. ` ?[^\s\p{L}\p{N}]+[\r\n]*`
 * 5. `\s+$`
 * 6. `\s*[\r\n]`
 * 7. `\s+(?!\S)`
 * 8. `\s`
 *
 * In ASCII: a contraction stands alone; a word may take one character
 * before it that is no letter, digit or newline; a whitespace run that
 * ends the text is one piece, else it ends after its last newline, else
 * it leaves its last character to the next piece unless it has only one.
 *
 * @param bytes The text in UTF-8.
 * @param start Where the piece starts.
 * @param n Where the text ends (`bytes` may go on).
 * @returns Where it ends, or -1 when a byte that decides is not ASCII.
 */
export function cl100kAsciiPiece(
  bytes: Uint8Array,
  start: number,
  n: number,
): number {
  const c = bytes[start]!;
  if (c >= 0x80) return -1;
  const kind = ASCII_CLASS[c]!;
  if (c === APOSTROPHE && start + 1 < n) {
    const a = bytes[start + 1]! | 0x20;
    if (a === 0x73 || a === 0x64 || a === 0x6d || a === 0x74) return start + 2;
    if (start + 2 < n) {
      const b = bytes[start + 2]! | 0x20;
      if (
        (a === 0x6c && b === 0x6c) || (a === 0x76 && b === 0x65) ||
        (a === 0x72 && b === 0x65)
      ) return start + 3;
    }
  }
  if (kind & (LOWER | UPPER)) return asciiLetters(bytes, start + 1, n);
  if (kind & DIGIT) {
    let e = start + 1;
    for (; e < n && e < start + 3; e++) {
      const d = bytes[e]!;
      if (d >= 0x80) return -1;
      if (!(ASCII_CLASS[d]! & DIGIT)) break;
    }
    return e;
  }
  const next = start + 1 < n ? bytes[start + 1]! : -1;
  if (next >= 0x80) return -1;
  const nextKind = next < 0 ? 0 : ASCII_CLASS[next]!;
  // c may prefix a word unless it is a newline.
  if (!(kind & NEWLINE) && nextKind & (LOWER | UPPER)) {
    return asciiLetters(bytes, start + 2, n);
  }
  if (kind & OTHER || (c === 0x20 && nextKind & OTHER)) {
    let e = kind & OTHER ? start + 1 : start + 2;
    for (; e < n; e++) {
      const d = bytes[e]!;
      if (d >= 0x80) return -1;
      if (!(ASCII_CLASS[d]! & OTHER)) break;
    }
    for (; e < n; e++) {
      const d = bytes[e]!;
      if (d !== 0x0a && d !== 0x0d) break;
    }
    return e;
  }
  // Whitespace: alternatives 5 to 8.
  let e = start;
  let lastNewline = -1;
  for (; e < n; e++) {
    const d = bytes[e]!;
    if (d >= 0x80) return -1;
    const k = ASCII_CLASS[d]!;
    if (!(k & SPACE)) break;
    if (k & NEWLINE) lastNewline = e;
  }
  if (e === n) return e;
  if (lastNewline >= 0) return lastNewline + 1;
  if (e - start === 1) return e;
  return e - 1;
}

/** The end of a run of letters that goes on at `from` (cl100k). */
function asciiLetters(bytes: Uint8Array, from: number, n: number): number {
  let e = from;
  for (; e < n; e++) {
    const d = bytes[e]!;
    if (d >= 0x80) return -1;
    if (!(ASCII_CLASS[d]! & (LOWER | UPPER))) break;
  }
  return e;
}
