/**
 * A local npm-registry stand-in for tests: packages built from a few files,
 * served on 127.0.0.1 the way a registry serves them to Deno — the package
 * document at `GET /<name>` (its `versions[v].dist` naming the tarball, its
 * `shasum` and `integrity`) and the gzipped tarball itself. It also answers
 * a plain-HTTP proxy's requests (absolute-form, for any host) the same way,
 * so that it can stand in for a registry reached only through
 * `HTTP_PROXY`: the tarball URL always names the host the client asked.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";

/** A package to serve. */
export interface NpmPackage {
  /** Its name (unscoped). */
  name: string;
  /** Its version. */
  version: string;
  /** Its files, by path inside the package; `package.json` is written from the other fields. */
  files: Record<string, string>;
  /** `bin` of its package.json. */
  bin?: Record<string, string>;
}

/** A running stand-in. */
export interface NpmRegistry extends AsyncDisposable {
  /** Its base URL, ending in `/`: the value for `NPM_CONFIG_REGISTRY`. */
  url: string;
  /** Every request's method and full URL (as the client named it), in order. */
  requests: string[];
}

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, "0") + "\0";
}

/**
 * A ustar archive of `files` (each under `package/`, as npm packs them),
 * gzipped.
 *
 * @param files Path → text.
 * @returns The `.tgz` bytes.
 */
export function tarball(
  files: Record<string, string>,
): Uint8Array<ArrayBuffer> {
  const enc = new TextEncoder();
  const blocks: Uint8Array[] = [];
  for (const [path, text] of Object.entries(files)) {
    const data = enc.encode(text);
    const header = new Uint8Array(512);
    const put = (offset: number, s: string) =>
      header.set(enc.encode(s), offset);
    put(0, `package/${path}`); // name
    put(100, octal(0o644, 8)); // mode
    put(108, octal(0, 8)); // uid
    put(116, octal(0, 8)); // gid
    put(124, octal(data.length, 12)); // size
    put(136, octal(0, 12)); // mtime
    put(148, " ".repeat(8)); // checksum, counted as spaces
    put(156, "0"); // a regular file
    put(257, "ustar\0"); // magic
    put(263, "00"); // version
    const sum = header.reduce((a, b) => a + b, 0);
    put(148, sum.toString(8).padStart(6, "0") + "\0 ");
    blocks.push(header, data, new Uint8Array((512 - data.length % 512) % 512));
  }
  blocks.push(new Uint8Array(1024));
  const tar = new Uint8Array(blocks.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of blocks) {
    tar.set(b, at);
    at += b.length;
  }
  return new Uint8Array(gzipSync(tar));
}

/**
 * Serves `packages` on 127.0.0.1 (port 0) until disposed; any other path
 * is 404.
 *
 * @param packages The packages.
 * @returns The running stand-in.
 */
export function serveNpmRegistry(packages: NpmPackage[]): NpmRegistry {
  const requests: string[] = [];
  const routes = new Map<string, (origin: string) => Response>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req) => {
      const url = new URL(req.url);
      requests.push(`${req.method} ${url.href}`);
      return routes.get(decodeURIComponent(url.pathname))?.(url.origin) ??
        new Response("not found", { status: 404 });
    },
  );
  const url = `http://127.0.0.1:${server.addr.port}/`;
  for (const p of packages) {
    const manifest = {
      name: p.name,
      version: p.version,
      ...(p.bin ? { bin: p.bin } : {}),
    };
    const tgz = tarball({
      "package.json": JSON.stringify(manifest, null, 2),
      ...p.files,
    });
    const file = `${p.name}/-/${p.name}-${p.version}.tgz`;
    const document = (origin: string) => ({
      name: p.name,
      "dist-tags": { latest: p.version },
      versions: {
        [p.version]: {
          ...manifest,
          dependencies: {},
          dist: {
            tarball: `${origin}/${file}`,
            shasum: createHash("sha1").update(tgz).digest("hex"),
            integrity: `sha512-${
              createHash("sha512").update(tgz).digest("base64")
            }`,
          },
        },
      },
    });
    routes.set(`/${p.name}`, (origin) => Response.json(document(origin)));
    routes.set(
      `/${file}`,
      () =>
        new Response(tgz, {
          headers: { "content-type": "application/octet-stream" },
        }),
    );
  }
  return {
    url,
    requests,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}
