/**
 * The forges' Releases APIs (config.md §5.6): listing a `github.com/…` or
 * `gitlab.com/…` source's releases (paginated, drafts skipped, the `v` of
 * tags stripped) and fetching a release asset. A forge token
 * (`GITHUB_TOKEN` / `GITLAB_TOKEN`) is sent only to that forge's API origin,
 * never across a redirect to another origin, and never appears in a message.
 *
 * @module
 */

/**
 * The public forges' API bases, by source host, used when the environment
 * does not override them (`GITHUB_API_URL`, `CI_API_V4_URL`, as the forges'
 * own CI sets them).
 */
export const FORGE_API_DEFAULTS: Readonly<
  Record<ForgeHost, { api: string; envVar: string; tokenVar: string }>
> = {
  "github.com": {
    api: "https://api.github.com",
    envVar: "GITHUB_API_URL",
    tokenVar: "GITHUB_TOKEN",
  },
  "gitlab.com": {
    api: "https://gitlab.com/api/v4",
    envVar: "CI_API_V4_URL",
    tokenVar: "GITLAB_TOKEN",
  },
};

/** The forges a source may name. */
export type ForgeHost = "github.com" | "gitlab.com";

/** A parsed forge source. */
export interface ForgeSource {
  /** The source as written, e.g. `github.com/acme/provider-fs`. */
  source: string;
  /** The forge. */
  host: ForgeHost;
  /** The repository path after the host (`acme/provider-fs`). */
  path: string;
  /** The project's name, goreleaser's default: the last path segment. */
  name: string;
}

/** A forge request failed, or a source or release is not usable. */
export class ForgeError extends Error {
  /**
   * Creates the error.
   *
   * @param message What went wrong, naming the source.
   * @param options The cause.
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ForgeError";
  }
}

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Parses a forge source address.
 *
 * @example Usage
 * ```ts
 * import { parseForgeSource } from "./forge_api.ts";
 * import assert from "node:assert/strict";
 * const s = parseForgeSource("gitlab.com/team/sub/provider-fs");
 * assert.equal(s.path, "team/sub/provider-fs");
 * assert.equal(s.name, "provider-fs");
 * ```
 *
 * @param source `github.com/OWNER/REPO` or `gitlab.com/GROUP/…/PROJECT`.
 * @returns The parts.
 * @throws {ForgeError} For anything else.
 */
export function parseForgeSource(source: string): ForgeSource {
  const parts = source.split("/");
  const host = parts[0];
  const rest = parts.slice(1);
  const ok = (host === "github.com" && rest.length === 2) ||
    (host === "gitlab.com" && rest.length >= 2);
  if (!ok || !rest.every((s) => SEGMENT.test(s) && s !== "..")) {
    throw new ForgeError(
      `${
        JSON.stringify(source)
      } is not a forge source: expected "github.com/<owner>/<repo>" or "gitlab.com/<group>/<project>"`,
    );
  }
  return {
    source,
    host: host as ForgeHost,
    path: rest.join("/"),
    name: rest[rest.length - 1]!,
  };
}

/** One release asset. */
export interface ReleaseAsset {
  /** The file name. */
  name: string;
  /** Where it is downloaded from. */
  url: string;
  /** Extra headers for the download (GitHub's API asset URL needs one). */
  accept?: string;
}

/** One published release. */
export interface Release {
  /** The tag as published, e.g. `v1.2.3`. */
  tag: string;
  /** The version: the tag without its leading `v`. */
  version: string;
  /** Whether the forge marks it a pre-release. */
  prerelease: boolean;
  /** Its assets. */
  assets: ReleaseAsset[];
}

/** The environment a forge client reads, and how it fetches. */
export interface ForgeClientOptions {
  /**
   * `GITHUB_API_URL`, `CI_API_V4_URL`, `GITHUB_TOKEN`, `GITLAB_TOKEN`.
   * @default {{}}
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * The fetch implementation.
   * @default {globalThis.fetch}
   */
  fetch?: typeof fetch;
  /**
   * The most pages of releases read (100 per page).
   * @default {50}
   */
  maxPages?: number;
}

/**
 * A client of one forge's API: its base, its token, and fetches that send
 * the token only to the base's origin.
 */
export class ForgeClient {
  /** The source's forge. */
  readonly host: ForgeHost;
  /** The API base URL, without a trailing slash. */
  readonly api: string;
  #token: string | undefined;
  #tokenVar: string;
  #fetch: typeof fetch;
  #maxPages: number;

  /**
   * Creates a client for a forge.
   *
   * @param host The forge.
   * @param options The environment and the fetch implementation.
   */
  constructor(host: ForgeHost, options: ForgeClientOptions = {}) {
    const env = options.env ?? {};
    const d = FORGE_API_DEFAULTS[host];
    this.host = host;
    this.api = (env[d.envVar] || d.api).replace(/\/+$/, "");
    this.#token = env[d.tokenVar] || undefined;
    this.#tokenVar = d.tokenVar;
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#maxPages = options.maxPages ?? 50;
  }

