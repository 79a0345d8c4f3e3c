/**
 * Stage A of the compiler (config.md §4.1): `agent.hcl`'s closed schemas
 * for `required_providers`, `provider` (labels and grants only; bodies are
 * decoded against the plugin's schema later), `policy`, `agent_profile`,
 * `hook` and `settings`. Unknown blocks and attributes get a "did you mean";
 * a wrong type names the expected and the actual type; every problem is
 * reported, not only the first.
 *
 * This file decodes the top level, `required_providers`, `provider` and
 * `policy`; `agent_profile` is in `_decode_profile.ts`, `hook` in
 * `_decode_hook.ts` and `settings` in `decode_settings.ts`.
 *
 * @module
 */

import type { Diagnostic, SourceRange } from "../contract/diagnostic.ts";
import { didYouMean } from "../contract/diagnostic.ts";
import type { Attribute, Block, Body, ObjectValue } from "./hcl/mod.ts";
import {
  E_CONSTRAINT_UNSATISFIABLE,
  E_INVALID_SOURCE,
  E_MISSING_FIELD,
  E_UNKNOWN_ATTR,
  E_UNKNOWN_BLOCK,
  E_UNKNOWN_PROVIDER,
} from "./codes.ts";
import type { PolicyRule } from "../contract/policy.ts";
import { normalizePolicy } from "../contract/policy_normalize.ts";
import { checkPolicies } from "../contract/policy_checks.ts";
import {
  formatVersionConstraint,
  isSatisfiable,
  parseVersionConstraint,
  type VersionConstraint,
} from "./version_constraint.ts";
import type {
  PlanAgent,
  PlanHook,
  PlanProfile,
  Settings,
  SourceKind,
} from "./plan.ts";
import {
  GRANT_ATTRIBUTES,
  INJECT_ATTRIBUTE,
  SUBSCRIBE_ATTRIBUTE,
} from "./provider_schema.ts";
import { parseSubscribeGrant } from "../contract/subscribe_grant.ts";
import {
  type BodySchema,
  checkBody,
  describeType,
  diag,
  evalAttr,
  evalExpr,
  headerRange,
  itemRanges,
  keyRanges,
} from "./_schema.ts";
import type { PermissionGrant } from "../contract/permissions.ts";
import { decodeProfile } from "./_decode_profile.ts";
import { decodeHook } from "./_decode_hook.ts";
import { decodeAgent } from "./_decode_agent.ts";
import { decodeSettings, defaultSettings } from "./decode_settings.ts";
import { decodeState, DEFAULT_STATE, type PlanState } from "./decode_state.ts";

/** One `required_providers` entry. */
export interface RequiredProvider {
  /** The local name. */
  name: string;
  /** The source as written. */
  source: string;
  /** How it resolves. */
  sourceKind: SourceKind;
  /** The parsed constraint. */
  constraint: VersionConstraint;
  /** The constraint normalised. */
  constraintText: string;
  /** The entry. */
  range: SourceRange;
  /** The `source` value's range. */
  sourceRange: SourceRange;
  /** The `version` value's range. */
  versionRange: SourceRange;
}

/** A `provider` block before its body is decoded. */
export interface ProviderBlock {
  /** The local name. */
  name: string;
  /** The block. */
  block: Block;
  /** The operator's grant (`allow_*`). */
  grant: PermissionGrant;
  /** Where each grant attribute is. */
  grantRanges: Partial<Record<keyof PermissionGrant, SourceRange>>;
  /** Where each entry of each grant attribute is. */
  grantItems: Partial<
    Record<keyof PermissionGrant, (SourceRange | undefined)[]>
  >;
  /**
   * The `allow_subscribe` entries: `kernel.*` bus filters the plugin may
   * subscribe to, each optionally suffixed `@all` (every session).
   */
  subscribe: string[];
  /** Where `allow_subscribe` is, when written. */
  subscribeRange?: SourceRange;
  /** `allow_inject = true`: the plugin may inject control-plane text. */
  inject?: boolean;
  /** Where `allow_inject` is, when written. */
  injectRange?: SourceRange;
}

