/**
 * The lock file `.agent/agent.lock.hcl` (config.md §5): reading it in the
 * specified order ({@linkcode parseLockFile}) and writing it
 * deterministically ({@linkcode formatLockFile}).
 *
 * ```hcl
 * lock_file_version = 1
 *
 * provider "notes" {
 *   source      = "./plugins/notes"
 *   version     = "0.2.0"
 *   resolved_at = "2026-05-02T10:30:00Z"
 *   checksums = {
 *     "linux_amd64" = "sha256:<64 lowercase hex>"
 *   }
 *   envelope = {
 *     env   = []
 *     run   = []
 *     read  = ["./notes"]
 *     write = []
 *     net   = []
 *   }
 *   config_schema = [
 *     {
 *       name        = "root"
 *       type        = "string"
 *       required    = true
 *       sensitive   = false
 *       description = "Where the notes are."
 *     },
 *   ]
 * }
 * ```
 *
 * Besides the four attributes of the spec, each entry records the capability
 * envelope and the config schema that were approved when it was locked, so
 * that `check-config` validates provider bodies offline and notices an
 * envelope that has grown; a forge entry also records the plugin's
 * `category`, whose files are read only at launch.
 *
 * @module
 */

import type { Diagnostic, SourceRange } from "../contract/diagnostic.ts";
import {
  type Block,
  type ObjectValue,
  parseHcl,
  type Value,
} from "./hcl/mod.ts";
import {
  type CapabilityEnvelope,
  CATEGORY_NAMES,
  type CategoryName,
  type ConfigAttributeSpec,
  type ConfigAttrType,
} from "../contract/manifest.ts";
import {
  POLICY_MATCH_KINDS,
  RISK_CLASSES,
  type RiskClass,
  type ToolKind,
} from "../contract/policy.ts";
import type { ToolDeclaration } from "./plan.ts";
import { E_LOCK_VERSION } from "./codes.ts";
import {
  checkBody,
  describeType,
  diag,
  evalAttr,
  headerRange,
  keyRanges,
} from "./_schema.ts";

/** The lock file format version this code reads and writes. */
export const LOCK_FILE_VERSION = 1;

/** The lock file's path relative to the project directory. */
export const LOCK_FILE_PATH = ".agent/agent.lock.hcl";

/** One `provider` entry of the lock file. */
export interface LockedProvider {
  /** The provider's local name (the block's label). */
  name: string;
  /** The resolved source address. */
  source: string;
  /** The exact resolved version. */
  version: string;
  /** RFC 3339 timestamp of the last resolution, as written. */
  resolvedAt: string;
  /** `"<os>_<arch>"` → `"sha256:<hex>"`. */
  checksums: Record<string, string>;
  /**
   * The plugin's category, from its manifest when locked. Recorded for
   * forge sources, whose files are not read before launch, so that the
   * configuration is checked by category (a model chain naming a tool
   * plugin, say) without fetching the plugin (absent: not recorded).
   */
  category?: CategoryName;
  /** The capability envelope approved when locked (absent: none recorded). */
  envelope?: CapabilityEnvelope;
  /** The config schema recorded when locked (absent: none recorded). */
  configSchema?: ConfigAttributeSpec[];
  /**
   * The tools the manifest declared when locked, with their kinds and risk
   * classes (absent: none recorded, or the manifest lists none). `agent
   * test` judges calls with these offline; `agent lock` compares a new
   * version's against them.
   */
  tools?: ToolDeclaration[];
  /**
   * What the operator accepted with `agent lock --accept-widening` when
   * this version widened the previous one: one line per widened item
   * (absent: nothing was widened).
   */
  acceptedWidening?: string[];
  /** Where the entry is. */
  range?: SourceRange;
}

/** A decoded lock file. */
export interface LockFile {
  /** Always {@linkcode LOCK_FILE_VERSION}. */
  version: 1;
  /** The entries by local name. */
  providers: Map<string, LockedProvider>;
}

/** What {@linkcode parseLockFile} returns. */
export interface ParseLockFileResult {
  /** The lock file; `undefined` when it has any error (it is then unusable). */
  lock: LockFile | undefined;
  /** Every problem found. */
  diagnostics: Diagnostic[];
}

