/**
 * The plugin manifest: who a plugin is and what it may need.
 *
 * A manifest is a JSON file (`plugin.json`) beside the plugin's entrypoint,
 * readable without starting the plugin, so that the kernel can refuse a
 * plugin before launch and the config compiler can show what each plugin is
 * allowed to do. Any language can ship one.
 *
 * ```json
 * {
 *   "name": "echo",
 *   "version": "0.1.0",
 *   "category": "tool",
 *   "protocol_version": 1,
 *   "runtime": "deno",
 *   "entrypoint": "main.ts",
 *   "capabilities": { "env": [], "run": [], "read": [], "write": [], "net": [] }
 * }
 * ```
 *
 * @module
 */

/** The seven plugin categories, as their lower-case text form. */
export type CategoryName =
  | "model"
  | "tool"
  | "context"
  | "memory"
  | "frontend"
  | "widget"
  | "slashcommand";

/** Every category name, in `common.v1.Category` order. */
export const CATEGORY_NAMES: readonly CategoryName[] = [
  "model",
  "tool",
  "context",
  "memory",
  "frontend",
  "widget",
  "slashcommand",
];

/**
 * What a plugin may need from its host. Each list is the most the plugin
 * can ever receive; the operator's grant must cover every entry.
 */
export interface CapabilityEnvelope {
  /** Environment variable names the plugin reads. */
  env: string[];
  /** Binaries (names looked up on `PATH`, or absolute paths) it runs. */
  run: string[];
  /** Paths it reads (files or directory roots). */
  read: string[];
  /** Paths it writes (files or directory roots). */
  write: string[];
  /** Hosts it connects to: `host` or `host:port`. */
  net: string[];
}

/** The type of a provider config attribute, as written in a manifest. */
export type ConfigAttrType =
  | "string"
  | "number"
  | "bool"
  | "list(string)"
  | "list(number)"
  | "map(string)"
  | "object";

/** Every {@linkcode ConfigAttrType}, in `config.v1.AttrType` order. */
export const CONFIG_ATTR_TYPES: readonly ConfigAttrType[] = [
  "string",
  "number",
  "bool",
  "list(string)",
  "list(number)",
  "map(string)",
  "object",
];

/**
 * One attribute of a plugin's provider-block schema (the manifest form of
 * `pluggableharness.config.v1.ConfigAttribute`).
 */
export interface ConfigAttributeSpec {
  /** The attribute's name in the `provider` block. */
  name: string;
  /** Its type. */
  type: ConfigAttrType;
  /** `agent.hcl` must set it. */
  required: boolean;
  /** It can hold a secret: only `env("NAME")` may set it, and it is redacted. */
  sensitive: boolean;
  /** Shown in docs and diagnostics. */
  description: string;
  /** The nested attributes of an `object` (empty for every other type). */
  objectAttributes: ConfigAttributeSpec[];
  /** JSON text of the default of an optional attribute. */
  defaultJson?: string;
}

/**
 * One tool a tool plugin offers, declared in its manifest so that
 * `check-config` can resolve profile tool lists and show policy outcomes
 * without starting the plugin. The plugin's `GetSchema` stays the runtime
 * authority.
 */
export interface ManifestTool {
  /** The operation's name, e.g. `read_file`. */
  name: string;
  /** How calls pass the plan/apply gate. */
  kind: "resource" | "data_source" | "interactive";
  /** The declared risk class. */
  risk: "read_only" | "low" | "moderate" | "high" | "critical";
  /**
   * `"subagents": true`: the operation starts child sessions (it calls
   * `RunSession`). The kernel removes it from a session whose remaining
   * depth is spent, and lists the named agents of `agent.hcl` in its
   * description. Absent: false.
   */
  subagents?: boolean;
}

const TOOL_KINDS = ["resource", "data_source", "interactive"];
const RISKS = ["read_only", "low", "moderate", "high", "critical"];

/** How the plugin is started. */
export type PluginRuntime = "deno" | "executable";

