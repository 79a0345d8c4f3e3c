/**
 * A fake forge on 127.0.0.1 for the registry tests: GitHub's and GitLab's
 * Releases APIs (paginated: `Link` and `X-Next-Page`), private repositories
 * (404 without the token), a rate limit (403 with `x-ratelimit-reset`),
 * asset downloads redirected to a second origin (the "CDN"), and a mirror
 * that wants a bearer token. Every request is recorded with its
 * credentials, so the tests can tell where a token went. Plus the archive
 * builders: goreleaser-named `.tar.gz` releases with their checksum file.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";

/** One file in an archive the tests build. */
export interface TarEntry {
  /** The stored path (may be hostile). */
  path: string;
  /** The bytes (files). */
  data?: Uint8Array | string;
  /** `0` file (default), `2` symlink, `3` char device, `5` folder. */
  type?: "0" | "2" | "3" | "5";
  /** The link target (symlinks). */
  link?: string;
  /** The mode (default 0644). */
  mode?: number;
}

function field(h: Uint8Array, off: number, len: number, s: string): void {
  h.set(new TextEncoder().encode(s).subarray(0, len), off);
}

function octal(h: Uint8Array, off: number, len: number, n: number): void {
  field(h, off, len, n.toString(8).padStart(len - 1, "0") + "\0");
}

/**
 * Packs entries into a gzipped ustar archive.
 *
 * @param entries The entries.
 * @returns The `.tar.gz` bytes.
 */
export function tarGz(entries: readonly TarEntry[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const e of entries) {
    const data = typeof e.data === "string"
      ? new TextEncoder().encode(e.data)
      : e.data ?? new Uint8Array();
    const h = new Uint8Array(512);
    field(h, 0, 100, e.path);
    octal(h, 100, 8, e.mode ?? 0o644);
    octal(h, 108, 8, 0);
    octal(h, 116, 8, 0);
    octal(h, 124, 12, e.type === undefined || e.type === "0" ? data.length : 0);
    octal(h, 136, 12, 0);
    field(h, 148, 8, "        ");
    field(h, 156, 1, e.type ?? "0");
    if (e.link) field(h, 157, 100, e.link);
    field(h, 257, 6, "ustar\0");
    field(h, 263, 2, "00");
    let sum = 0;
    for (const b of h) sum += b;
    field(h, 148, 8, sum.toString(8).padStart(6, "0") + "\0 ");
    parts.push(h);
    if (e.type === undefined || e.type === "0") {
      parts.push(data);
      const pad = (512 - (data.length % 512)) % 512;
      parts.push(new Uint8Array(pad));
    }
  }
  parts.push(new Uint8Array(1024));
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return gzipSync(out);
}

/**
 * The sha256 of bytes, lowercase hex.
 *
 * @param b The bytes.
 * @returns The hex digest.
 */
export function sha256Hex(b: Uint8Array): string {
  return createHash("sha256").update(b).digest("hex");
}

/** A release on the fake forge. */
export interface FakeRelease {
  /** The tag, e.g. `v1.2.0`. */
  tag: string;
  /** A draft (GitHub) / upcoming release (GitLab). */
  draft?: boolean;
  /** A pre-release. */
  prerelease?: boolean;
  /** File name → bytes. */
  assets: Map<string, Uint8Array>;
}

/** A repository on the fake forge. */
export interface FakeRepo {
  /** The releases, newest first as the forges list them. */
  releases: FakeRelease[];
  /** A token the repository needs (private); absent: public. */
  token?: string;
}

/** One request the fake forge saw. */
export interface SeenRequest {
  /** `api`, `cdn` or `mirror`. */
  server: "api" | "cdn" | "mirror";
  /** The path and query. */
  path: string;
  /** The `authorization` or `private-token` header, if any. */
  credential?: string;
}

/**
 * Builds a goreleaser-style release: one `.tar.gz` per platform holding
 * the given files, and `<name>_<version>_checksums.txt`.
 *
 * @param name The project's name.
 * @param version The version (no `v`).
 * @param platforms Platform → entries of its archive.
 * @returns The assets.
 */
