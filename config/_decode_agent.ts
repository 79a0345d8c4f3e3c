/**
 * Stage A decoding of named agents (`agent "<name>" { profile, description }`):
 * a name the delegation tool (`builtin/agents`) spawns by, bound to an
 * `agent_profile`, with a description the model reads. Private to
 * `config/`; `decode.ts` calls it once the profiles are decoded.
 *
 * @module
 */
import type { Diagnostic } from "../contract/diagnostic.ts";
import { didYouMean } from "../contract/diagnostic.ts";
import type { Block } from "./hcl/mod.ts";
import type { PlanAgent, PlanProfile } from "./plan.ts";
import { checkBody, diag, evalAttr, headerRange } from "./_schema.ts";

/** An `agent` label: also a mailbox address and a worktree branch part. */
const AGENT_NAME = /^[a-z][a-z0-9_-]{0,62}$/;

const AGENT_SCHEMA = {
  attributes: {
    profile: { type: "string", required: true },
    description: { type: "string", required: true },
  },
  blocks: {},
} as const;

/**
 * Decodes one `agent "<name>"` block: the label's shape, a `profile` that
 * names a declared `agent_profile` (`E_UNKNOWN_PROFILE`, with a
 * suggestion) and a non-empty `description`.
 *
 * @param block The block (duplicates are already reported).
 * @param profiles The decoded profiles.
 * @param diagnostics Where problems go.
 * @returns The named agent, or `undefined` when the block is unusable.
 */
export function decodeAgent(
  block: Block,
  profiles: readonly PlanProfile[],
  diagnostics: Diagnostic[],
): PlanAgent | undefined {
  const label = block.labels[0]!;
  const name = label.value;
  const where = `agent "${name}"`;
  const before = diagnostics.length;
  if (!AGENT_NAME.test(name)) {
    diagnostics.push(diag(
      "error",
      "E_AGENT_NAME",
      `Invalid agent name "${name}"`,
      "An agent name is lower-case letters, digits, _ and -, starting with a letter (at most 63 characters): it is the agent's mailbox address and part of its worktree branch.",
      label.range,
    ));
  }
  const { attrs } = checkBody(
    block.body,
    AGENT_SCHEMA,
    where,
    diagnostics,
    headerRange(block),
  );
  const profileAttr = attrs.get("profile");
  const profile = profileAttr
    ? evalAttr(profileAttr, "string", where, diagnostics) as string | undefined
    : undefined;
  if (profile !== undefined && !profiles.some((p) => p.name === profile)) {
    const names = profiles.map((p) => p.name);
    const hint = didYouMean(profile, names);
    diagnostics.push(diag(
      "error",
      "E_UNKNOWN_PROFILE",
      `Unknown profile "${profile}"`,
      `${
        hint ? `Did you mean "${hint}"? ` : ""
      }The profile of ${where} must name an agent_profile block${
        names.length === 0
          ? " (none is declared)"
          : ` (${names.map((n) => `"${n}"`).join(", ")})`
      }.`,
      profileAttr!.expr.range,
    ));
  }
  const descAttr = attrs.get("description");
  const description = descAttr
    ? evalAttr(descAttr, "string", where, diagnostics) as string | undefined
    : undefined;
  if (description !== undefined && description.trim() === "") {
    diagnostics.push(diag(
      "error",
      "E_INVALID_VALUE",
      `Empty description in ${where}`,
      "The description is what the model reads to choose this agent: say what it is for.",
      descAttr!.expr.range,
    ));
  }
  if (
    diagnostics.length > before || profile === undefined ||
    description === undefined
  ) return undefined;
  return { name, profile, description: description.trim(), range: label.range };
}