/** A validated plugin manifest. */
export interface PluginManifest {
  /** Unique within its category: `[a-z][a-z0-9_-]*`. */
  name: string;
  /** Exact semantic version of this build. */
  version: string;
  /** The plugin's category. */
  category: CategoryName;
  /** Application protocol version the plugin speaks (1). */
  protocolVersion: number;
  /** `deno` for a Deno module, `executable` for any other program. */
  runtime: PluginRuntime;
  /** Module or executable path, relative to the manifest. */
  entrypoint: string;
  /** Install address, e.g. `builtin:echo` or a git-forge path. */
  source?: string;
  /** What the plugin may need. */
  capabilities: CapabilityEnvelope;
  /**
   * The schema of its `provider` block, so that configs are checked
   * without starting the plugin. Absent: the plugin takes no config.
   */
  configSchema?: ConfigAttributeSpec[];
  /** The tools a tool plugin offers (optional; see {@linkcode ManifestTool}). */
  tools?: ManifestTool[];
  /**
   * `"inject": true`: the plugin asks to put text before the agent of the
   * sessions it serves (`InjectControl`, the control plane's
   * `plugin-inject`); the operator still has to grant it with
   * `allow_inject = true`.
   */
  inject?: boolean;
  /**
   * `"terminal": true` (frontends only): the plugin draws a full-screen UI
   * on the operator's terminal. When the kernel runs on one, it starts the
   * plugin with the terminal as its stdin and stderr (stdout still carries
   * the handshake), in the terminal's foreground process group; otherwise
   * the plugin gets no terminal and should say so.
   */
  terminal?: boolean;
}

/** A manifest that does not validate; names the file and every problem. */
export class ManifestError extends SyntaxError {
  /** The manifest's path or URL. */
  readonly file: string;
  /** One line per problem, each naming the field. */
  readonly problems: readonly string[];
  /**
   * Creates the error.
   *
   * @param file The manifest's path or URL.
   * @param problems One line per problem.
   */
  constructor(file: string, problems: readonly string[]) {
    super(`Invalid plugin manifest "${file}":\n  - ${problems.join("\n  - ")}`);
    this.name = "ManifestError";
    this.file = file;
    this.problems = problems;
  }
}

const NAME_REGEXP = /^[a-z][a-z0-9_-]*$/;
const SEMVER_REGEXP =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
const ENV_NAME_REGEXP = /^[A-Za-z_][A-Za-z0-9_]*$/;
const CAPABILITY_KEYS = ["env", "run", "read", "write", "net"] as const;
const TOP_KEYS = [
  "name",
  "version",
  "category",
  "protocol_version",
  "runtime",
  "entrypoint",
  "source",
  "capabilities",
  "config_schema",
  "tools",
  "inject",
  "terminal",
];

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Validates decoded manifest JSON.
 *
 * @param raw The parsed JSON value.
 * @param file The manifest's path or URL, for error messages.
 * @returns The typed manifest.
 * @throws {ManifestError} Listing every problem, each naming its field.
 */
