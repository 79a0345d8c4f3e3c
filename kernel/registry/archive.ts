/**
 * Reading a release archive (`.tar.gz` or `.zip`) into memory, safely:
 * every entry's path stays inside the target (no absolute paths, no `..`),
 * links and device files are refused, and the unpacked size is bounded.
 * Nothing is written here; the cache writes the checked entries.
 *
 * A small reader over `node:zlib` rather than an npm tar/zip package: the
 * archives are small and read whole, the checks above must run on every
 * entry before anything touches the disk, and the formats' subset that
 * goreleaser writes (ustar/pax/GNU long names, zip stored/deflate) is
 * short to read and to audit.
 *
 * @module
 */
import { gunzipSync, inflateRawSync } from "node:zlib";

/** One regular file of an archive. */
export interface ArchiveFile {
  /** Its path, `/`-separated, relative, normalized. */
  path: string;
  /** Its bytes. */
  data: Uint8Array;
  /** Whether any executable bit is set. */
  executable: boolean;
}

/** An archive is malformed or unsafe. */
export class ArchiveError extends Error {
  /**
   * Creates the error.
   *
   * @param message What is wrong.
   */
  constructor(message: string) {
    super(message);
    this.name = "ArchiveError";
  }
}

/** The default bound on an archive's unpacked size: 512 MiB. */
export const DEFAULT_MAX_UNPACKED_BYTES: number = 512 * 1024 * 1024;

/** Options for {@linkcode readArchive}. */
export interface ReadArchiveOptions {
  /**
   * The most bytes the archive may unpack to.
   * @default {DEFAULT_MAX_UNPACKED_BYTES}
   */
  maxBytes?: number;
}

/**
 * Checks and normalizes an entry's path.
 *
 * @param raw The path as stored.
 * @returns The normalized path, or `undefined` for the archive's root.
 */
function safePath(raw: string): string | undefined {
  if (raw.includes("\0") || raw.includes("\\")) {
    throw new ArchiveError(`entry ${JSON.stringify(raw)} has a bad character`);
  }
  if (raw.startsWith("/") || /^[A-Za-z]:/.test(raw)) {
    throw new ArchiveError(
      `entry ${JSON.stringify(raw)} has an absolute path`,
    );
  }
  const parts = raw.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.includes("..")) {
    throw new ArchiveError(
      `entry ${JSON.stringify(raw)} leaves the target folder ("..")`,
    );
  }
  return parts.length === 0 ? undefined : parts.join("/");
}

/**
 * Reads a `.tar.gz` or `.zip` archive (by its name) into its regular
 * files.
 *
 * @example Usage
 * ```ts ignore
 * import { readArchive } from "./archive.ts";
 * const files = readArchive("p_1.0.0_linux_amd64.tar.gz", await Deno.readFile("p.tgz"));
 * ```
 *
 * @param name The archive's file name (`.tar.gz`, `.tgz` or `.zip`).
 * @param bytes Its bytes.
 * @param options The size bound.
 * @returns Its files, in archive order.
 * @throws {ArchiveError} When it is malformed, unsafe or too large.
 */
export function readArchive(
  name: string,
  bytes: Uint8Array,
  options: ReadArchiveOptions = {},
): ArchiveFile[] {
  const max = options.maxBytes ?? DEFAULT_MAX_UNPACKED_BYTES;
  const files = name.endsWith(".zip")
    ? readZip(bytes, max)
    : name.endsWith(".tar.gz") || name.endsWith(".tgz")
    ? readTar(gunzip(bytes, max))
    : undefined;
  if (files === undefined) {
    throw new ArchiveError(`unsupported archive type (${name})`);
  }
  const seen = new Set<string>();
  for (const f of files) {
    if (seen.has(f.path)) {
      throw new ArchiveError(`entry "${f.path}" appears twice`);
    }
    seen.add(f.path);
  }
  // A file may not also be a folder of another entry.
  for (const f of files) {
    const parts = f.path.split("/");
    for (let i = 1; i < parts.length; i++) {
      if (seen.has(parts.slice(0, i).join("/"))) {
        throw new ArchiveError(
          `entry "${f.path}" is inside "${
            parts.slice(0, i).join("/")
          }", which is a file`,
        );
      }
    }
  }
  return files;
}

