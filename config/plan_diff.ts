/**
 * The capability diff between two compiled {@linkcode Plan}s: what `agent
 * plan` shows a reviewer before an agent's powers change. Pure: it reads
 * no file and starts nothing.
 *
 * A change *widens* when, after it, the agent may do something it could
 * not do before without a human saying yes:
 *
 * - a provider's effective permission (declared ∩ granted) is added, or
 *   an `allow_subscribe` entry (a `kernel.*` bus filter, or its `@all`
 *   every-session form) is added;
 * - a policy change lets a call run with less asking: an `ask` or `deny`
 *   that became `allow`, a `deny` that became `ask`, a new `allow` rule, a
 *   removed `deny` or `ask` rule, or a changed `match` under which some
 *   call is now judged less strictly;
 * - a profile gains a tool scope entry (the model may now call the tool).
 *
 * Everything else (versions, checksums, models, bounds, budgets, removed
 * permissions) is reported but does not widen.
 *
 * @module
 */

import { compareSemVer, parseSemVer } from "./_semver.ts";
import {
  type EffectivePermissions,
  PERMISSION_KINDS,
  type PermissionKind,
} from "../contract/permissions.ts";
import type { Plan, PlanProfile, PlanProvider } from "./plan.ts";
import {
  evaluatePolicy,
  formatPolicyMatch,
  type PolicyAction,
  type PolicyMatch,
  type PolicyRule,
  RISK_CLASSES,
  type RiskClass,
  type ToolKind,
} from "../contract/policy.ts";
import { defaultSettings } from "./decode_settings.ts";
import { BOUND_ATTRIBUTES, type ProfileBounds } from "./profile_bounds.ts";

/** How an entry differs between the base and the working tree. */
export type ChangeKind = "added" | "removed" | "changed";

/** A provider as one side has it. */
export interface ProviderSide {
  /** The source as written. */
  source: string;
  /** The version that runs (the plugin's, or the locked one). */
  version?: string;
  /** The artifact's checksum for the plan's platform (else the locked one). */
  checksum?: string;
  /** The plugin's category, when known. */
  category?: string;
  /** The tools its manifest declares, when it lists them. */
  tools?: string[];
}

/** A provider added, removed, or changed in source, version or checksum. */
export interface ProviderChange {
  /** What happened. */
  change: ChangeKind;
  /** The local name. */
  name: string;
  /** The base's provider (absent when added). */
  before?: ProviderSide;
  /** The working tree's provider (absent when removed). */
  after?: ProviderSide;
  /**
   * For a change: `upgraded` / `downgraded` (versions compared as semver),
   * `rebuilt` (same version, another checksum), `resourced` (only the
   * source changed) or `changed` (versions not comparable).
   */
  update?: "upgraded" | "downgraded" | "rebuilt" | "resourced" | "changed";
}

/** One effective permission a provider gains or loses. */
export interface GrantChange {
  /** `added` widens; `removed` narrows. */
  change: "added" | "removed";
  /** The provider's local name. */
  provider: string;
  /** The kind of permission (`subscribe`: an `allow_subscribe` entry). */
  kind: PermissionKind | "subscribe";
  /** The value (a variable, program, path, host or bus filter). */
  value: string;
}

/** A policy rule as one side has it. */
export interface PolicyRuleSide {
  /** Its `match`. */
  match: PolicyMatch;
  /** Its `action`. */
  action: PolicyAction;
}

/** A policy rule added, removed or changed (matched by name). */
export interface PolicyChange {
  /** What happened. */
  change: ChangeKind;
  /** The rule's name. */
  name: string;
  /** The base's rule (absent when added). */
  before?: PolicyRuleSide;
  /** The working tree's rule (absent when removed). */
  after?: PolicyRuleSide;
  /** Whether this change lets something run with less asking. */
  widens: boolean;
}

/**
 * A call that the working tree's policy judges less strictly than the
 * base's (same tool, same kind, same risk).
 */
