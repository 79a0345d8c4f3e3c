/**
 * Agent profiles and routing (config.md §7), as pure functions: which
 * profile the root session uses, tool scoping (`"<provider>.<tool>"` and
 * `"<provider>.*"`), the `slash_commands` allow-list, model routing along
 * the `primary` / `fallback` chain, the depth and cost budgets that shrink
 * down the session tree, validation of the loop bounds, and the order of
 * hook subscribers.
 *
 * The block decoder calls {@linkcode parseToolScope} and
 * {@linkcode validateBounds} at load time; the kernel calls the rest once
 * plugins are running and per turn.
 *
 * @example Scope tools and pick a model
 * ```ts
 * import { chooseModel, resolveToolScope } from "./profiles.ts";
 * import assert from "node:assert/strict";
 *
 * const loaded = new Map([["fs", ["read_file", "write_file"]], ["grep", ["search"]]]);
 * const { tools, diagnostics } = resolveToolScope(["fs.*", "grep.search", "web.fetch"], loaded);
 * assert.deepEqual(tools, ["fs.read_file", "fs.write_file", "grep.search"]); // web is not loaded
 * assert.deepEqual(diagnostics, []);
 *
 * const models = new Map([["claude", [
 *   { id: "large", contextWindow: 200_000, supportsToolUse: true, supportsVision: true },
 *   { id: "small", contextWindow: 32_000, supportsToolUse: true, supportsVision: false },
 * ]]]);
 * const chain = { primary: { provider: "claude", id: "small" }, fallbacks: [{ provider: "claude", id: "large" }] };
 * const choice = chooseModel(chain, models, { vision: true });
 * assert.ok(choice.ok);
 * assert.equal(choice.model.id, "large"); // "small" has no vision
 * ```
 *
 * @module
 */
import {
  type Diagnostic,
  didYouMean,
  type SourceRange,
} from "../contract/diagnostic.ts";

// ---------------------------------------------------------------------------
// Root profile (§7.1)

/** The profile the root session uses unless the CLI names another. */
export const DEFAULT_PROFILE_NAME: string = "default";

/** What {@linkcode selectRootProfile} returns. */
export interface RootProfileSelection<T> {
  /** The profile name the root session runs under. */
  name: string;
  /**
   * The declared profile, or `undefined` when `default` is not declared:
   * the kernel's built-in defaults then apply to every field.
   */
  profile: T | undefined;
  /** An error when the requested profile is not declared. */
  diagnostics: Diagnostic[];
}

/**
 * Picks the root session's profile: the one the CLI asked for, else the one
 * named `default`. A missing `default` is not an error (built-in defaults
 * apply); a profile the CLI asked for by name must exist
 * (`E_UNKNOWN_PROFILE`, with a suggestion).
 *
 * @example Usage
 * ```ts
 * import { selectRootProfile } from "./profiles.ts";
 * import assert from "node:assert/strict";
 *
 * const profiles = new Map([["default", { maxTurns: 120 }], ["auditor", { maxTurns: 25 }]]);
 * assert.equal(selectRootProfile(profiles).profile?.maxTurns, 120);
 * assert.equal(selectRootProfile(profiles, "auditor").name, "auditor");
 * assert.equal(selectRootProfile(new Map()).profile, undefined);
 * ```
 *
 * @param profiles The declared profiles by name.
 * @param requested The name given on the command line, if any.
 * @returns The name, the profile (if declared) and any error.
 */
export function selectRootProfile<T>(
  profiles: ReadonlyMap<string, T>,
  requested?: string,
): RootProfileSelection<T> {
  const name = requested ?? DEFAULT_PROFILE_NAME;
  const profile = profiles.get(name);
  if (profile !== undefined || requested === undefined) {
    return { name, profile, diagnostics: [] };
  }
  const names = [...profiles.keys()];
  const hint = didYouMean(name, names);
  return {
    name,
    profile: undefined,
    diagnostics: [diag(
      "error",
      "E_UNKNOWN_PROFILE",
      `Unknown agent profile "${name}"`,
      `${hint ? `Did you mean "${hint}"? ` : ""}${
        names.length === 0
          ? "No agent_profile block is declared."
          : `Declared profiles: ${names.map((n) => `"${n}"`).join(", ")}.`
      }`,
      undefined,
    )],
  };
}

// ---------------------------------------------------------------------------
// Tool scoping (§7.3)

/** One parsed `tools` entry. */
export interface ToolScopeEntry {
  /** The entry as written. */
  text: string;
  /** The provider local name (before the first dot). */
  provider: string;
  /** The tool name (after the first dot; may contain dots), or `*`. */
  tool: string;
  /** `true` for `"<provider>.*"`: every tool the provider advertises. */
  wildcard: boolean;
  /** Where the entry is written. */
  range?: SourceRange;
}

/** What {@linkcode parseToolScopeEntry} returns. */
export type ParseToolScopeEntryResult =
  | { entry: ToolScopeEntry; diagnostics: [] }
  | { entry: undefined; diagnostics: Diagnostic[] };

