/**
 * The syntax tree's most numerous nodes as classes that keep their source
 * positions as offsets and make each {@linkcode SourceRange} only when it is
 * read.
 *
 * A 5 MB file is hundreds of thousands of small blocks, and every node of
 * their tree lives until the plan is built: a range held as an object per
 * field (a block had six, with its body's) was about a third of the tree's
 * heap and of the collector's copying and marking of it. Here a node holds
 * its file's {@linkcode SourceMap} once and two small integers per range;
 * reading `range` (a getter) gives a new {@linkcode Span}, equal to the one
 * the node used to hold. The nodes read like the interfaces of `ast.ts`:
 * `kind` and the other fields are own data properties, `range` and the
 * other ranges are accessors on the prototype (assigning one stores it).
 *
 * Only `parse.ts` makes them. Not part of the API.
 *
 * @module
 */

import type { SourceRange } from "../../contract/diagnostic.ts";
import type {
  Attribute,
  BinaryExpr,
  BinaryOp,
  Block,
  BlockLabel,
  Body,
  BoolExpr,
  CallExpr,
  ConditionalExpr,
  Expr,
  GetAttrExpr,
  HeredocInfo,
  IndexExpr,
  NullExpr,
  NumberExpr,
  ObjectExpr,
  ObjectItem,
  ParensExpr,
  StringExpr,
  TemplateExpr,
  TemplateIf,
  TemplateInterp,
  TemplateLiteral,
  TemplatePart,
  TupleExpr,
  UnaryExpr,
  UnaryOp,
  VariableExpr,
} from "./ast.ts";
import { type SourceMap, Span } from "./_source.ts";

/** Ranges a caller assigned to nodes, by node and field (almost never). */
const ASSIGNED = new WeakMap<Ranged, Record<string, SourceRange>>();

/**
 * A node with a main range `[start, end)` of its file and, in subclasses,
 * more ranges kept as offsets. A range a caller assigns is kept as it is,
 * beside the tree: the node's end offset is then stored as `~end`
 * (negative), which tells the getters to look there first.
 */
class Ranged {
  #map: SourceMap;
  #start: number;
  #end: number;

  constructor(map: SourceMap, start: number, end: number) {
    this.#map = map;
    this.#start = start;
    this.#end = end;
  }

