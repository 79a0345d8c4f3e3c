/**
 * Semantic versions as `npm:semver` 7 reads them in strict mode (`parse`,
 * `compare`, `compareBuild`), without loading it: the package is
 * CommonJS, and loading Deno's CommonJS support for it cost every
 * `check-config` process about 0.14 s of CPU and 20 MB, more than an
 * empty `deno run` takes. `_semver_test.ts` checks every function against
 * the package. Not part of the API.
 *
 * @module
 */

/** A parsed version, with the fields of `npm:semver`'s `SemVer` we use. */
export interface SemVer {
  /** Major number. */
  readonly major: number;
  /** Minor number. */
  readonly minor: number;
  /** Patch number. */
  readonly patch: number;
  /** Pre-release identifiers; numeric ones as numbers. */
  readonly prerelease: readonly (string | number)[];
  /** Build metadata identifiers. */
  readonly build: readonly string[];
  /** `major.minor.patch[-prerelease]`, without build metadata. */
  readonly version: string;
}

/** `npm:semver`'s `MAX_LENGTH`: a longer text is not a version. */
const MAX_LENGTH = 256;

/** `npm:semver`'s strict `FULL` expression. */
const FULL_REGEXP =
  /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:\d*[a-zA-Z-][a-zA-Z0-9-]*|0|[1-9]\d*)(?:\.(?:\d*[a-zA-Z-][a-zA-Z0-9-]*|0|[1-9]\d*))*))?(?:\+([a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)*))?$/;
const NUMERIC_REGEXP = /^[0-9]+$/;

/**
 * Parses a version as `semver.parse(text)` does (strict; surrounding white
 * space and a leading `v` are accepted).
 *
 * @param text The version text.
 * @returns The version, or `undefined` when `semver.parse` gives `null`.
 */
export function parseSemVer(text: string): SemVer | undefined {
  if (typeof text !== "string" || text.length > MAX_LENGTH) return undefined;
  const m = FULL_REGEXP.exec(text.trim());
  if (m === null) return undefined;
  const major = +m[1]!;
  const minor = +m[2]!;
  const patch = +m[3]!;
  if (
    major > Number.MAX_SAFE_INTEGER || minor > Number.MAX_SAFE_INTEGER ||
    patch > Number.MAX_SAFE_INTEGER
  ) return undefined;
  const prerelease = m[4] === undefined ? [] : m[4].split(".").map((id) => {
    if (NUMERIC_REGEXP.test(id)) {
      const num = +id;
      if (num >= 0 && num < Number.MAX_SAFE_INTEGER) return num;
    }
    return id;
  });
  const build = m[5] === undefined ? [] : m[5].split(".");
  let version = `${major}.${minor}.${patch}`;
  if (prerelease.length > 0) version += `-${prerelease.join(".")}`;
  return { major, minor, patch, prerelease, build, version };
}

/**
 * Compares two identifiers as `npm:semver` does: numbers numerically and
 * before words, words by code unit.
 */
function compareIdentifiers(a: string | number, b: string | number): number {
  if (typeof a === "number" && typeof b === "number") {
    return a === b ? 0 : a < b ? -1 : 1;
  }
  const aNum = NUMERIC_REGEXP.test(String(a));
  const bNum = NUMERIC_REGEXP.test(String(b));
  if (aNum && bNum) {
    a = +a;
    b = +b;
  }
  return a === b ? 0 : aNum && !bNum ? -1 : bNum && !aNum ? 1 : a < b ? -1 : 1;
}

/** Compares identifier lists element by element; a shorter list is less. */
function compareLists(
  a: readonly (string | number)[],
  b: readonly (string | number)[],
): number {
  for (let i = 0;; i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined && y === undefined) return 0;
    if (y === undefined) return 1;
    if (x === undefined) return -1;
    if (x !== y) return compareIdentifiers(x, y);
  }
}

/**
 * Version precedence, as `semver.compare`: numbers, then pre-release (a
 * version without one is greater); build metadata ignored.
 *
 * @param a A version.
 * @param b Another.
 * @returns -1, 0 or 1.
 */
export function compareSemVer(a: SemVer, b: SemVer): number {
  if (a.major !== b.major) return a.major < b.major ? -1 : 1;
  if (a.minor !== b.minor) return a.minor < b.minor ? -1 : 1;
  if (a.patch !== b.patch) return a.patch < b.patch ? -1 : 1;
  const ap = a.prerelease.length;
  const bp = b.prerelease.length;
  if (ap === 0 || bp === 0) return ap === bp ? 0 : ap === 0 ? 1 : -1;
  return compareLists(a.prerelease, b.prerelease);
}

/**
 * As {@linkcode compareSemVer}, then by build metadata, as
 * `semver.compareBuild`.
 *
 * @param a A version.
 * @param b Another.
 * @returns -1, 0 or 1.
 */
export function compareSemVerBuild(a: SemVer, b: SemVer): number {
  return compareSemVer(a, b) || compareLists(a.build, b.build);
}
