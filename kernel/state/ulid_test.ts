import assert from "node:assert/strict";
import { createUlidGenerator, isUlid, ulid, ulidTime } from "./ulid.ts";

Deno.test("ulid() is canonical, 26 characters, and embeds the time", () => {
  const id = ulid(1_700_000_000_000);
  assert.equal(id.length, 26);
  assert.ok(isUlid(id));
  assert.equal(ulidTime(id), 1_700_000_000_000);
  const fresh = createUlidGenerator();
  assert.equal(fresh(0).slice(0, 10), "0000000000");
  assert.equal(ulidTime(fresh(2 ** 48 - 1)), 2 ** 48 - 1);
  assert.throws(() => fresh(2 ** 48), RangeError);
  assert.throws(() => fresh(-1), RangeError);
});

Deno.test("createUlidGenerator() is strictly monotonic within a millisecond and when the clock steps back", () => {
  const next = createUlidGenerator();
  const ids = [
    next(1000),
    ...Array.from({ length: 1000 }, () => next(1000)),
    next(999), // clock went backwards: keeps the last time
    next(1001),
  ];
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1] < ids[i], `${i}`);
  assert.equal(ulidTime(ids[1001]), 1000);
  assert.equal(ulidTime(ids[1002]), 1001);
  assert.equal(new Set(ids).size, ids.length);
});

Deno.test("isUlid() accepts only the canonical form", () => {
  assert.ok(isUlid("01ARZ3NDEKTSV4RRFFQ69G5FAV"));
  assert.ok(isUlid("7ZZZZZZZZZZZZZZZZZZZZZZZZZ"));
  for (
    const bad of [
      "01arz3ndektsv4rrffq69g5fav", // lower case
      "01ARZ3NDEKTSV4RRFFQ69G5FAI", // I is not in the alphabet
      "01ARZ3NDEKTSV4RRFFQ69G5FAL",
      "01ARZ3NDEKTSV4RRFFQ69G5FAO",
      "01ARZ3NDEKTSV4RRFFQ69G5FAU",
      "8ZZZZZZZZZZZZZZZZZZZZZZZZZ", // above 128 bits
      "01ARZ3NDEKTSV4RRFFQ69G5FA", // too short
      "01ARZ3NDEKTSV4RRFFQ69G5FAVX",
      "../01ARZ3NDEKTSV4RRFFQ69G5F",
      "",
    ]
  ) assert.equal(isUlid(bad), false, bad);
  assert.throws(() => ulidTime("nope"), RangeError);
});