export function goreleaserAssets(
  name: string,
  version: string,
  platforms: Record<string, readonly TarEntry[]>,
): Map<string, Uint8Array> {
  const assets = new Map<string, Uint8Array>();
  const lines: string[] = [];
  for (const [p, entries] of Object.entries(platforms)) {
    const file = `${name}_${version}_${p}.tar.gz`;
    const bytes = tarGz(entries);
    assets.set(file, bytes);
    lines.push(`${sha256Hex(bytes)}  ${file}`);
  }
  assets.set(
    `${name}_${version}_checksums.txt`,
    new TextEncoder().encode(lines.join("\n") + "\n"),
  );
  return assets;
}

/** The running fake forge. */
export interface FakeForge extends AsyncDisposable {
  /** `GITHUB_API_URL`. */
  githubApi: string;
  /** `CI_API_V4_URL`. */
  gitlabApi: string;
  /** The mirror's base URL. */
  mirror: string;
  /** `github:<owner>/<repo>` or `gitlab:<path>` → repository. */
  repos: Map<string, FakeRepo>;
  /** Every request, in order. */
  seen: SeenRequest[];
  /** Releases per page. */
  perPage: number;
  /** When set, the API answers 403 rate-limited with this reset (epoch s). */
  rateLimitReset?: number;
  /** The mirror's token. */
  mirrorToken: string;
  /** Stops both servers. */
  close(): Promise<void>;
}

/**
 * Starts the fake forge (API + mirror on one origin, downloads on another).
 *
 * @returns The forge.
 */
