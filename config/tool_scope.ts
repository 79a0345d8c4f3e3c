/**
 * Tool scoping (config.md §7.3): a profile's `tools` list of
 * `"<provider>.<tool>"` and `"<provider>.*"` entries, parsed at load time
 * ({@linkcode parseToolScope}) and resolved against the tools the loaded
 * plugins advertise ({@linkcode resolveToolScope}).
 *
 * @module
 */
import {
  type Diagnostic,
  didYouMean,
  type SourceRange,
} from "../contract/diagnostic.ts";
import { diag } from "./_schema.ts";

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
 * import { parseToolScopeEntry } from "./tool_scope.ts";
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
 * import { parseToolScope } from "./tool_scope.ts";
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
      for (const each of r.diagnostics) diagnostics.push(each);
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
 * import { resolveToolScope } from "./tool_scope.ts";
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
        for (const each of r.diagnostics) diagnostics.push(each);
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
