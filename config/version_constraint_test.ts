import assert from "node:assert/strict";
import type { SourceRange } from "../contract/diagnostic.ts";
import {
  CONSTRAINT_OPERATORS,
  formatVersionConstraint,
  isSatisfiable,
  parseVersionConstraint,
  satisfies,
  selectNewest,
  toSemverRange,
  type VersionCondition,
  type VersionConstraint,
} from "./version_constraint.ts";

function mustParse(text: string): VersionConstraint {
  const { constraint, diagnostics } = parseVersionConstraint(text);
  assert.deepEqual(diagnostics, [], `parse ${JSON.stringify(text)}`);
  assert.ok(constraint);
  return constraint;
}

function cond(
  operator: VersionCondition["operator"],
  version: string,
  segments: 1 | 2 | 3 = 3,
): VersionCondition {
  return { operator, version, segments };
}

Deno.test("parseVersionConstraint() parses valid constraints", async (t) => {
  const cases: [string, VersionCondition[]][] = [
    ["1", [cond("=", "1.0.0", 1)]],
    ["1.1", [cond("=", "1.1.0", 2)]],
    ["1.1.1", [cond("=", "1.1.1")]],
    ["= 1.1.1", [cond("=", "1.1.1")]],
    ["=1.1.1", [cond("=", "1.1.1")]],
    ["!= 1.1.1", [cond("!=", "1.1.1")]],
    ["!=1.1", [cond("!=", "1.1.0", 2)]],
    ["> 1.1.1", [cond(">", "1.1.1")]],
    [">1.1.1", [cond(">", "1.1.1")]],
    [">= 1.1.1", [cond(">=", "1.1.1")]],
    [">=1.1.1", [cond(">=", "1.1.1")]],
    ["< 1.1.1", [cond("<", "1.1.1")]],
    ["<= 1.1.1", [cond("<=", "1.1.1")]],
    ["~> 1.1.1", [cond("~>", "1.1.1")]],
    ["~> 1.1", [cond("~>", "1.1.0", 2)]],
    ["~> 1", [cond("~>", "1.0.0", 1)]],
    ["~>0.9", [cond("~>", "0.9.0", 2)]],
    ["1.0.0-beta2", [cond("=", "1.0.0-beta2")]],
    ["1.0-beta2", [cond("=", "1.0.0-beta2", 2)]],
    ["1.0.0-beta.2", [cond("=", "1.0.0-beta.2")]],
    ["1.0.0+foo", [cond("=", "1.0.0+foo")]],
    ["1.0.0+foo.bar", [cond("=", "1.0.0+foo.bar")]],
    ["1.0.0-beta1+foo.bar", [cond("=", "1.0.0-beta1+foo.bar")]],
    ["1.0.0-rc-1", [cond("=", "1.0.0-rc-1")]],
    ["1.0.0-0", [cond("=", "1.0.0-0")]],
    ["~> 1.2.3-beta", [cond("~>", "1.2.3-beta")]],
    ["0.0.0", [cond("=", "0.0.0")]],
    ["01.002.3", [cond("=", "1.2.3")]],
    ["  >= 1.0  ", [cond(">=", "1.0.0", 2)]],
    [">= 1.0, < 2", [cond(">=", "1.0.0", 2), cond("<", "2.0.0", 1)]],
    [">= 1.0,< 2", [cond(">=", "1.0.0", 2), cond("<", "2.0.0", 1)]],
    [">= 1.0 ,   < 2", [cond(">=", "1.0.0", 2), cond("<", "2.0.0", 1)]],
    [">= 2.1.0, < 3.0.0", [cond(">=", "2.1.0"), cond("<", "3.0.0")]],
    [
      "~> 0.9, != 0.9.8, != 0.9.9",
      [cond("~>", "0.9.0", 2), cond("!=", "0.9.8"), cond("!=", "0.9.9")],
    ],
    ["1.2.3, 1.2.3", [cond("=", "1.2.3"), cond("=", "1.2.3")]],
    [
      "9007199254740991.0.0",
      [cond("=", "9007199254740991.0.0")],
    ],
  ];
  for (const [input, want] of cases) {
    await t.step(JSON.stringify(input), () => {
      assert.deepEqual(mustParse(input).conditions, want);
    });
  }
});