/** Options for {@linkcode parseToolScope}. */
export interface ParseToolScopeOptions {
  /**
   * The source range of each entry, by index.
   * @default {[]}
   */
  ranges?: readonly (SourceRange | undefined)[];
  /**
   * The local names declared in `required_providers`. When given, an entry
   * naming any other provider is an error (`E_UNKNOWN_PROVIDER`): it could
   * never be loaded, so it would silently grant nothing.
   * @default {undefined}
   */
  declaredProviders?: Iterable<string>;
  /**
   * The profile's name, for messages.
   * @default {undefined}
   */
  profile?: string;
}

// A provider local name is an HCL identifier.
const PROVIDER_NAME_REGEXP = /^[\p{L}_][\p{L}\p{N}_-]*$/u;

/**
 * Parses one `tools` entry: `"<provider>.<tool>"` or `"<provider>.*"`,
 * split at the first dot. Only a tool half of exactly `*` is a wildcard
 * (`"fs.read_*"` names a tool literally). An entry without a dot, with an
 * empty half, or whose provider half is not a valid local name (such as
 * `"*.read"`) is malformed (`E_TOOL_SCOPE_MALFORMED`).
 *
 * @example Usage
 * ```ts
 * import { parseToolScopeEntry } from "./profiles.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(parseToolScopeEntry("mcp.github.create_issue").entry, {
 *   text: "mcp.github.create_issue", provider: "mcp", tool: "github.create_issue", wildcard: false,
 * });
 * assert.equal(parseToolScopeEntry("fs.").diagnostics[0]?.code, "E_TOOL_SCOPE_MALFORMED");
 * ```
 *
 * @param text The entry as written.
 * @param range Where it is written.
 * @returns The entry, or `undefined` with an error.
 */
export function parseToolScopeEntry(
  text: string,
  range?: SourceRange,
): ParseToolScopeEntryResult {
  const malformed = (why: string): ParseToolScopeEntryResult => ({
    entry: undefined,
    diagnostics: [diag(
      "error",
      "E_TOOL_SCOPE_MALFORMED",
      `Malformed tool scope entry ${JSON.stringify(text)}`,
      `${why} Write "<provider>.<tool>" for one tool or "<provider>.*" for all of a provider's tools, as in "fs.read_file" or "fs.*".`,
      range,
    )],
  });
  if (typeof text !== "string") {
    throw new TypeError(
      `Cannot parse tool scope entry: expected a string, got ${typeof text}`,
    );
  }
  const dot = text.indexOf(".");
  if (dot < 0) return malformed("The entry has no dot.");
  const provider = text.slice(0, dot);
  const tool = text.slice(dot + 1);
  if (provider === "") return malformed("The provider half is empty.");
  if (tool === "") return malformed("The tool half is empty.");
  if (!PROVIDER_NAME_REGEXP.test(provider)) {
    return malformed(
      provider.includes("*")
        ? "Wildcards are only allowed as the whole tool half; a provider must be named."
        : `The provider half ${
          JSON.stringify(provider)
        } is not a valid local name.`,
    );
  }
  const entry: ToolScopeEntry = {
    text,
    provider,
    tool,
    wildcard: tool === "*",
  };
  if (range !== undefined) entry.range = range;
  return { entry, diagnostics: [] };
}

/**
 * Parses a profile's `tools` list at load time: every entry through
 * {@linkcode parseToolScopeEntry}, and, when the declared providers are
 * given, a check that each entry names one of them. Reports every problem.
 * An omitted list is an empty one: a profile never inherits tools.
 *
 * @example Usage
 * ```ts
 * import { parseToolScope } from "./profiles.ts";
 * import assert from "node:assert/strict";
 *
 * const { entries, diagnostics } = parseToolScope(["fs.*", "grepp.search"], {
 *   declaredProviders: ["fs", "grep"],
 * });
 * assert.equal(entries.length, 1);
 * assert.equal(diagnostics[0]?.code, "E_UNKNOWN_PROVIDER");
 * assert.match(diagnostics[0]?.detail ?? "", /Did you mean "grep"\?/);
 * ```
 *
 * @param list The `tools` attribute's value, or `undefined` when omitted.
 * @param options Ranges, declared providers and the profile's name.
 * @returns The valid entries and the diagnostics for the others.
 */
export function parseToolScope(
  list: readonly string[] | undefined,
  options: ParseToolScopeOptions = {},
): { entries: ToolScopeEntry[]; diagnostics: Diagnostic[] } {
  const entries: ToolScopeEntry[] = [];
  const diagnostics: Diagnostic[] = [];
  const declared = options.declaredProviders === undefined
    ? undefined
    : [...options.declaredProviders];
  for (const [i, text] of (list ?? []).entries()) {
    const r = parseToolScopeEntry(text, options.ranges?.[i]);
    if (r.entry === undefined) {
      diagnostics.push(...r.diagnostics);
      continue;
    }
    if (declared !== undefined && !declared.includes(r.entry.provider)) {
      const hint = didYouMean(r.entry.provider, declared);
      const where = options.profile === undefined
        ? "A profile's tools"
        : `The tools of profile "${options.profile}"`;
      diagnostics.push(diag(
        "error",
        "E_UNKNOWN_PROVIDER",
        `Unknown provider "${r.entry.provider}" in tool scope entry ${
          JSON.stringify(text)
        }`,
        `${
          hint ? `Did you mean "${hint}"? ` : ""
        }${where} may only name providers declared in required_providers.`,
        r.entry.range,
      ));
      continue;
    }
    entries.push(r.entry);
  }
  return { entries, diagnostics };
}

