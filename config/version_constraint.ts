/**
 * Provider version constraints with Terraform's semantics (config.md §5.6):
 * the operators `=`, `!=`, `>`, `>=`, `<`, `<=` and `~>`, comma-separated
 * conditions that must all hold, and pre-releases only when an exact `=`
 * names them.
 *
 * Parsing is ours (it follows the "Ruby-style" parser Terraform uses for
 * provider requirements, including its error cases); comparison goes through
 * `npm:semver`, reached through {@linkcode toSemverRange}, a small translation
 * of each condition into an npm range.
 *
 * Pure: no I/O, no state.
 *
 * @example Parse, test and select
 * ```ts
 * import {
 *   formatVersionConstraint,
 *   parseVersionConstraint,
 *   satisfies,
 *   selectNewest,
 * } from "./version_constraint.ts";
 * import assert from "node:assert/strict";
 *
 * const { constraint, diagnostics } = parseVersionConstraint("~> 1.2");
 * assert.equal(diagnostics.length, 0);
 * assert.ok(constraint);
 * assert.ok(satisfies("1.9.0", constraint)); // ~> 1.2 means >= 1.2.0, < 2.0.0
 * assert.ok(!satisfies("2.0.0", constraint));
 * assert.equal(selectNewest(["1.1.0", "1.4.2", "2.0.0", "1.5.0-rc.1"], constraint), "1.4.2");
 * assert.equal(formatVersionConstraint(constraint), "~> 1.2");
 *
 * const bad = parseVersionConstraint("=> 1.0");
 * assert.equal(bad.constraint, undefined);
 * assert.equal(bad.diagnostics[0]?.code, "E_INVALID_VALUE");
 * ```
 *
 * @module
 */
import type { Diagnostic, SourceRange } from "../contract/diagnostic.ts";
import {
  compareSemVer,
  compareSemVerBuild,
  parseSemVer,
  type SemVer,
} from "./_semver.ts";

/** The seven constraint operators (`=` is also what a bare version means). */
export type ConstraintOperator = "=" | "!=" | ">" | ">=" | "<" | "<=" | "~>";

/** Every constraint operator, in the order the documentation lists them. */
export const CONSTRAINT_OPERATORS: readonly ConstraintOperator[] = [
  "=",
  "!=",
  ">",
  ">=",
  "<",
  "<=",
  "~>",
];

/** One condition of a constraint: an operator applied to a version. */
export interface VersionCondition {
  /** The operator; a version written without one gets `=`. */
  readonly operator: ConstraintOperator;
  /**
   * The version, normalised to a full semver string: missing numeric
   * segments are zero (`1.2` becomes `1.2.0`), and any pre-release and build
   * metadata are kept (`1.3.0-beta.2+linux`).
   */
  readonly version: string;
  /**
   * How many numeric segments were written (1 to 3). Only `~>` depends on
   * it: with 3 the patch may grow, with 1 or 2 the minor may grow.
   */
  readonly segments: 1 | 2 | 3;
}

/** A parsed constraint: a version is acceptable when it meets every condition. */
export interface VersionConstraint {
  /** The conditions in the order written (at least one). */
  readonly conditions: readonly VersionCondition[];
}

/** What {@linkcode parseVersionConstraint} returns. */
export type ParseVersionConstraintResult =
  | { constraint: VersionConstraint; diagnostics: [] }
  | { constraint: undefined; diagnostics: Diagnostic[] };

type SemVerLike = SemVer;

