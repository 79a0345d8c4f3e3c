/**
 * ULIDs: the kernel's sortable, timestamp-prefixed identifiers for sessions
 * (the session file's stem) and events (the storage-independent event `id`).
 *
 * A ULID is 128 bits: a 48-bit millisecond Unix time followed by 80 random
 * bits, written as 26 characters of Crockford base32 in upper case. A plain
 * directory listing of `<ULID>.sqlite` files is therefore chronological.
 * The generator is monotonic: two ids minted in the same millisecond (or
 * when the clock steps back) increment the random part instead of drawing a
 * new one, so ids from one generator always sort in minting order.
 *
 * Only the canonical form is accepted by {@linkcode isUlid}: anything that
 * does not round-trip to the same string (lower case, `I`/`L`/`O`/`U`,
 * wrong length, an out-of-range first character) is refused, which also
 * keeps session ids from carrying path separators.
 *
 * @module
 */

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const ULID_REGEXP = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
/** 2^40: each half of the 80-bit random part is kept as a 40-bit number. */
const HALF = 2 ** 40;
const MAX_TIME = 2 ** 48 - 1;

/** A function that mints ULIDs; see {@linkcode createUlidGenerator}. */
export type UlidGenerator = (timeMs?: number) => string;

function encodeTime(time: number, out: string[]): void {
  let t = time;
  for (let i = 9; i >= 0; i--) {
    out[i] = ALPHABET[t % 32];
    t = Math.floor(t / 32);
  }
}

function encodeHalf(half: number, out: string[], offset: number): void {
  let v = half;
  for (let i = 7; i >= 0; i--) {
    out[offset + i] = ALPHABET[v % 32];
    v = Math.floor(v / 32);
  }
}

function randomHalves(): [number, number] {
  const b = crypto.getRandomValues(new Uint8Array(10));
  const hi = ((b[0] * 256 + b[1]) * 256 + b[2]) * 65536 + b[3] * 256 + b[4];
  const lo = ((b[5] * 256 + b[6]) * 256 + b[7]) * 65536 + b[8] * 256 + b[9];
  return [hi, lo];
}

/**
 * Creates a monotonic ULID generator. Within one generator, ids are strictly
 * increasing even when many are minted per millisecond or the clock moves
 * backwards.
 *
 * @example Usage
 * ```ts
 * import { createUlidGenerator, isUlid } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * const next = createUlidGenerator();
 * const a = next(1_700_000_000_000);
 * const b = next(1_700_000_000_000);
 * assert.ok(isUlid(a) && a < b);
 * ```
 *
 * @returns A function that takes an optional millisecond time (default
 *   `Date.now()`) and returns the next ULID.
 */
export function createUlidGenerator(): UlidGenerator {
  let lastTime = -1;
  let hi = 0;
  let lo = 0;
  const out = new Array<string>(26);
  return (timeMs?: number): string => {
    let time = Math.floor(timeMs ?? Date.now());
    if (!(time >= 0 && time <= MAX_TIME)) {
      throw new RangeError(`Cannot mint a ULID: time ${time} is out of range`);
    }
    if (time <= lastTime) {
      // Same millisecond, or the clock stepped back: keep the last time and
      // increment the 80-bit random part.
      time = lastTime;
      lo++;
      if (lo === HALF) {
        lo = 0;
        hi++;
        if (hi === HALF) {
          throw new RangeError(
            "Cannot mint a ULID: the random part overflowed within one millisecond",
          );
        }
      }
    } else {
      lastTime = time;
      [hi, lo] = randomHalves();
    }
    encodeTime(time, out);
    encodeHalf(hi, out, 10);
    encodeHalf(lo, out, 18);
    return out.join("");
  };
}

const defaultGenerator: UlidGenerator = createUlidGenerator();

/**
 * Mints a ULID from the process-wide monotonic generator.
 *
 * @example Usage
 * ```ts
 * import { isUlid, ulid } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * assert.ok(isUlid(ulid()));
 * ```
 *
 * @param timeMs The millisecond Unix time to embed (default `Date.now()`).
 * @returns A canonical 26-character ULID.
 */
export function ulid(timeMs?: number): string {
  return defaultGenerator(timeMs);
}

/**
 * Tells whether `value` is a ULID in canonical form (upper-case Crockford
 * base32, 26 characters, within 128 bits).
 *
 * @example Usage
 * ```ts
 * import { isUlid } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * assert.equal(isUlid("01ARZ3NDEKTSV4RRFFQ69G5FAV"), true);
 * assert.equal(isUlid("01arz3ndektsv4rrffq69g5fav"), false); // not canonical
 * assert.equal(isUlid("../../etc/passwd"), false);
 * ```
 *
 * @param value The candidate.
 * @returns `true` for a canonical ULID.
 */
export function isUlid(value: string): boolean {
  return ULID_REGEXP.test(value);
}

/**
 * Reads the millisecond Unix time embedded in a ULID.
 *
 * @example Usage
 * ```ts
 * import { ulidTime } from "@ph/agent/kernel";
 * import assert from "node:assert/strict";
 *
 * assert.equal(ulidTime("01ARZ3NDEKTSV4RRFFQ69G5FAV"), 1_469_922_850_259);
 * ```
 *
 * @param id A canonical ULID.
 * @returns Milliseconds since the Unix epoch.
 * @throws {RangeError} When `id` is not a canonical ULID.
 */
export function ulidTime(id: string): number {
  if (!isUlid(id)) {
    throw new RangeError(`Cannot read a ULID: "${id}" is not a canonical ULID`);
  }
  let t = 0;
  for (let i = 0; i < 10; i++) t = t * 32 + ALPHABET.indexOf(id[i]);
  return t;
}