/** What {@linkcode resolveToolScope} returns. */
export interface ResolvedToolScope {
  /**
   * The tools in scope as `"<provider>.<tool>"`, without duplicates, in the
   * order of the entries (a wildcard in the provider's advertised order).
   */
  tools: string[];
  /** The same tools grouped by provider, providers in first-seen order. */
  byProvider: Map<string, string[]>;
  /** `E_TOOL_SCOPE_MALFORMED` and `E_TOOL_UNKNOWN` errors. */
  diagnostics: Diagnostic[];
}

/**
 * Resolves a profile's `tools` against the providers loaded this session
 * (config.md §7.3): an entry for a provider that is not loaded contributes
 * nothing, silently; a wildcard brings every tool its provider advertises;
 * a concrete tool its (loaded) provider does not advertise is an error
 * (`E_TOOL_UNKNOWN`, typo protection, with a suggestion). An omitted or
 * empty list gives no tools. `direct_invoke` slash commands share this
 * namespace: pass them among the provider's advertised names.
 *
 * @example Usage
 * ```ts
 * import { resolveToolScope } from "./profiles.ts";
 * import assert from "node:assert/strict";
 *
 * const loaded = new Map([["fs", ["read_file", "write_file"]]]);
 * const r = resolveToolScope(["fs.read_fille"], loaded);
 * assert.equal(r.diagnostics[0]?.code, "E_TOOL_UNKNOWN");
 * assert.match(r.diagnostics[0]?.detail ?? "", /Did you mean "fs.read_file"\?/);
 * assert.deepEqual(resolveToolScope(undefined, loaded).tools, []);
 * ```
 *
 * @param entries The `tools` entries, as strings or already parsed.
 * @param loaded Each loaded provider's advertised operation names.
 * @returns The tools in scope and the diagnostics.
 */
export function resolveToolScope(
  entries: readonly (string | ToolScopeEntry)[] | undefined,
  loaded: ReadonlyMap<string, readonly string[]>,
): ResolvedToolScope {
  const byProvider = new Map<string, string[]>();
  const seen = new Set<string>();
  const tools: string[] = [];
  const diagnostics: Diagnostic[] = [];
  const add = (provider: string, tool: string) => {
    const name = `${provider}.${tool}`;
    if (seen.has(name)) return;
    seen.add(name);
    tools.push(name);
    const list = byProvider.get(provider);
    if (list === undefined) byProvider.set(provider, [tool]);
    else list.push(tool);
  };
  for (const raw of entries ?? []) {
    let entry: ToolScopeEntry;
    if (typeof raw === "string") {
      const r = parseToolScopeEntry(raw);
      if (r.entry === undefined) {
        diagnostics.push(...r.diagnostics);
        continue;
      }
      entry = r.entry;
    } else {
      entry = raw;
    }
    const advertised = loaded.get(entry.provider);
    if (advertised === undefined) continue; // not loaded: a silent no-op
    if (entry.wildcard) {
      for (const tool of advertised) add(entry.provider, tool);
      continue;
    }
    if (advertised.includes(entry.tool)) {
      add(entry.provider, entry.tool);
      continue;
    }
    const hint = didYouMean(entry.tool, advertised);
    const glob = entry.tool.includes("*")
      ? ' Only a tool half of exactly "*" is a wildcard; other "*" characters are literal.'
      : "";
    diagnostics.push(diag(
      "error",
      "E_TOOL_UNKNOWN",
      `Unknown tool ${JSON.stringify(entry.text)}`,
      `Provider "${entry.provider}" does not advertise a tool named ${
        JSON.stringify(entry.tool)
      }.${hint ? ` Did you mean "${entry.provider}.${hint}"?` : ""}${glob}${
        advertised.length === 0
          ? ` It advertises no tools.`
          : ` It advertises: ${listSome(advertised)}.`
      }`,
      entry.range,
    ));
  }
  return { tools, byProvider, diagnostics };
}

// Quotes up to ten names, then says how many more there are.
function listSome(names: readonly string[]): string {
  const shown = names.slice(0, 10).map((n) => `"${n}"`).join(", ");
  return names.length > 10 ? `${shown} and ${names.length - 10} more` : shown;
}

// ---------------------------------------------------------------------------
// slash_commands (§7.4)