/** `agent.hcl` after stage A. */
export interface AgentConfig {
  /** Required providers in declaration order (valid entries only). */
  requiredProviders: RequiredProvider[];
  /** Local names written in `required_providers`, valid or not. */
  declaredNames: Set<string>;
  /** Provider blocks by local name. */
  providerBlocks: Map<string, ProviderBlock>;
  /** Policies in declaration order. */
  policies: PolicyRule[];
  /** Profiles in declaration order. */
  profiles: PlanProfile[];
  /** Named agents in declaration order. */
  agents: PlanAgent[];
  /** Hooks in declaration order. */
  hooks: PlanHook[];
  /** Settings, fully defaulted. */
  settings: Settings;
  /** The state backend (`state {}`), sqlite when absent. */
  state: PlanState;
  /**
   * Whether `agent.hcl` has a `state {}` block (it then wins over the
   * global config's).
   */
  stateDeclared?: boolean;
}

const TOP_BLOCKS = {
  required_providers: { labels: [], unique: "type" },
  provider: { labels: ["local name"], unique: "label" },
  policy: { labels: ["name"] },
  agent_profile: { labels: ["name"], unique: "label" },
  agent: { labels: ["name"], unique: "label" },
  hook: { labels: ["hook point"] },
  settings: { labels: [], unique: "type" },
  state: { labels: [], unique: "type" },
} as const;

const TOP_HINTS: Readonly<Record<string, string>> = {
  session:
    "There is no session block: loop bounds (max_turns, max_cost_usd, max_wall_clock_s, max_depth, max_concurrent_subagents) are attributes of an agent_profile block.",
  dev_overrides:
    "dev_overrides belongs in the global config, $XDG_CONFIG_HOME/agent/config.hcl, not in agent.hcl.",
  registry_mirror:
    "registry_mirror belongs in the global config, $XDG_CONFIG_HOME/agent/config.hcl, not in agent.hcl.",
  model: "A model {} block belongs inside an agent_profile block.",
};

