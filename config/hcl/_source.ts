/**
 * Maps UTF-16 string offsets to {@linkcode Pos} values (1-based line,
 * 1-based column counted in Unicode code points, 0-based UTF-8 byte offset).
 *
 * Positions are computed lazily per offset from a per-line table built in
 * one pass over the text, so a parse only pays for the positions it uses.
 *
 * @module
 */

import type { Pos, SourceRange } from "../../contract/diagnostic.ts";

const NON_ASCII_REGEXP = /[\u0080-\uffff]/;

/** Position lookup for one source text. */
export class SourceMap {
  /** The file's path as shown to the user. */
  readonly file: string;
  /** The full text, including a leading byte order mark if there was one. */
  readonly text: string;
  /** UTF-16 offset where each line starts (line i is index i - 1). */
  #lineStarts: Uint32Array;
  /** UTF-8 byte offset where each line starts. */
  #lineBytes: Uint32Array;
  /** Whether each line (up to its newline) is pure ASCII (1) or not (0). */
  #lineAscii: Uint8Array;

  /**
   * Builds the line table.
   *
   * @param text The source text.
   * @param file The file's path as shown to the user.
   */
  constructor(text: string, file: string) {
    this.file = file;
    this.text = text;
    // Typed arrays sized by a first count of the lines: a large file's
    // table is three arrays off the heap, not three grown by push.
    let lines = 1;
    for (
      let nl = text.indexOf("\n");
      nl !== -1;
      nl = text.indexOf("\n", nl + 1)
    ) lines++;
    const starts = new Uint32Array(lines);
    const bytes = new Uint32Array(lines);
    const ascii = new Uint8Array(lines);
    this.#lineStarts = starts;
    this.#lineBytes = bytes;
    this.#lineAscii = ascii;
    let byte = 0;
    let i = 0;
    // A UTF-8 byte order mark occupies 3 bytes but no column.
    if (text.charCodeAt(0) === 0xfeff) {
      starts[0] = 1;
      bytes[0] = 3;
      byte = 3;
      i = 1;
    }
    if (!NON_ASCII_REGEXP.test(text)) {
      // Pure ASCII (the common case): a byte per unit, lines by indexOf.
      ascii.fill(1);
      let line = 1;
      for (
        let nl = text.indexOf("\n", i);
        nl !== -1;
        nl = text.indexOf("\n", nl + 1)
      ) {
        starts[line] = nl + 1;
        bytes[line] = byte + nl + 1 - i;
        line++;
      }
      return;
    }
    let line = 1;
    let isAscii = true;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x80) {
        byte += 1;
        if (c === 10) {
          ascii[line - 1] = isAscii ? 1 : 0;
          isAscii = true;
          starts[line] = i + 1;
          bytes[line] = byte;
          line++;
        }
      } else {
        isAscii = false;
        if (c < 0x800) byte += 2;
        else if (c >= 0xd800 && c <= 0xdbff) {
          const d = text.charCodeAt(i + 1);
          if (d >= 0xdc00 && d <= 0xdfff) {
            byte += 4;
            i++;
          } else byte += 3; // lone surrogate: encoded as U+FFFD
        } else byte += 3;
      }
    }
    ascii[line - 1] = isAscii ? 1 : 0;
  }

  /**
   * The position of a UTF-16 offset.
   *
   * @param offset An offset into {@linkcode SourceMap.text} (clamped).
   * @returns Its line, column and byte offset.
   */
  pos(offset: number): Pos {
    const text = this.text;
    if (offset > text.length) offset = text.length;
    const starts = this.#lineStarts;
    if (offset < starts[0]!) offset = starts[0]!;
    // Binary search for the last line start <= offset.
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    const start = starts[lo]!;
    if (this.#lineAscii[lo] === 1) {
      return {
        line: lo + 1,
        column: offset - start + 1,
        byte: this.#lineBytes[lo]! + offset - start,
      };
    }
    let column = 1;
    let byte = this.#lineBytes[lo]!;
    for (let i = start; i < offset; i++) {
      const c = text.charCodeAt(i);
      column++;
      if (c < 0x80) byte += 1;
      else if (c < 0x800) byte += 2;
      else if (c >= 0xd800 && c <= 0xdbff) {
        const d = text.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff && i + 1 < offset) {
          byte += 4;
          i++;
        } else byte += 3;
      } else byte += 3;
    }
    return { line: lo + 1, column, byte };
  }

  /**
   * The UTF-16 offset of a position (the inverse of {@linkcode SourceMap.pos}).
   *
   * @param pos A position in this file.
   * @returns The offset into {@linkcode SourceMap.text}.
   */
  offset(pos: Pos): number {
    const line = Math.min(Math.max(pos.line, 1), this.#lineStarts.length);
    let i = this.#lineStarts[line - 1]!;
    if (this.#lineAscii[line - 1] === 1) return i + pos.column - 1;
    for (let c = 1; c < pos.column && i < this.text.length; c++) {
      const code = this.text.charCodeAt(i);
      i += code >= 0xd800 && code <= 0xdbff &&
          this.text.charCodeAt(i + 1) >= 0xdc00 &&
          this.text.charCodeAt(i + 1) <= 0xdfff
        ? 2
        : 1;
    }
    return i;
  }

  /**
   * A source range between two UTF-16 offsets.
   *
   * @param start Start offset (inclusive).
   * @param end End offset (exclusive).
   * @returns The range in this file.
   */
  range(start: number, end: number): SourceRange {
    return new Span(this, start, end);
  }

  /**
   * The range from the start of `range` to an offset of this file.
   *
   * @param range A range in this file.
   * @param end End offset (exclusive).
   * @returns The extended range.
   */
  rangeTo(range: SourceRange, end: number): SourceRange {
    if (range instanceof Span) return range.toOffset(this, end);
    return { file: range.file, start: range.start, end: this.pos(end) };
  }
}

/** A range whose positions a setter replaced (see {@linkcode Span}). */
interface FixedRange {
  file: string;
  start: Pos;
  end: Pos;
}

/**
 * A {@linkcode SourceRange} that keeps the two UTF-16 offsets and its
 * file's {@linkcode SourceMap}, and computes each {@linkcode Pos} when it
 * is read: a large file's syntax tree has millions of ranges, and making
 * three objects (and two line look-ups) for each was a third of the parse,
 * most of which no diagnostic ever prints. Three fields and no cache: every
 * one of those ranges stays alive until the plan is built, so each field is
 * paid for millions of times in the collector's copying and marking, and a
 * position look-up is a binary search over the line table.
 *
 * It reads like a plain range: `file`, `start` and `end` are getters,
 * `toJSON()` gives the plain form, and {@linkcode plainRange} copies it into
 * one (for a diagnostic, whose consumers may spread or compare it).
 */
export class Span implements SourceRange {
  /**
   * Start offset (inclusive) in the file, `NaN` once a setter replaced a
   * position. An own enumerable field, so that `assert.deepEqual` of two
   * spans compares where they are.
   */
  offset: number;
  /** End offset (exclusive), `NaN` once a setter replaced a position. */
  endOffset: number;
  /** The file's position table, or the plain range a setter made. */
  #src: SourceMap | FixedRange;

  /**
   * @param map The file's position table.
   * @param start Start offset (inclusive).
   * @param end End offset (exclusive).
   */
  constructor(map: SourceMap, start: number, end: number) {
    this.#src = map;
    this.offset = start;
    this.endOffset = end;
  }

  /** The file's path as shown to the user. */
  get file(): string {
    return this.#src.file;
  }
  set file(file: string) {
    this.#fix().file = file;
  }

  /** Where the span starts. */
  get start(): Pos {
    const src = this.#src;
    return src instanceof SourceMap ? src.pos(this.offset) : src.start;
  }
  set start(pos: Pos) {
    this.#fix().start = pos;
  }

  /** Where it ends (exclusive). */
  get end(): Pos {
    const src = this.#src;
    return src instanceof SourceMap ? src.pos(this.endOffset) : src.end;
  }
  set end(pos: Pos) {
    this.#fix().end = pos;
  }

  /** Turns this span into a plain range that setters may change. */
  #fix(): FixedRange {
    const src = this.#src;
    if (!(src instanceof SourceMap)) return src;
    const fixed = { file: src.file, start: this.start, end: this.end };
    this.#src = fixed;
    this.offset = this.endOffset = NaN;
    return fixed;
  }

  /**
   * The span from this one's start to `other`'s end, without computing a
   * position when both are spans of the same file.
   *
   * @param other The range whose end ends the result.
   * @returns The joined range.
   */
  to(other: SourceRange): SourceRange {
    const map = this.#src;
    if (
      map instanceof SourceMap && other instanceof Span && other.#src === map
    ) {
      return new Span(map, this.offset, other.endOffset);
    }
    return { file: this.file, start: this.start, end: other.end };
  }

  /**
   * The span from this one's start to an offset of the same file.
   *
   * @param map The file's position table.
   * @param end The end offset (exclusive).
   * @returns The extended range.
   */
  toOffset(map: SourceMap, end: number): SourceRange {
    if (map === this.#src) return new Span(map, this.offset, end);
    return { file: this.file, start: this.start, end: map.pos(end) };
  }

  /** The plain form, for `JSON.stringify`. */
  toJSON(): SourceRange {
    return { file: this.file, start: this.start, end: this.end };
  }
}

/**
 * A plain-object copy of a range (a {@linkcode Span} made plain; any other
 * range returned as it is).
 *
 * @param range A range.
 * @returns A range with `file`, `start` and `end` as own data properties.
 */
export function plainRange(range: SourceRange): SourceRange {
  return range instanceof Span ? range.toJSON() : range;
}

/**
 * The range from `a`'s start to `b`'s end.
 *
 * @param a The first range.
 * @param b The last range.
 * @returns The joined range (a lazy span when both are spans).
 */
export function joinRanges(a: SourceRange, b: SourceRange): SourceRange {
  if (a instanceof Span) return a.to(b);
  return { file: a.file, start: a.start, end: b.end };
}
