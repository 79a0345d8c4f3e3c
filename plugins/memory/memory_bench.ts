/**
 * Costs of the memory provider's hot paths, in process: ranking 1000
 * records for a Recall, and a SQLite insert and a full list.
 *
 * `deno bench -A plugins/memory/memory_bench.ts`
 *
 * @module
 */
import { rank } from "./_memory.ts";
import { MemoryStore, type StoredRecord, TYPE_NAMES } from "./_store.ts";
import { scoredDoc, words } from "./_text.ts";

const now = Date.now();
const vocabulary = Array.from({ length: 400 }, (_, i) => `term${i}`);
const pick = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => vocabulary[(seed * 31 + i * 17) % 400])
    .join(" ");

function record(i: number): StoredRecord {
  return {
    id: `record-${i}`,
    type: TYPE_NAMES[i % 4]!,
    scope: "project",
    title: pick(5, i),
    content: [pick(60, i + 7)],
    tokens: 80,
    status: "canonical",
    links: [],
    createdAt: now - i * 3_600_000,
    updatedAt: now - i * 3_600_000,
    provenance: { sourceSessionId: "", recordedBy: "bench" },
  };
}

const records = Array.from({ length: 1000 }, (_, i) => record(i));
const query = words("kernel/term12_term99.ts term250 term3");

// The provider caches each record's word sets (per id and update time).
const docs = new Map(
  records.map((r) => [r.id, scoredDoc(r.title, r.content.join("\n"))]),
);

Deno.bench("rank 1000 records, word sets cached (a Recall)", () => {
  rank(records, query, now, (r) => docs.get(r.id)!);
});

Deno.bench("rank 1000 records, word sets computed (first Recall)", () => {
  rank(records, query, now);
});

const dir = Deno.makeTempDirSync({ prefix: "ph-memory-bench-" });
const listed = MemoryStore.open(`${dir}/listed.sqlite`);
for (const r of records) listed.insert(r.id, r);
const written = MemoryStore.open(`${dir}/written.sqlite`);
let n = 0;

Deno.bench("list 1000 records", () => {
  listed.list({});
});

Deno.bench("insert one record (BEGIN IMMEDIATE … COMMIT, WAL)", () => {
  const r = record(n++);
  written.insert(r.id, r);
});

globalThis.addEventListener("unload", () => {
  listed.close();
  written.close();
  Deno.removeSync(dir, { recursive: true });
});