Deno.test("parseVersionConstraint() rejects malformed constraints", async (t) => {
  // [input, a fragment the detail must contain]
  const cases: [string, string][] = [
    ["", "at least one condition"],
    ["   ", "at least one condition"],
    ["=> 1.1.1", 'did you mean ">="'],
    ["=>1.1.1", 'did you mean ">="'],
    ["=< 1.1.1", 'did you mean "<="'],
    ["== 1.1.1", 'did you mean "="'],
    ["~ 1.2", 'did you mean "~>"'],
    ["^1.2", 'did you mean "~>" (as in "~> 1.2")'],
    ["~= 1.2", 'did you mean "~>"'],
    ["<> 1.2", 'did you mean "!="'],
    ["& 1.1.0", 'Unknown operator "&"'],
    [">== 1.0", 'Unknown operator ">=="'],
    ["=  1.1.1", 'Only one space is allowed after the operator "="'],
    [">=\t1.0", 'Only one space is allowed after the operator ">="'],
    ["v1.0.0", '"v" prefix'],
    [">= v1.0.0", '"v" prefix'],
    ["~> v1.1.1", '"v" prefix'],
    [">= 1.0, < v2.0", '"v" prefix'],
    ["1.0.0.0", "at most three"],
    ["garbage", "Expected a version number"],
    [">=", "Expected a version number"],
    ["1.*.*", "omit the minor segment"],
    ["1.0.x", "omit the patch segment"],
    ["*", "omit the major segment"],
    ["1.X", "Wildcards are not supported"],
    ["1.0 || 2.0", '"||"'],
    ["1.0.0 - 2.0.0", "Hyphen ranges"],
    [">= 1.0 < 2", 'Missing comma after ">= 1.0"'],
    ["1.0 2.0", 'Missing comma after "1.0"'],
    [">= 1.0,", "after the last comma"],
    [", >= 1.0", "before the first comma"],
    [">= 1.0,, < 2.0", "between two commas"],
    ["1.0.0-", 'at least one identifier after "-"'],
    ["1.0.0+", 'at least one identifier after "+"'],
    ["1.0.0-beta..2", 'Invalid pre-release "beta..2"'],
    ["1.0.0-beta.01", 'Invalid pre-release "beta.01"'],
    ["1.0.0+a..b", 'Invalid build metadata "a..b"'],
    ["1.0.0-be_ta", 'Unexpected "_ta"'],
    ["1.2.3 foo", 'Unexpected "foo"'],
    ["99999999999999999999.0.0", "too large"],
    ["V1.0", "Expected a version number"],
  ];
  for (const [input, fragment] of cases) {
    await t.step(JSON.stringify(input), () => {
      const { constraint, diagnostics } = parseVersionConstraint(input);
      assert.equal(constraint, undefined);
      assert.equal(diagnostics.length, 1);
      const [d] = diagnostics;
      assert.equal(d?.severity, "error");
      assert.equal(d?.code, "E_INVALID_VALUE");
      assert.equal(
        d?.summary,
        `Invalid version constraint ${JSON.stringify(input)}`,
      );
      assert.ok(
        d?.detail?.includes(fragment),
        `detail ${JSON.stringify(d?.detail)} should contain ${
          JSON.stringify(fragment)
        }`,
      );
    });
  }
});

Deno.test("parseVersionConstraint() reports every malformed condition", () => {
  const { constraint, diagnostics } = parseVersionConstraint(
    "=> 1.0, < 2.0, v3",
  );
  assert.equal(constraint, undefined);
  assert.equal(diagnostics.length, 2);
  assert.match(diagnostics[0]!.detail!, /did you mean ">="/);
  assert.match(diagnostics[1]!.detail!, /"v" prefix/);
});

Deno.test("parseVersionConstraint() puts the given range on its diagnostics", () => {
  const range: SourceRange = {
    file: "agent.hcl",
    start: { line: 3, column: 15, byte: 40 },
    end: { line: 3, column: 23, byte: 48 },
  };
  const { diagnostics } = parseVersionConstraint("=> 1.0", range);
  assert.deepEqual(diagnostics[0]?.range, range);
  assert.equal(
    "range" in parseVersionConstraint("=> 1.0").diagnostics[0]!,
    false,
  );
});

