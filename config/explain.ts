/**
 * `check-config --explain`: for each profile, the effective tools, each
 * plugin's effective permissions as the Deno flags it will get, and the
 * policy outcome per tool — what a reviewer wants to see in a pull request.
 *
 * Tools are known without starting a plugin only when its manifest
 * declares them (`tools`); otherwise the outcome is shown per call kind and
 * risk class, with the `tool_name` rules that could override it.
 *
 * @module
 */

import {
  denoPermissionFlags,
  type EffectivePermissions,
  PERMISSION_KINDS,
  type TransportPermissions,
} from "../contract/permissions.ts";
import { parseSubscribeGrant } from "../contract/subscribe_grant.ts";
import {
  evaluatePolicy,
  type PolicyAction,
  type PolicyCall,
  type PolicyRule,
  RISK_CLASSES,
  type RiskClass,
  type ToolKind,
} from "../contract/policy.ts";
import type { Plan, PlanProfile, PlanProvider } from "./plan.ts";
import {
  childRemainingDepth,
  rootRemainingDepth,
  spawnCapableTools,
} from "./delegation.ts";
import { matchesCall } from "../contract/policy.ts";

// The tools of a profile whose provider's manifest lists them, with their
// kind and risk (a wildcard on an unlisted provider is unknown offline).
function knownTools(
  plan: Plan,
  profile: PlanProfile,
): { name: string; call: PolicyCall }[] {
  const out: { name: string; call: PolicyCall }[] = [];
  for (const p of plan.providers) {
    const entries = profile.tools.filter((t) => t.provider === p.name);
    if (entries.length === 0 || !p.tools) continue;
    const wildcard = entries.some((e) => e.wildcard);
    for (const t of p.tools) {
      if (!wildcard && !entries.some((e) => e.tool === t.name)) continue;
      out.push({
        name: `${p.name}.${t.name}`,
        call: {
          kind: t.kind,
          provider: p.name,
          toolName: t.name,
          risk: t.risk,
        },
      });
    }
  }
  return out;
}

// The rules that can decide a call of one of these tools (a command rule:
// when its other fields match, since any command line may be sent).
function rulesFor(
  rules: readonly PolicyRule[],
  tools: readonly { call: PolicyCall }[],
): string[] {
  return rules.filter((r) => {
    const { command: _, ...rest } = r.match;
    return tools.some((t) => matchesCall(rest, t.call));
  }).map((r) => r.name);
}

function delegatesOf(
  plan: Plan,
  parent: PlanProfile,
  profiles: readonly PlanProfile[],
): ExplainDelegate[] {
  const remaining = rootRemainingDepth(parent.bounds.maxDepth);
  const parentTools = knownTools(plan, parent).map((t) => t.name);
  const spawnable = spawnCapableTools(plan.providers);
  const spawns = parentTools.some((t) => spawnable.has(t));
  if (!(remaining > 0) || !spawns) return [];
  return profiles.map((child) => {
    const depth = childRemainingDepth(remaining, child.bounds.maxDepth);
    const all = knownTools(plan, child).map((t) => t.name);
    const isSpawn = (t: string) => spawnable.has(t);
    const tools = depth > 0 ? all : all.filter((t) => !isSpawn(t));
    const costs = [parent.bounds.maxCostUsd, child.bounds.maxCostUsd].filter((
      c,
    ): c is number => c !== undefined);
    return {
      child: child.name,
      remainingDepth: depth,
      ...(costs.length > 0 ? { maxCostUsd: Math.min(...costs) } : {}),
      tools,
      removed: all.filter((t) => !tools.includes(t)),
      notInParent: tools.filter((t) => !parentTools.includes(t)),
    };
  });
}

/** One policy decision in the report. */
export interface ExplainOutcome {
  /** The tool's name, or `*` for any tool of the provider. */
  tool: string;
  /** The call kind. */
  kind: ToolKind;
  /** The risk classes this outcome covers. */
  risks: RiskClass[];
  /** What policy decides. */
  action: PolicyAction;
  /** The deciding rule, or `""` for the default. */
  decidedBy: string;
  /** An `ask` on a read or interactive call turned into `deny`. */
  downgraded: boolean;
}

