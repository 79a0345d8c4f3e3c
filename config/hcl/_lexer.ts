/**
 * The HCL native-syntax scanner: text → tokens.
 *
 * It follows hashicorp/hcl v2's scanner (the one `npm:@cdktf/hcl2json`
 * runs): a modal scanner with a stack of modes (normal, quoted template,
 * heredoc template), a brace counter that tells a `}` closing an
 * interpolation from one closing an object, and the same token boundaries
 * inside templates (which decide how `$${` and `%%{` escapes are read).
 * Offsets are UTF-16 indices into the text; positions are computed later
 * by {@linkcode SourceMap}. The text is a decoded string, so bytes that are
 * not UTF-8 have already become U+FFFD (the file loader should decode with
 * `fatal: true` to report them); a lone surrogate is read as U+FFFD too.
 *
 * @module
 */

/** Token types. Values are arbitrary small integers. */
export const T = {
  OBrace: 1,
  CBrace: 2,
  OBrack: 3,
  CBrack: 4,
  OParen: 5,
  CParen: 6,
  OQuote: 7,
  CQuote: 8,
  OHeredoc: 9,
  CHeredoc: 10,
  Star: 11,
  Slash: 12,
  Plus: 13,
  Minus: 14,
  Percent: 15,
  Equal: 16,
  EqualOp: 17,
  NotEqual: 18,
  LessThan: 19,
  LessThanEq: 20,
  GreaterThan: 21,
  GreaterThanEq: 22,
  And: 23,
  Or: 24,
  Bang: 25,
  Dot: 26,
  Comma: 27,
  Ellipsis: 28,
  FatArrow: 29,
  Question: 30,
  Colon: 31,
  TemplateInterp: 32,
  TemplateControl: 33,
  TemplateSeqEnd: 34,
  QuotedLit: 35,
  StringLit: 36,
  NumberLit: 37,
  Ident: 38,
  Newline: 39,
  EOF: 40,
  BitwiseAnd: 41,
  BitwiseOr: 42,
  BitwiseNot: 43,
  BitwiseXor: 44,
  Apostrophe: 45,
  Backtick: 46,
  Semicolon: 47,
  Invalid: 48,
  BadUTF8: 49,
  QuotedNewline: 50,
  Nil: 0,
} as const;

/** A token type. */
export type TokenType = typeof T[keyof typeof T];

/** One token: its type and UTF-16 offsets `[start, end)` into the text. */
export interface Token {
  /** The token's type. */
  type: TokenType;
  /** Start offset (inclusive). */
  start: number;
  /** End offset (exclusive). */
  end: number;
}

/** A lexical problem found by {@linkcode lex}, before parsing. */
export interface LexProblem {
  /** Short title. */
  summary: string;
  /** Full sentences. */
  detail: string;
  /** The offending token. */
  token: Token;
}

/**
 * Tokens in three parallel typed arrays: a large file has millions of
 * tokens, and one object each made the garbage collector the parser's
 * largest cost.
 */
export class TokenBuffer {
  /** How many tokens there are. */
  length = 0;
  /** Each token's type. */
  types: Uint8Array;
  /** Each token's start offset. */
  starts: Int32Array;
  /** Each token's end offset. */
  ends: Int32Array;

  /**
   * @param capacity How many tokens to make room for at first (it grows).
   */
  constructor(capacity = 1024) {
    this.types = new Uint8Array(capacity);
    this.starts = new Int32Array(capacity);
    this.ends = new Int32Array(capacity);
  }

  /**
   * Appends a token.
   *
   * @param type Its type.
   * @param start Its start offset.
   * @param end Its end offset.
   */
  push(type: TokenType, start: number, end: number): void {
    const n = this.length;
    if (n === this.types.length) {
      const types = new Uint8Array(2 * n);
      types.set(this.types);
      this.types = types;
      const starts = new Int32Array(2 * n);
      starts.set(this.starts);
      this.starts = starts;
      const ends = new Int32Array(2 * n);
      ends.set(this.ends);
      this.ends = ends;
    }
    this.types[n] = type;
    this.starts[n] = start;
    this.ends[n] = end;
    this.length = n + 1;
  }

