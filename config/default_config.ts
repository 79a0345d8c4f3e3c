/**
 * The default `agent.hcl`: the one text that `agent` compiles in a
 * directory without `agent.hcl` (the zero-config first run) and that
 * `agent init` writes. It is generated here, in a module, so it ships with
 * the package wherever it runs from (a checkout or a registry URL), and it
 * is compiled like any other configuration: there is no second code path.
 *
 * The model provider is chosen from the environment with the vendors' own
 * SDK conventions ({@linkcode modelChoiceFromEnv}): `ANTHROPIC_API_KEY`
 * (and `ANTHROPIC_BASE_URL`), else `OPENAI_API_KEY` (and
 * `OPENAI_BASE_URL`).
 *
 * @module
 */

/** The model providers the default configuration can name. */
export type DefaultModelProvider = "anthropic" | "openai" | "local";

/** Which model provider the default configuration uses, and where. */
export interface ModelChoice {
  /**
   * `anthropic` (builtin/anthropic), `openai` (builtin/openai) or `local`
   * (builtin/openai against an OpenAI-compatible server on this machine).
   */
  readonly provider: DefaultModelProvider;
  /**
   * The API base URL, when it is not the vendor's own
   * (`ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL`); its host is granted.
   * @default {the vendor's endpoint}
   */
  readonly baseUrl?: string;
}

/** Options of {@linkcode defaultConfigText}. */
export interface DefaultConfigOptions {
  /**
   * Say in the header that no API key was set when the file was written
   * (`agent init` without a key): the user has to set one or pick another
   * provider from the commented choices.
   * @default {false}
   */
  readonly noKey?: boolean;
}

/** The base URL of the OpenAI-compatible local server (Ollama's default). */
export const LOCAL_BASE_URL = "http://127.0.0.1:11434/v1";

/** The default model ids of each provider: primary, then fallback. */
export const DEFAULT_MODELS: Readonly<
  Record<DefaultModelProvider, readonly string[]>
> = {
  anthropic: ["claude-sonnet-5-5", "claude-haiku-5-5"],
  openai: ["gpt-5.4-mini", "gpt-4.1-mini"],
  local: ["llama3.2"],
};

/** The API-key variable each vendor's SDK reads, in the order they are tried. */
export const KEY_VARIABLES: readonly string[] = [
  "ANTHROPIC_API_KEY",
  "OPENAI_API_KEY",
];

/**
 * Chooses the model provider from the environment: `ANTHROPIC_API_KEY` →
 * anthropic (at `ANTHROPIC_BASE_URL` when set), else `OPENAI_API_KEY` →
 * openai (at `OPENAI_BASE_URL` when set). An empty variable counts as
 * unset (an empty key cannot authenticate).
 *
 * @example Usage
 * ```ts
 * import { modelChoiceFromEnv } from "./default_config.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(modelChoiceFromEnv({ OPENAI_API_KEY: "k" }), { choice: { provider: "openai" } });
 * assert.deepEqual(modelChoiceFromEnv({}), { choice: undefined });
 * assert.match(
 *   modelChoiceFromEnv({ ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "nope" }).error ?? "",
 *   /ANTHROPIC_BASE_URL/,
 * );
 * ```
 *
 * @param env The environment.
 * @returns The choice (`undefined` when neither key is set), or an error
 * message naming a base-URL variable that is not an http(s) URL.
 */
export function modelChoiceFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): { choice: ModelChoice | undefined; error?: string } {
  const pick = (
    provider: "anthropic" | "openai",
    variable: string,
  ): { choice: ModelChoice | undefined; error?: string } => {
    const raw = env[variable];
    if (raw === undefined || raw === "") return { choice: { provider } };
    const url = parseBaseUrl(raw);
    if (url === undefined) {
      return {
        choice: undefined,
        error:
          `${variable} must be an http or https URL without credentials, query or fragment, not ${
            JSON.stringify(raw)
          }`,
      };
    }
    return { choice: { provider, baseUrl: url } };
  };
  if (env.ANTHROPIC_API_KEY) return pick("anthropic", "ANTHROPIC_BASE_URL");
  if (env.OPENAI_API_KEY) return pick("openai", "OPENAI_BASE_URL");
  return { choice: undefined };
}

function parseBaseUrl(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  if (url.username || url.password || url.search || url.hash) return undefined;
  return raw.replace(/\/+$/, "");
}

/**
 * The `allow_net` entry for a base URL: its host and port (the scheme's
 * default port when none is written).
 *
 * @example Usage
 * ```ts
 * import { netGrantOf } from "./default_config.ts";
 * import assert from "node:assert/strict";
 * assert.equal(netGrantOf("http://127.0.0.1:8080/v1"), "127.0.0.1:8080");
 * assert.equal(netGrantOf("https://proxy.example"), "proxy.example:443");
 * ```
 *
 * @param baseUrl An http(s) URL.
 * @returns `host:port`.
 */
export function netGrantOf(baseUrl: string): string {
  const url = new URL(baseUrl);
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return `${url.hostname}:${port}`;
}