const RFC3339_REGEXP =
  /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const SEMVER_REGEXP =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
const PLATFORM_REGEXP = /^[a-z0-9]+_[a-z0-9]+$/;
const CHECKSUM_REGEXP = /^sha256:[0-9a-f]{64}$/;
const ENVELOPE_KEYS = ["env", "run", "read", "write", "net"] as const;
const SCHEMA_KEYS = [
  "name",
  "type",
  "required",
  "sensitive",
  "description",
  "default_json",
  "attributes",
];

/**
 * Reads a lock file in the order of config.md §5.3: syntax first (even a
 * file from the future must be HCL); then `lock_file_version` alone, in an
 * isolated pass that ignores everything else, so that a newer file is
 * refused with `E_LOCK_VERSION` before any of its content is read; then the
 * closed schema and each entry's types, RFC 3339 timestamp, exact version,
 * checksum map, envelope and config schema.
 *
 * @example Usage
 * ```ts
 * import { parseLockFile } from "./lock_file.ts";
 * import assert from "node:assert/strict";
 * const r = parseLockFile('lock_file_version = 2\nfuture_block {}\n', ".agent/agent.lock.hcl");
 * assert.equal(r.lock, undefined);
 * assert.deepEqual(r.diagnostics.map((d) => d.code), ["E_LOCK_VERSION"]);
 * ```
 *
 * @param text The file's text.
 * @param file The file's path as shown.
 * @returns The lock file (when fully valid) and the diagnostics.
 */
export function parseLockFile(text: string, file: string): ParseLockFileResult {
  const parsed = parseHcl(text, file);
  if (parsed.diagnostics.length > 0) {
    return { lock: undefined, diagnostics: parsed.diagnostics };
  }
  const body = parsed.body;
  const diagnostics: Diagnostic[] = [];

  // Isolated version pass: look at lock_file_version only.
  const versionAttr = body.attributes.find((a) =>
    a.name === "lock_file_version"
  );
  if (versionAttr === undefined) {
    diagnostics.push(diag(
      "error",
      E_LOCK_VERSION,
      "Missing lock_file_version",
      `The lock file must start with lock_file_version = ${LOCK_FILE_VERSION}. It was not written by "agent lock", or it is damaged: delete it and run "agent lock" again.`,
      { file, start: body.range.start, end: body.range.start },
    ));
    return { lock: undefined, diagnostics };
  }
  const v = evalAttr(versionAttr, "number", "", diagnostics);
  if (v === undefined) {
    for (const d of diagnostics) d.code = E_LOCK_VERSION;
    return { lock: undefined, diagnostics };
  }
  if (v !== LOCK_FILE_VERSION) {
    const newer = typeof v === "number" && Number.isInteger(v) &&
      v > LOCK_FILE_VERSION;
    diagnostics.push(diag(
      "error",
      E_LOCK_VERSION,
      `Unsupported lock file version ${v}`,
      newer
        ? `This lock file was written by a newer version of @ph/agent (format ${v}); this version reads format ${LOCK_FILE_VERSION} only and will not guess at the rest. Upgrade @ph/agent.`
        : `The only lock file format is ${LOCK_FILE_VERSION}. Delete the file and run "agent lock" again.`,
      versionAttr.expr.range,
    ));
    return { lock: undefined, diagnostics };
  }

  // Closed schema.
  const top = checkBody(
    body,
    {
      attributes: { lock_file_version: { type: "number", required: true } },
      blocks: { provider: { labels: ["local name"], unique: "label" } },
    },
    "the lock file",
    diagnostics,
  );
  const providers = new Map<string, LockedProvider>();
  for (const block of top.blocks.get("provider") ?? []) {
    const entry = decodeEntry(block, diagnostics);
    if (entry !== undefined) providers.set(entry.name, entry);
  }
  if (diagnostics.some((d) => d.severity === "error")) {
    return { lock: undefined, diagnostics };
  }
  return { lock: { version: 1, providers }, diagnostics };
}