  /**
   * The token at an index, as an object.
   *
   * @param i The index (`0 <= i < length`).
   * @returns A new token object.
   */
  at(i: number): Token {
    return {
      type: this.types[i] as TokenType,
      start: this.starts[i]!,
      end: this.ends[i]!,
    };
  }
}

/** The result of {@linkcode scan}. */
export interface ScanResult {
  /** Every token, ending with an `EOF` token (see {@linkcode LexResult}). */
  tokens: TokenBuffer;
  /** Characters that never belong in HCL. */
  problems: LexProblem[];
}

/** The result of {@linkcode lex}. */
export interface LexResult {
  /** Every token, ending with an `EOF` token. Comments are dropped, except
   * that a `#` or `//` comment that ends a line becomes a `Newline` token
   * spanning the comment and its newline. */
  tokens: Token[];
  /** Characters that never belong in HCL (reported whatever the parser finds). */
  problems: LexProblem[];
}

const MODE_MAIN = 0;
const MODE_STRING = 1;
const MODE_HEREDOC = 2;

interface Frame {
  mode: number;
  /** Heredoc only: the closing marker. */
  marker?: string;
  /** Heredoc only: the scanner is at the start of a line. */
  startOfLine?: boolean;
}

const IDENT_START_REGEXP = /[\p{ID_Start}_]/uy;
const IDENT_REGEXP = /[\p{ID_Start}_][\p{ID_Continue}-]*/uy;
const HEREDOC_REGEXP = /<<(-?)([\p{ID_Start}_][\p{ID_Continue}-]*)\r?\n/uy;
/** Go's unicode.IsSpace set, used by bytes.TrimSpace. */
const SPACE_CHAR_REGEXP =
  /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u;

/**
 * Whether `text[start, end)`, trimmed of white space (bytes.TrimSpace), is
 * `marker`. Two loops, not a regular expression: `/\s+$/` retries from
 * every position and is quadratic on a long line of spaces.
 */
function isMarkerLine(
  text: string,
  start: number,
  end: number,
  marker: string,
): boolean {
  while (start < end && SPACE_CHAR_REGEXP.test(text[start]!)) start++;
  while (end > start && SPACE_CHAR_REGEXP.test(text[end - 1]!)) end--;
  return end - start === marker.length && text.startsWith(marker, start);
}

/**
 * The frames of the two modes that keep no state, shared: a large file
 * has a quoted string on most lines.
 */
const MAIN_FRAME: Frame = { mode: MODE_MAIN };
const STRING_FRAME: Frame = { mode: MODE_STRING };

const SELF_TOKENS: Record<string, TokenType> = {
  "[": T.OBrack,
  "]": T.CBrack,
  "(": T.OParen,
  ")": T.CParen,
  ",": T.Comma,
  "*": T.Star,
  "/": T.Slash,
  "%": T.Percent,
  "+": T.Plus,
  "-": T.Minus,
  "?": T.Question,
  ":": T.Colon,
  "^": T.BitwiseXor,
  ";": T.Semicolon,
  "`": T.Backtick,
  "'": T.Apostrophe,
};

/** {@linkcode SELF_TOKENS} by character code (0: none). */
const SELF_TOKEN_CODES: Uint8Array = (() => {
  const table = new Uint8Array(128);
  for (const [ch, type] of Object.entries(SELF_TOKENS)) {
    table[ch.charCodeAt(0)] = type;
  }
  return table;
})();

/** Whether an ASCII code continues an identifier (`[A-Za-z0-9_-]`). */
function isAsciiIdentPart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) ||
    (c >= 48 && c <= 57) || c === 95 || c === 45;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Length in UTF-16 units of the code point at `i` (1 or 2). */
function cpLen(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff) {
    const d = text.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return 2;
  }
  return 1;
}