const FORGE_REGEXP =
  /^(github\.com\/[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+|gitlab\.com(\/[A-Za-z0-9_.-]+){2,})$/;
const BUILTIN_REGEXP = /^builtin\/[a-z][a-z0-9_-]*$/;

/**
 * Classifies a provider source: `builtin/<name>`, a local path (`./x`,
 * `../x` or absolute), or a forge address (`github.com/<owner>/<repo>`,
 * `gitlab.com/<group>/.../<project>`).
 *
 * @example Usage
 * ```ts
 * import { classifySource } from "./decode.ts";
 * import assert from "node:assert/strict";
 * assert.equal(classifySource("builtin/echo"), "builtin");
 * assert.equal(classifySource("./plugins/notes"), "path");
 * assert.equal(classifySource("github.com/acme/provider-fs"), "forge");
 * assert.equal(classifySource("https://github.com/acme/x"), undefined);
 * ```
 *
 * @param source The source as written.
 * @returns Its kind, or `undefined` when it is none of them.
 */
export function classifySource(source: string): SourceKind | undefined {
  if (BUILTIN_REGEXP.test(source)) return "builtin";
  if (/^(\.{1,2}\/|\/)/.test(source) || source === "." || source === "..") {
    return "path";
  }
  if (FORGE_REGEXP.test(source)) return "forge";
  return undefined;
}

function sourceProblem(source: string): string {
  const forms =
    'A source is "builtin/<name>" (a first-party plugin), a path to a plugin folder ("./plugins/<name>" or an absolute path), or a git-forge address ("github.com/<owner>/<repo>" or "gitlab.com/<group>/<project>").';
  const m = /^[a-z]+:\/\/(.*)$/.exec(source);
  if (m) {
    return `Drop the URL scheme: write ${
      JSON.stringify(m[1]!.replace(/\.git$/, ""))
    }. ${forms}`;
  }
  if (source.startsWith("builtin:")) {
    return `Did you mean ${
      JSON.stringify(`builtin/${source.slice(8)}`)
    }? ${forms}`;
  }
  if (/^(github|gitlab)\.com\//.test(source)) {
    return `${
      source.startsWith("github.com/")
        ? "A GitHub address has exactly two segments after the host, owner and repository."
        : "A GitLab address names a group and a project."
    } ${forms}`;
  }
  if (/^[\w.-]+\.[a-z]+\//.test(source)) {
    return `Only github.com and gitlab.com are supported forges. ${forms}`;
  }
  return forms;
}

/**
 * Decodes `agent.hcl`'s top-level body (stage A). Appends every problem to
 * `diagnostics` and returns what is valid.
 *
 * @example Usage
 * ```ts
 * import { decodeAgentConfig } from "./decode.ts";
 * import { parseHcl } from "./hcl/mod.ts";
 * import assert from "node:assert/strict";
 * const { body } = parseHcl('settings {\n  log_levle = "debug"\n}\n', "agent.hcl");
 * const diagnostics: import("../contract/diagnostic.ts").Diagnostic[] = [];
 * decodeAgentConfig(body, diagnostics);
 * assert.equal(diagnostics[0]?.detail, 'Did you mean "log_level"?');
 * ```
 *
 * @param body The parsed file.
 * @param diagnostics Receives the problems.
 * @returns The decoded configuration.
 */
export function decodeAgentConfig(
  body: Body,
  diagnostics: Diagnostic[],
): AgentConfig {
  const top = checkBody(
    body,
    {
      attributes: {},
      blocks: TOP_BLOCKS,
      unknownBlockHints: TOP_HINTS,
    },
    "agent.hcl",
    diagnostics,
  );
  const config: AgentConfig = {
    requiredProviders: [],
    declaredNames: new Set(),
    providerBlocks: new Map(),
    policies: [],
    profiles: [],
    agents: [],
    hooks: [],
    settings: defaultSettings(),
    state: DEFAULT_STATE,
  };
  const rp = top.blocks.get("required_providers")?.[0];
  if (rp !== undefined) decodeRequiredProviders(rp, config, diagnostics);
  const unknownProvider = (name: string, what: string, range: SourceRange) => {
    // The names as a list only for the message (40,000 providers).
    const declared = [...config.declaredNames];
    const hint = didYouMean(name, declared);
    diagnostics.push(diag(
      "error",
      E_UNKNOWN_PROVIDER,
      `Unknown provider "${name}"`,
      `${
        hint ? `Did you mean "${hint}"? ` : ""
      }${what} must name a provider declared in required_providers${
        declared.length === 0
          ? " (none is declared)"
          : ` (${declared.map((n) => `"${n}"`).join(", ")})`
      }.`,
      range,
    ));
  };

  for (const block of top.blocks.get("provider") ?? []) {
    const name = block.labels[0]!.value;
    if (!config.declaredNames.has(name)) {
      unknownProvider(name, "A provider block", block.labels[0]!.range);
      continue;
    }
    config.providerBlocks.set(name, decodeGrant(block, diagnostics));
  }

  for (const block of top.blocks.get("policy") ?? []) {
    const rule = decodePolicy(block, diagnostics);
    if (rule !== undefined) config.policies.push(rule);
  }
  for (const each of checkPolicies(config.policies)) diagnostics.push(each);

  for (const block of top.blocks.get("agent_profile") ?? []) {
    const profile = decodeProfile(
      block,
      config.declaredNames,
      unknownProvider,
      diagnostics,
    );
    if (profile !== undefined) config.profiles.push(profile);
  }

  for (const block of top.blocks.get("agent") ?? []) {
    const agent = decodeAgent(block, config.profiles, diagnostics);
    if (agent !== undefined) config.agents.push(agent);
  }

  for (const block of top.blocks.get("hook") ?? []) {
    const hook = decodeHook(
      block,
      config.declaredNames,
      unknownProvider,
      diagnostics,
    );
    if (hook !== undefined) config.hooks.push(hook);
  }

  const settings = top.blocks.get("settings")?.[0];
  if (settings !== undefined) {
    config.settings = decodeSettings(settings, diagnostics);
  }
  const state = top.blocks.get("state")?.[0];
  if (state !== undefined) {
    config.state = decodeState(state, diagnostics);
    config.stateDeclared = true;
  }
  return config;
}

function decodeRequiredProviders(
  block: Block,
  config: AgentConfig,
  diagnostics: Diagnostic[],
): void {
  // Thousands of providers repeat a few version strings: each valid one is
  // parsed and checked once.
  const constraints = new Map<string, ValidConstraint>();
  for (const item of block.body.items) {
    if (item.kind === "block") {
      diagnostics.push(diag(
        "error",
        E_UNKNOWN_BLOCK,
        `Unsupported block type "${item.type}"`,
        `Entries of required_providers are attributes: ${item.type} = { source = "...", version = "..." }.`,
        item.typeRange,
      ));
      continue;
    }
    config.declaredNames.add(item.name);
    const entry = decodeRequiredProvider(item, diagnostics, constraints);
    if (entry !== undefined) config.requiredProviders.push(entry);
  }
}

/** A version string that parsed without a problem and can be met. */
interface ValidConstraint {
  constraint: VersionConstraint;
  text: string;
}

function decodeRequiredProvider(
  attr: Attribute,
  diagnostics: Diagnostic[],
  constraints: Map<string, ValidConstraint>,
): RequiredProvider | undefined {
  const name = attr.name;
  const where = `required_providers`;
  const value = evalExpr(attr.expr, "object", name, where, diagnostics) as
    | ObjectValue
    | undefined;
  if (value === undefined) return undefined;
  const ranges = keyRanges(attr.expr);
  let ok = true;
  for (const key of Object.keys(value)) {
    if (key === "source" || key === "version") continue;
    ok = false;
    const hint = didYouMean(key, ["source", "version"]);
    diagnostics.push(diag(
      "error",
      E_UNKNOWN_ATTR,
      `Unsupported key "${key}" in required provider "${name}"`,
      `${
        hint ? `Did you mean "${hint}"? ` : ""
      }An entry has exactly two keys, "source" and "version".`,
      ranges[key] ?? attr.expr.range,
    ));
  }
  const field = (key: "source" | "version"): string | undefined => {
    const v = value[key];
    if (v === undefined || v === null) {
      diagnostics.push(diag(
        "error",
        E_MISSING_FIELD,
        `Missing ${key} for provider "${name}"`,
        `Each required_providers entry needs both "source" and "version", as in ${name} = { source = "github.com/<owner>/<repo>", version = "~> 1.0" }.`,
        attr.expr.range,
      ));
      return undefined;
    }
    if (typeof v !== "string") {
      diagnostics.push(diag(
        "error",
        "E_INVALID_VALUE",
        `Wrong type for "${key}"`,
        `The ${key} of required provider "${name}" must be a string, but got ${
          describeType(v)
        }.`,
        ranges[key] ?? attr.expr.range,
      ));
      return undefined;
    }
    return v;
  };
  const source = field("source");
  const version = field("version");
  const sourceRange = ranges.source ?? attr.expr.range;
  const versionRange = ranges.version ?? attr.expr.range;
  let kind: SourceKind | undefined;
  if (source !== undefined) {
    kind = classifySource(source);
    if (kind === undefined) {
      diagnostics.push(diag(
        "error",
        E_INVALID_SOURCE,
        `Invalid source for provider "${name}"`,
        sourceProblem(source),
        sourceRange,
      ));
    }
  }
  let constraint: VersionConstraint | undefined;
  let constraintText: string | undefined;
  const known = version === undefined ? undefined : constraints.get(version);
  if (known !== undefined) {
    constraint = known.constraint;
    constraintText = known.text;
  } else if (version !== undefined) {
    const r = parseVersionConstraint(version, versionRange);
    for (const each of r.diagnostics) diagnostics.push(each);
    constraint = r.constraint;
    if (constraint !== undefined && !isSatisfiable(constraint)) {
      diagnostics.push(diag(
        "error",
        E_CONSTRAINT_UNSATISFIABLE,
        `Unsatisfiable version constraint for provider "${name}"`,
        `No version can satisfy ${
          JSON.stringify(version)
        }: its conditions exclude each other.`,
        versionRange,
      ));
      constraint = undefined;
    }
    if (constraint !== undefined) {
      constraintText = formatVersionConstraint(constraint);
      constraints.set(version, { constraint, text: constraintText });
    }
  }
  if (
    !ok || source === undefined || kind === undefined ||
    constraint === undefined || constraintText === undefined
  ) {
    return undefined;
  }
  return {
    name,
    source,
    sourceKind: kind,
    constraint,
    constraintText,
    range: attr.range,
    sourceRange,
    versionRange,
  };
}

function decodeGrant(block: Block, diagnostics: Diagnostic[]): ProviderBlock {
  const name = block.labels[0]!.value;
  const grant: PermissionGrant = {};
  const grantRanges: ProviderBlock["grantRanges"] = {};
  const grantItems: ProviderBlock["grantItems"] = {};
  let subscribe: string[] = [];
  let subscribeRange: SourceRange | undefined;
  let inject: boolean | undefined;
  let injectRange: SourceRange | undefined;
  for (const attr of block.body.attributes) {
    if (!GRANT_ATTRIBUTES.includes(attr.name)) continue;
    if (attr.name === INJECT_ATTRIBUTE) {
      const v = evalAttr(attr, "bool", `provider "${name}"`, diagnostics);
      if (typeof v === "boolean") {
        inject = v;
        injectRange = attr.range;
      }
      continue;
    }
    if (attr.name === SUBSCRIBE_ATTRIBUTE) {
      const v = evalAttr(
        attr,
        "list(string)",
        `provider "${name}"`,
        diagnostics,
      );
      if (v === undefined) continue;
      const list = v as string[];
      const items = itemRanges(attr.expr);
      let ok = true;
      for (const [i, entry] of list.entries()) {
        const { problem } = parseSubscribeGrant(entry);
        if (problem === undefined) continue;
        ok = false;
        diagnostics.push(diag(
          "error",
          "E_INVALID_VALUE",
          `Invalid entry in "${SUBSCRIBE_ATTRIBUTE}"`,
          `Entry ${
            i + 1
          } of "${SUBSCRIBE_ATTRIBUTE}" in provider "${name}" is ${
            JSON.stringify(entry)
          }: ${problem}.`,
          items[i] ?? attr.expr.range,
        ));
      }
      if (!ok) continue;
      subscribe = [...new Set(list)];
      subscribeRange = attr.range;
      continue;
    }
    const kind = attr.name.slice("allow_".length) as keyof PermissionGrant;
    const v = evalAttr(attr, "list(string)", `provider "${name}"`, diagnostics);
    if (v === undefined) continue;
    const list = v as string[];
    const bad = list.findIndex((x) => x === "" || x.includes(","));
    if (bad >= 0) {
      diagnostics.push(diag(
        "error",
        "E_INVALID_VALUE",
        `Invalid entry in "${attr.name}"`,
        `Entry ${bad + 1} of "${attr.name}" in provider "${name}" is ${
          list[bad] === "" ? "empty" : "written with a comma"
        }; each entry grants one ${kind} permission.`,
        itemRanges(attr.expr)[bad] ?? attr.expr.range,
      ));
      continue;
    }
    grant[kind] = list;
    grantRanges[kind] = attr.range;
    grantItems[kind] = itemRanges(attr.expr);
  }
  const out: ProviderBlock = {
    name,
    block,
    grant,
    grantRanges,
    grantItems,
    subscribe,
  };
  if (subscribeRange) out.subscribeRange = subscribeRange;
  if (inject !== undefined) out.inject = inject;
  if (injectRange) out.injectRange = injectRange;
  return out;
}

const POLICY_SCHEMA: BodySchema = {
  attributes: {
    match: { type: "object", required: true },
    action: { type: "string", required: true },
  },
  blocks: {},
};

function decodePolicy(
  block: Block,
  diagnostics: Diagnostic[],
): PolicyRule | undefined {
  const name = block.labels[0]!.value;
  const where = `policy "${name}"`;
  const header = headerRange(block);
  const { attrs } = checkBody(
    block.body,
    POLICY_SCHEMA,
    where,
    diagnostics,
    header,
  );
  const match = attrs.get("match");
  const action = attrs.get("action");
  if (match === undefined || action === undefined) return undefined;
  const m = evalExpr(match.expr, "any", "match", where, diagnostics);
  const a = evalExpr(action.expr, "any", "action", where, diagnostics);
  if (m === undefined || a === undefined) return undefined;
  const r = normalizePolicy(name, { match: m, action: a }, {
    block: header,
    match: match.expr.range,
    action: action.expr.range,
    matchKeys: keyRanges(match.expr),
  });
  for (const each of r.diagnostics) diagnostics.push(each);
  return r.rule;
}