function decodeEntry(
  block: Block,
  diagnostics: Diagnostic[],
): LockedProvider | undefined {
  const name = block.labels[0]!.value;
  const where = `provider "${name}" of the lock file`;
  const before = diagnostics.length;
  const { attrs } = checkBody(
    block.body,
    {
      attributes: {
        source: { type: "string", required: true },
        version: { type: "string", required: true },
        resolved_at: { type: "string", required: true },
        checksums: { type: "map(string)", required: true },
        category: { type: "string" },
        envelope: { type: "object" },
        config_schema: { type: "any" },
        tools: { type: "any" },
        accepted_widening: { type: "list(string)" },
      },
      blocks: {},
    },
    where,
    diagnostics,
    headerRange(block),
  );
  const get = (n: string, t: Parameters<typeof evalAttr>[1]) => {
    const a = attrs.get(n);
    return a === undefined ? undefined : evalAttr(a, t, where, diagnostics);
  };
  const bad = (n: string, summary: string, detail: string) =>
    diagnostics.push(
      diag(
        "error",
        "E_INVALID_VALUE",
        summary,
        detail,
        attrs.get(n)!.expr.range,
      ),
    );
  const source = get("source", "string") as string | undefined;
  const version = get("version", "string") as string | undefined;
  if (version !== undefined && !SEMVER_REGEXP.test(version)) {
    bad(
      "version",
      `Invalid version in ${where}`,
      `A lock entry records one exact version such as "1.2.3", never a constraint; got ${
        JSON.stringify(version)
      }.`,
    );
  }
  const resolvedAt = get("resolved_at", "string") as string | undefined;
  if (
    resolvedAt !== undefined &&
    (!RFC3339_REGEXP.test(resolvedAt) || Number.isNaN(Date.parse(resolvedAt)))
  ) {
    bad(
      "resolved_at",
      `Invalid resolved_at in ${where}`,
      `Expected an RFC 3339 timestamp such as "2026-05-02T10:30:00Z"; got ${
        JSON.stringify(resolvedAt)
      }.`,
    );
  }
  const checksums = get("checksums", "map(string)") as
    | Record<string, string>
    | undefined;
  if (checksums !== undefined) {
    const ranges = keyRanges(attrs.get("checksums")!.expr);
    for (const [platform, sum] of Object.entries(checksums)) {
      const range = ranges[platform] ?? attrs.get("checksums")!.expr.range;
      if (!PLATFORM_REGEXP.test(platform)) {
        diagnostics.push(diag(
          "error",
          "E_INVALID_VALUE",
          `Invalid platform key ${JSON.stringify(platform)} in ${where}`,
          'Checksum keys name a platform as "<os>_<arch>" in Go\'s names, e.g. "linux_amd64".',
          range,
        ));
      }
      if (!CHECKSUM_REGEXP.test(sum)) {
        diagnostics.push(diag(
          "error",
          "E_INVALID_VALUE",
          `Invalid checksum for "${platform}" in ${where}`,
          'A checksum is "sha256:" followed by 64 lowercase hexadecimal digits.',
          range,
        ));
      }
    }
  }
  let envelope: CapabilityEnvelope | undefined;
  const env = get("envelope", "object") as ObjectValue | undefined;
  if (env !== undefined) {
    envelope = { env: [], run: [], read: [], write: [], net: [] };
    const ranges = keyRanges(attrs.get("envelope")!.expr);
    for (const [k, list] of Object.entries(env)) {
      const range = ranges[k] ?? attrs.get("envelope")!.expr.range;
      if (!(ENVELOPE_KEYS as readonly string[]).includes(k)) {
        diagnostics.push(diag(
          "error",
          "E_UNKNOWN_ATTR",
          `Unsupported key "${k}" in the envelope of ${where}`,
          `An envelope has the keys ${
            ENVELOPE_KEYS.map((x) => `"${x}"`).join(", ")
          }.`,
          range,
        ));
        continue;
      }
      if (!Array.isArray(list) || list.some((x) => typeof x !== "string")) {
        diagnostics.push(diag(
          "error",
          "E_INVALID_VALUE",
          `Wrong type for "envelope.${k}" in ${where}`,
          `Expected a list of strings, got ${describeType(list)}.`,
          range,
        ));
        continue;
      }
      envelope[k as keyof CapabilityEnvelope] = list as string[];
    }
  }
  let configSchema: ConfigAttributeSpec[] | undefined;
  const schemaAttr = attrs.get("config_schema");
  const rawSchema = get("config_schema", "any");
  if (schemaAttr !== undefined && rawSchema !== undefined) {
    const problems: string[] = [];
    configSchema = decodeSchema(rawSchema, "config_schema", problems);
    for (const p of problems) {
      diagnostics.push(diag(
        "error",
        "E_INVALID_VALUE",
        `Invalid config_schema in ${where}`,
        `${p}.`,
        schemaAttr.expr.range,
      ));
    }
  }
  let tools: ToolDeclaration[] | undefined;
  const toolsAttr = attrs.get("tools");
  const rawTools = get("tools", "any");
  if (toolsAttr !== undefined && rawTools !== undefined) {
    const problems: string[] = [];
    tools = decodeTools(rawTools, problems);
    for (const p of problems) {
      diagnostics.push(diag(
        "error",
        "E_INVALID_VALUE",
        `Invalid tools in ${where}`,
        `${p}.`,
        toolsAttr.expr.range,
      ));
    }
  }
  const category = get("category", "string") as string | undefined;
  if (
    category !== undefined &&
    !CATEGORY_NAMES.includes(category as CategoryName)
  ) {
    bad(
      "category",
      `Invalid category in ${where}`,
      `Expected one of ${CATEGORY_NAMES.join(", ")}; got ${
        JSON.stringify(category)
      }.`,
    );
  }
  const accepted = get("accepted_widening", "list(string)") as
    | string[]
    | undefined;
  if (diagnostics.length > before) return undefined;
  const entry: LockedProvider = {
    name,
    source: source!,
    version: version!,
    resolvedAt: resolvedAt!,
    checksums: sortKeys(checksums!),
    range: headerRange(block),
  };
  if (category !== undefined) entry.category = category as CategoryName;
  if (envelope !== undefined) entry.envelope = envelope;
  if (configSchema !== undefined) entry.configSchema = configSchema;
  if (tools !== undefined) entry.tools = tools;
  if (accepted !== undefined) entry.acceptedWidening = accepted;
  return entry;
}