export function parseManifest(raw: unknown, file: string): PluginManifest {
  const problems: string[] = [];
  if (!isRecord(raw)) throw new ManifestError(file, ["expected a JSON object"]);
  for (const key of Object.keys(raw)) {
    if (!TOP_KEYS.includes(key)) problems.push(`unknown field "${key}"`);
  }
  const str = (key: string): string => {
    const v = raw[key];
    if (typeof v !== "string" || v.length === 0) {
      problems.push(`"${key}" must be a non-empty string`);
      return "";
    }
    return v;
  };
  const name = str("name");
  if (name && !NAME_REGEXP.test(name)) {
    problems.push(`"name" ${JSON.stringify(name)} must match [a-z][a-z0-9_-]*`);
  }
  const version = str("version");
  if (version && !SEMVER_REGEXP.test(version)) {
    problems.push(
      `"version" ${JSON.stringify(version)} is not a semantic version`,
    );
  }
  const category = str("category");
  if (category && !CATEGORY_NAMES.includes(category as CategoryName)) {
    problems.push(
      `"category" ${JSON.stringify(category)} must be one of ${
        CATEGORY_NAMES.join(", ")
      }`,
    );
  }
  const protocolVersion = raw["protocol_version"];
  if (protocolVersion !== 1) {
    problems.push(
      `"protocol_version" must be 1, got ${JSON.stringify(protocolVersion)}`,
    );
  }
  const runtime = str("runtime");
  if (runtime && runtime !== "deno" && runtime !== "executable") {
    problems.push(
      `"runtime" must be "deno" or "executable", got ${
        JSON.stringify(runtime)
      }`,
    );
  }
  const entrypoint = str("entrypoint");
  const source = raw["source"];
  if (source !== undefined && typeof source !== "string") {
    problems.push(`"source" must be a string`);
  }
  const caps: CapabilityEnvelope = {
    env: [],
    run: [],
    read: [],
    write: [],
    net: [],
  };
  const rawCaps = raw["capabilities"] ?? {};
  if (!isRecord(rawCaps)) {
    problems.push(`"capabilities" must be an object`);
  } else {
    for (const key of Object.keys(rawCaps)) {
      if (!(CAPABILITY_KEYS as readonly string[]).includes(key)) {
        problems.push(`unknown field "capabilities.${key}"`);
      }
    }
    for (const key of CAPABILITY_KEYS) {
      const list = rawCaps[key] ?? [];
      if (
        !Array.isArray(list) ||
        list.some((x) => typeof x !== "string" || x === "")
      ) {
        problems.push(
          `"capabilities.${key}" must be a list of non-empty strings`,
        );
        continue;
      }
      for (const item of list as string[]) {
        if (item.includes(",")) {
          problems.push(
            `"capabilities.${key}" entry ${
              JSON.stringify(item)
            } must not contain a comma`,
          );
        }
        if (
          key === "run" &&
          (item === "?" || item.slice(0, -1).includes("?"))
        ) {
          problems.push(
            `"capabilities.run" entry ${
              JSON.stringify(item)
            } may end in one "?" (optional) after a program name`,
          );
        }
        if (key === "env" && !ENV_NAME_REGEXP.test(item)) {
          problems.push(
            `"capabilities.env" entry ${
              JSON.stringify(item)
            } is not a variable name`,
          );
        }
      }
      caps[key] = [...list as string[]];
    }
  }
  let configSchema: ConfigAttributeSpec[] | undefined;
  if (raw["config_schema"] !== undefined) {
    configSchema = parseConfigSchema(
      raw["config_schema"],
      "config_schema",
      problems,
    );
  }
  const tools = raw["tools"] === undefined
    ? undefined
    : parseTools(raw["tools"], problems);
  if (raw["inject"] !== undefined && typeof raw["inject"] !== "boolean") {
    problems.push(`"inject" must be true or false`);
  }
  if (raw["terminal"] !== undefined) {
    if (typeof raw["terminal"] !== "boolean") {
      problems.push(`"terminal" must be true or false`);
    } else if (raw["terminal"] && category !== "frontend") {
      problems.push(
        `"terminal" is for frontend plugins only (this is a ${
          String(category)
        } plugin)`,
      );
    }
  }
  if (problems.length > 0) throw new ManifestError(file, problems);
  const manifest: PluginManifest = {
    name,
    version,
    category: category as CategoryName,
    protocolVersion: 1,
    runtime: runtime as PluginRuntime,
    entrypoint,
    capabilities: caps,
  };
  if (typeof source === "string") manifest.source = source;
  if (configSchema) manifest.configSchema = configSchema;
  if (tools) manifest.tools = tools;
  if (raw["inject"] === true) manifest.inject = true;
  if (raw["terminal"] === true) manifest.terminal = true;
  return manifest;
}

function parseTools(raw: unknown, problems: string[]): ManifestTool[] {
  if (!Array.isArray(raw)) {
    problems.push(`"tools" must be a list`);
    return [];
  }
  const out: ManifestTool[] = [];
  raw.forEach((t, i) => {
    if (!isRecord(t)) {
      problems.push(`"tools[${i}]" must be an object`);
      return;
    }
    const extra = Object.keys(t).filter((k) =>
      !["name", "kind", "risk", "subagents"].includes(k)
    );
    if (extra.length > 0) {
      problems.push(`"tools[${i}]" has unknown field "${extra[0]}"`);
    }
    if (typeof t.name !== "string" || t.name === "") {
      problems.push(`"tools[${i}].name" must be a non-empty string`);
    } else if (typeof t.kind !== "string" || !TOOL_KINDS.includes(t.kind)) {
      problems.push(
        `"tools[${i}].kind" must be one of ${TOOL_KINDS.join(", ")}`,
      );
    } else if (typeof t.risk !== "string" || !RISKS.includes(t.risk)) {
      problems.push(`"tools[${i}].risk" must be one of ${RISKS.join(", ")}`);
    } else if (t.subagents !== undefined && typeof t.subagents !== "boolean") {
      problems.push(`"tools[${i}].subagents" must be true or false`);
    } else {
      out.push({
        name: t.name,
        kind: t.kind as ManifestTool["kind"],
        risk: t.risk as ManifestTool["risk"],
        ...(t.subagents === true ? { subagents: true } : {}),
      });
    }
  });
  return out;
}

