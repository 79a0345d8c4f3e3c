/**
 * The work behind `web_fetch`: a bounded GET that follows redirects itself,
 * reads at most a byte cap of the body as a stream, turns HTML into
 * markdown and passes other text through, and classifies every failure.
 *
 * Network access is Deno's: the plugin runs with `--allow-net` listing the
 * hosts the operator granted, so a request to any other host (first hop or
 * a redirect target) is refused by Deno itself, and that refusal becomes a
 * PERMISSION_DENIED failure naming the host.
 *
 * @module
 */
import { NodeHtmlMarkdown } from "node-html-markdown";
import { installSandboxedProcessEnv } from "./_node_env.ts";

/** How a fetch failed, mapped one-to-one to a `ToolErrorCategory`. */
export type FailureKind =
  | "invalid_arguments"
  | "not_found"
  | "permission_denied"
  | "execution_failed"
  | "timeout"
  | "cancelled";

/** A classified failure of a fetch. */
export class FetchFailure extends Error {
  /** Its category. */
  readonly kind: FailureKind;
  /** Whether trying again later may succeed. */
  readonly retryable: boolean;
  /** Structured details (status, host, content type…). */
  readonly details: Record<string, string | number | boolean>;
  /**
   * Creates the failure.
   *
   * @param kind Its category.
   * @param message A sentence for the model and the operator.
   * @param options Retryability and details.
   */
  constructor(
    kind: FailureKind,
    message: string,
    options: {
      retryable?: boolean;
      details?: Record<string, string | number | boolean>;
    } = {},
  ) {
    super(message);
    this.name = "FetchFailure";
    this.kind = kind;
    this.retryable = options.retryable ?? false;
    this.details = options.details ?? {};
  }
}

/** The bounds of one fetch. */
export interface FetchLimits {
  /** Most body bytes downloaded; the rest is not read. */
  maxBytes: number;
  /** Most characters of converted output returned. */
  maxChars: number;
  /** Whole-fetch deadline, redirects included. */
  timeoutMs: number;
  /** Most redirects followed. */
  maxRedirects: number;
  /** The `User-Agent` header sent. */
  userAgent: string;
}

/** Defaults of {@linkcode FetchLimits} (also the provider block's defaults). */
export const DEFAULT_LIMITS: FetchLimits = {
  maxBytes: 2 * 1024 * 1024,
  maxChars: 100_000,
  timeoutMs: 30_000,
  maxRedirects: 5,
  userAgent: "ph-agent-web_fetch/0.1",
};

/** What a successful fetch returns (the tool's result payload). */
export interface FetchResult {
  /** The URL asked for. */
  url: string;
  /** The URL of the response returned, after redirects. */
  final_url: string;
  /** Its HTTP status. */
  status: number;
  /** Its media type (without parameters), or "" when none was sent. */
  content_type: string;
  /** `markdown` (converted HTML) or `text` (passed through). */
  format: "markdown" | "text";
  /** The content, ending with a truncation marker when it was cut. */
  content: string;
  /** Whether the download or the output was cut. */
  truncated: boolean;
  /** Body bytes read. */
  bytes: number;
  /** Redirects followed. */
  redirects: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

const TEXT_TYPES = new Set([
  "application/json",
  "application/ld+json",
  "application/xml",
  "application/javascript",
  "application/ecmascript",
  "application/x-javascript",
  "application/typescript",
  "application/x-sh",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/x-ndjson",
  "application/rss+xml",
  "application/atom+xml",
  "image/svg+xml",
]);

const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);

/**
 * Whether a media type is text `web_fetch` passes through or converts.
 *
 * @param mediaType A lower-case media type without parameters.
 * @returns `html`, `text`, or `binary`.
 */
export function classifyMediaType(
  mediaType: string,
): "html" | "text" | "binary" {
  if (HTML_TYPES.has(mediaType)) return "html";
  if (mediaType.startsWith("text/")) return "text";
  if (TEXT_TYPES.has(mediaType)) return "text";
  if (/^application\/[\w.-]+\+(json|xml)$/.test(mediaType)) return "text";
  return "binary";
}

/**
 * Splits a `Content-Type` header into its media type and charset.
 *
 * @param header The header value, or null.
 * @returns The lower-case media type ("" when absent) and the charset, if any.
 */
