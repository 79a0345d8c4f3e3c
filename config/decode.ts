/**
 * Stage A of the compiler (config.md §4.1): `agent.hcl`'s closed schemas
 * for `required_providers`, `provider` (labels and grants only; bodies are
 * decoded against the plugin's schema later), `policy`, `agent_profile`,
 * `hook` and `settings`. Unknown blocks and attributes get a "did you mean";
 * a wrong type names the expected and the actual type; every problem is
 * reported, not only the first.
 *
 * @module
 */

import type { Diagnostic, SourceRange } from "../contract/diagnostic.ts";
import { didYouMean } from "../contract/diagnostic.ts";
import type { Attribute, Block, Body, ObjectValue, Value } from "./hcl/mod.ts";
import {
  E_CONSTRAINT_UNSATISFIABLE,
  E_INVALID_SOURCE,
  E_MISSING_FIELD,
  E_UNKNOWN_ATTR,
  E_UNKNOWN_BLOCK,
  E_UNKNOWN_PROVIDER,
} from "./codes.ts";
import {
  checkPolicies,
  normalizePolicy,
  type PolicyRule,
} from "../contract/policy.ts";
import {
  type GenerationSettings,
  type ModelRef,
  type ModelRouting,
  parseToolScope,
  type ProfileBounds,
  validateBounds,
} from "./profiles.ts";
import {
  formatVersionConstraint,
  isSatisfiable,
  parseVersionConstraint,
  type VersionConstraint,
} from "./version_constraint.ts";
import {
  DEFAULT_OBSERVABILITY,
  DEFAULT_RETRY,
  DEFAULT_SUBSCRIBE_QUEUE_BOUND,
  HOOK_MODES,
  HOOK_POINTS,
  type HookMode,
  type HookPoint,
  LOG_LEVELS,
  type LogLevel,
  type ObservabilitySettings,
  type PlanHook,
  type PlanProfile,
  type Settings,
  type SourceKind,
} from "./plan.ts";
import { GRANT_ATTRIBUTES, SUBSCRIBE_ATTRIBUTE } from "./provider_schema.ts";
import { parseSubscribeGrant } from "../contract/subscribe_grant.ts";
import {
  checkBody,
  checkEnum,
  describeType,
  diag,
  evalAttr,
  evalExpr,
  headerRange,
  itemRanges,
  keyRanges,
} from "./_schema.ts";
import type { PermissionGrant } from "../contract/permissions.ts";

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
  /** Hooks in declaration order. */
  hooks: PlanHook[];
  /** Settings, fully defaulted. */
  settings: Settings;
}

const TOP_BLOCKS = {
  required_providers: { labels: [], unique: "type" },
  provider: { labels: ["local name"], unique: "label" },
  policy: { labels: ["name"] },
  agent_profile: { labels: ["name"], unique: "label" },
  hook: { labels: ["hook point"] },
  settings: { labels: [], unique: "type" },
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
    hooks: [],
    settings: defaultSettings(),
  };
  const rp = top.blocks.get("required_providers")?.[0];
  if (rp !== undefined) decodeRequiredProviders(rp, config, diagnostics);
  const declared = [...config.declaredNames];
  const unknownProvider = (name: string, what: string, range: SourceRange) => {
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
  diagnostics.push(...checkPolicies(config.policies));

  for (const block of top.blocks.get("agent_profile") ?? []) {
    const profile = decodeProfile(block, config, unknownProvider, diagnostics);
    if (profile !== undefined) config.profiles.push(profile);
  }

  for (const block of top.blocks.get("hook") ?? []) {
    const hook = decodeHook(block, config, unknownProvider, diagnostics);
    if (hook !== undefined) config.hooks.push(hook);
  }

  const settings = top.blocks.get("settings")?.[0];
  if (settings !== undefined) {
    config.settings = decodeSettings(settings, diagnostics);
  }
  return config;
}

function decodeRequiredProviders(
  block: Block,
  config: AgentConfig,
  diagnostics: Diagnostic[],
): void {
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
    const entry = decodeRequiredProvider(item, diagnostics);
    if (entry !== undefined) config.requiredProviders.push(entry);
  }
}

