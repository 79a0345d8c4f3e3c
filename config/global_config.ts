/**
 * The per-user global config, `$XDG_CONFIG_HOME/agent/config.hcl`
 * (config.md §2.8): `dev_overrides`, `registry_mirror` and `state`, nothing
 * else. It never holds provider configuration or credentials for providers;
 * a mirror's `auth` and the state database's `url` may only be written
 * `env("NAME")`.
 *
 * ```hcl
 * dev_overrides {
 *   fs = "/home/me/src/provider-fs"
 * }
 *
 * registry_mirror {
 *   default = "https://artifacts.corp.example/forge"
 *   mirror {
 *     prefix = "github.com/example-org/"
 *     url    = "https://artifacts.corp.example/example-org"
 *     auth   = env("CORP_ARTIFACTS_TOKEN")
 *   }
 * }
 *
 * # The team's shared session store, set once per machine; a `state {}`
 * # block in a project's agent.hcl wins over it.
 * state {
 *   backend = "postgres"
 *   url     = env("AGENT_DATABASE_URL")
 * }
 * ```
 *
 * @module
 */

import type { Diagnostic, SourceRange } from "../contract/diagnostic.ts";
import {
  checkSensitiveShape,
  type EnvLookup,
  evaluate,
  type ObjectValue,
  parseHcl,
  Secret,
  type Value,
} from "./hcl/mod.ts";
import { defineKey } from "./hcl/value.ts";
import { checkBody, diag, evalAttr, headerRange } from "./_schema.ts";
import { globalConfigPath } from "./_xdg.ts";
import { decodeState, type PlanState } from "./decode_state.ts";

export { globalConfigPath };

/** One `mirror {}` block. */
export interface RegistryMirrorEntry {
  /** Matched against a provider's source by plain string prefix. */
  prefix: string;
  /** Where matching sources are fetched from. */
  url: string;
  /** The credential, read with `env()`; never revealed by printing. */
  auth?: Secret;
}

/** The `registry_mirror {}` block. */
export interface RegistryMirror {
  /** Used when no mirror's prefix matches. */
  default: string;
  /** The mirrors in declaration order. */
  mirrors: RegistryMirrorEntry[];
}

/** A decoded global config. */
export interface GlobalConfig {
  /** Local name → path of a plugin used directly (no registry, no lock). */
  devOverrides: Record<string, string>;
  /** Where each dev override is written. */
  devOverrideRanges: Record<string, SourceRange>;
  /** Download redirection, when configured. */
  registryMirror?: RegistryMirror;
  /**
   * The state backend every project on this machine uses unless its
   * `agent.hcl` has a `state {}` block of its own; absent when the global
   * config has none. Holds the URL's variable name, never the URL.
   */
  state?: PlanState;
}

/**
 * The dev override of a provider, by its local name: an own entry only, so
 * a provider named like an `Object.prototype` member (`toString`,
 * `constructor`) has none.
 *
 * @param global The decoded global config.
 * @param name The provider's local name.
 * @returns The override's path, or `undefined`.
 */
export function devOverrideOf(
  global: GlobalConfig,
  name: string,
): string | undefined {
  return Object.hasOwn(global.devOverrides, name)
    ? global.devOverrides[name]
    : undefined;
}

/**
 * Where a provider's dev override is written (see {@linkcode devOverrideOf}).
 *
 * @param global The decoded global config.
 * @param name The provider's local name.
 * @returns The range, or `undefined`.
 */
export function devOverrideRangeOf(
  global: GlobalConfig,
  name: string,
): SourceRange | undefined {
  return Object.hasOwn(global.devOverrideRanges, name)
    ? global.devOverrideRanges[name]
    : undefined;
}

/** What {@linkcode decodeGlobalConfig} returns. */
export interface DecodeGlobalConfigResult {
  /** The config; `undefined` when it has errors. */
  config: GlobalConfig | undefined;
  /** Every problem found. */
  diagnostics: Diagnostic[];
}

