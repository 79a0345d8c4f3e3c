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
    const end = text.length;
    let total = 0;
    let start = 0;
    re.lastIndex = 0;
    while (start < end) {
      if (!re.test(text) || re.lastIndex <= start) {
        // No piece starts here (the regexes here have none such): count the
        // rest exactly as `matchAll` would, skipping what no piece covers.
        return total + this.#countRest(text, start, vocab);
      }
      const stop = re.lastIndex;
      total += this.#countPiece(text.slice(start, stop), vocab);
      start = stop;
    }
    return total;
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
