/**
 * Decoding of the `state {}` block (issue 19): which state backend the
 * kernel keeps sessions in.
 *
 * ```hcl
 * state {
 *   backend = "postgres"
 *   url     = env("AGENT_DATABASE_URL")
 *   schema  = "agent"
 * }
 * ```
 *
 * The connection URL is a secret: it must be written `env("NAME")`, and the
 * plan keeps only the variable's name ({@linkcode PlanState.urlEnv}), so
 * the URL never appears in a plan, a diagnostic or a log; the kernel reads
 * the variable when it opens the store. Decoding never connects.
 *
 * @module
 */
import type { Diagnostic } from "../contract/diagnostic.ts";
import { type Block, checkSensitiveShape } from "./hcl/mod.ts";
import {
  checkBody,
  checkEnum,
  diag,
  evalAttr,
  headerRange,
} from "./_schema.ts";

/** The state backends. */
export const STATE_BACKENDS: readonly string[] = Object.freeze([
  "sqlite",
  "postgres",
]);

/** A schema name the PostgreSQL backend accepts. */
const SCHEMA_REGEXP = /^[a-z_][a-z0-9_]{0,62}$/;

/** Where sessions are kept. */
export type PlanState =
  | { readonly backend: "sqlite" }
  | {
    readonly backend: "postgres";
    /** The environment variable holding the connection URL. */
    readonly urlEnv: string;
    /** The schema. */
    readonly schema: string;
  };

/** The default: one SQLite file per session on this machine. */
export const DEFAULT_STATE: PlanState = Object.freeze({ backend: "sqlite" });

/**
 * Decodes a `state {}` block.
 *
 * @param block The block.
 * @param diagnostics Where problems go.
 * @returns The backend, or {@linkcode DEFAULT_STATE} when it is invalid.
 */
export function decodeState(
  block: Block,
  diagnostics: Diagnostic[],
): PlanState {
  const before = diagnostics.length;
  const { attrs } = checkBody(
    block.body,
    {
      attributes: {
        backend: { type: "string" },
        url: { type: "string" },
        schema: { type: "string" },
      },
      blocks: {},
    },
    "state",
    diagnostics,
    headerRange(block),
  );
  const backendAttr = attrs.get("backend");
  const backend = backendAttr
    ? evalAttr(backendAttr, "string", "state", diagnostics)
    : "sqlite";
  if (
    typeof backend !== "string" ||
    !checkEnum(
      backend,
      STATE_BACKENDS,
      "backend",
      "state",
      backendAttr?.expr.range ?? headerRange(block),
      diagnostics,
    )
  ) return DEFAULT_STATE;
  const url = attrs.get("url");
  const schemaAttr = attrs.get("schema");
  if (backend === "sqlite") {
    for (const a of [url, schemaAttr]) {
      if (!a) continue;
      diagnostics.push(diag(
        "error",
        "E_INVALID_VALUE",
        `"${a.name}" needs backend = "postgres"`,
        `The sqlite backend keeps each session in a file on this machine; "${a.name}" applies to the postgres backend only.`,
        a.range,
      ));
    }
    return DEFAULT_STATE;
  }
  if (!url) {
    diagnostics.push(diag(
      "error",
      "E_MISSING_ATTR",
      'Missing required argument "url"',
      'The postgres backend needs url = env("NAME"), the environment variable holding the connection URL.',
      headerRange(block),
    ));
    return DEFAULT_STATE;
  }
  const shape = checkSensitiveShape(url.expr, {
    place: 'attribute "url" of state',
  });
  if (shape) {
    diagnostics.push(shape);
    return DEFAULT_STATE;
  }
  const call = url.expr as { args: { value: string }[] };
  const urlEnv = call.args[0]!.value;
  let schema = "agent";
  if (schemaAttr) {
    const v = evalAttr(schemaAttr, "string", "state", diagnostics);
    if (typeof v === "string" && !SCHEMA_REGEXP.test(v)) {
      diagnostics.push(diag(
        "error",
        "E_INVALID_VALUE",
        'Invalid value for "schema"',
        `The schema of state must be lower-case letters, digits and "_", starting with a letter or "_", at most 63 characters; got ${
          JSON.stringify(v)
        }.`,
        schemaAttr.expr.range,
      ));
    } else if (typeof v === "string") schema = v;
  }
  if (diagnostics.length > before) return DEFAULT_STATE;
  return { backend: "postgres", urlEnv, schema };
}
