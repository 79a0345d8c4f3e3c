import assert from "node:assert/strict";
import {
  canonicalEventBytes,
  chainGenesis,
  eventHash,
  type HashedEvent,
  type StoredHashedEvent,
  verifyChain,
} from "./hash_chain.ts";

const SID = "01ARZ3NDEKTSV4RRFFQ69G5FAV";

function event(sequence: number, over: Partial<HashedEvent> = {}): HashedEvent {
  return {
    sequence,
    id: `id-${sequence}`,
    timestamp: "2026-01-01T00:00:00.000Z",
    kind: "tool_call",
    producerCategory: "tool",
    producerName: "gh",
    producerVersion: "1.0.0",
    schemaVersion: "1",
    payload: new Uint8Array([sequence]),
    ...over,
  };
}

function chain(events: HashedEvent[]): StoredHashedEvent[] {
  let prev = chainGenesis(SID);
  return events.map((e) => {
    prev = eventHash(prev, e);
    return { ...e, hash: prev };
  });
}

Deno.test("canonicalEventBytes() length-prefixes every field, so shifted boundaries differ", () => {
  const a = canonicalEventBytes(
    event(1, { producerName: "ab", producerVersion: "c" }),
  );
  const b = canonicalEventBytes(
    event(1, { producerName: "a", producerVersion: "bc" }),
  );
  assert.notDeepEqual(a, b);
  // Non-ASCII text is UTF-8.
  const e = canonicalEventBytes(event(1, { id: "é" }));
  const ascii = canonicalEventBytes(event(1, { id: "e" }));
  assert.equal(e.length, ascii.length + 1);
  // Companion rows are covered.
  const cost = {
    providerName: "p",
    modelId: "m",
    inputTokens: 1,
    outputTokens: 2,
    costUsd: 0.5,
  };
  assert.notDeepEqual(
    canonicalEventBytes(event(1, { cost: [cost] })),
    canonicalEventBytes(event(1, { cost: [{ ...cost, costUsd: 0.25 }] })),
  );
  assert.deepEqual(
    canonicalEventBytes(
      event(1, { cost: [{ ...cost, inputTokens: 2n ** 40n }] }),
    ),
    canonicalEventBytes(
      event(1, { cost: [{ ...cost, inputTokens: 2 ** 40 }] }),
    ),
  );
});

Deno.test("chainGenesis() binds the chain to the session", () => {
  assert.notDeepEqual(
    chainGenesis(SID),
    chainGenesis("01ARZ3NDEKTSV4RRFFQ69G5FAW"),
  );
  const rows = chain([event(1), event(2)]);
  assert.equal(verifyChain(SID, rows).ok, true);
  const other = verifyChain("01ARZ3NDEKTSV4RRFFQ69G5FAW", rows);
  assert.equal(!other.ok && other.firstBadSequence, 1);
});

Deno.test("verifyChain() names the first bad sequence for edits, deletions, reorders and tail loss", () => {
  const rows = chain([1, 2, 3, 4, 5].map((n) => event(n)));
  const ok = verifyChain(SID, rows);
  assert.ok(ok.ok);
  assert.equal(ok.events, 5);
  assert.match(ok.head, /^[0-9a-f]{64}$/);

  const bad = (r: ReturnType<typeof verifyChain>) =>
    r.ok ? "ok" : `${r.reason}@${r.firstBadSequence}`;
  const edited = rows.map((r) =>
    r.sequence === 3 ? { ...r, payload: new Uint8Array([9]) } : r
  );
  assert.equal(bad(verifyChain(SID, edited)), "hash_mismatch@3");
  assert.equal(
    bad(verifyChain(SID, rows.filter((r) => r.sequence !== 2))),
    "missing@2",
  );
  const swapped = [
    rows[0],
    { ...rows[2], sequence: 2 },
    { ...rows[1], sequence: 3 },
    rows[3],
    rows[4],
  ];
  assert.equal(bad(verifyChain(SID, swapped)), "hash_mismatch@2");
  assert.equal(bad(verifyChain(SID, [rows[1], rows[0]])), "missing@1");
  assert.equal(bad(verifyChain(SID, [rows[0], rows[0]])), "out_of_order@1");
  assert.equal(
    bad(verifyChain(SID, rows.slice(0, 4), { lastAssignedSequence: 5 })),
    "missing@5",
  );
  assert.equal(
    bad(
      verifyChain(SID, rows.map((r, i) => i === 0 ? { ...r, hash: null } : r)),
    ),
    "missing_hash@1",
  );
  assert.equal(bad(verifyChain(SID, [])), "ok");
  const r = verifyChain(SID, edited);
  assert.equal(
    !r.ok && r.message,
    "event 3 does not match its stored hash (the row, its companion rows or its predecessor changed)",
  );
});
