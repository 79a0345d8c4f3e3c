import assert from "node:assert/strict";
import { deflateRawSync } from "node:zlib";
import { readArchive } from "./archive.ts";

interface ZipEntry {
  path: string;
  data?: string;
  mode?: number;
  deflate?: boolean;
}

/** A minimal zip writer (stored or deflated entries, Unix modes). */
function zip(entries: readonly ZipEntry[]): Uint8Array {
  const enc = new TextEncoder();
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = enc.encode(e.path);
    const raw = enc.encode(e.data ?? "");
    const body = e.deflate ? deflateRawSync(raw) : raw;
    const local = new Uint8Array(30 + name.length + body.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(8, e.deflate ? 8 : 0, true);
    lv.setUint32(18, body.length, true);
    lv.setUint32(22, raw.length, true);
    lv.setUint16(26, name.length, true);
    local.set(name, 30);
    local.set(body, 30 + name.length);
    const central = new Uint8Array(46 + name.length);
    const cv = new DataView(central.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint8(5, 3); // made on Unix: the high 16 bits are the mode
    cv.setUint16(10, e.deflate ? 8 : 0, true);
    cv.setUint32(20, body.length, true);
    cv.setUint32(24, raw.length, true);
    cv.setUint16(28, name.length, true);
    cv.setUint32(38, ((e.mode ?? 0o100644) << 16) >>> 0, true);
    cv.setUint32(42, offset, true);
    central.set(name, 46);
    locals.push(local);
    centrals.push(central);
    offset += local.length;
  }
  const cdSize = centrals.reduce((n, c) => n + c.length, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, entries.length, true);
  ev.setUint16(10, entries.length, true);
  ev.setUint32(12, cdSize, true);
  ev.setUint32(16, offset, true);
  const parts = [...locals, ...centrals, end];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

Deno.test("readArchive() reads a zip release (stored and deflated entries, executable bits)", () => {
  const files = readArchive(
    "p_1.0.0_windows_amd64.zip",
    zip([
      { path: "plugin.json", data: "{}" },
      {
        path: "bin/p.exe",
        data: "x".repeat(5000),
        deflate: true,
        mode: 0o100755,
      },
      { path: "bin/", mode: 0o040755 },
    ]),
  );
  assert.deepEqual(
    files.map((f) => [f.path, f.data.length, f.executable]),
    [["plugin.json", 2, false], ["bin/p.exe", 5000, true]],
  );
});

Deno.test("readArchive() refuses zip entries that leave the target, links and oversized content", () => {
  assert.throws(
    () => readArchive("x.zip", zip([{ path: "../evil", data: "x" }])),
    /leaves the target folder/,
  );
  assert.throws(
    () =>
      readArchive("x.zip", zip([{ path: "l", data: "/etc", mode: 0o120777 }])),
    /symbolic link/,
  );
  assert.throws(
    () =>
      readArchive(
        "x.zip",
        zip([{ path: "big", data: "y".repeat(4096), deflate: true }]),
        {
          maxBytes: 1024,
        },
      ),
    /more than 1024 bytes/,
  );
  assert.throws(
    () => readArchive("x.tar.xz", new Uint8Array(10)),
    /unsupported archive type/,
  );
  assert.throws(
    () => readArchive("x.tar.gz", new Uint8Array([1, 2, 3])),
    /not a valid gzip stream/,
  );
});
