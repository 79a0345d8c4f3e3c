/**
 * How a policy's `match` is spelled in `agent.hcl` (the keys and the
 * {@linkcode PolicyMatch} field each one fills) and the diagnostic
 * constructor the policy files share. Private to `contract/`.
 *
 * @module
 */
import type { Diagnostic, SourceRange } from "./diagnostic.ts";
import type { PolicyMatch } from "./policy.ts";

/** The keys a `match` object may hold, in specificity order. */
export const MATCH_KEYS = [
  "command",
  "tool_name",
  "provider",
  "risk",
  "kind",
] as const;
/** One `match` key as written in HCL. */
export type MatchKey = typeof MATCH_KEYS[number];
/** The {@linkcode PolicyMatch} field each `match` key fills. */
export const FIELD_OF: Readonly<Record<MatchKey, keyof PolicyMatch>> = {
  command: "command",
  tool_name: "toolName",
  provider: "provider",
  risk: "risk",
  kind: "kind",
};

/** Tells whether a key is one of {@linkcode MATCH_KEYS}. */
export function isMatchKey(key: string): key is MatchKey {
  return (MATCH_KEYS as readonly string[]).includes(key);
}

/** Builds a policy diagnostic, with its range when there is one. */
export function policyDiagnostic(
  severity: Diagnostic["severity"],
  code: string,
  summary: string,
  detail: string,
  range: SourceRange | undefined,
): Diagnostic {
  const d: Diagnostic = { severity, code, summary, detail };
  if (range !== undefined) d.range = range;
  return d;
}
