/**
 * The syntax tree {@linkcode parseHcl} produces: bodies, attributes, blocks
 * and expressions, each with its exact source range.
 *
 * Expressions are kept unevaluated so that a caller can check their shape
 * (the sensitive-attribute rule needs to tell `env("X")` from
 * `"${env("X")}"`) and evaluate them later, in a context that decides which
 * functions are allowed (see {@linkcode evaluate}).
 *
 * @module
 */

import type { SourceRange } from "../../contract/diagnostic.ts";

/** The contents of a file or of a block: attributes and nested blocks. */
export interface Body {
  /** Discriminant. */
  kind: "body";
  /** Attributes in source order (a redefined name keeps its first definition). */
  attributes: Attribute[];
  /** Nested blocks in source order. */
  blocks: Block[];
  /** Attributes and blocks together, in source order. */
  items: (Attribute | Block)[];
  /** From the opening brace to the closing brace (the whole file at top level). */
  range: SourceRange;
}

/** `name = expr`. */
export interface Attribute {
  /** Discriminant. */
  kind: "attribute";
  /** The attribute's name. */
  name: string;
  /** Where the name is. */
  nameRange: SourceRange;
  /** The unevaluated value. */
  expr: Expr;
  /** From the name to the end of the expression. */
  range: SourceRange;
}

/** A block label: `"quoted"` or a bare identifier. */
export interface BlockLabel {
  /** The label's text (escapes resolved). */
  value: string;
  /** Where the label is, including quotes. */
  range: SourceRange;
}

/** `type "label" ... { body }`. */
export interface Block {
  /** Discriminant. */
  kind: "block";
  /** The block type, e.g. `provider`. */
  type: string;
  /** Where the type name is. */
  typeRange: SourceRange;
  /** The labels, in order. */
  labels: BlockLabel[];
  /** The block's contents. */
  body: Body;
  /** From the type name to the closing brace. */
  range: SourceRange;
  /** Where the opening brace is. */
  openBraceRange: SourceRange;
  /** Where the closing brace is. */
  closeBraceRange: SourceRange;
}

/** Fields every expression node has. */
export interface ExprBase {
  /** Where the expression is, first token to last token. */
  range: SourceRange;
}

/** A number literal, e.g. `42`, `2.5`, `1e3`. */
export interface NumberExpr extends ExprBase {
  /** Discriminant. */
  kind: "number";
  /** The value as a double. */
  value: number;
  /** The literal as written. */
  raw: string;
}

/** `true` or `false`. */
export interface BoolExpr extends ExprBase {
  /** Discriminant. */
  kind: "bool";
  /** The value. */
  value: boolean;
}

/** `null`. */
export interface NullExpr extends ExprBase {
  /** Discriminant. */
  kind: "null";
}

/**
 * A quoted string or heredoc with no interpolation and no directive: its
 * value is known without evaluation.
 */
export interface StringExpr extends ExprBase {
  /** Discriminant. */
  kind: "string";
  /** The value, escapes resolved. */
  value: string;
  /** Set for a heredoc (`<<EOT` or `<<-EOT`); absent for a quoted string. */
  heredoc?: HeredocInfo;
}

/** How a heredoc was introduced. */
export interface HeredocInfo {
  /** The closing marker, e.g. `EOT`. */
  marker: string;
  /** `<<-` (leading indentation removed) rather than `<<`. */
  flush: boolean;
}

/**
 * A string template with at least one interpolation or directive:
 * `"a-${x}"`, `"${x}"`, `"%{if c}y%{endif}"`, or such a heredoc.
 */
export interface TemplateExpr extends ExprBase {
  /** Discriminant. */
  kind: "template";
  /** The parts, literal strings and sequences, in order. */
  parts: TemplatePart[];
  /**
   * True when the template is exactly one interpolation and nothing else
   * (`"${x}"`): HCL then yields the value of `x` unchanged, not a string.
   */
  wrap: boolean;
  /** Set for a heredoc; absent for a quoted string. */
  heredoc?: HeredocInfo;
}

/** One part of a template. */
export type TemplatePart =
  | TemplateLiteral
  | TemplateInterp
  | TemplateIf
  | TemplateFor;

/** Literal text in a template (escapes resolved, strip markers applied). */
export interface TemplateLiteral {
  /** Discriminant. */
  kind: "literal";
  /** The text. */
  value: string;
  /** Where it is. */
  range: SourceRange;
}

/** `${ expr }`. */
export interface TemplateInterp {
  /** Discriminant. */
  kind: "interp";
  /** The interpolated expression. */
  expr: Expr;
  /** From `${` to `}`. */
  range: SourceRange;
}

/** `%{ if cond }...%{ else }...%{ endif }`. */
export interface TemplateIf {
  /** Discriminant. */
  kind: "if";
  /** The condition. */
  condition: Expr;
  /** Parts used when the condition holds. */
  then: TemplatePart[];
  /** Parts used otherwise (empty without `%{ else }`). */
  else: TemplatePart[];
  /** From `%{ if` to the end of `%{ endif }`. */
  range: SourceRange;
}

/** `%{ for k, v in coll }...%{ endfor }`. */
export interface TemplateFor {
  /** Discriminant. */
  kind: "for";
  /** The key (index) variable, when two names are given. */
  keyVar?: string;
  /** The value variable. */
  valueVar: string;
  /** The collection iterated over. */
  collection: Expr;
  /** Parts repeated for each element. */
  body: TemplatePart[];
  /** From `%{ for` to the end of `%{ endfor }`. */
  range: SourceRange;
}

