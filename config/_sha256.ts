/**
 * SHA-256 in hex through Web Crypto, for the files `check-config` reads and
 * the artifacts it checksums. `node:crypto` gave the same digests, but
 * loading it (with Node's streams) cost every process about as much CPU
 * as an empty `deno run`. Not part of the API.
 *
 * @module
 */

const HEX: readonly string[] = Array.from(
  { length: 256 },
  (_, i) => i.toString(16).padStart(2, "0"),
);

/**
 * The SHA-256 digest of some data, in lowercase hex: of the bytes, of a
 * string's UTF-8, or of a list of both, joined in order (as successive
 * `update()` calls of a `node:crypto` hash).
 *
 * @example Usage
 * ```ts
 * import { sha256Hex } from "./_sha256.ts";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   await sha256Hex(["a", new Uint8Array([98, 99])]),
 *   await sha256Hex("abc"),
 * );
 * ```
 *
 * @param data Bytes, a string, or a list of them.
 * @returns 64 hex digits.
 */
export async function sha256Hex(
  data: string | Uint8Array | readonly (string | Uint8Array)[],
): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", join(data)),
  );
  let hex = "";
  for (const b of digest) hex += HEX[b];
  return hex;
}

function join(
  data: string | Uint8Array | readonly (string | Uint8Array)[],
): Uint8Array<ArrayBuffer> {
  const enc = new TextEncoder();
  if (typeof data === "string") return enc.encode(data);
  if (data instanceof Uint8Array) {
    return data.buffer instanceof ArrayBuffer
      ? data as Uint8Array<ArrayBuffer>
      : new Uint8Array(data);
  }
  const parts = data.map((d) => typeof d === "string" ? enc.encode(d) : d);
  let n = 0;
  for (const p of parts) n += p.byteLength;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.byteLength;
  }
  return out;
}