const TOOL_KINDS: readonly ToolKind[] = [...POLICY_MATCH_KINDS, "interactive"];

function decodeTools(raw: Value, problems: string[]): ToolDeclaration[] {
  if (!Array.isArray(raw)) {
    problems.push(`"tools" must be a list of tools, got ${describeType(raw)}`);
    return [];
  }
  const out: ToolDeclaration[] = [];
  raw.forEach((item, i) => {
    const at = `tools[${i}]`;
    if (item === null || typeof item !== "object" || Array.isArray(item)) {
      problems.push(`"${at}" must be an object, got ${describeType(item)}`);
      return;
    }
    const o = item as ObjectValue;
    for (const k of Object.keys(o)) {
      if (!["name", "kind", "risk", "subagents"].includes(k)) {
        problems.push(`"${at}" has an unknown key "${k}"`);
      }
    }
    const { name, kind, risk } = o;
    if (typeof name !== "string" || name === "") {
      problems.push(`"${at}.name" must be a non-empty string`);
      return;
    }
    if (typeof kind !== "string" || !TOOL_KINDS.includes(kind as ToolKind)) {
      problems.push(
        `"${at}.kind" must be one of ${
          TOOL_KINDS.map((k) => `"${k}"`).join(", ")
        }`,
      );
      return;
    }
    if (
      typeof risk !== "string" || !RISK_CLASSES.includes(risk as RiskClass)
    ) {
      problems.push(
        `"${at}.risk" must be one of ${
          RISK_CLASSES.map((k) => `"${k}"`).join(", ")
        }`,
      );
      return;
    }
    if (o.subagents !== undefined && typeof o.subagents !== "boolean") {
      problems.push(`"${at}.subagents" must be true or false`);
      return;
    }
    out.push({
      name,
      kind: kind as ToolKind,
      risk: risk as RiskClass,
      ...(o.subagents === true ? { subagents: true } : {}),
    });
  });
  return out;
}

function sortKeys(o: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(o).sort()) out[k] = o[k]!;
  return out;
}