Deno.test("parseVersionConstraint() throws a TypeError for a non-string", () => {
  assert.throws(
    () => parseVersionConstraint(12 as unknown as string),
    TypeError,
  );
});

Deno.test("toSemverRange() translates each operator", async (t) => {
  const cases: [string, string][] = [
    ["1.2.3", "=1.2.3"],
    ["= 1.2", "=1.2.0"],
    ["1.2.3+build.5", "=1.2.3"],
    ["!= 1.2.3", "<1.2.3 || >1.2.3"],
    ["> 1.2.3", ">1.2.3"],
    [">= 1.2", ">=1.2.0"],
    ["< 2", "<2.0.0"],
    ["<= 1.2.3-rc.1", "<=1.2.3-rc.1"],
    ["~> 1.2.3", ">=1.2.3 <1.3.0"],
    ["~> 1.2.0", ">=1.2.0 <1.3.0"],
    ["~> 1.2", ">=1.2.0 <2.0.0"],
    ["~> 0.9", ">=0.9.0 <1.0.0"],
    ["~> 1", ">=1.0.0 <2.0.0"],
    ["~> 0", ">=0.0.0 <1.0.0"],
    ["~> 0.0.1", ">=0.0.1 <0.1.0"],
    ["~> 1.2.3-beta", ">=1.2.3-beta <1.3.0"],
    ["~> 1.0-beta2", ">=1.0.0-beta2 <2.0.0"],
  ];
  for (const [input, want] of cases) {
    await t.step(`${input} -> ${want}`, () => {
      const [c] = mustParse(input).conditions;
      assert.equal(toSemverRange(c!), want);
    });
  }
});

Deno.test("satisfies() follows Terraform's semantics", async (t) => {
  // [constraint, version, acceptable?]
  const cases: [string, string, boolean][] = [
    // exact
    ["1.2.3", "1.2.3", true],
    ["1.2.3", "1.2.4", false],
    ["= 1.2", "1.2.0", true],
    ["= 1.2", "1.2.1", false],
    ["1", "1.0.0", true],
    ["1", "1.1.0", false],
    // != and the others
    ["!= 1.2.3", "1.2.3", false],
    ["!= 1.2.3", "1.2.4", true],
    ["!= 1.2", "1.2.0", false],
    ["> 1.2.3", "1.2.3", false],
    ["> 1.2.3", "1.2.4", true],
    [">= 1.2.3", "1.2.3", true],
    [">= 1.2.3", "1.2.2", false],
    ["< 2", "1.99.99", true],
    ["< 2", "2.0.0", false],
    ["<= 2.0.0", "2.0.0", true],
    ["<= 2.0.0", "2.0.1", false],
    // ~> with three segments: only the patch may grow
    ["~> 1.2.3", "1.2.3", true],
    ["~> 1.2.3", "1.2.9", true],
    ["~> 1.2.3", "1.2.2", false],
    ["~> 1.2.3", "1.3.0", false],
    ["~> 1.2.0", "1.2.7", true],
    ["~> 1.2.0", "1.3.0", false],
    // ~> with two segments: the minor may grow
    ["~> 1.2", "1.2.0", true],
    ["~> 1.2", "1.9.9", true],
    ["~> 1.2", "1.1.9", false],
    ["~> 1.2", "2.0.0", false],
    ["~> 0.9", "0.9.7", true],
    ["~> 0.9", "0.10.0", true],
    ["~> 0.9", "1.0.0", false],
    // ~> with one segment: Terraform's provider parser bounds it above
    ["~> 1", "1.0.0", true],
    ["~> 1", "1.9.3", true],
    ["~> 1", "0.9.0", false],
    ["~> 1", "2.0.0", false],
    ["~> 1", "3.0.0", false],
    // intersection
    [">= 2.1.0, < 3.0.0", "2.1.0", true],
    [">= 2.1.0, < 3.0.0", "2.9.9", true],
    [">= 2.1.0, < 3.0.0", "3.0.0", false],
    [">= 2.1.0, < 3.0.0", "2.0.9", false],
    ["~> 0.9, != 0.9.8", "0.9.8", false],
    ["~> 0.9, != 0.9.8", "0.9.9", true],
    [">= 2.0, < 1.5", "1.7.0", false],
    // pre-releases: only an exact "=" admits one
    [">= 1.2.0", "1.3.0-beta.2", false],
    ["~> 1.2", "1.3.0-beta.2", false],
    ["< 2.0.0", "2.0.0-rc.1", false],
    ["!= 1.0.0", "1.3.0-beta.2", false],
    [">= 1.0.0-beta", "1.0.0-beta", false],
    [">= 1.0.0-beta", "1.0.0", true],
    ["~> 1.2.3-beta", "1.2.3", true],
    ["~> 1.2.3-beta", "1.2.3-beta", false],
    ["1.3.0-beta.2", "1.3.0-beta.2", true],
    ["= 1.3.0-beta.2", "1.3.0-beta.2", true],
    ["= 1.3.0-beta.2", "1.3.0-beta.3", false],
    ["= 1.3.0-beta.2", "1.3.0", false],
    ["1.3.0-beta.2, >= 1.0", "1.3.0-beta.2", true],
    ["1.3.0-beta.2, >= 2.0", "1.3.0-beta.2", false],
    ["1.3.0-beta.2, != 1.3.0-beta.2", "1.3.0-beta.2", false],
    ["1.3-beta.2", "1.3.0-beta.2", true],
    // build metadata: ignored for ordering, compared by = / != when named
    ["1.2.3", "1.2.3+linux", true],
    ["1.2.3+linux", "1.2.3+linux", true],
    ["1.2.3+linux", "1.2.3+darwin", false],
    ["1.2.3+linux", "1.2.3", false],
    ["!= 1.2.3+linux", "1.2.3+darwin", true],
    ["!= 1.2.3+linux", "1.2.3+linux", false],
    ["!= 1.2.3", "1.2.3+linux", false],
    [">= 1.2.3+zzz", "1.2.3+aaa", true],
    ["> 1.2.3", "1.2.3+linux", false],
    ["~> 1.2.3", "1.2.4+build.7", true],
    // the candidate's form
    [">= 1.0", "v1.2.3", true],
    [">= 1.0", "V1.2.3", false],
    [">= 1.0", "=1.2.3", false],
    [">= 1.0", "1.2", false],
    [">= 1.0", " 1.2.3", false],
    [">= 1.0", "1.02.3", false],
    [">= 1.0", "latest", false],
    [">= 1.0", "", false],
  ];
  for (const [constraint, version, want] of cases) {
    await t.step(`${version} ${want ? "meets" : "fails"} ${constraint}`, () => {
      assert.equal(satisfies(version, mustParse(constraint)), want);
    });
  }
});