export interface LoosenedCall {
  /** The provider's local name. */
  provider: string;
  /** The tool's name, or `*` for any tool the manifest does not list. */
  tool: string;
  /** The call kind. */
  kind: ToolKind;
  /** The risk classes this covers. */
  risks: RiskClass[];
  /** The base's decision. */
  before: PolicyAction;
  /** The working tree's decision. */
  after: PolicyAction;
  /** The working tree's deciding rule, or `""` for the default. */
  decidedBy: string;
  /** The base's deciding rule, or `""` for the default. */
  decidedBefore: string;
}

/** One loop bound that changed; `undefined` is unset. */
export interface BoundChange {
  /** The HCL attribute (`max_turns`, `max_cost_usd`, …). */
  name: string;
  /** The base's value. */
  before?: number;
  /** The working tree's value. */
  after?: number;
  /** Raised or unset (more room), as opposed to lowered or newly set. */
  raised: boolean;
}

/** A profile added, removed or changed. */
export interface ProfileChange {
  /** What happened. */
  change: ChangeKind;
  /** The profile's name. */
  name: string;
  /** The model chain (`provider/id`), when it changed. */
  models?: { before: string[]; after: string[] };
  /** Tool scope entries added. */
  toolsAdded: string[];
  /** The added entries the base did not cover (`p.*` covers `p.x`): each widens. */
  toolsWidening: string[];
  /** Tool scope entries removed. */
  toolsRemoved: string[];
  /** Slash commands added. */
  slashCommandsAdded: string[];
  /** Slash commands removed. */
  slashCommandsRemoved: string[];
  /** Bounds, budgets and sub-agent depth that changed. */
  bounds: BoundChange[];
  /** Whether the profile gains a tool it did not have. */
  widens: boolean;
}

/** What {@linkcode diffPlans} returns. */
export interface PlanDiff {
  /** Providers added, removed, upgraded. */
  providers: ProviderChange[];
  /** Effective permissions added and removed, per provider. */
  grants: GrantChange[];
  /** Policy rules added, removed, changed. */
  policies: PolicyChange[];
  /** Calls the policy now judges less strictly (what runs with less asking). */
  loosened: LoosenedCall[];
  /** Profile changes. */
  profiles: ProfileChange[];
  /** Whether anything widens. */
  widens: boolean;
  /** Why it widens, one sentence each (empty when it does not). */
  reasons: string[];
}

/** The plan of a project without `agent.hcl`: nothing declared. */
export const EMPTY_PLAN: Plan = {
  sourceFile: "agent.hcl",
  platform: "",
  providers: [],
  policies: [],
  profiles: [],
  hooks: [],
  settings: defaultSettings(),
  global: { devOverrides: {}, devOverrideRanges: {} },
  locked: true,
};

const SEVERITY: Readonly<Record<PolicyAction, number>> = {
  allow: 0,
  ask: 1,
  deny: 2,
};

const KINDS: readonly ToolKind[] = ["resource", "data_source", "interactive"];

// A tool name no tool_name rule can match.
const ANY_TOOL = "\u0000*";

function side(plan: Plan, p: PlanProvider): ProviderSide {
  const out: ProviderSide = { source: p.devOverride ?? p.source };
  const version = p.version ?? p.lock?.version;
  if (version !== undefined) out.version = version;
  const checksum = p.checksum ?? p.lock?.checksums[plan.platform];
  if (checksum !== undefined) out.checksum = checksum;
  if (p.category !== undefined) out.category = p.category;
  if (p.tools !== undefined) out.tools = p.tools.map((t) => t.name);
  return out;
}

function updateOf(
  a: ProviderSide,
  b: ProviderSide,
): ProviderChange["update"] | undefined {
  if (a.version !== b.version) {
    const va = a.version === undefined ? undefined : parseSemVer(a.version);
    const vb = b.version === undefined ? undefined : parseSemVer(b.version);
    if (va === undefined || vb === undefined) return "changed";
    return compareSemVer(vb, va) > 0 ? "upgraded" : "downgraded";
  }
  if (a.checksum !== b.checksum) return "rebuilt";
  if (a.source !== b.source) return "resourced";
  return undefined;
}