/** One provider as a profile sees it. */
export interface ExplainProvider {
  /** The local name. */
  name: string;
  /** Source and version, e.g. `builtin/echo 0.1.0`. */
  source: string;
  /** Its category, when known. */
  category?: string;
  /** Its effective permissions (project-relative paths). */
  effective: EffectivePermissions;
  /** Its `allow_subscribe` grant (`kernel.*` bus filters, `@all` suffixed for every session). */
  subscribe: string[];
  /**
   * The `deno run` permission flags (for a Deno plugin), with placeholders
   * for the per-launch socket directory; `undefined` for an executable.
   */
  denoFlags?: string[];
  /**
   * Whether it runs in the OS sandbox on this host, as a phrase (set by
   * `check-config`, which probes bubblewrap; absent when not probed).
   */
  osSandbox?: string;
  /** The tools in scope (`undefined`: the manifest does not list them). */
  tools?: string[];
  /** The policy outcomes for its tools. */
  outcomes: ExplainOutcome[];
  /** `tool_name` rules that may decide some of its tools (unknown tool list). */
  toolRules: { rule: string; tool: string; action: PolicyAction }[];
  /**
   * `command` rules that judge its calls with a shell command, per
   * segment (the worst segment decides; an unparseable command is never
   * allowed by them).
   */
  commandRules: {
    rule: string;
    command: string;
    tool?: string;
    action: PolicyAction;
  }[];
}

/** One profile in the report. */
export interface ExplainProfile {
  /** The profile's name. */
  name: string;
  /** `provider/id` in routing order; empty for the kernel's built-in. */
  models: string[];
  /** The tool scope entries as written. */
  patterns: string[];
  /** The slash commands allowed. */
  slashCommands: string[];
  /** The bounds that are set, as `name = value`. */
  bounds: string[];
  /** The providers the profile uses (tools and models), in plan order. */
  providers: ExplainProvider[];
  /**
   * The effective rule set: the policies that can decide a call of one of
   * the profile's tools (known from the manifests), in declaration order.
   */
  rules: string[];
  /**
   * Providers in the profile's tools whose manifest lists no tools: rules
   * for their tools are only known when they run.
   */
  unlistedTools: string[];
  /** A root session's remaining depth (`max_depth` or the kernel default). */
  remainingDepth: number;
  /**
   * For every profile a root session of this one may delegate to (it has a
   * spawn-capable tool and depth left): what the child actually gets.
   */
  delegates: ExplainDelegate[];
}

/** What a sub-agent of a profile gets when a parent spawns it. */
export interface ExplainDelegate {
  /** The child's profile. */
  child: string;
  /** `min(parent − 1, child max_depth ?? 0)`. */
  remainingDepth: number;
  /** `min(parent max_cost_usd, child max_cost_usd)`; absent: unbounded. */
  maxCostUsd?: number;
  /** The child's tools (its own scope, never the parent's), after the depth cap. */
  tools: string[];
  /** Spawn-capable tools removed because the child's depth is 0. */
  removed: string[];
  /** Tools the child gets that the parent itself does not have. */
  notInParent: string[];
}

/** What {@linkcode explainPlan} returns. */
export interface ExplainReport {
  /** One entry per profile (a `default` with built-ins when none is declared). */
  profiles: ExplainProfile[];
  /**
   * What the `<sdk env>` placeholder in the Deno flags stands for: the
   * variables the plugin SDK and gRPC read (names only).
   */
  sdkEnv: string[];
  /**
   * The context chain a session starts with (context and memory providers
   * run once; the same for every profile), when there is one.
   */
  context?: ExplainContext;
}

/** The assembled context, measured by running the context chain once. */
export interface ExplainContext {
  /** Each section in chain order. */
  sections: { provider: string; label: string; tokens: number }[];
  /** Every section's tokens together. */
  tokens: number;
  /** Providers whose contribution was not (wholly) used, and why. */
  problems: string[];
}

const SDK_ENV_PLACEHOLDER = "<sdk env>";

/** Placeholders shown for the per-launch transport of a Deno plugin. */
export const EXPLAIN_TRANSPORT: TransportPermissions = {
  env: [SDK_ENV_PLACEHOLDER],
  socketDirs: ["<socket dir>"],
  loopback: ["unix:<socket dir>/plugin.sock", "unix:<socket dir>/kernel.sock"],
};

