/**
 * The HCL front-end of the config compiler: a native-syntax parser with
 * exact source positions, a constant-expression evaluator, and the
 * sensitive-attribute shape rule.
 *
 * - {@linkcode parseHcl} turns text into a {@linkcode Body} of attributes
 *   and blocks (source order kept, ranges on every node) and reports every
 *   syntax error it can as `E_SYNTAX` diagnostics. It accepts exactly what
 *   hashicorp/hcl v2 accepts (a differential test against
 *   `npm:@cdktf/hcl2json` holds it to that).
 * - {@linkcode evaluate} computes an expression's {@linkcode Value} in an
 *   {@linkcode EvalContext} that says whether `env()` is allowed.
 *   Values read from the environment are {@linkcode Secret}s.
 * - {@linkcode checkSensitiveShape} enforces `env("LITERAL")` on sensitive
 *   attributes, on the syntax, before evaluation.
 *
 * This folder owns HCL syntax and expression semantics only. It knows
 * nothing of `agent.hcl`'s blocks: the schema decoder, the lock file and
 * the plan are built on this API elsewhere in `config/`.
 *
 * @example Usage
 * ```ts
 * import { checkSensitiveShape, evaluate, parseHcl } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const text = [
 *   'provider "claude" {',
 *   '  api_key  = env("CLAUDE_API_KEY")',
 *   '  base_url = "https://llm.internal.example"',
 *   "}",
 *   "",
 * ].join("\n");
 * const { body, diagnostics } = parseHcl(text, "agent.hcl");
 * assert.deepEqual(diagnostics, []);
 *
 * const apiKey = body.blocks[0]!.body.attributes[0]!;
 * assert.equal(apiKey.range.start.line, 2);
 * assert.equal(checkSensitiveShape(apiKey.expr), undefined);
 *
 * const { value } = evaluate(apiKey.expr, {
 *   allowEnv: true,
 *   env: { CLAUDE_API_KEY: "sk-test" },
 * });
 * assert.equal(String(value), "(sensitive)");
 * ```
 *
 * @module
 */

export type {
  Diagnostic,
  Pos,
  Severity,
  SourceRange,
} from "../../contract/diagnostic.ts";
export type {
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
  ExprBase,
  ForExpr,
  GetAttrExpr,
  HeredocInfo,
  IndexExpr,
  InvalidExpr,
  NullExpr,
  NumberExpr,
  ObjectExpr,
  ObjectItem,
  ParensExpr,
  SplatExpr,
  SplatItemExpr,
  StringExpr,
  TemplateExpr,
  TemplateFor,
  TemplateIf,
  TemplateInterp,
  TemplateLiteral,
  TemplatePart,
  TupleExpr,
  UnaryExpr,
  UnaryOp,
  VariableExpr,
} from "./ast.ts";
export {
  E_ENV_UNSET,
  E_FUNCTION_NOT_ALLOWED,
  E_INVALID_VALUE,
  E_SECRET_SHAPE,
  E_SYNTAX,
  E_TOO_DEEP,
  E_VARIABLE_NOT_ALLOWED,
  W_ENV_UNSET,
} from "./codes.ts";
export {
  type EnvLookup,
  type EvalContext,
  type EvalResult,
  evaluate,
  formatNumber,
} from "./evaluate.ts";
export {
  MAX_EXPR_DEPTH,
  MAX_NESTING,
  parseHcl,
  type ParseResult,
} from "./parse.ts";
export {
  checkSensitiveShape,
  type SensitiveShapeOptions,
} from "./sensitive.ts";
export { joinRanges, plainRange } from "./_source.ts";
export { sourceText } from "./source_text.ts";
export { childExprs, findTooDeep, walkExpr } from "./walk.ts";
export {
  isSensitive,
  type JsonValue,
  type ObjectValue,
  Secret,
  type ToJsonOptions,
  toJsonValue,
  type TypeName,
  typeName,
  type Value,
} from "./value.ts";