/**
 * Applies a profile's `slash_commands` allow-list to the `prompt_expansion`
 * commands available this session. An omitted or empty list allows none.
 * A listed name that no loaded provider offers is not an error (its
 * provider may simply not be loaded, as with tools); it is returned in
 * `unknown` so that the caller can mention it.
 *
 * @example Usage
 * ```ts
 * import { resolveSlashCommands } from "./profiles.ts";
 * import assert from "node:assert/strict";
 *
 * const r = resolveSlashCommands(["summarize", "deploy"], ["reset", "summarize"]);
 * assert.deepEqual(r, { commands: ["summarize"], unknown: ["deploy"] });
 * ```
 *
 * @param allowList The `slash_commands` value, or `undefined` when omitted.
 * @param available The `prompt_expansion` command names offered this session.
 * @returns The allowed commands (in allow-list order) and the unknown names.
 */
export function resolveSlashCommands(
  allowList: readonly string[] | undefined,
  available: Iterable<string>,
): { commands: string[]; unknown: string[] } {
  const offered = new Set(available);
  const commands: string[] = [];
  const unknown: string[] = [];
  for (const name of new Set(allowList ?? [])) {
    (offered.has(name) ? commands : unknown).push(name);
  }
  return { commands, unknown };
}

// ---------------------------------------------------------------------------
// Depth and cost budgets (§7.5, §7.6)

/**
 * A session's remaining spawn depth (config.md §7.5):
 * root = `max_depth ?? kernelDefault`;
 * child = `min(parentRemaining - 1, max_depth ?? ∞)`, never below 0.
 * A profile's `max_depth` is a ceiling, never a grant: an ancestor's
 * tighter budget wins. Unset (`undefined`) differs from 0.
 *
 * @example Worked example of §7.5
 * ```ts
 * import { remainingDepth } from "./profiles.ts";
 * import assert from "node:assert/strict";
 *
 * const root = remainingDepth(undefined, 3, 5);          // root max_depth = 3
 * const child = remainingDepth(root, 5, 5);              // min(2, 5)
 * const grandchild = remainingDepth(child, undefined, 5); // min(1, ∞)
 * assert.deepEqual([root, child, grandchild, remainingDepth(grandchild, undefined, 5)], [3, 2, 1, 0]);
 * ```
 *
 * @param parentRemaining The parent's remaining depth; `undefined` for the root session.
 * @param profileMaxDepth The session's profile `max_depth`, if set.
 * @param kernelDefault The kernel's default for a root session without `max_depth`.
 * @returns The remaining depth, at least 0.
 * @throws {RangeError} When a number is negative or not an integer.
 */
export function remainingDepth(
  parentRemaining: number | undefined,
  profileMaxDepth: number | undefined,
  kernelDefault: number,
): number {
  checkCount("parentRemaining", parentRemaining);
  checkCount("profileMaxDepth", profileMaxDepth);
  checkCount("kernelDefault", kernelDefault);
  if (parentRemaining === undefined) return profileMaxDepth ?? kernelDefault;
  return Math.max(
    0,
    Math.min(parentRemaining - 1, profileMaxDepth ?? Infinity),
  );
}

/**
 * Whether a session may spawn children: its remaining depth is above 0.
 *
 * @example Usage
 * ```ts
 * import { canSpawn } from "./profiles.ts";
 * import assert from "node:assert/strict";
 *
 * assert.ok(canSpawn(1));
 * assert.ok(!canSpawn(0));
 * ```
 *
 * @param remaining The session's remaining depth.
 * @returns `true` when spawn-capable tools stay in its registry.
 */
export function canSpawn(remaining: number): boolean {
  return remaining > 0;
}

/**
 * Removes every spawn-capable tool from a session's tools when its remaining
 * depth is 0 or less (they leave the schema the model sees; they are not
 * blocked at call time). Otherwise returns the tools unchanged.
 *
 * @example Usage
 * ```ts
 * import { toolsForDepth } from "./profiles.ts";
 * import assert from "node:assert/strict";
 *
 * const tools = ["fs.read_file", "subagents.spawn"];
 * const spawning = new Set(["subagents.spawn"]);
 * assert.deepEqual(toolsForDepth(tools, 0, spawning), ["fs.read_file"]);
 * assert.deepEqual(toolsForDepth(tools, 1, spawning), tools);
 * ```
 *
 * @param tools The resolved tools (`"<provider>.<tool>"`).
 * @param remaining The session's remaining depth.
 * @param spawnCapable The tools that can start a child session.
 * @returns The tools the session's registry keeps.
 */
export function toolsForDepth(
  tools: readonly string[],
  remaining: number,
  spawnCapable: ReadonlySet<string>,
): string[] {
  return canSpawn(remaining)
    ? [...tools]
    : tools.filter((t) => !spawnCapable.has(t));
}