const KINDS: readonly ToolKind[] = ["resource", "data_source", "interactive"];

function outcomesFor(
  rules: readonly PolicyRule[],
  provider: string,
  tool: string,
  kinds: readonly ToolKind[],
  risks: readonly RiskClass[],
): ExplainOutcome[] {
  const out: ExplainOutcome[] = [];
  for (const kind of kinds) {
    let current: ExplainOutcome | undefined;
    for (const risk of risks) {
      const call: PolicyCall = { kind, provider, toolName: tool, risk };
      const d = evaluatePolicy(rules, call);
      if (
        current && current.action === d.action &&
        current.decidedBy === d.decidedBy && current.downgraded === d.downgraded
      ) {
        current.risks.push(risk);
        continue;
      }
      current = { tool, kind, risks: [risk], ...d };
      out.push(current);
    }
  }
  return out;
}

// A tool name no tool_name rule can match.
const ANY_TOOL = "\u0000*";

function explainProvider(
  plan: Plan,
  p: PlanProvider,
  profile: PlanProfile,
  transport: TransportPermissions,
): ExplainProvider {
  const entries = profile.tools.filter((t) => t.provider === p.name);
  const out: ExplainProvider = {
    name: p.name,
    source: `${p.devOverride ?? p.source}${p.version ? ` ${p.version}` : ""}`,
    effective: p.permissions.effective,
    subscribe: [...(p.permissions.subscribe ?? [])],
    outcomes: [],
    toolRules: [],
    commandRules: [],
  };
  if (p.category) out.category = p.category;
  if (p.runtime !== "executable") {
    out.denoFlags = denoPermissionFlags(p.permissions.effective, transport);
  }
  if (p.tools) {
    const wildcard = entries.some((e) => e.wildcard);
    const named = new Set(entries.map((e) => e.tool));
    const tools = p.tools.filter((t) => wildcard || named.has(t.name));
    out.tools = tools.map((t) => t.name);
    for (const t of tools) {
      out.outcomes.push(
        ...outcomesFor(plan.policies, p.name, t.name, [t.kind], [t.risk]),
      );
    }
  } else if (entries.length > 0) {
    const concrete = entries.filter((e) => !e.wildcard).map((e) => e.tool);
    if (!entries.some((e) => e.wildcard)) out.tools = concrete;
    for (const tool of concrete) {
      out.outcomes.push(
        ...outcomesFor(plan.policies, p.name, tool, KINDS, RISK_CLASSES),
      );
    }
    if (entries.some((e) => e.wildcard)) {
      // Any tool: evaluated with a name no tool_name rule can match.
      out.outcomes.push(
        ...outcomesFor(plan.policies, p.name, ANY_TOOL, KINDS, RISK_CLASSES)
          .map((o) => ({ ...o, tool: "*" })),
      );
      for (const rule of plan.policies) {
        const m = rule.match;
        if (m.toolName === undefined || m.command !== undefined) continue;
        if (m.provider !== undefined && m.provider !== p.name) continue;
        out.toolRules.push({
          rule: rule.name,
          tool: m.toolName,
          action: rule.action,
        });
      }
    }
  }
  // Command rules that can judge this provider's calls: they name it, or
  // name no provider and it offers a tool the rule could match.
  for (const rule of plan.policies) {
    const m = rule.match;
    if (m.command === undefined) continue;
    if (m.provider !== undefined && m.provider !== p.name) continue;
    if (m.provider === undefined && !out.tools?.some((t) => t === "bash")) {
      continue;
    }
    out.commandRules.push({
      rule: rule.name,
      command: m.command,
      ...(m.toolName !== undefined ? { tool: m.toolName } : {}),
      action: rule.action,
    });
  }
  return out;
}

/**
 * Builds the `--explain` report of a plan.
 *
 * @example Usage
 * ```ts ignore
 * import { BUILTINS } from "../plugins/builtin.ts";
 * import { explainPlan, formatExplain } from "./explain.ts";
 * import { compileConfig } from "./check.ts";
 * const { plan } = await compileConfig("examples", { builtins: BUILTINS });
 * console.log(formatExplain(explainPlan(plan)));
 * ```
 *
 * @param plan The plan.
 * @param sdkEnv The variables every Deno plugin may read (the kernel's
 *   `SDK_ENV_NAMES` and Deno's runtime settings), shown once instead of in
 *   every flag.
 * @returns The report.
 */