/**
 * Decodes the global config: a closed schema of three blocks
 * (`dev_overrides`, `registry_mirror`, `state`), each at most once, and no
 * attributes. `state` is decoded as in `agent.hcl` (never connecting). A `provider` block is refused (provider
 * configuration and credentials belong in `agent.hcl`). A mirror's `auth`
 * is shape-checked on the syntax (`env("NAME")` only), then evaluated, so
 * that an unset variable fails the load at once.
 *
 * @example Usage
 * ```ts
 * import { decodeGlobalConfig } from "./global_config.ts";
 * import assert from "node:assert/strict";
 * const text = 'registry_mirror {\n  default = "https://m.example"\n  mirror {\n    prefix = "github.com/acme/"\n    url    = "https://m.example/acme"\n    auth   = "hunter2"\n  }\n}\n';
 * const { diagnostics } = decodeGlobalConfig(text, "config.hcl", {});
 * assert.deepEqual(diagnostics.map((d) => d.code), ["E_SECRET_SHAPE"]);
 * ```
 *
 * @param text The file's text.
 * @param file Its path as shown.
 * @param env The environment `env()` reads.
 * @param options `requireEnv`: whether an unset variable is an error (the
 *   default) or a warning.
 * @returns The config and the diagnostics.
 */
export function decodeGlobalConfig(
  text: string,
  file: string,
  env: EnvLookup | Readonly<Record<string, string | undefined>>,
  options: { requireEnv?: boolean } = {},
): DecodeGlobalConfigResult {
  const parsed = parseHcl(text, file);
  const diagnostics: Diagnostic[] = [...parsed.diagnostics];
  const top = checkBody(
    parsed.body,
    {
      attributes: {},
      blocks: {
        dev_overrides: { labels: [], unique: "type" },
        registry_mirror: { labels: [], unique: "type" },
        state: { labels: [], unique: "type" },
      },
      unknownBlockHints: {
        provider:
          'The global config holds only dev_overrides, registry_mirror and state. Provider configuration, and any credential for a provider, belongs in the project\'s agent.hcl, where secrets are read with env("NAME").',
      },
    },
    "",
    diagnostics,
  );
  const config: GlobalConfig = { devOverrides: {}, devOverrideRanges: {} };
  const dev = top.blocks.get("dev_overrides")?.[0];
  if (dev !== undefined) {
    for (const item of dev.body.items) {
      if (item.kind === "block") {
        diagnostics.push(diag(
          "error",
          "E_UNKNOWN_BLOCK",
          `Unsupported block type "${item.type}"`,
          'dev_overrides holds attributes only: local_name = "<path to the plugin>".',
          item.typeRange,
        ));
        continue;
      }
      const v = evalAttr(item, "string", "dev_overrides", diagnostics);
      if (typeof v === "string") {
        // Defined, not assigned: a local name is any identifier, and
        // assigning `__proto__` would be lost.
        defineKey(config.devOverrides, item.name, v);
        defineKey(config.devOverrideRanges, item.name, item.range);
      }
    }
  }
  const reg = top.blocks.get("registry_mirror")?.[0];
  if (reg !== undefined) {
    const body = checkBody(
      reg.body,
      {
        attributes: { default: { type: "string", required: true } },
        blocks: { mirror: { labels: [] } },
      },
      "registry_mirror",
      diagnostics,
      headerRange(reg),
    );
    const def = body.attrs.get("default");
    const defaultUrl = def
      ? evalAttr(def, "string", "registry_mirror", diagnostics)
      : undefined;
    const mirrors: RegistryMirrorEntry[] = [];
    for (const m of body.blocks.get("mirror") ?? []) {
      const mb = checkBody(
        m.body,
        {
          attributes: {
            prefix: { type: "string", required: true },
            url: { type: "string", required: true },
            auth: { type: "string" },
          },
          blocks: {},
        },
        "mirror",
        diagnostics,
        headerRange(m),
      );
      const get = (n: string) => {
        const a = mb.attrs.get(n);
        return a ? evalAttr(a, "string", "mirror", diagnostics) : undefined;
      };
      const prefix = get("prefix");
      const url = get("url");
      let auth: Secret | undefined;
      const authAttr = mb.attrs.get("auth");
      if (authAttr !== undefined) {
        const shape = checkSensitiveShape(authAttr.expr, {
          place: 'attribute "auth" of mirror',
        });
        if (shape) diagnostics.push(shape);
        else {
          const r = evaluate(authAttr.expr, {
            allowEnv: true,
            env,
            requireEnv: options.requireEnv ?? true,
            place: 'attribute "auth" of mirror',
          });
          for (const each of r.diagnostics) diagnostics.push(each);
          if (r.value !== undefined) auth = toSecret(r.value);
        }
      }
      if (typeof prefix === "string" && typeof url === "string") {
        const entry: RegistryMirrorEntry = { prefix, url };
        if (auth !== undefined) entry.auth = auth;
        mirrors.push(entry);
      }
    }
    if (typeof defaultUrl === "string") {
      config.registryMirror = { default: defaultUrl, mirrors };
    }
  }
  const state = top.blocks.get("state")?.[0];
  if (state !== undefined) config.state = decodeState(state, diagnostics);
  const ok = !diagnostics.some((d) => d.severity === "error");
  return { config: ok ? config : undefined, diagnostics };
}

