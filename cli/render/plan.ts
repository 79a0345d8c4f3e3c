/**
 * How `agent plan` prints a {@linkcode PlanDiff}: grouped text with `+`,
 * `-` and `~` markers for a reviewer, ending with one line saying whether
 * the change widens what the agent may do and why; or one versioned JSON
 * document for a bot. Neither ever holds a configuration value (secrets
 * included): only names, sources, versions, checksums, permissions,
 * policy matches and bounds.
 *
 * @module
 */

import {
  formatPolicyMatch,
  type JsonValue,
  type PlanDiff,
  type PolicyMatch,
  type PolicyRuleSide,
  type ProviderSide,
} from "../../config/mod.ts";
import type { Style } from "./events.ts";

/** The `format_version` of `agent plan --json`. */
export const PLAN_JSON_FORMAT_VERSION = "1";

/** What the views say about the two sides besides the diff. */
export interface PlanViewMeta {
  /** The base ref as given or derived. */
  baseRef: string;
  /** The base's full commit id. */
  baseCommit: string;
  /** How the base was chosen. */
  baseHow: string;
  /** Whether the base has an `agent.hcl`. */
  baseHasConfig: boolean;
  /** Whether the working tree has an `agent.hcl`. */
  headHasConfig: boolean;
  /** The project directory as shown. */
  dir: string;
  /** `env()` variables that are not set on either side (names only). */
  unsetEnv: string[];
}

function shortSum(c: string | undefined): string {
  if (c === undefined) return "no checksum";
  const m = /^(sha256:)?([0-9a-f]{12})[0-9a-f]*$/.exec(c);
  return m ? `sha256:${m[2]}` : c;
}

function providerText(s: ProviderSide): string {
  return `${s.source}${s.version ? ` ${s.version}` : ""}, ${
    shortSum(s.checksum)
  }`;
}

function ruleText(r: PolicyRuleSide): string {
  return `${r.action} ${formatPolicyMatch(r.match)}`;
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + " ".repeat(n - s.length);
}

function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** How many entries the diff holds. */
function changeCount(d: PlanDiff): number {
  return d.providers.length + d.grants.length + d.policies.length +
    d.profiles.length;
}

/**
 * Renders the diff for a reviewer.
 *
 * @param diff The diff.
 * @param meta The base and the working tree.
 * @param style Colours (or none).
 * @returns Text ending with a newline.
 */