function diffProviders(base: Plan, head: Plan): ProviderChange[] {
  const out: ProviderChange[] = [];
  const before = new Map(base.providers.map((p) => [p.name, p]));
  const after = new Set(head.providers.map((p) => p.name));
  for (const p of head.providers) {
    const b = before.get(p.name);
    if (b === undefined) {
      out.push({ change: "added", name: p.name, after: side(head, p) });
      continue;
    }
    const sb = side(base, b);
    const sa = side(head, p);
    const update = updateOf(sb, sa);
    if (update === undefined) continue;
    out.push({
      change: "changed",
      name: p.name,
      before: sb,
      after: sa,
      update,
    });
  }
  for (const p of base.providers) {
    if (!after.has(p.name)) {
      out.push({ change: "removed", name: p.name, before: side(base, p) });
    }
  }
  return out;
}

const NO_PERMISSIONS: EffectivePermissions = {
  env: [],
  run: [],
  read: [],
  write: [],
  net: [],
};

function diffGrants(base: Plan, head: Plan): GrantChange[] {
  const out: GrantChange[] = [];
  const effective = (plan: Plan, name: string) =>
    plan.providers.find((p) => p.name === name)?.permissions.effective ??
      NO_PERMISSIONS;
  const names = [
    ...head.providers.map((p) => p.name),
    ...base.providers.map((p) => p.name).filter((n) =>
      !head.providers.some((p) => p.name === n)
    ),
  ];
  const subscribe = (plan: Plan, name: string) =>
    plan.providers.find((p) => p.name === name)?.permissions.subscribe ?? [];
  for (const provider of names) {
    const b = effective(base, provider);
    const a = effective(head, provider);
    const bs = subscribe(base, provider);
    const as = subscribe(head, provider);
    for (const kind of PERMISSION_KINDS) {
      for (const value of a[kind]) {
        if (!b[kind].includes(value)) {
          out.push({ change: "added", provider, kind, value });
        }
      }
      for (const value of b[kind]) {
        if (!a[kind].includes(value)) {
          out.push({ change: "removed", provider, kind, value });
        }
      }
    }
    for (const value of as) {
      if (!bs.includes(value)) {
        out.push({ change: "added", provider, kind: "subscribe", value });
      }
    }
    for (const value of bs) {
      if (!as.includes(value)) {
        out.push({ change: "removed", provider, kind: "subscribe", value });
      }
    }
  }
  return out;
}

function sameMatch(a: PolicyMatch, b: PolicyMatch): boolean {
  return formatPolicyMatch(a) === formatPolicyMatch(b);
}

/** The calls policy is probed with: each declared tool, else any tool. */
function probes(
  base: Plan,
  head: Plan,
): { provider: string; tool: string; kinds: ToolKind[]; risks: RiskClass[] }[] {
  const toolNames = new Set<string>();
  for (const r of [...base.policies, ...head.policies]) {
    if (r.match.toolName !== undefined) toolNames.add(r.match.toolName);
  }
  const out: {
    provider: string;
    tool: string;
    kinds: ToolKind[];
    risks: RiskClass[];
  }[] = [];
  for (const p of head.providers) {
    if (p.tools) {
      for (const t of p.tools) {
        out.push({
          provider: p.name,
          tool: t.name,
          kinds: [t.kind],
          risks: [t.risk],
        });
      }
      continue;
    }
    // Tools unknown without starting the plugin: any tool, and every tool
    // name a rule names, at every kind and risk.
    for (const tool of [ANY_TOOL, ...[...toolNames].sort()]) {
      out.push({
        provider: p.name,
        tool,
        kinds: [...KINDS],
        risks: [...RISK_CLASSES],
      });
    }
  }
  return out;
}

function loosenedCalls(base: Plan, head: Plan): LoosenedCall[] {
  const out: LoosenedCall[] = [];
  for (const probe of probes(base, head)) {
    for (const kind of probe.kinds) {
      let current: LoosenedCall | undefined;
      for (const risk of probe.risks) {
        const call = {
          kind,
          provider: probe.provider,
          toolName: probe.tool,
          risk,
        };
        const b = evaluatePolicy(base.policies, call);
        const a = evaluatePolicy(head.policies, call);
        if (SEVERITY[a.action] >= SEVERITY[b.action]) {
          current = undefined;
          continue;
        }
        if (
          current && current.before === b.action &&
          current.after === a.action && current.decidedBy === a.decidedBy &&
          current.decidedBefore === b.decidedBy
        ) {
          current.risks.push(risk);
          continue;
        }
        current = {
          provider: probe.provider,
          tool: probe.tool === ANY_TOOL ? "*" : probe.tool,
          kind,
          risks: [risk],
          before: b.action,
          after: a.action,
          decidedBy: a.decidedBy,
          decidedBefore: b.decidedBy,
        };
        out.push(current);
      }
    }
  }
  return out;
}