function toSecret(v: Value): Secret {
  return v instanceof Secret ? v : new Secret(v);
}

/** Where a source is fetched from. */
export interface MirrorSelection {
  /** The base URL. */
  url: string;
  /** The mirror's credential, if any. */
  auth?: Secret;
  /** The matching prefix; `undefined` when the default applies. */
  prefix?: string;
}

/**
 * Picks the mirror for a provider source (config.md §2.8): the longest
 * matching `prefix` wins whatever the declaration order, a tie goes to the
 * first declared, and with no match the `default` applies. Matching is a
 * plain string prefix (include the trailing `/`).
 *
 * @example Usage
 * ```ts
 * import { selectMirror } from "./global_config.ts";
 * import assert from "node:assert/strict";
 * const reg = { default: "https://d", mirrors: [
 *   { prefix: "github.com/", url: "https://gh" },
 *   { prefix: "github.com/acme/", url: "https://acme" },
 * ] };
 * assert.equal(selectMirror(reg, "github.com/acme/x").url, "https://acme");
 * assert.equal(selectMirror(reg, "gitlab.com/a/b").url, "https://d");
 * ```
 *
 * @param registry The `registry_mirror` block.
 * @param source A provider source.
 * @returns The URL (and credential) to use.
 */
export function selectMirror(
  registry: RegistryMirror,
  source: string,
): MirrorSelection {
  let best: RegistryMirrorEntry | undefined;
  for (const m of registry.mirrors) {
    if (!source.startsWith(m.prefix)) continue;
    if (best === undefined || m.prefix.length > best.prefix.length) best = m;
  }
  if (best === undefined) return { url: registry.default };
  const out: MirrorSelection = { url: best.url, prefix: best.prefix };
  if (best.auth !== undefined) out.auth = best.auth;
  return out;
}

/**
 * The JSON form of a global config for the plan (credentials redacted).
 *
 * @param config The global config.
 * @returns Plain data.
 */
export function globalConfigToJson(config: GlobalConfig): ObjectValue {
  const out: ObjectValue = {
    dev_overrides: Object.fromEntries(
      Object.keys(config.devOverrides).sort().map((
        k,
      ) => [k, config.devOverrides[k]!]),
    ),
  };
  if (config.registryMirror) {
    out.registry_mirror = {
      default: config.registryMirror.default,
      mirrors: config.registryMirror.mirrors.map((m) => {
        const o: ObjectValue = { prefix: m.prefix, url: m.url };
        if (m.auth) o.auth = "(sensitive)";
        return o;
      }),
    };
  }
  if (config.state) {
    out.state = config.state.backend === "postgres"
      ? {
        backend: "postgres",
        url_env: config.state.urlEnv,
        schema: config.state.schema,
      }
      : { backend: config.state.backend };
  }
  return out;
}