export function renderPlanText(
  diff: PlanDiff,
  meta: PlanViewMeta,
  style: Style,
): string {
  const out: string[] = [];
  const add = (s: string) => style.green(s);
  const del = (s: string) => style.red(s);
  const chg = (s: string) => style.yellow(s);
  const widen = (w: boolean) => (w ? `  ${style.bold("(widens)")}` : "");
  out.push(
    `agent plan: ${
      meta.dir === "." ? "" : `${meta.dir}/`
    }agent.hcl in the working tree against ${meta.baseRef} (${
      meta.baseCommit.slice(0, 12)
    }, ${meta.baseHow})`,
  );
  if (!meta.baseHasConfig) {
    out.push(
      style.dim(`${meta.baseRef} has no agent.hcl: everything is added.`),
    );
  }
  if (!meta.headHasConfig) {
    out.push(
      style.dim("The working tree has no agent.hcl: everything is removed."),
    );
  }
  if (meta.unsetEnv.length > 0) {
    out.push(
      style.dim(
        `Not set, compared as empty (values are never needed): ${
          meta.unsetEnv.join(", ")
        }.`,
      ),
    );
  }
  if (diff.providers.length > 0) {
    out.push("", style.bold("Providers"));
    const w = Math.max(...diff.providers.map((p) => p.name.length));
    for (const p of diff.providers) {
      if (p.change === "added") {
        out.push(add(`  + ${pad(p.name, w)}  ${providerText(p.after!)}`));
      } else if (p.change === "removed") {
        out.push(del(`  - ${pad(p.name, w)}  ${providerText(p.before!)}`));
      } else {
        const b = p.before!;
        const a = p.after!;
        const parts: string[] = [];
        if (b.source !== a.source) parts.push(`${b.source} -> ${a.source}`);
        else parts.push(a.source);
        if (b.version !== a.version) {
          parts.push(
            `${b.version ?? "?"} -> ${a.version ?? "?"} (${p.update})`,
          );
        } else if (a.version) parts.push(a.version);
        if (b.checksum !== a.checksum) {
          parts.push(
            `${shortSum(b.checksum)} -> ${shortSum(a.checksum)}${
              p.update === "rebuilt" ? " (rebuilt: same version)" : ""
            }`,
          );
        }
        out.push(chg(`  ~ ${pad(p.name, w)}  ${parts.join(", ")}`));
        const tb = b.tools ?? [];
        const ta = a.tools ?? [];
        const newTools = ta.filter((t) => !tb.includes(t));
        const goneTools = tb.filter((t) => !ta.includes(t));
        if (newTools.length > 0) {
          out.push(`      declares new tools: ${newTools.join(", ")}`);
        }
        if (goneTools.length > 0) {
          out.push(`      no longer declares: ${goneTools.join(", ")}`);
        }
      }
    }
  }
  if (diff.grants.length > 0) {
    out.push("", style.bold("Permissions (effective: declared ∩ granted)"));
    const w = Math.max(...diff.grants.map((g) => g.provider.length));
    for (const g of diff.grants) {
      const line = `${pad(g.provider, w)}  ${pad(g.kind, 5)}  ${g.value}`;
      out.push(
        g.change === "added"
          ? add(`  + ${line}`) + widen(true)
          : del(`  - ${line}`),
      );
    }
  }
  if (diff.policies.length > 0) {
    out.push("", style.bold("Policy"));
    const w = Math.max(...diff.policies.map((p) => p.name.length));
    for (const p of diff.policies) {
      const name = pad(p.name, w);
      if (p.change === "added") {
        out.push(add(`  + ${name}  ${ruleText(p.after!)}`) + widen(p.widens));
      } else if (p.change === "removed") {
        out.push(
          del(`  - ${name}  ${ruleText(p.before!)}`) + widen(p.widens),
        );
      } else {
        const b = p.before!;
        const a = p.after!;
        const action = b.action === a.action
          ? a.action
          : `${b.action} -> ${a.action}`;
        const match = sameMatch(b.match, a.match)
          ? formatPolicyMatch(a.match)
          : `${formatPolicyMatch(b.match)} -> ${formatPolicyMatch(a.match)}`;
        out.push(chg(`  ~ ${name}  ${action} ${match}`) + widen(p.widens));
      }
    }
  }
  if (diff.loosened.length > 0) {
    out.push("", style.bold("Runs with less asking"));
    for (const l of diff.loosened) {
      const tool = l.tool === "*"
        ? `${l.provider} (any tool)`
        : `${l.provider}.${l.tool}`;
      const risks = l.risks.length === 5 ? "any risk" : l.risks.join(", ");
      out.push(
        `  ${tool}, ${l.kind}, ${risks}: ${l.before} -> ${
          style.bold(l.after)
        }  [${l.decidedBy === "" ? "default" : `policy "${l.decidedBy}"`}]`,
      );
    }
  }
  if (diff.profiles.length > 0) {
    out.push("", style.bold("Profiles"));
    for (const p of diff.profiles) {
      const mark = p.change === "added"
        ? add("  +")
        : p.change === "removed"
        ? del("  -")
        : chg("  ~");
      out.push(`${mark} ${p.name}${widen(p.widens)}`);
      if (p.change === "removed") continue;
      if (p.models) {
        const s = (m: string[]) =>
          m.length === 0 ? "(kernel built-in)" : m.join(" -> ");
        out.push(
          chg(`      ~ model ${s(p.models.before)} => ${s(p.models.after)}`),
        );
      }
      for (const t of p.toolsAdded) out.push(add(`      + tools ${t}`));
      for (const t of p.toolsRemoved) out.push(del(`      - tools ${t}`));
      for (const s of p.slashCommandsAdded) {
        out.push(add(`      + slash_commands ${s}`));
      }
      for (const s of p.slashCommandsRemoved) {
        out.push(del(`      - slash_commands ${s}`));
      }
      for (const b of p.bounds) {
        const v = (n: number | undefined) =>
          n === undefined ? "unset" : String(n);
        out.push(
          chg(
            `      ~ ${b.name} ${v(b.before)} -> ${v(b.after)} (${
              b.raised ? "raised" : "lowered"
            })`,
          ),
        );
      }
    }
  }
  out.push("");
  const n = changeCount(diff);
  if (diff.widens) {
    out.push(
      style.bold(style.red(
        `Widens what the agent may do (exit 10): ${diff.reasons.join("; ")}.`,
      )),
    );
  } else if (n === 0) {
    out.push(style.green("No capability changes."));
  } else {
    out.push(
      style.green(
        `Does not widen: ${
          count(n, "change")
        }, none grants a permission, an allow or a tool.`,
      ),
    );
  }
  return out.join("\n") + "\n";
}