/**
 * Scans HCL native syntax into tokens, as objects.
 *
 * @param text The whole file.
 * @returns The tokens (ending with EOF) and lexical problems.
 */
export function lex(text: string): LexResult {
  const { tokens, problems } = scan(text);
  const out: Token[] = [];
  for (let i = 0; i < tokens.length; i++) out.push(tokens.at(i));
  return { tokens: out, problems };
}

/**
 * Scans HCL native syntax into a compact {@linkcode TokenBuffer}.
 *
 * @param text The whole file.
 * @returns The tokens (ending with EOF) and lexical problems.
 */
export function scan(text: string): ScanResult {
  // About one token per three characters in typical HCL: one allocation
  // instead of a dozen doublings for a large file.
  const tokens = new TokenBuffer(Math.max(1024, Math.ceil(text.length / 3)));
  const n = text.length;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const stack: Frame[] = [MAIN_FRAME];
  let braces = 0;
  const retBraces: number[] = [];

  const emit = (type: TokenType, start: number, end: number) => {
    tokens.push(type, start, end);
  };

  /** Enters an interpolation or directive from a template mode. */
  const beginTemplateSeq = (type: TokenType, start: number, end: number) => {
    emit(type, start, end);
    braces++;
    retBraces.push(braces);
    const top = stack[stack.length - 1]!;
    if (top.mode === MODE_HEREDOC) top.startOfLine = false;
    stack.push(MAIN_FRAME);
  };

  /**
   * In a template: the length of a `$`/`%` literal token starting at `i`
   * (`$${` escapes are one token; a lone `$` is a token of its own), or 0
   * when `i` starts an interpolation/directive.
   */
  const dollarLiteralLen = (at: number): number => {
    const c = text.charCodeAt(at);
    const next = text.charCodeAt(at + 1);
    if (next === 123 /* { */) return 0;
    if (next === c && text.charCodeAt(at + 2) === 123) {
      return text.charCodeAt(at + 3) === 126 /* ~ */ ? 4 : 3;
    }
    return 1;
  };

  while (i < n) {
    const frame = stack[stack.length - 1]!;
    const c = text.charCodeAt(i);

    if (frame.mode === MODE_STRING) {
      if (c === 36 /* $ */ || c === 37 /* % */) {
        const len = dollarLiteralLen(i);
        if (len === 0) {
          const end = text.charCodeAt(i + 2) === 126 ? i + 3 : i + 2;
          beginTemplateSeq(
            c === 36 ? T.TemplateInterp : T.TemplateControl,
            i,
            end,
          );
          i = end;
        } else {
          emit(T.QuotedLit, i, i + len);
          i += len;
        }
        continue;
      }
      if (c === 34 /* " */) {
        emit(T.CQuote, i, i + 1);
        i++;
        stack.pop();
        continue;
      }
      if (c === 10 || c === 13) {
        let j = i + 1;
        while (j < n) {
          const d = text.charCodeAt(j);
          if (d !== 10 && d !== 13) break;
          j++;
        }
        emit(T.QuotedNewline, i, j);
        i = j;
        continue;
      }
      // A run of literal characters and backslash escapes.
      let j = i;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d === 36 || d === 37 || d === 34 || d === 10 || d === 13) break;
        if (d === 92 /* \ */) {
          const e = text.charCodeAt(j + 1);
          if (j + 1 >= n || e === 10 || e === 13) {
            break;
          }
          j += 1 + cpLen(text, j + 1);
          continue;
        }
        j += cpLen(text, j);
      }
      if (j === i) {
        // A backslash that escapes nothing (before a newline or the end).
        emit(T.Invalid, i, i + 1);
        i++;
      } else {
        emit(T.QuotedLit, i, j);
        i = j;
      }
      continue;
    }

    if (frame.mode === MODE_HEREDOC) {
      if (c === 36 || c === 37) {
        const len = dollarLiteralLen(i);
        if (len === 0) {
          const end = text.charCodeAt(i + 2) === 126 ? i + 3 : i + 2;
          beginTemplateSeq(
            c === 36 ? T.TemplateInterp : T.TemplateControl,
            i,
            end,
          );
          i = end;
          continue;
        }
        heredocLiteral(i, i + len);
        continue;
      }
      let j = i;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d === 36 || d === 37 || d === 10 || d === 13) break;
        j += cpLen(text, j);
      }
      if (j === i && c === 13 && text.charCodeAt(i + 1) !== 10) {
        // A carriage return not followed by a newline matches nothing in a
        // heredoc: the scanner gives up and the rest is one invalid token.
        emit(T.Invalid, i, n);
        i = n;
        break;
      }
      heredocLiteral(i, j);
      continue;
    }

    // MODE_MAIN
    if (c === 32 || c === 9) {
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d !== 32 && d !== 9) break;
        i++;
      }
      continue;
    }
    if (isDigit(c)) {
      let j = i + 1;
      let last = j;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (isDigit(d)) {
          j++;
          last = j;
        } else if (d === 46 /* . */) {
          j++;
        } else if (d === 101 || d === 69 /* e E */) {
          const e = text.charCodeAt(j + 1);
          if (isDigit(e)) {
            j += 2;
            last = j;
          } else if (
            (e === 43 || e === 45) && isDigit(text.charCodeAt(j + 2))
          ) {
            j += 3;
            last = j;
          } else break;
        } else break;
      }
      emit(T.NumberLit, i, last);
      i = last;
      continue;
    }
    if (c === 10) {
      emit(T.Newline, i, i + 1);
      i++;
      continue;
    }
    if (c === 13 && text.charCodeAt(i + 1) === 10) {
      emit(T.Newline, i, i + 2);
      i += 2;
      continue;
    }
    if (c === 35 /* # */ || (c === 47 && text.charCodeAt(i + 1) === 47)) {
      const nl = text.indexOf("\n", i);
      if (nl < 0) {
        i = n;
      } else {
        // The comment absorbs its newline and still ends the line: it
        // becomes a newline token spanning the comment, as in hashicorp/hcl.
        emit(T.Newline, i, nl + 1);
        i = nl + 1;
      }
      continue;
    }
    if (c === 47 && text.charCodeAt(i + 1) === 42 /* * */) {
      const close = text.indexOf("*/", i + 2);
      if (close >= 0) {
        i = close + 2;
        continue;
      }
      // An unterminated block comment is just "/" "*" ...
    }
    if (c === 123) {
      emit(T.OBrace, i, i + 1);
      braces++;
      i++;
      continue;
    }
    if (c === 125) {
      if (retBraces.length > 0 && retBraces[retBraces.length - 1] === braces) {
        emit(T.TemplateSeqEnd, i, i + 1);
        braces--;
        retBraces.pop();
        stack.pop();
      } else {
        emit(T.CBrace, i, i + 1);
        braces--;
      }
      i++;
      continue;
    }
    if (c === 126 /* ~ */) {
      if (text.charCodeAt(i + 1) === 125) {
        emit(T.TemplateSeqEnd, i, i + 2);
        if (
          retBraces.length > 0 && retBraces[retBraces.length - 1] === braces
        ) {
          retBraces.pop();
          stack.pop();
        }
        braces--;
        i += 2;
        continue;
      }
      emit(T.BitwiseNot, i, i + 1);
      i++;
      continue;
    }
    if (c === 34) {
      emit(T.OQuote, i, i + 1);
      stack.push(STRING_FRAME);
      i++;
      continue;
    }
    if (c === 60 /* < */) {
      if (text.charCodeAt(i + 1) === 60) {
        HEREDOC_REGEXP.lastIndex = i;
        const m = HEREDOC_REGEXP.exec(text);
        if (m) {
          const end = i + m[0].length;
          emit(T.OHeredoc, i, end);
          stack.push({ mode: MODE_HEREDOC, marker: m[2]!, startOfLine: true });
          i = end;
          continue;
        }
      }
      if (text.charCodeAt(i + 1) === 61) {
        emit(T.LessThanEq, i, i + 2);
        i += 2;
      } else {
        emit(T.LessThan, i, i + 1);
        i++;
      }
      continue;
    }
    if (c === 62 /* > */) {
      if (text.charCodeAt(i + 1) === 61) {
        emit(T.GreaterThanEq, i, i + 2);
        i += 2;
      } else {
        emit(T.GreaterThan, i, i + 1);
        i++;
      }
      continue;
    }
    if (c === 61 /* = */) {
      const d = text.charCodeAt(i + 1);
      if (d === 61) {
        emit(T.EqualOp, i, i + 2);
        i += 2;
      } else if (d === 62) {
        emit(T.FatArrow, i, i + 2);
        i += 2;
      } else {
        emit(T.Equal, i, i + 1);
        i++;
      }
      continue;
    }
    if (c === 33 /* ! */) {
      if (text.charCodeAt(i + 1) === 61) {
        emit(T.NotEqual, i, i + 2);
        i += 2;
      } else {
        emit(T.Bang, i, i + 1);
        i++;
      }
      continue;
    }
    if (c === 38 /* & */) {
      if (text.charCodeAt(i + 1) === 38) {
        emit(T.And, i, i + 2);
        i += 2;
      } else {
        emit(T.BitwiseAnd, i, i + 1);
        i++;
      }
      continue;
    }
    if (c === 124 /* | */) {
      if (text.charCodeAt(i + 1) === 124) {
        emit(T.Or, i, i + 2);
        i += 2;
      } else {
        emit(T.BitwiseOr, i, i + 1);
        i++;
      }
      continue;
    }
    if (c === 46 /* . */) {
      if (text.charCodeAt(i + 1) === 46 && text.charCodeAt(i + 2) === 46) {
        emit(T.Ellipsis, i, i + 3);
        i += 3;
      } else {
        emit(T.Dot, i, i + 1);
        i++;
      }
      continue;
    }
    if (c < 128) {
      const self = SELF_TOKEN_CODES[c]!;
      if (self !== 0) {
        emit(self as TokenType, i, i + 1);
        i++;
        continue;
      }
    }
    if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95) {
      // An ASCII identifier, without the Unicode expressions, unless a
      // character beyond ASCII follows (it may continue the name).
      let j = i + 1;
      while (j < n && isAsciiIdentPart(text.charCodeAt(j))) j++;
      if (j === n || text.charCodeAt(j) < 128) {
        emit(T.Ident, i, j);
        i = j;
        continue;
      }
    }
    if (c === 95 || c >= 65) {
      IDENT_START_REGEXP.lastIndex = i;
      if (IDENT_START_REGEXP.test(text)) {
        IDENT_REGEXP.lastIndex = i;
        const m = IDENT_REGEXP.exec(text)!;
        emit(T.Ident, i, i + m[0].length);
        i += m[0].length;
        continue;
      }
    }
    const len = cpLen(text, i);
    emit(T.Invalid, i, i + len);
    i += len;
  }
  emit(T.EOF, n, n);
  return { tokens, problems: checkInvalidTokens(text, tokens) };

  /**
   * Emits a heredoc literal token `[start, end)` plus, when the line ends
   * there, its newline; recognises the closing marker on a line of its own.
   */
  function heredocLiteral(start: number, end: number): void {
    const frame = stack[stack.length - 1]!;
    let eolEnd = -1;
    if (text.charCodeAt(end) === 10) eolEnd = end + 1;
    else if (text.charCodeAt(end) === 13 && text.charCodeAt(end + 1) === 10) {
      eolEnd = end + 2;
    }
    if (eolEnd < 0) {
      // Mid-line: about to enter a template sequence, or at the end.
      if (end === start) {
        // Nothing matched (only possible at the end of the text).
        i = end === n ? n : end + 1;
        return;
      }
      frame.startOfLine = false;
      emit(T.StringLit, start, end);
      i = end;
      return;
    }
    if (frame.startOfLine) {
      if (isMarkerLine(text, start, eolEnd, frame.marker!)) {
        emit(T.CHeredoc, start, end);
        emit(T.Newline, end, eolEnd);
        stack.pop();
        i = eolEnd;
        return;
      }
    }
    frame.startOfLine = true;
    emit(T.StringLit, start, eolEnd);
    i = eolEnd;
  }
}