  /** Where the node is. */
  get range(): SourceRange {
    const end = this.#end;
    if (end >= 0) return new Span(this.#map, this.#start, end);
    return ASSIGNED.get(this)!.range ?? new Span(this.#map, this.#start, ~end);
  }
  set range(range: SourceRange) {
    Ranged.assign(this, "range", range);
  }

  /** A secondary range of `node`: the one assigned, else `[start, end)`. */
  static secondary(
    node: Ranged,
    field: string,
    start: number,
    end: number,
  ): SourceRange {
    if (node.#end < 0) {
      const set = ASSIGNED.get(node)![field];
      if (set !== undefined) return set;
    }
    return new Span(node.#map, start, end);
  }

  /** Assigns a range of `node`. */
  static assign(node: Ranged, field: string, range: SourceRange): void {
    if (
      field === "range" && !DERIVES.has(Object.getPrototypeOf(node)) &&
      range instanceof Span &&
      range.file === node.#map.file && !Number.isNaN(range.offset) &&
      range.toOffset(node.#map, range.endOffset) instanceof Span
    ) {
      // A span of this file: keep its offsets.
      Ranged.move(node, range.offset, range.endOffset);
      return;
    }
    let set = ASSIGNED.get(node);
    if (set === undefined) ASSIGNED.set(node, set = {});
    set[field] = range;
    if (node.#end >= 0) node.#end = ~node.#end;
  }

  /** Sets the main range's offsets. */
  static move(node: Ranged, start: number, end: number): void {
    node.#start = start;
    if (node.#end >= 0) {
      node.#end = end;
      return;
    }
    node.#end = ~end;
    delete ASSIGNED.get(node)!.range;
  }

  /** The text of the main range as made, whatever was assigned since. */
  static ownText(node: Ranged): string {
    return node.#map.text.slice(node.#start, Ranged.ownEnd(node));
  }

  /** The main range's offsets as made, whatever was assigned since. */
  static ownStart(node: Ranged): number {
    return node.#start;
  }

  /** See {@linkcode Ranged.ownStart}. */
  static ownEnd(node: Ranged): number {
    const end = node.#end;
    return end >= 0 ? end : ~end;
  }

  /** The main range's start offset, `NaN` once one was assigned. */
  static startOf(node: Ranged): number {
    if (node.#end < 0 && ASSIGNED.get(node)!.range !== undefined) return NaN;
    return node.#start;
  }

  /** The main range's end offset, `NaN` once one was assigned. */
  static endOf(node: Ranged): number {
    const end = node.#end;
    if (end >= 0) return end;
    return ASSIGNED.get(node)!.range !== undefined ? NaN : ~end;
  }
}

/**
 * The start offset of a node's range (a {@linkcode Ranged} node's own, else
 * its range's, which is a {@linkcode Span} in any tree the parser made).
 *
 * @param node A node.
 * @param map The file's map, for a range that is not a span.
 * @returns The UTF-16 offset.
 */
export function startOf(node: { range: SourceRange }, map: SourceMap): number {
  if (node instanceof Ranged) {
    const s = Ranged.startOf(node);
    if (!Number.isNaN(s)) return s;
  }
  const range = node.range;
  if (range instanceof Span && !Number.isNaN(range.offset)) return range.offset;
  return map.offset(range.start);
}

/**
 * The end offset of a node's range (see {@linkcode startOf}).
 *
 * @param node A node.
 * @param map The file's map, for a range that is not a span.
 * @returns The UTF-16 offset.
 */
export function endOf(node: { range: SourceRange }, map: SourceMap): number {
  if (node instanceof Ranged) {
    const e = Ranged.endOf(node);
    if (!Number.isNaN(e)) return e;
  }
  const range = node.range;
  if (range instanceof Span && !Number.isNaN(range.endOffset)) {
    return range.endOffset;
  }
  return map.offset(range.end);
}

/**
 * Sets a node's main range to `[start, end)` of its file (the parser
 * widens a body's range once its braces are known).
 *
 * @param node A node made here.
 * @param start The start offset.
 * @param end The end offset.
 */
export function moveRange(node: BodyNode, start: number, end: number): void {
  Ranged.move(node, start, end);
}

/** {@linkcode Body}. */
export class BodyNode extends Ranged implements Body {
  /** Discriminant. */
  declare kind: "body";
  /** Attributes in source order. */
  attributes: Attribute[];
  /** Nested blocks in source order. */
  blocks: Block[];
  /** Attributes and blocks together, in source order. */
  items: (Attribute | Block)[];

  constructor(
    map: SourceMap,
    attributes: Attribute[],
    blocks: Block[],
    items: (Attribute | Block)[],
    start: number,
    end: number,
  ) {
    super(map, start, end);
    this.attributes = attributes;
    this.blocks = blocks;
    this.items = items;
  }
}

/**
 * {@linkcode Attribute}: `range` runs from the name to the value's end, and
 * `nameRange` is the name where the range starts (its length is the
 * name's).
 */
export class AttributeNode extends Ranged implements Attribute {
  /** Discriminant. */
  declare kind: "attribute";
  /** The attribute's name. */
  name: string;
  /** The unevaluated value. */
  expr: Expr;

  constructor(
    map: SourceMap,
    name: string,
    nameStart: number,
    expr: Expr,
    end: number,
  ) {
    super(map, nameStart, end);
    this.name = name;
    this.expr = expr;
  }

  /** Where the name is. */
  get nameRange(): SourceRange {
    const start = Ranged.ownStart(this);
    return Ranged.secondary(
      this,
      "nameRange",
      start,
      start + this.name.length,
    );
  }
  set nameRange(range: SourceRange) {
    Ranged.assign(this, "nameRange", range);
  }
}

/** Offsets of a {@linkcode BlockNode}'s ranges besides its main one. */
export interface BlockOffsets {
  /** The type name's end. */
  typeEnd: number;
  /** The opening brace. */
  openStart: number;
  /** The opening brace's end. */
  openEnd: number;
  /** The closing brace. */
  closeStart: number;
  /** The closing brace's end. */
  closeEnd: number;
}

/**
 * {@linkcode Block}: `range` runs from the type name (whose length is the
 * type's) to the closing brace, one character, and the opening brace is one
 * character. A block that does not read so (after a syntax error) is an
 * {@linkcode IrregularBlockNode}.
 */
export class BlockNode extends Ranged implements Block {
  /** Discriminant. */
  declare kind: "block";
  /** The block type. */
  type: string;
  /** The labels, in order. */
  labels: BlockLabel[];
  /** The block's contents. */
  body: Body;
  #openStart: number;

  constructor(
    map: SourceMap,
    type: string,
    labels: BlockLabel[],
    body: Body,
    typeStart: number,
    end: number,
    openStart: number,
  ) {
    super(map, typeStart, end);
    this.type = type;
    this.labels = labels;
    this.body = body;
    this.#openStart = openStart;
  }

  /**
   * A block node, an {@linkcode IrregularBlockNode} when its ranges are not
   * the ones a {@linkcode BlockNode} derives.
   */
  static make(
    map: SourceMap,
    type: string,
    labels: BlockLabel[],
    body: Body,
    typeStart: number,
    end: number,
    o: BlockOffsets,
  ): BlockNode {
    if (
      o.typeEnd === typeStart + type.length &&
      o.openEnd === o.openStart + 1 && o.closeEnd === end &&
      o.closeStart === end - 1
    ) {
      return new BlockNode(
        map,
        type,
        labels,
        body,
        typeStart,
        end,
        o.openStart,
      );
    }
    return new IrregularBlockNode(map, type, labels, body, typeStart, end, o);
  }

  /** Where the type name is. */
  get typeRange(): SourceRange {
    const start = Ranged.ownStart(this);
    return Ranged.secondary(
      this,
      "typeRange",
      start,
      start + this.type.length,
    );
  }
  set typeRange(range: SourceRange) {
    Ranged.assign(this, "typeRange", range);
  }

  /** Where the opening brace is. */
  get openBraceRange(): SourceRange {
    const start = this.#openStart;
    return Ranged.secondary(this, "openBraceRange", start, start + 1);
  }
  set openBraceRange(range: SourceRange) {
    Ranged.assign(this, "openBraceRange", range);
  }

  /** Where the closing brace is. */
  get closeBraceRange(): SourceRange {
    const end = Ranged.ownEnd(this);
    return Ranged.secondary(this, "closeBraceRange", end - 1, end);
  }
  set closeBraceRange(range: SourceRange) {
    Ranged.assign(this, "closeBraceRange", range);
  }
}

/** A {@linkcode BlockNode} that keeps each of its ranges' offsets. */
class IrregularBlockNode extends BlockNode {
  #typeEnd: number;
  #openStart: number;
  #openEnd: number;
  #closeStart: number;
  #closeEnd: number;

  constructor(
    map: SourceMap,
    type: string,
    labels: BlockLabel[],
    body: Body,
    typeStart: number,
    end: number,
    o: BlockOffsets,
  ) {
    super(map, type, labels, body, typeStart, end, o.openStart);
    this.#typeEnd = o.typeEnd;
    this.#openStart = o.openStart;
    this.#openEnd = o.openEnd;
    this.#closeStart = o.closeStart;
    this.#closeEnd = o.closeEnd;
  }

  override get typeRange(): SourceRange {
    return Ranged.secondary(
      this,
      "typeRange",
      Ranged.ownStart(this),
      this.#typeEnd,
    );
  }
  override set typeRange(range: SourceRange) {
    Ranged.assign(this, "typeRange", range);
  }

  override get openBraceRange(): SourceRange {
    return Ranged.secondary(
      this,
      "openBraceRange",
      this.#openStart,
      this.#openEnd,
    );
  }
  override set openBraceRange(range: SourceRange) {
    Ranged.assign(this, "openBraceRange", range);
  }

  override get closeBraceRange(): SourceRange {
    return Ranged.secondary(
      this,
      "closeBraceRange",
      this.#closeStart,
      this.#closeEnd,
    );
  }
  override set closeBraceRange(range: SourceRange) {
    Ranged.assign(this, "closeBraceRange", range);
  }
}

/** {@linkcode BlockLabel}. */
export class BlockLabelNode extends Ranged implements BlockLabel {
  /** The label's text. */
  value: string;

  constructor(map: SourceMap, value: string, start: number, end: number) {
    super(map, start, end);
    this.value = value;
  }
}

/** {@linkcode StringExpr}. */
export class StringNode extends Ranged implements StringExpr {
  /** Discriminant. */
  declare kind: "string";
  /** The value. */
  value: string;
  /** Set for a heredoc. */
  declare heredoc?: HeredocInfo;

  constructor(map: SourceMap, value: string, start: number, end: number) {
    super(map, start, end);
    this.value = value;
  }
}

/** {@linkcode NumberExpr}. */
export class NumberNode extends Ranged implements NumberExpr {
  /** Discriminant. */
  declare kind: "number";
  /** The value. */
  value: number;

  constructor(map: SourceMap, value: number, start: number, end: number) {
    super(map, start, end);
    this.value = value;
  }

  /**
   * The literal as written: the node's text, read when read (only the
   * differential test's printer does), not a string held per number.
   */
  get raw(): string {
    return Ranged.ownText(this);
  }
  set raw(raw: string) {
    Object.defineProperty(this, "raw", {
      value: raw,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
}

/** {@linkcode BoolExpr}. */
export class BoolNode extends Ranged implements BoolExpr {
  /** Discriminant. */
  declare kind: "bool";
  /** The value. */
  value: boolean;

  constructor(map: SourceMap, value: boolean, start: number, end: number) {
    super(map, start, end);
    this.value = value;
  }
}

/** {@linkcode NullExpr}. */
export class NullNode extends Ranged implements NullExpr {
  /** Discriminant. */
  declare kind: "null";
}

/** {@linkcode VariableExpr}. */
export class VariableNode extends Ranged implements VariableExpr {
  /** Discriminant. */
  declare kind: "variable";
  /** The name. */
  name: string;

  constructor(map: SourceMap, name: string, start: number, end: number) {
    super(map, start, end);
    this.name = name;
  }
}

/** {@linkcode TupleExpr}. */
export class TupleNode extends Ranged implements TupleExpr {
  /** Discriminant. */
  declare kind: "tuple";
  /** The elements. */
  items: Expr[];

  constructor(map: SourceMap, items: Expr[], start: number, end: number) {
    super(map, start, end);
    this.items = items;
  }
}

/** {@linkcode ObjectExpr}. */
export class ObjectNode extends Ranged implements ObjectExpr {
  /** Discriminant. */
  declare kind: "object";
  /** The items. */
  items: ObjectItem[];

  constructor(
    map: SourceMap,
    items: ObjectItem[],
    start: number,
    end: number,
  ) {
    super(map, start, end);
    this.items = items;
  }
}

/** {@linkcode ObjectItem}: `range` runs from the key to the value's end. */
export class ObjectItemNode extends Ranged implements ObjectItem {
  /** The key expression. */
  key: Expr;
  /** The key as a literal name, when it is one. */
  declare keyName?: string;
  /** The value. */
  value: Expr;

  constructor(
    map: SourceMap,
    key: Expr,
    value: Expr,
    start: number,
    end: number,
  ) {
    super(map, start, end);
    this.key = key;
    this.value = value;
  }
}

/** An {@linkcode ObjectItem} whose key is a literal name. */
export class NamedObjectItemNode extends ObjectItemNode {
  /** The key as a literal name. */
  override keyName: string;

  constructor(
    map: SourceMap,
    key: Expr,
    keyName: string,
    value: Expr,
    start: number,
    end: number,
  ) {
    super(map, key, value, start, end);
    this.keyName = keyName;
  }
}

/** {@linkcode TemplateLiteral}. */
export class TemplateLiteralNode extends Ranged implements TemplateLiteral {
  /** Discriminant. */
  declare kind: "literal";
  /** The text. */
  value: string;

  constructor(map: SourceMap, value: string, start: number, end: number) {
    super(map, start, end);
    this.value = value;
  }
}

/** {@linkcode TemplateInterp}. */
export class TemplateInterpNode extends Ranged implements TemplateInterp {
  /** Discriminant. */
  declare kind: "interp";
  /** The interpolated expression. */
  expr: Expr;

  constructor(map: SourceMap, expr: Expr, start: number, end: number) {
    super(map, start, end);
    this.expr = expr;
  }
}

/** {@linkcode TemplateExpr}. */
export class TemplateNode extends Ranged implements TemplateExpr {
  /** Discriminant. */
  declare kind: "template";
  /** The parts. */
  parts: TemplatePart[];
  /** Exactly one interpolation. */
  wrap: boolean;
  /** Set for a heredoc. */
  declare heredoc?: HeredocInfo;

  constructor(
    map: SourceMap,
    parts: TemplatePart[],
    wrap: boolean,
    start: number,
    end: number,
  ) {
    super(map, start, end);
    this.parts = parts;
    this.wrap = wrap;
  }
}

/** {@linkcode TemplateIf}. */
export class TemplateIfNode extends Ranged implements TemplateIf {
  /** Discriminant. */
  declare kind: "if";
  /** The condition. */
  condition: Expr;
  /** Parts used when the condition holds. */
  then: TemplatePart[];
  /** Parts used otherwise. */
  else: TemplatePart[];

  constructor(
    map: SourceMap,
    condition: Expr,
    thenParts: TemplatePart[],
    elseParts: TemplatePart[],
    start: number,
    end: number,
  ) {
    super(map, start, end);
    this.condition = condition;
    this.then = thenParts;
    this.else = elseParts;
  }
}

/** {@linkcode ConditionalExpr}. */
export class ConditionalNode extends Ranged implements ConditionalExpr {
  /** Discriminant. */
  declare kind: "conditional";
  /** The condition. */
  condition: Expr;
  /** Value when the condition holds. */
  then: Expr;
  /** Value otherwise. */
  else: Expr;

  constructor(
    map: SourceMap,
    condition: Expr,
    thenExpr: Expr,
    elseExpr: Expr,
    start: number,
    end: number,
  ) {
    super(map, start, end);
    this.condition = condition;
    this.then = thenExpr;
    this.else = elseExpr;
  }
}

/** {@linkcode BinaryExpr}. */
export class BinaryNode extends Ranged implements BinaryExpr {
  /** Discriminant. */
  declare kind: "binary";
  /** The operator. */
  op: BinaryOp;
  /** Left operand. */
  left: Expr;
  /** Right operand. */
  right: Expr;

  constructor(
    map: SourceMap,
    op: BinaryOp,
    left: Expr,
    right: Expr,
    start: number,
    end: number,
  ) {
    super(map, start, end);
    this.op = op;
    this.left = left;
    this.right = right;
  }
}

/** {@linkcode UnaryExpr}. */
export class UnaryNode extends Ranged implements UnaryExpr {
  /** Discriminant. */
  declare kind: "unary";
  /** The operator. */
  op: UnaryOp;
  /** The operand. */
  operand: Expr;

  constructor(
    map: SourceMap,
    op: UnaryOp,
    operand: Expr,
    start: number,
    end: number,
  ) {
    super(map, start, end);
    this.op = op;
    this.operand = operand;
  }
}

/** {@linkcode ParensExpr}. */
export class ParensNode extends Ranged implements ParensExpr {
  /** Discriminant. */
  declare kind: "parens";
  /** The wrapped expression. */
  expr: Expr;

  constructor(map: SourceMap, expr: Expr, start: number, end: number) {
    super(map, start, end);
    this.expr = expr;
  }
}

/** {@linkcode IndexExpr}. */
export class IndexNode extends Ranged implements IndexExpr {
  /** Discriminant. */
  declare kind: "index";
  /** What is indexed. */
  target: Expr;
  /** The key. */
  key: Expr;

  constructor(
    map: SourceMap,
    target: Expr,
    key: Expr,
    start: number,
    end: number,
  ) {
    super(map, start, end);
    this.target = target;
    this.key = key;
  }
}

/**
 * {@linkcode GetAttrExpr}: `nameRange` runs from the dot, which is just
 * before the name, to the expression's end. A dot apart from its name is an
 * {@linkcode SpacedGetAttrNode}.
 */
export class GetAttrNode extends Ranged implements GetAttrExpr {
  /** Discriminant. */
  declare kind: "getattr";
  /** What is accessed. */
  target: Expr;
  /** The attribute's name. */
  name: string;

  constructor(
    map: SourceMap,
    target: Expr,
    name: string,
    start: number,
    end: number,
  ) {
    super(map, start, end);
    this.target = target;
    this.name = name;
  }

  /** A node for `.name` with the dot at `dotStart`. */
  static make(
    map: SourceMap,
    target: Expr,
    name: string,
    dotStart: number,
    start: number,
    end: number,
  ): GetAttrNode {
    return dotStart === end - name.length - 1
      ? new GetAttrNode(map, target, name, start, end)
      : new SpacedGetAttrNode(map, target, name, dotStart, start, end);
  }

  /** Where `.name` is (it ends where the expression ends). */
  get nameRange(): SourceRange {
    const end = Ranged.ownEnd(this);
    return Ranged.secondary(
      this,
      "nameRange",
      this.nameStart(end),
      end,
    );
  }
  set nameRange(range: SourceRange) {
    Ranged.assign(this, "nameRange", range);
  }

  /** Where the dot is, given where the name ends. */
  protected nameStart(end: number): number {
    return end - this.name.length - 1;
  }
}

/** A {@linkcode GetAttrNode} with space between its dot and its name. */
class SpacedGetAttrNode extends GetAttrNode {
  #nameStart: number;

  constructor(
    map: SourceMap,
    target: Expr,
    name: string,
    nameStart: number,
    start: number,
    end: number,
  ) {
    super(map, target, name, start, end);
    this.#nameStart = nameStart;
  }

  protected override nameStart(): number {
    return this.#nameStart;
  }
}

/**
 * {@linkcode CallExpr}: `nameRange` runs from the expression's start, for
 * the name's length.
 */
export class CallNode extends Ranged implements CallExpr {
  /** Discriminant. */
  declare kind: "call";
  /** The function's name. */
  name: string;
  /** The arguments. */
  args: Expr[];
  /** The last argument is expanded. */
  expandFinal: boolean;

  constructor(
    map: SourceMap,
    name: string,
    args: Expr[],
    expandFinal: boolean,
    start: number,
    end: number,
  ) {
    super(map, start, end);
    this.name = name;
    this.args = args;
    this.expandFinal = expandFinal;
  }

  /** Where the name is. */
  get nameRange(): SourceRange {
    const start = Ranged.ownStart(this);
    return Ranged.secondary(
      this,
      "nameRange",
      start,
      start + this.name.length,
    );
  }
  set nameRange(range: SourceRange) {
    Ranged.assign(this, "nameRange", range);
  }
}

/**
 * The prototypes of the nodes whose secondary ranges derive from their
 * main range's offsets: a main range assigned to one is kept beside it, so
 * that they stay where they were.
 */
const DERIVES: ReadonlySet<object> = new Set([
  NumberNode.prototype,
  AttributeNode.prototype,
  BlockNode.prototype,
  IrregularBlockNode.prototype,
  GetAttrNode.prototype,
  SpacedGetAttrNode.prototype,
  CallNode.prototype,
]);

/**
 * Puts each class's `kind` on its prototype: the same value for every node
 * of a class need not be a field of each (writable, so that assigning one
 * still works as on a plain object).
 */
for (
  const [node, kind] of [
    [BodyNode, "body"],
    [AttributeNode, "attribute"],
    [BlockNode, "block"],
    [StringNode, "string"],
    [NumberNode, "number"],
    [BoolNode, "bool"],
    [NullNode, "null"],
    [VariableNode, "variable"],
    [TupleNode, "tuple"],
    [ObjectNode, "object"],
    [TemplateLiteralNode, "literal"],
    [TemplateInterpNode, "interp"],
    [TemplateNode, "template"],
    [TemplateIfNode, "if"],
    [ConditionalNode, "conditional"],
    [BinaryNode, "binary"],
    [UnaryNode, "unary"],
    [ParensNode, "parens"],
    [IndexNode, "index"],
    [GetAttrNode, "getattr"],
    [CallNode, "call"],
  ] as const
) {
  Object.defineProperty(node.prototype, "kind", {
    value: kind,
    writable: true,
    enumerable: false,
    configurable: true,
  });
}