export function explainPlan(
  plan: Plan,
  sdkEnv: readonly string[] = [],
): ExplainReport {
  const transport = EXPLAIN_TRANSPORT;
  const profiles: PlanProfile[] = plan.profiles.length > 0 ? plan.profiles : [{
    name: "default",
    tools: [],
    slashCommands: [],
    bounds: {},
    range: undefined!,
  }];
  return {
    sdkEnv: [...sdkEnv],
    profiles: profiles.map((profile) => {
      const used = new Set<string>(profile.tools.map((t) => t.provider));
      const models = profile.model
        ? [profile.model.primary, ...profile.model.fallbacks]
        : [];
      for (const m of models) used.add(m.provider);
      const b = profile.bounds;
      const bounds = ([
        ["max_turns", b.maxTurns],
        ["max_cost_usd", b.maxCostUsd],
        ["max_wall_clock_s", b.maxWallClockS],
        ["max_depth", b.maxDepth],
        ["max_concurrent_subagents", b.maxConcurrentSubagents],
        ["doom_loop_threshold", b.doomLoopThreshold],
        ["max_result_bytes", b.maxResultBytes],
      ] as const).filter(([, v]) => v !== undefined).map(([k, v]) =>
        `${k} = ${v}`
      );
      return {
        name: profile.name,
        models: models.map((m) => `${m.provider}/${m.id}`),
        patterns: profile.tools.map((t) => t.text),
        slashCommands: [...profile.slashCommands],
        bounds,
        providers: plan.providers.filter((p) => used.has(p.name)).map((p) =>
          explainProvider(plan, p, profile, transport)
        ),
        rules: rulesFor(plan.policies, knownTools(plan, profile)),
        unlistedTools: [...new Set(profile.tools.map((t) => t.provider))]
          .filter((name) => {
            const p = plan.providers.find((x) => x.name === name);
            return p !== undefined && p.tools === undefined;
          }),
        remainingDepth: rootRemainingDepth(profile.bounds.maxDepth),
        delegates: delegatesOf(plan, profile, profiles),
      };
    }),
  };
}

function outcomeText(o: ExplainOutcome): string {
  const who = o.decidedBy === "" ? "default" : `policy "${o.decidedBy}"`;
  return `${o.action}${
    o.downgraded ? " (ask downgraded to deny)" : ""
  }  [${who}]`;
}

/**
 * Renders an {@linkcode ExplainReport} as text.
 *
 * @param report The report.
 * @returns Lines of text, ending with a newline.
 */