/**
 * A one-line description of a choice, for messages: the provider's source,
 * its primary model, and where the key and the URL come from.
 *
 * @example Usage
 * ```ts
 * import { describeChoice } from "./default_config.ts";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   describeChoice({ provider: "anthropic" }),
 *   "builtin/anthropic claude-sonnet-5-5 (key from ANTHROPIC_API_KEY)",
 * );
 * ```
 *
 * @param choice The model choice.
 * @returns The description.
 */
export function describeChoice(choice: ModelChoice): string {
  const model = DEFAULT_MODELS[choice.provider][0];
  if (choice.provider === "local") {
    return `builtin/openai ${model} at ${choice.baseUrl ?? LOCAL_BASE_URL}`;
  }
  const key = choice.provider === "anthropic"
    ? "ANTHROPIC_API_KEY"
    : "OPENAI_API_KEY";
  return `builtin/${choice.provider} ${model} (key from ${key}${
    choice.baseUrl ? `, at ${choice.baseUrl}` : ""
  })`;
}

function hclString(s: string): string {
  return JSON.stringify(s).replaceAll("${", "$${").replaceAll("%{", "%%{");
}

const SOURCE: Record<DefaultModelProvider, string> = {
  anthropic: "builtin/anthropic",
  openai: "builtin/openai",
  local: "builtin/openai",
};

function modelBlock(choice: ModelChoice): string[] {
  switch (choice.provider) {
    case "anthropic":
      return [
        'provider "model" {',
        '  api_key   = env("ANTHROPIC_API_KEY")',
        ...(choice.baseUrl
          ? [
            `  base_url  = ${
              hclString(choice.baseUrl)
            } # from ANTHROPIC_BASE_URL`,
          ]
          : []),
        `  allow_net = [${
          hclString(
            choice.baseUrl
              ? netGrantOf(choice.baseUrl)
              : "api.anthropic.com:443",
          )
        }]`,
        "}",
      ];
    case "openai":
      return [
        'provider "model" {',
        '  api_key   = env("OPENAI_API_KEY")',
        ...(choice.baseUrl
          ? [
            `  base_url  = ${hclString(choice.baseUrl)} # from OPENAI_BASE_URL`,
            "  # A server other than OpenAI's own serves the ids listed here.",
            `  models    = [${
              DEFAULT_MODELS.openai.map(hclString).join(", ")
            }]`,
          ]
          : []),
        `  allow_net = [${
          hclString(
            choice.baseUrl ? netGrantOf(choice.baseUrl) : "api.openai.com:443",
          )
        }]`,
        "}",
      ];
    case "local": {
      const url = choice.baseUrl ?? LOCAL_BASE_URL;
      return [
        'provider "model" {',
        `  base_url  = ${hclString(url)}`,
        '  api       = "chat"',
        `  models    = [${DEFAULT_MODELS.local.map(hclString).join(", ")}]`,
        "  model_defaults = {",
        "    context_window    = 131072",
        "    max_output_tokens = 8192",
        "    supports_tool_use = true",
        "  }",
        `  allow_net = [${hclString(netGrantOf(url))}]`,
        "}",
      ];
    }
  }
}

/** The other providers, as comments the user can swap in. */
function alternatives(current: DefaultModelProvider): string[] {
  const out: string[] = [
    "# Another model provider: replace the `model` line of required_providers,",
    "# the block above and the ids in agent_profile with one of these, then run",
    '# "agent lock".',
  ];
  const add = (
    provider: DefaultModelProvider,
    title: string,
    block: string[],
  ) => {
    if (provider === current) return;
    const [primary, fallback] = DEFAULT_MODELS[provider];
    out.push(
      "#",
      `# ${title}`,
      `#   model = { source = "${SOURCE[provider]}", version = "~> 0.1" }`,
      ...block.map((l) => `#   ${l}`),
      `#   models: ${primary}${fallback ? ` (fallback ${fallback})` : ""}`,
    );
  };
  add(
    "anthropic",
    "Anthropic (set ANTHROPIC_API_KEY):",
    modelBlock({ provider: "anthropic" }),
  );
  add(
    "openai",
    "OpenAI (set OPENAI_API_KEY):",
    modelBlock({ provider: "openai" }),
  );
  add(
    "local",
    "An OpenAI-compatible server on this machine, no key (Ollama here; llama.cpp,\n# vLLM and LM Studio work the same way with their own base_url):",
    modelBlock({ provider: "local" }),
  );
  return out;
}

/**
 * The default `agent.hcl` for a model choice: the model provider, the
 * everyday tools (files, search, shell, a task list, questions to the
 * user, AGENTS.md context) confined to the project directory, policies
 * that let reads run and ask for every file change and shell command, and
 * bounds on turns, cost and time. Commented alternatives show the other
 * model providers.
 *
 * @example Usage
 * ```ts
 * import { defaultConfigText } from "./default_config.ts";
 * import assert from "node:assert/strict";
 * const text = defaultConfigText({ provider: "openai" });
 * assert.match(text, /source = "builtin\/openai"/);
 * assert.match(text, /api_key += env\("OPENAI_API_KEY"\)/);
 * ```
 *
 * @param choice The model provider and its base URL.
 * @param options Whether no key was set (a note in the header).
 * @returns The text of `agent.hcl`.
 */
