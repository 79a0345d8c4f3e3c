/**
 * The `openai` provider block: decoding and validating the config the
 * kernel passes to Configure (secrets already resolved), with errors that
 * name the attribute and never contain the API key.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import {
  type ApiName,
  DEFAULT_MODEL_DEFAULTS,
  type ModelDefaults,
} from "./roster.ts";

/** OpenAI's own endpoint, the default `base_url`. */
export const OPENAI_BASE_URL = "https://api.openai.com/v1";

/** The decoded provider block. */
export interface OpenAIConfig {
  /** The API key; `undefined` for servers that need none. */
  apiKey?: string;
  /** The API root, ending before `/chat/completions` or `/responses`. */
  baseUrl: string;
  /** The base URL is OpenAI's own. */
  isOpenAI: boolean;
  /** The wire API. */
  api: ApiName;
  /** Model ids to serve; `undefined` = the whole roster (OpenAI only). */
  models?: string[];
  /** List the server's models (`GET /models`) at Configure. */
  discover: boolean;
  /** The spec of ids the roster does not know. */
  modelDefaults: ModelDefaults;
  /** `OpenAI-Organization` header. */
  organization?: string;
  /** `OpenAI-Project` header. */
  project?: string;
}

/** A provider block that does not validate (becomes INVALID_ARGUMENT). */
export class ConfigError extends TypeError {
  /**
   * Creates the error.
   *
   * @param message Names the attribute and what is wrong.
   */
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

const KEYS = [
  "api_key",
  "base_url",
  "api",
  "models",
  "discover",
  "model_defaults",
  "organization",
  "project",
];

const DEFAULT_KEYS: Record<string, keyof ModelDefaults> = {
  context_window: "contextWindow",
  max_output_tokens: "maxOutputTokens",
  supports_tool_use: "toolUse",
  supports_vision: "vision",
  supports_parallel_tool_calls: "parallelToolCalls",
  input_per_mtok: "inputPerMtok",
  output_per_mtok: "outputPerMtok",
  cached_input_per_mtok: "cachedInputPerMtok",
};

function optString(cfg: JsonObject, key: string): string | undefined {
  const v = cfg[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") {
    throw new ConfigError(`config attribute "${key}" must be a string`);
  }
  return v;
}

function readDefaults(v: JsonValue | undefined): ModelDefaults {
  const out: ModelDefaults = { ...DEFAULT_MODEL_DEFAULTS };
  if (v === undefined || v === null) return out;
  if (typeof v !== "object" || Array.isArray(v)) {
    throw new ConfigError(
      `config attribute "model_defaults" must be an object`,
    );
  }
  for (const [k, val] of Object.entries(v)) {
    const field = DEFAULT_KEYS[k];
    if (!field) {
      throw new ConfigError(
        `config attribute "model_defaults.${k}" is not supported (it takes ${
          Object.keys(DEFAULT_KEYS).join(", ")
        })`,
      );
    }
    if (val === null) continue;
    if (
      field === "toolUse" || field === "vision" || field === "parallelToolCalls"
    ) {
      if (typeof val !== "boolean") {
        throw new ConfigError(
          `config attribute "model_defaults.${k}" must be true or false`,
        );
      }
      out[field] = val;
    } else if (field === "contextWindow" || field === "maxOutputTokens") {
      if (!Number.isSafeInteger(val) || (val as number) <= 0) {
        throw new ConfigError(
          `config attribute "model_defaults.${k}" must be a positive integer, got ${
            JSON.stringify(val)
          }`,
        );
      }
      out[field] = val as number;
    } else {
      if (typeof val !== "number" || !(val >= 0)) {
        throw new ConfigError(
          `config attribute "model_defaults.${k}" must be a non-negative number (USD per million tokens), got ${
            JSON.stringify(val)
          }`,
        );
      }
      out[field] = val;
    }
  }
  if (out.maxOutputTokens > out.contextWindow) {
    throw new ConfigError(
      `config attribute "model_defaults.max_output_tokens" (${out.maxOutputTokens}) exceeds "model_defaults.context_window" (${out.contextWindow})`,
    );
  }
  return out;
}

/**
 * Decodes and validates a provider block.
 *
 * @param config The config Struct as JSON (secrets resolved).
 * @returns The config.
 * @throws {ConfigError} Naming the attribute; never quoting the key.
 */
export function parseConfig(config: JsonObject | undefined): OpenAIConfig {
  const cfg = config ?? {};
  for (const key of Object.keys(cfg)) {
    if (!KEYS.includes(key)) {
      throw new ConfigError(
        `config attribute "${key}" is not supported by openai (it takes ${
          KEYS.join(", ")
        })`,
      );
    }
  }
  const apiKeyRaw = cfg.api_key;
  if (
    apiKeyRaw !== undefined && apiKeyRaw !== null &&
    typeof apiKeyRaw !== "string"
  ) {
    throw new ConfigError(`config attribute "api_key" must be a string`);
  }
  const apiKey = typeof apiKeyRaw === "string" && apiKeyRaw.trim() !== ""
    ? apiKeyRaw.trim()
    : undefined;
  const baseText = optString(cfg, "base_url") ?? OPENAI_BASE_URL;
  let base: URL;
  try {
    base = new URL(baseText);
  } catch {
    throw new ConfigError(
      `config attribute "base_url" must be an http(s) URL, got ${
        JSON.stringify(baseText)
      }`,
    );
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") {
    throw new ConfigError(
      `config attribute "base_url" must be an http(s) URL, got ${
        JSON.stringify(baseText)
      }`,
    );
  }
  if (base.username || base.password) {
    throw new ConfigError(
      `config attribute "base_url" must not carry credentials: set api_key = env("...") instead`,
    );
  }
  const baseUrl = base.href.replace(/\/+$/, "");
  const isOpenAI = base.hostname === "api.openai.com";
  if (isOpenAI && apiKey === undefined) {
    throw new ConfigError(
      `config attribute "api_key" is required for ${OPENAI_BASE_URL}: write api_key = env("OPENAI_API_KEY") in the provider block`,
    );
  }
  // An optional string the operator did not write reaches the plugin as
  // the config compiler's zero value, "": the same as absent.
  const apiText = optString(cfg, "api") || undefined;
  if (
    apiText !== undefined && apiText !== "responses" && apiText !== "chat"
  ) {
    throw new ConfigError(
      `config attribute "api" must be "responses" or "chat", got ${
        JSON.stringify(apiText)
      }`,
    );
  }
  const api: ApiName = (apiText as ApiName | undefined) ??
    (isOpenAI ? "responses" : "chat");
  let models: string[] | undefined;
  if (cfg.models !== undefined && cfg.models !== null) {
    const list = cfg.models;
    if (
      !Array.isArray(list) ||
      !list.every((m) => typeof m === "string" && m.trim() !== "")
    ) {
      throw new ConfigError(
        `config attribute "models" must be a list of non-empty model ids`,
      );
    }
    models = [...new Set(list as string[])];
  }
  const discover = cfg.discover ?? false;
  if (typeof discover !== "boolean") {
    throw new ConfigError(`config attribute "discover" must be true or false`);
  }
  if (!isOpenAI && !discover && (models === undefined || models.length === 0)) {
    throw new ConfigError(
      `config attribute "models" (the ids the server at ${baseUrl} serves) or discover = true is required when base_url is not OpenAI's`,
    );
  }
  if (models !== undefined && models.length === 0 && !discover) {
    throw new ConfigError(
      `config attribute "models" is empty: list at least one model id`,
    );
  }
  const organization = optString(cfg, "organization");
  const project = optString(cfg, "project");
  return {
    ...(apiKey !== undefined ? { apiKey } : {}),
    baseUrl,
    isOpenAI,
    api,
    ...(models !== undefined ? { models } : {}),
    discover,
    modelDefaults: readDefaults(cfg.model_defaults),
    ...(organization ? { organization } : {}),
    ...(project ? { project } : {}),
  };
}