function diffPolicies(
  base: Plan,
  head: Plan,
  loosened: readonly LoosenedCall[],
): PolicyChange[] {
  const out: PolicyChange[] = [];
  const before = new Map(base.policies.map((r) => [r.name, r]));
  const after = new Set(head.policies.map((r) => r.name));
  const ruleSide = (r: PolicyRule): PolicyRuleSide => ({
    match: { ...r.match },
    action: r.action,
  });
  // A loosened call decided by this rule, before or now.
  const decides = (name: string) =>
    loosened.some((l) => l.decidedBy === name || l.decidedBefore === name);
  for (const r of head.policies) {
    const b = before.get(r.name);
    if (b === undefined) {
      out.push({
        change: "added",
        name: r.name,
        after: ruleSide(r),
        widens: r.action === "allow" || decides(r.name),
      });
      continue;
    }
    const matchChanged = !sameMatch(b.match, r.match);
    if (!matchChanged && b.action === r.action) continue;
    // A command rule judges command lines, which cannot be enumerated: a
    // changed command rule widens unless it only got stricter.
    const command = b.match.command !== undefined ||
      r.match.command !== undefined;
    const widens = SEVERITY[r.action] < SEVERITY[b.action] ||
      (matchChanged && (decides(r.name) || command));
    out.push({
      change: "changed",
      name: r.name,
      before: ruleSide(b),
      after: ruleSide(r),
      widens,
    });
  }
  for (const r of base.policies) {
    if (after.has(r.name)) continue;
    out.push({
      change: "removed",
      name: r.name,
      before: ruleSide(r),
      widens: r.action !== "allow",
    });
  }
  return out;
}

function modelsOf(p: PlanProfile | undefined): string[] {
  if (p?.model === undefined) return [];
  return [p.model.primary, ...p.model.fallbacks].map((m) =>
    `${m.provider}/${m.id}`
  );
}

function diffProfile(
  name: string,
  b: PlanProfile | undefined,
  a: PlanProfile | undefined,
): ProfileChange | undefined {
  const change: ChangeKind = b === undefined
    ? "added"
    : a === undefined
    ? "removed"
    : "changed";
  const tb = (b?.tools ?? []).map((t) => t.text);
  const ta = (a?.tools ?? []).map((t) => t.text);
  const sb = b?.slashCommands ?? [];
  const sa = a?.slashCommands ?? [];
  const mb = modelsOf(b);
  const ma = modelsOf(a);
  const bounds: BoundChange[] = [];
  if (a !== undefined && b !== undefined) {
    for (
      const key of Object.keys(BOUND_ATTRIBUTES) as (keyof ProfileBounds)[]
    ) {
      const vb = b.bounds[key];
      const va = a.bounds[key];
      if (vb === va) continue;
      const c: BoundChange = {
        name: BOUND_ATTRIBUTES[key],
        raised: va === undefined || (vb !== undefined && va > vb),
      };
      if (vb !== undefined) c.before = vb;
      if (va !== undefined) c.after = va;
      bounds.push(c);
    }
  }
  const out: ProfileChange = {
    change,
    name,
    toolsAdded: ta.filter((t) => !tb.includes(t)),
    toolsWidening: [],
    toolsRemoved: tb.filter((t) => !ta.includes(t)),
    slashCommandsAdded: sa.filter((s) => !sb.includes(s)),
    slashCommandsRemoved: sb.filter((s) => !sa.includes(s)),
    bounds,
    widens: false,
  };
  // An added entry the base already covered ("p.*" covers "p.x") gives
  // the model nothing new.
  const covered = (entry: string) => {
    const dot = entry.indexOf(".");
    return tb.includes(entry) ||
      (dot > 0 && tb.includes(`${entry.slice(0, dot)}.*`));
  };
  out.toolsWidening = out.toolsAdded.filter((t) => !covered(t));
  out.widens = out.toolsWidening.length > 0;
  if (mb.join("\n") !== ma.join("\n")) out.models = { before: mb, after: ma };
  const changed = change !== "changed" || out.models !== undefined ||
    out.toolsAdded.length + out.toolsRemoved.length +
          out.slashCommandsAdded.length + out.slashCommandsRemoved.length +
          bounds.length > 0;
  return changed ? out : undefined;
}