/**
 * A session's cost budget in USD (config.md §7.6): root =
 * `max_cost_usd ?? ∞`; child = `min(parentRemaining, max_cost_usd ?? ∞)`.
 * Pass the parent's budget as it stands when the child starts (its own
 * spending already subtracted); every usage event is later subtracted at
 * every ancestor.
 *
 * @example Usage
 * ```ts
 * import { remainingCost } from "./profiles.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(remainingCost(undefined, undefined), Infinity);
 * assert.equal(remainingCost(undefined, 2.5), 2.5);
 * assert.equal(remainingCost(0.75, 2.5), 0.75); // the parent's budget wins
 * assert.equal(remainingCost(0.75, 0.5), 0.5);
 * ```
 *
 * @param parentRemaining The parent's remaining budget; `undefined` for the root session.
 * @param profileMaxCostUsd The session's profile `max_cost_usd`, if set.
 * @returns The budget, possibly `Infinity`.
 * @throws {RangeError} When a number is negative or NaN.
 */
export function remainingCost(
  parentRemaining: number | undefined,
  profileMaxCostUsd: number | undefined,
): number {
  for (
    const [name, v] of [
      ["parentRemaining", parentRemaining],
      ["profileMaxCostUsd", profileMaxCostUsd],
    ] as const
  ) {
    if (v !== undefined && !(v >= 0)) {
      throw new RangeError(
        `Cannot compute the cost budget: ${name} must be a non-negative number, got ${v}`,
      );
    }
  }
  return Math.min(parentRemaining ?? Infinity, profileMaxCostUsd ?? Infinity);
}

function checkCount(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) {
    throw new RangeError(
      `Cannot compute the remaining depth: ${name} must be a non-negative integer, got ${value}`,
    );
  }
}

// ---------------------------------------------------------------------------
// Model routing (§7.2)

/** A model reference: `primary { provider = "...", id = "..." }`. */
export interface ModelRef {
  /** The provider's local name. */
  provider: string;
  /** The vendor model id (`ModelSpec.id`). */
  id: string;
  /** Where the `primary` / `fallback` block is. */
  range?: SourceRange;
}

/** A profile's `model {}` block. */
export interface ModelRouting {
  /** Tried first. */
  primary: ModelRef;
  /** Tried in order after the primary. */
  fallbacks: readonly ModelRef[];
}

/**
 * What routing needs to know about a model; the generated `ModelSpec`
 * satisfies it.
 */
export interface ModelCapabilities {
  /** The vendor model id. */
  readonly id: string;
  /** Input token budget. */
  readonly contextWindow: number | bigint;
  /** Whether it may receive tools and emit tool use. */
  readonly supportsToolUse: boolean;
  /** Whether it accepts images. */
  readonly supportsVision: boolean;
  /** Reasoning support; absent means none. */
  readonly thinking?: {
    readonly supported: boolean;
    /** Named effort levels, when the model takes one. */
    readonly effort?: { readonly levels: readonly string[] } | undefined;
    /** A token budget control, when the model takes one. */
    readonly budget?: {
      readonly range?: {
        readonly min: number | bigint;
        readonly max: number | bigint;
      } | undefined;
    } | undefined;
  } | undefined;
  /** The most output tokens one response may hold. */
  readonly maxOutputTokens?: number | bigint;
}

/**
 * A profile's generation parameters (`generation {}` in an
 * `agent_profile`): validated against each candidate model's declared
 * capabilities before a request is sent, never forwarded when invalid.
 */
export interface GenerationSettings {
  /** `thinking_effort`: one of the model's effort levels. */
  thinkingEffort?: string;
  /** `thinking_budget_tokens`: within the model's budget range. */
  thinkingBudgetTokens?: number;
  /** `max_output_tokens`: at most the model's maximum output. */
  maxOutputTokens?: number;
  /** `temperature`: passed through unclamped. */
  temperature?: number;
  /** `stop_sequences`. */
  stopSequences?: string[];
}

/** What a turn needs from its model. */
export interface TurnRequirements {
  /**
   * The turn sends tools.
   * @default {false}
   */
  toolUse?: boolean;
  /**
   * The turn carries images.
   * @default {false}
   */
  vision?: boolean;
  /**
   * The turn asks for reasoning.
   * @default {false}
   */
  thinking?: boolean;
  /**
   * The smallest acceptable context window in tokens; 0 means no minimum.
   * @default {0}
   */
  minContextWindow?: number;
  /**
   * The profile's generation parameters, each checked against the
   * candidate's declared capabilities.
   * @default {none}
   */
  generation?: GenerationSettings;
}

/** Why a candidate was skipped. */
export type IneligibleReason =
  | "provider_not_loaded"
  | "model_not_offered"
  | "no_tool_use"
  | "no_vision"
  | "no_thinking"
  | "context_window_too_small"
  | "effort_not_offered"
  | "budget_out_of_range"
  | "max_output_too_large";

/** A candidate that was skipped, and why. */
export interface SkippedModel {
  /** The candidate. */
  model: ModelRef;
  /** Every reason that applies, in a fixed order. */
  reasons: IneligibleReason[];
}

/** What {@linkcode chooseModel} returns. */
export type ModelChoice<T extends ModelCapabilities> =
  | {
    ok: true;
    /** The chosen reference. */
    model: ModelRef;
    /** Its capabilities as the provider advertised them. */
    spec: T;
    /** Its place in the chain: 0 for the primary. */
    index: number;
    /** The candidates before it that were skipped. */
    skipped: SkippedModel[];
  }
  | {
    ok: false;
    /** `E_NO_ELIGIBLE_MODEL`, explaining every candidate. */
    diagnostic: Diagnostic;
    /** Every candidate, each with its reasons. */
    skipped: SkippedModel[];
  };