function gunzip(bytes: Uint8Array, max: number): Uint8Array {
  // One output chunk sized by the gzip trailer's ISIZE (the last member's
  // unpacked size mod 2^32, so only a hint) instead of node:zlib's 16 KiB
  // ones, whose concatenation cost a launch's re-verification of a 1.2 MB
  // bundle 5-10 ms of CPU. Only below the bound: Deno's zlib reports a
  // chunk that reaches maxOutputLength as a corrupt stream, not as the
  // bound, so there the default chunks keep the message right.
  const hint = bytes.length >= 4
    ? new DataView(bytes.buffer, bytes.byteOffset + bytes.length - 4, 4)
      .getUint32(0, true)
    : 0;
  const chunkSize = hint + 1 < max
    ? Math.min(Math.max(hint + 1, 16 * 1024), 16 * 1024 * 1024)
    : undefined;
  try {
    return gunzipSync(bytes, {
      maxOutputLength: max,
      ...(chunkSize ? { chunkSize } : {}),
    });
  } catch (err) {
    if (
      err instanceof RangeError || /maxOutputLength|buffer/i.test(String(err))
    ) {
      throw new ArchiveError(`it unpacks to more than ${max} bytes`);
    }
    throw new ArchiveError(
      `it is not a valid gzip stream (${
        err instanceof Error ? err.message : String(err)
      })`,
    );
  }
}

const decoder = new TextDecoder();

function cstr(b: Uint8Array, off: number, len: number): string {
  const end = b.subarray(off, off + len).indexOf(0);
  return decoder.decode(b.subarray(off, end < 0 ? off + len : off + end));
}

function octal(b: Uint8Array, off: number, len: number, what: string): number {
  const s = cstr(b, off, len).trim();
  if (s === "") return 0;
  if (!/^[0-7]+$/.test(s)) {
    throw new ArchiveError(`tar header has a bad ${what} field`);
  }
  return parseInt(s, 8);
}

function paxPath(data: Uint8Array): string | undefined {
  let path: string | undefined;
  let i = 0;
  const text = decoder.decode(data);
  while (i < text.length) {
    const sp = text.indexOf(" ", i);
    if (sp < 0) break;
    const len = Number(text.slice(i, sp));
    if (!Number.isInteger(len) || len <= 0) {
      throw new ArchiveError("tar pax header is malformed");
    }
    const rec = text.slice(sp + 1, i + len - 1);
    const eq = rec.indexOf("=");
    if (eq > 0 && rec.slice(0, eq) === "path") path = rec.slice(eq + 1);
    i += len;
  }
  return path;
}

function readTar(b: Uint8Array): ArchiveFile[] {
  const out: ArchiveFile[] = [];
  let off = 0;
  let longName: string | undefined;
  while (off + 512 <= b.length) {
    const h = b.subarray(off, off + 512);
    if (h.every((x) => x === 0)) break;
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
    if (sum !== octal(h, 148, 8, "checksum")) {
      throw new ArchiveError(`tar header checksum mismatch at byte ${off}`);
    }
    const size = octal(h, 124, 12, "size");
    const type = String.fromCharCode(h[156]!);
    const dataStart = off + 512;
    if (dataStart + size > b.length) {
      throw new ArchiveError("tar entry runs past the end of the archive");
    }
    const data = b.subarray(dataStart, dataStart + size);
    off = dataStart + Math.ceil(size / 512) * 512;
    let name = cstr(h, 0, 100);
    const magic = cstr(h, 257, 6);
    if (magic === "ustar") {
      const prefix = cstr(h, 345, 155);
      if (prefix) name = `${prefix}/${name}`;
    }
    if (type === "x") {
      longName = paxPath(data) ?? longName;
      continue;
    }
    if (type === "g") continue;
    if (type === "L") {
      longName = cstr(data, 0, data.length);
      continue;
    }
    if (longName !== undefined) {
      name = longName;
      longName = undefined;
    }
    if (type === "1" || type === "2") {
      throw new ArchiveError(
        `entry ${JSON.stringify(name)} is a ${
          type === "2" ? "symbolic" : "hard"
        } link (links are refused: a plugin archive needs none, and one could point outside the target)`,
      );
    }
    if (type === "3" || type === "4" || type === "6") {
      throw new ArchiveError(
        `entry ${JSON.stringify(name)} is a device or FIFO`,
      );
    }
    const path = safePath(name);
    if (type === "5") continue;
    if (type !== "0" && type !== "\0" && type !== "7") {
      throw new ArchiveError(
        `entry ${JSON.stringify(name)} has an unsupported type ${
          JSON.stringify(type)
        }`,
      );
    }
    if (path === undefined) {
      throw new ArchiveError(`a file entry has an empty path`);
    }
    const mode = octal(h, 100, 8, "mode");
    out.push({ path, data: data.slice(), executable: (mode & 0o111) !== 0 });
  }
  return out;
}

