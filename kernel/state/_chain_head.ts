/**
 * The chain head kept outside the session file (kernel.md §3.15): per
 * session its id, scheme, last committed sequence and hash, MACed with the
 * installation key, rewritten after each committed append batch. Deleting
 * the newest events of a session (and fixing `sqlite_sequence`) leaves a
 * valid shorter chain in the file; the head still names the deleted
 * sequence, and nobody without the key can write a head that agrees.
 *
 * A head file is one fixed-length record (JSON padded with spaces to
 * {@linkcode HEAD_RECORD_BYTES}) written in place with a single `write` at
 * offset 0: a process crash cannot tear one write of a few hundred bytes,
 * and overwriting in place costs one system call where write-and-rename
 * cost milliseconds per batch on a loaded disk here. A torn record (power
 * loss mid-write) fails its MAC and is reported, never trusted.
 *
 * @module
 */
import { timingSafeEqual } from "node:crypto";
import { type ChainHead, headMac } from "./hash_chain.ts";
import type { InstallationKey } from "./installation_key.ts";
import type { ChainScheme } from "./session_store.ts";

/** The size of a head record in bytes. */
export const HEAD_RECORD_BYTES = 320;

const SCHEMES = new Set<string>(["hmac-sha256", "sha256"]);
const HEX_REGEXP = /^[0-9a-f]{64}$/;
const encoder = new TextEncoder();

function hex(b: Uint8Array): string {
  let s = "";
  for (const x of b) s += x.toString(16).padStart(2, "0");
  return s;
}

function unhex(s: string): Uint8Array {
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) {
    out[i] = parseInt(s.slice(i * 2, i * 2 + 2), 16);
  }
  return out;
}

/** What reading a head found. */
export interface HeadRead {
  /** The authenticated head, or `null` when there is none. */
  readonly head: ChainHead | null;
  /** Set when a head exists but cannot be read or authenticated. */
  readonly problem?: string;
}

/** Writes one session's head, again and again. */
export interface HeadWriter {
  /** Replaces the head. */
  write(head: ChainHead): void;
  /** Releases the file. */
  close(): void;
}

/** Where heads are kept. */
export interface HeadStore {
  /** Reads and authenticates a session's head. */
  read(sessionId: string): HeadRead;
  /** Opens a writer for a session's head. */
  writer(sessionId: string): HeadWriter;
}

/** The record bytes of a head: JSON padded to the fixed length. */
export function encodeHead(key: InstallationKey, head: ChainHead): Uint8Array {
  const text = JSON.stringify({
    v: 1,
    session: head.sessionId,
    scheme: head.scheme,
    sequence: head.sequence,
    hash: hex(head.hash),
    key: key.id,
    mac: hex(headMac(key.bytes, head)),
  });
  const out = new Uint8Array(HEAD_RECORD_BYTES).fill(0x20);
  const { written, read } = encoder.encodeInto(text, out);
  if (read !== text.length || written >= HEAD_RECORD_BYTES) {
    throw new RangeError("Cannot encode a chain head: the record is too long");
  }
  out[HEAD_RECORD_BYTES - 1] = 0x0a;
  return out;
}

/** Parses and authenticates a head record. */
export function decodeHead(
  key: InstallationKey,
  sessionId: string,
  text: string,
): HeadRead {
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(text);
  } catch {
    return { head: null, problem: "it is not a head record" };
  }
  if (
    !v || typeof v !== "object" || v.v !== 1 ||
    typeof v.session !== "string" || !SCHEMES.has(v.scheme as string) ||
    !Number.isSafeInteger(v.sequence) || (v.sequence as number) < 0 ||
    typeof v.hash !== "string" || !HEX_REGEXP.test(v.hash) ||
    typeof v.mac !== "string" || !HEX_REGEXP.test(v.mac)
  ) {
    return { head: null, problem: "it is not a head record" };
  }
  if (v.session !== sessionId) {
    return {
      head: null,
      problem: `it names session ${JSON.stringify(v.session)}`,
    };
  }
  if (typeof v.key === "string" && v.key !== key.id) {
    return {
      head: null,
      problem:
        `it was written with another installation key (id ${v.key}, this installation's is ${key.id})`,
    };
  }
  const head: ChainHead = {
    sessionId,
    scheme: v.scheme as ChainScheme,
    sequence: v.sequence as number,
    hash: unhex(v.hash),
  };
  if (!timingSafeEqual(headMac(key.bytes, head), unhex(v.mac))) {
    return {
      head: null,
      problem: "its MAC does not match (it was edited or forged)",
    };
  }
  return { head };
}

/**
 * Heads as files `<dir>/<session>.head` (mode 0600, directory 0700).
 */
export class FileHeadStore implements HeadStore {
  readonly dir: string;
  readonly #key: InstallationKey;

  constructor(dir: string, key: InstallationKey) {
    this.dir = dir;
    this.#key = key;
  }

  pathOf(sessionId: string): string {
    return `${this.dir}/${sessionId}.head`;
  }

  read(sessionId: string): HeadRead {
    let text: string;
    try {
      text = Deno.readTextFileSync(this.pathOf(sessionId));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return { head: null };
      return {
        head: null,
        problem: `it cannot be read: ${
          error instanceof Error ? error.message : String(error)
        }`,
      };
    }
    return decodeHead(this.#key, sessionId, text);
  }

  writer(sessionId: string): HeadWriter {
    const key = this.#key;
    const path = this.pathOf(sessionId);
    const dir = this.dir;
    let file: Deno.FsFile | undefined;
    return {
      write(head) {
        const bytes = encodeHead(key, head);
        if (!file) {
          Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
          file = Deno.openSync(path, {
            write: true,
            create: true,
            mode: 0o600,
          });
        }
        file.seekSync(0, Deno.SeekMode.Start);
        let off = 0;
        while (off < bytes.length) off += file.writeSync(bytes.subarray(off));
      },
      close() {
        file?.close();
        file = undefined;
      },
    };
  }
}

/** Heads in memory (for {@linkcode MemorySessionStore}). */
export class MemoryHeadStore implements HeadStore {
  readonly #key: InstallationKey;
  readonly records: Map<string, string> = new Map();

  constructor(key: InstallationKey) {
    this.#key = key;
  }

  read(sessionId: string): HeadRead {
    const text = this.records.get(sessionId);
    return text === undefined
      ? { head: null }
      : decodeHead(this.#key, sessionId, text);
  }

  writer(sessionId: string): HeadWriter {
    return {
      write: (head) => {
        this.records.set(
          sessionId,
          new TextDecoder().decode(encodeHead(this.#key, head)),
        );
      },
      close() {},
    };
  }
}