export function defaultConfigText(
  choice: ModelChoice,
  options: DefaultConfigOptions = {},
): string {
  const [primary, fallback] = DEFAULT_MODELS[choice.provider];
  const isFree = choice.provider === "local";
  const lines = [
    "# agent.hcl: what the agent in this directory may use and do.",
    "# `agent init` writes this file; `agent` uses the same text when a",
    "# directory has none. Check it with `agent check-config`; after changing",
    '# required_providers, run "agent lock" and commit .agent/agent.lock.hcl.',
    "#",
    `# Model: ${describeChoice(choice)}.`,
    "# Tools: read, write and edit files, glob and grep, bash, a task list,",
    "# questions to you; AGENTS.md is in every prompt. All of them are confined",
    "# to this directory. Reads run without asking; every file change and every",
    "# shell command is shown and asked for (denied when nobody can answer, as",
    "# in `agent run` without --approve-all).",
    ...(options.noKey
      ? [
        "#",
        "# NOTE: neither ANTHROPIC_API_KEY nor OPENAI_API_KEY was set when this",
        "# file was written. Set ANTHROPIC_API_KEY, or switch to one of the other",
        "# model providers listed below the model block.",
      ]
      : []),
    "",
    "required_providers {",
    `  model  = { source = "${SOURCE[choice.provider]}", version = "~> 0.1" }`,
    '  fs     = { source = "builtin/filesystem", version = "~> 0.1" }',
    '  search = { source = "builtin/search", version = "~> 0.1" }',
    '  sh     = { source = "builtin/exec", version = "~> 0.1" }',
    '  tasks  = { source = "builtin/task", version = "~> 0.1" }',
    '  ask    = { source = "builtin/user", version = "~> 0.1" }',
    '  docs   = { source = "builtin/agents-md", version = "~> 0.1" }',
    "}",
    "",
    isFree
      ? "# The model: a local server (nothing leaves this machine, no key)."
      : "# The model. The key is read from the environment when the agent starts\n# and reaches only this plugin; it is never written to a file or a log.",
    ...modelBlock(choice),
    "",
    ...alternatives(choice.provider),
    "",
    "# read_file, write_file, edit_file, multi_edit: in this directory only.",
    'provider "fs" {',
    '  roots       = ["."]',
    '  allow_read  = ["."]',
    '  allow_write = ["."]',
    "}",
    "",
    "# glob and grep: reads only.",
    'provider "search" {',
    '  roots      = ["."]',
    '  allow_read = ["."]',
    "}",
    "",
    "# bash, run in this directory with only PATH and LANG set. The plugin is",
    "# confined, the commands it runs are not: every command is asked for.",
    'provider "sh" {',
    '  roots             = ["."]',
    '  allow_run         = ["bash"]',
    '  allow_read        = ["."]',
    "  default_timeout_s = 120",
    "  max_timeout_s     = 600",
    "  env = {",
    '    LANG = "C.UTF-8"',
    "  }",
    "}",
    "",
    "# task_create, task_update, task_list: the session's todo list.",
    'provider "tasks" {}',
    "",
    "# ask_user: the model may ask you a question (none when nobody answers).",
    'provider "ask" {}',
    "",
    "# AGENTS.md (and CLAUDE.md, GEMINI.md) from this directory down, in every",
    "# prompt.",
    'provider "docs" {',
    '  root         = "."',
    "  token_budget = 4000",
    '  allow_read   = ["."]',
    "}",
    "",
    "# Reads of any kind run without asking.",
    'policy "reads_ok" {',
    '  match  = { kind = "data_source" }',
    '  action = "allow"',
    "}",
    "",
    "# The session's own todo list changes freely.",
    'policy "task_changes_ok" {',
    '  match  = { provider = "tasks", risk = "low" }',
    '  action = "allow"',
    "}",
    "",
    "# Everything else (file changes, shell commands) is asked for: that is",
    "# the default for a resource. To let a command run without asking:",
    '#   policy "git_status_ok" {',
    '#     match  = { provider = "sh", command = "git status*" }',
    '#     action = "allow"',
    "#   }",
    "",
    'agent_profile "default" {',
    "  model {",
    "    primary {",
    '      provider = "model"',
    `      id       = ${hclString(primary!)}`,
    "    }",
    ...(fallback
      ? [
        "    # Taken when the primary stays unavailable after its retries.",
        "    fallback {",
        '      provider = "model"',
        `      id       = ${hclString(fallback)}`,
        "    }",
      ]
      : []),
    "  }",
    '  tools            = ["fs.*", "search.*", "sh.*", "tasks.*", "ask.*"]',
    "  max_turns        = 100",
    ...(isFree ? [] : ["  max_cost_usd     = 5.00"]),
    "  max_wall_clock_s = 3600",
    "}",
    "",
  ];
  return lines.join("\n");
}