/** Options for {@linkcode chooseModel}. */
export interface ChooseModelOptions {
  /**
   * The profile's name, for the message.
   * @default {undefined}
   */
  profile?: string;
  /**
   * Where the `model {}` block is.
   * @default {undefined}
   */
  range?: SourceRange;
}

const REASON_TEXT: Readonly<Record<IneligibleReason, string>> = {
  provider_not_loaded: "its provider is not loaded",
  model_not_offered: "its provider does not offer this model",
  no_tool_use: "the turn needs tool use, which it does not support",
  no_vision: "the turn needs vision, which it does not support",
  no_thinking: "the turn needs thinking, which it does not support",
  context_window_too_small:
    "its context window is smaller than the turn requires",
  effort_not_offered:
    "the profile's thinking_effort is not one of its effort levels",
  budget_out_of_range:
    "the profile's thinking_budget_tokens is outside its budget range",
  max_output_too_large:
    "the profile's max_output_tokens is above its maximum output",
};

function reasonText(
  reason: IneligibleReason,
  spec: ModelCapabilities | undefined,
  req: TurnRequirements,
): string {
  const g = req.generation ?? {};
  switch (reason) {
    case "effort_not_offered": {
      const levels = spec?.thinking?.effort?.levels ?? [];
      return `${REASON_TEXT[reason]} (${JSON.stringify(g.thinkingEffort)}; ${
        levels.length
          ? `it offers ${levels.map((l) => JSON.stringify(l)).join(", ")}`
          : "it takes no effort level"
      })`;
    }
    case "budget_out_of_range": {
      const r = spec?.thinking?.budget?.range;
      return `${REASON_TEXT[reason]} (${g.thinkingBudgetTokens}; ${
        r ? `it accepts ${r.min}..${r.max}` : "it takes no token budget"
      })`;
    }
    case "max_output_too_large":
      return `${
        REASON_TEXT[reason]
      } (${g.maxOutputTokens} > ${spec?.maxOutputTokens})`;
    default:
      return REASON_TEXT[reason];
  }
}

/**
 * Walks a routing chain (primary, then fallbacks in order) and returns the
 * first eligible candidate (config.md §7.2). A candidate is skipped, not an
 * error, when its provider is not loaded or does not offer the model, or
 * when the turn needs tool use, vision or thinking it lacks, or a larger
 * context window. Only an exhausted chain fails, with `E_NO_ELIGIBLE_MODEL`
 * (a per-turn outcome, not a config error).
 *
 * @example Usage
 * ```ts
 * import { chooseModel } from "./profiles.ts";
 * import assert from "node:assert/strict";
 *
 * const models = new Map([["local", [
 *   { id: "tiny", contextWindow: 8_192, supportsToolUse: false, supportsVision: false },
 * ]]]);
 * const chain = { primary: { provider: "local", id: "tiny" }, fallbacks: [] };
 * const choice = chooseModel(chain, models, { toolUse: true });
 * assert.ok(!choice.ok);
 * assert.equal(choice.diagnostic.code, "E_NO_ELIGIBLE_MODEL");
 * assert.deepEqual(choice.skipped[0]?.reasons, ["no_tool_use"]);
 * ```
 *
 * @param chain The profile's `model {}` block, or the candidates in order.
 * @param available Each loaded model provider's models.
 * @param requirements What the turn needs.
 * @param options The profile's name and the block's range, for the error.
 * @returns The first eligible candidate, or an error explaining each skip.
 */
export function chooseModel<T extends ModelCapabilities>(
  chain: ModelRouting | readonly ModelRef[],
  available: ReadonlyMap<string, readonly T[]>,
  requirements: TurnRequirements = {},
  options: ChooseModelOptions = {},
): ModelChoice<T> {
  const candidates: readonly ModelRef[] = isRefList(chain)
    ? chain
    : [chain.primary, ...chain.fallbacks];
  const skipped: SkippedModel[] = [];
  for (const [index, model] of candidates.entries()) {
    const models = available.get(model.provider);
    const spec = models?.find((m) => m.id === model.id);
    const reasons: IneligibleReason[] = [];
    if (models === undefined) reasons.push("provider_not_loaded");
    else if (spec === undefined) reasons.push("model_not_offered");
    else reasons.push(...capabilityGaps(spec, requirements));
    if (spec !== undefined && reasons.length === 0) {
      return { ok: true, model, spec, index, skipped };
    }
    skipped.push({ model, reasons });
  }
  const who = options.profile === undefined
    ? "the profile"
    : `profile "${options.profile}"`;
  const lines = skipped.map(({ model, reasons }) =>
    `- "${model.provider}" / "${model.id}": ${
      reasons.map((r) =>
        reasonText(
          r,
          available.get(model.provider)?.find((m) => m.id === model.id),
          requirements,
        )
      ).join("; ")
    }`
  );
  return {
    ok: false,
    skipped,
    diagnostic: diag(
      "error",
      "E_NO_ELIGIBLE_MODEL",
      "No eligible model for this turn",
      candidates.length === 0
        ? `The model chain of ${who} is empty.`
        : `Every model in the chain of ${who} was skipped:\n${
          lines.join("\n")
        }`,
      options.range,
    ),
  };
}

