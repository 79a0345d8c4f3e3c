/**
 * {@linkcode parseHcl}: HCL native syntax → {@linkcode Body} with exact
 * source ranges, collecting every syntax error it can.
 *
 * The grammar, the token boundaries and the set of accepted inputs follow
 * hashicorp/hcl v2.17 (the version inside `npm:@cdktf/hcl2json`, which the
 * differential test uses as the oracle). Two deliberate differences, both
 * only reachable after a first syntax error, so neither changes which files
 * are valid:
 *
 * - Recovery resumes at the next attribute or block, in nested bodies too,
 *   and each body item reports its own errors (hashicorp/hcl stays in a
 *   "recovery" mode after the first error and reports little else).
 * - Expressions nested deeper than {@linkcode MAX_NESTING} levels, and
 *   expression trees deeper than {@linkcode MAX_EXPR_DEPTH} levels (a long
 *   `1 + 1 + …` chain or `a.b.c…` traversal nests to the left), are
 *   rejected with `E_TOO_DEEP` instead of exhausting the stack of whatever
 *   walks the tree later.
 *
 * Time is linear in the input: heredocs and templates of any length (or
 * unterminated) cost one pass.
 *
 * @module
 */

import {
  type Diagnostic,
  levenshtein,
  type SourceRange,
} from "../../contract/diagnostic.ts";
import type {
  Attribute,
  BinaryOp,
  Block,
  BlockLabel,
  Body,
  Expr,
  HeredocInfo,
  ObjectItem,
  TemplatePart,
} from "./ast.ts";
import { E_SYNTAX, E_TOO_DEEP } from "./codes.ts";
import { findTooDeep } from "./walk.ts";
import {
  scan,
  T,
  type Token,
  type TokenBuffer,
  type TokenType,
} from "./_lexer.ts";
import { joinRanges, SourceMap } from "./_source.ts";
import {
  AttributeNode,
  BinaryNode,
  BlockLabelNode,
  BlockNode,
  BodyNode,
  BoolNode,
  CallNode,
  ConditionalNode,
  endOf,
  GetAttrNode,
  IndexNode,
  moveRange,
  NamedObjectItemNode,
  NullNode,
  NumberNode,
  ObjectItemNode,
  ObjectNode,
  ParensNode,
  startOf,
  StringNode,
  TemplateIfNode,
  TemplateInterpNode,
  TemplateLiteralNode,
  TemplateNode,
  TupleNode,
  UnaryNode,
  VariableNode,
} from "./_nodes.ts";
import { unescapeLiteral } from "./_strings.ts";

/** The result of {@linkcode parseHcl}. */
export interface ParseResult {
  /** The file's body; partial (but well-formed) when there are errors. */
  body: Body;
  /** Every syntax error found, in source order. */
  diagnostics: Diagnostic[];
}

/** How deeply expressions and blocks may nest before parsing gives up. */
export const MAX_NESTING = 128;

/**
 * How deep an expression tree may be, counting every operator and
 * traversal step (`1 + 1 + 1` is three levels): a bound for everything
 * that walks the tree (evaluation, `env()` discovery).
 */
export const MAX_EXPR_DEPTH = 1000;

/**
 * Parses an HCL native-syntax file.
 *
 * Never throws on bad input: every problem becomes an `E_SYNTAX` error
 * diagnostic with a range, and the returned body holds whatever could be
 * parsed. Duplicate attribute names in one body and single-line blocks with
 * more than one argument are syntax errors, as in hashicorp/hcl.
 *
 * @example Usage
 * ```ts
 * import { parseHcl } from "./mod.ts";
 * import assert from "node:assert/strict";
 * const { body, diagnostics } = parseHcl('hook "post-apply" {\n  mode = "observe"\n}\n', "agent.hcl");
 * assert.equal(diagnostics.length, 0);
 * assert.equal(body.blocks[0]!.labels[0]!.value, "post-apply");
 * assert.equal(body.blocks[0]!.body.attributes[0]!.range.start.line, 2);
 * ```
 *
 * @param text The file's contents.
 * @param file The file's path as shown in diagnostics.
 * @returns The body and the syntax errors.
 */
export function parseHcl(text: string, file: string): ParseResult {
  // A lone UTF-16 surrogate cannot come from decoding a file; read it as
  // U+FFFD, as a UTF-8 round trip would (same length: offsets unchanged).
  text = text.toWellFormed();
  const src = new SourceMap(text, file);
  let lexed;
  try {
    lexed = scan(text);
  } catch (e) {
    // Not expected: the scanner is total. Keep the promise not to throw.
    return internalFailure(src, e);
  }
  const parser = new Parser(text, src, lexed.tokens);
  for (const p of lexed.problems) {
    parser.lexDiags.push(
      parser.diag(p.summary, p.detail, src.range(p.token.start, p.token.end)),
    );
    parser.lexStarts.add(p.token.start);
  }
  let body: Body;
  try {
    body = parser.parseFile();
  } catch (e) {
    return internalFailure(src, e, parser.lexDiags.concat(parser.diags));
  }
  const diagnostics = parser.lexDiags.concat(
    parser.diags.filter((d) => !parser.suppressed.has(d)),
  );
  return { body, diagnostics: sortByStart(diagnostics) };
}

/**
 * The diagnostics in order of their start byte, stably: each start is
 * looked up once (a span computes its position on every read).
 */
function sortByStart(diagnostics: Diagnostic[]): Diagnostic[] {
  if (diagnostics.length < 2) return diagnostics;
  const bytes = diagnostics.map((d) => d.range!.start.byte);
  const order = bytes.map((_, i) => i);
  order.sort((a, b) => bytes[a]! - bytes[b]! || a - b);
  return order.map((i) => diagnostics[i]!);
}

function internalFailure(
  src: SourceMap,
  e: unknown,
  diags: Diagnostic[] = [],
): ParseResult {
  const all = src.range(0, src.text.length);
  const stalled = e instanceof ParserStalled;
  const overflow = e instanceof RangeError;
  diags.push({
    severity: "error",
    code: E_SYNTAX,
    summary: stalled || overflow
      ? "File too complex to parse"
      : "Cannot parse file: internal parser error",
    detail: stalled || overflow
      ? "The parser stopped before the end of this file because its structure is too deeply nested or too irregular. Simplify the file around the errors reported above."
      : `The parser failed unexpectedly (${
        e instanceof Error ? e.name : "error"
      }). Please report this as a bug, with the file if possible.`,
    range: { file: src.file, start: all.start, end: all.start },
  });
  return {
    body: new BodyNode(src, NONE, NONE, NONE, 0, src.text.length),
    diagnostics: diags,
  };
}

/** Thrown internally when the parser runs out of fuel (a safety net). */
class ParserStalled extends Error {
  override name = "ParserStalled";
}

const BINARY_LEVELS: ReadonlyArray<ReadonlyMap<TokenType, BinaryOp>> = [
  new Map([[T.Or, "||"]]),
  new Map([[T.And, "&&"]]),
  new Map([[T.EqualOp, "=="], [T.NotEqual, "!="]]),
  new Map([
    [T.GreaterThan, ">"],
    [T.GreaterThanEq, ">="],
    [T.LessThan, "<"],
    [T.LessThanEq, "<="],
  ]),
  new Map([[T.Plus, "+"], [T.Minus, "-"]]),
  new Map([[T.Star, "*"], [T.Slash, "/"], [T.Percent, "%"]]),
];

/** Each token type's binary operator at each level, by `level * 64 + type`. */
const BINARY_OPS: (BinaryOp | undefined)[] = (() => {
  const table: (BinaryOp | undefined)[] = new Array(BINARY_LEVELS.length * 64)
    .fill(undefined);
  BINARY_LEVELS.forEach((ops, level) => {
    for (const [type, op] of ops) table[level * 64 + type] = op;
  });
  return table;
})();

/**
 * The lowest level of {@linkcode BINARY_LEVELS} at which each token type is
 * an operator, or -1, by type.
 */
const BINARY_LEVEL_OF: Int8Array = (() => {
  const table = new Int8Array(64).fill(-1);
  for (let level = BINARY_LEVELS.length - 1; level >= 0; level--) {
    for (const type of BINARY_LEVELS[level]!.keys()) table[type] = level;
  }
  return table;
})();

/** How many distinct identifier names a parse shares (see `Parser.name`). */
const MAX_INTERNED_NAMES = 4096;

/**
 * The array itself when empty or large, else an exact-size copy: an array
 * grown by `push` keeps room for 17 elements, and a syntax tree holds
 * hundreds of thousands of one- and two-element arrays.
 */
function exact<T>(items: T[]): T[] {
  if (items.length === 0) return NONE;
  return items.length > 16 ? items : items.slice();
}

/**
 * The one empty list of every tree (most bodies have no nested block):
 * frozen, since nothing changes a tree once it is parsed.
 */