function diffProfiles(base: Plan, head: Plan): ProfileChange[] {
  const out: ProfileChange[] = [];
  const before = new Map(base.profiles.map((p) => [p.name, p]));
  const after = new Map(head.profiles.map((p) => [p.name, p]));
  for (const p of head.profiles) {
    const c = diffProfile(p.name, before.get(p.name), p);
    if (c) out.push(c);
  }
  for (const p of base.profiles) {
    if (after.has(p.name)) continue;
    const c = diffProfile(p.name, p, undefined);
    if (c) out.push(c);
  }
  return out;
}

function reasonsOf(d: Omit<PlanDiff, "widens" | "reasons">): string[] {
  const reasons: string[] = [];
  for (const g of d.grants) {
    if (g.change !== "added") continue;
    reasons.push(
      `provider "${g.provider}" gains ${g.kind} permission "${g.value}"`,
    );
  }
  for (const p of d.policies) {
    if (!p.widens) continue;
    if (p.change === "added") {
      reasons.push(`new policy "${p.name}" says ${p.after!.action}`);
    } else if (p.change === "removed") {
      reasons.push(`policy "${p.name}" (${p.before!.action}) is removed`);
    } else if (p.before!.action !== p.after!.action) {
      reasons.push(
        `policy "${p.name}" turns ${p.before!.action} into ${p.after!.action}`,
      );
    } else {
      reasons.push(`policy "${p.name}" matches other calls`);
    }
  }
  // Loosened calls no widening rule change accounts for.
  const named = new Set(d.policies.filter((p) => p.widens).map((p) => p.name));
  for (const l of d.loosened) {
    if (named.has(l.decidedBy) || named.has(l.decidedBefore)) continue;
    reasons.push(
      `${l.provider}.${l.tool} (${l.kind}) turns ${l.before} into ${l.after}`,
    );
  }
  for (const p of d.profiles) {
    for (const t of p.toolsWidening) {
      reasons.push(`profile "${p.name}" gains tools "${t}"`);
    }
  }
  return reasons;
}

/**
 * Compares two compiled plans: providers, effective permissions, policy
 * (rule by rule, and what each declared tool now gets), and profiles.
 *
 * @example Usage
 * ```ts
 * import { diffPlans, EMPTY_PLAN } from "./plan_diff.ts";
 * import assert from "node:assert/strict";
 * const head = {
 *   ...EMPTY_PLAN,
 *   policies: [{ name: "all_ok", match: {}, action: "allow" as const }],
 * };
 * const d = diffPlans(EMPTY_PLAN, head);
 * assert.equal(d.widens, true);
 * assert.deepEqual(d.reasons, ['new policy "all_ok" says allow']);
 * assert.equal(diffPlans(head, EMPTY_PLAN).widens, false);
 * ```
 *
 * @param base The base's plan ({@linkcode EMPTY_PLAN} when it has no
 *   `agent.hcl`).
 * @param head The working tree's plan.
 * @returns Every change, and whether (and why) it widens.
 */
export function diffPlans(base: Plan, head: Plan): PlanDiff {
  const providers = diffProviders(base, head);
  const grants = diffGrants(base, head);
  const loosened = loosenedCalls(base, head);
  const policies = diffPolicies(base, head, loosened);
  const profiles = diffProfiles(base, head);
  const parts = { providers, grants, policies, loosened, profiles };
  const reasons = reasonsOf(parts);
  return { ...parts, widens: reasons.length > 0, reasons };
}
