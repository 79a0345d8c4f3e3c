/**
 * {@linkcode checkSensitiveShape}: the rule for sensitive attributes
 * (config.md §3.3), checked on the unevaluated syntax before any
 * evaluation.
 *
 * @module
 */

import type { Diagnostic } from "../../contract/diagnostic.ts";
import type { Expr } from "./ast.ts";
import { E_SECRET_SHAPE } from "./codes.ts";

/** Options for {@linkcode checkSensitiveShape}. */
export interface SensitiveShapeOptions {
  /**
   * Names the attribute in the message, e.g. `attribute "api_key" of
   * provider "claude"`.
   */
  place?: string;
}

const SUMMARY = "Invalid sensitive expression";

/**
 * Checks that a sensitive attribute is written exactly as `env("LITERAL")`:
 * a bare call to `env` with one argument that is a quoted string with no
 * interpolation. Anything else, including a literal string (a committed
 * secret) or `"${env("X")}"`, is an `E_SECRET_SHAPE` error. The message
 * never repeats the expression's text, which may be a secret, and the
 * diagnostic sets `redactSource` so that renderers mask it too.
 *
 * @example Usage
 * ```ts
 * import { checkSensitiveShape, parseHcl } from "./mod.ts";
 * import assert from "node:assert/strict";
 * const { body } = parseHcl('a = env("TOKEN")\nb = "${env("TOKEN")}"\n', "agent.hcl");
 * assert.equal(checkSensitiveShape(body.attributes[0]!.expr), undefined);
 * assert.equal(checkSensitiveShape(body.attributes[1]!.expr)?.code, "E_SECRET_SHAPE");
 * ```
 *
 * @param expr The attribute's expression, from {@linkcode parseHcl}.
 * @param options Names the attribute in the message.
 * @returns An error diagnostic, or `undefined` when the shape is right.
 */
export function checkSensitiveShape(
  expr: Expr,
  options: SensitiveShapeOptions = {},
): Diagnostic | undefined {
  const subject = options.place
    ? `${capitalise(options.place)} is`
    : "This attribute is";
  const intro =
    `${subject} sensitive: it must be written exactly as env("NAME"), which reads the environment variable NAME when the configuration is loaded.`;
  const fail = (why: string, range = expr.range): Diagnostic => ({
    severity: "error",
    code: E_SECRET_SHAPE,
    summary: SUMMARY,
    detail: `${intro} ${why}`,
    range,
    // The rejected text may be a pasted secret: never echo it.
    redactSource: true,
  });

  let e = expr;
  if (e.kind === "call" && e.name === "env") {
    if (e.expandFinal) {
      return fail(
        "Pass the variable's name directly, not as an expanded list (...).",
      );
    }
    if (e.args.length !== 1) {
      return fail(
        `env() takes exactly one argument, but ${e.args.length} ${
          e.args.length === 1 ? "is" : "are"
        } given here.`,
      );
    }
    const arg = e.args[0]!;
    if (arg.kind === "string" && arg.heredoc === undefined) return undefined;
    if (arg.kind === "string") {
      return fail(
        "Write the variable's name as a quoted string, not as a heredoc.",
        arg.range,
      );
    }
    if (arg.kind === "template") {
      return fail(
        'The variable\'s name must be a plain quoted string such as "API_KEY", without interpolation.',
        arg.range,
      );
    }
    return fail(
      `The variable's name must be a quoted string literal such as "API_KEY", not ${
        describe(arg)
      }.`,
      arg.range,
    );
  }
  if (e.kind === "template") {
    const wrapsEnv = e.parts.some((p) =>
      p.kind === "interp" && containsEnvCall(p.expr)
    );
    if (e.wrap && wrapsEnv) {
      return fail(
        'Write env("NAME") on its own, not inside a string template "${...}".',
      );
    }
    return fail(
      wrapsEnv
        ? "A string template that combines env() with other text cannot hold a secret; configure the whole value in one environment variable."
        : "A string template cannot hold a secret; read it with env() instead.",
    );
  }
  if (e.kind === "string") {
    return fail(
      "A literal string here would commit the secret to the configuration file. Remove it, and read the value from the environment with env() instead.",
    );
  }
  while (e.kind === "parens") e = e.expr;
  if (e !== expr && e.kind === "call" && e.name === "env") {
    return fail("Remove the parentheses around env().");
  }
  if (e.kind === "call") {
    return fail(
      `A call to ${e.name}() is not allowed here, not even around env(); only env() itself is.`,
    );
  }
  return fail(`Found ${describe(e)} instead.`);
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function containsEnvCall(e: Expr): boolean {
  switch (e.kind) {
    case "call":
      return e.name === "env" || e.args.some(containsEnvCall);
    case "parens":
      return containsEnvCall(e.expr);
    case "template":
      return e.parts.some((p) =>
        p.kind === "interp" && containsEnvCall(p.expr)
      );
    case "binary":
      return containsEnvCall(e.left) || containsEnvCall(e.right);
    case "conditional":
      return containsEnvCall(e.condition) || containsEnvCall(e.then) ||
        containsEnvCall(e.else);
    case "unary":
      return containsEnvCall(e.operand);
    default:
      return false;
  }
}

function describe(e: Expr): string {
  switch (e.kind) {
    case "number":
      return "a number";
    case "bool":
      return "a bool";
    case "null":
      return "null";
    case "string":
      return "a literal string";
    case "template":
      return "a string template";
    case "tuple":
      return "a list";
    case "object":
      return "an object";
    case "call":
      return `a call to ${e.name}()`;
    case "variable":
    case "getattr":
    case "index":
    case "splat":
    case "splat_item":
      return "a reference";
    case "unary":
    case "binary":
      return "an operator expression";
    case "conditional":
      return "a conditional expression";
    case "parens":
      return describe(e.expr);
    case "for":
      return "a for expression";
    case "invalid":
      return "an invalid expression";
  }
}