/** Reports tokens that never belong in HCL, as hashicorp/hcl does. */
function checkInvalidTokens(
  text: string,
  tokens: TokenBuffer,
): LexProblem[] {
  const problems: LexProblem[] = [];
  let toldBitwise = 0;
  let toldBacktick = 0;
  let toldApostrophe = 0;
  let toldSemicolon = 0;
  let toldBadUTF8 = 0;
  const types = tokens.types;
  for (let i = 0; i < tokens.length; i++) {
    const type = types[i];
    // Most tokens are fine: make an object only for those reported.
    if (
      type !== T.BitwiseAnd && type !== T.BitwiseOr &&
      type !== T.BitwiseXor && type !== T.BitwiseNot &&
      type !== T.Backtick && type !== T.Apostrophe &&
      type !== T.Semicolon && type !== T.BadUTF8 &&
      type !== T.QuotedNewline && type !== T.Invalid
    ) continue;
    const token = tokens.at(i);
    switch (token.type) {
      case T.BitwiseAnd:
      case T.BitwiseOr:
      case T.BitwiseXor:
      case T.BitwiseNot:
        if (toldBitwise < 4) {
          const hint = token.type === T.BitwiseAnd
            ? ' Did you mean boolean AND ("&&")?'
            : token.type === T.BitwiseOr
            ? ' Did you mean boolean OR ("||")?'
            : token.type === T.BitwiseNot
            ? ' Did you mean boolean NOT ("!")?'
            : "";
          problems.push({
            summary: "Unsupported operator",
            detail: `Bitwise operators are not supported.${hint}`,
            token,
          });
          toldBitwise++;
        }
        break;
      case T.Backtick:
        if (toldBacktick % 2 === 0) {
          problems.push({
            summary: "Invalid character",
            detail:
              'The "`" character is not valid. To create a multi-line string, use the "heredoc" syntax, like "<<EOT".',
            token,
          });
        }
        if (toldBacktick <= 2) toldBacktick++;
        break;
      case T.Apostrophe:
        if (toldApostrophe % 2 === 0) {
          problems.push({
            summary: "Invalid character",
            detail:
              'Single quotes are not valid. Use double quotes (") to enclose strings.',
            token,
          });
        }
        if (toldApostrophe <= 2) toldApostrophe++;
        break;
      case T.Semicolon:
        if (toldSemicolon < 1) {
          problems.push({
            summary: "Invalid character",
            detail:
              'The ";" character is not valid. Use newlines to separate arguments and blocks, and commas to separate items in collection values.',
            token,
          });
          toldSemicolon++;
        }
        break;
      case T.BadUTF8:
        if (toldBadUTF8 < 1) {
          problems.push({
            summary: "Invalid character encoding",
            detail:
              "All input files must be UTF-8 encoded. Ensure that UTF-8 encoding is selected in your editor.",
            token,
          });
          toldBadUTF8++;
        }
        break;
      case T.QuotedNewline:
        problems.push({
          summary: "Invalid multi-line string",
          detail:
            'Quoted strings may not be split over multiple lines. To produce a multi-line string, either use the \\n escape to represent a newline character or use the "heredoc" multi-line template syntax.',
          token,
        });
        break;
      case T.Invalid: {
        const chars = text.slice(token.start, token.end);
        problems.push({
          summary: "Invalid character",
          detail: chars === "\u201c" || chars === "\u201d"
            ? '"Curly quotes" are not valid here. These can sometimes be inadvertently introduced when sharing code via documents or discussion forums. It might help to replace the character with a "straight quote".'
            : "This character is not used within the language.",
          token,
        });
        break;
      }
    }
  }
  return problems;
}