const NONE: never[] = Object.freeze([]) as unknown as never[];

/** A flat template token, before directives are nested. */
type Part =
  | { t: "lit"; value: string; start: number; end: number }
  | { t: "interp"; expr: Expr; start: number; end: number }
  | { t: "if"; cond: Expr; start: number; end: number }
  | {
    t: "for";
    keyVar?: string;
    valueVar: string;
    coll: Expr;
    start: number;
    end: number;
  }
  | {
    t: "endctl";
    name: "else" | "endif" | "endfor";
    start: number;
    end: number;
  }
  | { t: "end"; start: number; end: number };

/** Go's unicode.IsSpace set (strip markers and flush heredocs use it). */
const LEADING_SPACE_REGEXP =
  /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*/u;
const SPACE_CHAR_REGEXP =
  /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u;

/**
 * Removes trailing white space (Go's unicode.IsSpace set). A loop, not
 * `/\s*$/`: a regular expression anchored at the end retries from every
 * position and is quadratic on a long run of spaces.
 */
function trimTrailingSpace(s: string): string {
  let end = s.length;
  while (end > 0 && SPACE_CHAR_REGEXP.test(s[end - 1]!)) end--;
  return end === s.length ? s : s.slice(0, end);
}

class Parser {
  readonly text: string;
  readonly src: SourceMap;
  readonly tokens: TokenBuffer;
  next = 0;
  includeNewlines: boolean[] = [true];
  /** After a syntax error, until the next body item: report less. */
  recovery = false;
  readonly diags: Diagnostic[] = [];
  readonly lexDiags: Diagnostic[] = [];
  /** Start offsets of tokens already reported by the scanner. */
  readonly lexStarts: Set<number> = new Set();
  /** Parser errors about a token the scanner already reported. */
  readonly suppressed: Set<Diagnostic> = new Set();
  depth = 0;
  bodyDepth = 0;
  fuel: number;
  #tooDeep = false;

  constructor(text: string, src: SourceMap, tokens: TokenBuffer) {
    this.text = text;
    this.src = src;
    this.tokens = tokens;
    this.fuel = 64 * tokens.length + 10_000;
  }

  // --- diagnostics and ranges -------------------------------------------

  diag(summary: string, detail: string, range: SourceRange): Diagnostic {
    return { severity: "error", code: E_SYNTAX, summary, detail, range };
  }

  error(summary: string, detail: string, tok: Token, end?: Token): void {
    const d = this.diag(summary, detail, this.rangeOf(tok, end ?? tok));
    if (this.lexStarts.has(tok.start)) this.suppressed.add(d);
    this.diags.push(d);
  }

  errorAt(summary: string, detail: string, range: SourceRange): void {
    this.diags.push(this.diag(summary, detail, range));
  }

  rangeOf(a: Token, b: Token = a): SourceRange {
    return this.src.range(a.start, Math.max(a.start, b.end));
  }

  /** From the start of `a` to the end of token `tok` (as `rangeOf(tok)`). */
  rangeTo(a: SourceRange, tok: Token): SourceRange {
    return this.src.rangeTo(a, Math.max(tok.start, tok.end));
  }

  between(a: SourceRange, b: SourceRange): SourceRange {
    return joinRanges(a, b);
  }

  textOf(tok: Token): string {
    return this.text.slice(tok.start, tok.end);
  }

  /**
   * An identifier's text, one string per distinct name: a large file
   * repeats a few attribute and block names many times, and each slice
   * would be a string of its own in the tree.
   */
  name(tok: Token): string {
    const text = this.textOf(tok);
    const names = this.#names;
    const known = names.get(text);
    if (known !== undefined) return known;
    if (names.size < MAX_INTERNED_NAMES) names.set(text, text);
    return text;
  }

  #names = new Map<string, string>();

  // --- peeker -------------------------------------------------------------