/** `[a, b, c]`. */
export interface TupleExpr extends ExprBase {
  /** Discriminant. */
  kind: "tuple";
  /** The elements. */
  items: Expr[];
}

/** One `key = value` (or `key: value`) item of an object constructor. */
export interface ObjectItem {
  /** The key expression as written. */
  key: Expr;
  /**
   * Set when the key is a bare identifier (or `true`/`false`/`null`) not in
   * parentheses: HCL reads it as that literal name, not as a reference.
   */
  keyName?: string;
  /** The value. */
  value: Expr;
  /** From the key to the end of the value. */
  range: SourceRange;
}

/** `{ k = v, ... }`. */
export interface ObjectExpr extends ExprBase {
  /** Discriminant. */
  kind: "object";
  /** The items, in source order. */
  items: ObjectItem[];
}

/** `name(args...)`. */
export interface CallExpr extends ExprBase {
  /** Discriminant. */
  kind: "call";
  /** The function's name. */
  name: string;
  /** Where the name is. */
  nameRange: SourceRange;
  /** The arguments. */
  args: Expr[];
  /** The last argument ends with `...` (expanded into arguments). */
  expandFinal: boolean;
}

/** A bare name: a reference to a variable (none exist in agent config). */
export interface VariableExpr extends ExprBase {
  /** Discriminant. */
  kind: "variable";
  /** The name. */
  name: string;
}

/** `target.name` (attribute access). */
export interface GetAttrExpr extends ExprBase {
  /** Discriminant. */
  kind: "getattr";
  /** What is accessed. */
  target: Expr;
  /** The attribute's name. */
  name: string;
  /** Where `.name` is. */
  nameRange: SourceRange;
}

/** `target[key]`, or the legacy `target.0`. */
export interface IndexExpr extends ExprBase {
  /** Discriminant. */
  kind: "index";
  /** What is indexed. */
  target: Expr;
  /** The key. */
  key: Expr;
}

/**
 * `source[*].rest` or `source.*.rest`: `each` is evaluated once per element
 * of `source`, with {@linkcode SplatItemExpr} standing for the element.
 */
export interface SplatExpr extends ExprBase {
  /** Discriminant. */
  kind: "splat";
  /** The collection. */
  source: Expr;
  /** The traversal applied to each element. */
  each: Expr;
}

/** The element placeholder inside a {@linkcode SplatExpr}. */
export interface SplatItemExpr extends ExprBase {
  /** Discriminant. */
  kind: "splat_item";
}

/** Unary operators. */
export type UnaryOp = "-" | "!";

/** `-x` or `!x`. */
export interface UnaryExpr extends ExprBase {
  /** Discriminant. */
  kind: "unary";
  /** The operator. */
  op: UnaryOp;
  /** The operand. */
  operand: Expr;
}

/** Binary operators, from lowest to highest precedence group. */
export type BinaryOp =
  | "||"
  | "&&"
  | "=="
  | "!="
  | "<"
  | "<="
  | ">"
  | ">="
  | "+"
  | "-"
  | "*"
  | "/"
  | "%";

/** `left op right`. */
export interface BinaryExpr extends ExprBase {
  /** Discriminant. */
  kind: "binary";
  /** The operator. */
  op: BinaryOp;
  /** Left operand. */
  left: Expr;
  /** Right operand. */
  right: Expr;
}

/** `cond ? a : b`. */
export interface ConditionalExpr extends ExprBase {
  /** Discriminant. */
  kind: "conditional";
  /** The condition. */
  condition: Expr;
  /** Value when the condition holds. */
  then: Expr;
  /** Value otherwise. */
  else: Expr;
}

/** `( expr )`. */
export interface ParensExpr extends ExprBase {
  /** Discriminant. */
  kind: "parens";
  /** The wrapped expression. */
  expr: Expr;
}

/** `[for v in coll: expr if cond]` or `{for k, v in coll: key => value...}`. */
export interface ForExpr extends ExprBase {
  /** Discriminant. */
  kind: "for";
  /** Builds an object (`{for ...}`) rather than a tuple (`[for ...]`). */
  isObject: boolean;
  /** The key (index) variable, when two names are given. */
  keyVar?: string;
  /** The value variable. */
  valueVar: string;
  /** The collection iterated over. */
  collection: Expr;
  /** The key expression (object form only). */
  key?: Expr;
  /** The value expression. */
  value: Expr;
  /** The `if` filter, if any. */
  condition?: Expr;
  /** `...` after the value: group values by key into lists (object form). */
  grouped: boolean;
}

/** A placeholder where a syntax error left no expression. */
export interface InvalidExpr extends ExprBase {
  /** Discriminant. */
  kind: "invalid";
}

/** Any expression. */
export type Expr =
  | NumberExpr
  | BoolExpr
  | NullExpr
  | StringExpr
  | TemplateExpr
  | TupleExpr
  | ObjectExpr
  | CallExpr
  | VariableExpr
  | GetAttrExpr
  | IndexExpr
  | SplatExpr
  | SplatItemExpr
  | UnaryExpr
  | BinaryExpr
  | ConditionalExpr
  | ParensExpr
  | ForExpr
  | InvalidExpr;
