/**
 * Writes policy rules into the user's `agent.hcl`: an ALWAYS approval
 * becomes a `policy` block appended to the file, so that it holds for
 * later sessions. The kernel calls {@linkcode appendPolicyRule} when a
 * session is opened with `persistAlways`.
 *
 * @module
 */
import { join } from "node:path";
import type { PolicyRule } from "../contract/policy.ts";
import { CONFIG_FILE_NAME } from "./files.ts";
import { hclString } from "./lock_file.ts";

/**
 * The `policy` block of a rule, as {@linkcode appendPolicyRule} appends it:
 * a comment line, then the block. The rule's name becomes an HCL label
 * (characters other than letters, digits and `_` become `_`); only the
 * match fields the rule sets are written.
 *
 * @example Usage
 * ```ts
 * import { policyBlockOf } from "./policy_writer.ts";
 * import assert from "node:assert/strict";
 * const text = policyBlockOf({
 *   name: "always fs.write",
 *   match: { toolName: "write" },
 *   action: "allow",
 * });
 * assert.match(text, /policy "always_fs_write" \{/);
 * ```
 *
 * @param rule The rule.
 * @returns The text to append, starting and ending with a newline.
 */
export function policyBlockOf(rule: PolicyRule): string {
  const name = rule.name.replace(/[^A-Za-z0-9_]/g, "_").replace(
    /^([^A-Za-z_])/,
    "_$1",
  );
  const match = Object.entries({
    provider: rule.match.provider,
    tool_name: rule.match.toolName,
    command: rule.match.command,
    kind: rule.match.kind,
    risk: rule.match.risk,
  }).filter(([, v]) => v !== undefined).map(([k, v]) =>
    `${k} = ${hclString(String(v))}`
  ).join(", ");
  return `\n# Added by \`agent\` (an "always" approval).\npolicy ${
    hclString(name)
  } {\n  match  = { ${match} }\n  action = ${hclString(rule.action)}\n}\n`;
}

/**
 * Appends a rule as a `policy` block ({@linkcode policyBlockOf}) to
 * `dir/agent.hcl`.
 *
 * @example Usage
 * ```ts ignore
 * import { appendPolicyRule } from "@ph/agent/config";
 * await appendPolicyRule("./my-project", {
 *   name: "always_write",
 *   match: { toolName: "write" },
 *   action: "allow",
 * });
 * ```
 *
 * @param dir The project directory (holding `agent.hcl`).
 * @param rule The rule.
 * @returns Once the block is written.
 */
export async function appendPolicyRule(
  dir: string,
  rule: PolicyRule,
): Promise<void> {
  await Deno.writeTextFile(join(dir, CONFIG_FILE_NAME), policyBlockOf(rule), {
    append: true,
  });
}