  #scan(): number {
    if (--this.fuel < 0) throw new ParserStalled("out of fuel");
    const types = this.tokens.types;
    const n = this.tokens.length;
    const include = this.includeNewlines[this.includeNewlines.length - 1];
    let i = this.next;
    if (include) return i < n ? i : n - 1;
    while (i < n && types[i] === T.Newline) i++;
    return i < n ? i : n - 1;
  }

  /**
   * The token at `i`, as an object. Tokens are kept in typed arrays and
   * made into objects only as the parser reads them; the last one is
   * reused, since the parser often peeks at the same token several times.
   */
  #token(i: number): Token {
    const last = this.#last;
    if (last !== undefined && this.#lastIndex === i) return last;
    const tok = this.tokens.at(i);
    this.#last = tok;
    this.#lastIndex = i;
    return tok;
  }

  #last: Token | undefined;
  #lastIndex = -1;

  peek(): Token {
    return this.#token(this.#scan());
  }

  /** The type of the token {@linkcode Parser.peek} returns, without it. */
  peekType(): TokenType {
    return this.tokens.types[this.#scan()] as TokenType;
  }

  read(): Token {
    const i = this.#scan();
    this.next = i + 1;
    return this.#token(i);
  }

  prev(): Token {
    if (this.next === 0) return this.peek();
    return this.#token(Math.min(this.next, this.tokens.length) - 1);
  }

  pushNewlines(include: boolean): void {
    this.includeNewlines.push(include);
  }

  popNewlines(): void {
    this.includeNewlines.pop();
  }

  isKeyword(tok: Token, kw: string): boolean {
    // Compared in place: a slice per object or tuple constructor otherwise.
    return tok.type === T.Ident && tok.end - tok.start === kw.length &&
      this.text.startsWith(kw, tok.start);
  }

  // --- recovery -----------------------------------------------------------

  static opposite(type: TokenType): TokenType {
    switch (type) {
      case T.OBrace:
        return T.CBrace;
      case T.OBrack:
        return T.CBrack;
      case T.OParen:
        return T.CParen;
      case T.OQuote:
        return T.CQuote;
      case T.OHeredoc:
        return T.CHeredoc;
      case T.CBrace:
        return T.OBrace;
      case T.CBrack:
        return T.OBrack;
      case T.CParen:
        return T.OParen;
      case T.CQuote:
        return T.OQuote;
      case T.CHeredoc:
        return T.OHeredoc;
      case T.TemplateControl:
      case T.TemplateInterp:
        return T.TemplateSeqEnd;
      case T.TemplateSeqEnd:
        return T.TemplateInterp;
      default:
        return T.Nil;
    }
  }

  /**
   * Skips to the token `end` that closes the current construct and returns
   * it (or EOF), counting nested pairs. When looking for `]` or `)`, stops
   * before a `}` that closes an enclosing block, so that block still ends.
   */
  recover(end: TokenType): Token {
    const start = Parser.opposite(end);
    this.recovery = true;
    let nest = 0;
    let braces = 0;
    const guardBrace = (end === T.CBrack || end === T.CParen) &&
      this.bodyDepth > 0;
    for (;;) {
      const tok = this.peek();
      if (guardBrace) {
        if (tok.type === T.OBrace) braces++;
        else if (tok.type === T.CBrace) {
          if (braces === 0) return this.prev();
          braces--;
        }
      }
      this.read();
      let ty = tok.type;
      if (end === T.TemplateSeqEnd && ty === T.TemplateControl) {
        ty = T.TemplateInterp;
      }
      if (ty === start) nest++;
      else if (ty === end) {
        if (nest < 1) return tok;
        nest--;
      } else if (ty === T.EOF) return tok;
    }
  }

  /**
   * Skips to the end of the current line (outside any brackets). Inside a
   * block, stops before a `}` that closes the block.
   */
  recoverAfterBodyItem(open: TokenType[] = []): void {
    this.recovery = true;
    for (;;) {
      const tok = this.peek();
      const ty = tok.type;
      if (
        ty === T.CBrace && this.bodyDepth > 0 && !open.includes(T.OBrace)
      ) {
        return; // leave it for the enclosing body
      }
      this.read();
      switch (ty) {
        case T.Newline:
          if (open.length === 0) return;
          break;
        case T.EOF:
          return;
        case T.OBrace:
        case T.OBrack:
        case T.OParen:
        case T.OQuote:
        case T.OHeredoc:
        case T.TemplateInterp:
        case T.TemplateControl:
          open.push(ty);
          break;
        case T.CBrace:
        case T.CBrack:
        case T.CParen:
        case T.CQuote:
        case T.CHeredoc: {
          const opener = Parser.opposite(ty);
          while (open.length > 0 && open[open.length - 1] !== opener) {
            open.pop();
          }
          if (open.length > 0) open.pop();
          break;
        }
        case T.TemplateSeqEnd:
          while (
            open.length > 0 && open[open.length - 1] !== T.TemplateInterp &&
            open[open.length - 1] !== T.TemplateControl
          ) open.pop();
          if (open.length > 0) open.pop();
          break;
      }
    }
  }

  // --- bodies -------------------------------------------------------------

  parseFile(): Body {
    const body = this.parseBody(T.EOF);
    moveRange(body as BodyNode, 0, this.text.length);
    return body;
  }

  parseBody(end: TokenType): Body {
    const startTok = this.prev();
    let endTok: Token = startTok;
    const attributes: Attribute[] = [];
    const blocks: Block[] = [];
    const items: (Attribute | Block)[] = [];
    // Names already set: a small body is searched directly (most bodies
    // hold a few attributes, and a map each cost more than the search).
    let seen: Map<string, Attribute> | undefined;
    for (;;) {
      const next = this.peek();
      if (next.type === end) {
        endTok = this.read();
        break;
      }
      if (next.type === T.Newline) {
        this.read();
        continue;
      }
      // Each body item reports its own errors.
      this.recovery = false;
      if (next.type === T.Ident) {
        const item = this.parseBodyItem();
        if (item === undefined) continue;
        if (item.kind === "block") {
          blocks.push(item);
          items.push(item);
        } else {
          let existing: Attribute | undefined;
          if (seen !== undefined) existing = seen.get(item.name);
          else {
            for (const a of attributes) {
              if (a.name === item.name) {
                existing = a;
                break;
              }
            }
          }
          if (existing) {
            const at = existing.nameRange.start;
            this.errorAt(
              "Attribute redefined",
              `The argument "${item.name}" was already set at ${existing.nameRange.file}:${at.line},${at.column}. Each argument may be set only once.`,
              item.nameRange,
            );
          } else {
            attributes.push(item);
            if (seen !== undefined) seen.set(item.name, item);
            else if (attributes.length === 16) {
              seen = new Map(attributes.map((a) => [a.name, a]));
            }
            items.push(item);
          }
        }
        continue;
      }
      const bad = this.read();
      if (bad.type === T.OQuote) {
        this.error(
          "Invalid argument name",
          "Argument names must not be quoted.",
          bad,
        );
      } else if (bad.type === T.EOF) {
        if (this.diags.length > 0) {
          // Most likely a consequence of an earlier error's recovery.
        } else if (end === T.CBrace) {
          this.error(
            "Unclosed configuration block",
            "There is no closing brace for this block before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.",
            startTok,
          );
        } else {
          this.error(
            "Unclosed configuration body",
            "Found end of file before the end of this configuration body.",
            startTok,
          );
        }
        endTok = bad;
        break;
      } else {
        this.error(
          "Argument or block definition required",
          "An argument or block definition is required here.",
          bad,
        );
      }
      const open = Parser.opposite(bad.type) !== T.Nil &&
          bad.type !== T.CBrace && bad.type !== T.CBrack &&
          bad.type !== T.CParen && bad.type !== T.CQuote &&
          bad.type !== T.CHeredoc && bad.type !== T.TemplateSeqEnd
        ? [bad.type]
        : [];
      this.recoverAfterBodyItem(open);
    }
    // Attributes only (or blocks only): the same list serves as `items`.
    const attrs = exact(attributes);
    const blks = exact(blocks);
    return new BodyNode(
      this.src,
      attrs,
      blks,
      blks.length === 0 ? attrs : attrs.length === 0 ? blks : exact(items),
      startTok.start,
      Math.max(startTok.start, endTok.end),
    );
  }

  parseBodyItem(): Attribute | Block | undefined {
    const ident = this.read();
    const next = this.peek();
    switch (next.type) {
      case T.Equal:
        return this.finishAttribute(ident, false);
      case T.OQuote:
      case T.OBrace:
      case T.Ident:
        return this.finishBlock(ident);
      default:
        this.error(
          "Argument or block definition required",
          'An argument or block definition is required here. To set an argument, use the equals sign "=" to introduce the argument value.',
          ident,
        );
        this.recoverAfterBodyItem();
        return undefined;
    }
  }

  finishAttribute(ident: Token, singleLine: boolean): Attribute {
    this.read(); // "="
    const first = this.next;
    const parsedExpr = this.#parseExpr();
    const err = this.exprErr;
    let expr = parsedExpr;
    // Every node above a leaf consumes a token of its own (an operator, a
    // dot, a bracket...) and a leaf at most one more level: an expression
    // of n tokens is at most n + 1 levels deep, and only a longer one needs
    // the walk.
    const deep = this.next - first + 1 > MAX_EXPR_DEPTH
      ? findTooDeep(expr, MAX_EXPR_DEPTH)
      : undefined;
    if (deep !== undefined) {
      this.diags.push({
        severity: "error",
        code: E_TOO_DEEP,
        summary: "Expression too deep",
        detail:
          `This expression nests more than ${MAX_EXPR_DEPTH} levels deep (each operator, call, index or attribute access is a level). Split it into smaller parts.`,
        range: deep.range,
      });
      expr = { kind: "invalid", range: expr.range };
    }
    if (this.recovery && err) {
      this.recoverAfterBodyItem();
    } else if (!singleLine) {
      const after = this.peek();
      if (after.type !== T.Newline && after.type !== T.EOF) {
        if (!this.recovery) {
          if (after.type === T.Comma) {
            this.error(
              "Unexpected comma after argument",
              "Argument definitions must be separated by newlines, not commas. An argument definition must end with a newline.",
              after,
            );
          } else {
            this.error(
              "Missing newline after argument",
              "An argument definition must end with a newline.",
              after,
            );
          }
        }
        this.recoverAfterBodyItem();
      } else {
        this.read(); // the newline
      }
    }
    return new AttributeNode(
      this.src,
      this.name(ident),
      ident.start,
      expr,
      endOf(expr, this.src),
    );
  }

  parseSingleAttrBody(): Attribute | undefined {
    const ident = this.read();
    if (ident.type !== T.Ident) {
      this.error(
        "Argument or block definition required",
        "An argument or block definition is required here.",
        ident,
      );
      this.recoverAfterBodyItem();
      return undefined;
    }
    const next = this.peek();
    switch (next.type) {
      case T.Equal:
        return this.finishAttribute(ident, true);
      case T.OQuote:
      case T.OBrace:
      case T.Ident:
        this.error(
          "Argument definition required",
          `A single-line block definition can contain only a single argument. If you meant to define argument "${
            this.textOf(ident)
          }", use an equals sign to assign it a value. To define a nested block, place it on a line of its own within its parent block.`,
          ident,
          next,
        );
        this.recoverAfterBodyItem();
        return undefined;
      default:
        this.error(
          "Argument or block definition required",
          'An argument or block definition is required here. To set an argument, use the equals sign "=" to introduce the argument value.',
          ident,
        );
        this.recoverAfterBodyItem();
        return undefined;
    }
  }

  finishBlock(ident: Token): Block {
    const type = this.name(ident);
    const labels: BlockLabel[] = [];
    const src = this.src;
    const typeStart = ident.start;
    const typeEnd = Math.max(ident.start, ident.end);
    let oBrace: Token | undefined;
    for (;;) {
      const tok = this.peek();
      if (tok.type === T.OBrace) {
        oBrace = this.read();
        break;
      }
      if (tok.type === T.OQuote) {
        labels.push(this.parseQuotedStringLiteral());
        continue;
      }
      if (tok.type === T.Ident) {
        this.read();
        labels.push(
          new BlockLabelNode(
            src,
            this.textOf(tok),
            tok.start,
            Math.max(tok.start, tok.end),
          ),
        );
        continue;
      }
      if (tok.type === T.Equal) {
        this.error(
          "Invalid block definition",
          'The equals sign "=" indicates an argument definition, and must not be used when defining a block.',
          tok,
        );
      } else if (tok.type === T.Newline) {
        this.error(
          "Invalid block definition",
          'A block definition must have block content delimited by "{" and "}", starting on the same line as the block header.',
          tok,
        );
      } else if (!this.recovery) {
        this.error(
          "Invalid block definition",
          'Either a quoted string block label or an opening brace ("{") is expected here.',
          tok,
        );
      }
      this.recoverAfterBodyItem();
      const prev = this.prev();
      return BlockNode.make(
        src,
        type,
        labels,
        new BodyNode(src, NONE, NONE, NONE, typeStart, typeEnd),
        typeStart,
        Math.max(prev.start, prev.end),
        {
          typeEnd,
          openStart: typeStart,
          openEnd: typeEnd,
          closeStart: typeStart,
          closeEnd: typeEnd,
        },
      );
    }

    // The body, or a single-line block's one attribute.
    let body: Body | [Attribute] | undefined;
    let atNewLine = false;
    if (this.bodyDepth >= MAX_NESTING) {
      this.#nestingError(oBrace);
      const close = this.recover(T.CBrace);
      return BlockNode.make(
        src,
        type,
        labels,
        new BodyNode(
          src,
          NONE,
          NONE,
          NONE,
          oBrace.start,
          Math.max(oBrace.start, close.end),
        ),
        typeStart,
        Math.max(close.start, close.end),
        {
          typeEnd,
          openStart: oBrace.start,
          openEnd: Math.max(oBrace.start, oBrace.end),
          closeStart: close.start,
          closeEnd: Math.max(close.start, close.end),
        },
      );
    }
    this.bodyDepth++;
    const next = this.peek();
    if (
      next.type === T.Newline || next.type === T.EOF || next.type === T.CBrace
    ) {
      body = this.parseBody(T.CBrace);
    } else {
      // A single-line block: at most one argument, closed on the same line.
      const attr = this.parseSingleAttrBody();
      if (attr === undefined || this.prev().type === T.Newline) {
        // Recovery moved past the end of the line, or stopped before a "}"
        // on it (which closes this block).
        atNewLine = this.prev().type === T.Newline;
        if (!atNewLine && this.peek().type === T.CBrace) this.read();
        if (attr !== undefined) body = [attr];
      } else {
        body = [attr];
        const after = this.peek();
        if (after.type === T.CBrace) {
          this.read();
        } else {
          if (after.type === T.Comma) {
            this.error(
              "Invalid single-argument block definition",
              "Single-line block syntax can include only one argument definition. To define multiple arguments, use the multi-line block syntax with one argument definition per line.",
              after,
            );
          } else if (after.type === T.Newline) {
            this.error(
              "Invalid single-argument block definition",
              "An argument definition on the same line as its containing block creates a single-line block definition, which must also be closed on the same line. Place the block's closing brace immediately after the argument definition.",
              after,
            );
          } else if (!this.recovery) {
            if (after.type === T.EOF) {
              this.error(
                "Unclosed configuration block",
                "There is no closing brace for this block before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.",
                oBrace,
              );
            } else {
              this.error(
                "Invalid single-argument block definition",
                "A single-line block definition must end with a closing brace immediately after its single argument definition.",
                after,
              );
            }
          }
          this.recover(T.CBrace);
        }
      }
    }
    this.bodyDepth--;
    const cBrace = this.prev();
    if (!atNewLine) {
      const eol = this.peek();
      if (eol.type === T.Newline || eol.type === T.EOF) {
        this.read();
      } else {
        if (!this.recovery) {
          this.error(
            "Missing newline after block definition",
            "A block definition must end with a newline.",
            eol,
          );
        }
        this.recoverAfterBodyItem();
      }
    }
    const closeEnd = Math.max(cBrace.start, cBrace.end);
    let bodyNode: Body;
    if (body === undefined) {
      bodyNode = new BodyNode(src, NONE, NONE, NONE, oBrace.start, closeEnd);
    } else if (Array.isArray(body)) {
      bodyNode = new BodyNode(src, body, NONE, body, oBrace.start, closeEnd);
    } else {
      bodyNode = body;
      moveRange(body as BodyNode, oBrace.start, closeEnd);
    }
    return BlockNode.make(
      src,
      type,
      exact(labels),
      bodyNode,
      typeStart,
      closeEnd,
      {
        typeEnd,
        openStart: oBrace.start,
        openEnd: Math.max(oBrace.start, oBrace.end),
        closeStart: cBrace.start,
        closeEnd,
      },
    );
  }

  #nestingError(tok: Token): void {
    this.nestingErrorAt(this.rangeOf(tok));
    this.recovery = true;
  }

  /** Reports (once per file) nesting deeper than {@linkcode MAX_NESTING}. */
  nestingErrorAt(range: SourceRange): void {
    if (!this.#tooDeep) {
      this.#tooDeep = true;
      this.diags.push({
        severity: "error",
        code: E_TOO_DEEP,
        summary: "Nesting too deep",
        detail:
          `Blocks, expressions and template directives may nest at most ${MAX_NESTING} levels deep.`,
        range,
      });
    }
  }

  parseQuotedStringLiteral(): BlockLabel {
    const oQuote = this.read();
    let value = "";
    let endTok = oQuote;
    for (;;) {
      const tok = this.read();
      if (tok.type === T.CQuote) {
        endTok = tok;
        break;
      }
      if (tok.type === T.QuotedLit) {
        const r = unescapeLiteral(this.textOf(tok), true);
        for (const p of r.problems) {
          this.errorAt(
            p.summary,
            p.detail,
            this.src.range(tok.start + p.start, tok.start + p.end),
          );
        }
        value += r.value;
        continue;
      }
      if (tok.type === T.TemplateInterp || tok.type === T.TemplateControl) {
        const which = tok.type === T.TemplateControl ? "%" : "$";
        this.error(
          "Invalid string literal",
          `Template sequences are not allowed in this string. To include a literal "${which}", double it (as "${which}${which}") to escape it.`,
          tok,
        );
        value += which + "{ ... }";
        this.recover(T.TemplateSeqEnd);
        continue;
      }
      if (tok.type === T.EOF) {
        this.error(
          "Unterminated string literal",
          "Unable to find the closing quote mark before the end of the file.",
          tok,
        );
        endTok = tok;
        break;
      }
      this.error(
        "Invalid string literal",
        "This item is not valid in a string literal.",
        tok,
      );
      this.recover(T.CQuote);
      endTok = tok;
      break;
    }
    return new BlockLabelNode(
      this.src,
      value,
      oQuote.start,
      Math.max(oQuote.start, endTok.end),
    );
  }

  // --- expressions --------------------------------------------------------

  /**
   * Whether the last {@linkcode Parser.#parseExpr} added an error (a field,
   * not a returned pair: one less allocation per expression).
   */
  exprErr = false;

  /**
   * Parses an expression; {@linkcode Parser.exprErr} then tells whether it
   * added an error (read it before parsing another).
   */
  #parseExpr(): Expr {
    const before = this.diags.length;
    const expr = this.#parseTernary();
    this.exprErr = this.diags.length > before;
    return expr;
  }

  #parseTernary(): Expr {
    const before = this.diags.length;
    const cond = this.#parseBinary(0);
    if (this.recovery && this.diags.length > before) return cond;
    if (this.peek().type !== T.Question) return cond;
    this.read();
    const thenExpr = this.#parseExpr();
    const thenErr = this.exprErr;
    if (this.recovery && thenErr) return cond;
    const colon = this.peek();
    if (colon.type !== T.Colon) {
      this.error(
        "Missing false expression in conditional",
        "The conditional operator (...?...:...) requires a false expression, delimited by a colon.",
        colon,
      );
      return cond;
    }
    this.read();
    const elseExpr = this.#parseExpr();
    const elseErr = this.exprErr;
    if (this.recovery && elseErr) return cond;
    return new ConditionalNode(
      this.src,
      cond,
      thenExpr,
      elseExpr,
      startOf(cond, this.src),
      endOf(elseExpr, this.src),
    );
  }

  /**
   * Parses a binary expression of operators at `level` or above (see
   * {@linkcode BINARY_LEVELS}). Most operands are followed by no operator:
   * the first one is parsed straight away, and the levels are climbed only
   * when an operator follows it.
   */
  #parseBinary(level: number): Expr {
    const before = this.diags.length;
    const first = this.#parseWithTraversals();
    if (this.recovery && this.diags.length > before) return first;
    if (BINARY_LEVEL_OF[this.peekType()]! < level) return first;
    return this.#climb(level, first, before);
  }

  /**
   * The rest of {@linkcode Parser.#parseBinary} at `level`, its leftmost
   * operand `first` already parsed (`before`: the error count before it).
   */
  #climb(level: number, first: Expr, before: number): Expr {
    if (level >= BINARY_LEVELS.length) return first;
    const row = level * 64;
    let lhs = this.#climb(level + 1, first, before);
    if (this.recovery && this.diags.length > before) return lhs;
    let op: BinaryOp | undefined;
    let rhs: Expr | undefined;
    for (;;) {
      const newOp = BINARY_OPS[row + this.peekType()];
      if (newOp === undefined) break;
      if (op !== undefined && rhs !== undefined) {
        lhs = new BinaryNode(
          this.src,
          op,
          lhs,
          rhs,
          startOf(lhs, this.src),
          endOf(rhs, this.src),
        );
      }
      op = newOp;
      this.read();
      const rb = this.diags.length;
      rhs = this.#parseBinary(level + 1);
      if (this.recovery && this.diags.length > rb) return lhs;
    }
    if (op === undefined || rhs === undefined) return lhs;
    return new BinaryNode(
      this.src,
      op,
      lhs,
      rhs,
      startOf(lhs, this.src),
      endOf(rhs, this.src),
    );
  }

  #parseWithTraversals(): Expr {
    const term = this.#parseTerm();
    return this.#parseTraversals(term);
  }

  #parseTraversals(from: Expr): Expr {
    let ret = from;
    for (;;) {
      const type = this.peekType();
      if (type === T.Dot) {
        const dot = this.read();
        const attrTok = this.peek();
        if (attrTok.type === T.Ident) {
          this.read();
          ret = GetAttrNode.make(
            this.src,
            ret,
            this.name(attrTok),
            dot.start,
            startOf(ret, this.src),
            Math.max(attrTok.start, attrTok.end),
          );
        } else if (attrTok.type === T.NumberLit) {
          // Legacy index syntax: foo.0
          this.read();
          const raw = this.textOf(attrTok);
          if (raw.includes(".")) {
            const [first, second] = raw.split(".", 2);
            this.error(
              "Invalid legacy index syntax",
              `When using the legacy index syntax, chaining two indexes together is not permitted. Use the proper index syntax instead, like [${first}][${second}].`,
              attrTok,
            );
          }
          ret = new IndexNode(
            this.src,
            ret,
            this.#numberLit(attrTok),
            startOf(ret, this.src),
            Math.max(attrTok.start, attrTok.end),
          );
        } else if (attrTok.type === T.Star) {
          // Attribute-only splat: foo.*.bar
          const marker = this.read();
          const item: Expr = {
            kind: "splat_item",
            range: this.rangeOf(dot, marker),
          };
          let each: Expr = item;
          let last = marker;
          while (this.peek().type === T.Dot) {
            const dot2 = this.read();
            const t2 = this.peek();
            if (t2.type === T.NumberLit) {
              this.read();
              const raw = this.textOf(t2);
              if (raw.includes(".")) {
                const [first, second] = raw.split(".", 2);
                this.error(
                  "Invalid legacy index syntax",
                  `When using the legacy index syntax, chaining two indexes together is not permitted. Use the proper index syntax with a full splat expression [*] instead, like [${first}][${second}].`,
                  attrTok,
                );
              }
              each = {
                kind: "index",
                target: each,
                key: this.#numberLit(t2),
                range: this.rangeTo(each.range, t2),
              };
              last = t2;
              continue;
            }
            if (t2.type !== T.Ident) {
              if (!this.recovery) {
                if (t2.type === T.Star) {
                  this.error(
                    "Nested splat expression not allowed",
                    "A splat expression (*) cannot be used inside another attribute-only splat expression.",
                    t2,
                  );
                } else {
                  this.error(
                    "Invalid attribute name",
                    "An attribute name is required after a dot.",
                    t2,
                  );
                }
              }
              this.recovery = true;
              break;
            }
            this.read();
            each = {
              kind: "getattr",
              target: each,
              name: this.textOf(t2),
              nameRange: this.rangeOf(dot2, t2),
              range: this.rangeTo(each.range, t2),
            };
            last = t2;
          }
          ret = {
            kind: "splat",
            source: ret,
            each,
            range: this.rangeTo(from.range, last),
          };
        } else {
          this.error(
            "Invalid attribute name",
            "An attribute name is required after a dot.",
            attrTok,
          );
          ret = {
            kind: "invalid",
            range: this.rangeTo(from.range, dot),
          };
          this.recovery = true;
        }
        continue;
      }
      if (type === T.OBrack) {
        const open = this.read();
        if (this.peek().type === T.Star) {
          this.read();
          let close = this.read();
          if (close.type !== T.CBrack && !this.recovery) {
            this.error(
              "Missing close bracket on splat index",
              'The star for a full splat operator must be immediately followed by a closing bracket ("]").',
              close,
            );
            close = this.recover(T.CBrack);
          }
          const item: Expr = {
            kind: "splat_item",
            range: this.rangeOf(open, close),
          };
          const each = this.#parseTraversals(item);
          ret = {
            kind: "splat",
            source: ret,
            each,
            range: this.between(from.range, each.range),
          };
          continue;
        }
        this.pushNewlines(false);
        const key = this.#parseExpr();
        const keyErr = this.exprErr;
        let close: Token;
        if (this.recovery && keyErr) {
          close = this.recover(T.CBrack);
        } else {
          close = this.peek();
          if (close.type === T.CBrack) {
            this.read();
          } else {
            if (!this.recovery) {
              this.error(
                "Missing close bracket on index",
                'The index operator must end with a closing bracket ("]").',
                close,
              );
            }
            close = this.recover(T.CBrack);
          }
        }
        this.popNewlines();
        ret = new IndexNode(
          this.src,
          ret,
          key,
          startOf(from, this.src),
          Math.max(close.start, close.end),
        );
        continue;
      }
      return ret;
    }
  }

  #numberLit(tok: Token): Expr {
    const raw = this.textOf(tok);
    const value = Number(raw);
    if (Number.isNaN(value)) {
      this.error(
        "Invalid number literal",
        "Failed to recognize the value of this number literal.",
        tok,
      );
      return { kind: "invalid", range: this.rangeOf(tok) };
    }
    return new NumberNode(
      this.src,
      value,
      tok.start,
      Math.max(tok.start, tok.end),
    );
  }

  #parseTerm(): Expr {
    const start = this.peek();
    if (this.depth >= MAX_NESTING) {
      this.#nestingError(start);
      return { kind: "invalid", range: this.rangeOf(start) };
    }
    // No try/finally: an exception ends the parse (see parseHcl).
    this.depth++;
    const term = this.#parseTermInner(start);
    this.depth--;
    return term;
  }

  #parseTermInner(start: Token): Expr {
    switch (start.type) {
      case T.OParen: {
        const open = this.read();
        this.pushNewlines(false);
        const expr = this.#parseExpr();
        const err = this.exprErr;
        if (err) {
          this.recover(T.CParen);
          this.popNewlines();
          return expr;
        }
        const close = this.peek();
        let closeTok = this.prev();
        if (close.type !== T.CParen) {
          this.error(
            "Unbalanced parentheses",
            "Expected a closing parenthesis to terminate the expression.",
            close,
          );
          this.recovery = true;
          // hashicorp/hcl consumes this token anyway; leaving a "}" in
          // place lets the enclosing block end where it should.
          if (close.type !== T.CBrace || this.bodyDepth === 0) {
            closeTok = this.read();
          }
        } else {
          closeTok = this.read();
        }
        this.popNewlines();
        return new ParensNode(
          this.src,
          expr,
          open.start,
          Math.max(open.start, closeTok.end),
        );
      }
      case T.NumberLit:
        this.read();
        return this.#numberLit(start);
      case T.Ident: {
        this.read();
        if (this.peek().type === T.OParen) return this.#finishCall(start);
        const name = this.name(start);
        const src = this.src;
        const s = start.start;
        const e = Math.max(s, start.end);
        if (name === "true") return new BoolNode(src, true, s, e);
        if (name === "false") return new BoolNode(src, false, s, e);
        if (name === "null") return new NullNode(src, s, e);
        return new VariableNode(src, name, s, e);
      }
      case T.OQuote:
      case T.OHeredoc:
        return this.#parseTemplate();
      case T.Minus:
      case T.Bang: {
        this.read();
        const operand = this.#parseWithTraversals();
        return new UnaryNode(
          this.src,
          start.type === T.Minus ? "-" : "!",
          operand,
          start.start,
          endOf(operand, this.src),
        );
      }
      case T.OBrack:
        return this.#parseTuple();
      case T.OBrace:
        return this.#parseObject();
      default:
        if (!this.recovery) {
          if (start.type === T.EOF) {
            this.error(
              "Missing expression",
              "Expected the start of an expression, but found the end of the file.",
              start,
            );
          } else {
            this.error(
              "Invalid expression",
              "Expected the start of an expression, but found an invalid expression token.",
              start,
            );
          }
        }
        this.recovery = true;
        return { kind: "invalid", range: this.rangeOf(start) };
    }
  }

  #finishCall(name: Token): Expr {
    const open = this.read();
    const args: Expr[] = [];
    let expandFinal = false;
    let close: Token = open;
    this.pushNewlines(false);
    for (;;) {
      const tok = this.peek();
      if (tok.type === T.CParen) {
        close = this.read();
        break;
      }
      const arg = this.#parseExpr();
      const err = this.exprErr;
      args.push(arg);
      if (this.recovery && err) {
        const r = this.recover(T.CParen);
        if (r.type === T.CParen) close = r;
        else close = this.prev();
        break;
      }
      const sep = this.peek();
      if (sep.type === T.CParen) {
        close = this.read();
        break;
      }
      if (sep.type === T.Ellipsis) {
        this.read();
        expandFinal = true;
        if (this.peek().type !== T.CParen) {
          if (!this.recovery) {
            this.error(
              "Missing closing parenthesis",
              "An expanded function argument (with ...) must be immediately followed by closing parentheses.",
              sep,
            );
          }
          close = this.recover(T.CParen);
        } else {
          close = this.read();
        }
        break;
      }
      if (sep.type !== T.Comma) {
        if (sep.type === T.EOF) {
          this.error(
            "Unterminated function call",
            "There is no closing parenthesis for this function call before the end of the file. This may be caused by incorrect parenthesis nesting elsewhere in this file.",
            name,
            open,
          );
        } else {
          this.error(
            "Missing argument separator",
            "A comma is required to separate each function argument from the next.",
            sep,
          );
        }
        close = this.recover(T.CParen);
        break;
      }
      this.read(); // comma
      if (this.peek().type === T.CParen) {
        close = this.read();
        break;
      }
    }
    this.popNewlines();
    return new CallNode(
      this.src,
      this.name(name),
      args,
      expandFinal,
      name.start,
      Math.max(close.start, close.end),
    );
  }

  /**
   * Reports a token that is neither a separator nor the closer of a
   * bracketed list (the list is unterminated at the end of the file, else
   * a separator is missing) and recovers to the closer.
   */
  #badSeparator(
    sep: Token,
    open: Token,
    closer: TokenType,
    unterminated: readonly [string, string],
    missing: readonly [string, string],
  ): Token {
    if (!this.recovery) {
      if (sep.type === T.EOF) {
        this.error(unterminated[0], unterminated[1], open);
      } else this.error(missing[0], missing[1], sep);
    }
    return this.recover(closer);
  }

  #parseTuple(): Expr {
    const open = this.read();
    this.pushNewlines(false);
    try {
      if (this.isKeyword(this.peek(), "for")) return this.#finishFor(open);
      const items: Expr[] = [];
      let close: Token;
      for (;;) {
        if (this.peek().type === T.CBrack) {
          close = this.read();
          break;
        }
        const expr = this.#parseExpr();
        const err = this.exprErr;
        items.push(expr);
        if (this.recovery && err) {
          close = this.recover(T.CBrack);
          break;
        }
        const next = this.peek();
        if (next.type === T.CBrack) {
          close = this.read();
          break;
        }
        if (next.type !== T.Comma) {
          close = this.#badSeparator(next, open, T.CBrack, [
            "Unterminated tuple constructor expression",
            "There is no corresponding closing bracket before the end of the file. This may be caused by incorrect bracket nesting elsewhere in this file.",
          ], [
            "Missing item separator",
            "Expected a comma to mark the beginning of the next item.",
          ]);
          break;
        }
        this.read(); // comma
      }
      return new TupleNode(
        this.src,
        exact(items),
        open.start,
        Math.max(open.start, close.end),
      );
    } finally {
      this.popNewlines();
    }
  }

  #parseObject(): Expr {
    const open = this.read();
    this.pushNewlines(false);
    const isFor = this.isKeyword(this.peek(), "for");
    this.popNewlines();
    if (isFor) {
      this.pushNewlines(false);
      try {
        return this.#finishFor(open);
      } finally {
        this.popNewlines();
      }
    }
    this.pushNewlines(true);
    try {
      const items: ObjectItem[] = [];
      let close: Token;
      for (;;) {
        const next = this.peek();
        if (next.type === T.Newline) {
          this.read();
          continue;
        }
        if (next.type === T.CBrace) {
          close = this.read();
          break;
        }
        const forceNonLiteral = next.type === T.OParen;
        const key = this.#parseExpr();
        const keyErr = this.exprErr;
        if (this.recovery && keyErr) {
          close = this.recover(T.CBrace);
          break;
        }
        const sep = this.peek();
        if (sep.type !== T.Equal && sep.type !== T.Colon) {
          if (!this.recovery) {
            if (sep.type === T.Newline || sep.type === T.Comma) {
              this.error(
                "Missing attribute value",
                'Expected an attribute value, introduced by an equals sign ("=").',
                sep,
              );
            } else if (sep.type === T.Ident) {
              this.error(
                "Missing key/value separator",
                'Expected an equals sign ("=") to mark the beginning of the attribute value. If you intended to given an attribute name containing periods or spaces, write the name in quotes to create a string literal.',
                sep,
              );
            } else if (sep.type === T.EOF) {
              this.error(
                "Unterminated object constructor expression",
                "There is no corresponding closing brace before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.",
                open,
              );
            } else {
              this.error(
                "Missing key/value separator",
                'Expected an equals sign ("=") to mark the beginning of the attribute value.',
                sep,
              );
            }
          }
          close = this.recover(T.CBrace);
          break;
        }
        this.read(); // = or :
        const value = this.#parseExpr();
        const valueErr = this.exprErr;
        if (this.recovery && valueErr) {
          close = this.recover(T.CBrace);
          break;
        }
        let keyName: string | undefined;
        if (!forceNonLiteral) {
          if (key.kind === "variable") keyName = key.name;
          else if (key.kind === "bool") keyName = String(key.value);
          else if (key.kind === "null") keyName = "null";
        }
        const start = startOf(key, this.src);
        const end = endOf(value, this.src);
        items.push(
          keyName === undefined
            ? new ObjectItemNode(this.src, key, value, start, end)
            : new NamedObjectItemNode(
              this.src,
              key,
              keyName,
              value,
              start,
              end,
            ),
        );
        const after = this.peek();
        if (after.type === T.CBrace) {
          close = this.read();
          break;
        }
        if (after.type !== T.Comma && after.type !== T.Newline) {
          close = this.#badSeparator(after, open, T.CBrace, [
            "Unterminated object constructor expression",
            "There is no corresponding closing brace before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.",
          ], [
            "Missing attribute separator",
            "Expected a newline or comma to mark the beginning of the next attribute.",
          ]);
          break;
        }
        this.read(); // comma or newline
      }
      return new ObjectNode(
        this.src,
        exact(items),
        open.start,
        Math.max(open.start, close.end),
      );
    } finally {
      this.popNewlines();
    }
  }

  #finishFor(open: Token): Expr {
    const isObject = open.type === T.OBrace;
    const closeType = isObject ? T.CBrace : T.CBrack;
    this.pushNewlines(false);
    try {
      this.read(); // "for"
      const fail = (detail: string): Expr => {
        if (!this.recovery) {
          this.error("Invalid 'for' expression", detail, this.peek());
        }
        const close = this.recover(closeType);
        return { kind: "invalid", range: this.rangeOf(open, close) };
      };
      if (this.peek().type !== T.Ident) {
        return fail("For expression requires variable name after 'for'.");
      }
      let valueVar = this.textOf(this.read());
      let keyVar: string | undefined;
      if (this.peek().type === T.Comma) {
        keyVar = valueVar;
        this.read();
        if (this.peek().type !== T.Ident) {
          return fail(
            "For expression requires value variable name after comma.",
          );
        }
        valueVar = this.textOf(this.read());
      }
      if (!this.isKeyword(this.peek(), "in")) {
        return fail(
          "For expression requires the 'in' keyword after its name declarations.",
        );
      }
      this.read();
      const collection = this.#parseExpr();
      const collErr = this.exprErr;
      if (this.recovery && collErr) {
        const close = this.recover(closeType);
        return { kind: "invalid", range: this.rangeOf(open, close) };
      }
      if (this.peek().type !== T.Colon) {
        return fail(
          "For expression requires a colon after the collection expression.",
        );
      }
      this.read();
      let key: Expr | undefined;
      let value = this.#parseExpr();
      let valErr = this.exprErr;
      let keyErr = false;
      if (this.peek().type === T.FatArrow) {
        this.read();
        key = value;
        keyErr = valErr;
        value = this.#parseExpr();
        valErr = this.exprErr;
      }
      if (this.recovery && (keyErr || valErr)) {
        const close = this.recover(closeType);
        return { kind: "invalid", range: this.rangeOf(open, close) };
      }
      let grouped = false;
      let ellipsis: Token | undefined;
      if (this.peek().type === T.Ellipsis) {
        ellipsis = this.read();
        grouped = true;
      }
      let condition: Expr | undefined;
      if (this.isKeyword(this.peek(), "if")) {
        this.read();
        const cond = this.#parseExpr();
        const condErr = this.exprErr;
        if (this.recovery && condErr) {
          const close = this.recover(closeType);
          return { kind: "invalid", range: this.rangeOf(open, close) };
        }
        condition = cond;
      }
      let close: Token;
      if (this.peek().type === closeType) {
        close = this.read();
      } else {
        if (!this.recovery) {
          this.error(
            "Invalid 'for' expression",
            "Extra characters after the end of the 'for' expression.",
            this.peek(),
          );
        }
        close = this.recover(closeType);
      }
      if (!isObject) {
        if (key !== undefined) {
          this.errorAt(
            "Invalid 'for' expression",
            "Key expression is not valid when building a tuple.",
            key.range,
          );
        }
        if (ellipsis !== undefined) {
          this.error(
            "Invalid 'for' expression",
            "Grouping ellipsis (...) cannot be used when building a tuple.",
            ellipsis,
          );
        }
      } else if (key === undefined) {
        this.errorAt(
          "Invalid 'for' expression",
          "Key expression is required when building an object.",
          value.range,
        );
      }
      const expr: Expr = {
        kind: "for",
        isObject,
        valueVar,
        collection,
        value,
        grouped,
        range: this.rangeOf(open, close),
      };
      if (keyVar !== undefined) expr.keyVar = keyVar;
      if (key !== undefined) expr.key = key;
      if (condition !== undefined) expr.condition = condition;
      return expr;
    } finally {
      this.popNewlines();
    }
  }

  // --- templates ----------------------------------------------------------

  #parseTemplate(): Expr {
    const open = this.read();
    const plain = this.#plainString(open);
    if (plain !== undefined) return plain;
    const isHeredoc = open.type === T.OHeredoc;
    let heredoc: HeredocInfo | undefined;
    if (isHeredoc) {
      const m = /^<<(-?)([^\r\n]+)/.exec(this.textOf(open))!;
      heredoc = { marker: m[2]!, flush: m[1] === "-" };
    }
    const closer = isHeredoc ? T.CHeredoc : T.CQuote;
    const parts = this.#parseTemplateParts(closer, open);
    if (heredoc?.flush) flushHeredoc(parts);
    meldLiterals(parts);
    const closeTok = this.prev();
    const rangeEnd = Math.max(open.start, closeTok.end);
    const isWrap = parts.length === 2 && parts[0]!.t === "interp";
    const tp = new TemplateTreeBuilder(this, parts);
    const tree = tp.parseRoot();
    if (isWrap) {
      const expr = new TemplateNode(
        this.src,
        tree,
        true,
        open.start,
        rangeEnd,
      );
      if (heredoc) expr.heredoc = heredoc;
      return expr;
    }
    if (tree.length === 1 && tree[0]!.kind === "literal") {
      const expr = new StringNode(
        this.src,
        tree[0]!.value,
        open.start,
        rangeEnd,
      );
      if (heredoc) expr.heredoc = heredoc;
      return expr;
    }
    const expr = new TemplateNode(
      this.src,
      tree,
      false,
      open.start,
      rangeEnd,
    );
    if (heredoc) expr.heredoc = heredoc;
    return expr;
  }

  /**
   * The most common template, `"text"` with no escape, `$` or `%`, read
   * straight from the tokens: the same string expression the general path
   * builds, without its parts, tree and escape results.
   *
   * @param open The opening quote, just read.
   * @returns The expression, or `undefined` for any other template.
   */
  #plainString(open: Token): Expr | undefined {
    if (open.type !== T.OQuote) return undefined;
    const i = this.next;
    const { types, starts, ends } = this.tokens;
    if (
      i + 1 >= this.tokens.length || types[i] !== T.QuotedLit ||
      types[i + 1] !== T.CQuote
    ) return undefined;
    const start = starts[i]!;
    const end = ends[i]!;
    const text = this.text;
    for (let j = start; j < end; j++) {
      const c = text.charCodeAt(j);
      if (c === 92 /* \ */ || c === 36 /* $ */ || c === 37 /* % */) {
        return undefined;
      }
    }
    this.next = i + 2;
    return new StringNode(
      this.src,
      text.slice(start, end),
      open.start,
      Math.max(open.start, ends[i + 1]!),
    );
  }

  #parseTemplateParts(end: TokenType, open: Token): Part[] {
    const parts: Part[] = [];
    const startTok = this.peek();
    let ltrimNext = false;
    let nextCanTrimPrev = false;
    let endTok: Token;
    for (;;) {
      const next = this.read();
      if (next.type === end) {
        endTok = next;
        break;
      }
      const ltrim = ltrimNext;
      ltrimNext = false;
      const canTrimPrev = nextCanTrimPrev;
      nextCanTrimPrev = false;
      if (next.type === T.StringLit || next.type === T.QuotedLit) {
        const r = unescapeLiteral(this.textOf(next), next.type === T.QuotedLit);
        for (const p of r.problems) {
          this.errorAt(
            p.summary,
            p.detail,
            this.src.range(next.start + p.start, next.start + p.end),
          );
        }
        let value = r.value;
        if (ltrim) value = value.replace(LEADING_SPACE_REGEXP, "");
        parts.push({ t: "lit", value, start: next.start, end: next.end });
        nextCanTrimPrev = true;
        continue;
      }
      if (next.type === T.TemplateInterp || next.type === T.TemplateControl) {
        const tilde = next.end - next.start === 3;
        if (canTrimPrev && tilde && parts.length > 0) {
          const last = parts[parts.length - 1]!;
          if (last.t === "lit") {
            last.value = trimTrailingSpace(last.value);
          }
        }
        this.pushNewlines(false);
        if (next.type === T.TemplateInterp) {
          const expr = this.#parseExpr();
          const close = this.peek();
          let closeTok = close;
          if (close.type !== T.TemplateSeqEnd) {
            if (!this.recovery) {
              if (close.type === T.EOF) {
                this.error(
                  "Unclosed template interpolation sequence",
                  "There is no closing brace for this interpolation sequence before the end of the file. This might be caused by incorrect nesting inside the given expression.",
                  next,
                );
              } else if (close.type === T.Colon) {
                this.error(
                  "Extra characters after interpolation expression",
                  'Template interpolation doesn\'t expect a colon at this location. Did you intend this to be a literal sequence to be processed as part of another language? If so, you can escape it by starting with "$${" instead of just "${".',
                  close,
                );
              } else if (
                (close.type === T.CQuote || close.type === T.OQuote) &&
                end === T.CQuote
              ) {
                this.error(
                  "Unclosed template interpolation sequence",
                  "There is no closing brace for this interpolation sequence before the end of the quoted template. This might be caused by incorrect nesting inside the given expression.",
                  next,
                );
              } else {
                this.error(
                  "Extra characters after interpolation expression",
                  'Expected a closing brace to end the interpolation expression, but found extra characters.\n\nThis can happen when you include interpolation syntax for another language, such as shell scripting, but forget to escape the interpolation start token. If this is an embedded sequence for another language, escape it by starting with "$${" instead of just "${".',
                  close,
                );
              }
            }
            closeTok = this.recover(T.TemplateSeqEnd);
          } else {
            this.read();
            if (this.textOf(close) === "~}") ltrimNext = true;
          }
          this.popNewlines();
          parts.push({
            t: "interp",
            expr,
            start: next.start,
            end: Math.max(closeTok.end, next.end),
          });
          continue;
        }
        // A directive: %{ if c }, %{ else }, %{ endif }, %{ for ... }, %{ endfor }
        const kw = this.peek();
        if (kw.type !== T.Ident) {
          if (!this.recovery) {
            this.error(
              "Invalid template directive",
              'A template directive keyword ("if", "for", etc) is expected at the beginning of a %{ sequence.',
              kw,
            );
          }
          this.recover(T.TemplateSeqEnd);
          this.popNewlines();
          continue;
        }
        this.read();
        const word = this.textOf(kw);
        let bad = false;
        switch (word) {
          case "if": {
            const cond = this.#parseExpr();
            parts.push({
              t: "if",
              cond,
              start: next.start,
              end: this.peek().end,
            });
            break;
          }
          case "else":
          case "endif":
          case "endfor":
            parts.push({
              t: "endctl",
              name: word,
              start: next.start,
              end: this.peek().end,
            });
            break;
          case "for": {
            const failFor = (detail: string) => {
              if (!this.recovery) {
                this.error("Invalid 'for' directive", detail, this.peek());
              }
              this.recover(T.TemplateSeqEnd);
              this.popNewlines();
              bad = true;
            };
            if (this.peek().type !== T.Ident) {
              failFor("For directive requires variable name after 'for'.");
              break;
            }
            let valueVar = this.textOf(this.read());
            let keyVar: string | undefined;
            if (this.peek().type === T.Comma) {
              keyVar = valueVar;
              this.read();
              if (this.peek().type !== T.Ident) {
                failFor(
                  "For directive requires value variable name after comma.",
                );
                break;
              }
              valueVar = this.textOf(this.read());
            }
            if (!this.isKeyword(this.peek(), "in")) {
              failFor("For directive requires 'in' keyword after names.");
              break;
            }
            this.read();
            const coll = this.#parseExpr();
            const part: Part = {
              t: "for",
              valueVar,
              coll,
              start: next.start,
              end: this.peek().end,
            };
            if (keyVar !== undefined) part.keyVar = keyVar;
            parts.push(part);
            break;
          }
          default: {
            if (!this.recovery) {
              const suggestion = closestKeyword(word);
              this.error(
                "Invalid template control keyword",
                `"${word}" is not a valid template control keyword.${
                  suggestion ? ` Did you mean "${suggestion}"?` : ""
                }`,
                kw,
              );
            }
            this.recover(T.TemplateSeqEnd);
            this.popNewlines();
            bad = true;
          }
        }
        if (bad) continue;
        const close = this.peek();
        if (close.type !== T.TemplateSeqEnd) {
          if (!this.recovery) {
            this.error(
              `Extra characters in ${word} marker`,
              "Expected a closing brace to end the sequence, but found extra characters.",
              close,
            );
          }
          this.recover(T.TemplateSeqEnd);
        } else {
          this.read();
          if (this.textOf(close) === "~}") ltrimNext = true;
        }
        this.popNewlines();
        continue;
      }
      // Anything else ends the template early.
      if (!this.recovery) {
        this.error(
          "Unterminated template string",
          "No closing marker was found for the string.",
          next,
        );
      }
      endTok = next.type === T.EOF ? next : this.recover(end);
      break;
    }
    if (parts.length === 0) {
      const at = startTok.type === end ? startTok.start : open.end;
      parts.push({ t: "lit", value: "", start: at, end: at });
    }
    parts.push({ t: "end", start: endTok.start, end: endTok.end });
    return parts;
  }
}

