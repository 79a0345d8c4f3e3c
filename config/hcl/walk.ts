/**
 * Iterative walks over expression trees. An expression tree can be as deep
 * as its input is long (`1 + 1 + …` nests to the left), so nothing that
 * walks one may recurse without a bound: these helpers keep their own
 * stack.
 *
 * @module
 */

import type { Expr, TemplatePart } from "./ast.ts";

/**
 * The direct sub-expressions of `e`, in source order. A template's
 * sub-expressions are those of all its parts, however deeply its
 * `%{ if }` / `%{ for }` directives nest.
 *
 * @param e An expression.
 * @returns Its children.
 */
export function childExprs(e: Expr): Expr[] {
  switch (e.kind) {
    case "call":
      return e.args;
    case "template":
      return templateExprs(e.parts);
    case "tuple":
      return e.items;
    case "object": {
      const out: Expr[] = [];
      for (const i of e.items) out.push(i.key, i.value);
      return out;
    }
    case "getattr":
      return [e.target];
    case "index":
      return [e.target, e.key];
    case "splat":
      return [e.source, e.each];
    case "unary":
      return [e.operand];
    case "binary":
      return [e.left, e.right];
    case "conditional":
      return [e.condition, e.then, e.else];
    case "parens":
      return [e.expr];
    case "for": {
      const out: Expr[] = [e.collection];
      if (e.key) out.push(e.key);
      out.push(e.value);
      if (e.condition) out.push(e.condition);
      return out;
    }
    default:
      return [];
  }
}

function templateExprs(parts: TemplatePart[]): Expr[] {
  const out: Expr[] = [];
  // Depth-first, source order: each list is pushed in reverse.
  const pending: TemplatePart[] = [];
  for (let i = parts.length - 1; i >= 0; i--) pending.push(parts[i]!);
  while (pending.length > 0) {
    const p = pending.pop()!;
    if (p.kind === "interp") out.push(p.expr);
    else if (p.kind === "if") {
      out.push(p.condition);
      for (let i = p.else.length - 1; i >= 0; i--) pending.push(p.else[i]!);
      for (let i = p.then.length - 1; i >= 0; i--) pending.push(p.then[i]!);
    } else if (p.kind === "for") {
      out.push(p.collection);
      for (let i = p.body.length - 1; i >= 0; i--) pending.push(p.body[i]!);
    }
  }
  return out;
}

/**
 * Pushes the direct sub-expressions of `e` onto `stack` in reverse source
 * order (so that they pop in source order), without the array
 * {@linkcode childExprs} makes: a walk of a 124,000-key map made one of
 * 248,000 entries and one small array per node.
 *
 * @returns How many were pushed.
 */
function pushChildren(e: Expr, stack: Expr[]): number {
  switch (e.kind) {
    case "call":
    case "tuple": {
      const list = e.kind === "call" ? e.args : e.items;
      for (let i = list.length - 1; i >= 0; i--) stack.push(list[i]!);
      return list.length;
    }
    case "object": {
      const items = e.items;
      for (let i = items.length - 1; i >= 0; i--) {
        stack.push(items[i]!.value, items[i]!.key);
      }
      return 2 * items.length;
    }
    case "getattr":
      stack.push(e.target);
      return 1;
    case "index":
      stack.push(e.key, e.target);
      return 2;
    case "unary":
      stack.push(e.operand);
      return 1;
    case "binary":
      stack.push(e.right, e.left);
      return 2;
    case "parens":
      stack.push(e.expr);
      return 1;
    case "template":
    case "splat":
    case "conditional":
    case "for": {
      const kids = childExprs(e);
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
      return kids.length;
    }
    default:
      return 0;
  }
}

/**
 * Calls `visit` on `root` and every expression beneath it, parents before
 * children, without recursion.
 *
 * @param root The tree.
 * @param visit Called once per node.
 */
export function walkExpr(root: Expr, visit: (e: Expr) => void): void {
  const stack: Expr[] = [root];
  while (stack.length > 0) {
    const e = stack.pop()!;
    visit(e);
    pushChildren(e, stack);
  }
}

/**
 * The first node (in depth-first order) found deeper than `limit` levels
 * below `root`, or `undefined` when the whole tree is within the limit.
 *
 * @param root The tree.
 * @param limit The deepest level allowed (`root` is level 1).
 * @returns The offending node.
 */
export function findTooDeep(root: Expr, limit: number): Expr | undefined {
  const nodes: Expr[] = [root];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const e = nodes.pop()!;
    const d = depths.pop()!;
    if (d > limit) return e;
    for (let k = pushChildren(e, nodes); k > 0; k--) depths.push(d + 1);
  }
  return undefined;
}