export function formatExplain(report: ExplainReport): string {
  const lines: string[] = [];
  for (const profile of report.profiles) {
    lines.push(`Profile "${profile.name}"`);
    lines.push(
      `  models: ${
        profile.models.length === 0
          ? "(kernel built-in)"
          : profile.models.join(" -> ")
      }`,
    );
    lines.push(
      `  tools: ${
        profile.patterns.length === 0 ? "(none)" : profile.patterns.join(", ")
      }`,
    );
    lines.push(
      `  slash commands: ${
        profile.slashCommands.length === 0
          ? "(none)"
          : profile.slashCommands.join(", ")
      }`,
    );
    lines.push(
      `  bounds: ${
        profile.bounds.length === 0
          ? "(kernel built-ins)"
          : profile.bounds.join(", ")
      }`,
    );
    const ctx = report.context;
    if (ctx) {
      lines.push(
        `  assembled context: ${ctx.tokens} tokens in ${ctx.sections.length} section${
          ctx.sections.length === 1 ? "" : "s"
        } (before the system prompt and the conversation)`,
      );
      for (const s of ctx.sections) {
        lines.push(`    ${s.provider}: ${s.label} (${s.tokens} tokens)`);
      }
      for (const p of ctx.problems) lines.push(`    ! ${p}`);
    }
    for (const p of profile.providers) {
      lines.push(
        `  provider "${p.name}" (${p.source}${
          p.category ? `, ${p.category}` : ""
        })`,
      );
      const perms = PERMISSION_KINDS.filter((k) => p.effective[k].length > 0)
        .map((k) => `${k}: ${p.effective[k].join(", ")}`);
      lines.push(
        `    permissions: ${perms.length === 0 ? "none" : perms.join("; ")}`,
      );
      if (p.subscribe.length > 0) {
        lines.push(
          `    kernel bus: may subscribe to ${
            p.subscribe.map((g) => {
              const { filter, allSessions } = parseSubscribeGrant(g);
              return `${filter} (${
                allSessions ? "every session" : "sessions it takes part in"
              })`;
            }).join(", ")
          }`,
        );
      }
      if (p.denoFlags) {
        lines.push(`    deno flags: ${p.denoFlags.join(" ")}`);
      } else {
        lines.push(
          `    runs as an executable: not sandboxed by Deno; its environment is limited to ${
            p.effective.env.length === 0
              ? "the transport's variables"
              : p.effective.env.join(", ")
          }`,
        );
      }
      if (p.osSandbox !== undefined) {
        lines.push(`    OS sandbox: ${p.osSandbox}`);
      }
      if (p.tools !== undefined) {
        lines.push(
          `    tools in scope: ${
            p.tools.length === 0 ? "(none)" : p.tools.join(", ")
          }`,
        );
      } else if (profile.patterns.some((t) => t === `${p.name}.*`)) {
        lines.push(
          "    tools in scope: all it advertises (its manifest does not list them)",
        );
      }
      if (p.outcomes.length > 0) lines.push("    policy:");
      for (const o of p.outcomes) {
        const risks = o.risks.length === RISK_CLASSES.length
          ? "any risk"
          : o.risks.join(", ");
        lines.push(
          `      ${
            o.tool === "*" ? "any tool" : o.tool
          }, ${o.kind}, ${risks}: ${outcomeText(o)}`,
        );
      }
      for (const r of p.toolRules) {
        lines.push(
          `      except a tool named "${r.tool}": ${r.action}  [policy "${r.rule}"]`,
        );
      }
      if (p.commandRules.length > 0) {
        lines.push(
          "      calls with a command, per segment (the worst segment decides):",
        );
        for (const r of p.commandRules) {
          lines.push(
            `        ${
              r.tool ? `${r.tool} ` : ""
            }"${r.command}": ${r.action}  [policy "${r.rule}"]`,
          );
        }
      }
    }
    lines.push(
      `  effective rules: ${
        profile.rules.length === 0
          ? "(none: the defaults decide)"
          : profile.rules.join(", ")
      }`,
    );
    if (profile.unlistedTools.length > 0) {
      lines.push(
        `    and any rule on the tools of ${
          profile.unlistedTools.join(", ")
        } (their manifests do not list them)`,
      );
    }
    lines.push(`  remaining depth (root session): ${profile.remainingDepth}`);
    if (profile.delegates.length === 0) {
      lines.push(
        `  delegates: (none: ${
          profile.remainingDepth > 0
            ? "no spawn-capable tool in its tools"
            : "no depth left"
        })`,
      );
    }
    for (const d of profile.delegates) {
      lines.push(
        `  delegates to "${d.child}": depth ${d.remainingDepth}, cost ${
          d.maxCostUsd === undefined ? "unbounded" : `<= ${d.maxCostUsd} USD`
        }, tools: ${d.tools.length === 0 ? "(none)" : d.tools.join(", ")}`,
      );
      if (d.removed.length > 0) {
        lines.push(
          `    removed (no depth left): ${d.removed.join(", ")}`,
        );
      }
      if (d.notInParent.length > 0) {
        lines.push(
          `    ! not in "${profile.name}" itself: ${d.notInParent.join(", ")}`,
        );
      }
    }
    lines.push("");
  }
  if (report.sdkEnv.length > 0) {
    lines.push(
      `${SDK_ENV_PLACEHOLDER} stands for the ${report.sdkEnv.length} variables the plugin SDK, gRPC and Deno's runtime read (names only; values are set by the kernel, Deno's runtime settings copied from its environment when set): ${
        report.sdkEnv.join(", ")
      }. <socket dir> is the plugin's private socket directory, created per launch.`,
      "",
    );
  }
  return lines.join("\n");
}
