/**
 * The provider's settings (its decoded `agent.hcl` block) and the vendor
 * SDK client built from them.
 *
 * @module
 */
import process from "node:process";
import type { JsonObject } from "@bufbuild/protobuf";
import Anthropic from "@anthropic-ai/sdk";

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

/**
 * The vendor SDK client. Retries are off (the kernel retries with
 * `settings.retry`), logging is off, and the SDK's environment lookups
 * (`ANTHROPIC_*` variables it reads while constructing) see an empty
 * environment: the plugin has no env permission, and its only secret
 * arrives through Configure.
 *
 * @param s The settings.
 * @returns The client.
 */
export function createClient(s: Settings): Anthropic {
  const saved = Object.getOwnPropertyDescriptor(process, "env");
  Object.defineProperty(process, "env", {
    value: {},
    configurable: true,
    writable: true,
  });
  try {
    return new Anthropic({
      apiKey: s.apiKey,
      baseURL: s.baseUrl,
      maxRetries: 0,
      timeout: s.timeoutMs,
      webhookKey: null,
      logLevel: "off",
    });
  } finally {
    if (saved) Object.defineProperty(process, "env", saved);
  }
}