const ATTR_KEYS = [
  "name",
  "type",
  "required",
  "sensitive",
  "description",
  "attributes",
  "default",
];

/**
 * Reads the manifest form of a config schema: a list of
 * `{ name, type, required?, sensitive?, description?, attributes?, default? }`
 * (`attributes` only for `object`; `default` any JSON value).
 */
function parseConfigSchema(
  raw: unknown,
  where: string,
  problems: string[],
): ConfigAttributeSpec[] {
  if (!Array.isArray(raw)) {
    problems.push(`"${where}" must be a list of attributes`);
    return [];
  }
  const out: ConfigAttributeSpec[] = [];
  const seen = new Set<string>();
  raw.forEach((item, i) => {
    const at = `${where}[${i}]`;
    if (!isRecord(item)) {
      problems.push(`"${at}" must be an object`);
      return;
    }
    for (const key of Object.keys(item)) {
      if (!ATTR_KEYS.includes(key)) {
        problems.push(`unknown field "${at}.${key}"`);
      }
    }
    const name = item.name;
    if (typeof name !== "string" || !/^[a-z_][a-z0-9_-]*$/i.test(name)) {
      problems.push(`"${at}.name" must be an identifier`);
      return;
    }
    if (seen.has(name)) problems.push(`"${at}.name" repeats "${name}"`);
    seen.add(name);
    const type = item.type;
    if (!CONFIG_ATTR_TYPES.includes(type as ConfigAttrType)) {
      problems.push(
        `"${at}.type" must be one of ${CONFIG_ATTR_TYPES.join(", ")}, got ${
          JSON.stringify(type)
        }`,
      );
      return;
    }
    for (const flag of ["required", "sensitive"] as const) {
      if (item[flag] !== undefined && typeof item[flag] !== "boolean") {
        problems.push(`"${at}.${flag}" must be true or false`);
      }
    }
    if (
      item.description !== undefined && typeof item.description !== "string"
    ) {
      problems.push(`"${at}.description" must be a string`);
    }
    const nested = item.attributes === undefined
      ? []
      : parseConfigSchema(item.attributes, `${at}.attributes`, problems);
    if (type === "object" && nested.length === 0) {
      problems.push(`"${at}" is an object and needs "attributes"`);
    }
    if (type !== "object" && item.attributes !== undefined) {
      problems.push(`"${at}.attributes" is only allowed for type "object"`);
    }
    const spec: ConfigAttributeSpec = {
      name,
      type: type as ConfigAttrType,
      required: item.required === true,
      sensitive: item.sensitive === true,
      description: typeof item.description === "string" ? item.description : "",
      objectAttributes: nested,
    };
    if (item.default !== undefined) {
      if (spec.sensitive) {
        problems.push(
          `"${at}.default" is not allowed on a sensitive attribute`,
        );
      }
      if (spec.required) {
        problems.push(`"${at}.default" is not allowed on a required attribute`);
      }
      spec.defaultJson = JSON.stringify(item.default);
    }
    out.push(spec);
  });
  return out;
}

/**
 * Reads and validates a manifest from a path or URL (`file:`, or a remote
 * URL when the package itself runs from a registry).
 *
 * @param url The manifest's location.
 * @returns The typed manifest.
 * @throws {ManifestError} If the file is missing, not JSON or invalid.
 */
export async function readManifest(url: string | URL): Promise<PluginManifest> {
  const u = url instanceof URL ? url : toUrl(url);
  const shown = u.protocol === "file:"
    ? decodeURIComponent(u.pathname)
    : u.href;
  let text: string;
  try {
    text = u.protocol === "file:"
      ? await Deno.readTextFile(u)
      : await (await fetch(u)).text();
  } catch (err) {
    throw new ManifestError(shown, [
      `cannot read the file: ${err instanceof Error ? err.message : err}`,
    ]);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ManifestError(shown, [
      `not valid JSON: ${err instanceof Error ? err.message : err}`,
    ]);
  }
  return parseManifest(raw, shown);
}

function toUrl(pathOrUrl: string): URL {
  if (/^[a-z][a-z0-9+.-]*:/i.test(pathOrUrl) && !/^[a-z]:\\/i.test(pathOrUrl)) {
    return new URL(pathOrUrl);
  }
  const abs = pathOrUrl.startsWith("/")
    ? pathOrUrl
    : `${Deno.cwd()}/${pathOrUrl}`;
  return new URL(`file://${abs.split("/").map(encodeURIComponent).join("/")}`);
}
