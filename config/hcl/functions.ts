/**
 * The evaluator's function library: which names can be called
 * ({@linkcode FUNCTIONS}, today only `env("NAME")`), when a call is
 * allowed, and what each function returns for its evaluated arguments.
 * The evaluator owns the call syntax (argument evaluation and `...`
 * expansion); this file owns the functions' semantics and messages.
 *
 * @module
 */

import { didYouMean, type SourceRange } from "../../contract/diagnostic.ts";
import type { CallExpr } from "./ast.ts";
import {
  E_ENV_UNSET,
  E_FUNCTION_NOT_ALLOWED,
  E_INVALID_VALUE,
  W_ENV_UNSET,
} from "./codes.ts";
import type { EvalContext } from "./eval_context.ts";
import {
  article,
  BAD,
  type EvalOutcome,
  type Reporter,
  unwrap,
} from "./_eval_support.ts";
import { Secret, typeName, type Value } from "./value.ts";

/** What a function needs from the evaluator calling it. */
export interface FunctionHost extends Reporter {
  /** The evaluation context (is `env()` allowed, the environment). */
  readonly ctx: EvalContext;
  /** `" in <place>"` for messages, or `""` when the place is unnamed. */
  where(): string;
  /** Records a warning. */
  warn(code: string, summary: string, detail: string, range: SourceRange): void;
}

/** One function of the library. */
export interface HclFunction {
  /**
   * Refuses the call before its arguments are evaluated, returning
   * {@linkcode BAD}, or returns `undefined` when it may go ahead.
   */
  admit(host: FunctionHost, call: CallExpr): typeof BAD | undefined;
  /** Computes the result from the evaluated (and expanded) arguments. */
  apply(host: FunctionHost, call: CallExpr, args: Value[]): EvalOutcome;
}

/** Reads the environment through the context's lookup. */
function readEnv(ctx: EvalContext, name: string): string | undefined {
  const env = ctx.env;
  return env === undefined
    ? Deno.env.get(name)
    : typeof env === "function"
    ? env(name)
    : Object.hasOwn(env, name)
    ? env[name]
    : undefined;
}

/** Checks `env()`'s single argument: a plain string, the variable's name. */
function envName(
  host: FunctionHost,
  e: CallExpr,
  args: Value[],
): string | typeof BAD {
  if (args.length !== 1) {
    return host.fail(
      E_INVALID_VALUE,
      "Invalid number of arguments",
      `env() takes exactly one argument, the variable's name, but ${args.length} ${
        args.length === 1 ? "was" : "were"
      } given.`,
      e.range,
    );
  }
  const [nameV, nameSecret] = unwrap(args[0]!);
  if (typeof nameV !== "string" || nameSecret) {
    return host.fail(
      E_INVALID_VALUE,
      "Invalid function argument",
      nameSecret
        ? "The argument of env() cannot itself be read from the environment."
        : `The argument of env() must be a string, the variable's name, but it is ${
          article(typeName(nameV))
        }.`,
      e.args[0]?.range ?? e.range,
    );
  }
  return nameV;
}

/**
 * `env("NAME")`: the environment variable as a {@linkcode Secret}; only
 * where the context allows it (provider blocks, a mirror's `auth`).
 */
export const ENV_FUNCTION: HclFunction = {
  admit(host, e) {
    if (host.ctx.allowEnv) return undefined;
    return host.fail(
      E_FUNCTION_NOT_ALLOWED,
      "Function calls not allowed",
      `env() may only be used in provider blocks and in a registry mirror's "auth"; it cannot be used${
        host.where() || " here"
      }.`,
      e.range,
    );
  },
  apply(host, e, args) {
    const nameV = envName(host, e, args);
    if (nameV === BAD) return BAD;
    let value: string | undefined;
    try {
      value = readEnv(host.ctx, nameV);
    } catch {
      return host.fail(
        E_ENV_UNSET,
        `Cannot read environment variable "${nameV}"`,
        `env("${nameV}")${host.where()} needs the variable "${nameV}", but reading the environment is not permitted. Run with --allow-env=${nameV}.`,
        e.range,
      );
    }
    if (value === undefined && host.ctx.requireEnv === false) {
      host.warn(
        W_ENV_UNSET,
        `Environment variable "${nameV}" is not set`,
        `env("${nameV}")${host.where()} reads the environment variable "${nameV}", which is not set here. The agent needs it when it runs (an empty value counts as set); check-config --require-env makes this an error.`,
        e.range,
      );
      return new Secret("");
    }
    if (value === undefined) {
      return host.fail(
        E_ENV_UNSET,
        `Environment variable "${nameV}" is not set`,
        `env("${nameV}")${host.where()} reads the environment variable "${nameV}", which is not set. Set it before running the agent (an empty value counts as set).`,
        e.range,
      );
    }
    return new Secret(value);
  },
};

/** The functions a configuration may call, by name. */
export const FUNCTIONS: ReadonlyMap<string, HclFunction> = new Map([
  ["env", ENV_FUNCTION],
]);

/** Reports a call to a name that is not in {@linkcode FUNCTIONS}. */
export function unknownFunction(host: Reporter, e: CallExpr): typeof BAD {
  const hint = didYouMean(e.name, [...FUNCTIONS.keys()]);
  return host.fail(
    E_FUNCTION_NOT_ALLOWED,
    "Call to unknown function",
    `There is no function named "${e.name}".${
      hint ? ` Did you mean "${hint}"?` : ""
    } The only function is env("NAME"), and only in provider blocks and a registry mirror's "auth".`,
    e.nameRange,
  );
}
