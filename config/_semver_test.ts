import assert from "node:assert/strict";
import semver from "semver";
import { compareSemVer, compareSemVerBuild, parseSemVer } from "./_semver.ts";
import {
  parseVersionConstraint,
  satisfies,
  toSemverRange,
} from "./version_constraint.ts";

/** Versions valid and not, with every kind of identifier and edge. */
const VERSIONS = [
  "0.0.0",
  "0.0.0-0",
  "0.0.0-alpha",
  "0.0.1",
  "0.1.0",
  "1.0.0",
  "v1.0.0",
  " 1.0.0 ",
  "=1.0.0",
  "01.0.0",
  "1.0",
  "1.0.0-",
  "1.0.0+",
  "1.0.0-alpha",
  "1.0.0-alpha.1",
  "1.0.0-alpha.beta",
  "1.0.0-alpha.-1",
  "1.0.0-beta",
  "1.0.0-beta.2",
  "1.0.0-beta.11",
  "1.0.0-rc.1",
  "1.0.0-01",
  "1.0.0-0a",
  "1.0.0-a..b",
  "1.0.0-9007199254740991",
  "1.0.0-9007199254740992",
  "1.0.0-99999999999999999999",
  "1.0.0+build",
  "1.0.0+build.2",
  "1.0.0+build.10",
  "1.0.0+001",
  "1.0.0+Build",
  "1.0.0-alpha+build",
  "1.2.3",
  "1.2.4",
  "1.3.0-0",
  "1.3.0",
  "2.0.0",
  "9007199254740991.0.0",
  "9007199254740992.0.0",
  "99999999999999999999.0.0",
  "1.2.3.4",
  "latest",
  "",
  `1.0.0-${"a".repeat(260)}`,
];

Deno.test("parseSemVer() reads every version as semver.parse does", () => {
  for (const text of VERSIONS) {
    const ours = parseSemVer(text);
    const theirs = semver.parse(text);
    if (theirs === null) {
      assert.equal(ours, undefined, text);
      continue;
    }
    assert.deepEqual(
      ours && {
        major: ours.major,
        minor: ours.minor,
        patch: ours.patch,
        prerelease: [...ours.prerelease],
        build: [...ours.build],
        version: ours.version,
      },
      {
        major: theirs.major,
        minor: theirs.minor,
        patch: theirs.patch,
        prerelease: theirs.prerelease,
        build: theirs.build,
        version: theirs.version,
      },
      text,
    );
  }
});

Deno.test("compareSemVer() and compareSemVerBuild() order every pair as semver.compare and semver.compareBuild", () => {
  const valid = VERSIONS.filter((v) => semver.parse(v) !== null);
  for (const a of valid) {
    for (const b of valid) {
      const pa = parseSemVer(a)!;
      const pb = parseSemVer(b)!;
      assert.equal(compareSemVer(pa, pb), semver.compare(a, b), `${a} ${b}`);
      assert.equal(
        compareSemVerBuild(pa, pb),
        semver.compareBuild(a, b),
        `${a} ${b}`,
      );
    }
  }
});

Deno.test("satisfies() accepts what the npm range of each condition accepts", () => {
  const constraints = [
    "1.0.0",
    "= 1.0.0-beta.2",
    "= 1.0.0+build.2",
    "!= 1.0.0",
    "!= 1.0.0+build",
    "> 1.0.0-alpha",
    ">= 0.0.0",
    ">= 0.0",
    "< 1.3",
    "<= 1.0.0-rc.1",
    "~> 1.2",
    "~> 1.2.3",
    "~> 0",
    "~> 0.0.0",
    "~> 1.0.0-beta",
    "~> 1.2, != 1.2.4",
    "= 1.3.0-0, ~> 1.2",
    "= 0.0.0-alpha, >= 0.0.0",
  ];
  const candidates = VERSIONS.filter((v) =>
    /^v?\d+\.\d+\.\d+(?:[-+].*)?$/.test(v)
  );
  for (const text of constraints) {
    const { constraint } = parseVersionConstraint(text);
    assert.ok(constraint, text);
    for (const version of candidates) {
      const parsed = semver.parse(version.replace(/^v/, ""));
      // The old implementation: each condition's npm range with
      // pre-releases included, the build an `=`/`!=` names, and a
      // pre-release only when an `=` names it.
      let expected = parsed !== null;
      if (parsed !== null) {
        for (const c of constraint.conditions) {
          const inRange = new semver.Range(toSemverRange(c), {
            includePrerelease: true,
          }).test(parsed);
          const plus = c.version.indexOf("+");
          const build = plus < 0 ||
            parsed.build.join(".") === c.version.slice(plus + 1);
          const holds = c.operator === "="
            ? inRange && build
            : c.operator === "!="
            ? inRange || !build
            : inRange;
          if (!holds) expected = false;
        }
        if (
          expected && parsed.prerelease.length > 0 &&
          !constraint.conditions.some((c) => c.operator === "=")
        ) expected = false;
      }
      assert.equal(
        satisfies(version, constraint),
        expected,
        `${version} against ${text}`,
      );
    }
  }
});