function u16(b: Uint8Array, o: number): number {
  return b[o]! | (b[o + 1]! << 8);
}

function u32(b: Uint8Array, o: number): number {
  return (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>>
    0;
}

function readZip(b: Uint8Array, max: number): ArchiveFile[] {
  let eocd = -1;
  for (let i = b.length - 22; i >= Math.max(0, b.length - 22 - 65535); i--) {
    if (u32(b, i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new ArchiveError("it is not a zip archive");
  const count = u16(b, eocd + 10);
  let p = u32(b, eocd + 16);
  const out: ArchiveFile[] = [];
  let total = 0;
  for (let n = 0; n < count; n++) {
    if (p + 46 > b.length || u32(b, p) !== 0x02014b50) {
      throw new ArchiveError("zip central directory is malformed");
    }
    const method = u16(b, p + 10);
    const csize = u32(b, p + 20);
    const usize = u32(b, p + 24);
    const nlen = u16(b, p + 28);
    const xlen = u16(b, p + 30);
    const clen = u16(b, p + 32);
    const hostOs = b[p + 5]!;
    const ext = u32(b, p + 38);
    const local = u32(b, p + 42);
    const name = decoder.decode(b.subarray(p + 46, p + 46 + nlen));
    p += 46 + nlen + xlen + clen;
    const unixMode = hostOs === 3 ? ext >>> 16 : 0;
    const fileType = unixMode & 0o170000;
    if (fileType === 0o120000) {
      throw new ArchiveError(
        `entry ${JSON.stringify(name)} is a symbolic link (links are refused)`,
      );
    }
    if (fileType !== 0 && fileType !== 0o100000 && fileType !== 0o040000) {
      throw new ArchiveError(
        `entry ${JSON.stringify(name)} is a device or FIFO`,
      );
    }
    const path = safePath(name);
    if (name.endsWith("/") || fileType === 0o040000) continue;
    if (path === undefined) {
      throw new ArchiveError("a file entry has an empty path");
    }
    total += usize;
    if (total > max) {
      throw new ArchiveError(`it unpacks to more than ${max} bytes`);
    }
    if (local + 30 > b.length || u32(b, local) !== 0x04034b50) {
      throw new ArchiveError(`zip entry ${JSON.stringify(name)} is malformed`);
    }
    const start = local + 30 + u16(b, local + 26) + u16(b, local + 28);
    const raw = b.subarray(start, start + csize);
    let data: Uint8Array;
    if (method === 0) data = raw.slice();
    else if (method === 8) {
      try {
        data = inflateRawSync(raw, { maxOutputLength: Math.max(usize, 1) });
      } catch {
        throw new ArchiveError(
          `zip entry ${JSON.stringify(name)} does not inflate to its size`,
        );
      }
    } else {
      throw new ArchiveError(
        `zip entry ${JSON.stringify(name)} uses compression method ${method}`,
      );
    }
    if (data.length !== usize) {
      throw new ArchiveError(
        `zip entry ${JSON.stringify(name)} does not inflate to its size`,
      );
    }
    out.push({
      path,
      data,
      executable: (unixMode & 0o111) !== 0,
    });
  }
  return out;
}