Deno.test("selectNewest() picks the newest acceptable version", async (t) => {
  const tags = [
    "v0.8.0",
    "v0.9.0",
    "v0.9.7",
    "v0.9.8",
    "v0.10.1",
    "v1.0.0-rc.1",
    "v1.0.0",
    "v1.1.0",
    "v1.3.0-beta.2",
    "v2.0.0",
    "nightly",
  ];
  const cases: [string, string | undefined][] = [
    ["~> 0.9", "v0.10.1"],
    ["~> 0.9.0", "v0.9.8"],
    ["~> 0.9.0, != 0.9.8", "v0.9.7"],
    ["~> 1", "v1.1.0"],
    ["~> 1.0", "v1.1.0"],
    [">= 0.1", "v2.0.0"],
    ["< 1.0.0", "v0.10.1"],
    ["> 2.0.0", undefined],
    ["1.0.0-rc.1", "v1.0.0-rc.1"],
    ["1.3.0-beta.2", "v1.3.0-beta.2"],
    ["= 1.3.0-beta.3", undefined],
    [">= 1.0.0-rc.1, < 1.0.1", "v1.0.0"],
    ["0.9.7", "v0.9.7"],
    ["!= 2.0.0", "v1.1.0"],
  ];
  for (const [constraint, want] of cases) {
    await t.step(`${constraint} -> ${want}`, () => {
      assert.equal(selectNewest(tags, mustParse(constraint)), want);
    });
  }
  await t.step("the input order does not matter", () => {
    const c = mustParse("~> 1");
    assert.equal(selectNewest([...tags].reverse(), c), "v1.1.0");
    assert.equal(selectNewest(["1.0.0+b", "1.0.0+a"], c), "1.0.0+b");
    assert.equal(selectNewest(["1.0.0+a", "1.0.0+b"], c), "1.0.0+b");
  });
  await t.step("an empty list selects nothing", () => {
    assert.equal(selectNewest([], mustParse(">= 0")), undefined);
  });
  await t.step("any iterable works", () => {
    const set = new Set(["1.0.0", "1.2.0"]);
    assert.equal(selectNewest(set, mustParse("~> 1.0")), "1.2.0");
  });
});

