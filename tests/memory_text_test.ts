/**
 * The memory provider's pure text helpers: slugs, links, words, lexical
 * scores and the near-match similarity; and the recall ranking.
 */
import assert from "node:assert/strict";
import {
  diceSimilarity,
  jaccard,
  lexicalScores,
  nearMatch,
  parseLinks,
  scoredDoc,
  slugify,
  uniqueSlug,
  words,
} from "../plugins/memory/_text.ts";
import { rank } from "../plugins/memory/_memory.ts";
import type { StoredRecord } from "../plugins/memory/_store.ts";

Deno.test("slugify: lower-case ASCII words joined by single hyphens, at most 64 characters", () => {
  assert.equal(slugify("Prefers tabs, not spaces!"), "prefers-tabs-not-spaces");
  assert.equal(slugify("  Café  Crème  "), "cafe-creme");
  assert.equal(slugify("!!!"), "memory");
  const long = slugify("word ".repeat(30));
  assert.ok(long.length <= 64 && !long.endsWith("-"), long);
  assert.equal(uniqueSlug("a", (s) => ["a", "a-2"].includes(s)), "a-3");
  assert.equal(uniqueSlug("b", () => false), "b");
});

Deno.test("parseLinks: [[name]] once each, in order, trimmed; no line-spanning or empty names", () => {
  assert.deepEqual(
    parseLinks(
      "See [[ alpha ]], [[beta]] and [[alpha]]; not [[]] or [[a\nb]].",
    ),
    ["alpha", "beta"],
  );
});

Deno.test("words: path separators split, stop words and 1-letter words dropped", () => {
  assert.deepEqual(words("src/kernel/plugin_host.ts"), [
    "src",
    "kernel",
    "plugin",
    "host",
    "ts",
  ]);
  assert.deepEqual(words("The user is a Tab person"), [
    "user",
    "tab",
    "person",
  ]);
});

Deno.test("lexicalScores: best match 1, no shared word 0, title words count double", () => {
  const scores = lexicalScores(["deploy", "friday"], [
    scoredDoc("Deploy", "friday"),
    scoredDoc("", "deploy"),
    scoredDoc("colours", "palette"),
  ]);
  assert.equal(scores[0], 1);
  assert.ok(scores[1]! > 0 && scores[1]! < 1);
  assert.equal(scores[2], 0);
  assert.deepEqual(lexicalScores([], [scoredDoc("a", "")]), [0]);
});

Deno.test("nearMatch: typos and rewordings are near; different memories are not", () => {
  assert.ok(
    diceSimilarity("Deploys happen on Fridays", "Deploys happen on Friday") >
      0.9,
  );
  assert.equal(jaccard([], []), 0);
  assert.ok(
    nearMatch(
      {
        title: "Deploy day",
        content: "The team deploys every Friday afternoon",
      },
      {
        title: "Release cadence",
        content: "Every Friday afternoon the team deploys",
      },
    ) >= 0.75,
  );
  assert.ok(
    nearMatch(
      { title: "Prefers tabs", content: "Indent with tabs." },
      { title: "Bug tracker", content: "Bugs are filed in the tracker." },
    ) < 0.3,
  );
});

function rec(
  id: string,
  type: StoredRecord["type"],
  title: string,
  ageDays: number,
): StoredRecord {
  const t = 1_000_000_000_000 - ageDays * 86_400_000;
  return {
    id,
    type,
    scope: "project",
    title,
    content: [title],
    tokens: 1,
    status: "canonical",
    links: [],
    createdAt: t,
    updatedAt: t,
    provenance: { sourceSessionId: "", recordedBy: "kernel" },
  };
}

Deno.test("rank: scores in [0,1]; lexical match first, then type weight, then recency", () => {
  const now = 1_000_000_000_000;
  const ranked = rank(
    [
      rec("old-project", "project", "Old project fact", 60),
      rec("new-project", "project", "New project fact", 0),
      rec("pref", "user", "User preference", 60),
      rec("match", "project", "Database migrations", 30),
    ],
    ["database"],
    now,
  );
  assert.deepEqual(ranked.map((r) => r.record.id), [
    "match",
    "pref",
    "new-project",
    "old-project",
  ]);
  for (const r of ranked) assert.ok(r.score >= 0 && r.score <= 1);
});