function isRefList(
  chain: ModelRouting | readonly ModelRef[],
): chain is readonly ModelRef[] {
  return Array.isArray(chain);
}

function capabilityGaps(
  spec: ModelCapabilities,
  req: TurnRequirements,
): IneligibleReason[] {
  const gaps: IneligibleReason[] = [];
  if (req.toolUse && !spec.supportsToolUse) gaps.push("no_tool_use");
  if (req.vision && !spec.supportsVision) gaps.push("no_vision");
  if (req.thinking && spec.thinking?.supported !== true) {
    gaps.push("no_thinking");
  }
  const min = req.minContextWindow ?? 0;
  if (min > 0 && Number(spec.contextWindow) < min) {
    gaps.push("context_window_too_small");
  }
  const g = req.generation;
  if (g?.thinkingEffort !== undefined) {
    const levels = spec.thinking?.supported
      ? spec.thinking.effort?.levels ?? []
      : [];
    if (!levels.includes(g.thinkingEffort)) gaps.push("effort_not_offered");
  }
  if (g?.thinkingBudgetTokens !== undefined) {
    const r = spec.thinking?.supported
      ? spec.thinking.budget?.range
      : undefined;
    if (
      !r || g.thinkingBudgetTokens < Number(r.min) ||
      g.thinkingBudgetTokens > Number(r.max)
    ) gaps.push("budget_out_of_range");
  }
  if (
    g?.maxOutputTokens !== undefined && spec.maxOutputTokens !== undefined &&
    Number(spec.maxOutputTokens) > 0 &&
    g.maxOutputTokens > Number(spec.maxOutputTokens)
  ) gaps.push("max_output_too_large");
  return gaps;
}

// ---------------------------------------------------------------------------
// Loop bounds (§2.5, §7.6, §7.7)

/** A profile's bounds; `undefined` means unset, which is not 0. */
export interface ProfileBounds {
  /** `max_turns`: integer. */
  maxTurns?: number;
  /** `max_cost_usd`: number; unset means unbounded. */
  maxCostUsd?: number;
  /** `max_wall_clock_s`: integer seconds. */
  maxWallClockS?: number;
  /** `max_depth`: integer; see {@linkcode remainingDepth}. */
  maxDepth?: number;
  /** `max_concurrent_subagents`: integer cap on in-flight children. */
  maxConcurrentSubagents?: number;
  /**
   * `doom_loop_threshold`: how many consecutive identical tool calls end
   * the loop (integer, at least 2; the kernel's default is 4).
   */
  doomLoopThreshold?: number;
}

/** Options for {@linkcode validateBounds}. */
export interface ValidateBoundsOptions {
  /**
   * The profile's name, for messages.
   * @default {undefined}
   */
  profile?: string;
  /**
   * Where each attribute's value is.
   * @default {{}}
   */
  ranges?: { readonly [K in keyof ProfileBounds]?: SourceRange };
}

/** The HCL attribute name of each bound, in validation order. */
export const BOUND_ATTRIBUTES: Readonly<Record<keyof ProfileBounds, string>> = {
  maxTurns: "max_turns",
  maxCostUsd: "max_cost_usd",
  maxWallClockS: "max_wall_clock_s",
  maxDepth: "max_depth",
  maxConcurrentSubagents: "max_concurrent_subagents",
  doomLoopThreshold: "doom_loop_threshold",
};

/**
 * Validates a profile's bounds: each set value must be a finite,
 * non-negative number, and a whole number except `max_cost_usd` (a
 * fraction is refused, not truncated). Errors are `E_INVALID_VALUE`. A
 * `max_concurrent_subagents = 0` is legal but gets a warning
 * (`W_BOUND_ZERO`): every spawn would wait forever; `max_depth = 0` is the
 * way to forbid spawning.
 *
 * @example Usage
 * ```ts
 * import { validateBounds } from "./profiles.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(validateBounds({ maxTurns: 120, maxCostUsd: 2.5, maxDepth: 0 }), []);
 * const [d] = validateBounds({ maxTurns: 2.9 }, { profile: "default" });
 * assert.equal(d?.summary, 'Invalid max_turns in profile "default"');
 * ```
 *
 * @param bounds The decoded values (any type is checked).
 * @param options The profile's name and the values' ranges.
 * @returns The problems, errors and warnings, in attribute order.
 */