Deno.test("formatVersionConstraint() writes the canonical form", async (t) => {
  const cases: [string, string][] = [
    ["1.2.3", "1.2.3"],
    ["= 1.2", "1.2"],
    ["=1", "1"],
    ["01.02.03", "1.2.3"],
    ["!=1.2", "!= 1.2"],
    [">1.2.3", "> 1.2.3"],
    [">=1.2", ">= 1.2"],
    ["<2", "< 2"],
    ["1.0-beta2", "1.0-beta2"],
    ["<=2.0.1", "<= 2.0.1"],
    ["~>1.2.3", "~> 1.2.3"],
    ["~>1.2", "~> 1.2"],
    ["~>1", "~> 1"],
    ["~> 1.0-beta2", "~> 1.0-beta2"],
    ["~> 1-rc.1+b", "~> 1-rc.1+b"],
    ["1.3.0-beta.2+linux", "1.3.0-beta.2+linux"],
    [" >= 2.1.0 ,< 3.0.0 ", ">= 2.1.0, < 3.0.0"],
    ["~> 0.9, != 0.9.8", "~> 0.9, != 0.9.8"],
  ];
  for (const [input, want] of cases) {
    await t.step(`${JSON.stringify(input)} -> ${JSON.stringify(want)}`, () => {
      const c = mustParse(input);
      assert.equal(formatVersionConstraint(c), want);
      // Round trip: the canonical text means the same thing.
      assert.deepEqual(mustParse(want), c);
    });
  }
});

Deno.test("isSatisfiable() finds constraints no version can meet", async (t) => {
  const cases: [string, boolean][] = [
    [">= 1.0", true],
    ["~> 1.2", true],
    [">= 2.0, < 1.5", false],
    [">= 1.5, < 1.5", false],
    [">= 1.5, <= 1.5", true],
    ["> 1.5.0, <= 1.5.0", false],
    ["> 1.0.0, < 1.0.1", false],
    ["> 1.0.0, <= 1.0.1", true],
    [">= 1.0.0, < 1.0.1, != 1.0.0", false],
    [">= 1.0.0, < 1.0.2, != 1.0.0", true],
    ["~> 1.2.3, != 1.2.3", true],
    ["~> 1.2.3, >= 1.3.0", false],
    ["~> 1, ~> 2", false],
    ["~> 1.2, ~> 1.4", true],
    ["< 0.0.1", true],
    ["< 0.0.0", false],
    ["!= 0.0.0", true],
    ["1.2.3", true],
    ["1.2.3, != 1.2.3", false],
    ["1.2.3, 1.2.4", false],
    ["1.2.3, >= 1.0, < 2.0", true],
    ["1.2.3, ~> 1.3", false],
    ["1.3.0-beta.2", true],
    ["1.3.0-beta.2, >= 1.3.0", false],
    [">= 1.0.0-beta, < 1.0.0", false], // only pre-releases lie in between
    ["> 1.0.0-beta, <= 1.0.0", true],
    ["!= 1.2.3+linux, = 1.2.3+linux", false],
    [`> ${Number.MAX_SAFE_INTEGER}.0.0`, true],
    [`> 0.0.${Number.MAX_SAFE_INTEGER}, < 0.1.0`, false],
  ];
  for (const [input, want] of cases) {
    await t.step(`${input} -> ${want}`, () => {
      assert.equal(isSatisfiable(mustParse(input)), want);
    });
  }
});

Deno.test("CONSTRAINT_OPERATORS lists the seven Terraform operators", () => {
  assert.deepEqual(
    [...CONSTRAINT_OPERATORS].sort(),
    ["!=", "<", "<=", "=", ">", ">=", "~>"],
  );
  for (const op of CONSTRAINT_OPERATORS) {
    const c = mustParse(`${op} 1.2.3`);
    assert.equal(c.conditions[0]?.operator, op);
  }
});