function closestKeyword(word: string): string | undefined {
  const candidates = ["if", "for", "else", "endif", "endfor"];
  let best: string | undefined;
  let bestDist = Infinity;
  for (const c of candidates) {
    const d = levenshtein(word, c);
    if (d < bestDist) {
      best = c;
      bestDist = d;
    }
  }
  return bestDist < 3 ? best : undefined;
}

/**
 * `<<-` heredocs: removes the smallest indentation among non-blank lines
 * from every line start (before melding; an interpolation at a line start
 * counts as no indentation).
 */
function flushHeredoc(parts: Part[]): void {
  let minSpaces = Number.MAX_SAFE_INTEGER;
  let newline = true;
  const adjust: Extract<Part, { t: "lit" }>[] = [];
  for (const p of parts) {
    if (newline) {
      newline = false;
      let spaces = 0;
      if (p.t === "lit") {
        const lead = LEADING_SPACE_REGEXP.exec(p.value)![0];
        if (lead.length === p.value.length && p.value.endsWith("\n")) {
          spaces = Number.MAX_SAFE_INTEGER; // a blank line
        } else {
          spaces = [...lead].length;
          adjust.push(p);
        }
      } else if (p.t === "end") {
        break;
      }
      if (spaces < minSpaces) minSpaces = spaces;
    }
    if (p.t === "lit" && p.value.endsWith("\n")) newline = true;
  }
  for (const p of adjust) {
    const chars = [...p.value];
    const cut = chars.slice(0, minSpaces).join("").length;
    p.value = p.value.slice(cut);
    p.start += cut;
  }
}