  /** Whether a token is set for this forge. */
  get hasToken(): boolean {
    return this.#token !== undefined;
  }

  /**
   * GETs a URL, following redirects by hand so that the token goes only to
   * the API's origin (and, with `extra`, the given headers only to the
   * first origin).
   *
   * @param url The URL.
   * @param what What is fetched, for messages.
   * @param init Extra headers and a signal.
   * @returns The response (status 2xx).
   * @throws {ForgeError} For a network error or a non-2xx status.
   */
  async get(
    url: string,
    what: string,
    init: { headers?: Record<string, string>; signal?: AbortSignal } = {},
  ): Promise<Response> {
    const apiOrigin = new URL(this.api).origin;
    let current = url;
    for (let hop = 0; hop < 5; hop++) {
      const u = new URL(current);
      const headers: Record<string, string> = {
        "user-agent": "ph-agent",
        ...(hop === 0 ? init.headers ?? {} : {}),
      };
      if (this.#token !== undefined && u.origin === apiOrigin) {
        if (this.host === "github.com") {
          headers.authorization = `Bearer ${this.#token}`;
        } else headers["private-token"] = this.#token;
      }
      let res: Response;
      try {
        res = await this.#fetch(current, {
          headers,
          redirect: "manual",
          ...(init.signal ? { signal: init.signal } : {}),
        });
      } catch (err) {
        throw new ForgeError(
          `Cannot fetch ${what} from ${u.origin}: ${
            err instanceof Error ? err.message : String(err)
          }`,
          { cause: err },
        );
      }
      if (
        res.status >= 300 && res.status < 400 && res.headers.has("location")
      ) {
        await res.body?.cancel();
        current = new URL(res.headers.get("location")!, current).href;
        continue;
      }
      if (res.ok) return res;
      await res.body?.cancel();
      throw new ForgeError(this.#statusMessage(res, what, u));
    }
    throw new ForgeError(`Cannot fetch ${what}: too many redirects`);
  }

  #statusMessage(res: Response, what: string, u: URL): string {
    const reset = res.headers.get("x-ratelimit-reset") ??
      res.headers.get("ratelimit-reset");
    if (
      res.status === 429 ||
      (res.status === 403 && res.headers.get("x-ratelimit-remaining") === "0")
    ) {
      const when = reset && /^\d+$/.test(reset)
        ? ` It resets at ${new Date(Number(reset) * 1000).toISOString()}.`
        : "";
      return `Cannot fetch ${what}: the forge's API rate limit is exhausted (HTTP ${res.status} from ${u.origin}).${when}${
        this.#token === undefined
          ? ` Setting ${this.#tokenVar} raises the limit.`
          : ""
      }`;
    }
    if (res.status === 404 || res.status === 401 || res.status === 403) {
      return `Cannot fetch ${what}: HTTP ${res.status} from ${u.origin}. The repository or release does not exist, or it is private${
        this.#token === undefined
          ? ` (set ${this.#tokenVar} to a token that can read it)`
          : ` and ${this.#tokenVar} cannot read it`
      }.`;
    }
    return `Cannot fetch ${what}: HTTP ${res.status} from ${u.origin}.`;
  }

  /**
   * Lists a source's published releases, every page, drafts (GitHub) and
   * upcoming releases (GitLab) skipped, tags without a leading `v` kept as
   * they are.
   *
   * @param source The source.
   * @param signal Aborts the listing.
   * @returns The releases, in the forge's order.
   * @throws {ForgeError} When a page cannot be fetched or parsed.
   */
  async listReleases(
    source: ForgeSource,
    signal?: AbortSignal,
  ): Promise<Release[]> {
    const out: Release[] = [];
    let url: string | undefined = this.host === "github.com"
      ? `${this.api}/repos/${source.path}/releases?per_page=100`
      : `${this.api}/projects/${
        encodeURIComponent(source.path)
      }/releases?per_page=100`;
    const what = `the releases of ${source.source}`;
    for (let page = 0; url !== undefined; page++) {
      if (page >= this.#maxPages) {
        throw new ForgeError(
          `Cannot list ${what}: more than ${this.#maxPages} pages`,
        );
      }
      const res = await this.get(url, what, {
        headers: { accept: "application/json" },
        ...(signal ? { signal } : {}),
      });
      let body: unknown;
      try {
        body = await res.json();
      } catch {
        throw new ForgeError(`Cannot list ${what}: the answer is not JSON`);
      }
      if (!Array.isArray(body)) {
        throw new ForgeError(`Cannot list ${what}: the answer is not a list`);
      }
      for (const r of body) {
        const rel = this.host === "github.com"
          ? githubRelease(r)
          : gitlabRelease(r);
        if (rel) out.push(rel);
      }
      url = nextPage(res, url);
    }
    return out;
  }
}

/** One repository found by a topic search. */
export interface FoundRepository {
  /** Its source address, e.g. `github.com/acme/provider-fs`. */
  source: string;
  /** Its description. */
  description: string;
}