export function parseContentType(
  header: string | null,
): { mediaType: string; charset?: string } {
  if (!header) return { mediaType: "" };
  const [type, ...params] = header.split(";");
  const mediaType = type!.trim().toLowerCase();
  for (const p of params) {
    const m = /^\s*charset\s*=\s*"?([^";\s]+)"?\s*$/i.exec(p);
    if (m) return { mediaType, charset: m[1]!.toLowerCase() };
  }
  return { mediaType };
}

/**
 * Checks a URL argument: absolute `http:` or `https:`, no credentials.
 *
 * @param raw The argument.
 * @returns The parsed URL.
 * @throws {FetchFailure} `invalid_arguments`, naming the problem.
 */
export function parseTarget(raw: unknown): URL {
  if (typeof raw !== "string" || raw.trim() === "") {
    throw new FetchFailure(
      "invalid_arguments",
      `"url" must be a non-empty string, got ${JSON.stringify(raw)}`,
    );
  }
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new FetchFailure(
      "invalid_arguments",
      `"url" ${JSON.stringify(raw)} is not an absolute URL`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new FetchFailure(
      "invalid_arguments",
      `"url" ${
        JSON.stringify(raw)
      } uses ${url.protocol} — web_fetch fetches only http: and https: URLs`,
    );
  }
  if (url.username || url.password) {
    throw new FetchFailure(
      "invalid_arguments",
      `"url" must not carry credentials (user:password@); web_fetch sends no credentials`,
    );
  }
  url.hash = "";
  return url;
}

function hostOf(url: URL): string {
  return url.port ? `${url.hostname}:${url.port}` : url.hostname;
}

function isDenied(err: unknown): boolean {
  return err instanceof Deno.errors.NotCapable ||
    err instanceof Deno.errors.PermissionDenied;
}

function denied(url: URL, hop: number, err: Error): FetchFailure {
  const host = hostOf(url);
  const where = hop === 0 ? "" : ` (redirect ${hop}, to ${url.href})`;
  return new FetchFailure(
    "permission_denied",
    `Network access to host "${host}" is not granted${where}: the operator grants hosts with allow_net in the web provider block, e.g. allow_net = ["${url.hostname}"]`,
    { details: { host, url: url.href, reason: err.message } },
  );
}

/** Reads up to `max` bytes of a body; cancels the rest. */
async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  max: number,
): Promise<{ bytes: Uint8Array; cut: boolean }> {
  if (!body) return { bytes: new Uint8Array(), cut: false };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let cut = false;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      if (total + value.length > max) {
        chunks.push(value.subarray(0, max - total));
        total = max;
        cut = true;
        break;
      }
      chunks.push(value);
      total += value.length;
    }
  } finally {
    if (cut) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return { bytes: out, cut };
}

function decode(bytes: Uint8Array, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? "utf-8").decode(bytes);
  } catch {
    // An unknown label: UTF-8 with replacement characters is still useful.
    return new TextDecoder("utf-8").decode(bytes);
  }
}

/** Text with no NUL in its first KiB, for responses without a type. */
function looksLikeText(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 1024);
  return !head.includes(0);
}

/**
 * Converts HTML to markdown (scripts, styles and other non-content
 * elements are dropped by the converter).
 *
 * @param html The HTML.
 * @returns Markdown.
 */
export function htmlToMarkdown(html: string): string {
  installSandboxedProcessEnv();
  return NodeHtmlMarkdown.translate(html).trim();
}

/**
 * Applies the character cap, with a marker saying what was cut and why.
 *
 * @param text The converted content.
 * @param maxChars The cap.
 * @param downloadCut Whether the download itself stopped at the byte cap.
 * @param maxBytes The byte cap (for the marker).
 * @returns The content to return and whether anything was cut.
 */
export function capOutput(
  text: string,
  maxChars: number,
  downloadCut: boolean,
  maxBytes: number,
): { content: string; truncated: boolean } {
  const notes: string[] = [];
  let content = text;
  if (text.length > maxChars) {
    content = text.slice(0, maxChars);
    notes.push(
      `output cut at ${maxChars} of ${text.length} characters`,
    );
  }
  if (downloadCut) {
    notes.push(`download stopped at the ${maxBytes}-byte limit`);
  }
  if (notes.length === 0) return { content, truncated: false };
  return {
    content: `${content}\n\n[web_fetch: content truncated — ${
      notes.join("; ")
    }. Ask for a more specific page to see the rest.]`,
    truncated: true,
  };
}