/** Merges consecutive literal parts. */
function meldLiterals(parts: Part[]): void {
  // One pass, compacting in place: a heredoc of n lines is n parts, and
  // removing them one by one (splice) would cost n² moves.
  let out = 0;
  let run: string[] | undefined;
  const flush = () => {
    if (run !== undefined) {
      (parts[out - 1] as Extract<Part, { t: "lit" }>).value = run.join("");
      run = undefined;
    }
  };
  for (let i = 0; i < parts.length; i++) {
    const cur = parts[i]!;
    const prev = out > 0 ? parts[out - 1]! : undefined;
    if (prev !== undefined && prev.t === "lit" && cur.t === "lit") {
      (run ??= [prev.value]).push(cur.value);
      prev.end = cur.end;
      continue;
    }
    flush();
    parts[out++] = cur;
  }
  flush();
  parts.length = out;
}

/** Nests `%{ if }` / `%{ for }` directives from the flat part list. */
class TemplateTreeBuilder {
  #p: Parser;
  #parts: Part[];
  #pos = 0;
  #depth = 0;

  constructor(p: Parser, parts: Part[]) {
    this.#p = p;
    this.#parts = parts;
  }

  #peek(): Part {
    return this.#parts[this.#pos]!;
  }

  #read(): Part {
    const part = this.#parts[this.#pos]!;
    if (part.t !== "end") this.#pos++;
    return part;
  }

  #range(start: number, end: number): SourceRange {
    return this.#p.src.range(start, end);
  }

  #placeholder(start: number, end: number): TemplatePart {
    const range = this.#range(start, end);
    return { kind: "interp", expr: { kind: "invalid", range }, range };
  }

  parseRoot(): TemplatePart[] {
    const out: TemplatePart[] = [];
    while (this.#peek().t !== "end") out.push(this.#parseOne());
    return out;
  }

  #parseOne(): TemplatePart {
    const part = this.#peek();
    switch (part.t) {
      case "lit":
        this.#read();
        return new TemplateLiteralNode(
          this.#p.src,
          part.value,
          part.start,
          part.end,
        );
      case "interp":
        this.#read();
        return new TemplateInterpNode(
          this.#p.src,
          part.expr,
          part.start,
          part.end,
        );
      case "if":
      case "for": {
        if (this.#depth >= MAX_NESTING) {
          // Directives nested deeper than any real template: report once
          // and skip to the end rather than recurse further.
          this.#p.nestingErrorAt(this.#range(part.start, part.end));
          while (this.#peek().t !== "end") this.#read();
          return this.#placeholder(part.start, part.end);
        }
        this.#depth++;
        try {
          return part.t === "if" ? this.#parseIf() : this.#parseFor();
        } finally {
          this.#depth--;
        }
      }
      case "end":
        this.#read();
        this.#p.errorAt(
          "Unexpected end of template",
          "The control directives within this template are unbalanced.",
          this.#range(part.start, part.end),
        );
        return this.#placeholder(part.start, part.end);
      case "endctl":
        this.#read();
        this.#p.errorAt(
          `Unexpected ${part.name} directive`,
          "The control directives within this template are unbalanced.",
          this.#range(part.start, part.end),
        );
        return this.#placeholder(part.start, part.end);
    }
  }

  #where(start: number): string {
    const pos = this.#p.src.pos(start);
    return `${this.#p.src.file}:${pos.line},${pos.column}`;
  }

  #parseIf(): TemplatePart {
    const open = this.#read() as Extract<Part, { t: "if" }>;
    const thenParts: TemplatePart[] = [];
    const elseParts: TemplatePart[] = [];
    let current = thenParts;
    let endifEnd = open.end;
    for (;;) {
      const next = this.#peek();
      if (next.t === "end") {
        this.#p.errorAt(
          "Unexpected end of template",
          `The if directive at ${
            this.#where(open.start)
          } is missing its corresponding endif directive.`,
          this.#range(next.start, next.end),
        );
        return this.#placeholder(next.start, next.end);
      }
      if (next.t === "endctl") {
        this.#read();
        if (next.name === "else") {
          if (current === thenParts) {
            current = elseParts;
            continue;
          }
          this.#p.errorAt(
            "Unexpected else directive",
            `Already in the else clause for the if started at ${
              this.#where(open.start)
            }.`,
            this.#range(next.start, next.end),
          );
          return this.#placeholder(next.start, next.end);
        }
        if (next.name === "endif") {
          endifEnd = next.end;
          break;
        }
        this.#p.errorAt(
          `Unexpected ${next.name} directive`,
          `Expecting an endif directive for the if started at ${
            this.#where(open.start)
          }.`,
          this.#range(next.start, next.end),
        );
        return this.#placeholder(next.start, next.end);
      }
      current.push(this.#parseOne());
    }
    return new TemplateIfNode(
      this.#p.src,
      open.cond,
      thenParts,
      elseParts,
      open.start,
      endifEnd,
    );
  }

  #parseFor(): TemplatePart {
    const open = this.#read() as Extract<Part, { t: "for" }>;
    const body: TemplatePart[] = [];
    let endforEnd = open.end;
    for (;;) {
      const next = this.#peek();
      if (next.t === "end") {
        this.#p.errorAt(
          "Unexpected end of template",
          `The for directive at ${
            this.#where(open.start)
          } is missing its corresponding endfor directive.`,
          this.#range(next.start, next.end),
        );
        return this.#placeholder(next.start, next.end);
      }
      if (next.t === "endctl") {
        this.#read();
        if (next.name === "endfor") {
          endforEnd = next.end;
          break;
        }
        this.#p.errorAt(
          `Unexpected ${next.name} directive`,
          next.name === "else"
            ? "An else clause is not expected for a for directive."
            : `Expecting an endfor directive corresponding to the for directive at ${
              this.#where(open.start)
            }.`,
          this.#range(next.start, next.end),
        );
        return this.#placeholder(next.start, next.end);
      }
      body.push(this.#parseOne());
    }
    const part: TemplatePart = {
      kind: "for",
      valueVar: open.valueVar,
      collection: open.coll,
      body,
      range: this.#range(open.start, endforEnd),
    };
    if (open.keyVar !== undefined) part.keyVar = open.keyVar;
    return part;
  }
}