/** What {@linkcode searchTopic} found. */
export interface TopicSearchResult {
  /** The repositories, in the forge's order, each once. */
  repositories: FoundRepository[];
  /** Whether more pages remained after the bound. */
  truncated: boolean;
}

/** Options of {@linkcode searchTopic}. */
export interface SearchTopicOptions {
  /**
   * The most pages read (100 repositories a page); GitHub's search answers
   * at most 1000 results, so the default reads all it gives.
   * @default {10}
   */
  readonly maxPages?: number;
}

/**
 * Searches a forge for repositories carrying a topic (GitHub's repository
 * search `topic:`, GitLab's `projects?topic=`), following the pages (Link
 * header, X-Next-Page) up to a bound.
 *
 * @param client The forge's client.
 * @param topic The topic.
 * @param options The page bound.
 * @returns The repositories found, and whether the bound cut the search.
 * @throws {ForgeError} When a page cannot be fetched or parsed.
 */
export async function searchTopic(
  client: ForgeClient,
  topic: string,
  options: SearchTopicOptions = {},
): Promise<TopicSearchResult> {
  const maxPages = options.maxPages ?? 10;
  let url: string | undefined = client.host === "github.com"
    ? `${client.api}/search/repositories?q=${
      encodeURIComponent(`topic:${topic}`)
    }&per_page=100`
    : `${client.api}/projects?topic=${encodeURIComponent(topic)}&per_page=100`;
  const what = `the ${client.host} topic search`;
  const seen = new Set<string>();
  const repositories: FoundRepository[] = [];
  for (let page = 0; url !== undefined; page++) {
    if (page >= maxPages) return { repositories, truncated: true };
    const res = await client.get(url, what, {
      headers: { accept: "application/json" },
    });
    let body: unknown;
    try {
      body = await res.json();
    } catch {
      throw new ForgeError(`The ${client.host} topic search answered no JSON`);
    }
    const items = client.host === "github.com"
      ? isObject(body) && Array.isArray(body.items) ? body.items : undefined
      : Array.isArray(body)
      ? body
      : undefined;
    if (items === undefined) {
      throw new ForgeError(
        `The ${client.host} topic search answered no list of repositories (page ${
          page + 1
        })`,
      );
    }
    for (const it of items) {
      if (!isObject(it)) continue;
      const path = client.host === "github.com"
        ? it.full_name
        : it.path_with_namespace;
      if (typeof path !== "string") continue;
      const source = `${client.host}/${path}`;
      // Results may shift between pages: each repository once.
      if (seen.has(source)) continue;
      seen.add(source);
      repositories.push({
        source,
        description: typeof it.description === "string" ? it.description : "",
      });
    }
    url = nextPage(res, url);
  }
  return { repositories, truncated: false };
}

function nextPage(res: Response, url: string): string | undefined {
  const link = res.headers.get("link");
  if (link) {
    for (const part of link.split(",")) {
      const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
      if (m) return new URL(m[1]!, url).href;
    }
    return undefined;
  }
  const next = res.headers.get("x-next-page");
  if (next && /^\d+$/.test(next)) {
    const u = new URL(url);
    u.searchParams.set("page", next);
    return u.href;
  }
  return undefined;
}

function stripV(tag: string): string {
  return tag.startsWith("v") ? tag.slice(1) : tag;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function githubRelease(r: unknown): Release | undefined {
  if (!isObject(r) || typeof r.tag_name !== "string" || r.draft === true) {
    return undefined;
  }
  const assets: ReleaseAsset[] = [];
  for (const a of Array.isArray(r.assets) ? r.assets : []) {
    if (!isObject(a) || typeof a.name !== "string") continue;
    // The API URL (with an octet-stream accept) works for private
    // repositories with the token; the browser URL for public ones.
    if (typeof a.url === "string") {
      assets.push({
        name: a.name,
        url: a.url,
        accept: "application/octet-stream",
      });
    } else if (typeof a.browser_download_url === "string") {
      assets.push({ name: a.name, url: a.browser_download_url });
    }
  }
  return {
    tag: r.tag_name,
    version: stripV(r.tag_name),
    prerelease: r.prerelease === true,
    assets,
  };
}

function gitlabRelease(r: unknown): Release | undefined {
  if (
    !isObject(r) || typeof r.tag_name !== "string" ||
    r.upcoming_release === true
  ) return undefined;
  const assets: ReleaseAsset[] = [];
  const links = isObject(r.assets) && Array.isArray(r.assets.links)
    ? r.assets.links
    : [];
  for (const l of links) {
    if (!isObject(l) || typeof l.name !== "string") continue;
    const url = typeof l.direct_asset_url === "string"
      ? l.direct_asset_url
      : typeof l.url === "string"
      ? l.url
      : undefined;
    if (url !== undefined) assets.push({ name: l.name, url });
  }
  return {
    tag: r.tag_name,
    version: stripV(r.tag_name),
    prerelease: false,
    assets,
  };
}
