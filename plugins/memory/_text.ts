/**
 * Text helpers of the memory provider, all pure: slugs, `[[name]]` links,
 * word tokens, the lexical relevance score used by `Recall` and `search`,
 * and the near-duplicate similarity used by `remember`.
 *
 * @module
 */

/** Longest slug, in characters (before a uniqueness suffix). */
export const MAX_SLUG = 64;

/**
 * A human-meaningful slug: lower case ASCII letters, digits and single
 * hyphens, at most {@linkcode MAX_SLUG} characters, cut at a hyphen when it
 * can be. Accents are dropped (`Café` → `cafe`); text with no letter or
 * digit gives `memory`.
 *
 * @example Usage
 * ```ts
 * import { slugify } from "./_text.ts";
 * import assert from "node:assert/strict";
 * assert.equal(slugify("Prefers tabs, not spaces!"), "prefers-tabs-not-spaces");
 * ```
 *
 * @param text A title or a suggested id.
 * @returns The slug.
 */
export function slugify(text: string): string {
  let s = text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "")
    .toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  if (s.length > MAX_SLUG) {
    const cut = s.slice(0, MAX_SLUG);
    const at = cut.lastIndexOf("-");
    s = at >= MAX_SLUG / 2 ? cut.slice(0, at) : cut.replace(/-+$/, "");
  }
  return s || "memory";
}

/**
 * The first free slug among `base`, `base-2`, `base-3`, …
 *
 * @param base The wanted slug.
 * @param taken Whether a slug is already used.
 * @returns A slug for which `taken` is false.
 */
export function uniqueSlug(
  base: string,
  taken: (slug: string) => boolean,
): string {
  if (!taken(base)) return base;
  for (let n = 2;; n++) {
    const candidate = `${base}-${n}`;
    if (!taken(candidate)) return candidate;
  }
}

/**
 * The `[[name]]` links of a text, in first-appearance order, each once.
 * The name is trimmed; empty names and names spanning lines are ignored.
 * Dangling links are kept: nothing checks that the target exists.
 *
 * @param text The text.
 * @returns The link names.
 */
export function parseLinks(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\[\[([^\[\]\n]+)\]\]/g)) {
    const name = m[1]!.trim();
    if (name && !out.includes(name)) out.push(name);
  }
  return out;
}

const STOP = new Set(
  ("a an and are as at be but by for from has have i in is it its of on or " +
    "that the this to was were will with you your we our not no do does " +
    "should would can could into about than then there these those").split(
      " ",
    ),
);

/**
 * The words of a text for matching: lower case runs of letters and digits
 * (accents dropped), at least two characters, without common stop words.
 * Path separators, dots and underscores split words, so
 * `src/kernel/plugin_host.ts` gives `src`, `kernel`, `plugin`, `host`, `ts`.
 *
 * @param text The text.
 * @returns The words, in order, with repeats.
 */
export function words(text: string): string[] {
  return text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
    .split(/[^a-z0-9]+/).filter((w) => w.length >= 2 && !STOP.has(w));
}

/** A document as the scorer sees it (build it once per text: see {@linkcode scoredDoc}). */
export interface ScoredDoc {
  /** Words of the title (weighted double). */
  title: ReadonlySet<string>;
  /** Words of the content. */
  body: ReadonlySet<string>;
}

/**
 * The scorer's view of a title and a content.
 *
 * @param title The title.
 * @param body The content.
 * @returns Their word sets.
 */
export function scoredDoc(title: string, body: string): ScoredDoc {
  return { title: new Set(words(title)), body: new Set(words(body)) };
}

/**
 * Lexical relevance of documents to a query: for each query word that a
 * document contains, its inverse document frequency
 * (`ln(1 + N / df)`), doubled when the word is in the title; the sums are
 * divided by the best sum, so the best match scores 1 and a document
 * sharing no word scores 0. With no query word every score is 0.
 *
 * @param query The query's words.
 * @param docs The documents.
 * @returns One score in [0, 1] per document, in order.
 */
export function lexicalScores(
  query: readonly string[],
  docs: readonly ScoredDoc[],
): number[] {
  const terms = [...new Set(query)];
  if (terms.length === 0 || docs.length === 0) return docs.map(() => 0);
  const sets = docs;
  const idf = new Map<string, number>();
  for (const t of terms) {
    const df = sets.filter((s) => s.title.has(t) || s.body.has(t)).length;
    idf.set(t, df === 0 ? 0 : Math.log(1 + docs.length / df));
  }
  const raw = sets.map((s) => {
    let sum = 0;
    for (const t of terms) {
      if (s.title.has(t)) sum += 2 * idf.get(t)!;
      else if (s.body.has(t)) sum += idf.get(t)!;
    }
    return sum;
  });
  const best = Math.max(...raw);
  return raw.map((r) => (best > 0 ? r / best : 0));
}

/**
 * Jaccard similarity of two word sets (0 when either is empty: no
 * evidence of likeness).
 *
 * @param a Words.
 * @param b Words.
 * @returns |a ∩ b| / |a ∪ b|.
 */
export function jaccard(a: readonly string[], b: readonly string[]): number {
  const x = new Set(a);
  const y = new Set(b);
  if (x.size === 0 || y.size === 0) return 0;
  let both = 0;
  for (const w of x) if (y.has(w)) both++;
  return both / (x.size + y.size - both);
}

function bigrams(s: string): string[] {
  const t = s.toLowerCase().replace(/\s+/g, " ").trim();
  const out: string[] = [];
  for (let i = 0; i < t.length - 1; i++) out.push(t.slice(i, i + 2));
  return out;
}

/**
 * Dice similarity of the character bigrams of two strings (case and
 * spacing ignored): 1 for equal strings, near 1 for small typos.
 *
 * @param a A string.
 * @param b A string.
 * @returns A similarity in [0, 1].
 */
export function diceSimilarity(a: string, b: string): number {
  const x = bigrams(a);
  const y = bigrams(b);
  if (x.length === 0 || y.length === 0) {
    return a.trim().toLowerCase() === b.trim().toLowerCase() ? 1 : 0;
  }
  const counts = new Map<string, number>();
  for (const g of x) counts.set(g, (counts.get(g) ?? 0) + 1);
  let both = 0;
  for (const g of y) {
    const n = counts.get(g) ?? 0;
    if (n > 0) {
      both++;
      counts.set(g, n - 1);
    }
  }
  return (2 * both) / (x.length + y.length);
}

/** What `remember` compares. */
export interface NearMatchInput {
  /** The title. */
  title: string;
  /** The content text. */
  content: string;
}

/** Similarity at or above which `remember` calls a record a near duplicate. */
export const NEAR_MATCH_THRESHOLD = 0.75;

/**
 * How alike a new memory is to an existing one: the larger of the
 * titles' bigram similarity and the contents' word-set Jaccard
 * similarity.
 *
 * @param a One memory.
 * @param b The other.
 * @returns A similarity in [0, 1].
 */
export function nearMatch(a: NearMatchInput, b: NearMatchInput): number {
  return Math.max(
    diceSimilarity(a.title, b.title),
    jaccard(words(a.content), words(b.content)),
  );
}