// What may stand before the version: any run of characters that are not
// digits, letters, spaces, dots or `*` (so that typos such as `=>` are seen
// whole and can be named).
const OPERATOR_REGEXP = /^[^0-9A-Za-z\s.*]*/;
const SEPARATOR_REGEXP = /^[\sv]*/;
const VERSION_REGEXP =
  /^((?:\d+|[*xX])(?:\.(?:\d+|[*xX]))*)(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?/;
const CANDIDATE_REGEXP =
  /^v?(?:0|[1-9]\d*)\.(?:0|[1-9]\d*)\.(?:0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
const IDENTIFIERS_REGEXP = /^[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*$/;
const LEADING_ZERO_REGEXP = /^0\d+$/;

const MISSPELLED: Readonly<Record<string, ConstraintOperator>> = {
  "=>": ">=",
  "=<": "<=",
  "==": "=",
  "~": "~>",
  "~=": "~>",
  "=~": "~>",
  "^": "~>",
  "<>": "!=",
  "!": "!=",
};
const SEGMENT_NAMES = ["major", "minor", "patch"] as const;

/**
 * Parses a constraint string such as `">= 2.1.0, < 3.0.0"` or `"~> 0.9"`.
 *
 * Rules (Terraform's provider constraints): conditions are separated by
 * commas and all must hold; each is an optional operator, at most one space,
 * then a version of one to three numeric segments with an optional
 * `-prerelease` and `+metadata`. A `v` prefix, wildcards, `||`, hyphen
 * ranges, an empty condition and misspelled operators such as `=>` are
 * errors. Every malformed condition gets its own diagnostic (code
 * `E_INVALID_VALUE`); user input never makes this function throw.
 *
 * @example Usage
 * ```ts
 * import { parseVersionConstraint } from "./version_constraint.ts";
 * import assert from "node:assert/strict";
 *
 * const { constraint } = parseVersionConstraint(">= 2.1, < 3");
 * assert.deepEqual(constraint?.conditions, [
 *   { operator: ">=", version: "2.1.0", segments: 2 },
 *   { operator: "<", version: "3.0.0", segments: 1 },
 * ]);
 * ```
 *
 * @param text The constraint as written in `agent.hcl` (the string's value).
 * @param range Where the string is, for the diagnostics.
 * @returns The constraint, or `undefined` with at least one error.
 */
export function parseVersionConstraint(
  text: string,
  range?: SourceRange,
): ParseVersionConstraintResult {
  const diagnostics: Diagnostic[] = [];
  const fail = (detail: string) => {
    diagnostics.push(invalid(text, detail, range));
  };
  if (typeof text !== "string") {
    throw new TypeError(
      `Cannot parse version constraint: expected a string, got ${typeof text}`,
    );
  }
  if (text.trim() === "") {
    fail(
      'A version constraint needs at least one condition, such as "~> 1.2" or ">= 1.0.0, < 2.0.0".',
    );
    return { constraint: undefined, diagnostics };
  }
  const conditions: VersionCondition[] = [];
  const parts = text.split(",");
  for (const [i, part] of parts.entries()) {
    const condition = part.trim();
    if (condition === "") {
      const where = i === 0
        ? "before the first comma"
        : i === parts.length - 1
        ? "after the last comma"
        : "between two commas";
      fail(
        `The condition ${where} is empty. Separate conditions with single commas, as in ">= 1.0.0, < 2.0.0".`,
      );
      continue;
    }
    const parsed = parseCondition(condition);
    if (typeof parsed === "string") fail(parsed);
    else conditions.push(parsed);
  }
  if (diagnostics.length > 0) return { constraint: undefined, diagnostics };
  return { constraint: { conditions }, diagnostics: [] };
}

// Returns the condition, or the detail of what is wrong with it.
function parseCondition(text: string): VersionCondition | string {
  const op = OPERATOR_REGEXP.exec(text)![0];
  let rest = text.slice(op.length);
  const sep = SEPARATOR_REGEXP.exec(rest)![0];
  rest = rest.slice(sep.length);
  const quoted = JSON.stringify(text);
  if (!isOperator(op)) {
    const fix = MISSPELLED[op];
    if (fix !== undefined) {
      const suggestion = `${fix} ${rest.trim() || "1.2.0"}`;
      return `Unknown operator "${op}" in ${quoted}: did you mean "${fix}" (as in "${suggestion}")? The operators are ${listOperators()}.`;
    }
    return `Unknown operator "${op}" in ${quoted}. The operators are ${listOperators()}.`;
  }
  if (sep.includes("v")) {
    return `Remove the "v" prefix in ${quoted}: constraints name versions without it (tags such as "v1.2.3" are matched as "1.2.3").`;
  }
  if (sep !== "" && sep !== " ") {
    return `Only one space is allowed after the operator "${op}" in ${quoted}.`;
  }
  const m = VERSION_REGEXP.exec(rest);
  if (m === null) {
    return `Expected a version number such as "1.2.3" in ${quoted}.`;
  }
  const [matched, numsText, pre, build] = m as unknown as [
    string,
    string,
    string | undefined,
    string | undefined,
  ];
  const nums = numsText.split(".");
  if (nums.length > 3) {
    return `Too many numeric segments in ${quoted}: at most three are allowed (major.minor.patch).`;
  }
  const values: number[] = [];
  for (const [i, n] of nums.entries()) {
    if (/^[*xX]$/.test(n)) {
      return `Wildcards are not supported in ${quoted}: omit the ${
        SEGMENT_NAMES[i]
      } segment instead, or use "~>" (for example "~> 1.2").`;
    }
    const value = Number(n);
    if (!Number.isSafeInteger(value)) {
      return `The ${
        SEGMENT_NAMES[i]
      } segment "${n}" in ${quoted} is too large.`;
    }
    values.push(value);
  }
  if (pre !== undefined && !isValidPrerelease(pre)) {
    return `Invalid pre-release "${pre}" in ${quoted}: use dot-separated alphanumeric identifiers, with no leading zeros in numeric ones (for example "beta.2").`;
  }
  if (build !== undefined && !IDENTIFIERS_REGEXP.test(build)) {
    return `Invalid build metadata "${build}" in ${quoted}: use dot-separated alphanumeric identifiers.`;
  }
  const tail = rest.slice(matched.length);
  if (tail !== "") {
    const t = tail.trim();
    const head = `${op}${sep}${matched}`;
    if (tail.startsWith("-") && pre === undefined) {
      return `Invalid pre-release in ${quoted}: write at least one identifier after "-" (for example "1.3.0-beta.2").`;
    }
    if (tail.startsWith("+")) {
      return `Invalid build metadata in ${quoted}: write at least one identifier after "+".`;
    }
    if (t.startsWith("||")) {
      return `Alternatives ("||") are not supported in ${quoted}: a constraint is a comma-separated list of conditions that must all hold.`;
    }
    if (t.startsWith("-")) {
      return `Hyphen ranges are not supported in ${quoted}: write ">= A, <= B" instead.`;
    }
    if (/^[<>=!~^0-9]/.test(t)) {
      return `Missing comma after "${head}" in ${quoted}: separate conditions with commas, as in ">= 1.0.0, < 2.0.0".`;
    }
    if (t.startsWith("v")) {
      return `Remove the "v" prefix in ${quoted}: constraints name versions without it.`;
    }
    return `Unexpected ${JSON.stringify(t)} after "${head}" in ${quoted}.`;
  }
  const [major = 0, minor = 0, patch = 0] = values;
  let version = `${major}.${minor}.${patch}`;
  if (pre !== undefined) version += `-${pre}`;
  if (build !== undefined) version += `+${build}`;
  return {
    operator: op === "" ? "=" : op,
    version,
    segments: values.length as 1 | 2 | 3,
  };
}

function isOperator(op: string): op is ConstraintOperator | "" {
  return op === "" || (CONSTRAINT_OPERATORS as readonly string[]).includes(op);
}

function listOperators(): string {
  return CONSTRAINT_OPERATORS.map((o) => `"${o}"`).join(", ");
}

function isValidPrerelease(pre: string): boolean {
  if (!IDENTIFIERS_REGEXP.test(pre)) return false;
  return pre.split(".").every((id) => !LEADING_ZERO_REGEXP.test(id));
}

function invalid(
  text: string,
  detail: string,
  range: SourceRange | undefined,
): Diagnostic {
  const d: Diagnostic = {
    severity: "error",
    code: "E_INVALID_VALUE",
    summary: `Invalid version constraint ${JSON.stringify(text)}`,
    detail,
  };
  if (range !== undefined) d.range = range;
  return d;
}

/**
 * Translates one condition into the equivalent `npm:semver` range (the
 * translation layer). Pre-release handling is not part of the translation:
 * {@linkcode satisfies} evaluates these ranges with `includePrerelease` and
 * then applies Terraform's rule itself. Build metadata is dropped here;
 * `=` and `!=` compare it separately when the condition names it.
 *
 * | Condition   | npm range            |
 * |-------------|----------------------|
 * | `~> 1.2.3`  | `>=1.2.3 <1.3.0`     |
 * | `~> 1.2`    | `>=1.2.0 <2.0.0`     |
 * | `~> 1`      | `>=1.0.0 <2.0.0`     |
 * | `!= 1.2.0`  | `<1.2.0 \|\| >1.2.0` |
 *
 * @example Usage
 * ```ts
 * import { parseVersionConstraint, toSemverRange } from "./version_constraint.ts";
 * import assert from "node:assert/strict";
 *
 * const { constraint } = parseVersionConstraint("~> 1.2.3");
 * assert.equal(toSemverRange(constraint!.conditions[0]!), ">=1.2.3 <1.3.0");
 * ```
 *
 * @param condition A parsed condition.
 * @returns An npm range string.
 */
export function toSemverRange(condition: VersionCondition): string {
  const v = withoutBuild(condition.version);
  switch (condition.operator) {
    case "=":
      return `=${v}`;
    case "!=":
      return `<${v} || >${v}`;
    case ">":
    case ">=":
    case "<":
    case "<=":
      return `${condition.operator}${v}`;
    case "~>": {
      const parsed = mustParse(v);
      const upper = condition.segments === 3
        ? `${parsed.major}.${parsed.minor + 1}.0`
        : `${parsed.major + 1}.0.0`;
      return `>=${v} <${upper}`;
    }
  }
}

/**
 * Tells whether a version is acceptable under a constraint: it meets every
 * condition and, if it is a pre-release, an exact `=` condition names it
 * (`>=`, `~>` and the others never admit a pre-release). Build metadata does
 * not affect ordering; `=` and `!=` compare it only when the condition names
 * it.
 *
 * The version must be a full semver version (`1.2.3`, `1.3.0-beta.2`); a
 * leading `v`, as on release tags, is accepted. Anything else is not
 * acceptable (`false`), so a list of tags can be filtered without checking
 * it first.
 *
 * @example Usage
 * ```ts
 * import { parseVersionConstraint, satisfies } from "./version_constraint.ts";
 * import assert from "node:assert/strict";
 *
 * const { constraint } = parseVersionConstraint(">= 1.2.0");
 * assert.ok(satisfies("v1.4.0", constraint!));
 * assert.ok(!satisfies("1.5.0-rc.1", constraint!)); // pre-releases need "="
 * ```
 *
 * @param version A version, e.g. from a release tag.
 * @param constraint A parsed constraint.
 * @returns `true` when the version is acceptable.
 */
export function satisfies(
  version: string,
  constraint: VersionConstraint,
): boolean {
  const v = parseCandidate(version);
  return v !== undefined && compile(constraint)(v);
}

/**
 * Picks the newest acceptable version from a list (Terraform's selection):
 * the highest semver precedence among the versions that
 * {@linkcode satisfies} accepts. Versions that are not valid semver (other
 * tags) are skipped. Ties between builds of the same version go to the
 * highest build metadata, so the input order never matters.
 *
 * @example Usage
 * ```ts
 * import { parseVersionConstraint, selectNewest } from "./version_constraint.ts";
 * import assert from "node:assert/strict";
 *
 * const { constraint } = parseVersionConstraint("~> 0.9, != 0.9.8");
 * const tags = ["v0.9.7", "v0.9.8", "v1.0.0", "latest"];
 * assert.equal(selectNewest(tags, constraint!), "v0.9.7");
 * ```
 *
 * @param versions Candidate versions (a leading `v` is accepted).
 * @param constraint A parsed constraint.
 * @returns The newest acceptable version as given, or `undefined`.
 */
export function selectNewest(
  versions: Iterable<string>,
  constraint: VersionConstraint,
): string | undefined {
  const accepts = compile(constraint);
  let best: { text: string; v: SemVerLike } | undefined;
  for (const text of versions) {
    const v = parseCandidate(text);
    if (v === undefined || !accepts(v)) continue;
    if (best === undefined || compareSemVerBuild(v, best.v) > 0) {
      best = { text, v };
    }
  }
  return best?.text;
}

/**
 * Tells whether any version could ever satisfy the constraint: whether some
 * released version lies within every bound and outside every `!=`, or some
 * exact `=` version meets all conditions. `">= 2.0.0, < 1.0.0"` and
 * `"> 1.0.0, < 1.0.1"` cannot be met.
 *
 * @example Usage
 * ```ts
 * import { isSatisfiable, parseVersionConstraint } from "./version_constraint.ts";
 * import assert from "node:assert/strict";
 *
 * assert.ok(!isSatisfiable(parseVersionConstraint(">= 2.0, < 1.5").constraint!));
 * assert.ok(isSatisfiable(parseVersionConstraint("~> 1.2, != 1.2.0").constraint!));
 * ```
 *
 * @param constraint A parsed constraint.
 * @returns `false` when no version can be acceptable.
 */
export function isSatisfiable(constraint: VersionConstraint): boolean {
  const accepts = compile(constraint);
  const exact = constraint.conditions.filter((c) => c.operator === "=");
  if (exact.length > 0) {
    return exact.some((c) => accepts(mustParse(c.version)));
  }
  // The smallest released version above every lower bound; bounds are
  // monotone, so if it fails an upper bound every larger one does too.
  let candidate = [0, 0, 0] as [number, number, number];
  for (const c of constraint.conditions) {
    if (c.operator !== ">" && c.operator !== ">=" && c.operator !== "~>") {
      continue;
    }
    const v = mustParse(c.version);
    const floor: [number, number, number] = [v.major, v.minor, v.patch];
    if (c.operator === ">" && v.prerelease.length === 0) floor[2]++;
    if (compareTriples(floor, candidate) > 0) candidate = floor;
  }
  const excluded =
    constraint.conditions.filter((c) =>
      c.operator === "!=" && !c.version.includes("+")
    ).length;
  for (let i = 0; i <= excluded; i++) {
    const v = parseSemVer(candidate.join("."));
    if (v === undefined) return false; // beyond the largest safe integer
    if (accepts(v)) return true;
    candidate = [candidate[0], candidate[1], candidate[2] + 1];
  }
  return false;
}

/**
 * Writes a constraint in canonical form: conditions in their written order,
 * separated by `", "`, one space after each operator, `=` left implicit, and
 * each version with the number of segments it was written with (which
 * carries meaning after `~>`). Leading zeros are dropped. Parsing the result
 * gives the same constraint back.
 *
 * @example Usage
 * ```ts
 * import { formatVersionConstraint, parseVersionConstraint } from "./version_constraint.ts";
 * import assert from "node:assert/strict";
 *
 * const { constraint } = parseVersionConstraint(">=1.2,<2 ,  ~>1.4");
 * assert.equal(formatVersionConstraint(constraint!), ">= 1.2, < 2, ~> 1.4");
 * ```
 *
 * @param constraint A parsed constraint.
 * @returns The canonical text.
 */
export function formatVersionConstraint(constraint: VersionConstraint): string {
  return constraint.conditions.map(formatCondition).join(", ");
}

function formatCondition(c: VersionCondition): string {
  let version = c.version;
  if (c.segments < 3) {
    const m = /^(\d+)\.(\d+)\.\d+(.*)$/.exec(version)!;
    version = c.segments === 1 ? `${m[1]}${m[3]}` : `${m[1]}.${m[2]}${m[3]}`;
  }
  return c.operator === "=" ? version : `${c.operator} ${version}`;
}

/**
 * Compiled constraints by their conditions (operator, version, segments:
 * all a test depends on): a configuration with thousands of providers
 * repeats a few constraints, and each npm range costs a parse.
 */
const compiled = new Map<string, (v: SemVerLike) => boolean>();
const MAX_COMPILED = 1024;

/** The test of each constraint object already compiled (shared by providers). */
const compiledByObject = new WeakMap<
  VersionConstraint,
  (v: SemVerLike) => boolean
>();

// Compiles a constraint into a test, building each npm range once.
function compile(constraint: VersionConstraint): (v: SemVerLike) => boolean {
  const known = compiledByObject.get(constraint);
  if (known !== undefined) return known;
  const key = constraint.conditions.map((c) =>
    `${c.operator} ${c.version} ${c.segments}`
  ).join(",");
  let test = compiled.get(key);
  if (test === undefined) {
    test = compileConditions(constraint);
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(key, test);
  }
  compiledByObject.set(constraint, test);
  return test;
}

function compileConditions(
  constraint: VersionConstraint,
): (v: SemVerLike) => boolean {
  const tests = constraint.conditions.map((c) => {
    const holds = conditionTest(c);
    return { exact: c.operator === "=", holds };
  });
  return (v) => {
    if (!tests.every((t) => t.holds(v))) return false;
    // Terraform: a pre-release is a candidate only when an exact condition
    // names it (every condition is already known to hold).
    return v.prerelease.length === 0 || tests.some((t) => t.exact);
  };
}

/**
 * One condition as a test: what `npm:semver`'s `Range` of
 * {@linkcode toSemverRange} with `includePrerelease` accepts (each of its
 * comparators is a plain precedence comparison then), plus the build
 * metadata an `=` or `!=` names.
 */
function conditionTest(c: VersionCondition): (v: SemVerLike) => boolean {
  const bound = mustParse(withoutBuild(c.version));
  switch (c.operator) {
    case "=":
      return (v) => compareSemVer(v, bound) === 0 && buildMatches(v, c);
    case "!=":
      return (v) => compareSemVer(v, bound) !== 0 || !buildMatches(v, c);
    case ">":
      return (v) => compareSemVer(v, bound) > 0;
    case ">=":
      return (v) => compareSemVer(v, bound) >= 0;
    case "<":
      return (v) => compareSemVer(v, bound) < 0;
    case "<=":
      return (v) => compareSemVer(v, bound) <= 0;
    case "~>": {
      const upper = mustParse(
        c.segments === 3
          ? `${bound.major}.${bound.minor + 1}.0`
          : `${bound.major + 1}.0.0`,
      );
      return (v) => compareSemVer(v, bound) >= 0 && compareSemVer(v, upper) < 0;
    }
  }
}

function buildMatches(v: SemVerLike, c: VersionCondition): boolean {
  const plus = c.version.indexOf("+");
  return plus < 0 || v.build.join(".") === c.version.slice(plus + 1);
}

function withoutBuild(version: string): string {
  const plus = version.indexOf("+");
  return plus < 0 ? version : version.slice(0, plus);
}

function parseCandidate(version: string): SemVerLike | undefined {
  if (typeof version !== "string" || !CANDIDATE_REGEXP.test(version)) {
    return undefined;
  }
  return parseSemVer(version.replace(/^v/, ""));
}

function mustParse(version: string): SemVerLike {
  const v = parseSemVer(version);
  if (v === undefined) {
    throw new TypeError(`Cannot use version "${version}": not valid semver`);
  }
  return v;
}

function compareTriples(
  a: readonly [number, number, number],
  b: readonly [number, number, number],
): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}