function decodeSchema(
  raw: Value,
  where: string,
  problems: string[],
): ConfigAttributeSpec[] {
  if (!Array.isArray(raw)) {
    problems.push(
      `"${where}" must be a list of attributes, got ${describeType(raw)}`,
    );
    return [];
  }
  const out: ConfigAttributeSpec[] = [];
  raw.forEach((item, i) => {
    const at = `${where}[${i}]`;
    if (item === null || typeof item !== "object" || Array.isArray(item)) {
      problems.push(`"${at}" must be an object, got ${describeType(item)}`);
      return;
    }
    const o = item as ObjectValue;
    for (const k of Object.keys(o)) {
      if (!SCHEMA_KEYS.includes(k)) {
        problems.push(`"${at}" has an unknown key "${k}"`);
      }
    }
    const str = (k: string, required: boolean): string | undefined => {
      const v = o[k];
      if (v === undefined || v === null) {
        if (required) problems.push(`"${at}.${k}" is required`);
        return undefined;
      }
      if (typeof v !== "string") {
        problems.push(`"${at}.${k}" must be a string, got ${describeType(v)}`);
        return undefined;
      }
      return v;
    };
    const bool = (k: string): boolean => {
      const v = o[k];
      if (v === undefined || v === null) return false;
      if (typeof v !== "boolean") {
        problems.push(`"${at}.${k}" must be a bool, got ${describeType(v)}`);
        return false;
      }
      return v;
    };
    const name = str("name", true);
    const type = str("type", true);
    if (name === undefined || type === undefined) return;
    const spec: ConfigAttributeSpec = {
      name,
      type: type as ConfigAttrType,
      required: bool("required"),
      sensitive: bool("sensitive"),
      description: str("description", false) ?? "",
      objectAttributes: o.attributes === undefined || o.attributes === null
        ? []
        : decodeSchema(o.attributes, `${at}.attributes`, problems),
    };
    const def = str("default_json", false);
    if (def !== undefined) spec.defaultJson = def;
    out.push(spec);
  });
  return out;
}

// ---------------------------------------------------------------------------
// Writing

/**
 * Quotes a string for HCL: escapes `\`, `"`, control characters, and the
 * template introducers `${` and `%{`.
 *
 * @example Usage
 * ```ts
 * import { hclString } from "./lock_file.ts";
 * import assert from "node:assert/strict";
 * assert.equal(hclString('a "b" ${c}\n'), '"a \\"b\\" $${c}\\n"');
 * ```
 *
 * @param s Any string.
 * @returns An HCL quoted string that evaluates to `s`.
 */
export function hclString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    const code = ch.charCodeAt(0);
    if (ch === "\\") out += "\\\\";
    else if (ch === '"') out += '\\"';
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if ((ch === "$" || ch === "%") && s[i + 1] === "{") out += ch + ch;
    else if (code < 0x20 || code === 0x7f) {
      out += `\\u${code.toString(16).padStart(4, "0")}`;
    } else out += ch;
  }
  return out + '"';
}

type HclValue = string | number | boolean | HclValue[] | {
  [key: string]: HclValue;
};

const IDENT_REGEXP = /^[A-Za-z_][A-Za-z0-9_-]*$/;

function isSingleLine(v: HclValue): boolean {
  return typeof v !== "object" ||
    (Array.isArray(v) ? v.every((x) => typeof x !== "object") : false);
}