/**
 * Fetches a page with GET.
 *
 * @param target The URL (already checked by {@linkcode parseTarget}).
 * @param limits The bounds.
 * @param signal Cancellation from the kernel.
 * @returns The result payload.
 * @throws {FetchFailure} Every failure, classified.
 */
export async function fetchPage(
  target: URL,
  limits: FetchLimits,
  signal?: AbortSignal,
): Promise<FetchResult> {
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
  let url = target;
  let hops = 0;
  try {
    while (true) {
      let res: Response;
      try {
        res = await fetch(url, {
          method: "GET",
          redirect: "manual",
          signal: combined,
          headers: {
            "accept":
              "text/html, text/markdown;q=0.9, text/plain;q=0.9, application/json;q=0.8, */*;q=0.1",
            "user-agent": limits.userAgent,
          },
        });
      } catch (err) {
        if (isDenied(err)) throw denied(url, hops, err as Error);
        throw err;
      }
      const location = res.headers.get("location");
      if (REDIRECTS.has(res.status) && location) {
        await res.body?.cancel().catch(() => {});
        if (hops >= limits.maxRedirects) {
          throw new FetchFailure(
            "execution_failed",
            `Too many redirects: ${target.href} redirected more than ${limits.maxRedirects} times (last to ${location})`,
            { details: { url: target.href, redirects: hops } },
          );
        }
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new FetchFailure(
            "execution_failed",
            `${url.href} redirected to an invalid location ${
              JSON.stringify(location)
            }`,
          );
        }
        if (next.protocol !== "http:" && next.protocol !== "https:") {
          throw new FetchFailure(
            "execution_failed",
            `${url.href} redirected to ${next.href}, which is not http: or https:`,
          );
        }
        next.hash = "";
        url = next;
        hops++;
        continue;
      }
      return await readResponse(target, url, res, hops, limits);
    }
  } catch (err) {
    if (err instanceof FetchFailure) throw err;
    if (signal?.aborted) {
      throw new FetchFailure(
        "cancelled",
        `Fetching ${target.href} was cancelled`,
      );
    }
    if (deadline.aborted) {
      throw new FetchFailure(
        "timeout",
        `Fetching ${target.href} took longer than ${limits.timeoutMs} ms`,
        { retryable: true, details: { url: url.href } },
      );
    }
    throw new FetchFailure(
      "execution_failed",
      `Fetching ${url.href} failed: ${(err as Error).message}`,
      { retryable: true, details: { url: url.href } },
    );
  }
}

async function readResponse(
  target: URL,
  url: URL,
  res: Response,
  hops: number,
  limits: FetchLimits,
): Promise<FetchResult> {
  const { mediaType, charset } = parseContentType(
    res.headers.get("content-type"),
  );
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    const details = { url: url.href, status: res.status };
    if (res.status === 404 || res.status === 410) {
      throw new FetchFailure(
        "not_found",
        `${url.href} answered ${res.status} ${res.statusText}`.trim(),
        { details },
      );
    }
    throw new FetchFailure(
      "execution_failed",
      `${url.href} answered ${res.status} ${res.statusText}`.trim(),
      {
        retryable: res.status === 429 || res.status >= 500,
        details,
      },
    );
  }
  const kind = mediaType === "" ? undefined : classifyMediaType(mediaType);
  if (kind === "binary") {
    await res.body?.cancel().catch(() => {});
    throw new FetchFailure(
      "execution_failed",
      `${url.href} is ${mediaType}, which is binary: web_fetch returns text and HTML only`,
      { details: { url: url.href, content_type: mediaType } },
    );
  }
  const { bytes, cut } = await readCapped(res.body, limits.maxBytes);
  if (kind === undefined && !looksLikeText(bytes)) {
    throw new FetchFailure(
      "execution_failed",
      `${url.href} sent no content type and its content is binary: web_fetch returns text and HTML only`,
      { details: { url: url.href } },
    );
  }
  const text = decode(bytes, charset);
  const html = kind === "html";
  const converted = html ? htmlToMarkdown(text) : text;
  const { content, truncated } = capOutput(
    converted,
    limits.maxChars,
    cut,
    limits.maxBytes,
  );
  return {
    url: target.href,
    final_url: url.href,
    status: res.status,
    content_type: mediaType,
    format: html ? "markdown" : "text",
    content,
    truncated,
    bytes: bytes.length,
    redirects: hops,
  };
}
