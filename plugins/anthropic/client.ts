/**
 * The provider's settings (its decoded `agent.hcl` block) and the HTTP
 * request to the API (a direct `fetch`: building and sending a request
 * through the vendor SDK cost about 2 ms per model call).
 *
 * @module
 */
import type { JsonObject } from "@bufbuild/protobuf";

/** The vendor's API base URL. */
export const DEFAULT_BASE_URL = "https://api.anthropic.com";
/** `max_tokens` when neither the request nor the config sets one. */
export const DEFAULT_MAX_TOKENS = 16384;
/** The HTTP timeout when the config sets none. */
export const DEFAULT_TIMEOUT_MS = 600_000;

/** The decoded, checked provider block. */
export interface Settings {
  /** The API key (a secret: never logged, never in an error). */
  readonly apiKey: string;
  /** The API base URL, without a trailing slash. */
  readonly baseUrl: string;
  /** `max_tokens` when a request sets no `max_output_tokens`. */
  readonly defaultMaxTokens: number;
  /** HTTP timeout in milliseconds. */
  readonly timeoutMs: number;
}

/** A bad provider block, naming the attribute (never its secret value). */
export class ConfigError extends Error {
  /**
   * Creates the error.
   *
   * @param message What is wrong.
   */
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

const KEYS = ["api_key", "base_url", "default_max_tokens", "timeout_ms"];

function positiveInt(
  cfg: JsonObject,
  key: string,
  fallback: number,
): number {
  const v = cfg[key];
  // The kernel decodes an omitted optional attribute to its default, or to
  // the type's zero value: both mean "use the default".
  if (v === undefined || v === null || v === 0) return fallback;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) {
    throw new ConfigError(
      `config attribute "${key}" must be a positive whole number (got ${
        JSON.stringify(v)
      })`,
    );
  }
  return v;
}

/**
 * Checks the decoded provider block.
 *
 * @param config The block, secrets resolved.
 * @returns The settings.
 * @throws {ConfigError} Naming the attribute.
 */
export function parseSettings(config: JsonObject | undefined): Settings {
  const cfg = config ?? {};
  for (const key of Object.keys(cfg)) {
    if (!KEYS.includes(key)) {
      throw new ConfigError(
        `config attribute "${key}" is not supported by anthropic (it takes ${
          KEYS.map((k) => `"${k}"`).join(", ")
        })`,
      );
    }
  }
  const apiKey = cfg.api_key;
  if (apiKey === undefined || apiKey === null || apiKey === "") {
    throw new ConfigError(
      `config attribute "api_key" is required: write api_key = env("ANTHROPIC_API_KEY") in the provider block`,
    );
  }
  if (typeof apiKey !== "string") {
    throw new ConfigError(`config attribute "api_key" must be a string`);
  }
  if (/\s/.test(apiKey)) {
    // Never echo the value: only say what is wrong with it.
    throw new ConfigError(
      `config attribute "api_key" contains whitespace (is the environment variable quoted or wrapped?)`,
    );
  }
  const rawUrl = cfg.base_url;
  if (rawUrl !== undefined && rawUrl !== null && typeof rawUrl !== "string") {
    throw new ConfigError(`config attribute "base_url" must be a string`);
  }
  let baseUrl = DEFAULT_BASE_URL;
  if (typeof rawUrl === "string" && rawUrl !== "") {
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      throw new ConfigError(
        `config attribute "base_url" is not a URL: ${JSON.stringify(rawUrl)}`,
      );
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") {
      throw new ConfigError(
        `config attribute "base_url" must be an http or https URL (got ${url.protocol})`,
      );
    }
    if (url.username || url.password || url.search || url.hash) {
      throw new ConfigError(
        `config attribute "base_url" must not carry credentials, a query or a fragment`,
      );
    }
    baseUrl = url.href.replace(/\/+$/, "");
  }
  return {
    apiKey,
    baseUrl,
    defaultMaxTokens: positiveInt(
      cfg,
      "default_max_tokens",
      DEFAULT_MAX_TOKENS,
    ),
    timeoutMs: positiveInt(cfg, "timeout_ms", DEFAULT_TIMEOUT_MS),
  };
}

/** The Messages API version this plugin speaks (`anthropic-version`). */
export const API_VERSION = "2026-10-21";

/**
 * The API answered with an HTTP error status. `body` is the parsed JSON
 * error object, or the raw text when it is not JSON.
 */
export class HttpStatusError extends Error {
  /**
   * Creates the error.
   *
   * @param status The HTTP status.
   * @param body The parsed body (or its text).
   * @param headers The response headers.
   */
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Headers,
  ) {
    super(`HTTP ${status}`);
    this.name = "HttpStatusError";
  }
}

/**
 * The request got no HTTP answer: the connection failed, or the timeout
 * passed before the response headers arrived.
 */
export class ConnectionError extends Error {
  /**
   * Creates the error.
   *
   * @param message `Connection error.` or `Request timed out.`
   * @param options The underlying failure.
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ConnectionError";
  }
}

/**
 * Sends one JSON `POST` to the API with `fetch`: the key in the
 * `Authorization` header, the API version pinned, no retries (the kernel
 * retries with `settings.retry`). The timeout bounds the wait for the
 * response headers, as the vendor SDK's did; the caller's signal aborts
 * the request and the body.
 *
 * @param s The settings.
 * @param path The path under the base URL (`/v1/messages`).
 * @param body The request body.
 * @param signal Aborts the request.
 * @returns The response (status 2xx; its body unread).
 * @throws {HttpStatusError} For any other status, with the parsed body.
 * @throws {ConnectionError} When no response arrived.
 * @throws {DOMException} `AbortError` when `signal` aborted.
 */
export async function postJson(
  s: Settings,
  path: string,
  body: unknown,
  signal: AbortSignal,
): Promise<Response> {
  const timeout = new AbortController();
  const timer = setTimeout(
    () => timeout.abort(new ConnectionError("Request timed out.")),
    s.timeoutMs,
  );
  let response: Response;
  try {
    response = await fetch(`${s.baseUrl}${path}`, {
      method: "POST",
      headers: {
        "accept": "application/json",
        "anthropic-version": API_VERSION,
        "authorization": `Bearer ${s.apiKey}`,
        "content-type": "application/json",
        "user-agent": "ph-agent-anthropic/0.1.0",
        "x-stainless-retry-count": "0",
      },
      body: JSON.stringify(body),
      signal: AbortSignal.any([signal, timeout.signal]),
    });
  } catch (err) {
    if (signal.aborted) throw err;
    if (timeout.signal.aborted) throw timeout.signal.reason;
    throw new ConnectionError("Connection error.", { cause: err });
  } finally {
    clearTimeout(timer);
  }
  if (response.ok) return response;
  let text: string;
  try {
    text = await response.text();
  } catch (err) {
    if (signal.aborted) throw err;
    text = "";
  }
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: the text itself is the body
  }
  throw new HttpStatusError(response.status, parsed, response.headers);
}