export function startFakeForge(): FakeForge {
  const seen: SeenRequest[] = [];
  const blobs = new Map<string, Uint8Array>();
  const credential = (r: Request) =>
    r.headers.get("authorization") ?? r.headers.get("private-token") ??
      undefined;
  const cdn = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req) => {
      const u = new URL(req.url);
      const c = credential(req);
      seen.push({
        server: "cdn",
        path: u.pathname,
        ...(c ? { credential: c } : {}),
      });
      const b = blobs.get(u.pathname);
      return b ? new Response(b.slice()) : new Response("no", { status: 404 });
    },
  );
  const cdnBase = `http://127.0.0.1:${cdn.addr.port}`;
  const forge = {} as FakeForge;
  const api = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req) => {
      const u = new URL(req.url);
      const c = credential(req);
      const server = u.pathname.startsWith("/mirror/") ? "mirror" : "api";
      seen.push({
        server,
        path: u.pathname + u.search,
        ...(c ? { credential: c } : {}),
      });
      if (server === "mirror") {
        if (c !== `Bearer ${forge.mirrorToken}`) {
          return new Response("unauthorized", { status: 401 });
        }
        // /mirror/<rest>/<tag>/<file>: the file from any release.
        const file = u.pathname.split("/").pop()!;
        for (const repo of forge.repos.values()) {
          for (const rel of repo.releases) {
            const b = rel.assets.get(file);
            if (b) return new Response(b.slice());
          }
        }
        return new Response("no", { status: 404 });
      }
      if (forge.rateLimitReset !== undefined) {
        return new Response('{"message":"API rate limit exceeded"}', {
          status: 403,
          headers: {
            "x-ratelimit-remaining": "0",
            "x-ratelimit-reset": String(forge.rateLimitReset),
          },
        });
      }
      const page = Number(u.searchParams.get("page") ?? "1");
      // Topic searches page like the release lists: `perPage` a page, a
      // Link header (GitHub) or X-Next-Page (GitLab) while more remain.
      if (u.pathname === "/gh/search/repositories") {
        const q = u.searchParams.get("q") ?? "";
        const all = [...forge.repos.keys()]
          .filter((k) =>
            k.startsWith("github:") && q === "topic:agent-harness-provider"
          )
          .map((k) => ({ full_name: k.slice(7), description: "a provider" }));
        const headers: Record<string, string> = {};
        if (page * forge.perPage < all.length) {
          const next = new URL(u);
          next.searchParams.set("page", String(page + 1));
          headers.link = `<${next.href}>; rel="next"`;
        }
        return Response.json({
          total_count: all.length,
          items: all.slice((page - 1) * forge.perPage, page * forge.perPage),
        }, { headers });
      }
      if (u.pathname === "/gl/projects") {
        const all = [...forge.repos.keys()]
          .filter((k) =>
            k.startsWith("gitlab:") &&
            u.searchParams.get("topic") === "agent-harness-provider"
          )
          .map((k) => ({
            path_with_namespace: k.slice(7),
            description: "a provider",
          }));
        const headers: Record<string, string> = {};
        if (page * forge.perPage < all.length) {
          headers["x-next-page"] = String(page + 1);
        }
        return Response.json(
          all.slice((page - 1) * forge.perPage, page * forge.perPage),
          { headers },
        );
      }
      let m = /^\/gh\/repos\/([^/]+\/[^/]+)\/releases$/.exec(u.pathname);
      if (m) {
        const repo = forge.repos.get(`github:${m[1]}`);
        if (!repo || (repo.token && c !== `Bearer ${repo.token}`)) {
          return Response.json({ message: "Not Found" }, { status: 404 });
        }
        const all = repo.releases;
        const slice = all.slice(
          (page - 1) * forge.perPage,
          page * forge.perPage,
        );
        const headers: Record<string, string> = {};
        if (page * forge.perPage < all.length) {
          const next = new URL(u);
          next.searchParams.set("page", String(page + 1));
          headers.link = `<${next.href}>; rel="next", <${u.href}>; rel="first"`;
        }
        return Response.json(
          slice.map((r) => ({
            tag_name: r.tag,
            draft: r.draft === true,
            prerelease: r.prerelease === true,
            assets: [...r.assets.keys()].map((name) => ({
              name,
              url: `${u.origin}/gh/assets/${m![1]}/${r.tag}/${name}`,
              browser_download_url: `${cdnBase}/dl/${m![1]}/${r.tag}/${name}`,
            })),
          })),
          { headers },
        );
      }
      m = /^\/gh\/assets\/([^/]+\/[^/]+)\/([^/]+)\/([^/]+)$/.exec(u.pathname);
      if (m) {
        const repo = forge.repos.get(`github:${m[1]}`);
        if (!repo || (repo.token && c !== `Bearer ${repo.token}`)) {
          return Response.json({ message: "Not Found" }, { status: 404 });
        }
        const rel = repo.releases.find((r) => r.tag === m![2]);
        const b = rel?.assets.get(m[3]!);
        if (!b) return new Response("no", { status: 404 });
        // Like the forge: a redirect to a signed URL on another origin.
        const path = `/blob/${crypto.randomUUID()}`;
        blobs.set(path, b);
        return new Response(null, {
          status: 302,
          headers: { location: `${cdnBase}${path}` },
        });
      }
      m = /^\/gl\/projects\/([^/]+)\/releases$/.exec(u.pathname);
      if (m) {
        const path = decodeURIComponent(m[1]!);
        const repo = forge.repos.get(`gitlab:${path}`);
        if (!repo || (repo.token && c !== repo.token)) {
          return Response.json({ message: "404 Project Not Found" }, {
            status: 404,
          });
        }
        const all = repo.releases;
        const slice = all.slice(
          (page - 1) * forge.perPage,
          page * forge.perPage,
        );
        const headers: Record<string, string> = {};
        if (page * forge.perPage < all.length) {
          headers["x-next-page"] = String(page + 1);
        }
        return Response.json(
          slice.map((r) => ({
            tag_name: r.tag,
            upcoming_release: r.draft === true,
            assets: {
              links: [...r.assets.keys()].map((name) => {
                const p = `/dl/${path}/${r.tag}/${name}`;
                blobs.set(p, r.assets.get(name)!);
                return { name, url: `${cdnBase}${p}` };
              }),
            },
          })),
          { headers },
        );
      }
      return new Response("not found", { status: 404 });
    },
  );
  const base = `http://127.0.0.1:${api.addr.port}`;
  Object.assign(forge, {
    githubApi: `${base}/gh`,
    gitlabApi: `${base}/gl`,
    mirror: `${base}/mirror`,
    repos: new Map<string, FakeRepo>(),
    seen,
    perPage: 2,
    mirrorToken: "mirror-secret",
    async close() {
      await Promise.all([api.shutdown(), cdn.shutdown()]);
    },
    async [Symbol.asyncDispose]() {
      await forge.close();
    },
  });
  // GitHub serves browser_download_url from the CDN too.
  const origSet = forge.repos.set.bind(forge.repos);
  forge.repos.set = (k: string, v: FakeRepo) => {
    if (k.startsWith("github:")) {
      for (const r of v.releases) {
        for (const [name, b] of r.assets) {
          blobs.set(`/dl/${k.slice(7)}/${r.tag}/${name}`, b);
        }
      }
    }
    return origSet(k, v);
  };
  return forge;
}