function decodeRequiredProvider(
  attr: Attribute,
  diagnostics: Diagnostic[],
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
  if (version !== undefined) {
    const r = parseVersionConstraint(version, versionRange);
    diagnostics.push(...r.diagnostics);
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
  }
  if (
    !ok || source === undefined || kind === undefined ||
    constraint === undefined
  ) {
    return undefined;
  }
  return {
    name,
    source,
    sourceKind: kind,
    constraint,
    constraintText: formatVersionConstraint(constraint),
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
  for (const attr of block.body.attributes) {
    if (!GRANT_ATTRIBUTES.includes(attr.name)) continue;
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
  return {
    name,
    block,
    grant,
    grantRanges,
    grantItems,
    subscribe,
    ...(subscribeRange ? { subscribeRange } : {}),
  };
}

function decodePolicy(
  block: Block,
  diagnostics: Diagnostic[],
): PolicyRule | undefined {
  const name = block.labels[0]!.value;
  const where = `policy "${name}"`;
  const { attrs } = checkBody(
    block.body,
    {
      attributes: {
        match: { type: "object", required: true },
        action: { type: "string", required: true },
      },
      blocks: {},
    },
    where,
    diagnostics,
    headerRange(block),
  );
  const match = attrs.get("match");
  const action = attrs.get("action");
  if (match === undefined || action === undefined) return undefined;
  const m = evalExpr(match.expr, "any", "match", where, diagnostics);
  const a = evalExpr(action.expr, "any", "action", where, diagnostics);
  if (m === undefined || a === undefined) return undefined;
  const r = normalizePolicy(name, { match: m, action: a }, {
    block: headerRange(block),
    match: match.expr.range,
    action: action.expr.range,
    matchKeys: keyRanges(match.expr),
  });
  diagnostics.push(...r.diagnostics);
  return r.rule;
}

const PROFILE_SCHEMA = {
  attributes: {
    tools: { type: "list(string)" },
    slash_commands: { type: "list(string)" },
    max_turns: { type: "number" },
    max_cost_usd: { type: "number" },
    max_wall_clock_s: { type: "number" },
    max_depth: { type: "number" },
    max_concurrent_subagents: { type: "number" },
    doom_loop_threshold: { type: "number" },
  },
  blocks: {
    model: { labels: [], unique: "type" },
    generation: { labels: [], unique: "type" },
  },
} as const;

const BOUND_OF: Readonly<Record<string, keyof ProfileBounds>> = {
  max_turns: "maxTurns",
  max_cost_usd: "maxCostUsd",
  max_wall_clock_s: "maxWallClockS",
  max_depth: "maxDepth",
  max_concurrent_subagents: "maxConcurrentSubagents",
  doom_loop_threshold: "doomLoopThreshold",
};

function decodeProfile(
  block: Block,
  config: AgentConfig,
  unknownProvider: (name: string, what: string, range: SourceRange) => void,
  diagnostics: Diagnostic[],
): PlanProfile | undefined {
  const name = block.labels[0]!.value;
  const where = `agent_profile "${name}"`;
  const { attrs, blocks } = checkBody(
    block.body,
    PROFILE_SCHEMA,
    where,
    diagnostics,
    headerRange(block),
  );
  let model: ModelRouting | undefined;
  const modelBlock = blocks.get("model")?.[0];
  if (modelBlock !== undefined) {
    const mb = checkBody(
      modelBlock.body,
      {
        attributes: {},
        blocks: {
          primary: { labels: [], unique: "type" },
          fallback: { labels: [] },
        },
      },
      `the model block of ${where}`,
      diagnostics,
      headerRange(modelBlock),
    );
    const ref = (b: Block): ModelRef | undefined => {
      const rb = checkBody(
        b.body,
        {
          attributes: {
            provider: { type: "string", required: true },
            id: { type: "string", required: true },
          },
          blocks: {},
        },
        `${b.type} of ${where}`,
        diagnostics,
        headerRange(b),
      );
      const p = rb.attrs.get("provider");
      const i = rb.attrs.get("id");
      const pv = p
        ? evalAttr(p, "string", `${b.type} of ${where}`, diagnostics)
        : undefined;
      const iv = i
        ? evalAttr(i, "string", `${b.type} of ${where}`, diagnostics)
        : undefined;
      if (typeof pv !== "string" || typeof iv !== "string") return undefined;
      if (!config.declaredNames.has(pv)) {
        unknownProvider(pv, `A model's provider`, p!.expr.range);
        return undefined;
      }
      return { provider: pv, id: iv, range: headerRange(b) };
    };
    const primaryBlock = mb.blocks.get("primary")?.[0];
    if (primaryBlock === undefined) {
      diagnostics.push(diag(
        "error",
        E_MISSING_FIELD,
        `Missing primary model in ${where}`,
        'A model block needs exactly one primary { provider = "...", id = "..." } block, then any fallback blocks in order of preference.',
        headerRange(modelBlock),
      ));
    }
    const primary = primaryBlock ? ref(primaryBlock) : undefined;
    const fallbacks = (mb.blocks.get("fallback") ?? []).map(ref);
    if (primary !== undefined && fallbacks.every((f) => f !== undefined)) {
      model = { primary, fallbacks: fallbacks as ModelRef[] };
    }
  }
  const list = (n: string): string[] | undefined => {
    const a = attrs.get(n);
    return a
      ? evalAttr(a, "list(string)", where, diagnostics) as string[] | undefined
      : undefined;
  };
  const toolsAttr = attrs.get("tools");
  const toolList = list("tools");
  const scope = parseToolScope(toolList, {
    ranges: toolsAttr ? itemRanges(toolsAttr.expr) : [],
    declaredProviders: config.declaredNames,
    profile: name,
  });
  diagnostics.push(...scope.diagnostics);
  const slash = list("slash_commands") ?? [];
  const bounds: ProfileBounds = {};
  const boundRanges: { [K in keyof ProfileBounds]?: SourceRange } = {};
  for (const [attrName, field] of Object.entries(BOUND_OF)) {
    const a = attrs.get(attrName);
    if (a === undefined) continue;
    const v = evalAttr(a, "number", where, diagnostics);
    if (typeof v === "number") {
      bounds[field] = v;
      boundRanges[field] = a.expr.range;
    }
  }
  diagnostics.push(
    ...validateBounds(bounds, { profile: name, ranges: boundRanges }),
  );
  const profile: PlanProfile = {
    name,
    tools: scope.entries,
    slashCommands: [...new Set(slash)],
    bounds,
    range: headerRange(block),
  };
  if (model !== undefined) profile.model = model;
  const genBlock = blocks.get("generation")?.[0];
  if (genBlock !== undefined) {
    const generation = decodeGeneration(genBlock, where, diagnostics);
    if (generation) profile.generation = generation;
  }
  return profile;
}

/**
 * `generation {}` in a profile: the request's generation parameters. Types
 * and ranges are checked here; each value is checked against the chosen
 * model's declared capabilities per turn.
 */
function decodeGeneration(
  block: Block,
  profile: string,
  diagnostics: Diagnostic[],
): GenerationSettings | undefined {
  const where = `the generation block of ${profile}`;
  const { attrs } = checkBody(
    block.body,
    {
      attributes: {
        thinking_effort: { type: "string" },
        thinking_budget_tokens: { type: "number" },
        max_output_tokens: { type: "number" },
        temperature: { type: "number" },
        stop_sequences: { type: "list(string)" },
      },
      blocks: {},
    },
    where,
    diagnostics,
    headerRange(block),
  );
  const out: GenerationSettings = {};
  let ok = true;
  const bad = (name: string, detail: string, range: SourceRange) => {
    ok = false;
    diagnostics.push(
      diag(
        "error",
        "E_INVALID_VALUE",
        `Invalid ${name} in ${where}`,
        detail,
        range,
      ),
    );
  };
  const effort = attrs.get("thinking_effort");
  if (effort) {
    const v = evalAttr(effort, "string", where, diagnostics);
    if (typeof v === "string") {
      if (v.trim() === "") {
        bad(
          "thinking_effort",
          'Expected an effort level such as "high", got an empty string.',
          effort.expr.range,
        );
      } else out.thinkingEffort = v;
    } else ok = false;
  }
  for (
    const [name, field, min] of [
      ["thinking_budget_tokens", "thinkingBudgetTokens", 0],
      ["max_output_tokens", "maxOutputTokens", 1],
    ] as const
  ) {
    const a = attrs.get(name);
    if (!a) continue;
    const v = evalAttr(a, "number", where, diagnostics);
    if (typeof v !== "number") {
      ok = false;
    } else if (!Number.isSafeInteger(v) || v < min) {
      bad(
        name,
        `Expected a whole number of tokens of at least ${min}, got ${v}.`,
        a.expr.range,
      );
    } else out[field] = v;
  }
  const t = attrs.get("temperature");
  if (t) {
    const v = evalAttr(t, "number", where, diagnostics);
    if (typeof v !== "number") ok = false;
    else if (!Number.isFinite(v) || v < 0) {
      bad(
        "temperature",
        `Expected a finite number of at least 0, got ${v}.`,
        t.expr.range,
      );
    } else out.temperature = v;
  }
  const stops = attrs.get("stop_sequences");
  if (stops) {
    const v = evalAttr(stops, "list(string)", where, diagnostics);
    if (Array.isArray(v)) out.stopSequences = v as string[];
    else ok = false;
  }
  return ok ? out : undefined;
}

function decodeHook(
  block: Block,
  config: AgentConfig,
  unknownProvider: (name: string, what: string, range: SourceRange) => void,
  diagnostics: Diagnostic[],
): PlanHook | undefined {
  const label = block.labels[0]!;
  const where = `hook "${label.value}"`;
  let ok = true;
  if (!(HOOK_POINTS as readonly string[]).includes(label.value)) {
    ok = false;
    const hint = didYouMean(label.value, HOOK_POINTS);
    diagnostics.push(diag(
      "error",
      "E_INVALID_VALUE",
      `Unknown hook point "${label.value}"`,
      label.value === "context-assemble"
        ? "context-assemble is not dispatched through hooks: context providers contribute there by their category, with no hook block."
        : `${hint ? `Did you mean "${hint}"? ` : ""}A hook block names one of ${
          HOOK_POINTS.map((p) => `"${p}"`).join(", ")
        }.`,
      label.range,
    ));
  }
  const { attrs } = checkBody(
    block.body,
    {
      attributes: {
        provider: { type: "string", required: true },
        mode: { type: "string", required: true },
        timeout_ms: { type: "number" },
      },
      blocks: {},
    },
    where,
    diagnostics,
    headerRange(block),
  );
  const p = attrs.get("provider");
  const m = attrs.get("mode");
  const t = attrs.get("timeout_ms");
  const timeoutMs = t ? evalAttr(t, "number", where, diagnostics) : undefined;
  if (
    t && typeof timeoutMs === "number" &&
    !(Number.isSafeInteger(timeoutMs) && timeoutMs > 0)
  ) {
    ok = false;
    diagnostics.push(diag(
      "error",
      "E_INVALID_VALUE",
      `Invalid timeout_ms in ${where}`,
      `Expected a whole number of milliseconds above 0, got ${timeoutMs}.`,
      t.expr.range,
    ));
  }
  const provider = p ? evalAttr(p, "string", where, diagnostics) : undefined;
  const mode = m ? evalAttr(m, "string", where, diagnostics) : undefined;
  if (typeof provider === "string" && !config.declaredNames.has(provider)) {
    ok = false;
    unknownProvider(provider, "A hook's provider", p!.expr.range);
  }
  if (
    typeof mode === "string" &&
    !checkEnum(mode, HOOK_MODES, "mode", where, m!.expr.range, diagnostics)
  ) ok = false;
  if (!ok || typeof provider !== "string" || typeof mode !== "string") {
    return undefined;
  }
  return {
    point: label.value as HookPoint,
    provider,
    mode: mode as HookMode,
    ...(typeof timeoutMs === "number" ? { timeoutMs } : {}),
    position: block.range.start.byte,
    range: headerRange(block),
  };
}

/**
 * The settings used when `settings {}` or any of its blocks is absent.
 *
 * @returns Fresh defaults.
 */
export function defaultSettings(): Settings {
  return {
    logLevel: "info",
    telemetry: false,
    telemetryDeclared: false,
    retry: { ...DEFAULT_RETRY },
    observability: { ...DEFAULT_OBSERVABILITY },
    observabilityDeclared: false,
    eventBus: { subscribeQueueBound: DEFAULT_SUBSCRIBE_QUEUE_BOUND },
  };
}

function decodeSettings(block: Block, diagnostics: Diagnostic[]): Settings {
  const s = defaultSettings();
  const { attrs, blocks } = checkBody(
    block.body,
    {
      attributes: {
        default_frontend: { type: "string" },
        log_level: { type: "string" },
        telemetry: { type: "bool" },
      },
      blocks: {
        retry: { labels: [], unique: "type" },
        observability: { labels: [], unique: "type" },
        event_bus: { labels: [], unique: "type" },
      },
    },
    "settings",
    diagnostics,
    headerRange(block),
  );
  const get = (n: string, t: "string" | "bool"): Value | undefined => {
    const a = attrs.get(n);
    return a ? evalAttr(a, t, "settings", diagnostics) : undefined;
  };
  const frontend = get("default_frontend", "string");
  if (typeof frontend === "string") s.defaultFrontend = frontend;
  const level = get("log_level", "string");
  if (
    typeof level === "string" &&
    checkEnum(
      level,
      LOG_LEVELS,
      "log_level",
      "settings",
      attrs.get("log_level")!.expr.range,
      diagnostics,
    )
  ) s.logLevel = level as LogLevel;
  const telemetry = get("telemetry", "bool");

  const retry = blocks.get("retry")?.[0];
  if (retry !== undefined) {
    const r = numbersBlock(retry, "retry in settings", {
      base_delay_ms: { whole: true, min: 0 },
      backoff_factor: { whole: false, min: 0, exclusive: true },
      max_retries: { whole: true, min: 0 },
    }, diagnostics);
    if (r !== undefined) {
      s.retry = {
        baseDelayMs: r.base_delay_ms!,
        backoffFactor: r.backoff_factor!,
        maxRetries: r.max_retries!,
      };
    }
  }

  const obs = blocks.get("observability")?.[0];
  if (obs !== undefined) {
    s.observabilityDeclared = true;
    const o = decodeObservability(obs, diagnostics);
    if (o !== undefined) s.observability = o;
  }

  const bus = blocks.get("event_bus")?.[0];
  if (bus !== undefined) {
    const b = numbersBlock(bus, "event_bus in settings", {
      subscribe_queue_bound: { whole: true, min: 1, optional: true },
    }, diagnostics);
    if (b?.subscribe_queue_bound !== undefined) {
      s.eventBus.subscribeQueueBound = b.subscribe_queue_bound;
    }
  }
  if (typeof telemetry === "boolean") {
    s.telemetry = telemetry;
    s.telemetryDeclared = true;
  } else {
    s.telemetry = s.observabilityDeclared;
  }
  if (s.telemetry && s.observability.serviceName === "") {
    diagnostics.push(diag(
      "error",
      "E_INVALID_VALUE",
      'Empty "service_name"',
      "With telemetry on, observability.service_name must not be empty.",
      attrs.get("telemetry")?.range ?? headerRange(block),
    ));
  }
  return s;
}

interface NumberRule {
  whole: boolean;
  min: number;
  max?: number;
  exclusive?: boolean;
  optional?: boolean;
}

function checkNumber(
  v: number,
  name: string,
  rule: NumberRule,
  where: string,
  range: SourceRange,
  diagnostics: Diagnostic[],
): boolean {
  let why: string | undefined;
  if (rule.whole && !Number.isInteger(v)) {
    why =
      `must be a whole number, got ${v} (fractions are not rounded or truncated)`;
  } else if (rule.exclusive ? !(v > rule.min) : !(v >= rule.min)) {
    why = `must be ${
      rule.exclusive ? "greater than" : "at least"
    } ${rule.min}, got ${v}`;
  } else if (rule.max !== undefined && v > rule.max) {
    why = `must be at most ${rule.max}, got ${v}`;
  }
  if (why === undefined) return true;
  diagnostics.push(diag(
    "error",
    "E_INVALID_VALUE",
    `Invalid value for "${name}"`,
    `The attribute "${name}" of ${where} ${why}.`,
    range,
  ));
  return false;
}

function numbersBlock<K extends string>(
  block: Block,
  where: string,
  rules: Record<K, NumberRule>,
  diagnostics: Diagnostic[],
): Partial<Record<K, number>> | undefined {
  const attributes: Record<string, { type: "number"; required: boolean }> = {};
  for (const [k, r] of Object.entries(rules) as [K, NumberRule][]) {
    attributes[k] = { type: "number", required: !r.optional };
  }
  const before = diagnostics.length;
  const { attrs } = checkBody(
    block.body,
    { attributes, blocks: {} },
    where,
    diagnostics,
    headerRange(block),
  );
  const out: Partial<Record<K, number>> = {};
  for (const [k, r] of Object.entries(rules) as [K, NumberRule][]) {
    const a = attrs.get(k);
    if (a === undefined) continue;
    const v = evalAttr(a, "number", where, diagnostics);
    if (
      typeof v === "number" &&
      checkNumber(v, k, r, where, a.expr.range, diagnostics)
    ) {
      out[k] = v;
    }
  }
  return diagnostics.length > before ? undefined : out;
}

function decodeObservability(
  block: Block,
  diagnostics: Diagnostic[],
): ObservabilitySettings | undefined {
  const where = "observability in settings";
  const before = diagnostics.length;
  const { attrs } = checkBody(
    block.body,
    {
      attributes: {
        endpoint: { type: "string", required: true },
        protocol: { type: "string", required: true },
        sampling_ratio: { type: "number", required: true },
        traces_enabled: { type: "bool", required: true },
        metrics_enabled: { type: "bool", required: true },
        logs_enabled: { type: "bool", required: true },
        export_interval_ms: { type: "number", required: true },
        service_name: { type: "string", required: true },
        resource_attrs: { type: "map(string)" },
      },
      blocks: {},
    },
    where,
    diagnostics,
    headerRange(block),
  );
  const v = (n: string, t: "string" | "number" | "bool" | "map(string)") => {
    const a = attrs.get(n);
    return a ? evalAttr(a, t, where, diagnostics) : undefined;
  };
  const protocol = v("protocol", "string");
  if (typeof protocol === "string") {
    checkEnum(
      protocol,
      ["grpc", "http"],
      "protocol",
      where,
      attrs.get("protocol")!.expr.range,
      diagnostics,
    );
  }
  const ratio = v("sampling_ratio", "number");
  if (typeof ratio === "number") {
    checkNumber(
      ratio,
      "sampling_ratio",
      { whole: false, min: 0, max: 1 },
      where,
      attrs.get("sampling_ratio")!.expr.range,
      diagnostics,
    );
  }
  const interval = v("export_interval_ms", "number");
  if (typeof interval === "number") {
    checkNumber(
      interval,
      "export_interval_ms",
      { whole: true, min: 0 },
      where,
      attrs.get("export_interval_ms")!.expr.range,
      diagnostics,
    );
  }
  const o = {
    endpoint: v("endpoint", "string"),
    traces: v("traces_enabled", "bool"),
    metrics: v("metrics_enabled", "bool"),
    logs: v("logs_enabled", "bool"),
    service: v("service_name", "string"),
    attrs: v("resource_attrs", "map(string)"),
  };
  if (diagnostics.length > before) return undefined;
  const out: ObservabilitySettings = {
    endpoint: o.endpoint as string,
    protocol: protocol as "grpc" | "http",
    samplingRatio: ratio as number,
    tracesEnabled: o.traces as boolean,
    metricsEnabled: o.metrics as boolean,
    logsEnabled: o.logs as boolean,
    exportIntervalMs: interval as number,
    serviceName: o.service as string,
  };
  if (o.attrs !== undefined) {
    const sorted: Record<string, string> = {};
    for (const k of Object.keys(o.attrs as ObjectValue).sort()) {
      sorted[k] = (o.attrs as Record<string, string>)[k]!;
    }
    out.resourceAttrs = sorted;
  }
  return out;
}