export function validateBounds(
  bounds: { readonly [K in keyof ProfileBounds]?: unknown },
  options: ValidateBoundsOptions = {},
): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const inProfile = options.profile === undefined
    ? ""
    : ` in profile "${options.profile}"`;
  for (
    const [field, attr] of Object.entries(BOUND_ATTRIBUTES) as [
      keyof ProfileBounds,
      string,
    ][]
  ) {
    const value = bounds[field];
    if (value === undefined) continue;
    const whole = field !== "maxCostUsd";
    const range = options.ranges?.[field];
    const fail = (detail: string) =>
      diagnostics.push(
        diag(
          "error",
          "E_INVALID_VALUE",
          `Invalid ${attr}${inProfile}`,
          detail,
          range,
        ),
      );
    const expected = whole ? "a whole number" : "a number";
    if (typeof value !== "number") {
      fail(`Expected ${expected}, got ${describe(value)}.`);
    } else if (!Number.isFinite(value)) {
      fail(`Expected ${expected}, got ${value}: the value must be finite.`);
    } else if (value < 0) {
      fail(`Expected a non-negative value, got ${value}.`);
    } else if (whole && !Number.isInteger(value)) {
      fail(
        `Expected a whole number, got ${value}: fractions are not rounded or truncated.`,
      );
    } else if (whole && !Number.isSafeInteger(value)) {
      fail(`The value ${value} is too large.`);
    } else if (field === "doomLoopThreshold" && value < 2) {
      fail(
        `Expected at least 2, got ${value}: the loop needs two identical calls in a row to see a repeat.`,
      );
    } else if (field === "maxConcurrentSubagents" && value === 0) {
      diagnostics.push(diag(
        "warning",
        "W_BOUND_ZERO",
        `max_concurrent_subagents is 0${inProfile}`,
        "No child session could ever run: spawn calls would wait forever. To forbid spawning, set max_depth = 0 or leave spawn-capable tools out of the profile.",
        range,
      ));
    }
  }
  return diagnostics;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  switch (typeof value) {
    case "string":
      return `a string (${JSON.stringify(value)})`;
    case "boolean":
      return "a bool";
    case "bigint":
      return "a bigint";
    case "object":
      return "an object";
    default:
      return typeof value;
  }
}

// ---------------------------------------------------------------------------
// Hook subscriber ordering (§7.8)

/** Anything placed in `agent.hcl` by a byte offset. */
export interface Positioned {
  /** 0-based byte offset of the block that creates the subscription. */
  readonly position: number;
}

/**
 * Orders the subscribers of one hook point by textual position in
 * `agent.hcl` (config.md §7.8): ascending byte offset, all modes
 * interleaved, in one pass. An implicit (category-implied) subscription is
 * positioned at its provider's `provider` block (see
 * {@linkcode implicitSubscriberPosition}); an explicit one at its `hook`
 * block. The sort is stable, so equal positions keep their input order.
 *
 * @example Usage
 * ```ts
 * import { orderSubscribers } from "./profiles.ts";
 * import assert from "node:assert/strict";
 *
 * const subs = [
 *   { provider: "journal", mode: "observe", position: 900 },
 *   { provider: "memory", mode: "transform", position: 120 },
 *   { provider: "guard", mode: "veto", position: 400 },
 * ];
 * assert.deepEqual(orderSubscribers(subs).map((s) => s.provider), ["memory", "guard", "journal"]);
 * ```
 *
 * @param subscribers The subscribers of one hook point.
 * @returns A new array in execution order.
 * @throws {RangeError} When a position is not a non-negative integer.
 */
export function orderSubscribers<T extends Positioned>(
  subscribers: readonly T[],
): T[] {
  for (const s of subscribers) {
    if (!(Number.isSafeInteger(s.position) && s.position >= 0)) {
      throw new RangeError(
        `Cannot order hook subscribers: position must be a non-negative integer byte offset, got ${s.position}`,
      );
    }
  }
  return [...subscribers].sort((a, b) => a.position - b.position);
}

/**
 * The position of a provider's implicit (category-implied) subscription:
 * its `provider` block's byte offset or, when it has no `provider` block
 * (the spec leaves this open), its `required_providers` entry's. A provider
 * in neither has no position (`undefined`).
 *
 * @example Usage
 * ```ts
 * import { implicitSubscriberPosition } from "./profiles.ts";
 * import assert from "node:assert/strict";
 *
 * const positions = {
 *   providerBlocks: new Map([["memory", 610]]),
 *   requiredProviders: new Map([["memory", 40], ["ctx", 75]]),
 * };
 * assert.equal(implicitSubscriberPosition("memory", positions), 610);
 * assert.equal(implicitSubscriberPosition("ctx", positions), 75);
 * ```
 *
 * @param provider The provider's local name.
 * @param positions Byte offsets of `provider` blocks and `required_providers` entries.
 * @returns The byte offset, or `undefined`.
 */
export function implicitSubscriberPosition(
  provider: string,
  positions: {
    readonly providerBlocks: ReadonlyMap<string, number>;
    readonly requiredProviders: ReadonlyMap<string, number>;
  },
): number | undefined {
  return positions.providerBlocks.get(provider) ??
    positions.requiredProviders.get(provider);
}

// ---------------------------------------------------------------------------

function diag(
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