function formatValue(v: HclValue, indent: string, quoteKeys = false): string {
  if (typeof v === "string") return hclString(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  const inner = indent + "  ";
  if (Array.isArray(v)) {
    if (v.length === 0) return "[]";
    if (v.every((x) => typeof x !== "object")) {
      return `[${v.map((x) => formatValue(x, inner)).join(", ")}]`;
    }
    return `[\n${
      v.map((x) => `${inner}${formatValue(x, inner)},\n`).join("")
    }${indent}]`;
  }
  const entries = Object.entries(v);
  if (entries.length === 0) return "{}";
  return `{\n${formatAttributes(entries, inner, quoteKeys)}${indent}}`;
}

/** Writes `key = value` lines, aligning `=` within runs of one-line values. */
function formatAttributes(
  entries: [string, HclValue][],
  indent: string,
  quoteKeys = false,
): string {
  const key = (k: string) =>
    quoteKeys || !IDENT_REGEXP.test(k) ? hclString(k) : k;
  let out = "";
  let i = 0;
  while (i < entries.length) {
    let j = i;
    while (j < entries.length && isSingleLine(entries[j]![1])) j++;
    if (j === i) j = i + 1;
    const run = entries.slice(i, j);
    const width = run.reduce((w, [k]) => Math.max(w, key(k).length), 0);
    for (const [k, val] of run) {
      const pad = isSingleLine(val) ? " ".repeat(width - key(k).length) : "";
      out += `${indent}${key(k)}${pad} = ${formatValue(val, indent)}\n`;
    }
    i = j;
  }
  return out;
}

function schemaToHcl(attrs: readonly ConfigAttributeSpec[]): HclValue[] {
  return attrs.map((a) => {
    const o: { [key: string]: HclValue } = {
      name: a.name,
      type: a.type,
      required: a.required,
      sensitive: a.sensitive,
      description: a.description,
    };
    if (a.defaultJson !== undefined) o.default_json = a.defaultJson;
    if (a.objectAttributes.length > 0) {
      o.attributes = schemaToHcl(a.objectAttributes);
    }
    return o;
  });
}

/**
 * Writes a lock file deterministically (config.md §5.5): a header comment,
 * `lock_file_version` first, then the `provider` blocks sorted by local
 * name, attributes in a fixed order (`source`, `version`, `resolved_at`,
 * `checksums` with sorted keys, `envelope`, `config_schema`), `=` aligned.
 * {@linkcode parseLockFile} reads the result back to the same value.
 *
 * @example Usage
 * ```ts
 * import { formatLockFile, parseLockFile } from "./lock_file.ts";
 * import assert from "node:assert/strict";
 * const text = formatLockFile({ version: 1, providers: new Map([["echo", {
 *   name: "echo", source: "builtin/echo", version: "0.1.0",
 *   resolvedAt: "2026-01-01T00:00:00Z",
 *   checksums: { linux_amd64: "sha256:" + "0".repeat(64) },
 * }]]) });
 * const { lock } = parseLockFile(text, "agent.lock.hcl");
 * assert.equal(lock?.providers.get("echo")?.version, "0.1.0");
 * ```
 *
 * @param lock The lock file.
 * @returns Its text.
 */
export function formatLockFile(lock: LockFile): string {
  let out =
    '# This file is maintained by "agent lock". Do not edit it by hand:\n' +
    "# check-config verifies every provider against it.\n\n" +
    `lock_file_version = ${LOCK_FILE_VERSION}\n`;
  const names = [...lock.providers.keys()].sort();
  for (const name of names) {
    const p = lock.providers.get(name)!;
    const entries: [string, HclValue][] = [
      ["source", p.source],
      ["version", p.version],
      ["resolved_at", p.resolvedAt],
    ];
    out += `\nprovider ${hclString(name)} {\n`;
    out += formatAttributes(entries, "  ");
    const sums = Object.keys(p.checksums).sort().map((k) =>
      [k, p.checksums[k]!] as [string, HclValue]
    );
    out += sums.length === 0
      ? "  checksums = {}\n"
      : `  checksums = {\n${formatAttributes(sums, "    ", true)}  }\n`;
    if (p.category !== undefined) {
      out += formatAttributes([["category", p.category]], "  ");
    }
    if (p.envelope !== undefined) {
      const env: [string, HclValue][] = ENVELOPE_KEYS.map((
        k,
      ) => [k, [...p.envelope![k]]]);
      out += `  envelope = {\n${formatAttributes(env, "    ")}  }\n`;
    }
    if (p.configSchema !== undefined) {
      out += `  config_schema = ${
        formatValue(schemaToHcl(p.configSchema), "  ")
      }\n`;
    }
    if (p.tools !== undefined) {
      out += `  tools = ${
        formatValue(
          p.tools.map((t) => ({
            name: t.name,
            kind: t.kind,
            risk: t.risk,
            ...(t.subagents ? { subagents: true } : {}),
          })),
          "  ",
        )
      }\n`;
    }
    if (p.acceptedWidening !== undefined) {
      out += `  accepted_widening = ${formatValue(p.acceptedWidening, "  ")}\n`;
    }
    out += "}\n";
  }
  return out;
}