function sameMatch(a: PolicyMatch, b: PolicyMatch): boolean {
  return formatPolicyMatch(a) === formatPolicyMatch(b);
}

function matchJson(m: PolicyMatch): JsonValue {
  const out: { [key: string]: JsonValue } = {};
  if (m.command !== undefined) out.command = m.command;
  if (m.toolName !== undefined) out.tool_name = m.toolName;
  if (m.provider !== undefined) out.provider = m.provider;
  if (m.risk !== undefined) out.risk = m.risk;
  if (m.kind !== undefined) out.kind = m.kind;
  return out;
}

function ruleJson(r: PolicyRuleSide | undefined): JsonValue {
  return r === undefined
    ? null
    : { action: r.action, match: matchJson(r.match) };
}

function providerJson(s: ProviderSide | undefined): JsonValue {
  if (s === undefined) return null;
  return {
    source: s.source,
    version: s.version ?? null,
    checksum: s.checksum ?? null,
    category: s.category ?? null,
    tools: s.tools ?? null,
  };
}

/**
 * Renders the diff as one versioned JSON document: `format_version`, the
 * base (ref, commit, how it was chosen), `widens` and its `reasons`, and
 * one array per kind of change.
 *
 * @param diff The diff.
 * @param meta The base and the working tree.
 * @returns JSON text ending with a newline.
 */
export function renderPlanJson(diff: PlanDiff, meta: PlanViewMeta): string {
  const doc: JsonValue = {
    format_version: PLAN_JSON_FORMAT_VERSION,
    base: {
      ref: meta.baseRef,
      commit: meta.baseCommit,
      chosen_by: meta.baseHow,
      has_config: meta.baseHasConfig,
    },
    working_tree: { dir: meta.dir, has_config: meta.headHasConfig },
    widens: diff.widens,
    reasons: [...diff.reasons],
    unset_env: [...meta.unsetEnv],
    providers: diff.providers.map((p) => ({
      change: p.change,
      name: p.name,
      update: p.update ?? null,
      before: providerJson(p.before),
      after: providerJson(p.after),
    })),
    grants: diff.grants.map((g) => ({
      change: g.change,
      provider: g.provider,
      kind: g.kind,
      value: g.value,
      widens: g.change === "added",
    })),
    policies: diff.policies.map((p) => ({
      change: p.change,
      name: p.name,
      widens: p.widens,
      before: ruleJson(p.before),
      after: ruleJson(p.after),
    })),
    runs_with_less_asking: diff.loosened.map((l) => ({
      provider: l.provider,
      tool: l.tool,
      kind: l.kind,
      risks: [...l.risks],
      before: l.before,
      after: l.after,
      decided_by: l.decidedBy,
      decided_before_by: l.decidedBefore,
    })),
    profiles: diff.profiles.map((p) => ({
      change: p.change,
      name: p.name,
      widens: p.widens,
      models: p.models
        ? { before: [...p.models.before], after: [...p.models.after] }
        : null,
      tools_added: [...p.toolsAdded],
      tools_widening: [...p.toolsWidening],
      tools_removed: [...p.toolsRemoved],
      slash_commands_added: [...p.slashCommandsAdded],
      slash_commands_removed: [...p.slashCommandsRemoved],
      bounds: p.bounds.map((b) => ({
        name: b.name,
        before: b.before ?? null,
        after: b.after ?? null,
        raised: b.raised,
      })),
    })),
  };
  return JSON.stringify(doc, null, 2) + "\n";
}
